"""Mean reaction time and error rate of every Ratto Zakko bot preset at every level.

    python -m studies.reaction_table [--games 20] [--seed 0] [--tick-ms 25]
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
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ratenvs.common.arguments import int_in
from ratenvs.common.play import play_game
from ratenvs.ratto_zakko import reaction
from ratenvs.ratto_zakko.bots import BOTS
from ratenvs.ratto_zakko.rules import LEVELS, RattoZakko
from studies.harness import write_figures

PRESETS = ("child", "adult", "expert", "perfect")


@dataclass(frozen=True)
class ReactionStats:
    """What :func:`measure` found for one bot at one level."""

    cards: int
    answered: int
    mean_rt_ms: float
    """Mean time of the answers (end of the answering tick), over answered cards."""
    error_rate: float
    """Wrong answers / answered cards."""
    conflict_share: float
    """Share of the answered cards that were conflict cards."""


def measure(
    make_bot: Callable[[], object],
    level: str,
    games: int = 10,
    seed: int = 0,
    tick_ms: int = 25,
    perception: str = "gradual",
) -> ReactionStats:
    """Play ``games`` two-seat games of ``make_bot()`` against an
    :class:`~ratenvs.ratto_zakko.reaction.IdleBot` and measure the bot's reaction time and
    error rate (alone, so no card is cut short by an opponent). Game ``g`` is
    ``play_game(game, [make_bot(), IdleBot()], seed + g)``."""
    game = RattoZakko(num_players=2, level=level, tick_ms=tick_ms, perception=perception)
    times: list[int] = []
    wrong = conflicts = cards = 0
    for g in range(games):
        previous: list[Any] = [None]  # the last card's result (the game starts with none)

        def card(
            game: object, state: Any, actions: object, rewards: object, previous=previous
        ) -> None:
            nonlocal wrong, conflicts, cards
            last = state.last_result
            if last is previous[0]:
                return
            previous[0] = last  # a card resolved this step (the fly and shaker not moved yet)
            cards += 1
            if 0 in last.answers:
                response, tick = last.answers[0]
                times.append((tick + 1) * tick_ms)
                wrong += response != last.correct
                conflicts += reaction.is_conflict(
                    last.card, state.shaker_on, state.fly_under, level
                )

        play_game(game, [make_bot(), reaction.IdleBot()], seed + g, on_step=card)
    answered = len(times)
    return ReactionStats(
        cards=cards,
        answered=answered,
        mean_rt_ms=float(np.mean(times)) if times else math.nan,
        error_rate=wrong / answered if answered else math.nan,
        conflict_share=conflicts / answered if answered else math.nan,
    )


def measure_all(games: int, seed: int, tick_ms: int, perception: str) -> list[dict]:
    """One record per (preset, level)."""
    records = []
    for name in PRESETS:
        for level in LEVELS:
            stats = measure(
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int_in(1), default=20, help="games per preset and level")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tick-ms", type=int, default=25)
    parser.add_argument("--perception", default="gradual", choices=("gradual", "clear"))
    parser.add_argument("--json", type=Path, default=None, help="also write the records here")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    records = measure_all(args.games, args.seed, args.tick_ms, args.perception)
    print(format_table(records))
    print(
        f"\n{args.games} games per row, seed {args.seed}, tick {args.tick_ms} ms, "
        f"perception {args.perception}; {time.perf_counter() - start:.0f} s"
    )
    if args.json is not None:
        write_figures(args.json, records)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
