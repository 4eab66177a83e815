"""Evaluate agents: a checkpoint against bots, or a round-robin tournament with ratings.

Usage::

    python -m training.evaluate --checkpoint CKPT [--opponents NAME ...] [--games N]
                                [--seed S] [--json FILE]
    python -m training.evaluate --tournament A B C ... [--players N] [--games N] [--seed S]
                                [--json FILE]

Agents are checkpoints (``path/to/agent.json``, or a shipped agent ``agent:NAME``) or bots
written ``game:bot``
(``<game>:<bot>``, e.g. a game's ``optimal`` bot). In every evaluation the agent's seat
rotates game by game (game ``i``: seat ``i mod players``). The win rate
counts a shared win as ``1/w`` of a win (``w`` tied winners) and carries a
Wilson 95% interval; the mean reward (the agent's summed rewards per game in
the env's reward mode, e.g. its total score) carries a normal 95% interval.
A game's training hooks (:mod:`training.hooks`) can add an exact grade of the
agent (e.g. with a solver: ``exact_expected_score`` and ``ratio_to_optimal``) and
counts of its play (e.g. ``answer_accuracy``). Everything is deterministic for a
given ``--seed``. A tournament of ``--players N`` seats (default: the checkpoints'
``num_players``, else 2) shares each game's seats between a pairing's two agents (even and
odd seats, alternated), as ``ratenvs tournament`` does.

The evaluator is the library's :mod:`ratenvs.evaluation` (``ratenvs evaluate`` and
``ratenvs tournament`` run it from a plain install); this module is its training-side
door: the game's extras come from its training hooks, the tables are printed with rich,
and agents may also be shipped agents, ``agent:NAME``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ratenvs import evaluation
from ratenvs.agents import AGENT_PREFIX, agent_path
from ratenvs.agents.checkpoint import checkpoint_env, load_checkpoint
from ratenvs.common.arguments import SEED, ArgumentParser, int_in, report, results_file
from ratenvs.common.bots import Bot
from ratenvs.evaluation import (
    MAX_GAMES,
    RESPONSE_HEADER,
    RESPONSE_TITLE,
    AgentRef,
    EvaluationExtras,
    GameResult,
    evaluation_rows,
    make_opponents,
    play_game,
    resolve_agent,
    response_rows,
    summarise,
    tournament,
    tournament_caption,
)
from ratenvs.games import GAMES, GameSpec
from training.atomic import atomic_write_text
from training.hooks import hooks_for

__all__ = [
    "GAMES",
    "MAX_GAMES",
    "AgentRef",
    "GameResult",
    "build_parser",
    "checkpoint_env",
    "evaluate_agent",
    "evaluate_checkpoint",
    "main",
    "make_opponents",
    "play_game",
    "play_match",
    "resolve_agent",
    "summarise",
    "tournament",
]


def extras(game: str) -> EvaluationExtras:
    """The evaluation extras of ``game`` as its training hooks (:mod:`training.hooks`) give
    them: the exact grade and the tracker."""
    hooks = hooks_for(game)
    return EvaluationExtras(exact_grade=hooks.exact_grade, tracker=hooks.tracker)


def play_match(
    spec: GameSpec,
    env_options: dict[str, Any],
    agent: Bot,
    opponents: Sequence[Bot],
    games: int,
    seed: int,
    first_seat: int = 0,
) -> list[GameResult]:
    """:func:`ratenvs.evaluation.play_match` with the game's training hooks' tracker."""
    return evaluation.play_match(
        spec, env_options, agent, opponents, games, seed, first_seat, extras=extras(spec.name)
    )


def evaluate_agent(
    game: str,
    env_options: dict[str, Any],
    agent: Bot,
    opponent_names: Sequence[str] | None,
    games: int,
    seed: int,
) -> dict[str, Any]:
    """:func:`ratenvs.evaluation.evaluate_agent` with the game's training hooks (its exact
    grade, ``GameHooks.exact_grade``, and tracker)."""
    return evaluation.evaluate_agent(
        game, env_options, agent, opponent_names, games, seed, extras=extras(game)
    )


def evaluate_checkpoint(
    checkpoint: str | Path, opponents: Sequence[str] | None, games: int, seed: int
) -> dict[str, Any]:
    """Load a checkpoint (a path, or a shipped agent ``agent:NAME``; safely, with NumPy:
    no torch) and evaluate it in its own game and env options; the result names it and its
    weights (``checkpoint``, ``weights_sha256``)."""
    shipped = str(checkpoint).startswith(AGENT_PREFIX)
    ckpt = load_checkpoint(agent_path(str(checkpoint)) if shipped else checkpoint, optimizer=False)
    env = checkpoint_env(ckpt)
    if opponents and env.num_players == 1:
        raise ValueError(
            f"--opponents: {ckpt.game} with {ckpt.env_options} is a one-player game (no "
            "opponent seats)"
        )
    out = evaluate_agent(ckpt.game, ckpt.env_options, ckpt.bot(), opponents, games, seed)
    out["checkpoint"] = str(checkpoint)
    out["weights_sha256"] = ckpt.card["weights_sha256"]
    out["game"] = ckpt.game
    return out


# ---------------------------------------------------------------------- CLI
RESPONSE_TABLE_WIDTH = 112
"""Columns the rich table of answers by correct response needs (not cut to 80 in a pipe)."""


def _print_evaluation(result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{result.get('game', '')} evaluation ({result['games']} games)")
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_column("95% interval", justify="right")
    table.add_row("opponents", ", ".join(result["opponents"]) or "-", "")
    for row in evaluation_rows(result):
        table.add_row(*row)
    console = Console()
    console.print(table)
    rows = response_rows(result)
    if rows:
        kinds = Table(title=RESPONSE_TITLE)
        for i, col in enumerate(RESPONSE_HEADER):
            kinds.add_column(col, justify="right" if i else "left", no_wrap=True)
        for row in rows:
            kinds.add_row(*row)
        Console(width=max(console.width, RESPONSE_TABLE_WIDTH)).print(kinds)


def _print_tournament(result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(tournament_caption(result))
    for label, options in (result.get("own_views") or {}).items():
        console.print(f"{label} sees the table with its own view options: {options}")
    pairs = Table(
        title=f"pairings, {result.get('players', 2)} seats (score: the share of the wins, "
        "seats alternated)"
    )
    for col in ("agent", "opponent", "games", "score", "95% interval"):
        pairs.add_column(col)
    for p in result["pairs"]:
        low, high = p["score_ci"]
        pairs.add_row(
            p["agent"],
            p["opponent"],
            str(p["games"]),
            f"{p['score']:.3f}",
            f"[{low:.3f}, {high:.3f}]",
        )
    console.print(pairs)
    ratings = Table(title="Bradley-Terry ratings (Elo scale, mean 0, bootstrap 95%)")
    for col in ("rank", "agent", "elo", "95% interval"):
        ratings.add_column(col)
    for rank, r in enumerate(result["ratings"], 1):
        low, high = r["elo_ci"]
        ratings.add_row(str(rank), r["agent"], f"{r['elo']:+.0f}", f"[{low:+.0f}, {high:+.0f}]")
    console.print(ratings)


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="python -m training.evaluate", description=__doc__.split("\n")[0])
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument(
        "--checkpoint", help="checkpoint to evaluate (.pt with its .json card, or agent:NAME)"
    )
    what.add_argument(
        "--tournament", nargs="+", metavar="AGENT", help="checkpoints, agent:NAME or game:bot"
    )
    parser.add_argument(
        "--opponents", nargs="+", metavar="NAME", help="bot names (default: game's)"
    )
    parser.add_argument(
        "--players",
        type=int_in(2),
        metavar="N",
        help="with --tournament: seats per game, shared by a pairing's two agents (default: "
        "the checkpoints' num_players, else 2)",
    )
    parser.add_argument(
        "--games",
        type=int_in(1, MAX_GAMES),
        default=200,
        help=f"games (per pairing in a tournament; 1..{MAX_GAMES:,})",
    )
    parser.add_argument("--seed", type=SEED, default=0)
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.json is not None:  # before the games, not after them
            results_file("--json", args.json, make_folder=True)
        if args.checkpoint:
            if args.players is not None:
                raise ValueError("--players applies to --tournament only")
            result = evaluate_checkpoint(args.checkpoint, args.opponents, args.games, args.seed)
            _print_evaluation(result)
        else:
            if args.opponents:
                raise ValueError("--opponents does not apply to --tournament")
            refs = evaluation.tournament_agents(args.tournament)
            evaluation.tournament_env(refs, args.players, players_flag="--players")
            result = tournament(refs, args.games, args.seed, players=args.players)
            _print_tournament(result)
        if args.json is not None:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(args.json, json.dumps(result, indent=2) + "\n")
    except (ValueError, OSError) as exc:  # a bad agent or option, an unwritable --json
        return report(exc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
