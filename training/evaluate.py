"""Evaluate agents: a checkpoint against bots, or a round-robin tournament with ratings.

Usage::

    python -m training.evaluate --checkpoint CKPT [--opponents NAME ...] [--games N]
                                [--seed S] [--json FILE]
    python -m training.evaluate --tournament A B C ... [--games N] [--seed S] [--json FILE]

Agents are checkpoints (``path/to/agent.pt``) or bots written ``game:bot``
(``<game>:<bot>``, e.g. a game's ``optimal`` bot). In every evaluation the agent's seat
rotates game by game (game ``i``: seat ``i mod players``). The win rate
counts a shared win as ``1/w`` of a win (``w`` tied winners) and carries a
Wilson 95% interval; the mean reward (the agent's summed rewards per game in
the env's reward mode, e.g. its total score) carries a normal 95% interval.
A game's training hooks (:mod:`training.hooks`) can add an exact grade of the
agent (e.g. with a solver: ``exact_expected_score`` and ``ratio_to_optimal``) and
counts of its play (e.g. ``answer_accuracy``). Everything is deterministic for a
given ``--seed``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ratenvs.common.arguments import SEED, ArgumentParser, int_in, output_file, report
from ratenvs.common.bots import Bot
from ratenvs.common.play import play_game as harness_play
from ratenvs.games import GAMES, GameSpec, get_game
from training.atomic import atomic_write_text
from training.checkpoint import Checkpoint, CheckpointError, load_checkpoint
from training.hooks import hooks_for
from training.stats import bootstrap_bradley_terry, mean_interval, wilson_interval

MAX_GAMES = 1_000_000
"""Most games of one evaluation (as ``eval.games`` in a training config)."""


# ------------------------------------------------------------------ playing
@dataclass
class GameResult:
    """One finished game from the evaluated seat's point of view."""

    seat: int
    reward: float
    """The seat's rewards summed over the game."""
    win: float
    """1 for a sole win, 1/w for a win shared by w seats, else 0."""
    extras: dict[str, float] | None = None
    """Counts of the game's tracker (``GameHooks.tracker``), e.g. answers given and how
    many were right."""


def play_game(
    spec: GameSpec,
    env_options: dict[str, Any],
    players: Sequence[Bot],
    seed: int,
    env: Any = None,
    tracker: Any = None,
) -> tuple[list[float], list[bool]]:
    """Play one game with ``players[seat]`` in every seat through the library's one harness
    (:func:`ratenvs.common.play.play_game`, its seeding rule); return each seat's summed
    rewards and the game's winners. ``tracker.after_step(state)`` sees every step."""
    if env is None:
        env = spec.load().raw_env(**env_options)
    if len(players) != env.num_players:
        raise ValueError(f"{len(players)} players for a {env.num_players}-seat game")
    on_step = None if tracker is None else (lambda _g, state, _a, _r: tracker.after_step(state))
    played = harness_play(env.game, players, seed, on_step=on_step)
    return played.returns, played.winners


def play_match(
    spec: GameSpec,
    env_options: dict[str, Any],
    agent: Bot,
    opponents: Sequence[Bot],
    games: int,
    seed: int,
    first_seat: int = 0,
) -> list[GameResult]:
    """``games`` games of ``agent`` against ``opponents`` (one per other seat), seats rotated."""
    env = spec.load().raw_env(**env_options)
    n = env.num_players
    if len(opponents) != n - 1:
        raise ValueError(f"need {n - 1} opponents for a {n}-seat game, got {len(opponents)}")
    results = []
    for g in range(games):
        seat = (first_seat + g) % n
        players = list(opponents)
        players.insert(seat, agent)
        make_tracker = hooks_for(spec.name).tracker
        tracker = None if make_tracker is None else make_tracker(seat)
        totals, winners = play_game(spec, env_options, players, seed * 1_000_003 + g, env, tracker)
        w = sum(winners)
        win = (1.0 / w) if winners[seat] else 0.0
        results.append(GameResult(seat, totals[seat], win, tracker and tracker.counts))
    return results


def summarise(results: Sequence[GameResult]) -> dict[str, Any]:
    """Win rate (Wilson 95%) and mean reward (normal 95%) of a list of games."""
    n = len(results)
    wins = float(sum(r.win for r in results))
    mean, ci = mean_interval([r.reward for r in results])
    low, high = wilson_interval(wins, n)
    out = {
        "games": n,
        "wins": wins,
        "win_rate": wins / n,
        "win_rate_ci": [low, high],
        "mean_reward": mean,
        "mean_reward_ci": list(ci),
    }
    extras = [r.extras for r in results if r.extras]
    if extras:
        totals = {k: sum(e[k] for e in extras) for k in extras[0]}
        out.update({k: int(v) for k, v in totals.items()})
        if totals.get("answers"):
            correct = totals["correct_answers"]
            out["answer_accuracy"] = correct / totals["answers"]
            out["answer_accuracy_ci"] = list(wilson_interval(correct, int(totals["answers"])))
    return out


# ------------------------------------------------------------------- agents
@dataclass
class AgentRef:
    """An agent named on the command line: a checkpoint or a ``game:bot``."""

    label: str
    game: str
    make: Callable[[], Bot]
    env_options: dict[str, Any] | None = None
    """The checkpoint's env options (None for bots)."""
    checkpoint: Any = None


def checkpoint_env(ckpt: Checkpoint) -> Any:
    """The ``raw_env`` of a loaded checkpoint's game and env options, checked against its
    policy: options the game refuses, or an observation or action count that differs from
    the policy's, are a CheckpointError naming the checkpoint (before any game is played)."""
    try:
        env = GAMES[ckpt.game].load().raw_env(**ckpt.env_options)
    except ValueError as exc:
        raise CheckpointError(
            f"checkpoint {ckpt.path}: its card's env_options {ckpt.env_options} do not fit "
            f"{ckpt.game}: {exc}"
        ) from None
    agent = env.possible_agents[0]
    size = env.observation_space(agent)["observation"].shape[0]
    actions = int(env.action_space(agent).n)
    if size != ckpt.spec.observation_size:
        raise CheckpointError(
            f"checkpoint expects observations of size {ckpt.spec.observation_size}, "
            f"{ckpt.game} with {ckpt.env_options} gives {size}"
        )
    if actions != ckpt.spec.num_actions:
        raise CheckpointError(
            f"checkpoint {ckpt.path} has {ckpt.spec.num_actions} actions, {ckpt.game} with "
            f"{ckpt.env_options} has {actions}"
        )
    return env


def resolve_agent(name: str, game: str | None = None) -> AgentRef:
    """Parse ``game:bot``, a bare bot name (when ``game`` is known) or a checkpoint path
    (loaded and checked against its game: :func:`checkpoint_env`)."""
    path = Path(name)
    if path.suffix in (".pt", ".json") or path.exists() or path.with_suffix(".pt").exists():
        ckpt = load_checkpoint(path, game=game)
        checkpoint_env(ckpt)
        return AgentRef(name, ckpt.game, ckpt.bot, ckpt.env_options, ckpt)
    if ":" in name:
        game_name, bot = name.split(":", 1)
        spec = get_game(game_name)
    elif game is not None:
        spec, bot = GAMES[game], name
    else:
        example = next(iter(GAMES.values()))
        raise ValueError(
            f"agent {name!r}: write a bot as game:bot "
            f"(e.g. {example.name}:{example.default_opponent})"
        )
    if game is not None and spec.name != game:
        raise ValueError(f"agent {name!r} plays {spec.name}, not {game}")
    registry = spec.bots()
    if bot not in registry:
        raise ValueError(f"unknown bot {bot!r} for {spec.name}; choose one of {sorted(registry)}")
    return AgentRef(f"{spec.name}:{bot}", spec.name, registry[bot])


def make_opponents(
    game: str, names: Sequence[str] | None, seats: int
) -> tuple[list[Bot], list[str]]:
    """Bots for ``seats`` opponent seats: one name for all, one name per seat, or the default."""
    spec = GAMES[game]
    if not names:
        names = [spec.default_opponent]
    if len(names) == 1:
        names = list(names) * seats
    if len(names) != seats:
        raise ValueError(f"--opponents: need 1 or {seats} names for this game, got {len(names)}")
    refs = [resolve_agent(n, game) for n in names]
    return [r.make() for r in refs], [r.label for r in refs]


def evaluate_agent(
    game: str,
    env_options: dict[str, Any],
    agent: Bot,
    opponent_names: Sequence[str] | None,
    games: int,
    seed: int,
) -> dict[str, Any]:
    """Evaluate ``agent`` over ``games`` seat-rotated games; add the game's exact grade
    (``GameHooks.exact_grade``) if it has one."""
    spec = GAMES[game]
    n = int(spec.load().raw_env(**env_options).num_players)
    opponents, labels = make_opponents(game, opponent_names, n - 1)
    t0 = time.perf_counter()
    out = summarise(play_match(spec, env_options, agent, opponents, games, seed))
    out["opponents"] = labels
    out["seed"] = seed
    out["env_options"] = dict(env_options)
    exact_grade = hooks_for(game).exact_grade
    if exact_grade is not None:
        out.update(exact_grade(agent, env_options))
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out


def evaluate_checkpoint(
    checkpoint: str | Path, opponents: Sequence[str] | None, games: int, seed: int
) -> dict[str, Any]:
    """Load a checkpoint (safely) and evaluate it in its own game and env options."""
    ckpt = load_checkpoint(checkpoint)
    env = checkpoint_env(ckpt)
    if opponents and env.num_players == 1:
        raise ValueError(
            f"--opponents: {ckpt.game} with {ckpt.env_options} is a one-player game (no "
            "opponent seats)"
        )
    out = evaluate_agent(ckpt.game, ckpt.env_options, ckpt.bot(), opponents, games, seed)
    out["checkpoint"] = str(checkpoint)
    out["game"] = ckpt.game
    return out


# --------------------------------------------------------------- tournament
def tournament(names: Sequence[str], games: int, seed: int) -> dict[str, Any]:
    """Every agent against every other in two-seat games (seats alternated); Elo ratings
    from a Bradley-Terry fit with bootstrap 95% intervals."""
    if len(names) < 2:
        raise ValueError("--tournament needs at least two agents")
    refs = [resolve_agent(n) for n in names]
    games_set = {r.game for r in refs}
    if len(games_set) != 1:
        raise ValueError(f"tournament agents play different games: {sorted(games_set)}")
    game = refs[0].game
    spec = GAMES[game]
    options = [r.env_options for r in refs if r.env_options is not None]
    if options and any(o != options[0] for o in options):
        raise ValueError("tournament checkpoints were trained with different env options")
    env_options = dict(options[0]) if options else {**spec.gymnasium_defaults, "num_players": 2}
    if int(env_options.get("num_players", 2)) != 2:
        raise ValueError(
            f"tournaments are two-seat matches; these agents play with "
            f"num_players={env_options.get('num_players')}"
        )
    k = len(refs)
    results: dict[tuple[int, int], list[float]] = {}
    pairs = []
    for i in range(k):
        for j in range(i + 1, k):
            match = play_match(
                spec,
                env_options,
                refs[i].make(),
                [refs[j].make()],
                games,
                seed + 7919 * (i * k + j),
            )
            scores = [r.win for r in match]
            results[(i, j)] = scores
            summary = summarise(match)
            pairs.append(
                {
                    "agent": refs[i].label,
                    "opponent": refs[j].label,
                    "games": games,
                    "score": summary["win_rate"],
                    "score_ci": summary["win_rate_ci"],
                }
            )
    elo, ci = bootstrap_bradley_terry(results, k, np.random.default_rng(seed))
    order = np.argsort(-elo)
    ratings = [
        {"agent": refs[i].label, "elo": float(elo[i]), "elo_ci": [float(ci[i, 0]), float(ci[i, 1])]}
        for i in order
    ]
    return {
        "game": game,
        "env_options": env_options,
        "seed": seed,
        "pairs": pairs,
        "ratings": ratings,
    }


# ---------------------------------------------------------------------- CLI
def _print_evaluation(result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{result.get('game', '')} evaluation ({result['games']} games)")
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_column("95% interval", justify="right")
    table.add_row("opponents", ", ".join(result["opponents"]) or "-", "")
    low, high = result["win_rate_ci"]
    table.add_row("win rate", f"{result['win_rate']:.3f}", f"[{low:.3f}, {high:.3f}]")
    low, high = result["mean_reward_ci"]
    table.add_row("mean reward", f"{result['mean_reward']:.3f}", f"[{low:.3f}, {high:.3f}]")
    if "answer_accuracy" in result:
        low, high = result["answer_accuracy_ci"]
        table.add_row(
            f"correct answers ({result['answers']} of {result['cards']} cards answered)",
            f"{result['answer_accuracy']:.3f}",
            f"[{low:.3f}, {high:.3f}]",
        )
    if "exact_expected_score" in result:
        table.add_row("exact expected turn score", f"{result['exact_expected_score']:.4f}", "exact")
        table.add_row("optimal turn score", f"{result['optimal_expected_score']:.4f}", "exact")
        table.add_row("ratio to optimal", f"{result['ratio_to_optimal']:.4%}", "exact")
    Console().print(table)


def _print_tournament(result: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    pairs = Table(title="pairings (score: wins + half ties, seats alternated)")
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
    what.add_argument("--checkpoint", help="checkpoint to evaluate (.pt with its .json card)")
    what.add_argument("--tournament", nargs="+", metavar="AGENT", help="checkpoints or game:bot")
    parser.add_argument(
        "--opponents", nargs="+", metavar="NAME", help="bot names (default: game's)"
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
            output_file("--json", args.json)
        if args.checkpoint:
            result = evaluate_checkpoint(args.checkpoint, args.opponents, args.games, args.seed)
            _print_evaluation(result)
        else:
            if args.opponents:
                raise ValueError("--opponents does not apply to --tournament")
            result = tournament(args.tournament, args.games, args.seed)
            _print_tournament(result)
        if args.json is not None:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(args.json, json.dumps(result, indent=2) + "\n")
    except (ValueError, OSError) as exc:  # a bad agent or option, an unwritable --json
        return report(exc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
