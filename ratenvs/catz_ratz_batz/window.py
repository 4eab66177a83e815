"""``ratenvs play catz-ratz-batz --window``: a person plays player_0 in a pygame window.

The window shows the dice (the renderer's picture) and, below it, the keys that do
something now: Space rolls all nine dice at the start of a turn, 3 / 5 / 7 keep that
number after a roll (only the numbers one may keep), each with the score the turn would
have if it ended with that number kept now; a legend of the faces and the scoring rule.
The bots move one decision every :data:`BOT_PAUSE_S` seconds, so their turns can be
followed. ``?`` or F1 shows the rules card, Esc quits (see :mod:`ratenvs.common.window`).
"""

from __future__ import annotations

import numpy as np

from ratenvs.catz_ratz_batz import render
from ratenvs.catz_ratz_batz.play import LEGEND, RULES, SCORING, score_if_kept, set_up
from ratenvs.catz_ratz_batz.rules import ACTION_ROLL, NUMBERS, PHASE_KEEP, numbers_showing
from ratenvs.common.render import HIGHLIGHT, MUTED, WHITE
from ratenvs.common.terminal import Table
from ratenvs.common.window import (
    SLACK_S,
    KeyPress,
    Line,
    WindowGame,
    key_label,
    panel_keys,
    window_main,
)

BOT_PAUSE_S = 0.8
"""Seconds between two decisions of the bots (and before a bot's first one)."""
ROLL_KEY = "space"
"""The key that rolls all nine dice."""
KEEP_KEYS = {str(number): number for number in NUMBERS}
"""The key that keeps each number: "3", "5", "7"."""

RULES_CARD = (
    *RULES,
    "",
    "Keys: [Space] roll all nine dice   [3] [5] [7] keep that number",
    "      [?] or [F1] this card   [Esc] quit",
)


class CatzWindow(WindowGame):
    """Catz, Ratz and Batz in the window (player_0 against the table's bots)."""

    title = "Catz, Ratz and Batz"
    rules_card = RULES_CARD

    def __init__(self, table: Table) -> None:
        super().__init__(table)
        self.bot_due = 0.0
        """When the bot to act makes its next decision."""

    def start(self, now: float) -> None:
        self.bot_due = now + BOT_PAUSE_S
        self.say("You are player_0. Highest total after all turns wins.", HIGHLIGHT)

    @property
    def humans_turn(self) -> bool:
        """player_0 decides now."""
        return not self.over and self.env.agent_selection == "player_0"

    def human_keys(self) -> dict[str, int]:
        """The keys that play a move now, and their actions."""
        if not self.humans_turn:
            return {}
        mask = self.env.observe("player_0")["action_mask"]
        if self.env.truth.phase != PHASE_KEEP:
            return {ROLL_KEY: ACTION_ROLL} if mask[ACTION_ROLL] else {}
        return {key: NUMBERS.index(k) for key, k in KEEP_KEYS.items() if mask[NUMBERS.index(k)]}

    def keys_for(self, action: int) -> list[str]:
        """The key presses that play ``action`` (for tests and the help line)."""
        return [ROLL_KEY] if action == ACTION_ROLL else [str(NUMBERS[action])]

    def on_key(self, key: KeyPress) -> bool:
        action = self.human_keys().get(key.key)
        if action is None:
            return False
        self._play("player_0", action)
        self.bot_due = key.at + BOT_PAUSE_S
        return True

    def update(self, now: float) -> None:
        while not self.over and not self.humans_turn and now + SLACK_S >= self.bot_due:
            agent = self.env.agent_selection
            self._play(agent, self.table.bot_action(agent))
            self.bot_due += BOT_PAUSE_S

    def next_deadline(self, now: float) -> float | None:
        return None if self.over or self.humans_turn else self.bot_due

    def _play(self, agent: str, action: int) -> None:
        env = self.env
        if action != ACTION_ROLL:
            who = "you keep" if agent == "player_0" else f"{agent} keeps"
            self.say(f"{who} the {NUMBERS[action]}s")
        turns_before = sum(env.truth.turns_taken)
        env.step(action)
        if sum(env.truth.turns_taken) > turns_before:
            s = env.truth
            self.say(f"{agent}'s turn ends: {s.dice.faces()} scores {s.last_turn_score}", WHITE)

    # ------------------------------------------------------------ the picture
    def picture(self, now: float) -> np.ndarray:
        env = self.env
        return render.draw(env.game, env.truth, env.possible_agents, 0)

    def panel(self, now: float) -> list[Line]:
        state = self.env.truth
        lines: list[Line] = []
        if self.humans_turn and state.phase != PHASE_KEEP:
            lines.append(panel_keys([(ROLL_KEY, "roll all nine dice")], HIGHLIGHT))
        elif self.humans_turn:
            keys = self.human_keys()
            lines.append(("Your move: keep one number (the others are rolled again)", HIGHLIGHT))
            lines.append(
                panel_keys([(key, f"keep the {KEEP_KEYS[key]}s") for key in keys], HIGHLIGHT)
            )
        elif not self.over:
            lines.append((f"{self.env.agent_selection} is playing ...", MUTED))
        if state.phase == PHASE_KEEP:
            scores = [
                f"{key_label(str(k))} {k}s: {score_if_kept(state.dice, k)}"
                for k in numbers_showing(state.dice)
            ]
            lines.append(("score if kept now:  " + "   ".join(scores), WHITE))
        lines.append((LEGEND, MUTED))
        lines.append((SCORING, MUTED))
        lines.append(("[?] or [F1] rules card   [Esc] quit", MUTED))
        return lines

    def report(self) -> list[str]:
        state = self.env.truth
        return self.standings(state.totals, state.winners() if state.is_over else None)


main = window_main(set_up, CatzWindow)
"""``ratenvs play catz-ratz-batz --window``: play in the window; returns the exit code."""
