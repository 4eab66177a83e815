"""What one seat sees in Catz, Ratz and Batz: everything is public (no hidden information).

The observation vector, for the observing seat (own entries first, then the
other seats in turn order after it):

==============================  ======================================  =====
index                           meaning                                 scale
==============================  ======================================  =====
0, 1, 2                         Cats, Bats, Rats set aside this turn    /9
3, 4, 5                         dice showing 3, 5, 7                    /9
6                               phase: the seat to act must roll        0/1
7                               phase: the seat to act must keep        0/1
8 .. 8+n-1                      totals (own first)                      /100
8+n .. 8+2n-1                   turns left / ``turns`` (0 if uncapped)  0..1
8+2n .. 8+3n-1                  whose turn (one-hot, own first)         0/1
8+3n .. 8+4n-1                  points still needed / ``target_score``  0..1
                                (0 without a target)
==============================  ======================================  =====

The dice are those of the turn in progress (zeros before the roll).
"""

from __future__ import annotations

import numpy as np

from ratenvs.catz_ratz_batz.rules import (
    NUM_DICE,
    PHASE_KEEP,
    PHASE_OVER,
    PHASE_ROLL,
    Dice,
    State,
    numbers_showing,
)

ACTION_KEEP_3, ACTION_KEEP_5, ACTION_KEEP_7, ACTION_ROLL = range(4)
"""Action indices: keep the 3s, 5s or 7s after a roll; roll all nine dice to start a turn."""
NUM_ACTIONS = 4

DICE_SLICE = slice(0, 6)
PHASE_ROLL_INDEX = 6
PHASE_KEEP_INDEX = 7
TOTAL_SCALE = 100.0
"""Totals are divided by this (one turn scores at most 175)."""


def observation_size(num_players: int) -> int:
    """Length of the observation vector for ``num_players`` seats."""
    return 8 + 4 * num_players


MAX_TURN_SCORE = 175
"""Highest score of one turn: four Cats and five 7s, 35 * (1 + 4)."""


def max_total(turns: int | None, target_score: int | None) -> int:
    """Highest total a seat can reach: every turn at the maximum, or (race) one turn past
    a total just below the target (the game ends with the round in which someone reaches it)."""
    bounds = []
    if turns is not None:
        bounds.append(MAX_TURN_SCORE * turns)
    if target_score is not None:
        bounds.append(target_score - 1 + MAX_TURN_SCORE)
    return min(bounds)


def observation_bounds(
    num_players: int, turns: int | None, target_score: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """Low and high bounds of every entry."""
    n = num_players
    low = np.zeros(observation_size(n), dtype=np.float32)
    high = np.ones(observation_size(n), dtype=np.float32)
    high[8 : 8 + n] = max_total(turns, target_score) / TOTAL_SCALE
    return low, high


def observe(state: State, seat: int) -> np.ndarray:
    """The observation vector of ``seat`` (see the module table)."""
    n = state.num_players
    d = state.dice
    inv = 1.0 / NUM_DICE
    order = [(seat + i) % n for i in range(n)]
    vec = [d.cats * inv, d.bats * inv, d.rats * inv, d.threes * inv, d.fives * inv]
    vec.append(d.sevens * inv)
    vec.append(1.0 if state.phase == PHASE_ROLL else 0.0)
    vec.append(1.0 if state.phase == PHASE_KEEP else 0.0)
    totals = state.totals
    vec.extend(totals[s] / TOTAL_SCALE for s in order)
    if state.turns is None:
        vec.extend([0.0] * n)
    else:
        turns = state.turns
        vec.extend((turns - state.turns_taken[s]) / turns for s in order)
    turn = [0.0] * n
    if state.phase in (PHASE_ROLL, PHASE_KEEP):
        turn[(state.current - seat) % n] = 1.0
    vec.extend(turn)
    target = state.target_score
    if target is None:
        vec.extend([0.0] * n)
    else:
        vec.extend(max(target - totals[s], 0) / target for s in order)
    return np.array(vec, dtype=np.float32)


def dice_from_observation(observation: np.ndarray) -> Dice:
    """Recover the dice of the turn in progress from an observation vector."""
    counts = np.rint(np.asarray(observation[DICE_SLICE], dtype=np.float64) * NUM_DICE)
    return Dice(*(int(c) for c in counts))


def observation_for_dice(dice: Dice, num_players: int = 1, turns: int | None = 10) -> np.ndarray:
    """The observation of a seat that must keep a number with ``dice`` on its first turn.

    Used to grade observation-based policies (bots, trained agents) with the
    exact solver.
    """
    state = State.new(num_players, turns, None)
    state.phase = PHASE_KEEP
    state.dice = dice
    return observe(state, 0)


_KEEP_MASKS = {
    keeps: np.array([3 in keeps, 5 in keeps, 7 in keeps, 0], dtype=np.int8)
    for keeps in [(3,), (5,), (7,), (3, 5), (3, 7), (5, 7), (3, 5, 7)]
}
_ROLL_MASK = np.array([0, 0, 0, 1], dtype=np.int8)
_NO_ACTIONS = np.zeros(NUM_ACTIONS, dtype=np.int8)


def keep_mask(dice: Dice) -> np.ndarray:
    """The action mask of a seat that must keep a number with ``dice`` showing."""
    return _KEEP_MASKS[numbers_showing(dice)].copy()


def action_mask(state: State, seat: int) -> np.ndarray:
    """The legal actions of ``seat``: roll at the start of its turn, else keep a number showing."""
    if seat != state.current or state.phase == PHASE_OVER:
        return _NO_ACTIONS.copy()
    if state.phase == PHASE_ROLL:
        return _ROLL_MASK.copy()
    return keep_mask(state.dice)
