"""Does SubprocVecEnv pay? Learner decisions per second of DummyVecEnv vs SubprocVecEnv.

Usage: ``python -m training.vecbench --config configs/<name>.yaml [--seconds S] [--n-envs N ...]``

Steps the run's vectorised training envs with random legal actions (the
policy's forward pass is left out: it runs in the learner process either
way) and prints decisions/s for each vec env kind, so ``vec_env`` in a config
can be chosen by measurement on the machine at hand.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from training.config import TrainConfig, load_config
from training.selfplay import env_factories


def measure(cfg: TrainConfig, kind: str, seconds: float) -> float:
    """Decisions per second of ``cfg``'s envs stepped through a ``kind`` vec env."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    venv = (SubprocVecEnv if kind == "subproc" else DummyVecEnv)(env_factories(cfg))
    try:
        venv.seed(cfg.seed)
        venv.reset()
        rng = np.random.default_rng(0)
        steps = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            masks = np.stack(venv.env_method("action_masks"))
            actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
            venv.step(np.array(actions))
            steps += cfg.n_envs
        return steps / (time.perf_counter() - t0)
    finally:
        venv.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.vecbench", description=__doc__)
    parser.add_argument("--config", required=True, type=Path)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--n-envs", type=int, nargs="+", default=[2, 8])
    args = parser.parse_args(argv)
    base = load_config(args.config)
    print(f"{'game':16} {'n_envs':>6} {'dummy/s':>10} {'subproc/s':>10} {'ratio':>6}")
    for n in args.n_envs:
        cfg = dataclasses.replace(base, n_envs=n)
        dummy = measure(cfg, "dummy", args.seconds)
        sub = measure(cfg, "subproc", args.seconds)
        print(f"{cfg.game:16} {n:6d} {dummy:10.0f} {sub:10.0f} {sub / dummy:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
