"""The ``ratenvs`` console script: ``list``, ``play``, ``rules``, ``solve``, ``replay``,
``bench``, ``agents``, ``evaluate``, ``tournament`` and ``exploit``."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import shlex
import sys
from typing import Any

from ratenvs import __version__
from ratenvs.bench import MAX_BATCH_SIZE
from ratenvs.bench import ROUNDS as BENCH_ROUNDS
from ratenvs.bench import SECONDS as BENCH_SECONDS
from ratenvs.common.arguments import (
    INTERRUPTED_STATUS,
    SEED,
    ArgumentParser,
    UsageError,
    given,
    input_file,
    int_in,
    number_in,
    only_with,
    output_file,
    report,
    results_file,
    same_file,
)
from ratenvs.common.progress import progress_bar
from ratenvs.games import GAMES, available_games, get_game
from ratenvs.rulebook import rules_text

BENCH_BATCH_SIZES = [1, 64, 1024, 4096]
"""The default ``bench --batched --batch-sizes``."""
GIF_FPS = (0.01, 50.0)
"""``replay --fps``: a GIF frame lasts 20 ms (what viewers show) to 100 s."""
DEFAULT_FPS = 2.0
OPTIONAL_MODULES = {
    "torch": 'pip install "ratenvs[train]"',
    "numba": 'pip install "ratenvs[batched]"',
    "pygame": 'pip install "ratenvs[render]"',
    "safetensors": 'pip install "ratenvs[agents]"',
}
"""Modules of the extras and how to install each: a command that needs one that is missing
says so in one line."""
EVALUATE_GAMES = 200
"""The default ``evaluate --games`` and ``tournament --games`` (per pairing)."""


def _cmd_list(args: argparse.Namespace) -> int:
    for spec in GAMES.values():
        present = spec.name in available_games()
        print(
            f"{spec.cli_name:16} {spec.pettingzoo_id:28} {spec.gymnasium_id:26}"
            + ("" if present else " (not installed)")
        )
    return 0


def play_help() -> str:
    """``ratenvs play --help``: the games one can play, and where their options are."""
    lines = [
        "usage: ratenvs play GAME [options]",
        "",
        "Play a game in the terminal as player_0 against bots. GAME is one of:",
    ]
    lines += [f"  {s.cli_name:16} {s.title}" for s in GAMES.values()]
    lines += [
        "",
        "Every game takes --players, --bots, --seed and --record PATH (save the game for",
        "`ratenvs replay`), and --vs AGENT: a shipped agent (agent:NAME, see `ratenvs",
        "agents`), a checkpoint or a bot in every other seat, with the env options it was",
        "trained for. `ratenvs play GAME --help` lists the game's own options and their",
        "defaults. --window plays in a pygame window instead (single keys, shown on the",
        'screen; pip install "ratenvs[render]").',
    ]
    return "\n".join(lines)


def _cmd_play(args: argparse.Namespace, rest: list[str]) -> int:
    try:
        spec = get_game(args.game)
    except ValueError:
        for word in rest:  # `play --seed 3 GAME`: the 3 was read as the game
            try:
                named = get_game(word)
            except ValueError:
                continue
            raise UsageError(
                f"the game comes first: ratenvs play {named.cli_name} [options] "
                f"(read {args.game!r} as the game)"
            ) from None
        raise
    where = "window" if args.window else "play"  # --window: the pygame window player
    module = importlib.import_module(f"ratenvs.{spec.name}.{where}")
    return int(module.main(rest) or 0)


def solve_report() -> dict[str, Any]:
    """The exact solution of a Catz, Ratz and Batz turn and the bots' exact expected scores."""
    from ratenvs.catz_ratz_batz import solver
    from ratenvs.catz_ratz_batz.bots import BOTS, DICE_BOTS, exact_expected_score

    solution = solver.solve()
    return {
        "game": "catz_ratz_batz",
        "expected_score": solution.expected_score,
        "value_iteration_check": solver.value_iteration(),
        "states": solution.states,
        "decision_states": solution.decision_states,
        "policy_iterations": solution.iterations,
        "bots": {name: exact_expected_score(BOTS[name]()) for name in DICE_BOTS},
    }


def _cmd_solve(args: argparse.Namespace) -> int:
    spec = get_game(args.game)
    if spec.name != "catz_ratz_batz":
        raise UsageError(f"solve: no exact solver for {spec.title} (only catz-ratz-batz)")
    if args.win is not None:
        return _solve_win(args.win, args.json)
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


def _solve_win(turns: int, as_json: bool) -> int:
    """``solve catz-ratz-batz --win TURNS``: the exact 2-player win figures."""
    from ratenvs.catz_ratz_batz.winsolver import win_report

    report = win_report(turns)
    if as_json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"Catz, Ratz and Batz - exact win-optimal play, 2 players, {turns} turns each")
    print(f"  positions solved       {report['positions']} ({report['solve_seconds']:.1f} s)")
    print("  seat 0 vs seat 1                 P(seat 0 wins)   P(tie)   seat 0's share")
    for name, odds in report["seat_0"].items():
        label = name.replace("_vs_", "-optimal vs ") + "-optimal"
        print(f"  {label:30} {odds['win']:16.6f} {odds['tie']:8.6f} {odds['share']:16.6f}")
    print("  (share = P(win) + P(tie) / 2)")
    return 0


def _bench_games(args: argparse.Namespace) -> list[str] | None:
    """The games ``--games`` names (package names), or None for all; an unknown name, or
    with ``--batched`` a game without a batched engine, is a UsageError."""
    if not args.games:
        return None
    names = []
    for name in args.games:
        try:
            spec = get_game(name)
        except ValueError as err:
            raise UsageError(f"--games: {err}") from None
        if args.batched and not spec.has_batched:
            raise UsageError(f"--games: {spec.cli_name} has no batched engine (--batched)")
        names.append(spec.name)
    return names


def _cmd_bench(args: argparse.Namespace) -> int:
    from ratenvs import bench

    if not args.batched:
        only_with(args, "--batched", ("batch_sizes",))
    games = _bench_games(args)
    if args.batched and importlib.util.find_spec("numba") is None:
        raise UsageError(
            'bench --batched: the batched engines need numba (pip install "ratenvs[batched]")'
        )
    missing = bench.reference_missing()
    if missing is not None:
        print(missing, file=sys.stderr)
    if args.batched:
        sizes = tuple(args.batch_sizes or BENCH_BATCH_SIZES)
        records = bench.run_batched(
            games=games, batch_sizes=sizes, seconds=args.seconds, rounds=args.rounds
        )
        table = bench.format_batched_table
    else:
        records = bench.run(games=games, seconds=args.seconds, rounds=args.rounds)
        table = bench.format_table
    if args.json:
        print(json.dumps(records, indent=2))
    else:
        print(table(records))
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    from ratenvs.common.record import iter_replay_frames, load_record, replay
    from ratenvs.common.render import save_gif

    if args.gif is None:
        only_with(args, "--gif", ("view", "fps"))
    else:
        results_file("--gif", args.gif)
        if same_file(args.gif, args.record):
            raise UsageError(f"--gif {args.gif}: is the record itself; give another file")
    record = load_record(input_file("record", args.record))
    if args.gif is not None and args.view not in (None, "omniscient"):  # before the replay
        from ratenvs.evaluation import game_options

        players = int(game_options(record["game"]).check(dict(record["options"]))["num_players"])
        agents = [f"player_{i}" for i in range(players)]
        if args.view not in agents:
            raise UsageError(
                f"--view {args.view!r}: not a view of this {players}-player game; "
                f"choose omniscient or one of {', '.join(agents)}"
            )
    env = replay(record)
    checked = (
        "final state matches"
        if record.get("final_state") is not None
        else "the record holds no final state to check"
    )
    print(f"{record['game']}: {len(record['actions'])} actions replayed, {checked}")
    if args.gif is None:
        print(env.render_text())
        return 0
    view = "omniscient" if args.view is None else args.view  # checked before the replay
    frames = iter_replay_frames(record, render_view=view)  # streamed, one at a time
    count = save_gif(frames, args.gif, fps=DEFAULT_FPS if args.fps is None else args.fps)
    print(f"wrote {args.gif} ({count} frames, view {view})")
    return 0


def _cmd_agents(args: argparse.Namespace) -> int:
    from ratenvs import agents

    shipped = agents.available()
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "name": a.name,
                        "game": a.game,
                        "env_options": a.env_options,
                        "evaluation": a.evaluation,
                        "exploitability": a.exploitability,
                    }
                    for a in shipped
                ],
                indent=2,
            )
        )
        return 0
    if not shipped:
        print("no shipped agents in this installation")
    for agent in shipped:
        print(agent.summary())
    return 0


def _write_json(path: str | None, result: dict[str, Any]) -> None:
    if path is None:
        return
    from ratenvs.common.atomic import atomic_file

    with atomic_file(path) as fh:
        fh.write((json.dumps(result, indent=2) + "\n").encode("utf-8"))


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from ratenvs import evaluation

    if args.json is not None:  # before the games, not after them
        results_file("--json", args.json)
    ref = evaluation.resolve_agent(args.agent)
    overrides = evaluation.parse_env_overrides(ref.game, args.env or [])
    evaluation.apply_env_overrides(ref, overrides, flag="--env")  # named as on the command line
    with progress_bar(args.games, "games", "game") as advance:
        result = evaluation.evaluate(
            ref,
            args.opponents,
            args.games,
            args.seed,
            env_overrides=overrides,
            on_game=advance,
            duplicate=args.duplicate,
        )
    print(evaluation.format_evaluation(result))
    _write_json(args.json, result)
    return 0


def _cmd_tournament(args: argparse.Namespace) -> int:
    from ratenvs import evaluation

    for flag, path in (("--json", args.json), ("--markdown", args.markdown)):
        if path is not None:  # before the games, not after them
            results_file(flag, path)
    if args.json is not None and args.markdown is not None and same_file(args.json, args.markdown):
        raise UsageError(f"--json and --markdown name one file, {args.json}: give two")
    refs = evaluation.tournament_agents(args.agents)
    overrides = evaluation.parse_env_overrides(refs[0].game, args.env or [])
    evaluation.tournament_env(  # named as on the command line, before any game
        refs, args.players, overrides, players_flag="--players", env_flag="--env"
    )
    pairings = len(refs) * (len(refs) - 1) // 2
    with progress_bar(pairings * args.games, "games", "game") as advance:
        result = evaluation.tournament(
            refs,
            args.games,
            args.seed,
            players=args.players,
            env_overrides=overrides,
            on_games=advance,
        )
    print(evaluation.format_tournament(result))
    _write_json(args.json, result)
    if args.markdown is not None:
        from ratenvs.common.atomic import atomic_file

        command = (
            evaluation.tournament_command(result) + " --markdown " + shlex.quote(args.markdown)
        )
        text = evaluation.format_tournament_markdown(result, command)
        with atomic_file(args.markdown) as fh:
            fh.write(text.encode("utf-8"))
    return 0


EXPLOIT_TRAINING = {"frames": 1_000_000, "restarts": 1, "selection_games": 200}
"""``exploit``'s training flags and their defaults (none of them with ``--exact``)."""
EXACT_TURNS = 10
"""``exploit --exact``'s turns per seat of a bot's game (a checkpoint plays its card's)."""


def _exploit_flags(args: argparse.Namespace) -> None:
    """Refuse the flags the mode of ``exploit`` would ignore, then fill in the defaults."""
    from ratenvs import agents

    if args.exact:
        extra = given(args, *EXPLOIT_TRAINING, "games", "seed", "reward", "env")
        if extra:
            raise UsageError(f"{', '.join(extra)}: --exact trains and plays no games")
        checkpoint = args.target.startswith(agents.AGENT_PREFIX) or agents.is_checkpoint_path(
            args.target
        )
        if checkpoint and args.turns is not None:
            raise UsageError("--turns: a checkpoint's exact best response plays its card's game")
        args.turns = EXACT_TURNS if args.turns is None else args.turns
        return
    only_with(args, "--exact", ("turns",))
    for name, default in EXPLOIT_TRAINING.items():
        if getattr(args, name) is None:
            setattr(args, name, default)
    if args.games is None:
        from ratenvs.exploit import DEFAULT_GAMES

        args.games = DEFAULT_GAMES
    args.seed = 0 if args.seed is None else args.seed


def _cmd_exploit(args: argparse.Namespace) -> int:
    """``exploit TARGET``: the exact (``--exact``, 2-player Catz) or approximate best response."""
    _exploit_flags(args)
    if args.json is not None and args.save_responder is not None:
        from ratenvs.agents.checkpoint import card_path

        if same_file(args.json, card_path(args.save_responder)):
            raise UsageError(
                f"--json {args.json}: is the card of --save-responder {args.save_responder}"
            )
    if args.json is not None:  # before the work, not after it
        results_file("--json", args.json)
    if args.save_responder is not None:
        if args.exact:
            raise UsageError("--save-responder: --exact trains no responder")
        output_file("--save-responder", args.save_responder)
        from ratenvs.agents.checkpoint import refuse_existing

        refuse_existing(args.save_responder, "--save-responder")  # main says it in one line
    if args.init is not None and args.exact:
        raise UsageError("--init: --exact trains no responder")
    if args.replace_card and args.no_card:
        raise UsageError("--replace-card: not with --no-card (nothing is recorded)")
    if not args.no_card:  # a card that cannot take the figure is found before the work
        from ratenvs.exploit import card_to_record

        card_to_record(
            args.target, frames=None if args.exact else args.frames, replace=args.replace_card
        )
    if args.exact:
        from ratenvs.catz_ratz_batz.bestresponse import exact_report

        result = exact_report(args.target, args.turns)
        print(
            f"{result['target']}: exact exploitability {result['exploitability']:.6f} in the "
            f"2-player game of {result['turns']} turns per seat (best response's share "
            f"{result['best_response_share_seat_0']:.6f} in seat 0, "
            f"{result['best_response_share_seat_1']:.6f} in seat 1; share = P(win) + P(tie) / 2)"
        )
        from ratenvs import agents

        if not args.no_card and (
            args.target.startswith(agents.AGENT_PREFIX) or agents.is_checkpoint_path(args.target)
        ):
            from ratenvs.exploit import record_on_card

            command = f"ratenvs exploit {shlex.quote(args.target)} --exact"
            path = record_on_card(args.target, result, command, replace=args.replace_card)
            print(f"recorded on {path}")
        _write_json(args.json, result)
        return 0
    from ratenvs import exploit

    command = (
        f"ratenvs exploit {shlex.quote(args.target)} --frames {args.frames} --restarts "
        f"{args.restarts} --games {args.games} --selection-games {args.selection_games} "
        f"--seed {args.seed}"
        + (f" --reward {args.reward}" if args.reward else "")
        + (f" --init {shlex.quote(args.init)}" if args.init else "")
        + "".join(f" --env {shlex.quote(e)}" for e in args.env or [])
    )
    overrides = None
    if args.env:
        from ratenvs import evaluation

        game = evaluation.resolve_agent(args.target).game
        overrides = evaluation.parse_env_overrides(game, args.env)
    config = exploit.ResponderConfig(reward=args.reward, init=args.init)
    try:
        result = exploit.exploit(
            args.target,
            args.frames,
            config=config,
            restarts=args.restarts,
            games=args.games,
            selection_games=args.selection_games,
            seed=args.seed,
            env_overrides=overrides,
            progress=lambda line: print(line, flush=True),
            progress_bar=True,
            save=args.save_responder,
            command=command
            + (
                f" --save-responder {shlex.quote(args.save_responder)}"
                if args.save_responder
                else ""
            ),
        )
    except ModuleNotFoundError as err:  # the train extra
        return report(err)
    low, high = result["win_rate_ci"]
    print(
        f"{result['target']}: a best response of {result['frames']:,} frames (best of "
        f"{result['restarts']}) wins {result['responder_win_rate']:.3f} [{low:.3f}, {high:.3f}] "
        f"of {result['games']} fresh games, seats rotated (fair share "
        f"{result['fair_share']:.3f}; mean return {result['mean_return']:.3f})"
    )
    if "responder_checkpoint" in result:
        print(f"the responder: {result['responder_checkpoint']}")
    _write_json(args.json, result)
    if not args.no_card and result["target"].split(":", 1)[0] not in GAMES:
        path = exploit.record_on_card(args.target, result, command, replace=args.replace_card)
        print(f"recorded on {path}")
    return 0


def _add_match_arguments(
    parser: argparse.ArgumentParser,
    games: str,
    max_games: int | None = None,
    max_seed: int | None = None,
    default_games: int = EVALUATE_GAMES,
) -> None:
    """``--games`` (1..``max_games``, by default the evaluator's limit), ``--seed`` (0..
    ``max_seed``, by default any seed the doors take) and ``--json``."""
    from ratenvs.evaluation import MAX_GAMES

    most = MAX_GAMES if max_games is None else max_games
    parser.add_argument(
        "--games",
        type=int_in(1, most),
        default=default_games,
        help=f"{games} (1..{most:,}; default: {default_games:,})",
    )
    parser.add_argument(
        "--seed",
        type=SEED if max_seed is None else int_in(0, max_seed),
        default=0,
        help="seed of the whole evaluation (default: 0)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON here")


AGENT_NAMES = (
    "a shipped agent agent:NAME (ratenvs agents), a checkpoint path (its card x.json, or x) "
    "or a bot game:bot"
)


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(prog="ratenvs", description="RL environments for three rat games.")
    parser.add_argument("--version", action="version", version=f"ratenvs {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="list the games and their ids")
    play = sub.add_parser("play", help="play a game in the terminal against bots", add_help=False)
    play.add_argument("game", help=", ".join(s.cli_name for s in GAMES.values()))
    play.add_argument("--window", action="store_true", help="play in a pygame window")
    rules = sub.add_parser("rules", help="print the rules and our rulings (one game, or all)")
    rules.add_argument(
        "game", nargs="?", help=", ".join(s.cli_name for s in GAMES.values()) + " (default: all)"
    )
    solve = sub.add_parser("solve", help="exact solution (catz-ratz-batz)")
    solve.add_argument("game")
    solve.add_argument("--json", action="store_true", help="print a JSON object")
    solve.add_argument(
        "--win",
        type=int_in(1, 50),
        metavar="TURNS",
        help="the exact win-optimal play of the 2-player game with TURNS turns each (1 to 50; "
        "10 takes about 15 s once numba has compiled it; needs numba)",
    )
    rep = sub.add_parser("replay", help="replay a saved game record, optionally as a GIF")
    rep.add_argument("record", help="game record JSON")
    rep.add_argument("--gif", help="write the replay as an animated GIF here")
    rep.add_argument("--view", help="with --gif: omniscient (the default) or an agent name")
    rep.add_argument(
        "--fps",
        type=number_in(*GIF_FPS),
        help=f"with --gif: frames per second ({GIF_FPS[0]:g} to {GIF_FPS[1]:g}; "
        f"default {DEFAULT_FPS:g})",
    )
    bench = sub.add_parser("bench", help="decisions/s of each env vs connect_four_v3")
    bench.add_argument("--json", action="store_true", help="print a JSON list")
    bench.add_argument("--games", nargs="*", help="only these games")
    bench.add_argument(
        "--seconds",
        type=number_in(*BENCH_SECONDS, above=True),
        default=2.0,
        help=f"seconds per env per round (above 0, at most {BENCH_SECONDS[1]:g})",
    )
    bench.add_argument(
        "--rounds",
        type=int_in(*BENCH_ROUNDS),
        default=3,
        help=f"alternating rounds, median ({BENCH_ROUNDS[0]}..{BENCH_ROUNDS[1]})",
    )
    bench.add_argument(
        "--batched",
        action="store_true",
        help="the batched engines at several batch sizes vs their raw_env and connect_four_v3",
    )
    bench.add_argument(
        "--batch-sizes",
        type=int_in(1, MAX_BATCH_SIZE),
        nargs="+",
        help=f"batch sizes of --batched (1..{MAX_BATCH_SIZE}; default "
        f"{' '.join(map(str, BENCH_BATCH_SIZES))})",
    )
    agents = sub.add_parser("agents", help="list the shipped agents and their evaluations")
    agents.add_argument("--json", action="store_true", help="print a JSON list")
    ev = sub.add_parser(
        "evaluate",
        help="evaluate an agent against bots or agents, seats rotated (Wilson 95%% intervals)",
        description="Evaluate an agent in its own game and env options (a bot: its game's "
        "gymnasium defaults) over seat-rotated games: win rate (Wilson 95%), mean reward "
        "(normal 95%) and the game's exact grade or counts (Ratto Zakko: correct answers, "
        "and by the card's correct response the cards, the answers given before the card "
        "resolved and how many were right). Agents: " + AGENT_NAMES + ".",
    )
    ev.add_argument("agent", help=AGENT_NAMES)
    ev.add_argument(
        "--env",
        action="append",
        metavar="KEY=VALUE",
        help="override an env option of the agent's own env for this evaluation, e.g. "
        "--env window_ticks=60 (repeatable; values by the option's type: an integer or none, "
        "true/false, a choice; not the observation or action size of a checkpoint; `ratenvs "
        "play GAME --help` lists the options)",
    )
    ev.add_argument(
        "--opponents",
        nargs="+",
        metavar="NAME",
        help="one for every other seat, or one per seat (the table rotates game by game: "
        "the k-th name plays k + 1 turns after the agent, each in every seat alike): bot "
        "names (bare or game:bot), "
        "agent:NAME or checkpoints (default: the game's default bot)",
    )
    ev.add_argument(
        "--duplicate",
        action="store_true",
        help="duplicate deals: every deal is played once from each seat (--games a multiple "
        "of the seats), so what the seats were dealt cancels out; the intervals are normal "
        "95%% over the deals' means, narrower than over as many games of their own deals",
    )
    _add_match_arguments(ev, "games")
    tour = sub.add_parser(
        "tournament",
        help="round robin with Bradley-Terry ratings (Elo, 95%% intervals), two or more seats",
        description="Every agent against every other in games of --players seats (default "
        "2), the two sharing the seats: one in the even seats, the other in the odd ones, "
        "alternated game by game. A pairing's score is the agent's share of the wins (a win "
        "shared by w seats counts 1/w to each), with its Wilson 95% interval; Bradley-Terry "
        "ratings on the Elo scale with bootstrap 95% intervals (0.5 pseudo-wins each way "
        "between every pair keep them finite when one side won every game; 200 bootstrap "
        "fits, the games resampled within every pairing; --json's rating_method says it "
        "whole). Agents: " + AGENT_NAMES + ".",
    )
    tour.add_argument("agents", nargs="+", metavar="AGENT", help="two or more: " + AGENT_NAMES)
    tour.add_argument(
        "--players",
        type=int_in(2),
        metavar="N",
        help="seats per game, shared by the pairing's two agents (even and odd seats, "
        "alternated game by game; the game allows its own range; default: the "
        "checkpoints' num_players, else 2)",
    )
    tour.add_argument(
        "--env",
        action="append",
        metavar="KEY=VALUE",
        help="override an env option for the whole tournament, e.g. --env window_ticks=20 "
        "(repeatable, as evaluate --env; not num_players, which is --players)",
    )
    tour.add_argument(
        "--markdown",
        metavar="FILE",
        help="also write the ratings and pairings as a markdown section here, captioned "
        "with the command line that regenerates it",
    )
    _add_match_arguments(tour, "games per pairing")
    from ratenvs.exploit import DEFAULT_GAMES, FRAMES, GAME_COUNTS, RESTARTS, SEEDS

    exp = sub.add_parser(
        "exploit",
        help="how much a best response wins from an agent or bot (exploitability)",
        description="Train a best response (MaskablePPO on the batched door, the train "
        "extra) against a frozen target for --frames decisions, --restarts times, keep the "
        "best on --selection-games games and evaluate it on --games fresh ones, seats "
        "rotated: its win rate (Wilson 95%) is a lower bound of the target's "
        "exploitability; a checkpoint's or shipped agent's card gets an 'exploitability' "
        "block. --exact: the exact best response of the 2-player Catz game (a bot, or a "
        "2-player Catz checkpoint of a fixed number of turns). Targets: " + AGENT_NAMES + ".",
    )
    exp.add_argument("target", help=AGENT_NAMES)
    exp.add_argument(
        "--frames",
        type=int_in(*FRAMES),
        default=None,
        help=f"the responder's decisions per restart (default {EXPLOIT_TRAINING['frames']:,})",
    )
    exp.add_argument(
        "--restarts",
        type=int_in(*RESTARTS),
        default=None,
        help=f"responders trained (best kept; default {EXPLOIT_TRAINING['restarts']})",
    )
    exp.add_argument(
        "--selection-games",
        type=int_in(1, 100_000),
        default=None,
        help=f"games choosing the best (default {EXPLOIT_TRAINING['selection_games']})",
    )
    exp.add_argument(
        "--env",
        action="append",
        metavar="KEY=VALUE",
        help="a bot's env option, e.g. --env num_players=2 (repeatable; a checkpoint plays "
        "its card's)",
    )
    exp.add_argument(
        "--reward",
        default=None,
        metavar="MODE",
        help="the reward mode the responder learns from (one of the game's reward choices; "
        "default zero_sum_win where the game has it, the points of every round and the win, "
        "else win)",
    )
    exp.add_argument(
        "--init",
        metavar="CHECKPOINT",
        help="start the responder from this checkpoint's policy (agent:NAME or a path; its "
        "observation must be the target's), e.g. the target itself: an exploiter that begins "
        "as the target",
    )
    exp.add_argument("--no-card", action="store_true", help="do not write the target's card")
    exp.add_argument(
        "--replace-card",
        action="store_true",
        help="record on the target's card even over a stronger figure (its exact "
        "exploitability, or a best response of a larger budget), which is refused otherwise",
    )
    exp.add_argument(
        "--save-responder",
        metavar="PATH",
        help="write the kept responder there as a checkpoint (x.json and its weights), to "
        "play against or study",
    )
    exp.add_argument(
        "--exact", action="store_true", help="the exact figure (2-player Catz, no training)"
    )
    exp.add_argument(
        "--turns",
        type=int_in(1, 100),
        default=None,
        help=f"--exact with a bot: turns per seat (default {EXACT_TURNS})",
    )
    _add_match_arguments(
        exp, "fresh games of the final evaluation", GAME_COUNTS[1], SEEDS[1], DEFAULT_GAMES
    )
    exp.set_defaults(games=None, seed=None)  # given or not: --exact refuses them
    return parser


def _dispatch(args: argparse.Namespace, rest: list[str], parser: argparse.ArgumentParser) -> int:
    """Run the command ``args`` names; its exit status."""
    if args.command == "play":
        return _cmd_play(args, rest)
    if rest:
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    if args.command == "rules":
        print(rules_text(args.game), end="")
        return 0
    commands = {
        "list": _cmd_list,
        "solve": _cmd_solve,
        "replay": _cmd_replay,
        "agents": _cmd_agents,
        "evaluate": _cmd_evaluate,
        "tournament": _cmd_tournament,
        "exploit": _cmd_exploit,
        "bench": _cmd_bench,
    }
    return commands[args.command](args)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``ratenvs`` console script."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["play"] and argv[1:2] in (["-h"], ["--help"]):
        print(play_help())  # `ratenvs play GAME --help` is the game's own help
        return 0
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    try:
        status = _dispatch(args, rest, parser)
        sys.stdout.flush()  # a reader that stopped reading is found here, not at the exit
        return status
    except BrokenPipeError:  # the output's reader stopped reading (ratenvs agents | head -1)
        # what is still buffered goes nowhere: Python's own flush at the exit would fail too
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (ValueError, OSError) as err:  # UsageError, a bad record or agent, an unwritable file
        return report(err)
    except ModuleNotFoundError as err:  # an extra that is not installed (torch for agents)
        name = (err.name or "").split(".")[0]
        if name in OPTIONAL_MODULES:
            hint = OPTIONAL_MODULES[name]
            return report(
                err if "pip install" in str(err) else ModuleNotFoundError(f"{err}: {hint}")
            )
        raise
    except KeyboardInterrupt:  # Ctrl-C: what was being written is not (files go in whole)
        print("\ninterrupted", file=sys.stderr)
        return INTERRUPTED_STATUS


if __name__ == "__main__":
    sys.exit(main())
