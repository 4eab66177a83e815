"""``flat_observation_v0``: Box observations with the mask in the info dict, for Box-only
tools (SuperSuit's wrappers and vector envs), every game, AEC and parallel."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import parallel_seed_test
from pettingzoo.test import api_test, parallel_api_test

from ratenvs.games import GAMES
from ratenvs.wrappers.flat import flat_observation_v0

SPECS = list(GAMES.values())


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_flat_aec_is_the_same_game_with_the_mask_in_info(spec):
    module = spec.load()
    flat = flat_observation_v0(module.env(num_players=2))
    plain = module.env(num_players=2)
    rng = np.random.default_rng(0)
    steps = 0
    for seed in range(4):
        flat.reset(seed=seed)
        plain.reset(seed=seed)
        for agent in plain.agent_iter(max_iter=400):
            seen, reward, term, trunc, _info = plain.last()
            vec, reward2, term2, trunc2, info2 = flat.last()
            assert flat.agent_selection == agent
            assert flat.observation_space(agent).contains(vec)
            np.testing.assert_array_equal(vec, seen["observation"])
            np.testing.assert_array_equal(info2["action_mask"], seen["action_mask"])
            np.testing.assert_array_equal(flat.infos[agent]["action_mask"], seen["action_mask"])
            assert (reward2, term2, trunc2) == (reward, term, trunc)
            mask = seen["action_mask"]
            action = None if term or trunc else int(rng.choice(np.flatnonzero(mask)))
            plain.step(action)
            flat.step(action)
            steps += 1
    assert steps > 40


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_pettingzoo_api_tests_pass_on_the_flat_envs(spec):
    module = spec.load()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(flat_observation_v0(module.env(num_players=2)), num_cycles=40)
        parallel = flat_observation_v0(module.parallel_env(num_players=2))
        parallel.reset(seed=0)
        game, truth = parallel.unwrapped.game, parallel.unwrapped.truth
        if game.default_action(truth, game.to_act(truth)[0]) is None:
            # PettingZoo's parallel test samples unmasked actions unless the observation is
            # a dict with a mask; a turn-based game refuses them (IllegalActionError), so
            # its flat parallel env is played with the info masks in the SuperSuit test
            return
        parallel_api_test(parallel, num_cycles=40)
        parallel_seed_test(lambda: flat_observation_v0(module.parallel_env(num_players=2)))


def test_flat_refuses_what_it_cannot_flatten():
    with pytest.raises(TypeError, match="AEC or parallel env"):
        flat_observation_v0(object())


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_supersuit_vector_env_and_box_wrappers(spec):
    """SuperSuit's Box-only wrappers and its vector env take the flat parallel env; masked
    random play through the vector env's infos runs whole games."""
    ss = pytest.importorskip("supersuit")
    module = spec.load()
    env = flat_observation_v0(module.parallel_env(num_players=2))
    env = ss.dtype_v0(env, np.float32)  # a Box-only observation wrapper
    venv = ss.concat_vec_envs_v1(
        ss.pettingzoo_env_to_vec_env_v1(env), 2, num_cpus=0, base_class="gymnasium"
    )
    obs, infos = venv.reset(seed=0)
    size = env.observation_space(env.possible_agents[0]).shape[0]
    assert obs.shape == (venv.num_envs, size)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(600):
        masks = np.stack([info["action_mask"] for info in infos])
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
        obs, _rewards, terms, truncs, infos = venv.step(actions)
        assert obs.shape == (venv.num_envs, size) and np.isfinite(obs).all()
        ended += int(np.sum(terms | truncs))
    assert ended > 0
    venv.close()
