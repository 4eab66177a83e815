"""Catz, Ratz and Batz rules (RULES.md section 2): dice, turns, scoring, the game.

Nine six-sided dice with faces 3, 5, 7, Cat, Bat, Rat. A turn: roll all nine;
animals are set aside for the rest of the turn; if the number dice all show
the same number (or there are none) the turn is over; otherwise the player
keeps all dice of one number showing and rerolls every other number die.
There is no voluntary stop (ruling).

The dice of a turn are a :class:`Dice` tuple of face counts. Chance goes
through an explicit ``numpy.random.Generator``. No gymnasium here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

NUM_DICE = 9
NUMBERS = (3, 5, 7)
"""The three number faces; an action "keep k" is indexed by ``NUMBERS.index(k)``."""
NUM_FACES = 6
FACE_PROBS = np.full(NUM_FACES, 1.0 / NUM_FACES)


class Dice(NamedTuple):
    """The nine dice of a turn as face counts: animals set aside and number dice showing."""

    cats: int = 0
    bats: int = 0
    rats: int = 0
    threes: int = 0
    fives: int = 0
    sevens: int = 0

    @property
    def numbers(self) -> tuple[int, int, int]:
        """How many dice show 3, 5 and 7."""
        return (self.threes, self.fives, self.sevens)

    @property
    def number_dice(self) -> int:
        """How many dice show a number (the dice still in play)."""
        return self.threes + self.fives + self.sevens

    def count(self, number: int) -> int:
        """How many dice show ``number`` (3, 5 or 7)."""
        return self.numbers[NUMBERS.index(number)]

    def faces(self) -> str:
        """Compact text, animals first: e.g. ``CCCBR 5555``."""
        animals = "C" * self.cats + "B" * self.bats + "R" * self.rats
        nums = "3" * self.threes + "5" * self.fives + "7" * self.sevens
        return f"{animals or '-'} {nums or '-'}"


def dice_from_faces(counts: np.ndarray | list[int]) -> Dice:
    """Dice from face counts in the order 3, 5, 7, Cat, Bat, Rat (a multinomial draw)."""
    n3, n5, n7, c, b, r = (int(x) for x in counts)
    return Dice(c, b, r, n3, n5, n7)


def roll_dice(n: int, rng: np.random.Generator) -> np.ndarray:
    """Roll ``n`` dice: counts of faces 3, 5, 7, Cat, Bat, Rat."""
    return rng.multinomial(n, FACE_PROBS)


def first_roll(rng: np.random.Generator) -> Dice:
    """Roll all nine dice at the start of a turn."""
    return dice_from_faces(roll_dice(NUM_DICE, rng))


_SHOWING = {
    (a, b, c): tuple(k for k, shown in zip(NUMBERS, (a, b, c)) if shown)
    for a in (False, True)
    for b in (False, True)
    for c in (False, True)
}


def numbers_showing(dice: Dice) -> tuple[int, ...]:
    """The numbers (3, 5, 7) shown by at least one die."""
    return _SHOWING[(dice.threes > 0, dice.fives > 0, dice.sevens > 0)]


def is_turn_over(dice: Dice) -> bool:
    """The turn is over when the number dice all show one number, or there are none."""
    return (dice.threes > 0) + (dice.fives > 0) + (dice.sevens > 0) <= 1


def legal_keeps(dice: Dice) -> tuple[int, ...]:
    """The numbers the player may keep: any number showing, while the turn is not over."""
    return () if is_turn_over(dice) else numbers_showing(dice)


def reroll(dice: Dice, keep: int, rng: np.random.Generator) -> Dice:
    """Keep every die showing ``keep`` and reroll the other number dice; new animals set aside."""
    if keep not in legal_keeps(dice):
        raise ValueError(f"cannot keep {keep}: legal keeps are {legal_keeps(dice)}")
    kept = dice.count(keep)
    return apply_reroll(dice, keep, roll_dice(dice.number_dice - kept, rng))


def apply_reroll(dice: Dice, keep: int, rolled: np.ndarray | tuple[int, ...]) -> Dice:
    """The dice after keeping ``keep`` when the rerolled dice show ``rolled`` (3,5,7,C,B,R)."""
    n3, n5, n7, c, b, r = (int(x) for x in rolled)
    kept = dice.count(keep)
    if keep == 3:
        n3 += kept
    elif keep == 5:
        n5 += kept
    else:
        n7 += kept
    return Dice(dice.cats + c, dice.bats + b, dice.rats + r, n3, n5, n7)


def score(cats: int, bats: int, rats: int, number: int, count: int) -> int:
    """Score of a finished turn with ``count`` dice left showing ``number``.

    base = number * count; good = Cats (+ Bats if the number is 3); bad = Rats
    (+ Bats if the number is 7); Bats are neutral for 5. good < bad scores 0,
    good = bad scores base, good > bad scores base * (1 + good - bad).
    """
    base = number * count
    if base == 0:
        return 0
    good = cats + (bats if number == 3 else 0)
    bad = rats + (bats if number == 7 else 0)
    if good < bad:
        return 0
    return base * (1 + good - bad)


def turn_score(dice: Dice) -> int:
    """Score of the dice at the end of a turn (0 when no number dice remain)."""
    if not is_turn_over(dice):
        raise ValueError(f"the turn is not over: {dice.faces()}")
    for number, count in zip(NUMBERS, dice.numbers):
        if count:
            return score(dice.cats, dice.bats, dice.rats, number, count)
    return 0


# --------------------------------------------------------------- the game
PHASE_ROLL = 0
"""The seat to act must roll all nine dice to start its turn."""
PHASE_KEEP = 1
"""The seat to act must choose which number to keep before the reroll."""
PHASE_OVER = 2


@dataclass
class State:
    """A game of Catz, Ratz and Batz between ``num_players`` seats taking turns in order."""

    num_players: int
    turns: int | None
    target_score: int | None
    totals: list[int] = field(default_factory=list)
    turns_taken: list[int] = field(default_factory=list)
    current: int = 0
    phase: int = PHASE_ROLL
    dice: Dice = field(default_factory=Dice)
    last_turn_score: int | None = None
    kept: int | None = None
    """The number kept at the last reroll of this turn (None right after the roll)."""

    @classmethod
    def new(cls, num_players: int, turns: int | None, target_score: int | None) -> State:
        return cls(num_players, turns, target_score, [0] * num_players, [0] * num_players)

    def copy(self) -> State:
        return State(
            self.num_players,
            self.turns,
            self.target_score,
            self.totals[:],
            self.turns_taken[:],
            self.current,
            self.phase,
            self.dice,
            self.last_turn_score,
            self.kept,
        )

    @property
    def is_over(self) -> bool:
        return self.phase == PHASE_OVER

    def turns_left(self, seat: int) -> int | None:
        """Turns ``seat`` still has (None in an uncapped race)."""
        return None if self.turns is None else self.turns - self.turns_taken[seat]

    def winners(self) -> list[bool]:
        """Who has the highest total (ties share the win)."""
        best = max(self.totals)
        return [t == best for t in self.totals]


def roll(state: State, rng: np.random.Generator) -> int | None:
    """The seat to act rolls all nine dice; returns the turn score if the turn ended at once."""
    if state.phase != PHASE_ROLL:
        raise ValueError("rolling is only legal at the start of a turn")
    state.dice = first_roll(rng)
    state.kept = None
    if is_turn_over(state.dice):
        return end_turn(state)
    state.phase = PHASE_KEEP
    return None


def keep(state: State, number: int, rng: np.random.Generator) -> int | None:
    """The seat to act keeps ``number`` and rerolls; returns the turn score if the turn ended."""
    if state.phase != PHASE_KEEP:
        raise ValueError("keeping a number is only legal after a roll")
    state.dice = reroll(state.dice, number, rng)
    state.kept = number
    if is_turn_over(state.dice):
        return end_turn(state)
    return None


def end_turn(state: State) -> int:
    """Score the finished turn, pass the dice on, and end the game when it is over.

    The game ends when every seat has had ``turns`` turns, or (race variant)
    at the end of a round in which someone reached ``target_score``, so that
    all seats had the same number of turns (ruling).
    """
    points = turn_score(state.dice)
    seat = state.current
    state.totals[seat] += points
    state.turns_taken[seat] += 1
    state.last_turn_score = points
    round_done = seat == state.num_players - 1
    over = False
    if round_done:
        if state.turns is not None and state.turns_taken[seat] >= state.turns:
            over = True
        if state.target_score is not None and max(state.totals) >= state.target_score:
            over = True
    state.current = (seat + 1) % state.num_players
    state.phase = PHASE_OVER if over else PHASE_ROLL
    return points
