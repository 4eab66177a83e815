"""The results table of the shipped agents, generated from their JSON cards (Markdown).

Usage: ``python -m training.results [--checkpoints DIR]`` prints one row per
figure recorded in each card: agent, opponents, figure, 95% interval; an exact grade of
the agent itself once, and the win rate of the best response ``ratenvs exploit`` trained
against it (the card's ``exploitability`` block) last.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ratenvs.common.arguments import ArgumentParser, input_folder, report
from training.checkpoint import load_card

DEFAULT_DIR = Path(__file__).resolve().parent.parent / "checkpoints"


def _rows(card_file: Path, card: dict[str, Any]) -> list[list[str]]:
    agent = f"`{card_file.parent.name}/{card_file.stem}`"
    opts = ", ".join(f"{k}={v}" for k, v in card["env_options"].items())
    rows: list[list[str]] = []
    evaluations = card.get("evaluations") or {"": card.get("evaluation", {})}
    for ev in evaluations.values():
        if not ev:
            continue
        opponents = ", ".join(ev.get("opponents") or []) or "-"
        if ev.get("env_overrides"):  # an evaluation with env options overridden
            changed = ", ".join(f"{k}={v}" for k, v in ev["env_overrides"].items())
            opponents += f" (with {changed})"
        games = ev["games"]
        if "ratio_to_optimal" in ev:
            _once(
                rows,
                [
                    agent,
                    opts,
                    "(solver)",
                    "exact expected turn score",
                    f"{ev['exact_expected_score']:.3f} = {ev['ratio_to_optimal']:.2%} of optimal",
                    "exact",
                ],
            )
        if "exact_exploitability" in ev:  # an agent whose exact best response is known
            _once(
                rows,
                [
                    agent,
                    opts,
                    "a best response (solver)",
                    "exact exploitability",
                    f"{ev['exact_exploitability']:.4f} (win-optimal: 0)",
                    "exact",
                ],
            )
        lo, hi = ev["win_rate_ci"]
        if opponents != "-":
            rows.append(
                [
                    agent,
                    opts,
                    opponents,
                    f"win rate ({games} games)",
                    f"{ev['win_rate']:.3f}",
                    f"[{lo:.3f}, {hi:.3f}]",
                ]
            )
        lo, hi = ev["mean_reward_ci"]
        rows.append(
            [
                agent,
                opts,
                opponents,
                f"mean reward ({games} games)",
                f"{ev['mean_reward']:.3f}",
                f"[{lo:.3f}, {hi:.3f}]",
            ]
        )
        if "answer_accuracy" in ev:
            lo, hi = ev["answer_accuracy_ci"]
            rows.append(
                [
                    agent,
                    opts,
                    opponents,
                    f"correct answers ({ev['answers']})",
                    f"{ev['answer_accuracy']:.3f}",
                    f"[{lo:.3f}, {hi:.3f}]",
                ]
            )
        if "min_answer_rate" in ev:
            lo, hi = ev["min_answer_rate_ci"]
            rows.append(
                [
                    agent,
                    opts,
                    opponents,
                    f"lowest answer rate ({ev['min_answer_rate_response']})",
                    f"{ev['min_answer_rate']:.3f}",
                    f"[{lo:.3f}, {hi:.3f}]",
                ]
            )
    block = card.get("exploitability")
    if block and "responder_win_rate" in block:  # ratenvs exploit's approximate figure
        lo, hi = block["win_rate_ci"]
        responder = block.get("responder") or {}
        trained_on = f", trained on {responder['reward']}" if responder.get("reward") else ""
        trained_on += f", started from {responder['init']}" if responder.get("init") else ""
        rows.append(
            [
                agent,
                opts,
                f"a best response ({block['frames']:,} frames{trained_on})",
                f"its win rate ({block['games']} games; fair {block['fair_share']:.2f})",
                f"{block['responder_win_rate']:.3f}",
                f"[{lo:.3f}, {hi:.3f}]",
            ]
        )
    return rows


def _once(rows: list[list[str]], row: list[str]) -> None:
    """Add ``row`` unless it is there: a figure of the agent itself (an exact grade) that
    every one of its evaluations carries."""
    if row not in rows:
        rows.append(row)


def results_table(directory: str | Path = DEFAULT_DIR) -> str:
    """Markdown table of every card under ``directory/<game>/*.json``. A folder without
    cards, or a card that is not a checkpoint card with evaluations, is a ValueError
    naming it."""
    header = ["agent", "env options", "opponents", "figure", "value", "95% interval"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    card_files = sorted(Path(directory).glob("*/*.json"))
    if not card_files:
        raise ValueError(f"{directory}: no checkpoint cards (<game>/<name>.json) in it")
    for card_file in card_files:
        card = load_card(card_file)
        try:
            rows = _rows(card_file, card)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            what = f"lacks {exc}" if isinstance(exc, KeyError) else f"is malformed ({exc})"
            raise ValueError(f"checkpoint card {card_file}: its evaluation {what}") from None
        for row in rows:
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m training.results", description=__doc__)
    parser.add_argument("--checkpoints", type=Path, default=DEFAULT_DIR)
    args = parser.parse_args(argv)
    try:
        table = results_table(input_folder("--checkpoints", args.checkpoints))
    except (ValueError, OSError) as exc:  # a missing folder, a broken card
        return report(exc)
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
