"""Ratto Zakko, batched: thousands of games advanced tick by tick by one compiled kernel.

The same game as :class:`~ratenvs.ratto_zakko.rules.RattoZakko` (the readable
spec), with the same options, observations, masks and rewards. Ratto Zakko is
simultaneous: one :meth:`~BatchedRattoZakko.step` is one tick of every game,
with an action for every seat (as ``parallel_env().step``), or the relocating
winner's choice. A game of the batch is a row of small integer arrays (the deck
in dealing order, the shaker, the fly, the jackpot, each seat's won cards and
answer to the card showing) and every seat's evidence about the card (the
reference's log prior plus log-likelihood sums, float64, updated with the same
operations in the same order).

Chance: the shuffle is a uniform permutation (logged as the reference's
``rng.permutation(n)``); the glimpses of a tick are standard normals from the
game's own generator (a ziggurat), logged as the reference's
``rng.standard_normal((n, 2, 7))``. Channels of impossible hypotheses (the two
padding channels of the colour block; the rat at the starter level) have
evidence -inf whatever is added, so the kernel draws nothing for them; the log
shows 0.0 there. ``perception="clear"`` draws nothing per tick.

Posteriors: ``exp`` is the C library's in the kernel and numpy's (SVML on
AVX-512 machines) in the reference; they differ in the last bit of about one
float64 in twenty, which almost never survives the rounding to float32 (the
tests compare the posterior pieces within 1e-6 and report how many entries were
not bit-identical; everything else is compared exactly).

Bots played inside the kernel: every bot of :data:`~ratenvs.ratto_zakko.bots.BOTS`
(``random``, ``child``, ``adult``, ``expert``, ``perfect``, ``bayes``, ``ideal``,
``racer``), deciding from the same float32 observation the reference bot would see and
drawing from the game's generator. For logged games every bot draw and decision goes on a
second tape (:meth:`BatchedRattoZakko.bot_logs`), so a replay can feed the
reference bots the same draws and check each decision.

    engine = BatchedRattoZakko(4096, seed=0, num_players=4)
    batch = engine.reset()
    for _ in range(1000):
        actions = policy(batch.observation, batch.mask)   # (4096, 4) ints
        batch = engine.step(actions)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ratenvs.common.batched import (
    TAPE_EPISODE,
    TAPE_NORMALS,
    TAPE_PERMUTATION,
    BatchedGame,
    BatchStep,
    below,
    borrow,
    exponential,
    grown,
    lean_1d,
    lean_2d,
    lean_3d,
    lean_4d,
    lean_int,
    lean_open,
    normal_from,
    normal_ziggurat,
    shuffle_into,
    tape_put,
    uniform,
)
from ratenvs.common.jit import njit
from ratenvs.ratto_zakko import observe as ob
from ratenvs.ratto_zakko import reaction, rules
from ratenvs.ratto_zakko.perception import clear_evidence, posteriors, prior_evidence
from ratenvs.ratto_zakko.rules import (
    ACTION_RELOCATE_FIRST,
    ACTION_RESPONSE_FIRST,
    ACTION_WAIT,
    BELIEF_PRIORS,
    FLY_CARD,
    FOODS,
    LEVELS,
    NUM_ACTIONS,
    NUM_CARD_KINDS,
    NUM_COLOURS,
    NUM_FOODS,
    NUM_RESPONSES,
    PHASE_OVER,
    PHASE_REACT,
    PHASE_RELOCATE,
    RAT_CARD,
    RESPONSE_INDEX,
    RESPONSES_AT_LEVEL,
    SHOUT_FLY,
    SHOUT_RAT,
    START_FLY_UNDER,
    START_SHAKER_ON,
    RattoZakko,
    build_deck,
    correct_response_index,
)

BOT_NAMES = ("random", "child", "adult", "expert", "perfect", "bayes", "ideal", "racer")
"""The kernel's bots, by index (the names of :data:`ratenvs.ratto_zakko.bots.BOTS`)."""
BOT_RANDOM, BOT_CHILD, BOT_ADULT, BOT_EXPERT, BOT_PERFECT, BOT_BAYES, BOT_IDEAL, BOT_RACER = range(
    8
)
HUMAN_PRESETS = {BOT_CHILD: "child", BOT_ADULT: "adult", BOT_EXPERT: "expert"}

# per-game scalars: columns of ``gs``
(G_PHASE, G_CARD, G_TICK, G_SHAKER, G_FLY, G_DEALER, G_RELOCATOR, G_STAGE, G_FLY_SHOWN,
 G_FLY_MOVED, G_JACKPOT, G_DECK_LEN) = range(12)  # fmt: skip
NUM_G = 12
# the options as ints: entries of ``cfg``
(C_P, C_LEVEL, C_WINDOW, C_GRADUAL, C_MEMORYLESS, C_WIN, C_BOTH, C_BELIEFS, C_DECK,
 C_VARIANT, C_MIN_TICKS, C_PRIOR, C_RECORD) = range(13)  # fmt: skip
# C_PRIOR: the index of option ``belief_prior`` in rules.BELIEF_PRIORS
PRIOR_DECK, PRIOR_COUNT = 1, 2
# the float options: entries of ``fcfg``: the glimpse quality d and d^2, the tick in seconds,
# then the deck prior's weights of the 27 cards: 5 P(colour | food) for a food card (index
# food * 5 + colour), 1 for the fly and the rat
FC_SNR, FC_SNR2, FC_TICK_S, FC_COLOUR_RATIO = range(4)
# ``scratch``: the responses' sums (13), then the public record of the game at hand (option
# ``public_record``, or a counting bot seated): the cards of each kind not yet seen (27),
# the responses ruled out (13), the cards' weights in the counted beliefs (27)
SC_UNSEEN = NUM_RESPONSES
SC_RULED = SC_UNSEEN + NUM_CARD_KINDS
SC_WEIGHT = SC_RULED + NUM_RESPONSES
SCRATCH_SIZE = SC_WEIGHT + NUM_CARD_KINDS
UNSEEN_SCALE = ob.UNSEEN_SCALE
# rows of ``rules_t`` (card, shaker, fly): the oracle's answer, a conflict card, the lure
R_CORRECT, R_CONFLICT, R_LURE = range(3)
# rows of ``ftab`` (float32 observation values): tick / window, elapsed seconds, count / deck
F_TICK_FRACTION, F_ELAPSED, F_COUNT = range(3)
# columns of ``bot_f`` (human presets): sigma, tau, error rates, mean RTs at the game's level
B_SIGMA, B_TAU, B_ERROR, B_CONFLICT_ERROR, B_MEAN_PLAIN, B_MEAN_CONFLICT = range(6)
# per-seat state (``ss``): cards won, the answer to this card and its tick, this tick's action
S_WON, S_ANSWER, S_TICK, S_SUBMIT = range(4)
# rows of ``etab``: the evidence and posteriors of a clearly seen card, the prior
E_CLEAR_EV = 0
E_CLEAR_POST = NUM_CARD_KINDS
E_PRIOR = 2 * NUM_CARD_KINDS
# per-seat bot state (``bst``): this card's ex-Gaussian deviation and error lotteries, the
# card they were drawn for (cards left in the deck; -1: a fresh bot), and where the bot
# remembers the fly (where its seat's observation last showed it; START_FLY for a bot that
# took its seat since: the reference bot's ``_fly_memory``)
S_DEVIATION, S_ERROR, S_LURE, S_OTHER, S_KEY, S_FLY = range(6)
NUM_BOT_STATE = 6

LEVEL_STARTER, LEVEL_MAIN, LEVEL_DESSERT = range(3)
NO_ANSWER = -1
NUM_EV = 14
"""Evidence channels per seat: the identity block (7) and the padded colour block (7)."""
COLOUR_BLOCK = 7
MODE_STEP, MODE_RESET, MODE_BOTS = range(3)
# rows of ``mtab``: the masks a seat can have (the reference rules' mask constants);
# M_EARLY: a seat still answering before ``min_reaction_ticks`` (wait only, but it acts)
M_REACT, M_WAIT, M_RELOCATE, M_RELOCATE_FLY, M_RELOCATE_SHAKER, M_EARLY = range(6)
MASKS = np.stack(
    [
        rules._REACT_MASK,
        rules._WAIT_MASK,
        rules._RELOCATE_MASK,
        rules._RELOCATE_FLY_MASK,
        rules._RELOCATE_SHAKER_MASK,
        rules._WAIT_MASK,
    ]
)
NEG_INF = -np.inf
FLY_CHANNEL = NUM_FOODS
assert SHOUT_RAT == SHOUT_FLY + 1
RAT_CHANNEL = NUM_FOODS + 1
MIN_RT_MS = reaction.MIN_RT_MS
LURE_SHARE = reaction.LURE_SHARE
PERFECT_LATENCY_MS = reaction.PERFECT_LATENCY_MS
PERFECT_CERTAINTY = reaction.PERFECT_CERTAINTY
BAYES_CERTAINTY = reaction.BAYES_CERTAINTY
RACER_CERTAINTY = reaction.RACER_CERTAINTY
START_SHAKER = FOODS.index(START_SHAKER_ON)
START_FLY = FOODS.index(START_FLY_UNDER)
RELOCATE_FLY = ACTION_RELOCATE_FIRST
RELOCATE_SHAKER = ACTION_RELOCATE_FIRST + NUM_FOODS
RELOCATE_LEAVE = ACTION_RELOCATE_FIRST + 2 * NUM_FOODS

# observation offsets: the fixed prefix, then the per-seat pieces
O_IDENTITY = ob.IDENTITY_SLICE.start
O_COLOUR = ob.COLOUR_SLICE.start
O_CARD_SHOWING = ob.CARD_SHOWING
O_SHAKER = ob.SHAKER_SLICE.start
O_FLY = ob.FLY_SLICE.start
O_FLY_SHOWN = ob.FLY_SHOWN
O_LEVEL = ob.LEVEL_SLICE.start
O_TICK_FRACTION = ob.TICK_FRACTION
O_ELAPSED = ob.ELAPSED_S
O_TICK_S = ob.TICK_S
O_RELOCATION = ob.RELOCATION_PHASE
O_I_RELOCATE = ob.I_RELOCATE
O_JACKPOT = ob.JACKPOT
O_CARDS_LEFT = ob.CARDS_LEFT
O_VARIANT = ob.FLY_CARD_RAT_VARIANT
O_PER_SEAT = ob.PER_SEAT

# the bot tape (logged games): every draw a kernel bot makes and every decision
BT_EPISODE = -1.0
"""A new game starts."""
BT_NORMAL = 0.0
"""``NORMAL z``: a standard normal (``rng.standard_normal()``)."""
BT_EXPONENTIAL = 1.0
"""``EXPONENTIAL e``: a standard exponential (``rng.exponential(tau)`` is ``tau * e``)."""
BT_RANDOM = 2.0
"""``RANDOM u``: a uniform float (``rng.random()``)."""
BT_INTEGERS = 3.0
"""``INTEGERS k j``: ``j`` drawn below ``k`` (``rng.integers(k)``)."""
BT_ACTION = 4.0
"""``ACTION seat a``: the bot of ``seat`` played action ``a``."""


# ----------------------------------------------------------------- kernels
@njit(cache=True, inline="always")
def _glimpse(g, p, nid, card, ev, post, snr, s2, rng, slot, tape, cursor):
    """One glimpse for every seat (the reference's ``add_glimpses``), then the posteriors.
    Only the ``nid`` possible identities and the 5 colours are drawn; the log shows 0.0 for
    the impossible channels (their evidence is -inf whatever is added)."""
    if slot >= 0:
        tape_put(tape, cursor, slot, TAPE_NORMALS)
        tape_put(tape, cursor, slot, 3.0)
        tape_put(tape, cursor, slot, p)
        tape_put(tape, cursor, slot, 2.0)
        tape_put(tape, cursor, slot, 7.0)
    if card < FLY_CARD:
        sig_id = card // NUM_COLOURS
        sig_col = COLOUR_BLOCK + card % NUM_COLOURS
    else:
        sig_id = FLY_CHANNEL + card - FLY_CARD
        sig_col = -1
    st = rng[g]
    for s in range(p):
        m0 = NEG_INF
        for k in range(nid):
            z, st = normal_from(st)
            if slot >= 0:
                tape_put(tape, cursor, slot, z)
            t = snr * z
            if k == sig_id:
                t = t + s2
            e = ev[g, s, k] + t
            ev[g, s, k] = e
            if e > m0:
                m0 = e
        m1 = NEG_INF
        if slot >= 0:
            for _k in range(nid, COLOUR_BLOCK):
                tape_put(tape, cursor, slot, 0.0)
        for k in range(COLOUR_BLOCK, COLOUR_BLOCK + NUM_COLOURS):
            z, st = normal_from(st)
            if slot >= 0:
                tape_put(tape, cursor, slot, z)
            t = snr * z
            if k == sig_col:
                t = t + s2
            e = ev[g, s, k] + t
            ev[g, s, k] = e
            if e > m1:
                m1 = e
        if slot >= 0:
            for _k in range(COLOUR_BLOCK + NUM_COLOURS, NUM_EV):
                tape_put(tape, cursor, slot, 0.0)
        _posterior(g, s, nid, ev, post, m0, m1)
    rng[g] = st


@njit(cache=True, inline="always")
def _posterior(g, s, nid, ev, post, m0, m1):
    """Shift each block so its maximum is 0, then ``exp`` and normalise (sums in the
    reference's order, channel 0 first; the impossible channels add exp(-inf) = 0)."""
    t0 = 0.0
    for k in range(nid):
        e = ev[g, s, k] - m0
        ev[g, s, k] = e
        x = np.exp(e)
        post[g, s, k] = x
        t0 += x
    for k in range(nid, COLOUR_BLOCK):
        post[g, s, k] = 0.0
    t1 = 0.0
    for k in range(COLOUR_BLOCK, COLOUR_BLOCK + NUM_COLOURS):
        e = ev[g, s, k] - m1
        ev[g, s, k] = e
        x = np.exp(e)
        post[g, s, k] = x
        t1 += x
    for k in range(COLOUR_BLOCK + NUM_COLOURS, NUM_EV):
        post[g, s, k] = 0.0
    for k in range(nid):
        post[g, s, k] = post[g, s, k] / t0
    for k in range(COLOUR_BLOCK, COLOUR_BLOCK + NUM_COLOURS):
        post[g, s, k] = post[g, s, k] / t1


@njit(cache=True, inline="always")
def _deal(g, cfg, fcfg, gs, deck, ss, ev, post, etab, rng, slot, tape, cursor):
    """Reveal the next card: tick 0, everyone's first glimpse."""
    p = cfg[C_P]
    n = gs[g, G_DECK_LEN] - 1
    card = deck[g, n]
    gs[g, G_DECK_LEN] = n
    gs[g, G_CARD] = card
    gs[g, G_TICK] = 0
    gs[g, G_PHASE] = PHASE_REACT
    gs[g, G_RELOCATOR] = -1
    gs[g, G_FLY_SHOWN] = 0
    for s in range(p):
        ss[g, s, S_ANSWER] = NO_ANSWER
        ss[g, s, S_TICK] = NO_ANSWER
    if cfg[C_GRADUAL]:
        for s in range(p):
            for k in range(NUM_EV):
                ev[g, s, k] = etab[E_PRIOR, k]
        nid = RAT_CHANNEL if cfg[C_LEVEL] == LEVEL_STARTER else COLOUR_BLOCK
        _glimpse(g, p, nid, card, ev, post, fcfg[FC_SNR], fcfg[FC_SNR2], rng, slot, tape, cursor)
    else:
        for s in range(p):
            for k in range(NUM_EV):
                ev[g, s, k] = etab[E_CLEAR_EV + card, k]
                post[g, s, k] = etab[E_CLEAR_POST + card, k]


@njit(cache=True, inline="always")
def _new_game(g, cfg, fcfg, gs, deck, ss, ev, post, etab, base_deck, perm, rng, slot, tape,
              cursor, btape, bcursor, running, bots, next_bots, bst):  # fmt: skip
    """Shuffle, place fly and shaker, reveal the first card (the reference's ``new_game``);
    the seats' players for this game from ``next_bots``, each bot believing the fly under
    the start cloche."""
    p = cfg[C_P]
    m = cfg[C_DECK]
    if slot >= 0:
        tape_put(tape, cursor, slot, TAPE_EPISODE)
        tape_put(btape, bcursor, slot, BT_EPISODE)
    shuffle_into(rng, g, perm, m)
    if slot >= 0:
        tape_put(tape, cursor, slot, TAPE_PERMUTATION)
        tape_put(tape, cursor, slot, m)
        for i in range(m):
            tape_put(tape, cursor, slot, perm[i])
    for i in range(m):
        deck[g, i] = base_deck[perm[i]]
    gs[g, G_DECK_LEN] = m
    gs[g, G_SHAKER] = START_SHAKER
    gs[g, G_FLY] = START_FLY
    gs[g, G_DEALER] = 0
    gs[g, G_JACKPOT] = 0
    gs[g, G_STAGE] = 0
    gs[g, G_FLY_MOVED] = 0
    for s in range(p):
        ss[g, s, S_WON] = 0
        running[g, s] = 0.0
        bots[g, s] = next_bots[g, s]
        bst[g, s, S_FLY] = START_FLY
    _deal(g, cfg, fcfg, gs, deck, ss, ev, post, etab, rng, slot, tape, cursor)
    gs[g, G_FLY_SHOWN] = 1


@njit(cache=True, inline="always")
def _f32(x):
    return np.float32(x)


@njit(cache=True, inline="always")
def _perceived(g, s, post):
    """The bot's reading of its observation: the most probable identity and colour (first
    maximum of the float32 values, as ``argmax``), their float32 probabilities, and the
    perceived card id."""
    i = 0
    pi = _f32(post[g, s, 0])
    for k in range(1, COLOUR_BLOCK):
        v = _f32(post[g, s, k])
        if v > pi:
            pi = v
            i = k
    c = 0
    pc = _f32(post[g, s, COLOUR_BLOCK])
    for k in range(1, NUM_COLOURS):
        v = _f32(post[g, s, COLOUR_BLOCK + k])
        if v > pc:
            pc = v
            c = k
    if i == FLY_CHANNEL:
        card = FLY_CARD
    elif i == RAT_CHANNEL:
        card = RAT_CARD
    else:
        card = i * NUM_COLOURS + c
    return i, float(pi), c, float(pc), card


@njit(cache=True, inline="always")
def _sure_answer(scratch, total, certainty):
    """The bayes, ideal and racer bots' rule (``reaction.BayesBot.act``): the most likely
    response (beliefs ``scratch / total`` in float32; the first on a tie) once it is at least
    ``certainty`` likely, else wait."""
    best = 0
    vb = _f32(scratch[0] / total)
    for r in range(1, NUM_RESPONSES):
        v = _f32(scratch[r] / total)
        if v > vb:
            vb = v
            best = r
    if float(vb) >= certainty:
        return ACTION_RESPONSE_FIRST + best
    return ACTION_WAIT


@njit(cache=True, inline="always")
def _belief_sums(g, s, post, rules_t, sh, fl, level, scratch, weights, w0, ruled):
    """The answer beliefs before the division: ``scratch[r]`` gets response ``r``'s summed
    weight; returns the total. Card ``k`` weighs its float32 posterior (a food card: the
    float32 product of its identity and colour posteriors) widened, times ``weights[w0 +
    k]``; with ``ruled`` a card whose response the record rules out (:func:`_record`) weighs
    0; the rat nothing at the starter level. The total and the responses' sums add up one by
    one in card-id order (float64); each belief is sum / total in float32. The weights of
    observe.joint_response_beliefs are ``fcfg``'s (5 P(c | f), then 1 for the fly and the
    rat), those of observe.counted_response_beliefs the record's (35 or 7 times the cards
    of the kind not yet seen)."""
    for r in range(NUM_RESPONSES):
        scratch[r] = 0.0
    total = 0.0
    for f in range(NUM_FOODS):
        pf = _f32(post[g, s, f])
        for c in range(NUM_COLOURS):
            card = f * NUM_COLOURS + c
            r = rules_t[R_CORRECT, card, sh, fl]
            if not ruled or scratch[SC_RULED + r] == 0.0:
                w = float(pf * _f32(post[g, s, COLOUR_BLOCK + c])) * weights[w0 + card]
                total += w
                scratch[r] += w
    r = rules_t[R_CORRECT, FLY_CARD, sh, fl]
    if not ruled or scratch[SC_RULED + r] == 0.0:
        w = float(_f32(post[g, s, FLY_CHANNEL])) * weights[w0 + FLY_CARD]
        total += w
        scratch[r] += w
    if level != LEVEL_STARTER:
        r = rules_t[R_CORRECT, RAT_CARD, sh, fl]
        if not ruled or scratch[SC_RULED + r] == 0.0:
            w = float(_f32(post[g, s, RAT_CHANNEL])) * weights[w0 + RAT_CARD]
            total += w
            scratch[r] += w
    return total


@njit(cache=True, inline="always")
def _record(g, gs, deck, ss, p, scratch):
    """The public record of game ``g`` into ``scratch`` (observe.unseen_counts and
    observe.ruled_out_responses): the cards of each kind in the deck and showing, the
    responses given to the card showing in earlier ticks, and the cards' weights of
    observe.counted_response_beliefs (35 or 7 times the unseen count)."""
    for k in range(NUM_CARD_KINDS):
        scratch[SC_UNSEEN + k] = 0.0
    for r in range(NUM_RESPONSES):
        scratch[SC_RULED + r] = 0.0
    reacting = gs[g, G_PHASE] == PHASE_REACT
    n = gs[g, G_DECK_LEN] + (1 if reacting else 0)  # the card showing is deck[g, G_DECK_LEN]
    for i in range(n):
        scratch[SC_UNSEEN + deck[g, i]] += 1.0
    for k in range(NUM_CARD_KINDS):  # the prior relative to the posteriors' uniform ones
        per = 35.0 if k < FLY_CARD else 7.0
        scratch[SC_WEIGHT + k] = per * scratch[SC_UNSEEN + k]
    if reacting:
        for q in range(p):
            a = ss[g, q, S_ANSWER]
            if a != NO_ANSWER:
                scratch[SC_RULED + a] = 1.0


@njit(cache=True, inline="always")
def _remember_fly(g, s, cfg, gs, bst):
    """A kernel bot asked to act reads its seat's observation: where it shows the fly
    (``knowledge``, or ``fly_shown``), the bot remembers it there (the reference bot's
    ``_fly_memory``; ``_observe`` shows the same)."""
    if not cfg[C_MEMORYLESS] or gs[g, G_FLY_SHOWN] != 0:
        bst[g, s, S_FLY] = gs[g, G_FLY]


@njit(cache=True, inline="always")
def _bot_react(b, g, s, cfg, fcfg, gs, post, bst, bot_f, rules_t, level_resp, elapsed_ms,
               scratch, rng, slot, btape, bcursor):  # fmt: skip
    """The action of kernel bot ``b`` in seat ``s`` for this tick (it has not answered)."""
    t = gs[g, G_TICK]
    level = cfg[C_LEVEL]
    if b == BOT_RANDOM:
        j = below(rng, g, ACTION_RESPONSE_FIRST + NUM_RESPONSES)
        if slot >= 0:
            tape_put(btape, bcursor, slot, BT_INTEGERS)
            tape_put(btape, bcursor, slot, ACTION_RESPONSE_FIRST + NUM_RESPONSES)
            tape_put(btape, bcursor, slot, j)
        return j
    # A reference bot answers with the fly where it last saw it (_remember_fly), which is
    # where the fly is for a bot seated since the game began (the fly is shown at a card's
    # first tick whenever it moved), but not for one seated during the game (set_bots)
    # that has not seen the fly since (memoryless): that one believes the start cloche.
    sh = gs[g, G_SHAKER]
    fl = int(bst[g, s, S_FLY])
    el = elapsed_ms[t]
    if b == BOT_PERFECT:
        if el < PERFECT_LATENCY_MS:
            return ACTION_WAIT
        i, pi, c, pc, card = _perceived(g, s, post)
        if pi < PERFECT_CERTAINTY:
            return ACTION_WAIT
        if level == LEVEL_DESSERT and i < NUM_FOODS and pc < PERFECT_CERTAINTY:
            return ACTION_WAIT
        if card == RAT_CARD and level == LEVEL_STARTER:
            card = FLY_CARD
        return ACTION_RESPONSE_FIRST + rules_t[R_CORRECT, card, sh, fl]
    if b == BOT_BAYES:
        # observe.response_beliefs on the float32 observation (outer product in float32,
        # sums in float64, the result in float32)
        for r in range(NUM_RESPONSES):
            scratch[r] = 0.0
        for f in range(NUM_FOODS):
            pf = _f32(post[g, s, f])
            for c in range(NUM_COLOURS):
                card = f * NUM_COLOURS + c
                scratch[rules_t[R_CORRECT, card, sh, fl]] += float(
                    pf * _f32(post[g, s, COLOUR_BLOCK + c])
                )
        scratch[rules_t[R_CORRECT, FLY_CARD, sh, fl]] += float(_f32(post[g, s, FLY_CHANNEL]))
        if level != LEVEL_STARTER:
            scratch[rules_t[R_CORRECT, RAT_CARD, sh, fl]] += float(_f32(post[g, s, RAT_CHANNEL]))
        return _sure_answer(scratch, 1.0, BAYES_CERTAINTY)
    if b in (BOT_IDEAL, BOT_RACER):
        # it counts cards: the public record, which it sees at any table (the reference
        # bot's view_options), is in scratch (_tick)
        total = _belief_sums(g, s, post, rules_t, sh, fl, level, scratch, scratch, SC_WEIGHT, True)
        if not total > 0.0:
            return ACTION_WAIT
        return _sure_answer(scratch, total, BAYES_CERTAINTY if b == BOT_IDEAL else RACER_CERTAINTY)
    # a human-model bot: this card's draws at its first decision (the card's first tick,
    # or later for a bot that took the seat during the card: the reference bot's new_card)
    if t == 0 or bst[g, s, S_KEY] != gs[g, G_DECK_LEN]:
        bst[g, s, S_KEY] = gs[g, G_DECK_LEN]
        z = normal_ziggurat(rng, g)
        e = exponential(rng, g)
        tau = bot_f[b, B_TAU]
        bst[g, s, S_DEVIATION] = bot_f[b, B_SIGMA] * z + tau * e - tau
        bst[g, s, S_ERROR] = uniform(rng, g)
        bst[g, s, S_LURE] = uniform(rng, g)
        bst[g, s, S_OTHER] = uniform(rng, g)
        if slot >= 0:
            tape_put(btape, bcursor, slot, BT_NORMAL)
            tape_put(btape, bcursor, slot, z)
            tape_put(btape, bcursor, slot, BT_EXPONENTIAL)
            tape_put(btape, bcursor, slot, e)
            for k in range(3):
                tape_put(btape, bcursor, slot, BT_RANDOM)
                tape_put(btape, bcursor, slot, bst[g, s, S_ERROR + k])
    dev = bst[g, s, S_DEVIATION]
    if el < MIN_RT_MS or el < bot_f[b, B_MEAN_PLAIN] + dev:
        return ACTION_WAIT  # before the earliest answer time (a conflict only adds time)
    i, pi, c, pc, card = _perceived(g, s, post)
    conflict = rules_t[R_CONFLICT, card, sh, fl]
    mean = bot_f[b, B_MEAN_CONFLICT] if conflict else bot_f[b, B_MEAN_PLAIN]
    if el < MIN_RT_MS or el < mean + dev:
        return ACTION_WAIT
    if card == RAT_CARD and level == LEVEL_STARTER:
        card = FLY_CARD
    correct = rules_t[R_CORRECT, card, sh, fl]
    conflict = rules_t[R_CONFLICT, card, sh, fl]
    p_error = bot_f[b, B_CONFLICT_ERROR] if conflict else bot_f[b, B_ERROR]
    if bst[g, s, S_ERROR] >= p_error:
        return ACTION_RESPONSE_FIRST + correct
    if conflict and bst[g, s, S_LURE] < LURE_SHARE:
        lure = rules_t[R_LURE, card, sh, fl]
        if lure != correct:
            return ACTION_RESPONSE_FIRST + lure
    others = 0
    for r in level_resp:
        if r != correct:
            others += 1
    k = int(bst[g, s, S_OTHER] * others)
    if k > others - 1:
        k = others - 1
    for r in level_resp:
        if r != correct:
            if k == 0:
                return ACTION_RESPONSE_FIRST + r
            k -= 1
    return ACTION_WAIT  # unreachable


@njit(cache=True, inline="always")
def _bot_relocate(g, cfg, gs, rng, slot, btape, bcursor):
    """Every bot relocates at random: a uniform legal relocation choice."""
    if cfg[C_BOTH]:
        j = below(rng, g, NUM_FOODS + 1)
        first = RELOCATE_FLY if gs[g, G_STAGE] == 0 else RELOCATE_SHAKER
        a = RELOCATE_LEAVE if j == NUM_FOODS else first + j
        k = NUM_FOODS + 1
    else:
        j = below(rng, g, 2 * NUM_FOODS + 1)
        a = RELOCATE_FLY + j
        k = 2 * NUM_FOODS + 1
    if slot >= 0:
        tape_put(btape, bcursor, slot, BT_INTEGERS)
        tape_put(btape, bcursor, slot, k)
        tape_put(btape, bcursor, slot, j)
    return a


@njit(cache=True, inline="always")
def _log_action(slot, btape, bcursor, s, a):
    if slot >= 0:
        tape_put(btape, bcursor, slot, BT_ACTION)
        tape_put(btape, bcursor, slot, s)
        tape_put(btape, bcursor, slot, a)


@njit(cache=True, inline="always")
def _win_rewards(g, p, ss, out, running):
    """``common.rewards.win_rewards`` of the most cards (ties share)."""
    best = ss[g, 0, S_WON]
    for s in range(1, p):
        if ss[g, s, S_WON] > best:
            best = ss[g, s, S_WON]
    w = 0
    for s in range(p):
        if ss[g, s, S_WON] == best:
            w += 1
    if p < 2 or w == p:
        return
    for s in range(p):
        share = (1.0 / w if ss[g, s, S_WON] == best else 0.0) - 1.0 / p
        r = p / (p - 1) * share
        out[g, s] += r
        running[g, s] += r


@njit(cache=True, inline="always")
def _tick(g, external_ok, actions, bots, cfg, fcfg, gs, deck, ss, ev, post, bst, etab, rules_t,
          level_resp, elapsed_ms, bot_f, scratch, rng, slot, tape, cursor, btape, bcursor, out,
          running):  # fmt: skip
    """One tick of game ``g`` (or the winner's relocation choice): external seats play
    ``actions[g]`` (``external_ok``), the kernel's bots their own. Rewards are added to
    ``out``. Returns True if the game ended."""
    p = cfg[C_P]
    if gs[g, G_PHASE] == PHASE_RELOCATE:
        seat = gs[g, G_RELOCATOR]
        b = bots[g, seat]
        if b < 0:
            a = actions[g, seat] if external_ok else RELOCATE_LEAVE
        else:
            _remember_fly(g, seat, cfg, gs, bst)
            a = _bot_relocate(g, cfg, gs, rng, slot, btape, bcursor)
            _log_action(slot, btape, bcursor, seat, a)
        if a < RELOCATE_SHAKER:
            gs[g, G_FLY] = a - RELOCATE_FLY
            gs[g, G_FLY_MOVED] = 1
        elif a < RELOCATE_LEAVE:
            gs[g, G_SHAKER] = a - RELOCATE_SHAKER
        if cfg[C_BOTH] and gs[g, G_STAGE] == 0:
            gs[g, G_STAGE] = 1
            return False
        _deal(g, cfg, fcfg, gs, deck, ss, ev, post, etab, rng, slot, tape, cursor)
        gs[g, G_FLY_SHOWN] = gs[g, G_FLY_MOVED]
        return False
    # a reaction tick: every seat that has not answered waits or answers, simultaneously
    t = gs[g, G_TICK]
    counting = False
    for s in range(p):
        counting = counting or bots[g, s] in (BOT_IDEAL, BOT_RACER)
    if counting:
        _record(g, gs, deck, ss, p, scratch)
    for s in range(p):
        if ss[g, s, S_ANSWER] != NO_ANSWER:
            ss[g, s, S_SUBMIT] = ACTION_WAIT
            continue
        b = bots[g, s]
        if b >= 0:
            _remember_fly(g, s, cfg, gs, bst)
        if b < 0:
            ss[g, s, S_SUBMIT] = actions[g, s] if external_ok else ACTION_WAIT
        elif t < cfg[C_MIN_TICKS]:
            # too early to answer: the reference bot sees a wait-only mask (the random bot
            # draws its one legal action; a human-model bot still draws this card's lots)
            if b == BOT_RANDOM:
                if slot >= 0:
                    tape_put(btape, bcursor, slot, BT_INTEGERS)
                    tape_put(btape, bcursor, slot, 1)
                    tape_put(btape, bcursor, slot, 0)
            else:
                _bot_react(b, g, s, cfg, fcfg, gs, post, bst, bot_f, rules_t, level_resp,
                           elapsed_ms, scratch, rng, slot, btape, bcursor)  # fmt: skip
            _log_action(slot, btape, bcursor, s, ACTION_WAIT)
            ss[g, s, S_SUBMIT] = ACTION_WAIT
        else:
            a = _bot_react(b, g, s, cfg, fcfg, gs, post, bst, bot_f, rules_t, level_resp,
                           elapsed_ms, scratch, rng, slot, btape, bcursor)  # fmt: skip
            _log_action(slot, btape, bcursor, s, a)
            ss[g, s, S_SUBMIT] = a
    for s in range(p):
        a = ss[g, s, S_SUBMIT]
        if a != ACTION_WAIT:
            ss[g, s, S_ANSWER] = a - ACTION_RESPONSE_FIRST
            ss[g, s, S_TICK] = t
    card = gs[g, G_CARD]
    correct = rules_t[R_CORRECT, card, gs[g, G_SHAKER], gs[g, G_FLY]]
    right = 0
    first = -1
    everyone = True
    for s in range(p):
        a = ss[g, s, S_ANSWER]
        if a == NO_ANSWER:
            everyone = False
        elif a == correct and ss[g, s, S_TICK] == t:
            right += 1
            if first < 0:
                first = s
    if right == 0 and not everyone and t + 1 < cfg[C_WINDOW]:
        gs[g, G_TICK] = t + 1
        gs[g, G_FLY_SHOWN] = 0
        if cfg[C_GRADUAL]:
            nid = RAT_CHANNEL if cfg[C_LEVEL] == LEVEL_STARTER else COLOUR_BLOCK
            _glimpse(
                g, p, nid, card, ev, post, fcfg[FC_SNR], fcfg[FC_SNR2], rng, slot, tape, cursor
            )
        return False
    # resolve: the wrong return a won card each; the one right alone wins the lot
    cards = not cfg[C_WIN]
    returned = 0
    for s in range(p):
        a = ss[g, s, S_ANSWER]
        if a != NO_ANSWER and a != correct and ss[g, s, S_WON] > 0:
            ss[g, s, S_WON] -= 1
            returned += 1
            if cards:
                out[g, s] -= 1.0
                running[g, s] -= 1.0
    event = False
    if right == 1:
        take = 1 + gs[g, G_JACKPOT] + returned
        ss[g, first, S_WON] += take
        gs[g, G_JACKPOT] = 0
        gs[g, G_DEALER] = first
        if cards:
            out[g, first] += take
            running[g, first] += take
        event = card >= FLY_CARD or SHOUT_FLY <= correct <= SHOUT_RAT
    else:
        gs[g, G_JACKPOT] += 1 + returned
    gs[g, G_CARD] = -1
    if gs[g, G_DECK_LEN] == 0:
        gs[g, G_PHASE] = PHASE_OVER
        if not cards:
            _win_rewards(g, p, ss, out, running)
        return True
    if event:
        gs[g, G_PHASE] = PHASE_RELOCATE
        gs[g, G_RELOCATOR] = first
        gs[g, G_STAGE] = 0
        gs[g, G_FLY_MOVED] = 0
        return False
    _deal(g, cfg, fcfg, gs, deck, ss, ev, post, etab, rng, slot, tape, cursor)
    return False


@njit(cache=True, inline="always")
def _external_acts(g, p, bots, gs, ss):
    """Some seat the caller plays acts now."""
    phase = gs[g, G_PHASE]
    if phase == PHASE_REACT:
        for s in range(p):  # noqa: SIM110 (a generator does not compile in numba)
            if ss[g, s, S_ANSWER] == NO_ANSWER and bots[g, s] < 0:
                return True
        return False
    if phase == PHASE_RELOCATE:
        return bots[g, gs[g, G_RELOCATOR]] < 0
    return False


@njit(cache=True, inline="always")
def _observe(g, cfg, fcfg, gs, deck, ss, post, rules_t, ftab, mtab, scratch, obs, mask,
             to_act):  # fmt: skip
    """Every seat's observation (the reference ``SeatObserver``), mask and turn."""
    p = cfg[C_P]
    phase = gs[g, G_PHASE]
    reacting = phase == PHASE_REACT
    relocating = phase == PHASE_RELOCATE
    t = gs[g, G_TICK]
    sh = gs[g, G_SHAKER]
    fl = gs[g, G_FLY]
    shown = not cfg[C_MEMORYLESS] or gs[g, G_FLY_SHOWN] != 0
    relocator = gs[g, G_RELOCATOR]
    dealer = gs[g, G_DEALER]
    level = cfg[C_LEVEL]
    jackpot = ftab[F_COUNT, gs[g, G_JACKPOT]]
    left = ftab[F_COUNT, gs[g, G_DECK_LEN]]
    w0 = O_PER_SEAT
    a0 = w0 + p
    d0 = a0 + p
    b0 = d0 + p
    record = cfg[C_RECORD]
    counted = cfg[C_BELIEFS] and cfg[C_PRIOR] == PRIOR_COUNT
    if record:
        u0 = b0
        r0 = u0 + NUM_CARD_KINDS
        b0 = r0 + NUM_RESPONSES
    if record or counted:  # the pieces, or the counted beliefs, read the record
        _record(g, gs, deck, ss, p, scratch)
    for s in range(p):
        if reacting:
            for k in range(COLOUR_BLOCK):
                obs[g, s, O_IDENTITY + k] = post[g, s, k]
            for k in range(NUM_COLOURS):
                obs[g, s, O_COLOUR + k] = post[g, s, COLOUR_BLOCK + k]
            obs[g, s, O_CARD_SHOWING] = 1.0
            obs[g, s, O_TICK_FRACTION] = ftab[F_TICK_FRACTION, t]
            obs[g, s, O_ELAPSED] = ftab[F_ELAPSED, t]
        else:
            for k in range(O_CARD_SHOWING + 1):
                obs[g, s, k] = 0.0
            obs[g, s, O_TICK_FRACTION] = 0.0
            obs[g, s, O_ELAPSED] = 0.0
        for k in range(NUM_FOODS):
            obs[g, s, O_SHAKER + k] = 1.0 if k == sh else 0.0
            obs[g, s, O_FLY + k] = 1.0 if shown and k == fl else 0.0
        obs[g, s, O_FLY_SHOWN] = 1.0 if shown else 0.0
        for k in range(3):
            obs[g, s, O_LEVEL + k] = 1.0 if k == level else 0.0
        obs[g, s, O_TICK_S] = fcfg[FC_TICK_S]
        obs[g, s, O_RELOCATION] = 1.0 if relocating else 0.0
        obs[g, s, O_I_RELOCATE] = 1.0 if relocating and relocator == s else 0.0
        obs[g, s, O_JACKPOT] = jackpot
        obs[g, s, O_CARDS_LEFT] = left
        obs[g, s, O_VARIANT] = 1.0 if cfg[C_VARIANT] else 0.0
        q = s
        for i in range(p):
            obs[g, s, w0 + i] = ftab[F_COUNT, ss[g, q, S_WON]]
            obs[g, s, a0 + i] = 1.0 if reacting and ss[g, q, S_ANSWER] != NO_ANSWER else 0.0
            obs[g, s, d0 + i] = 1.0 if q == dealer else 0.0
            q += 1
            if q == p:
                q = 0
        if record:
            for k in range(NUM_CARD_KINDS):
                obs[g, s, u0 + k] = scratch[SC_UNSEEN + k] / UNSEEN_SCALE
            for r in range(NUM_RESPONSES):
                obs[g, s, r0 + r] = scratch[SC_RULED + r]
        if cfg[C_BELIEFS]:
            if reacting and counted:
                # belief_prior="count": observe.counted_response_beliefs
                total = _belief_sums(
                    g, s, post, rules_t, sh, fl, level, scratch, scratch, SC_WEIGHT, True
                )
                for r in range(NUM_RESPONSES):
                    obs[g, s, b0 + r] = scratch[r] / total if total > 0.0 else 0.0
            elif reacting and cfg[C_PRIOR] == PRIOR_DECK:
                # belief_prior="deck": observe.joint_response_beliefs (the ideal bot's)
                total = _belief_sums(
                    g, s, post, rules_t, sh, fl, level, scratch, fcfg, FC_COLOUR_RATIO, False
                )
                for r in range(NUM_RESPONSES):
                    obs[g, s, b0 + r] = scratch[r] / total if total > 0.0 else 0.0
            elif reacting:
                # observe.answer_beliefs: float64 posteriors, sums in card order
                for r in range(NUM_RESPONSES):
                    scratch[r] = 0.0
                for f in range(NUM_FOODS):
                    pf = post[g, s, f]
                    for c in range(NUM_COLOURS):
                        card = f * NUM_COLOURS + c
                        r = rules_t[R_CORRECT, card, sh, fl]
                        scratch[r] += pf * post[g, s, COLOUR_BLOCK + c]
                scratch[rules_t[R_CORRECT, FLY_CARD, sh, fl]] += post[g, s, FLY_CHANNEL]
                if level != LEVEL_STARTER:
                    scratch[rules_t[R_CORRECT, RAT_CARD, sh, fl]] += post[g, s, RAT_CHANNEL]
                for r in range(NUM_RESPONSES):
                    obs[g, s, b0 + r] = scratch[r]
            else:
                for r in range(NUM_RESPONSES):
                    obs[g, s, b0 + r] = 0.0
        # the mask: wait or answer; the relocating winner's choices; else wait only
        if reacting and ss[g, s, S_ANSWER] == NO_ANSWER:
            row = M_REACT if t >= cfg[C_MIN_TICKS] else M_EARLY
        elif relocating and relocator == s:
            if not cfg[C_BOTH]:
                row = M_RELOCATE
            else:
                row = M_RELOCATE_FLY if gs[g, G_STAGE] == 0 else M_RELOCATE_SHAKER
        else:
            row = M_WAIT
        to_act[g, s] = row != M_WAIT
        for a in range(NUM_ACTIONS):
            mask[g, s, a] = mtab[row, a]


@njit(cache=True)
def _observe_over(g, cfg, fcfg, gs, deck, ss, post, rules_t, ftab, mtab, scratch, final,
                  final_mask, final_to_act):  # fmt: skip
    """A game that ended: every seat's observation of it to ``final`` (before it is reset;
    a call of its own, made only when a game ends)."""
    _observe(g, cfg, fcfg, gs, deck, ss, post, rules_t, ftab, mtab, scratch, final, final_mask,
             final_to_act)  # fmt: skip


@njit(cache=True)
def _run(mode, actions, active, bots, next_bots, cfg, fcfg, gs, deck, ss, ev, post, bst, etab,
         rules_t, level_resp, elapsed_ms, bot_f, ftab, mtab, base_deck, perm, scratch, rng,
         slot_of, tape, cursor, btape, bcursor, rewards, running, returns, terminated, obs,
         mask, to_act, final, final_mask, final_to_act):  # fmt: skip
    """Advance every game: in ``MODE_STEP`` one tick with the external seats' actions (where
    ``active``), then bot-only ticks until an external seat acts; ``MODE_RESET`` starts every
    game anew; ``MODE_BOTS`` only plays the bot-only ticks. A finished game leaves every
    seat's observation of its end in ``final`` and is reset (its players taken from
    ``next_bots``); its observation is the new game's first tick. Every array is borrowed
    (no reference counting: they were 30% of a tick); all are C-contiguous."""
    actions, active, bots = borrow(actions), borrow(active), borrow(bots)
    next_bots, cfg, fcfg, gs = borrow(next_bots), borrow(cfg), borrow(fcfg), borrow(gs)
    deck, ss, ev, post, bst = borrow(deck), borrow(ss), borrow(ev), borrow(post), borrow(bst)
    etab, rules_t, level_resp = borrow(etab), borrow(rules_t), borrow(level_resp)
    elapsed_ms, bot_f, ftab, mtab = borrow(elapsed_ms), borrow(bot_f), borrow(ftab), borrow(mtab)
    base_deck, perm, scratch, rng = borrow(base_deck), borrow(perm), borrow(scratch), borrow(rng)
    slot_of, tape, cursor, btape = borrow(slot_of), borrow(tape), borrow(cursor), borrow(btape)
    bcursor, rewards, running = borrow(bcursor), borrow(rewards), borrow(running)
    returns, terminated, obs, mask = borrow(returns), borrow(terminated), borrow(obs), borrow(mask)
    to_act, final = borrow(to_act), borrow(final)
    final_mask, final_to_act = borrow(final_mask), borrow(final_to_act)
    p = cfg[C_P]
    for g in range(actions.shape[0]):
        slot = slot_of[g]
        for s in range(p):
            rewards[g, s] = 0.0
        terminated[g] = False
        over = False
        if mode == MODE_RESET:
            _new_game(g, cfg, fcfg, gs, deck, ss, ev, post, etab, base_deck, perm, rng, slot,
                      tape, cursor, btape, bcursor, running, bots, next_bots, bst)  # fmt: skip
        # the external seats' tick, then the bots' ticks until an external seat acts (one
        # call site: _tick is inlined)
        ext = mode == MODE_STEP and active[g]
        while ext or not (over or _external_acts(g, p, bots, gs, ss)):
            over = _tick(g, ext, actions, bots, cfg, fcfg, gs, deck, ss, ev, post, bst, etab,
                         rules_t, level_resp, elapsed_ms, bot_f, scratch, rng, slot, tape,
                         cursor, btape, bcursor, rewards, running)  # fmt: skip
            ext = False
        for s in range(p):
            returns[g, s] = running[g, s]
        if over:
            terminated[g] = True
            _observe_over(g, cfg, fcfg, gs, deck, ss, post, rules_t, ftab, mtab, scratch,
                          final, final_mask, final_to_act)  # fmt: skip
            _new_game(g, cfg, fcfg, gs, deck, ss, ev, post, etab, base_deck, perm, rng, slot,
                      tape, cursor, btape, bcursor, running, bots, next_bots, bst)  # fmt: skip
        _observe(g, cfg, fcfg, gs, deck, ss, post, rules_t, ftab, mtab, scratch, obs, mask,
                 to_act)  # fmt: skip


@njit(cache=True)
def _first_illegal(mask, actions, bots, active):
    """The first (game, seat) whose external action the mask forbids, as ``g * p + s``."""
    p = actions.shape[1]
    n = mask.shape[2]
    for g in range(actions.shape[0]):
        if not active[g]:
            continue
        for s in range(p):
            if bots[g, s] >= 0:
                continue
            a = actions[g, s]
            if a < 0 or a >= n or mask[g, s, a] == 0:
                return g * p + s
    return -1


@njit(cache=True)
def _lean_run(address):
    """:func:`_run` for a tick of external actions, its arguments read from the lean table at
    ``address`` (see ``ratenvs.common.batched``, lean calls; the order of
    ``BatchedRattoZakko._kernel_arguments``): -1 when the tick was played, else the first
    (game, seat) whose action its mask forbids, as ``g * p + s`` (nothing moved)."""
    t = lean_open(address)
    i64, f32, f64 = np.int64, np.float32, np.float64
    actions, active, bots = lean_2d(t, 1, i64), lean_1d(t, 2, np.bool_), lean_2d(t, 3, i64)
    mask = lean_3d(t, 34, np.int8)
    k = _first_illegal(mask, actions, bots, active)
    if k >= 0:
        return k
    _run(lean_int(t, 0), actions, active, bots, lean_2d(t, 4, i64), lean_1d(t, 5, i64),
         lean_1d(t, 6, f64), lean_2d(t, 7, i64), lean_2d(t, 8, i64), lean_3d(t, 9, i64),
         lean_3d(t, 10, f64), lean_3d(t, 11, f64), lean_3d(t, 12, f64), lean_2d(t, 13, f64),
         lean_4d(t, 14, i64), lean_1d(t, 15, i64), lean_1d(t, 16, f64), lean_2d(t, 17, f64),
         lean_2d(t, 18, f32), lean_2d(t, 19, np.int8), lean_1d(t, 20, i64),
         lean_1d(t, 21, i64), lean_1d(t, 22, f64), lean_1d(t, 23, np.uint64),
         lean_1d(t, 24, i64), lean_2d(t, 25, f64), lean_1d(t, 26, i64), lean_2d(t, 27, f64),
         lean_1d(t, 28, i64), lean_2d(t, 29, f32), lean_2d(t, 30, f32), lean_2d(t, 31, f32),
         lean_1d(t, 32, np.bool_), lean_3d(t, 33, f32), mask, lean_2d(t, 35, np.bool_),
         lean_3d(t, 36, f32), lean_3d(t, 37, np.int8), lean_2d(t, 38, np.bool_))  # fmt: skip
    return -1


@njit(cache=True)
def _state_observation(cfg, fcfg, gs, deck, ss, post, ftab, offs, out):
    """The reference ``PrivilegedObserver`` of every game (the whole truth)."""
    p = cfg[C_P]
    (o_card, o_phase, o_shaker, o_fly, o_fly_shown, o_level, o_tick_fraction, o_elapsed,
     o_tick_s, o_stage, o_relocator, o_jackpot, o_cards_left, o_deck, o_variant, o_won,
     o_answers, o_answer_tick, o_dealer, o_post) = offs  # fmt: skip
    for g in range(out.shape[0]):
        for k in range(out.shape[1]):
            out[g, k] = 0.0
        phase = gs[g, G_PHASE]
        t = gs[g, G_TICK]
        if phase == PHASE_REACT:
            out[g, o_card + gs[g, G_CARD]] = 1.0
            out[g, o_tick_fraction] = ftab[F_TICK_FRACTION, t]
            out[g, o_elapsed] = ftab[F_ELAPSED, t]
            for s in range(p):
                a = ss[g, s, S_ANSWER]
                if a != NO_ANSWER:
                    out[g, o_answers + s * NUM_RESPONSES + a] = 1.0
                    out[g, o_answer_tick + s] = ftab[F_TICK_FRACTION, ss[g, s, S_TICK]]
                for k in range(COLOUR_BLOCK):
                    out[g, o_post + s * 12 + k] = post[g, s, k]
                for k in range(NUM_COLOURS):
                    out[g, o_post + s * 12 + COLOUR_BLOCK + k] = post[g, s, COLOUR_BLOCK + k]
        out[g, o_phase + phase] = 1.0
        out[g, o_shaker + gs[g, G_SHAKER]] = 1.0
        out[g, o_fly + gs[g, G_FLY]] = 1.0
        out[g, o_fly_shown] = 1.0 if gs[g, G_FLY_SHOWN] else 0.0
        out[g, o_level + cfg[C_LEVEL]] = 1.0
        out[g, o_tick_s] = fcfg[FC_TICK_S]
        if phase == PHASE_RELOCATE:
            out[g, o_stage] = gs[g, G_STAGE]
            out[g, o_relocator + gs[g, G_RELOCATOR]] = 1.0
        out[g, o_jackpot] = ftab[F_COUNT, gs[g, G_JACKPOT]]
        left = gs[g, G_DECK_LEN]
        out[g, o_cards_left] = ftab[F_COUNT, left]
        for i in range(left):
            out[g, o_deck + deck[g, i]] += 1.0
        for c in range(NUM_CARD_KINDS):
            out[g, o_deck + c] = ftab[F_COUNT, int(out[g, o_deck + c])]
        out[g, o_variant] = 1.0 if cfg[C_VARIANT] else 0.0
        for s in range(p):
            out[g, o_won + s] = ftab[F_COUNT, ss[g, s, S_WON]]
        out[g, o_dealer + gs[g, G_DEALER]] = 1.0


# ------------------------------------------------------------------ tables
def rule_tables(game: RattoZakko) -> np.ndarray:
    """``(3, 27, 5, 5)`` by (card, shaker, fly): the oracle's answer with the game's level and
    variant (a rat card at the starter level, never dealt there: 0), whether the card is a
    conflict card and its lure (:mod:`~ratenvs.ratto_zakko.reaction`), all computed by the
    reference functions."""
    t = np.zeros((3, NUM_CARD_KINDS, NUM_FOODS, NUM_FOODS), dtype=np.int64)
    level = game.level
    for card in range(NUM_CARD_KINDS):
        for sh in range(NUM_FOODS):
            for fl in range(NUM_FOODS):
                t[R_CONFLICT, card, sh, fl] = reaction.is_conflict(card, sh, fl, level)
                if card == RAT_CARD and level == "starter":
                    continue
                t[R_CORRECT, card, sh, fl] = correct_response_index(
                    card, sh, fl, level, game.fly_card_under_shaker
                )
                t[R_LURE, card, sh, fl] = reaction.lure_response(card, sh, fl, level)
    return t


def observation_values(game: RattoZakko) -> np.ndarray:
    """Every float32 value the time and count entries can take, computed as the reference
    observers compute them (row ``F_TICK_FRACTION``: tick / window; ``F_ELAPSED``: (tick + 1)
    * tick_ms / 1000; ``F_COUNT``: count / deck size)."""
    window = game.window_ticks
    total = float(game.total_cards)
    width = max(window, game.total_cards + 1)
    t = np.zeros((3, width), dtype=np.float32)
    t[F_TICK_FRACTION, :window] = [k / window for k in range(window)]
    t[F_ELAPSED, :window] = [(k + 1) * game.tick_ms / ob.MS_PER_S for k in range(window)]
    t[F_COUNT, : game.total_cards + 1] = [k / total for k in range(game.total_cards + 1)]
    return t


def human_parameters(game: RattoZakko) -> np.ndarray:
    """``bot_f``: per kernel bot, the human preset's sigma, tau, error rates and the mean
    reaction times (plain, conflict) at the game's level (zeros for the other bots)."""
    out = np.zeros((len(BOT_NAMES), 6))
    for b, name in HUMAN_PRESETS.items():
        m = reaction.PRESETS[name]
        out[b] = (
            m.sigma_ms,
            m.tau_ms,
            m.error_rate,
            m.conflict_error_rate,
            m.mean_rt_ms(game.level, False),
            m.mean_rt_ms(game.level, True),
        )
    return out


PRIVILEGED_PIECES = (
    "card", "phase", "shaker_on", "fly_under", "fly_shown", "level", "tick_fraction",
    "elapsed_s", "tick_s", "relocation_stage", "relocator", "jackpot", "cards_left", "deck",
    "fly_card_rat_variant", "cards_won", "answers", "answer_tick", "dealer", "posteriors",
)  # fmt: skip


class BatchedRattoZakko(BatchedGame):
    """``num_envs`` games of Ratto Zakko with the same options (see the module docstring);
    the options are :class:`~ratenvs.ratto_zakko.rules.RattoZakko`'s.

    A step is one tick of every game: ``step(actions)`` takes ``actions`` shaped
    ``(num_envs, num_players)``, one per seat. A seat that acts (``to_act``) gives an
    action of its mask; a live seat that does not act this tick (it answered already, or
    another seat relocates) must wait (action 0, the only one its mask allows, the
    reference's ``waiting_mask``); the entries of seats the kernel's bots play
    (``set_bots``) are ignored. Anything else is a ValueError naming the game and seat,
    raised before anything moves. After a step where every external seat has answered,
    the kernel plays the bots' ticks on until an external seat acts again (as
    ``SingleAgentEnv`` does); their rewards count in that step.

    The :class:`~ratenvs.common.batched.BatchStep` fields have these shapes:

    - ``observation``: ``(num_envs, num_players, observation_size)`` float32, every seat's
      observation (the observer of the ``observation`` option);
    - ``mask``: ``(num_envs, num_players, 25)`` int8, every seat's legal actions;
    - ``rewards``, ``returns``: ``(num_envs, num_players)`` float32;
    - ``terminated``: ``(num_envs,)`` bool (the game ended and was reset);
    - ``to_act``: ``(num_envs, num_players)`` bool, the seats that act this tick (kernel
      bots included).

    ``final_obs`` (:attr:`BatchedGame.final_obs`) holds every seat's observation of a game
    that ended (the terminal position: no card showing).
    """

    game_class = RattoZakko
    simultaneous = True
    bot_names = BOT_NAMES
    tape_per_step: ClassVar[int] = 2 * (5 + 14 * 8) + 60

    def _allocate(self) -> None:
        n, p = self.num_envs, self.num_players
        game = self.game
        assert self.observer.slices["cards_won"].start == O_PER_SEAT
        self.cfg = np.array(
            [
                p,
                LEVELS.index(game.level),
                game.window_ticks,
                game.perception == "gradual",
                game.memoryless,
                game.reward_mode == "win",
                game.relocation == "both",
                self.observer.with_beliefs,
                game.total_cards,
                game.fly_card_under_shaker == "rat",
                game.min_reaction_ticks,
                BELIEF_PRIORS.index(game.belief_prior),
                self.observer.public_record,
            ],
            dtype=np.int64,
        )
        snr = game.glimpse_snr
        ratio = ob.colour_prior(game.original_colour_cards).ravel() * NUM_COLOURS
        self.fcfg = np.concatenate(
            [[snr, snr * snr, game.tick_ms / ob.MS_PER_S], ratio, [1.0, 1.0]]
        )
        assert self.fcfg.size == FC_COLOUR_RATIO + NUM_CARD_KINDS
        self.gs = np.zeros((n, NUM_G), dtype=np.int64)
        self.deck = np.zeros((n, game.total_cards), dtype=np.int64)
        self.ss = np.zeros((n, p, 4), dtype=np.int64)
        self.evidence = np.zeros((n, p, NUM_EV))
        self.posterior = np.zeros((n, p, NUM_EV))
        self._bot_state = np.zeros((n, p, NUM_BOT_STATE))
        clear = [clear_evidence(c, 1, game.level) for c in range(NUM_CARD_KINDS)]
        self._etab = np.concatenate(
            [
                np.stack([ev[0].reshape(NUM_EV) for ev in clear]),
                np.stack([posteriors(ev)[0].reshape(NUM_EV) for ev in clear]),
                prior_evidence(1, game.level)[0].reshape(1, NUM_EV),
            ]
        )
        self._rules = rule_tables(game)
        self._level_resp = np.array(
            [RESPONSE_INDEX[r] for r in RESPONSES_AT_LEVEL[game.level]], dtype=np.int64
        )
        self._ftab = observation_values(game)
        elapsed = self._ftab[F_ELAPSED, : game.window_ticks]
        self._elapsed_ms = np.array([float(x) * reaction.MS_PER_S for x in elapsed.tolist()])
        self._bot_f = human_parameters(game)
        self._base_deck = np.array(build_deck(game.level, game.original_colour_cards))
        self._perm = np.zeros(game.total_cards, dtype=np.int64)
        self._scratch = np.zeros(SCRATCH_SIZE)
        self._mtab = MASKS
        self.obs = np.zeros((n, p, self.observation_size), dtype=np.float32)
        self.mask = np.zeros((n, p, NUM_ACTIONS), dtype=np.int8)
        self.to_act = np.zeros((n, p), dtype=np.bool_)
        self._final_mask = np.zeros_like(self.mask)  # (the masks of an ended game: waits)
        self._final_to_act = np.zeros_like(self.to_act)
        self._running = np.zeros((n, p), dtype=np.float32)
        self._all = np.ones(n, dtype=np.bool_)
        self._no_actions = np.zeros((n, p), dtype=np.int64)
        truth = game.observer("privileged")
        self._privileged_offsets = tuple(truth.slices[k].start for k in PRIVILEGED_PIECES)
        self.state_size = truth.size
        per_tick = 5 + NUM_EV * p if game.perception == "gradual" else 0
        self._per_tick = per_tick
        self.btape = np.zeros((len(self.log_games), 4096))
        self.bcursor = np.zeros(len(self.log_games), dtype=np.int64)

    # ------------------------------------------------------------ the doors
    lean_wrapper = _lean_run

    def step(
        self, actions: np.ndarray | Sequence[Sequence[int]], active: np.ndarray | None = None
    ) -> BatchStep:
        """Play one tick of every game (``active``: only those games; the others' actions
        are ignored); see the class docstring. The returned arrays are the engine's own
        buffers, overwritten by the next call: copy what you keep. An action array the
        engine has checked once (int64, C-contiguous, ``(num_envs, num_players)``), given
        again with ``active=None``, takes the lean call (:meth:`BatchedGame.step`)."""
        return BatchedGame.step(self, actions, active)

    def _checked_step(self, actions: Any, active: np.ndarray | None) -> BatchStep:
        given = np.asarray(actions)
        shape = (self.num_envs, self.num_players)
        if given.shape != shape or not np.issubdtype(given.dtype, np.integer):
            raise ValueError(
                f"actions must be integers of shape {shape}, one per game, one per seat; "
                f"got {given.dtype} of shape {given.shape}"
            )
        acts = np.ascontiguousarray(given, dtype=np.int64)  # the kernel borrows it
        lean = active is None and acts is actions
        if active is None:
            active = self._all
        else:
            active = np.asarray(active)
            if active.shape != (self.num_envs,) or active.dtype != np.bool_:
                raise ValueError(f"active must be {self.num_envs} bools (one per game)")
            active = np.ascontiguousarray(active)
        k = _first_illegal(self.mask, acts, self.bots, active)
        if k >= 0:
            self._illegal(k, given)
        self._grow_tape()
        self._step_games(acts, active)
        if lean:
            self._lean_register(acts)
        return self._result()

    def _illegal(self, code: int, given: np.ndarray) -> None:
        g, s = divmod(code, self.num_players)
        raise ValueError(
            f"illegal action {given[g, s]} in game {g} for seat {s} "
            f"({self.game.title}); legal: {np.flatnonzero(self.mask[g, s]).tolist()}"
        )

    def correct_responses(self) -> np.ndarray:
        """``(num_envs,)`` int64: the index (in ``rules.RESPONSES``) of the correct response
        to the card every game shows now, given where the shaker and the fly are; -1 where
        no card is showing (a relocation, or a game over). Nothing a seat sees: for
        training's wrong-answer penalty and for tests."""
        gs = self.gs
        card = gs[:, G_CARD]
        correct = self._rules[R_CORRECT, np.maximum(card, 0), gs[:, G_SHAKER], gs[:, G_FLY]]
        return np.where((gs[:, G_PHASE] == PHASE_REACT) & (card >= 0), correct, -1)

    def state_observation(self) -> np.ndarray:
        """``(num_envs, privileged_size)`` float32: every game's whole truth now, the
        reference ``privileged`` observer's vector (``env.state()``; a game that ended in the
        last step shows its successor)."""
        out = np.zeros((self.num_envs, self.state_size), dtype=np.float32)
        _state_observation(self.cfg, self.fcfg, self.gs, self.deck, self.ss, self.posterior,
                           self._ftab, self._privileged_offsets, out)  # fmt: skip
        return out

    def set_bots(self, bots: np.ndarray | Sequence[Sequence[int]]) -> None:
        """Which seats the kernel plays (see :meth:`BatchedGame.set_bots`); every kernel bot
        starts fresh, as a new reference bot would: a human-model bot that takes a seat
        during a card draws that card's randomness at its first decision, and every bot
        believes the fly is under the start cloche until its seat's observation shows it
        (in the memoryless mode, at the next card after the fly moved)."""
        fresh = self._bot_state[..., [S_KEY, S_FLY]].copy()
        self._bot_state[..., S_KEY] = -1.0
        self._bot_state[..., S_FLY] = START_FLY
        try:
            super().set_bots(bots)
        except ValueError:
            self._bot_state[..., [S_KEY, S_FLY]] = fresh
            raise

    def bot_logs(self, game: int) -> list[list[list[Any]]]:
        """Every draw the kernel's bots made in logged game ``game`` and every bot decision,
        one list per episode of ``[kind, ...]`` records: ``["normal", z]``,
        ``["exponential", e]`` (standard), ``["random", u]``, ``["integers", k, j]``
        (``j`` below ``k``) and ``["action", seat, a]``."""
        if game not in self.log_games:
            raise ValueError(f"game {game} is not logged; pass it in log_games")
        slot = self.log_games.index(game)
        return decode_bot_tape(self.btape[slot, : self.bcursor[slot]])

    # ------------------------------------------------------------ internals
    def _step_bound(self) -> tuple[int, int]:
        """Most numbers one step may write to a game's chance tape and bot tape."""
        ticks = 1 if (self.bots < 0).all() else self.game.window_ticks + 3
        p = self.num_players
        chance = (ticks + 2) * self._per_tick + self.game.total_cards + 4
        bots = (ticks + 2) * p * 14 + 2
        return chance, bots

    def _grow_tape(self) -> None:
        if not self.log_games:
            return
        chance, bots = self._step_bound()
        self.tape = grown(self.tape, int(self.cursor.max()) + chance)
        self.btape = grown(self.btape, int(self.bcursor.max()) + bots)

    def _kernel_arguments(self, mode: int, actions: np.ndarray, active: np.ndarray) -> list[Any]:
        """:func:`_run`'s arguments (the lean table's too, in this order)."""
        next_bots = getattr(self, "next_bots", self.bots)
        return [mode, actions, active, self.bots, next_bots, self.cfg, self.fcfg, self.gs,
                self.deck, self.ss, self.evidence, self.posterior, self._bot_state, self._etab,
                self._rules, self._level_resp, self._elapsed_ms, self._bot_f, self._ftab,
                self._mtab, self._base_deck, self._perm, self._scratch, self.rng,
                self.slot_of, self.tape, self.cursor, self.btape, self.bcursor, self.rewards,
                self._running, self.returns, self.terminated, self.obs, self.mask,
                self.to_act, self.final_obs, self._final_mask, self._final_to_act]  # fmt: skip

    def _kernel(self, mode: int, actions: np.ndarray, active: np.ndarray) -> None:
        _run(*self._kernel_arguments(mode, actions, active))

    def _lean_arguments(self, actions: np.ndarray) -> list[Any]:
        return self._kernel_arguments(MODE_STEP, actions, self._all)

    def _reset_games(self) -> None:
        self.btape = np.zeros((len(self.log_games), self.tape.shape[1]))
        self.bcursor = np.zeros(len(self.log_games), dtype=np.int64)
        self._grow_tape()
        self._kernel(MODE_RESET, self._no_actions, self._all)

    def _step_games(self, actions: np.ndarray, active: np.ndarray | None = None) -> None:
        self._kernel(MODE_STEP, actions, self._all if active is None else active)

    def _play_bots(self) -> None:
        self._grow_tape()
        self._kernel(MODE_BOTS, self._no_actions, self._all)


_BOT_KINDS = {BT_NORMAL: "normal", BT_EXPONENTIAL: "exponential", BT_RANDOM: "random"}


def decode_bot_tape(row: np.ndarray) -> list[list[list[Any]]]:
    """A logged game's bot tape as records, one list per episode (see ``bot_logs``)."""
    episodes: list[list[list[Any]]] = []
    i, n = 0, len(row)
    while i < n:
        kind = float(row[i])
        if kind == BT_EPISODE:
            episodes.append([])
            i += 1
            continue
        if not episodes:
            raise ValueError("a bot tape must start with an episode marker")
        if kind in _BOT_KINDS:
            episodes[-1].append([_BOT_KINDS[kind], float(row[i + 1])])
            i += 2
        elif kind == BT_INTEGERS:
            episodes[-1].append(["integers", int(row[i + 1]), int(row[i + 2])])
            i += 3
        elif kind == BT_ACTION:
            episodes[-1].append(["action", int(row[i + 1]), int(row[i + 2])])
            i += 3
        else:
            raise ValueError(f"corrupt bot tape: kind {kind} at {i}")
    return episodes


ENGINE = BatchedRattoZakko
"""The game's batched engine (``GameSpec.batched()``)."""
