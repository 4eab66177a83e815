"""Rat-a-Tat Cat, batched: thousands of games advanced by one compiled kernel.

The same game as :class:`~ratenvs.rat_a_tat_cat.rules.RatATatCat` (the readable
spec), with the same options and the same observation vectors (the observer of
the ``observation`` option, the acting seat's view) and masks. A game of the batch
is rows of small integer arrays: the hands (card ids), the draw and discard piles
(top last), what every seat knows of every slot (``know``; ``recent`` for the
memoryless view), the owners' evidence (``owner_ceilings``), totals, who is still in,
and a row of scalars (held card, phase, seat to act, Draw 2 chain, knock, turn and
round counters, pile sizes).

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

from functools import lru_cache
from typing import ClassVar

import numpy as np
from numba import njit

from ratenvs.common.batched import (
    TAPE_EPISODE,
    TAPE_INTEGERS,
    TAPE_PERMUTATION,
    BatchedGame,
    below,
    shuffle_into,
)
from ratenvs.rat_a_tat_cat.bots import (
    BLIND_SWAP_MIN,
    CEILING_KNOCK_MARGIN,
    KEPT_VALUES,
    KNOCK_THRESHOLD,
    LOW_CARD,
    TAKE_MARGIN,
    HeuristicBot,
)
from ratenvs.rat_a_tat_cat.observe import _INV_DECK_COUNTS
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
)

BOT_RANDOM, BOT_HEURISTIC, BOT_CEILING = range(3)
BOT_NAMES = ("random", "heuristic", "ceiling")

_KIND = np.array(KIND, dtype=np.int64)
_DECK_COUNTS = np.array(KIND_COUNTS, dtype=np.int64)
_PHASE_OF_KIND = np.array(
    [PHASE_NUMBER] * NUM_NUMBER_KINDS + [PHASE_PEEK, PHASE_SWAP, PHASE_DRAW2], dtype=np.int64
)
_KEPT = np.array(KEPT_VALUES, dtype=np.float64)
_NONE = NUM_KINDS
"""Kind code of "no card" in the one-hot pieces (13)."""
_MAX_UNSEEN_LOW = 4 * (NUM_NUMBER_KINDS - 1)
"""Most number cards of kinds 0..8 a seat can have not located (36)."""
_MAX_UNSEEN_SUM = 4 * sum(range(NUM_NUMBER_KINDS - 1))
"""Their highest total value (144)."""

# the row of scalars of a game (``st[g, F_...]``)
F_HELD, F_PUBLIC, F_PHASE, F_CURRENT, F_STARTER, F_DRAW2 = range(6)
F_KNOCKED, F_FINAL, F_TURNS, F_ROUND, F_DRAW_N, F_DISC_N, F_STAGE = range(6, 13)
NUM_FIELDS = 13
# the game's parameters (``prm[P_...]``)
P_N, P_ROUNDS, P_TARGET, P_MAX_TURNS, P_SHARED, P_KNOWLEDGE, P_CEILINGS, P_REWARD = range(8)
NUM_PARAMS = 8
REWARD_ZERO_SUM, REWARD_POINTS, REWARD_WIN, REWARD_ZERO_SUM_WIN = range(4)
assert REWARD_MODES == ("zero_sum", "points", "win", "zero_sum_win")
# observation offsets (``off[O_...]``) of the seat view
O_DISCARD_TOP, O_HELD, O_PHASE, O_DRAW2, O_TO_ACT, O_KNOCKED, O_FINAL = range(7)
O_TURNS, O_DRAW_PILE, O_DISCARD_PILE, O_TOTALS, O_ACTIVE, O_ROUNDS = range(7, 13)
O_UNSEEN, O_CEILINGS = 13, 14
_SEAT_PIECES = (
    "discard_top", "held", "phase", "draw2_left", "to_act", "knocked_by", "final_turns",
    "turns_played", "draw_pile", "discard_pile", "totals", "active", "rounds_done",
    "unseen_counts", "ceilings",
)  # fmt: skip
# offsets of the privileged view (``poff[Q_...]``)
Q_HANDS, Q_OWNER, Q_HELD, Q_PUBLIC, Q_DRAW_COUNTS, Q_DRAW_PILE, Q_DRAW_TOP = range(7)
Q_DISCARD_TOP, Q_DISCARD_COUNTS, Q_DISCARD_PILE, Q_PHASE, Q_DRAW2, Q_TO_ACT = range(7, 13)
Q_KNOCKED, Q_FINAL, Q_TURNS, Q_TOTALS, Q_ACTIVE, Q_ROUNDS = range(13, 19)
_PRIVILEGED_PIECES = (
    "hands", "owner_knows", "held", "held_public", "draw_pile_counts", "draw_pile", "draw_top",
    "discard_top", "discard_counts", "discard_pile", "phase", "draw2_left", "to_act",
    "knocked_by", "final_turns", "turns_played", "totals", "active", "rounds_done",
)  # fmt: skip

STAGE_DONE, STAGE_BOTS, STAGE_OPENING = 0, 1, 2
"""A logged game whose tape ran short stops between two decisions (``F_STAGE``): in the
bots' moves of the step (1) or in the new game's opening bot moves (2); the engine grows
the tape and resumes it."""
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
    count and total does not change it - ``tests/test_batched_rat_a_tat_cat.py`` checks)."""
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


# ----------------------------------------------------------------- kernels
@njit(cache=True, inline="always")
def _put(tape, cursor, slot, value):
    """Append one number to a logged game's tape row (never past its end: the engine sees
    the cursor run over and raises)."""
    c = cursor[slot]
    if c < tape.shape[1]:
        tape[slot, c] = value
    cursor[slot] = c + 1


@njit(cache=True)
def _permutation(g, m, rng, perm, slot_of, tape, cursor):
    """``perm[:m]``: ``rng.permutation(m)`` of the reference, logged."""
    shuffle_into(rng, g, perm, m)
    slot = slot_of[g]
    if slot >= 0:
        _put(tape, cursor, slot, TAPE_PERMUTATION)
        _put(tape, cursor, slot, m)
        for i in range(m):
            _put(tape, cursor, slot, perm[i])


@njit(cache=True)
def _deal(g, starter, prm, st, hands, draw, disc, dcount, active, know, recent, seen, ceil,
          rng, perm, slot_of, tape, cursor):  # fmt: skip
    """``rules.deal``: shuffle, deal to the active players, turn the first discard (a power
    card goes back at a random place), every player looks at its outer cards."""
    p = prm[P_N]
    _permutation(g, DECK_SIZE, rng, perm, slot_of, tape, cursor)
    for i in range(DECK_SIZE):
        draw[g, i] = perm[i]
    n = DECK_SIZE
    for q in range(p):
        if active[g, q]:
            for s in range(SLOTS):
                n -= 1
                hands[g, q, s] = draw[g, n]
        else:
            for s in range(SLOTS):
                hands[g, q, s] = -1
    while _KIND[draw[g, n - 1]] >= NUM_NUMBER_KINDS:
        n -= 1
        card = draw[g, n]
        j = below(rng, g, n + 1)
        slot = slot_of[g]
        if slot >= 0:
            _put(tape, cursor, slot, TAPE_INTEGERS)
            _put(tape, cursor, slot, j)
        for i in range(n, j, -1):
            draw[g, i] = draw[g, i - 1]
        draw[g, j] = card
        n += 1
    n -= 1
    top = draw[g, n]
    st[g, F_DRAW_N] = n
    disc[g, 0] = top
    st[g, F_DISC_N] = 1
    for k in range(NUM_KINDS):
        dcount[g, k] = 0
    dcount[g, _KIND[top]] = 1
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
                know[g, o, q, s] = CODE_UNKNOWN
                if memoryless:
                    recent[g, o, q, s] = CODE_UNKNOWN
    ceilings = prm[P_CEILINGS] != 0
    for q in range(p):
        for s in range(SLOTS):
            if ceilings:
                seen[g, q, s] = active[g, q] != 0 and (s == 0 or s == SLOTS - 1)
                ceil[g, q, s] = NO_CEILING
            if active[g, q] and (s == 0 or s == SLOTS - 1):
                kind = _KIND[hands[g, q, s]]
                know[g, q, q, s] = kind
                if memoryless:
                    recent[g, q, q, s] = kind


@njit(cache=True, inline="always")
def _next_active(g, p, seat, active):
    q = seat
    for _ in range(p):
        q += 1
        if q == p:
            q = 0
        if active[g, q]:
            return q
    return -1


@njit(cache=True, inline="always")
def _lower_ceilings(g, seat, value, seen, ceil):
    for s in range(SLOTS):
        if seen[g, seat, s] and ceil[g, seat, s] > value:
            ceil[g, seat, s] = value


@njit(cache=True, inline="always")
def _discard_held(g, st, disc, dcount):
    card = st[g, F_HELD]
    n = st[g, F_DISC_N]
    disc[g, n] = card
    st[g, F_DISC_N] = n + 1
    dcount[g, _KIND[card]] += 1
    st[g, F_HELD] = -1
    st[g, F_PUBLIC] = 0


@njit(cache=True, inline="always")
def _draw_to_hand(g, st, draw, disc, dcount, rng, perm, slot_of, tape, cursor):
    """Draw the top card (the discard pile reshuffled into the draw pile if it is empty)."""
    n = st[g, F_DRAW_N]
    if n == 0:
        m = st[g, F_DISC_N]
        _permutation(g, m, rng, perm, slot_of, tape, cursor)
        for i in range(m):
            draw[g, i] = disc[g, perm[i]]
        n = m
        st[g, F_DISC_N] = 0
        for k in range(NUM_KINDS):
            dcount[g, k] = 0
    n -= 1
    card = draw[g, n]
    st[g, F_DRAW_N] = n
    st[g, F_HELD] = card
    st[g, F_PUBLIC] = 0
    st[g, F_PHASE] = _PHASE_OF_KIND[_KIND[card]]


@njit(cache=True, inline="always")
def _replace(g, seat, slot, prm, st, hands, disc, dcount, know, recent, seen, ceil):
    """The held card replaces ``slot``; the old card goes face up on the discard pile."""
    p = prm[P_N]
    old = hands[g, seat, slot]
    card = st[g, F_HELD]
    kind = _KIND[card]
    public = st[g, F_PUBLIC] != 0
    if prm[P_CEILINGS]:
        if seen[g, seat, slot] and _KIND[old] < NUM_NUMBER_KINDS:
            let_go = _KIND[old]
        else:
            let_go = UNSEEN_CEILING
        _lower_ceilings(g, seat, let_go, seen, ceil)
        seen[g, seat, slot] = 1
        ceil[g, seat, slot] = NO_CEILING if public else max(0, let_go - 1)
    hands[g, seat, slot] = card
    for o in range(p):
        know[g, o, seat, slot] = kind if public else CODE_NUMBER
    know[g, seat, seat, slot] = kind
    if prm[P_KNOWLEDGE] == 0:
        for o in range(p):
            recent[g, o, seat, slot] = CODE_UNKNOWN
    n = st[g, F_DISC_N]
    disc[g, n] = old
    st[g, F_DISC_N] = n + 1
    dcount[g, _KIND[old]] += 1
    st[g, F_HELD] = -1
    st[g, F_PUBLIC] = 0


@njit(cache=True, inline="always")
def _swap(g, a_seat, a, b_seat, b, prm, hands, know, recent, seen, ceil):
    """Blind swap; every seat's knowledge moves with the cards."""
    p = prm[P_N]
    t = hands[g, a_seat, a]
    hands[g, a_seat, a] = hands[g, b_seat, b]
    hands[g, b_seat, b] = t
    for o in range(p):
        t = know[g, o, a_seat, a]
        know[g, o, a_seat, a] = know[g, o, b_seat, b]
        know[g, o, b_seat, b] = t
    if prm[P_KNOWLEDGE] == 0:
        for o in range(p):
            t = recent[g, o, a_seat, a]
            recent[g, o, a_seat, a] = recent[g, o, b_seat, b]
            recent[g, o, b_seat, b] = t
    if prm[P_CEILINGS]:
        seen[g, a_seat, a] = 0
        seen[g, b_seat, b] = 0
        ceil[g, a_seat, a] = NO_CEILING
        ceil[g, b_seat, b] = NO_CEILING


@njit(cache=True)
def _replace_power_cards(g, prm, st, hands, draw, disc, dcount, rng, perm, merged, slot_of,
                         tape, cursor):  # fmt: skip
    """End of round: a power card in a hand goes under the draw pile and is replaced by the
    top card, until a number card; the discard pile is shuffled in first when the draw
    pile holds no number card."""
    p = prm[P_N]
    for q in range(p):
        for s in range(SLOTS):
            while hands[g, q, s] >= 0 and _KIND[hands[g, q, s]] >= NUM_NUMBER_KINDS:
                n = st[g, F_DRAW_N]
                has_number = False
                for i in range(n):
                    if _KIND[draw[g, i]] < NUM_NUMBER_KINDS:
                        has_number = True
                        break
                if not has_number:
                    d = st[g, F_DISC_N]
                    for i in range(n):
                        merged[i] = draw[g, i]
                    for i in range(d):
                        merged[n + i] = disc[g, i]
                    m = n + d
                    _permutation(g, m, rng, perm, slot_of, tape, cursor)
                    for i in range(m):
                        draw[g, i] = merged[perm[i]]
                    n = m
                    st[g, F_DISC_N] = 0
                    for k in range(NUM_KINDS):
                        dcount[g, k] = 0
                for i in range(n, 0, -1):
                    draw[g, i] = draw[g, i - 1]
                draw[g, 0] = hands[g, q, s]
                hands[g, q, s] = draw[g, n]
                st[g, F_DRAW_N] = n


@njit(cache=True)
def _end_round(g, prm, st, hands, draw, disc, dcount, totals, active, know, recent, seen,
               ceil, rng, perm, merged, slot_of, tape, cursor, rew, running):  # fmt: skip
    """Reveal, replace power cards, score, reward; the next round dealt, or True when the
    game is over."""
    p = prm[P_N]
    _replace_power_cards(g, prm, st, hands, draw, disc, dcount, rng, perm, merged, slot_of,
                         tape, cursor)  # fmt: skip
    total = 0
    playing = 0
    for q in range(p):
        if active[g, q]:
            pts = 0
            for s in range(SLOTS):
                pts += _KIND[hands[g, q, s]]
            merged[q] = pts  # scratch: the round's points
            total += pts
            playing += 1
            totals[g, q] += pts
        else:
            merged[q] = 0
    mode = prm[P_REWARD]
    for q in range(p):
        if active[g, q]:
            pts = merged[q]
            r = 0.0
            if mode in (REWARD_ZERO_SUM, REWARD_ZERO_SUM_WIN):
                others = (total - pts) / (playing - 1)
                r = (others - pts) / POINTS_SCALE
            elif mode == REWARD_POINTS:
                r = -pts / POINTS_SCALE
            rew[g, q] += r
            running[g, q] += r
    over = False
    # winners go to merged[8 + q] (1/0)
    target = prm[P_TARGET]
    if target >= 0:
        remaining = 0
        for q in range(p):
            merged[8 + q] = 0
            if active[g, q]:
                if totals[g, q] >= target:
                    active[g, q] = 0
                    merged[16 + q] = 1  # out now
                else:
                    merged[16 + q] = 0
                    remaining += 1
            else:
                merged[16 + q] = 0
        if remaining <= 1:
            over = True
            best = 1 << 40
            worst = -1
            for q in range(p):
                contender = active[g, q] != 0 if remaining > 0 else merged[16 + q] != 0
                if contender:
                    best = min(best, totals[g, q])
                    worst = max(worst, totals[g, q])
            if remaining == 0 and prm[P_SHARED]:
                best = worst
            for q in range(p):
                contender = active[g, q] != 0 if remaining > 0 else merged[16 + q] != 0
                merged[8 + q] = contender and totals[g, q] <= best
    rounds = prm[P_ROUNDS]
    if not over and rounds >= 0 and st[g, F_ROUND] + 1 >= rounds:
        over = True
        best = 1 << 40
        for q in range(p):
            if active[g, q]:
                best = min(best, totals[g, q])
        for q in range(p):
            merged[8 + q] = active[g, q] != 0 and totals[g, q] == best
    if over:
        st[g, F_PHASE] = PHASE_OVER
        st[g, F_HELD] = -1
        if mode in (REWARD_WIN, REWARD_ZERO_SUM_WIN):
            w = 0
            for q in range(p):
                w += merged[8 + q]
            if 0 < w < p:
                for q in range(p):
                    share = 1.0 / w if merged[8 + q] else 0.0
                    r = p / (p - 1) * (share - 1.0 / p)
                    rew[g, q] += r
                    running[g, q] += r
        return True
    st[g, F_ROUND] += 1
    _deal(g, _next_active(g, p, st[g, F_STARTER], active), prm, st, hands, draw, disc, dcount,
          active, know, recent, seen, ceil, rng, perm, slot_of, tape, cursor)  # fmt: skip
    return False


@njit(cache=True, inline="always")
def _end_turn(g, knocked_now, prm, st, hands, draw, disc, dcount, totals, active, know,
              recent, seen, ceil, rng, perm, merged, slot_of, tape, cursor, rew,
              running):  # fmt: skip
    st[g, F_TURNS] += 1
    if st[g, F_KNOCKED] >= 0 and not knocked_now:
        st[g, F_FINAL] -= 1
        if st[g, F_FINAL] <= 0:
            return _end_round(g, prm, st, hands, draw, disc, dcount, totals, active, know,
                              recent, seen, ceil, rng, perm, merged, slot_of, tape, cursor,
                              rew, running)  # fmt: skip
    if st[g, F_TURNS] >= prm[P_MAX_TURNS]:
        return _end_round(g, prm, st, hands, draw, disc, dcount, totals, active, know, recent,
                          seen, ceil, rng, perm, merged, slot_of, tape, cursor, rew,
                          running)  # fmt: skip
    st[g, F_CURRENT] = _next_active(g, prm[P_N], st[g, F_CURRENT], active)
    st[g, F_PHASE] = PHASE_START
    return False


@njit(cache=True, inline="always")
def _end_card_play(g, prm, st, hands, draw, disc, dcount, totals, active, know, recent, seen,
                   ceil, rng, perm, merged, slot_of, tape, cursor, rew, running):  # fmt: skip
    st[g, F_DRAW2] = 0
    if st[g, F_KNOCKED] < 0 and st[g, F_TURNS] + 1 < prm[P_MAX_TURNS]:
        st[g, F_PHASE] = PHASE_KNOCK
        return False
    return _end_turn(g, False, prm, st, hands, draw, disc, dcount, totals, active, know,
                     recent, seen, ceil, rng, perm, merged, slot_of, tape, cursor, rew,
                     running)  # fmt: skip


@njit(cache=True)
def _apply(g, action, prm, st, hands, draw, disc, dcount, totals, active, know, recent, seen,
           ceil, rng, perm, merged, slot_of, tape, cursor, rew, running):  # fmt: skip
    """``rules.apply_action`` of the seat to act in game ``g``; True when the game ended
    (the round's rewards added to ``rew`` and ``running``)."""
    p = prm[P_N]
    seat = st[g, F_CURRENT]
    if prm[P_KNOWLEDGE] == 0:
        for q in range(p):
            for s in range(SLOTS):
                recent[g, seat, q, s] = CODE_UNKNOWN
    phase = st[g, F_PHASE]
    if phase == PHASE_START:
        if action == ACTION_TAKE_DISCARD:
            n = st[g, F_DISC_N] - 1
            card = disc[g, n]
            st[g, F_DISC_N] = n
            dcount[g, _KIND[card]] -= 1
            st[g, F_HELD] = card
            st[g, F_PUBLIC] = 1
            st[g, F_PHASE] = PHASE_PLACE
            return False
        if prm[P_CEILINGS]:
            n = st[g, F_DISC_N]
            if n > 0 and _KIND[disc[g, n - 1]] < NUM_NUMBER_KINDS:
                _lower_ceilings(g, seat, _KIND[disc[g, n - 1]] + 1, seen, ceil)
        _draw_to_hand(g, st, draw, disc, dcount, rng, perm, slot_of, tape, cursor)
        return False
    if phase == PHASE_KNOCK:
        knock = action == ACTION_KNOCK
        if knock:
            st[g, F_KNOCKED] = seat
            live = 0
            for q in range(p):
                live += active[g, q] != 0
            st[g, F_FINAL] = live - 1
        return _end_turn(g, knock, prm, st, hands, draw, disc, dcount, totals, active, know,
                         recent, seen, ceil, rng, perm, merged, slot_of, tape, cursor, rew,
                         running)  # fmt: skip
    if ACTION_REPLACE <= action < ACTION_REPLACE + SLOTS:
        _replace(g, seat, action - ACTION_REPLACE, prm, st, hands, disc, dcount, know, recent,
                 seen, ceil)  # fmt: skip
    elif action in (ACTION_DISCARD, ACTION_DECLINE):
        if action == ACTION_DISCARD and prm[P_CEILINGS]:
            _lower_ceilings(g, seat, _KIND[st[g, F_HELD]], seen, ceil)
        _discard_held(g, st, disc, dcount)
        if st[g, F_DRAW2] > 0:
            st[g, F_DRAW2] = 0
            _draw_to_hand(g, st, draw, disc, dcount, rng, perm, slot_of, tape, cursor)
            return False
    elif ACTION_PEEK <= action < ACTION_PEEK + SLOTS:
        slot = action - ACTION_PEEK
        kind = _KIND[hands[g, seat, slot]]
        know[g, seat, seat, slot] = kind
        if prm[P_KNOWLEDGE] == 0:
            recent[g, seat, seat, slot] = kind
        _discard_held(g, st, disc, dcount)
    elif action == ACTION_USE_DRAW2:
        _discard_held(g, st, disc, dcount)
        st[g, F_DRAW2] = 1
        _draw_to_hand(g, st, draw, disc, dcount, rng, perm, slot_of, tape, cursor)
        return False
    else:
        i = action - ACTION_SWAP
        their = i % SLOTS
        own = (i // SLOTS) % SLOTS
        other = seat + i // (SLOTS * SLOTS) + 1
        if other >= p:
            other -= p
        _swap(g, seat, own, other, their, prm, hands, know, recent, seen, ceil)
        _discard_held(g, st, disc, dcount)
    return _end_card_play(g, prm, st, hands, draw, disc, dcount, totals, active, know, recent,
                          seen, ceil, rng, perm, merged, slot_of, tape, cursor, rew,
                          running)  # fmt: skip


@njit(cache=True)
def _new_game(g, prm, st, hands, draw, disc, dcount, totals, active, know, recent, seen, ceil,
              rng, perm, slot_of, tape, cursor, running):  # fmt: skip
    slot = slot_of[g]
    if slot >= 0:
        _put(tape, cursor, slot, TAPE_EPISODE)
    for q in range(prm[P_N]):
        totals[g, q] = 0
        active[g, q] = 1
        running[g, q] = 0.0
    st[g, F_ROUND] = 0
    _deal(g, 0, prm, st, hands, draw, disc, dcount, active, know, recent, seen, ceil, rng,
          perm, slot_of, tape, cursor)  # fmt: skip


# ------------------------------------------------------------------- bots
@njit(cache=True, inline="always")
def _num_legal(g, prm, st, disc, active):
    """How many legal actions the seat to act has (the random bot)."""
    phase = st[g, F_PHASE]
    if phase == PHASE_START:
        n = st[g, F_DISC_N]
        return 2 if n > 0 and _KIND[disc[g, n - 1]] < NUM_NUMBER_KINDS else 1
    if phase == PHASE_PLACE:
        return SLOTS
    if phase in (PHASE_NUMBER, PHASE_PEEK):
        return SLOTS + 1
    if phase == PHASE_SWAP:
        live = 0
        for q in range(prm[P_N]):
            live += active[g, q] != 0
        return 1 + (live - 1) * SLOTS * SLOTS
    return 2


@njit(cache=True, inline="always")
def _nth_legal(g, k, prm, st, active):
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
    seat = st[g, F_CURRENT]
    block = SLOTS * SLOTS
    for offset in range(1, p):
        q = seat + offset
        if q >= p:
            q -= p
        if active[g, q]:
            if k < block:
                return ACTION_SWAP + (offset - 1) * block + k
            k -= block
    return -1


@njit(cache=True)
def _unknown_value(g, seat, prm, st, dcount, know, uvt):
    """The heuristic's value of a card it does not know: the mean of the number cards the
    seat has not located (the reference's float, from the table), the deck's mean in
    memoryless mode."""
    if prm[P_KNOWLEDGE] == 0:
        return uvt[0, 0, 0]
    p = prm[P_N]
    c0 = 0
    c1 = 0
    c2 = 0
    c3 = 0
    c4 = 0
    c5 = 0
    c6 = 0
    c7 = 0
    c8 = 0
    c9 = 0
    for q in range(p):
        for s in range(SLOTS):
            code = know[g, seat, q, s]
            if code == 0:
                c0 += 1
            elif code == 1:
                c1 += 1
            elif code == 2:
                c2 += 1
            elif code == 3:
                c3 += 1
            elif code == 4:
                c4 += 1
            elif code == 5:
                c5 += 1
            elif code == 6:
                c6 += 1
            elif code == 7:
                c7 += 1
            elif code == 8:
                c8 += 1
            elif code == 9:
                c9 += 1
    h = st[g, F_HELD]
    hk = _KIND[h] if h >= 0 else NUM_KINDS
    u0 = 4 - c0 - dcount[g, 0] - (hk == 0)
    u1 = 4 - c1 - dcount[g, 1] - (hk == 1)
    u2 = 4 - c2 - dcount[g, 2] - (hk == 2)
    u3 = 4 - c3 - dcount[g, 3] - (hk == 3)
    u4 = 4 - c4 - dcount[g, 4] - (hk == 4)
    u5 = 4 - c5 - dcount[g, 5] - (hk == 5)
    u6 = 4 - c6 - dcount[g, 6] - (hk == 6)
    u7 = 4 - c7 - dcount[g, 7] - (hk == 7)
    u8 = 4 - c8 - dcount[g, 8] - (hk == 8)
    u9 = 9 - c9 - dcount[g, 9] - (hk == 9)
    count = u0 + u1 + u2 + u3 + u4 + u5 + u6 + u7 + u8
    total = u1 + 2 * u2 + 3 * u3 + 4 * u4 + 5 * u5 + 6 * u6 + 7 * u7 + 8 * u8
    return uvt[count, total, u9]


@njit(cache=True)
def _bot_action(bot, g, prm, st, disc, dcount, active, know, recent, seen, ceil, rng, uvt,
                est):  # fmt: skip
    """What bot ``bot`` plays for the seat to act in game ``g`` (``est``: scratch of
    (players, 4) floats)."""
    if bot == BOT_RANDOM:
        return _nth_legal(g, below(rng, g, _num_legal(g, prm, st, disc, active)), prm, st,
                          active)  # fmt: skip
    p = prm[P_N]
    seat = st[g, F_CURRENT]
    phase = st[g, F_PHASE]
    knowledge = prm[P_KNOWLEDGE] != 0
    unknown = _unknown_value(g, seat, prm, st, dcount, know, uvt)
    # own slots (heuristic values), then the others (the ceiling bot's estimates)
    for s in range(SLOTS):
        code = know[g, seat, seat, s] if knowledge else recent[g, seat, seat, s]
        est[0, s] = code if code < NUM_NUMBER_KINDS else unknown
    worst = 0
    for s in range(1, SLOTS):
        if est[0, s] > est[0, worst]:
            worst = s
    vw = est[0, worst]
    if phase == PHASE_START:
        n = st[g, F_DISC_N]
        if n > 0 and _KIND[disc[g, n - 1]] < NUM_NUMBER_KINDS:
            top = _KIND[disc[g, n - 1]]
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
            code = know[g, seat, seat, s] if knowledge else recent[g, seat, seat, s]
            if code >= CODE_NUMBER:
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
                code = know[g, seat, q, s] if knowledge else recent[g, seat, q, s]
                if code < NUM_NUMBER_KINDS:
                    est[k, s] = code
                elif seen[g, q, s]:
                    est[k, s] = _KEPT[ceil[g, q, s]]
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
                if active[g, q]:
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
            if active[g, q]:
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
        if not active[g, q]:
            continue
        for s in range(SLOTS):
            code = know[g, seat, q, s] if knowledge else recent[g, seat, q, s]
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
def _observe(g, prm, off, st, disc, dcount, totals, active, know, recent, seen, ceil,
             unseen_tab, ceil_tab, obs, mask, to_act):  # fmt: skip
    """The acting seat's observation (the reference observer's vector) and mask."""
    p = prm[P_N]
    seat = st[g, F_CURRENT]
    knowledge = prm[P_KNOWLEDGE] != 0
    for i in range(obs.shape[1]):
        obs[g, i] = 0.0
    q = seat
    for k in range(p):
        for s in range(SLOTS):
            code = know[g, seat, q, s] if knowledge else recent[g, seat, q, s]
            obs[g, (k * SLOTS + s) * NUM_CODES + code] = 1.0
        q += 1
        if q == p:
            q = 0
    nd = st[g, F_DISC_N]
    top = _KIND[disc[g, nd - 1]] if nd > 0 else _NONE
    obs[g, off[O_DISCARD_TOP] + top] = 1.0
    h = st[g, F_HELD]
    hk = _KIND[h] if h >= 0 else _NONE
    obs[g, off[O_HELD] + hk] = 1.0
    phase = st[g, F_PHASE]
    obs[g, off[O_PHASE] + phase] = 1.0
    if st[g, F_DRAW2]:
        obs[g, off[O_DRAW2]] = 1.0
    obs[g, off[O_TO_ACT]] = 1.0
    kb = st[g, F_KNOCKED]
    if kb >= 0:
        d = kb - seat
        if d < 0:
            d += p
        obs[g, off[O_KNOCKED] + d] = 1.0
        obs[g, off[O_FINAL]] = st[g, F_FINAL] / (p - 1)
    obs[g, off[O_TURNS]] = st[g, F_TURNS] / prm[P_MAX_TURNS]
    obs[g, off[O_DRAW_PILE]] = st[g, F_DRAW_N] / DECK_SIZE
    obs[g, off[O_DISCARD_PILE]] = nd / DECK_SIZE
    q = seat
    for k in range(p):
        obs[g, off[O_TOTALS] + k] = totals[g, q] / 100.0
        if active[g, q]:
            obs[g, off[O_ACTIVE] + k] = 1.0
        q += 1
        if q == p:
            q = 0
    if prm[P_ROUNDS] >= 0:
        obs[g, off[O_ROUNDS]] = st[g, F_ROUND] / prm[P_ROUNDS]
    if knowledge:
        u = off[O_UNSEEN]
        for k in range(NUM_KINDS):
            obs[g, u + k] = _DECK_COUNTS[k] - dcount[g, k]  # counts first, the value below
        for q in range(p):
            for s in range(SLOTS):
                code = know[g, seat, q, s]
                if code < NUM_KINDS:
                    obs[g, u + code] -= 1.0
        if h >= 0:
            obs[g, u + hk] -= 1.0
        for k in range(NUM_KINDS):
            obs[g, u + k] = unseen_tab[k, int(obs[g, u + k])]
    if prm[P_CEILINGS]:
        c = off[O_CEILINGS]
        q = seat
        for k in range(p):
            for s in range(SLOTS):
                i = c + 2 * (k * SLOTS + s)
                if seen[g, q, s]:
                    obs[g, i] = 1.0
                obs[g, i + 1] = ceil_tab[ceil[g, q, s]]
            q += 1
            if q == p:
                q = 0
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
            if active[g, q]:
                base = ACTION_SWAP + (offset - 1) * block
                for a in range(base, base + block):
                    mask[g, a] = 1
    to_act[g] = seat


@njit(cache=True)
def _privileged(prm, poff, st, hands, draw, disc, dcount, totals, active, know, unseen_tab,
                disc_tab, out):  # fmt: skip
    """The privileged observer's vector of every game's position."""
    p = prm[P_N]
    for g in range(out.shape[0]):
        for i in range(out.shape[1]):
            out[g, i] = 0.0
        for q in range(p):
            for s in range(SLOTS):
                c = hands[g, q, s]
                kind = _KIND[c] if c >= 0 else _NONE
                out[g, poff[Q_HANDS] + (q * SLOTS + s) * (NUM_KINDS + 1) + kind] = 1.0
                if know[g, q, q, s] < CODE_NUMBER:
                    out[g, poff[Q_OWNER] + q * SLOTS + s] = 1.0
        h = st[g, F_HELD]
        out[g, poff[Q_HELD] + (_KIND[h] if h >= 0 else _NONE)] = 1.0
        if st[g, F_PUBLIC] and h >= 0:
            out[g, poff[Q_PUBLIC]] = 1.0
        n = st[g, F_DRAW_N]
        dc = poff[Q_DRAW_COUNTS]
        for i in range(n):
            out[g, dc + _KIND[draw[g, i]]] += 1.0
        for k in range(NUM_KINDS):
            out[g, dc + k] = unseen_tab[k, int(out[g, dc + k])]
        out[g, poff[Q_DRAW_PILE]] = n / DECK_SIZE
        out[g, poff[Q_DRAW_TOP] + (_KIND[draw[g, n - 1]] if n > 0 else _NONE)] = 1.0
        nd = st[g, F_DISC_N]
        out[g, poff[Q_DISCARD_TOP] + (_KIND[disc[g, nd - 1]] if nd > 0 else _NONE)] = 1.0
        for k in range(NUM_KINDS):
            out[g, poff[Q_DISCARD_COUNTS] + k] = disc_tab[k, dcount[g, k]]
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
        out[g, poff[Q_TURNS]] = st[g, F_TURNS] / prm[P_MAX_TURNS]
        for q in range(p):
            out[g, poff[Q_TOTALS] + q] = totals[g, q] / 100.0
            if active[g, q]:
                out[g, poff[Q_ACTIVE] + q] = 1.0
        if prm[P_ROUNDS] >= 0:
            done = st[g, F_ROUND] + (1 if phase == PHASE_OVER else 0)
            out[g, poff[Q_ROUNDS]] = done / prm[P_ROUNDS]


# ------------------------------------------------------------------- run
@njit(cache=True, inline="always")
def _short_of_tape(g, slot_of, tape, cursor):
    slot = slot_of[g]
    return slot >= 0 and cursor[slot] + TAPE_RESERVE > tape.shape[1]


@njit(cache=True)
def _run(run, actions, bots, prm, off, st, hands, draw, disc, dcount, totals, active, know,
         recent, seen, ceil, rng, perm, merged, est, slot_of, tape, cursor, rewards, pending,
         running, returns, terminated, obs, mask, to_act, uvt, unseen_tab,
         ceil_tab):  # fmt: skip
    """Advance every game: its external action (``run`` = RUN_STEP), then the kernel's bots
    until an external seat must act; a finished game is reset and played on to its first
    external decision (those opening rewards carry to the next step). A logged game short
    of tape stops between decisions (``F_STAGE``) and RUN_RESUME goes on with it."""
    for g in range(actions.shape[0]):
        stage = STAGE_BOTS
        if run == RUN_RESUME:
            stage = st[g, F_STAGE]
            if stage == STAGE_DONE:
                continue
            st[g, F_STAGE] = STAGE_DONE
        else:
            for s in range(prm[P_N]):
                rewards[g, s] = pending[g, s]
                pending[g, s] = 0.0
            terminated[g] = False
            if run == RUN_RESET:
                _new_game(g, prm, st, hands, draw, disc, dcount, totals, active, know, recent,
                          seen, ceil, rng, perm, slot_of, tape, cursor, running)  # fmt: skip
            elif run == RUN_STEP:
                terminated[g] = _apply(g, actions[g], prm, st, hands, draw, disc, dcount,
                                       totals, active, know, recent, seen, ceil, rng, perm,
                                       merged, slot_of, tape, cursor, rewards,
                                       running)  # fmt: skip
        if stage == STAGE_BOTS:
            while not terminated[g] and bots[g, st[g, F_CURRENT]] >= 0:
                if _short_of_tape(g, slot_of, tape, cursor):
                    st[g, F_STAGE] = STAGE_BOTS
                    break
                a = _bot_action(bots[g, st[g, F_CURRENT]], g, prm, st, disc, dcount, active,
                                know, recent, seen, ceil, rng, uvt, est)  # fmt: skip
                terminated[g] = _apply(g, a, prm, st, hands, draw, disc, dcount, totals,
                                       active, know, recent, seen, ceil, rng, perm, merged,
                                       slot_of, tape, cursor, rewards, running)  # fmt: skip
            if st[g, F_STAGE] != STAGE_DONE:
                continue
            for s in range(prm[P_N]):
                returns[g, s] = running[g, s]
            if terminated[g]:
                _new_game(g, prm, st, hands, draw, disc, dcount, totals, active, know, recent,
                          seen, ceil, rng, perm, slot_of, tape, cursor, running)  # fmt: skip
                stage = STAGE_OPENING
        if stage == STAGE_OPENING:
            # the new game's opening bot moves (set_bots keeps an external seat in every
            # game, so this stops); their rewards go to the next step
            while bots[g, st[g, F_CURRENT]] >= 0:
                if _short_of_tape(g, slot_of, tape, cursor):
                    st[g, F_STAGE] = STAGE_OPENING
                    break
                a = _bot_action(bots[g, st[g, F_CURRENT]], g, prm, st, disc, dcount, active,
                                know, recent, seen, ceil, rng, uvt, est)  # fmt: skip
                _apply(g, a, prm, st, hands, draw, disc, dcount, totals, active, know, recent,
                       seen, ceil, rng, perm, merged, slot_of, tape, cursor, pending,
                       running)  # fmt: skip
            if st[g, F_STAGE] != STAGE_DONE:
                continue
        _observe(g, prm, off, st, disc, dcount, totals, active, know, recent, seen, ceil,
                 unseen_tab, ceil_tab, obs, mask, to_act)  # fmt: skip


@njit(cache=True)
def _bot_actions(bot, prm, st, disc, dcount, active, know, recent, seen, ceil, rng, uvt, est,
                 out):  # fmt: skip
    for g in range(out.shape[0]):
        out[g] = _bot_action(bot, g, prm, st, disc, dcount, active, know, recent, seen, ceil,
                             rng, uvt, est)  # fmt: skip


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
        prm = np.zeros(NUM_PARAMS, dtype=np.int64)
        prm[P_N] = p
        prm[P_ROUNDS] = -1 if game.rounds is None else game.rounds
        prm[P_TARGET] = -1 if game.target_score is None else game.target_score
        prm[P_MAX_TURNS] = game.max_turns_per_round
        prm[P_SHARED] = game.elimination_tiebreak == "shared"
        prm[P_KNOWLEDGE] = game.observation_kind == "knowledge"
        prm[P_CEILINGS] = game.owner_ceilings
        prm[P_REWARD] = REWARD_MODES.index(game.reward_mode)
        self._prm = prm
        observer = self.observer
        self._off = np.array(
            [observer.offset(name) if name in observer.slices else -1 for name in _SEAT_PIECES],
            dtype=np.int64,
        )
        self.privileged_observer = game.observer("privileged")
        self.privileged_size = self.privileged_observer.size
        self._poff = np.array(
            [self.privileged_observer.offset(name) for name in _PRIVILEGED_PIECES], dtype=np.int64
        )
        self.st = np.zeros((n, NUM_FIELDS), dtype=np.int64)
        self.hands = np.full((n, p, SLOTS), -1, dtype=np.int8)
        self.draw = np.zeros((n, DECK_SIZE), dtype=np.int8)
        self.disc = np.zeros((n, DECK_SIZE), dtype=np.int8)
        self.dcount = np.zeros((n, NUM_KINDS), dtype=np.int64)
        self.totals = np.zeros((n, p), dtype=np.int64)
        self.active = np.ones((n, p), dtype=np.int8)
        self.know = np.full((n, p, p, SLOTS), CODE_UNKNOWN, dtype=np.int8)
        memoryless = game.observation_kind != "knowledge"
        self.recent = np.full((n if memoryless else 1, p, p, SLOTS), CODE_UNKNOWN, dtype=np.int8)
        ceil_rows = n if game.owner_ceilings else 1
        self.owner_seen = np.zeros((ceil_rows, p, SLOTS), dtype=np.int8)
        self.ceiling = np.full((ceil_rows, p, SLOTS), NO_CEILING, dtype=np.int8)
        self._perm = np.zeros(DECK_SIZE, dtype=np.int64)
        self._merged = np.zeros(DECK_SIZE, dtype=np.int64)
        self._est = np.zeros((p, SLOTS), dtype=np.float64)
        self.obs = np.zeros((n, self.observation_size), dtype=np.float32)
        self.mask = np.zeros((n, self.num_actions), dtype=np.int8)
        self.to_act = np.zeros(n, dtype=np.int64)
        self._pending = np.zeros((n, p), dtype=np.float32)
        self._running = np.zeros((n, p), dtype=np.float32)
        self._uvt = unknown_value_table()
        self._unseen_tab, self._disc_tab, self._ceil_tab = value_tables()

    def _kernel(self, run: int, actions: np.ndarray) -> None:
        _run(run, actions, self.bots, self._prm, self._off, self.st, self.hands, self.draw,
             self.disc, self.dcount, self.totals, self.active, self.know, self.recent,
             self.owner_seen, self.ceiling, self.rng, self._perm, self._merged, self._est,
             self.slot_of, self.tape, self.cursor, self.rewards, self._pending,
             self._running, self.returns, self.terminated, self.obs, self.mask, self.to_act,
             self._uvt, self._unseen_tab, self._ceil_tab)  # fmt: skip
        if len(self.log_games):
            while self.st[:, F_STAGE].any():
                self._grow_tape()
                _run(RUN_RESUME, actions, self.bots, self._prm, self._off, self.st,
                     self.hands, self.draw, self.disc, self.dcount, self.totals, self.active,
                     self.know, self.recent, self.owner_seen, self.ceiling, self.rng,
                     self._perm, self._merged, self._est, self.slot_of, self.tape,
                     self.cursor, self.rewards, self._pending, self._running, self.returns,
                     self.terminated, self.obs, self.mask, self.to_act, self._uvt,
                     self._unseen_tab, self._ceil_tab)  # fmt: skip
            if self.cursor.max() > self.tape.shape[1]:  # pragma: no cover - a guard
                raise RuntimeError("a logged game ran past the end of its chance tape")

    def _reset_games(self) -> None:
        self._pending[:] = 0.0
        self.st[:, F_STAGE] = STAGE_DONE
        self._kernel(RUN_RESET, np.zeros(self.num_envs, dtype=np.int64))

    def _step_games(self, actions: np.ndarray) -> None:
        self._kernel(RUN_STEP, actions)

    def _play_bots(self) -> None:
        self._kernel(RUN_BOTS, np.zeros(self.num_envs, dtype=np.int64))

    def set_bots(self, bots: np.ndarray | list[list[int]]) -> None:
        """As :meth:`BatchedGame.set_bots`; the ``ceiling`` bot needs ``owner_ceilings=True``
        (it reads that part of the observation)."""
        if not self.game.owner_ceilings and (np.asarray(bots) == BOT_CEILING).any():
            raise ValueError(
                "the 'ceiling' bot reads the owner_ceilings observation: make the engine with "
                "owner_ceilings=True"
            )
        super().set_bots(bots)

    def bot_actions(self, name: str) -> np.ndarray:
        """What bot ``name`` would play now in every game (drawing from the games'
        generators, as the kernel's bots do)."""
        bot = self.bot_index(name)
        if bot == BOT_CEILING and not self.game.owner_ceilings:
            raise ValueError(
                "the 'ceiling' bot reads the owner_ceilings observation: make the engine with "
                "owner_ceilings=True"
            )
        out = np.zeros(self.num_envs, dtype=np.int64)
        _bot_actions(bot, self._prm, self.st, self.disc, self.dcount, self.active, self.know,
                     self.recent, self.owner_seen, self.ceiling, self.rng, self._uvt,
                     self._est, out)  # fmt: skip
        return out

    def state_observation(self) -> np.ndarray:
        """The privileged observer's vector (``observer.observe(state, None)``, the whole
        truth) of every game's current position: ``(num_envs, privileged_size)`` float32,
        the input of a centralised critic."""
        out = np.zeros((self.num_envs, self.privileged_size), dtype=np.float32)
        _privileged(self._prm, self._poff, self.st, self.hands, self.draw, self.disc,
                    self.dcount, self.totals, self.active, self.know, self._unseen_tab,
                    self._disc_tab, out)  # fmt: skip
        return out


ENGINE = BatchedRatATatCat
"""The game's batched engine (``GameSpec.batched()``)."""
