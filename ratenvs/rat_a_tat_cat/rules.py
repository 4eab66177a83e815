"""Rat-a-Tat Cat rules (RULES.md section 1): deck, deal, turns, power cards, knocking, scoring.

A pure engine: a :class:`State` dataclass (only what changes during play), the move
encoding, :func:`apply_action` and the legal moves, with every random choice
(shuffles) drawn through the :class:`~ratenvs.common.game.Chance` methods of the
``rng`` given (a ``numpy.random.Generator``, a ``ChanceLog`` or a ``ChanceReplay``).
The game's parameters (rounds, elimination target, turn cap, tiebreak, observation,
reward) live on the :class:`RatATatCat` Game at the bottom, which the envs, the
play harness and the bots drive. No gymnasium or pettingzoo here.

Cards are identified by an id ``0..53``; ``KIND[card]`` is its kind: ``0..9``
are number cards, ``PEEK``, ``SWAP`` and ``DRAW2`` the power cards. Piles are
lists of card ids with the top card last.

Besides the truth, the state carries what every player knows (RULES.md "What
each player knows"), updated incrementally as the game goes:

- ``know[o, p, s]``: what player ``o`` knows of the card in player ``p``'s slot
  ``s``: its kind, ``CODE_NUMBER`` (a number card of unknown value: another
  player placed a card it drew privately, and drawn power cards are never
  placed), or ``CODE_UNKNOWN``. Swaps move every player's knowledge with the
  cards. This is the perfect-recall ("knowledge") view.
- ``recent[o, p, s]``: the kinds player ``o`` saw since its last decision (its
  initial peek, a peeked card) - the "memoryless" view; cleared when ``o``
  acts.
- ``owner_seen`` and ``ceiling``: public evidence about a card from how its owner
  has played since it saw it (see :func:`lower_ceilings`).
- ``card_epoch``: in which shuffle each card last entered the draw pile (0 =
  the deal, ``k`` = the ``k``-th reshuffle of the discard pile this round).
  Public, and what :mod:`resample` needs to keep a determinization consistent.
- ``known_publicly`` and ``peeks``: which part of ``know`` follows from public events,
  and the public record of every Peek (which slot a Peek looks at, and whether it was
  used at all, are private): what :mod:`resample` needs to deal another player's
  private knowledge again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from ratenvs.common.game import Actions, Chance, Game, Infos, Rewards
from ratenvs.common.options import Option, OptionRule, OptionSpec
from ratenvs.common.rewards import win_rewards

# ------------------------------------------------------------------ cards
NUM_NUMBER_KINDS = 10
"""Number cards 0..9."""
PEEK, SWAP, DRAW2 = 10, 11, 12
"""Kinds of the three power cards."""
POWER_KINDS = (PEEK, SWAP, DRAW2)
NUM_KINDS = 13
KIND_COUNTS = (4, 4, 4, 4, 4, 4, 4, 4, 4, 9, 3, 3, 3)
"""How many cards of each kind the deck holds: four each of 0..8, nine 9s, three of each power."""
DECK_SIZE = sum(KIND_COUNTS)
KIND: tuple[int, ...] = tuple(k for k, c in enumerate(KIND_COUNTS) for _ in range(c))
"""Kind of every card id."""
CARD_NAMES = (*tuple(str(k) for k in range(NUM_NUMBER_KINDS)), "peek", "swap", "draw2")
"""Card names as ``game_state()`` and the records spell them."""
NO_CARD = -1
"""An empty slot (players knocked out of an elimination game hold no cards)."""

SLOTS = 4
"""Face-down slots per player, numbered 0..3 left to right."""
PEEKED_AT_SETUP = (0, SLOTS - 1)
"""The outer slots every player looks at once after the deal."""
MIN_PLAYERS, MAX_PLAYERS = 2, 6

CODE_NUMBER = NUM_KINDS
"""Knowledge code: a number card of unknown value."""
CODE_UNKNOWN = NUM_KINDS + 1
"""Knowledge code: nothing known about the card."""
NUM_CODES = NUM_KINDS + 2

DEFAULT_MAX_TURNS = 200
MAX_TURNS_PER_ROUND = 10_000
"""The highest ``max_turns_per_round``: the cap that ends a round is itself bounded, at
every door, so a mistyped number is an error naming it, not a round that never ends."""
MAX_ROUNDS = 10_000
"""The most ``rounds`` a game may set."""
MAX_TARGET_SCORE = 1_000_000
"""The highest ``target_score`` of the elimination game (a round scores at most 36 a
hand)."""

NO_CEILING = 10
"""``State.ceiling`` of a card its owner has not shown anything about."""
UNSEEN_CEILING = 5
"""What a player shows by replacing a card it has not seen: its own cards are worth less
than an unknown card, about the mean of the deck's number cards, 5 (225 points in 45)."""

# ------------------------------------------------------------------ moves
ACTION_DRAW = 0
"""Draw the top card of the draw pile (start of a turn)."""
ACTION_TAKE_DISCARD = 1
"""Take the top discard, a number card (start of a turn)."""
ACTION_REPLACE = 2
"""``ACTION_REPLACE + s``: put the held card into own slot ``s``; the old card is discarded."""
ACTION_DISCARD = 6
"""Discard the drawn number card."""
ACTION_PEEK = 7
"""``ACTION_PEEK + s``: use a Peek to look at own slot ``s``."""
ACTION_USE_DRAW2 = 11
"""Use a drawn Draw 2: discard it and draw the next card."""
ACTION_DECLINE = 12
"""Decline a drawn power card (Peek, Swap or Draw 2): it is simply discarded."""
ACTION_KNOCK = 13
"""Knock ("rat-a-tat cat") at the end of the turn."""
ACTION_NO_KNOCK = 14
"""End the turn without knocking."""
ACTION_SWAP = 15
"""First swap action; see :func:`swap_action`."""


def num_actions(num_players: int) -> int:
    """Size of the Discrete action space: 15 fixed moves plus the swaps."""
    return ACTION_SWAP + SLOTS * (num_players - 1) * SLOTS


def swap_action(own_slot: int, offset: int, their_slot: int) -> int:
    """The action swapping own ``own_slot`` with slot ``their_slot`` of the player ``offset``
    seats after the actor (``1 .. num_players-1``, in turn order)."""
    return ACTION_SWAP + ((offset - 1) * SLOTS + own_slot) * SLOTS + their_slot


def decode_swap(action: int) -> tuple[int, int, int]:
    """``(own_slot, offset, their_slot)`` of a swap action."""
    i = action - ACTION_SWAP
    their_slot = i % SLOTS
    own_slot = (i // SLOTS) % SLOTS
    offset = i // (SLOTS * SLOTS) + 1
    return own_slot, offset, their_slot


# ------------------------------------------------------------------ phases
PHASE_START = 0
"""Start of a turn: draw, or take the top discard (if it is a number card)."""
PHASE_PLACE = 1
"""Holding the taken discard: it must replace one of the four slots."""
PHASE_NUMBER = 2
"""Holding a drawn number card: replace a slot with it, or discard it."""
PHASE_PEEK = 3
"""Holding a drawn Peek: look at one own slot, or decline."""
PHASE_SWAP = 4
"""Holding a drawn Swap: exchange one own card with another player's card, or decline."""
PHASE_DRAW2 = 5
"""Holding a drawn Draw 2: use it, or decline."""
PHASE_KNOCK = 6
"""End of the turn while nobody has knocked: knock or not."""
PHASE_OVER = 7
"""The game is over."""
NUM_DECISION_PHASES = 7
PHASE_NAMES = ("start", "place", "number", "peek", "swap", "draw2", "knock", "over")

_PHASE_OF_DRAWN = (PHASE_NUMBER,) * NUM_NUMBER_KINDS + (PHASE_PEEK, PHASE_SWAP, PHASE_DRAW2)


def phase_for_drawn(card: int) -> int:
    """The decision a drawn card asks for."""
    return _PHASE_OF_DRAWN[KIND[card]]


# ------------------------------------------------------------------ state
GONE = -1
"""``PeekRecord.places``: the card has left the hands (replaced, discarded face up)."""


@dataclass
class PeekRecord:
    """The public record of one Peek a player drew and did not publicly decline.

    Everyone sees the Peek go onto the discard pile; nobody else sees whether it was used
    (outside a Draw 2 sequence using and declining look the same) nor which slot it
    looked at. Declining the first card of a Draw 2 sequence is public (a second card is
    drawn) and leaves no record. The record follows the cards the Peek may have looked
    at through the public events since, so a determinization can let the Peek look anew
    (:mod:`ratenvs.rat_a_tat_cat.resample`).
    """

    by: int
    """The player who drew the Peek."""
    places: list[int]
    """For each slot ``s`` of ``by`` when it drew the Peek: where that card is now,
    ``p * SLOTS + t`` (player ``p``'s slot ``t``; swaps move it), or :data:`GONE` once it
    was replaced."""
    unseen: tuple[bool, ...]
    """For each slot of ``by`` then: ``by``'s public knowledge (``State.known_publicly``)
    did not tell it the card."""
    fresh: bool = True
    """``by`` has made no decision since (its ``recent`` view still shows what it saw)."""

    def copy(self) -> PeekRecord:
        return PeekRecord(self.by, self.places[:], self.unseen, self.fresh)


@dataclass
class State:
    """A game of Rat-a-Tat Cat: the truth plus what every player knows of it."""

    hands: list[list[int]] = field(default_factory=list)
    draw_pile: list[int] = field(default_factory=list)
    discard_pile: list[int] = field(default_factory=list)
    held: int = NO_CARD
    """The card the current player holds awaiting a decision."""
    held_public: bool = False
    """The held card was taken from the discard pile (everyone saw it)."""
    phase: int = PHASE_START
    current: int = 0
    starter: int = 0
    """Who started this round (left of the dealer)."""
    draw2_left: int = 0
    """1 while the held card is the first of a Draw 2 sequence: discarding or declining it
    draws one more card."""
    knocked_by: int | None = None
    final_turns_left: int = 0
    """Turns still to be played after a knock."""
    turns_this_round: int = 0
    round_index: int = 0
    totals: list[int] = field(default_factory=list)
    active: list[bool] = field(default_factory=list)
    """Still in the game (elimination variant: False once the total reached the target)."""
    winners: list[bool] | None = None
    last_round_points: list[int] | None = None
    last_round_hands: list[list[int]] | None = None
    know: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    recent: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    number_only: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Public: this slot's card was placed from a private draw, so it is a number card."""
    owner_seen: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Public: the slot's owner has seen this card (an outer card at the deal, a card it
    placed; a peek is not counted: which card a Peek looks at is not public here)."""
    ceiling: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    """Public: the lowest value its owner has let go of while keeping this card after seeing
    it (see :func:`lower_ceilings`); ``NO_CEILING`` when nothing."""
    known_publicly: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Public: ``known_publicly[o, p, s]``, player ``o`` knows the kind of the card in
    ``p``'s slot ``s`` from public events alone (an outer card of its own at the deal, a
    card it placed, a card placed from the discard pile; moved by swaps, and everything
    at the end of a round). Any other kind in ``know[o]`` came from ``o``'s Peeks: which
    card a Peek looks at is private, and :mod:`resample` deals that part again."""
    peeks: list[PeekRecord] = field(default_factory=list)
    """Public: every Peek of this round that was not publicly declined, in order (see
    :class:`PeekRecord`)."""
    card_epoch: list[int] = field(default_factory=list)
    epoch: int = 0
    """How many times the discard pile was reshuffled into the draw pile this round."""
    pile_must_hold: list[int] = field(default_factory=list)
    """Per kind: the draw pile (with a privately held drawn card) surely holds at least this
    many of it - power cards shuffled back at setup and not yet seen drawn (public). After
    a reshuffle it speaks of the held card alone, the old pile's last (see :func:`reshuffle`)."""
    discard_counts: list[int] = field(default_factory=list)
    """Cards of each kind in the discard pile (public; for ``unseen_counts``)."""

    # ------------------------------------------------------------ helpers
    @property
    def num_players(self) -> int:
        return len(self.totals)

    @property
    def is_over(self) -> bool:
        return self.phase == PHASE_OVER

    @property
    def discard_top(self) -> int:
        """The top card of the discard pile, or ``NO_CARD``."""
        return self.discard_pile[-1] if self.discard_pile else NO_CARD

    def can_take_discard(self) -> bool:
        """The top discard is a number card (a power card there is dead)."""
        return bool(self.discard_pile) and KIND[self.discard_pile[-1]] < NUM_NUMBER_KINDS

    def next_active(self, seat: int) -> int:
        """The next player still in the game after ``seat`` in turn order."""
        n = self.num_players
        for k in range(1, n + 1):
            p = (seat + k) % n
            if self.active[p]:
                return p
        raise RuntimeError("no active player")  # pragma: no cover

    def all_cards(self) -> list[int]:
        """Every card id wherever it is (hands, piles, held)."""
        cards = [c for hand in self.hands for c in hand if c != NO_CARD]
        cards += self.draw_pile + self.discard_pile
        if self.held != NO_CARD:
            cards.append(self.held)
        return cards

    def copy(self) -> State:
        """A deep copy."""
        return State(
            hands=[h[:] for h in self.hands],
            draw_pile=self.draw_pile[:],
            discard_pile=self.discard_pile[:],
            held=self.held,
            held_public=self.held_public,
            phase=self.phase,
            current=self.current,
            starter=self.starter,
            draw2_left=self.draw2_left,
            knocked_by=self.knocked_by,
            final_turns_left=self.final_turns_left,
            turns_this_round=self.turns_this_round,
            round_index=self.round_index,
            totals=self.totals[:],
            active=self.active[:],
            winners=None if self.winners is None else self.winners[:],
            last_round_points=None if self.last_round_points is None else self.last_round_points[:],
            last_round_hands=None
            if self.last_round_hands is None
            else [h[:] for h in self.last_round_hands],
            know=self.know.copy(),
            recent=self.recent.copy(),
            number_only=self.number_only.copy(),
            owner_seen=self.owner_seen.copy(),
            ceiling=self.ceiling.copy(),
            known_publicly=self.known_publicly.copy(),
            peeks=[r.copy() for r in self.peeks],
            card_epoch=self.card_epoch[:],
            epoch=self.epoch,
            pile_must_hold=self.pile_must_hold[:],
            discard_counts=self.discard_counts[:],
        )


def new_game(num_players: int, rng: Chance) -> State:
    """A new game with the first round dealt; player 0 starts (the dealer is the last seat).

    The deal depends on the table size only; how many rounds are played and when a
    round or the game ends are the game's parameters (:class:`RatATatCat`), which the
    moves (:func:`apply_action`) take."""
    if not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {num_players}")
    n = num_players
    state = State(totals=[0] * n, active=[True] * n)
    deal(state, 0, rng)
    return state


def deal(state: State, starter: int, rng: Chance) -> None:
    """Shuffle all 54 cards, deal four to each active player, turn the first discard.

    A power card turned as the first discard is shuffled back into the draw
    pile and another is turned. Every player looks at its slots 0 and 3.
    """
    n = state.num_players
    deck = rng.permutation(DECK_SIZE).tolist()  # Python ints (a loop of int() costs more)
    state.hands = [[NO_CARD] * SLOTS for _ in range(n)]
    for p in range(n):
        if state.active[p]:
            state.hands[p] = [deck.pop() for _ in range(SLOTS)]
    state.pile_must_hold = [0] * NUM_KINDS
    while KIND[deck[-1]] >= NUM_NUMBER_KINDS:
        card = deck.pop()
        state.pile_must_hold[KIND[card]] = 1  # the same card may come up again: "at least one"
        deck.insert(int(rng.integers(len(deck) + 1)), card)
    top = deck.pop()
    state.draw_pile = deck
    state.discard_pile = [top]
    state.discard_counts = [0] * NUM_KINDS
    state.discard_counts[KIND[top]] += 1
    state.held = NO_CARD
    state.held_public = False
    state.phase = PHASE_START
    state.starter = starter
    state.current = starter
    state.draw2_left = 0
    state.knocked_by = None
    state.final_turns_left = 0
    state.turns_this_round = 0
    state.card_epoch = [0] * DECK_SIZE
    state.epoch = 0
    table = _setup_tables(tuple(state.active))
    know = table.unknown.copy()
    # every active player looks at its outer cards: know[p, p, s] for s in PEEKED_AT_SETUP
    hands = state.hands
    know.reshape(-1)[table.peeked] = [KIND[hands[p][s]] for p, s in table.peeked_slots]
    state.know = know
    state.recent = know.copy()  # the same at the deal: nothing seen yet has been forgotten
    state.number_only = table.number_only.copy()
    reset_owner_evidence(state, table)
    reset_public_knowledge(state, table)


class _SetupTables(NamedTuple):
    """The arrays a deal starts from, for one table (which seats are active); read-only,
    copied by each deal (a copy costs less than building them)."""

    unknown: np.ndarray
    """``know`` / ``recent`` before anyone looks: CODE_UNKNOWN everywhere."""
    peeked: list[int]
    """Flat indices of ``know[p, p, s]`` for every active ``p`` and ``s`` in
    PEEKED_AT_SETUP, in the order of ``peeked_slots``."""
    peeked_slots: list[tuple[int, int]]
    owner_seen: np.ndarray
    ceiling: np.ndarray
    known_publicly: np.ndarray
    number_only: np.ndarray


_SETUP_TABLES: dict[tuple[bool, ...], _SetupTables] = {}
"""By the active seats (at most 2^6 tables of each size)."""


def _setup_tables(active: tuple[bool, ...]) -> _SetupTables:
    """The :class:`_SetupTables` of a table whose active seats are ``active``."""
    tables = _SETUP_TABLES.get(active)
    if tables is not None:
        return tables
    n = len(active)
    seats = [p for p in range(n) if active[p]]
    peeked_slots = [(p, s) for p in seats for s in PEEKED_AT_SETUP]
    owner_seen = np.zeros((n, SLOTS), dtype=bool)
    known_publicly = np.zeros((n, n, SLOTS), dtype=bool)
    for p, s in peeked_slots:
        owner_seen[p, s] = True
        known_publicly[p, p, s] = True
    tables = _SetupTables(
        unknown=np.full((n, n, SLOTS), CODE_UNKNOWN, dtype=np.int8),
        peeked=[(p * n + p) * SLOTS + s for p, s in peeked_slots],
        peeked_slots=peeked_slots,
        owner_seen=owner_seen,
        ceiling=np.full((n, SLOTS), NO_CEILING, dtype=np.int8),
        known_publicly=known_publicly,
        number_only=np.zeros((n, SLOTS), dtype=bool),
    )
    for array in tables:
        if isinstance(array, np.ndarray):
            array.setflags(write=False)
    _SETUP_TABLES[active] = tables
    return tables


def reset_owner_evidence(state: State, table: _SetupTables | None = None) -> None:
    """After a deal: every player has seen its outer cards, and shown nothing about them
    (``table``: the deal's :func:`_setup_tables`, looked up when not given)."""
    table = table or _setup_tables(tuple(state.active))
    state.owner_seen = table.owner_seen.copy()
    state.ceiling = table.ceiling.copy()


def reset_public_knowledge(state: State, table: _SetupTables | None = None) -> None:
    """After a deal: every player knows its outer cards publicly, and no Peek was drawn
    (``table``: the deal's :func:`_setup_tables`, looked up when not given)."""
    table = table or _setup_tables(tuple(state.active))
    state.known_publicly = table.known_publicly.copy()
    state.peeks = []


def lower_ceilings(state: State, seat: int, value: int) -> None:
    """``seat`` let go of a card worth ``value`` while keeping the cards it has seen: each of
    them gets a ceiling of at most ``value``.

    Letting go is public: drawing instead of taking the top discard ``t`` (``value``
    ``t + 1``: the discard was not worth taking), discarding a drawn number ``x``
    (``x``), replacing a seen card ``d`` (``d``) or a card it has not seen
    (:data:`UNSEEN_CEILING`). A player who keeps its cards over such a card shows they
    are worth about that or less; the card it places gets one below what it replaced.
    """
    seen = state.owner_seen[seat]
    ceiling = state.ceiling[seat]
    for s in range(SLOTS):  # a plain loop: four slots, on the hot path of env.step
        if seen[s] and ceiling[s] > value:
            ceiling[s] = value


# ------------------------------------------------------------------ legal moves
def legal_actions(state: State) -> list[int]:
    """The legal actions of the current player (empty when the game is over)."""
    phase = state.phase
    if phase == PHASE_START:
        return [ACTION_DRAW, ACTION_TAKE_DISCARD] if state.can_take_discard() else [ACTION_DRAW]
    replace = [ACTION_REPLACE + s for s in range(SLOTS)]
    if phase == PHASE_PLACE:
        return replace
    if phase == PHASE_NUMBER:
        return [*replace, ACTION_DISCARD]
    if phase == PHASE_PEEK:
        return [*(ACTION_PEEK + s for s in range(SLOTS)), ACTION_DECLINE]
    if phase == PHASE_SWAP:
        return [*legal_swaps(state), ACTION_DECLINE]
    if phase == PHASE_DRAW2:
        return [ACTION_USE_DRAW2, ACTION_DECLINE]
    if phase == PHASE_KNOCK:
        return [ACTION_KNOCK, ACTION_NO_KNOCK]
    return []


def legal_swaps(state: State) -> list[int]:
    """Swap actions with every active other player."""
    n = state.num_players
    out = []
    for offset in range(1, n):
        if state.active[(state.current + offset) % n]:
            base = ACTION_SWAP + (offset - 1) * SLOTS * SLOTS
            out.extend(range(base, base + SLOTS * SLOTS))
    return out


# ------------------------------------------------------------------ moves
def apply_action(state: State, action: int, rng: Chance, game: RatATatCat) -> list[int] | None:
    """Play ``action`` for the current player under the parameters of ``game`` (its
    ``rounds``, ``target_score``, ``max_turns_per_round`` and ``elimination_tiebreak``).

    Returns the round points of every player (0 for players out of the game)
    when this action ended a round, else None. Raises ValueError on an illegal
    action.
    """
    if action not in legal_actions(state):
        raise ValueError(
            f"illegal action {action} in phase {PHASE_NAMES[state.phase]}; "
            f"legal: {legal_actions(state)}"
        )
    seat = state.current
    state.recent[seat].fill(CODE_UNKNOWN)  # memoryless: forgets at each decision
    for record in state.peeks:
        if record.by == seat:
            record.fresh = False
    phase = state.phase
    if phase == PHASE_START:
        if action == ACTION_DRAW and state.can_take_discard():
            lower_ceilings(state, seat, KIND[state.discard_pile[-1]] + 1)
        if action == ACTION_TAKE_DISCARD:
            card = state.discard_pile.pop()
            state.discard_counts[KIND[card]] -= 1
            state.held = card
            state.held_public = True
            state.phase = PHASE_PLACE
            return None
        _draw_to_hand(state, rng)
        return None
    if phase == PHASE_KNOCK:
        if action == ACTION_KNOCK:
            state.knocked_by = seat
            state.final_turns_left = sum(state.active) - 1
        return _end_turn(state, rng, game, knocked_now=action == ACTION_KNOCK)
    if ACTION_REPLACE <= action < ACTION_REPLACE + SLOTS:
        _replace(state, seat, action - ACTION_REPLACE)
        return _end_card_play(state, rng, game)
    if action in (ACTION_DISCARD, ACTION_DECLINE):
        if phase == PHASE_PEEK and state.draw2_left == 0:
            _record_peek(state, seat)  # declined, but nobody else can tell
        if action == ACTION_DISCARD:
            lower_ceilings(state, seat, KIND[state.held])
        _discard_held(state)
        if state.draw2_left > 0:
            state.draw2_left = 0
            _draw_to_hand(state, rng)
            return None
        return _end_card_play(state, rng, game)
    if ACTION_PEEK <= action < ACTION_PEEK + SLOTS:
        slot = action - ACTION_PEEK
        _record_peek(state, seat)
        kind = KIND[state.hands[seat][slot]]
        state.know[seat, seat, slot] = kind
        state.recent[seat, seat, slot] = kind
        _discard_held(state)
        return _end_card_play(state, rng, game)
    if action == ACTION_USE_DRAW2:
        _discard_held(state)
        state.draw2_left = 1
        _draw_to_hand(state, rng)
        return None
    own_slot, offset, their_slot = decode_swap(action)
    _swap(state, seat, own_slot, (seat + offset) % state.num_players, their_slot)
    _discard_held(state)
    return _end_card_play(state, rng, game)


def _record_peek(state: State, seat: int) -> None:
    """``seat`` let its drawn Peek go, used or declined: what everyone saw (see
    :class:`PeekRecord`)."""
    base = seat * SLOTS
    unseen = tuple(not bool(k) for k in state.known_publicly[seat, seat])
    state.peeks.append(PeekRecord(seat, [base + s for s in range(SLOTS)], unseen))


def _draw_to_hand(state: State, rng: Chance) -> None:
    """Draw the top card of the draw pile; when it was the last one, the discard pile is
    shuffled at once into the new draw pile (RULES.md: the reshuffle follows the
    exhaustion, not the next draw)."""
    card = state.draw_pile.pop()
    state.held = card
    state.held_public = False
    state.phase = phase_for_drawn(card)
    if not state.draw_pile:
        reshuffle(state, rng)


def reshuffle(state: State, rng: Chance) -> None:
    """The exhausted draw pile is replaced by the shuffled discard pile, which is then
    empty (taking the top discard is illegal until a card is discarded).

    The old pile's last card is the one just drawn and privately held: what the old pile
    surely held (``pile_must_hold``), that card is, and everyone knows it; the new pile is
    the discard pile everyone saw."""
    if state.held != NO_CARD and not state.held_public:
        state.pile_must_hold = [min(1, m) for m in state.pile_must_hold]
    else:
        state.pile_must_hold = [0] * NUM_KINDS
    cards = state.discard_pile
    state.draw_pile = [cards[i] for i in rng.permutation(len(cards)).tolist()]
    state.discard_pile = []
    state.discard_counts = [0] * NUM_KINDS
    state.epoch += 1
    for c in state.draw_pile:
        state.card_epoch[c] = state.epoch


def _discard_held(state: State) -> None:
    card = state.held
    kind = KIND[card]
    if state.pile_must_hold[kind] and not state.held_public:
        state.pile_must_hold[kind] -= 1  # a power card shuffled back at setup may be this one
    state.discard_pile.append(card)
    state.discard_counts[kind] += 1
    state.held = NO_CARD
    state.held_public = False


def _replace(state: State, seat: int, slot: int) -> None:
    """The held card replaces ``slot``; the old card goes face up on the discard pile."""
    old = state.hands[seat][slot]
    card = state.held
    kind = KIND[card]
    seen_number = state.owner_seen[seat, slot] and KIND[old] < NUM_NUMBER_KINDS
    let_go = KIND[old] if seen_number else UNSEEN_CEILING
    lower_ceilings(state, seat, let_go)
    state.owner_seen[seat, slot] = True
    # a taken discard is public; a drawn card is below what it replaced
    state.ceiling[seat, slot] = NO_CEILING if state.held_public else max(0, let_go - 1)
    state.hands[seat][slot] = card
    know = state.know
    if state.held_public:
        know[:, seat, slot] = kind
        state.number_only[seat, slot] = False
    else:
        know[:, seat, slot] = CODE_NUMBER
        know[seat, seat, slot] = kind
        state.number_only[seat, slot] = True
    state.recent[:, seat, slot] = CODE_UNKNOWN
    # what is known of the placed card is public: everyone knows a taken discard, the
    # placer its own card
    state.known_publicly[:, seat, slot] = state.held_public
    state.known_publicly[seat, seat, slot] = True
    if state.peeks:
        place = seat * SLOTS + slot
        for record in state.peeks:
            places = record.places
            for s in range(SLOTS):
                if places[s] == place:
                    places[s] = GONE
    state.discard_pile.append(old)
    state.discard_counts[KIND[old]] += 1
    state.held = NO_CARD
    state.held_public = False


def _swap(state: State, p: int, a: int, q: int, b: int) -> None:
    """Blind swap of ``p``'s slot ``a`` with ``q``'s slot ``b``; all knowledge moves along."""
    state.hands[p][a], state.hands[q][b] = state.hands[q][b], state.hands[p][a]
    for arr in (state.know, state.recent, state.known_publicly):
        tmp = arr[:, p, a].copy()
        arr[:, p, a] = arr[:, q, b]
        arr[:, q, b] = tmp
    no = state.number_only
    no[p, a], no[q, b] = no[q, b], no[p, a]
    # neither owner has seen the card it receives, nor shown anything about it
    state.owner_seen[p, a] = state.owner_seen[q, b] = False
    state.ceiling[p, a] = state.ceiling[q, b] = NO_CEILING
    if state.peeks:
        x, y = p * SLOTS + a, q * SLOTS + b
        for record in state.peeks:
            places = record.places
            for s in range(SLOTS):
                if places[s] == x:
                    places[s] = y
                elif places[s] == y:
                    places[s] = x


def _end_card_play(state: State, rng: Chance, game: RatATatCat) -> list[int] | None:
    """The card part of the turn is done: knock decision, unless someone knocked or the turn
    cap ends the round with this turn."""
    state.draw2_left = 0
    if state.knocked_by is None and state.turns_this_round + 1 < game.max_turns_per_round:
        state.phase = PHASE_KNOCK
        return None
    return _end_turn(state, rng, game, knocked_now=False)


def _end_turn(state: State, rng: Chance, game: RatATatCat, knocked_now: bool) -> list[int] | None:
    """The turn is over: the round ends after the last final turn of a knock, or (nobody
    having knocked) at the turn cap; a knock already made is honoured past the cap
    (RULES.md), so every other player gets exactly one more turn."""
    state.turns_this_round += 1
    if state.knocked_by is not None:
        if not knocked_now:
            state.final_turns_left -= 1
            if state.final_turns_left <= 0:
                return end_round(state, rng, game)
    elif state.turns_this_round >= game.max_turns_per_round:
        return end_round(state, rng, game)
    state.current = state.next_active(state.current)
    state.phase = PHASE_START
    return None


def _pile_has_number(pile: list[int]) -> bool:
    return any(KIND[c] < NUM_NUMBER_KINDS for c in pile)


def replace_power_cards(state: State, rng: Chance) -> None:
    """End of round: each power card in a hand goes to the bottom of the draw pile and is
    replaced by the top card, until the slot holds a number card.

    When the draw pile holds no number card, the discard pile is shuffled into it
    first (ruling: this is "the draw pile runs out" - with only power cards left
    the replacement could never end).
    """
    for p in range(state.num_players):
        hand = state.hands[p]
        for s in range(SLOTS):
            while hand[s] != NO_CARD and KIND[hand[s]] >= NUM_NUMBER_KINDS:
                if not _pile_has_number(state.draw_pile):
                    merged = state.draw_pile + state.discard_pile
                    state.draw_pile = [merged[int(i)] for i in rng.permutation(len(merged))]
                    state.discard_pile = []
                    state.discard_counts = [0] * NUM_KINDS
                state.draw_pile.insert(0, hand[s])
                hand[s] = state.draw_pile.pop()


def hand_points(hand: list[int]) -> int:
    """A hand's round score: the sum of its cards (after power-card replacement)."""
    return sum(KIND[c] for c in hand if c != NO_CARD)


def end_round(state: State, rng: Chance, game: RatATatCat) -> list[int]:
    """Reveal, replace power cards, score; then deal the next round or end the game (after
    ``game.rounds`` rounds, or when the elimination at ``game.target_score`` is decided)."""
    replace_power_cards(state, rng)
    n = state.num_players
    points = [hand_points(state.hands[p]) if state.active[p] else 0 for p in range(n)]
    playing = [p for p in range(n) if state.active[p]]
    for p in playing:
        state.totals[p] += points[p]
    state.last_round_points = points
    state.last_round_hands = [h[:] for h in state.hands]
    reveal = np.array(
        [[CODE_UNKNOWN if c == NO_CARD else KIND[c] for c in hand] for hand in state.hands],
        dtype=np.int8,
    )
    state.know[:] = reveal  # everyone reveals: the final table is known to all
    state.recent[:] = reveal
    state.known_publicly[:] = reveal < NUM_KINDS
    state.peeks = []
    state.number_only[:] = False
    state.held = NO_CARD
    over = False
    target_score = game.target_score
    if target_score is not None:
        out_now = [p for p in playing if state.totals[p] >= game.out_at]
        for p in out_now:
            state.active[p] = False
        remaining = [p for p in playing if state.active[p]]
        if len(remaining) <= 1:
            over = True
            # all remaining crossed in the same round: the lowest total among them wins (ruling)
            contenders = remaining or out_now
            best = min(state.totals[p] for p in contenders)
            if not remaining and game.elimination_tiebreak == "shared":
                best = max(state.totals[p] for p in contenders)  # everyone at or below it
            state.winners = [p in contenders and state.totals[p] <= best for p in range(n)]
    if not over and game.rounds is not None and state.round_index + 1 >= game.rounds:
        over = True
        remaining = [p for p in range(n) if state.active[p]]
        best = min(state.totals[p] for p in remaining)
        state.winners = [state.active[p] and state.totals[p] == best for p in range(n)]
    if over:
        state.phase = PHASE_OVER
        return points
    state.round_index += 1
    deal(state, state.next_active(state.starter), rng)
    return points


def card_name(card: int) -> str:
    """Name of a card id (``"0".."9"``, ``"peek"``, ``"swap"``, ``"draw2"``)."""
    return CARD_NAMES[KIND[card]]


# ------------------------------------------------------------------ the Game
REWARD_MODES = ("zero_sum", "points", "win", "zero_sum_win")
ELIMINATION_TIEBREAKS = ("lowest_total", "shared")
ELIMINATE_AT = ("exceeds", "reaches")
"""When a total puts its player out of an elimination game: above the target (the seed's
"exceeds", the default) or at it."""
OBSERVATION_MODES = ("knowledge", "memoryless")
POINTS_SCALE = 10.0
"""Round rewards are in units of this many points."""


def _elimination_needs_a_target(p: Mapping[str, Any]) -> str | None:
    if p["target_score"] is None:
        for name, default in (
            ("eliminate_at", "exceeds"),
            ("elimination_tiebreak", "lowest_total"),
        ):
            if p[name] != default:
                return (
                    f"option {name!r}={p[name]!r} rules the elimination game: set "
                    "'target_score' (without it nobody is ever eliminated)"
                )
    return None


OPTION_RULES = (
    OptionRule(
        ("eliminate_at", "elimination_tiebreak", "target_score"),
        "`eliminate_at` and `elimination_tiebreak` other than their defaults need "
        "`target_score` (they rule the elimination game)",
        _elimination_needs_a_target,
        {
            "eliminate_at": {"target_score": 100},
            "elimination_tiebreak": {"target_score": 100},
            "target_score": {"eliminate_at": "exceeds", "elimination_tiebreak": "lowest_total"},
        },
    ),
)
"""The rules between Rat-a-Tat Cat's options (checked by ``RatATatCat.options.check``)."""


class RatATatCat(Game):
    """Rat-a-Tat Cat for 2 - 6 players taking turns (RULES.md section 1).

    A turn is a few decisions of one player (draw or take, place / discard / use the
    card, knock or not). Rewards are given when a round ends (see ``reward``);
    ``infos[seat]`` then holds ``{"round_points": ...}`` for every player of the round.
    """

    name = "rat_a_tat_cat"
    title = "Rat-a-Tat Cat"
    version = 1
    options = OptionSpec(
        Option("num_players", "int", 2, "players", low=MIN_PLAYERS, high=MAX_PLAYERS),
        Option(
            "rounds",
            "int",
            None,
            "rounds in the game; None = 1 round, or (with `target_score`) until the "
            "elimination is decided; with a target, a number caps the rounds",
            low=1,
            high=MAX_ROUNDS,
            optional=True,
        ),
        Option(
            "target_score",
            "int",
            None,
            "elimination: a player whose total exceeds it (or reaches it: `eliminate_at`) is "
            "out; the last one left wins; if all remaining go out in one round the lowest "
            "total wins (ruling)",
            low=1,
            high=MAX_TARGET_SCORE,
            optional=True,
        ),
        Option(
            "eliminate_at",
            "choice",
            "exceeds",
            'with `target_score`: a player is out when its total "exceeds" the target (the '
            'seed: "when a player exceeds a certain points total") or "reaches" it',
            choices=ELIMINATE_AT,
        ),
        Option(
            "max_turns_per_round",
            "int",
            DEFAULT_MAX_TURNS,
            "the round ends after this many turns, counted over all players, as if everyone "
            "had had the final turn (ruling: guarantees termination); a knock made before "
            "the cap is honoured past it",
            low=1,
            high=MAX_TURNS_PER_ROUND,
        ),
        Option(
            "elimination_tiebreak",
            "choice",
            "lowest_total",
            'all remaining players cross `target_score` in the same round: "lowest_total" '
            '(ruling: the lowest total among them wins) or "shared" (all share)',
            choices=ELIMINATION_TIEBREAKS,
        ),
        Option(
            "observation",
            "choice",
            "knowledge",
            '"knowledge" (every card the player has seen, remembered) or "memoryless" (the '
            "table now and what the player saw since its last decision)",
            choices=OBSERVATION_MODES,
            view_only=True,
        ),
        Option(
            "owner_ceilings",
            "bool",
            False,
            "append, for every slot, whether its owner has seen the card and the card's "
            "ceiling: the lowest value the owner has let go of since (public play; see "
            "`rules.lower_ceilings`); 8 n more entries",
            view_only=True,
        ),
        Option(
            "reward",
            "choice",
            "zero_sum",
            '"zero_sum", "points", "win" or "zero_sum_win" (see Rewards)',
            choices=REWARD_MODES,
            view_only=True,
        ),
        rules=OPTION_RULES,
    )
    observer_kinds = ("knowledge", "memoryless", "privileged")

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        p = self.params
        if p["rounds"] is None and p["target_score"] is None:
            p["rounds"] = 1  # no target: one round (what env.options and records store)
        self.rounds: int | None = p["rounds"]
        """Rounds to play; None = until the elimination game is decided."""
        self.target_score: int | None = p["target_score"]
        self.eliminate_at: str = p["eliminate_at"]
        self.out_at: int | None = None
        """The lowest total that puts a player out (``target_score`` + 1 when the target
        must be exceeded); None without elimination."""
        if self.target_score is not None:
            exceeds = self.eliminate_at == "exceeds"
            self.out_at = self.target_score + 1 if exceeds else self.target_score
        self.max_turns_per_round: int = p["max_turns_per_round"]
        self.elimination_tiebreak: str = p["elimination_tiebreak"]
        self.owner_ceilings: bool = p["owner_ceilings"]
        self.reward_mode: str = p["reward"]
        self.observation_kind = p["observation"]
        n = self.num_players
        self.num_actions = num_actions(n)
        self._no_actions = np.zeros(self.num_actions, dtype=np.int8)
        self._fixed_masks: dict[int, np.ndarray] = {}
        for phase, actions in (
            (PHASE_PLACE, range(ACTION_REPLACE, ACTION_REPLACE + SLOTS)),
            (PHASE_NUMBER, [*range(ACTION_REPLACE, ACTION_REPLACE + SLOTS), ACTION_DISCARD]),
            (PHASE_PEEK, [*range(ACTION_PEEK, ACTION_PEEK + SLOTS), ACTION_DECLINE]),
            (PHASE_DRAW2, [ACTION_USE_DRAW2, ACTION_DECLINE]),
            (PHASE_KNOCK, [ACTION_KNOCK, ACTION_NO_KNOCK]),
        ):
            m = np.zeros(self.num_actions, dtype=np.int8)
            m[list(actions)] = 1
            self._fixed_masks[phase] = m
        self._draw_only = np.zeros(self.num_actions, dtype=np.int8)
        self._draw_only[ACTION_DRAW] = 1
        self._draw_or_take = self._draw_only.copy()
        self._draw_or_take[ACTION_TAKE_DISCARD] = 1
        self._all_swaps = np.zeros(self.num_actions, dtype=np.int8)
        self._all_swaps[ACTION_SWAP:] = 1
        self._all_swaps[ACTION_DECLINE] = 1

    # -------------------------------------------------------------- rules
    def init(self, rng: Chance) -> State:
        """The first round dealt; player 0 starts."""
        return new_game(self.num_players, rng)

    def to_act(self, state: State) -> tuple[int, ...]:
        return () if state.phase == PHASE_OVER else (state.current,)

    def legal_mask(self, state: State, seat: int) -> np.ndarray:
        """Legal actions of ``seat`` (all zero unless it is its decision)."""
        phase = state.phase
        if phase == PHASE_OVER or seat != state.current:
            return self._no_actions.copy()
        if phase == PHASE_START:
            return (self._draw_or_take if state.can_take_discard() else self._draw_only).copy()
        if phase == PHASE_SWAP:
            if all(state.active):
                return self._all_swaps.copy()
            m = self._no_actions.copy()
            m[legal_swaps(state)] = 1
            m[ACTION_DECLINE] = 1
            return m
        return self._fixed_masks[phase].copy()

    def apply(
        self, state: State, actions: Actions, rng: Chance, infos: Infos | None = None
    ) -> Rewards:
        """Play the current player's action; at the end of a round, the round's rewards
        (``reward`` mode, in units of ``POINTS_SCALE`` points) and ``round_points`` infos."""
        playing = state.active[:]
        points = apply_action(state, actions[state.current], rng, self)
        if points is None:
            return None
        n = self.num_players
        seats = [p for p in range(n) if playing[p]]
        rewards = [0.0] * n
        mode = self.reward_mode
        if mode in ("zero_sum", "zero_sum_win"):
            total = sum(points[p] for p in seats)
            for p in seats:
                others = (total - points[p]) / (len(seats) - 1)
                rewards[p] = (others - points[p]) / POINTS_SCALE
        elif mode == "points":
            for p in seats:
                rewards[p] = -points[p] / POINTS_SCALE
        if mode in ("win", "zero_sum_win") and state.is_over:
            rewards = [r + w for r, w in zip(rewards, win_rewards(state.winners))]
        if infos is not None:
            for p in seats:
                infos[p] = {"round_points": points[p]}
        return rewards

    def is_terminal(self, state: State) -> bool:
        return state.phase == PHASE_OVER

    def step_winners(self, state: State, rewards: Sequence[float], infos: Infos) -> list[bool]:
        """The round's winners: the players of the round (those ``infos`` gives
        ``round_points``) with the fewest points in it, whatever the reward mode (``"win"``
        rewards nobody before the game's end; a player already out of an elimination game
        scores nothing but did not play)."""
        points = {p: info["round_points"] for p, info in infos.items() if "round_points" in info}
        if not points:
            return super().step_winners(state, rewards, infos)
        low = min(points.values())
        return [points.get(p) == low for p in range(self.num_players)]

    def winners(self, state: State) -> list[bool]:
        return list(state.winners or [False] * state.num_players)

    def resample(self, state: State, seat: int, rng: np.random.Generator) -> State:
        """A state agreeing with everything ``seat`` knows, everything else shuffled
        (:func:`ratenvs.rat_a_tat_cat.resample.resample_state`)."""
        from ratenvs.rat_a_tat_cat.resample import resample_state

        return resample_state(state, seat, rng)

    def to_json(self, state: State) -> dict[str, Any]:
        """The whole truth as JSON-ready data (piles top last): ``game_state()``."""

        def names(cards: list[int]) -> list[str | None]:
            return [None if c == NO_CARD else card_name(c) for c in cards]

        s = state
        return {
            "hands": [names(h) for h in s.hands],
            "draw_pile": names(s.draw_pile),
            "discard_pile": names(s.discard_pile),
            "held": None if s.held == NO_CARD else card_name(s.held),
            "held_from_discard": s.held_public,
            "scores": list(s.totals),
            "current_player": None if s.is_over else s.current,
            "phase": PHASE_NAMES[s.phase],
            "knocked_by": s.knocked_by,
            "final_turns_left": s.final_turns_left,
            "turns_this_round": s.turns_this_round,
            "round": s.round_index,
            "active": list(s.active),
            "winners": None if s.winners is None else list(s.winners),
            "last_round_points": s.last_round_points,
        }

    def make_observer(self, kind: str) -> Any:
        from ratenvs.rat_a_tat_cat.observe import PrivilegedObserver, TableObserver

        if kind == "privileged":
            return PrivilegedObserver(self)
        return TableObserver(self, kind)
