"""The PettingZoo env: API, seeding, options, illegal actions, observations, rewards."""

import numpy as np
import pytest
from helpers import play_random
from pettingzoo.test import api_test, seed_test

from ratenvs import catz_ratz_batz_v0
from ratenvs.catz_ratz_batz import observe, rules
from ratenvs.common.aec import IllegalActionError


@pytest.mark.parametrize("num_players", [1, 2, 6])
@pytest.mark.parametrize("reward", ["score", "win"])
def test_pettingzoo_api_and_seed_tests(num_players, reward):
    api_test(catz_ratz_batz_v0.env(num_players=num_players, reward=reward), num_cycles=300)
    seed_test(lambda: catz_ratz_batz_v0.env(num_players=num_players, reward=reward), 200)


def test_race_variant_passes_the_api_test():
    api_test(catz_ratz_batz_v0.env(num_players=3, turns=None, target_score=80), num_cycles=300)


def _play(env, seed, choose):
    env.reset(seed=seed)
    trace = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        trace.append((agent, obs["observation"].tobytes(), reward))
        if term or trunc:
            env.step(None)
            continue
        env.step(choose(obs["action_mask"]))
    return trace


def test_same_seed_and_actions_give_the_same_game_byte_for_byte():
    first = lambda m: int(np.flatnonzero(m)[0])  # noqa: E731
    last = lambda m: int(np.flatnonzero(m)[-1])  # noqa: E731
    a = _play(catz_ratz_batz_v0.env(num_players=3), 42, first)
    b = _play(catz_ratz_batz_v0.env(num_players=3), 42, first)
    c = _play(catz_ratz_batz_v0.env(num_players=3), 43, first)
    d = _play(catz_ratz_batz_v0.env(num_players=3), 42, last)
    assert a == b
    assert a != c and a != d


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"num_players": 0}, "num_players"),
        ({"num_players": 7}, "num_players"),
        ({"num_players": 2.5}, "num_players"),
        ({"turns": -1}, "turns"),
        ({"turns": 0}, "turns"),
        ({"turns": None}, "turns"),
        ({"target_score": 0}, "target_score"),
        ({"reward": "points"}, "reward"),
        ({"render_mode": "rgb"}, "render_mode"),
    ],
)
def test_bad_options_raise_a_value_error_naming_the_option(kwargs, name):
    with pytest.raises(ValueError, match=name):
        catz_ratz_batz_v0.raw_env(**kwargs)


def test_unknown_option_is_an_error():
    with pytest.raises(TypeError, match="turn_limit"):
        catz_ratz_batz_v0.raw_env(turn_limit=3)


def test_raw_env_raises_on_an_illegal_action_and_keeps_the_game():
    env = catz_ratz_batz_v0.raw_env()
    env.reset(seed=0)
    before = env.game_state()
    with pytest.raises(IllegalActionError, match="legal actions: \\[3\\]"):
        env.step(0)  # must roll first
    with pytest.raises(ValueError):
        env.step(9)
    assert env.game_state() == before
    env.step(observe.ACTION_ROLL)


def test_env_terminates_the_game_and_penalises_the_illegal_mover():
    env = catz_ratz_batz_v0.env(num_players=2)
    env.reset(seed=0)
    env.step(1)  # keep the 5s before rolling: illegal
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 0.0}
    with pytest.raises(AssertionError, match="action space"):
        env2 = catz_ratz_batz_v0.env()
        env2.reset(seed=0)
        env2.step(17)


def test_env_requires_reset_first():
    env = catz_ratz_batz_v0.env()
    with pytest.raises(AttributeError, match="reset"):
        _ = env.agent_selection
    with pytest.raises(Exception, match="reset"):
        env.step(3)


def test_observation_layout_and_masks():
    env = catz_ratz_batz_v0.raw_env(num_players=3, turns=5)
    env.reset(seed=8)
    view = env.observer.views
    obs = env.observe("player_0")
    vec, mask = obs["observation"], obs["action_mask"]
    assert vec.shape == (8 + 4 * 3,) and vec.dtype == np.float32
    assert [p.name for p in env.observer.pieces] == [
        "set_aside",
        "showing",
        "phase",
        "totals",
        "turns_left",
        "to_act",
        "points_needed",
    ]
    assert mask.tolist() == [0, 0, 0, 1]
    assert env.observe("player_1")["action_mask"].tolist() == [0, 0, 0, 0]
    assert view(vec)["phase"].tolist() == [1, 0] and view(vec)["to_act"].tolist() == [1, 0, 0]
    assert np.allclose(view(vec)["turns_left"], 1.0)  # all turns left
    env.step(rules.ACTION_ROLL)
    while env.truth.phase != rules.PHASE_KEEP:
        env.reset(seed=int(env.np_random.integers(1000)))
        env.step(rules.ACTION_ROLL)
    vec = env.observe("player_0")["observation"]
    assert observe.dice_from_observation(vec) == env.truth.dice
    assert view(vec)["phase"].tolist() == [0, 1]
    mask = env.observe("player_0")["action_mask"]
    assert [k for a, k in enumerate(rules.NUMBERS) if mask[a]] == list(
        rules.numbers_showing(env.truth.dice)
    )
    # player_1 sees the same public dice, and that it is player_0's turn (offset 2 from it)
    other = env.observe("player_1")["observation"]
    assert np.array_equal(view(other)["showing"], view(vec)["showing"])
    assert view(other)["to_act"].tolist() == [0, 0, 1]


def _run(env, seed):
    env.reset(seed=seed)
    return play_random(env, np.random.default_rng(seed))


def test_score_rewards_add_up_to_the_totals():
    env = catz_ratz_batz_v0.raw_env(num_players=3, turns=6)
    for seed in range(5):
        rewards = _run(env, seed)
        assert [rewards[a] for a in env.possible_agents] == env.truth.totals


def test_win_rewards_are_zero_sum_and_go_to_the_highest_total():
    env = catz_ratz_batz_v0.raw_env(num_players=3, turns=3, reward="win")
    for seed in range(10):
        rewards = _run(env, seed)
        assert sum(rewards.values()) == pytest.approx(0.0)
        best = max(env.truth.totals)
        for a, t in zip(env.possible_agents, env.truth.totals):
            assert (rewards[a] > 0) == (t == best and env.truth.totals.count(best) < 3)


def test_render_ansi_shows_totals_and_dice():
    env = catz_ratz_batz_v0.env(num_players=2, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert "player_0: total" in text and "to roll" in text
