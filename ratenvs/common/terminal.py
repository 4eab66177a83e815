"""What the terminal play CLIs (``ratenvs play <game>``) share: a person plays player_0
against bots.

A game's ``play.py`` keeps only what is its own (its extra options, how a person's
move is asked and parsed, what is said about the bots' moves). The arguments every
game takes (``--players``, ``--bots``, ``--vs``, ``--seed``), the set-up (the env, the bots of
the other seats bound to the env's observer, or with ``--vs agent:NAME`` a shipped agent
or a checkpoint in every other seat and the env options it was trained for, the seed
and its streams: play_game's
seeding rule, so a seed is the same game in the terminal as in
:func:`~ratenvs.common.play.play_game`) and the end (a finished or abandoned game, saved
as a record for ``ratenvs replay`` with ``--record``) are here.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ratenvs.common.arguments import (
    INTERRUPTED_STATUS,
    MAX_SEED,
    SEED,
    ArgumentParser,
    UsageError,
    int_in,
    results_file,
)
from ratenvs.common.bots import Bot, opponent_bots, searches_state, with_own_view
from ratenvs.common.game import Game
from ratenvs.common.play import seed_streams

InputFn = Callable[[str], str]
SayFn = Callable[[str], None]


RULES_KEY = "?"
"""Typed at any prompt of a terminal game: print the game's rules, then ask again."""


MAX_ANSWER_CHARS = 200
"""Longest answer line a prompt reads (a longer one, e.g. a pasted number of thousands of
digits, is asked again: no move is that long)."""


def ask_or_rules(prompt: str, ask: InputFn, say: SayFn, rules: Sequence[str]) -> str:
    """The person's answer to ``prompt``; ``?`` prints the ``rules`` lines and asks again, as
    does a line that cannot be read (not in the terminal's encoding) or is longer than
    :data:`MAX_ANSWER_CHARS` (EOFError propagates)."""
    while True:
        try:
            answer = ask(prompt)
        except UnicodeDecodeError:
            say("  that line could not be read (not in the terminal's encoding); type it again")
            continue
        if len(answer) > MAX_ANSWER_CHARS:
            say(f"  that line is {len(answer):,} characters long; type a move")
            continue
        if answer.strip() != RULES_KEY:
            return answer
        say("")
        for line in rules:
            say(line)
        say("")


def play_parser(
    game_class: type[Game], cli_name: str, description: str, bots: Mapping[str, Any]
) -> argparse.ArgumentParser:
    """The parser of ``ratenvs play <cli_name>`` with ``--players``, ``--bots`` and
    ``--seed``; a game adds its own options to it."""
    parser = ArgumentParser(
        prog=f"ratenvs play {cli_name}",
        description=description,
        epilog=f"ratenvs play {cli_name} --window [options]: the same game in a pygame window "
        '(pip install "ratenvs[render]").',
    )
    players = game_class.options["num_players"]
    parser.add_argument(
        "--players",
        type=int_in(players.low or 1, players.high),
        default=players.default,
        help=f"{players.help} including you ({players.allowed}; default: {players.default})",
    )
    parser.add_argument(
        "--bots", nargs="*", default=None, help=f"bot per other seat: {sorted(bots)}"
    )
    parser.add_argument(
        "--vs",
        metavar="AGENT",
        default=None,
        help="play against AGENT in every other seat instead of --bots: a shipped agent "
        "agent:NAME (ratenvs agents), a checkpoint path (its card x.json) or a bot name; an "
        "agent brings the env options it was trained with (needs the agents extra: "
        'pip install "ratenvs[agents]")',
    )
    parser.add_argument(
        "--seed", type=SEED, default=None, help=f"0..{MAX_SEED} (default: a fresh one)"
    )
    parser.add_argument(
        "--record",
        metavar="PATH",
        default=None,
        help="save the game (finished or abandoned) as a JSON record for `ratenvs replay`",
    )
    return parser


@dataclass
class Table:
    """A game in the terminal: the reset env, the bots of seats 1, 2, ... and their streams."""

    env: Any
    bot_names: list[str]
    bots: list[Bot]
    bot_rngs: list[np.random.Generator]
    """One generator per seat (``seed_streams``); seat ``s``'s bot draws from ``bot_rngs[s]``."""
    seed: int = 0
    """The env's seed (``--seed``, or the fresh one drawn)."""
    actions: list[int] | None = None
    """Every move played so far (everyone's), when the game is recorded (``--record``)."""
    record_path: str | None = None
    """Where the record goes at the end (``--record``), or None."""

    def bot_action(self, agent: str) -> int:
        """The action the bot of ``agent`` (not player_0) chooses from its observation now."""
        seat = self.env.agent_name_mapping[agent]
        seen = self.env.observe(agent)
        mask = seen["action_mask"]
        bot = self.bots[seat - 1]
        if searches_state(bot):
            return int(bot.act_in_state(self.env.truth, seat, mask, self.bot_rngs[seat]))
        return int(bot.act(seen["observation"], mask, self.bot_rngs[seat]))


def _as_flags(message: str, parser: argparse.ArgumentParser) -> str:
    """An env option's error (``option 'target_score' must be ...``) as the person typed
    it: ``argument --target-score: must be ...`` when the parser has that flag."""
    match = re.match(r"option '(\w+)' (.*)", message, flags=re.DOTALL)
    if match is None:
        return message
    name, rest = match.groups()
    flag = "--" + name.replace("_", "-")
    if name == "num_players":
        flag = "--players"
    if flag not in parser._option_string_actions:
        return message
    return f"argument {flag}: {rest}"


def set_table(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    make_env: Callable[[], Any],
    default_bot: str,
    get_bot: Callable[[str], Bot],
) -> Table:
    """The env from ``make_env()`` and the other seats' bots (``args.bots``, else
    ``default_bot``), reset with ``args.seed`` (a fresh one when None); bad options end
    the program through ``parser.error``."""
    record_path = getattr(args, "record", None)
    vs = getattr(args, "vs", None)
    try:
        if vs is None:
            env = make_env()
            names, bots = opponent_bots(args.bots, args.players - 1, default_bot, get_bot)
        else:
            env, names, bots = _against(parser, args, make_env, vs)
        if record_path is not None:
            results_file("--record", record_path)  # before the game; never a checkpoint's card
    except (ValueError, UsageError) as err:
        parser.error(_as_flags(str(err), parser))
    bots = [with_own_view(bot, env.game) for bot in bots]  # e.g. the ceiling bot's view
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
    _, bot_rngs = seed_streams(seed, env.num_players)  # play_game's seeding rule
    for i, bot in enumerate(bots):
        bind = getattr(bot, "bind", None)
        if bind is not None:
            bind(env.observer)
        if searches_state(bot):  # a search bot (seat i + 1) reads the game through resample
            bot.bind_game(env.game, i + 1)
    env.reset(seed=seed)
    table = Table(env, names, bots, bot_rngs, seed=seed, record_path=record_path)
    if record_path is not None:
        table.actions = _log_moves(env)
    return table


def _against(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    make_env: Callable[[], Any],
    vs: str,
) -> tuple[Any, list[str], list[Bot]]:
    """``--vs AGENT``: the env with the agent's env options (a checkpoint's card, every
    option it leaves out at the game's default; an option typed on the command line must
    agree with them, even one typed at its default) and the agent in every other seat."""
    from ratenvs.agents.checkpoint import check_env_fits
    from ratenvs.evaluation import resolve_agent

    if args.bots:
        raise UsageError("--vs and --bots: give one of them")
    env = make_env()
    ref = resolve_agent(vs, game=env.game.name)
    if ref.env_options is not None:
        wanted = type(env.game).options.check(ref.env_options)
        if wanted["num_players"] < 2:
            raise UsageError(
                f"--vs {vs}: the agent plays a one-player game (env options "
                f"{ref.env_options}); there is no seat for it against you"
            )
        typed = getattr(parser, "typed", frozenset())
        for key, value in wanted.items():
            dest = "players" if key == "num_players" else key
            if not hasattr(args, dest):
                continue
            given = getattr(args, dest)
            if dest in typed and given != value:
                flag = "--" + dest.replace("_", "-")
                raise UsageError(f"{flag} {given}: the agent {vs} plays with {key}={value}")
            setattr(args, dest, value)
        env = make_env()
        if any(env.options.get(k) != v for k, v in wanted.items()):  # options with no flag
            options = {**env.options, **wanted}
            env = type(env)(render_mode=env.render_mode, render_view=env.render_view, **options)
        check_env_fits(ref.checkpoint, env)
    seats = env.num_players - 1
    return env, [ref.label] * seats, [ref.make() for _ in range(seats)]


def _log_moves(env: Any) -> list[int]:
    """Make ``env.step`` append every move it plays (not the ``None`` of a done agent, not
    a refused action) to the returned list."""
    moves: list[int] = []
    step = env.step

    def logged(action: Any) -> None:
        live = not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection])
        step(action)
        if live and action is not None:
            moves.append(int(action))

    env.step = logged
    return moves


def play_out(table: Table, play: Callable[[], None], say: SayFn, final_view: str) -> int:
    """Run ``play()`` (the game's loop); then show the table from ``final_view``, or say the
    game was abandoned when input ended (Ctrl-D) or was interrupted (Ctrl-C); the record
    (``--record``) is saved either way. The exit code: 0, or 130 after Ctrl-C (as every
    ``ratenvs`` command)."""
    try:
        play()
    except (EOFError, KeyboardInterrupt) as stop:
        say("")
        _say_seed(table, say)
        say("Game abandoned.")
        save_table_record(table, say)
        return INTERRUPTED_STATUS if isinstance(stop, KeyboardInterrupt) else 0
    except Exception:  # the game so far is kept, then the error is said
        say("\nGame stopped by an error.")
        save_table_record(table, say)
        raise
    say("")
    _say_seed(table, say)
    say(table.env.render_text(final_view))
    save_table_record(table, say)
    return 0


def _say_seed(table: Table, say: SayFn) -> None:
    """The game's seed, drawn fresh when ``--seed`` was not given: it plays the game again."""
    say(f"Seed {table.seed} (--seed {table.seed} deals this game again).")


def save_table_record(table: Table, say: SayFn, extra: Mapping[str, Any] | None = None) -> None:
    """Write the game's record (the moves played so far) to ``table.record_path``
    (``--record``), if asked; the terminal and the window (:mod:`ratenvs.common.window`)
    both end with it. ``extra`` adds keys that a replay does not read (the window's
    reaction times)."""
    if table.record_path is None or table.actions is None:
        return
    from ratenvs.common.record import make_record, save_record

    env = table.env
    record = make_record(env.game.name, table.seed, env.options, table.actions, env=env)
    record.update(extra or {})
    save_record(record, table.record_path)
    say(f"Record saved to {table.record_path} (ratenvs replay {table.record_path}).")
