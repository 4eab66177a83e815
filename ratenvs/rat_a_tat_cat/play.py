"""``ratenvs play rat-a-tat-cat``: a person plays player_0 in the terminal against bots.

The person sees only what its seat may see (the table from its view, with the
cards it knows, and its hand as it knows it with the sum of the cards it knows), the
public moves of the bots, and a prompt listing the legal moves and what each does. A
bad answer asks again; ``?`` prints the rules; end of input (Ctrl-D) leaves cleanly.
"""

from __future__ import annotations

import re

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
from ratenvs.rat_a_tat_cat import rules
from ratenvs.rat_a_tat_cat.bots import BOTS, get_bot
from ratenvs.rat_a_tat_cat.env import raw_env
from ratenvs.rat_a_tat_cat.observe import EMPTY

POWER_NAMES = {"peek": "Peek", "swap": "Swap", "draw2": "Draw 2"}
"""The power cards' printed names."""
RULES = (
    "54 cards: four each of 0-8, nine 9s, three each of Peek, Swap, Draw 2. Lowest sum wins.",
    "You have four face-down cards (slots 0-3); you saw your outer two (0 and 3) at the deal.",
    "",
    "Your turn: take the top discard (a number card) and put it in place of one of yours,",
    "or draw the top card of the draw pile (only you see it):",
    "  a number: put it in place of one of your cards (that card is discarded), or discard it;",
    "  Peek: you may look at one of your cards;  Swap: you may exchange one of your cards",
    "  with any card of another player, blind;  Draw 2: you may draw again (if you discard",
    "  that card, draw a second one).  Power cards count only when drawn.",
    "At the end of your turn, if nobody has knocked, you may knock: everyone else has one",
    "more turn and the round ends. Power cards in a hand are replaced from the draw pile.",
)
"""The rules card (the terminal's ``?`` and the window's rules card)."""
TERMINAL_RULES = (
    *RULES,
    "",
    "The full rules and the project's rulings: ratenvs rules rat-a-tat-cat",
)
"""What ``?`` prints in the terminal game: the rules card and where the full rules are."""


def hand_text(codes: list[int]) -> tuple[str, int, int]:
    """The hand as the person knows it (``codes``: its knowledge of slots 0..3): the text,
    the sum of the number cards it knows, and how many cards it does not know the value of
    (power cards in the hand are replaced at the end of the round)."""
    if any(code == EMPTY for code in codes):
        raise ValueError("a player out of the game has no hand to show")
    parts, total, unknown = [], 0, 0
    for slot, code in enumerate(codes):
        if code < rules.NUM_NUMBER_KINDS:
            parts.append(f"{slot}: {code}")
            total += code
        elif code in rules.POWER_KINDS:
            power = POWER_NAMES.get(rules.CARD_NAMES[code], rules.CARD_NAMES[code])
            parts.append(f"{slot}: {power} (replaced at the end)")
            unknown += 1
        elif code == rules.CODE_NUMBER:
            parts.append(f"{slot}: # (a number)")
            unknown += 1
        else:
            parts.append(f"{slot}: ?")
            unknown += 1
    return "   ".join(parts), total, unknown


def move_help(mask: np.ndarray, num_players: int) -> list[str]:
    """One line per kind of legal move, with what to type."""
    lines = []
    if mask[rules.ACTION_DRAW]:
        lines.append("d        draw the top card of the draw pile (only you see it)")
    if mask[rules.ACTION_TAKE_DISCARD]:
        lines.append("t        take the top discard, then put it into one of your slots")
    if mask[rules.ACTION_REPLACE]:
        lines.append(
            "r S      put the card you hold into your slot S (0-3); the card there is discarded"
        )
    if mask[rules.ACTION_DISCARD]:
        lines.append("x        discard the card you hold (your hand stays as it is)")
    if mask[rules.ACTION_PEEK]:
        lines.append("p S      look at your slot S (0-3)")
    if mask[rules.ACTION_USE_DRAW2]:
        lines.append("u        use the Draw 2: draw the next card")
    if mask[rules.ACTION_SWAP :].any():
        lines.append(
            f"s A P B  swap your slot A with slot B of player P (1-{num_players - 1}), blind"
        )
    if mask[rules.ACTION_DECLINE]:
        lines.append("x        decline the power card (it is discarded)")
    if mask[rules.ACTION_KNOCK]:
        lines.append("k / n    knock (everyone else gets one more turn) / do not knock")
    return lines


_NUMBER = re.compile(r"-?[0-9]+")
"""A typed number: ASCII digits, perhaps signed."""


def parse_move(text: str, mask: np.ndarray, num_players: int) -> int | None:
    """The action a typed move means, or None if it is not a legal move now."""
    words = text.strip().lower().split()
    if not words:
        return None
    cmd, args = words[0], words[1:]
    if not all(_NUMBER.fullmatch(a) for a in args):  # ASCII digits only: "²" is no slot
        return None
    nums = [int(a) for a in args]
    action: int | None = None
    if cmd == "d" and not args:
        action = rules.ACTION_DRAW
    elif cmd == "t" and not args:
        action = rules.ACTION_TAKE_DISCARD
    elif cmd == "r" and len(nums) == 1 and 0 <= nums[0] < rules.SLOTS:
        action = rules.ACTION_REPLACE + nums[0]
    elif cmd == "p" and len(nums) == 1 and 0 <= nums[0] < rules.SLOTS:
        action = rules.ACTION_PEEK + nums[0]
    elif cmd == "x" and not args:
        action = rules.ACTION_DISCARD if mask[rules.ACTION_DISCARD] else rules.ACTION_DECLINE
    elif cmd == "u" and not args:
        action = rules.ACTION_USE_DRAW2
    elif cmd == "k" and not args:
        action = rules.ACTION_KNOCK
    elif cmd == "n" and not args:
        action = rules.ACTION_NO_KNOCK
    elif cmd == "s" and len(nums) == 3:
        a, p, b = nums
        if 0 <= a < rules.SLOTS and 1 <= p < num_players and 0 <= b < rules.SLOTS:
            action = rules.swap_action(a, p, b)  # seat 0: player P is P seats on
    if action is None or not mask[action]:
        return None
    return action


def describe(
    agent: str,
    action: int,
    before: rules.State,
    after: rules.State,
    agents: list[str],
    private: bool,
) -> str:
    """What everyone sees of a move (``private``: also what only the mover sees). A Peek is
    the mover's alone: nobody else sees which card it looked at, nor (outside a Draw 2
    sequence) whether it was used at all (:class:`~ratenvs.rat_a_tat_cat.rules.PeekRecord`),
    so the others read the same line for every way of playing it."""
    seat = before.current
    held = before.held
    held_name = rules.CARD_NAMES[rules.KIND[held]] if held != rules.NO_CARD else "?"
    peek_held = held != rules.NO_CARD and held_name == "peek"
    if not private and peek_held and action != rules.ACTION_USE_DRAW2:
        peeked = rules.ACTION_PEEK <= action < rules.ACTION_PEEK + rules.SLOTS
        if before.draw2_left > 0 and not peeked:  # declining it draws the next card: public
            return f"{agent} declines the peek"
        if before.draw2_left > 0:
            return f"{agent} uses the peek on one of its cards"
        return f"{agent} discards the peek (whether it looked, and at what, only it knows)"
    if action == rules.ACTION_DRAW:
        return f"{agent} draws" + (
            f" a {rules.CARD_NAMES[rules.KIND[after.held]]}" if private else ""
        )
    if action == rules.ACTION_TAKE_DISCARD:
        taken = rules.CARD_NAMES[rules.KIND[before.discard_top]]
        return f"{agent} takes the {taken} from the discard pile"
    if rules.ACTION_REPLACE <= action < rules.ACTION_REPLACE + rules.SLOTS:
        slot = action - rules.ACTION_REPLACE
        old = rules.CARD_NAMES[rules.KIND[before.hands[seat][slot]]]
        placed = held_name if (private or before.held_public) else "the drawn card"
        return f"{agent} puts {placed} into slot {slot} and discards a {old}"
    if action == rules.ACTION_DISCARD:
        return f"{agent} discards the drawn {held_name}"
    if rules.ACTION_PEEK <= action < rules.ACTION_PEEK + rules.SLOTS:
        return f"{agent} peeks at its slot {action - rules.ACTION_PEEK}"
    if action == rules.ACTION_USE_DRAW2:
        return f"{agent} uses a Draw 2"
    if action == rules.ACTION_DECLINE:
        return f"{agent} declines the {held_name}"
    if action == rules.ACTION_KNOCK:
        return f"{agent} knocks!"
    if action == rules.ACTION_NO_KNOCK:
        return f"{agent} does not knock"
    a, offset, b = rules.decode_swap(action)
    other = agents[(seat + offset) % before.num_players]
    return f"{agent} swaps its slot {a} with {other}'s slot {b}"


def out_line(total: int, who: str = "You are", then: str = "") -> str:
    """The line that says a player went out of an elimination game, with its total (and
    ``then``, what follows)."""
    return f"{who} out of the game (total {total}){then}."


def known_hand(env: raw_env) -> str:
    """player_0's hand as it knows it, the sum of the cards it knows, and the card it
    holds (drawn or taken, on its turn), e.g. ``Your hand: 0: 3   1: ?   2: ?   3: 4 (you
    know 7, + 2 unknown); you hold a 9``."""
    if not env.truth.active[0]:  # out of an elimination game: no hand any more
        return out_line(env.truth.totals[0])
    view = env.observer.seat_view(env.truth, 0)
    text, total, unknown = hand_text(view.codes[0])
    line = f"Your hand: {text} (you know {total}" + (f", + {unknown} unknown)" if unknown else ")")
    state = env.truth
    if state.current == 0 and state.held != rules.NO_CARD:
        held = rules.CARD_NAMES[rules.KIND[state.held]]
        line += f"; you hold a {POWER_NAMES.get(held, held)}"
    return line


def round_report(before: rules.State, after: rules.State, agents: list[str]) -> list[str]:
    """What everyone sees when a round ends: the round's points, every hand turned face up
    (power cards already replaced) with the totals so far, and who went out of an
    elimination game in this round (``before``: the state before the round's last move)."""
    pts = after.last_round_points or []
    lines = ["Round over: " + ", ".join(f"{agents[p]} {v}" for p, v in enumerate(pts))]
    for p, hand in enumerate(after.last_round_hands or []):
        if not before.active[p]:
            continue  # out of the game earlier: no hand this round
        cards = " ".join(rules.card_name(c) for c in hand if c != rules.NO_CARD)
        lines.append(f"  {agents[p]}: {cards} = {pts[p]} (total {after.totals[p]})")
    for p in range(len(agents)):
        if before.active[p] and not after.active[p]:
            who = "You are" if p == 0 else f"{agents[p]} is"
            then = "; the others play on" if p == 0 and not after.is_over else ""
            lines.append(out_line(after.totals[p], who, then))
    return lines


def _ask_action(mask: np.ndarray, n: int, ask: InputFn, say: SayFn) -> int:
    """Ask until the answer is a legal move; EOFError propagates."""
    say("Your moves:")
    for line in move_help(mask, n):
        say("  " + line)
    while True:
        answer = ask_or_rules("> ", ask, say, TERMINAL_RULES)
        action = parse_move(answer, mask, n)
        if action is not None:
            return action
        say(f"  '{answer.strip()}' is not a legal move now; try again.")


def set_up(argv: list[str] | None) -> Table:
    """The table of ``ratenvs play rat-a-tat-cat [options]`` (in the terminal or the
    window): the env reset with the seed, the bots of the other seats."""
    description = "Play Rat-a-Tat Cat as player_0 against bots. Lowest total wins."
    parser = play_parser(rules.RatATatCat, "rat-a-tat-cat", description, BOTS)
    options = ("rounds", "target_score", "eliminate_at", "elimination_tiebreak", "observation")
    rules.RatATatCat.options.add_arguments(parser, options)
    args = parser.parse_args(argv)

    def make_env() -> raw_env:
        chosen = {name: getattr(args, name) for name in options}
        return raw_env(
            num_players=args.players, render_mode="ansi", render_view="player_0", **chosen
        )

    return set_table(parser, args, make_env, "heuristic", get_bot)


def main(argv: list[str] | None = None, ask: InputFn = input, say: SayFn = print) -> int:
    """Play a game in the terminal; returns the process exit code."""
    table = set_up(argv)
    env = table.env
    agents = env.possible_agents
    n = env.num_players
    say("You are player_0. Cards: 0-9, peek, swap, draw2. '?' unknown, '#' a number card.")
    say("Lowest total wins. Your outer cards (slots 0 and 3) were shown to you at the deal.")
    say("A power card in your hand is replaced from the draw pile at the end of the round.")
    say("Type the move's letters (listed at each turn), ? for the rules, Ctrl-D to quit.")

    def play() -> None:
        while not env.truth.is_over:
            state = env.truth
            seat = state.current
            agent = agents[seat]
            if seat == 0:
                say("")
                say(env.render_text("player_0"))
                say(known_hand(env))
                action = _ask_action(env.observe(agent)["action_mask"], n, ask, say)
            else:
                action = table.bot_action(agent)
            before = state.copy()
            round_before = state.round_index
            env.step(action)
            say(describe(agent, action, before, env.truth, agents, private=seat == 0))
            if env.truth.round_index != round_before or env.truth.is_over:
                for line in round_report(before, env.truth, agents):
                    say(line)

    return play_out(table, play, say, "omniscient")
