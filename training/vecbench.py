"""Which vec env pays? Env speed of the training doors, and MaskablePPO's speed on them.

Usage::

    python -m training.vecbench --config configs/<name>.yaml [--seconds S] [--n-envs N ...]
    python -m training.vecbench --train --config configs/<name>.yaml [--steps N]
        [--batched-n-envs 512 | --against OTHER.yaml | --torch-threads 1 2] [--rounds 3]

The first form steps the run's vectorised training envs with random legal actions
(the policy's forward pass left out) and prints learner decisions/s of DummyVecEnv,
SubprocVecEnv and the batched door (``vec_env: batched``), so ``vec_env`` can be
chosen by measurement on the machine at hand.

``--train`` measures what PPO actually sees: MaskablePPO frames (learner decisions)
per second of the config as written (its ``vec_env``, ``n_envs``) against the same
config on the batched door with ``--batched-n-envs`` games and ``n_steps`` scaled so
that a rollout holds as many frames (the same update per frame), or against another
config (``--against``, e.g. a batched recipe with other PPO settings), or the config
alone at each ``--torch-threads`` count: rollouts, policy forward passes and updates
included, evaluation left out. The model is built as a real run builds it, from the
config's warm start when it has one (``pretrain:``, run once per config, outside the
timing; its weights are loaded into every round's fresh model). Rounds are interleaved,
their order rotated round by round; the table gives median wall and CPU frames/s (CPU:
the learner process's, SubprocVecEnv workers not counted) and each ratio to the first
line taken within each round, median (min-max), with the load average.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from statistics import median
from typing import Any

import numpy as np

from ratenvs.common.arguments import (
    ArgumentParser,
    UsageError,
    given,
    int_in,
    number_in,
    only_with,
    report,
)
from ratenvs.common.batched import RandomActions
from training.config import MAX_PYTHON_ENVS, ConfigError, TrainConfig, config_from_dict
from training.selfplay import env_factories, make_batched_vec_env
from training.train import load_config_arg, probe_env


def _venv(cfg: TrainConfig, kind: str, monitor: bool = False) -> Any:
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if kind == "batched":
        return make_batched_vec_env(dataclasses.replace(cfg, vec_env="batched"), monitor)
    return (SubprocVecEnv if kind == "subproc" else DummyVecEnv)(env_factories(cfg))


def measure(cfg: TrainConfig, kind: str, seconds: float) -> float:
    """Decisions per second of ``cfg``'s envs stepped through a ``kind`` vec env."""
    venv = _venv(cfg, kind)
    try:
        venv.seed(cfg.seed)
        venv.reset()
        rng = np.random.default_rng(0)
        steps = 0
        t0 = time.perf_counter()
        picker = RandomActions(cfg.n_envs, 0)
        while time.perf_counter() - t0 < seconds:
            if kind == "batched":  # a compiled picker for the compiled door
                actions = picker.pick(venv.action_masks()).copy()
            else:
                masks = np.stack(venv.env_method("action_masks"))
                actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
            venv.step(actions)
            steps += cfg.n_envs
        return steps / (time.perf_counter() - t0)
    finally:
        venv.close()


def batched_variant(cfg: TrainConfig, n_envs: int) -> TrainConfig:
    """``cfg`` on the batched door with ``n_envs`` games and as many frames per rollout,
    checked as a config (a ConfigError names ``--batched-n-envs`` and the key)."""
    frames = cfg.n_envs * cfg.algorithm.n_steps
    n_steps = max(1, frames // n_envs)
    algo = dataclasses.replace(cfg.algorithm, n_steps=n_steps)
    if (n_envs * n_steps) % algo.batch_size:
        raise ConfigError(
            f"--batched-n-envs {n_envs}: {n_envs} x {n_steps} frames per rollout is not a "
            f"multiple of algorithm.batch_size {algo.batch_size}"
        )
    variant = dataclasses.replace(cfg, vec_env="batched", n_envs=n_envs, algorithm=algo)
    try:  # the batched door's own rules (its bounds, its kernel's bots)
        return config_from_dict(variant.to_dict())
    except ConfigError as exc:
        raise ConfigError(f"--batched-n-envs {n_envs}: on the batched door, {exc}") from None


@dataclasses.dataclass
class Contender:
    """One side of a ``--train`` comparison: a config, and the policy weights its PPO starts
    from (a real run's warm start, computed once)."""

    label: str
    cfg: TrainConfig
    starts: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    """Warm-started policy weights (``pretrain:``) by config, shared by the contenders of
    one table: configs that differ only in ``algorithm.torch_threads`` warm-start once."""

    def start_key(self) -> str:
        """The config without its thread count: what the warm start depends on."""
        data = self.cfg.to_dict()
        data["algorithm"].pop("torch_threads", None)
        return json.dumps(data, sort_keys=True)


def policy_spec(cfg: TrainConfig) -> Any:
    """The policy architecture a run of ``cfg`` trains (as :func:`training.train.train`
    plans it: observation, actions, privileged critic entries)."""
    from training.checkpoint import PolicySpec

    obs_size, n_actions, extra = probe_env(cfg)
    algo = cfg.algorithm
    return PolicySpec(obs_size, n_actions, tuple(algo.net_arch), algo.activation, extra)


def train_rate(contender: Contender, steps: int) -> tuple[float, float]:
    """(wall, CPU) MaskablePPO frames/s of the contender's config over ``steps`` frames,
    after one rollout and update of warm-up (imports, compiles, allocations). The model is
    the one a real run builds: with ``pretrain:`` PPO starts from the warm start
    (:func:`training.pretrain.warm_start`, run on the first call, outside the timing; later
    calls load its weights). CPU is the learner process's (SubprocVecEnv workers' not
    counted)."""
    import torch

    from training.train import make_model

    cfg = contender.cfg
    torch.set_num_threads(cfg.algorithm.torch_threads)
    venv = _venv(cfg, cfg.vec_env, monitor=True)
    try:
        model = make_model(cfg, venv, policy_spec(cfg))
        if cfg.pretrain.teacher is not None:
            key = contender.start_key()
            if key not in contender.starts:
                from training.pretrain import warm_start

                warm_start(model.policy, cfg)
                state = model.policy.state_dict()
                contender.starts[key] = {k: v.clone() for k, v in state.items()}
            else:
                model.policy.load_state_dict(contender.starts[key])
        rollout = cfg.n_envs * cfg.algorithm.n_steps
        model.learn(rollout)
        wall, cpu = time.perf_counter(), time.process_time()
        done = model.num_timesteps
        model.learn(max(steps, rollout), reset_num_timesteps=False)
        frames = model.num_timesteps - done
        return frames / (time.perf_counter() - wall), frames / (time.process_time() - cpu)
    finally:
        venv.close()


def _label(cfg: TrainConfig, epochs: bool, threads: bool) -> str:
    text = f"{cfg.vec_env}, {cfg.n_envs} envs x {cfg.algorithm.n_steps} steps"
    if epochs:
        text += f", {cfg.algorithm.n_epochs} epochs"
    if threads:
        n = cfg.algorithm.torch_threads
        text += f", {n} torch thread{'s' if n > 1 else ''}"
    return text


def contenders(args: argparse.Namespace, base: TrainConfig) -> list[Contender]:
    """What ``--train`` compares: the config at each ``--torch-threads`` count; or the
    config and ``--against``; or the config and itself on the batched door."""
    starts: dict[str, dict[str, Any]] = {}
    if args.torch_threads:
        sides = []
        for t in args.torch_threads:
            algo = dataclasses.replace(base.algorithm, torch_threads=t)
            cfg = dataclasses.replace(base, algorithm=algo)
            sides.append(Contender(_label(cfg, False, True), cfg, starts))
        return sides
    if args.against is not None:
        fast = load_config_arg("--against", args.against)
        if fast.game != base.game:
            raise UsageError(f"--against {args.against}: a config of {fast.game}, not {base.game}")
        probe_env(fast)
    else:
        fast = batched_variant(base, args.batched_n_envs)
    epochs = args.against is not None
    threads = base.algorithm.torch_threads != fast.algorithm.torch_threads
    return [
        Contender(_label(base, epochs, threads), base, starts),
        Contender(_label(fast, epochs, threads), fast, starts),
    ]


def spread(values: Sequence[float]) -> str:
    """``median (min-max)`` of ``values``."""
    return f"{median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def _train_table(args: argparse.Namespace, base: TrainConfig) -> int:
    sides = contenders(args, base)
    load = os.getloadavg()[0]
    runs: list[list[tuple[float, float]]] = [[] for _ in sides]
    for r in range(args.rounds):  # interleaved, the order rotated round by round
        for i in [(r + k) % len(sides) for k in range(len(sides))]:
            runs[i].append(train_rate(sides[i], args.steps))
    against = f" against {args.against}" if args.against else ""
    print(
        f"MaskablePPO on {args.config}{against} ({args.steps:,} frames per round, "
        f"{args.rounds} rounds interleaved; load average {load:.1f} at the start, "
        f"{os.getloadavg()[0]:.1f} at the end, {os.cpu_count()} cores)"
    )
    print(f"{'door':44} {'frames/s':>9} {'CPU frames/s':>13}  (medians; CPU: learner process)")
    for side, rates in zip(sides, runs):
        wall = median(r[0] for r in rates)
        cpu = median(r[1] for r in rates)
        print(f"{side.label:44} {wall:9.0f} {cpu:13.0f}")
    first = runs[0]
    for side, rates in zip(sides[1:], runs[1:]):
        walls = [b[0] / a[0] for a, b in zip(first, rates)]
        cpus = [b[1] / a[1] for a, b in zip(first, rates)]
        print(
            f"{side.label} / first, within each round, median (min-max): "
            f"wall {spread(walls)}, CPU {spread(cpus)}"
        )
    return 0


MEASURE_ONLY = ("seconds", "n_envs")
"""Arguments of the env-speed form (not of ``--train``)."""
TRAIN_ONLY = ("steps", "rounds", "batched_n_envs", "against", "torch_threads")
"""Arguments of ``--train`` only."""
MAX_TORCH_THREADS = 64
"""The most ``--torch-threads`` takes (as ``algorithm.torch_threads``)."""
DEFAULTS = {"seconds": 5.0, "n_envs": [2, 8], "steps": 50_000, "rounds": 3, "batched_n_envs": 512}


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="python -m training.vecbench", description=__doc__)
    parser.add_argument("--config", required=True, type=Path)
    parser.add_argument(
        "--seconds",
        type=number_in(0, 3600, above=True),
        help=f"seconds per door and n_envs (above 0, at most 3600; default {DEFAULTS['seconds']})",
    )
    parser.add_argument(
        "--n-envs",
        type=int_in(1, MAX_PYTHON_ENVS),
        nargs="+",
        help=f"1..{MAX_PYTHON_ENVS} (default: 2 8)",
    )
    parser.add_argument("--train", action="store_true", help="MaskablePPO frames/s per door")
    parser.add_argument(
        "--steps", type=int_in(1, 10**9), help="frames per --train round (default 50,000)"
    )
    parser.add_argument(
        "--rounds", type=int_in(1, 100), help="alternating --train rounds (default 3)"
    )
    parser.add_argument(
        "--batched-n-envs",
        type=int_in(1),
        help="--train: games of the batched door (as n_envs of vec_env: batched; default 512)",
    )
    parser.add_argument(
        "--against",
        type=Path,
        help="--train: compare with this config (e.g. the game's batched recipe) instead of "
        "the same config on the batched door",
    )
    parser.add_argument(
        "--torch-threads",
        type=int_in(1, MAX_TORCH_THREADS),
        nargs="+",
        help="--train: the config as written at each of these algorithm.torch_threads "
        f"counts (1..{MAX_TORCH_THREADS}), instead of two configs",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if not args.train:
            only_with(args, "--train", TRAIN_ONLY)
        given_measure = given(args, *MEASURE_ONLY)
        if args.train and given_measure:
            raise UsageError(f"{', '.join(given_measure)}: not with --train")
        if args.torch_threads and given(args, "against", "batched_n_envs"):
            flags = ", ".join(given(args, "against", "batched_n_envs"))
            raise UsageError(f"{flags}: not with --torch-threads (one config at each count)")
        for key, value in DEFAULTS.items():
            if getattr(args, key) is None:
                setattr(args, key, value)
        base = load_config_arg("--config", args.config)
        probe_env(base)  # env options, opponents: before any measuring
        if args.train:
            return _train_table(args, base)
        return _measure_table(args, base)
    except (ValueError, OSError) as exc:  # a bad config or argument
        return report(exc)


def _measure_table(args: argparse.Namespace, base: TrainConfig) -> int:
    batched = base.game in {s.name for s in _batched_games()}
    head = f"{'game':16} {'n_envs':>6} {'dummy/s':>10} {'subproc/s':>10} {'ratio':>6}"
    print(head + (f" {'batched/s':>10} {'ratio':>6}" if batched else ""))
    for n in args.n_envs:
        cfg = dataclasses.replace(base, n_envs=n)
        dummy = measure(cfg, "dummy", args.seconds)
        # one process per env: measured only where that is sane on a small machine
        sub = measure(cfg, "subproc", args.seconds) if n <= 4 * (os.cpu_count() or 1) else None
        subs = f"{sub:10.0f} {sub / dummy:6.2f}" if sub is not None else f"{'-':>10} {'-':>6}"
        line = f"{cfg.game:16} {n:6d} {dummy:10.0f} {subs}"
        if batched:
            fast = measure(cfg, "batched", args.seconds)
            line += f" {fast:10.0f} {fast / dummy:6.2f}"
        print(line)
    return 0


def _batched_games() -> list[Any]:
    from ratenvs.games import GAMES

    return [s for s in GAMES.values() if s.has_batched]


if __name__ == "__main__":
    sys.exit(main())
