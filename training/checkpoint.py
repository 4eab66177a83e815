"""Checkpoints for training: saving, and the sb3-contrib policy of a loaded checkpoint.

The format and the safe loading side (the card, the SHA-256, the weights-only
``torch.load``, the shape and finiteness checks, :class:`PolicySpec`, :class:`PolicyBot`)
are the library's :mod:`ratenvs.agents.checkpoint`, re-exported here for training's
importers. What is training's own: :func:`save_checkpoint` and :func:`write_card`, the
sb3-contrib policy of an architecture (:func:`build_policy`, :func:`policy_class`,
:func:`policy_kwargs`, :meth:`Checkpoint.policy`) and widening a policy for appended
observation entries (:func:`appended_options`, :func:`widen_inputs`).
"""

from __future__ import annotations

import json
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
    load_card,
    sha256_file,
    weights_path,
)
from training.atomic import atomic_write, atomic_write_text

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
    "load_card",
    "load_checkpoint",
    "policy_class",
    "policy_kwargs",
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


# ---------------------------------------------------------------- saving
def save_checkpoint(
    path: str | Path,
    policy_state: Mapping[str, Any],
    card: Mapping[str, Any],
    optimizer_state: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``<path>.pt`` and its card ``<path>.json``; return the weights path.

    ``card`` must hold at least ``game``, ``env_options`` and ``policy`` (a
    :class:`PolicySpec` dict); the format and the SHA-256 are added here.
    """
    import torch

    wpath = weights_path(path)
    wpath.parent.mkdir(parents=True, exist_ok=True)
    payload: dict[str, Any] = {"policy": {k: v.detach().cpu() for k, v in policy_state.items()}}
    if optimizer_state is not None:
        payload["optimizer"] = optimizer_state
    atomic_write(wpath, lambda fh: torch.save(payload, fh))
    full = {"format": CHECKPOINT_FORMAT, **card}
    full["weights_file"] = wpath.name
    full["weights_sha256"] = sha256_file(wpath)
    for key in REQUIRED_CARD_KEYS:
        if key not in full:
            raise ValueError(f"checkpoint card needs {key!r}")
    write_card(wpath, full)
    return wpath


def write_card(path: str | Path, card: Mapping[str, Any]) -> Path:
    """(Re)write the JSON card of a checkpoint (e.g. to add evaluation results)."""
    cpath = card_path(path)
    atomic_write_text(cpath, json.dumps(card, indent=2, sort_keys=False) + "\n")
    return cpath


class Checkpoint(_library.Checkpoint):
    """A loaded checkpoint (:class:`ratenvs.agents.checkpoint.Checkpoint`) that can also
    rebuild its sb3-contrib policy."""

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
) -> Checkpoint:
    """:func:`ratenvs.agents.checkpoint.load_checkpoint` (the safe load, every check),
    as a training :class:`Checkpoint`."""
    ckpt = _library.load_checkpoint(
        path, game=game, observation_size=observation_size, any_version=any_version
    )
    return Checkpoint(ckpt.path, ckpt.card, ckpt.spec, ckpt.policy_state, ckpt.optimizer_state)
