"""What one seat sees in Ratto Zakko, and what it may do (the only place information is filtered).

The observation vector of the observing seat (``n`` seats; per-seat entries
start with the observer, then the other seats in seat order after it):

=====================  ===============================================================  ========
index                  meaning                                                          scale
=====================  ===============================================================  ========
0 .. 6                 identity posterior of the card showing: apple, egg, cheese,      0..1
                       fish, chili, fly, rat (the seat's own glimpses, see
                       :mod:`~ratenvs.ratto_zakko.perception`; all 0 without a card)
7 .. 11                colour posterior: green, white, yellow, blue, red                0..1
12                     a card is showing (the reaction phase)                           0/1
13 .. 17               ``shaker_on``: the cloche the rat shaker sits on (one-hot)       0/1
18 .. 22               ``fly_under``: the cloche hiding the fly (one-hot); in the       0/1
                       memoryless mode only while ``fly_shown`` (else all 0)
23                     the fly's place is shown in 18..22 (knowledge mode: always 1;    0/1
                       memoryless: 1 at the first tick of the game and of the card
                       after the fly was moved)
24 .. 26               level: starter, main, dessert (one-hot)                          0/1
27                     tick / ``window_ticks`` (0 at the card's first tick)             0..1
28                     time since the card was revealed, at the end of this tick:       seconds
                       (tick + 1) * ``tick_ms`` / 1000
29                     ``tick_ms`` / 1000 (the length of a tick)                        seconds
30                     relocation phase: a winner may move the fly or the shaker        0/1
31                     the observer is that winner                                      0/1
32                     jackpot / deck size                                              0..1
33                     cards left in the deck / deck size                               0..1
34                     variant ``fly_card_under_shaker="rat"``: a fly card whose fly    0/1
                       hides under the shaker is answered RAT (0: grab, the ruling)
35 .. 35+n-1           cards won by each seat / deck size (own first)                   0..1
35+n .. 35+2n-1        has answered this card in an earlier tick (own first)            0/1
35+2n .. 35+3n-1       the dealer of this card, i.e. the last winner (one-hot, own      0/1
                       first)
35+3n .. 35+3n+12      only with ``answer_beliefs=True``: the probability that each     0..1
                       of the 13 responses (:data:`rules.RESPONSES`, the order of
                       actions 1 .. 13) is the correct answer to the card showing,
                       by the seat's own posteriors and the table it sees (the
                       oracle applied to every card it might be); all 0 without a
                       card
=====================  ===============================================================  ========

Answers given in the current tick are simultaneous: nobody sees them before
the tick ends (so the AEC form, where seats act one after another within a
tick, shows the same thing as the parallel form).

Actions (25):

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

import numpy as np

from ratenvs.ratto_zakko.perception import NUM_CHANNELS
from ratenvs.ratto_zakko.rules import (
    CARD_NAMES,
    FLY_CARD,
    LEAVE_BOTH,
    LEVELS,
    NO_ANSWER,
    NUM_COLOURS,
    NUM_FOODS,
    NUM_RELOCATIONS,
    NUM_RESPONSES,
    PHASE_REACT,
    PHASE_RELOCATE,
    RAT_CARD,
    RELOCATE_FLY_FIRST,
    RELOCATE_SHAKER_FIRST,
    State,
    correct_response_index,
)

OBSERVATIONS = ("knowledge", "memoryless")

ACTION_WAIT = 0
ACTION_RESPONSE_FIRST = 1
"""Action ``ACTION_RESPONSE_FIRST + r`` gives response ``rules.RESPONSES[r]``."""
ACTION_RELOCATE_FIRST = ACTION_RESPONSE_FIRST + NUM_RESPONSES
"""Action ``ACTION_RELOCATE_FIRST + c`` is relocation choice ``c`` (see :mod:`rules`)."""
NUM_ACTIONS = ACTION_RELOCATE_FIRST + NUM_RELOCATIONS

POSTERIOR_SLICE = slice(0, NUM_CHANNELS)
IDENTITY_SLICE = slice(0, 7)
COLOUR_SLICE = slice(7, 12)
CARD_SHOWING = 12
SHAKER_SLICE = slice(13, 13 + NUM_FOODS)
FLY_SLICE = slice(18, 18 + NUM_FOODS)
FLY_SHOWN = 23
LEVEL_SLICE = slice(24, 27)
TICK_FRACTION = 27
ELAPSED_S = 28
TICK_S = 29
RELOCATION_PHASE = 30
I_RELOCATE = 31
JACKPOT = 32
CARDS_LEFT = 33
FLY_CARD_RAT_VARIANT = 34
PER_SEAT = 35
"""Start of the per-seat blocks: won cards, answered, dealer (``n`` entries each)."""
MS_PER_S = 1000.0


def observation_size(num_players: int, answer_beliefs: bool = False) -> int:
    """Length of the observation vector for ``num_players`` seats."""
    return PER_SEAT + 3 * num_players + (NUM_RESPONSES if answer_beliefs else 0)


def observation_bounds(
    num_players: int, tick_ms: int, window_ticks: int, answer_beliefs: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Low and high bounds of every entry."""
    size = observation_size(num_players, answer_beliefs)
    low = np.zeros(size, dtype=np.float32)
    high = np.ones(size, dtype=np.float32)
    high[ELAPSED_S] = window_ticks * tick_ms / MS_PER_S
    high[TICK_S] = tick_ms / MS_PER_S
    return low, high


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


def answer_beliefs(state: State, seat: int) -> np.ndarray:
    """:func:`response_beliefs` of ``seat`` for the card showing (all 0 when none shows).

    Only what the seat knows enters (its own posteriors, the shaker, the fly
    whose place is public in the "knowledge" observation), so this adds no
    information to the observation; it saves a learner re-deriving the rules.
    """
    if state.phase != PHASE_REACT:
        return np.zeros(NUM_RESPONSES, dtype=np.float32)
    post = state.posterior[seat]
    return response_beliefs(
        post[0],
        post[1],
        state.shaker_on,
        state.fly_under,
        state.level,
        state.fly_card_under_shaker,
    )


def observe(
    state: State, seat: int, tick_ms: int, memoryless: bool, with_answers: bool = False
) -> np.ndarray:
    """The observation vector of ``seat`` (see the module table); ``with_answers`` appends
    :func:`answer_beliefs` (the env option ``answer_beliefs``)."""
    n = state.num_players
    total = float(state.total_cards)
    vec = np.zeros(observation_size(n, with_answers), dtype=np.float32)
    reacting = state.phase == PHASE_REACT
    if reacting:
        post = state.posterior[seat]
        vec[IDENTITY_SLICE] = post[0]
        vec[COLOUR_SLICE] = post[1, :NUM_COLOURS]
        vec[CARD_SHOWING] = 1.0
        vec[TICK_FRACTION] = state.tick / state.window_ticks
        vec[ELAPSED_S] = (state.tick + 1) * tick_ms / MS_PER_S
    vec[13 + state.shaker_on] = 1.0
    if not memoryless or state.fly_shown:
        vec[18 + state.fly_under] = 1.0
        vec[FLY_SHOWN] = 1.0
    vec[24 + LEVELS.index(state.level)] = 1.0
    vec[TICK_S] = tick_ms / MS_PER_S
    if state.phase == PHASE_RELOCATE:
        vec[RELOCATION_PHASE] = 1.0
        vec[I_RELOCATE] = 1.0 if state.relocator == seat else 0.0
    vec[JACKPOT] = len(state.jackpot) / total
    vec[CARDS_LEFT] = len(state.deck) / total
    if state.fly_card_under_shaker == "rat":
        vec[FLY_CARD_RAT_VARIANT] = 1.0
    won = state.won
    answer = state.answer
    for i in range(n):
        s = (seat + i) % n
        vec[PER_SEAT + i] = len(won[s]) / total
        if reacting and answer[s] != NO_ANSWER:
            vec[PER_SEAT + n + i] = 1.0
    vec[PER_SEAT + 2 * n + (state.dealer - seat) % n] = 1.0
    if with_answers:
        vec[PER_SEAT + 3 * n :] = answer_beliefs(state, seat)
    return vec


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


def action_mask(state: State, seat: int) -> np.ndarray:
    """What ``seat`` may do in this tick (the parallel form's mask).

    Reaction phase: wait or any of the 13 responses if it has not answered
    this card, else only wait. Relocation phase: the winner chooses one of the
    11 relocation choices (all always legal: moving the fly to its own cloche
    puts it back, so the mask never reveals where it hides; with
    ``relocation="both"`` first a fly move or none, then a shaker move or
    none); the others wait.
    Game over: nothing.
    """
    if state.phase == PHASE_REACT:
        return (_REACT_MASK if state.answer[seat] == NO_ANSWER else _WAIT_MASK).copy()
    if state.phase == PHASE_RELOCATE:
        if seat != state.relocator:
            return _WAIT_MASK.copy()
        if state.relocation == "one":
            return _RELOCATE_MASK.copy()
        return (_RELOCATE_FLY_MASK if state.relocation_stage == 0 else _RELOCATE_SHAKER_MASK).copy()
    return _NO_ACTIONS.copy()
