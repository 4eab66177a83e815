"""Training configuration: a YAML file validated strictly against typed dataclasses.

An unknown key, a missing required key or a value of the wrong type is a
:class:`ConfigError` (a ValueError) that names the key by its dotted path,
e.g. ``algorithm.learning_rate: expected a number, got str '1e-3'``. The YAML is read
with a strict SafeLoader: anchors and aliases (which expand exponentially) and duplicate
keys are errors naming the line; every float must be finite (no ``.nan`` / ``.inf``);
every integer key is bounded above (:data:`_MAX_INTS`), the rollout
(:data:`MAX_ROLLOUT`) and the networks (:data:`MAX_LAYERS`, :data:`MAX_WIDTH`) too, before
anything is allocated; ``seed`` is in 0 .. :data:`MAX_SEED`. A file is read only if it is
a regular file of at most :data:`MAX_CONFIG_BYTES`, nested at most :data:`MAX_CONFIG_DEPTH`
deep.

The YAML layout (see ``configs/default.yaml``)::

    game: <name>                    # package name of the game (ratenvs/games.py)
    env_options: {num_players: 1}   # options of the game env
    opponents: [optimal]            # bot names for the other seats (or one name for all)
    learner_seat: 0                 # or "random" (seats rotated at every reset)
    selfplay: {...}                 # optional pool of bots and frozen snapshots
    pretrain: {teacher: bayes}      # optional warm start: imitate a bot before PPO
    algorithm: {...}                # MaskablePPO hyperparameters
    reward_shaping: {...}           # optional training-only shapings the game offers
    timesteps: 100000               # training budget (learner decisions)
    seed: 0
    n_envs: 8
    vec_env: dummy                  # or "subproc", or "batched" (the compiled engine)
    eval: {...}                     # periodic and final evaluation
    logging: {...}

``reward_shaping`` maps a shaping's name to its options, e.g. ``{<name>: {scale: 5.0}}``;
the shapings on offer are the game's (``GameHooks.reward_shapings`` in
``training/games/<game>.py``, listed in training/README.md). A shaping the config's game
does not offer is a ConfigError naming the game and the shapings it offers.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from ratenvs.agents.checkpoint import is_checkpoint
from ratenvs.common.arguments import one_line
from ratenvs.common.safe_load import LoadError, MissingFileError, read_regular_file, yaml_loader


class ConfigError(ValueError):
    """A training configuration is invalid; the message names the offending key."""


@dataclass
class SelfPlayConfig:
    """Self-play: the other seats are drawn, at every reset, from bots and past learners."""

    enabled: bool = False
    bots: list[str] = field(default_factory=list)
    """Bot names of the pool (each opponent seat draws one uniformly)."""
    snapshot_every: int = 50_000
    """Freeze a copy of the learner into the pool every this many timesteps."""
    max_snapshots: int = 5
    """Keep at most this many frozen snapshots (oldest dropped first)."""
    snapshot_prob: float = 0.5
    """Probability that an opponent seat is a frozen policy (a snapshot or one of
    ``checkpoints``, once any exists) rather than a bot."""
    checkpoints: list[str] = field(default_factory=list)
    """Frozen policies in the pool from the start, never dropped (paths or ``agent:NAME``,
    the game's, reading the learner's observation): e.g. the best responders found against
    the agent so far, as a PSRO round adds them (``ratenvs exploit --save-responder``). A
    frozen seat draws uniformly among them and the last ``max_snapshots`` snapshots. Loaded
    when the run makes its envs (a config on a card stays valid where they are gone)."""


@dataclass
class PretrainConfig:
    """Warm start by behaviour cloning (training/pretrain.py): before PPO, the policy imitates
    a teacher bot playing the learner's seat and the value net fits the returns it got."""

    teacher: str | None = None
    """Bot name of the teacher; None (the default): no warm start."""
    games: int = 20
    """Games the teacher plays to collect the demonstrations."""
    epochs: int = 10
    """Passes over the demonstrations."""
    batch_size: int = 512
    learning_rate: float = 1.0e-3
    teacher_base: str | None = None
    """Checkpoint whose policy makes the decisions the teacher leaves to a base (a teacher
    bot with a ``base``); None: the bot's own default."""
    on_resume: bool = False
    """Also warm-start a run started with ``--resume`` (from the resumed weights)."""


@dataclass
class AlgorithmConfig:
    """Hyperparameters of sb3-contrib's MaskablePPO (same names and meanings)."""

    name: Literal["MaskablePPO"] = "MaskablePPO"
    learning_rate: float = 3.0e-4
    learning_rate_schedule: Literal["constant", "linear"] = "constant"
    """``linear``: decays from ``learning_rate`` to 0 over the run. A ``--resume``d run
    continues the decay of one run of ``prev + timesteps`` steps (SB3 keeps counting from
    the checkpoint's ``prev`` steps): it starts at ``learning_rate * timesteps / (prev +
    timesteps)`` and ends at 0."""
    n_steps: int = 256
    """Rollout length per env between updates."""
    batch_size: int = 256
    n_epochs: int = 10
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.0
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net_arch: list[int] = field(default_factory=lambda: [128, 128])
    """Hidden layer sizes of the policy and value networks (separate networks)."""
    activation: Literal["tanh", "relu"] = "tanh"
    reward_scale: float = 1.0
    """Rewards are multiplied by this during training only (evaluation reports raw rewards)."""
    torch_threads: int = 1
    """torch intra-op threads of the learner process."""
    privileged_critic: bool = False
    """Asymmetric actor-critic: the value network also sees the whole truth, the env's
    ``state()`` (training only; the policy sees the player's observation). Every game."""


@dataclass
class EvalConfig:
    """Periodic evaluation during training, and the final evaluation written to the card."""

    every: int = 20_000
    """Evaluate every this many timesteps (0: only at the end): after the first update at
    or past each multiple, so a row's timesteps are those its weights were trained on."""
    games: int = 100
    """Games per periodic evaluation."""
    final_games: int = 1000
    """Games of the final evaluation recorded in the card."""
    opponents: list[str] | None = None
    """Bot names for the evaluation (default: the training opponents, or the game's default)."""
    metric: Literal[
        "auto", "win_rate", "mean_reward", "exact_expected_score", "exact_worst_case_share"
    ] = "auto"
    """What "best so far" means; auto: the game's own rule if its hooks have one
    (``GameHooks.default_metric``, e.g. an exact grade), else win_rate with several
    players, else mean_reward."""
    seed: int = 12345
    """Seed of the periodic evaluation games (the same games at every evaluation)."""

    @property
    def final_seed(self) -> int:
        """Seed of the final evaluations written to the cards of ``final.pt`` and
        ``best.pt``: ``seed + 1``, games disjoint from the periodic ones. ``best.pt`` is
        the best of many periodic evaluations on the same games, so its figure there
        is biased upwards; the card reports fresh games (and the selection figure under
        ``selected_by``)."""
        return self.seed + 1


@dataclass
class LoggingConfig:
    """Progress display and logs."""

    progress_bar: bool = True
    tensorboard: bool = False
    """Also write TensorBoard logs (needs the tensorboard package; skipped with a warning)."""


@dataclass
class TrainConfig:
    """One training run."""

    game: str
    """Package name of the game (see ratenvs/games.py)."""
    env_options: dict[str, Any] = field(default_factory=dict)
    """Options of the game env; the game's gymnasium defaults fill the rest."""
    opponents: list[str] | None = None
    """Bot names for the other seats: one per other seat, or a single name for all of them.
    None: the game's default opponent."""
    learner_seat: int | Literal["random"] = 0
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)
    algorithm: AlgorithmConfig = field(default_factory=AlgorithmConfig)
    reward_shaping: dict[str, Any] = field(default_factory=dict)
    """Training-only reward shapings: name -> options (a dataclass of the game's
    :class:`~training.hooks.RewardShaping`, built from the mapping at validation).
    Empty: the game's own reward."""
    timesteps: int = 100_000
    seed: int = 0
    n_envs: int = 8
    vec_env: Literal["dummy", "subproc", "batched"] = "dummy"
    """``dummy`` runs the envs in the learner process; ``subproc`` one process per env;
    ``batched`` all ``n_envs`` games in the game's compiled batched engine
    (:class:`ratenvs.wrappers.batched_vector.BatchedVectorEnv`)."""
    eval: EvalConfig = field(default_factory=EvalConfig)
    logging: LoggingConfig = field(default_factory=LoggingConfig)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON/YAML-ready data (round-trips through :func:`config_from_dict`)."""
        return dataclasses.asdict(self)


# ---------------------------------------------------------------- validation
def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if tp is type(None):
        return "null"
    if tp is float:
        return "a number"
    if tp is int:
        return "an integer"
    if tp is bool:
        return "true/false"
    if tp is str:
        return "a string"
    if origin is Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(tp))
    if origin is list:
        return f"a list of {_type_name(typing.get_args(tp)[0]).removeprefix('a ')}s"
    if origin is dict:
        return "a mapping"
    if dataclasses.is_dataclass(tp):
        return "a mapping"
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(tp))
    return str(tp)


def _coerce(value: Any, tp: Any, path: str) -> Any:
    """Check ``value`` against the annotation ``tp``; return it (dataclasses are built)."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _coerce(value, arg, path)
            except ConfigError:
                continue
        raise ConfigError(f"{path}: expected {_type_name(tp)}, got {_describe(value)}")
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise ConfigError(f"{path}: expected a mapping, got {_describe(value)}")
        return _build(tp, value, path + ".")
    if origin is Literal:
        if value not in typing.get_args(tp) or isinstance(value, bool):
            raise ConfigError(f"{path}: expected {_type_name(tp)}, got {_describe(value)}")
        return value
    if origin is list:
        if not isinstance(value, list):
            raise ConfigError(f"{path}: expected {_type_name(tp)}, got {_describe(value)}")
        (item,) = typing.get_args(tp)
        return [_coerce(v, item, f"{path}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
            raise ConfigError(f"{path}: expected a mapping with text keys, got {_describe(value)}")
        return dict(value)
    if tp in _PLAIN:
        accepts, words = _PLAIN[tp]
        if isinstance(value, bool) is not (tp is bool) or not isinstance(value, accepts):
            hint = ""
            if tp is float and isinstance(value, str):
                hint = " (YAML reads 1e-3 as text: write 1.0e-3 or 0.001)"
            raise ConfigError(f"{path}: expected {words}, got {_describe(value)}{hint}")
        if tp is float:
            try:
                number = float(value)
            except OverflowError:
                number = math.inf
            if not math.isfinite(number):
                raise ConfigError(f"{path}: expected a finite number, got {_describe(value)}")
            return number
        return value
    if tp is Any:
        return value
    raise TypeError(f"unsupported annotation {tp!r} at {path}")  # pragma: no cover


_PLAIN: dict[Any, tuple[type | types.UnionType, str]] = {
    bool: (bool, "true/false"),
    int: (int, "an integer"),
    float: (int | float, "a number"),
    str: (str, "a string"),
}
"""The plain types of a config: what a YAML value must be, and how an error names it."""


def _describe(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"


def _build(cls: type, data: dict[str, Any], prefix: str = "") -> Any:
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = [k for k in data if k not in fields]
    if unknown:
        where = prefix.rstrip(".") or "the top level"
        raise ConfigError(
            f"{prefix}{unknown[0]}: unknown key (allowed in {where}: {', '.join(sorted(fields))})"
        )
    kwargs = {}
    for name, f in fields.items():
        if name in data:
            kwargs[name] = _coerce(data[name], hints[name], prefix + name)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise ConfigError(f"{prefix}{name}: required key is missing")
    return cls(**kwargs)


_POSITIVE_INTS = (
    "timesteps",
    "n_envs",
    "algorithm.n_steps",
    "algorithm.batch_size",
    "algorithm.n_epochs",
    "algorithm.torch_threads",
    "eval.games",
    "eval.final_games",
    "selfplay.snapshot_every",
    "selfplay.max_snapshots",
    "pretrain.games",
    "pretrain.epochs",
    "pretrain.batch_size",
)


MAX_TIMESTEPS = 10**12
"""Largest ``timesteps``: a trillion learner decisions (more is a typo, not a run)."""

MAX_ROLLOUT = 2**21
"""Most frames of one rollout, ``n_envs * algorithm.n_steps`` (2,097,152; the shipped
recipes use at most 262,144): SB3 allocates the whole rollout buffer up front, an
observation, a mask and a few floats per frame."""

MAX_LAYERS = 16
"""Most hidden layers in ``algorithm.net_arch``."""

MAX_WIDTH = 4096
"""Widest hidden layer in ``algorithm.net_arch`` (a 4,096 x 4,096 layer is 64 MiB of
weights; ``[1000000000]`` would have been 48 GB, found only when torch allocated it)."""

_MAX_INTS = {
    "timesteps": MAX_TIMESTEPS,
    "n_envs": 65536,
    "algorithm.n_steps": MAX_ROLLOUT,
    "algorithm.batch_size": MAX_ROLLOUT,
    "algorithm.n_epochs": 1000,
    "algorithm.torch_threads": 64,
    "eval.every": MAX_TIMESTEPS,
    "eval.games": 1_000_000,
    "eval.final_games": 1_000_000,
    "selfplay.snapshot_every": MAX_TIMESTEPS,
    "selfplay.max_snapshots": 1000,
    "pretrain.games": 1_000_000,
    "pretrain.epochs": 10_000,
    "pretrain.batch_size": MAX_ROLLOUT,
}
"""Upper bounds of integer keys (a typo such as an extra zero is an error, not a run that
forks ten thousand envs, evaluates for a week or allocates what the machine has not);
``n_envs`` is at most :data:`MAX_PYTHON_ENVS` unless ``vec_env: batched``, and
``n_envs * algorithm.n_steps`` at most :data:`MAX_ROLLOUT`."""

MAX_PYTHON_ENVS = 1024
"""Most envs of a ``dummy`` or ``subproc`` run (one Python env object each)."""

MAX_SEED = 2**32 - 1
"""Largest ``seed``: stable-baselines3 seeds numpy's legacy generator, which takes
0 .. 2**32 - 1 (a larger or negative seed failed only once the model was built)."""


def _get(cfg: TrainConfig, dotted: str) -> Any:
    obj: Any = cfg
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def _check_values(cfg: TrainConfig) -> None:
    """Range checks and checks against the games table and the game's bots."""
    from ratenvs.games import GAMES

    if cfg.game not in GAMES:
        raise ConfigError(f"game: unknown game {cfg.game!r}; choose one of {sorted(GAMES)}")
    for key in _POSITIVE_INTS:
        if _get(cfg, key) < 1:
            raise ConfigError(f"{key}: must be at least 1, got {_get(cfg, key)}")
    if cfg.vec_env != "batched" and cfg.n_envs > MAX_PYTHON_ENVS:
        raise ConfigError(
            f"n_envs: must be at most {MAX_PYTHON_ENVS:,}, got {cfg.n_envs:,} (with vec_env: "
            f"{cfg.vec_env}; vec_env: batched takes up to {_MAX_INTS['n_envs']:,})"
        )
    for key, high in _MAX_INTS.items():
        if _get(cfg, key) > high:
            raise ConfigError(f"{key}: must be at most {high:,}, got {_get(cfg, key):,}")
    if cfg.n_envs * cfg.algorithm.n_steps > MAX_ROLLOUT:
        raise ConfigError(
            f"algorithm.n_steps: n_envs * n_steps must be at most {MAX_ROLLOUT:,} frames per "
            f"rollout, got {cfg.n_envs:,} * {cfg.algorithm.n_steps:,}"
        )
    _check_net_arch(cfg.algorithm.net_arch)
    if cfg.vec_env == "batched":
        _check_batched(cfg, GAMES[cfg.game])
    if cfg.eval.every < 0:
        raise ConfigError(f"eval.every: must be >= 0, got {cfg.eval.every}")
    if cfg.eval.seed < 0:
        raise ConfigError(f"eval.seed: must be >= 0, got {cfg.eval.seed}")
    if not 0 <= cfg.seed <= MAX_SEED:
        raise ConfigError(f"seed: must be in 0..{MAX_SEED}, got {cfg.seed}")
    if cfg.eval.seed >= MAX_SEED:  # the final evaluation plays eval.seed + 1
        raise ConfigError(f"eval.seed: must be in 0..{MAX_SEED - 1:,}, got {cfg.eval.seed:,}")
    _check_names("eval.opponents", cfg.eval.opponents, cfg, GAMES[cfg.game])
    _check_seats(cfg, GAMES[cfg.game])
    algo = cfg.algorithm
    for key, low, high in (
        ("learning_rate", 0.0, 1.0),
        ("gamma", 0.0, 1.0),
        ("gae_lambda", 0.0, 1.0),
        ("clip_range", 0.0, 1.0),
    ):
        value = getattr(algo, key)
        if not low < value <= high:
            raise ConfigError(f"algorithm.{key}: must be in ({low}, {high}], got {value}")
    from training.hooks import hooks_for

    hooks = hooks_for(cfg.game)
    cfg.reward_shaping = _build_shapings(cfg, hooks)
    if cfg.eval.metric.startswith("exact_") and hooks.exact_grade is None:
        raise ConfigError(
            f"eval.metric: {cfg.eval.metric} needs an exact grade, and {cfg.game} has none "
            "(no exact solver); choose auto, win_rate or mean_reward"
        )
    if cfg.eval.metric in hooks.exact_metrics_needing:
        why = hooks.exact_metrics_needing[cfg.eval.metric](cfg.env_options)
        if why:
            raise ConfigError(f"eval.metric: {cfg.eval.metric} {why}")
    for key in ("ent_coef", "vf_coef"):
        if getattr(algo, key) < 0:
            raise ConfigError(f"algorithm.{key}: must be >= 0, got {getattr(algo, key)}")
    if algo.max_grad_norm <= 0:  # 0 clips every gradient to nothing: nothing is learned
        raise ConfigError(f"algorithm.max_grad_norm: must be > 0, got {algo.max_grad_norm}")
    if algo.reward_scale < 0:
        raise ConfigError(f"algorithm.reward_scale: must be >= 0, got {algo.reward_scale}")
    if algo.reward_scale == 0 and not cfg.reward_shaping:
        raise ConfigError(
            "algorithm.reward_scale: 0 leaves no reward to learn from (0 keeps only a "
            "reward_shaping's own reward, and this config has none)"
        )
    if (cfg.n_envs * algo.n_steps) % algo.batch_size:
        raise ConfigError(
            f"algorithm.batch_size: {algo.batch_size} must divide n_envs * n_steps "
            f"= {cfg.n_envs * algo.n_steps}"
        )
    if not 0.0 <= cfg.selfplay.snapshot_prob <= 1.0:
        raise ConfigError(
            f"selfplay.snapshot_prob: must be in [0, 1], got {cfg.selfplay.snapshot_prob}"
        )
    if isinstance(cfg.learner_seat, int) and cfg.learner_seat < 0:
        raise ConfigError(f"learner_seat: must be >= 0 or 'random', got {cfg.learner_seat}")
    if "render_mode" in cfg.env_options:
        raise ConfigError("env_options.render_mode: not allowed in a training config")
    if cfg.selfplay.enabled and not cfg.selfplay.bots:
        raise ConfigError("selfplay.bots: self-play needs at least one bot in the pool")
    if cfg.selfplay.checkpoints and not cfg.selfplay.enabled:
        raise ConfigError("selfplay.checkpoints: they join the self-play pool; enable selfplay")
    teacher = cfg.pretrain.teacher
    if teacher is not None:
        bots = GAMES[cfg.game].bots()
        if teacher not in bots:
            raise ConfigError(
                f"pretrain.teacher: unknown bot {teacher!r} for {cfg.game}; "
                f"choose one of {', '.join(sorted(bots))}"
            )
    base = cfg.pretrain.teacher_base
    if base is not None:
        import inspect

        takes = (
            teacher is not None
            and "base" in inspect.signature(GAMES[cfg.game].bots()[teacher]).parameters
        )
        if not takes:
            raise ConfigError(
                f"pretrain.teacher_base: the teacher {teacher!r} takes no base policy"
            )
        if not is_checkpoint(base):
            raise ConfigError(f"pretrain.teacher_base: no checkpoint at {base}")
    if not 0.0 < cfg.pretrain.learning_rate <= 1.0:
        raise ConfigError(
            f"pretrain.learning_rate: must be in (0.0, 1.0], got {cfg.pretrain.learning_rate}"
        )


def _check_net_arch(net_arch: list[int]) -> None:
    """One to :data:`MAX_LAYERS` hidden layers, each 1 to :data:`MAX_WIDTH` wide (checked
    before a network is built: a huge width failed only when torch allocated it)."""
    if not net_arch or any(n < 1 for n in net_arch):
        raise ConfigError(f"algorithm.net_arch: need one or more positive sizes, got {net_arch}")
    if len(net_arch) > MAX_LAYERS:
        raise ConfigError(
            f"algorithm.net_arch: at most {MAX_LAYERS} hidden layers, got {len(net_arch):,}"
        )
    for i, width in enumerate(net_arch):
        if width > MAX_WIDTH:
            raise ConfigError(
                f"algorithm.net_arch[{i}]: must be at most {MAX_WIDTH:,} wide, got {width:,}"
            )


def _check_batched(cfg: TrainConfig, spec: Any) -> None:
    """``vec_env: batched`` needs the game's batched learner door, its opponents must be
    bots the engine plays in its kernel, and its reward shapings need a batched form."""
    if not spec.has_batched:
        raise ConfigError(f"vec_env: {cfg.game} has no batched learner door; use dummy or subproc")
    from training.hooks import hooks_for

    offered = hooks_for(cfg.game).reward_shapings
    for name in cfg.reward_shaping:
        if name in offered and offered[name].batched is None:
            raise ConfigError(
                f"reward_shaping.{name}: has no batched form (it wraps one env); use vec_env: dummy"
            )
    kernel = spec.batched().bot_names
    for key, names in (("opponents", cfg.opponents), ("selfplay.bots", cfg.selfplay.bots)):
        for name in names or ():
            if name not in kernel:
                raise ConfigError(
                    f"{key}: {name!r} is not a bot of the batched engine of {cfg.game} "
                    f"({', '.join(kernel)}); use vec_env: dummy"
                )


def _check_seats(cfg: TrainConfig, spec: Any) -> None:
    """Who sits in the other seats is said once and used: with self-play, ``opponents``
    (not used: the pool draws from ``selfplay.bots``) must be left out; without it,
    ``selfplay.bots`` must be; a one-player game has no opponents, no pool and no
    evaluation opponents; the names are the game's bots or checkpoints."""
    from ratenvs.evaluation import game_options

    if cfg.selfplay.enabled and cfg.opponents is not None:
        raise ConfigError(
            "opponents: not used with selfplay.enabled (the other seats are drawn from "
            f"selfplay.bots and the snapshots); remove it, got {cfg.opponents}"
        )
    if not cfg.selfplay.enabled and cfg.selfplay.bots:
        raise ConfigError(
            "selfplay.bots: they make the self-play pool, used only with selfplay.enabled: "
            "true; set it, or remove them"
        )
    _check_names("opponents", cfg.opponents, cfg, spec)
    _check_names("selfplay.bots", cfg.selfplay.bots, cfg, spec)
    try:
        players = int(game_options(cfg.game).check(dict(cfg.env_options))["num_players"])
    except (ValueError, TypeError):
        return  # the env options' own error comes with the env (probe_env)
    if players == 1:
        for key, value in (
            ("opponents", cfg.opponents),
            ("eval.opponents", cfg.eval.opponents),
            ("selfplay.enabled", cfg.selfplay.enabled or None),
        ):
            if value:
                raise ConfigError(
                    f"{key}: {cfg.game} with num_players=1 is a one-player game (no opponent "
                    f"seats); remove it, got {value}"
                )
    if isinstance(cfg.learner_seat, int) and cfg.learner_seat >= players:
        raise ConfigError(
            f"learner_seat: {cfg.game} with {players} players has seats 0..{players - 1}, "
            f"got {cfg.learner_seat}"
        )
    if players > 1 and cfg.opponents is not None and len(cfg.opponents) not in (1, players - 1):
        raise ConfigError(
            f"opponents: {cfg.game} with {players} players takes one name for every opponent "
            f"seat or one per seat ({players - 1}), got {len(cfg.opponents)}"
        )


def _check_names(key: str, names: Sequence[str] | None, cfg: TrainConfig, spec: Any) -> None:
    """Every name in ``names`` (the config's ``key``) is a bot of the game (bare, or
    ``<game>:<bot>``), a shipped agent or an existing checkpoint, so a typo fails here and
    not after the whole run has trained."""
    from ratenvs.agents import AGENT_PREFIX, CheckpointError, agent_path

    bots = spec.bots()
    for name in names or ():
        bot = name
        if name.startswith(AGENT_PREFIX):  # a shipped agent
            try:
                agent_path(name)
            except CheckpointError as exc:
                raise ConfigError(f"{key}: {exc}") from None
            continue
        if name.endswith((".pt", ".json")) or is_checkpoint(name):
            if not is_checkpoint(name):  # a checkpoint as an opponent
                raise ConfigError(f"{key}: no checkpoint at {name}")
            continue
        if ":" in name:
            game, bot = name.split(":", 1)
            if game != cfg.game:
                raise ConfigError(
                    f"{key}: {name!r} is a bot of {game!r}, not of {cfg.game}; "
                    f"choose among {', '.join(sorted(bots))}"
                )
        if bot not in bots:
            raise ConfigError(
                f"{key}: unknown bot {name!r} for {cfg.game}; "
                f"choose among {', '.join(sorted(bots))}"
            )


def _build_shapings(cfg: TrainConfig, hooks: Any) -> dict[str, Any]:
    """``cfg.reward_shaping`` with each shaping's options built and checked by the game's
    hooks (a shaping the game does not offer is an error naming what it offers)."""
    offered = hooks.reward_shapings
    out: dict[str, Any] = {}
    for name, value in cfg.reward_shaping.items():
        key = f"reward_shaping.{name}"
        if name not in offered:
            choices = ", ".join(offered) if offered else "none"
            raise ConfigError(
                f"{key}: {cfg.game} offers no reward shaping {name!r} (its shapings: {choices})"
            )
        shaping = offered[name]
        options = (
            value if isinstance(value, shaping.options) else _coerce(value, shaping.options, key)
        )
        if shaping.check is not None:
            shaping.check(options, cfg)
        out[name] = options
    return out


MOVED_KEYS = {
    "algorithm.win_chance_reward": "reward_shaping.win_chance.scale",
    "algorithm.wrong_answer_penalty": "reward_shaping.wrong_answers.penalty",
}
"""Keys that moved, old dotted key -> new one; an old key is an error that says where."""


def _check_moved(data: dict[str, Any]) -> None:
    for old, new in MOVED_KEYS.items():
        section, _, key = old.partition(".")
        part = data.get(section)
        if isinstance(part, dict) and key in part:
            name, _, option = new.removeprefix("reward_shaping.").partition(".")
            raise ConfigError(
                f"{old}: moved to {new}: write `reward_shaping: {{{name}: {{{option}: "
                f"{part[key]!r}}}}}` (0 meant off: then delete the key; training/README.md)"
            )


def config_from_dict(data: Any) -> TrainConfig:
    """Validate plain data (parsed YAML) into a :class:`TrainConfig`."""
    if not isinstance(data, dict):
        raise ConfigError(f"the config must be a mapping at the top level, got {_describe(data)}")
    _check_moved(data)
    cfg = _build(TrainConfig, data)
    _check_values(cfg)
    return cfg


MAX_CONFIG_BYTES = 256 * 1024
"""Largest config file read: 256 KiB (the shipped ones are about 2 kB; PyYAML composes
256 KiB of list items in about 1.3 s of CPU, 1 MiB in 5 s)."""

MAX_CONFIG_DEPTH = 16
"""Deepest nesting of mappings and lists in a config (the layout nests three levels:
``reward_shaping.<name>.<option>``); checked as the YAML is composed, so a 50,000-deep
document is refused at level 17 instead of recursing out of Python's stack."""


class _StrictLoader(yaml_loader()):  # type: ignore[misc]
    """PyYAML's SafeLoader counting its depth (:func:`ratenvs.common.safe_load.yaml_loader`,
    at most :data:`MAX_CONFIG_DEPTH`), without anchors and aliases (nested aliases expand
    exponentially: a few hundred bytes can take minutes to load) and without duplicate
    keys (PyYAML keeps the last one silently)."""

    max_depth = MAX_CONFIG_DEPTH

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            raise ConfigError(
                f"line {event.start_mark.line + 1}: YAML aliases (*{event.anchor}) are not "
                "allowed in a training config; write the value out"
            )
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise ConfigError(
                f"line {event.start_mark.line + 1}: YAML anchors (&{anchor}) are not "
                "allowed in a training config; write the value out"
            )
        return super().compose_node(parent, index)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                line = key_node.start_mark.line + 1
                try:
                    first = seen.get(key)
                except TypeError:  # an unhashable key: the base class reports it
                    continue
                if first is not None:
                    raise ConfigError(
                        f"line {line}: duplicate key {key!r} (first given at line {first})"
                    )
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


def parse_yaml(text: Any) -> Any:
    """Parse YAML config text (a string or a text stream) with the strict loader: no
    anchors or aliases, no duplicate keys (a :class:`ConfigError` naming the line)."""
    loader = _StrictLoader(text)
    try:
        return loader.get_single_data()
    except LoadError as exc:  # nested too deep
        raise ConfigError(str(exc)) from None
    finally:
        loader.dispose()


def load_yaml(path: str | Path, text: str | None = None) -> Any:
    """The data of a YAML config file (its ``text`` when already read), by the strict
    loader (:func:`parse_yaml`); a ConfigError names the file."""
    path = Path(path)
    if text is None:
        try:
            data = read_regular_file(path, max_bytes=MAX_CONFIG_BYTES)
        except MissingFileError:
            raise ConfigError(f"config file not found: {path}") from None
        except LoadError as exc:  # a folder, a FIFO, a device, over MAX_CONFIG_BYTES
            raise ConfigError(str(exc)) from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ConfigError(f"{path}: not a YAML config (not UTF-8 text)") from None
    size = len(text.encode("utf-8")) if isinstance(text, str) else 0
    if size > MAX_CONFIG_BYTES:  # text read by the caller (the RLlib harness)
        raise ConfigError(f"{path}: {size:,} bytes, more than the limit of {MAX_CONFIG_BYTES:,}")
    try:
        return parse_yaml(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {one_line(exc)}") from None
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def load_config(path: str | Path) -> TrainConfig:
    """Read and validate a YAML training config."""
    data = load_yaml(path)
    try:
        return config_from_dict(data)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
