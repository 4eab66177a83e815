"""Checkpoints for training: saving, and the sb3-contrib policy of a loaded checkpoint.

The format and the safe loading side (the card, the SHA-256, the safetensors header and
shape checks, finiteness, :class:`PolicySpec`, :class:`PolicyBot`) are the library's
:mod:`ratenvs.agents.checkpoint`, re-exported here for training's importers; training's
:func:`load_checkpoint` gives the states as torch tensors, the optimizer's included.
So is the writing side, :func:`save_checkpoint` (a checkpoint written as one unit: the
content-addressed weights first, the card last) and :func:`write_card`. What is
training's own: the sb3-contrib policy of an architecture (:func:`build_policy`,
:func:`policy_class`, :func:`policy_kwargs`, :meth:`Checkpoint.policy`) and widening a
policy for appended observation entries (:func:`appended_options`, :func:`widen_inputs`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ratenvs.agents import checkpoint as _library
from ratenvs.agents.checkpoint import (
    ACTIVATIONS,
    CARD_SUFFIX,
    CHECKPOINT_FORMAT,
    MAX_DEPTH,
    MAX_PARAMETERS,
    MAX_WIDTH,
    REQUIRED_CARD_KEYS,
    WEIGHTS_SUFFIX,
    CheckpointError,
    PolicyBot,
    PolicySpec,
    card_path,
    check_finite,
    check_shapes,
    checkpoint_base,
    is_checkpoint,
    load_card,
    owned_files,
    remove_stale_temporaries,
    save_checkpoint,
    sha256_file,
    weights_path,
    write_card,
)

__all__ = [
    "ACTIVATIONS",
    "CARD_SUFFIX",
    "CHECKPOINT_FORMAT",
    "MAX_DEPTH",
    "MAX_PARAMETERS",
    "MAX_WIDTH",
    "REQUIRED_CARD_KEYS",
    "WEIGHTS_SUFFIX",
    "Checkpoint",
    "CheckpointError",
    "PolicyBot",
    "PolicySpec",
    "appended_options",
    "build_policy",
    "card_path",
    "check_finite",
    "check_shapes",
    "checkpoint_base",
    "is_checkpoint",
    "load_card",
    "load_checkpoint",
    "owned_files",
    "policy_class",
    "policy_kwargs",
    "remove_stale_temporaries",
    "save_checkpoint",
    "sha256_file",
    "weights_path",
    "widen_inputs",
    "write_card",
]


def build_policy(spec: PolicySpec) -> Any:
    """A fresh sb3-contrib ``MaskableActorCriticPolicy`` with the architecture of ``spec``."""
    import gymnasium as gym

    size = spec.observation_size + spec.critic_extra
    return policy_class(spec)(
        gym.spaces.Box(-np.inf, np.inf, (size,), np.float32),
        gym.spaces.Discrete(spec.num_actions),
        lambda _progress: 0.0,
        **policy_kwargs(spec),
    )


def policy_class(spec: PolicySpec) -> type:
    """The sb3-contrib policy class of ``spec``: ``MaskableActorCriticPolicy``, or its
    asymmetric variant when the value network has privileged inputs."""
    if spec.critic_extra:
        from training.privileged import asymmetric_policy_class

        return asymmetric_policy_class()
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    return MaskableActorCriticPolicy


def policy_kwargs(spec: PolicySpec) -> dict[str, Any]:
    """``policy_kwargs`` for MaskablePPO that build the architecture of ``spec``."""
    import torch

    kwargs: dict[str, Any] = {
        "net_arch": list(spec.net_arch),
        "activation_fn": {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[spec.activation],
    }
    if spec.critic_extra:
        kwargs["actor_size"] = spec.observation_size
    return kwargs


def appended_options(
    card_options: Mapping[str, Any], options: Mapping[str, Any], appendable: Sequence[str]
) -> list[str]:
    """The ``appendable`` env options (the game's ``GameHooks.appended_options``: options
    whose observation entries come after all the others) that ``options`` turns on and a
    policy trained with env options ``card_options`` lacks, when the other options are
    equal (the old observation is then a prefix of the new one, so the policy can be
    widened to it, :func:`widen_inputs`); else an empty list."""
    added = [k for k in appendable if options.get(k) and not card_options.get(k)]

    def rest(opts: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in opts.items() if k not in appendable}

    return added if added and rest(card_options) == rest(options) else []


def widen_inputs(state: Mapping[str, Any], extra: int) -> dict[str, Any]:
    """A policy state dict made fit for ``extra`` more observation entries at the end: the
    first layers of the policy and value networks get zero weights for them, so the
    widened policy computes the same function until training uses the new entries."""
    import torch

    out = dict(state)
    for key in ("mlp_extractor.policy_net.0.weight", "mlp_extractor.value_net.0.weight"):
        weight = state[key]
        zeros = torch.zeros(weight.shape[0], extra, dtype=weight.dtype)
        out[key] = torch.cat([weight, zeros], dim=1)
    return out


def _to_torch_tree(node: Any) -> Any:
    """``node`` with every NumPy array made a torch tensor."""
    import torch

    return _library.map_leaves(
        node, lambda leaf: torch.tensor(np.array(leaf)) if isinstance(leaf, np.ndarray) else leaf
    )


class Checkpoint(_library.Checkpoint):
    """A loaded checkpoint (:class:`ratenvs.agents.checkpoint.Checkpoint`) whose policy
    (and optimizer) state are torch tensors, that can also rebuild its sb3-contrib policy."""

    def policy(self) -> Any:
        """The policy as an sb3-contrib ``MaskableActorCriticPolicy`` (torch module)."""
        policy = build_policy(self.spec)
        policy.load_state_dict(self.policy_state)
        return policy


def load_checkpoint(
    path: str | Path,
    *,
    game: str | None = None,
    observation_size: int | None = None,
    any_version: bool = False,
    optimizer: bool = True,
) -> Checkpoint:
    """:func:`ratenvs.agents.checkpoint.load_checkpoint` (the safe load, every check, the
    optimizer state included unless ``optimizer`` is False: what only plays the policy
    does not read it, so a damaged optimizer file does not stop it), as a training
    :class:`Checkpoint` of torch tensors."""
    ckpt = _library.load_checkpoint(
        path,
        game=game,
        observation_size=observation_size,
        any_version=any_version,
        optimizer=optimizer,
    )
    return Checkpoint(
        ckpt.path,
        ckpt.card,
        ckpt.spec,
        _to_torch_tree(ckpt.policy_state),
        None if ckpt.optimizer_state is None else _to_torch_tree(ckpt.optimizer_state),
    )
