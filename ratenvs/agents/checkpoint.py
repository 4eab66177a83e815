"""Safe checkpoints: a plain tensor file plus a JSON card, read back as a Bot.

A checkpoint is two files side by side:

- ``<name>.pt``: ``{"policy": state_dict, "optimizer": state_dict (optional)}`` written
  by ``torch.save`` (``training/``) and read back ONLY with
  ``torch.load(weights_only=True)``, whose unpickler accepts tensors and plain containers
  and refuses every other global, so loading a checkpoint never runs code that came with
  it.
- ``<name>.json``: the card: format, game and env options, policy architecture
  (:class:`PolicySpec`), config, timesteps, wall time, library versions, git commit, the
  SHA-256 of the ``.pt`` file (checked before anything is unpickled) and evaluation
  results.

Loading checks, in order and before any network exists: the card (format, game, types,
the architecture's sizes within :data:`MAX_WIDTH`, :data:`MAX_DEPTH`,
:data:`MAX_PARAMETERS`), the SHA-256 of the weights, the weights-only unpickling, then
the state dict against the shapes the card's architecture implies
(:func:`expected_shapes`, worked out from the card alone) and finiteness.

:class:`PolicyBot` plays a loaded policy behind the :class:`~ratenvs.common.bots.Bot`
protocol (greedy: the masked argmax of the action logits), its forward pass in NumPy.
torch is imported only when weights are read (``pip install "ratenvs[agents]"``); cards
are read without it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

CHECKPOINT_FORMAT = "ratenvs-checkpoint/1"
WEIGHTS_SUFFIX = ".pt"
CARD_SUFFIX = ".json"
ACTIVATIONS = ("tanh", "relu")
REQUIRED_CARD_KEYS = ("format", "game", "env_options", "policy", "weights_sha256")
AGENTS_EXTRA = 'pip install "ratenvs[agents]"'
"""How to get torch, which reading checkpoint weights needs."""

MAX_WIDTH = 1 << 16
"""Widest layer (and largest observation or action space) a card may describe."""
MAX_DEPTH = 64
"""Most hidden layers a card may describe."""
MAX_PARAMETERS = 100_000_000
"""Most weights a checkpoint may hold: a card is checked against it before any network is
built (a 267-byte card must not make the loader build a huge network)."""


class CheckpointError(ValueError):
    """A checkpoint is missing, corrupt, unsafe, or does not fit the game / env asked for."""


class MissingExtraError(ModuleNotFoundError):
    """torch is not installed, and reading checkpoint weights needs it."""


def import_torch() -> Any:
    """The ``torch`` module, or a :class:`MissingExtraError` saying how to install it."""
    try:
        import torch
    except ModuleNotFoundError as exc:
        if exc.name != "torch":
            raise
        raise MissingExtraError(
            f"reading checkpoint weights needs torch, which is not installed: {AGENTS_EXTRA}",
            name="torch",
        ) from None
    return torch


@dataclass(frozen=True)
class PolicySpec:
    """The architecture of a policy: enough to check and rebuild it from a state dict.

    The policy is stable-baselines3's actor-critic MLP: a policy network and a value
    network, each ``net_arch`` deep, then the action head (on the policy network) and the
    value head (on the value network).
    """

    observation_size: int
    num_actions: int
    net_arch: tuple[int, ...]
    activation: str = "tanh"
    critic_extra: int = 0
    """Privileged entries the value network reads after the observation (training only;
    see ``training/privileged.py``). 0: the usual actor-critic."""

    def expected_shapes(self) -> dict[str, tuple[int, ...]]:
        """The state dict this architecture has: every key and its shape, in
        stable-baselines3's order, worked out without building anything."""
        shapes: dict[str, tuple[int, ...]] = {}

        def mlp(prefix: str, width: int) -> int:
            for i, out in enumerate(self.net_arch):
                shapes[f"{prefix}.{2 * i}.weight"] = (out, width)
                shapes[f"{prefix}.{2 * i}.bias"] = (out,)
                width = out
            return width

        pi_width = mlp("mlp_extractor.policy_net", self.observation_size)
        vf_width = mlp("mlp_extractor.value_net", self.observation_size + self.critic_extra)
        shapes["action_net.weight"] = (self.num_actions, pi_width)
        shapes["action_net.bias"] = (self.num_actions,)
        shapes["value_net.weight"] = (1, vf_width)
        shapes["value_net.bias"] = (1,)
        return shapes

    def parameter_count(self) -> int:
        """How many weights this architecture has, worked out without building it."""
        return sum(int(np.prod(shape)) for shape in self.expected_shapes().values())

    def to_dict(self) -> dict[str, Any]:
        """The card's ``policy`` entry."""
        out = asdict(self)
        out["net_arch"] = list(self.net_arch)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PolicySpec:
        """The architecture of a card's ``policy`` entry, checked: a CheckpointError for a
        malformed entry or an implausible network (sizes, depth, weight count)."""
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


# ------------------------------------------------------------------ the Bot
class PolicyBot:
    """A trained policy behind the Bot protocol: the greedy masked argmax of its logits.

    The forward pass runs in NumPy on weights copied out of the state dict (fast for one
    observation at a time, and free of torch inside env workers).
    """

    def __init__(
        self,
        state_dict: Mapping[str, Any],
        spec: PolicySpec,
        name: str = "agent",
        *,
        game: str | None = None,
        env_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.name = name
        self.spec = spec
        self.game = game
        """Package name of the game the policy plays (None: not known)."""
        self.env_options = None if env_options is None else dict(env_options)
        """The env options it was trained with (None: not known)."""
        self._layers: list[tuple[np.ndarray, np.ndarray]] = []
        for i in range(len(spec.net_arch)):
            w = _to_numpy(state_dict[f"mlp_extractor.policy_net.{2 * i}.weight"])
            b = _to_numpy(state_dict[f"mlp_extractor.policy_net.{2 * i}.bias"])
            self._layers.append((w.T.copy(), b.copy()))  # copies: frozen whatever the dict
        self._out_w = _to_numpy(state_dict["action_net.weight"]).T.copy()
        self._out_b = _to_numpy(state_dict["action_net.bias"]).copy()
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
        """The greedy legal action (``rng`` is not used: the policy is deterministic)."""
        if not np.any(action_mask):
            raise ValueError("no legal action in the action mask")
        return int(self.greedy(observation, action_mask))


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def _to_numpy(t: Any) -> np.ndarray:
    if hasattr(t, "detach"):
        t = t.detach().cpu().numpy()
    return np.asarray(t, dtype=np.float32)


# --------------------------------------------------------------------- files
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


def load_card(path: str | Path) -> dict[str, Any]:
    """Read and check a checkpoint's JSON card (nothing is unpickled, torch is not needed)."""
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
        """Package name of the checkpoint's game."""
        return str(self.card["game"])

    @property
    def env_options(self) -> dict[str, Any]:
        """The env options the policy was trained with (a copy)."""
        return dict(self.card["env_options"])

    def bot(self, name: str | None = None) -> PolicyBot:
        """The policy as a greedy :class:`PolicyBot`."""
        return PolicyBot(
            self.policy_state,
            self.spec,
            name or self.path.stem,
            game=self.game,
            env_options=self.env_options,
        )


def card_version(card: Mapping[str, Any]) -> int | None:
    """The env version a checkpoint was trained on, from its card's ``gymnasium_id``
    (``ratenvs/<Game>-v1`` -> 1); None for a card without one."""
    gid = card.get("gymnasium_id")
    if gid is None:
        return None
    match = re.search(r"-v(\d+)$", gid) if isinstance(gid, str) else None
    if match is None:
        raise CheckpointError(f"the card's gymnasium_id {gid!r} is not an id ending in -v<N>")
    return int(match.group(1))


def check_version(path: str | Path, card: Mapping[str, Any]) -> None:
    """The card is for the env version of its game that this ratenvs plays; else a
    CheckpointError saying how to carry it over (``python -m training.migrate``)."""
    from ratenvs.games import GAMES

    have, spec = card_version(card), GAMES[card["game"]]
    if have is None or have == spec.version:
        return
    if have < spec.version:
        raise CheckpointError(
            f"checkpoint {path} was trained on {card['gymnasium_id']}; this ratenvs plays "
            f"{spec.gymnasium_id} (see CHANGELOG.md): migrate it with "
            f"`python -m training.migrate {path} NEW.pt` and evaluate it again"
        )
    raise CheckpointError(
        f"checkpoint {path} was trained on {card['gymnasium_id']}, newer than this ratenvs's "
        f"{spec.gymnasium_id}: upgrade ratenvs"
    )


def load_checkpoint(
    path: str | Path,
    *,
    game: str | None = None,
    observation_size: int | None = None,
    any_version: bool = False,
) -> Checkpoint:
    """Load a checkpoint safely.

    Checks, in order: the card, the SHA-256 of the weights file against the card,
    then unpickles with ``torch.load(weights_only=True)`` (which refuses any
    object that is not a tensor or plain container), then the shapes against the card's
    architecture and finiteness. ``game`` and ``observation_size``, when given, must
    match the checkpoint: a CheckpointError (a ValueError) says what differs. A card of
    another env version of its game is refused (:func:`check_version`) unless
    ``any_version`` (``training.migrate`` reads old ones). Without torch, a
    :class:`MissingExtraError` names the extra to install.
    """
    wpath = weights_path(path)
    card = load_card(wpath)
    if not any_version:
        check_version(wpath, card)
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
    torch = import_torch()
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
    check_shapes(wpath, state, spec)
    check_finite(wpath, state)
    optimizer = payload.get("optimizer")
    return Checkpoint(wpath, card, spec, state, optimizer if isinstance(optimizer, dict) else None)


def check_shapes(path: str | Path, state: Mapping[str, Any], spec: PolicySpec) -> None:
    """The state dict has exactly the keys and shapes of the card's architecture
    (:meth:`PolicySpec.expected_shapes`, no network built); else a CheckpointError."""
    expected = spec.expected_shapes()
    missing = sorted(set(expected) - set(state))
    extra = sorted(set(state) - set(expected))
    if missing or extra:
        raise CheckpointError(
            f"{path}: the weights do not fit the card's architecture {spec.to_dict()} "
            f"(missing {missing[:3]}, unexpected {extra[:3]})"
        )
    for key, shape in expected.items():
        if tuple(state[key].shape) != shape:
            raise CheckpointError(
                f"{path}: weight {key} has shape {tuple(state[key].shape)}, the card's "
                f"architecture needs {shape}"
            )


def check_finite(path: str | Path, state: Mapping[str, Any]) -> None:
    """Refuse weights holding NaN or infinity: such a policy's logits are garbage (NaN
    logits make the masked argmax pick action 0 whatever the mask says)."""
    torch = import_torch()
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


def checkpoint_env(ckpt: Checkpoint) -> Any:
    """The ``raw_env`` of a loaded checkpoint's game and env options, checked against its
    policy: options the game refuses, or an observation or action count that differs from
    the policy's, are a CheckpointError naming the checkpoint (before any game is played)."""
    from ratenvs.games import GAMES

    try:
        env = GAMES[ckpt.game].load().raw_env(**ckpt.env_options)
    except (ValueError, TypeError) as exc:
        raise CheckpointError(
            f"checkpoint {ckpt.path}: its card's env_options {ckpt.env_options} do not fit "
            f"{ckpt.game}: {exc}"
        ) from None
    check_env_fits(ckpt, env)
    return env


def check_env_fits(ckpt: Checkpoint, env: Any) -> None:
    """``env`` (an AEC env of the checkpoint's game) gives the observation size and action
    count of the checkpoint's policy; else a CheckpointError."""
    agent = env.possible_agents[0]
    size = env.observation_space(agent)["observation"].shape[0]
    actions = int(env.action_space(agent).n)
    if size != ckpt.spec.observation_size:
        raise CheckpointError(
            f"checkpoint expects observations of size {ckpt.spec.observation_size}, "
            f"{ckpt.game} with {ckpt.env_options} gives {size}"
        )
    if actions != ckpt.spec.num_actions:
        raise CheckpointError(
            f"checkpoint {ckpt.path} has {ckpt.spec.num_actions} actions, {ckpt.game} with "
            f"{ckpt.env_options} has {actions}"
        )
