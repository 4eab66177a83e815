"""Ratto Zakko rules (RULES.md section 3): the oracle, the deck, resolution of a card, the game.

Five cloches stand over five foods, each cloche in the food's original colour:
apple (green), egg (white), cheese (yellow), fish (blue), chili (red). The fly
chip hides under one cloche (``fly_under``), the rat shaker sits on one
(``shaker_on``). A card is revealed; every player gives at most one response
(grab a cloche, shout FLY, shout RAT, shout a food's name, bang the table).
:func:`correct_response` is the single source of truth for the right answer.

Real time runs in discrete ticks: each tick every player that has not
answered this card waits or answers; answers of the same tick are
simultaneous. This module holds the pure game state (:class:`State`) and the
tick-by-tick engine (:func:`submit`, :func:`end_tick`, :func:`relocate`), and
the :class:`RattoZakko` game (its options, declared once, and the
:class:`~ratenvs.common.game.Game` interface the envs, bots and records use).
Chance (the shuffle, every perception glimpse) is drawn only through the
``rng`` argument (a :class:`~ratenvs.common.game.Chance`). No gymnasium, no
pettingzoo here.

Cards are small ints internally (:data:`CARD_NAMES` gives their names); a
response is an index into :data:`RESPONSES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from ratenvs.common.game import Actions, Chance, Game, Infos, Rewards
from ratenvs.common.options import Option, OptionRule, OptionSpec
from ratenvs.common.rewards import win_rewards
from ratenvs.ratto_zakko.perception import (
    DEFAULT_GLIMPSE_SNR,
    PERCEPTIONS,
    add_glimpses,
    clear_evidence,
    posteriors,
    prior_evidence,
)

# --------------------------------------------------------------------- components
FOODS = ("apple", "egg", "cheese", "fish", "chili")
"""The five foods; a cloche is named by the food under it and indexed in this order."""
COLOURS = ("green", "white", "yellow", "blue", "red")
"""The five colours; ``COLOURS[i]`` is the original colour of ``FOODS[i]``."""
ORIGINAL_COLOUR = dict(zip(FOODS, COLOURS))
"""Original colour of each food (the colour of its cloche)."""
NUM_FOODS = len(FOODS)
NUM_COLOURS = len(COLOURS)

FLY = "fly"
RAT = "rat"
IDENTITIES = (*FOODS, FLY, RAT)
"""What a card shows: one of the five foods, the fly or the rat (index = identity id)."""
FLY_IDENTITY = IDENTITIES.index(FLY)
RAT_IDENTITY = IDENTITIES.index(RAT)
NUM_IDENTITIES = len(IDENTITIES)

LEVELS = ("starter", "main", "dessert")
"""Levels: starter (no rat cards), main (all 54), dessert (all 54 plus the colour rule)."""

START_FLY_UNDER = "fish"
"""At the start the fly hides under the blue fish cloche."""
START_SHAKER_ON = "cheese"
"""At the start the rat shaker sits on the yellow cheese cloche."""

CARDS_PER_FOOD = 8
CARDS_PER_FOOD_IN_ORIGINAL_COLOUR = 4
"""Ruling (option ``original_colour_cards``): each food has 4 of its 8 cards in its original
colour and 1 in each other colour. The alternatives keep 8 cards per food, spread evenly over
the other colours: 0 (2 in each other colour) or 8 (all in the original colour)."""
ORIGINAL_COLOUR_CARD_CHOICES = (0, 4, 8)
FLY_CARDS = 7
RAT_CARDS = 7

# Card ids: a food card is ``food * NUM_COLOURS + colour``; then the fly card and the rat card.
FLY_CARD = NUM_FOODS * NUM_COLOURS
RAT_CARD = FLY_CARD + 1
NUM_CARD_KINDS = RAT_CARD + 1
CARD_NAMES = (*tuple(f"{f}/{c}" for f in FOODS for c in COLOURS), FLY, RAT)
"""Name of each card id: ``"<food>/<colour>"``, ``"fly"`` or ``"rat"`` (the oracle's names)."""
CARD_IDENTITY = (*tuple(i // NUM_COLOURS for i in range(FLY_CARD)), FLY_IDENTITY, RAT_IDENTITY)
"""Identity id of each card id."""
CARD_COLOUR = (*tuple(i % NUM_COLOURS for i in range(FLY_CARD)), -1, -1)
"""Colour id of each card id (-1: the fly and rat cards carry no food colour)."""

# --------------------------------------------------------------------- responses
RESPONSES = (
    *(f"grab:{f}" for f in FOODS),
    "shout:fly",
    "shout:rat",
    *(f"shout:{f}" for f in FOODS),
    "bang",
)
"""The 13 possible responses: grab one of 5 cloches, shout FLY, shout RAT, shout a food, bang."""
RESPONSE_INDEX = {r: i for i, r in enumerate(RESPONSES)}
GRAB_FIRST = 0
SHOUT_FLY = RESPONSES.index("shout:fly")
SHOUT_RAT = RESPONSES.index("shout:rat")
SHOUT_FOOD_FIRST = RESPONSES.index("shout:apple")
BANG = RESPONSES.index("bang")
NUM_RESPONSES = len(RESPONSES)

RESPONSES_AT_LEVEL = {
    "starter": (*tuple(r for r in RESPONSES if r.startswith("grab:")), "shout:fly", "shout:rat"),
    "main": tuple(r for r in RESPONSES if r != "bang"),
    "dessert": RESPONSES,
}
"""Responses that can ever be correct at each level (the alternatives of the Hick-Hyman law):
starter 7 (no rat cards: no food name is ever shouted; no bang), main 12, dessert 13."""


def _food_index(name: str, what: str) -> int:
    try:
        return FOODS.index(name)
    except ValueError:
        raise ValueError(f"unknown {what} {name!r}; choose one of {FOODS}") from None


FLY_CARD_RULES = ("grab", "rat")
"""Option ``fly_card_under_shaker``: a fly card whose fly hides under the shaker's cloche is
answered by grabbing that cloche ("grab", the ruling: the shaker rule is written for food cards
only) or by shouting RAT ("rat", the shaker rule applied to fly cards too)."""
RELOCATION_MODES = ("one", "both")
"""Option ``relocation``: after a fly or rat event the winner makes one move, the fly or the
shaker or none ("one", the ruling), or may move both: first the fly, then the shaker ("both")."""


def correct_response(
    card: str,
    shaker_on: str,
    fly_under: str,
    level: str,
    *,
    fly_card_under_shaker: str = "grab",
) -> str:
    """The one correct response to ``card`` (RULES.md section 3, rules 1-6).

    Args:
        card: ``"<food>/<colour>"``, ``"fly"`` or ``"rat"``.
        shaker_on: the food whose cloche the rat shaker sits on.
        fly_under: the food whose cloche hides the fly.
        level: ``"starter"``, ``"main"`` or ``"dessert"``.
        fly_card_under_shaker: the variant option for a fly card under the shaker
            (:data:`FLY_CARD_RULES`; default the ruling, "grab").

    Returns:
        ``"grab:<food>"``, ``"shout:fly"``, ``"shout:rat"``, ``"shout:<food>"`` or ``"bang"``.

    Raises:
        ValueError: unknown names, or a rat card at the starter level (it has no rat cards).
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; choose one of {LEVELS}")
    _food_index(shaker_on, "shaker_on food")
    _food_index(fly_under, "fly_under food")
    if fly_card_under_shaker not in FLY_CARD_RULES:
        raise ValueError(
            f"unknown fly_card_under_shaker {fly_card_under_shaker!r}; choose one of "
            f"{FLY_CARD_RULES}"
        )
    if card == FLY:
        # Rule 5: grab where the fly is, also when the shaker sits on it (ruling).
        if fly_card_under_shaker == "rat" and fly_under == shaker_on:
            return "shout:rat"
        return f"grab:{fly_under}"
    if card == RAT:
        if level == "starter":
            raise ValueError("there are no rat cards at the starter level")
        # Rule 6: FLY if the fly is under the shaker's cloche, else the food under the shaker.
        return "shout:fly" if fly_under == shaker_on else f"shout:{shaker_on}"
    food, sep, colour = card.partition("/")
    if not sep:
        raise ValueError(f"unknown card {card!r}; use '<food>/<colour>', 'fly' or 'rat'")
    _food_index(food, "card food")
    if colour not in COLOURS:
        raise ValueError(f"unknown card colour {colour!r}; choose one of {COLOURS}")
    if level == "dessert" and ORIGINAL_COLOUR[food] == colour:
        return "bang"  # rule 1
    if shaker_on == food:
        return "shout:rat"  # rule 2 (also when the fly is there too)
    if fly_under == food:
        return "shout:fly"  # rule 3
    return f"grab:{food}"  # rule 4


@cache
def correct_response_index(
    card_id: int, shaker_on: int, fly_under: int, level: str, fly_card_under_shaker: str = "grab"
) -> int:
    """:func:`correct_response` on ids, as an index into :data:`RESPONSES` (cached)."""
    return RESPONSE_INDEX[
        correct_response(
            CARD_NAMES[card_id],
            FOODS[shaker_on],
            FOODS[fly_under],
            level,
            fly_card_under_shaker=fly_card_under_shaker,
        )
    ]


def _channel(card_id: int) -> int:
    """The identity channel of a card (perception): its food, or 5 for the fly, 6 the rat."""
    return card_id // NUM_COLOURS if card_id < FLY_CARD else NUM_FOODS + card_id - FLY_CARD


def is_fly_or_rat_event(card_id: int, response: int) -> bool:
    """A fly event (correct answer FLY, or a grab on a fly card) or a rat event (RAT, or a
    rat card)."""
    return card_id in (FLY_CARD, RAT_CARD) or response in (SHOUT_FLY, SHOUT_RAT)


def build_deck(
    level: str, original_colour_cards: int = CARDS_PER_FOOD_IN_ORIGINAL_COLOUR
) -> list[int]:
    """The unshuffled deck of ``level``: 40 food cards (8 per food, ``original_colour_cards``
    of them in its original colour, the rest evenly in the other colours), 7 fly cards, 7 rat
    cards (not at the starter level)."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; choose one of {LEVELS}")
    if original_colour_cards not in ORIGINAL_COLOUR_CARD_CHOICES:
        raise ValueError(
            f"option 'original_colour_cards' must be one of {ORIGINAL_COLOUR_CARD_CHOICES}, "
            f"got {original_colour_cards!r}"
        )
    other = (CARDS_PER_FOOD - original_colour_cards) // (NUM_COLOURS - 1)
    deck = []
    for f in range(NUM_FOODS):
        for c in range(NUM_COLOURS):
            copies = original_colour_cards if c == f else other
            deck.extend([f * NUM_COLOURS + c] * copies)
    deck.extend([FLY_CARD] * FLY_CARDS)
    if level != "starter":
        deck.extend([RAT_CARD] * RAT_CARDS)
    return deck


def deck_size(level: str) -> int:
    """47 cards at the starter level, 54 otherwise."""
    return len(build_deck(level))


DECK_SIZE = {level: deck_size(level) for level in LEVELS}
"""Deck size per level."""


# --------------------------------------------------------------------- the game state
PHASE_REACT = 0
"""A card is showing and players react, tick by tick."""
PHASE_RELOCATE = 1
"""The winner of a fly or rat event may move the fly or the shaker (or leave both)."""
PHASE_OVER = 2

NO_ANSWER = -1
WAIT = -1
"""A seat's tick action "wait" (no response this tick), as passed to :func:`submit`."""

RELOCATE_FLY_FIRST = 0
"""Relocation choices: 0..4 move the fly under cloche k, 5..9 move the shaker onto cloche k,"""
RELOCATE_SHAKER_FIRST = NUM_FOODS
LEAVE_BOTH = 2 * NUM_FOODS
"""... and 10 makes no move (leaves both; with ``relocation="both"``: leaves this piece)."""
NUM_RELOCATIONS = LEAVE_BOTH + 1


@dataclass
class CardResult:
    """How the last card was resolved (public: everyone saw it)."""

    card: int
    correct: int
    """Index of the correct response."""
    tick: int
    winner: int | None
    """The seat that won the card, or None (nobody right, or a tie: card to the jackpot)."""
    answers: dict[int, tuple[int, int]]
    """seat -> (response index, tick) of every seat that answered."""
    returned_by: list[int]
    """Seats that returned a won card (to the winner, or to the jackpot)."""
    tied: list[int]
    """Seats that were correct at the same tick when there was a tie."""
    cards_won: int
    """Cards the winner took (the card, the jackpot and the returned cards)."""
    event: bool
    """A fly or rat event with a winner: the winner may relocate."""


@dataclass
class State:
    """One game of Ratto Zakko in play (everything, including what the players cannot know).

    Only what changes in play lives here; the game's parameters (level, window,
    perception, rule variants) are on :class:`RattoZakko`, which every engine
    function below takes first.
    """

    num_players: int
    deck: list[int]
    """Cards still to come; the next card is ``deck[-1]``."""
    shaker_on: int
    fly_under: int
    won: list[list[int]] = field(default_factory=list)
    """Each seat's pile of won cards (the top is the last one)."""
    jackpot: list[int] = field(default_factory=list)
    card: int | None = None
    """The card showing (None during relocation and after the game)."""
    tick: int = 0
    """Ticks since the card was revealed (0-based)."""
    phase: int = PHASE_REACT
    dealer: int = 0
    """Who dealt the current card (the last winner; seat 0 deals first)."""
    relocator: int | None = None
    """The seat that may move the fly or the shaker (during relocation)."""
    answer: list[int] = field(default_factory=list)
    """Each seat's response index to this card (NO_ANSWER if none yet), from earlier ticks."""
    answer_tick: list[int] = field(default_factory=list)
    pending: list[int] = field(default_factory=list)
    """This tick's submitted actions (WAIT or a response index), applied together at its end."""
    evidence: np.ndarray | None = None
    """Per seat, the log prior plus log-likelihood sums of the 7 identities and the 5 colours
    (shape (n, 2, 7), see :mod:`~ratenvs.ratto_zakko.perception`)."""
    posterior: np.ndarray | None = None
    """Per seat, the Bayes posteriors derived from ``evidence`` (shape (n, 2, 7))."""
    fly_shown: bool = True
    """The fly was placed this card (game start or just moved): memoryless observers see it now."""
    last_result: CardResult | None = None
    cards_dealt: int = 0
    relocation_stage: int = 0
    """With ``relocation="both"``: 0 while the fly may move, 1 while the shaker may move."""
    fly_moved: bool = False
    """The fly was moved during this relocation (shown with the next card)."""

    @property
    def is_over(self) -> bool:
        return self.phase == PHASE_OVER

    def card_counts(self) -> list[int]:
        """How many cards each seat has won."""
        return [len(w) for w in self.won]

    def cards_accounted(self) -> int:
        """Deck + card showing + won piles + jackpot (always the level's deck size)."""
        return (
            len(self.deck)
            + (self.card is not None)
            + sum(len(w) for w in self.won)
            + len(self.jackpot)
        )

    def to_act(self) -> list[int]:
        """Seats that decide in this tick, in seat order (relocation: only the winner)."""
        if self.phase == PHASE_REACT:
            return [s for s in range(self.num_players) if self.answer[s] == NO_ANSWER]
        if self.phase == PHASE_RELOCATE:
            return [self.relocator]
        return []

    def winners(self) -> list[bool]:
        """Seats with the most cards (ties share)."""
        counts = self.card_counts()
        best = max(counts)
        return [c == best for c in counts]


def new_game(game: RattoZakko, rng: Chance) -> State:
    """Shuffle the deck of the game's level, place fly and shaker, and reveal the first card."""
    deck = build_deck(game.level, game.original_colour_cards)
    order = rng.permutation(len(deck))
    n = game.num_players
    state = State(
        num_players=n,
        deck=[deck[i] for i in order],
        shaker_on=FOODS.index(START_SHAKER_ON),
        fly_under=FOODS.index(START_FLY_UNDER),
        won=[[] for _ in range(n)],
    )
    _deal(game, state, rng)
    state.fly_shown = True
    return state


def _deal(game: RattoZakko, state: State, rng: Chance) -> None:
    """Reveal the next card: a new reaction window opens at tick 0 with everyone's first glimpse."""
    n = state.num_players
    state.card = state.deck.pop()
    state.cards_dealt += 1
    state.tick = 0
    state.phase = PHASE_REACT
    state.relocator = None
    state.answer = [NO_ANSWER] * n
    state.answer_tick = [NO_ANSWER] * n
    state.pending = [WAIT] * n
    state.fly_shown = False
    if game.perception == "clear":
        state.evidence = clear_evidence(state.card, n, game.level)
    else:
        state.evidence = prior_evidence(n, game.level)
        add_glimpses(state.evidence, state.card, game.glimpse_snr, rng)
    state.posterior = posteriors(state.evidence)


def _next_tick(game: RattoZakko, state: State, rng: Chance) -> None:
    state.tick += 1
    state.pending = [WAIT] * state.num_players
    state.fly_shown = False
    if game.perception != "clear":
        add_glimpses(state.evidence, state.card, game.glimpse_snr, rng)
        state.posterior = posteriors(state.evidence)


def submit(state: State, seat: int, action: int) -> None:
    """Record ``seat``'s decision for this tick: WAIT or a response index.

    Responses take effect together at the end of the tick (:func:`end_tick`);
    a relocation takes effect at once (:func:`relocate`). Raises ValueError
    for a seat that may not act now or an out-of-range choice.
    """
    if state.phase == PHASE_REACT:
        if state.answer[seat] != NO_ANSWER:
            raise ValueError(f"seat {seat} already answered this card")
        if action != WAIT and not 0 <= action < NUM_RESPONSES:
            raise ValueError(f"response {action!r} out of range")
        state.pending[seat] = action
    else:
        raise ValueError("no card is showing: submit a relocation with relocate()")


def end_tick(game: RattoZakko, state: State, rng: Chance) -> list[int]:
    """Apply this tick's answers together and resolve the card if it is decided.

    The card resolves at the earliest tick with a correct response, when every
    seat has answered, or when the window ends. Returns each seat's change in
    won cards (+ for the winner, -1 for a seat that returned a card).
    """
    n = state.num_players
    t = state.tick
    for s in range(n):
        a = state.pending[s]
        if a != WAIT:
            state.answer[s] = a
            state.answer_tick[s] = t
    correct = correct_response_index(
        state.card, state.shaker_on, state.fly_under, game.level, game.fly_card_under_shaker
    )
    right_now = [s for s in range(n) if state.answer_tick[s] == t and state.answer[s] == correct]
    everyone = all(a != NO_ANSWER for a in state.answer)
    if not right_now and not everyone and t + 1 < game.window_ticks:
        _next_tick(game, state, rng)
        return [0] * n
    return _resolve(game, state, correct, right_now, rng)


def _resolve(
    game: RattoZakko, state: State, correct: int, right_now: list[int], rng: Chance
) -> list[int]:
    n = state.num_players
    delta = [0] * n
    card = state.card
    # Everyone who answered is wrong unless among right_now: the card resolves at the first
    # correct tick, so every wrong answer was given before or at that tick.
    wrong = [s for s in range(n) if state.answer[s] not in (NO_ANSWER, correct)]
    returned = []
    returned_by = []
    for s in wrong:
        if state.won[s]:
            returned.append(state.won[s].pop())
            returned_by.append(s)
            delta[s] -= 1
    winner = right_now[0] if len(right_now) == 1 else None
    cards_won = 0
    if winner is not None:
        take = [card, *state.jackpot, *returned]
        state.won[winner].extend(take)
        cards_won = len(take)
        delta[winner] += cards_won
        state.jackpot = []
        state.dealer = winner
    else:
        state.jackpot.extend([card, *returned])
    event = winner is not None and is_fly_or_rat_event(card, correct)
    state.last_result = CardResult(
        card=card,
        correct=correct,
        tick=state.tick,
        winner=winner,
        answers={
            s: (state.answer[s], state.answer_tick[s]) for s in range(n) if state.answer[s] >= 0
        },
        returned_by=returned_by,
        tied=right_now if winner is None else [],
        cards_won=cards_won,
        event=event,
    )
    state.card = None
    if not state.deck:
        state.phase = PHASE_OVER
        state.posterior = None
    elif event:
        state.phase = PHASE_RELOCATE
        state.relocator = winner
        state.relocation_stage = 0
        state.fly_moved = False
        state.pending = [WAIT] * n
    else:
        _deal(game, state, rng)
    return delta


def legal_relocations(game: RattoZakko, state: State) -> list[int]:
    """Relocation choices open to the winner now.

    ``relocation="one"``: all 11 (the fly or the shaker onto any cloche, or no
    move). ``"both"``: first the fly onto any cloche or no move, then the
    shaker likewise. Putting a piece back where it was is allowed, so no
    choice reveals where the fly hides.
    """
    if game.relocation == "one":
        return list(range(NUM_RELOCATIONS))
    first = RELOCATE_FLY_FIRST if state.relocation_stage == 0 else RELOCATE_SHAKER_FIRST
    return [*range(first, first + NUM_FOODS), LEAVE_BOTH]


def relocate(game: RattoZakko, state: State, seat: int, choice: int, rng: Chance) -> None:
    """The winner's move after a fly or rat event (everyone sees it); then the next card."""
    if state.phase != PHASE_RELOCATE or seat != state.relocator:
        raise ValueError(f"seat {seat} may not move the fly or the shaker now")
    if choice not in legal_relocations(game, state):
        raise ValueError(f"relocation {choice!r} is not legal now")
    if RELOCATE_FLY_FIRST <= choice < RELOCATE_SHAKER_FIRST:
        state.fly_under = choice - RELOCATE_FLY_FIRST
        state.fly_moved = True
    elif RELOCATE_SHAKER_FIRST <= choice < LEAVE_BOTH:
        state.shaker_on = choice - RELOCATE_SHAKER_FIRST
    if game.relocation == "both" and state.relocation_stage == 0:
        state.relocation_stage = 1
        return
    _deal(game, state, rng)
    state.fly_shown = state.fly_moved


# --------------------------------------------------------------------- actions
ACTION_WAIT = 0
"""Action 0: wait (no response this tick)."""
ACTION_RESPONSE_FIRST = 1
"""Action ``ACTION_RESPONSE_FIRST + r`` gives response ``RESPONSES[r]``."""
ACTION_RELOCATE_FIRST = ACTION_RESPONSE_FIRST + NUM_RESPONSES
"""Action ``ACTION_RELOCATE_FIRST + c`` is relocation choice ``c``."""
NUM_ACTIONS = ACTION_RELOCATE_FIRST + NUM_RELOCATIONS

_REACT_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)
_REACT_MASK[: ACTION_RESPONSE_FIRST + NUM_RESPONSES] = 1
_WAIT_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)
_WAIT_MASK[ACTION_WAIT] = 1
_RELOCATE_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)
_RELOCATE_MASK[ACTION_RELOCATE_FIRST:] = 1
_RELOCATE_FLY_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)
_RELOCATE_FLY_MASK[ACTION_RELOCATE_FIRST + RELOCATE_FLY_FIRST + np.arange(NUM_FOODS)] = 1
_RELOCATE_FLY_MASK[ACTION_RELOCATE_FIRST + LEAVE_BOTH] = 1
_RELOCATE_SHAKER_MASK = np.zeros(NUM_ACTIONS, dtype=np.int8)
_RELOCATE_SHAKER_MASK[ACTION_RELOCATE_FIRST + RELOCATE_SHAKER_FIRST + np.arange(NUM_FOODS)] = 1
_RELOCATE_SHAKER_MASK[ACTION_RELOCATE_FIRST + LEAVE_BOTH] = 1
_NO_ACTIONS = np.zeros(NUM_ACTIONS, dtype=np.int8)

OBSERVATIONS = ("knowledge", "memoryless")
"""Option ``observation``: the fly's hiding place always in the observation, or only when it
was just placed."""
REWARD_MODES = ("cards", "win")
MIN_PLAYERS = 2
MAX_PLAYERS = 8
MAX_TICK_MS = 1000
MAX_WINDOW_TICKS = 10_000
BELIEF_PRIORS = ("independent", "deck", "count")
HUMAN_FAIR_REACTION_MS = 200
"""The human-fair latency floor: no answer lands sooner than 200 ms after the card is
revealed. It is the simple visual reaction time of a fast adult (pressing a key at a
flash, with nothing to identify or choose: 190-250 ms, Luce, R. D. (1986). Response
Times, Oxford University Press; Kosinski, R. J. (2013). A literature review on reaction
time, Clemson University; our ``expert`` preset's Hick-Hyman intercept is 190 ms, the
``adult``'s 220 ms). No person answers a choice among 13 responses faster than that, so a
bot held to it cannot win by reflexes no human has (:func:`human_fair_min_reaction_ticks`)."""


def human_fair_min_reaction_ticks(tick_ms: int = 25) -> int:
    """The ``min_reaction_ticks`` of the human-fair setting for ticks of ``tick_ms``: the
    first tick whose answers land (at the tick's end) at least
    :data:`HUMAN_FAIR_REACTION_MS` after the reveal; 7 at the default 25 ms (an answer in
    tick 7 lands at 200 ms)."""
    if not 1 <= tick_ms <= MAX_TICK_MS:
        raise ValueError(f"tick_ms must be in 1..{MAX_TICK_MS}, got {tick_ms}")
    return max(0, -(-HUMAN_FAIR_REACTION_MS // tick_ms) - 1)


PHASE_NAMES = ("react", "relocate", "over")


def _beliefs_need_knowledge(p: Mapping[str, Any]) -> str | None:
    if p["answer_beliefs"] and p["observation"] == "memoryless":
        return (
            "option 'answer_beliefs' needs observation='knowledge': the beliefs use where "
            "the fly hides, which a memoryless observation does not show"
        )
    return None


def _floor_below_window(p: Mapping[str, Any]) -> str | None:
    if p["min_reaction_ticks"] >= p["window_ticks"]:
        return (
            f"option 'min_reaction_ticks' must be below 'window_ticks' "
            f"({p['window_ticks']}), got {p['min_reaction_ticks']}: nobody could ever answer"
        )
    return None


def _prior_needs_beliefs(p: Mapping[str, Any]) -> str | None:
    if p["belief_prior"] != "independent" and not p["answer_beliefs"]:
        return (
            f"option 'belief_prior'={p['belief_prior']!r} needs answer_beliefs=True: it is "
            "the prior of that piece"
        )
    return None


def _count_needs_record(p: Mapping[str, Any]) -> str | None:
    if p["belief_prior"] == "count" and p["answer_beliefs"] and not p["public_record"]:
        return (
            "option 'belief_prior'='count' needs public_record=True: it counts the answers "
            "every seat gave, which a seat without the record does not see"
        )
    return None


OPTION_RULES = (
    OptionRule(
        ("answer_beliefs", "observation"),
        "`answer_beliefs=True` needs `observation='knowledge'` (the beliefs use where the fly "
        "hides)",
        _beliefs_need_knowledge,
        {"answer_beliefs": {"observation": "knowledge"}, "observation": {"answer_beliefs": False}},
    ),
    OptionRule(
        ("min_reaction_ticks", "window_ticks"),
        "`min_reaction_ticks` must be below `window_ticks` (else nobody could ever answer)",
        _floor_below_window,
        {
            "min_reaction_ticks": {"window_ticks": MAX_WINDOW_TICKS},
            "window_ticks": {"min_reaction_ticks": 0},
        },
    ),
    OptionRule(
        ("belief_prior", "answer_beliefs"),
        "a `belief_prior` other than 'independent' needs `answer_beliefs=True` (it is the "
        "prior of that piece)",
        _prior_needs_beliefs,
        {
            "belief_prior": {"answer_beliefs": True},
            "answer_beliefs": {"belief_prior": "independent"},
        },
    ),
    OptionRule(
        ("belief_prior", "public_record", "answer_beliefs"),
        "`belief_prior='count'` needs `public_record=True` (it counts every seat's answers, "
        "which only the record shows)",
        _count_needs_record,
        {
            "belief_prior": {"public_record": True},
            "public_record": {"belief_prior": "independent"},
            "answer_beliefs": {"belief_prior": "independent"},
        },
    ),
)
"""The rules between Ratto Zakko's options (checked by ``RattoZakko.options.check``)."""


class RattoZakko(Game):
    """Ratto Zakko for 2 - 8 seats answering in simultaneous ticks (RULES.md section 3).

    ``to_act`` is every seat that has not answered the card showing (they act at
    once, one tick per :meth:`apply`), or the relocating winner alone. Rewards:
    "cards" gives each resolved card's change in won cards; "win" gives
    ``common.rewards.win_rewards`` at the end.
    """

    name = "ratto_zakko"
    title = "Ratto Zakko"
    options = OptionSpec(
        Option("num_players", "int", 4, "seats", low=MIN_PLAYERS, high=MAX_PLAYERS),
        Option(
            "level",
            "choice",
            "starter",
            '"starter" (47 cards, no rats), "main" (54), "dessert" (54 and BANG on a food in '
            "its original colour)",
            choices=LEVELS,
        ),
        Option("tick_ms", "int", 25, "length of a tick in milliseconds", low=1, high=MAX_TICK_MS),
        Option(
            "window_ticks",
            "int",
            120,
            "ticks a card stays open (120 ticks of 25 ms: 3 s); then nobody was right",
            low=1,
            high=MAX_WINDOW_TICKS,
        ),
        Option(
            "min_reaction_ticks",
            "int",
            0,
            "answers are refused (masked) before this tick of a card (ticks count from 0; an "
            "answer lands at its tick's end, so the earliest lands (min_reaction_ticks + 1) * "
            "tick_ms after the reveal); 0: no floor; 7 at 25 ms ticks is the human-fair "
            "200 ms (rules.human_fair_min_reaction_ticks); below `window_ticks`",
            low=0,
            high=MAX_WINDOW_TICKS - 1,
        ),
        Option(
            "perception",
            "choice",
            "gradual",
            '"gradual": one noisy glimpse per tick, the observation carries the Bayes posterior '
            '(calibrated: an ideal observer is 95% sure after ~8 ticks); "clear": the card is '
            "fully seen at tick 0",
            choices=PERCEPTIONS,
        ),
        Option(
            "observation",
            "choice",
            "knowledge",
            '"knowledge": the fly\'s hiding place is always in the observation; "memoryless": '
            "only at the first tick of the game and of the card after it moved",
            choices=OBSERVATIONS,
            view_only=True,
        ),
        Option(
            "reward",
            "choice",
            "cards",
            '"cards": +1 per card won, -1 per card returned; "win": zero-sum at the end',
            choices=REWARD_MODES,
            view_only=True,
        ),
        Option(
            "original_colour_cards",
            "choice",
            CARDS_PER_FOOD_IN_ORIGINAL_COLOUR,
            "ruling: of each food's 8 cards, 4 in its original colour and 1 in each other "
            "colour; 0 (2 in each other colour) or 8 (all in the original colour) are the "
            "variants",
            choices=ORIGINAL_COLOUR_CARD_CHOICES,
        ),
        Option(
            "fly_card_under_shaker",
            "choice",
            "grab",
            'ruling "grab": a fly card is answered by grabbing the fly\'s cloche even under the '
            'shaker; "rat": shout RAT then',
            choices=FLY_CARD_RULES,
        ),
        Option(
            "relocation",
            "choice",
            "one",
            'ruling "one": after a fly or rat event the winner moves the fly or the shaker or '
            'nothing; "both": first the fly, then the shaker',
            choices=RELOCATION_MODES,
        ),
        Option(
            "answer_beliefs",
            "bool",
            False,
            "True appends 13 entries: how likely each response is the correct answer, by the "
            "seat's own posteriors and the table it knows (no new information; saves a learner "
            "the rules); needs observation='knowledge'",
            view_only=True,
        ),
        Option(
            "belief_prior",
            "choice",
            "independent",
            'the prior of the `answer_beliefs` piece: "independent": a card\'s identity and '
            "colour as independent (the bayes bot's beliefs); \"deck\": the deck's joint prior "
            'over food and colour (observe.joint_response_beliefs); "count": the cards not '
            "yet turned face up, by kind, and no response already given to the card "
            "(observe.counted_response_beliefs: the ideal bot's beliefs; needs "
            "`public_record=True`)",
            choices=BELIEF_PRIORS,
            view_only=True,
        ),
        Option(
            "public_record",
            "bool",
            False,
            "True appends what every player at the table has seen: `unseen` (27, the cards of "
            "each kind not yet turned face up / 8) and `ruled_out` (13, the responses already "
            "given to the card showing, each wrong as the card still shows); the ideal bot "
            "counts cards with it",
            view_only=True,
        ),
        rules=OPTION_RULES,
    )
    observer_kinds = ("knowledge", "memoryless", "privileged")
    num_actions = NUM_ACTIONS

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        p = self.params
        self.belief_prior: str = p["belief_prior"]
        self.level: str = p["level"]
        self.tick_ms: int = p["tick_ms"]
        self.window_ticks: int = p["window_ticks"]
        self.min_reaction_ticks: int = p["min_reaction_ticks"]
        """Answers are refused before this tick of a card (the latency floor)."""
        self.perception: str = p["perception"]
        self.observation_kind = p["observation"]
        self.memoryless = p["observation"] == "memoryless"
        self.reward_mode: str = p["reward"]
        self.original_colour_cards: int = p["original_colour_cards"]
        self.fly_card_under_shaker: str = p["fly_card_under_shaker"]
        self.relocation: str = p["relocation"]
        self.answer_beliefs: bool = p["answer_beliefs"]
        self.public_record: bool = p["public_record"]
        """The observation carries the public record (cards not yet seen, answers ruled out)."""
        self.glimpse_snr: float = DEFAULT_GLIMPSE_SNR
        """The glimpse quality d (not an option: the calibrated constant)."""
        self.total_cards: int = DECK_SIZE[self.level]
        """The level's deck size (47 or 54)."""

    # -------------------------------------------------------------- rules
    def init(self, rng: Chance) -> State:
        """Shuffle, place fly and shaker, reveal the first card (its first glimpses drawn)."""
        return new_game(self, rng)

    def to_act(self, state: State) -> tuple[int, ...]:
        """The seats still answering this tick (seat order), or the relocating winner."""
        phase = state.phase
        if phase == PHASE_REACT:
            return tuple(s for s, a in enumerate(state.answer) if a == NO_ANSWER)
        if phase == PHASE_RELOCATE:
            return (state.relocator,)
        return ()

    def correct(self, state: State) -> int:
        """The response index that is correct for the card showing now."""
        return correct_response_index(
            state.card, state.shaker_on, state.fly_under, self.level, self.fly_card_under_shaker
        )

    def legal_mask(self, state: State, seat: int) -> np.ndarray:
        """Reaction: wait or any of the 13 responses if ``seat`` has not answered this card
        (before tick ``min_reaction_ticks``: wait only, the seat still acts). Relocation
        (the winner): the 11 choices (``relocation="both"``: first a fly move or none, then
        a shaker move or none); moving a piece back where it was is legal, so
        the mask never reveals where the fly hides. All zero for a seat not to act."""
        phase = state.phase
        if phase == PHASE_REACT:
            if state.answer[seat] != NO_ANSWER:
                return _NO_ACTIONS.copy()
            early = state.tick < self.min_reaction_ticks
            return (_WAIT_MASK if early else _REACT_MASK).copy()
        if phase == PHASE_RELOCATE and seat == state.relocator:
            if self.relocation == "one":
                return _RELOCATE_MASK.copy()
            stage = state.relocation_stage
            return (_RELOCATE_FLY_MASK if stage == 0 else _RELOCATE_SHAKER_MASK).copy()
        return _NO_ACTIONS.copy()

    def waiting_mask(self, state: State, seat: int) -> np.ndarray:
        """A live seat that does not act now (it answered, or another seat relocates) may
        only wait (the parallel env's mask for it); nothing once the game is over."""
        return (_NO_ACTIONS if state.phase == PHASE_OVER else _WAIT_MASK).copy()

    def default_action(self, state: State, seat: int) -> int:
        """Wait in a tick; "leave both" for the relocating winner."""
        if state.phase == PHASE_RELOCATE:
            return ACTION_RELOCATE_FIRST + LEAVE_BOTH
        return ACTION_WAIT

    def apply(
        self, state: State, actions: Actions, rng: Chance, infos: Infos | None = None
    ) -> Rewards:
        """One tick: every seat of ``to_act`` waits or answers, then the tick ends (and the
        card may resolve); or the winner's relocation choice."""
        delta = None
        if state.phase == PHASE_RELOCATE:
            seat = state.relocator
            relocate(self, state, seat, actions[seat] - ACTION_RELOCATE_FIRST, rng)
        else:
            if state.tick < self.min_reaction_ticks:
                early = [s for s, a in actions.items() if a != ACTION_WAIT]
                if early:
                    raise ValueError(
                        f"seat {early[0]} answered too early: tick {state.tick} of the card, "
                        f"answers are refused before tick {self.min_reaction_ticks} "
                        "(option min_reaction_ticks)"
                    )
            for seat, action in actions.items():  # every action checked before any is given
                if (
                    not 0 <= seat < state.num_players
                    or not 0 <= action < NUM_ACTIONS
                    or not self.legal_mask(state, seat)[action]
                ):
                    raise ValueError(
                        f"seat {seat} may not play action {action!r} now; "
                        "no action of this tick was given"
                    )
            for seat, action in actions.items():
                submit(
                    state, seat, WAIT if action == ACTION_WAIT else action - ACTION_RESPONSE_FIRST
                )
            delta = end_tick(self, state, rng)
        if self.reward_mode == "cards":
            if delta is None or not any(delta):
                return None
            return [float(d) for d in delta]
        if state.phase == PHASE_OVER:
            return win_rewards(state.winners()).tolist()
        return None

    def is_terminal(self, state: State) -> bool:
        return state.phase == PHASE_OVER

    def winners(self, state: State) -> list[bool]:
        return state.winners()

    def resample(self, state: State, seat: int, rng: np.random.Generator) -> State:
        """A state that agrees with everything ``seat`` sees, the rest drawn anew.

        Drawn anew: the order of the cards still to come; the fly's hiding place (any of
        the five cloches) while the seat's memoryless observation does not show it; while
        a card is open, the other seats' answers to it (the seat sees only that they
        answered: each a wrong response, uniformly; with ``public_record`` it sees what they
        answered, so they are kept); and under gradual perception the card itself and the
        other seats' glimpses of it. The card is one of the cards not yet dealt (the deck
        and the card, their number of each kind its prior) weighted by the seat's own
        posteriors (identity, then colour), jointly with the fly: never a card and a fly
        for which the seat's own earlier answer (with ``public_record``, any earlier answer)
        would have been right (the card would have resolved).
        """
        import copy

        new = copy.deepcopy(state)
        n = state.num_players
        hide_fly = self.observation_kind == "memoryless" and not state.fly_shown
        flies = list(range(len(FOODS))) if hide_fly else [state.fly_under]
        if state.phase != PHASE_REACT or state.card is None:
            rng.shuffle(new.deck)
            new.fly_under = flies[int(rng.integers(len(flies)))]
            return new
        gradual = self.perception == "gradual"
        pool = [*state.deck, state.card]
        if gradual:
            kinds, counts = np.unique(pool, return_counts=True)
            identity, colour = state.posterior[seat]
            weight = counts * identity[[_channel(int(k)) for k in kinds]]
            food = kinds < FLY_CARD
            weight[food] *= colour[kinds[food] % len(COLOURS)]
        else:  # the seat sees the card
            kinds, weight = np.array([state.card]), np.ones(1)
        seen = range(n) if self.public_record else [seat]
        given = {state.answer[s] for s in seen} - {NO_ANSWER}
        joint = np.array(
            [
                [
                    0.0
                    if correct_response_index(
                        int(k), state.shaker_on, f, self.level, self.fly_card_under_shaker
                    )
                    in given
                    else float(w)
                    for f in flies
                ]
                for k, w in zip(kinds, weight)
            ]
        ).ravel()
        pick = int(rng.choice(joint.size, p=joint / joint.sum()))
        card, new.fly_under = int(kinds[pick // len(flies)]), flies[pick % len(flies)]
        if gradual:
            pool.remove(card)
            new.card, new.deck = card, pool
            evidence = prior_evidence(n, self.level)
            for _ in range(state.tick + 1):
                add_glimpses(evidence, card, self.glimpse_snr, rng)
            evidence[seat] = state.evidence[seat]
            new.evidence = evidence
            new.posterior = posteriors(evidence)
            new.posterior[seat] = state.posterior[seat]
        rng.shuffle(new.deck)
        if not self.public_record:
            right = correct_response_index(
                card, state.shaker_on, new.fly_under, self.level, self.fly_card_under_shaker
            )
            wrong = [r for r in range(NUM_RESPONSES) if r != right]
            for other in range(n):
                if other != seat and state.answer[other] != NO_ANSWER:
                    new.answer[other] = wrong[int(rng.integers(len(wrong)))]
        return new

    def to_json(self, state: State) -> dict[str, Any]:
        """The whole game as JSON-ready data (the truth, for replays and debugging)."""
        last = state.last_result
        return {
            "level": self.level,
            "phase": PHASE_NAMES[state.phase],
            "card": None if state.card is None else CARD_NAMES[state.card],
            "tick": state.tick,
            "shaker_on": FOODS[state.shaker_on],
            "fly_under": FOODS[state.fly_under],
            "dealer": state.dealer,
            "relocator": state.relocator,
            "relocation_stage": state.relocation_stage,
            "answers": [
                None if a == NO_ANSWER else [RESPONSES[a], t]
                for a, t in zip(state.answer, state.answer_tick)
            ],
            "cards_won": state.card_counts(),
            "won_piles": [[CARD_NAMES[c] for c in pile] for pile in state.won],
            "jackpot": [CARD_NAMES[c] for c in state.jackpot],
            "deck": [CARD_NAMES[c] for c in state.deck],
            "cards_dealt": state.cards_dealt,
            "last_result": None
            if last is None
            else {
                "card": CARD_NAMES[last.card],
                "correct": RESPONSES[last.correct],
                "tick": last.tick,
                "winner": last.winner,
                "answers": {str(s): [RESPONSES[a], t] for s, (a, t) in last.answers.items()},
                "returned_by": list(last.returned_by),
                "tied": list(last.tied),
                "cards_won": last.cards_won,
                "event": last.event,
            },
        }

    def make_observer(self, kind: str) -> Any:
        from ratenvs.ratto_zakko.observe import PrivilegedObserver, SeatObserver

        if kind == "privileged":
            return PrivilegedObserver(self)
        return SeatObserver(self, kind)
