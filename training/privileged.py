"""Asymmetric actor-critic: a value network that sees the whole table, for training only.

In a hidden-information game the return that follows a decision depends
mostly on cards nobody at the table can see (the other hands, the draw
pile), so PPO's advantage estimates are noisy when the value network sees
only what the player sees. With ``algorithm.privileged_critic: true`` the
training env appends *privileged features* (the true table) to the learner's
observation; the **value network** reads the whole vector, the **policy
network** reads only the first ``observation_size`` entries, the player's own
observation. The value network is used only to compute advantages during
training: the policy that is shipped, evaluated and played
(:class:`training.checkpoint.PolicyBot`) never sees a privileged entry.
Pinto et al. (2018) call this an asymmetric actor-critic; card-game agents
(Suphx, "oracle" critics) use the same idea.

Privileged features, for every game: the env's ``state()`` (the game's ``privileged``
observer: the whole truth, in seat order, within ``state_space``) followed by the
learner's seat, one-hot (the state does not say whose value the critic estimates).

A checkpoint records the extra size in ``policy.critic_extra``; resuming a
plain checkpoint with ``privileged_critic: true`` widens its value network's
first layer with zero weights for the new entries (it starts as the same
function and learns to use them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np


class PrivilegedObservation(gym.ObservationWrapper):
    """Training env only: the learner's observation followed by the privileged features.

    Wraps a :class:`ratenvs.wrappers.single_agent.SingleAgentEnv` (through any
    wrappers); the features describe the table at the moment the observation is
    returned: ``aec.state()`` and the learner's seat, one-hot.
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        aec = env.unwrapped.aec
        base = env.observation_space
        assert isinstance(base, gym.spaces.Box)
        self.actor_size = int(base.shape[0])
        truth = aec.state_space
        n = aec.num_players
        self.extra = int(truth.shape[0]) + n
        low = np.concatenate([base.low, truth.low, np.zeros(n, dtype=np.float32)])
        high = np.concatenate([base.high, truth.high, np.ones(n, dtype=np.float32)])
        self.observation_space = gym.spaces.Box(low, high, dtype=np.float32)
        self._seat_codes = np.eye(n, dtype=np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        single = self.env.unwrapped
        aec = single.aec
        seat = aec.agent_name_mapping[single.learner]
        return np.concatenate(
            [np.asarray(observation, dtype=np.float32), aec.state(), self._seat_codes[seat]]
        )


def asymmetric_policy_class() -> type:
    """sb3-contrib's ``MaskableActorCriticPolicy`` whose actor reads only the first
    ``actor_size`` observation entries (built lazily: torch is imported on demand)."""
    global _POLICY_CLASS
    if _POLICY_CLASS is not None:
        return _POLICY_CLASS
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import MlpExtractor

    class AsymmetricMlpExtractor(MlpExtractor):
        """Separate policy and value MLPs; the policy MLP sees the player's observation only."""

        def __init__(
            self,
            feature_dim: int,
            net_arch: list[int],
            activation_fn: type[torch.nn.Module],
            device: Any,
            actor_size: int,
        ) -> None:
            super().__init__(feature_dim, net_arch, activation_fn, device)
            self.actor_size = actor_size
            self.policy_net = MlpExtractor(actor_size, net_arch, activation_fn, device).policy_net

        def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return self.forward_actor(features), self.forward_critic(features)

        def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
            return self.policy_net(features[..., : self.actor_size])

    class AsymmetricActorCriticPolicy(MaskableActorCriticPolicy):
        """MaskablePPO policy with a privileged critic (see :mod:`training.privileged`)."""

        def __init__(self, *args: Any, actor_size: int, **kwargs: Any) -> None:
            self.actor_size = actor_size
            super().__init__(*args, **kwargs)

        def _build_mlp_extractor(self) -> None:
            self.mlp_extractor = AsymmetricMlpExtractor(
                self.features_dim,
                net_arch=self.net_arch,
                activation_fn=self.activation_fn,
                device=self.device,
                actor_size=self.actor_size,
            )

        def _get_constructor_parameters(self) -> dict[str, Any]:
            data = super()._get_constructor_parameters()
            data["actor_size"] = self.actor_size
            return data

    _POLICY_CLASS = AsymmetricActorCriticPolicy
    return _POLICY_CLASS


_POLICY_CLASS: type | None = None


def widen_critic(state: Mapping[str, Any], extra: int) -> dict[str, Any]:
    """A plain policy state dict made fit for a privileged critic with ``extra`` more inputs:
    the value network's first layer gets zero weights for them (the same function)."""
    import torch

    out = dict(state)
    key = "mlp_extractor.value_net.0.weight"
    weight = state[key]
    out[key] = torch.cat([weight, torch.zeros(weight.shape[0], extra, dtype=weight.dtype)], dim=1)
    return out
