"""What one player may know in Rat-a-Tat Cat: the observers (vector, text view, picture view).

This is the only place hidden information is filtered: the observation vector
(:meth:`TableObserver.observe`), the seat's text view (:meth:`TableObserver.string_from`)
and the seat's picture (:mod:`ratenvs.rat_a_tat_cat.render`, drawn from
:meth:`TableObserver.seat_view`) all come from the same :class:`TableObserver`. Two
kinds of seat view (the env option ``observation``):

- ``"knowledge"`` (every card the observer has seen, remembered): for every slot,
  what the observer knows of that card from everything it has seen this round
  (:attr:`rules.State.know`),
  ``unseen_counts`` and ``draw_pool``: which of the cards it has not located came
  with the draw pile's last shuffle. After the discard pile was reshuffled, everyone
  saw the new draw pile's cards face up, so its composition (less what was drawn
  from it and located since) is public; the other unlocated cards are in hands.
- ``"memoryless"``: only what the table shows now (discard top, pile sizes,
  knock, scores...) plus what the observer saw since its last decision: its
  initial peek, a peeked card, the card it holds. Slots it saw earlier read
  "unknown", ``unseen_counts`` and ``draw_pool`` are all zero: the agent must
  remember itself.

Players are listed observer first, then the others in turn order
(``offset`` 1 .. n-1 = the players after the observer). The pieces
(``env.observer.pieces``; the table for 2 players, with ``owner_ceilings=True``;
pieces of ``n`` entries grow with the table, and ``ceilings`` is there only with
the option):

{table}

Size ``64 n + 67`` (195 for 2 players, 451 for 6), ``72 n + 67`` with ``owner_ceilings``.

``slots``: for the player ``k`` seats on and slot ``s``, a one-hot of 15 codes: 0..12
the card's kind (0..9, peek, swap, draw2), 13 a number card of unknown value, 14
unknown (also the empty slots of players out of the game). ``discard_top`` and
``held``: kind 0..12, or 13 = none. ``phase``: start, place the taken discard, drawn
number, peek, swap, draw2, knock (all 0 when it is not the observer's decision).
``ceilings``: for every slot, whether its owner has seen its card
(``State.owner_seen``: its outer cards at the deal, cards it placed) and the card's
ceiling / 10 (``State.ceiling``: the lowest value the owner has let go of while
keeping it, 1.0 when none). Both are public: how every player has played.

The ``privileged`` observer (PettingZoo's ``state()``, ``env.state_space``) is the
whole truth in seat order (the table for 2 players):

{privileged}

The draw pile is given by its composition (cards of each kind / the deck count of
that kind) and its top card, the next draw (what the earlier privileged critic of
``training`` read); the order below the top is left out (54 x 14 more entries for
the future of the shuffle).

Action mask: see :mod:`ratenvs.rat_a_tat_cat.rules` for the encoding and
:mod:`ratenvs.rat_a_tat_cat.env` for the action table; only the player whose
decision it is has legal actions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ratenvs.common.observer import Observer, Piece
from ratenvs.common.observer import max_total as common_max_total
from ratenvs.rat_a_tat_cat.rules import (
    CODE_NUMBER,
    CODE_UNKNOWN,
    DECK_SIZE,
    KIND,
    KIND_COUNTS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NO_CARD,
    NO_CEILING,
    NUM_CODES,
    NUM_DECISION_PHASES,
    NUM_KINDS,
    OBSERVATION_MODES,
    PHASE_DRAW2,
    PHASE_KNOCK,
    PHASE_NUMBER,
    PHASE_OVER,
    PHASE_PEEK,
    PHASE_PLACE,
    PHASE_START,
    PHASE_SWAP,
    SLOTS,
    State,
)

if TYPE_CHECKING:
    from ratenvs.rat_a_tat_cat.rules import RatATatCat

TOTAL_SCALE = 100.0
"""Game totals are divided by this."""
MAX_HAND_POINTS = 36
"""Highest round score: four 9s."""
EMPTY = -1
"""Code of an empty slot in a :class:`SeatView` (a player out of an elimination game)."""


def max_total(rounds: int | None, target_score: int | None, out_at: int | None = None) -> int:
    """Highest game total a seat can reach: every round at 36 points, or (elimination) one
    round past a total just below ``out_at``, the lowest total that puts a player out
    (``RatATatCat.out_at``; default ``target_score``)."""
    return common_max_total(MAX_HAND_POINTS, rounds, target_score, out_at)


def pieces(
    num_players: int,
    rounds: int | None = 1,
    target_score: int | None = None,
    ceilings: bool = False,
    out_at: int | None = None,
) -> list[Piece]:
    """The named pieces of a seat's observation vector (knowledge and memoryless)."""
    n = num_players
    out = [
        Piece(
            "slots",
            (n, SLOTS, NUM_CODES),
            "what the observer knows of each slot, by offset (0 = observer) and slot: "
            "kind 0..12, 13 a number card, 14 unknown (one-hot)",
        ),
        Piece("discard_top", (NUM_KINDS + 1,), "top discard: kind 0..12, 13 = pile empty"),
        Piece("held", (NUM_KINDS + 1,), "card the observer holds: kind 0..12, 13 = none"),
        Piece("phase", (NUM_DECISION_PHASES,), "observer's decision phase (one-hot; 0s: not its)"),
        Piece("draw2_left", (), "the held card is the first of a Draw 2 sequence (observer)"),
        Piece("to_act", (n,), "whose decision it is, by offset (one-hot)"),
        Piece("knocked_by", (n,), "who knocked, by offset (all 0: nobody yet)"),
        Piece("final_turns", (), "turns still to play after the knock / (n - 1)"),
        Piece(
            "turns_played",
            (),
            "turns played this round / `max_turns_per_round` (1 past the cap: a knock's "
            "final turns)",
        ),
        Piece("draw_pile", (), "draw pile size / 54"),
        Piece("discard_pile", (), "discard pile size / 54"),
        Piece(
            "totals",
            (n,),
            "game totals by offset / 100",
            high=max_total(rounds, target_score, out_at) / TOTAL_SCALE,
        ),
        Piece("active", (n,), "still in the game (elimination), by offset"),
        Piece("rounds_done", (), "rounds finished / `rounds` (0 when unlimited)"),
        Piece(
            "unseen_counts",
            (NUM_KINDS,),
            "cards of each kind the observer has not located / deck count (knowledge; "
            "0 in memoryless)",
        ),
        Piece(
            "draw_pool",
            (NUM_KINDS,),
            "of those, the cards that came with the draw pile's last shuffle (the deal, or "
            "the reshuffled discard pile, public): in the draw pile or drawn from it unseen "
            "/ deck count (knowledge; 0 in memoryless)",
        ),
    ]
    if ceilings:
        out.append(
            Piece(
                "ceilings",
                (n, SLOTS, 2),
                "by offset and slot: its owner has seen the card; the card's ceiling / 10",
            )
        )
    return out


def privileged_pieces(
    num_players: int, rounds: int | None, target_score: int | None, out_at: int | None = None
) -> list:
    """The named pieces of the privileged vector (the whole truth, seat order)."""
    n = num_players
    return [
        Piece(
            "hands",
            (n, SLOTS, NUM_KINDS + 1),
            "every slot's card by seat and slot: kind 0..12, 13 = empty (one-hot)",
        ),
        Piece("owner_knows", (n, SLOTS), "the slot's owner knows its card"),
        Piece("held", (NUM_KINDS + 1,), "card the player to act holds: kind 0..12, 13 = none"),
        Piece("held_public", (), "the held card was taken from the discard pile"),
        Piece(
            "draw_pile_counts",
            (NUM_KINDS,),
            "draw pile composition: cards of each kind / deck count",
        ),
        Piece("draw_pile", (), "draw pile size / 54"),
        Piece("draw_top", (NUM_KINDS + 1,), "the next card to be drawn: kind 0..12, 13 = none"),
        Piece("discard_top", (NUM_KINDS + 1,), "top discard: kind 0..12, 13 = pile empty"),
        Piece("discard_counts", (NUM_KINDS,), "discard pile: cards of each kind / deck count"),
        Piece("discard_pile", (), "discard pile size / 54"),
        Piece("phase", (NUM_DECISION_PHASES,), "decision phase of the player to act (one-hot)"),
        Piece("draw2_left", (), "the held card is the first of a Draw 2 sequence"),
        Piece("to_act", (n,), "whose decision it is, by seat (one-hot; 0s: game over)"),
        Piece("knocked_by", (n,), "who knocked, by seat"),
        Piece("final_turns", (), "turns still to play after the knock / (n - 1)"),
        Piece(
            "turns_played",
            (),
            "turns played this round / `max_turns_per_round` (1 past the cap: a knock's "
            "final turns)",
        ),
        Piece(
            "totals",
            (n,),
            "game totals by seat / 100",
            high=max_total(rounds, target_score, out_at) / TOTAL_SCALE,
        ),
        Piece("active", (n,), "still in the game, by seat"),
        Piece("rounds_done", (), "rounds finished / `rounds` (0 when unlimited)"),
    ]


class Layout:
    """Start indices of the observation pieces for ``n`` players (names as the pieces, but
    ``unseen`` for ``unseen_counts``), derived from :func:`pieces`: for studies and tests
    that slice vectors; bots read named views (``observer.views``) instead."""

    def __init__(self, num_players: int, ceilings: bool = False) -> None:
        n = num_players
        self.num_players = n
        self.has_ceilings = ceilings
        obs = Observer("knowledge", pieces(n, 1, None, ceilings))
        for p in obs.pieces:
            setattr(self, p.name, obs.offset(p.name))
        self.unseen = obs.offset("unseen_counts")
        if not ceilings:
            self.ceilings = obs.size
            """Start of the ``owner_ceilings`` block (when ``has_ceilings``)."""
        self.size = obs.size

    def slot_index(self, offset: int, slot: int) -> int:
        """Start of the one-hot block of slot ``slot`` of the player ``offset`` seats on."""
        return NUM_CODES * (SLOTS * offset + slot)


def observation_size(num_players: int, ceilings: bool = False) -> int:
    """Length of the observation vector."""
    return Layout(num_players, ceilings).size


def layout_for_size(size: int) -> Layout:
    """The :class:`Layout` of an observation vector of length ``size`` (every table size,
    with and without the ``owner_ceilings`` block: no two have the same length). For
    studies reading recorded vectors; bots are bound to their observer instead."""
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        for ceilings in (False, True):
            lay = Layout(n, ceilings)
            if lay.size == size:
                return lay
    raise ValueError(f"not a Rat-a-Tat Cat observation of any table size: {size}")


_DECK_COUNTS = np.array(KIND_COUNTS, dtype=np.int64)
_INV_DECK_COUNTS = (1.0 / _DECK_COUNTS).astype(np.float32)
_PHASE_INDEX = {
    PHASE_START: 0,
    PHASE_PLACE: 1,
    PHASE_NUMBER: 2,
    PHASE_PEEK: 3,
    PHASE_SWAP: 4,
    PHASE_DRAW2: 5,
    PHASE_KNOCK: 6,
}


@dataclass
class SeatView:
    """What one view (a seat, or ``seat=None``: omniscient) shows of the table: the text
    view and the picture are drawn from this only.

    ``codes[p][s]``: what the view shows of player ``p``'s slot ``s``: the seat's
    knowledge code (kind 0..12, ``CODE_NUMBER``, ``CODE_UNKNOWN``) or, omniscient, the
    kind; ``EMPTY`` for a player out of the game. ``marks[p][s]``: omniscient, the owner
    knows the card; a seat (knowledge mode), it saw the card since its last decision.
    ``held``: None (nobody holds a card), the held card's kind when the view's
    observation carries it (its own card; omniscient), else ``CODE_UNKNOWN``.
    ``phase``: the decision phase when the view's observation carries it, else None.
    The rest is public.
    """

    seat: int | None
    mode: str
    codes: list[list[int]]
    marks: list[list[bool]]
    out: list[bool]
    held: int | None
    held_public: bool
    phase: int | None
    current: int | None
    knocked_by: int | None
    final_turns_left: int
    totals: list[int]
    active: list[bool]
    discard_top: int | None
    draw_pile: int
    discard_pile: int
    round_index: int
    turns_this_round: int
    winners: list[bool] | None
    last_round_points: list[int] | None
    last_round_played: list[bool]
    rounds: int | None
    target_score: int | None
    out_at: int | None = None
    """The lowest total that puts a player out (``target_score`` + 1 when a total must
    exceed the target, the default ``eliminate_at``; None: no elimination)."""

    @property
    def over(self) -> bool:
        return self.current is None


class TableObserver(Observer):
    """A seat's view of the table ("knowledge" or "memoryless"), with precomputed indices."""

    def __init__(self, game: RatATatCat, kind: str) -> None:
        if kind not in OBSERVATION_MODES:
            raise ValueError(f"unknown observer kind {kind!r}")
        n = game.num_players
        ceilings = game.owner_ceilings
        super().__init__(kind, pieces(n, game.rounds, game.target_score, ceilings, game.out_at))
        self.game = game
        self.num_players = n
        self.mode = kind
        self.knowledge = kind == "knowledge"
        self.rounds = game.rounds
        self.max_turns = game.max_turns_per_round
        self.ceilings = ceilings
        self.layout = Layout(n, ceilings)
        lay = self.layout
        self._discard_top = lay.discard_top
        self._held = lay.held
        self._phase = lay.phase
        self._draw2_left = lay.draw2_left
        self._to_act = lay.to_act
        self._knocked_by = lay.knocked_by
        self._final_turns = lay.final_turns
        self._turns_played = lay.turns_played
        self._draw_pile = lay.draw_pile
        self._discard_pile = lay.discard_pile
        self._totals = lay.totals
        self._active = lay.active
        self._rounds_done = lay.rounds_done
        self._unseen = lay.unseen
        self._pool = lay.draw_pool
        self._ceilings = lay.ceilings
        # for each observer seat: flat indices (p * SLOTS + s) in observer order
        self._slot_src = [
            np.array([((seat + k) % n) * SLOTS + s for k in range(n) for s in range(SLOTS)])
            for seat in range(n)
        ]
        self._order = [[(seat + k) % n for k in range(n)] for seat in range(n)]
        # for each observer seat: where the one-hot block of p's slot s starts (seat order)
        self._slot_at = [
            np.array(
                [NUM_CODES * (SLOTS * ((p - seat) % n) + s) for p in range(n) for s in range(SLOTS)]
            )
            for seat in range(n)
        ]

    # ---------------------------------------------------------------- observation
    def observe(self, state: State, seat: int | None) -> np.ndarray:
        """The observation vector of ``seat`` (see the module table)."""
        if seat is None:
            return self.game.observer("privileged").observe(state, None)
        n = self.num_players
        out = np.zeros(self.size, dtype=np.float32)
        table = state.know if self.knowledge else state.recent
        out[self._slot_at[seat] + table[seat].ravel()] = 1.0
        top = state.discard_pile[-1] if state.discard_pile else NO_CARD
        out[self._discard_top + (KIND[top] if top != NO_CARD else NUM_KINDS)] = 1.0
        over = state.phase == PHASE_OVER
        mine = not over and state.current == seat
        held = state.held if mine else NO_CARD
        out[self._held + (KIND[held] if held != NO_CARD else NUM_KINDS)] = 1.0
        if mine:
            out[self._phase + _PHASE_INDEX[state.phase]] = 1.0
            if state.draw2_left:
                out[self._draw2_left] = 1.0
        if not over:
            out[self._to_act + (state.current - seat) % n] = 1.0
        if state.knocked_by is not None:
            out[self._knocked_by + (state.knocked_by - seat) % n] = 1.0
            out[self._final_turns] = state.final_turns_left / (n - 1)
        out[self._turns_played] = min(state.turns_this_round, self.max_turns) / self.max_turns
        out[self._draw_pile] = len(state.draw_pile) / DECK_SIZE
        out[self._discard_pile] = len(state.discard_pile) / DECK_SIZE
        order = self._order[seat]
        totals = state.totals
        active = state.active
        t0, a0 = self._totals, self._active
        for k, p in enumerate(order):
            if totals[p]:
                out[t0 + k] = totals[p] / TOTAL_SCALE
            if active[p]:
                out[a0 + k] = 1.0
        if self.rounds is not None:
            done = state.round_index + (1 if over else 0)
            out[self._rounds_done] = done / self.rounds
        if self.knowledge:
            u, d = self._unseen, self._pool
            unseen = np.array(_unseen(state, seat), dtype=np.float32) * _INV_DECK_COUNTS
            out[u : u + NUM_KINDS] = unseen
            # before the round's first reshuffle the pool is every card not located
            pool = unseen if state.epoch == 0 else _pool_by_cards(state, seat) * _INV_DECK_COUNTS
            out[d : d + NUM_KINDS] = pool
        if self.ceilings:
            src = self._slot_src[seat]
            block = out[self._ceilings : self.size]
            block[0::2] = state.owner_seen.reshape(-1)[src]
            block[1::2] = state.ceiling.reshape(-1)[src] * (1.0 / NO_CEILING)
        return out

    # ------------------------------------------------------------- text / picture
    def seat_view(self, state: State, seat: int | None) -> SeatView:
        """What ``seat`` (None: omniscient) sees of the table, for the text view and the
        picture: the knowledge codes of its observation, the held card only when its
        observation carries it, the phase only when it is its decision."""
        n = state.num_players
        over = state.phase == PHASE_OVER
        out = [not state.active[p] and state.hands[p][0] == NO_CARD for p in range(n)]
        codes: list[list[int]] = []
        marks: list[list[bool]] = []
        if seat is None:
            know = state.know
            for p in range(n):
                hand = state.hands[p]
                codes.append([EMPTY if c == NO_CARD else KIND[c] for c in hand])
                marks.append(
                    [hand[s] != NO_CARD and know[p, p, s] < CODE_NUMBER for s in range(SLOTS)]
                )
        else:
            table = state.know if self.knowledge else state.recent
            recent = state.recent
            for p in range(n):
                if out[p]:
                    codes.append([EMPTY] * SLOTS)
                    marks.append([False] * SLOTS)
                    continue
                codes.append([int(table[seat, p, s]) for s in range(SLOTS)])
                marks.append(
                    [self.knowledge and recent[seat, p, s] < CODE_NUMBER for s in range(SLOTS)]
                )
        sees_turn = not over and (seat is None or seat == state.current)
        held: int | None = None
        if not over and state.held != NO_CARD:
            held = KIND[state.held] if sees_turn else CODE_UNKNOWN
        top = state.discard_top
        last_hands = state.last_round_hands
        return SeatView(
            seat=seat,
            mode=self.mode,
            codes=codes,
            marks=marks,
            out=out,
            held=held,
            held_public=state.held_public,
            phase=state.phase if sees_turn else None,
            current=None if over else state.current,
            knocked_by=state.knocked_by,
            final_turns_left=state.final_turns_left,
            totals=list(state.totals),
            active=list(state.active),
            discard_top=None if top == NO_CARD else KIND[top],
            draw_pile=len(state.draw_pile),
            discard_pile=len(state.discard_pile),
            round_index=state.round_index,
            turns_this_round=state.turns_this_round,
            winners=None if state.winners is None else list(state.winners),
            last_round_points=state.last_round_points,
            last_round_played=[bool(last_hands) and last_hands[p][0] != NO_CARD for p in range(n)],
            rounds=self.rounds,
            target_score=self.game.target_score,
            out_at=self.game.out_at,
        )

    def string_from(self, state: State, seat: int | None) -> str:
        """The table as text from ``seat`` (None: omniscient; see
        :func:`ratenvs.rat_a_tat_cat.render.render_view`)."""
        from ratenvs.rat_a_tat_cat.render import render_view

        agents = [f"player_{i}" for i in range(state.num_players)]
        return render_view(self.seat_view(state, seat), agents)


class PrivilegedObserver(Observer):
    """The whole truth as one float32 vector (PettingZoo's ``state()``), seat order."""

    def __init__(self, game: RatATatCat) -> None:
        n = game.num_players
        super().__init__(
            "privileged", privileged_pieces(n, game.rounds, game.target_score, game.out_at)
        )
        self.game = game
        self.num_players = n
        self.rounds = game.rounds
        self.max_turns = game.max_turns_per_round
        self._o = {p.name: self.offset(p.name) for p in self.pieces}
        self._hand_base = np.arange(SLOTS * n) * (NUM_KINDS + 1)

    def observe(self, state: State, seat: int | None = None) -> np.ndarray:
        """The whole truth (``seat`` is ignored: everyone's cards are in it)."""
        o = self._o
        n = self.num_players
        out = np.zeros(self.size, dtype=np.float32)
        kinds = [KIND[c] if c != NO_CARD else NUM_KINDS for hand in state.hands for c in hand]
        out[o["hands"] + self._hand_base + np.asarray(kinds, dtype=np.int64)] = 1.0
        diag = state.know[np.arange(n), np.arange(n)]  # (n, SLOTS): the owners' knowledge
        out[o["owner_knows"] : o["owner_knows"] + n * SLOTS] = (diag < CODE_NUMBER).reshape(-1)
        held = state.held
        out[o["held"] + (KIND[held] if held != NO_CARD else NUM_KINDS)] = 1.0
        out[o["held_public"]] = float(state.held_public and held != NO_CARD)
        counts = np.bincount([KIND[c] for c in state.draw_pile], minlength=NUM_KINDS)
        out[o["draw_pile_counts"] : o["draw_pile_counts"] + NUM_KINDS] = counts * _INV_DECK_COUNTS
        out[o["draw_pile"]] = len(state.draw_pile) / DECK_SIZE
        nxt = state.draw_pile[-1] if state.draw_pile else NO_CARD
        out[o["draw_top"] + (KIND[nxt] if nxt != NO_CARD else NUM_KINDS)] = 1.0
        top = state.discard_pile[-1] if state.discard_pile else NO_CARD
        out[o["discard_top"] + (KIND[top] if top != NO_CARD else NUM_KINDS)] = 1.0
        dc = np.asarray(state.discard_counts, dtype=np.float32)
        out[o["discard_counts"] : o["discard_counts"] + NUM_KINDS] = dc * _INV_DECK_COUNTS
        out[o["discard_pile"]] = len(state.discard_pile) / DECK_SIZE
        over = state.phase == PHASE_OVER
        if not over:
            out[o["phase"] + _PHASE_INDEX[state.phase]] = 1.0
            out[o["to_act"] + state.current] = 1.0
        if state.draw2_left:
            out[o["draw2_left"]] = 1.0
        if state.knocked_by is not None:
            out[o["knocked_by"] + state.knocked_by] = 1.0
            out[o["final_turns"]] = state.final_turns_left / (n - 1)
        out[o["turns_played"]] = min(state.turns_this_round, self.max_turns) / self.max_turns
        for p in range(n):
            out[o["totals"] + p] = state.totals[p] / TOTAL_SCALE
            if state.active[p]:
                out[o["active"] + p] = 1.0
        if self.rounds is not None:
            out[o["rounds_done"]] = (state.round_index + (1 if over else 0)) / self.rounds
        return out

    def string_from(self, state: State, seat: int | None = None) -> str:
        """The omniscient text view (the privileged view sees everything)."""
        return self.game.observer(self.game.observation_kind).string_from(state, None)


def unseen_counts(state: State, seat: int) -> np.ndarray:
    """How many cards of each kind ``seat`` has not located: the deck minus the kinds it knows
    in any slot, the discard pile, and a held card it saw (its own, or a taken discard)."""
    return np.array(_unseen(state, seat), dtype=np.int64)


def _unseen(state: State, seat: int) -> list[int]:
    """:func:`unseen_counts` as Python ints (a dozen numpy calls cost more than the loop)."""
    counts = [deck - discarded for deck, discarded in zip(KIND_COUNTS, state.discard_counts)]
    for code in state.know[seat].ravel().tolist():
        if code < NUM_KINDS:  # a kind it located (not a number card of unknown value)
            counts[code] -= 1
    held = state.held
    if held != NO_CARD and (state.held_public or state.current == seat):
        counts[KIND[held]] -= 1
    return counts


def draw_pool_counts(state: State, seat: int) -> np.ndarray:
    """How many cards of each kind ``seat`` has not located that came with the draw pile's
    last shuffle (``State.card_epoch`` equal to ``State.epoch``): the draw pile, and the
    cards drawn from it since into a hand (or held) without ``seat`` learning their kind.
    Before the first reshuffle of the round that is every card ``seat`` has not located
    (:func:`unseen_counts`); after it, the reshuffled discard pile's public composition
    less what ``seat`` has located since. What :mod:`ratenvs.rat_a_tat_cat.resample`
    keeps together.

    Every card comes with the deal's shuffle (``State.card_epoch`` all 0) until the round's
    first reshuffle: while ``State.epoch`` is 0 this is :func:`unseen_counts` (no loop over
    the cards)."""
    if state.epoch == 0:
        return unseen_counts(state, seat)
    return _pool_by_cards(state, seat)


def _pool_by_cards(state: State, seat: int) -> np.ndarray:
    """:func:`draw_pool_counts` counted card by card (the draw pile, the hands, the held
    card), whatever the epoch."""
    counts = [0] * NUM_KINDS  # Python ints: a numpy element update costs ten times more
    for c in state.draw_pile:
        counts[KIND[c]] += 1
    epoch, card_epoch = state.epoch, state.card_epoch
    know = state.know[seat].tolist()
    for hand, known in zip(state.hands, know):
        for c, code in zip(hand, known):
            if c != NO_CARD and code >= CODE_NUMBER and card_epoch[c] == epoch:
                counts[KIND[c]] += 1
    held = state.held
    hidden_held = held != NO_CARD and not state.held_public and state.current != seat
    if hidden_held and card_epoch[held] == epoch:
        counts[KIND[held]] += 1
    return np.array(counts, dtype=np.int64)


def slot_codes(observation: np.ndarray, num_players: int) -> np.ndarray:
    """The knowledge code (0..12 kind, 13 number, 14 unknown) of every slot, observer first,
    recovered from an observation vector: shape ``(num_players, 4)``."""
    block = observation[: NUM_CODES * SLOTS * num_players].reshape(num_players * SLOTS, NUM_CODES)
    codes = np.argmax(block, axis=1)
    return codes.reshape(num_players, SLOTS)


def _tables() -> dict[str, str]:
    from ratenvs.rat_a_tat_cat.rules import RatATatCat

    game = RatATatCat(num_players=2, owner_ceilings=True)
    return {
        "table": game.observer("knowledge").table(),
        "privileged": game.observer("privileged").table(),
    }


__all__ = [
    "CODE_UNKNOWN",
    "EMPTY",
    "OBSERVATION_MODES",
    "Layout",
    "PrivilegedObserver",
    "SeatView",
    "TableObserver",
    "draw_pool_counts",
    "layout_for_size",
    "observation_size",
    "pieces",
    "privileged_pieces",
    "slot_codes",
    "unseen_counts",
]

__doc__ = __doc__.format(**_tables())
