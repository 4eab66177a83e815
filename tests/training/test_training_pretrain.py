"""The warm start (training/pretrain.py): a teacher bot's games, behaviour cloning, the
config section and the card entry."""

from __future__ import annotations

import json

import numpy as np
import pytest

from training.config import ConfigError, config_from_dict
from training.pretrain import behaviour_clone, collect
from training.train import train


def catz_config(**extra):
    data = {
        "game": "catz_ratz_batz",
        "env_options": {"num_players": 1, "turns": 3},
        "n_envs": 2,
        "timesteps": 64,
        "algorithm": {"n_steps": 32, "batch_size": 32, "n_epochs": 1, "net_arch": [64, 64]},
        "eval": {"every": 32, "games": 2, "final_games": 2},
        "logging": {"progress_bar": False},
    }
    data.update(extra)
    return config_from_dict(data)


@pytest.mark.parametrize(
    ("section", "key"),
    [
        ({"teacher": "grandmaster"}, "pretrain.teacher"),
        ({"teacher": "optimal", "games": 0}, "pretrain.games"),
        ({"teacher": "optimal", "epochs": "many"}, "pretrain.epochs"),
        ({"teacher": "optimal", "learning_rate": 0.0}, "pretrain.learning_rate"),
        ({"teacher": "optimal", "gamez": 3}, "pretrain.gamez"),
    ],
)
def test_bad_pretrain_sections_name_the_key(section, key):
    with pytest.raises(ConfigError, match=key):
        catz_config(pretrain=section)


def test_the_teacher_plays_the_learner_seat_and_returns_are_discounted():
    cfg = catz_config(algorithm={"gamma": 0.5, "batch_size": 32, "n_steps": 32})
    data = collect(cfg, "optimal", games=3, seed=0)
    n = len(data.actions)
    assert data.observations.shape[0] == data.masks.shape[0] == data.returns.shape[0] == n
    assert data.masks[np.arange(n), data.actions].all()  # every teacher action was legal
    # replay the first game: the env's rewards, discounted backwards, give the returns
    from training.selfplay import make_env

    env = make_env(cfg, monitor=False)
    env.reset(seed=0)
    rewards, i, done = [], 0, False
    while not done:
        _, r, term, trunc, _ = env.step(int(data.actions[i]))
        rewards.append(r)
        i += 1
        done = term or trunc
    expected = sum(r * 0.5**t for t, r in enumerate(rewards))
    assert data.returns[0] == pytest.approx(expected, rel=1e-5)
    assert data.episodes == 3


def test_behaviour_cloning_learns_the_optimal_catz_policy():
    """The optimal Catz policy is a function of the observation: cloning it from 40 games
    gets almost every decision right, and the policy then scores near the optimum."""
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.checkpoint import PolicyBot, PolicySpec
    from training.games.catz_ratz_batz import exact_grade as catz_exact
    from training.selfplay import make_env
    from training.train import policy_kwargs

    cfg = catz_config()
    venv = DummyVecEnv([lambda: make_env(cfg, monitor=False)])
    spec = PolicySpec(venv.observation_space.shape[0], venv.action_space.n, (64, 64), "tanh")
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs=policy_kwargs(spec), seed=0)
    untrained = catz_exact(PolicyBot(model.policy.state_dict(), spec), {"num_players": 1})
    data = collect(cfg, "optimal", games=40, seed=0)
    fit = behaviour_clone(
        model.policy, data, epochs=30, batch_size=64, learning_rate=3e-3, vf_coef=0.5, seed=0
    )
    assert fit["agreement"] >= 0.9
    cloned = catz_exact(PolicyBot(model.policy.state_dict(), spec), {"num_players": 1})
    assert cloned["ratio_to_optimal"] > max(0.95, untrained["ratio_to_optimal"] + 0.1)


def test_the_card_records_the_warm_start(tmp_path):
    cfg = catz_config(pretrain={"teacher": "optimal", "games": 5, "epochs": 2})
    final = train(cfg, tmp_path, config_name="pretrain")
    card = json.loads(final.with_suffix(".json").read_text())
    pre = card["pretrain"]
    assert pre["teacher"] == "optimal" and pre["games"] == 5 and pre["decisions"] > 5
    assert 0.0 <= pre["agreement"] <= 1.0
    assert card["config"]["pretrain"]["teacher"] == "optimal"
    import csv

    with (tmp_path / "eval.csv").open() as fh:
        first = next(csv.DictReader(fh))
    assert int(first["timesteps"]) <= cfg.n_envs  # the warm start, before PPO's first update


def test_the_wrong_answer_penalty_costs_exactly_the_wrong_answers():
    from ratenvs.ratto_zakko import rules
    from ratenvs.ratto_zakko.observe import ACTION_RESPONSE_FIRST
    from training.selfplay import make_env

    def config(penalty):
        return config_from_dict(
            {
                "game": "ratto_zakko",
                "env_options": {"num_players": 2, "level": "main"},
                "opponents": ["adult"],
                "reward_shaping": {"wrong_answers": {"penalty": penalty}} if penalty else {},
            }
        )

    with pytest.raises(ConfigError, match=r"reward_shaping\.wrong_answers: catz_ratz_batz"):
        catz_config(reward_shaping={"wrong_answers": {"penalty": 1.0}})
    with pytest.raises(ConfigError, match=r"reward_shaping\.wrong_answers\.penalty: must be"):
        config(-1.0)
    plain, shaped = make_env(config(0.0), monitor=False), make_env(config(2.5), monitor=False)
    plain.reset(seed=3)
    shaped.reset(seed=3)
    rng = np.random.default_rng(0)
    wrong = 0
    for _ in range(400):
        state = shaped.unwrapped.aec.truth
        mask = shaped.unwrapped.action_masks()
        action = int(rng.choice(np.flatnonzero(mask))) if rng.random() < 0.2 else 0
        if not mask[action]:
            action = int(np.flatnonzero(mask)[0])
        is_wrong = (
            state.phase == rules.PHASE_REACT
            and ACTION_RESPONSE_FIRST <= action < ACTION_RESPONSE_FIRST + 13
            and action - ACTION_RESPONSE_FIRST
            != rules.correct_response_index(
                state.card, state.shaker_on, state.fly_under, shaped.unwrapped.aec.game.level
            )
        )
        _, r_plain, term, trunc, _ = plain.step(action)
        _, r_shaped, *_ = shaped.step(action)
        assert r_shaped == pytest.approx(r_plain - (2.5 if is_wrong else 0.0))
        wrong += is_wrong
        if term or trunc:
            break
    assert wrong >= 3


def test_with_a_privileged_critic_the_teacher_reads_the_learners_own_observation():
    # the env appends the privileged features for the value net; the heuristic teacher
    # read them as its observation and refused ("reads observations of 195 entries, got
    # 407"); the demonstrations keep the whole vector (what the policy is given)
    from small_configs import small_ratcat_config

    cfg = small_ratcat_config({"privileged_critic": True})
    plain = small_ratcat_config({})
    data = collect(cfg, "heuristic", games=2, seed=0)
    again = collect(plain, "heuristic", games=2, seed=0)
    width = again.observations.shape[1]
    assert data.observations.shape[1] > width
    np.testing.assert_array_equal(data.actions, again.actions)  # the same teacher's games
    np.testing.assert_array_equal(data.observations[:, :width], again.observations)
