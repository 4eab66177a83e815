"""``ratenvs play rat-a-tat-cat --window``: a person plays player_0 in a pygame window.

The window shows the table as player_0 may see it (the renderer's seat view: the cards
it knows, the held card only when it is its own) and, below it, the sum of the hand as
far as the person knows it and the legal moves, each on a key:

==========  ==========================================================
D           draw the top card of the draw pile
T           take the top discard
0 1 2 3     put the card into that slot / peek at that slot
X           discard the drawn card / decline the power card
U           use the Draw 2
K / N       knock / do not knock
==========  ==========================================================

A Swap takes three keys: your slot (0-3), the other player (1 to n-1: player_1 ...;
skipped with two players), their slot (0-3); Backspace goes back one key. Keys that are
no legal move now are ignored. The bots move one decision every :data:`BOT_PAUSE_S`
seconds. ``?`` or F1 shows the rules card, Esc quits (see :mod:`ratenvs.common.window`).
"""

from __future__ import annotations

import numpy as np

from ratenvs.common.render import HIGHLIGHT, MUTED, WHITE
from ratenvs.common.terminal import Table
from ratenvs.common.window import (
    SLACK_S,
    KeyPress,
    Line,
    WindowGame,
    panel_keys,
    window_main,
)
from ratenvs.rat_a_tat_cat import render, rules
from ratenvs.rat_a_tat_cat.play import RULES, describe, hand_text, out_line, set_up

BOT_PAUSE_S = 0.7
"""Seconds between two decisions of the bots (and before a bot's first one)."""
SLOT_KEYS = tuple(str(s) for s in range(rules.SLOTS))
"""The keys of slots 0..3 (as the picture numbers them)."""
BACK_KEY = "backspace"
RULES_CARD = (
    *RULES,
    "",
    "Keys: [D] draw  [T] take the discard  [0]-[3] a slot  [X] discard / decline",
    "      [U] use the Draw 2  [K] knock  [N] do not knock",
    "      Swap: [0]-[3] your slot, [1]-[n-1] the player, [0]-[3] their slot; [Backspace] back",
    "      [?] or [F1] this card   [Esc] quit",
)


class RatATatCatWindow(WindowGame):
    """Rat-a-Tat Cat in the window (player_0 against the table's bots)."""

    title = "Rat-a-Tat Cat"
    rules_card = RULES_CARD
    panel_lines = 6
    message_lines = 6

    def __init__(self, table: Table) -> None:
        super().__init__(table)
        self.bot_due = 0.0
        self.swap_keys: list[int] = []
        """The keys of a Swap given so far: your slot, then the player (more than 2 players)."""

    def start(self, now: float) -> None:
        self.bot_due = now + BOT_PAUSE_S
        self.say("You are player_0. Lowest total wins; your outer cards (slots 0, 3) were shown.")

    @property
    def humans_turn(self) -> bool:
        return not self.over and self.env.truth.current == 0

    def mask(self) -> np.ndarray:
        return self.env.observe("player_0")["action_mask"]

    def move_keys(self) -> dict[str, tuple[int, str]]:
        """The one-key moves of the person now: key -> (action, what it does)."""
        if not self.humans_turn:
            return {}
        mask = self.mask()
        moves: dict[str, tuple[int, str]] = {}
        if mask[rules.ACTION_DRAW]:
            moves["d"] = (rules.ACTION_DRAW, "draw")
        if mask[rules.ACTION_TAKE_DISCARD]:
            moves["t"] = (rules.ACTION_TAKE_DISCARD, "take the discard")
        for slot, key in enumerate(SLOT_KEYS):
            if mask[rules.ACTION_REPLACE + slot]:
                moves[key] = (rules.ACTION_REPLACE + slot, f"put it in slot {slot}")
            elif mask[rules.ACTION_PEEK + slot]:
                moves[key] = (rules.ACTION_PEEK + slot, f"peek at slot {slot}")
        if mask[rules.ACTION_DISCARD]:
            moves["x"] = (rules.ACTION_DISCARD, "discard it")
        elif mask[rules.ACTION_DECLINE]:
            moves["x"] = (rules.ACTION_DECLINE, "decline it")
        if mask[rules.ACTION_USE_DRAW2]:
            moves["u"] = (rules.ACTION_USE_DRAW2, "use the Draw 2")
        if mask[rules.ACTION_KNOCK]:
            moves["k"] = (rules.ACTION_KNOCK, "knock")
        if mask[rules.ACTION_NO_KNOCK]:
            moves["n"] = (rules.ACTION_NO_KNOCK, "do not knock")
        return moves

    def swapping(self) -> bool:
        """The person may Swap now."""
        return self.humans_turn and bool(self.mask()[rules.ACTION_SWAP :].any())

    def _swap_choices(self) -> dict[str, list[int]]:
        """The keys that go on with the Swap now: key -> the legal swaps they leave open."""
        n = self.env.num_players
        legal = [a for a in np.flatnonzero(self.mask()) if a >= rules.ACTION_SWAP]
        done = len(self.swap_keys)
        choices: dict[str, list[int]] = {}
        for action in legal:
            own, offset, theirs = rules.decode_swap(int(action))
            picks = [own, offset, theirs] if n > 2 else [own, theirs]
            if picks[:done] == self.swap_keys:
                choices.setdefault(str(picks[done]), []).append(int(action))
        return choices

    def keys_for(self, action: int) -> list[str]:
        """The key presses that play ``action`` now (for tests and help)."""
        if action >= rules.ACTION_SWAP:
            own, offset, theirs = rules.decode_swap(action)
            picks = [own, offset, theirs] if self.env.num_players > 2 else [own, theirs]
            return [str(p) for p in picks]
        return [k for k, (a, _) in self.move_keys().items() if a == action][:1]

    def on_key(self, key: KeyPress) -> bool:
        if not self.humans_turn:
            return False
        if self.swapping():
            if key.key == BACK_KEY and self.swap_keys:
                self.swap_keys.pop()
                return True
            choices = self._swap_choices()
            if key.key in choices and (self.swap_keys or key.key not in self.move_keys()):
                actions = choices[key.key]
                self.swap_keys.append(int(key.key))
                if len(actions) == 1 and len(self.swap_keys) == (
                    3 if self.env.num_players > 2 else 2
                ):
                    self.swap_keys = []
                    self._play("player_0", actions[0])
                    self.bot_due = key.at + BOT_PAUSE_S
                return True
            if self.swap_keys:
                return False  # in the middle of a Swap only its keys (and Backspace) count
        move = self.move_keys().get(key.key)
        if move is None:
            return False
        self._play("player_0", move[0])
        self.bot_due = key.at + BOT_PAUSE_S
        return True

    def update(self, now: float) -> None:
        while not self.over and not self.humans_turn and now + SLACK_S >= self.bot_due:
            agent = self.env.possible_agents[self.env.truth.current]
            self._play(agent, self.table.bot_action(agent))
            self.bot_due += BOT_PAUSE_S

    def next_deadline(self, now: float) -> float | None:
        return None if self.over or self.humans_turn else self.bot_due

    def _play(self, agent: str, action: int) -> None:
        env = self.env
        agents = env.possible_agents
        before = env.truth.copy()
        round_before = before.round_index
        env.step(action)
        mover = agent == "player_0"
        text = describe(agent, action, before, env.truth, agents, private=mover)
        self.say(text.replace("player_0 ", "player_0 (you) ", 1) if mover else text, WHITE)
        if env.truth.round_index != round_before or env.truth.is_over:
            pts = env.truth.last_round_points or []
            self.say(
                "Round over: " + ", ".join(f"{agents[p]} {v}" for p, v in enumerate(pts)),
                HIGHLIGHT,
            )

    # ------------------------------------------------------------ the picture
    def picture(self, now: float) -> np.ndarray:
        env = self.env
        return render.draw(env.game, env.truth, env.possible_agents, 0)

    def panel(self, now: float) -> list[Line]:
        env = self.env
        lines: list[Line]
        if not env.truth.active[0]:  # out of an elimination game: no hand, the others play on
            lines = [(out_line(env.truth.totals[0]), WHITE)]
        else:
            view = env.observer.seat_view(env.truth, 0)
            text, total, unknown = hand_text(view.codes[0])
            lines = [
                (f"Your hand as you know it:  {text}", WHITE),
                (
                    f"sum of the cards you know: {total}"
                    + (
                        f"  (+ {unknown} card{'s' if unknown != 1 else ''} you do not know)"
                        if unknown
                        else ""
                    ),
                    HIGHLIGHT,
                ),
            ]
        if self.humans_turn:
            moves = self.move_keys()
            if self.swapping():
                lines.append(self._swap_line())
                moves = {k: m for k, m in moves.items() if k not in SLOT_KEYS}
            if moves:
                lines.append(panel_keys([(k, what) for k, (_, what) in moves.items()], HIGHLIGHT))
        elif not self.over:
            lines.append((f"{env.possible_agents[env.truth.current]} is playing ...", MUTED))
        lines.append(("[?] or [F1] rules card   [Esc] quit", MUTED))
        return lines

    def _swap_line(self) -> Line:
        n = self.env.num_players
        steps = ["your slot [0]-[3]"]
        if n > 2:
            steps.append(f"the player [1]-[{n - 1}]")
        steps.append("their slot [0]-[3]")
        done = len(self.swap_keys)
        chosen = ", ".join(str(k) for k in self.swap_keys)
        so_far = f" (so far: {chosen}; [Backspace] back)" if done else ""
        return (f"Swap: {', then '.join(steps[done:])}{so_far}", HIGHLIGHT)

    def report(self) -> list[str]:
        state = self.env.truth
        winners = self.env.game.winners(state) if state.is_over else None
        return self.standings(state.totals, winners)


main = window_main(set_up, RatATatCatWindow)
"""``ratenvs play rat-a-tat-cat --window``: play in the window; returns the exit code."""
