"""``ratenvs play catz-ratz-batz``: a person plays seat 0 in the terminal against bots."""

from __future__ import annotations

import numpy as np

from ratenvs.catz_ratz_batz.bots import BOTS, get_bot
from ratenvs.catz_ratz_batz.env import raw_env
from ratenvs.catz_ratz_batz.rules import ACTION_ROLL, NUMBERS, PHASE_KEEP, CatzRatzBatz
from ratenvs.common.terminal import InputFn, SayFn, Table, play_out, play_parser, set_table


def _ask_action(env: raw_env, mask: np.ndarray, ask: InputFn, say: SayFn) -> int:
    """Ask the person for a legal action until the answer is one; EOFError propagates."""
    if env.truth.phase != PHASE_KEEP:
        ask("Press Enter to roll all nine dice: ")
        return ACTION_ROLL
    legal = [k for a, k in enumerate(NUMBERS) if mask[a]]
    choices = "/".join(str(k) for k in legal)
    while True:
        answer = ask(f"Keep which number? [{choices}]: ").strip()
        if answer.isascii() and answer.isdigit() and int(answer) in legal:  # not "²"
            return NUMBERS.index(int(answer))
        say(f"  '{answer}' is not a number you can keep; type one of {choices}.")


def set_up(argv: list[str] | None) -> Table:
    """The table of ``ratenvs play catz-ratz-batz [options]`` (in the terminal or the
    window): the env reset with the seed, the bots of the other seats."""
    parser = play_parser(
        CatzRatzBatz, "catz-ratz-batz", "Play Catz, Ratz and Batz as player_0 against bots.", BOTS
    )
    spec = CatzRatzBatz.options
    names = ["turns", "target_score", "race_end", "reward"]
    spec.add_arguments(parser, names, defaults={"turns": 5})
    args = parser.parse_args(argv)

    def make_env() -> raw_env:  # reads args when called: --vs may set the agent's options
        options = {name: getattr(args, name) for name in names}
        return raw_env(num_players=args.players, **options)

    return set_table(parser, args, make_env, "optimal", get_bot)


def main(argv: list[str] | None = None, ask: InputFn = input, say: SayFn = print) -> int:
    """Play a game in the terminal; returns the process exit code."""
    table = set_up(argv)
    env = table.env
    say("You are player_0. Highest total after all turns wins.")

    def play() -> None:
        for agent in env.agent_iter():
            if env.terminations[agent]:
                env.step(None)
                continue
            if agent == "player_0":
                say("")
                say(env.render_text(agent))
                action = _ask_action(env, env.observe(agent)["action_mask"], ask, say)
            else:
                action = table.bot_action(agent)
                if action != ACTION_ROLL:
                    name = table.bot_names[env.agent_name_mapping[agent] - 1]
                    say(f"{agent} ({name}) keeps the {NUMBERS[action]}s")
            turns_before = sum(env.truth.turns_taken)
            env.step(action)
            if sum(env.truth.turns_taken) > turns_before:
                score = env.truth.last_turn_score
                say(f"{agent}'s turn ends: {env.truth.dice.faces()} scores {score}")

    return play_out(table, play, say, "player_0")
