"""Where the Rat-a-Tat Cat bots' constants come from: the heuristic bot's knock threshold,
its strength against random, and what a hidden card its owner has kept is worth.

    python -m studies.ratcat_bot_tuning [--games 400] [--seed 0] [--thresholds 4 6 8 10 12 14]
        [--rival-threshold 12] [--strength-games 1000] [--kept-games 1000]

Printed, each measured in two-player games with the seats alternated (a tie counts half):

- the heuristic bot's win rate against ``random`` and against a heuristic bot knocking at
  ``--rival-threshold`` for each knock threshold (one-round games):
  :data:`~ratenvs.rat_a_tat_cat.bots.KNOCK_THRESHOLD`;
- the heuristic bot (its default threshold) against ``random`` in one-round games,
  three-round games and one-round games with "memoryless" observations;
- the mean points of a hidden card whose owner has seen it, by its ceiling, at every knock
  decision of four heuristic bots (elimination game at 100):
  :data:`~ratenvs.rat_a_tat_cat.bots.KEPT_VALUES`.

``--strength-games 0`` or ``--kept-games 0`` skips a part.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator, Sequence

import numpy as np

from ratenvs.common.arguments import int_in
from ratenvs.common.bots import Bot, RandomBot
from ratenvs.common.play import play_game
from ratenvs.rat_a_tat_cat.bots import KEPT_VALUES, KNOCK_THRESHOLD, HeuristicBot
from ratenvs.rat_a_tat_cat.rules import (
    KIND,
    NO_CEILING,
    NUM_NUMBER_KINDS,
    PHASE_KNOCK,
    SLOTS,
    RatATatCat,
    State,
)
from training.games.rat_a_tat_cat_win_chance import win_share


def knock_decisions(games: int, seed: int = 0) -> Iterator[tuple[State, int]]:
    """Every knock decision of four heuristic bots in the elimination game at 100 (game
    ``g`` is ``play_game(game, bots, seed + g)``): a copy of the table and the deciding
    seat."""
    game = RatATatCat(num_players=4, target_score=100)
    for g in range(games):
        found: list[tuple[State, int]] = []

        def keep(game: object, state: State, actions: object, rewards: object, found=found) -> None:
            if state.phase == PHASE_KNOCK:  # the next decision is a knock
                found.append((state.copy(), state.current))

        play_game(game, [HeuristicBot() for _ in range(4)], seed + g, on_step=keep)
        yield from found


def kept_card_values(games: int = 300, seed: int = 0) -> tuple[float, ...]:
    """Mean points of the hidden cards whose owner has seen them, by ceiling (0..10), seen
    from the other seats at every knock decision of four heuristic bots (elimination at
    100; a power card counts 4.5; a ceiling no such card had: half the ceiling): how
    :data:`~ratenvs.rat_a_tat_cat.bots.KEPT_VALUES` was measured."""
    sums = np.zeros(NO_CEILING + 1)
    counts = np.zeros(NO_CEILING + 1)
    for state, p in knock_decisions(games, seed):
        for q in range(state.num_players):
            for s in range(SLOTS):
                card = state.hands[q][s]
                if q == p or card < 0 or not state.owner_seen[q, s]:
                    continue
                if state.know[p, q, s] < NUM_NUMBER_KINDS:
                    continue  # the deciding seat knows it
                kind = KIND[card]
                sums[state.ceiling[q, s]] += kind if kind < NUM_NUMBER_KINDS else 4.5
                counts[state.ceiling[q, s]] += 1
    fill = np.arange(NO_CEILING + 1) / 2.0  # no such card seen: half the ceiling
    means = np.where(counts > 0, sums / np.maximum(counts, 1), fill)
    return tuple(float(x) for x in np.round(means, 1))


def win_rate(bot: Bot, opponent: Bot, games: int, seed: int = 0, **options: object) -> float:
    """Share of two-player games ``bot`` wins against ``opponent``, seats alternating
    (a tie counts half)."""
    game = RatATatCat(num_players=2, **options)
    score = 0.0
    for g in range(games):
        seat = g % 2
        seats = [bot, opponent] if seat == 0 else [opponent, bot]
        score += win_share(play_game(game, seats, seed + g).winners, seat)
    return score / games


def tune_knock_threshold(
    thresholds: Sequence[float], games: int = 400, seed: int = 0, opponent: Bot | None = None
) -> dict[float, float]:
    """Win rate of the heuristic bot for each knock threshold against ``opponent``
    (default: ``random``)."""
    rival = RandomBot() if opponent is None else opponent
    return {t: win_rate(HeuristicBot(t), rival, games, seed=seed) for t in thresholds}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int_in(1), default=400, help="games per threshold")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--thresholds", type=float, nargs="*", default=[4.0, 6.0, 8.0, 10.0, 12.0, 14.0]
    )
    parser.add_argument("--rival-threshold", type=float, default=12.0)
    parser.add_argument("--strength-games", type=int, default=1000)
    parser.add_argument("--kept-games", type=int_in(0), default=1000, help="0: skip")
    args = parser.parse_args(argv)
    if args.thresholds:
        t0 = time.perf_counter()
        rival = HeuristicBot(args.rival_threshold)
        vs_random = tune_knock_threshold(args.thresholds, args.games, args.seed)
        vs_rival = tune_knock_threshold(args.thresholds, args.games, args.seed, rival)
        print(
            f"knock threshold sweep, {args.games} one-round games each "
            f"(shipped: {KNOCK_THRESHOLD:g}):"
        )
        print(f"  threshold  vs random  vs heuristic at {args.rival_threshold:g}")
        for t in args.thresholds:
            print(f"  {t:9g}  {100 * vs_random[t]:8.1f}%  {100 * vs_rival[t]:8.1f}%")
        print(f"  ({time.perf_counter() - t0:.0f} s)")
    if args.strength_games:
        t0 = time.perf_counter()
        print(f"heuristic vs random, {args.strength_games} games each:")
        for name, options in (
            ("one round", {}),
            ("three rounds", {"rounds": 3}),
            ("one round, memoryless", {"observation": "memoryless"}),
        ):
            rate = win_rate(HeuristicBot(), RandomBot(), args.strength_games, args.seed, **options)
            print(f"  {name:24s} {100 * rate:5.1f}%")
        print(f"  ({time.perf_counter() - t0:.0f} s)")
    if args.kept_games:
        t0 = time.perf_counter()
        values = kept_card_values(args.kept_games, args.seed)
        print(f"kept-card values by ceiling 0..{NO_CEILING}, {args.kept_games} games:")
        print("  measured: " + " ".join(f"{v:.1f}" for v in values))
        print("  shipped:  " + " ".join(f"{v:.1f}" for v in KEPT_VALUES))
        print(f"  ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
