"""Mean reaction time and error rate of every Ratto Zakko bot preset at every level.

    python benchmarks/reaction_table.py [--games 20] [--seed 0] [--tick-ms 25]
        [--perception gradual] [--json out.json]

Each preset plays two-seat games alone against a bot that never answers (so
no card is cut short by an opponent: every card shows the preset's own
reaction), with the env's default perception. Printed as the Markdown table
quoted in ``docs/ratto_zakko.md``: measured mean RT (end of the answering
tick) and error rate, the share of conflict cards among the answered cards,
and the model's mean RT on plain and conflict cards for comparison.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from ratenvs.ratto_zakko import reaction
from ratenvs.ratto_zakko.bots import BOTS
from ratenvs.ratto_zakko.rules import LEVELS

PRESETS = ("child", "adult", "expert", "perfect")


def measure_all(games: int, seed: int, tick_ms: int, perception: str) -> list[dict]:
    """One record per (preset, level)."""
    records = []
    for name in PRESETS:
        for level in LEVELS:
            stats = reaction.measure(
                BOTS[name], level, games=games, seed=seed, tick_ms=tick_ms, perception=perception
            )
            model = reaction.PRESETS.get(name)
            records.append(
                {
                    "preset": name,
                    "level": level,
                    "cards": stats.cards,
                    "answered": stats.answered,
                    "mean_rt_ms": round(stats.mean_rt_ms, 1),
                    "error_rate": round(stats.error_rate, 4),
                    "conflict_share": round(stats.conflict_share, 3),
                    "model_plain_ms": None if model is None else model.mean_rt_ms(level, False),
                    "model_conflict_ms": None if model is None else model.mean_rt_ms(level, True),
                }
            )
    return records


def format_table(records: list[dict]) -> str:
    """The records as a Markdown table."""
    lines = [
        "| preset | level | cards | mean RT (ms) | error rate | conflict cards | "
        "model RT plain / conflict (ms) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in records:
        model = (
            f"{r['model_plain_ms']:.0f} / {r['model_conflict_ms']:.0f}"
            if r["model_plain_ms"] is not None
            else f"fixed {reaction.PERFECT_LATENCY_MS:.0f} latency"
        )
        lines.append(
            f"| {r['preset']} | {r['level']} | {r['answered']} | {r['mean_rt_ms']:.0f} | "
            f"{100 * r['error_rate']:.1f}% | {100 * r['conflict_share']:.0f}% | {model} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per preset and level")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tick-ms", type=int, default=25)
    parser.add_argument("--perception", default="gradual", choices=("gradual", "clear"))
    parser.add_argument("--json", type=Path, default=None, help="also write the records here")
    args = parser.parse_args()
    start = time.perf_counter()
    records = measure_all(args.games, args.seed, args.tick_ms, args.perception)
    print(format_table(records))
    print(
        f"\n{args.games} games per row, seed {args.seed}, tick {args.tick_ms} ms, "
        f"perception {args.perception}; {time.perf_counter() - start:.0f} s"
    )
    if args.json is not None:
        args.json.write_text(json.dumps(records, indent=2) + "\n")


if __name__ == "__main__":
    main()
