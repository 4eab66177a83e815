"""The gymnasium door: registered ids, checkers, masks, opponents and illegal actions."""

import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from helpers import needs_pettingzoo_registry, play_random_episode
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import ratenvs
from ratenvs.wrappers import SingleAgentEnv


def test_registered_gymnasium_id_passes_both_checkers():
    env = gymnasium.make("ratenvs/CatzRatzBatz-v0")
    check_env(env.unwrapped, skip_render_check=True)
    sb3_check_env(gymnasium.make("ratenvs/CatzRatzBatz-v0", num_players=3).unwrapped)
    assert env.unwrapped.aec.num_players == 1


def test_register_envs_and_module_prefixed_id_in_a_fresh_interpreter():
    gymnasium.register_envs(ratenvs)
    code = (
        "import gymnasium, sys\n"
        "assert 'ratenvs' not in sys.modules\n"
        "env = gymnasium.make('ratenvs:ratenvs/CatzRatzBatz-v0')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(obs.shape, info['action_mask'].tolist())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "(12,) [0, 0, 0, 1]"


@needs_pettingzoo_registry
def test_pettingzoo_make_with_the_registered_id():
    import pettingzoo

    env = pettingzoo.make("aec", "ratenvs/catz_ratz_batz-v0", num_players=4)
    env.reset(seed=0)
    assert env.agents == [f"player_{i}" for i in range(4)]


def test_episode_reward_is_the_learners_total_and_masks_match():
    env = SingleAgentEnv("catz_ratz_batz", num_players=2, opponents="lowest", turns=4)
    obs, info = env.reset(seed=3)
    total = 0.0
    rng = np.random.default_rng(0)
    done = False
    while not done:
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        obs, r, done, _trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert env.observation_space.contains(obs)
        total += r
    assert total == env.aec.truth.totals[0]


def test_seat_rotation_and_deterministic_reset():
    env = SingleAgentEnv("catz-ratz-batz", num_players=3, learner_seat="random")
    seats = {env.reset(seed=s)[1]["learner_seat"] for s in range(30)}
    assert seats == {0, 1, 2}
    a = env.reset(seed=5)[0]
    b = env.reset(seed=5)[0]
    assert np.array_equal(a, b)


def test_illegal_action_terminates_or_raises():
    env = SingleAgentEnv("catz_ratz_batz")
    env.reset(seed=0)
    _obs, r, term, _trunc, info = env.step(0)  # must roll first
    assert (r, term, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(3)
    strict = SingleAgentEnv("catz_ratz_batz", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action 0"):
        strict.step(0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"opponents": "genius", "num_players": 2}, "unknown opponent"),
        ({"opponents": ["random"], "num_players": 3}, "needs 2 entries"),
        ({"learner_seat": 4, "num_players": 2}, "learner_seat"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"num_players": 0}, "num_players"),
    ],
)
def test_bad_wrapper_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SingleAgentEnv("catz_ratz_batz", **kwargs)


def test_unknown_game():
    with pytest.raises(ValueError, match="unknown game"):
        SingleAgentEnv("monopoly")


def test_self_play_pool_callable_is_drawn_every_reset():
    from ratenvs.catz_ratz_batz.bots import BOTS

    drawn = []

    def pool(rng):
        name = ["lowest", "random"][int(rng.integers(2))]
        drawn.append(name)
        return [BOTS[name]()]

    env = SingleAgentEnv("catz_ratz_batz", num_players=2, opponents=pool)
    for s in range(10):
        env.reset(seed=s)
    assert len(drawn) == 10 and set(drawn) == {"lowest", "random"}


@pytest.mark.parametrize(("players", "seat"), [(2, 1), (4, 3), (4, "random")])
def test_reset_always_gives_the_learner_a_decision(players, seat):
    # race_end "turn": an opening bot reaching the target ends the game before the
    # learner decides; reset drops such games (counting them) and deals another
    options = {"num_players": players, "target_score": 40, "race_end": "turn", "reward": "win"}
    env = SingleAgentEnv("catz_ratz_batz", opponents="optimal", learner_seat=seat, **options)
    dropped = 0
    rng = np.random.default_rng(0)
    for s in range(120):
        obs, info = env.reset(seed=s)
        assert info["action_mask"].any() and env.observation_space.contains(obs)
        dropped += info.get("games_dropped", 0)
        play_random_episode(env, info, rng)
        assert env.unwrapped.aec.terminations[env.learner]
    assert dropped >= 5  # the case comes up
    again = SingleAgentEnv("catz_ratz_batz", opponents="optimal", learner_seat=seat, **options)
    for s in range(20):  # deterministic for a seed, the dropped games too
        a, b = env.reset(seed=s), again.reset(seed=s)
        assert np.array_equal(a[0], b[0]) and a[1].keys() == b[1].keys()


def test_a_numpy_integer_seat_and_opponents_without_seats_are_read():
    env = SingleAgentEnv("catz_ratz_batz", learner_seat=np.int64(1), num_players=2)
    assert env.reset(seed=0)[1]["learner_seat"] == 1 and type(env.learner_seat) is int
    with pytest.raises(ValueError, match=r"must be 0\.\.1 or 'random'"):
        SingleAgentEnv("catz_ratz_batz", learner_seat=np.bool_(True), num_players=2)
    with pytest.raises(ValueError, match="unknown opponent 'foo' for catz_ratz_batz"):
        SingleAgentEnv("catz_ratz_batz", opponents="foo", num_players=1)
