"""Tianshou's PettingZoo door (``PettingZooEnv``, its multi-agent algorithms): the recipe page
trains a DQN seat for a few hundred steps and every stored action was legal; every game's
AEC env (``raw_env``, which raises on an illegal action) is collected through DQN and masked
random seats, observations and masks being the env's. Skipped where Tianshou is not
installed (``pip install "ratenvs[tianshou]"``; ``nox -s frameworks``)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tianshou")

from recipes import run_recipe  # noqa: E402
from tianshou.algorithm import (  # noqa: E402
    DQN,
    MARLRandomDiscreteMaskedOffPolicyAlgorithm,
    MultiAgentOffPolicyAlgorithm,
)
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy  # noqa: E402
from tianshou.algorithm.optim import AdamOptimizerFactory  # noqa: E402
from tianshou.data import Collector, CollectStats, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv  # noqa: E402
from tianshou.env.pettingzoo_env import PettingZooEnv  # noqa: E402
from tianshou.utils.net.common import Net  # noqa: E402

from ratenvs.games import GAMES  # noqa: E402

NAMES = list(GAMES)
STEPS = 300


def _legal(buffer: VectorReplayBuffer) -> np.ndarray:
    """For every stored transition: the action taken is allowed by the stored mask."""
    stored = buffer.sample_indices(0)
    assert len(stored) > 0
    return buffer.obs.mask[stored, buffer.act[stored]]


def test_recipe_page_runs():
    """docs/recipes/tianshou.md: a DQN seat trains (gradient steps happen) and every action
    in its buffer, the learner's and the random seat's, was legal."""
    ns = run_recipe("tianshou")
    result, buffer = ns["result"], ns["buffer"]
    assert result.train_step >= 200
    assert result.update_step > 0
    assert _legal(buffer).all()
    assert set(buffer.obs.agent_id[buffer.sample_indices(0)]) == {"player_0", "player_1"}


@pytest.mark.parametrize("name", NAMES)
def test_every_game_collects_legal_moves(name):
    """Three seats (two DQN learners with exploration, one masked random) on ``raw_env``:
    ``STEPS`` steps over two envs raise nothing (no illegal action reached the env), the
    masks are the env's ``action_mask`` and the observations its ``observation`` vectors."""
    module = GAMES[name].load()

    def make_env() -> PettingZooEnv:
        return PettingZooEnv(module.raw_env(num_players=3))

    env = make_env()
    assert env.agents == ["player_0", "player_1", "player_2"]
    obs, _ = env.reset(seed=3)
    raw = env.env
    np.testing.assert_array_equal(obs["mask"], raw.action_mask(raw.agent_selection) == 1)
    np.testing.assert_array_equal(obs["obs"], raw.observe(raw.agent_selection)["observation"])

    def dqn() -> DQN:
        return DQN(
            policy=DiscreteQLearningPolicy(
                model=Net(
                    state_shape=env.observation_space["observation"].shape,
                    action_shape=env.action_space.n,
                    hidden_sizes=[32],
                ),
                action_space=env.action_space,
                eps_training=0.3,
                eps_inference=0.3,  # collected outside a training step: explore there too
            ),
            optim=AdamOptimizerFactory(lr=1e-3),
        )

    random_seat = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[dqn(), random_seat, dqn()], env=env)
    envs = DummyVectorEnv([make_env for _ in range(2)])
    envs.seed(0)
    buffer = VectorReplayBuffer(2 * STEPS, len(envs))
    collector = Collector[CollectStats](algorithm, envs, buffer, exploration_noise=True)
    collector.reset()
    torch.manual_seed(0)
    np.random.seed(0)
    stats = collector.collect(n_step=STEPS)
    assert stats.n_collected_steps >= STEPS
    assert _legal(buffer).all()
    seats = set(buffer.obs.agent_id[buffer.sample_indices(0)])
    assert seats == {"player_0", "player_1", "player_2"}
