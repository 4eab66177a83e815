"""What one player may know in Rat-a-Tat Cat: the observation vector and the action mask.

This is the only place hidden information is filtered. Two modes:

- ``"knowledge"`` (perfect recall): for every slot, what the observer knows of
  that card from everything it has seen this round (:attr:`rules.State.know`),
  and ``unseen_counts``.
- ``"memoryless"``: only what the table shows now (discard top, pile sizes,
  knock, scores...) plus what the observer saw since its last decision: its
  initial peek, a peeked card, the card it holds. Slots it saw earlier read
  "unknown" and ``unseen_counts`` is all zero: the agent must remember itself.

Players are listed observer first, then the others in turn order
(``offset`` 1 .. n-1 = the players after the observer). With ``n`` players:

========================  ======================================================  =======
index                     meaning                                                 scale
========================  ======================================================  =======
0 .. 60n-1                slots: for player offset ``k`` (0 = observer) and slot   one-hot
                          ``s``, entries ``15*(4k+s) + c``: ``c`` = 0..12 the
                          card's kind (0..9, peek, swap, draw2), 13 a number
                          card of unknown value, 14 unknown (also empty slots of
                          players out of the game)
60n .. 60n+13             discard top: kind 0..12, or 13 = discard pile empty      one-hot
60n+14 .. 60n+27          card the observer holds: kind 0..12, or 13 = none        one-hot
60n+28 .. 60n+34          observer's decision: start, place taken discard, drawn   one-hot
                          number, peek, swap, draw2, knock (all 0 when it is not
                          the observer's decision)
60n+35                    the held card is the first of a Draw 2 sequence          0/1
                          (discarding/declining it draws another; observer only)
60n+36 .. 61n+35          whose decision it is, by offset                          one-hot
61n+36 .. 62n+35          who knocked, by offset (all 0: nobody yet)               one-hot
62n+36                    turns still to play after the knock / (n-1)              0..1
62n+37                    turns played this round / ``max_turns_per_round``        0..1
62n+38, 62n+39            draw pile size, discard pile size / 54                   0..1
62n+40 .. 63n+39          game totals by offset / 100                              >= 0
63n+40 .. 64n+39          still in the game (elimination), by offset               0/1
64n+40                    rounds finished / ``rounds`` (0 when unlimited)          0..1
64n+41 .. 64n+53          ``unseen_counts``: cards of each kind whose place the     0..1
                          observer does not know (deck minus known slots, the
                          discard pile and a held card it saw) / the deck count
                          of that kind (knowledge mode; 0 in memoryless)
========================  ======================================================  =======

Size ``64 n + 54``: 182 for 2 players, 438 for 6.

With ``owner_ceilings`` (env option), ``8 n`` entries follow: for every slot in the
order above, ``2 * (4k + s)`` past ``64n+54``, whether the slot's owner has seen its
card (``State.owner_seen``: its outer cards at the deal, cards it placed) and the
card's ceiling / 10 (``State.ceiling``: the lowest value the owner has let go of
while keeping it, 1.0 when none). Both are public: how every player has played.
Size ``72 n + 54``.

Action mask: see :mod:`ratenvs.rat_a_tat_cat.rules` for the encoding and
:mod:`ratenvs.rat_a_tat_cat.env` for the action table; only the player whose
decision it is has legal actions.
"""

from __future__ import annotations

import numpy as np

from ratenvs.rat_a_tat_cat.rules import (
    ACTION_DECLINE,
    ACTION_DISCARD,
    ACTION_DRAW,
    ACTION_KNOCK,
    ACTION_NO_KNOCK,
    ACTION_PEEK,
    ACTION_REPLACE,
    ACTION_SWAP,
    ACTION_TAKE_DISCARD,
    ACTION_USE_DRAW2,
    CODE_UNKNOWN,
    DECK_SIZE,
    KIND,
    KIND_COUNTS,
    NO_CARD,
    NO_CEILING,
    NUM_CODES,
    NUM_DECISION_PHASES,
    NUM_KINDS,
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
    legal_swaps,
    num_actions,
)

OBSERVATION_MODES = ("knowledge", "memoryless")
TOTAL_SCALE = 100.0
"""Game totals are divided by this."""
MAX_HAND_POINTS = 36
"""Highest round score: four 9s."""


class Layout:
    """Start indices of the observation blocks for ``n`` players (see the module table)."""

    def __init__(self, num_players: int, ceilings: bool = False) -> None:
        n = num_players
        self.num_players = n
        self.slots = 0
        self.discard_top = NUM_CODES * SLOTS * n
        self.held = self.discard_top + NUM_KINDS + 1
        self.phase = self.held + NUM_KINDS + 1
        self.draw2_left = self.phase + NUM_DECISION_PHASES
        self.to_act = self.draw2_left + 1
        self.knocked_by = self.to_act + n
        self.final_turns = self.knocked_by + n
        self.turns_played = self.final_turns + 1
        self.draw_pile = self.turns_played + 1
        self.discard_pile = self.draw_pile + 1
        self.totals = self.discard_pile + 1
        self.active = self.totals + n
        self.rounds_done = self.active + n
        self.unseen = self.rounds_done + 1
        self.ceilings = self.unseen + NUM_KINDS
        """Start of the ``owner_ceilings`` block (when ``has_ceilings``)."""
        self.has_ceilings = ceilings
        self.size = self.ceilings + (2 * SLOTS * n if ceilings else 0)

    def slot_index(self, offset: int, slot: int) -> int:
        """Start of the one-hot block of slot ``slot`` of the player ``offset`` seats on."""
        return NUM_CODES * (SLOTS * offset + slot)


def observation_size(num_players: int, ceilings: bool = False) -> int:
    """Length of the observation vector."""
    return Layout(num_players, ceilings).size


def observation_bounds(
    num_players: int, rounds: int | None, target_score: int | None, ceilings: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Low and high bounds of every entry."""
    lay = Layout(num_players, ceilings)
    low = np.zeros(lay.size, dtype=np.float32)
    high = np.ones(lay.size, dtype=np.float32)
    bounds = []
    if rounds is not None:
        bounds.append(rounds * MAX_HAND_POINTS)
    if target_score is not None:
        bounds.append(target_score - 1 + MAX_HAND_POINTS)
    high[lay.totals : lay.totals + num_players] = min(bounds) / TOTAL_SCALE
    return low, high


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


class Observer:
    """Builds observations and masks for one table size and mode, with precomputed indices."""

    def __init__(
        self,
        num_players: int,
        mode: str = "knowledge",
        rounds: int | None = 1,
        max_turns_per_round: int = 200,
        ceilings: bool = False,
    ) -> None:
        n = num_players
        self.num_players = n
        self.mode = mode
        self.knowledge = mode == "knowledge"
        self.rounds = rounds
        self.max_turns = max_turns_per_round
        self.layout = Layout(n, ceilings)
        self.ceilings = ceilings
        self.num_actions = num_actions(n)
        # for each observer seat: flat indices (p * SLOTS + s) in observer order
        self._slot_src = [
            np.array([((seat + k) % n) * SLOTS + s for k in range(n) for s in range(SLOTS)])
            for seat in range(n)
        ]
        self._order = [[(seat + k) % n for k in range(n)] for seat in range(n)]
        self._slot_base = np.arange(SLOTS * n) * NUM_CODES
        self._fixed_masks = {}
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

    # ---------------------------------------------------------------- mask
    def action_mask(self, state: State, seat: int) -> np.ndarray:
        """Legal actions of ``seat`` (all zero unless it is its decision)."""
        phase = state.phase
        if phase == PHASE_OVER or seat != state.current:
            return np.zeros(self.num_actions, dtype=np.int8)
        if phase == PHASE_START:
            return (self._draw_or_take if state.can_take_discard() else self._draw_only).copy()
        if phase == PHASE_SWAP:
            if all(state.active):
                return self._all_swaps.copy()
            m = np.zeros(self.num_actions, dtype=np.int8)
            m[legal_swaps(state)] = 1
            m[ACTION_DECLINE] = 1
            return m
        return self._fixed_masks[phase].copy()

    # ---------------------------------------------------------------- observation
    def observe(self, state: State, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` (see the module table)."""
        n = self.num_players
        lay = self.layout
        out = np.zeros(lay.size, dtype=np.float32)
        table = state.know if self.knowledge else state.recent
        codes = table[seat].reshape(-1)[self._slot_src[seat]]
        out[self._slot_base + codes] = 1.0
        top = state.discard_pile[-1] if state.discard_pile else NO_CARD
        out[lay.discard_top + (KIND[top] if top != NO_CARD else NUM_KINDS)] = 1.0
        over = state.phase == PHASE_OVER
        mine = not over and state.current == seat
        held = state.held if mine else NO_CARD
        out[lay.held + (KIND[held] if held != NO_CARD else NUM_KINDS)] = 1.0
        if mine:
            out[lay.phase + _PHASE_INDEX[state.phase]] = 1.0
            if state.draw2_left:
                out[lay.draw2_left] = 1.0
        if not over:
            out[lay.to_act + (state.current - seat) % n] = 1.0
        if state.knocked_by is not None:
            out[lay.knocked_by + (state.knocked_by - seat) % n] = 1.0
            out[lay.final_turns] = state.final_turns_left / (n - 1)
        out[lay.turns_played] = state.turns_this_round / self.max_turns
        out[lay.draw_pile] = len(state.draw_pile) / DECK_SIZE
        out[lay.discard_pile] = len(state.discard_pile) / DECK_SIZE
        order = self._order[seat]
        totals = state.totals
        active = state.active
        for k, p in enumerate(order):
            out[lay.totals + k] = totals[p] / TOTAL_SCALE
            if active[p]:
                out[lay.active + k] = 1.0
        if self.rounds is not None:
            done = state.round_index + (1 if over else 0)
            out[lay.rounds_done] = done / self.rounds
        if self.knowledge:
            out[lay.unseen : lay.unseen + NUM_KINDS] = unseen_counts(state, seat) * _INV_DECK_COUNTS
        if self.ceilings:
            src = self._slot_src[seat]
            block = out[lay.ceilings : lay.size]
            block[0::2] = state.owner_seen.reshape(-1)[src]
            block[1::2] = state.ceiling.reshape(-1)[src] * (1.0 / NO_CEILING)
        return out


def unseen_counts(state: State, seat: int) -> np.ndarray:
    """How many cards of each kind ``seat`` has not located: the deck minus the kinds it knows
    in any slot, the discard pile, and a held card it saw (its own, or a taken discard)."""
    known = np.bincount(state.know[seat].reshape(-1), minlength=NUM_CODES)[:NUM_KINDS]
    counts = _DECK_COUNTS - known - np.asarray(state.discard_counts, dtype=np.int64)
    if state.held != NO_CARD and (state.held_public or state.current == seat):
        counts[KIND[state.held]] -= 1
    return counts


def slot_codes(observation: np.ndarray, num_players: int) -> np.ndarray:
    """The knowledge code (0..12 kind, 13 number, 14 unknown) of every slot, observer first,
    recovered from an observation vector: shape ``(num_players, 4)``."""
    block = observation[: NUM_CODES * SLOTS * num_players].reshape(num_players * SLOTS, NUM_CODES)
    codes = np.argmax(block, axis=1)
    return codes.reshape(num_players, SLOTS)


__all__ = [
    "CODE_UNKNOWN",
    "OBSERVATION_MODES",
    "Layout",
    "Observer",
    "observation_bounds",
    "observation_size",
    "slot_codes",
    "unseen_counts",
]
