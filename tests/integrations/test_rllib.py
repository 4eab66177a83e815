"""RLlib (new API stack): the MultiAgentEnv of every game, the masking module, the league,
and two training iterations per game with two env runners on a local Ray instance
(``ray.init(num_cpus=2)``). Skipped where Ray is not installed (``nox -s rllib`` / ``make
test-rllib`` installs it)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="needs the rllib extra (make test-rllib)")
torch = pytest.importorskip("torch")

import ray  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.utils.torch_utils import FLOAT_MIN  # noqa: E402
from recipes import run_recipe  # noqa: E402

from ratenvs.common.aec import IllegalActionError  # noqa: E402
from ratenvs.games import GAMES  # noqa: E402
from ratenvs.integrations import rllib as rr  # noqa: E402
from training import rllib_train  # noqa: E402

NAMES = list(GAMES)
OPTIONS = {
    "catz_ratz_batz": {"num_players": 2, "reward": "win"},
    "rat_a_tat_cat": {"num_players": 3},
    "ratto_zakko": {"num_players": 3},
}
"""The options every test plays each game with (three players where the game allows it, so
that the league's seat draw has more than two seats)."""


def _legal(obs: dict, rng: np.random.Generator) -> dict:
    return {a: int(rng.choice(np.flatnonzero(o[rr.ACTION_MASK]))) for a, o in obs.items()}


# ------------------------------------------------------------------ the env
@pytest.mark.parametrize("name", NAMES)
def test_observations_carry_the_keys_rllib_masking_reads(name):
    env = rr.RatenvsMultiAgentEnv(name, OPTIONS[name])
    par = GAMES[name].load().parallel_env(**OPTIONS[name])
    assert env.possible_agents == par.possible_agents
    obs, infos = env.reset(seed=3)
    reference, _ = par.reset(seed=3)
    assert obs and set(infos) == set(obs)
    acting = [par.possible_agents[s] for s in par.game.to_act(par.truth)]
    assert list(obs) == acting  # only who acts now is asked
    for agent, o in obs.items():
        space = env.observation_spaces[agent]
        assert set(space.spaces) == {"observations", "action_mask"} == set(o)
        assert space["action_mask"].dtype == np.float32 and o["action_mask"].dtype == np.float32
        assert space.contains(o)
        np.testing.assert_array_equal(o["observations"], reference[agent]["observation"])
        np.testing.assert_array_equal(o["action_mask"], reference[agent]["action_mask"])
        assert o["action_mask"].any()
        assert env.action_spaces[agent].n == space["action_mask"].shape[0]


@pytest.mark.parametrize("name", NAMES)
def test_a_game_plays_as_the_parallel_env_does(name):
    """Same seed and actions: the same rewards per agent as the game's own parallel env,
    every agent's last observation at the end, ``__all__`` set only then."""
    env = rr.RatenvsMultiAgentEnv(name, OPTIONS[name])
    par = GAMES[name].load().parallel_env(**OPTIONS[name])
    rng = np.random.default_rng(5)
    obs, _ = env.reset(seed=11)
    par.reset(seed=11)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    expected = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(20_000):
        actions = _legal(obs, rng)
        obs, rewards, terminated, truncated, _ = env.step(actions)
        _, par_rewards, *_ = par.step(actions)
        for a in env.possible_agents:
            totals[a] += rewards.get(a, 0.0)
            expected[a] += par_rewards[a]
        if terminated["__all__"]:
            break
        assert not truncated["__all__"] and set(terminated) == {"__all__"}
    else:
        pytest.fail("the game did not end")
    assert set(obs) == set(env.possible_agents)  # every agent's last observation
    assert all(terminated[a] for a in env.possible_agents)
    assert totals == pytest.approx(expected) and not par.agents
    with pytest.raises(RuntimeError):
        env.step({})


@pytest.mark.parametrize("name", NAMES)
def test_no_illegal_action_reaches_the_game(name):
    env = rr.RatenvsMultiAgentEnv(name, OPTIONS[name])
    obs, _ = env.reset(seed=0)
    agent, o = next(iter(obs.items()))
    before = env.par_env.game.to_json(env.par_env.truth)
    illegal = np.flatnonzero(o["action_mask"] == 0)
    if len(illegal):
        with pytest.raises(IllegalActionError):
            env.step({**_legal(obs, np.random.default_rng(0)), agent: int(illegal[0])})
    for bad in (-1, env.num_actions, 2.5, np.array([0])):
        with pytest.raises(IllegalActionError):
            env.step({**_legal(obs, np.random.default_rng(0)), agent: bad})
    with pytest.raises(IllegalActionError, match="no action"):
        env.step({})
    idle = [a for a in env.possible_agents if a not in obs]
    if idle:
        with pytest.raises(IllegalActionError, match="do not act now"):
            env.step({**_legal(obs, np.random.default_rng(0)), idle[0]: 0})
    assert env.par_env.game.to_json(env.par_env.truth) == before  # nothing was played
    env.step(_legal(obs, np.random.default_rng(0)))  # and a legal step still plays


def test_register_envs_names_every_game():
    from ray.tune.registry import ENV_CREATOR, _global_registry

    names = rr.register_envs()
    assert names == [GAMES[n].pettingzoo_id for n in NAMES]
    creator = _global_registry.get(ENV_CREATOR, rr.env_name("ratto_zakko"))
    env = creator({"num_players": 5})
    assert isinstance(env, rr.RatenvsMultiAgentEnv) and len(env.possible_agents) == 5
    with pytest.raises(ValueError):
        rr.env_name("chess")


# --------------------------------------------------------------- the module
@pytest.mark.parametrize("name", NAMES)
def test_module_never_picks_a_masked_action(name):
    spec = rr.module_spec(name, OPTIONS[name], {"fcnet_hiddens": [16]})
    module = spec.build()
    assert module.observation_space == spec.observation_space  # the dict, for snapshots
    n = spec.action_space.n
    rng = np.random.default_rng(1)
    batch_size = 512
    mask = (rng.random((batch_size, n)) < 0.3).astype(np.float32)
    mask[np.arange(batch_size), rng.integers(0, n, batch_size)] = 1.0  # one legal at least
    vectors = np.stack([spec.observation_space["observations"].sample() for _ in range(8)])
    obs = {
        "observations": torch.from_numpy(vectors[rng.integers(0, 8, batch_size)]),
        "action_mask": torch.from_numpy(mask),
    }
    batch = {Columns.OBS: obs}
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(dict(batch))[Columns.ACTION_DIST_INPUTS]
        assert torch.all(logits[torch.from_numpy(mask) == 0] == FLOAT_MIN)
        dist = module.get_exploration_action_dist_cls().from_logits(logits)
        actions = dist.sample().numpy()
        assert mask[np.arange(batch_size), actions].all()
    assert batch[Columns.OBS] is obs and set(obs) == {"observations", "action_mask"}  # untouched
    values = module.compute_values(dict(batch))
    assert values.shape == (batch_size,)
    with pytest.raises(ValueError, match="observations"):
        rr.ActionMaskingTorchRLModule(
            observation_space=spec.observation_space["observations"],
            action_space=spec.action_space,
            model_config={},
        )


def test_league_mapping():
    class Episode:
        def __init__(self, i):
            self.id_ = f"episode-{i}"

    agents = [f"player_{i}" for i in range(4)]
    alone = rr.LeagueMapping(4)
    league = rr.LeagueMapping(4, ("main_v5", "main_v10"), snapshot_prob=1.0)
    seats = []
    for i in range(200):
        episode = Episode(i)
        assert {alone(a, episode) for a in agents} == {rr.LEARNER}
        modules = [league(a, episode) for a in agents]
        assert modules == [league(a, episode) for a in agents]  # the same wherever drawn
        assert modules.count(rr.LEARNER) == 1
        assert set(modules) - {rr.LEARNER} <= {"main_v5", "main_v10"}
        seats.append(modules.index(rr.LEARNER))
    assert set(seats) == {0, 1, 2, 3}  # the learner plays every seat
    never = rr.LeagueMapping(4, ("main_v5",), snapshot_prob=0.0)
    assert {never(a, Episode(0)) for a in agents} == {rr.LEARNER}
    with pytest.raises(ValueError):
        rr.SelfPlayLeague(2, snapshot_every=0)


# ------------------------------------------------------------------ training
@pytest.fixture(scope="module")
def local_ray():
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _tiny(name: str) -> rllib_train.RLlibTrainConfig:
    """Two iterations of 200 env steps on two env runners; a snapshot after every
    iteration, and every seat but the learner's playing it."""
    return rllib_train.rllib_config_from_dict(
        {
            "game": name,
            "env_options": OPTIONS[name],
            "iterations": 2,
            "checkpoint_every": 1,
            "env_runners": {"num_env_runners": 2, "rollout_fragment_length": 50},
            "ppo": {
                "train_batch_size": 200,
                "minibatch_size": 100,
                "num_epochs": 1,
                "fcnet_hiddens": [32],
            },
            "selfplay": {"snapshot_every": 1, "max_snapshots": 1, "snapshot_prob": 1.0},
            # an env error (an illegal action) stops the run instead of a restart
            "fault_tolerance": {"restart_failed_env_runners": False},
        }
    )


@pytest.mark.parametrize("name", NAMES)
def test_two_iterations_of_self_play_on_two_env_runners(name, local_ray, tmp_path, capsys):
    cfg = _tiny(name)
    rows = rllib_train.train(cfg, tmp_path)
    printed = capsys.readouterr().out
    assert [r["iteration"] for r in rows] == [1, 2]
    assert "iter 1/2" in printed and "iter 2/2" in printed
    first, second = rows
    assert first["env_steps"] >= 200 and second["env_steps"] >= 400
    assert second["episodes"] >= 1
    assert first["env_runner_restarts"] == second["env_runner_restarts"] == 0
    # the league: a snapshot after each iteration, at most one kept; the second iteration
    # was played against the first snapshot (every other seat plays it: snapshot_prob 1)
    assert first["league"] == ["main_v1"] and second["league"] == ["main_v2"]
    assert set(first["module_steps"]) == {"main"}
    assert set(second["module_steps"]) == {"main", "main_v1"}
    logged = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert logged == rows
    for it in (1, 2):
        assert (tmp_path / f"checkpoint_{it:06d}").is_dir()
    assert rllib_train.load_rllib_config(tmp_path / "config.yaml") == cfg
    if name == "catz_ratz_batz":  # a checkpoint restores the league and trains on (once)
        from ray.rllib.algorithms.algorithm import Algorithm

        algo = Algorithm.from_checkpoint(str(tmp_path / "checkpoint_000002"))
        try:
            assert algo.iteration == 2 and set(algo.config.policies) == {"main", "main_v2"}
            third = rllib_train.summary(algo.train())
        finally:
            algo.stop()
        assert third["iteration"] == 3 and third["league"] == ["main_v3"]
        assert set(third["module_steps"]) == {"main", "main_v2"}


def test_the_recipe_runs_as_written(local_ray, capsys):
    ns = run_recipe("rllib")
    assert ns["result"]["training_iteration"] == 1 and ns["result"]["league"] == ["main_v1"]
    assert "['main_v1']" in capsys.readouterr().out
