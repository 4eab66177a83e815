"""Speed of every shipped env: decisions per second of CPU time, against yardsticks
measured in the same run.

Two measurements, each a list of records:

- :func:`run` plays every env through ``env()`` (the wrapped env users make) with
  uniformly random legal actions through the public AEC loop (``agent_iter`` / ``last``
  / ``step``, observations included), exactly like PettingZoo's own ``connect_four_v3``,
  the yardstick measured beside it.
- :func:`run_batched` plays every batched engine at several batch sizes against its own
  ``raw_env`` (the unwrapped AEC env: the fastest one-game door) and ``connect_four_v3``.

How the figures are made, so that an independent rerun lands near them on a shared,
noisy machine:

- **CPU time.** Each contender plays until it has used ``seconds`` of this process's CPU
  time (``time.process_time``), and its rate is decisions per CPU second: time the
  machine gives to other processes is not counted. Wall-clock rates are kept beside it.
- **Interleaved rounds.** Every round measures every contender once, in an order rotated
  from round to round, so that a change in the machine's speed hits all of them alike.
- **Ratios pair by pair.** A ratio (``x raw_env``, ``x connect_four_v3``) is taken within
  each round, between measurements made minutes apart at most, and the records give the
  min / median / max of those per-round ratios, not a ratio of medians.
- Every record gives the min / median / max of its own CPU rate, so each baseline's
  absolute speed is in the same table as the ratios made from it.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median
from typing import Any

import numpy as np

from ratenvs.games import available_games

SECONDS = (0.0, 3600.0)
"""A round's CPU seconds per contender: above 0, at most an hour (``bench --seconds``)."""
ROUNDS = (1, 100)
"""Interleaved rounds, whose median is reported (``bench --rounds``)."""
MAX_BATCH_SIZE = 65536
"""Largest batch measured (the largest batch a training config may run)."""


def _check_budget(seconds: Any, rounds: Any, batch_sizes: Any = ()) -> None:
    """The bench's budget as the command line bounds it, else a ValueError naming it."""
    import numbers

    from ratenvs.common.options import finite_real

    if not (finite_real(seconds) and SECONDS[0] < seconds <= SECONDS[1]):
        raise ValueError(f"seconds must be in ({SECONDS[0]:g}, {SECONDS[1]:g}], got {seconds!r}")
    whole = isinstance(rounds, numbers.Integral) and not isinstance(rounds, bool)
    if not (whole and ROUNDS[0] <= rounds <= ROUNDS[1]):
        raise ValueError(f"rounds must be an integer in {ROUNDS[0]}..{ROUNDS[1]}, got {rounds!r}")
    for size in batch_sizes:
        whole = isinstance(size, numbers.Integral) and not isinstance(size, bool)
        if not (whole and 1 <= size <= MAX_BATCH_SIZE):
            raise ValueError(f"batch sizes must be integers in 1..{MAX_BATCH_SIZE}, got {size!r}")


REFERENCE = "connect_four_v3"
BATCH_SIZES = (1, 64, 1024, 4096)

Measure = Callable[[float], tuple[int, float, float]]
"""Play for about the given CPU seconds; return (decisions, CPU seconds, wall seconds)."""


def play_random(env: Any, rng: np.random.Generator, seed: int, cpu_seconds: float) -> tuple:
    """Play games of an AEC env with random legal actions for ``cpu_seconds`` of CPU time;
    (decisions, CPU seconds, wall seconds). A game in progress at the deadline is finished."""
    decisions = 0
    game = 0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    deadline = cpu0 + cpu_seconds
    while time.process_time() < deadline:
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
    return decisions, time.process_time() - cpu0, time.perf_counter() - wall0


def _aec_measure(make: Callable[[], Any], seed: int) -> Measure:
    """A :data:`Measure` of an AEC env: one env, made once, played round after round with
    one random stream (each round continues the last one's games: every round differs)."""
    env = make()
    rng = np.random.default_rng(seed)
    games = [0]

    def measure(seconds: float) -> tuple[int, float, float]:
        result = play_random(env, rng, seed + 1_000_003 * games[0], seconds)
        games[0] += 1
        return result

    return measure


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


def processor() -> str:
    """The processor's model and clock as the system reports them (``/proc/cpuinfo``), or
    what :func:`platform.processor` says: the ratio of a compiled engine to a Python env
    depends on the processor, so every results file records it."""
    import platform

    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return platform.processor() or "unknown"
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            break  # the first processor's block
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    model = fields.get("model name") or platform.processor() or "unknown"
    mhz = fields.get("cpu MHz", "")
    try:
        return f"{model} at {float(mhz):,.0f} MHz"
    except ValueError:
        return model


def _label(spec: Any, options: dict[str, Any]) -> str:
    return spec.module.rsplit(".", 1)[1] + "".join(f" {k}={v}" for k, v in options.items())


def bench_targets(games: list[str] | None = None) -> list[tuple[str, Callable[[], Any]]]:
    """(label, constructor of ``env()``) for every configuration to measure, the reference
    first."""
    targets: list[tuple[str, Callable[[], Any]]] = []
    if reference_missing() is None:
        targets.append((REFERENCE, _reference_env))
    for name, spec in available_games().items():
        if games and name not in games and spec.cli_name not in games:
            continue
        module = importlib.import_module(spec.module)
        for options in spec.bench_options:
            targets.append((_label(spec, options), lambda m=module, o=options: m.env(**o)))
    return targets


def _spread(values: list[float], digits: int) -> dict[str, float]:
    """min / median / max of ``values``, rounded."""
    return {
        "min": round(min(values), digits),
        "median": round(median(values), digits),
        "max": round(max(values), digits),
    }


def _interleave(
    contenders: dict[Any, Measure], rounds: int, seconds: float
) -> dict[Any, list[tuple[float, float]]]:
    """Measure every contender once a round, the order rotated each round; per contender
    the (CPU rate, wall rate) of each round."""
    keys = list(contenders)
    rates: dict[Any, list[tuple[float, float]]] = {key: [] for key in keys}
    for r in range(rounds):
        shift = r % len(keys)
        for key in keys[shift:] + keys[:shift]:
            decisions, cpu, wall = contenders[key](seconds)
            rates[key].append((decisions / max(cpu, 1e-9), decisions / max(wall, 1e-9)))
    return rates


def _record(
    rates: list[tuple[float, float]], baselines: dict[str, list[tuple[float, float]] | None]
) -> dict[str, Any]:
    """A record's figures: its CPU rate (min / median / max over rounds), its median wall
    rate, each round's CPU rate, and its ratio to each baseline, round by round."""
    cpu = [c for c, _ in rates]
    record: dict[str, Any] = {
        "decisions_per_s": round(median(cpu), 1),
        "cpu_decisions_per_s": _spread(cpu, 1),
        "wall_decisions_per_s": round(median(w for _, w in rates), 1),
        "rounds_cpu_decisions_per_s": [round(c, 1) for c in cpu],
    }
    for name, base in baselines.items():
        if base is None:
            record[name] = None
            record[f"{name}_spread"] = None
            continue
        ratios = [c / b for c, (b, _) in zip(cpu, base)]
        record[name] = round(median(ratios), 2)
        record[f"{name}_spread"] = _spread(ratios, 2)
    return record


def run(
    games: list[str] | None = None, seconds: float = 2.0, rounds: int = 3, seed: int = 0
) -> list[dict[str, Any]]:
    """Measure every target's ``env()`` (``seconds`` of CPU time a round, ``rounds``
    interleaved rounds); one record per env, with its ratio to ``connect_four_v3``.

    ``decisions_per_s`` is the median CPU rate; ``ratio_vs_connect_four`` the median of
    the per-round ratios (``ratio_vs_connect_four_spread`` their min / median / max)."""
    _check_budget(seconds, rounds)
    targets = bench_targets(games)
    contenders = {label: _aec_measure(make, seed) for label, make in targets}
    rates = _interleave(contenders, rounds, seconds)
    reference = rates.get(REFERENCE)
    return [
        {"env": label, **_record(values, {"ratio_vs_connect_four": reference})}
        for label, values in rates.items()
    ]


def _batched_measure(engine_cls: Any, options: dict[str, Any], batch: int, seed: int) -> Measure:
    """A :data:`Measure` of a batched engine: ``batch`` games at once, random legal play,
    compiled and warmed before the first round (autoreset keeps every game going)."""
    from ratenvs.common.batched import RandomActions

    engine = engine_cls(batch, seed=seed, **options)
    state = {"out": engine.reset()}
    if engine_cls.simultaneous:
        n, p, _ = state["out"].mask.shape
        picker = RandomActions(n * p, seed)  # a row per seat: its actions come back (n, p)

        def one() -> int:
            out = state["out"]
            acting = int(np.count_nonzero(out.to_act))
            state["out"] = engine.step(picker.pick(out.mask))
            return acting
    else:
        picker = RandomActions(batch, seed)

        def one() -> int:
            state["out"] = engine.step(picker.pick(state["out"].mask))
            return batch

    for _ in range(3):
        one()  # warm: compiled, caches filled

    def measure(seconds: float) -> tuple[int, float, float]:
        decisions = 0
        cpu0, wall0 = time.process_time(), time.perf_counter()
        deadline = cpu0 + seconds
        while time.process_time() < deadline:
            decisions += one()
        return decisions, time.process_time() - cpu0, time.perf_counter() - wall0

    return measure


def run_batched(
    games: list[str] | None = None,
    batch_sizes: tuple[int, ...] = BATCH_SIZES,
    seconds: float = 2.0,
    rounds: int = 3,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Every batched engine at every batch size against its own ``raw_env`` (the unwrapped
    AEC env, random legal play as :func:`run`) and ``connect_four_v3``, all interleaved
    round by round (``seconds`` of CPU time each a round).

    ``ratio_vs_raw_env`` is the median over rounds of the engine's CPU rate over its
    ``raw_env``'s in the same round (``ratio_vs_raw_env_spread``: min / median / max)."""
    _check_budget(seconds, rounds, batch_sizes)
    contenders: dict[tuple[str, int], Measure] = {}
    if reference_missing() is None:
        contenders[(REFERENCE, 0)] = _aec_measure(_reference_env, seed)
    for name, spec in available_games().items():
        if games and name not in games and spec.cli_name not in games:
            continue
        if not spec.has_batched:
            continue
        module = importlib.import_module(spec.module)
        engine_cls = spec.batched()
        for options in spec.bench_options:
            label = _label(spec, options)
            contenders[(label, 0)] = _aec_measure(lambda m=module, o=options: m.raw_env(**o), seed)
            for size in batch_sizes:
                contenders[(label, size)] = _batched_measure(engine_cls, options, size, seed)
    rates = _interleave(contenders, rounds, seconds)
    reference = rates.get((REFERENCE, 0))
    records = []
    for (label, size), values in rates.items():
        raw = rates[(label, 0)]
        records.append(
            {
                "env": label,
                "engine": "raw_env" if size == 0 else "batched",
                "batch_size": size or None,
                **_record(values, {"ratio_vs_raw_env": raw, "ratio_vs_connect_four": reference}),
            }
        )
    return records


def _spread_cell(spread: dict[str, float] | None, digits: int, suffix: str = "") -> str:
    """``median (min-max)`` of a spread, or "-"."""
    if spread is None:
        return "-"
    f = f"{{:,.{digits}f}}"
    return (
        f"{f.format(spread['median'])}{suffix} "
        f"({f.format(spread['min'])}-{f.format(spread['max'])})"
    )


def _rows(records: list[dict[str, Any]]) -> list[tuple[str, ...]]:
    """Each record's cells, median (min-max): env, (engine, batch,) CPU rate and ratios."""
    rows = []
    for r in records:
        if "engine" in r:
            rows.append(
                (
                    r["env"],
                    r["engine"],
                    str(r["batch_size"] or "-"),
                    _spread_cell(r["cpu_decisions_per_s"], 0),
                    _spread_cell(r["ratio_vs_raw_env_spread"], 1, "x"),
                    _spread_cell(r["ratio_vs_connect_four_spread"], 1, "x"),
                )
            )
        else:
            rows.append(
                (
                    r["env"],
                    _spread_cell(r["cpu_decisions_per_s"], 0),
                    _spread_cell(r["ratio_vs_connect_four_spread"], 2, "x"),
                )
            )
    return rows


HEAD = ("env", "CPU decisions/s", "vs connect_four_v3")
BATCHED_HEAD = ("env", "engine", "batch", "CPU decisions/s", "vs raw_env", "vs connect_four_v3")


def format_table(records: list[dict[str, Any]]) -> str:
    """A plain-text table of :func:`run` results: each env's CPU rate and its ratio to
    ``connect_four_v3``, median (min-max)."""
    return _columns(HEAD, _rows(records), records)


def format_batched_table(records: list[dict[str, Any]]) -> str:
    """A plain-text table of :func:`run_batched` results, median (min-max) in each cell."""
    return _columns(BATCHED_HEAD, _rows(records), records)


def _columns(head: tuple[str, ...], rows: list[tuple[str, ...]], records: list[dict]) -> str:
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    lines = [
        "  ".join(
            h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(head, widths))
        )
    ]
    for row in rows:
        lines.append(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))
            )
        )
    n = len(records[0]["rounds_cpu_decisions_per_s"]) if records else 0
    lines.append(f"(median (min-max) over {n} interleaved rounds; rates are per CPU second)")
    return "\n".join(lines)


def _processor(meta: dict[str, Any]) -> str:
    """A results file's machine: its processor, where the file records it."""
    return f"{meta['processor']}, {meta['machine']}" if "processor" in meta else meta["machine"]


def markdown_table(data: dict[str, Any]) -> str:
    """The Markdown table the docs print for a results file of the repository's
    ``benchmarks/bench_envs.py`` (``{"meta": ..., "records": ...}``, either measurement),
    with a line saying how and when it was measured."""
    meta, records = data["meta"], data["records"]
    batched = bool(records) and "engine" in records[0]
    head = [h.replace("vs ", "x ") for h in (BATCHED_HEAD if batched else HEAD)]
    rows = _rows(records)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += [
        "| " + " | ".join(f"`{c}`" if i == 0 else c for i, c in enumerate(row)) + " |"
        for row in rows
    ]
    lines.append("")
    lines.append(
        f"Median (min-max) of {meta['rounds']} interleaved rounds of {meta['seconds']:g} CPU "
        f"seconds each; ratios within each round. Measured {meta['date']} with "
        f"`{meta['command']}` on {meta['cpus']} CPUs ({_processor(meta)}, Python "
        f"{meta['python']}, ratenvs {meta['ratenvs']})."
    )
    return "\n".join(lines)
