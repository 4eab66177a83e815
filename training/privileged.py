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

Privileged features, per game: the ``privileged`` entry of the game's hooks
(:class:`training.hooks.PrivilegedFeatures`, in ``training/games/<game>.py``).

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

from training.hooks import games_with, hooks_for


class PrivilegedObservation(gym.ObservationWrapper):
    """Training env only: the learner's observation followed by the privileged features.

    Wraps a :class:`ratenvs.wrappers.single_agent.SingleAgentEnv` (through any
    wrappers); the features describe the table at the moment the observation is
    returned.
    """

    def __init__(self, env: gym.Env, game: str) -> None:
        super().__init__(env)
        privileged = hooks_for(game).privileged
        if privileged is None:
            raise ValueError(
                f"privileged_critic: no privileged features for {game!r}; "
                f"available for {games_with(lambda h: h.privileged is not None)}"
            )
        self._features, size_of = privileged.features, privileged.size
        base = env.observation_space
        assert isinstance(base, gym.spaces.Box)
        self.actor_size = int(base.shape[0])
        self.extra = size_of(env.unwrapped.aec.num_players)
        low = np.concatenate([base.low, np.zeros(self.extra, dtype=np.float32)])
        high = np.concatenate([base.high, np.ones(self.extra, dtype=np.float32)])
        self.observation_space = gym.spaces.Box(low, high, dtype=np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        single = self.env.unwrapped
        seat = single.aec.agent_name_mapping[single.learner]
        extra = self._features(single.aec.truth, seat)
        return np.concatenate([np.asarray(observation, dtype=np.float32), extra])


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
