"""``ratenvs play catz-ratz-batz``: a person plays seat 0 in the terminal against bots."""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np

from ratenvs.catz_ratz_batz.bots import BOTS, get_bot
from ratenvs.catz_ratz_batz.env import raw_env
from ratenvs.catz_ratz_batz.rules import ACTION_ROLL, NUMBERS, PHASE_KEEP, CatzRatzBatz
from ratenvs.common.bots import opponent_bots
from ratenvs.common.play import seed_streams

InputFn = Callable[[str], str]


def _ask_action(env: raw_env, mask: np.ndarray, ask: InputFn, say: Callable[[str], None]) -> int:
    """Ask the person for a legal action until the answer is one; EOFError propagates."""
    if env.truth.phase != PHASE_KEEP:
        ask("Press Enter to roll all nine dice: ")
        return ACTION_ROLL
    legal = [k for a, k in enumerate(NUMBERS) if mask[a]]
    choices = "/".join(str(k) for k in legal)
    while True:
        answer = ask(f"Keep which number? [{choices}]: ").strip()
        if answer.isdigit() and int(answer) in legal:
            return NUMBERS.index(int(answer))
        say(f"  '{answer}' is not a number you can keep; type one of {choices}.")


def main(argv: list[str] | None = None, ask: InputFn = input, say=print) -> int:
    """Play a game in the terminal; returns the process exit code."""
    parser = argparse.ArgumentParser(
        prog="ratenvs play catz-ratz-batz",
        description="Play Catz, Ratz and Batz as player_0 against bots.",
    )
    spec = CatzRatzBatz.options
    players = spec["num_players"]
    parser.add_argument(
        "--players",
        type=int,
        default=players.default,
        help=f"{players.help} including you ({players.allowed}; default: {players.default})",
    )
    parser.add_argument(
        "--bots", nargs="*", default=None, help=f"bot per other seat: {sorted(BOTS)}"
    )
    spec.add_arguments(parser, ["turns", "target_score", "reward"], defaults={"turns": 5})
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    try:
        env = raw_env(
            num_players=args.players,
            turns=args.turns,
            target_score=args.target_score,
            reward=args.reward,
        )
        names, bots = opponent_bots(args.bots, args.players - 1, "optimal", get_bot)
    except ValueError as err:
        parser.error(str(err))
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**31)
    _, bot_rngs = seed_streams(seed, env.num_players)  # play_game's seeding rule
    env.reset(seed=seed)
    say("You are player_0. Highest total after all turns wins.")
    try:
        for agent in env.agent_iter():
            if env.terminations[agent]:
                env.step(None)
                continue
            seat = env.agent_name_mapping[agent]
            seen = env.observe(agent)
            mask = seen["action_mask"]
            if seat == 0:
                say("")
                say(env.render_text(agent))
                action = _ask_action(env, mask, ask, say)
            else:
                action = bots[seat - 1].act(seen["observation"], mask, bot_rngs[seat])
                if action != ACTION_ROLL:
                    say(f"{agent} ({names[seat - 1]}) keeps the {NUMBERS[action]}s")
            turns_before = sum(env.truth.turns_taken)
            env.step(action)
            if sum(env.truth.turns_taken) > turns_before:
                score = env.truth.last_turn_score
                say(f"{agent}'s turn ends: {env.truth.dice.faces()} scores {score}")
    except (EOFError, KeyboardInterrupt):
        say("\nGame abandoned.")
        return 0
    say("")
    say(env.render_text("player_0"))
    return 0
