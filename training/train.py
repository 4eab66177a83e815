"""Train a MaskablePPO agent on a ratenvs game from a YAML config.

Usage::

    python -m training.train --config configs/<name>.yaml [--timesteps N] [--seed S]
                             [--out DIR] [--resume CKPT | --overwrite]

Writes into ``--out`` (default ``runs/<config name>``):

- ``progress.csv``: one row per rollout (timesteps, wall time, mean episode reward).
- ``eval.csv``: one row per periodic evaluation (win rate, mean reward, and the
  game's own figures: an exact grade of the greedy policy, answer accuracy).
- ``best.pt`` / ``best.json``: the best checkpoint so far by ``eval.metric``.
- ``final.pt`` / ``final.json``: the last checkpoint, with the final evaluation.
- ``curve.png``: the learning curve (``training.plots``).
- ``config.yaml``: the config actually used (after command-line overrides).

``--resume CKPT`` continues from a checkpoint of the same game and observation
size (policy and optimizer state), for ``timesteps`` more steps.

A non-empty ``--out`` is refused unless ``--resume`` names a checkpoint in it (the run
continues there: it appends to the logs and keeps ``best.pt`` unless an evaluation beats
its figure) or ``--overwrite`` is given (an earlier run's files are removed first).
While it writes, the run holds ``<out>/.lock`` (its pid), which refuses a second run on
the same folder.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import dataclasses
import datetime as dt
import io
import os
import signal
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from ratenvs.agents import AGENT_PREFIX, agent_path
from ratenvs.agents.checkpoint import library_versions, require_training_packages
from ratenvs.common.arguments import (
    INTERRUPTED_STATUS,
    ArgumentParser,
    int_in,
    number_in,
    output_folder,
    read_text,
    report,
)
from ratenvs.evaluation import evaluation_line
from training.atomic import atomic_write_text
from training.checkpoint import (
    CheckpointError,
    PolicySpec,
    appended_options,
    is_checkpoint,
    load_card,
    load_checkpoint,
    owned_files,
    policy_class,
    policy_kwargs,
    save_checkpoint,
    widen_inputs,
    write_card,
)
from training.config import MAX_SEED, MAX_TIMESTEPS, ConfigError, TrainConfig, load_config
from training.hooks import hooks_for
from training.selfplay import env_factories, env_options, make_batched_vec_env, make_env

PROGRESS_FIELDS = ("timesteps", "wall_time_s", "episodes", "ep_reward_mean", "ep_length_mean")
EVAL_FIELDS = (
    "timesteps",
    "wall_time_s",
    "games",
    "win_rate",
    "mean_reward",
    "exact_expected_score",
    "ratio_to_optimal",
    "answer_accuracy",
    "metric",
)


def eval_metric(cfg: TrainConfig) -> str:
    """The figure "best so far" maximises (resolves ``eval.metric: auto``)."""
    if cfg.eval.metric != "auto":
        return cfg.eval.metric
    options = env_options(cfg)
    rule = hooks_for(cfg.game).default_metric
    chosen = None if rule is None else rule(options)
    if chosen is not None:
        return chosen
    players = int(options.get("num_players", 1))
    return "win_rate" if players > 1 else "mean_reward"


def eval_opponents(cfg: TrainConfig) -> list[str] | None:
    """Bot names the evaluations use: ``eval.opponents``, else the training opponents."""
    if cfg.eval.opponents is not None:
        return cfg.eval.opponents
    if cfg.selfplay.enabled:
        return None  # the game's default opponent
    return cfg.opponents


def git_commit() -> str | None:
    """The commit of the working tree (``+dirty`` if training/ or ratenvs/ differ), or None."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "ratenvs", "training"],
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+dirty" if dirty else "")


class _Logs:
    """The run's CSV files, each rewritten whole to a temporary file renamed into place at
    every row (a kill leaves the last whole file, never a torn row)."""

    def __init__(self, out: Path, append: bool) -> None:
        self.paths = {"progress": out / "progress.csv", "eval": out / "eval.csv"}
        self.fields = {"progress": PROGRESS_FIELDS, "eval": EVAL_FIELDS}
        self.text = {k: self._start(p, self.fields[k], append) for k, p in self.paths.items()}
        for which in self.paths:
            atomic_write_text(self.paths[which], self.text[which])

    @staticmethod
    def _start(path: Path, fields: Sequence[str], append: bool) -> str:
        """The file's text so far: a resumed run's earlier rows (a torn last line, left by
        a run of an earlier version, dropped), else the header."""
        if append and path.is_file():
            text = path.read_text(encoding="utf-8")
            if text and not text.endswith("\n"):
                text = text[: text.rfind("\n") + 1]
            if text:
                return text
        header = io.StringIO()
        csv.DictWriter(header, fieldnames=list(fields)).writeheader()
        return header.getvalue()

    def write(self, which: str, row: dict[str, Any]) -> None:
        line = io.StringIO()
        writer = csv.DictWriter(line, fieldnames=list(self.fields[which]))
        writer.writerow({k: row.get(k, "") for k in writer.fieldnames})
        self.text[which] += line.getvalue()
        atomic_write_text(self.paths[which], self.text[which])

    def close(self) -> None:
        """Nothing is left open (every row is on disk when ``write`` returns)."""


def make_callback(
    cfg: TrainConfig,
    out: Path,
    spec: PolicySpec,
    card_base: dict[str, Any],
    logs: _Logs,
    max_seconds: float | None = None,
    best: float = -np.inf,
    previous_wall: float = 0.0,
    stop: StopRequest | None = None,
) -> Any:
    """The callback that logs, shows progress, evaluates, keeps the best and feeds self-play.

    ``best``: the figure ``best.pt`` in ``out`` already holds (a resumed run's), which an
    evaluation must beat to replace it; ``previous_wall``: the resumed checkpoint's wall
    time, counted in ``best.pt``'s card as its ``timesteps`` are."""
    from stable_baselines3.common.callbacks import BaseCallback

    from training.checkpoint import PolicyBot
    from training.evaluate import evaluate_agent

    metric = eval_metric(cfg)
    opts = env_options(cfg)

    class TrainingCallback(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.t0 = time.perf_counter()
            self.start_steps = 0
            self.next_eval = 0
            self.next_snapshot = 0
            self.best = best
            self.bar: Any = None
            self.stopped_early: str | None = None
            self.snapshots_added = 0
            self.logged_steps = 0

        def _on_training_start(self) -> None:
            self.start_steps = self.logged_steps = self.num_timesteps
            every = cfg.eval.every
            self.next_eval = self.num_timesteps + every if every else np.inf
            if every and card_base.get("pretrain"):
                self.next_eval = self.num_timesteps  # how good the warm start is, first
            self.next_snapshot = self.num_timesteps + cfg.selfplay.snapshot_every
            if cfg.logging.progress_bar:
                from tqdm import tqdm

                self.bar = tqdm(
                    total=cfg.timesteps,
                    unit="step",
                    desc=cfg.game,
                    mininterval=1.0 if sys.stderr.isatty() else 30.0,
                    dynamic_ncols=True,
                )

        def _on_step(self) -> bool:
            if self.bar is not None:
                self.bar.update(self.num_timesteps - self.start_steps - self.bar.n)
            if cfg.selfplay.enabled and self.num_timesteps >= self.next_snapshot:
                self.next_snapshot += cfg.selfplay.snapshot_every
                state = frozen_state(self.model.policy)
                self.training_env.env_method("add_snapshot", state, spec)
                self.snapshots_added += 1
            if stop is not None and stop.requested:  # Ctrl-C or SIGTERM (StopRequest)
                self.stopped_early = INTERRUPTED
                return False
            if max_seconds is not None and time.perf_counter() - self.t0 > max_seconds:
                self.stopped_early = f"wall-clock limit of {max_seconds / 60:g} minutes"
                return False
            return True

        def _on_rollout_start(self) -> None:
            # between updates: the weights evaluated are those num_timesteps trained
            # (evaluated in _on_step, the last rollout's steps were counted before their
            # update, and the row named weights one update short of its timesteps)
            self._evaluate_when_due()

        def _evaluate_when_due(self) -> None:
            if self.num_timesteps >= self.next_eval:
                while self.next_eval <= self.num_timesteps:
                    self.next_eval += cfg.eval.every
                self.evaluate()

        def _on_rollout_end(self) -> None:
            infos = list(self.model.ep_info_buffer)
            self.logged_steps = self.num_timesteps
            row = {
                "timesteps": self.num_timesteps,
                "wall_time_s": round(previous_wall + time.perf_counter() - self.t0, 2),
                "episodes": len(infos),
            }
            if infos:
                row["ep_reward_mean"] = float(np.mean([i["r"] for i in infos]))
                row["ep_length_mean"] = float(np.mean([i["l"] for i in infos]))
            logs.write("progress", row)

        def evaluate(self) -> dict[str, Any]:
            state = self.model.policy.state_dict()
            bot = PolicyBot(state, spec)
            result = evaluate_agent(
                cfg.game, opts, bot, eval_opponents(cfg), cfg.eval.games, cfg.eval.seed
            )
            value = float(result[metric])
            row = {
                "timesteps": self.num_timesteps,
                "wall_time_s": round(previous_wall + time.perf_counter() - self.t0, 2),
                "metric": value,
                **{k: result.get(k, "") for k in EVAL_FIELDS[2:-1]},
            }
            logs.write("eval", row)
            if value > self.best:
                self.best = value
                card = {
                    **card_base,
                    "timesteps": self.num_timesteps,
                    "wall_time_s": round(previous_wall + time.perf_counter() - self.t0, 1),
                    "evaluation": {"periodic": result, "metric": metric, "value": value},
                }
                save_checkpoint(out / "best", state, card)
            if self.bar is not None:
                self.bar.write(f"[eval] {self.num_timesteps} steps: {metric} = {value:.4f}")
            return result

        def _on_training_end(self) -> None:
            if self.stopped_early is None:  # the last update's weights, when an evaluation
                self._evaluate_when_due()  # fell due in its rollout
            elif self.num_timesteps != self.logged_steps:  # a rollout cut short: SB3 skips
                self._on_rollout_end()  # its end, and progress.csv stopped short of the card
            if self.bar is not None:
                self.bar.n = self.num_timesteps - self.start_steps
                self.bar.close()

    return TrainingCallback()


def frozen_state(policy: Any) -> dict[str, Any]:
    """A copy of ``policy``'s state dict that later updates leave as it is (on CPU,
    ``detach().cpu()`` alone shares the parameters' memory)."""
    return {k: v.detach().cpu().clone() for k, v in policy.state_dict().items()}


class _LinearSchedule:
    """Learning rate decaying linearly to 0 (SB3 passes the remaining progress, 1 -> 0)."""

    def __init__(self, initial: float) -> None:
        self.initial = initial

    def __call__(self, progress_remaining: float) -> float:
        return self.initial * progress_remaining


class StopRequest:
    """Ctrl-C or SIGTERM while PPO learns is a request the training callback honours at the
    next env step: a KeyboardInterrupt in the middle of a step of ``SubprocVecEnv`` leaves
    the workers' pipes half read, and closing them then waits forever. A second signal,
    or one outside learning (the warm start, the final evaluation), raises
    KeyboardInterrupt at once."""

    def __init__(self) -> None:
        self.learning = False
        self.requested = False

    def __call__(self, _signum: int, _frame: Any) -> None:
        if self.learning and not self.requested:
            self.requested = True
            print("\nstopping at the next step (again to stop at once)", file=sys.stderr)
            return
        raise KeyboardInterrupt


class _SignalsToTheLearner:
    """A subprocess env worker's factory that first leaves Ctrl-C and SIGTERM to the learner
    (:class:`StopRequest`): a terminal's Ctrl-C reaches the whole process group, and workers
    that died of it broke their pipes before the learner wrote ``final.pt``. The learner
    closes them; a learner killed outright closes their pipes, which ends them too."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self.factory = factory

    def __call__(self) -> Any:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)
        return self.factory()


def _stop_on_signals(stop: StopRequest) -> Callable[[], None]:
    """Route SIGTERM and SIGINT to ``stop`` (main thread only); return the undo."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGINT)}

    def restore() -> None:
        for sig, handler in previous.items():
            signal.signal(sig, handler)

    return restore


INTERRUPTED = "interrupted (Ctrl-C or SIGTERM)"
"""The card's ``stopped_early`` of a run stopped by a signal."""

LOCK_NAME = ".lock"
"""The lock file a run holds in its ``--out`` folder (it contains the run's pid)."""

RUN_OUTPUTS = (
    "config.yaml",
    "progress.csv",
    "eval.csv",
    "best.pt",  # the older checkpoint format's weights
    "best.json",
    "final.pt",
    "final.json",
    "curve.png",
)
"""The files a run writes into ``--out`` (what ``--overwrite`` removes first)."""


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    except OSError:  # pragma: no cover - e.g. an out-of-range pid
        return False
    return True


def acquire_lock(out: Path) -> Path:
    """Create ``<out>/.lock`` holding this pid; return its path.

    The lock appears whole or not at all: the pid is written to a file of this process's
    own, which is then hard-linked to the lock's name (the link fails if the lock exists),
    so no other run ever reads an empty lock, and no kill leaves one. A lock whose pid is
    still running is a :class:`ConfigError` naming the lock; a lock whose pid is not running
    (a run killed with SIGKILL) is taken over, with a note.
    """
    lock = out / LOCK_NAME
    mine = out / f".lock.{os.getpid()}.tmp"
    mine.write_text(f"{os.getpid()}\n", encoding="utf-8")
    try:
        return _link_lock(out, lock, mine)
    finally:
        with contextlib.suppress(OSError):
            mine.unlink()


def _link_lock(out: Path, lock: Path, mine: Path) -> Path:
    """Link ``mine`` (a file holding this pid) to ``lock``, taking over a stale lock."""
    for _ in range(3):
        try:
            _place_lock(mine, lock)
        except FileExistsError:
            try:
                text = lock.read_text(encoding="utf-8").strip()
            except FileNotFoundError:
                continue  # released meanwhile: try again
            if not text.isdigit():
                raise ConfigError(
                    f"--out {out}: the lock {lock} holds no pid ({text[:20]!r}); delete it "
                    "if no run is writing into that folder"
                ) from None
            pid = int(text)
            if _pid_alive(pid):
                raise ConfigError(
                    f"--out {out}: another run (pid {pid}) is writing there and holds the "
                    f"lock {lock}; wait for it, pick another --out, or delete the lock if "
                    "that pid is not a training run"
                ) from None
            print(
                f"--out {out}: taking over the stale lock {lock} (its pid {pid} is not running)",
                file=sys.stderr,
            )
            with contextlib.suppress(FileNotFoundError):
                lock.unlink()
            continue
        return lock
    raise ConfigError(f"--out {out}: could not create the lock {lock} (another run races for it)")


def _place_lock(mine: Path, lock: Path) -> None:
    """Put ``mine``'s text at ``lock`` unless a lock is there (FileExistsError): a hard link,
    whole at once; on a filesystem without hard links, the lock created exclusively and
    written (the one window in which a reader may find it empty)."""
    try:
        os.link(mine, lock)
    except FileExistsError:
        raise
    except OSError:  # no hard links here (e.g. some network or FAT filesystems)
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(mine.read_text(encoding="utf-8"))


def release_lock(lock: Path) -> None:
    """Remove ``lock`` if this process holds it."""
    with contextlib.suppress(OSError):
        if lock.read_text(encoding="utf-8").strip() == str(os.getpid()):
            lock.unlink()


def _prepare_out(out: Path, resume: str | Path | None, overwrite: bool | None) -> None:
    """With ``overwrite`` False, refuse a non-empty ``out`` unless resuming a checkpoint
    of the run in it (the checkpoint lies in ``out``); with True, remove the files an
    earlier run wrote there (``RUN_OUTPUTS``). None: no check."""
    if overwrite is None:
        return
    entries = sorted(p.name for p in out.iterdir() if p.name != LOCK_NAME)
    if not entries:
        return
    shown = ", ".join(entries[:5]) + (", ..." if len(entries) > 5 else "")
    if resume is not None:
        if Path(resume).resolve().parent != out.resolve():
            raise ConfigError(
                f"--out {out}: the folder holds another run's files ({shown}) and --resume "
                f"{resume} is not in it; a resumed run continues its own folder (--out "
                f"{Path(resume).parent}) or starts an empty one"
            )
        return
    if not overwrite:
        raise ConfigError(
            f"--out {out}: the folder is not empty ({shown}); pass --overwrite to replace "
            "an earlier run's files, --resume CKPT to continue a run, or pick another --out"
        )
    removed = [name for name in RUN_OUTPUTS if (out / name).is_file()]
    for name in ("best", "final"):  # the weights files their cards named
        removed += [p.name for p in owned_files(out / name) if p.name not in removed]
    for name in removed:
        (out / name).unlink()
    if removed:
        print(f"--overwrite: removed {', '.join(removed)} from {out}", file=sys.stderr)


def train(
    cfg: TrainConfig,
    out: Path,
    resume: str | Path | None = None,
    config_name: str = "",
    max_minutes: float | None = None,
    overwrite: bool | None = None,
) -> Path:
    """Run the training of ``cfg`` into ``out``; return the final checkpoint's weights path.

    Training stops early, still writing the final checkpoint and its evaluation, after
    ``max_minutes`` of wall time, on Ctrl-C or on SIGTERM (``kill``, which also reaches a
    run started in the background, where Ctrl-C's SIGINT is ignored); the card records why.
    ``final.pt`` is written as soon as training stops, before its evaluation: an error or
    an interrupt in the evaluation leaves it loadable (its card's ``evaluation`` is None).

    The run holds ``<out>/.lock`` while it writes (see :func:`acquire_lock`).
    ``overwrite``: None (the default) writes into ``out`` whatever it holds; False refuses
    a non-empty ``out`` unless ``resume`` is a checkpoint in it; True first removes an earlier run's
    files (the command line passes False, or True with ``--overwrite``).
    """
    if resume is not None and overwrite:
        raise ConfigError(
            "--overwrite: not with --resume (a resumed run appends to the logs in --out)"
        )
    output_folder("--out", out, error=ConfigError)
    if resume is not None and str(resume).startswith(AGENT_PREFIX):  # a shipped agent
        resume = agent_path(str(resume))
    plan = _plan(cfg, resume)  # every check of the run's inputs, before anything is written
    out.mkdir(parents=True, exist_ok=True)
    lock = acquire_lock(out)
    stop = StopRequest()
    restore_signals = _stop_on_signals(stop)
    try:
        _prepare_out(out, resume, overwrite)
        return _train(cfg, out, plan, resume, config_name, max_minutes, stop)
    finally:
        restore_signals()
        release_lock(lock)


def make_model(cfg: TrainConfig, venv: Any, spec: PolicySpec, tb_dir: str | None = None) -> Any:
    """The run's MaskablePPO over ``venv``: the config's hyperparameters and policy."""
    from sb3_contrib import MaskablePPO

    algo = cfg.algorithm
    return MaskablePPO(
        policy_class(spec),
        venv,
        learning_rate=_LinearSchedule(algo.learning_rate)
        if algo.learning_rate_schedule == "linear"
        else algo.learning_rate,
        n_steps=algo.n_steps,
        batch_size=algo.batch_size,
        n_epochs=algo.n_epochs,
        gamma=algo.gamma,
        gae_lambda=algo.gae_lambda,
        clip_range=algo.clip_range,
        ent_coef=algo.ent_coef,
        vf_coef=algo.vf_coef,
        max_grad_norm=algo.max_grad_norm,
        policy_kwargs=policy_kwargs(spec),
        tensorboard_log=tb_dir,
        seed=cfg.seed,
        device="cpu",
        verbose=0,
    )


@dataclasses.dataclass
class _Plan:
    """What :func:`_plan` found out about a run before it writes anything."""

    spec: PolicySpec
    resumed: Any  # the checkpoint of --resume, or None
    previous_steps: int = 0
    previous_wall: float = 0.0


def probe_env(cfg: TrainConfig) -> tuple[int, int, int]:
    """Build one training env of ``cfg``: (observation size, actions, privileged entries).
    Env options the game refuses are a ConfigError naming ``env_options`` (and opponents or
    a learner seat the door refuses, a ValueError naming the option), before any run."""
    from ratenvs.games import GAMES

    try:
        GAMES[cfg.game].load().raw_env(**env_options(cfg))
    except ValueError as exc:
        raise ConfigError(f"env_options: {exc}") from None
    probe = make_env(cfg, monitor=False)
    try:
        obs_size = int(probe.observation_space.shape[0])
        n_actions = int(probe.action_space.n)
        extra = int(probe.get_wrapper_attr("extra")) if cfg.algorithm.privileged_critic else 0
    finally:
        probe.close()
    return obs_size - extra, n_actions, extra


ROLLOUT_FLOATS = 8
"""Float32 entries the rollout buffer keeps per frame besides the observation and the mask
(action, reward, return, value, log-probability, advantage, episode start; one spare)."""


def memory_estimate(cfg: TrainConfig, spec: PolicySpec) -> tuple[int, int]:
    """Bytes of the run's two largest allocations, before either is made: (the rollout
    buffer, ``n_envs * n_steps`` frames of float32 observation, mask and
    :data:`ROLLOUT_FLOATS`; the networks, float32 weights, gradients and Adam's two moments,
    plus a frozen copy of the weights per self-play snapshot)."""
    frames = cfg.n_envs * cfg.algorithm.n_steps
    per_frame = 4 * (spec.observation_size + spec.critic_extra + spec.num_actions + ROLLOUT_FLOATS)
    weights = sum(int(np.prod(shape)) for shape in spec.expected_shapes().values())
    copies = 4 + (cfg.selfplay.max_snapshots if cfg.selfplay.enabled else 0)
    return frames * per_frame, 4 * weights * copies


def _size(nbytes: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6)):
        if nbytes >= scale / 10:
            return f"{nbytes / scale:,.1f} {unit}"
    return f"{nbytes / 1e3:,.1f} kB"


def check_memory(cfg: TrainConfig, spec: PolicySpec) -> None:
    """A run whose rollout buffer and networks (:func:`memory_estimate`) would need more
    memory than the machine (or its container) has is a ConfigError naming both, before
    anything is allocated (a wide ``net_arch`` failed only when torch allocated it)."""
    from ratenvs.common.batched import memory_limit

    rollout, networks = memory_estimate(cfg, spec)
    limit = memory_limit()
    if rollout + networks > limit:
        raise ConfigError(
            f"algorithm: this run needs about {_size(rollout + networks)} (the rollout "
            f"of n_envs * n_steps = {cfg.n_envs * cfg.algorithm.n_steps:,} frames "
            f"{_size(rollout)}, the networks of net_arch {list(spec.net_arch)} "
            f"{_size(networks)}), more than the {_size(limit)} of memory here"
        )


def _plan(cfg: TrainConfig, resume: str | Path | None) -> _Plan:
    """Check everything the run needs, writing nothing: the env (options, opponents, seat),
    the evaluation's opponents (a checkpoint among them: that it fits the game), the
    warm start's teacher base, the seed, and the ``--resume`` checkpoint (its game,
    observation and architecture)."""
    obs_size, n_actions, extra = probe_env(cfg)
    _check_eval_seats(cfg)
    _check_eval_checkpoints(cfg, obs_size)
    from training.pretrain import check_teacher_base

    check_teacher_base(cfg)
    algo = cfg.algorithm
    spec = PolicySpec(obs_size, n_actions, tuple(algo.net_arch), algo.activation, extra)
    check_memory(cfg, spec)
    if resume is None:
        return _Plan(spec, None)
    resumed = load_checkpoint(resume, game=cfg.game)
    if resumed.optimizer_state is None:
        print(
            f"--resume {resume}: the checkpoint keeps no optimizer state (a best.pt, or "
            "one shipped without it); the optimizer starts afresh",
            file=sys.stderr,
        )
    grown = obs_size - resumed.spec.observation_size
    added = appended_options(
        resumed.card.get("env_options", {}),
        env_options(cfg),
        hooks_for(cfg.game).appended_options,
    )
    if grown > 0 and resumed.spec.critic_extra == 0 and added:
        print(
            f"--resume {resume}: the observation grew by {grown} entries at its end "
            f"({', '.join(added)}); they get zero weights and the optimizer state starts "
            "afresh",
            file=sys.stderr,
        )
        resumed.policy_state = widen_inputs(resumed.policy_state, grown)
        resumed.optimizer_state = None
        resumed.spec = dataclasses.replace(resumed.spec, observation_size=obs_size)
    elif grown:
        load_checkpoint(resume, game=cfg.game, observation_size=obs_size)  # says why
    if (
        resumed.spec.critic_extra == 0
        and extra
        and resumed.spec == dataclasses.replace(spec, critic_extra=0)
    ):
        from training.privileged import widen_critic

        print(
            f"--resume {resume}: the value network gets {extra} privileged inputs "
            "(zero weights); the optimizer state starts afresh",
            file=sys.stderr,
        )
        resumed.policy_state = widen_critic(resumed.policy_state, extra)
        resumed.optimizer_state = None
        resumed.spec = spec
    if resumed.spec != spec:
        raise CheckpointError(
            f"--resume {resume}: architecture {resumed.spec.to_dict()} differs from the "
            f"config's {spec.to_dict()}"
        )
    steps = int(resumed.card.get("timesteps", 0))
    return _Plan(spec, resumed, steps, float(resumed.card.get("wall_time_s", 0.0)))


def _train(
    cfg: TrainConfig,
    out: Path,
    plan: _Plan,
    resume: str | Path | None,
    config_name: str,
    max_minutes: float | None,
    stop: StopRequest | None = None,
) -> Path:
    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    torch.set_num_threads(cfg.algorithm.torch_threads)
    atomic_write_text(out / "config.yaml", yaml.safe_dump(cfg.to_dict(), sort_keys=False))
    spec, resumed = plan.spec, plan.resumed
    previous_steps, previous_wall = plan.previous_steps, plan.previous_wall

    if cfg.vec_env == "batched":
        venv = make_batched_vec_env(cfg)
    else:
        factories = env_factories(cfg)
        if cfg.vec_env == "subproc":
            venv = SubprocVecEnv([_SignalsToTheLearner(f) for f in factories])
        else:
            venv = DummyVecEnv(factories)
    tb_dir = None
    if cfg.logging.tensorboard:
        try:
            import tensorboard  # noqa: F401

            tb_dir = str(out / "tensorboard")
        except ImportError:
            warnings.warn(
                "logging.tensorboard: tensorboard is not installed; skipped", stacklevel=1
            )
    model = make_model(cfg, venv, spec, tb_dir)
    if resumed is not None:
        model.policy.load_state_dict(resumed.policy_state)
        if resumed.optimizer_state is not None:
            model.policy.optimizer.load_state_dict(resumed.optimizer_state)
        model.num_timesteps = previous_steps
    pretrained = None
    if cfg.pretrain.teacher is not None and (resumed is None or cfg.pretrain.on_resume):
        from training.pretrain import warm_start

        print(f"warm start: imitating the {cfg.pretrain.teacher!r} bot", file=sys.stderr)
        pretrained = warm_start(model.policy, cfg)
        print(f"warm start: {pretrained}", file=sys.stderr)

    card_base = {
        "game": cfg.game,
        "gymnasium_id": __import__("ratenvs.games", fromlist=["GAMES"])
        .GAMES[cfg.game]
        .gymnasium_id,
        "env_options": env_options(cfg),
        "opponents": cfg.opponents,
        "learner_seat": cfg.learner_seat,
        "policy": spec.to_dict(),
        "config_name": config_name,
        "config": cfg.to_dict(),
        "resumed_from": None if resume is None else str(resume),
        "pretrain": pretrained,
        "versions": library_versions(),
        "git_commit": git_commit(),
    }
    logs = _Logs(out, append=resumed is not None)
    max_seconds = None if max_minutes is None else 60.0 * max_minutes
    best = -np.inf if resumed is None else _previous_best(cfg, out)
    stop = stop or StopRequest()
    callback = make_callback(
        cfg, out, spec, card_base, logs, max_seconds, best, previous_wall, stop
    )
    t0 = time.perf_counter()
    stop.learning = True
    try:
        model.learn(
            total_timesteps=cfg.timesteps,
            callback=callback,
            reset_num_timesteps=resumed is None,
            tb_log_name="maskableppo",
        )
    except KeyboardInterrupt:
        callback.stopped_early = INTERRUPTED
    finally:
        stop.learning = False
        if callback.stopped_early == INTERRUPTED:
            print("\ninterrupted: writing the final checkpoint", file=sys.stderr)
        logs.close()
        snapshots = None
        if cfg.selfplay.enabled:  # counted here: after an interrupt in a subproc step the
            # workers' pipes still hold that step's results (no env_method now)
            snapshots = min(callback.snapshots_added, cfg.selfplay.max_snapshots)
        venv.close()
    wall = previous_wall + time.perf_counter() - t0

    final_state = model.policy.state_dict()
    card = {
        **card_base,
        "timesteps": int(model.num_timesteps),
        "stopped_early": callback.stopped_early,
        "selfplay_snapshots": snapshots,
        "wall_time_s": round(wall, 1),
        "created_utc": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "evaluation": None,  # filled in below, once the weights are safe
    }
    final = save_checkpoint(
        out / "final", final_state, card, optimizer_state=model.policy.optimizer.state_dict()
    )
    kept = (
        f"{final} is kept without it (evaluate it with: python -m training.evaluate "
        f"--checkpoint {final})"
    )
    try:
        _final_evaluations(cfg, out, final, spec, final_state, card["created_utc"])
    except KeyboardInterrupt:
        if _note_unevaluated(final, "interrupted (Ctrl-C or SIGTERM)"):
            print(f"\ninterrupted in the final evaluation: {kept}", file=sys.stderr)
        return final
    except BaseException as exc:
        if _note_unevaluated(final, f"{type(exc).__name__}: {exc}"):
            print(f"the final evaluation failed: {kept}", file=sys.stderr)
        raise
    from training.plots import plot_run

    plot_run(out, out / "curve.png", title=f"{cfg.game} ({config_name or 'run'})")
    return final


def _previous_best(cfg: TrainConfig, out: Path) -> float:
    """The periodic figure of the ``best.pt`` a resumed run finds in ``out``, when it was
    measured as this run measures (game, env options, eval opponents, games, seed and
    metric); else -inf, and the run's first evaluation replaces it (said on stderr)."""
    path = out / "best.json"
    if not is_checkpoint(path):
        return -np.inf
    try:
        card = load_card(path)
        evaluation = card["evaluation"]
        picked = evaluation.get("selected_by", evaluation)  # after the final evaluation
        earlier = card["config"]["eval"]
        same = (
            card["game"] == cfg.game
            and card["env_options"] == env_options(cfg)
            and picked["metric"] == eval_metric(cfg)
            and all(earlier[k] == getattr(cfg.eval, k) for k in ("opponents", "games", "seed"))
        )
        value = float(picked["value"])
    except (KeyError, TypeError, AttributeError, ValueError):
        same = False
    if same:
        return value
    print(
        f"--resume: {path} was picked under other evaluation settings (or its card does not "
        "say how); the first evaluation of this run replaces it",
        file=sys.stderr,
    )
    return -np.inf


def _check_eval_seats(cfg: TrainConfig) -> None:
    """``eval.opponents`` has one name for all opponent seats or one per seat."""
    names = cfg.eval.opponents
    if not names or len(names) == 1:
        return
    from ratenvs.evaluation import seat_count_rule
    from ratenvs.games import GAMES

    seats = int(GAMES[cfg.game].load().raw_env(**env_options(cfg)).num_players) - 1
    if len(names) != seats:
        raise ConfigError(
            f"eval.opponents: {cfg.game} with {seats + 1} players: {seat_count_rule(seats)}, "
            f"got {len(names)}"
        )


def _check_eval_checkpoints(cfg: TrainConfig, observation_size: int) -> None:
    """A checkpoint among the evaluation's opponents loads, plays ``cfg.game`` and reads the
    run's observations (else the first evaluation, after training, would find out)."""
    from training.evaluate import resolve_agent

    for name in eval_opponents(cfg) or ():
        if name.endswith((".pt", ".json")) or is_checkpoint(name):
            try:
                size = resolve_agent(name, cfg.game).checkpoint.spec.observation_size
            except ValueError as exc:
                raise ConfigError(f"eval.opponents: {exc}") from None
            if size != observation_size:
                raise ConfigError(
                    f"eval.opponents: the checkpoint {name} reads observations of size {size}, "
                    f"this run's env gives {observation_size} (other env options)"
                )


def _note_unevaluated(final: Path, why: str) -> bool:
    """If ``final``'s card has no evaluation yet, record why; return whether it had none."""
    if load_card(final)["evaluation"] is not None:
        return False
    _update_card(final, evaluation_skipped=why)
    return True


def _update_card(path: Path, **fields: Any) -> None:
    """Rewrite the card of checkpoint ``path`` with ``fields`` added (atomically)."""
    write_card(path, {**load_card(path), **fields})


def _final_evaluations(
    cfg: TrainConfig,
    out: Path,
    final: Path,
    spec: PolicySpec,
    final_state: dict[str, Any],
    created_utc: str,
) -> None:
    """Evaluate ``final.pt`` (and ``best.pt``, on fresh games) and rewrite their cards."""
    from training.checkpoint import PolicyBot
    from training.evaluate import evaluate_agent

    final_eval = evaluate_agent(
        cfg.game,
        env_options(cfg),
        PolicyBot(final_state, spec),
        eval_opponents(cfg),
        cfg.eval.final_games,
        cfg.eval.final_seed,
    )
    _update_card(final, evaluation=final_eval)
    best_path = out / "best.json"
    if is_checkpoint(best_path):
        best_card = load_card(best_path)
        best = load_checkpoint(best_path, optimizer=False)
        best_card["evaluation"] = {
            **evaluate_agent(
                cfg.game,
                env_options(cfg),
                best.bot(),
                eval_opponents(cfg),
                cfg.eval.final_games,
                cfg.eval.final_seed,
            ),
            # a best.pt this run did not replace holds its final evaluation already
            "selected_by": best_card["evaluation"].get("selected_by", best_card["evaluation"]),
        }
        best_card["created_utc"] = created_utc
        write_card(best_path, best_card)


MAX_MINUTES = 1e6
"""Largest ``--max-minutes`` (about two years)."""


def load_config_arg(flag: str, path: Path) -> TrainConfig:
    """The config a command-line ``flag`` names: a missing file, a folder or bytes that are
    not text are errors naming the flag; then :func:`training.config.load_config`."""
    read_text(flag, path, "a YAML config", error=ConfigError)
    return load_config(path)


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="python -m training.train", description="Train MaskablePPO on a ratenvs game."
    )
    parser.add_argument("--config", required=True, type=Path, help="YAML training config")
    parser.add_argument(
        "--timesteps",
        type=int_in(1, MAX_TIMESTEPS),
        help=f"override the config's budget (1..{MAX_TIMESTEPS:,})",
    )
    parser.add_argument(
        "--seed", type=int_in(0, MAX_SEED), help=f"override the config's seed (0..{MAX_SEED})"
    )
    parser.add_argument("--out", type=Path, help="output directory (default runs/<config name>)")
    parser.add_argument("--resume", type=Path, help="checkpoint to continue from")
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="write into a non-empty --out, first removing an earlier run's files",
    )
    parser.add_argument(
        "--max-minutes",
        type=number_in(0, MAX_MINUTES, above=True),
        help="stop after this wall time (the final checkpoint is kept)",
    )
    return parser


def _remove_lone_config(out: Path) -> None:
    """A fresh run interrupted before training (the warm start) leaves only its
    ``config.yaml``: removed, so that the same command runs again."""
    try:
        left = [p.name for p in out.iterdir()]
    except OSError:
        return
    if left == ["config.yaml"]:
        (out / "config.yaml").unlink(missing_ok=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out: Path | None = None
    try:
        require_training_packages("training")
    except ModuleNotFoundError as exc:
        return report(exc)
    try:
        cfg = load_config_arg("--config", args.config)
        if args.timesteps is not None:
            cfg = dataclasses.replace(cfg, timesteps=args.timesteps)
        if args.seed is not None:
            cfg = dataclasses.replace(cfg, seed=args.seed)
        out = args.out or Path("runs") / args.config.stem
        final = train(
            cfg, out, args.resume, args.config.stem, args.max_minutes, overwrite=args.overwrite
        )
    except (ValueError, OSError) as exc:  # ConfigError, CheckpointError, bad options, files
        return report(exc)
    except KeyboardInterrupt:  # before training started: nothing to keep
        print("\ninterrupted before training started", file=sys.stderr)
        if args.resume is None and out is not None:  # a fresh run's folder held nothing
            _remove_lone_config(out)
        return INTERRUPTED_STATUS
    card = load_card(final)
    ev = card["evaluation"]
    print(f"final checkpoint: {final}")
    # interrupted (Ctrl-C, SIGTERM): final.pt is written, the run is not what was asked
    status = INTERRUPTED_STATUS if INTERRUPTED in (card.get("stopped_early") or "") else 0
    if ev is None:
        print(f"not evaluated: {card.get('evaluation_skipped')}")
        skipped = str(card.get("evaluation_skipped"))
        return INTERRUPTED_STATUS if "interrupted" in skipped else status
    print(evaluation_line(ev))
    return status


if __name__ == "__main__":
    sys.exit(main())
