"""Human-model and scripted Ratto Zakko bots."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ratenvs import ratto_zakko_v0
from ratenvs.common.bots import Bot
from ratenvs.ratto_zakko import observe as ob
from ratenvs.ratto_zakko import rules
from ratenvs.ratto_zakko.bots import BOTS, get_bot
from ratenvs.ratto_zakko.reaction import PRESETS, is_conflict, lure_response

CARD = rules.CARD_NAMES.index
FOOD = rules.FOODS.index


def test_registry():
    assert set(BOTS) >= {"random", "child", "adult", "expert", "perfect"}
    for name in BOTS:
        assert isinstance(get_bot(name), Bot)
    with pytest.raises(ValueError, match="unknown bot"):
        get_bot("grandmaster")


def test_hick_hyman_means():
    adult = PRESETS["adult"]
    # a + b log2(N + 1): starter N = 7 -> 3 bits
    assert adult.mean_rt_ms("starter", False) == pytest.approx(220 + 150 * 3)
    assert adult.mean_rt_ms("main", False) == pytest.approx(220 + 150 * math.log2(13))
    assert adult.mean_rt_ms("dessert", False) == pytest.approx(220 + 150 * math.log2(14))
    assert adult.mean_rt_ms("main", True) - adult.mean_rt_ms("main", False) == 75
    for level in rules.LEVELS:
        means = [PRESETS[p].mean_rt_ms(level, False) for p in ("child", "adult", "expert")]
        assert means[0] > means[1] > means[2]
    for m in PRESETS.values():
        assert 190 <= m.simple_rt_ms <= 300
        assert 50 <= m.interference_ms <= 100
        assert m.conflict_error_rate > m.error_rate


def test_ex_gaussian_deviation_has_mean_zero_and_a_right_tail():
    rng = np.random.default_rng(0)
    model = PRESETS["adult"]
    dev = np.array([model.sample_deviation_ms(rng) for _ in range(20000)])
    assert abs(dev.mean()) < 3
    assert np.var(dev) == pytest.approx(model.sigma_ms**2 + model.tau_ms**2, rel=0.1)
    assert ((dev - dev.mean()) ** 3).mean() > 0  # positive skew: the exponential tail


@pytest.mark.parametrize(
    ("card", "shaker", "fly", "level", "conflict"),
    [
        ("apple/green", "cheese", "fish", "main", False),
        ("apple/red", "cheese", "fish", "main", True),  # foreign colour
        ("cheese/yellow", "cheese", "fish", "main", True),  # RAT overrides
        ("fish/blue", "cheese", "fish", "starter", True),  # FLY overrides
        ("egg/white", "cheese", "fish", "dessert", True),  # BANG rule
        ("fly", "cheese", "fish", "starter", True),
        ("rat", "cheese", "fish", "main", True),
    ],
)
def test_conflict_cards(card, shaker, fly, level, conflict):
    assert is_conflict(CARD(card), FOOD(shaker), FOOD(fly), level) is conflict


def test_lures_are_wrong_and_prepotent():
    idx = rules.RESPONSE_INDEX
    assert (
        lure_response(CARD("cheese/yellow"), FOOD("cheese"), FOOD("fish"), "main")
        == idx["grab:cheese"]
    )
    assert (
        lure_response(CARD("apple/red"), FOOD("cheese"), FOOD("fish"), "main") == idx["grab:chili"]
    )
    assert lure_response(CARD("rat"), FOOD("cheese"), FOOD("fish"), "main") == idx["shout:rat"]
    for card in range(rules.NUM_CARD_KINDS):
        for level in ("main", "dessert"):
            if is_conflict(card, 0, 3, level):
                lure = lure_response(card, 0, 3, level)
                assert lure != rules.correct_response_index(card, 0, 3, level)


def play(bot_names, seed=0, **options):
    env = ratto_zakko_v0.env(num_players=len(bot_names), **options)
    env.reset(seed=seed)
    bots = [BOTS[name]() for name in bot_names]
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, _r, term, trunc, _i = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.unwrapped.agent_name_mapping[agent]
        action = bots[seat].act(obs["observation"], obs["action_mask"], rng)
        assert obs["action_mask"][action], (bot_names[seat], action)
        env.step(action)
    return env.unwrapped.truth


@pytest.mark.parametrize("level", rules.LEVELS)
def test_bots_play_legal_games(level):
    state = play(["random", "child", "adult", "expert", "perfect"], seed=3, level=level)
    assert state.is_over and state.cards_accounted() == rules.deck_size(level)
    state = play(["adult", "expert"], seed=4, level=level, observation="memoryless")
    assert state.is_over


def test_the_perfect_bot_beats_the_humans_and_experts_beat_children():
    state = play(["perfect", "adult", "adult"], seed=1, level="main")
    counts = state.card_counts()
    assert counts[0] > max(counts[1:])
    state = play(["expert", "child"], seed=2, level="starter")
    assert state.card_counts()[0] > state.card_counts()[1]


def test_bots_are_reproducible_and_resample_per_card():
    raw = ratto_zakko_v0.raw_env(num_players=2, level="main")
    raw.reset(seed=0)
    obs = raw.observer.observe(raw.truth, 0)
    mask = raw.action_mask(raw.possible_agents[0])
    a = BOTS["adult"]()
    b = BOTS["adult"]()
    a.act(obs, mask, np.random.default_rng(9))
    b.act(obs, mask, np.random.default_rng(9))
    assert a._deviation_ms == b._deviation_ms
    first = a._deviation_ms
    a.act(obs, mask, np.random.default_rng(10))  # tick 0 again (e.g. after a reset): redraw
    assert a._deviation_ms != first
    raw.step(ob.ACTION_WAIT)
    raw.step(ob.ACTION_WAIT)
    kept = a._deviation_ms
    a.act(
        raw.observer.observe(raw.truth, 0),
        raw.action_mask(raw.possible_agents[0]),
        np.random.default_rng(11),
    )
    assert a._deviation_ms == kept  # tick 1 of the same card: no new draw
    for _ in range(1000):  # next card (after the 120-tick window): a new draw
        if raw.truth.cards_dealt > 1:
            break
        raw.step(ob.ACTION_WAIT)
    a.act(
        raw.observer.observe(raw.truth, 0),
        raw.action_mask(raw.possible_agents[0]),
        np.random.default_rng(12),
    )
    assert a._deviation_ms != kept


def test_bot_remembers_the_fly_in_memoryless_mode():
    raw = ratto_zakko_v0.raw_env(num_players=2, level="main", observation="memoryless")
    raw.reset(seed=0)
    bot = BOTS["perfect"]()
    rng = np.random.default_rng(0)
    raw.truth.fly_under = FOOD("egg")  # as if it had been moved there and shown
    bot.act(raw.observer.observe(raw.truth, 0), raw.action_mask(raw.possible_agents[0]), rng)
    assert bot._fly_memory == FOOD("egg")
    raw.step(ob.ACTION_WAIT)
    raw.step(ob.ACTION_WAIT)
    bot.act(raw.observer.observe(raw.truth, 0), raw.action_mask(raw.possible_agents[0]), rng)
    assert bot._fly_memory == FOOD("egg")  # hidden now, still remembered


def test_the_perfect_and_bayes_bots_refuse_settings_that_are_not_times_or_probabilities():
    from ratenvs.ratto_zakko.reaction import BayesBot, PerfectBot

    for certainty in (0.0, -0.5, 1.5, float("nan")):
        with pytest.raises(ValueError, match="certainty must be in"):
            PerfectBot(certainty=certainty)
        with pytest.raises(ValueError, match="certainty must be in"):
            BayesBot(certainty=certainty)
    for latency in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="latency_ms must be"):
            PerfectBot(latency_ms=latency)
    assert PerfectBot(latency_ms=0.0, certainty=1.0).certainty == 1.0
