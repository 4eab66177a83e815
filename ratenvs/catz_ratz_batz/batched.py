"""Catz, Ratz and Batz, batched: thousands of games advanced by one compiled kernel.

The same game as :class:`~ratenvs.catz_ratz_batz.rules.CatzRatzBatz` (the
readable spec), with the same options and the same observation vectors
(the ``knowledge`` observer's pieces, the acting seat's own entries first).
A game of the batch is rows of small integer arrays: the nine dice of the
turn in progress as face counts (Cats, Bats, Rats set aside; dice showing 3,
5, 7), every seat's total and turns taken, the seat to act and the phase
(roll or keep). The observation tables grow with a seat's highest total, so the engine
holds ``turns`` up to 10,000 and ``target_score`` up to 1,000,000 (a ValueError naming
the option beyond; the reference game has no bound).

Chance: a roll of ``n`` dice is ``n`` fair six-sided dice from the game's own
generator, logged (for games in ``log_games``) as the multinomial counts the
reference game draws. Bots played inside the kernel: ``random``,
``most_common``, ``lowest`` and ``optimal`` (the exact solver's keep), as in
:mod:`ratenvs.catz_ratz_batz.bots`.

    engine = BatchedCatzRatzBatz(4096, seed=0, num_players=2)
    batch = engine.reset()
    for _ in range(1000):
        actions = policy(batch.observation, batch.mask)   # (4096,) ints
        batch = engine.step(actions)
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from ratenvs.catz_ratz_batz.observe import TOTAL_SCALE, max_total
from ratenvs.catz_ratz_batz.rules import (
    NUM_ACTIONS,
    NUM_DICE,
    NUMBERS,
    PHASE_KEEP,
    PHASE_OVER,
    PHASE_ROLL,
    CatzRatzBatz,
    Dice,
)
from ratenvs.common.batched import (
    TAPE_EPISODE,
    TAPE_MULTINOMIAL,
    BatchedGame,
    below,
    borrow,
    first_illegal,
    lean_1d,
    lean_2d,
    lean_3d,
    lean_bool,
    lean_int,
    lean_open,
    tape_put,
    uniform,
)
from ratenvs.common.jit import njit

ACTION_ROLL = 3
BOT_RANDOM, BOT_MOST_COMMON, BOT_LOWEST, BOT_OPTIMAL = range(4)
BOT_NAMES = ("random", "most_common", "lowest", "optimal")
# dice columns: Cats, Bats, Rats set aside; dice showing 3, 5, 7 (the Dice tuple's order)
CATS, BATS, RATS, THREES, FIVES, SEVENS = range(6)
_NO_TARGET = -1
_UNCAPPED = -1


def max_total_of(game: CatzRatzBatz) -> int:
    """Highest total a seat can reach in ``game`` (the observation tables' length)."""
    return max_total(game.turns, game.target_score)


def _code(d: Dice) -> int:
    c = 0
    for x in d:
        c = c * 10 + x
    return c


@lru_cache(maxsize=1)
def optimal_keep_table() -> np.ndarray:
    """The optimal bot's keep (action 0, 1, 2) for every dice state, indexed by the dice's
    decimal digits (Cats, Bats, Rats, 3s, 5s, 7s); -1 where there is no decision."""
    from ratenvs.catz_ratz_batz.solver import solve

    table = np.full(10**6, -1, dtype=np.int8)
    for dice, keep in solve().policy.items():
        table[_code(dice)] = NUMBERS.index(keep)
    return table


@lru_cache(maxsize=1)
def roll_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Walker alias tables of a roll of ``n`` dice (n = 0..9) over its face-count outcomes:
    (outcomes per n, acceptance probability, alias, the outcomes' counts of faces 3, 5, 7,
    Cat, Bat, Rat), so that one uniform draw gives the counts of a whole roll."""
    size = np.zeros(NUM_DICE + 1, dtype=np.int64)
    top = math.comb(NUM_DICE + 5, 5)
    accept = np.ones((NUM_DICE + 1, top), dtype=np.float64)
    other = np.zeros((NUM_DICE + 1, top), dtype=np.int64)
    outcomes = np.zeros((NUM_DICE + 1, top, 6), dtype=np.int64)
    for n in range(NUM_DICE + 1):
        rows = [c for c in itertools.product(range(n + 1), repeat=6) if sum(c) == n]
        probs = np.array(
            [math.factorial(n) / math.prod(math.factorial(x) for x in c) / 6.0**n for c in rows]
        )
        k = len(rows)
        size[n] = k
        outcomes[n, :k] = rows
        # Vose's construction
        scaled = probs * k
        small = [i for i in range(k) if scaled[i] < 1.0]
        large = [i for i in range(k) if scaled[i] >= 1.0]
        while small and large:
            s, big = small.pop(), large.pop()
            accept[n, s] = scaled[s]
            other[n, s] = big
            scaled[big] -= 1.0 - scaled[s]
            (small if scaled[big] < 1.0 else large).append(big)
        for i in small + large:
            accept[n, i] = 1.0
            other[n, i] = i
    return size, accept, other, outcomes


# ----------------------------------------------------------------- kernels
@njit(cache=True, inline="always")
def _showing(dice: np.ndarray, g: int) -> int:
    return (dice[g, THREES] > 0) + (dice[g, FIVES] > 0) + (dice[g, SEVENS] > 0)


@njit(cache=True, inline="always")
def _roll(dice, g, n, rng, slot_of, tape, cursor, alias):
    """Roll ``n`` dice for game ``g``: the animals join those set aside, the numbers join
    the dice showing; logged as the multinomial counts of faces 3, 5, 7, Cat, Bat, Rat."""
    # the face counts of n dice in one draw: Walker's alias method over every outcome
    outcomes = alias[3]
    u = uniform(rng, g) * alias[0][n]
    k = int(u)
    if u - k >= alias[1][n, k]:
        k = alias[2][n, k]
    c3 = outcomes[n, k, 0]
    c5 = outcomes[n, k, 1]
    c7 = outcomes[n, k, 2]
    cc = outcomes[n, k, 3]
    cb = outcomes[n, k, 4]
    cr = outcomes[n, k, 5]
    slot = slot_of[g]
    if slot >= 0:
        tape_put(tape, cursor, slot, TAPE_MULTINOMIAL)
        tape_put(tape, cursor, slot, n)
        tape_put(tape, cursor, slot, 6)
        tape_put(tape, cursor, slot, c3)
        tape_put(tape, cursor, slot, c5)
        tape_put(tape, cursor, slot, c7)
        tape_put(tape, cursor, slot, cc)
        tape_put(tape, cursor, slot, cb)
        tape_put(tape, cursor, slot, cr)
    dice[g, CATS] += cc
    dice[g, BATS] += cb
    dice[g, RATS] += cr
    dice[g, THREES] += c3
    dice[g, FIVES] += c5
    dice[g, SEVENS] += c7


@njit(cache=True, inline="always")
def _turn_score(dice, g):
    n3 = dice[g, THREES]
    n5 = dice[g, FIVES]
    n7 = dice[g, SEVENS]
    if n3 > 0:
        number = 3
        count = n3
    elif n5 > 0:
        number = 5
        count = n5
    elif n7 > 0:
        number = 7
        count = n7
    else:
        return 0
    good = dice[g, CATS] + (dice[g, BATS] if number == 3 else 0)
    bad = dice[g, RATS] + (dice[g, BATS] if number == 7 else 0)
    if good < bad:
        return 0
    return number * count * (1 + good - bad)


@njit(cache=True, inline="always")
def _apply(g, action, p, turns, target, race_turn, win, dice, totals, taken, current, phase, rng,
           slot_of, tape, cursor, rewards, running, alias):  # fmt: skip
    """One decision of the seat to act in game ``g``; returns True if the game ended."""
    seat = current[g]
    if action == ACTION_ROLL:
        for k in range(6):
            dice[g, k] = 0
        _roll(dice, g, NUM_DICE, rng, slot_of, tape, cursor, alias)
    else:
        col = THREES + action
        kept = dice[g, col]
        n = dice[g, THREES] + dice[g, FIVES] + dice[g, SEVENS] - kept
        dice[g, THREES] = 0
        dice[g, FIVES] = 0
        dice[g, SEVENS] = 0
        dice[g, col] = kept
        _roll(dice, g, n, rng, slot_of, tape, cursor, alias)
    if _showing(dice, g) > 1:
        phase[g] = PHASE_KEEP
        return False
    points = _turn_score(dice, g)
    totals[g, seat] += points
    taken[g, seat] += 1
    if not win:
        rewards[g, seat] += points
        running[g, seat] += points
    over = False
    if seat == p - 1 and turns != _UNCAPPED and taken[g, seat] >= turns:
        over = True
    if (seat == p - 1 or race_turn) and target != _NO_TARGET:
        best = totals[g, 0]
        for s in range(1, p):
            best = max(best, totals[g, s])
        if best >= target:
            over = True
    current[g] = (seat + 1) % p
    if not over:
        phase[g] = PHASE_ROLL
        return False
    phase[g] = PHASE_OVER
    if win and p >= 2:
        best = totals[g, 0]
        for s in range(1, p):
            best = max(best, totals[g, s])
        w = 0
        for s in range(p):
            if totals[g, s] == best:
                w += 1
        if w < p:
            for s in range(p):
                share = (1.0 / w if totals[g, s] == best else 0.0) - 1.0 / p
                r = p / (p - 1) * share
                rewards[g, s] += r
                running[g, s] += r
    return True


@njit(cache=True, inline="always")
def _bot_action(bot, g, dice, phase, rng, optimal):
    if phase[g] == PHASE_ROLL:
        return ACTION_ROLL
    n3 = dice[g, THREES]
    n5 = dice[g, FIVES]
    n7 = dice[g, SEVENS]
    if bot == BOT_RANDOM:
        k = below(rng, g, (n3 > 0) + (n5 > 0) + (n7 > 0))
        for a, n in ((0, n3), (1, n5), (2, n7)):
            if n > 0:
                if k == 0:
                    return a
                k -= 1
        return -1
    if bot == BOT_MOST_COMMON:  # the most dice; ties: the higher number
        if n7 >= n5 and n7 >= n3 and n7 > 0:
            return 2
        if n5 >= n3 and n5 > 0:
            return 1
        return 0
    if bot == BOT_LOWEST:
        if n3 > 0:
            return 0
        if n5 > 0:
            return 1
        return 2
    code = 0
    for k in range(6):
        code = code * 10 + dice[g, k]
    return optimal[code]


@njit(cache=True, inline="always")
def _new_game(g, p, dice, totals, taken, current, phase, slot_of, tape, cursor, running):
    for k in range(6):
        dice[g, k] = 0
    for s in range(p):
        totals[g, s] = 0
        taken[g, s] = 0
        running[g, s] = 0.0
    current[g] = 0
    phase[g] = PHASE_ROLL
    slot = slot_of[g]
    if slot >= 0:
        tape_put(tape, cursor, slot, TAPE_EPISODE)


@njit(cache=True, inline="always")
def _observe_from(g, seat, p, dice, totals, taken, current, phase, tables, obs, row):
    """The observation vector of game ``g`` seen from ``seat`` (its entries first), written
    to ``obs[row]``."""
    for k in range(6):
        obs[row, k] = tables[0, dice[g, k]]
    ph = phase[g]
    obs[row, 6] = 1.0 if ph == PHASE_ROLL else 0.0
    obs[row, 7] = 1.0 if ph == PHASE_KEEP else 0.0
    base = 8
    s = seat
    relative = tables.shape[0] == 5  # totals_view "relative"
    own = totals[g, seat]
    turn = current[g] - seat
    if turn < 0:
        turn += p
    for i in range(p):
        t = totals[g, s]
        if relative:
            obs[row, base + i] = (t - own) / TOTAL_SCALE
        else:
            obs[row, base + i] = tables[1, t]
        obs[row, base + p + i] = tables[2, taken[g, s]]
        obs[row, base + 2 * p + i] = 1.0 if i == turn and ph != PHASE_OVER else 0.0
        obs[row, base + 3 * p + i] = tables[3, t]
        s += 1
        if s == p:
            s = 0


@njit(cache=True, inline="always")
def _observe(g, p, dice, totals, taken, current, phase, tables, obs, mask, to_act):
    seat = current[g]
    _observe_from(g, seat, p, dice, totals, taken, current, phase, tables, obs, g)
    if phase[g] == PHASE_ROLL:
        mask[g, 0] = 0
        mask[g, 1] = 0
        mask[g, 2] = 0
        mask[g, 3] = 1
    else:
        mask[g, 0] = dice[g, THREES] > 0
        mask[g, 1] = dice[g, FIVES] > 0
        mask[g, 2] = dice[g, SEVENS] > 0
        mask[g, 3] = 0
    to_act[g] = seat


@njit(cache=True)
def _privileged(p, dice, totals, taken, current, phase, tables, out):
    for g in range(out.shape[0]):
        _observe_from(g, 0, p, dice, totals, taken, current, phase, tables, out, g)


def observation_tables(
    turns: int | None, target: int | None, top: int, totals_view: str = "absolute"
) -> np.ndarray:
    """Every value an observation entry can take, computed once as the reference observer
    computes it (so the kernel looks values up instead of dividing): row 0 dice / 9, row 1
    totals / 100, row 2 turns left / turns (by turns taken), row 3 points needed / target.
    With ``totals_view="relative"`` a fifth row (zeros) tells the kernel to write each
    seat's total minus the observer's / 100 instead of row 1 (divided in float64 as the
    observer divides)."""
    # in float64 as the observer (an integer below 2**53 converts exactly and one IEEE
    # division rounds as Python's does), then float32
    t = np.zeros((5 if totals_view == "relative" else 4, top + 1), dtype=np.float32)
    v = np.arange(top + 1, dtype=np.float64)
    t[0, : NUM_DICE + 1] = [k * (1.0 / NUM_DICE) for k in range(NUM_DICE + 1)]
    t[1] = v / TOTAL_SCALE
    if turns is not None:
        t[2, : turns + 1] = (turns - v[: turns + 1]) / turns
    if target is not None:
        t[3] = np.maximum(target - v, 0.0) / target
    return t


@njit(cache=True)
def _run(actions_, active_, bots_, next_bots_, reset_all, p, turns, target, race_turn, win, dice_,
         totals_, taken_, current_, phase_, rng_, slot_of_, tape_, cursor_, rewards_, pending_,
         running_, returns_, terminated_, obs_, mask_, to_act_, optimal_, tables_,
         alias_, final_):  # fmt: skip
    """Advance every game: its external action (where ``active``), then the kernel's bots
    until an external seat must act; a finished game is reset (its seats' players taken
    from ``next_bots``) and played on to its first external decision (those opening
    rewards carry to the next step). A new game the bots finish before any external seat
    decides (``race_end="turn"``: an opening bot reaches the target) is dropped, its
    rewards with it, and another is dealt. A game that ends leaves its external seats'
    observations in ``final`` (row ``g * p + seat``) before it is reset. Every array is
    borrowed (no reference counting)."""
    actions, active, bots = borrow(actions_), borrow(active_), borrow(bots_)
    next_bots, dice, totals = borrow(next_bots_), borrow(dice_), borrow(totals_)
    taken, current, phase = borrow(taken_), borrow(current_), borrow(phase_)
    rng, slot_of, tape, cursor = borrow(rng_), borrow(slot_of_), borrow(tape_), borrow(cursor_)
    rewards, pending, running = borrow(rewards_), borrow(pending_), borrow(running_)
    returns, terminated, obs = borrow(returns_), borrow(terminated_), borrow(obs_)
    mask, to_act, optimal, tables = (
        borrow(mask_),
        borrow(to_act_),
        borrow(optimal_),
        borrow(tables_),
    )
    alias = (borrow(alias_[0]), borrow(alias_[1]), borrow(alias_[2]), borrow(alias_[3]))
    final = borrow(final_)
    for g in range(actions.shape[0]):
        for s in range(p):
            rewards[g, s] = pending[g, s]
            pending[g, s] = 0.0
        terminated[g] = False
        opening = reset_all  # a new game: played to its first external decision below
        if reset_all:
            for s in range(p):
                rewards[g, s] = 0.0
        elif active[g]:
            terminated[g] = _apply(g, actions[g], p, turns, target, race_turn, win, dice,
                                   totals, taken, current, phase, rng, slot_of, tape, cursor,
                                   rewards, running, alias)  # fmt: skip
            while not terminated[g] and bots[g, current[g]] >= 0:
                a = _bot_action(bots[g, current[g]], g, dice, phase, rng, optimal)
                terminated[g] = _apply(g, a, p, turns, target, race_turn, win, dice, totals,
                                       taken, current, phase, rng, slot_of, tape, cursor,
                                       rewards, running, alias)  # fmt: skip
            for s in range(p):
                returns[g, s] = running[g, s]
            opening = terminated[g]
            if opening:  # the external seats' last observations, before the reset
                for s in range(p):
                    if bots[g, s] < 0:
                        _observe_from(g, s, p, dice, totals, taken, current, phase, tables,
                                      final, g * p + s)  # fmt: skip
        # a new game's opening bot moves (set_bots keeps an external seat in every game);
        # their rewards go to the next step (on a reset, to this one)
        while opening:
            _new_game(g, p, dice, totals, taken, current, phase, slot_of, tape, cursor, running)
            for s in range(p):
                bots[g, s] = next_bots[g, s]
            out = rewards if reset_all else pending
            opening = False
            while bots[g, current[g]] >= 0:
                a = _bot_action(bots[g, current[g]], g, dice, phase, rng, optimal)
                if _apply(g, a, p, turns, target, race_turn, win, dice, totals, taken, current,
                          phase, rng, slot_of, tape, cursor, out, running, alias):  # fmt: skip
                    for s in range(p):  # finished before an external seat decided: dropped
                        out[g, s] = 0.0
                    opening = True
                    break
        if reset_all:
            for s in range(p):
                returns[g, s] = running[g, s]
        _observe(g, p, dice, totals, taken, current, phase, tables, obs, mask, to_act)


@njit(cache=True)
def _lean_run(address):
    """:func:`_run` for a step of external actions, its arguments read from the lean table at
    ``address`` (see ``ratenvs.common.batched``, lean calls; the order of
    ``BatchedCatzRatzBatz._kernel_arguments``): -1 when the step was played, else the first
    game whose action its mask forbids (nothing moved)."""
    t = lean_open(address)
    i64 = np.int64
    actions, active, mask = lean_1d(t, 0, i64), lean_1d(t, 1, np.bool_), lean_2d(t, 25, np.int8)
    g = first_illegal(mask, actions, active)
    if g >= 0:
        return g
    alias = (lean_1d(t, 29, i64), lean_2d(t, 30, np.float64), lean_2d(t, 31, i64),
             lean_3d(t, 32, i64))  # fmt: skip
    _run(actions, active, lean_2d(t, 2, i64), lean_2d(t, 3, i64), lean_bool(t, 4),
         lean_int(t, 5), lean_int(t, 6), lean_int(t, 7), lean_bool(t, 8), lean_bool(t, 9),
         lean_2d(t, 10, i64), lean_2d(t, 11, i64), lean_2d(t, 12, i64), lean_1d(t, 13, i64),
         lean_1d(t, 14, i64), lean_1d(t, 15, np.uint64), lean_1d(t, 16, i64),
         lean_2d(t, 17, np.float64), lean_1d(t, 18, i64), lean_2d(t, 19, np.float32),
         lean_2d(t, 20, np.float32), lean_2d(t, 21, np.float32), lean_2d(t, 22, np.float32),
         lean_1d(t, 23, np.bool_), lean_2d(t, 24, np.float32), mask, lean_1d(t, 26, i64),
         lean_1d(t, 27, np.int8), lean_2d(t, 28, np.float32), alias,
         lean_2d(t, 33, np.float32))  # fmt: skip
    return -1


@njit(cache=True)
def _bot_actions(bot, dice, phase, rng, optimal, out):
    for g in range(out.shape[0]):
        out[g] = _bot_action(bot, g, dice, phase, rng, optimal)


class BatchedCatzRatzBatz(BatchedGame):
    """``num_envs`` games of Catz, Ratz and Batz with the same options (see the module
    docstring); the options are :class:`~ratenvs.catz_ratz_batz.rules.CatzRatzBatz`'s."""

    game_class = CatzRatzBatz
    tape_per_step: ClassVar[int] = 9 * 16
    bot_names = BOT_NAMES

    def _allocate(self) -> None:
        n, p = self.num_envs, self.num_players
        game = self.game
        self._turns = _UNCAPPED if game.turns is None else int(game.turns)
        self._target = _NO_TARGET if game.target_score is None else int(game.target_score)
        self._race_turn = game.race_end == "turn"
        self._win = game.reward_mode == "win"
        self.dice = np.zeros((n, 6), dtype=np.int64)
        self.totals = np.zeros((n, p), dtype=np.int64)
        self.taken = np.zeros((n, p), dtype=np.int64)
        self.current = np.zeros(n, dtype=np.int64)
        self.phase = np.zeros(n, dtype=np.int64)
        self.obs = np.zeros((n, self.observation_size), dtype=np.float32)
        self.mask = np.zeros((n, NUM_ACTIONS), dtype=np.int8)
        self.to_act = np.zeros(n, dtype=np.int64)
        self._pending = np.zeros((n, p), dtype=np.float32)
        self._running = np.zeros((n, p), dtype=np.float32)
        self._optimal = optimal_keep_table()
        self._alias = roll_tables()
        self._tables = observation_tables(
            game.turns, game.target_score, max_total_of(game), game.totals_view
        )

    lean_wrapper = _lean_run

    def _kernel_arguments(
        self, actions: np.ndarray, active: np.ndarray, reset_all: bool
    ) -> list[Any]:
        """:func:`_run`'s arguments (the lean table's too, in this order)."""
        return [actions, active, self.bots, self.next_bots, reset_all, self.num_players,
                self._turns, self._target, self._race_turn, self._win, self.dice, self.totals,
                self.taken, self.current, self.phase, self.rng, self.slot_of, self.tape,
                self.cursor, self.rewards, self._pending, self._running, self.returns,
                self.terminated, self.obs, self.mask, self.to_act, self._optimal, self._tables,
                self._alias, self.final_obs.reshape(-1, self.observation_size)]  # fmt: skip

    def _kernel(self, actions: np.ndarray, active: np.ndarray, reset_all: bool) -> None:
        _run(*self._kernel_arguments(actions, active, reset_all))

    def _lean_arguments(self, actions: np.ndarray) -> list[Any]:
        return self._kernel_arguments(actions, self._everybody, False)

    def _reset_games(self) -> None:
        self._pending[:] = 0.0
        self._kernel(self._no_actions, self._nobody, True)

    def _step_games(self, actions: np.ndarray, active: np.ndarray) -> None:
        self._kernel(actions, active, False)

    def _play_bots(self) -> None:
        self._kernel(self._no_actions, self._nobody, False)

    def state_observation(self) -> np.ndarray:
        """The ``privileged`` observer's vector of every game (PettingZoo's ``state()``: the
        table seen from seat 0, ``to_act`` naming the seat whose turn it is)."""
        out = np.zeros((self.num_envs, self.state_size), dtype=np.float32)
        _privileged(self.num_players, self.dice, self.totals, self.taken, self.current,
                    self.phase, self._tables, out)  # fmt: skip
        return out

    def bot_actions(self, name: str) -> np.ndarray:
        """What bot ``name`` would play now in every game (drawing from the games'
        generators, as the kernel's bots do)."""
        out = np.zeros(self.num_envs, dtype=np.int64)
        _bot_actions(self.bot_index(name), self.dice, self.phase, self.rng, self._optimal, out)
        return out


ENGINE = BatchedCatzRatzBatz
"""The game's batched engine (``GameSpec.batched()``)."""
