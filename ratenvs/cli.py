"""The ``ratenvs`` console script: ``list``, ``play``, ``solve``, ``replay``, ``bench``."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from typing import Any

from ratenvs.games import GAMES, available_games, get_game


def _cmd_list(args: argparse.Namespace) -> int:
    for spec in GAMES.values():
        present = spec.name in available_games()
        print(
            f"{spec.cli_name:16} {spec.pettingzoo_id:28} {spec.gymnasium_id:26}"
            + ("" if present else " (not installed)")
        )
    return 0


def _cmd_play(args: argparse.Namespace, rest: list[str]) -> int:
    spec = get_game(args.game)
    module = importlib.import_module(f"ratenvs.{spec.name}.play")
    return int(module.main(rest) or 0)


def solve_report() -> dict[str, Any]:
    """The exact solution of a Catz, Ratz and Batz turn and the bots' exact expected scores."""
    from ratenvs.catz_ratz_batz import solver
    from ratenvs.catz_ratz_batz.bots import BOTS, exact_expected_score

    solution = solver.solve()
    return {
        "game": "catz_ratz_batz",
        "expected_score": solution.expected_score,
        "value_iteration_check": solver.value_iteration(),
        "states": solution.states,
        "decision_states": solution.decision_states,
        "policy_iterations": solution.iterations,
        "bots": {name: exact_expected_score(cls()) for name, cls in BOTS.items()},
    }


def _cmd_solve(args: argparse.Namespace) -> int:
    spec = get_game(args.game)
    if spec.name != "catz_ratz_batz":
        print(f"ratenvs solve: no exact solver for {spec.title}", file=sys.stderr)
        return 2
    report = solve_report()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print("Catz, Ratz and Batz - exact solution of one turn")
    print(f"  dice states            {report['states']}")
    print(f"  decision states        {report['decision_states']}")
    print(f"  optimal expected score {report['expected_score']:.4f} per turn")
    print(f"  (value iteration       {report['value_iteration_check']:.4f})")
    print("  bot                exact expected score   % of optimal")
    for name, value in sorted(report["bots"].items(), key=lambda kv: -kv[1]):
        print(f"  {name:18} {value:20.4f}   {100 * value / report['expected_score']:11.2f}%")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from ratenvs import bench

    if not args.seconds > 0:
        raise SystemExit(f"ratenvs bench: --seconds must be > 0, got {args.seconds}")
    if args.rounds < 1:
        raise SystemExit(f"ratenvs bench: --rounds must be >= 1, got {args.rounds}")
    if args.batched:
        sizes = tuple(args.batch_sizes)
        if any(b < 1 for b in sizes):
            raise SystemExit("ratenvs bench: --batch-sizes must be >= 1")
        records = bench.run_batched(
            games=args.games or None, batch_sizes=sizes, seconds=args.seconds, rounds=args.rounds
        )
        table = bench.format_batched_table
    else:
        records = bench.run(games=args.games or None, seconds=args.seconds, rounds=args.rounds)
        table = bench.format_table
    if args.json:
        print(json.dumps(records, indent=2))
    else:
        print(table(records))
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    from ratenvs.common.record import iter_replay_frames, load_record, replay
    from ratenvs.common.render import save_gif

    record = load_record(args.record)
    env = replay(record)
    print(f"{record['game']}: {len(record['actions'])} actions replayed, final state matches")
    if args.gif:
        frames = iter_replay_frames(record, render_view=args.view)  # streamed, one at a time
        count = save_gif(frames, args.gif, fps=args.fps)
        print(f"wrote {args.gif} ({count} frames, view {args.view})")
    else:
        print(env.render_text())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ratenvs", description="RL environments for three rat games."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the games and their ids")
    play = sub.add_parser("play", help="play a game in the terminal against bots", add_help=False)
    play.add_argument("game", help=", ".join(s.cli_name for s in GAMES.values()))
    solve = sub.add_parser("solve", help="exact solution (catz-ratz-batz)")
    solve.add_argument("game")
    solve.add_argument("--json", action="store_true", help="print a JSON object")
    rep = sub.add_parser("replay", help="replay a saved game record, optionally as a GIF")
    rep.add_argument("record", help="game record JSON")
    rep.add_argument("--gif", help="write the replay as an animated GIF here")
    rep.add_argument("--view", default="omniscient", help="omniscient or an agent name")
    rep.add_argument("--fps", type=float, default=2.0)
    bench = sub.add_parser("bench", help="decisions/s of each env vs connect_four_v3")
    bench.add_argument("--json", action="store_true", help="print a JSON list")
    bench.add_argument("--games", nargs="*", help="only these games")
    bench.add_argument("--seconds", type=float, default=2.0, help="seconds per env per round")
    bench.add_argument("--rounds", type=int, default=3, help="alternating rounds (median)")
    bench.add_argument(
        "--batched",
        action="store_true",
        help="the batched engines at several batch sizes vs their raw_env and connect_four_v3",
    )
    bench.add_argument(
        "--batch-sizes",
        type=int,
        nargs="+",
        default=[1, 64, 1024, 4096],
        help="batch sizes of --batched",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``ratenvs`` console script."""
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    try:
        if args.command == "play":
            return _cmd_play(args, rest)
        if rest:
            parser.error(f"unrecognized arguments: {' '.join(rest)}")
        if args.command == "list":
            return _cmd_list(args)
        if args.command == "solve":
            return _cmd_solve(args)
        if args.command == "replay":
            return _cmd_replay(args)
        return _cmd_bench(args)
    except (ValueError, OSError) as err:
        print(f"ratenvs: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
