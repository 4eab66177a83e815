"""What one seat sees in Catz, Ratz and Batz: everything is public (no hidden information).

The observation is the :class:`TableObserver`'s pieces, the observing seat's
own entries first, then the other seats in turn order after it. The dice are
those of the turn in progress; at a roll (phase "must roll") they are still the dice
the last turn ended with, all public (zeros before the game's first roll). For ``n``
seats (the
table for 2 seats; the pieces of ``n`` entries grow with the table):

{table}

The ``privileged`` view (PettingZoo's ``state()``) is the same vector seen from
seat 0: seats in seat order, ``to_act`` naming the seat whose turn it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ratenvs.catz_ratz_batz.rules import (
    ACTION_KEEP_3,
    ACTION_KEEP_5,
    ACTION_KEEP_7,
    ACTION_ROLL,
    NUM_ACTIONS,
    NUM_DICE,
    PHASE_KEEP,
    PHASE_OVER,
    PHASE_ROLL,
    Dice,
    State,
    keep_mask,
    numbers_showing,
)
from ratenvs.common.observer import Observer, Piece
from ratenvs.common.observer import max_total as common_max_total

if TYPE_CHECKING:
    from ratenvs.catz_ratz_batz.rules import CatzRatzBatz

__all__ = [
    "ACTION_KEEP_3",
    "ACTION_KEEP_5",
    "ACTION_KEEP_7",
    "ACTION_ROLL",
    "NUM_ACTIONS",
    "TableObserver",
    "dice_from_observation",
    "keep_mask",
    "observation_for_dice",
]

TOTAL_SCALE = 100.0
"""Totals are divided by this (one turn scores at most 175)."""
MAX_TURN_SCORE = 175
"""Highest score of one turn: four Cats and five 7s, 35 * (1 + 4)."""


def max_total(turns: int | None, target_score: int | None) -> int:
    """Highest game total a seat can reach: every turn at the maximum, or (race) one turn
    past a total just below the target."""
    return common_max_total(MAX_TURN_SCORE, turns, target_score)


def pieces(
    num_players: int,
    turns: int | None,
    target_score: int | None,
    totals_view: str = "absolute",
) -> list[Piece]:
    """The named pieces of the observation vector (``totals_view``: the game's option)."""
    n = num_players
    top = max_total(turns, target_score) / TOTAL_SCALE
    relative = totals_view == "relative"
    totals = Piece(
        "totals",
        (n,),
        "totals / 100, own first (`totals_view` relative: each minus the observer's, own 0)",
        low=-top if relative else 0.0,
        high=top,
    )
    return [
        Piece("set_aside", (3,), "Cats, Bats, Rats set aside this turn / 9"),
        Piece("showing", (3,), "dice showing 3, 5, 7 / 9"),
        Piece("phase", (2,), "the seat to act must roll / must keep (one-hot)"),
        totals,
        Piece("turns_left", (n,), "turns left / `turns` (0 when uncapped)"),
        Piece("to_act", (n,), "whose turn (one-hot, own first)"),
        Piece("points_needed", (n,), "points still needed / `target_score` (0 without one)"),
    ]


class TableObserver(Observer):
    """The public table from one seat: dice, phase, totals, turns left, whose turn."""

    def __init__(self, game: CatzRatzBatz, kind: str) -> None:
        super().__init__(
            kind, pieces(game.num_players, game.turns, game.target_score, game.totals_view)
        )
        self.game = game
        self.relative = game.totals_view == "relative"
        self.turns = game.turns
        self.target_score = game.target_score
        self._orders: dict[int, list[list[int]]] = {}
        """Per table size: every seat's view order (the seat first, then in turn order)."""

    def observe(self, state: State, seat: int | None) -> np.ndarray:
        """The vector of ``seat`` (None: the privileged view, seat order)."""
        seat = 0 if seat is None else seat
        n = len(state.totals)
        orders = self._orders.get(n)
        if orders is None:
            orders = self._orders[n] = [[(s + i) % n for i in range(n)] for s in range(n)]
        order = orders[seat]
        d = state.dice
        inv = 1.0 / NUM_DICE
        phase = state.phase
        vec = [
            d.cats * inv,
            d.bats * inv,
            d.rats * inv,
            d.threes * inv,
            d.fives * inv,
            d.sevens * inv,
            1.0 if phase == PHASE_ROLL else 0.0,
            1.0 if phase == PHASE_KEEP else 0.0,
        ]
        totals = state.totals
        if self.relative:
            own = totals[seat]
            vec += [(totals[s] - own) / TOTAL_SCALE for s in order]
        else:
            vec += [totals[s] / TOTAL_SCALE for s in order]
        turns = self.turns
        if turns is None:
            vec += [0.0] * n
        else:
            taken = state.turns_taken
            vec += [(turns - taken[s]) / turns for s in order]
        turn = [0.0] * n
        if phase != PHASE_OVER:
            turn[(state.current - seat) % n] = 1.0
        vec += turn
        target = self.target_score
        if target is None:
            vec += [0.0] * n
        else:
            vec += [max(target - totals[s], 0) / target for s in order]
        return np.array(vec, dtype=np.float32)

    def string_from(self, state: State, seat: int | None) -> str:
        """The table as text; everything is public, so a seat's view only marks it "(you)"."""
        game = self.game
        agents = [f"player_{i}" for i in range(len(state.totals))]
        lines = []
        for i, a in enumerate(agents):
            mark = "*" if (not state.is_over and i == state.current) else " "
            left = game.turns_left(state, i)
            you = " (you)" if seat == i else ""
            lines.append(
                f"{mark} {a}{you}: total {state.totals[i]:4d}"
                + ("" if left is None else f"  turns left {left}")
            )
        if state.is_over:
            winners = [a for a, w in zip(agents, state.winners()) if w]
            lines.append(f"game over - winner(s): {', '.join(winners)}")
        elif state.phase == PHASE_ROLL:
            last = (
                ""
                if state.last_turn_score is None
                else f" (last turn scored {state.last_turn_score})"
            )
            lines.append(f"{agents[state.current]} to roll{last}")
        else:
            lines.append(f"dice: {state.dice.faces()}  keep one of {numbers_showing(state.dice)}")
        return "\n".join(lines)


def _table_doc() -> str:
    from ratenvs.catz_ratz_batz.rules import CatzRatzBatz

    return CatzRatzBatz(num_players=2).observer("knowledge").table()


def dice_from_observation(observation: np.ndarray, observer: Any = None) -> Dice:
    """The dice of the turn in progress, read from the ``set_aside`` and ``showing`` pieces of
    an observation (their place does not depend on the number of seats)."""
    obs = observer or _FIXED
    aside = obs.view(observation, "set_aside")
    showing = obs.view(observation, "showing")
    counts = np.rint(np.concatenate([aside, showing]).astype(np.float64) * NUM_DICE)
    return Dice(*(int(c) for c in counts))


def observation_for_dice(
    dice: Dice, num_players: int = 1, turns: int | None = 10, target_score: int | None = None
) -> np.ndarray:
    """The observation of a seat that must keep a number with ``dice`` on its first turn
    of a game of ``num_players`` seats, ``turns`` turns each and (a race) ``target_score``.

    Used to grade observation-based policies (bots, trained agents) with the
    exact solver.
    """
    from ratenvs.catz_ratz_batz.rules import CatzRatzBatz

    game = CatzRatzBatz(num_players=num_players, turns=turns, target_score=target_score)
    state = game.init(np.random.default_rng(0))
    state.phase = PHASE_KEEP
    state.dice = dice
    return game.observer("knowledge").observe(state, 0)


class _FixedPieces:
    """The pieces that come first whatever the table size (the dice and the phase)."""

    def __init__(self) -> None:
        self._observer = Observer("knowledge", pieces(1, 10, None)[:3])

    def view(self, observation: np.ndarray, name: str) -> np.ndarray:
        return self._observer.view(np.asarray(observation)[..., : self._observer.size], name)


_FIXED = _FixedPieces()
__doc__ = __doc__.format(table=_table_doc())
