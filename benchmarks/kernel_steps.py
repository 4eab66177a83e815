"""CPU time of a batched engine's steps: N steps at one batch size, in one process.

    python benchmarks/kernel_steps.py ratto_zakko --players 4 --batch 4096 --steps 200
    python benchmarks/kernel_steps.py rat_a_tat_cat --players 6 --batch 1 --steps 20000
    python benchmarks/kernel_steps.py ratto_zakko --batch 4096 --raw-env 3

For before/after checks of a kernel change (run it in alternating processes against
the commit before). Actions are uniformly random legal ones, drawn before the timing
starts (the picker's cost is left out, as is the compile: one warm-up step). Prints
one line: CPU seconds of the steps, CPU microseconds per step and decisions per CPU
second (a decision is one acting seat's action). ``--raw-env R`` also plays the
game's ``env()`` with random legal actions for R rounds interleaved with R rounds of
the engine and prints the ratio of the medians.
"""

from __future__ import annotations

import argparse
import time
from statistics import median
from typing import Any

import numpy as np

from ratenvs.bench import play_random
from ratenvs.common.batched import RandomActions
from ratenvs.games import get_game


def _engine_rate(game: str, options: dict[str, Any], batch: int, steps: int, seed: int) -> float:
    """Decisions per CPU second of ``steps`` engine steps (actions drawn beforehand)."""
    spec = get_game(game)
    engine = spec.batched()(batch, seed=seed, **options)
    out = engine.reset()
    engine.step(_pick(engine, out, RandomActions(out.mask.size // out.mask.shape[-1], seed)))
    # the actions are drawn as the steps go (they depend on the masks) but timed apart
    picker = RandomActions(out.mask.size // out.mask.shape[-1], seed + 1)
    spent = 0.0
    decisions = 0
    out = engine.step(_pick(engine, out, picker))
    for _ in range(steps):
        actions = _pick(engine, out, picker).copy()
        decisions += int(out.to_act.sum()) if engine.simultaneous else batch
        start = time.process_time()
        out = engine.step(actions)
        spent += time.process_time() - start
    return decisions / spent


def _pick(engine: Any, out: Any, picker: RandomActions) -> np.ndarray:
    mask = out.mask
    if engine.simultaneous:
        n, p, a = mask.shape
        return picker.pick(mask.reshape(n * p, a)).reshape(n, p)
    return picker.pick(mask)


def _raw_rate(game: str, options: dict[str, Any], seconds: float, seed: int) -> float:
    """Decisions per CPU second of ``env()`` with random legal actions (the AEC loop)."""
    import importlib

    env = importlib.import_module(get_game(game).module).env(**options)
    decisions, cpu, _wall = play_random(env, np.random.default_rng(seed), seed, seconds)
    return decisions / cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--raw-env", type=int, default=0, metavar="ROUNDS")
    parser.add_argument("--seconds", type=float, default=1.0, help="per raw_env round")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args(argv)
    options: dict[str, Any] = {}
    if args.players is not None:
        options["num_players"] = args.players
    for item in args.option:
        key, value = item.split("=", 1)
        options[key] = int(value) if value.lstrip("-").isdigit() else value
    if not args.raw_env:
        rate = _engine_rate(args.game, options, args.batch, args.steps, args.seed)
        print(f"{args.game} {options} B={args.batch}: {rate:,.0f} decisions per CPU s")
        return 0
    engine, raw = [], []
    for r in range(args.raw_env):
        raw.append(_raw_rate(args.game, options, args.seconds, args.seed + r))
        engine.append(_engine_rate(args.game, options, args.batch, args.steps, args.seed + r))
    ratio = median(engine) / median(raw)
    print(
        f"{args.game} {options} B={args.batch}: engine {median(engine):,.0f}, raw_env "
        f"{median(raw):,.0f} decisions per CPU s (medians of {args.raw_env}): {ratio:.1f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
