"""Reproducible speed measurement of every shipped env against PettingZoo's connect_four_v3.

    python benchmarks/bench_envs.py [--seconds 3] [--rounds 5] [--out benchmarks/results.json]
    python benchmarks/bench_envs.py --batched [--out benchmarks/results_batched.json]

Writes the records of :func:`ratenvs.bench.run` (or :func:`ratenvs.bench.run_batched`)
plus the machine and the command it ran with, and prints the table; the tables of
``docs/benchmarks.md`` and the README's speed figures are made from these files
(:func:`ratenvs.bench.markdown_table`), and a test checks that they agree.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pettingzoo

import ratenvs
from ratenvs import bench
from ratenvs.cli import BENCH_ROUNDS, BENCH_SECONDS
from ratenvs.common.arguments import (
    ArgumentParser,
    UsageError,
    int_in,
    number_in,
    output_file,
    report,
)
from ratenvs.common.atomic import atomic_file


def _version(module: str) -> str | None:
    try:
        return importlib.metadata.version(module)
    except importlib.metadata.PackageNotFoundError:
        return None


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="benchmarks/bench_envs.py", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=number_in(*BENCH_SECONDS, above=True), default=3.0)
    parser.add_argument("--rounds", type=int_in(*BENCH_ROUNDS), default=5)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument(
        "--batched", action="store_true", help="the batched engines (ratenvs bench --batched)"
    )
    args = parser.parse_args(argv)
    name = "results_batched.json" if args.batched else "results.json"
    args.out = args.out or Path(__file__).with_name(name)
    try:
        output_file("--out", args.out)  # before the measuring, not after it
    except UsageError as exc:
        return report(exc)
    if args.batched:
        records = bench.run_batched(seconds=args.seconds, rounds=args.rounds)
        print(bench.format_batched_table(records))
    else:
        records = bench.run(seconds=args.seconds, rounds=args.rounds)
        print(bench.format_table(records))
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "processor": bench.processor(),
        "cpus": os.cpu_count(),
        "numpy": np.__version__,
        "pettingzoo": pettingzoo.__version__,
        "ratenvs": ratenvs.__version__,
        "numba": _version("numba"),
        "seconds": args.seconds,
        "rounds": args.rounds,
        "command": " ".join(["python", "benchmarks/bench_envs.py", *(argv or sys.argv[1:])]),
        "timing": "CPU time of one process (time.process_time); rounds interleaved",
    }
    with atomic_file(args.out) as fh:  # written whole, fsync'd, then renamed
        fh.write((json.dumps({"meta": meta, "records": records}, indent=2) + "\n").encode())
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
