"""The batched Ratto Zakko engine plays the reference game exactly, and its doors behave.

- Replays: batches of logged games played at random, replayed game by game through the
  reference ``RattoZakko`` from the engine's own chance logs (``ChanceReplay``), checking
  every seat's observation, mask and turn, the rewards and terminations after every tick;
  counters show that jackpots, relocations, ties, late answers, window ends and every kind
  of answer happened (the proof is not vacuous): the proof of every ``test_options`` set
  plays as many games as it takes for each to happen 50 times.
- Tolerance: the posterior pieces (``identity``, ``colour``, ``answer_beliefs`` and the
  privileged ``posteriors``) come from ``exp``, the C library's in the kernel and numpy's
  (SVML on AVX-512) in the reference, which differ in the last bit of about one float64 in
  twenty. Those entries are compared within 1e-6 (about 8 float32 ulps at 1.0; a float64
  ulp difference can move a float32 by one ulp at most, 6e-8), everything else exactly;
  the replays count the entries that were not bit-identical and allow at most one in a
  million (none so far).
- Kernel bots: replayed in their seats with the reference bots fed the kernel bots' logged
  draws, every decision must be the reference bot's (the deterministic part, exactly); the
  draws themselves and the human-model bots' behaviour (answer ticks, correct answers)
  against the reference bots with their own generators, within stated statistical bounds.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from batched_helpers import (
    CHUNK_FINISHED,
    CHUNK_GAMES,
    FLOOR,
    SAME_GAMES_STEPS,
    assert_same_games,
    play_logged_simultaneous,
    replay_simultaneous,
    replay_until_floors,
)

from ratenvs.common.batched import RandomActions
from ratenvs.common.options import UnknownOptionError
from ratenvs.games import GAMES
from ratenvs.ratto_zakko.batched import BOT_NAMES, BatchedRattoZakko
from ratenvs.ratto_zakko.bots import BOTS
from ratenvs.ratto_zakko.rules import (
    ACTION_RELOCATE_FIRST,
    ACTION_RESPONSE_FIRST,
    ACTION_WAIT,
    BANG,
    LEAVE_BOTH,
    NO_ANSWER,
    PHASE_RELOCATE,
    RattoZakko,
    correct_response_index,
)

SPEC = GAMES["ratto_zakko"]
INEXACT_SHARE = 1e-6
"""Most continuous entries per compared entry that may differ in the last bits."""


def _label(options):
    return ",".join(f"{k}={v}" for k, v in options.items()) or "defaults"


def _check_inexact(stats, trace):
    compared = stats["positions"] * trace.engine.num_players * trace.engine.observation_size
    assert stats["inexact"] <= INEXACT_SHARE * compared, stats["inexact"]


# ------------------------------------------------------------------ the replay proof
EVENTS = (
    "finished",
    "jackpot",
    "jackpot_taken",
    "relocations",
    "returned",
    "late_cards",
    "answer:grab",
    "answer:shout",
    "answer:bang",
    "won_by:grab",
    "won_by:shout",
    "tie",
)
"""What the replay proof must have seen :data:`~test_batched.FLOOR` times (counted by the
replay): finished games, cards left in the jackpot and jackpots taken, relocations, cards
returned, answers after a card's first tick, every kind of answer given and winning, ties
(and, at the dessert level, cards won by a bang)."""


def _replayed(trace) -> Counter:
    """Replay a chunk; its counters (the continuous entries checked within tolerance)."""
    stats = replay_simultaneous(trace)
    _check_inexact(stats, trace)
    return stats


@pytest.mark.parametrize("options", SPEC.test_options, ids=[_label(o) for o in SPEC.test_options])
def test_replayed_through_the_reference_game(options):
    """Chunks of fresh batches played at random and replayed (every tick of every game, the
    unfinished last ones too) until each of :data:`EVENTS` has happened FLOOR times."""
    game = RattoZakko(**options)
    floors = dict.fromkeys(EVENTS, FLOOR)
    if game.level == "dessert":
        floors["won_by:bang"] = FLOOR

    def play(k):
        return play_logged_simultaneous(
            BatchedRattoZakko, CHUNK_GAMES, 6000, 7 + 10 * k, finished=CHUNK_FINISHED, **options
        )

    stats = replay_until_floors(play, _replayed, floors)
    # the cards of the finished games resolved (total_cards - 1 each)
    assert stats["cards"] >= stats["finished"] * (game.total_cards - 1), stats


EXTRA_OPTIONS = (
    # short windows that run out, ties, eight seats, the variants, counted beliefs at dessert
    (
        {
            "num_players": 8,
            "level": "dessert",
            "window_ticks": 3,
            "tick_ms": 40,
            "fly_card_under_shaker": "rat",
            "original_colour_cards": 0,
            "answer_beliefs": True,
            "belief_prior": "deck",  # the deck's beliefs without the record's pieces
        },
        0.7,
    ),
    # the public record and the counted beliefs
    (
        {
            "num_players": 4,
            "level": "dessert",
            "public_record": True,
            "answer_beliefs": True,
            "belief_prior": "count",
        },
        0.5,
    ),
    # long cards: posteriors over many glimpses (waits of 90%), another tick length
    ({"num_players": 3, "level": "main", "window_ticks": 40, "tick_ms": 10}, 0.9),
    (
        {
            "num_players": 2,
            "original_colour_cards": 8,
            "perception": "clear",
            "relocation": "both",
            "reward": "win",
            "observation": "memoryless",
        },
        0.0,
    ),
)


@pytest.mark.parametrize(
    ("options", "wait"), EXTRA_OPTIONS, ids=[_label(o) for o, _ in EXTRA_OPTIONS]
)
def test_replayed_with_the_other_options(options, wait):
    trace = play_logged_simultaneous(BatchedRattoZakko, 40, 200, 3, wait=wait, **options)
    stats = replay_simultaneous(trace)
    _check_inexact(stats, trace)
    if options.get("window_ticks") == 3:
        assert stats["window_ends"] >= 1000 and stats["tie"] >= 30, stats
    if options.get("window_ticks") == 40:
        assert stats["late_cards"] >= 400 and stats["window_ends"] >= 10, stats
    else:
        assert stats["cards"] >= 2000, stats
    if options.get("reward") == "win":
        assert stats["finished"] >= 100, stats


@pytest.mark.parametrize(
    "options",
    [SPEC.test_options[3], {"num_players": 3, "level": "dessert", "answer_beliefs": True}],
    ids=["memoryless", "dessert"],
)
def test_state_observation_is_the_privileged_observer(options):
    trace = play_logged_simultaneous(BatchedRattoZakko, 40, 120, 5, keep_states=True, **options)
    assert trace.states[0].shape == (40, trace.engine.game.observer("privileged").size)
    assert trace.states[0].dtype == np.float32
    stats = replay_simultaneous(trace)
    assert stats["positions"] == 40 * 121 and stats["relocations"] >= 100
    # the correct response (training's wrong-answer penalty) was checked at every card
    assert stats["correct_responses"] >= 40 * 60


# ------------------------------------------------------------------ kernel bots
BOT_SEATINGS = (
    # one human-model bot against a random seat: the bot answers (nearly) every card
    ({"num_players": 2}, {1: "child"}, (1,)),
    ({"num_players": 3, "level": "main", "observation": "memoryless", "relocation": "both"},
     {1: "adult", 2: "random"}, (1, 2)),
    ({"num_players": 3, "level": "dessert", "perception": "clear", "answer_beliefs": True,
      "fly_card_under_shaker": "rat"}, {0: "expert", 2: "random"}, (0, 2)),
    # every kind at one table (the order of their draws); the ideal observer wins most cards
    ({"num_players": 5, "level": "main"}, {1: "bayes", 2: "child", 3: "perfect", 4: "random"},
     (1, 3, 4)),
    # the true ideal observer: the deck's colour prior of each original_colour_cards, against
    # bayes and itself; dessert (where the colour matters) and starter (no rat cards)
    ({"num_players": 3, "level": "dessert"}, {1: "ideal", 2: "bayes"}, (1, 2)),
    ({"num_players": 3, "level": "dessert", "original_colour_cards": 0,
      "fly_card_under_shaker": "rat"}, {0: "ideal", 2: "ideal"}, (0, 2)),
    ({"num_players": 4, "level": "dessert", "original_colour_cards": 8,
      "observation": "memoryless"}, {1: "ideal", 2: "bayes", 3: "random"}, (1, 3)),
    ({"num_players": 3, "level": "starter", "original_colour_cards": 0},
     {1: "ideal", 2: "ideal"}, (1, 2)),
    # the card counter (public_record): the random seat's wrong answers are ruled out
    ({"num_players": 4, "level": "dessert", "public_record": True, "answer_beliefs": True,
      "belief_prior": "count"}, {1: "ideal", 2: "random", 3: "bayes"}, (1, 2, 3)),
    # the racer (the counting ideal observer at 50%) against the ideal and a random seat
    ({"num_players": 4, "level": "dessert"}, {0: "racer", 1: "ideal", 3: "random"}, (0, 1, 3)),
    ({"num_players": 4, "level": "main", "public_record": True, "observation": "memoryless",
      "original_colour_cards": 8}, {0: "ideal", 2: "random", 3: "ideal"}, (0, 2, 3)),
)  # fmt: skip
"""Options, seat -> kernel bot, and the seats that must have answered hundreds of times."""


@pytest.mark.parametrize(
    ("options", "seats", "busy"),
    BOT_SEATINGS,
    ids=[
        "child",
        "adult",
        "expert",
        "all",
        "ideal",
        "ideal-0",
        "ideal-8",
        "ideal-starter",
        "ideal-counting",
        "racer",
        "ideal-counting-memoryless",
    ],
)
def test_kernel_bots_decide_as_the_reference_bots(options, seats, busy):
    """Seats played inside the kernel: the replay gives the reference bots the kernel bots'
    draws; every decision (wait, answer, relocation) must be the same, and the game too."""
    trace = play_logged_simultaneous(BatchedRattoZakko, 12, 80, 11, bots=seats, **options)
    stats = replay_simultaneous(trace, bots={s: BOTS[name] for s, name in seats.items()})
    assert stats["bot_decisions"] >= 5000 and stats["relocations"] >= 50, stats
    for seat in busy:
        assert stats[f"bot_actions:{seat}"] >= 150, (seats[seat], stats)


FLOOR_SEATINGS = (
    # the human-fair floor: the fast bots answer at once when it lifts
    ({"num_players": 5, "level": "dessert", "min_reaction_ticks": 7},
     {0: "bayes", 1: "perfect", 2: "ideal", 3: "random"}),
    # a floor of 500 ms, inside the human models' reaction times (the expert's mean is 571 ms)
    ({"num_players": 4, "level": "main", "min_reaction_ticks": 19},
     {0: "expert", 1: "child", 3: "random"}),
)  # fmt: skip


@pytest.mark.parametrize(("options", "seats"), FLOOR_SEATINGS, ids=["fast", "human"])
def test_kernel_bots_honour_the_latency_floor(options, seats):
    """``min_reaction_ticks``: every kernel bot waits until the floor (the human models still
    draw their lots at the card's first tick), as the reference bots do with a wait-only
    mask; the reference game refuses any earlier answer, so the replay proves none came."""
    trace = play_logged_simultaneous(BatchedRattoZakko, 12, 400, 11, bots=seats, **options)
    stats = replay_simultaneous(trace, bots={s: BOTS[name] for s, name in seats.items()})
    assert stats["bot_decisions"] >= 10_000, stats
    for seat in seats:
        assert stats[f"bot_actions:{seat}"] >= 10, (seats[seat], stats)


def test_a_bot_that_takes_a_seat_during_a_card_draws_at_once():
    """As a new reference bot: its first decision, at any tick, draws the card's randomness."""
    engine = BatchedRattoZakko(4, seed=2, log_games=range(4), num_players=2)
    for _ in range(3):
        engine.step(np.zeros((4, 2), dtype=np.int64))  # everybody waits: tick 3
    table = np.full((4, 2), engine.EXTERNAL)
    table[:, 1] = engine.bot_index("adult")
    engine.set_bots(table)
    engine.step(np.zeros((4, 2), dtype=np.int64))
    for g in range(4):
        kinds = [r[0] for r in engine.bot_logs(g)[0]]
        assert kinds == ["normal", "exponential", "random", "random", "random", "action"]


SEATED_DURING_THE_GAME = (
    ({"num_players": 4, "level": "main", "observation": "memoryless"},
     {1: "perfect", 2: "ideal", 3: "adult"}),
    ({"num_players": 3, "level": "dessert", "perception": "clear", "observation": "memoryless",
      "relocation": "both"}, {0: "bayes", 2: "expert"}),
)  # fmt: skip


@pytest.mark.parametrize(("options", "seats"), SEATED_DURING_THE_GAME, ids=["main", "dessert"])
def test_bots_seated_during_a_game_know_only_what_their_seat_saw(options, seats):
    """Memoryless: bots seated with ``set_bots`` in the middle of games (after the fly has
    moved, during cards whose first tick, the only one showing the fly, is past) decide as
    fresh reference bots fed the same observations: they believe the fly under the start
    cloche until their seat sees it moved (the truth would leak hidden information)."""
    trace = play_logged_simultaneous(
        BatchedRattoZakko, 40, 300, 19, bots=seats, wait=0.8, seat_at=80, **options
    )
    stats = replay_simultaneous(trace, bots={s: BOTS[n] for s, n in seats.items()}, seated_at=80)
    assert stats["bot_decisions"] >= 3000, stats
    # the proof is not vacuous: many decisions with the fly elsewhere than the bot believes
    assert stats["bot_decisions_fly_unseen"] >= 300, stats


def test_bot_names_are_the_reference_bots():
    assert tuple(BOTS) == BOT_NAMES


def _ks_distance(sample, cdf):
    x = np.sort(np.asarray(sample))
    n = x.size
    f = np.array([cdf(v) for v in x.tolist()])
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


KS_ALPHA = 1e-4
KS_C = math.sqrt(-math.log(KS_ALPHA / 2) / 2)
"""Kolmogorov-Smirnov: reject at 1e-4 when the distance exceeds KS_C / sqrt(n) (or
KS_C * sqrt((n + m) / (n m)) for two samples); a false alarm once in ten thousand runs."""


def test_kernel_bot_draws_are_distributed_as_asked():
    """The kernel bots' own draws (from their logs): standard normals, standard
    exponentials and uniforms (Kolmogorov-Smirnov), integers uniform below their bound."""
    trace = play_logged_simultaneous(
        BatchedRattoZakko, 24, 100, 13, bots={1: "child", 2: "random"}, num_players=3
    )
    kinds = {"normal": [], "exponential": [], "random": [], "integers": []}
    for g in range(24):
        for episode in trace.engine.bot_logs(g):
            for record in episode:
                if record[0] in kinds:
                    kinds[record[0]].append(record[1:] if record[0] == "integers" else record[1])
    normal = lambda v: 0.5 * (1 + math.erf(v / math.sqrt(2)))  # noqa: E731
    for kind, cdf in (
        ("normal", normal),
        ("exponential", lambda v: 1 - math.exp(-v)),
        ("random", lambda v: v),
    ):
        sample = kinds[kind]
        assert len(sample) >= 500
        assert _ks_distance(sample, cdf) < KS_C / math.sqrt(len(sample)), kind
    draws = np.array(kinds["integers"])
    for bound in np.unique(draws[:, 0]):
        values = draws[draws[:, 0] == bound, 1]
        counts = np.bincount(values, minlength=bound)
        assert counts.size == bound and values.size >= 40 * bound, bound
        chi2 = ((counts - values.size / bound) ** 2 / (values.size / bound)).sum()
        # chi-square with bound - 1 degrees of freedom: mean k, sd sqrt(2k); 6 sd is far out
        assert chi2 < bound - 1 + 6 * math.sqrt(2 * (bound - 1)), (bound, counts)


def test_the_glimpses_and_shuffles_are_distributed_as_asked():
    """The game's draws (the chance tape): the glimpse normals (Kolmogorov-Smirnov, and the
    padding channels 0.0), uniform shuffles (the first card dealt, chi-square)."""
    engine = BatchedRattoZakko(400, seed=17, log_games=range(400), num_players=2)
    picker = RandomActions(800, seed=18)
    batch = engine.reset()
    for _ in range(20):
        batch = engine.step(picker.pick(batch.mask.reshape(-1, 25)).reshape(400, 2))
    normals, first = [], []
    for g in range(400):
        draws = engine.chance_logs(g)[0]
        assert draws[0][0] == "permutation"
        first.append(draws[0][1][-1])  # the deck is dealt from the end
        for kind, value in draws[1:]:
            assert kind == "standard_normal"
            values = np.asarray(value)
            assert values.shape == (2, 2, 7)
            assert np.all(values[:, 0, 6] == 0.0) and np.all(values[:, 1, 5:] == 0.0)
            normals.extend(values[:, 0, :6].ravel().tolist() + values[:, 1, :5].ravel().tolist())
    assert len(normals) >= 50_000
    normal = lambda v: 0.5 * (1 + math.erf(v / math.sqrt(2)))  # noqa: E731
    assert _ks_distance(normals, normal) < KS_C / math.sqrt(len(normals))
    counts = np.bincount(first, minlength=47)
    chi2 = ((counts - 400 / 47) ** 2 / (400 / 47)).sum()
    assert chi2 < 46 + 6 * math.sqrt(2 * 46), counts


# ------------------------------------------- human-model bots: behaviour in distribution
def _reference_answers(name, level, cards, seed):
    """(answer tick, correct) of the reference bot ``name`` in seat 1 of a 2-seat game over
    ``cards`` cards; seat 0 waits until the bot has answered, then bangs (never correct
    below dessert), so the bot's answer decides every card."""
    game = RattoZakko(num_players=2, level=level)
    observer = game.observer("knowledge")
    bot = BOTS[name]()
    bot.bind(observer)
    rng = np.random.default_rng(seed)
    out = []
    state = game.init(rng)
    while len(out) < cards:
        if game.is_terminal(state):
            state = game.init(rng)
        actions = {}
        if state.phase == PHASE_RELOCATE:
            seat = state.relocator
            if seat == 1:
                actions[1] = bot.act(observer.observe(state, 1), game.legal_mask(state, 1), rng)
            else:
                actions[0] = ACTION_RELOCATE_FIRST + LEAVE_BOTH
        else:
            if state.answer[1] == NO_ANSWER:
                a = bot.act(observer.observe(state, 1), game.legal_mask(state, 1), rng)
                actions[1] = a
                if a != ACTION_WAIT:
                    out.append((state.tick, a - ACTION_RESPONSE_FIRST == game.correct(state)))
            if state.answer[0] == NO_ANSWER:
                answered = state.answer[1] != NO_ANSWER
                actions[0] = ACTION_RESPONSE_FIRST + BANG if answered else ACTION_WAIT
        game.apply(state, actions, rng)
    return out


def _kernel_answers(name, level, num_envs, steps, seed):
    """The same experiment with the kernel's bot in seat 1 of every game (seat 0 external):
    the bot's decisions from its log, the card showing from ``state_observation``."""
    engine = BatchedRattoZakko(num_envs, seed=seed, log_games=range(num_envs), num_players=2,
                               level=level)  # fmt: skip
    table = np.full((num_envs, 2), engine.EXTERNAL)
    table[:, 1] = engine.bot_index(name)
    engine.set_bots(table)
    truth = engine.game.observer("privileged")
    knowledge = engine.observer
    answered_at = knowledge.slices["answered"].start + 1  # seat 1 from seat 0's view
    batch = engine.reset()
    situations = [[] for _ in range(num_envs)]
    for _ in range(steps):
        views = truth.views(engine.state_observation())
        card = views["card"].argmax(axis=1)
        shaker = views["shaker_on"].argmax(axis=1)
        fly = views["fly_under"].argmax(axis=1)
        tick = np.rint(views["tick_fraction"][:, 0] * engine.game.window_ticks).astype(int)
        for g in np.flatnonzero(batch.to_act[:, 1] & (batch.mask[:, 1, 1] == 1)):
            situations[g].append((int(tick[g]), int(card[g]), int(shaker[g]), int(fly[g])))
        actions = np.zeros((num_envs, 2), dtype=np.int64)
        bang = batch.mask[:, 0, 1] & (batch.observation[:, 0, answered_at] == 1.0)
        actions[bang.astype(bool), 0] = ACTION_RESPONSE_FIRST + BANG
        relocating = batch.mask[:, 0, ACTION_RELOCATE_FIRST] == 1
        actions[relocating, 0] = ACTION_RELOCATE_FIRST + LEAVE_BOTH
        batch = engine.step(actions)
    out = []
    for g in range(num_envs):
        decisions = [
            r[2] for ep in engine.bot_logs(g) for r in ep if r[0] == "action" and r[2] < 14
        ]
        for (t, card, shaker, fly), a in zip(situations[g], decisions):
            if a != ACTION_WAIT:
                want = correct_response_index(card, shaker, fly, level)
                out.append((t, a - ACTION_RESPONSE_FIRST == want))
    return out


@pytest.mark.parametrize(("name", "level"), [("child", "starter"), ("adult", "main"),
                                             ("expert", "starter")])  # fmt: skip
def test_human_bots_behave_as_the_reference_bots(name, level):
    """Answer ticks and correct answers of the kernel's human-model bot against the
    reference bot (its own generator) over many cards: the same mean answer tick and
    correct-answer rate within 4.5 standard errors, the answer-tick distributions within
    the two-sample Kolmogorov-Smirnov bound at 1e-4."""
    ref = np.array(_reference_answers(name, level, 700, 23), dtype=float)
    mine = np.array(_kernel_answers(name, level, 256, 400, 29), dtype=float)
    assert len(mine) >= 2500
    for column in (0, 1):
        a, b = ref[:, column], mine[:, column]
        se = math.sqrt(a.var() / a.size + b.var() / b.size)
        assert abs(a.mean() - b.mean()) < 4.5 * se, (name, column, a.mean(), b.mean(), se)
    ticks_ref, ticks = np.sort(ref[:, 0]), np.sort(mine[:, 0])
    grid = np.union1d(ticks_ref, ticks)
    d = np.max(
        np.abs(
            np.searchsorted(ticks_ref, grid, side="right") / ticks_ref.size
            - np.searchsorted(ticks, grid, side="right") / ticks.size
        )
    )
    assert d < KS_C * math.sqrt((ticks_ref.size + ticks.size) / (ticks_ref.size * ticks.size))
    # the model is not trivial: answers spread over several ticks, some wrong
    assert ticks.std() > 1.0 and 0.02 < 1 - mine[:, 1].mean() < 0.4


# ------------------------------------------------------------------ the doors
def test_shapes_and_a_step():
    engine = BatchedRattoZakko(6, seed=1, num_players=3, answer_beliefs=True)
    batch = engine.reset()
    size = engine.game.observer("knowledge").size
    assert batch.observation.shape == (6, 3, size) and batch.observation.dtype == np.float32
    assert batch.mask.shape == (6, 3, 25) and batch.mask.dtype == np.int8
    assert batch.to_act.shape == (6, 3) and batch.to_act.dtype == np.bool_ and batch.to_act.all()
    assert batch.rewards.shape == (6, 3) and batch.terminated.shape == (6,)
    assert engine.state_observation().shape == (6, engine.game.observer("privileged").size)
    batch = engine.step(np.zeros((6, 3), dtype=np.int64))  # everybody waits
    assert not batch.terminated.any() and batch.to_act.all()
    assert np.all(batch.observation[:, :, engine.observer.slices["tick_fraction"]] > 0)


def test_a_game_does_not_depend_on_the_batch_size_and_seeds_repeat():
    """Games 0-2 of a batch of 3 and of 50 (the same generators, the pickers seeded alike):
    the same games at every tick, every seat, across their new deals (each of them ends
    in the ticks played), and the same chance outcomes; a seed repeats its games."""
    ticks = SAME_GAMES_STEPS
    small = play_logged_simultaneous(BatchedRattoZakko, 3, ticks, 11)
    again = play_logged_simultaneous(BatchedRattoZakko, 3, ticks, 11)
    large = play_logged_simultaneous(BatchedRattoZakko, 50, ticks, 11)
    assert_same_games(small, large, 3)
    assert_same_games(small, again, 3)
    assert np.array(small.terminated)[:, :3].any(axis=0).all()  # every compared game ended
    other = play_logged_simultaneous(BatchedRattoZakko, 3, ticks, 12)
    assert other.engine.chance_logs(0) != small.engine.chance_logs(0)


def _snapshot(engine):
    return [
        a.copy()
        for a in (engine.obs, engine.mask, engine.to_act, engine.rng, engine.gs, engine.ss,
                  engine.evidence, engine.cursor, engine.bcursor, engine.state_observation())
    ]  # fmt: skip


def test_bad_input_is_a_clear_error_and_loses_nothing():
    with pytest.raises(ValueError, match="num_envs"):
        BatchedRattoZakko(0)
    with pytest.raises(TypeError, match="num_envs"):
        BatchedRattoZakko(2.5)
    with pytest.raises(UnknownOptionError, match="no_such_option"):
        BatchedRattoZakko(4, no_such_option=1)
    with pytest.raises(ValueError, match="log_games"):
        BatchedRattoZakko(4, log_games=[4])
    with pytest.raises(ValueError, match="num_players"):
        BatchedRattoZakko(4, num_players=9)
    with pytest.raises(ValueError, match="answer_beliefs"):
        BatchedRattoZakko(4, observation="memoryless", answer_beliefs=True)
    engine = BatchedRattoZakko(8, seed=3, log_games=[0, 5], num_players=3, relocation="both")
    table = np.full((8, 3), engine.EXTERNAL)
    table[:, 2] = engine.bot_index("adult")
    engine.set_bots(table)
    picker = RandomActions(24, seed=4)
    batch = engine.reset()
    # play until some game has a seat that may only wait and another game relocates
    for _ in range(200):
        waiting = batch.mask[:, :2, 0].astype(bool) & ~batch.to_act[:, :2]
        if waiting.any() and (batch.mask[:, :2, ACTION_RELOCATE_FIRST] == 1).any():
            break
        batch = engine.step(picker.pick(batch.mask.reshape(-1, 25)).reshape(8, 3))
    else:
        pytest.fail("no position with a waiting seat and a relocation")
    before = _snapshot(engine)
    good = picker.pick(batch.mask.reshape(-1, 25)).reshape(8, 3).copy()
    good[:, 2] = 99  # the bot seat's entries are ignored
    g, s = map(int, np.argwhere(waiting)[0])
    bad = good.copy()
    bad[g, s] = ACTION_RESPONSE_FIRST  # a seat that may only wait answers
    with pytest.raises(ValueError, match=rf"illegal action 1 in game {g} for seat {s}"):
        engine.step(bad)
    rg, rs = map(int, np.argwhere(batch.mask[:, :2, ACTION_RELOCATE_FIRST] == 1)[0])
    bad = good.copy()
    bad[rg, rs] = ACTION_RESPONSE_FIRST  # the relocating winner answers a card
    with pytest.raises(ValueError, match=rf"in game {rg} for seat {rs}"):
        engine.step(bad)
    for value in (-1, 25):
        bad = good.copy()
        bad[0, 0] = value
        with pytest.raises(ValueError, match="illegal action"):
            engine.step(bad)
    with pytest.raises(ValueError, match="one per seat"):
        engine.step(good[:, :2])
    with pytest.raises(ValueError, match="one per seat"):
        engine.step(good.ravel())
    with pytest.raises(ValueError, match="one per seat"):
        engine.step(good.astype(float))
    with pytest.raises(ValueError, match="active"):
        engine.step(good, active=np.ones(3, dtype=bool))
    with pytest.raises(ValueError, match="not logged"):
        engine.bot_logs(1)
    with pytest.raises(ValueError, match="external"):
        engine.set_bots(np.zeros((8, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="shape"):
        engine.set_bots(np.zeros((3, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="no batched bot"):
        engine.bot_index("nobody")
    for got, want in zip(_snapshot(engine), before):
        np.testing.assert_array_equal(got, want)
    engine.step(good)  # the legal step still works


def test_inactive_games_do_not_move():
    engine = BatchedRattoZakko(4, seed=8, num_players=2)
    batch = engine.reset()
    before = engine.state_observation()
    active = np.array([True, False, True, False])
    actions = np.zeros((4, 2), dtype=np.int64)
    actions[:, 0] = ACTION_RESPONSE_FIRST  # grab the apple
    batch = engine.step(actions, active=active)
    after = engine.state_observation()
    np.testing.assert_array_equal(after[~active], before[~active])
    assert not np.array_equal(after[active], before[active])
    assert not batch.rewards[~active].any()
