"""Speed of every shipped env: decisions per second through ``env()``.

Each env is played with uniformly random legal actions through the public AEC
loop (``agent_iter`` / ``last`` / ``step``, observations included), exactly
like PettingZoo's own ``connect_four_v3``, which is measured in the same run
as the yardstick. Rounds alternate between the envs so that background load
hits all of them alike; the median round counts.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from statistics import median
from typing import Any

import numpy as np

from ratenvs.games import available_games

REFERENCE = "connect_four_v3"


def _decisions_per_second(make: Callable[[], Any], seconds: float, seed: int) -> float:
    """Play games with random legal actions for about ``seconds``; return decisions/s."""
    env = make()
    rng = np.random.default_rng(seed)
    decisions = 0
    game = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=seed + game)
        game += 1
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            decisions += 1
    elapsed = time.perf_counter() - start
    env.close()
    return decisions / elapsed


def _reference_env() -> Any:
    """PettingZoo's ``connect_four_v3`` (its module, which every PettingZoo has)."""
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


def reference_missing() -> str | None:
    """Why ``connect_four_v3`` cannot be measured here (PettingZoo's classic envs import
    pygame, which an envs-only install lacks), or None when it can."""
    try:
        _reference_env().close()
    except ImportError as err:
        return (
            f"{REFERENCE} skipped: PettingZoo's classic envs need {err.name or 'a module'} "
            '(pip install "ratenvs[render]"); ratios to it are left out'
        )
    return None


def bench_targets(games: list[str] | None = None) -> list[tuple[str, Callable[[], Any]]]:
    """(label, constructor) for every configuration to measure, the reference first."""
    targets: list[tuple[str, Callable[[], Any]]] = []
    if reference_missing() is None:
        targets.append((REFERENCE, _reference_env))
    for name, spec in available_games().items():
        if games and name not in games and spec.cli_name not in games:
            continue
        module = importlib.import_module(spec.module)
        for options in spec.bench_options:
            label = spec.module.rsplit(".", 1)[1] + "".join(f" {k}={v}" for k, v in options.items())
            targets.append((label, lambda m=module, o=options: m.env(**o)))
    return targets


def run(
    games: list[str] | None = None, seconds: float = 2.0, rounds: int = 3, seed: int = 0
) -> list[dict[str, Any]]:
    """Measure every target; return one record per env with the ratio to connect_four_v3."""
    targets = bench_targets(games)
    samples: dict[str, list[float]] = {label: [] for label, _ in targets}
    for _ in range(rounds):
        for label, make in targets:
            samples[label].append(_decisions_per_second(make, seconds, seed))
    reference = median(samples[REFERENCE]) if REFERENCE in samples else None
    return [
        {
            "env": label,
            "decisions_per_s": round(median(values), 1),
            "ratio_vs_connect_four": (
                round(median(values) / reference, 2) if reference is not None else None
            ),
            "rounds": values,
        }
        for label, values in samples.items()
    ]


BATCH_SIZES = (1, 64, 1024, 4096)


def _timed(fn: Callable[[], int], seconds: float) -> tuple[float, float]:
    """Run ``fn`` (returns decisions made) for about ``seconds``; (wall, CPU) decisions/s."""
    decisions = 0
    start, cpu = time.perf_counter(), time.process_time()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        decisions += fn()
    return decisions / (time.perf_counter() - start), decisions / (time.process_time() - cpu)


def _raw_env_rates(make: Callable[[], Any], seconds: float, seed: int) -> tuple[float, float]:
    cpu = time.process_time()
    wall = time.perf_counter()
    rate = _decisions_per_second(make, seconds, seed)
    decisions = rate * (time.perf_counter() - wall)
    return rate, decisions / max(time.process_time() - cpu, 1e-9)


def _batched_rates(
    engine_cls: Any, options: dict[str, Any], batch: int, seconds: float, seed: int
) -> tuple[float, float]:
    """Random legal play of ``batch`` games of a batched engine (compiled before timing)."""
    from ratenvs.common.batched import RandomActions

    engine = engine_cls(batch, seed=seed, **options)
    out = engine.reset()
    if engine_cls.simultaneous:
        n, p, a = out.mask.shape
        picker = RandomActions(n * p, seed)

        def one() -> int:
            nonlocal out
            acting = int(out.to_act.sum())
            out = engine.step(picker.pick(out.mask.reshape(n * p, a)).reshape(n, p))
            return acting
    else:
        picker = RandomActions(batch, seed)

        def one() -> int:
            nonlocal out
            out = engine.step(picker.pick(out.mask))
            return batch

    for _ in range(3):
        one()  # warm: compiled, caches filled
    return _timed(one, seconds)


def run_batched(
    games: list[str] | None = None,
    batch_sizes: tuple[int, ...] = BATCH_SIZES,
    seconds: float = 2.0,
    rounds: int = 3,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Every batched engine at every batch size against its own ``raw_env`` (through
    ``env()``, as :func:`run` measures it) and ``connect_four_v3``, in one run, rounds
    alternating; medians of the rounds. Ratios are of CPU decisions/s (one process, one
    thread: what the machine's other load does not change)."""
    configs: list[tuple[str, Any, Any, dict[str, Any]]] = []
    for name, spec in available_games().items():
        if games and name not in games and spec.cli_name not in games:
            continue
        if not spec.has_batched:
            continue
        module = importlib.import_module(spec.module)
        for options in spec.bench_options:
            label = spec.module.rsplit(".", 1)[1] + "".join(f" {k}={v}" for k, v in options.items())
            configs.append((label, module, spec.batched(), options))
    wall: dict[tuple[str, int], list[float]] = {}
    cpu: dict[tuple[str, int], list[float]] = {}

    def keep(key: tuple[str, int], rates: tuple[float, float]) -> None:
        wall.setdefault(key, []).append(rates[0])
        cpu.setdefault(key, []).append(rates[1])

    with_reference = reference_missing() is None
    for _ in range(rounds):
        if with_reference:
            keep((REFERENCE, 0), _raw_env_rates(_reference_env, seconds, seed))
        for label, module, engine_cls, options in configs:
            keep((label, 0), _raw_env_rates(lambda m=module, o=options: m.env(**o), seconds, seed))
            for size in batch_sizes:
                keep((label, size), _batched_rates(engine_cls, options, size, seconds, seed))
    reference = median(cpu[(REFERENCE, 0)]) if with_reference else None
    records = []
    for (label, size), values in wall.items():
        rate_cpu = median(cpu[(label, size)])
        raw = median(cpu[(label, 0)]) if label != REFERENCE else rate_cpu
        records.append(
            {
                "env": label,
                "engine": "raw_env" if size == 0 else "batched",
                "batch_size": size or None,
                "decisions_per_s": round(median(values), 1),
                "cpu_decisions_per_s": round(rate_cpu, 1),
                "ratio_vs_raw_env": round(rate_cpu / raw, 2),
                "ratio_vs_connect_four": (
                    round(rate_cpu / reference, 2) if reference is not None else None
                ),
                "rounds": values,
            }
        )
    return records


def format_batched_table(records: list[dict[str, Any]]) -> str:
    """A plain-text table of :func:`run_batched` results."""
    width = max(len(r["env"]) for r in records)
    head = f"{'env':<{width}}  {'engine':>8}  {'batch':>5}  {'decisions/s':>12}"
    lines = [head + f"  {'CPU dec/s':>12}  {'vs raw_env':>10}  {'vs connect_four':>15}"]
    for r in records:
        lines.append(
            f"{r['env']:<{width}}  {r['engine']:>8}  {r['batch_size'] or '-':>5}  "
            f"{r['decisions_per_s']:>12,.0f}  {r['cpu_decisions_per_s']:>12,.0f}  "
            f"{r['ratio_vs_raw_env']:>9.1f}x  {_ratio(r['ratio_vs_connect_four'], 14, 1)}"
        )
    lines.append("(ratios of CPU decisions/s, medians of the rounds)")
    return "\n".join(lines)


def format_table(records: list[dict[str, Any]]) -> str:
    """A plain-text table of :func:`run` results."""
    width = max(len(r["env"]) for r in records)
    lines = [f"{'env':<{width}}  {'decisions/s':>12}  {'vs connect_four_v3':>18}"]
    for r in records:
        lines.append(
            f"{r['env']:<{width}}  {r['decisions_per_s']:>12,.0f}  "
            f"{_ratio(r['ratio_vs_connect_four'], 17, 2)}"
        )
    return "\n".join(lines)


def _ratio(value: float | None, width: int, digits: int) -> str:
    """A table cell for a ratio ("-" where it was not measured)."""
    return f"{value:>{width}.{digits}f}x" if value is not None else f"{'-':>{width + 1}}"
