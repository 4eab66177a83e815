"""The Ratto Zakko env: PettingZoo/gymnasium conformance, AEC == parallel, options, modes."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from helpers import needs_pettingzoo_registry, parallel_seed_test, play_random, random_action, turns
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, parallel_api_test, seed_test

import ratenvs  # noqa: F401  (registers the ids)
from ratenvs import ratto_zakko_v0
from ratenvs.common.aec import IllegalActionError
from ratenvs.ratto_zakko import observe as ob
from ratenvs.ratto_zakko import rules

LEVELS = rules.LEVELS
SMALL = {"window_ticks": 6}
"""A short reaction window keeps the PettingZoo checks fast (a game is long in ticks)."""


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("n", [2, 4, 8])
def test_pettingzoo_api_and_seed(n, level):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(ratto_zakko_v0.env(num_players=n, level=level, **SMALL), num_cycles=60)
        parallel_api_test(
            ratto_zakko_v0.parallel_env(num_players=n, level=level, **SMALL), num_cycles=400
        )
        seed_test(lambda: ratto_zakko_v0.env(num_players=n, level=level, **SMALL), num_cycles=60)
        parallel_seed_test(
            lambda: ratto_zakko_v0.parallel_env(num_players=n, level=level, **SMALL),
            num_cycles=60,
        )


@needs_pettingzoo_registry
def test_pettingzoo_ids():
    import pettingzoo

    e = pettingzoo.make("aec", "ratenvs/ratto_zakko-v0")
    e.reset(seed=0)
    assert e.num_agents == 4
    p = pettingzoo.make("parallel", "ratenvs/ratto_zakko-v0")
    obs, _ = p.reset(seed=0)
    assert set(obs) == set(p.possible_agents)


def test_gymnasium_check_env():
    from gymnasium.utils.env_checker import check_env

    e = gymnasium.make("ratenvs/RattoZakko-v0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(e.unwrapped, skip_render_check=True)
    obs, info = e.reset(seed=3)
    assert e.unwrapped.aec.num_players == 4
    assert [b.name for b in e.unwrapped._bots] == ["adult"] * 3
    assert obs.shape == (ob.observation_size(4),)
    done, steps = False, 0
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        obs, _r, term, trunc, info = e.step(int(legal[0]))  # always wait: the adults play
        done = term or trunc
        steps += 1
    assert e.unwrapped.aec.truth.is_over
    assert sum(e.unwrapped.aec.truth.card_counts()[1:]) > 0


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("num_players", 1),
        ("num_players", 9),
        ("num_players", 2.5),
        ("level", "lunch"),
        ("tick_ms", 0),
        ("tick_ms", 1001),  # "any 1 - 1000 ms"
        ("window_ticks", 0),
        ("window_ticks", 10001),  # "any 1 - 10000"
        ("perception", "blurry"),
        ("observation", "psychic"),
        ("reward", "points"),
        ("render_mode", "rgb"),
        ("original_colour_cards", 3),
        ("fly_card_under_shaker", "swat"),
        ("relocation", "all"),
    ],
)
def test_bad_options_name_the_option(option, value):
    for make in (ratto_zakko_v0.raw_env, ratto_zakko_v0.parallel_env):
        with pytest.raises(ValueError, match=option):
            make(**{option: value})


# ------------------------------------------------------------ AEC == parallel
def play_both(seed: int, n: int, level: str, **options) -> int:
    """Drive the AEC and the parallel form with the same actions; compare them every tick."""
    aec = ratto_zakko_v0.raw_env(num_players=n, level=level, **options)
    par = ratto_zakko_v0.parallel_env(num_players=n, level=level, **options)
    aec.reset(seed=seed)
    obs, _ = par.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals_aec = np.zeros(n)
    totals_par = np.zeros(n)
    steps = 0
    while par.agents:
        # choose every seat's action from the parallel masks (waiting is likely: 50%)
        actions = {}
        for a in par.agents:
            legal = np.flatnonzero(obs[a]["action_mask"])
            actions[a] = int(legal[0] if rng.random() < 0.5 else rng.choice(legal))
        # the AEC form: the seats asked this tick, in seat order, see the same observation
        for _ in range(len(aec.truth.to_act())):
            agent = aec.agent_selection
            o = aec.observe(agent)
            np.testing.assert_array_equal(o["observation"], obs[agent]["observation"])
            np.testing.assert_array_equal(o["action_mask"], obs[agent]["action_mask"])
            aec.step(actions[agent])
            totals_aec += [aec.rewards[a] for a in aec.possible_agents]
        obs, rewards, terms, _truncs, _ = par.step(actions)
        totals_par += [rewards[a] for a in par.possible_agents]
        assert aec.game_state() == par.game_state()
        assert all(terms.values()) == aec.truth.is_over
        steps += 1
    np.testing.assert_allclose(totals_aec, totals_par)
    return steps


@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.sampled_from([2, 3, 5, 8]),
    level=st.sampled_from(LEVELS),
    perception=st.sampled_from(["gradual", "clear"]),
    relocation=st.sampled_from(["one", "both"]),
    fly_rule=st.sampled_from(["grab", "rat"]),
)
def test_aec_and_parallel_give_identical_games(seed, n, level, perception, relocation, fly_rule):
    steps = play_both(
        seed,
        n,
        level,
        perception=perception,
        window_ticks=10,
        relocation=relocation,
        fly_card_under_shaker=fly_rule,
    )
    assert steps > rules.deck_size(level) - 1


def test_parallel_treats_illegal_actions_as_wait():
    par = ratto_zakko_v0.parallel_env(num_players=2, level="main")
    par.reset(seed=5)
    # relocation actions during the reaction phase are illegal: they count as waiting
    par.step({a: ob.ACTION_RELOCATE_FIRST for a in par.agents})
    assert par.truth.tick == 1 and par.truth.answer == [rules.NO_ANSWER] * 2
    par.step({"player_0": 999, "player_1": None})
    assert par.truth.tick == 2
    # a seat that already answered can only wait
    par.step({"player_0": ob.ACTION_RESPONSE_FIRST + rules.BANG})  # never right at main
    assert par.truth.tick == 3 and par.truth.answer[0] == rules.BANG
    par.step({"player_0": ob.ACTION_RESPONSE_FIRST})
    assert par.truth.answer[0] == rules.BANG and par.truth.answer_tick[0] == 2


def test_parallel_relocation_defaults_to_leave_both():
    par = ratto_zakko_v0.parallel_env(num_players=2, level="main", perception="clear")
    obs, _ = par.reset(seed=0)
    for _ in range(500):
        s = par.truth
        if s.phase == rules.PHASE_RELOCATE:
            shaker, fly = s.shaker_on, s.fly_under
            mask = obs[f"player_{s.relocator}"]["action_mask"]
            assert (
                mask[ob.ACTION_RELOCATE_FIRST :].all()
                and not mask[: ob.ACTION_RELOCATE_FIRST].any()
            )
            par.step({a: ob.ACTION_WAIT for a in par.agents})  # illegal for the winner
            assert (par.truth.shaker_on, par.truth.fly_under) == (shaker, fly)
            return
        right = rules.correct_response_index(s.card, s.shaker_on, s.fly_under, par.game.level)
        obs, *_ = par.step({"player_0": ob.ACTION_RESPONSE_FIRST + right})
    pytest.fail("no fly or rat event in 500 cards")


def test_raw_env_raises_and_env_terminates_on_illegal_actions():
    raw = ratto_zakko_v0.raw_env(num_players=2)
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError):
        raw.step(ob.ACTION_RELOCATE_FIRST)
    wrapped = ratto_zakko_v0.env(num_players=2)
    wrapped.reset(seed=0)
    agent = wrapped.agent_selection
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(ob.ACTION_RELOCATE_FIRST)
    assert wrapped.rewards[agent] == -1
    assert all(wrapped.terminations.values())


# ------------------------------------------------------------ games, rewards, modes
def random_game(env, rng, check=None) -> int:
    steps = 0
    for agent, obs, _r, done in turns(env):
        if done:
            continue
        assert obs["action_mask"].any()
        env.step(random_action(obs, rng))
        steps += 1
        if check is not None:
            check(env.unwrapped, agent)
    return steps


@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, 8),
    level=st.sampled_from(LEVELS),
    window=st.integers(1, 30),
)
def test_cards_are_conserved_and_games_terminate(seed, n, level, window):
    env = ratto_zakko_v0.env(num_players=n, level=level, window_ticks=window)
    env.reset(seed=seed)
    total = rules.deck_size(level)
    answered: dict[int, set[int]] = {}

    def check(raw, agent):
        s = raw.truth
        assert s.cards_accounted() == total
        # one answer per player per card: answers never change once given
        if s.phase == rules.PHASE_REACT:
            key = s.cards_dealt
            given = {i for i, a in enumerate(s.answer) if a != rules.NO_ANSWER}
            assert given >= answered.get(key, set())
            answered[key] = given
            assert set(s.to_act()).isdisjoint(given)

    steps = random_game(env, np.random.default_rng(seed), check)
    raw = env.unwrapped
    assert raw.truth.is_over
    assert raw.truth.cards_dealt == total
    # each card takes at most window ticks of n decisions, plus one relocation
    assert steps <= total * (window * n + 1)


def test_cards_reward_sums_to_the_cards_won():
    env = ratto_zakko_v0.env(num_players=4, level="main")
    env.reset(seed=11)
    totals = play_random(env, np.random.default_rng(0))
    counts = env.unwrapped.truth.card_counts()
    assert [totals[a] for a in env.possible_agents] == pytest.approx(counts)


def test_win_reward_is_zero_sum_at_the_end():
    env = ratto_zakko_v0.env(num_players=3, reward="win")
    env.reset(seed=2)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    rng = np.random.default_rng(0)
    for agent, obs, r, done in turns(env):
        totals[agent] += r
        if not done:
            assert r == 0.0
            env.step(random_action(obs, rng))
    assert sum(totals.values()) == pytest.approx(0.0)
    winners = env.unwrapped.truth.winners()
    for a, won in zip(env.possible_agents, winners):
        assert (totals[a] > 0) == (won and not all(winners))


def test_memoryless_mode_hides_the_fly_except_when_it_moves():
    raw = ratto_zakko_v0.raw_env(num_players=2, level="main", observation="memoryless")
    raw.reset(seed=4)
    s = raw.truth
    o = raw.observer.observe(raw.truth, 0)
    assert o[ob.FLY_SHOWN] == 1 and o[ob.FLY_SLICE].argmax() == s.fly_under  # game start
    raw.step(ob.ACTION_WAIT)
    raw.step(ob.ACTION_WAIT)  # tick 1: hidden
    assert s.tick == 1
    o = raw.observer.observe(raw.truth, 0)
    assert o[ob.FLY_SHOWN] == 0 and not o[ob.FLY_SLICE].any()
    assert o[ob.SHAKER_SLICE].argmax() == s.shaker_on  # the shaker is visible on the table
    knowledge = ratto_zakko_v0.raw_env(num_players=2, level="main")
    knowledge.reset(seed=4)
    knowledge.step(ob.ACTION_WAIT)
    knowledge.step(ob.ACTION_WAIT)
    assert (
        knowledge.observer.observe(knowledge.truth, 0)[ob.FLY_SLICE].argmax()
        == knowledge.truth.fly_under
    )
    # win cards until a fly or rat event; the winner moves the fly; it is shown once
    s = _win_cards_until_a_relocation(raw, winner=0)
    target = (s.fly_under + 1) % rules.NUM_FOODS
    raw.step(ob.ACTION_RELOCATE_FIRST + rules.RELOCATE_FLY_FIRST + target)
    for seat in (0, 1):
        o = raw.observer.observe(raw.truth, seat)
        assert o[ob.FLY_SHOWN] == 1 and o[ob.FLY_SLICE].argmax() == target
    raw.step(ob.ACTION_WAIT)
    raw.step(ob.ACTION_WAIT)
    assert not raw.observer.observe(raw.truth, 1)[ob.FLY_SLICE].any()


def _win_cards_until_a_relocation(raw, winner: int):
    """Seat ``winner`` answers every card right, the others wait, until a fly or rat event
    asks the winner to relocate; returns that state."""
    for _ in range(2000):
        s = raw.truth
        if s.phase == rules.PHASE_RELOCATE:
            return s
        seat = raw.agent_name_mapping[raw.agent_selection]
        right = rules.correct_response_index(s.card, s.shaker_on, s.fly_under, raw.game.level)
        raw.step(ob.ACTION_RESPONSE_FIRST + right if seat == winner else ob.ACTION_WAIT)
    pytest.fail("no fly or rat event")


def test_the_relocation_mask_does_not_reveal_the_fly():
    raw = ratto_zakko_v0.raw_env(num_players=2, level="main", observation="memoryless")
    raw.reset(seed=8)
    s = _win_cards_until_a_relocation(raw, winner=1)
    mask = raw.action_mask(raw.possible_agents[s.relocator])
    assert mask[ob.ACTION_RELOCATE_FIRST :].all()


def test_observation_contents():
    raw = ratto_zakko_v0.raw_env(num_players=3, level="dessert", perception="clear", tick_ms=40)
    raw.reset(seed=1)
    s = raw.truth
    o = raw.observer.observe(raw.truth, 1)
    card = s.card
    assert raw.observation_space("player_1")["observation"].contains(o)
    assert o[ob.IDENTITY_SLICE].argmax() == rules.CARD_IDENTITY[card]
    assert o[ob.IDENTITY_SLICE].max() == pytest.approx(1.0)
    assert o[ob.LEVEL_SLICE].tolist() == [0, 0, 1]
    assert o[ob.ELAPSED_S] == pytest.approx(0.04) and o[ob.TICK_S] == pytest.approx(0.04)
    assert o[ob.CARDS_LEFT] == pytest.approx(53 / 54)
    # seat 0 answers wrongly at tick 0; from tick 1 everyone sees it answered
    wrong = (rules.correct_response_index(card, s.shaker_on, s.fly_under, raw.game.level) + 1) % 13
    raw.step(ob.ACTION_RESPONSE_FIRST + wrong)
    o_same_tick = raw.observer.observe(raw.truth, 1)
    assert not o_same_tick[ob.PER_SEAT + 3 : ob.PER_SEAT + 6].any()  # simultaneous
    raw.step(ob.ACTION_WAIT)
    raw.step(ob.ACTION_WAIT)
    assert s.tick == 1
    o = raw.observer.observe(raw.truth, 1)
    n = 3
    answered = o[ob.PER_SEAT + n : ob.PER_SEAT + 2 * n]
    assert answered.tolist() == [0, 0, 1]  # own first: seat 1, seat 2, seat 0
    assert o[ob.PER_SEAT + 2 * n :].tolist() == [0, 0, 1]  # dealer seat 0
    assert o[ob.TICK_FRACTION] == pytest.approx(1 / 120)
    assert raw.agent_selection == "player_1"  # seat 0 answered: not asked again


@pytest.mark.parametrize("fly_rule", ["grab", "rat"])
def test_rule_variants_reach_the_env_and_the_bots(fly_rule):
    from ratenvs.ratto_zakko.bots import BOTS
    from ratenvs.ratto_zakko.reaction import IdleBot

    raw = ratto_zakko_v0.raw_env(
        num_players=2,
        level="main",
        perception="clear",
        fly_card_under_shaker=fly_rule,
        relocation="both",
        original_colour_cards=8,
    )
    raw.reset(seed=3)
    assert raw.observer.observe(raw.truth, 0)[ob.FLY_CARD_RAT_VARIANT] == (fly_rule == "rat")
    assert all(rules.CARD_COLOUR[c] in (-1, rules.CARD_IDENTITY[c]) for c in raw.truth.deck)
    players = [BOTS["perfect"](), IdleBot()]
    rng = np.random.default_rng(0)
    results = []
    for agent, obs, _r, done in turns(raw):
        if done:
            continue
        seat = raw.agent_name_mapping[agent]
        previous = raw.truth.last_result
        s = raw.truth
        if s.phase == rules.PHASE_REACT and s.card == rules.FLY_CARD:
            # make every fly card a fly under the shaker, the case the variant is about
            s.shaker_on = s.fly_under
        raw.step(players[seat].act(obs["observation"], obs["action_mask"], rng))
        if raw.truth.last_result is not previous:
            results.append(raw.truth.last_result)
    fly_cards = [r for r in results if r.card == rules.FLY_CARD]
    assert fly_cards
    want = rules.SHOUT_RAT if fly_rule == "rat" else None
    for r in fly_cards:
        assert r.winner == 0
        if want is not None:
            assert r.correct == want
    assert all(r.winner == 0 for r in results)  # the perfect bot follows the variant


def test_render_and_game_state():
    import json

    raw = ratto_zakko_v0.raw_env(num_players=2, render_mode="ansi")
    raw.reset(seed=0)
    text = raw.render()
    assert "shaker on cheese" in text and "fly under fish" in text
    json.dumps(raw.game_state())
    par = ratto_zakko_v0.parallel_env(num_players=2, render_mode="ansi")
    par.reset(seed=0)
    assert "card" in par.render()


def test_gymnasium_id_is_reproducible_across_resets():
    e = gymnasium.make("ratenvs/RattoZakko-v0", level="main")

    def run() -> list[float]:
        obs, info = e.reset(seed=21)
        trace = [float(obs.sum())]
        for _ in range(150):
            legal = np.flatnonzero(info["action_mask"])
            obs, r, term, trunc, info = e.step(int(legal[0]))
            trace += [float(obs.sum()), r]
            if term or trunc:
                break
        return trace

    assert run() == run()
