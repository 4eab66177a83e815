"""Ratto Zakko: at what certainty should an ideal observer answer when its rivals are ideal
observers too?

    python -m studies.rz_certainty_race [--games 400] [--seed 2028] [--start 0.97]
        [--certainties 0.6 0.7 0.8 0.85 0.9 0.95 0.97] [--rounds 4] [--json out.json]

A card goes to the first right answer, and a wrong one costs a card, so answering is a race
on evidence: answer sooner on less certainty, or later and right. The ``ideal`` bot
(:class:`ratenvs.ratto_zakko.reaction.IdealBot`, counting cards) answers the most likely
response once it is ``certainty`` likely (0.97 by default). This study asks, for three
rivals at certainty ``c`` (4 players, dessert, gradual perception, seats rotated, ties
shared), which certainty of the fourth seat holds the most cards most often: its best
response ``BR(c)`` among ``--certainties``. Starting from ``--start`` it then seats three
rivals at ``BR(c)`` and asks again, ``--rounds`` times (best-response dynamics, as in
fictitious play with one pure strategy). A certainty with ``BR(c) = c`` is a symmetric
equilibrium of the race among these threshold players: no threshold does better against
three of it. How far a trained exploiter gets beyond the fair 25% against three copies of
an agent is the same race (see ``docs/exploitability.md``); this is the race among the
bots, each one decision of one number.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

from ratenvs.common.arguments import int_in
from ratenvs.common.bots import with_own_view
from ratenvs.ratto_zakko.reaction import IdealBot
from ratenvs.ratto_zakko.rules import RattoZakko
from studies.harness import seat_share, write_figures

OPTIONS: dict[str, Any] = {"num_players": 4, "level": "dessert", "perception": "gradual"}
CERTAINTIES = (0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97)


def _ideal(certainty: float, game: RattoZakko) -> Any:
    return with_own_view(IdealBot(certainty=certainty), game)


def best_response(
    rivals: float, certainties: Sequence[float], games: int, seed: int
) -> list[dict[str, Any]]:
    """The fourth seat at every certainty of ``certainties`` against three ideal bots at
    ``rivals``: one row each (most-cards share, Wilson 95%, its answers' accuracy)."""
    game = RattoZakko(**OPTIONS)
    rows = []
    for c in certainties:
        others = [_ideal(rivals, game) for _ in range(3)]
        share = seat_share("ratto_zakko", OPTIONS, _ideal(c, game), others, games, seed)
        rows.append({"rivals": rivals, "certainty": c, **share})
    return rows


def measure(
    games: int = 400,
    seed: int = 2028,
    start: float = 0.97,
    certainties: Sequence[float] = CERTAINTIES,
    rounds: int = 4,
) -> dict[str, Any]:
    """Best-response dynamics from ``start``: each round's rows and its best certainty;
    stops early at a fixed point."""
    if not certainties or any(not 0.0 < c <= 1.0 for c in certainties):
        raise ValueError(f"certainties must be in (0, 1], got {list(certainties)}")
    if rounds < 1:
        raise ValueError(f"rounds must be >= 1, got {rounds}")
    t0 = time.perf_counter()
    rivals = start
    out = []
    for _ in range(rounds):
        rows = best_response(rivals, certainties, games, seed)
        best = max(rows, key=lambda r: r["win_rate"])
        out.append({"rivals": rivals, "rows": rows, "best": best["certainty"]})
        print(
            f"rivals at {rivals}: "
            + ", ".join(f"{r['certainty']}: {100 * r['win_rate']:.1f}%" for r in rows)
            + f" -> best {best['certainty']}",
            flush=True,
        )
        if best["certainty"] == rivals:
            break
        rivals = best["certainty"]
    return {
        "options": OPTIONS,
        "seed": seed,
        "games": games,
        "rounds": out,
        "fixed_point": out[-1]["best"] == out[-1]["rivals"],
        "seconds": round(time.perf_counter() - t0, 1),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m studies.rz_certainty_race", description=__doc__)
    ap.add_argument("--games", type=int_in(1), default=400)
    ap.add_argument("--seed", type=int, default=2028)
    ap.add_argument("--start", type=float, default=0.97)
    ap.add_argument("--certainties", type=float, nargs="+", default=list(CERTAINTIES))
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--json", default=None, help="also write the figures as JSON here")
    args = ap.parse_args(argv)
    result = measure(args.games, args.seed, args.start, args.certainties, args.rounds)
    print(f"fixed point: {result['fixed_point']} ({result['seconds']} s)")
    if args.json:
        write_figures(args.json, result)


if __name__ == "__main__":
    main()
