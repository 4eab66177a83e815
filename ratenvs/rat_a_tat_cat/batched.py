"""Rat-a-Tat Cat, batched: thousands of games advanced by one compiled kernel.

The same game as :class:`~ratenvs.rat_a_tat_cat.rules.RatATatCat` (the readable
spec), with the same options and the same observation vectors (the observer of
the ``observation`` option, the acting seat's view), masks and rewards; and
:meth:`BatchedRatATatCat.state_observation`, the privileged view of every game. A
game of the batch is three rows (see "the layout" below): scalars (held card, phase,
seat to act, Draw 2 chain, knock, turn and round counters, pile sizes, totals); int8
cells (the hands as card ids, the draw and discard piles, what every seat knows of
every slot - ``State.know``, and ``State.recent`` for the memoryless view - who is
still in, the owners' evidence of ``owner_ceilings``); rewards. What no observation
reads (``pile_must_hold``, ``number_only``: the resampler's) is not kept; of
``card_epoch`` only whether a card came with the draw pile's last shuffle (the
``draw_pool`` piece).

Chance: every shuffle is a permutation drawn from the game's own generator and
used as the reference uses ``rng.permutation`` (the deal's deck, a reshuffle of the
discard pile, the end-of-round merge), every random insertion of a power card
turned at the deal an ``rng.integers``; logged games write them to the tape in
that order. Bots played inside the kernel: ``random``, ``heuristic`` and
``ceiling`` (which needs ``owner_ceilings=True``), as in
:mod:`ratenvs.rat_a_tat_cat.bots`; the deterministic ones choose exactly as the
reference bots do from the same observation (their floating-point sums in the
reference's order; the mean of the unseen number cards from a table of the
reference's own values).

    engine = BatchedRatATatCat(4096, seed=0, num_players=2)
    batch = engine.reset()
    for _ in range(1000):
        actions = policy(batch.observation, batch.mask)   # (4096,) ints
        batch = engine.step(actions)
    critic_input = engine.state_observation()          # the privileged view
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from ratenvs.common.batched import (
    TAPE_EPISODE,
    TAPE_INTEGERS,
    TAPE_PERMUTATION,
    BatchedGame,
    BatchStep,
    below,
    borrow,
    first_illegal,
    lean_1d,
    lean_2d,
    lean_int,
    lean_open,
    shuffle_into,
)
from ratenvs.common.jit import njit
from ratenvs.rat_a_tat_cat.bots import (
    BLIND_SWAP_MIN,
    CEILING_KNOCK_MARGIN,
    KEPT_VALUES,
    KNOCK_THRESHOLD,
    LOW_CARD,
    TAKE_MARGIN,
    HeuristicBot,
)
from ratenvs.rat_a_tat_cat.observe import _INV_DECK_COUNTS, TOTAL_SCALE
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
    CODE_NUMBER,
    CODE_UNKNOWN,
    DECK_SIZE,
    KIND,
    KIND_COUNTS,
    MAX_PLAYERS,
    NO_CEILING,
    NUM_CODES,
    NUM_KINDS,
    NUM_NUMBER_KINDS,
    PHASE_DRAW2,
    PHASE_KNOCK,
    PHASE_NUMBER,
    PHASE_OVER,
    PHASE_PEEK,
    PHASE_PLACE,
    PHASE_START,
    PHASE_SWAP,
    POINTS_SCALE,
    REWARD_MODES,
    SLOTS,
    UNSEEN_CEILING,
    RatATatCat,
    State,
)

BOT_RANDOM, BOT_HEURISTIC, BOT_CEILING = range(3)
BOT_NAMES = ("random", "heuristic", "ceiling")

_KIND = np.array(KIND, dtype=np.int64)
_DECK_COUNTS = np.array(KIND_COUNTS, dtype=np.int64)
_PHASE_OF_KIND = np.array(
    [PHASE_NUMBER] * NUM_NUMBER_KINDS + [PHASE_PEEK, PHASE_SWAP, PHASE_DRAW2], dtype=np.int64
)
_NONE = NUM_KINDS
"""Kind code of "no card" in the one-hot pieces (13)."""
_MAX_UNSEEN_LOW = 4 * (NUM_NUMBER_KINDS - 1)
"""Most number cards of kinds 0..8 a seat can have not located (36)."""
_MAX_UNSEEN_SUM = 4 * sum(range(NUM_NUMBER_KINDS - 1))
"""Their highest total value (144)."""

# --------------------------------------------------------------- the layout
# A game is one row of ``st`` (int64: scalars and totals), one row of ``cs`` (int8: cards
# and what is known of them) and one row of ``acc`` (float32: rewards): few arrays, because
# every array a compiled helper takes costs two atomic reference-count updates per call.
MAXP = MAX_PLAYERS
F_HELD, F_PUBLIC, F_PHASE, F_CURRENT, F_STARTER, F_DRAW2 = range(6)
F_KNOCKED, F_FINAL, F_TURNS, F_ROUND, F_DRAW_N, F_DISC_N, F_STAGE, F_SLOT = range(6, 14)
F_TOTALS = 14
"""``st[g, F_TOTALS + seat]``: the game totals."""
NUM_FIELDS = F_TOTALS + MAXP
C_HANDS = 0
"""``cs[g, C_HANDS + 4 seat + slot]``: card id, -1 = empty."""
C_DRAW = C_HANDS + MAXP * SLOTS
"""The draw pile, bottom first (``st[g, F_DRAW_N]`` cards)."""
C_DISC = C_DRAW + DECK_SIZE
"""The discard pile, bottom first (``st[g, F_DISC_N]`` cards)."""
C_DCOUNT = C_DISC + DECK_SIZE
"""Cards of each kind in the discard pile."""
C_ACTIVE = C_DCOUNT + NUM_KINDS
"""Still in the game, by seat."""
C_SEEN = C_ACTIVE + MAXP
"""``owner_ceilings``: the owner has seen the slot's card (``State.owner_seen``)."""
C_CEIL = C_SEEN + MAXP * SLOTS
"""``owner_ceilings``: the slot's ceiling (``State.ceiling``)."""
C_KNOW = C_CEIL + MAXP * SLOTS
"""``cs[g, C_KNOW + 4 (6 observer + seat) + slot]``: ``State.know``."""
C_RECENT = C_KNOW + MAXP * MAXP * SLOTS
"""The same for ``State.recent`` (memoryless view)."""
C_EPOCH = C_RECENT + MAXP * MAXP * SLOTS
"""``cs[g, C_EPOCH + card]``: 1 when the card came with the draw pile's last shuffle (the
deal, or the latest reshuffle of the discard pile): ``card_epoch[card] == epoch``."""
NUM_CELLS = C_EPOCH + DECK_SIZE
A_REW, A_PENDING, A_RUNNING = 0, MAXP, 2 * MAXP
"""``acc`` columns: this step's rewards, the next step's (a new game's opening bot moves),
the game's return so far."""
NUM_ACC = 3 * MAXP
W_MERGED, W_POINTS, W_WIN, W_OUT, W_CODES, W_HANDS = 64, 120, 128, 136, 144, 160
"""Scratch (``wk``, int64): a permutation at 0, the end-of-round merge of the piles, the
round's points, winners, players out; an observation's counts of the seat's codes of the
hands' slots and of the kinds in hands outside the draw pool."""
NUM_WORK = W_HANDS + NUM_KINDS
T_UV = 0
"""Tables (``tab``, float64): the heuristic's unknown value (see :func:`unknown_value_table`),"""
T_UNSEEN = T_UV + (_MAX_UNSEEN_LOW + 1) * (_MAX_UNSEEN_SUM + 1) * (KIND_COUNTS[9] + 1)
"""count / deck count as ``unseen_counts`` writes it (``k * 10 + count``),"""
T_DISC = T_UNSEEN + NUM_KINDS * 10
"""as ``discard_counts`` writes it,"""
T_CEIL = T_DISC + NUM_KINDS * 10
"""ceiling / 10,"""
T_KEPT = T_CEIL + NO_CEILING + 1
"""and the ceiling bot's ``KEPT_VALUES``."""
NUM_TABLE = T_KEPT + NO_CEILING + 1
# the game's parameters (the tuple ``prm``)
P_N, P_ROUNDS, P_OUT_AT, P_MAX_TURNS, P_SHARED, P_KNOWLEDGE, P_CEILINGS, P_REWARD = range(8)
"""``prm[P_OUT_AT]``: the lowest total that puts a player out (``RatATatCat.out_at``), -1
without elimination."""
REWARD_ZERO_SUM, REWARD_POINTS, REWARD_WIN, REWARD_ZERO_SUM_WIN = range(4)
assert REWARD_MODES == ("zero_sum", "points", "win", "zero_sum_win")
# observation offsets (the tuple ``off``) of the seat view
O_DISCARD_TOP, O_HELD, O_PHASE, O_DRAW2, O_TO_ACT, O_KNOCKED, O_FINAL = range(7)
O_TURNS, O_DRAW_PILE, O_DISCARD_PILE, O_TOTALS, O_ACTIVE, O_ROUNDS = range(7, 13)
O_UNSEEN, O_POOL, O_CEILINGS = 13, 14, 15
_SEAT_PIECES = (
    "discard_top", "held", "phase", "draw2_left", "to_act", "knocked_by", "final_turns",
    "turns_played", "draw_pile", "discard_pile", "totals", "active", "rounds_done",
    "unseen_counts", "draw_pool", "ceilings",
)  # fmt: skip
# offsets of the privileged view (the tuple ``poff``)
Q_HANDS, Q_OWNER, Q_HELD, Q_PUBLIC, Q_DRAW_COUNTS, Q_DRAW_PILE, Q_DRAW_TOP = range(7)
Q_DISCARD_TOP, Q_DISCARD_COUNTS, Q_DISCARD_PILE, Q_PHASE, Q_DRAW2, Q_TO_ACT = range(7, 13)
Q_KNOCKED, Q_FINAL, Q_TURNS, Q_TOTALS, Q_ACTIVE, Q_ROUNDS = range(13, 19)
_PRIVILEGED_PIECES = (
    "hands", "owner_knows", "held", "held_public", "draw_pile_counts", "draw_pile", "draw_top",
    "discard_top", "discard_counts", "discard_pile", "phase", "draw2_left", "to_act",
    "knocked_by", "final_turns", "turns_played", "totals", "active", "rounds_done",
)  # fmt: skip

STAGE_DONE, STAGE_BOTS, STAGE_OPENING, STAGE_STUCK = 0, 1, 2, 3
"""A logged game whose tape ran short stops between two decisions (``F_STAGE``): in the
bots' moves of the step (1) or in the new game's opening bot moves (2); the engine grows
the tape and resumes it. 3: a new game ended in its opening bot moves (the external seats
never act: an error)."""
TAPE_RESERVE = 1024
"""Tape numbers a logged game keeps free before each decision (one decision writes at most
a few shuffles of 54 cards)."""
RUN_RESET, RUN_STEP, RUN_BOTS, RUN_RESUME = range(4)


# ----------------------------------------------------------------- tables
@lru_cache(maxsize=1)
def unknown_value_table() -> np.ndarray:
    """The reference ``HeuristicBot.unknown_value`` of every unseen-counts vector, indexed by
    (number cards 0..8 not located, their total value, 9s not located): the reference's own
    float64 result (its sums round in numpy's order; which of the cards 0..8 make up the
    count and total does not change it - the repository's
    ``tests/test_batched_rat_a_tat_cat.py`` checks)."""
    # one way to make up every reachable (count, total) of kinds 0..8 (at most 4 of each)
    ways: dict[tuple[int, int], tuple[int, ...]] = {(0, 0): ()}
    for k in range(NUM_NUMBER_KINDS - 1):
        nxt: dict[tuple[int, int], tuple[int, ...]] = {}
        for (count, total), split in ways.items():
            for c in range(KIND_COUNTS[k] + 1):
                nxt.setdefault((count + c, total + k * c), (*split, c))
        ways = nxt
    bot = HeuristicBot()
    table = np.full(
        (_MAX_UNSEEN_LOW + 1, _MAX_UNSEEN_SUM + 1, KIND_COUNTS[9] + 1), np.nan, dtype=np.float64
    )
    for (count, total), split in ways.items():
        for nines in range(KIND_COUNTS[9] + 1):
            table[count, total, nines] = bot.unknown_value(unseen_piece([*split, nines]))
    return table


def unseen_piece(counts: list[int]) -> np.ndarray:
    """The ``unseen_counts`` piece (float32, 13) of counts of kinds 0.. (the rest 0), as the
    reference observer writes it."""
    c = np.zeros(NUM_KINDS, dtype=np.int64)
    c[: len(counts)] = counts
    out = np.zeros(NUM_KINDS, dtype=np.float32)
    out[:] = c * _INV_DECK_COUNTS
    return out


@lru_cache(maxsize=1)
def value_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact float32 values of the observation entries the reference computes by products:
    ``count / deck count`` of each kind as ``unseen_counts`` and ``draw_pile_counts`` write
    it (int64 counts times the float32 inverses), as ``discard_counts`` writes it (float32
    counts), and ``ceiling / 10`` (the ``ceilings`` piece)."""
    counts = np.arange(10, dtype=np.int64)
    unseen = np.zeros((NUM_KINDS, 10), dtype=np.float32)
    discard = np.zeros((NUM_KINDS, 10), dtype=np.float32)
    for c in counts.tolist():
        unseen[:, c] = np.full(NUM_KINDS, c, dtype=np.int64) * _INV_DECK_COUNTS
        discard[:, c] = np.full(NUM_KINDS, c, dtype=np.float32) * _INV_DECK_COUNTS
    ceiling = np.zeros(NO_CEILING + 1, dtype=np.float32)
    ceiling[:] = np.arange(NO_CEILING + 1, dtype=np.int8) * (1.0 / NO_CEILING)
    return unseen, discard, ceiling


@lru_cache(maxsize=1)
def game_tables() -> np.ndarray:
    """Every table the kernels read, in one float64 array (``T_...`` offsets)."""
    unseen, discard, ceiling = value_tables()
    tab = np.zeros(NUM_TABLE, dtype=np.float64)
    uv = unknown_value_table()
    tab[T_UV : T_UV + uv.size] = uv.reshape(-1)
    tab[T_UNSEEN : T_UNSEEN + unseen.size] = unseen.reshape(-1)
    tab[T_DISC : T_DISC + discard.size] = discard.reshape(-1)
    tab[T_CEIL : T_CEIL + ceiling.size] = ceiling
    tab[T_KEPT : T_KEPT + len(KEPT_VALUES)] = KEPT_VALUES
    return tab


# ----------------------------------------------------------------- kernels
@njit(cache=True, inline="always")
def _know(o, q, s):
    return C_KNOW + (o * MAXP + q) * SLOTS + s


@njit(cache=True, inline="always")
def _recent(o, q, s):
    return C_RECENT + (o * MAXP + q) * SLOTS + s


@njit(cache=True, inline="always")
def _put(tape, cursor, slot, value):
    """Append one number to a logged game's tape row (never past its end: the engine sees
    the cursor run over and raises)."""
    c = cursor[slot]
    if c < tape.shape[1]:
        tape[slot, c] = value
    cursor[slot] = c + 1


@njit(cache=True)
def _permutation(g, m, st, rng, wk, tape, cursor):
    """``wk[:m]``: ``rng.permutation(m)`` of the reference, logged."""
    shuffle_into(rng, g, wk, m)
    slot = st[g, F_SLOT]
    if slot >= 0:
        _put(tape, cursor, slot, TAPE_PERMUTATION)
        _put(tape, cursor, slot, m)
        for i in range(m):
            _put(tape, cursor, slot, wk[i])


@njit(cache=True)
def _deal(g, starter, prm, st, cs, rng, wk, tape, cursor):
    """``rules.deal``: shuffle, deal to the active players, turn the first discard (a power
    card goes back at a random place), every player looks at its outer cards."""
    p = prm[P_N]
    _permutation(g, DECK_SIZE, st, rng, wk, tape, cursor)
    for i in range(DECK_SIZE):
        cs[g, C_DRAW + i] = wk[i]
        cs[g, C_EPOCH + i] = 1
    n = DECK_SIZE
    for q in range(p):
        live = cs[g, C_ACTIVE + q] != 0
        for s in range(SLOTS):
            if live:
                n -= 1
                cs[g, C_HANDS + q * SLOTS + s] = cs[g, C_DRAW + n]
            else:
                cs[g, C_HANDS + q * SLOTS + s] = -1
    while _KIND[cs[g, C_DRAW + n - 1]] >= NUM_NUMBER_KINDS:
        n -= 1
        card = cs[g, C_DRAW + n]
        j = below(rng, g, n + 1)
        slot = st[g, F_SLOT]
        if slot >= 0:
            _put(tape, cursor, slot, TAPE_INTEGERS)
            _put(tape, cursor, slot, j)
        for i in range(n, j, -1):
            cs[g, C_DRAW + i] = cs[g, C_DRAW + i - 1]
        cs[g, C_DRAW + j] = card
        n += 1
    n -= 1
    top = cs[g, C_DRAW + n]
    st[g, F_DRAW_N] = n
    cs[g, C_DISC] = top
    st[g, F_DISC_N] = 1
    for k in range(NUM_KINDS):
        cs[g, C_DCOUNT + k] = 0
    cs[g, C_DCOUNT + _KIND[top]] = 1
    st[g, F_HELD] = -1
    st[g, F_PUBLIC] = 0
    st[g, F_PHASE] = PHASE_START
    st[g, F_STARTER] = starter
    st[g, F_CURRENT] = starter
    st[g, F_DRAW2] = 0
    st[g, F_KNOCKED] = -1
    st[g, F_FINAL] = 0
    st[g, F_TURNS] = 0
    memoryless = prm[P_KNOWLEDGE] == 0
    for o in range(p):
        for q in range(p):
            for s in range(SLOTS):
                cs[g, _know(o, q, s)] = CODE_UNKNOWN
                if memoryless:
                    cs[g, _recent(o, q, s)] = CODE_UNKNOWN
    ceilings = prm[P_CEILINGS] != 0
    for q in range(p):
        live = cs[g, C_ACTIVE + q] != 0
        for s in range(SLOTS):
            outer = s == 0 or s == SLOTS - 1
            if ceilings:
                cs[g, C_SEEN + q * SLOTS + s] = live and outer
                cs[g, C_CEIL + q * SLOTS + s] = NO_CEILING
            if live and outer:
                kind = _KIND[cs[g, C_HANDS + q * SLOTS + s]]
                cs[g, _know(q, q, s)] = kind
                if memoryless:
                    cs[g, _recent(q, q, s)] = kind


@njit(cache=True, inline="always")
def _next_active(g, p, seat, cs):
    q = seat
    for _ in range(p):
        q += 1
        if q == p:
            q = 0
        if cs[g, C_ACTIVE + q]:
            return q
    return -1


@njit(cache=True, inline="always")
def _lower_ceilings(g, seat, value, cs):
    for s in range(SLOTS):
        i = seat * SLOTS + s
        if cs[g, C_SEEN + i] and cs[g, C_CEIL + i] > value:
            cs[g, C_CEIL + i] = value


@njit(cache=True, inline="always")
def _discard(g, card, st, cs):
    n = st[g, F_DISC_N]
    cs[g, C_DISC + n] = card
    st[g, F_DISC_N] = n + 1
    cs[g, C_DCOUNT + _KIND[card]] += 1


@njit(cache=True, inline="always")
def _discard_held(g, st, cs):
    _discard(g, st[g, F_HELD], st, cs)
    st[g, F_HELD] = -1
    st[g, F_PUBLIC] = 0


@njit(cache=True)
def _reshuffle(g, st, cs, rng, wk, tape, cursor):
    """The exhausted draw pile becomes the shuffled discard pile (its cards the new
    shuffle's)."""
    m = st[g, F_DISC_N]
    _permutation(g, m, st, rng, wk, tape, cursor)
    for c in range(DECK_SIZE):
        cs[g, C_EPOCH + c] = 0
    for i in range(m):
        card = cs[g, C_DISC + wk[i]]
        cs[g, C_DRAW + i] = card
        cs[g, C_EPOCH + card] = 1
    st[g, F_DRAW_N] = m
    st[g, F_DISC_N] = 0
    for k in range(NUM_KINDS):
        cs[g, C_DCOUNT + k] = 0


@njit(cache=True, inline="always")
def _draw_top(g, st, cs):
    """Draw the top card of the draw pile (never empty: the discards are reshuffled as soon
    as its last card is drawn)."""
    n = st[g, F_DRAW_N] - 1
    card = cs[g, C_DRAW + n]
    st[g, F_DRAW_N] = n
    st[g, F_HELD] = card
    st[g, F_PUBLIC] = 0
    st[g, F_PHASE] = _PHASE_OF_KIND[_KIND[card]]


@njit(cache=True, inline="always")
def _replace(g, seat, slot, prm, st, cs):
    """The held card replaces ``slot``; the old card goes face up on the discard pile."""
    p = prm[P_N]
    h = C_HANDS + seat * SLOTS + slot
    old = cs[g, h]
    card = st[g, F_HELD]
    kind = _KIND[card]
    public = st[g, F_PUBLIC] != 0
    if prm[P_CEILINGS]:
        i = seat * SLOTS + slot
        if cs[g, C_SEEN + i] and _KIND[old] < NUM_NUMBER_KINDS:
            let_go = _KIND[old]
        else:
            let_go = UNSEEN_CEILING
        _lower_ceilings(g, seat, let_go, cs)
        cs[g, C_SEEN + i] = 1
        cs[g, C_CEIL + i] = NO_CEILING if public else max(0, let_go - 1)
    cs[g, h] = card
    code = kind if public else CODE_NUMBER
    for o in range(p):
        cs[g, _know(o, seat, slot)] = code
    cs[g, _know(seat, seat, slot)] = kind
    if prm[P_KNOWLEDGE] == 0:
        for o in range(p):
            cs[g, _recent(o, seat, slot)] = CODE_UNKNOWN
    _discard(g, old, st, cs)
    st[g, F_HELD] = -1
    st[g, F_PUBLIC] = 0


@njit(cache=True, inline="always")
def _swap(g, a_seat, a, b_seat, b, prm, cs):
    """Blind swap; every seat's knowledge moves with the cards."""
    p = prm[P_N]
    i = C_HANDS + a_seat * SLOTS + a
    j = C_HANDS + b_seat * SLOTS + b
    t = cs[g, i]
    cs[g, i] = cs[g, j]
    cs[g, j] = t
    for o in range(p):
        i = _know(o, a_seat, a)
        j = _know(o, b_seat, b)
        t = cs[g, i]
        cs[g, i] = cs[g, j]
        cs[g, j] = t
    if prm[P_KNOWLEDGE] == 0:
        for o in range(p):
            i = _recent(o, a_seat, a)
            j = _recent(o, b_seat, b)
            t = cs[g, i]
            cs[g, i] = cs[g, j]
            cs[g, j] = t
    if prm[P_CEILINGS]:
        cs[g, C_SEEN + a_seat * SLOTS + a] = 0
        cs[g, C_SEEN + b_seat * SLOTS + b] = 0
        cs[g, C_CEIL + a_seat * SLOTS + a] = NO_CEILING
        cs[g, C_CEIL + b_seat * SLOTS + b] = NO_CEILING


@njit(cache=True)
def _replace_power_cards(g, prm, st, cs, rng, wk, tape, cursor):
    """End of round: a power card in a hand goes under the draw pile and is replaced by the
    top card, until a number card; the discard pile is shuffled in first when the draw
    pile holds no number card."""
    for q in range(prm[P_N]):
        for s in range(SLOTS):
            h = C_HANDS + q * SLOTS + s
            while cs[g, h] >= 0 and _KIND[cs[g, h]] >= NUM_NUMBER_KINDS:
                n = st[g, F_DRAW_N]
                has_number = False
                for i in range(n):
                    if _KIND[cs[g, C_DRAW + i]] < NUM_NUMBER_KINDS:
                        has_number = True
                        break
                if not has_number:
                    d = st[g, F_DISC_N]
                    for i in range(n):
                        wk[W_MERGED + i] = cs[g, C_DRAW + i]
                    for i in range(d):
                        wk[W_MERGED + n + i] = cs[g, C_DISC + i]
                    m = n + d
                    _permutation(g, m, st, rng, wk, tape, cursor)
                    for i in range(m):
                        cs[g, C_DRAW + i] = wk[W_MERGED + wk[i]]
                    n = m
                    st[g, F_DISC_N] = 0
                    for k in range(NUM_KINDS):
                        cs[g, C_DCOUNT + k] = 0
                for i in range(n, 0, -1):
                    cs[g, C_DRAW + i] = cs[g, C_DRAW + i - 1]
                cs[g, C_DRAW] = cs[g, h]
                cs[g, h] = cs[g, C_DRAW + n]
                st[g, F_DRAW_N] = n


@njit(cache=True)
def _end_round(g, prm, st, cs, acc, rb, rng, wk, tape, cursor):
    """Reveal, replace power cards, score, reward (``acc`` column ``rb``); the next round
    dealt, or True when the game is over."""
    p = prm[P_N]
    _replace_power_cards(g, prm, st, cs, rng, wk, tape, cursor)
    total = 0
    playing = 0
    for q in range(p):
        pts = 0
        if cs[g, C_ACTIVE + q]:
            for s in range(SLOTS):
                pts += _KIND[cs[g, C_HANDS + q * SLOTS + s]]
            total += pts
            playing += 1
            st[g, F_TOTALS + q] += pts
        wk[W_POINTS + q] = pts
    mode = prm[P_REWARD]
    for q in range(p):
        if cs[g, C_ACTIVE + q]:
            pts = wk[W_POINTS + q]
            r = 0.0
            if mode in (REWARD_ZERO_SUM, REWARD_ZERO_SUM_WIN):
                others = (total - pts) / (playing - 1)
                r = (others - pts) / POINTS_SCALE
            elif mode == REWARD_POINTS:
                r = -pts / POINTS_SCALE
            acc[g, rb + q] += r
            acc[g, A_RUNNING + q] += r
    over = False
    out_at = prm[P_OUT_AT]
    if out_at >= 0:
        remaining = 0
        for q in range(p):
            wk[W_WIN + q] = 0
            wk[W_OUT + q] = 0
            if cs[g, C_ACTIVE + q]:
                if st[g, F_TOTALS + q] >= out_at:
                    cs[g, C_ACTIVE + q] = 0
                    wk[W_OUT + q] = 1
                else:
                    remaining += 1
        if remaining <= 1:
            over = True
            # all remaining crossed in the same round: the lowest total among them wins
            for q in range(p):  # the contenders: the one left, or all who are out now
                wk[W_WIN + q] = cs[g, C_ACTIVE + q] if remaining > 0 else wk[W_OUT + q]
            best = 1 << 40
            worst = -1
            for q in range(p):
                if wk[W_WIN + q]:
                    best = min(best, st[g, F_TOTALS + q])
                    worst = max(worst, st[g, F_TOTALS + q])
            if remaining == 0 and prm[P_SHARED]:
                best = worst  # everyone at or below it
            for q in range(p):
                wk[W_WIN + q] = wk[W_WIN + q] != 0 and st[g, F_TOTALS + q] <= best
    rounds = prm[P_ROUNDS]
    if not over and rounds >= 0 and st[g, F_ROUND] + 1 >= rounds:
        over = True
        best = 1 << 40
        for q in range(p):
            if cs[g, C_ACTIVE + q]:
                best = min(best, st[g, F_TOTALS + q])
        for q in range(p):
            wk[W_WIN + q] = cs[g, C_ACTIVE + q] != 0 and st[g, F_TOTALS + q] == best
    if over:
        st[g, F_PHASE] = PHASE_OVER
        st[g, F_HELD] = -1
        # everyone reveals: the final table is known to all (the last observations show it)
        for q in range(p):
            for s in range(SLOTS):
                c = cs[g, C_HANDS + q * SLOTS + s]
                code = _KIND[c] if c >= 0 else CODE_UNKNOWN
                for o in range(p):
                    cs[g, _know(o, q, s)] = code
                    cs[g, _recent(o, q, s)] = code
        if mode in (REWARD_WIN, REWARD_ZERO_SUM_WIN):
            w = 0
            for q in range(p):
                w += wk[W_WIN + q]
            if 0 < w < p:
                for q in range(p):
                    share = 1.0 / w if wk[W_WIN + q] else 0.0
                    r = p / (p - 1) * (share - 1.0 / p)
                    acc[g, rb + q] += r
                    acc[g, A_RUNNING + q] += r
        return True
    st[g, F_ROUND] += 1
    _deal(g, _next_active(g, p, st[g, F_STARTER], cs), prm, st, cs, rng, wk, tape, cursor)
    return False


@njit(cache=True, inline="always")
def _end_turn(g, knocked_now, prm, st, cs, acc, rb, rng, wk, tape, cursor):
    st[g, F_TURNS] += 1
    if st[g, F_KNOCKED] >= 0:  # a knock is honoured past the turn cap
        if not knocked_now:
            st[g, F_FINAL] -= 1
            if st[g, F_FINAL] <= 0:
                return _end_round(g, prm, st, cs, acc, rb, rng, wk, tape, cursor)
    elif st[g, F_TURNS] >= prm[P_MAX_TURNS]:
        return _end_round(g, prm, st, cs, acc, rb, rng, wk, tape, cursor)
    st[g, F_CURRENT] = _next_active(g, prm[P_N], st[g, F_CURRENT], cs)
    st[g, F_PHASE] = PHASE_START
    return False


@njit(cache=True, inline="always")
def _apply(g, action, prm, st, cs, acc, rb, rng, wk, tape, cursor):
    """``rules.apply_action`` of the seat to act in game ``g``; True when the game ended
    (the round's rewards added to ``acc`` column ``rb`` and the running return)."""
    p = prm[P_N]
    seat = st[g, F_CURRENT]
    if prm[P_KNOWLEDGE] == 0:
        for q in range(p):
            for s in range(SLOTS):
                cs[g, _recent(seat, q, s)] = CODE_UNKNOWN
    phase = st[g, F_PHASE]
    draw = False
    knock = False
    if phase == PHASE_START:
        if action == ACTION_TAKE_DISCARD:
            n = st[g, F_DISC_N] - 1
            card = cs[g, C_DISC + n]
            st[g, F_DISC_N] = n
            cs[g, C_DCOUNT + _KIND[card]] -= 1
            st[g, F_HELD] = card
            st[g, F_PUBLIC] = 1
            st[g, F_PHASE] = PHASE_PLACE
            return False
        if prm[P_CEILINGS]:
            n = st[g, F_DISC_N]
            if n > 0 and _KIND[cs[g, C_DISC + n - 1]] < NUM_NUMBER_KINDS:
                _lower_ceilings(g, seat, _KIND[cs[g, C_DISC + n - 1]] + 1, cs)
        draw = True
    elif phase == PHASE_KNOCK:
        knock = action == ACTION_KNOCK
        if knock:
            st[g, F_KNOCKED] = seat
            live = 0
            for q in range(p):
                live += cs[g, C_ACTIVE + q] != 0
            st[g, F_FINAL] = live - 1
    elif ACTION_REPLACE <= action < ACTION_REPLACE + SLOTS:
        _replace(g, seat, action - ACTION_REPLACE, prm, st, cs)
    elif action in (ACTION_DISCARD, ACTION_DECLINE):
        if action == ACTION_DISCARD and prm[P_CEILINGS]:
            _lower_ceilings(g, seat, _KIND[st[g, F_HELD]], cs)
        _discard_held(g, st, cs)
        if st[g, F_DRAW2] > 0:
            st[g, F_DRAW2] = 0
            draw = True
    elif ACTION_PEEK <= action < ACTION_PEEK + SLOTS:
        slot = action - ACTION_PEEK
        kind = _KIND[cs[g, C_HANDS + seat * SLOTS + slot]]
        cs[g, _know(seat, seat, slot)] = kind
        if prm[P_KNOWLEDGE] == 0:
            cs[g, _recent(seat, seat, slot)] = kind
        _discard_held(g, st, cs)
    elif action == ACTION_USE_DRAW2:
        _discard_held(g, st, cs)
        st[g, F_DRAW2] = 1
        draw = True
    else:
        i = action - ACTION_SWAP
        other = seat + i // (SLOTS * SLOTS) + 1
        if other >= p:
            other -= p
        _swap(g, seat, (i // SLOTS) % SLOTS, other, i % SLOTS, prm, cs)
        _discard_held(g, st, cs)
    if draw:
        _draw_top(g, st, cs)
        if st[g, F_DRAW_N] == 0:  # the last card drawn: the discards reshuffled at once
            _reshuffle(g, st, cs, rng, wk, tape, cursor)
        return False
    if phase != PHASE_KNOCK:  # the card play is over: knock decision, unless ...
        st[g, F_DRAW2] = 0
        if st[g, F_KNOCKED] < 0 and st[g, F_TURNS] + 1 < prm[P_MAX_TURNS]:
            st[g, F_PHASE] = PHASE_KNOCK
            return False
    return _end_turn(g, knock, prm, st, cs, acc, rb, rng, wk, tape, cursor)


@njit(cache=True)
def _new_game(g, prm, st, cs, acc, rng, wk, tape, cursor):
    slot = st[g, F_SLOT]
    if slot >= 0:
        _put(tape, cursor, slot, TAPE_EPISODE)
    for q in range(prm[P_N]):
        st[g, F_TOTALS + q] = 0
        cs[g, C_ACTIVE + q] = 1
        acc[g, A_RUNNING + q] = 0.0
    st[g, F_ROUND] = 0
    _deal(g, 0, prm, st, cs, rng, wk, tape, cursor)


# ------------------------------------------------------------------- bots
@njit(cache=True, inline="always")
def _num_legal(g, prm, st, cs):
    """How many legal actions the seat to act has (the random bot)."""
    phase = st[g, F_PHASE]
    if phase == PHASE_START:
        n = st[g, F_DISC_N]
        return 2 if n > 0 and _KIND[cs[g, C_DISC + n - 1]] < NUM_NUMBER_KINDS else 1
    if phase == PHASE_PLACE:
        return SLOTS
    if phase in (PHASE_NUMBER, PHASE_PEEK):
        return SLOTS + 1
    if phase == PHASE_SWAP:
        live = 0
        for q in range(prm[P_N]):
            live += cs[g, C_ACTIVE + q] != 0
        return 1 + (live - 1) * SLOTS * SLOTS
    return 2


@njit(cache=True, inline="always")
def _nth_legal(g, k, prm, st, cs):
    """The ``k``-th legal action (ascending) of the seat to act."""
    phase = st[g, F_PHASE]
    if phase == PHASE_START:
        return ACTION_DRAW + k
    if phase in (PHASE_PLACE, PHASE_NUMBER):
        return ACTION_REPLACE + k
    if phase == PHASE_PEEK:
        return ACTION_PEEK + k if k < SLOTS else ACTION_DECLINE
    if phase == PHASE_DRAW2:
        return ACTION_USE_DRAW2 + k
    if phase == PHASE_KNOCK:
        return ACTION_KNOCK + k
    if k == 0:
        return ACTION_DECLINE
    k -= 1
    p = prm[P_N]
    q = st[g, F_CURRENT]
    block = SLOTS * SLOTS
    for offset in range(1, p):
        q += 1
        if q == p:
            q = 0
        if cs[g, C_ACTIVE + q]:
            if k < block:
                return ACTION_SWAP + (offset - 1) * block + k
            k -= block
    return -1


@njit(cache=True, inline="always")
def _unknown_value(g, seat, prm, st, cs, tab):
    """The heuristic's value of a card it does not know: the mean of the number cards the
    seat has not located (the reference's float, from the table), the deck's mean in
    memoryless mode."""
    if prm[P_KNOWLEDGE] == 0:
        return tab[T_UV]
    # unseen = deck - known - discards - held, for kinds 0..9: count, value, nines
    count = 36 + 9
    total = 144 + 81
    for q in range(prm[P_N]):
        for s in range(SLOTS):
            code = cs[g, _know(seat, q, s)]
            if code < NUM_NUMBER_KINDS:
                count -= 1
                total -= code
    for k in range(NUM_NUMBER_KINDS):
        c = cs[g, C_DCOUNT + k]
        count -= c
        total -= k * c
    h = st[g, F_HELD]
    if h >= 0 and _KIND[h] < NUM_NUMBER_KINDS:
        count -= 1
        total -= _KIND[h]
    # split off the nines
    nines = 9 - cs[g, C_DCOUNT + 9]
    for q in range(prm[P_N]):
        for s in range(SLOTS):
            nines -= cs[g, _know(seat, q, s)] == 9
    if h >= 0 and _KIND[h] == 9:
        nines -= 1
    count -= nines
    total -= 9 * nines
    return tab[T_UV + (count * (_MAX_UNSEEN_SUM + 1) + total) * (KIND_COUNTS[9] + 1) + nines]


@njit(cache=True)
def _bot_action(bot, g, prm, st, cs, tab, rng, est):
    """What bot ``bot`` plays for the seat to act in game ``g`` (``est``: scratch of
    (players, 4) floats)."""
    if bot == BOT_RANDOM:
        return _nth_legal(g, below(rng, g, _num_legal(g, prm, st, cs)), prm, st, cs)
    p = prm[P_N]
    seat = st[g, F_CURRENT]
    phase = st[g, F_PHASE]
    base = C_KNOW if prm[P_KNOWLEDGE] else C_RECENT  # the codes the seat's observation shows
    unknown = _unknown_value(g, seat, prm, st, cs, tab)
    # own slots (heuristic values), then the others (the ceiling bot's estimates)
    for s in range(SLOTS):
        code = cs[g, base + (seat * MAXP + seat) * SLOTS + s]
        est[0, s] = code if code < NUM_NUMBER_KINDS else unknown
    worst = 0
    for s in range(1, SLOTS):
        if est[0, s] > est[0, worst]:
            worst = s
    vw = est[0, worst]
    if phase == PHASE_START:
        n = st[g, F_DISC_N]
        if n > 0 and _KIND[cs[g, C_DISC + n - 1]] < NUM_NUMBER_KINDS:
            top = _KIND[cs[g, C_DISC + n - 1]]
            if top < vw and (top <= LOW_CARD or top <= vw - TAKE_MARGIN):
                return ACTION_TAKE_DISCARD
        return ACTION_DRAW
    if phase == PHASE_PLACE:
        return ACTION_REPLACE + worst
    if phase == PHASE_NUMBER:
        if _KIND[st[g, F_HELD]] < vw:
            return ACTION_REPLACE + worst
        return ACTION_DISCARD
    if phase == PHASE_PEEK:
        for s in range(SLOTS):
            if cs[g, base + (seat * MAXP + seat) * SLOTS + s] >= CODE_NUMBER:
                return ACTION_PEEK + s
        return ACTION_DECLINE
    if phase == PHASE_DRAW2:
        return ACTION_USE_DRAW2
    if bot == BOT_CEILING:
        q = seat
        for k in range(1, p):
            q += 1
            if q == p:
                q = 0
            for s in range(SLOTS):
                code = cs[g, base + (seat * MAXP + q) * SLOTS + s]
                if code < NUM_NUMBER_KINDS:
                    est[k, s] = code
                elif cs[g, C_SEEN + q * SLOTS + s]:
                    est[k, s] = tab[T_KEPT + cs[g, C_CEIL + q * SLOTS + s]]
                else:
                    est[k, s] = unknown
        if phase == PHASE_KNOCK:
            mine = ((est[0, 0] + est[0, 1]) + est[0, 2]) + est[0, 3]
            lowest = np.inf
            q = seat
            for k in range(1, p):
                q += 1
                if q == p:
                    q = 0
                if cs[g, C_ACTIVE + q]:
                    lowest = min(lowest, ((est[k, 0] + est[k, 1]) + est[k, 2]) + est[k, 3])
            return ACTION_KNOCK if mine <= lowest - CEILING_KNOCK_MARGIN else ACTION_NO_KNOCK
        # swap_by_estimate
        best = 1.0
        action = ACTION_DECLINE
        q = seat
        for k in range(1, p):
            q += 1
            if q == p:
                q = 0
            if cs[g, C_ACTIVE + q]:
                for s in range(SLOTS):
                    if vw - est[k, s] > best:
                        best = vw - est[k, s]
                        action = ACTION_SWAP + ((k - 1) * SLOTS + worst) * SLOTS + s
        return action
    if phase == PHASE_KNOCK:
        total = ((est[0, 0] + est[0, 1]) + est[0, 2]) + est[0, 3]
        return ACTION_KNOCK if total <= KNOCK_THRESHOLD else ACTION_NO_KNOCK
    # the heuristic's Swap
    found = False
    best = 0.0
    action = ACTION_DECLINE
    q = seat
    for k in range(1, p):
        q += 1
        if q == p:
            q = 0
        if not cs[g, C_ACTIVE + q]:
            continue
        for s in range(SLOTS):
            code = cs[g, base + (seat * MAXP + q) * SLOTS + s]
            if code < NUM_NUMBER_KINDS:
                gain = vw - code
            elif vw >= BLIND_SWAP_MIN:
                gain = vw - unknown - 1.0
            else:
                continue
            if gain >= 1.0 and (not found or gain > best):
                found = True
                best = gain
                action = ACTION_SWAP + ((k - 1) * SLOTS + worst) * SLOTS + s
    return action


# ------------------------------------------------------------ observation
@njit(cache=True, inline="always")
def _observe_seat(g, seat, prm, off, st, cs, tab, wk, obs, row):
    """``seat``'s observation of game ``g`` (the reference observer's vector) in
    ``obs[row]``: the seat to act's, or any seat's at a game over (a held card is then
    gone)."""
    p = prm[P_N]
    knowledge = prm[P_KNOWLEDGE] != 0
    base = C_KNOW if knowledge else C_RECENT
    for i in range(obs.shape[1]):
        obs[row, i] = 0.0
    q = seat
    for k in range(p):
        for s in range(SLOTS):
            code = cs[g, base + (seat * MAXP + q) * SLOTS + s]
            obs[row, (k * SLOTS + s) * NUM_CODES + code] = 1.0
        q += 1
        if q == p:
            q = 0
    nd = st[g, F_DISC_N]
    top = _KIND[cs[g, C_DISC + nd - 1]] if nd > 0 else _NONE
    obs[row, off[O_DISCARD_TOP] + top] = 1.0
    h = st[g, F_HELD]
    hk = _KIND[h] if h >= 0 else _NONE
    phase = st[g, F_PHASE]
    if phase == PHASE_OVER:  # nobody to act, nothing held
        obs[row, off[O_HELD] + _NONE] = 1.0
    else:
        obs[row, off[O_HELD] + hk] = 1.0
        obs[row, off[O_PHASE] + phase] = 1.0
        if st[g, F_DRAW2]:
            obs[row, off[O_DRAW2]] = 1.0
        obs[row, off[O_TO_ACT]] = 1.0
    kb = st[g, F_KNOCKED]
    if kb >= 0:
        d = kb - seat
        if d < 0:
            d += p
        obs[row, off[O_KNOCKED] + d] = 1.0
        obs[row, off[O_FINAL]] = st[g, F_FINAL] / (p - 1)
    obs[row, off[O_TURNS]] = min(st[g, F_TURNS], prm[P_MAX_TURNS]) / prm[P_MAX_TURNS]
    obs[row, off[O_DRAW_PILE]] = st[g, F_DRAW_N] / DECK_SIZE
    obs[row, off[O_DISCARD_PILE]] = nd / DECK_SIZE
    q = seat
    for k in range(p):
        obs[row, off[O_TOTALS] + k] = st[g, F_TOTALS + q] / TOTAL_SCALE
        if cs[g, C_ACTIVE + q]:
            obs[row, off[O_ACTIVE] + k] = 1.0
        q += 1
        if q == p:
            q = 0
    if prm[P_ROUNDS] >= 0:
        done = st[g, F_ROUND] + (1 if phase == PHASE_OVER else 0)
        obs[row, off[O_ROUNDS]] = done / prm[P_ROUNDS]
    if knowledge:
        # unseen_counts: the cards not in the discard pile, less those the seat has located
        # in hands and its held card. draw_pool: the draw pile, and the unlocated cards of
        # its shuffle in hands (the held card is the seat's own), counted as every card not
        # in the discard pile (no card leaves the game) less the cards in hands outside the
        # pool and the held card. One pass over the hands, none over the draw pile, and
        # no branch on a slot (counted in ``wk``; a slot's code is always counted, an
        # empty slot's card adds 0)
        for k in range(NUM_CODES):
            wk[W_CODES + k] = 0
        for k in range(NUM_KINDS):
            wk[W_HANDS + k] = 0
        for q in range(p):
            for s in range(SLOTS):
                code = cs[g, _know(seat, q, s)]
                wk[W_CODES + code] += 1
                c = cs[g, C_HANDS + q * SLOTS + s]
                live = c >= 0
                card = c if live else 0
                pooled = cs[g, C_EPOCH + card] != 0 and code >= CODE_NUMBER
                wk[W_HANDS + _KIND[card]] += live and not pooled
        if h >= 0:
            wk[W_CODES + hk] += 1
            wk[W_HANDS + hk] += 1
        u = off[O_UNSEEN]
        d = off[O_POOL]
        for k in range(NUM_KINDS):
            left = _DECK_COUNTS[k] - cs[g, C_DCOUNT + k]
            obs[row, u + k] = tab[T_UNSEEN + k * 10 + left - wk[W_CODES + k]]
            obs[row, d + k] = tab[T_UNSEEN + k * 10 + left - wk[W_HANDS + k]]
    if prm[P_CEILINGS]:
        c = off[O_CEILINGS]
        q = seat
        for k in range(p):
            for s in range(SLOTS):
                i = c + 2 * (k * SLOTS + s)
                if cs[g, C_SEEN + q * SLOTS + s]:
                    obs[row, i] = 1.0
                obs[row, i + 1] = tab[T_CEIL + cs[g, C_CEIL + q * SLOTS + s]]
            q += 1
            if q == p:
                q = 0


@njit(cache=True)
def _observe_over(g, prm, off, st, cs, tab, wk, bots, final):
    """A game that ended: every external seat's observation of it (``final``, row
    ``g * p + seat``), before it is reset."""
    p = prm[P_N]
    for seat in range(p):
        if bots[g, seat] < 0:
            _observe_seat(g, seat, prm, off, st, cs, tab, wk, final, g * p + seat)


@njit(cache=True, inline="always")
def _observe(g, prm, off, st, cs, tab, wk, obs, mask, to_act):
    """The acting seat's observation (the reference observer's vector) and mask."""
    p = prm[P_N]
    seat = st[g, F_CURRENT]
    _observe_seat(g, seat, prm, off, st, cs, tab, wk, obs, g)
    nd = st[g, F_DISC_N]
    top = _KIND[cs[g, C_DISC + nd - 1]] if nd > 0 else _NONE
    phase = st[g, F_PHASE]
    for a in range(mask.shape[1]):
        mask[g, a] = 0
    if phase == PHASE_START:
        mask[g, ACTION_DRAW] = 1
        if nd > 0 and top < NUM_NUMBER_KINDS:
            mask[g, ACTION_TAKE_DISCARD] = 1
    elif phase in (PHASE_PLACE, PHASE_NUMBER):
        for s in range(SLOTS):
            mask[g, ACTION_REPLACE + s] = 1
        if phase == PHASE_NUMBER:
            mask[g, ACTION_DISCARD] = 1
    elif phase == PHASE_PEEK:
        for s in range(SLOTS):
            mask[g, ACTION_PEEK + s] = 1
        mask[g, ACTION_DECLINE] = 1
    elif phase == PHASE_DRAW2:
        mask[g, ACTION_USE_DRAW2] = 1
        mask[g, ACTION_DECLINE] = 1
    elif phase == PHASE_KNOCK:
        mask[g, ACTION_KNOCK] = 1
        mask[g, ACTION_NO_KNOCK] = 1
    else:
        mask[g, ACTION_DECLINE] = 1
        q = seat
        block = SLOTS * SLOTS
        for offset in range(1, p):
            q += 1
            if q == p:
                q = 0
            if cs[g, C_ACTIVE + q]:
                first = ACTION_SWAP + (offset - 1) * block
                for a in range(first, first + block):
                    mask[g, a] = 1
    to_act[g] = seat


@njit(cache=True)
def _privileged(prm, poff, st_, cs_, tab_, out_):
    """The privileged observer's vector of every game's position."""
    st, cs, tab, out = borrow(st_), borrow(cs_), borrow(tab_), borrow(out_)
    p = prm[P_N]
    for g in range(out.shape[0]):
        for i in range(out.shape[1]):
            out[g, i] = 0.0
        for q in range(p):
            for s in range(SLOTS):
                c = cs[g, C_HANDS + q * SLOTS + s]
                kind = _KIND[c] if c >= 0 else _NONE
                out[g, poff[Q_HANDS] + (q * SLOTS + s) * (NUM_KINDS + 1) + kind] = 1.0
                if cs[g, _know(q, q, s)] < CODE_NUMBER:
                    out[g, poff[Q_OWNER] + q * SLOTS + s] = 1.0
        h = st[g, F_HELD]
        out[g, poff[Q_HELD] + (_KIND[h] if h >= 0 else _NONE)] = 1.0
        if st[g, F_PUBLIC] and h >= 0:
            out[g, poff[Q_PUBLIC]] = 1.0
        n = st[g, F_DRAW_N]
        dc = poff[Q_DRAW_COUNTS]
        for i in range(n):
            out[g, dc + _KIND[cs[g, C_DRAW + i]]] += 1.0
        for k in range(NUM_KINDS):
            out[g, dc + k] = tab[T_UNSEEN + k * 10 + int(out[g, dc + k])]
        out[g, poff[Q_DRAW_PILE]] = n / DECK_SIZE
        out[g, poff[Q_DRAW_TOP] + (_KIND[cs[g, C_DRAW + n - 1]] if n > 0 else _NONE)] = 1.0
        nd = st[g, F_DISC_N]
        top = _KIND[cs[g, C_DISC + nd - 1]] if nd > 0 else _NONE
        out[g, poff[Q_DISCARD_TOP] + top] = 1.0
        for k in range(NUM_KINDS):
            out[g, poff[Q_DISCARD_COUNTS] + k] = tab[T_DISC + k * 10 + cs[g, C_DCOUNT + k]]
        out[g, poff[Q_DISCARD_PILE]] = nd / DECK_SIZE
        phase = st[g, F_PHASE]
        if phase != PHASE_OVER:
            out[g, poff[Q_PHASE] + phase] = 1.0
            out[g, poff[Q_TO_ACT] + st[g, F_CURRENT]] = 1.0
        if st[g, F_DRAW2]:
            out[g, poff[Q_DRAW2]] = 1.0
        kb = st[g, F_KNOCKED]
        if kb >= 0:
            out[g, poff[Q_KNOCKED] + kb] = 1.0
            out[g, poff[Q_FINAL]] = st[g, F_FINAL] / (p - 1)
        out[g, poff[Q_TURNS]] = min(st[g, F_TURNS], prm[P_MAX_TURNS]) / prm[P_MAX_TURNS]
        for q in range(p):
            out[g, poff[Q_TOTALS] + q] = st[g, F_TOTALS + q] / TOTAL_SCALE
            if cs[g, C_ACTIVE + q]:
                out[g, poff[Q_ACTIVE] + q] = 1.0
        if prm[P_ROUNDS] >= 0:
            done = st[g, F_ROUND] + (1 if phase == PHASE_OVER else 0)
            out[g, poff[Q_ROUNDS]] = done / prm[P_ROUNDS]


# ------------------------------------------------------------------- run
@njit(cache=True)
def _run(run, actions_, active_, bots_, next_bots_, prm, off, st_, cs_, acc_, tab_, rng_, wk_,
         est_, tape_, cursor_, rewards_, returns_, terminated_, obs_, mask_, to_act_,
         final_):  # fmt: skip
    """Advance every game: its external action (``run`` = RUN_STEP, in the games where
    ``active``), then the kernel's bots until an external seat must act; a finished game
    is reset (its seats' players taken from ``next_bots``) and played on to its first
    external decision (those opening rewards carry to the next step); before the reset, its
    external seats' observations go to ``final`` (row ``g * p + seat``). A logged game short
    of tape stops between decisions (``F_STAGE``) and RUN_RESUME goes on with it. Returns
    how many games stopped so."""
    actions, bots, st, cs = borrow(actions_), borrow(bots_), borrow(st_), borrow(cs_)
    active, next_bots = borrow(active_), borrow(next_bots_)
    acc, tab, rng, wk = borrow(acc_), borrow(tab_), borrow(rng_), borrow(wk_)
    est, tape, cursor, rewards = borrow(est_), borrow(tape_), borrow(cursor_), borrow(rewards_)
    returns, terminated = borrow(returns_), borrow(terminated_)
    obs, mask, to_act = borrow(obs_), borrow(mask_), borrow(to_act_)
    p = prm[P_N]
    stopped = 0
    for g in range(actions.shape[0]):
        stage = STAGE_BOTS
        external = False
        if run == RUN_RESUME:
            stage = st[g, F_STAGE]
            if stage != STAGE_BOTS and stage != STAGE_OPENING:
                continue
            st[g, F_STAGE] = STAGE_DONE
        else:
            for s in range(p):
                acc[g, A_REW + s] = acc[g, A_PENDING + s]
                acc[g, A_PENDING + s] = 0.0
            terminated[g] = False
            if run == RUN_RESET:
                _new_game(g, prm, st, cs, acc, rng, wk, tape, cursor)
                for s in range(p):
                    bots[g, s] = next_bots[g, s]
            external = run == RUN_STEP and active[g]
        # one decision per pass: the external action, then the bots' until an external seat
        # must act; after a game ended, the new game's opening bot moves (set_bots keeps an
        # external seat in every game, so this stops), whose rewards go to the next step
        while True:
            if external:
                a = actions[g]
                external = False
            else:
                bot = bots[g, st[g, F_CURRENT]]
                if stage == STAGE_BOTS and (terminated[g] or bot < 0):
                    for s in range(p):
                        returns[g, s] = acc[g, A_RUNNING + s]
                    if not terminated[g]:
                        break
                    _observe_over(g, prm, off, st, cs, tab, wk, bots, final_)
                    _new_game(g, prm, st, cs, acc, rng, wk, tape, cursor)
                    for s in range(p):
                        bots[g, s] = next_bots[g, s]
                    stage = STAGE_OPENING
                    continue
                if bot < 0:
                    break
                slot = st[g, F_SLOT]
                if slot >= 0 and cursor[slot] + TAPE_RESERVE > tape.shape[1]:
                    st[g, F_STAGE] = stage
                    break
                a = _bot_action(bot, g, prm, st, cs, tab, rng, est)
            rb = A_REW if stage == STAGE_BOTS else A_PENDING
            over = _apply(g, a, prm, st, cs, acc, rb, rng, wk, tape, cursor)
            if stage == STAGE_BOTS:
                terminated[g] = over
            elif over:  # a game over before any external decision: the seats never act
                st[g, F_STAGE] = STAGE_STUCK
                break
        for s in range(p):
            rewards[g, s] = acc[g, A_REW + s]
        if st[g, F_STAGE] == STAGE_DONE:
            _observe(g, prm, off, st, cs, tab, wk, obs, mask, to_act)
        else:
            stopped += 1
    return stopped


@njit(cache=True)
def _lean_run(address):
    """:func:`_run` for a step of external actions, its arguments read from the lean table at
    ``address`` (see ``ratenvs.common.batched``, lean calls; the order of
    ``BatchedRatATatCat._kernel_arguments``, its option tuples flattened in place): -1 when
    the step was played, -2 when games stopped (as :func:`_run` returns them), else the
    first game whose action its mask forbids (nothing moved)."""
    t = lean_open(address)
    i64, f32 = np.int64, np.float32
    actions, active, mask = lean_1d(t, 1, i64), lean_1d(t, 2, np.bool_), lean_2d(t, 42, np.int8)
    g = first_illegal(mask, actions, active)
    if g >= 0:
        return g
    prm = (lean_int(t, 5), lean_int(t, 6), lean_int(t, 7), lean_int(t, 8), lean_int(t, 9),
           lean_int(t, 10), lean_int(t, 11), lean_int(t, 12))  # fmt: skip
    off = (lean_int(t, 13), lean_int(t, 14), lean_int(t, 15), lean_int(t, 16),
           lean_int(t, 17), lean_int(t, 18), lean_int(t, 19), lean_int(t, 20),
           lean_int(t, 21), lean_int(t, 22), lean_int(t, 23), lean_int(t, 24),
           lean_int(t, 25), lean_int(t, 26), lean_int(t, 27), lean_int(t, 28))  # fmt: skip
    stopped = _run(lean_int(t, 0), actions, active, lean_2d(t, 3, i64), lean_2d(t, 4, i64),
                   prm, off, lean_2d(t, 29, i64), lean_2d(t, 30, np.int8), lean_2d(t, 31, f32),
                   lean_1d(t, 32, np.float64), lean_1d(t, 33, np.uint64), lean_1d(t, 34, i64),
                   lean_2d(t, 35, np.float64), lean_2d(t, 36, np.float64), lean_1d(t, 37, i64),
                   lean_2d(t, 38, f32), lean_2d(t, 39, f32), lean_1d(t, 40, np.bool_),
                   lean_2d(t, 41, f32), mask, lean_1d(t, 43, i64),
                   lean_2d(t, 44, f32))  # fmt: skip
    return -1 if stopped == 0 else -2


@njit(cache=True)
def _bot_actions(bot, prm, st_, cs_, tab_, rng_, est_, out):
    st, cs, tab, rng, est = borrow(st_), borrow(cs_), borrow(tab_), borrow(rng_), borrow(est_)
    for g in range(out.shape[0]):
        out[g] = _bot_action(bot, g, prm, st, cs, tab, rng, est)


class BatchedRatATatCat(BatchedGame):
    """``num_envs`` games of Rat-a-Tat Cat with the same options (see the module
    docstring); the options are :class:`~ratenvs.rat_a_tat_cat.rules.RatATatCat`'s."""

    game_class = RatATatCat
    tape_per_step: ClassVar[int] = 64
    """A step of external play writes a few shuffles at most; bots playing on (a whole
    round, more when the external seat is out of an elimination game) may write more:
    a logged game short of tape stops between decisions and resumes once it has grown."""
    bot_names = BOT_NAMES

    def _allocate(self) -> None:
        n, p = self.num_envs, self.num_players
        game: RatATatCat = self.game  # type: ignore[assignment]
        self._prm = (
            p,
            -1 if game.rounds is None else int(game.rounds),
            -1 if game.out_at is None else int(game.out_at),
            int(game.max_turns_per_round),
            int(game.elimination_tiebreak == "shared"),
            int(game.observation_kind == "knowledge"),
            int(game.owner_ceilings),
            REWARD_MODES.index(game.reward_mode),
        )
        observer = self.observer
        self._off = tuple(
            observer.offset(name) if name in observer.slices else -1 for name in _SEAT_PIECES
        )
        self._poff = tuple(self.state_observer.offset(name) for name in _PRIVILEGED_PIECES)
        self.st = np.zeros((n, NUM_FIELDS), dtype=np.int64)
        self.cs = np.zeros((n, NUM_CELLS), dtype=np.int8)
        self._acc = np.zeros((n, NUM_ACC), dtype=np.float32)
        self._wk = np.zeros(NUM_WORK, dtype=np.int64)
        self._est = np.zeros((p, SLOTS), dtype=np.float64)
        self._tab = game_tables()
        self.obs = np.zeros((n, self.observation_size), dtype=np.float32)
        self.mask = np.zeros((n, self.num_actions), dtype=np.int8)
        self.to_act = np.zeros(n, dtype=np.int64)

    lean_wrapper = _lean_run

    def _kernel(self, run: int, actions: np.ndarray, active: np.ndarray | None = None) -> None:
        active = self._nobody if active is None else active
        self._finish(self._run(run, actions, active), actions, active)

    def _lean_arguments(self, actions: np.ndarray) -> list[Any]:
        assert len(self._prm) == 8 and len(self._off) == 16  # as _lean_run reads them
        return self._kernel_arguments(RUN_STEP, actions, self._everybody)

    def _lean_failed(self, code: int, actions: np.ndarray) -> None:
        if code == -2:  # games stopped: as the checked path goes on with them
            self._finish(1, actions, self._everybody)
        else:
            super()._lean_failed(code, actions)

    def _finish(self, stopped: int, actions: np.ndarray, active: np.ndarray) -> None:
        """Go on with the games a run stopped (``stopped`` of them): a logged game short of
        tape, once it has grown; a game the bots ended before an external seat acted is an
        error."""
        while stopped:
            stuck = np.flatnonzero(self.st[:, F_STAGE] == STAGE_STUCK)
            if stuck.size:
                self.st[stuck, F_STAGE] = STAGE_DONE
                raise RuntimeError(
                    f"a new deal of game {int(stuck[0])} ended before any external seat acted "
                    "(the kernel's bots played its first "
                    f"max_turns_per_round={self.game.max_turns_per_round} turns); this engine "
                    "does not drop such deals (the gymnasium door does): raise "
                    "max_turns_per_round or seat an external player among the first to play"
                )
            self._tape_room(2 * TAPE_RESERVE)
            stopped = self._run(RUN_RESUME, actions, active)
        if len(self.log_games) and self.cursor.max() > self.tape.shape[1]:  # pragma: no cover
            raise RuntimeError("a logged game ran past the end of its chance tape")

    def _kernel_arguments(self, run: int, actions: np.ndarray, active: np.ndarray) -> list[Any]:
        """:func:`_run`'s arguments (the lean table's too, in this order)."""
        return [run, actions, active, self.bots, self.next_bots, self._prm, self._off,
                self.st, self.cs, self._acc, self._tab, self.rng, self._wk, self._est,
                self.tape, self.cursor, self.rewards, self.returns, self.terminated,
                self.obs, self.mask, self.to_act,
                self.final_obs.reshape(-1, self.observation_size)]  # fmt: skip

    def _run(self, run: int, actions: np.ndarray, active: np.ndarray) -> int:
        return _run(*self._kernel_arguments(run, actions, active))

    def _reset_games(self) -> None:
        self._acc[:] = 0.0
        self.st[:, F_STAGE] = STAGE_DONE
        self.st[:, F_SLOT] = self.slot_of
        self._kernel(RUN_RESET, np.zeros(self.num_envs, dtype=np.int64))

    def _step_games(self, actions: np.ndarray, active: np.ndarray) -> None:
        # the kernel borrows them: contiguous arrays it does not outlive
        self._kernel(RUN_STEP, np.ascontiguousarray(actions), np.ascontiguousarray(active))

    def _play_bots(self) -> None:
        self._kernel(RUN_BOTS, np.zeros(self.num_envs, dtype=np.int64))

    def _check_ceiling_bot(self, uses: bool) -> None:
        if uses and not self.game.owner_ceilings:
            raise ValueError(
                "the 'ceiling' bot reads the owner_ceilings observation: make the engine with "
                "owner_ceilings=True"
            )

    def _check_bots(self, bots: Any) -> np.ndarray:
        """As :meth:`BatchedGame._check_bots` (what ``set_bots`` and ``set_next_bots`` take);
        the ``ceiling`` bot needs ``owner_ceilings=True`` (it reads that part of the
        observation, which the kernel fills only with the option)."""
        b = super()._check_bots(bots)
        self._check_ceiling_bot(bool((b == BOT_CEILING).any()))
        return b

    def bot_actions(self, name: str) -> np.ndarray:
        """What bot ``name`` would play now in every game (drawing from the games'
        generators, as the kernel's bots do)."""
        bot = self.bot_index(name)
        self._check_ceiling_bot(bot == BOT_CEILING)
        out = np.zeros(self.num_envs, dtype=np.int64)
        _bot_actions(bot, self._prm, self.st, self.cs, self._tab, self.rng, self._est, out)
        return out

    def state_observation(self) -> np.ndarray:
        """The privileged observer's vector (``observer.observe(state, None)``, the whole
        truth) of every game's current position: ``(num_envs, state_size)`` float32,
        the input of a centralised critic."""
        out = np.zeros((self.num_envs, self.state_size), dtype=np.float32)
        _privileged(self._prm, self._poff, self.st, self.cs, self._tab, out)
        return out

    def load_states(self, states: Sequence[State], bots: Any = None) -> BatchStep:
        """Put the reference's positions ``states[i]`` into games ``0..len(states)-1`` (the
        rest of the batch as it was) and show their decisions: the observation and mask of
        the seat to act in each are the reference observer's and ``legal_mask``'s. A search
        plays on from dealt tables this way (:mod:`ratenvs.rat_a_tat_cat.search`).

        ``bots``: the loaded games' players, ``(len(states), num_players)`` as
        :meth:`set_bots` takes them (None: every seat external); the seat to act in each
        position must be external, and a loaded game keeps its players when it resets.

        A position must be of this engine's options and undecided (not over). The games
        loaded start with no reward pending and a return of 0; their chance from here on
        (a reshuffle of the discard pile) comes from the games' own generators, and they
        are not logged (a logged game's tape would miss its past)."""
        k = len(states)
        if not 0 < k <= self.num_envs:
            raise ValueError(f"1 to {self.num_envs} positions fit this batch, got {k}")
        p = self.num_players
        for g, s in enumerate(states):  # every check before anything is written
            if s.num_players != p or s.is_over or s.know.shape != (p, p, SLOTS):
                raise ValueError(
                    f"position {g} is not an undecided {p}-player position of this game"
                )
            if self.slot_of[g] >= 0:
                raise ValueError(f"game {g} is logged: a loaded position has no chance tape")
        players = np.full((k, p), self.EXTERNAL, dtype=np.int64)
        if bots is not None:
            players = np.asarray(bots, dtype=np.int64)
            if players.shape != (k, p) or (players >= len(self.bot_names)).any():
                raise ValueError(
                    f"bots must be ({k}, {p}) bot indices or negative (external) numbers"
                )
            if (players[np.arange(k), [s.current for s in states]] >= 0).any():
                raise ValueError("the seat to act in a loaded position must be external")
            if BOT_CEILING in players:
                self._check_ceiling_bot(True)
        for g, s in enumerate(states):
            self._load(g, s)
        self.bots[:k] = players
        self.next_bots[:k] = players
        self.terminated[:k] = False
        self._acc[:k] = 0.0
        self.rewards[:k] = 0.0
        self.returns[:k] = 0.0
        self._play_bots()
        return self._result()

    def _load(self, g: int, s: State) -> None:
        """Write the reference position ``s`` into game ``g``'s rows (the layout above)."""
        p = self.num_players
        st, cs = self.st[g], self.cs[g]
        st[:] = 0
        cs[:] = 0
        st[F_HELD] = s.held
        st[F_PUBLIC] = int(s.held_public)
        st[F_PHASE] = s.phase
        st[F_CURRENT] = s.current
        st[F_STARTER] = s.starter
        st[F_DRAW2] = s.draw2_left
        st[F_KNOCKED] = -1 if s.knocked_by is None else s.knocked_by
        st[F_FINAL] = s.final_turns_left
        st[F_TURNS] = s.turns_this_round
        st[F_ROUND] = s.round_index
        st[F_DRAW_N] = len(s.draw_pile)
        st[F_DISC_N] = len(s.discard_pile)
        st[F_STAGE] = STAGE_DONE
        st[F_SLOT] = -1
        st[F_TOTALS : F_TOTALS + p] = s.totals
        hands = np.full(MAXP * SLOTS, -1, dtype=np.int8)
        hands[: p * SLOTS] = np.asarray(s.hands, dtype=np.int8).ravel()
        cs[C_HANDS : C_HANDS + MAXP * SLOTS] = hands
        cs[C_DRAW : C_DRAW + len(s.draw_pile)] = s.draw_pile
        cs[C_DISC : C_DISC + len(s.discard_pile)] = s.discard_pile
        cs[C_DCOUNT : C_DCOUNT + NUM_KINDS] = s.discard_counts
        cs[C_ACTIVE : C_ACTIVE + p] = s.active
        if self.game.owner_ceilings:  # type: ignore[attr-defined]
            cs[C_SEEN : C_SEEN + p * SLOTS] = np.asarray(s.owner_seen).ravel()
            cs[C_CEIL : C_CEIL + p * SLOTS] = np.asarray(s.ceiling).ravel()
        know = np.zeros((MAXP, MAXP, SLOTS), dtype=np.int8)
        know[:p, :p] = s.know
        cs[C_KNOW : C_KNOW + know.size] = know.ravel()
        if self.game.observation_kind != "knowledge":
            recent = np.zeros((MAXP, MAXP, SLOTS), dtype=np.int8)
            recent[:p, :p] = s.recent
            cs[C_RECENT : C_RECENT + recent.size] = recent.ravel()
        cs[C_EPOCH : C_EPOCH + DECK_SIZE] = np.asarray(s.card_epoch) == s.epoch


ENGINE = BatchedRatATatCat
"""The game's batched engine (``GameSpec.batched()``)."""
