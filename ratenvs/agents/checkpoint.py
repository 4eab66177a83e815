"""Safe checkpoints: a JSON card and the weights file it names, read back as a Bot without
torch.

A checkpoint ``<name>`` is one card and the files it names, side by side in one folder:

- ``<name>.json``: the card: format, game and env options, policy architecture
  (:class:`PolicySpec`), config, timesteps, wall time, library versions, git commit,
  evaluation results, and the weights file it goes with (``weights_file``) with that
  file's SHA-256 (``weights_sha256``).
- ``<name>.<digest>.safetensors``: the policy's weights (safetensors, float32), named by
  the first :data:`DIGEST_CHARS` hex digits of their SHA-256 (content-addressed). Read
  with NumPy: no torch, no pickle.
- ``<name>.<digest>.optimizer.safetensors`` (optional, for resuming training only; the
  card's ``optimizer_file`` and ``optimizer_sha256``): the optimizer's state, its tensors
  in safetensors and its other entries as JSON in the file's metadata.

**The card is the commit point.** A write (``training.checkpoint.save_checkpoint``) puts
the new weights under their own new names first, then renames the new card over the
old one (one ``os.replace``), then deletes the files no card names any more: a kill at
any moment leaves the old card with its old files or the new card with its new ones,
never a card without its weights. Temporary files an interrupted write left behind
(``.<file>.<random>.tmp``) are removed by the next write of that checkpoint. Loaders
ignore files the card does not name.

A checkpoint is named by its card (``x.json``), by ``x``, or by ``x.pt`` (the name of
the older format's weights: every door that took ``x.pt`` takes it still), or by one of
its weights files.

Loading checks, in order, before any array is built: the card (a regular file of at
most :data:`MAX_CARD_BYTES`, nested at most :data:`MAX_CARD_DEPTH` deep, finite numbers,
format, game, types; the architecture's sizes integers within :data:`MAX_WIDTH`,
:data:`MAX_DEPTH`, :data:`MAX_PARAMETERS`), the weights file (a regular file no larger
than the architecture allows), its SHA-256 against the card (computed over the very
bytes that are then parsed), the safetensors header (at most :data:`MAX_HEADER_BYTES`,
every tensor's name, dtype (``F32``/``F64``: real) and shape against the shapes the
card's architecture implies, :func:`PolicySpec.expected_shapes`, and its byte range);
only then are the arrays read (``safetensors.numpy``), and refused if not finite. Every
refusal is one :class:`CheckpointError` line naming the file and the limit.

**The older format** (card format ``ratenvs-checkpoint/1``, weights ``<name>.pt``, a
``torch.save`` file) still loads where torch is installed, through
``torch.load(weights_only=True)`` (which refuses any object that is not a tensor or a
plain container) and the same checks (real floating weights, shapes, finiteness);
the repository's ``python -m training.migrate --in-place x.pt`` rewrites it in this
format.

:class:`PolicyBot` plays a loaded policy behind the :class:`~ratenvs.common.bots.Bot`
protocol (greedy: the masked argmax of the action logits), its forward pass in NumPy.
``pip install "ratenvs[agents]"`` (safetensors) is all an agent needs.
"""

from __future__ import annotations

import hashlib
import importlib
import io
import json
import re
import stat
import sys
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ratenvs.common.atomic import PROCESS_STARTED, TEMP_SUFFIX, atomic_file
from ratenvs.common.safe_load import LoadError, loads_json, read_regular_file

CHECKPOINT_FORMAT = "ratenvs-checkpoint/2"
"""The card format this ratenvs writes: weights in a content-addressed safetensors file."""
LEGACY_FORMAT = "ratenvs-checkpoint/1"
"""The older card format: weights in ``<name>.pt`` (torch); read where torch is installed."""
FORMATS = (CHECKPOINT_FORMAT, LEGACY_FORMAT)
WEIGHTS_SUFFIX = ".safetensors"
OPTIMIZER_SUFFIX = ".optimizer.safetensors"
LEGACY_WEIGHTS_SUFFIX = ".pt"
CARD_SUFFIX = ".json"
DIGEST_CHARS = 16
"""Hex digits of the SHA-256 in a weights file's name (64 bits: names never collide by
chance; the card holds the full digest, which is what is checked)."""
ACTIVATIONS = ("tanh", "relu")
REQUIRED_CARD_KEYS = ("format", "game", "env_options", "policy", "weights_sha256")
PLAYS = ("greedy", "sample")
"""How a checkpoint's policy may choose (its card's optional ``play``, default greedy)."""
AGENTS_EXTRA = 'pip install "ratenvs[agents]"'
"""How to get safetensors, which reading checkpoint weights needs."""
TORCH_FOR_LEGACY = "pip install torch (CPU build: pip install torch --index-url https://download.pytorch.org/whl/cpu)"
"""How to get torch, which only the older ``.pt`` checkpoints need."""
TRAIN_EXTRA = 'pip install "ratenvs[train]"'
"""How to get what training needs (torch, stable-baselines3, sb3-contrib)."""
TRAINING_PACKAGES = ("torch", "stable_baselines3", "sb3_contrib")
"""The packages :func:`require_training_packages` checks, in that order."""

MAX_WIDTH = 1 << 16
"""Widest layer (and largest observation or action space) a card may describe."""
MAX_DEPTH = 64
"""Most hidden layers a card may describe."""
MAX_PARAMETERS = 100_000_000
"""Most weights a checkpoint may hold: a card is checked against it before any network is
built (a 267-byte card must not make the loader build a huge network)."""
MAX_CARD_BYTES = 4 * 1024 * 1024
"""Largest card read (the largest shipped card, with its learning curve, is about 120 kB)."""
MAX_CARD_DEPTH = 32
"""Deepest nesting of lists and objects in a card (the shipped cards nest 6 deep)."""
MAX_HEADER_BYTES = 1024 * 1024
"""Largest safetensors header read (a policy's header is about 1 kB)."""
WEIGHT_DTYPES = {"F32": np.dtype("<f4"), "F64": np.dtype("<f8")}
"""The dtypes a policy's weights may have: real floating point."""
OPTIMIZER_DTYPES = {**WEIGHT_DTYPES, "I64": np.dtype("<i8")}
"""The dtypes of an optimizer state's tensors (step counts may be integers)."""
_CONTENT_NAME = re.compile(
    rf"^(?P<base>.+)\.[0-9a-f]{{{DIGEST_CHARS}}}(?:\.optimizer)?\.safetensors$"
)


class CheckpointError(ValueError):
    """A checkpoint is missing, corrupt, unsafe, or does not fit the game / env asked for."""


class MissingExtraError(ModuleNotFoundError):
    """A package reading checkpoint weights needs is not installed (safetensors, or torch
    for the older ``.pt`` checkpoints)."""


def import_torch() -> Any:
    """The ``torch`` module (only the older ``.pt`` checkpoints need it), or a
    :class:`MissingExtraError` saying how to install it or migrate the checkpoint."""
    try:
        import torch
    except ModuleNotFoundError as exc:
        if exc.name != "torch":
            raise
        raise MissingExtraError(
            "this is a checkpoint of the older format (weights in a .pt file), which needs "
            f"torch to read: {TORCH_FOR_LEGACY}; or migrate it once where torch is "
            "installed, from a clone of the repository: python -m training.migrate --in-place "
            "CHECKPOINT",
            name="torch",
        ) from None
    return torch


def require_training_packages(purpose: str) -> None:
    """A :class:`MissingExtraError` naming the train extra when a package of
    :data:`TRAINING_PACKAGES` is missing, e.g. "training needs sb3-contrib (the train extra:
    ...)" for ``purpose`` "training"; a package missing underneath one of them is raised as
    it is."""
    for name in TRAINING_PACKAGES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            raise MissingExtraError(
                f"{purpose} needs {name.replace('_', '-')} (the train extra: {TRAIN_EXTRA})",
                name=name,
            ) from None


def import_safetensors_numpy() -> Any:
    """``safetensors.numpy``, or a :class:`MissingExtraError` naming the agents extra."""
    try:
        import safetensors.numpy as st_numpy
    except ModuleNotFoundError as exc:
        if exc.name not in ("safetensors", "safetensors.numpy"):
            raise
        raise MissingExtraError(
            f"reading checkpoint weights needs safetensors, which is not installed: {AGENTS_EXTRA}",
            name="safetensors",
        ) from None
    return st_numpy


def _card_int(data: Mapping[str, Any], key: str, default: int | None = None) -> int:
    """``data[key]`` as a card integer: a JSON integer (not a float, string or bool)."""
    if key not in data:
        if default is None:
            raise CheckpointError(f"card 'policy' entry lacks {key!r}")
        return default
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise CheckpointError(
            f"card 'policy.{key}' must be an integer, got {value!r} ({type(value).__name__})"
        )
    return value


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
    see the repository's ``training/privileged.py``). 0: the usual actor-critic."""

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
        malformed entry (sizes that are not integers: ``12.7``, ``"4"``, ``true``) or an
        implausible network (sizes, depth, weight count)."""
        if not isinstance(data, Mapping):
            raise CheckpointError(f"card 'policy' entry must be an object, got {data!r}")
        arch = data.get("net_arch")
        if not isinstance(arch, list):
            raise CheckpointError(
                f"card 'policy.net_arch' must be a list of integers, got {arch!r}"
            )
        if len(arch) > MAX_DEPTH:
            raise CheckpointError(
                f"card 'policy' describes an implausible network of {len(arch)} hidden layers "
                f"(at most {MAX_DEPTH})"
            )
        widths = []
        for width in arch:
            if isinstance(width, bool) or not isinstance(width, int):
                raise CheckpointError(
                    f"card 'policy.net_arch' must be a list of integers, got {width!r} in it"
                )
            widths.append(width)
        activation = data.get("activation", "tanh")
        if activation not in ACTIVATIONS:
            raise CheckpointError(
                f"card 'policy.activation' {activation!r} is not one of {ACTIVATIONS}"
            )
        spec = cls(
            observation_size=_card_int(data, "observation_size"),
            num_actions=_card_int(data, "num_actions"),
            net_arch=tuple(widths),
            activation=activation,
            critic_extra=_card_int(data, "critic_extra", 0),
        )
        if spec.critic_extra < 0:
            raise CheckpointError(
                f"card 'policy.critic_extra' must be >= 0, got {spec.critic_extra}"
            )
        sizes = (spec.observation_size, spec.num_actions, *spec.net_arch)
        if min(sizes) < 1 or max(sizes) > MAX_WIDTH:
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
    """A trained policy behind the Bot protocol: the greedy masked argmax of its logits, or
    (``sample=True``, a card's ``"play": "sample"``) an action drawn from its softmax over
    the legal actions.

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
        sample: bool = False,
    ) -> None:
        self.name = name
        self.spec = spec
        self.sample = bool(sample)
        """Draw from the policy's softmax over the legal actions instead of its argmax (a
        card's ``"play": "sample"``: e.g. a policy that imitates a randomised bot)."""
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

    def sampled(
        self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """Legal actions of a batch drawn from the policy's softmax over the legal actions
        (the Gumbel-max draw: the argmax of the masked logits plus Gumbel noise)."""
        logits = self.logits(observations)
        noisy = logits - np.log(-np.log(rng.random(logits.shape)))
        masked = np.where(np.asarray(action_masks, dtype=bool), noisy, -np.inf)
        return masked.argmax(axis=-1)

    def choose(
        self, observations: np.ndarray, action_masks: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """The policy's legal actions for a batch, as it plays: :meth:`greedy`, or
        :meth:`sampled` with ``rng`` when :attr:`sample` is set."""
        if self.sample:
            return self.sampled(observations, action_masks, rng)
        return self.greedy(observations, action_masks)

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """The policy's legal action: the greedy one (``rng`` not used), or one drawn from
        ``rng`` when :attr:`sample` is set."""
        if not np.any(action_mask):
            raise ValueError("no legal action in the action mask")
        return int(self.choose(observation, action_mask, rng))


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def _to_numpy(t: Any) -> np.ndarray:
    if hasattr(t, "detach"):
        t = t.detach().cpu().numpy()
    return np.asarray(t, dtype=np.float32)


# --------------------------------------------------------------------- files
def library_versions() -> dict[str, str]:
    """Versions of Python and the libraries a checkpoint depends on (a card's
    ``versions``: training runs and saved best responders write them)."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for pkg in (
        "ratenvs",
        "torch",
        "stable-baselines3",
        "sb3-contrib",
        "gymnasium",
        "pettingzoo",
        "numpy",
    ):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:  # pragma: no cover - partial installs only
            out[pkg] = "not installed"
    return out


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | Path) -> str:
    """Hex SHA-256 of a file."""
    h = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def checkpoint_base(path: str | Path) -> Path:
    """The checkpoint a path names, without suffix: ``dir/x`` for ``dir/x``, ``dir/x.json``,
    ``dir/x.pt``, ``dir/x.<digest>.safetensors`` or ``dir/x.<digest>.optimizer.safetensors``."""
    p = Path(path)
    match = _CONTENT_NAME.match(p.name)
    if match:
        return p.with_name(match.group("base"))
    if p.suffix in (LEGACY_WEIGHTS_SUFFIX, CARD_SUFFIX, WEIGHTS_SUFFIX):
        return p.with_suffix("")
    return p


def card_path(path: str | Path) -> Path:
    """The ``.json`` card of the checkpoint ``path`` names (see :func:`checkpoint_base`); a
    path with no name (``""``, ``.``, ``/``) is a CheckpointError."""
    base = checkpoint_base(path)
    if not base.name or base.name in (".", ".."):
        raise CheckpointError(f"{str(path)!r} names no checkpoint (give x, x.json or agent:NAME)")
    return base.with_name(base.name + CARD_SUFFIX)


def legacy_weights_path(path: str | Path) -> Path:
    """The ``<name>.pt`` weights of the checkpoint ``path`` names, in the older format."""
    base = checkpoint_base(path)
    return base.with_name(base.name + LEGACY_WEIGHTS_SUFFIX)


def weights_file_name(base: str | Path, digest: str, *, optimizer: bool = False) -> str:
    """The content-addressed file name of checkpoint ``base``'s weights (or optimizer
    state) whose SHA-256 is ``digest``: ``<name>.<digest[:16]>.safetensors``."""
    suffix = OPTIMIZER_SUFFIX if optimizer else WEIGHTS_SUFFIX
    return f"{Path(base).name}.{digest[:DIGEST_CHARS]}{suffix}"


def is_checkpoint(path: str | Path) -> bool:
    """A checkpoint exists at ``path`` (its card is a file; its weights are not looked at);
    a path that names no checkpoint (``""``) is none."""
    try:
        return card_path(path).is_file()
    except CheckpointError:
        return False


def checkpoint_there(path: str | Path) -> bool:
    """A checkpoint is at ``path``: its card, or weights files of its name (a card lost, an
    older ``.pt``)."""
    return is_checkpoint(path) or bool(owned_files(path))


def refuse_existing(path: str | Path, flag: str) -> None:
    """Raise ValueError if a checkpoint is at ``path`` (named by ``flag``;
    :func:`checkpoint_there`): a command that writes a new checkpoint there would replace
    it, and a replaced checkpoint is gone."""
    if checkpoint_there(path):
        raise ValueError(
            f"{flag} {path}: a checkpoint is there already ({card_path(path)}); give a name "
            "no checkpoint has, or remove it first"
        )


def is_weights_file(path: str | Path) -> bool:
    """Whether ``path`` is named as a checkpoint's weights file
    (``<name>.<digest>[.optimizer].safetensors``, or an older ``<name>.pt`` with its card
    beside it)."""
    p = Path(path)
    if _CONTENT_NAME.match(p.name):
        return True
    return p.suffix == LEGACY_WEIGHTS_SUFFIX and card_path(p).is_file()


def owned_files(path: str | Path) -> list[Path]:
    """The weights files in the folder of checkpoint ``path`` that belong to it by name
    (``<name>.<digest>[.optimizer].safetensors`` and the older ``<name>.pt``), whether its
    card names them or not (a write collects those it does not)."""
    base = checkpoint_base(path)
    if not base.parent.is_dir():
        return []
    found = []
    for entry in base.parent.iterdir():
        match = _CONTENT_NAME.match(entry.name)
        mine = (match and match.group("base") == base.name) or entry.name == (
            base.name + LEGACY_WEIGHTS_SUFFIX
        )
        if mine and entry.is_file():
            found.append(entry)
    return sorted(found)


def weights_path(path: str | Path, card: Mapping[str, Any] | None = None) -> Path:
    """The weights file of checkpoint ``path``: the one its card names (``card``, else the
    card is read), or ``<name>.pt`` for a card of the older format."""
    if card is None:
        card = load_card(path)
    cpath = card_path(path)
    if card["format"] == LEGACY_FORMAT:
        return legacy_weights_path(cpath)
    return cpath.with_name(card["weights_file"])


def _read(path: Path, what: str, max_bytes: int) -> bytes:
    try:
        return read_regular_file(path, what=what, max_bytes=max_bytes)
    except LoadError as exc:
        raise CheckpointError(str(exc)) from None


def _plain_name(cpath: Path, card: Mapping[str, Any], key: str, suffix: str) -> None:
    name = card[key]
    if (
        not isinstance(name, str)
        or Path(name).name != name
        or name.startswith(".")
        or not name.endswith(suffix)
    ):
        raise CheckpointError(
            f"checkpoint card {cpath}: {key!r} must be the name of a {suffix} file beside the "
            f"card, got {name!r}"
        )


def _sha_entry(cpath: Path, card: Mapping[str, Any], key: str) -> None:
    value = card[key]
    if not isinstance(value, str) or not re.fullmatch(r"[0-9a-f]{64}", value):
        raise CheckpointError(
            f"checkpoint card {cpath}: {key!r} must be a SHA-256 (64 hex digits), got {value!r}"
        )


def _kind(path: Path) -> str:
    """What a path that is not a regular file is, in a message's words."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return "not readable"
    for test, words in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return words
    return "not a regular file"


def load_card(path: str | Path) -> dict[str, Any]:
    """Read and check a checkpoint's JSON card (no weights read, no torch needed): a
    regular file of at most :data:`MAX_CARD_BYTES`, nested at most :data:`MAX_CARD_DEPTH`
    deep, finite numbers; format, game, types, the files it names."""
    cpath = card_path(path)
    given = Path(path)
    if given != cpath and (given.exists() or given.is_symlink()) and not given.is_file():
        raise CheckpointError(
            f"checkpoint {given}: {_kind(given)}, not a regular file (a checkpoint is a card "
            "x.json and the weights file it names)"
        )
    if not cpath.exists() and not cpath.is_symlink():
        raise CheckpointError(f"checkpoint card not found: {cpath}")
    data = _read(cpath, "checkpoint card", MAX_CARD_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise CheckpointError(f"checkpoint card {cpath} is not JSON (not UTF-8 text)") from None
    try:
        card = loads_json(text, what=f"checkpoint card {cpath}", max_depth=MAX_CARD_DEPTH)
    except LoadError as exc:
        raise CheckpointError(str(exc)) from None
    if not isinstance(card, dict):
        raise CheckpointError(f"checkpoint card {cpath} is not a JSON object")
    missing = [k for k in REQUIRED_CARD_KEYS if k not in card]
    if card.get("format") == CHECKPOINT_FORMAT and "weights_file" not in card:
        missing.append("weights_file")
    if missing:
        raise CheckpointError(f"checkpoint card {cpath} lacks {missing}")
    if card["format"] not in FORMATS:
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
    if card.get("play", "greedy") not in PLAYS:
        raise CheckpointError(
            f"checkpoint card {cpath}: 'play' must be one of {PLAYS}, got {card['play']!r}"
        )
    _sha_entry(cpath, card, "weights_sha256")
    if card["format"] == CHECKPOINT_FORMAT:
        _plain_name(cpath, card, "weights_file", WEIGHTS_SUFFIX)
        if card.get("optimizer_file") is not None:
            _plain_name(cpath, card, "optimizer_file", OPTIMIZER_SUFFIX)
            _sha_entry(cpath, card, "optimizer_sha256")
    return card


# ------------------------------------------------------------ safetensors
def safetensors_header(
    path: Path, data: bytes, dtypes: Mapping[str, np.dtype]
) -> tuple[dict[str, tuple[str, tuple[int, ...]]], dict[str, str]]:
    """The tensors a safetensors file declares (name -> (dtype, shape)) and its metadata,
    read from the header alone (no array built): the header at most
    :data:`MAX_HEADER_BYTES`, every entry a ``dtype`` of ``dtypes``, a shape of
    non-negative integers and the byte range that shape needs, inside the file."""
    if len(data) < 8:
        raise CheckpointError(f"{path}: {len(data)} bytes, not a safetensors file")
    size = int.from_bytes(data[:8], "little")
    if size > MAX_HEADER_BYTES:
        raise CheckpointError(
            f"{path}: a safetensors header of {size:,} bytes, more than the limit of "
            f"{MAX_HEADER_BYTES:,}"
        )
    if 8 + size > len(data):
        raise CheckpointError(f"{path}: the safetensors header runs past the end of the file")
    try:
        header = loads_json(
            data[8 : 8 + size].decode("utf-8"), what=f"{path}: safetensors header", max_depth=4
        )
    except UnicodeDecodeError:
        raise CheckpointError(f"{path}: the safetensors header is not UTF-8 text") from None
    except LoadError as exc:
        raise CheckpointError(str(exc)) from None
    if not isinstance(header, dict):
        raise CheckpointError(f"{path}: the safetensors header is not a JSON object")
    metadata = header.pop("__metadata__", None) or {}
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise CheckpointError(f"{path}: the safetensors metadata is not an object of strings")
    body = len(data) - 8 - size
    out: dict[str, tuple[str, tuple[int, ...]]] = {}
    for name, entry in header.items():
        if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "data_offsets"}:
            raise CheckpointError(f"{path}: safetensors entry {name!r} is malformed")
        dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
        if dtype not in dtypes:
            raise CheckpointError(
                f"{path}: weight {name} has dtype {dtype!r}; only {', '.join(dtypes)} (real "
                "numbers) are read"
            )
        if (
            not isinstance(shape, list)
            or len(shape) > 8
            or not all(type(n) is int and 0 <= n <= MAX_PARAMETERS for n in shape)
        ):
            raise CheckpointError(f"{path}: weight {name} has a malformed shape {shape!r}")
        if not (
            isinstance(offsets, list)
            and len(offsets) == 2
            and all(type(n) is int for n in offsets)
            and 0 <= offsets[0] <= offsets[1] <= body
            and offsets[1] - offsets[0] == int(np.prod(shape)) * dtypes[dtype].itemsize
        ):
            raise CheckpointError(
                f"{path}: weight {name}'s byte range {offsets!r} does not fit its shape "
                f"{shape} and the file"
            )
        out[name] = (dtype, tuple(shape))
    return out, metadata


def _arrays(path: Path, data: bytes) -> dict[str, np.ndarray]:
    """The arrays of a safetensors file whose header was checked."""
    st_numpy = import_safetensors_numpy()
    try:
        return st_numpy.load(data)
    except Exception as exc:  # safetensors' own checks (overlapping ranges, ...)
        raise CheckpointError(f"{path}: not a valid safetensors file ({exc})") from None


def _check_policy_header(
    path: Path, declared: Mapping[str, tuple[str, tuple[int, ...]]], spec: PolicySpec
) -> None:
    held = sum(int(np.prod(shape)) for _, shape in declared.values())
    if held != spec.parameter_count():
        raise CheckpointError(
            f"{path}: the weights hold {held:,} numbers, but the card's architecture "
            f"{spec.to_dict()} has {spec.parameter_count():,}; card and weights do not match"
        )
    check_shapes(path, {name: shape for name, (_, shape) in declared.items()}, spec)


def _read_policy(cpath: Path, card: Mapping[str, Any], spec: PolicySpec) -> dict[str, np.ndarray]:
    """The policy weights of a format-2 card, every check before any array is built."""
    wpath = weights_path(cpath, card)
    if not wpath.exists() and not wpath.is_symlink():
        raise CheckpointError(f"checkpoint weights not found: {wpath}")
    limit = 8 + MAX_HEADER_BYTES + 8 * spec.parameter_count()
    data = _read(wpath, "checkpoint weights", limit)
    _check_digest(wpath, data, card["weights_sha256"])
    declared, _ = safetensors_header(wpath, data, WEIGHT_DTYPES)
    _check_policy_header(wpath, declared, spec)
    state = _arrays(wpath, data)
    check_finite(wpath, state)
    return {key: state[key] for key in spec.expected_shapes()}


def _check_digest(path: Path, data: bytes, expected: str) -> None:
    digest = sha256_bytes(data)
    if digest != expected:
        raise CheckpointError(
            f"SHA-256 mismatch for {path}: the card says {expected}, the file "
            f"hashes to {digest}; the weights were changed or corrupted"
        )


# ------------------------------------------------- the optimizer's state
def tree_to_tensors(tree: Any) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """A nested state (an optimizer's ``state_dict``: dicts with int or str keys, lists,
    arrays, plain scalars) as safetensors tensors ``t0, t1, ...`` and metadata holding the
    rest as JSON (``{"skeleton": ...}``); :func:`tree_from_tensors` inverts it."""
    import json

    tensors: dict[str, np.ndarray] = {}

    def encode(node: Any) -> Any:
        if isinstance(node, np.ndarray):
            name = f"t{len(tensors)}"
            tensors[name] = np.require(node, requirements="C")  # 0-d stays 0-d
            return {"tensor": name}
        if isinstance(node, Mapping):
            return {"dict": [[k, encode(v)] for k, v in node.items()]}
        if isinstance(node, tuple):
            return {"tuple": [encode(v) for v in node]}
        if isinstance(node, list):
            return {"list": [encode(v) for v in node]}
        if node is None or isinstance(node, (bool, int, float, str)):
            return {"value": node}
        raise TypeError(f"cannot store a {type(node).__name__} in a checkpoint")

    skeleton = encode(tree)
    return tensors, {"skeleton": json.dumps(skeleton, allow_nan=False)}


def tree_from_tensors(
    path: Path, tensors: Mapping[str, np.ndarray], metadata: Mapping[str, str]
) -> Any:
    """The nested state :func:`tree_to_tensors` stored; a CheckpointError if it is not one."""
    try:
        skeleton = loads_json(
            metadata["skeleton"], what=f"{path}: optimizer skeleton", max_depth=MAX_CARD_DEPTH
        )
    except (KeyError, LoadError) as exc:
        raise CheckpointError(f"{path}: not an optimizer state ({exc})") from None

    def decode(node: Any) -> Any:
        kind, value = next(iter(node.items()))
        if kind == "tensor":
            return tensors[value]
        if kind == "dict":
            return {k: decode(v) for k, v in value}
        if kind == "list":
            return [decode(v) for v in value]
        if kind == "tuple":
            return tuple(decode(v) for v in value)
        return value

    try:
        return decode(skeleton)
    except (KeyError, TypeError, ValueError, StopIteration, AttributeError):
        raise CheckpointError(f"{path}: the optimizer state's skeleton is malformed") from None


def _read_optimizer(cpath: Path, card: Mapping[str, Any], spec: PolicySpec) -> Any:
    """The optimizer state a format-2 card names (None if it names none)."""
    name = card.get("optimizer_file")
    if name is None:
        return None
    opath = cpath.with_name(name)
    limit = 8 + MAX_HEADER_BYTES + 8 * 4 * spec.parameter_count()
    data = _read(opath, "optimizer state", limit)
    _check_digest(opath, data, card["optimizer_sha256"])
    _, metadata = safetensors_header(opath, data, OPTIMIZER_DTYPES)
    tensors = _arrays(opath, data)
    check_finite(opath, tensors)
    tree = tree_from_tensors(opath, tensors, metadata)
    check_optimizer_shapes(opath, tree, spec)
    return tree


def check_optimizer_shapes(path: str | Path, tree: Any, spec: PolicySpec) -> None:
    """An optimizer state (a torch optimizer's ``state_dict``: ``state`` by parameter index,
    ``param_groups``) fits the card's architecture: one parameter per weight of
    :meth:`PolicySpec.expected_shapes`, in its order, and every per-parameter moment of its
    parameter's shape; else a CheckpointError (a resumed run would fail in its first update
    with an error of torch's)."""
    shapes = list(spec.expected_shapes().values())
    if not isinstance(tree, Mapping) or not {"state", "param_groups"} <= set(tree):
        raise CheckpointError(f"{path}: not an optimizer state (no 'state' and 'param_groups')")
    groups = tree["param_groups"]
    try:
        indices = sorted(int(i) for group in groups for i in group["params"])
    except (TypeError, KeyError, ValueError):
        raise CheckpointError(f"{path}: the optimizer's param_groups are malformed") from None
    if indices != list(range(len(shapes))):
        raise CheckpointError(
            f"{path}: the optimizer holds {len(indices)} parameters, the card's architecture "
            f"{len(shapes)}"
        )
    state = tree["state"]
    if not isinstance(state, Mapping):
        raise CheckpointError(f"{path}: the optimizer's state is malformed")
    for index, moments in state.items():
        if not isinstance(index, int) or not 0 <= index < len(shapes):
            raise CheckpointError(f"{path}: the optimizer's state names parameter {index!r}")
        if not isinstance(moments, Mapping):
            raise CheckpointError(
                f"{path}: the optimizer's state of parameter {index} is malformed"
            )
        for name, value in moments.items():
            shape = tuple(getattr(value, "shape", ()))
            if shape and shape != shapes[index]:
                raise CheckpointError(
                    f"{path}: the optimizer's {name} of parameter {index} has shape {shape}, "
                    f"the card's architecture needs {shapes[index]}"
                )


# ------------------------------------------------------- the older format
def _read_legacy(
    cpath: Path, card: Mapping[str, Any], spec: PolicySpec
) -> tuple[dict[str, np.ndarray], Any]:
    """The policy weights and optimizer state of a format-1 card (``<name>.pt``), read with
    ``torch.load(weights_only=True)`` from the bytes whose SHA-256 was checked."""
    wpath = legacy_weights_path(cpath)
    if not wpath.exists() and not wpath.is_symlink():
        raise CheckpointError(f"checkpoint weights not found: {wpath}")
    limit = 4 * MAX_HEADER_BYTES + 32 * spec.parameter_count()
    data = _read(wpath, "checkpoint weights", limit)
    _check_digest(wpath, data, card["weights_sha256"])
    torch = import_torch()
    try:
        payload = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
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
    for key, tensor in state.items():
        if tensor.dtype not in (torch.float32, torch.float64):
            raise CheckpointError(
                f"{wpath}: weight {key} has dtype {tensor.dtype}; only float32 and float64 "
                "(real numbers) are read"
            )
    held = sum(int(v.numel()) for v in state.values())
    if held != spec.parameter_count():
        raise CheckpointError(
            f"{wpath}: the weights hold {held:,} numbers, but the card's architecture "
            f"{spec.to_dict()} has {spec.parameter_count():,}; card and weights do not match"
        )
    check_shapes(wpath, {k: tuple(v.shape) for k, v in state.items()}, spec)
    arrays = {k: state[k].detach().cpu().numpy() for k in spec.expected_shapes()}
    check_finite(wpath, arrays)

    def to_numpy(leaf: Any) -> Any:
        return leaf.detach().cpu().numpy() if isinstance(leaf, torch.Tensor) else leaf

    optimizer = payload.get("optimizer")
    return arrays, map_leaves(optimizer, to_numpy) if isinstance(optimizer, dict) else None


def map_leaves(node: Any, leaf: Callable[[Any], Any]) -> Any:
    """``node`` (dicts, lists and tuples of arrays, as an optimizer's state holds them) with
    ``leaf`` applied to everything that is not a container."""
    if isinstance(node, Mapping):
        return {k: map_leaves(v, leaf) for k, v in node.items()}
    if isinstance(node, tuple):
        return tuple(map_leaves(v, leaf) for v in node)
    if isinstance(node, list):
        return [map_leaves(v, leaf) for v in node]
    return leaf(node)


# ------------------------------------------------------------ loading
@dataclass
class Checkpoint:
    """A loaded checkpoint: its card, policy weights (NumPy arrays) and, when asked for,
    its optimizer state."""

    path: Path
    """Its card (``<name>.json``)."""
    card: dict[str, Any]
    spec: PolicySpec
    policy_state: dict[str, Any]
    optimizer_state: Any | None

    @property
    def game(self) -> str:
        """Package name of the checkpoint's game."""
        return str(self.card["game"])

    @property
    def env_options(self) -> dict[str, Any]:
        """The env options the policy was trained with (a copy)."""
        return dict(self.card["env_options"])

    @property
    def play(self) -> str:
        """How the policy chooses (the card's ``play``): ``"greedy"`` (the default, the
        argmax of its logits) or ``"sample"`` (drawn from its softmax)."""
        return str(self.card.get("play", "greedy"))

    def bot(self, name: str | None = None) -> PolicyBot:
        """The policy as a :class:`PolicyBot` that plays as its card says (greedy unless
        the card's ``play`` is ``"sample"``)."""
        return PolicyBot(
            self.policy_state,
            self.spec,
            name or checkpoint_base(self.path).name,
            game=self.game,
            env_options=self.env_options,
            sample=self.play == "sample",
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
    CheckpointError saying how to carry it over (the repository's
    ``python -m training.migrate``)."""
    from ratenvs.games import GAMES

    have, spec = card_version(card), GAMES[card["game"]]
    if have is None:
        return
    named = str(card["gymnasium_id"]).rsplit("-v", 1)[0]
    if named != spec.gymnasium_id.rsplit("-v", 1)[0]:
        raise CheckpointError(
            f"checkpoint {path}: its card's gymnasium_id {card['gymnasium_id']!r} is not an id "
            f"of its game {card['game']!r} ({spec.gymnasium_id}): the card is damaged"
        )
    if have == spec.version:
        return
    if have < spec.version:
        raise CheckpointError(
            f"checkpoint {path} was trained on {card['gymnasium_id']}; this ratenvs plays "
            f"{spec.gymnasium_id} (see the changelog): migrate it with the repository's "
            f"`python -m training.migrate {path} NEW` and evaluate it again"
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
    optimizer: bool = False,
) -> Checkpoint:
    """Load a checkpoint safely (``x.json``, ``x``, ``x.pt`` or one of its weights files).

    Checks, in order: the card, the weights file against the card (a regular file within
    the architecture's size, its SHA-256), the safetensors header against the card's
    architecture (names, real dtypes, shapes), then reads the arrays and refuses
    non-finite ones (the module docstring lists every limit). ``game`` and
    ``observation_size``, when given, must match the checkpoint: a CheckpointError (a
    ValueError) says what differs. A card of another env version of its game is refused
    (:func:`check_version`) unless ``any_version`` (``training.migrate`` reads old ones).
    ``optimizer``: also read the optimizer state (for resuming training). A checkpoint of
    the older format needs torch (:class:`MissingExtraError` says so without it).
    """
    cpath = card_path(path)
    card = load_card(path)
    if not any_version:
        check_version(cpath, card)
    if game is not None and card["game"] != game:
        raise CheckpointError(
            f"checkpoint {cpath} is an agent for {card['game']!r}, not for {game!r}"
        )
    spec = PolicySpec.from_dict(card["policy"])
    if observation_size is not None and observation_size != spec.observation_size:
        raise CheckpointError(
            f"checkpoint {cpath} expects observations of size {spec.observation_size}, but this "
            f"env gives size {observation_size} (env options differ from the card's "
            f"{card['env_options']})"
        )
    if card["format"] == LEGACY_FORMAT:
        state, optimizer_state = _read_legacy(cpath, card, spec)
    else:
        state = _read_policy(cpath, card, spec)
        optimizer_state = _read_optimizer(cpath, card, spec) if optimizer else None
    return Checkpoint(cpath, card, spec, state, optimizer_state if optimizer else None)


def check_shapes(path: str | Path, state: Mapping[str, Any], spec: PolicySpec) -> None:
    """The state dict (or a mapping of names to shapes) has exactly the keys and shapes of
    the card's architecture (:meth:`PolicySpec.expected_shapes`, no network built); else a
    CheckpointError."""
    expected = spec.expected_shapes()
    missing = sorted(set(expected) - set(state))
    extra = sorted(set(state) - set(expected))
    if missing or extra:
        raise CheckpointError(
            f"{path}: the weights do not fit the card's architecture {spec.to_dict()} "
            f"(missing {missing[:3]}, unexpected {extra[:3]})"
        )
    for key, shape in expected.items():
        have = state[key]
        have = tuple(have) if isinstance(have, tuple) else tuple(have.shape)
        if have != shape:
            raise CheckpointError(
                f"{path}: weight {key} has shape {have}, the card's architecture needs {shape}"
            )


def check_finite(path: str | Path, state: Mapping[str, Any]) -> None:
    """Refuse weights holding NaN or infinity: such a policy's logits are garbage (NaN
    logits make the masked argmax pick action 0 whatever the mask says)."""
    for key, value in state.items():
        array = np.asarray(value.detach().cpu() if hasattr(value, "detach") else value)
        if array.dtype.kind not in "fc":
            continue
        bad = ~np.isfinite(array)
        if bad.any():
            kinds = []
            if np.isnan(array).any():
                kinds.append("NaN")
            if np.isinf(array).any():
                kinds.append("infinity")
            raise CheckpointError(
                f"{path}: weight {key} holds {' and '.join(kinds)} "
                f"({int(bad.sum())} of {array.size} entries); refusing a broken policy"
            )


# ------------------------------------------------------------ writing
STALE_TEMPORARY = (
    r"^\.{name}(?:\.json|\.[0-9a-f]{{{digits}}}(?:\.optimizer)?\.safetensors|\.pt)\..+{tmp}$"
)
"""The temporary files an interrupted write of checkpoint ``name`` leaves (``atomic_file``
names them ``.<target>.<random>.tmp``)."""


def _write_bytes(path: Path, data: bytes) -> None:
    with atomic_file(path) as fh:  # a temporary file renamed into place
        fh.write(data)


def remove_stale_temporaries(path: str | Path) -> list[Path]:
    """Remove the temporary files a killed write of checkpoint ``path`` left in its folder
    (said on stderr, one line each); return them. Called at the start of every write. Only
    files last modified before this process started (``atomic.PROCESS_STARTED``) are a
    killed write's: a newer one may be another process's write under way."""
    base = checkpoint_base(path)
    pattern = re.compile(
        STALE_TEMPORARY.format(
            name=re.escape(base.name), digits=DIGEST_CHARS, tmp=re.escape(TEMP_SUFFIX)
        )
    )
    removed = []
    if base.parent.is_dir():
        for entry in sorted(base.parent.iterdir()):
            if (
                pattern.match(entry.name)
                and entry.is_file()
                and entry.stat().st_mtime < PROCESS_STARTED
            ):
                entry.unlink()
                removed.append(entry)
                print(
                    f"removed {entry}: a temporary file an interrupted write of checkpoint "
                    f"{base} left behind",
                    file=sys.stderr,
                )
    return removed


def _to_numpy_tree(node: Any) -> Any:
    if hasattr(node, "detach"):
        return node.detach().cpu().numpy()
    if isinstance(node, np.ndarray):
        return node
    if isinstance(node, Mapping):
        return {k: _to_numpy_tree(v) for k, v in node.items()}
    if isinstance(node, tuple):
        return tuple(_to_numpy_tree(v) for v in node)
    if isinstance(node, list):
        return [_to_numpy_tree(v) for v in node]
    return node


def save_checkpoint(
    path: str | Path,
    policy_state: Mapping[str, Any],
    card: Mapping[str, Any],
    optimizer_state: Mapping[str, Any] | None = None,
) -> Path:
    """Write checkpoint ``path`` (``x``, ``x.json`` or ``x.pt`` name the same one) as one
    unit; return its card path ``x.json``. ``policy_state`` (and ``optimizer_state``, a
    torch optimizer's ``state_dict``) may hold NumPy arrays or torch tensors.

    In order: temporary files an earlier killed write left are removed; the policy's
    weights are written to ``x.<digest>.safetensors`` (and the optimizer state, if given,
    to ``x.<digest>.optimizer.safetensors``), each atomically under its own new name; the
    card naming them is renamed over the old card (the commit point); the files of ``x``
    no card names any more are deleted. A kill at any moment leaves the old checkpoint or
    the new one. ``card`` must hold at least ``game``, ``env_options`` and ``policy`` (a
    :class:`PolicySpec` dict); the format, the file names and their SHA-256 are added here.
    """
    safetensors_bytes = import_safetensors_numpy().save

    base = checkpoint_base(path)
    full: dict[str, Any] = {"format": CHECKPOINT_FORMAT}
    full.update((k, v) for k, v in card.items() if k not in _FILE_ENTRIES)
    full["weights_file"] = full["weights_sha256"] = ""
    for key in REQUIRED_CARD_KEYS:
        if key not in full:
            raise ValueError(f"checkpoint card needs {key!r}")
    base.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_temporaries(base)
    arrays = {k: np.require(_to_numpy_tree(v), requirements="C") for k, v in policy_state.items()}
    data = safetensors_bytes(arrays)
    full["weights_sha256"] = sha256_bytes(data)
    full["weights_file"] = weights_file_name(base, full["weights_sha256"])
    _write_bytes(base.with_name(full["weights_file"]), data)
    if optimizer_state is not None:
        tensors, metadata = tree_to_tensors(_to_numpy_tree(optimizer_state))
        data = safetensors_bytes(tensors, metadata=metadata)
        full["optimizer_sha256"] = sha256_bytes(data)
        full["optimizer_file"] = weights_file_name(base, full["optimizer_sha256"], optimizer=True)
        _write_bytes(base.with_name(full["optimizer_file"]), data)
    cpath = write_card(base, full)  # the commit point: the new checkpoint is whole
    named = {full["weights_file"], full.get("optimizer_file")}
    for entry in owned_files(base):
        if entry.name not in named:
            entry.unlink(missing_ok=True)
    return cpath


_FILE_ENTRIES = ("format", "weights_file", "weights_sha256", "optimizer_file", "optimizer_sha256")
"""Card entries :func:`save_checkpoint` writes itself (any in the given card are replaced)."""


def write_card(path: str | Path, card: Mapping[str, Any]) -> Path:
    """(Re)write the JSON card of checkpoint ``path`` atomically (e.g. to add evaluation
    results; the files it names stay as they are); return its path."""
    cpath = card_path(path)
    try:
        text = json.dumps(card, indent=2, sort_keys=False, allow_nan=False)
    except ValueError as exc:
        raise CheckpointError(
            f"checkpoint card {cpath}: {exc} (a card holds finite numbers)"
        ) from None
    _write_bytes(cpath, (text + "\n").encode("utf-8"))
    return cpath


def checkpoint_env(ckpt: Checkpoint) -> Any:
    """The ``raw_env`` of a loaded checkpoint's game and env options, checked against its
    policy: options the game refuses, or an observation or action count that differs from
    the policy's, are a CheckpointError naming the checkpoint (before any game is played)."""
    from ratenvs.games import GAMES

    render = sorted({"render_mode", "render_view"} & set(ckpt.env_options))
    if render:  # how a game is shown is the player's choice, not the policy's
        raise CheckpointError(
            f"checkpoint {ckpt.path}: its card's env_options may not hold {render} (a game's "
            "rendering is chosen where it is played)"
        )
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
            f"checkpoint {ckpt.path} expects observations of size {ckpt.spec.observation_size}, "
            f"{ckpt.game} with {ckpt.env_options} gives {size}"
        )
    if actions != ckpt.spec.num_actions:
        raise CheckpointError(
            f"checkpoint {ckpt.path} has {ckpt.spec.num_actions} actions, {ckpt.game} with "
            f"{ckpt.env_options} has {actions}"
        )
