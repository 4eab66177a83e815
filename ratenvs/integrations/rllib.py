"""RLlib (new API stack): every game as a ``MultiAgentEnv``, an action-masking PPO module
and a self-play league of frozen snapshots.

Needs Ray RLlib and torch: ``pip install "ratenvs[rllib]"``. On a multi-node cluster
ratenvs must be installed on every node (the env runners build the envs and the module).

The pieces:

- :class:`RatenvsMultiAgentEnv`: one game (its ``parallel_env``, whichever the game:
  turn-based or simultaneous) as a ``MultiAgentEnv``. Each agent observes
  ``{"observations": Box, "action_mask": Box(0, 1, (num_actions,), float32)}``, the keys
  RLlib's action-masking modules read. Only the agents who act now are in an observation
  dict (one seat in the turn-based games, every seat still to answer in a Ratto Zakko
  tick), so RLlib asks only them; every agent gets its rewards as they happen, and at the
  end of a game every agent gets its last observation. An action the mask forbids, an
  action for an agent who does not act now, or no action for one who does is an
  :class:`~ratenvs.common.aec.IllegalActionError`: nothing illegal reaches the game.
- :func:`register_envs`: registers every game under its PettingZoo id
  (``GAMES[name].pettingzoo_id``) with RLlib's env registry; ``env_config`` holds the
  game's options.
- :class:`ActionMaskingTorchRLModule`: RLlib's default PPO torch module over the
  ``observations`` vector, with the logits of masked actions pushed to the smallest
  float before any sampling (exploration, inference, training).
- :func:`module_spec` / :func:`league_module_spec`: the ``RLModuleSpec`` and
  ``MultiRLModuleSpec`` of a game, spaces filled in.
- :func:`with_league`: all of it applied to an ``AlgorithmConfig`` in one call.
- :class:`LeagueMapping` and :class:`SelfPlayLeague`: self-play. One seat of every
  episode is the learner (``"main"``); every other seat is ``"main"`` too or, with
  probability ``snapshot_prob`` once there are any, one of the frozen snapshots of
  ``"main"`` that :class:`SelfPlayLeague` (an ``RLlibCallback``) adds every
  ``snapshot_every`` iterations as a module of its own (at most ``max_snapshots``, the
  oldest removed first). Only ``"main"`` is trained.

A minimal run::

    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ratenvs.integrations import rllib as rr

    ray.init()
    rr.register_envs()
    config = PPOConfig().env_runners(num_env_runners=2)
    config = rr.with_league(config, "catz_ratz_batz", {"num_players": 2}, snapshot_every=5)
    algo = config.build_algo()
    print(algo.train()["env_runners"]["episode_return_mean"])
"""

from __future__ import annotations

import functools
import random
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

try:
    import gymnasium as gym
    import numpy as np
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
        DefaultPPOTorchRLModule,
    )
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.utils.torch_utils import FLOAT_MIN
    from ray.tune.registry import register_env
except ImportError as exc:  # pragma: no cover - exercised where ray is missing
    raise ImportError(
        'ratenvs.integrations.rllib needs Ray RLlib and torch: pip install "ratenvs[rllib]" '
        f"(missing: {exc.name})"
    ) from exc

from ratenvs.common.aec import IllegalActionError, refused_action
from ratenvs.games import GAMES, GameSpec

__all__ = [
    "ACTION_MASK",
    "LEARNER",
    "OBSERVATIONS",
    "ActionMaskingTorchRLModule",
    "LeagueMapping",
    "RatenvsMultiAgentEnv",
    "SelfPlayLeague",
    "env_name",
    "league_module_spec",
    "league_multi_agent",
    "make_env",
    "module_spec",
    "register_envs",
    "self_play_callback",
    "with_league",
]

OBSERVATIONS = "observations"
"""Key of the observation vector in every agent's observation (RLlib's masking examples)."""
ACTION_MASK = "action_mask"
"""Key of the legal-action mask (1.0 legal, 0.0 not) in every agent's observation."""
LEARNER = "main"
"""Module id of the policy that self-play trains."""
_SNAPSHOT = re.compile(rf"{LEARNER}_v\d+")
"""Module ids of the league's snapshots."""


def _spec(game: str) -> GameSpec:
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; choose one of {sorted(GAMES)}")
    return GAMES[game]


def env_name(game: str) -> str:
    """The name :func:`register_envs` gives ``game`` in RLlib's registry (its PettingZoo id)."""
    return _spec(game).pettingzoo_id


class RatenvsMultiAgentEnv(MultiAgentEnv):
    """One game as an RLlib ``MultiAgentEnv``: masked dict observations for the agents who
    act now, every agent's rewards as they happen (see the module docstring)."""

    def __init__(self, game: str, options: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        self.game_name = game
        self.par_env = _spec(game).load().parallel_env(**dict(options or {}))
        """The game's PettingZoo ``parallel_env`` (every seat's view, the game's rules)."""
        self.possible_agents = list(self.par_env.possible_agents)
        self.agents = []
        self.num_actions: int = self.par_env.num_actions
        mask_box = gym.spaces.Box(0.0, 1.0, shape=(self.num_actions,), dtype=np.float32)
        self.observation_spaces = {
            a: gym.spaces.Dict(
                {
                    OBSERVATIONS: self.par_env.observation_space(a)["observation"],
                    ACTION_MASK: mask_box,
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: self.par_env.action_space(a) for a in self.possible_agents}
        self.observation_space = gym.spaces.Dict(self.observation_spaces)
        self.action_space = gym.spaces.Dict(self.action_spaces)
        self._masks: dict[str, np.ndarray] = {}

    def _acting(self) -> list[str]:
        """The agents who act now, in the game's order."""
        env = self.par_env
        return [self.possible_agents[s] for s in env.game.to_act(env.truth)]

    def _observe(
        self, observations: Mapping[str, Mapping[str, np.ndarray]], agents: list[str]
    ) -> dict[str, dict[str, np.ndarray]]:
        out = {}
        for a in agents:
            mask = observations[a]["action_mask"]
            out[a] = {
                OBSERVATIONS: observations[a]["observation"],
                ACTION_MASK: mask.astype(np.float32),
            }
        return out

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a new game (``seed`` as the game's ``reset``); observations of who acts."""
        observations, _ = self.par_env.reset(seed=seed)
        self.agents = list(self.possible_agents)
        acting = self._acting()
        self._masks = {a: observations[a]["action_mask"] for a in acting}
        return self._observe(observations, acting), {a: {} for a in acting}

    def step(self, action_dict: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Play the actions of the agents who act now (each checked against its mask)."""
        if not self.agents:
            raise RuntimeError("step() before reset() or after the game is over")
        extra = [a for a in action_dict if a not in self._masks]
        if extra:
            raise IllegalActionError(
                f"actions for {extra}, who do not act now (acting: {sorted(self._masks)})"
            )
        actions = {}
        for agent, mask in self._masks.items():
            if agent not in action_dict:
                raise IllegalActionError(f"no action for {agent}, who acts now")
            action = action_dict[agent]
            index = int(action) if np.ndim(action) == 0 else -1
            if index != action or not 0 <= index < len(mask) or not mask[index]:
                raise refused_action(action, agent, mask, " (the action mask forbids it)")
            actions[agent] = index
        observations, rewards, terminations, truncations, infos = self.par_env.step(actions)
        rewards = {a: float(r) for a, r in rewards.items()}
        over = not self.par_env.agents
        if over:
            self.agents = []
            self._masks = {}
            agents = [a for a in self.possible_agents if a in observations]
            truncated = {a: bool(truncations.get(a, False)) for a in agents}
            terminated = {a: bool(terminations.get(a, True)) for a in agents}
            return (
                self._observe(observations, agents),
                rewards,
                {**terminated, "__all__": not any(truncated.values())},
                {**truncated, "__all__": any(truncated.values())},
                {a: infos.get(a, {}) for a in agents},
            )
        acting = self._acting()
        self._masks = {a: observations[a]["action_mask"] for a in acting}
        return (
            self._observe(observations, acting),
            rewards,
            {"__all__": False},
            {"__all__": False},
            {a: infos.get(a, {}) for a in acting},
        )

    def render(self) -> Any:
        """The game's render (its ``render_mode`` option)."""
        return self.par_env.render()

    def close(self) -> None:
        self.par_env.close()


def make_env(game: str, config: Mapping[str, Any] | None = None) -> RatenvsMultiAgentEnv:
    """The env RLlib builds for ``game``: ``config`` (its ``env_config``) holds the options."""
    return RatenvsMultiAgentEnv(game, dict(config or {}))


def register_envs() -> list[str]:
    """Register every game with RLlib's env registry under its PettingZoo id
    (:func:`env_name`); returns the names. Call it on the driver before building an
    algorithm (Ray ships the registry to the env runners)."""
    names = []
    for name, spec in GAMES.items():
        register_env(spec.pettingzoo_id, functools.partial(make_env, name))
        names.append(spec.pettingzoo_id)
    return names


class ActionMaskingTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module (encoder, policy and value heads built by its
    catalog from ``model_config``) over the ``observations`` vector, with masked actions'
    logits set to the smallest float: a masked action is never sampled, and the policy
    loss and entropy see only the legal ones. The observation space must be the Dict
    ``{"observations": Box, "action_mask": Box}`` of :class:`RatenvsMultiAgentEnv`."""

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        space = observation_space
        if not isinstance(space, gym.spaces.Dict) or set(space.spaces) != {
            OBSERVATIONS,
            ACTION_MASK,
        }:
            raise ValueError(
                f"ActionMaskingTorchRLModule needs a Dict observation space with the keys "
                f"{OBSERVATIONS!r} and {ACTION_MASK!r}, got {space}"
            )
        self.masked_observation_space = space
        super().__init__(observation_space=space[OBSERVATIONS], **kwargs)

    def setup(self) -> None:
        super().setup()
        # the networks are built for the vector; the module's space is the dict the env
        # gives (RLModuleSpec.from_module copies it, e.g. for a self-play snapshot)
        self.observation_space = self.masked_observation_space

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """The mask and a shallow copy of ``batch`` whose observations are the vectors."""
        obs = batch[Columns.OBS]
        if not isinstance(obs, Mapping):
            return None, batch
        return obs[ACTION_MASK], {**batch, Columns.OBS: obs[OBSERVATIONS]}

    @staticmethod
    def _mask(out: dict[str, Any], mask: Any) -> dict[str, Any]:
        if mask is not None:
            logits = out[Columns.ACTION_DIST_INPUTS]
            out[Columns.ACTION_DIST_INPUTS] = torch.where(
                mask > 0.5, logits, torch.full_like(logits, FLOAT_MIN)
            )
        return out

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = self._split(batch)
        return self._mask(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = self._split(batch)
        return self._mask(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        """The value head's estimates (the mask plays no part in them)."""
        if embeddings is None:
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)


DEFAULT_MODEL_CONFIG: dict[str, Any] = {"fcnet_hiddens": [128, 128], "fcnet_activation": "tanh"}
"""The network of :func:`module_spec` unless told otherwise (RLlib's ``DefaultModelConfig``
keys)."""


def module_spec(
    game: str,
    options: Mapping[str, Any] | None = None,
    model_config: Mapping[str, Any] | None = None,
) -> RLModuleSpec:
    """The ``RLModuleSpec`` of an :class:`ActionMaskingTorchRLModule` for ``game`` with
    ``options`` (its spaces filled in; every seat has the same ones)."""
    env = RatenvsMultiAgentEnv(game, options)
    agent = env.possible_agents[0]
    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        observation_space=env.observation_spaces[agent],
        action_space=env.action_spaces[agent],
        model_config=dict(DEFAULT_MODEL_CONFIG if model_config is None else model_config),
    )


def league_module_spec(
    game: str,
    options: Mapping[str, Any] | None = None,
    model_config: Mapping[str, Any] | None = None,
) -> MultiRLModuleSpec:
    """The ``MultiRLModuleSpec`` self-play starts from: the learner (:data:`LEARNER`)
    alone; :class:`SelfPlayLeague` adds the snapshots."""
    return MultiRLModuleSpec(rl_module_specs={LEARNER: module_spec(game, options, model_config)})


@dataclass(frozen=True)
class LeagueMapping:
    """Agent -> module for one self-play league: in every episode the seat picked by the
    episode id plays :data:`LEARNER`; every other seat plays one of ``snapshots`` with
    probability ``snapshot_prob`` (when there are any), else the learner too. The draw is
    a function of the episode id and the agent, so it is the same wherever it is made."""

    num_players: int
    snapshots: tuple[str, ...] = ()
    snapshot_prob: float = 0.5

    def __call__(self, agent_id: str, episode: Any, **kwargs: Any) -> str:
        key = str(getattr(episode, "id_", episode))
        seat = int(str(agent_id).rsplit("_", 1)[-1])
        if zlib.crc32(key.encode()) % self.num_players == seat or not self.snapshots:
            return LEARNER
        draw = random.Random(zlib.crc32(f"{key}/{agent_id}".encode()))
        if draw.random() < self.snapshot_prob:
            return draw.choice(self.snapshots)
        return LEARNER


def league_multi_agent(
    game: str, options: Mapping[str, Any] | None = None, snapshot_prob: float = 0.5
) -> dict[str, Any]:
    """Keyword arguments of ``AlgorithmConfig.multi_agent`` for a self-play league of
    ``game``: the learner's module, the :class:`LeagueMapping` and only the learner
    trained."""
    num_players = RatenvsMultiAgentEnv(game, options).par_env.num_players
    return {
        "policies": {LEARNER},
        "policy_mapping_fn": LeagueMapping(num_players, (), snapshot_prob),
        "policies_to_train": [LEARNER],
    }


class SelfPlayLeague(RLlibCallback):
    """RLlib callback that grows the league: after every ``snapshot_every``-th training
    iteration it freezes a copy of the learner as a new module (``main_v<iteration>``,
    weights copied from the learner and sent to every env runner), keeps at most
    ``max_snapshots`` (the oldest removed first) and installs the :class:`LeagueMapping`
    over them. Adds ``league`` (the snapshot ids) to every training result. An algorithm
    restored from a checkpoint (``Algorithm.from_checkpoint``) keeps its league."""

    def __init__(
        self,
        num_players: int,
        snapshot_every: int = 5,
        max_snapshots: int = 3,
        snapshot_prob: float = 0.5,
    ) -> None:
        super().__init__()
        if snapshot_every < 1 or max_snapshots < 1 or not 0.0 <= snapshot_prob <= 1.0:
            raise ValueError(
                "SelfPlayLeague: snapshot_every and max_snapshots must be >= 1 and "
                f"snapshot_prob in [0, 1], got {snapshot_every}, {max_snapshots}, "
                f"{snapshot_prob}"
            )
        self.num_players = num_players
        self.snapshot_every = snapshot_every
        self.max_snapshots = max_snapshots
        self.snapshot_prob = snapshot_prob
        self.snapshots: list[str] = []

    def mapping(self) -> LeagueMapping:
        """The agent -> module mapping over the current snapshots."""
        return LeagueMapping(self.num_players, tuple(self.snapshots), self.snapshot_prob)

    def on_algorithm_init(
        self, *, algorithm: Any, metrics_logger: Any = None, **kwargs: Any
    ) -> None:
        """Adopt the snapshots an algorithm restored from a checkpoint already has (its
        modules ``main_v<iteration>``), oldest first."""
        found = [m for m in algorithm.config.policies if _SNAPSHOT.fullmatch(str(m))]
        self.snapshots = sorted(found, key=lambda m: int(m.rsplit("_v", 1)[1]))

    def on_train_result(
        self, *, algorithm: Any, metrics_logger: Any = None, result: dict, **kwargs: Any
    ) -> None:
        if algorithm.iteration % self.snapshot_every == 0:
            self.add_snapshot(algorithm)
        result["league"] = list(self.snapshots)

    def add_snapshot(self, algorithm: Any) -> str:
        """Freeze the learner's current weights into a new module; returns its id."""
        module_id = f"{LEARNER}_v{algorithm.iteration}"
        learners = algorithm.learner_group
        path = f"learner/rl_module/{LEARNER}"
        weights = learners.get_state(components=path)["learner"]["rl_module"][LEARNER]
        self.snapshots.append(module_id)
        algorithm.add_module(
            module_id=module_id,
            module_spec=RLModuleSpec.from_module(algorithm.get_module(LEARNER)),
            new_agent_to_module_mapping_fn=self.mapping(),
            new_should_module_be_updated=[LEARNER],
        )
        learners.set_state({"learner": {"rl_module": {module_id: weights}}})
        algorithm.env_runner_group.sync_weights(
            from_worker_or_learner_group=learners, policies=[module_id], inference_only=True
        )
        while len(self.snapshots) > self.max_snapshots:
            oldest = self.snapshots.pop(0)
            algorithm.remove_module(
                oldest,
                new_agent_to_module_mapping_fn=self.mapping(),
                new_should_module_be_updated=[LEARNER],
            )
        return module_id


def with_league(
    config: Any,
    game: str,
    options: Mapping[str, Any] | None = None,
    *,
    model_config: Mapping[str, Any] | None = None,
    snapshot_every: int = 5,
    max_snapshots: int = 3,
    snapshot_prob: float = 0.5,
) -> Any:
    """``config`` (an ``AlgorithmConfig``, PPO's) set up for self-play on ``game``: the
    env (:func:`env_name`, ``options`` as ``env_config``; RLlib's env checker is off, as
    it steps the env with actions sampled without the mask, which the env refuses), the
    league's modules, mapping and :class:`SelfPlayLeague` callback. Call
    :func:`register_envs` first; returns ``config``."""
    options = dict(options or {})
    return (
        config.environment(env_name(game), env_config=options, disable_env_checking=True)
        .multi_agent(**league_multi_agent(game, options, snapshot_prob))
        .rl_module(rl_module_spec=league_module_spec(game, options, model_config))
        .callbacks(
            self_play_callback(
                game,
                options,
                snapshot_every=snapshot_every,
                max_snapshots=max_snapshots,
                snapshot_prob=snapshot_prob,
            )
        )
    )


def self_play_callback(
    game: str,
    options: Mapping[str, Any] | None = None,
    *,
    snapshot_every: int = 5,
    max_snapshots: int = 3,
    snapshot_prob: float = 0.5,
) -> Any:
    """The :class:`SelfPlayLeague` class for ``AlgorithmConfig.callbacks``, its arguments
    bound (RLlib builds one per env runner and one on the driver)."""
    num_players = RatenvsMultiAgentEnv(game, options).par_env.num_players
    SelfPlayLeague(num_players, snapshot_every, max_snapshots, snapshot_prob)  # checks them
    return functools.partial(
        SelfPlayLeague,
        num_players,
        snapshot_every=snapshot_every,
        max_snapshots=max_snapshots,
        snapshot_prob=snapshot_prob,
    )
