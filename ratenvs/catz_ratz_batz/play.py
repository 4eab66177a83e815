"""``ratenvs play catz-ratz-batz``: a person plays seat 0 in the terminal against bots.

The game opens with the legend of the dice and the scoring rule; at every keep the
prompt lists what each number would score if the turn ended with it kept now, and a
turn's end says why it scored what it did. ``?`` at any prompt prints the rules.
"""

from __future__ import annotations

import numpy as np

from ratenvs.catz_ratz_batz.bots import BOTS, get_bot
from ratenvs.catz_ratz_batz.env import raw_env
from ratenvs.catz_ratz_batz.rules import (
    ACTION_ROLL,
    NUMBERS,
    PHASE_KEEP,
    CatzRatzBatz,
    Dice,
    numbers_showing,
    score,
)
from ratenvs.common.terminal import (
    InputFn,
    SayFn,
    Table,
    ask_or_rules,
    play_out,
    play_parser,
    set_table,
)

LEGEND = (
    "dice: 3 5 7 are numbers; set aside: C Cat (good), B Bat (good with 3s, bad with 7s, "
    "neutral with 5s), R Rat (bad)"
)
"""What the letters and digits of ``dice: CCBR 33557`` stand for."""
SCORING = (
    "score = number x dice showing it; x (1 + good - bad) if good > bad; "
    "the number alone if good = bad; 0 if good < bad"
)
"""The scoring rule in one line."""
RULES = (
    "Nine dice, faces 3, 5, 7, Cat, Bat, Rat. Highest total after all turns wins.",
    "",
    "A turn: roll all nine dice. Animals are set aside for the rest of the turn.",
    "If the number dice all show one number, or there are none, the turn is over.",
    "Otherwise keep one number that is showing (all its dice); every other number die",
    "is rolled again, new animals set aside. Repeat. The kept number may change at",
    "every roll. There is no stopping by choice.",
    "",
    "Scoring at the end of a turn (k = the number left, n = how many dice show it):",
    "  base = k x n.  good = Cats, plus Bats if k = 3.  bad = Rats, plus Bats if k = 7.",
    "  good < bad: 0.   good = bad: base.   good > bad: base x (1 + good - bad).",
    "  e.g. CCCBR 5555 -> 60;  CCBR 33333 -> 45;  CCCCB 7777 -> 112.",
)
"""The rules card (the terminal's ``?`` and the window's rules card)."""
TERMINAL_RULES = (
    *RULES,
    "",
    "The full rules and the project's rulings: ratenvs rules catz-ratz-batz",
)
"""What ``?`` prints in the terminal game: the rules card and where the full rules are."""
TERMINAL_KEYS = "Type: Enter to roll, 3 / 5 / 7 to keep that number, ? the rules, Ctrl-D quit."


def score_if_kept(dice: Dice, number: int) -> int:
    """The turn's score if it ended now with the dice showing ``number`` kept."""
    return score(dice.cats, dice.bats, dice.rats, number, dice.count(number))


def good_and_bad(dice: Dice, number: int) -> tuple[int, int]:
    """The good animals (Cats, Bats with 3s) and the bad ones (Rats, Bats with 7s) of
    ``dice`` when ``number`` is the number left."""
    good = dice.cats + (dice.bats if number == 3 else 0)
    bad = dice.rats + (dice.bats if number == 7 else 0)
    return good, bad


def score_reason(dice: Dice) -> str:
    """Why a finished turn's ``dice`` score what they do, e.g. ``5 x 5 = 25; good 3 > bad 1:
    x 3 = 75``."""
    left = numbers_showing(dice)
    if not left:
        return "no number dice left: 0"
    number = left[0]
    count = dice.count(number)
    base = number * count
    good, bad = good_and_bad(dice, number)
    points = score(dice.cats, dice.bats, dice.rats, number, count)
    if good < bad:
        return f"{number} x {count} = {base}, but good {good} < bad {bad}: 0"
    if good == bad:
        return f"{number} x {count} = {base}; good {good} = bad {bad}: {points}"
    return f"{number} x {count} = {base}; good {good} > bad {bad}: x {1 + good - bad} = {points}"


def _ask_action(env: raw_env, mask: np.ndarray, ask: InputFn, say: SayFn) -> int:
    """Ask the person for a legal action until the answer is one (``?`` prints the rules
    and asks again); EOFError propagates."""
    if env.truth.phase != PHASE_KEEP:  # Enter (or r) rolls; anything else asks again
        while True:
            answer = ask_or_rules(
                "Press Enter to roll all nine dice [? rules]: ", ask, say, TERMINAL_RULES
            )
            if answer.strip().lower() in ("", "r", "roll"):
                return ACTION_ROLL
            say(f"  {answer.strip()!r}: press Enter to roll (? shows the rules)")
    legal = [k for a, k in enumerate(NUMBERS) if mask[a]]
    choices = "/".join(str(k) for k in legal)
    dice = env.truth.dice
    say(
        "  score if the turn ended with it kept now: "
        + ", ".join(f"{k}s {score_if_kept(dice, k)}" for k in legal)
    )
    while True:
        answer = ask_or_rules(
            f"Keep which number? [{choices}, ? rules]: ", ask, say, TERMINAL_RULES
        )
        answer = answer.strip()
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
    say(LEGEND)
    say(SCORING)
    say(TERMINAL_KEYS)

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
                dice = env.truth.dice
                points = env.truth.last_turn_score
                reason = score_reason(dice)
                say(f"{agent}'s turn ends: {dice.faces()} scores {points} ({reason})")

    return play_out(table, play, say, "player_0")
