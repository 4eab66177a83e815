"""What one seat sees in Ratto Zakko (the only place information is filtered).

The observation is the :class:`SeatObserver`'s pieces (``env.observer.pieces``;
per-seat pieces start with the observer, then the other seats in seat order
after it). For 2 seats with ``public_record=True`` and ``answer_beliefs=True``
(``n`` seats: the three per-seat pieces have ``n`` entries; without
``public_record`` the pieces ``unseen`` and ``ruled_out`` are absent, without
``answer_beliefs`` the last piece; ``elapsed_s`` and ``tick_s`` scale with the
options, here the defaults):

{table}

The kinds: ``"knowledge"`` (the fly's hiding place is public, so always
shown), ``"memoryless"`` (``fly_under`` and ``fly_shown`` only at the first
tick of the game and of the card after the fly was moved: ``State.fly_shown``)
and ``"privileged"`` (:class:`PrivilegedObserver`, the whole truth, PettingZoo's
``state()``):

{privileged}

Answers given in the current tick are simultaneous: nobody sees them before
the tick ends (so the AEC form, where seats act one after another within a
tick, shows the same thing as the parallel form).

Perception: ``identity`` and ``colour`` are the seat's own Bayes posteriors
(:mod:`~ratenvs.ratto_zakko.perception`), all 0 without a card.

The public record (``public_record=True``; our ruling: a resolved card lies face
up, and every answer is seen as it lands): ``unseen`` counts the cards not yet
turned face up, so a seat can count cards; ``ruled_out`` holds the responses given
to the card showing in earlier ticks, each wrong (the card would have resolved).

Actions (25, :data:`rules.NUM_ACTIONS`):

=========  =================================================  ================================
action     meaning                                            legal when
=========  =================================================  ================================
0          wait (no response this tick)                       always while the game runs*
1 .. 5     grab the apple, egg, cheese, fish, chili cloche    a card shows, not yet answered
6          shout FLY                                          likewise
7          shout RAT                                          likewise
8 .. 12    shout apple, egg, cheese, fish, chili              likewise
13         bang the table                                     likewise
14 .. 18   move the fly under the apple .. chili cloche       relocation, the winner only**
19 .. 23   move the shaker onto the apple .. chili cloche     relocation, the winner only**
24         no move (leave both / leave this piece)            relocation, the winner only
=========  =================================================  ================================

\\* except for the relocating winner. A seat that has answered, or waits for
a winner's relocation, can only wait (in the AEC form it is not asked at all).
\\** with ``relocation="both"`` the winner decides twice: first the fly (14..18 or 24),
then the shaker (19..23 or 24).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from ratenvs.common.observer import Observer, Piece
from ratenvs.ratto_zakko.perception import CERTAINTY, NUM_CHANNELS
from ratenvs.ratto_zakko.rules import (
    ACTION_RELOCATE_FIRST,
    ACTION_RESPONSE_FIRST,
    ACTION_WAIT,
    CARD_NAMES,
    CARDS_PER_FOOD_IN_ORIGINAL_COLOUR,
    COLOURS,
    FLY_CARD,
    FOODS,
    IDENTITIES,
    LEVELS,
    NO_ANSWER,
    NUM_ACTIONS,
    NUM_CARD_KINDS,
    NUM_COLOURS,
    NUM_FOODS,
    NUM_RESPONSES,
    OBSERVATIONS,
    PHASE_REACT,
    PHASE_RELOCATE,
    RAT_CARD,
    RESPONSES,
    State,
    build_deck,
    correct_response_index,
)

if TYPE_CHECKING:
    from ratenvs.ratto_zakko.rules import RattoZakko

__all__ = [
    "ACTION_RELOCATE_FIRST",
    "ACTION_RESPONSE_FIRST",
    "ACTION_WAIT",
    "NUM_ACTIONS",
    "OBSERVATIONS",
    "PrivilegedObserver",
    "SeatObserver",
    "answer_beliefs",
    "colour_prior",
    "counted_response_beliefs",
    "joint_response_beliefs",
    "observation_size",
    "response_beliefs",
    "ruled_out_responses",
    "unseen_counts",
]

MS_PER_S = 1000.0
NUM_LEVELS = len(LEVELS)


UNSEEN_SCALE = 8.0
"""The ``unseen`` piece holds counts / 8 (no card kind has more than 8 cards): exact in float32."""


def seat_pieces(
    num_players: int,
    tick_ms: int,
    window_ticks: int,
    answer_beliefs: bool = False,
    public_record: bool = False,
) -> list[Piece]:
    """The named pieces of a seat's observation (the same for both seat kinds)."""
    n = num_players
    out = [
        Piece(
            "identity",
            (7,),
            "identity posterior of the card showing: apple, egg, cheese, fish, chili, fly, "
            "rat (the seat's own glimpses; all 0 without a card)",
        ),
        Piece("colour", (NUM_COLOURS,), "colour posterior: green, white, yellow, blue, red"),
        Piece("card_showing", (1,), "a card is showing (the reaction phase)"),
        Piece("shaker_on", (NUM_FOODS,), "the cloche the rat shaker sits on (one-hot)"),
        Piece(
            "fly_under",
            (NUM_FOODS,),
            "the cloche hiding the fly (one-hot); memoryless: only while `fly_shown`, else 0",
        ),
        Piece(
            "fly_shown",
            (1,),
            "the fly's place is shown in `fly_under` (knowledge: always 1; memoryless: 1 at "
            "the first tick of the game and of the card after the fly was moved, and in the "
            "relocation after a card decided at that tick)",
        ),
        Piece("level", (NUM_LEVELS,), "level: starter, main, dessert (one-hot)"),
        Piece("tick_fraction", (1,), "tick / `window_ticks` (0 at the card's first tick)"),
        Piece(
            "elapsed_s",
            (1,),
            "seconds since the card was revealed, at the end of this tick: "
            "(tick + 1) * `tick_ms` / 1000",
            high=window_ticks * tick_ms / MS_PER_S,
        ),
        Piece(
            "tick_s",
            (1,),
            "`tick_ms` / 1000 (the length of a tick, seconds)",
            high=tick_ms / MS_PER_S,
        ),
        Piece(
            "relocation_phase", (1,), "relocation phase: a winner may move the fly or the shaker"
        ),
        Piece("i_relocate", (1,), "the observer is that winner"),
        Piece("jackpot", (1,), "jackpot / deck size"),
        Piece("cards_left", (1,), "cards left in the deck / deck size"),
        Piece(
            "fly_card_rat_variant",
            (1,),
            'variant `fly_card_under_shaker="rat"`: a fly card whose fly hides under the '
            "shaker is answered RAT (0: grab, the ruling)",
        ),
        Piece("cards_won", (n,), "cards won by each seat / deck size (own first)"),
        Piece("answered", (n,), "has answered this card in an earlier tick (own first)"),
        Piece("dealer", (n,), "the dealer of this card, i.e. the last winner (one-hot, own first)"),
    ]
    if public_record:
        out += [
            Piece(
                "unseen",
                (NUM_CARD_KINDS,),
                "only with `public_record=True`: the cards of each kind (card ids: food * 5 + "
                "colour, fly, rat) not yet turned face up, in the deck or showing, / 8",
            ),
            Piece(
                "ruled_out",
                (NUM_RESPONSES,),
                "only with `public_record=True`: 1 for each response some seat gave to the card "
                "showing in an earlier tick (wrong: the card still shows)",
            ),
        ]
    if answer_beliefs:
        out.append(
            Piece(
                "answer_beliefs",
                (NUM_RESPONSES,),
                "only with `answer_beliefs=True`: the probability that each of the 13 responses "
                "(`rules.RESPONSES`, the order of actions 1 .. 13) is the correct answer, by the "
                "seat's own posteriors and the table it sees (prior: option `belief_prior`); all "
                "0 without a card",
            )
        )
    return out


PREFIX = Observer("knowledge", seat_pieces(1, 25, 120)[:15])
"""The pieces before the per-seat ones: their place does not depend on the table size or the
options (bots that are not bound to an observer read these)."""
PER_SEAT = PREFIX.size
"""Start of the per-seat pieces (35)."""


def observation_size(
    num_players: int, answer_beliefs: bool = False, public_record: bool = False
) -> int:
    """Length of a seat's observation vector for ``num_players`` seats."""
    record = NUM_CARD_KINDS + NUM_RESPONSES if public_record else 0
    return PER_SEAT + 3 * num_players + record + (NUM_RESPONSES if answer_beliefs else 0)


def _start(name: str) -> int:
    return PREFIX.slices[name].start


# Offsets of the fixed prefix, derived from the pieces (for tests and tools reading raw vectors;
# bots read named views through ``bind(observer)``).
IDENTITY_SLICE = PREFIX.slices["identity"]
COLOUR_SLICE = PREFIX.slices["colour"]
POSTERIOR_SLICE = slice(IDENTITY_SLICE.start, COLOUR_SLICE.stop)
CARD_SHOWING = _start("card_showing")
SHAKER_SLICE = PREFIX.slices["shaker_on"]
FLY_SLICE = PREFIX.slices["fly_under"]
FLY_SHOWN = _start("fly_shown")
LEVEL_SLICE = PREFIX.slices["level"]
TICK_FRACTION = _start("tick_fraction")
ELAPSED_S = _start("elapsed_s")
TICK_S = _start("tick_s")
RELOCATION_PHASE = _start("relocation_phase")
I_RELOCATE = _start("i_relocate")
JACKPOT = _start("jackpot")
CARDS_LEFT = _start("cards_left")
FLY_CARD_RAT_VARIANT = _start("fly_card_rat_variant")
assert POSTERIOR_SLICE.stop == NUM_CHANNELS


# ------------------------------------------------------------ answer beliefs
@cache
def _answer_table(
    shaker_on: int, fly_under: int, level: str, fly_card_under_shaker: str
) -> np.ndarray:
    """The correct response index for every card id (27) with this table; a rat card at
    the starter level (never dealt there) maps to response 0 and gets probability 0."""
    table = np.zeros(len(CARD_NAMES), dtype=np.intp)
    for card in range(len(CARD_NAMES)):
        if card == RAT_CARD and level == "starter":
            continue
        table[card] = correct_response_index(
            card, shaker_on, fly_under, level, fly_card_under_shaker
        )
    return table


def response_beliefs(
    identity: np.ndarray,
    colour: np.ndarray,
    shaker_on: int,
    fly_under: int,
    level: str,
    fly_card_under_shaker: str = "grab",
) -> np.ndarray:
    """How likely each of the 13 responses is the correct answer.

    ``identity`` (7) and ``colour`` (5) are a seat's posteriors over the card
    showing; every card it might be gets their product (fly and rat cards: the
    identity alone) and counts for the oracle's answer to it
    (:func:`rules.correct_response`) with the shaker and the fly at
    ``shaker_on`` and ``fly_under``. A rat card at the starter level gets 0.
    """
    joint = np.empty(len(CARD_NAMES), dtype=np.float64)
    joint[:FLY_CARD] = np.outer(identity[:NUM_FOODS], colour[:NUM_COLOURS]).ravel()
    joint[FLY_CARD] = identity[NUM_FOODS]
    joint[RAT_CARD] = 0.0 if level == "starter" else identity[NUM_FOODS + 1]
    table = _answer_table(shaker_on, fly_under, level, fly_card_under_shaker)
    return np.bincount(table, weights=joint, minlength=NUM_RESPONSES).astype(np.float32)


@cache
def _colour_prior(original_colour_cards: int) -> np.ndarray:
    deck = build_deck("main", original_colour_cards)
    counts = np.bincount([c for c in deck if c < FLY_CARD], minlength=FLY_CARD)
    counts = counts.reshape(NUM_FOODS, NUM_COLOURS).astype(np.float64)
    prior = counts / counts.sum(axis=1, keepdims=True)
    prior.flags.writeable = False
    return prior


def colour_prior(original_colour_cards: int = CARDS_PER_FOOD_IN_ORIGINAL_COLOUR) -> np.ndarray:
    """The deck's colour prior of a food card, ``P(colour | food)``: a read-only (5, 5)
    float64 table, row = food, column = colour (counted from
    :func:`rules.build_deck`; option ``original_colour_cards``: 4, the ruling, gives 0.5 on
    the diagonal, a food's original colour, and 0.125 elsewhere; 0 gives 0 and 0.25; 8 the
    identity matrix). Every entry is an exact binary fraction."""
    return _colour_prior(original_colour_cards)


@cache
def _colour_ratio(original_colour_cards: int) -> np.ndarray:
    ratio = (_colour_prior(original_colour_cards) * NUM_COLOURS).ravel()
    ratio.flags.writeable = False
    return ratio


def joint_response_beliefs(
    identity: np.ndarray,
    colour: np.ndarray,
    shaker_on: int,
    fly_under: int,
    level: str,
    fly_card_under_shaker: str = "grab",
    original_colour_cards: int = CARDS_PER_FOOD_IN_ORIGINAL_COLOUR,
) -> np.ndarray:
    """How likely each of the 13 responses is the correct answer, with the deck's joint
    prior over a food card's colour (the identities' prior uniform): the ``ideal`` bot's
    beliefs without the public record.

    :func:`response_beliefs` weighs a food card (f, c) by ``identity[f] * colour[c]``, as if
    identity and colour were independent with uniform priors; but of a food's 8 cards
    ``original_colour_cards`` (4, the ruling) are in its original colour. The posteriors of
    the observation come from uniform priors, so the card's posterior is their product
    times ``P(c | f) / (1/5)`` (:func:`colour_prior`), normalised. Fly and rat cards keep the
    weight ``identity[fly]`` / ``identity[rat]`` (a rat card at the starter level 0): their
    colour channels are pure noise, and the block-normalised colour posterior cannot give
    the exact likelihood of "no colour signal", so these weights are those of
    :func:`response_beliefs` (the one approximation here). With ``original_colour_cards``
    8 a food card in a foreign colour gets weight 0; if every weight is 0 (no card showing:
    all posteriors 0) the result is all 0.

    The steps, exactly (the kernel bot of :mod:`~ratenvs.ratto_zakko.batched` repeats
    them): the posteriors are taken as float32 (the observation's values); a food card's
    weight is the float32 product ``identity[f] * colour[c]``, widened to float64 and
    multiplied by the float64 ratio ``5 P(c | f)`` (an exact binary fraction, so exact);
    the fly and rat weights are the float32 posteriors widened; in float64 the total is the
    sum of the 27 weights one by one in card-id order, each response's sum adds its cards'
    weights one by one in card-id order, and each response's sum is divided by the total;
    the result is rounded to float32.
    """
    ident = np.asarray(identity, dtype=np.float32)
    col = np.asarray(colour, dtype=np.float32)
    weights = np.empty(len(CARD_NAMES), dtype=np.float64)
    weights[:FLY_CARD] = np.outer(ident[:NUM_FOODS], col[:NUM_COLOURS]).ravel()
    weights[:FLY_CARD] *= _colour_ratio(original_colour_cards)
    weights[FLY_CARD] = ident[NUM_FOODS]
    weights[RAT_CARD] = 0.0 if level == "starter" else ident[NUM_FOODS + 1]
    total = float(np.cumsum(weights)[-1])  # one by one, in card-id order
    if not total > 0.0:
        return np.zeros(NUM_RESPONSES, dtype=np.float32)
    table = _answer_table(shaker_on, fly_under, level, fly_card_under_shaker)
    sums = np.bincount(table, weights=weights, minlength=NUM_RESPONSES)
    return (sums / total).astype(np.float32)


def counted_response_beliefs(
    identity: np.ndarray,
    colour: np.ndarray,
    shaker_on: int,
    fly_under: int,
    level: str,
    fly_card_under_shaker: str,
    unseen: np.ndarray,
    ruled_out: np.ndarray,
) -> np.ndarray:
    """How likely each of the 13 responses is the correct answer to a card counter who
    also heard every answer given: the ``ideal`` bot's beliefs with ``public_record``.

    The card showing is one of the ``unseen`` cards (27 counts by card id: the deck and the
    card), so card id ``k`` has prior ``unseen[k] / sum(unseen)``; the observation's
    posteriors come from uniform priors (1/7 over the identities, 1/5 over the colours), so
    a food card's weight is ``identity[f] * colour[c] * 35 * unseen[k]`` and the fly's and
    the rat's ``identity[.] * 7 * unseen[k]`` (their colour channels are pure noise: as in
    :func:`joint_response_beliefs`, the one approximation). A response in ``ruled_out``
    (given to this card in an earlier tick while the card still shows: wrong) gets 0: every
    card it answers gets weight 0. Normalised; all 0 if every weight is 0.

    The steps, exactly (the kernel bot of :mod:`~ratenvs.ratto_zakko.batched` repeats
    them): the posteriors as float32; a food card's weight is the float32 product
    ``identity[f] * colour[c]`` widened to float64 times the integer ``35 * unseen[k]``
    (exact); the fly's and rat's the float32 posterior widened times ``7 * unseen[k]``;
    ruled-out cards 0; in float64 the total sums the 27 weights one by one in card-id
    order and each response's sum its cards' weights likewise; each sum / total, rounded to
    float32.
    """
    ident = np.asarray(identity, dtype=np.float32)
    col = np.asarray(colour, dtype=np.float32)
    counts = np.asarray(unseen, dtype=np.float64)
    weights = np.empty(len(CARD_NAMES), dtype=np.float64)
    weights[:FLY_CARD] = np.outer(ident[:NUM_FOODS], col[:NUM_COLOURS]).ravel()
    weights[:FLY_CARD] *= 35.0 * counts[:FLY_CARD]
    weights[FLY_CARD] = float(ident[NUM_FOODS]) * 7.0 * counts[FLY_CARD]
    weights[RAT_CARD] = (
        0.0 if level == "starter" else float(ident[NUM_FOODS + 1]) * 7.0 * counts[RAT_CARD]
    )
    table = _answer_table(shaker_on, fly_under, level, fly_card_under_shaker)
    weights[np.asarray(ruled_out, dtype=bool)[table]] = 0.0
    total = float(np.cumsum(weights)[-1])  # one by one, in card-id order
    if not total > 0.0:
        return np.zeros(NUM_RESPONSES, dtype=np.float32)
    sums = np.bincount(table, weights=weights, minlength=NUM_RESPONSES)
    return (sums / total).astype(np.float32)


def unseen_counts(state: State) -> np.ndarray:
    """The cards of each kind not yet turned face up (the deck and the card showing): 27
    counts by card id, public (every resolved card lies face up)."""
    pool = state.deck if state.card is None else [*state.deck, state.card]
    return np.bincount(np.asarray(pool, dtype=np.intp), minlength=NUM_CARD_KINDS)


def ruled_out_responses(state: State) -> np.ndarray:
    """The responses given to the card showing in earlier ticks (13 booleans; all False
    outside the reaction phase): public, and each wrong, since the card still shows."""
    out = np.zeros(NUM_RESPONSES, dtype=bool)
    if state.phase == PHASE_REACT:
        for a in state.answer:
            if a != NO_ANSWER:
                out[a] = True
    return out


def answer_beliefs(
    game: RattoZakko,
    state: State,
    seat: int,
    record: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """:func:`response_beliefs` of ``seat`` for the card showing (all 0 when none shows);
    with ``belief_prior="deck"`` :func:`joint_response_beliefs` (the deck's joint prior),
    with ``"count"`` :func:`counted_response_beliefs` (the cards not yet seen, the answers
    ruled out: public, like the rest; ``record``: the state's :func:`unseen_counts` and
    :func:`ruled_out_responses` where the caller has them already).

    Only what the seat knows enters (its own posteriors, the shaker, the fly
    whose place is public in the "knowledge" observation), so this adds no
    information to the observation; it saves a learner re-deriving the rules.
    """
    if state.phase != PHASE_REACT:
        return np.zeros(NUM_RESPONSES, dtype=np.float32)
    post = state.posterior[seat]
    table = (
        post[0],
        post[1],
        state.shaker_on,
        state.fly_under,
        game.level,
        game.fly_card_under_shaker,
    )
    if game.belief_prior == "count":
        if record is None:
            record = (unseen_counts(state), ruled_out_responses(state))
        return counted_response_beliefs(*table, *record)
    if game.belief_prior == "deck":
        return joint_response_beliefs(*table, game.original_colour_cards)
    return response_beliefs(*table)


# ------------------------------------------------------------ words
def perceived(identity: np.ndarray, colour: np.ndarray) -> tuple[int | None, int | None, str]:
    """What a seat may name from its posteriors: the identity and colour it is
    :data:`~ratenvs.ratto_zakko.perception.CERTAINTY` sure of (else None), and a caption
    with its best guesses."""
    best_id, best_col = int(np.argmax(identity)), int(np.argmax(colour))
    p_id, p_col = float(identity[best_id]), float(colour[best_col])
    sure_id = best_id if p_id >= CERTAINTY else None
    coloured = best_id < NUM_FOODS or sure_id is None
    sure_col = best_col if p_col >= CERTAINTY and coloured else None
    caption = f"best guess: {IDENTITIES[best_id]} {100 * p_id:.0f}%"
    if coloured:
        caption += f", {COLOURS[best_col]} {100 * p_col:.0f}%"
    return sure_id, sure_col, caption


def _omniscient_text(game: RattoZakko, state: State, agents: list[str]) -> str:
    """A few lines describing the table (the truth)."""
    lines = [
        f"level {game.level}  shaker on {FOODS[state.shaker_on]}  "
        f"fly under {FOODS[state.fly_under]}  jackpot {len(state.jackpot)}  "
        f"deck {len(state.deck)}"
    ]
    last = state.last_result
    if last is not None:
        who = "nobody (jackpot)" if last.winner is None else agents[last.winner]
        lines.append(
            f"last card {CARD_NAMES[last.card]}: {RESPONSES[last.correct]} "
            f"-> {who} at tick {last.tick}"
        )
    for i, a in enumerate(agents):
        ans = state.answer[i] if state.phase == PHASE_REACT else NO_ANSWER
        said = "" if ans == NO_ANSWER else f"  answered {RESPONSES[ans]}"
        lines.append(f"  {a}: {len(state.won[i]):2d} cards{said}")
    if state.phase == PHASE_REACT:
        lines.append(f"card {CARD_NAMES[state.card]}  tick {state.tick}")
    elif state.phase == PHASE_RELOCATE:
        lines.append(f"{agents[state.relocator]} may move the fly or the shaker")
    else:
        winners = [a for a, w in zip(agents, state.winners()) if w]
        lines.append(f"game over - winner(s): {', '.join(winners)}")
    return "\n".join(lines)


# ------------------------------------------------------------ the seat's view
class SeatObserver(Observer):
    """A seat's observation ("knowledge" or "memoryless"): its own perception of the card,
    the table it may see, the public counts."""

    def __init__(self, game: RattoZakko, kind: str) -> None:
        if kind not in OBSERVATIONS:
            raise ValueError(f"unknown seat observer kind {kind!r}; choose one of {OBSERVATIONS}")
        beliefs = game.answer_beliefs and kind == "knowledge"
        super().__init__(
            kind,
            seat_pieces(
                game.num_players, game.tick_ms, game.window_ticks, beliefs, game.public_record
            ),
        )
        self.game = game
        self.memoryless = kind == "memoryless"
        self.with_beliefs = beliefs
        n = game.num_players
        self._n = n
        self._total = float(game.total_cards)
        self._window_ticks = game.window_ticks
        self._tick_ms = game.tick_ms
        self._tick_s = game.tick_ms / MS_PER_S
        self._level_at = LEVELS.index(game.level)
        self._rat_variant = game.fly_card_under_shaker == "rat"
        s = self.slices
        self._identity = s["identity"]
        self._colour = s["colour"]
        self._card_showing = s["card_showing"].start
        self._shaker = s["shaker_on"].start
        self._fly = s["fly_under"].start
        self._fly_shown = s["fly_shown"].start
        self._level = s["level"].start
        self._tick_fraction = s["tick_fraction"].start
        self._elapsed = s["elapsed_s"].start
        self._tick_s_at = s["tick_s"].start
        self._relocation = s["relocation_phase"].start
        self._i_relocate = s["i_relocate"].start
        self._jackpot = s["jackpot"].start
        self._cards_left = s["cards_left"].start
        self._variant = s["fly_card_rat_variant"].start
        self._won = s["cards_won"].start
        self._answered = s["answered"].start
        self._dealer = s["dealer"].start
        self._beliefs = s["answer_beliefs"].start if beliefs else 0
        self.public_record = game.public_record
        self._unseen = s["unseen"] if self.public_record else slice(0)
        self._ruled_out = s["ruled_out"] if self.public_record else slice(0)

    def observe(self, state: State, seat: int | None) -> np.ndarray:
        """The vector of ``seat`` (see the module table)."""
        if seat is None:
            raise ValueError("a seat observer needs a seat; the privileged view is its own kind")
        n = self._n
        total = self._total
        vec = np.zeros(self.size, dtype=np.float32)
        reacting = state.phase == PHASE_REACT
        if reacting:
            post = state.posterior[seat]
            vec[self._identity] = post[0]
            vec[self._colour] = post[1, :NUM_COLOURS]
            vec[self._card_showing] = 1.0
            vec[self._tick_fraction] = state.tick / self._window_ticks
            vec[self._elapsed] = (state.tick + 1) * self._tick_ms / MS_PER_S
        vec[self._shaker + state.shaker_on] = 1.0
        if not self.memoryless or state.fly_shown:
            vec[self._fly + state.fly_under] = 1.0
            vec[self._fly_shown] = 1.0
        vec[self._level + self._level_at] = 1.0
        vec[self._tick_s_at] = self._tick_s
        if state.phase == PHASE_RELOCATE:
            vec[self._relocation] = 1.0
            vec[self._i_relocate] = 1.0 if state.relocator == seat else 0.0
        vec[self._jackpot] = len(state.jackpot) / total
        vec[self._cards_left] = len(state.deck) / total
        if self._rat_variant:
            vec[self._variant] = 1.0
        won = state.won
        answer = state.answer
        w0, a0 = self._won, self._answered
        for i in range(n):
            s = (seat + i) % n
            vec[w0 + i] = len(won[s]) / total
            if reacting and answer[s] != NO_ANSWER:
                vec[a0 + i] = 1.0
        vec[self._dealer + (state.dealer - seat) % n] = 1.0
        record = None
        if self.public_record:
            record = (unseen_counts(state), ruled_out_responses(state))
            vec[self._unseen] = record[0] / UNSEEN_SCALE
            vec[self._ruled_out] = record[1]
        if self.with_beliefs:
            vec[self._beliefs :] = answer_beliefs(self.game, state, seat, record)
        return vec

    def string_from(self, state: State, seat: int | None) -> str:
        """The table as text from ``seat`` (None: the truth). A seat's text shows only what
        its observation carries: the card as perceived so far, the fly only when shown."""
        game = self.game
        agents = [f"player_{i}" for i in range(self._n)]
        if seat is None:
            return _omniscient_text(game, state, agents)
        v = self.views(self.observe(state, seat))
        n = self._n
        order = [(seat + i) % n for i in range(n)]
        fly = (
            f"fly under {FOODS[int(np.argmax(v['fly_under']))]}"
            if v["fly_shown"] > 0.5
            else "fly not shown (remember it)"
        )
        lines = [
            f"level {game.level}  shaker on {FOODS[int(np.argmax(v['shaker_on']))]}  {fly}  "
            f"jackpot {len(state.jackpot)}  deck {len(state.deck)}"
        ]
        last = state.last_result
        if last is not None:
            if last.winner is not None:
                outcome = f"{agents[last.winner]} won {last.cards_won} card(s) at tick {last.tick}"
            elif last.tied:
                outcome = "a tie: to the jackpot"
            else:
                outcome = "nobody was right: to the jackpot"
            lines.append(f"last card: {outcome}")
        dealer = order[int(np.argmax(v["dealer"]))]
        for i, p in enumerate(order):
            you = " (you)" if p == seat else ""
            said = "  answered" if v["answered"][i] > 0.5 else ""
            deals = "  dealer" if p == dealer and v["card_showing"] > 0.5 else ""
            lines.append(f"  {agents[p]}{you}: {len(state.won[p]):2d} cards{said}{deals}")
        if v["card_showing"] > 0.5:
            sure_id, sure_col, caption = perceived(v["identity"], v["colour"])
            if sure_id is None:
                card = "?"
            elif sure_id == NUM_FOODS:
                card = "FLY card"
            elif sure_id == NUM_FOODS + 1:
                card = "RAT card"
            else:
                card = FOODS[sure_id] + (f" ({COLOURS[sure_col]})" if sure_col is not None else "")
            lines.append(f"card {card} ({caption})  tick {state.tick}")
        elif v["relocation_phase"] > 0.5:
            lines.append(f"{agents[state.relocator]} may move the fly or the shaker")
        else:
            winners = [a for a, w in zip(agents, state.winners()) if w]
            lines.append(f"game over - winner(s): {', '.join(winners)}")
        return "\n".join(lines)


# ------------------------------------------------------------ the whole truth
def privileged_pieces(num_players: int, tick_ms: int, window_ticks: int) -> list[Piece]:
    """The named pieces of the privileged view (seat order, seat 0 first)."""
    n = num_players
    return [
        Piece("card", (NUM_CARD_KINDS,), "the true card showing (one-hot over the 27 card ids)"),
        Piece("phase", (3,), "react, relocate, over (one-hot)"),
        Piece("shaker_on", (NUM_FOODS,), "the cloche the rat shaker sits on (one-hot)"),
        Piece("fly_under", (NUM_FOODS,), "the cloche hiding the fly (one-hot, always)"),
        Piece("fly_shown", (1,), "a memoryless observation shows the fly now"),
        Piece("level", (NUM_LEVELS,), "level: starter, main, dessert (one-hot)"),
        Piece("tick_fraction", (1,), "tick / `window_ticks`"),
        Piece(
            "elapsed_s",
            (1,),
            "(tick + 1) * `tick_ms` / 1000",
            high=window_ticks * tick_ms / MS_PER_S,
        ),
        Piece("tick_s", (1,), "`tick_ms` / 1000", high=tick_ms / MS_PER_S),
        Piece("relocation_stage", (1,), '`relocation="both"`: 1 while the shaker may move'),
        Piece("relocator", (n,), "the seat that may move the fly or the shaker (one-hot)"),
        Piece("jackpot", (1,), "jackpot / deck size"),
        Piece("cards_left", (1,), "cards left in the deck / deck size"),
        Piece("deck", (NUM_CARD_KINDS,), "the cards left in the deck by card id / deck size"),
        Piece("fly_card_rat_variant", (1,), 'variant `fly_card_under_shaker="rat"`'),
        Piece("cards_won", (n,), "cards won by each seat / deck size"),
        Piece("answers", (n, NUM_RESPONSES), "each seat's answer to this card (one-hot)"),
        Piece("answer_tick", (n,), "the tick of each seat's answer / `window_ticks`"),
        Piece("dealer", (n,), "the dealer of this card (one-hot)"),
        Piece("posteriors", (n, NUM_CHANNELS), "each seat's identity and colour posteriors"),
    ]


class PrivilegedObserver(Observer):
    """The whole truth (``env.state()``): the true card, the fly, every seat's answers and
    perception, the deck's composition."""

    def __init__(self, game: RattoZakko) -> None:
        super().__init__(
            "privileged", privileged_pieces(game.num_players, game.tick_ms, game.window_ticks)
        )
        self.game = game

    def observe(self, state: State, seat: int | None = None) -> np.ndarray:
        game = self.game
        n = game.num_players
        total = float(game.total_cards)
        vec = np.zeros(self.size, dtype=np.float32)
        v = self.views(vec)
        reacting = state.phase == PHASE_REACT
        if reacting:
            v["card"][state.card] = 1.0
            v["tick_fraction"][...] = state.tick / game.window_ticks
            v["elapsed_s"][...] = (state.tick + 1) * game.tick_ms / MS_PER_S
            for s in range(n):
                if state.answer[s] != NO_ANSWER:
                    v["answers"][s, state.answer[s]] = 1.0
                    v["answer_tick"][s] = state.answer_tick[s] / game.window_ticks
            v["posteriors"][:, :7] = state.posterior[:, 0]
            v["posteriors"][:, 7:] = state.posterior[:, 1, :NUM_COLOURS]
        v["phase"][state.phase] = 1.0
        v["shaker_on"][state.shaker_on] = 1.0
        v["fly_under"][state.fly_under] = 1.0
        v["fly_shown"][...] = float(state.fly_shown)
        v["level"][LEVELS.index(game.level)] = 1.0
        v["tick_s"][...] = game.tick_ms / MS_PER_S
        if state.phase == PHASE_RELOCATE:
            v["relocation_stage"][...] = float(state.relocation_stage)
            v["relocator"][state.relocator] = 1.0
        v["jackpot"][...] = len(state.jackpot) / total
        v["cards_left"][...] = len(state.deck) / total
        if state.deck:
            v["deck"][:] = np.bincount(state.deck, minlength=NUM_CARD_KINDS) / total
        v["fly_card_rat_variant"][...] = float(game.fly_card_under_shaker == "rat")
        v["cards_won"][:] = [len(w) / total for w in state.won]
        v["dealer"][state.dealer] = 1.0
        return vec

    def string_from(self, state: State, seat: int | None = None) -> str:
        """The omniscient text (the truth)."""
        return _omniscient_text(
            self.game, state, [f"player_{i}" for i in range(self.game.num_players)]
        )


def _tables() -> tuple[str, str]:
    from ratenvs.ratto_zakko.rules import RattoZakko

    game = RattoZakko(num_players=2, answer_beliefs=True, public_record=True)
    return game.observer("knowledge").table(), game.observer("privileged").table()


_SEAT_TABLE, _PRIVILEGED_TABLE = _tables()
__doc__ = __doc__.format(table=_SEAT_TABLE, privileged=_PRIVILEGED_TABLE)
