"""How strong the Rat-a-Tat Cat search bots are against the heuristic bot, and how long a
move takes them.

    python -m studies.search_strength [--bot ismcts] [--setting one_round] [--minutes 10]
        [--max-games 100000] [--seed 0] [--knock search] [--value VALUE] [--json out.json]

Two-player games of the search bot (``ismcts`` or ``pimc`` from the game's registry, at
its default budget) against the ``heuristic`` bot, seats rotated (game ``i``: the search
bot in seat ``i mod 2``), each game ``play_game(game, bots, seed + i)`` (the one seeding
rule), for as many games as fit in ``--minutes`` (a game started is finished) or
``--max-games``. ``--setting one_round``: one round; ``elimination``: the elimination game
at 100 (``target_score=100``). Printed (and written to ``--json``): the search bot's win
rate (a shared win counts ``1/k``) with its Wilson 95% interval, and the seconds per
searched decision (a decision with one legal action is not searched) and per game.
``--knock heuristic`` leaves the search bot's knock decisions to the heuristic's threshold
(the search plays the cards only): where the search loses its games. ``--value win`` or
``reward`` replaces the bot's default value of a play-out (``ratenvs.common.search``).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from ratenvs.common.arguments import int_in
from ratenvs.common.play import play_game
from ratenvs.common.stats import wilson_interval
from ratenvs.rat_a_tat_cat.bots import BOTS, HeuristicBot
from ratenvs.rat_a_tat_cat.rules import ACTION_KNOCK, RatATatCat
from studies.harness import write_figures

SETTINGS: dict[str, dict[str, Any]] = {
    "one_round": {"num_players": 2},
    "elimination": {"num_players": 2, "target_score": 100},
}
"""The measured games' options."""


class _Timed:
    """Wraps a search bot and keeps the seconds of every searched decision; with
    ``knock_by`` (a bot), that bot decides the knocks from the seat's observation."""

    def __init__(self, bot: Any, knock_by: Any = None) -> None:
        self.bot = bot
        self.name = bot.name
        self.seconds: list[float] = []
        self.knock_by = knock_by
        self._observer: Any = None

    def bind(self, observer: Any) -> None:
        self.bot.bind(observer)
        self._observer = observer
        if self.knock_by is not None:
            self.knock_by.bind(observer)

    def bind_game(self, game: Any, seat: int) -> None:
        self.bot.bind_game(game, seat)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, rng: Any) -> int:
        return self.bot.act(observation, action_mask, rng)

    def act_in_state(
        self, state: Any, seat: int, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        if self.knock_by is not None and action_mask[ACTION_KNOCK]:
            seen = self._observer.observe(state, seat)  # what the seat sees, as play_game shows it
            return int(self.knock_by.act(seen, action_mask, rng))
        action = self.bot.act_in_state(state, seat, action_mask, rng)
        if self.bot.last_search.get("iterations", 0):
            self.seconds.append(float(self.bot.last_search["seconds"]))
        return action


def measure(
    bot: str,
    setting: str,
    minutes: float,
    max_games: int,
    seed: int,
    knock: str = "search",
    value: str | None = None,
    iterations: int | None = None,
) -> dict[str, Any]:
    """Play the games and return the figures (see the module docstring); ``iterations``:
    the bot's budget per decision (IS-MCTS iterations, PIMC deals; default its shipped one)."""
    game = RatATatCat(**SETTINGS[setting])
    options: dict[str, Any] = {} if value is None else {"value": value}
    if iterations is not None:
        options["iterations" if bot == "ismcts" else "determinizations"] = iterations
    searcher = _Timed(BOTS[bot](**options), HeuristicBot() if knock == "heuristic" else None)
    wins = 0.0
    games = 0
    start = time.perf_counter()
    while games < max_games and time.perf_counter() - start < 60.0 * minutes:
        seat = games % 2
        bots: list[Any] = [HeuristicBot(), HeuristicBot()]
        bots[seat] = searcher
        played = play_game(game, bots, seed + games)
        k = sum(played.winners)
        wins += (1.0 / k) if played.winners[seat] else 0.0
        games += 1
    elapsed = time.perf_counter() - start
    low, high = wilson_interval(wins, games)
    moves = np.array(searcher.seconds)
    return {
        "bot": bot,
        "setting": setting,
        "options": SETTINGS[setting],
        "opponent": "heuristic",
        "knock": knock,
        "value": searcher.bot.value,
        "iterations": searcher.bot.iterations,
        "seed": seed,
        "games": games,
        "wins": wins,
        "win_rate": wins / games,
        "wilson_95": [low, high],
        "searched_moves": int(moves.size),
        "seconds_per_move_mean": float(moves.mean()) if moves.size else 0.0,
        "seconds_per_move_median": float(np.median(moves)) if moves.size else 0.0,
        "seconds_per_move_p95": float(np.percentile(moves, 95)) if moves.size else 0.0,
        "seconds_per_game": elapsed / games,
        "seconds": elapsed,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", choices=("ismcts", "pimc"), default="ismcts")
    parser.add_argument("--setting", choices=tuple(SETTINGS), default="one_round")
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--max-games", type=int_in(1), default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--knock", choices=("search", "heuristic"), default="search")
    parser.add_argument("--value", choices=("win", "reward"), default=None)
    parser.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="IS-MCTS iterations or PIMC deals per decision (default: the bot's shipped budget)",
    )
    parser.add_argument("--json", default=None, help="write the figures to this file")
    args = parser.parse_args(argv)
    out = measure(
        args.bot,
        args.setting,
        args.minutes,
        args.max_games,
        args.seed,
        args.knock,
        args.value,
        args.iterations,
    )
    low, high = out["wilson_95"]
    print(
        f"{out['bot']} vs heuristic, {out['setting']}"
        + (", knocks by the heuristic" if out["knock"] == "heuristic" else "")
        + f" (value {out['value']}"
        + f", {out['iterations']} iterations"
        + ")"
        + f": {out['win_rate']:.1%} "
        f"[{low:.1%}, {high:.1%}] of {out['games']} games; "
        f"{out['seconds_per_move_mean']:.3f} s per searched move (median "
        f"{out['seconds_per_move_median']:.3f}, p95 {out['seconds_per_move_p95']:.3f}, "
        f"{out['searched_moves']} moves), {out['seconds_per_game']:.1f} s per game"
    )
    if args.json:
        write_figures(args.json, out)


if __name__ == "__main__":
    main()
