"""Catz, Ratz and Batz rules (RULES.md section 2): dice, turns, scoring, the game.

Nine six-sided dice with faces 3, 5, 7, Cat, Bat, Rat. A turn: roll all nine;
animals are set aside for the rest of the turn; if the number dice all show
the same number (or there are none) the turn is over; otherwise the player
keeps all dice of one number showing and rerolls every other number die.
There is no voluntary stop (ruling).

The dice of a turn are a :class:`Dice` tuple of face counts. Chance goes
through an explicit chance source (a ``numpy.random.Generator`` or a
:class:`~ratenvs.common.game.ChanceLog` / ``ChanceReplay``). :class:`CatzRatzBatz`
is the game behind the :class:`~ratenvs.common.game.Game` interface; its
parameters (players, turns, target) live on it, not on the :class:`State`.
No gymnasium here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ratenvs.common.game import Actions, Chance, Game, Infos, Rewards
from ratenvs.common.options import Option, OptionRule, OptionSpec
from ratenvs.common.rewards import win_rewards

NUM_DICE = 9
NUMBERS = (3, 5, 7)
"""The three number faces; an action "keep k" is indexed by ``NUMBERS.index(k)``."""
NUM_FACES = 6
FACE_PROBS = np.full(NUM_FACES, 1.0 / NUM_FACES)


class Dice(NamedTuple):
    """The nine dice of a turn as face counts: animals set aside and number dice showing."""

    cats: int = 0
    """Cats set aside this turn (good: each one adds a multiple of the base)."""
    bats: int = 0
    """Bats set aside (good with 3s, bad with 7s, neutral with 5s)."""
    rats: int = 0
    """Rats set aside (bad)."""
    threes: int = 0
    fives: int = 0
    sevens: int = 0
    """The number dice still in play, by the number they show."""

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
    n3, n5, n7, c, b, r = _ints(counts)
    return Dice(c, b, r, n3, n5, n7)


def _ints(counts: np.ndarray | Sequence[int]) -> list[int]:
    """Face counts as Python ints (``tolist`` for an array: one ``int()`` each costs more)."""
    return counts.tolist() if isinstance(counts, np.ndarray) else [int(x) for x in counts]


def roll_dice(n: int, rng: Chance) -> np.ndarray:
    """Roll ``n`` dice: counts of faces 3, 5, 7, Cat, Bat, Rat."""
    return rng.multinomial(n, FACE_PROBS)


def first_roll(rng: Chance) -> Dice:
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


def reroll(dice: Dice, keep: int, rng: Chance) -> Dice:
    """Keep every die showing ``keep`` and reroll the other number dice; new animals set aside."""
    if keep not in legal_keeps(dice):
        raise ValueError(f"cannot keep {keep}: legal keeps are {legal_keeps(dice)}")
    kept = dice.count(keep)
    return apply_reroll(dice, keep, roll_dice(dice.number_dice - kept, rng))


def apply_reroll(dice: Dice, keep: int, rolled: np.ndarray | tuple[int, ...]) -> Dice:
    """The dice after keeping ``keep`` when the rerolled dice show ``rolled`` (3,5,7,C,B,R)."""
    n3, n5, n7, c, b, r = _ints(rolled)
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
ACTION_KEEP_3, ACTION_KEEP_5, ACTION_KEEP_7, ACTION_ROLL = range(4)
"""Action ids: keep the 3s, 5s or 7s after a roll; roll all nine dice to start a turn."""
NUM_ACTIONS = 4
MAX_PLAYERS = 6
MAX_TURNS = 10_000
"""The most turns per seat a game may set (``turns``): a bound every door shares, so a
mistyped length is an error naming it, not a game that never ends (the batched engine's
observation tables hold every total up to 175 a turn: 28 MB at this bound)."""
MAX_TARGET_SCORE = 1_000_000
"""The highest ``target_score`` of a race (a turn scores at most 175)."""
REWARD_MODES = ("score", "win")
TOTALS_VIEWS = ("absolute", "relative")
"""Option ``totals_view``: what an observation's ``totals`` entries hold."""
RACE_ENDS = ("round", "turn")
"""How a race (``target_score``) ends: after the round, or the turn, that reaches the target."""

PHASE_ROLL = 0
"""The seat to act must roll all nine dice to start its turn."""
PHASE_KEEP = 1
"""The seat to act must choose which number to keep before the reroll."""
PHASE_OVER = 2
PHASE_NAMES = ("roll", "keep", "over")


@dataclass
class State:
    """Where a game of Catz, Ratz and Batz stands: seats take turns in order.

    The game's parameters (players, turns, target) are on :class:`CatzRatzBatz`.
    """

    totals: list[int] = field(default_factory=list)
    turns_taken: list[int] = field(default_factory=list)
    current: int = 0
    phase: int = PHASE_ROLL
    dice: Dice = field(default_factory=Dice)
    last_turn_score: int | None = None
    kept: int | None = None
    """The number kept at the last reroll of this turn (None right after the roll)."""

    @classmethod
    def new(cls, num_players: int) -> State:
        """The state before the first roll."""
        return cls([0] * num_players, [0] * num_players)

    def copy(self) -> State:
        return State(
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

    def winners(self) -> list[bool]:
        """Who has the highest total (ties share the win)."""
        best = max(self.totals)
        return [t == best for t in self.totals]


def roll(
    state: State,
    rng: Chance,
    turns: int | None,
    target_score: int | None,
    race_end: str = "round",
) -> int | None:
    """The seat to act rolls all nine dice; returns the turn score if the turn ended at once."""
    if state.phase != PHASE_ROLL:
        raise ValueError("rolling is only legal at the start of a turn")
    state.dice = first_roll(rng)
    state.kept = None
    if is_turn_over(state.dice):
        return end_turn(state, turns, target_score, race_end)
    state.phase = PHASE_KEEP
    return None


def keep(
    state: State,
    number: int,
    rng: Chance,
    turns: int | None,
    target_score: int | None,
    race_end: str = "round",
) -> int | None:
    """The seat to act keeps ``number`` and rerolls; returns the turn score if the turn ended."""
    if state.phase != PHASE_KEEP:
        raise ValueError("keeping a number is only legal after a roll")
    state.dice = reroll(state.dice, number, rng)
    state.kept = number
    if is_turn_over(state.dice):
        return end_turn(state, turns, target_score, race_end)
    return None


def end_turn(
    state: State, turns: int | None, target_score: int | None, race_end: str = "round"
) -> int:
    """Score the finished turn, pass the dice on, and end the game when it is over.

    The game ends when every seat has had ``turns`` turns, or (race variant) when someone
    has reached ``target_score``: at the end of that round, so that all seats had the same
    number of turns (``race_end="round"``, ruling), or at the end of that turn
    (``race_end="turn"``: the first to the target wins).
    """
    points = turn_score(state.dice)
    seat = state.current
    state.totals[seat] += points
    state.turns_taken[seat] += 1
    state.last_turn_score = points
    seats = len(state.totals)
    round_done = seat == seats - 1
    over = False
    if round_done and turns is not None and state.turns_taken[seat] >= turns:
        over = True
    reached = target_score is not None and max(state.totals) >= target_score
    if reached and (round_done or race_end == "turn"):
        over = True
    state.current = (seat + 1) % seats
    state.phase = PHASE_OVER if over else PHASE_ROLL
    return points


_KEEP_MASKS = {
    keeps: np.array([3 in keeps, 5 in keeps, 7 in keeps, 0], dtype=np.int8)
    for keeps in [(3,), (5,), (7,), (3, 5), (3, 7), (5, 7), (3, 5, 7)]
}
_ROLL_MASK = np.array([0, 0, 0, 1], dtype=np.int8)
_NO_ACTIONS = np.zeros(NUM_ACTIONS, dtype=np.int8)


def keep_mask(dice: Dice) -> np.ndarray:
    """The action mask of a seat that must keep a number with ``dice`` showing."""
    return _KEEP_MASKS[numbers_showing(dice)].copy()


def _turns_need_a_race(p: Mapping[str, Any]) -> str | None:
    if p["turns"] is None and p["target_score"] is None:
        return "option 'turns' may be None only in a race (set 'target_score')"
    return None


def _race_end_needs_a_race(p: Mapping[str, Any]) -> str | None:
    if p["race_end"] != "round" and p["target_score"] is None:
        return (
            f"option 'race_end'={p['race_end']!r} rules the race: it needs 'target_score' "
            "(without one the game ends after 'turns' turns)"
        )
    return None


class CatzRatzBatz(Game):
    """Catz, Ratz and Batz for 1 - 6 seats taking turns (RULES.md section 2).

    Every decision is one seat's: roll all nine dice to start a turn, then keep
    a number after each roll. Rewards: "score" gives each turn's points to the
    seat that rolled; "win" gives ``common.rewards.win_rewards`` at the end.
    """

    name = "catz_ratz_batz"
    title = "Catz, Ratz and Batz"
    options = OptionSpec(
        Option("num_players", "int", 2, "seats", low=1, high=MAX_PLAYERS),
        Option(
            "turns",
            "int",
            10,
            "turns per seat; None only with target_score",
            low=1,
            high=MAX_TURNS,
            optional=True,
        ),
        Option(
            "target_score",
            "int",
            None,
            "race: the game ends once someone reaches it, at the end of that round (ruling: "
            "all seats had equal turns) or turn (`race_end`); `turns` still ends it after that "
            "many turns (whatever `turns` is set to): `turns=None` for a race without a "
            "turn limit",
            low=1,
            high=MAX_TARGET_SCORE,
            optional=True,
        ),
        Option(
            "race_end",
            "choice",
            "round",
            'with `target_score`: the game ends at the end of the "round" in which someone '
            'reaches the target (ruling: all seats had equal turns) or of the "turn" that '
            "reaches it (the first to the target wins)",
            choices=RACE_ENDS,
        ),
        Option(
            "reward",
            "choice",
            "score",
            '"score": each turn\'s points to the seat that rolled; "win": zero-sum at the end',
            choices=REWARD_MODES,
            view_only=True,
        ),
        Option(
            "totals_view",
            "choice",
            "absolute",
            'what the `totals` entries of an observation hold: "absolute", each seat\'s total; '
            "\"relative\", each seat's total minus the observer's (its own entry 0; in 2 "
            "players, minus the lead: all the win-optimal play of a game of fixed turns reads)",
            choices=TOTALS_VIEWS,
            view_only=True,
        ),
        rules=(
            OptionRule(
                ("turns", "target_score"),
                "`turns=None` (no turn limit) only in a race: set `target_score`",
                _turns_need_a_race,
                {"turns": {"target_score": 50}},
            ),
            OptionRule(
                ("race_end", "target_score"),
                "`race_end` other than its default needs `target_score` (it rules the race)",
                _race_end_needs_a_race,
                {"race_end": {"target_score": 50}},
            ),
        ),
    )
    observer_kinds = ("knowledge", "privileged")
    num_actions = NUM_ACTIONS
    has_hidden_information = False

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        p = self.params
        self.turns: int | None = p["turns"]
        self.target_score: int | None = p["target_score"]
        self.race_end: str = p["race_end"]
        self.reward_mode: str = p["reward"]
        self.totals_view: str = p["totals_view"]
        self.observation_kind = "knowledge"

    # -------------------------------------------------------------- rules
    def init(self, rng: Chance) -> State:
        """The game before the first roll (the first roll is seat 0's first decision)."""
        return State.new(self.num_players)

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if state.phase == PHASE_OVER else (state.current,)

    def legal_mask(self, state: State, seat: int) -> np.ndarray:
        """Roll at the start of the seat's turn, else keep a number showing."""
        if seat != state.current or state.phase == PHASE_OVER:
            return _NO_ACTIONS.copy()
        if state.phase == PHASE_ROLL:
            return _ROLL_MASK.copy()
        return keep_mask(state.dice)

    def apply(
        self, state: State, actions: Actions, rng: Chance, infos: Infos | None = None
    ) -> Rewards:
        seat = state.current
        action = actions[seat]
        if action == ACTION_ROLL:
            points = roll(state, rng, self.turns, self.target_score, self.race_end)
        else:
            number = NUMBERS[action]
            points = keep(state, number, rng, self.turns, self.target_score, self.race_end)
        rewards = None
        if points is not None:
            if self.reward_mode == "score":
                rewards = [0.0] * self.num_players
                rewards[seat] = float(points)
            if infos is not None:
                infos[seat] = {"turn_score": points}
        if state.phase == PHASE_OVER and self.reward_mode == "win":
            rewards = win_rewards(state.winners()).tolist()
        return rewards

    def is_terminal(self, state: State) -> bool:
        return state.phase == PHASE_OVER

    def winners(self, state: State) -> list[bool]:
        return state.winners()

    def turns_left(self, state: State, seat: int) -> int | None:
        """Turns ``seat`` still has (None in an uncapped race)."""
        return None if self.turns is None else self.turns - state.turns_taken[seat]

    def to_json(self, state: State) -> dict[str, Any]:
        return {
            "totals": list(state.totals),
            "turns_taken": list(state.turns_taken),
            "current_player": None if state.is_over else state.current,
            "phase": PHASE_NAMES[state.phase],
            "dice": state.dice._asdict(),
            "last_turn_score": state.last_turn_score,
        }

    def resample(self, state: State, seat: int, rng: Chance) -> State:
        """Everything is public: the only state consistent with a seat's knowledge is the state."""
        return state.copy()

    def make_observer(self, kind: str) -> Any:
        from ratenvs.catz_ratz_batz.observe import TableObserver

        return TableObserver(self, kind)
