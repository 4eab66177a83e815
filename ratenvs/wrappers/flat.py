"""Flat observations: the float32 vector alone, the action mask in the info dict.

Our envs observe ``{"observation": Box, "action_mask": Box}`` per agent, as PettingZoo's
classic envs do. Tools that take Box observations only (SuperSuit's observation
wrappers and ``pettingzoo_env_to_vec_env_v1``, plain-``Box`` learners) get the same
game through :func:`flat_observation_v0`: each agent's observation is the ``observation``
vector (its ``Box`` space, same bounds), and ``info["action_mask"]`` carries the int8
mask of that agent's legal actions, as gymnasium's own masked envs do::

    import supersuit as ss
    from ratenvs import ratto_zakko_v0
    from ratenvs.wrappers.flat import flat_observation_v0

    env = flat_observation_v0(ratto_zakko_v0.parallel_env(num_players=4))
    envs = ss.concat_vec_envs_v1(ss.pettingzoo_env_to_vec_env_v1(env), 8, num_cpus=0,
                                 base_class="stable_baselines3")

Nothing else changes: the game, its rewards and its seeding are the wrapped env's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils.wrappers import BaseParallelWrapper, BaseWrapper

__all__ = ["FlatAECObservation", "FlatParallelObservation", "flat_observation_v0"]


def _vector_space(space: spaces.Space) -> spaces.Box:
    if not isinstance(space, spaces.Dict) or "observation" not in space.spaces:
        raise TypeError(
            "flat_observation_v0 wraps an env whose observations are "
            f"{{'observation', 'action_mask'}} dicts, not {space}"
        )
    return space["observation"]


class FlatAECObservation(BaseWrapper):
    """An AEC env whose observations are the ``observation`` vectors; every agent's info
    dict (``infos[agent]``, and :meth:`last`'s) holds its action mask (``"action_mask"``)."""

    def observation_space(self, agent: str) -> spaces.Box:
        return _vector_space(self.env.observation_space(agent))

    def observe(self, agent: str) -> np.ndarray:
        return self.env.observe(agent)["observation"]

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._masks: dict[str, np.ndarray] = {}
        """The masks of the position now (one array per agent, the same object at every
        read until the next step or reset)."""

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._masks = {}
        super().reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        self._masks = {}
        super().step(action)

    def _mask(self, agent: str) -> np.ndarray:
        mask = self._masks.get(agent)
        if mask is None:
            mask = self._masks[agent] = self.env.observe(agent)["action_mask"]
        return mask

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        """The wrapped env's info dicts, each with its agent's action mask."""
        return {
            agent: {**info, "action_mask": self._mask(agent)}
            for agent, info in self.env.infos.items()
        }

    @infos.setter
    def infos(self, value: Any) -> None:
        """PettingZoo < 1.25's ``BaseWrapper.reset`` copies the env's infos here: the env's
        own are the ones kept."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        _, reward, termination, truncation, info = self.env.last(observe=False)
        agent = self.env.agent_selection
        info = {**info, "action_mask": self._mask(agent)}
        return (self.observe(agent) if observe else None), reward, termination, truncation, info


class FlatParallelObservation(BaseParallelWrapper):
    """A parallel env whose observations are the ``observation`` vectors; ``reset`` and
    ``step`` put every agent's action mask in its info dict (``infos[agent]["action_mask"]``)."""

    def observation_space(self, agent: str) -> spaces.Box:
        return _vector_space(self.env.observation_space(agent))

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, dict[str, Any]]]:
        observations, infos = super().reset(seed=seed, options=options)
        return self._flat(observations, infos)

    def step(self, actions: dict[str, Any]) -> tuple[Any, Any, Any, Any, Any]:
        observations, rewards, terminations, truncations, infos = super().step(actions)
        observations, infos = self._flat(observations, infos)
        return observations, rewards, terminations, truncations, infos

    @staticmethod
    def _flat(
        observations: dict[str, dict[str, np.ndarray]], infos: dict[str, dict[str, Any]]
    ) -> tuple[dict[str, np.ndarray], dict[str, dict[str, Any]]]:
        flat = {agent: seen["observation"] for agent, seen in observations.items()}
        masked = {
            agent: {**infos.get(agent, {}), "action_mask": seen["action_mask"]}
            for agent, seen in observations.items()
        }
        return flat, masked


def flat_observation_v0(
    env: AECEnv | ParallelEnv,
) -> FlatAECObservation | FlatParallelObservation:
    """``env`` (any of our AEC or parallel envs, wrapped or not) with flat observations and
    the action mask in the info dict (see the module docstring)."""
    if isinstance(env, ParallelEnv):
        return FlatParallelObservation(env)
    if isinstance(env, AECEnv):
        return FlatAECObservation(env)
    raise TypeError(f"flat_observation_v0 wraps a PettingZoo AEC or parallel env, not {env!r}")
