"""Safe checkpoints: a plain tensor file plus a JSON card, and a policy that plays as a Bot.

A checkpoint is two files side by side:

- ``<name>.pt``: ``{"policy": state_dict, "optimizer": state_dict (optional)}`` written
  by ``torch.save`` and read back ONLY with ``torch.load(weights_only=True)``, whose
  unpickler accepts tensors and plain containers and refuses every other global, so
  loading a checkpoint never runs code that came with it.
- ``<name>.json``: the card: format, game and env options, policy architecture,
  config, timesteps, wall time, library versions, git commit, the SHA-256 of the
  ``.pt`` file (checked before anything is unpickled) and evaluation results.

:class:`PolicyBot` turns a loaded policy into a :class:`~ratenvs.common.bots.Bot`
(greedy: the masked argmax of the action logits), used as a frozen self-play
opponent and by the evaluator.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from training.atomic import atomic_write, atomic_write_text

CHECKPOINT_FORMAT = "ratenvs-checkpoint/1"
WEIGHTS_SUFFIX = ".pt"
CARD_SUFFIX = ".json"
ACTIVATIONS = ("tanh", "relu")
REQUIRED_CARD_KEYS = ("format", "game", "env_options", "policy", "weights_sha256")


class CheckpointError(ValueError):
    """A checkpoint is missing, corrupt, unsafe, or does not fit the game / env asked for."""


MAX_WIDTH = 1 << 16
"""Widest layer (and largest observation or action space) a card may describe."""
MAX_DEPTH = 64
MAX_PARAMETERS = 100_000_000
"""Most weights a checkpoint may hold: a card is checked against it before any network is
built (a 267-byte card must not make the loader build a huge network)."""


@dataclass(frozen=True)
class PolicySpec:
    """The architecture of a policy: enough to rebuild it from a state dict."""

    observation_size: int
    num_actions: int
    net_arch: tuple[int, ...]
    activation: str = "tanh"
    critic_extra: int = 0
    """Privileged entries the value network reads after the observation (training only;
    see :mod:`training.privileged`). 0: the usual actor-critic."""

    def parameter_count(self) -> int:
        """How many weights this architecture has, worked out without building it: the
        policy MLP (on the observation) and the value MLP (on the observation and the
        ``critic_extra`` entries), each ``net_arch`` deep, then the action and value heads."""

        def mlp(width: int) -> tuple[int, int]:
            count = 0
            for out in self.net_arch:
                count += width * out + out
                width = out
            return count, width

        policy, pi_width = mlp(self.observation_size)
        value, vf_width = mlp(self.observation_size + self.critic_extra)
        heads = pi_width * self.num_actions + self.num_actions + vf_width + 1
        return policy + value + heads

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["net_arch"] = list(self.net_arch)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PolicySpec:
        try:
            spec = cls(
                observation_size=int(data["observation_size"]),
                num_actions=int(data["num_actions"]),
                net_arch=tuple(int(n) for n in data["net_arch"]),
                activation=str(data.get("activation", "tanh")),
                critic_extra=int(data.get("critic_extra", 0)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CheckpointError(f"card 'policy' entry is malformed: {exc!r}") from None
        if spec.critic_extra < 0:
            raise CheckpointError(
                f"card 'policy.critic_extra' must be >= 0, got {spec.critic_extra}"
            )
        if spec.activation not in ACTIVATIONS:
            raise CheckpointError(
                f"card 'policy.activation' {spec.activation!r} is not one of {ACTIVATIONS}"
            )
        sizes = (spec.observation_size, spec.num_actions, *spec.net_arch)
        if min(sizes) < 1 or max(sizes) > MAX_WIDTH or len(spec.net_arch) > MAX_DEPTH:
            raise CheckpointError(
                f"card 'policy' describes an implausible network {spec.to_dict()}: widths must "
                f"be 1..{MAX_WIDTH}, at most {MAX_DEPTH} hidden layers"
            )
        if spec.critic_extra > MAX_WIDTH or spec.parameter_count() > MAX_PARAMETERS:
            raise CheckpointError(
                f"card 'policy' describes {spec.parameter_count():,} weights (at most "
                f"{MAX_PARAMETERS:,} are loaded)"
            )
        return spec


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


# ------------------------------------------------------------------ the Bot
class PolicyBot:
    """A trained policy behind the Bot protocol: the greedy masked argmax of its logits.

    The forward pass runs in NumPy on weights copied out of the state dict
    (fast for one observation at a time, and free of torch inside env workers).
    """

    def __init__(
        self, state_dict: Mapping[str, Any], spec: PolicySpec, name: str = "agent"
    ) -> None:
        self.name = name
        self.spec = spec
        self._layers: list[tuple[np.ndarray, np.ndarray]] = []
        for i in range(len(spec.net_arch)):
            w = _to_numpy(state_dict[f"mlp_extractor.policy_net.{2 * i}.weight"])
            b = _to_numpy(state_dict[f"mlp_extractor.policy_net.{2 * i}.bias"])
            self._layers.append((w.T.copy(), b))
        self._out_w = _to_numpy(state_dict["action_net.weight"]).T.copy()
        self._out_b = _to_numpy(state_dict["action_net.bias"])
        self._act = np.tanh if spec.activation == "tanh" else _relu

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """Action logits for one observation ``(obs,)`` or a batch ``(n, obs)``."""
        x = np.asarray(observations, dtype=np.float32)
        if x.shape[-1] != self.spec.observation_size:
            raise ValueError(
                f"observation size {x.shape[-1]} does not fit this policy "
                f"(trained on size {self.spec.observation_size})"
            )
        for w, b in self._layers:
            x = self._act(x @ w + b)
        return x @ self._out_w + self._out_b

    def greedy(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Greedy legal actions of a batch (masked argmax)."""
        logits = self.logits(observations)
        masked = np.where(np.asarray(action_masks, dtype=bool), logits, -np.inf)
        return masked.argmax(axis=-1)

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        if not np.any(action_mask):
            raise ValueError("no legal action in the action mask")
        return int(self.greedy(observation, action_mask))


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def _to_numpy(t: Any) -> np.ndarray:
    if hasattr(t, "detach"):
        t = t.detach().cpu().numpy()
    return np.asarray(t, dtype=np.float32)


# ----------------------------------------------------------- save and load
def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of a file."""
    h = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def weights_path(path: str | Path) -> Path:
    """The ``.pt`` file of a checkpoint given as ``x.pt``, ``x.json`` or ``x``."""
    p = Path(path)
    if p.suffix in (WEIGHTS_SUFFIX, CARD_SUFFIX):
        return p.with_suffix(WEIGHTS_SUFFIX)
    return p.with_name(p.name + WEIGHTS_SUFFIX)


def card_path(path: str | Path) -> Path:
    """The ``.json`` card of a checkpoint given as ``x.pt``, ``x.json`` or ``x``."""
    return weights_path(path).with_suffix(CARD_SUFFIX)


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


def load_card(path: str | Path) -> dict[str, Any]:
    """Read and check a checkpoint's JSON card (nothing is unpickled)."""
    cpath = card_path(path)
    if not cpath.exists():
        raise CheckpointError(f"checkpoint card not found: {cpath}")
    if not cpath.is_file():
        raise CheckpointError(f"checkpoint card {cpath} is a folder, not a file")
    try:
        card = json.loads(cpath.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise CheckpointError(f"checkpoint card {cpath} is not JSON (not UTF-8 text)") from None
    except json.JSONDecodeError as exc:
        raise CheckpointError(f"checkpoint card {cpath} is not valid JSON: {exc}") from None
    if not isinstance(card, dict):
        raise CheckpointError(f"checkpoint card {cpath} is not a JSON object")
    missing = [k for k in REQUIRED_CARD_KEYS if k not in card]
    if missing:
        raise CheckpointError(f"checkpoint card {cpath} lacks {missing}")
    if card["format"] != CHECKPOINT_FORMAT:
        raise CheckpointError(
            f"checkpoint card {cpath} has format {card['format']!r}, expected {CHECKPOINT_FORMAT!r}"
        )
    from ratenvs.games import GAMES

    if not isinstance(card["game"], str) or card["game"] not in GAMES:
        raise CheckpointError(
            f"checkpoint card {cpath} is for an unknown game {card['game']!r}; the games are "
            f"{', '.join(GAMES)}"
        )
    for key, kind, words in (
        ("env_options", dict, "an object"),
        ("policy", dict, "an object"),
        ("weights_sha256", str, "a string"),
    ):
        if not isinstance(card[key], kind):
            raise CheckpointError(
                f"checkpoint card {cpath}: {key!r} must be {words}, got {card[key]!r}"
            )
    return card


@dataclass
class Checkpoint:
    """A loaded checkpoint: its card, policy weights and (optionally) optimizer state."""

    path: Path
    card: dict[str, Any]
    spec: PolicySpec
    policy_state: dict[str, Any]
    optimizer_state: dict[str, Any] | None

    @property
    def game(self) -> str:
        return str(self.card["game"])

    @property
    def env_options(self) -> dict[str, Any]:
        return dict(self.card["env_options"])

    def bot(self, name: str | None = None) -> PolicyBot:
        """The policy as a greedy :class:`PolicyBot`."""
        return PolicyBot(self.policy_state, self.spec, name or self.path.stem)

    def policy(self) -> Any:
        """The policy as an sb3-contrib ``MaskableActorCriticPolicy`` (torch module)."""
        policy = build_policy(self.spec)
        policy.load_state_dict(self.policy_state)
        return policy


def load_checkpoint(
    path: str | Path, *, game: str | None = None, observation_size: int | None = None
) -> Checkpoint:
    """Load a checkpoint safely.

    Checks, in order: the card, the SHA-256 of the weights file against the card,
    then unpickles with ``torch.load(weights_only=True)`` (which refuses any
    object that is not a tensor or plain container), then the shapes. ``game``
    and ``observation_size``, when given, must match the checkpoint: a
    CheckpointError (a ValueError) says what differs.
    """
    import torch

    wpath = weights_path(path)
    card = load_card(wpath)
    if game is not None and card["game"] != game:
        raise CheckpointError(
            f"checkpoint {wpath} is an agent for {card['game']!r}, not for {game!r}"
        )
    spec = PolicySpec.from_dict(card["policy"])
    if observation_size is not None and observation_size != spec.observation_size:
        raise CheckpointError(
            f"checkpoint {wpath} expects observations of size {spec.observation_size}, but this "
            f"env gives size {observation_size} (env options differ from the card's "
            f"{card['env_options']})"
        )
    if not wpath.exists():
        raise CheckpointError(f"checkpoint weights not found: {wpath}")
    if not wpath.is_file():
        raise CheckpointError(f"checkpoint weights {wpath} is a folder, not a file")
    digest = sha256_file(wpath)
    if digest != card["weights_sha256"]:
        raise CheckpointError(
            f"SHA-256 mismatch for {wpath}: the card says {card['weights_sha256']}, the file "
            f"hashes to {digest}; the weights were changed or corrupted"
        )
    try:
        payload = torch.load(wpath, map_location="cpu", weights_only=True)
    except Exception as exc:  # whatever torch raises for a file that is not a checkpoint
        # (an empty file: EOFError with no message; text: KeyError; a bad pickle: ...)
        said = str(exc).strip().splitlines()
        why = f"{type(exc).__name__}: {said[0]}" if said else type(exc).__name__
        raise CheckpointError(
            f"refused to load {wpath}: it is not a plain tensor checkpoint "
            f"(the safe weights-only unpickler rejected it: {why})"
        ) from None
    if not isinstance(payload, dict) or not isinstance(payload.get("policy"), dict):
        raise CheckpointError(f"{wpath} does not hold a {{'policy': state_dict}} mapping")
    state = payload["policy"]
    if not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise CheckpointError(f"{wpath}: the policy state dict holds non-tensor entries")
    held = sum(int(v.numel()) for v in state.values())
    if held != spec.parameter_count():
        raise CheckpointError(
            f"{wpath}: the weights hold {held:,} numbers, but the card's architecture "
            f"{spec.to_dict()} has {spec.parameter_count():,}; card and weights do not match"
        )
    _check_shapes(wpath, state, spec)
    _check_finite(wpath, state)
    optimizer = payload.get("optimizer")
    return Checkpoint(wpath, card, spec, state, optimizer if isinstance(optimizer, dict) else None)


def _check_shapes(path: Path, state: Mapping[str, Any], spec: PolicySpec) -> None:
    expected = build_policy(spec).state_dict()
    missing = sorted(set(expected) - set(state))
    extra = sorted(set(state) - set(expected))
    if missing or extra:
        raise CheckpointError(
            f"{path}: the weights do not fit the card's architecture {spec.to_dict()} "
            f"(missing {missing[:3]}, unexpected {extra[:3]})"
        )
    for key, tensor in expected.items():
        if tuple(state[key].shape) != tuple(tensor.shape):
            raise CheckpointError(
                f"{path}: weight {key} has shape {tuple(state[key].shape)}, the card's "
                f"architecture needs {tuple(tensor.shape)}"
            )


def _check_finite(path: Path, state: Mapping[str, Any]) -> None:
    """Refuse weights holding NaN or infinity: such a policy's logits are garbage (NaN
    logits make the masked argmax pick action 0 whatever the mask says)."""
    import torch

    for key, tensor in state.items():
        if tensor.is_floating_point() or tensor.is_complex():
            bad = ~torch.isfinite(tensor)
            if bool(bad.any()):
                kinds = []
                if bool(torch.isnan(tensor).any()):
                    kinds.append("NaN")
                if bool(torch.isinf(tensor).any()):
                    kinds.append("infinity")
                raise CheckpointError(
                    f"{path}: weight {key} holds {' and '.join(kinds)} "
                    f"({int(bad.sum())} of {tensor.numel()} entries); refusing a broken policy"
                )
