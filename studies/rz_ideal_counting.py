"""Ratto Zakko: what counting cards and hearing the answers given are worth to the ideal
observer.

    python -m studies.rz_ideal_counting [--games 400] [--seed 2027] [--json out.json]

The ``ideal`` bot (:class:`ratenvs.ratto_zakko.reaction.IdealBot`) counts cards: it sees the
public record (option ``public_record``: the cards not yet turned face up, the responses
already given to the card showing) and weighs the card showing by it
(:func:`ratenvs.ratto_zakko.observe.counted_response_beliefs`). Before, it used the deck's
joint prior over (food, colour) as if no card had been dealt. This study seats one
observer against three of another (4 players, dessert, gradual perception, the table of
issue 38), seats rotated, and reports the games where the first held the most cards (ties
shared), with a Wilson 95% interval:

- ``counting`` (the ``ideal`` bot) against three ``deck`` (the ideal bot bound to a table
  without the record: the deck's prior, as before), and the other way round;
- each against three ``bayes``.

A fair share is 25%.
"""

from __future__ import annotations

import argparse
import time
from typing import Any, ClassVar

from ratenvs.common.arguments import int_in
from ratenvs.common.bots import with_own_view
from ratenvs.ratto_zakko.reaction import BayesBot, IdealBot
from ratenvs.ratto_zakko.rules import RattoZakko
from studies.harness import seat_share, write_figures

OPTIONS: dict[str, Any] = {"num_players": 4, "level": "dessert", "perception": "gradual"}
"""The table (no record: the counting bot sees it through its own view options)."""


class DeckIdealBot(IdealBot):
    """The ideal observer before card counting: the deck's joint prior over (food, colour),
    no record (it asks for no view options, so at a table without the record it is bound
    to an observer without it)."""

    name = "ideal-deck"
    view_options: ClassVar[dict[str, Any]] = {}


def _player(kind: str, game: RattoZakko) -> Any:
    bot = {"counting": IdealBot, "deck": DeckIdealBot, "bayes": BayesBot}[kind]()
    seated = with_own_view(bot, game)
    if seated is bot:
        bot.bind(game.observer(game.observation_kind))
    return seated


PAIRS = (("counting", "deck"), ("deck", "counting"), ("counting", "bayes"), ("deck", "bayes"))
"""(the seat measured, the three others)."""


def measure(games: int = 400, seed: int = 2027) -> dict[str, Any]:
    """One row per pair of :data:`PAIRS`: the first's most-cards share against three of the
    second, ``games`` seat-rotated games from ``seed``."""
    game = RattoZakko(**OPTIONS)
    rows = []
    start = time.perf_counter()
    for me, them in PAIRS:
        others = [_player(them, game) for _ in range(3)]
        share = seat_share("ratto_zakko", OPTIONS, _player(me, game), others, games, seed)
        rows.append({"seat": me, "against": them, **share})
    return {
        "options": OPTIONS,
        "seed": seed,
        "rows": rows,
        "seconds": round(time.perf_counter() - start, 1),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m studies.rz_ideal_counting", description=__doc__)
    ap.add_argument("--games", type=int_in(1), default=400)
    ap.add_argument("--seed", type=int, default=2027)
    ap.add_argument("--json", default=None, help="also write the figures as JSON here")
    args = ap.parse_args(argv)
    result = measure(args.games, args.seed)
    for r in result["rows"]:
        lo, hi = r["win_rate_ci"]
        acc = r["answer_accuracy"]
        print(
            f"{r['seat']:>8} vs 3 {r['against']:<8} most cards {100 * r['win_rate']:5.1f}% "
            f"[{100 * lo:.1f}, {100 * hi:.1f}] of {r['games']} games, "
            f"answers right {100 * acc:.1f}%"
        )
    print(f"({result['seconds']} s)")
    if args.json:
        write_figures(args.json, result)


if __name__ == "__main__":
    main()
