"""Self-play PPO with RLlib (new API stack) on any number of env runners, on this machine
or on a Ray cluster: ``python -m training.rllib_train``.

Needs the ``rllib`` extra (``pip install "ratenvs[rllib]"``: Ray RLlib, torch, PyYAML).
One YAML per run, validated as strictly as the SB3 configs (:mod:`training.config`: an
unknown key, a wrong type, an out-of-range value, an option the game does not have is a
:class:`~training.config.ConfigError` naming the key). The layout (``configs/rllib_*.yaml``)::

    game: <game>                    # package name of the game (ratenvs/games.py)
    env_options: {num_players: 2}   # options of the game env (every seat is an agent)
    iterations: 50                  # training iterations (Algorithm.train() calls)
    seed: 0
    checkpoint_every: 10            # also an RLlib checkpoint every this many (0: the end only)
    env_runners: {num_env_runners: 2, num_envs_per_env_runner: 1, num_cpus_per_env_runner: 1,
                  rollout_fragment_length: 200}
    learners: {num_learners: 0}     # 0: learn in the driver; n: n remote learner actors
    ppo: {lr: 3.0e-4, gamma: 0.99, gae_lambda: 0.95, clip_param: 0.2, entropy_coeff: 0.0,
          vf_loss_coeff: 0.5, train_batch_size: 4000, minibatch_size: 256, num_epochs: 5,
          fcnet_hiddens: [128, 128], fcnet_activation: tanh}
    selfplay: {snapshot_every: 5, max_snapshots: 3, snapshot_prob: 0.5}
    fault_tolerance: {restart_failed_env_runners: true}

Self-play is :mod:`ratenvs.integrations.rllib`'s league: one seat of every game plays the
learner ``main``, the others ``main`` or (with ``snapshot_prob``) one of the frozen
snapshots that an RLlib callback adds every ``snapshot_every`` iterations. Every
iteration prints one line of results and appends it to ``<out>/results.jsonl``; RLlib
writes its checkpoints (``Algorithm.save_to_path``) into ``<out>/checkpoint_<iteration>``.

    python -m training.rllib_train --config configs/rllib_<game>.yaml --out runs/rl \\
        [--address auto] [--num-env-runners N] [--iterations N] [--num-cpus N] [--overwrite]

Without ``--address`` a local Ray instance is started (``--num-cpus``: its CPUs); with it
the run joins an existing cluster (``ray start --head`` on one node, ``ray start
--address=HEAD:6379`` on the others, ratenvs installed on each).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from ratenvs.common.arguments import (
    ArgumentParser,
    UsageError,
    int_in,
    output_folder,
    read_text,
    report,
)
from training.config import (
    MAX_LAYERS,
    MAX_ROLLOUT,
    MAX_SEED,
    MAX_TIMESTEPS,
    MAX_WIDTH,
    ConfigError,
    _build,
    load_yaml,
)

RLLIB_MISSING = 'RLlib training needs the rllib extra: pip install "ratenvs[rllib]"'
MAX_ITERATIONS = 10**7
"""Largest ``iterations`` (more is a typo, not a run)."""
MAX_ENV_RUNNERS = 4096
"""Largest ``env_runners.num_env_runners`` (one Ray actor each)."""


@dataclass
class EnvRunnersConfig:
    """RLlib's ``AlgorithmConfig.env_runners`` (same names and meanings)."""

    num_env_runners: int = 2
    """Env runner actors sampling in parallel (0: sample in the driver)."""
    num_envs_per_env_runner: int = 1
    num_cpus_per_env_runner: int = 1
    rollout_fragment_length: int = 200
    """Env steps each env runner samples per episode chunk."""


@dataclass
class LearnersConfig:
    """RLlib's ``AlgorithmConfig.learners``."""

    num_learners: int = 0
    """0: the learner runs in the driver; n: n remote learner actors (data parallel)."""


@dataclass
class PPOSection:
    """PPO hyperparameters (RLlib's ``PPOConfig.training`` names; ``gae_lambda`` is its
    ``lambda_``) and the network (``DefaultModelConfig`` names)."""

    lr: float = 3.0e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_param: float = 0.2
    entropy_coeff: float = 0.0
    vf_loss_coeff: float = 0.5
    train_batch_size: int = 4000
    """Env steps per training iteration (per learner)."""
    minibatch_size: int = 256
    num_epochs: int = 5
    fcnet_hiddens: list[int] = field(default_factory=lambda: [128, 128])
    fcnet_activation: Literal["tanh", "relu"] = "tanh"


@dataclass
class LeagueConfig:
    """The self-play league (:class:`ratenvs.integrations.rllib.SelfPlayLeague`)."""

    snapshot_every: int = 5
    """Freeze a copy of the learner into the league every this many iterations."""
    max_snapshots: int = 3
    """Keep at most this many snapshots (the oldest removed first)."""
    snapshot_prob: float = 0.5
    """Probability that a seat other than the learner's plays a snapshot (once any exists)."""


@dataclass
class FaultToleranceConfig:
    """RLlib's ``AlgorithmConfig.fault_tolerance``."""

    restart_failed_env_runners: bool = True
    """Replace an env runner that died (a lost node, an env error) and go on; false: the
    run stops with the env runner's error."""


@dataclass
class RLlibTrainConfig:
    """One RLlib training run."""

    game: str
    env_options: dict[str, Any] = field(default_factory=dict)
    iterations: int = 20
    seed: int = 0
    checkpoint_every: int = 10
    """Write an RLlib checkpoint every this many iterations (0: only after the last)."""
    env_runners: EnvRunnersConfig = field(default_factory=EnvRunnersConfig)
    learners: LearnersConfig = field(default_factory=LearnersConfig)
    ppo: PPOSection = field(default_factory=PPOSection)
    selfplay: LeagueConfig = field(default_factory=LeagueConfig)
    fault_tolerance: FaultToleranceConfig = field(default_factory=FaultToleranceConfig)

    def to_dict(self) -> dict[str, Any]:
        """Plain YAML-ready data (round-trips through :func:`rllib_config_from_dict`)."""
        return dataclasses.asdict(self)


_MAX_INTS = {
    "env_runners.num_envs_per_env_runner": 1024,
    "env_runners.rollout_fragment_length": MAX_ROLLOUT,
    "ppo.train_batch_size": MAX_ROLLOUT,
    "ppo.minibatch_size": MAX_ROLLOUT,
    "ppo.num_epochs": 1000,
    "selfplay.snapshot_every": MAX_TIMESTEPS,
    "selfplay.max_snapshots": 1000,
}
"""Upper bounds of the integer keys, as ``training.config`` bounds the SB3 config's (a
typo such as an extra zero is an error, not a run that allocates what the machine has
not); the networks as there (:data:`~training.config.MAX_LAYERS`,
:data:`~training.config.MAX_WIDTH`)."""


def _check(cfg: RLlibTrainConfig) -> None:
    """Range checks, and the game and its options (an env is built with them)."""
    from ratenvs.games import GAMES

    if cfg.game not in GAMES:
        raise ConfigError(f"game: unknown game {cfg.game!r}; choose one of {sorted(GAMES)}")
    positive = {
        "iterations": cfg.iterations,
        "env_runners.num_envs_per_env_runner": cfg.env_runners.num_envs_per_env_runner,
        "env_runners.rollout_fragment_length": cfg.env_runners.rollout_fragment_length,
        "ppo.train_batch_size": cfg.ppo.train_batch_size,
        "ppo.minibatch_size": cfg.ppo.minibatch_size,
        "ppo.num_epochs": cfg.ppo.num_epochs,
        "selfplay.snapshot_every": cfg.selfplay.snapshot_every,
        "selfplay.max_snapshots": cfg.selfplay.max_snapshots,
    }
    for key, value in positive.items():
        if value < 1:
            raise ConfigError(f"{key}: must be at least 1, got {value}")
    for key, high in _MAX_INTS.items():
        value = positive[key]
        if value > high:
            raise ConfigError(f"{key}: must be at most {high:,}, got {value:,}")
    envs = cfg.env_runners.num_envs_per_env_runner * max(1, cfg.env_runners.num_env_runners)
    if envs * cfg.env_runners.rollout_fragment_length > MAX_ROLLOUT:
        raise ConfigError(
            "env_runners.rollout_fragment_length: the env runners' envs times their fragment "
            f"must be at most {MAX_ROLLOUT:,} frames a round, got "
            f"{envs * cfg.env_runners.rollout_fragment_length:,}"
        )
    at_least_zero = {
        "checkpoint_every": cfg.checkpoint_every,
        "env_runners.num_env_runners": cfg.env_runners.num_env_runners,
        "env_runners.num_cpus_per_env_runner": cfg.env_runners.num_cpus_per_env_runner,
        "learners.num_learners": cfg.learners.num_learners,
        "ppo.entropy_coeff": cfg.ppo.entropy_coeff,
        "ppo.vf_loss_coeff": cfg.ppo.vf_loss_coeff,
    }
    for key, value in at_least_zero.items():
        if value < 0:
            raise ConfigError(f"{key}: must be >= 0, got {value}")
    if cfg.iterations > MAX_ITERATIONS:
        raise ConfigError(f"iterations: must be at most {MAX_ITERATIONS:,}, got {cfg.iterations:,}")
    if cfg.env_runners.num_env_runners > MAX_ENV_RUNNERS:
        raise ConfigError(
            f"env_runners.num_env_runners: must be at most {MAX_ENV_RUNNERS:,}, "
            f"got {cfg.env_runners.num_env_runners:,}"
        )
    if not 0 <= cfg.seed <= MAX_SEED:
        raise ConfigError(f"seed: must be in 0..{MAX_SEED}, got {cfg.seed}")
    for key in ("lr", "gamma", "gae_lambda", "clip_param"):
        value = getattr(cfg.ppo, key)
        if not 0.0 < value <= 1.0:
            raise ConfigError(f"ppo.{key}: must be in (0.0, 1.0], got {value}")
    if cfg.ppo.minibatch_size > cfg.ppo.train_batch_size:
        raise ConfigError(
            f"ppo.minibatch_size: {cfg.ppo.minibatch_size} is more than "
            f"ppo.train_batch_size {cfg.ppo.train_batch_size}"
        )
    if not cfg.ppo.fcnet_hiddens or any(n < 1 for n in cfg.ppo.fcnet_hiddens):
        raise ConfigError(
            f"ppo.fcnet_hiddens: need one or more positive sizes, got {cfg.ppo.fcnet_hiddens}"
        )
    if len(cfg.ppo.fcnet_hiddens) > MAX_LAYERS:
        raise ConfigError(
            f"ppo.fcnet_hiddens: at most {MAX_LAYERS} hidden layers, "
            f"got {len(cfg.ppo.fcnet_hiddens):,}"
        )
    for i, width in enumerate(cfg.ppo.fcnet_hiddens):
        if width > MAX_WIDTH:
            raise ConfigError(
                f"ppo.fcnet_hiddens[{i}]: must be at most {MAX_WIDTH:,} wide, got {width:,}"
            )
    if not 0.0 <= cfg.selfplay.snapshot_prob <= 1.0:
        raise ConfigError(
            f"selfplay.snapshot_prob: must be in [0, 1], got {cfg.selfplay.snapshot_prob}"
        )
    if "render_mode" in cfg.env_options:
        raise ConfigError("env_options.render_mode: not allowed in a training config")
    try:
        GAMES[cfg.game].load().parallel_env(**cfg.env_options)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"env_options: {exc}") from None


def rllib_config_from_dict(data: Any) -> RLlibTrainConfig:
    """Validate plain data (parsed YAML) into an :class:`RLlibTrainConfig`."""
    if not isinstance(data, dict):
        raise ConfigError(f"the config must be a mapping at the top level, got {data!r}")
    cfg = _build(RLlibTrainConfig, data)
    _check(cfg)
    return cfg


def load_rllib_config(path: str | Path) -> RLlibTrainConfig:
    """Read and validate a YAML RLlib training config (the strict loader of
    :func:`training.config.parse_yaml`: no anchors, aliases or duplicate keys)."""
    path = Path(path)
    data = load_yaml(path, read_text("--config", path, "a YAML config", error=ConfigError))
    try:
        return rllib_config_from_dict(data)
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None


def algorithm_config(cfg: RLlibTrainConfig) -> Any:
    """The RLlib ``PPOConfig`` of a run: the game's env, the masking module, the league."""
    from ray.rllib.algorithms.ppo import PPOConfig

    from ratenvs.integrations import rllib as rr

    rr.register_envs()
    runners, ppo = cfg.env_runners, cfg.ppo
    config = (
        PPOConfig()
        .env_runners(
            num_env_runners=runners.num_env_runners,
            num_envs_per_env_runner=runners.num_envs_per_env_runner,
            num_cpus_per_env_runner=runners.num_cpus_per_env_runner,
            rollout_fragment_length=runners.rollout_fragment_length,
        )
        .learners(num_learners=cfg.learners.num_learners)
        .training(
            lr=ppo.lr,
            gamma=ppo.gamma,
            lambda_=ppo.gae_lambda,
            clip_param=ppo.clip_param,
            entropy_coeff=ppo.entropy_coeff,
            vf_loss_coeff=ppo.vf_loss_coeff,
            train_batch_size_per_learner=ppo.train_batch_size,
            minibatch_size=ppo.minibatch_size,
            num_epochs=ppo.num_epochs,
        )
        .fault_tolerance(restart_failed_env_runners=cfg.fault_tolerance.restart_failed_env_runners)
        .debugging(seed=cfg.seed)
    )
    model = {"fcnet_hiddens": list(ppo.fcnet_hiddens), "fcnet_activation": ppo.fcnet_activation}
    league = cfg.selfplay
    return rr.with_league(
        config,
        cfg.game,
        cfg.env_options,
        model_config=model,
        snapshot_every=league.snapshot_every,
        max_snapshots=league.max_snapshots,
        snapshot_prob=league.snapshot_prob,
    )


def summary(result: dict[str, Any]) -> dict[str, Any]:
    """The figures of one training result that a run prints and logs: lifetime env steps
    and episodes, the mean episode length and return of ``main``, the decisions each
    module made this iteration, env runner restarts and the league."""
    runners = result.get("env_runners", {})
    returns = runners.get("module_episode_returns_mean", {})
    module_steps = runners.get("num_module_steps_sampled", {})
    return {
        "iteration": result.get("training_iteration"),
        "env_steps": _count(runners.get("num_env_steps_sampled_lifetime")),
        "episodes": _count(runners.get("num_episodes_lifetime")),
        "episode_len_mean": _number(runners.get("episode_len_mean")),
        "main_return_mean": _number(returns.get("main")),
        "module_steps": {  # modules that did not play this iteration: no count or NaN
            m: _count(n) for m, n in sorted(module_steps.items()) if n == n and n
        },
        "env_runner_restarts": _count(
            result.get("fault_tolerance", {}).get("num_remote_worker_restarts", 0)
        ),
        "league": list(result.get("league", [])),
        "seconds": _number(result.get("time_this_iter_s")),
    }


def _count(value: Any) -> int | None:
    return None if value is None else int(value)


def _number(value: Any) -> float | None:
    if value is None:
        return None
    value = float(value)
    return None if value != value else round(value, 4)


def _line(s: dict[str, Any], iterations: int) -> str:
    def show(v: Any) -> str:
        return "-" if v is None else f"{v:.3f}"

    return (
        f"iter {s['iteration']}/{iterations}: env steps {s['env_steps']}, "
        f"episodes {s['episodes']}, mean length {show(s['episode_len_mean'])}, "
        f"main return {show(s['main_return_mean'])}, league {s['league'] or '-'}, "
        f"decisions {s['module_steps']}, "
        f"{show(s['seconds'])} s"
    )


OUTPUTS = ("results.jsonl", "config.yaml")
"""Files of a run in ``--out`` (besides the ``checkpoint_*`` folders)."""


def _run_files(out: Path, overwrite: bool) -> list[Path]:
    """The earlier run's files in ``out`` that ``overwrite`` may remove; a non-empty ``out``
    without ``overwrite``, or one holding anything else, is a UsageError (nothing removed)."""
    out = output_folder("--out", out)
    if not (out.exists() and any(out.iterdir())):
        return []
    if not overwrite:
        raise UsageError(f"--out {out}: not empty (pass --overwrite to replace the run)")
    found = []
    for entry in sorted(out.iterdir()):
        run_folder = entry.is_dir() and entry.name.startswith(("checkpoint_", ".checkpoint_"))
        if not run_folder and entry.name not in OUTPUTS:
            raise UsageError(f"--out {out}: holds {entry.name}, not a file of a run")
        found.append(entry)
    return found


def check_out(out: Path, overwrite: bool) -> None:
    """What :func:`prepare_out` would refuse, refused now, removing nothing."""
    _run_files(out, overwrite)


def prepare_out(out: Path, overwrite: bool) -> Path:
    """``out`` ready for a run: new or empty, or (``overwrite``) cleared of an earlier run's
    files (``checkpoint_*`` folders, :data:`OUTPUTS`); anything else in it is an error, found
    before anything is removed."""
    for entry in _run_files(out, overwrite):
        if entry.is_dir():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    return out


def save_checkpoint(algo: Any, out: Path, iteration: int) -> Path:
    """The algorithm's checkpoint of ``iteration`` as ``<out>/checkpoint_<iteration>``, whole
    or not at all: RLlib writes it into a folder of its own beside it, renamed into place
    once written: a failure mid-way (a full disk) removes that folder, a kill leaves it as
    ``.checkpoint_*.tmp``, which no one restores from and ``--overwrite`` clears; never a
    half checkpoint under the name."""
    final = (out / f"checkpoint_{iteration:06d}").resolve()
    writing = final.with_name(f".{final.name}.{os.getpid()}.tmp")
    replaced = final.with_name(f".{final.name}.{os.getpid()}.old.tmp")
    for stale in (writing, replaced):
        if stale.exists():
            shutil.rmtree(stale)
    try:
        algo.save_to_path(str(writing))
        if final.exists():  # an earlier checkpoint of the same iteration: replaced whole,
            os.replace(final, replaced)  # set aside (not removed) until the new one is in
        os.replace(writing, final)
    except BaseException:
        if replaced.exists() and not final.exists():  # put the earlier one back
            os.replace(replaced, final)
        raise
    finally:
        for left in (writing, replaced):
            if left.exists():
                shutil.rmtree(left, ignore_errors=True)
    return final


def train(cfg: RLlibTrainConfig, out: Path) -> list[dict[str, Any]]:
    """Run ``cfg`` on the Ray instance this process is connected to (a local one is
    started if none is); checkpoints and ``results.jsonl`` go to ``out`` (made if needed).
    Returns the summaries of every iteration (:func:`summary`)."""
    import ray

    if not ray.is_initialized():
        ray.init(address="local")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    from training.atomic import atomic_write_text

    atomic_write_text(out / "config.yaml", yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    algo = algorithm_config(cfg).build_algo()
    rows = []
    try:
        log = ""  # results.jsonl, rewritten whole (temporary file, renamed) every iteration
        atomic_write_text(out / "results.jsonl", log)
        for _ in range(cfg.iterations):
            row = summary(algo.train())
            rows.append(row)
            print(_line(row, cfg.iterations), flush=True)
            log += json.dumps(row) + "\n"
            atomic_write_text(out / "results.jsonl", log)
            it = row["iteration"]
            last = it == cfg.iterations
            if last or (cfg.checkpoint_every and it % cfg.checkpoint_every == 0):
                path = save_checkpoint(algo, out, it)
                print(f"checkpoint: {path}", flush=True)
    finally:
        algo.stop()
    return rows


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="python -m training.rllib_train",
        description="Self-play PPO with RLlib on a ratenvs game, on this machine or a Ray cluster.",
    )
    parser.add_argument("--config", required=True, type=Path, help="YAML RLlib config")
    parser.add_argument("--out", required=True, type=Path, help="output folder (checkpoints)")
    parser.add_argument(
        "--address",
        help="join this Ray cluster ('auto' or HOST:PORT) instead of starting a local instance",
    )
    parser.add_argument(
        "--num-env-runners",
        type=int_in(0, MAX_ENV_RUNNERS),
        help="override env_runners.num_env_runners",
    )
    parser.add_argument(
        "--iterations", type=int_in(1, MAX_ITERATIONS), help="override the config's iterations"
    )
    parser.add_argument(
        "--num-cpus",
        type=int_in(1),
        help="CPUs of the local Ray instance (default: all; not with --address)",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace an earlier run's files in --out"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.address is not None and args.num_cpus is not None:
            raise UsageError("--num-cpus: only without --address (a cluster has its own CPUs)")
        cfg = load_rllib_config(args.config)
        if args.iterations is not None:
            cfg = dataclasses.replace(cfg, iterations=args.iterations)
        if args.num_env_runners is not None:
            runners = dataclasses.replace(cfg.env_runners, num_env_runners=args.num_env_runners)
            cfg = dataclasses.replace(cfg, env_runners=runners)
        check_out(args.out, args.overwrite)  # an earlier run is removed only once Ray is up
        try:
            import ray

            import ratenvs.integrations.rllib  # noqa: F401  (the clear error if torch is missing)
        except ImportError:
            raise UsageError(RLLIB_MISSING) from None
    except (ValueError, OSError) as exc:
        return report(exc)
    start = time.perf_counter()
    try:
        if args.address is not None:
            ray.init(address=args.address)
        else:
            ray.init(address="local", num_cpus=args.num_cpus)
    except Exception as exc:  # no cluster there, refused, timed out: one line, no traceback
        where = f"--address {args.address}" if args.address is not None else "a local Ray"
        return report(UsageError(f"{where}: {exc}"))
    try:
        try:
            out = prepare_out(args.out, args.overwrite)
        except (ValueError, OSError) as exc:
            return report(exc)
        rows = train(cfg, out)
    finally:
        ray.shutdown()
    last = rows[-1]
    print(
        f"done: {last['iteration']} iterations, {last['env_steps']} env steps in "
        f"{time.perf_counter() - start:.0f} s; checkpoints in {out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
