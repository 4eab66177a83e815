"""Which vec env pays? Env speed of the training doors, and MaskablePPO's speed on them.

Usage::

    python -m training.vecbench --config configs/<name>.yaml [--seconds S] [--n-envs N ...]
    python -m training.vecbench --train --config configs/<name>.yaml [--steps N]
        [--batched-n-envs 512] [--rounds 3]

The first form steps the run's vectorised training envs with random legal actions
(the policy's forward pass left out) and prints learner decisions/s of DummyVecEnv,
SubprocVecEnv and the batched door (``vec_env: batched``), so ``vec_env`` can be
chosen by measurement on the machine at hand.

``--train`` measures what PPO actually sees: MaskablePPO frames (learner decisions)
per second of the config as written (its ``vec_env``, ``n_envs``) against the same
config on the batched door with ``--batched-n-envs`` games and ``n_steps`` scaled so
that a rollout holds as many frames (the same update per frame), or against another
config (``--against``, e.g. a batched recipe with other PPO settings): rollouts, policy
forward passes and updates included, evaluation left out. Rounds alternate; medians of
wall and CPU frames/s.
"""

from __future__ import annotations

import argparse
import dataclasses
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


def train_rate(cfg: TrainConfig, steps: int) -> tuple[float, float]:
    """(wall, CPU) MaskablePPO frames/s of ``cfg`` over ``steps`` frames, after one rollout
    and update of warm-up (imports, compiles, allocations)."""
    import torch

    from training.checkpoint import PolicySpec
    from training.train import make_model

    torch.set_num_threads(cfg.algorithm.torch_threads)
    venv = _venv(cfg, cfg.vec_env, monitor=True)
    try:
        algo = cfg.algorithm
        obs_size = int(venv.observation_space.shape[0])
        spec = PolicySpec(obs_size, int(venv.action_space.n), tuple(algo.net_arch), algo.activation)
        model = make_model(cfg, venv, spec)
        rollout = cfg.n_envs * algo.n_steps
        model.learn(rollout)
        wall, cpu = time.perf_counter(), time.process_time()
        done = model.num_timesteps
        model.learn(max(steps, rollout), reset_num_timesteps=False)
        frames = model.num_timesteps - done
        return frames / (time.perf_counter() - wall), frames / (time.process_time() - cpu)
    finally:
        venv.close()


def _train_table(args: argparse.Namespace, base: TrainConfig) -> int:
    if args.against is not None:
        fast = load_config_arg("--against", args.against)
        if fast.game != base.game:
            raise UsageError(f"--against {args.against}: a config of {fast.game}, not {base.game}")
        probe_env(fast)
    else:
        fast = batched_variant(base, args.batched_n_envs)
    runs: dict[str, list[tuple[float, float]]] = {"config": [], "batched": []}
    for _ in range(args.rounds):
        runs["config"].append(train_rate(base, args.steps))
        runs["batched"].append(train_rate(fast, args.steps))
    wall = {k: median(r[0] for r in v) for k, v in runs.items()}
    cpu = {k: median(r[1] for r in v) for k, v in runs.items()}
    against = f" against {args.against}" if args.against else ""
    print(
        f"MaskablePPO on {args.config}{against} ({args.steps:,} frames per round, "
        f"{args.rounds} rounds)"
    )
    print(f"{'door':34} {'frames/s':>9} {'CPU frames/s':>13}")
    label = f"{base.vec_env}, {base.n_envs} envs x {base.algorithm.n_steps} steps" + (
        f", {base.algorithm.n_epochs} epochs" if args.against else ""
    )
    print(f"{label:34} {wall['config']:9.0f} {cpu['config']:13.0f}")
    label = f"{fast.vec_env}, {fast.n_envs} envs x {fast.algorithm.n_steps} steps" + (
        f", {fast.algorithm.n_epochs} epochs" if args.against else ""
    )
    print(f"{label:34} {wall['batched']:9.0f} {cpu['batched']:13.0f}")
    print(
        f"ratio second / first: {wall['batched'] / wall['config']:.2f} (wall), "
        f"{cpu['batched'] / cpu['config']:.2f} (CPU)"
    )
    return 0


MEASURE_ONLY = ("seconds", "n_envs")
"""Arguments of the env-speed form (not of ``--train``)."""
TRAIN_ONLY = ("steps", "rounds", "batched_n_envs", "against")
"""Arguments of ``--train`` only."""
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if not args.train:
            only_with(args, "--train", TRAIN_ONLY)
        given_measure = given(args, *MEASURE_ONLY)
        if args.train and given_measure:
            raise UsageError(f"{', '.join(given_measure)}: not with --train")
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
