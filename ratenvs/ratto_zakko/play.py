"""``ratenvs play ratto-zakko``: a person plays seat 0 in the terminal against bots.

The terminal game is untimed practice (a typed answer and Enter cannot race bots that
answer in well under a second; the real-time game, one key per answer with a countdown,
is ``--window``): each card is shown at once, the person takes as long as they like, and
the answer counts as given in the earliest tick the game allows (``min_reaction_ticks``).
The bots then play the card tick by tick from their own observations, and whoever was
first and right wins it. The time the person took is said, not counted.

Responses: ``g <food>`` (grab; ``grab`` works too), ``fly``, ``rat``,
``s <food>`` (shout a food's name; ``shout`` works too), ``bang``, or an
empty line / ``pass`` to give no answer. Foods may be shortened to a unique
prefix (``a``, ``e``, ``che``, ``fi``, ``chi``). After winning a fly or rat
event: ``fly <food>``, ``shaker <food>`` or ``leave``. ``?`` at any prompt prints the rules.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ratenvs.common.terminal import (
    InputFn,
    SayFn,
    Table,
    ask_or_rules,
    play_out,
    play_parser,
    set_table,
)
from ratenvs.ratto_zakko import rules
from ratenvs.ratto_zakko.bots import BOTS, get_bot
from ratenvs.ratto_zakko.env import raw_env

Clock = Callable[[], float]
NO_RESPONSE = None
MS_PER_S = 1000.0
HELP = (
    "answer with: g <food> (grab) | fly | rat | s <food> (shout the food) | bang | "
    "Enter (no answer) | ? (the rules)"
)
RULES = (
    "Five cloches: apple (green), egg (white), cheese (yellow), fish (blue), chili (red).",
    "The fly hides under one cloche (remember where!), the rat shaker sits on one.",
    "A card is revealed: the first player with the right answer wins it (and the jackpot).",
    "A wrong answer (before or with the winner's) returns one of your won cards.",
    "",
    "The right answer (exactly one):",
    "  1. dessert level, a food card in its own colour: BANG the table",
    "  2. a food card whose cloche has the shaker on it: shout RAT",
    "  3. a food card whose cloche hides the fly: shout FLY",
    "  4. any other food card: GRAB that food's cloche (colour is irrelevant)",
    "  5. a fly card: GRAB the cloche the fly is under (also under the shaker)",
    "  6. a rat card (main, dessert): FLY if the fly is under the shaker,",
    "     else shout the NAME of the food under the shaker (never RAT)",
    "",
    "After a fly or rat event the winner may move the fly or the shaker.",
    "Most cards at the end wins.",
)
"""The rules card (the terminal's ``?``; the window's rules card adds its keys)."""
TERMINAL_RULES = (*RULES, "", "The full rules and the project's rulings: ratenvs rules ratto-zakko")
"""What ``?`` prints in the terminal game: the rules card and where the full rules are."""


def parse_food(word: str) -> int | None:
    """A food from its name or a unique prefix of it."""
    word = word.strip().lower()
    matches = [i for i, f in enumerate(rules.FOODS) if word and f.startswith(word)]
    exact = [i for i, f in enumerate(rules.FOODS) if f == word]
    if exact:
        return exact[0]
    return matches[0] if len(matches) == 1 else None


def parse_response(text: str) -> int | str | None:
    """A typed response as a response index, ``None`` for no answer, or ``"bad"``."""
    words = text.strip().lower().split()
    if not words or words == ["pass"]:
        return NO_RESPONSE
    head, rest = words[0], words[1:]
    if head in ("fly", "f") and not rest:
        return rules.SHOUT_FLY
    if head in ("rat", "r") and not rest:
        return rules.SHOUT_RAT
    if head in ("bang", "b") and not rest:
        return rules.BANG
    if head in ("g", "grab", "s", "shout") and len(rest) == 1:
        food = parse_food(rest[0])
        if food is not None:
            first = rules.GRAB_FIRST if head in ("g", "grab") else rules.SHOUT_FOOD_FIRST
            return first + food
    return "bad"


def parse_relocation(text: str) -> int | None:
    """``fly <food>``, ``shaker <food>`` or ``leave`` as a relocation choice (None if bad)."""
    words = text.strip().lower().split()
    if words in (["leave"], []):
        return rules.LEAVE_BOTH
    if len(words) == 2 and words[0] in ("fly", "shaker"):
        food = parse_food(words[1])
        if food is not None:
            first = rules.RELOCATE_FLY_FIRST if words[0] == "fly" else rules.RELOCATE_SHAKER_FIRST
            return first + food
    return None


def describe_card(card: int) -> str:
    """The card in words, e.g. ``cheese (blue)``, ``FLY card``, ``RAT card``."""
    if card == rules.FLY_CARD:
        return "FLY card"
    if card == rules.RAT_CARD:
        return "RAT card"
    food, colour = divmod(card, rules.NUM_COLOURS)
    return f"{rules.FOODS[food]} ({rules.COLOURS[colour]})"


def describe_relocation(choice: int) -> str:
    if choice == rules.LEAVE_BOTH:
        return "leaves the fly and the shaker where they are"
    if choice < rules.RELOCATE_SHAKER_FIRST:
        return f"hides the fly under the {rules.FOODS[choice - rules.RELOCATE_FLY_FIRST]} cloche"
    return f"puts the shaker on the {rules.FOODS[choice - rules.RELOCATE_SHAKER_FIRST]} cloche"


def _ask_response(ask: InputFn, say: SayFn, clock: Clock) -> tuple[int | None, float]:
    """Ask until the answer parses (``?`` prints the rules); return it and the seconds the
    person took (EOFError propagates)."""
    start = clock()
    while True:
        answer = parse_response(ask_or_rules("> ", ask, say, TERMINAL_RULES))
        if answer != "bad":
            return answer, clock() - start
        say("  not understood; " + HELP)


def _ask_relocation(ask: InputFn, say: SayFn, mask: np.ndarray | None = None) -> int:
    """Ask until the answer parses and, given the seat's action ``mask``, is a legal move
    now (with ``relocation="both"`` the fly moves first, then the shaker)."""
    prompt = "move? [fly <food> | shaker <food> | leave (or Enter) | ? rules]: "
    while True:
        choice = parse_relocation(ask_or_rules(prompt, ask, say, TERMINAL_RULES))
        if choice is None:
            say("  not understood; e.g. 'fly egg', 'shaker apple' or 'leave'")
        elif mask is not None and not mask[rules.ACTION_RELOCATE_FIRST + choice]:
            legal = [
                describe_relocation(a - rules.ACTION_RELOCATE_FIRST)
                for a in np.flatnonzero(mask)
                if a >= rules.ACTION_RELOCATE_FIRST
            ]
            say(f"  not a move now; you may: {'; '.join(legal)}")
        else:
            return choice


def _table_line(env: raw_env) -> str:
    """The table as player_0 sees it (its observation: the fly only when it shows it)."""
    s = env.truth
    seen = env.observer.views(env.observe("player_0")["observation"])
    shown = seen["fly_shown"][0] > 0.5
    fly = rules.FOODS[int(np.argmax(seen["fly_under"]))] if shown else "? (remember it)"
    counts = ", ".join(f"{a} {len(w)}" for a, w in zip(env.possible_agents, s.won))
    return (
        f"shaker on {rules.FOODS[s.shaker_on]} | fly under {fly} | cards: {counts} | "
        f"jackpot {len(s.jackpot)} | deck {len(s.deck)}"
    )


def answer_is_public(env: raw_env, result: rules.CardResult) -> bool:
    """The card's right answer may be announced to the person: somebody gave it (everyone
    heard or saw it), or the fly is in the observation ("knowledge"). In the memoryless
    mode a card nobody answered right keeps it to itself: the answer would tell where the
    hidden fly is (a fly card's grab, a food's "fly", or neither)."""
    return result.winner is not None or bool(result.tied) or not env.game.memoryless


def _report(env: raw_env, result: rules.CardResult, tick_ms: int, say) -> None:
    agents = env.possible_agents
    correct = rules.RESPONSES[result.correct]
    if result.winner is None:
        tied = ", ".join(agents[s] for s in result.tied)
        why = f"a tie ({tied})" if result.tied else "nobody was right"
        answer = f"answer was {correct}" if answer_is_public(env, result) else "no answer"
        say(f"  {answer}: {why}, the card goes to the jackpot")
    else:
        ms = (result.tick + 1) * tick_ms
        say(
            f"  answer was {correct}: {agents[result.winner]} wins {result.cards_won} card(s) "
            f"after {ms:.0f} ms"
        )
    for seat, (response, _tick) in sorted(result.answers.items()):
        if response != result.correct:
            say(f"  {agents[seat]} said {rules.RESPONSES[response]} - wrong")
    if result.returned_by:
        say("  returned a card: " + ", ".join(agents[s] for s in result.returned_by))


def set_up(argv: list[str] | None) -> Table:
    """The table of ``ratenvs play ratto-zakko [options]`` (in the terminal or the window):
    the env reset with the seed, the bots of the other seats."""
    description = (
        "Play Ratto Zakko as player_0 against bots: untimed practice in the terminal, "
        "real time (your reaction time counts) with --window."
    )
    parser = play_parser(rules.RattoZakko, "ratto-zakko", description, BOTS)
    options = (
        "level",
        "tick_ms",
        "window_ticks",
        "min_reaction_ticks",
        "perception",
        "observation",
    )
    rules.RattoZakko.options.add_arguments(parser, options)
    args = parser.parse_args(argv)

    def make_env() -> raw_env:
        return raw_env(num_players=args.players, **{name: getattr(args, name) for name in options})

    return set_table(parser, args, make_env, "adult", get_bot)


def main(
    argv: list[str] | None = None,
    ask: InputFn = input,
    say: SayFn = print,
    clock: Clock = time.monotonic,
) -> int:
    """Play a game in the terminal; returns the process exit code."""
    table = set_up(argv)
    env = table.env
    tick_ms = env.game.tick_ms
    window = env.game.window_ticks
    floor = env.game.min_reaction_ticks
    counted_ms = floor * tick_ms
    say(f"You are player_0 at the {env.game.level} level. " + HELP)
    say(
        "This terminal game is untimed practice: take your time; your answer counts as given "
        f"in the first moment answers are allowed (by {counted_ms + tick_ms} ms)."
    )
    say("To play in real time (one key per answer, a countdown): add --window.")

    def play() -> None:
        response, answer_tick, card_seen = NO_RESPONSE, window, -1
        for agent in env.agent_iter():
            if env.terminations[agent]:
                env.step(None)
                continue
            state = env.truth
            seat = env.agent_name_mapping[agent]
            if seat == 0 and state.phase == rules.PHASE_RELOCATE:
                mask = env.observe(agent)["action_mask"]
                action = rules.ACTION_RELOCATE_FIRST + _ask_relocation(ask, say, mask)
            elif seat == 0:
                if state.cards_dealt != card_seen:
                    card_seen = state.cards_dealt
                    say("")
                    say(_table_line(env))
                    say(f"CARD {state.cards_dealt}: {describe_card(state.card)}")
                    response, seconds = _ask_response(ask, say, clock)
                    answer_tick = floor  # untimed practice: the earliest tick allowed
                    if response is not NO_RESPONSE:
                        said = rules.RESPONSES[response]
                        say(f"  you: {said} (you took {seconds:.1f} s; untimed)")
                give = response is not NO_RESPONSE and state.tick == answer_tick
                action = rules.ACTION_RESPONSE_FIRST + response if give else rules.ACTION_WAIT
            else:
                action = table.bot_action(agent)
            previous = state.last_result
            relocating = state.phase == rules.PHASE_RELOCATE
            env.step(action)
            if relocating and seat != 0:
                say(f"  {agent} {describe_relocation(action - rules.ACTION_RELOCATE_FIRST)}")
            result = env.truth.last_result
            if result is not previous:
                _report(env, result, tick_ms, say)

    return play_out(table, play, say, "omniscient")
