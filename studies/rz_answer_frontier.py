"""Ratto Zakko against three ``bayes`` bots: how many answers an observer can give, and how
many of them are right, at every certainty.

    python -m studies.rz_answer_frontier [--bot {ideal,bayes}] [--games 1000] [--seed 777]
        [--certainties 0.3 0.5 0.7 0.8 0.9 0.95 0.97 0.99] [--json out.json]

Issue 19 asks the Ratto Zakko agent, against three ``bayes`` bots (4 players, dessert,
gradual perception), for answers to >= 90% of the cards of every correct response type
together with >= 97% of its answers right. A card goes to whoever answers it first, so
answering more cards means answering sooner, on less evidence. This study plays the
observers of :mod:`ratenvs.ratto_zakko.reaction` in the evaluated seat - ``ideal`` (the
ideal observer up to one approximation: the posterior of each response from the seat's
evidence and the deck's joint prior) or ``bayes`` - with their ``certainty`` (the posterior
at which they answer) swept, through the evaluator (:func:`ratenvs.evaluation.evaluate_agent`; seat
rotated, game ``g`` seeded by the evaluator's rule from ``--seed``). Each row: the games
where the seat held the most cards, the share of its answers that were right, and the
answer rate of every response type (the lowest and the highest). At any moment the most
likely response is the most accurate answer the seat's evidence allows, and a lower
certainty is how an observer answers sooner, so the ideal observer's rows trace the
trade-off a trained agent on the same evidence faces (a rule with a certainty per type
or per tick could trade somewhat otherwise).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

from ratenvs.common.arguments import int_in
from ratenvs.evaluation import evaluate_agent
from ratenvs.ratto_zakko.reaction import BayesBot, IdealBot
from studies.harness import write_figures

OPTIONS: dict[str, Any] = {"num_players": 4, "level": "dessert", "perception": "gradual"}
"""The table of the issue's target (the observation pieces of an agent play no part)."""
CERTAINTIES = (0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.97, 0.99)
BOTS = {"ideal": IdealBot, "bayes": BayesBot}


def measure(
    bot: str = "ideal",
    games: int = 1000,
    seed: int = 777,
    certainties: Sequence[float] = CERTAINTIES,
) -> dict[str, Any]:
    """One row per certainty: ``bot`` at that certainty against three ``bayes`` bots."""
    if bot not in BOTS:
        raise ValueError(f"bot must be one of {sorted(BOTS)}, got {bot!r}")
    rows = []
    start = time.perf_counter()
    for certainty in certainties:
        out = evaluate_agent(
            "ratto_zakko", dict(OPTIONS), BOTS[bot](certainty=certainty), ["bayes"], games, seed
        )
        rates = {  # a response no card of the run needed has no rate
            k: v["answer_rate"]
            for k, v in out["by_correct_response"].items()
            if v["answer_rate"] is not None
        }
        top = max(rates, key=rates.__getitem__)
        rows.append(
            {
                "certainty": certainty,
                "most_cards": out["win_rate"],
                "most_cards_95": list(out["win_rate_ci"]),
                "answer_accuracy": out["answer_accuracy"],
                "answer_accuracy_95": list(out["answer_accuracy_ci"]),
                "min_answer_rate": out["min_answer_rate"],
                "min_answer_rate_95": list(out["min_answer_rate_ci"]),
                "min_answer_rate_response": out["min_answer_rate_response"],
                "max_answer_rate": rates[top],
                "max_answer_rate_response": top,
                "answer_rates": rates,
            }
        )
    return {
        "bot": bot,
        "opponents": ["bayes"] * 3,
        "options": dict(OPTIONS),
        "games": games,
        "seed": seed,
        "rows": rows,
        "seconds": time.perf_counter() - start,
    }


def table(figures: dict[str, Any]) -> str:
    """The rows as a Markdown table."""
    lines = [
        "| certainty | most cards | answers correct | lowest answer rate | highest |",
        "|---:|---:|---:|---:|---:|",
    ]
    for r in figures["rows"]:
        lo, hi = r["most_cards_95"]
        lines.append(
            f"| {r['certainty']:g} | {r['most_cards']:.1%} [{lo:.1%}, {hi:.1%}] | "
            f"{r['answer_accuracy']:.1%} | {r['min_answer_rate']:.1%} "
            f"({r['min_answer_rate_response']}) | {r['max_answer_rate']:.1%} "
            f"({r['max_answer_rate_response']}) |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Measure and print the table (and with ``--json`` write the figures)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", choices=sorted(BOTS), default="ideal")
    parser.add_argument("--games", type=int_in(1), default=1000)
    parser.add_argument("--seed", type=int, default=777)
    parser.add_argument("--certainties", type=float, nargs="+", default=list(CERTAINTIES))
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    f = measure(args.bot, args.games, args.seed, args.certainties)
    print(
        f"{args.bot} in one seat, three bayes bots, {f['games']} games from seed "
        f"{f['seed']} ({f['seconds']:.0f} s):"
    )
    print(table(f))
    if args.json:
        write_figures(args.json, f)
    return f


if __name__ == "__main__":
    main()
