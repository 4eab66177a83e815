"""How ``ratenvs bench`` makes its figures: CPU time, interleaved rounds, ratios taken
round by round, and the docs' Markdown tables made from its results files."""

from __future__ import annotations

import math

import pytest

from ratenvs import bench


def test_rounds_are_interleaved_in_rotated_order():
    calls: list[str] = []

    def contender(name: str, rate: float):
        def measure(seconds: float) -> tuple[int, float, float]:
            calls.append(name)
            return int(rate * seconds), seconds, 2 * seconds

        return measure

    rates = bench._interleave({"a": contender("a", 10), "b": contender("b", 30)}, 3, 1.0)
    assert calls == ["a", "b", "b", "a", "a", "b"]
    assert rates["b"] == [(30.0, 15.0)] * 3  # (CPU rate, wall rate)


def test_ratios_are_taken_within_each_round():
    # the machine halves its speed in round 2: each round's ratio stays 3, the ratio of
    # medians would not
    base = [(10.0, 10.0), (5.0, 5.0), (10.0, 10.0)]
    fast = [(30.0, 30.0), (15.0, 15.0), (36.0, 36.0)]
    record = bench._record(fast, {"ratio_vs_x": base, "ratio_vs_missing": None})
    assert record["ratio_vs_x_spread"] == {"min": 3.0, "median": 3.0, "max": 3.6}
    assert record["ratio_vs_x"] == 3.0 and record["ratio_vs_missing"] is None
    assert record["cpu_decisions_per_s"] == {"min": 15.0, "median": 30.0, "max": 36.0}
    assert record["rounds_cpu_decisions_per_s"] == [30.0, 15.0, 36.0]


def test_cpu_time_deadline_and_markdown_table():
    records = bench.run(games=["catz_ratz_batz"], seconds=0.05, rounds=2)
    crb = next(r for r in records if r["env"].startswith("catz_ratz_batz"))
    spread = crb["cpu_decisions_per_s"]
    assert 0 < spread["min"] <= spread["median"] <= spread["max"]
    assert len(crb["rounds_cpu_decisions_per_s"]) == 2
    meta = {
        "rounds": 2,
        "seconds": 0.05,
        "date": "2026-12-04 12:00:00",
        "command": "python benchmarks/bench_envs.py",
        "cpus": 2,
        "machine": "x86_64",
        "python": "3.11.7",
        "ratenvs": "0.2.0",
    }
    table = bench.markdown_table({"meta": meta, "records": records})
    assert table.splitlines()[0] == "| env | CPU decisions/s | x connect_four_v3 |"
    assert f"| `{crb['env']}` | {spread['median']:,.0f} ({spread['min']:,.0f}-" in table
    assert "2 interleaved rounds of 0.05 CPU seconds" in table


@pytest.mark.parametrize(
    ("call", "said"),
    [
        (lambda: bench.run(["catz-ratz-batz"], rounds=0), "rounds must be an integer in 1..100"),
        (lambda: bench.run(["catz-ratz-batz"], rounds=2.5), "rounds must be an integer in 1..100"),
        (lambda: bench.run(["catz-ratz-batz"], seconds=-5), "seconds must be in (0, 3600]"),
        (lambda: bench.run(["catz-ratz-batz"], seconds=math.inf), "seconds must be in (0, 3600]"),
        (lambda: bench.run_batched(batch_sizes=(0,)), "batch sizes must be integers in 1..65536"),
    ],
)
def test_the_library_refuses_a_budget_the_command_line_would(call, said):
    """``bench.run`` / ``run_batched`` called from Python hold the command line's bounds: a
    ValueError naming the budget, before any measurement (no empty median, no division by
    a negative time)."""
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value).startswith(said)
