"""``ratenvs play ratto-zakko --window``: a person plays player_0 in real time in a window.

Real time maps to the game's ticks. A countdown of :data:`READY_S` seconds announces each
card; then the card is revealed face up (as it lies on the table: the person sees it with
their own eyes, not through the env's simulated glimpses) and a timer bar runs down the
reaction window (``window_ticks`` ticks of ``tick_ms``). A key pressed ``t`` ms after the
card appeared on the screen is the person's response in tick ``t // tick_ms``; every tick
that ends before it is played with the person waiting, and the bots answer at their own
ticks from their own observations, so a bot that is faster and right takes the card
first. Each of the 13 responses is one key (shown on the screen):

====================  =============================================
grab a cloche         A S D F G (apple egg cheese fish chili)
shout a food's name   Q W E R T (apple egg cheese fish chili)
shout FLY / RAT       J / K
BANG the table        Space
====================  =============================================

After winning a fly or rat event: A-G hide the fly under that cloche, Q-T put the shaker
on it, L leave both (only the moves the rules allow now). ``?`` or F1 shows the rules
card and stops the clock until it is closed; Esc quits.

The person's reaction times (from the card appearing to the key press, in real
milliseconds, not rounded to ticks) are recorded for every card answered in time and
reported at the end next to the human-model presets' (:mod:`~ratenvs.ratto_zakko.reaction`)
mean and median reaction times on the same cards, and to the bots' answer times in this
game.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

import numpy as np

from ratenvs.common.render import HIGHLIGHT, MUTED, WHITE, Canvas, label
from ratenvs.common.terminal import Table
from ratenvs.common.window import (
    SLACK_S,
    KeyPress,
    Line,
    WindowGame,
    draw_over,
    key_label,
    panel_keys,
    window_main,
)
from ratenvs.ratto_zakko import render, rules
from ratenvs.ratto_zakko.play import RULES, answer_is_public, describe_relocation, set_up
from ratenvs.ratto_zakko.reaction import MIN_RT_MS, PRESETS, is_conflict

READY_S = 1.5
"""Seconds of countdown before each card is revealed (the last card's outcome shows)."""
BOT_RELOCATION_S = 1.0
"""Seconds before a bot that won a fly or rat event moves the fly or the shaker."""
MS_PER_S = 1000.0

GRAB_KEYS = ("a", "s", "d", "f", "g")
"""Grab the cloche of ``FOODS[i]`` (left to right on the table)."""
SHOUT_FOOD_KEYS = ("q", "w", "e", "r", "t")
"""Shout the name of ``FOODS[i]``."""
FLY_KEY, RAT_KEY, BANG_KEY = "j", "k", "space"
LEAVE_KEY = "l"
"""After a fly or rat event: leave the fly and the shaker where they are."""

RESPONSE_KEYS: dict[str, int] = {
    **{key: rules.GRAB_FIRST + i for i, key in enumerate(GRAB_KEYS)},
    **{key: rules.SHOUT_FOOD_FIRST + i for i, key in enumerate(SHOUT_FOOD_KEYS)},
    FLY_KEY: rules.SHOUT_FLY,
    RAT_KEY: rules.SHOUT_RAT,
    BANG_KEY: rules.BANG,
}
"""The key of each of the 13 responses (key -> response index)."""
RELOCATION_KEYS: dict[str, int] = {
    **{key: rules.RELOCATE_FLY_FIRST + i for i, key in enumerate(GRAB_KEYS)},
    **{key: rules.RELOCATE_SHAKER_FIRST + i for i, key in enumerate(SHOUT_FOOD_KEYS)},
    LEAVE_KEY: rules.LEAVE_BOTH,
}
"""The key of each relocation choice (key -> choice)."""

PRESET_SAMPLES = 2000
"""Reaction times drawn per card and preset for the comparison at the end."""
PRESET_SEED = 0
"""The comparison's generator seed (the same report for the same cards)."""

ANSWER_KEYS = {
    "BANG the table": "[Space]",
    "shout RAT": "[K]",
    "shout FLY": "[J]",
    "(colour is irrelevant)": "[A]-[G]",
    "(never RAT)": "[Q]-[T]",
}
"""The key of each answer, by how its line of the rules card ends."""


def _with_key(line: str) -> str:
    """A line of the terminal game's rules card with the window's key for its answer."""
    for ending, key in ANSWER_KEYS.items():
        if line.endswith(ending):
            return f"{line:<69} {key}"
    return line


RULES_CARD = (
    *map(_with_key, RULES[:-2]),
    RULES[-2].rstrip(".") + ":",
    "  [A]-[G] fly under that cloche   [Q]-[T] shaker on it   [L] leave both",
    RULES[-1] + " Your key press time is your answer's time.",
    "Keys: [?] or [F1] this card (the clock stops)   [Esc] quit",
)
"""The terminal game's rules card (``play.RULES``) with the window's keys."""


@dataclass(frozen=True)
class ReactionTime:
    """One of the person's answers: to which card, how fast (real ms from the card
    appearing to the key press), what and whether it was right."""

    card_number: int
    card: int
    ms: float
    tick: int
    """The tick the answer was given in: ``int(ms // tick_ms)``."""
    response: int
    correct: bool
    conflict: bool
    """A conflict card for the human model (:func:`~ratenvs.ratto_zakko.reaction.is_conflict`)."""


@dataclass(frozen=True)
class TimeSummary:
    """Count, mean and median of some reaction times (ms); mean and median None if none."""

    count: int
    mean_ms: float | None
    median_ms: float | None

    @classmethod
    def of(cls, times: list[float] | np.ndarray) -> TimeSummary:
        values = [float(t) for t in times]
        if not values:
            return cls(0, None, None)
        return cls(len(values), statistics.fmean(values), statistics.median(values))

    def text(self) -> str:
        if not self.count:
            return "none"
        return f"mean {self.mean_ms:.0f} ms, median {self.median_ms:.0f} ms ({self.count})"


def preset_times(
    level: str, conflicts: list[bool], seed: int = PRESET_SEED
) -> dict[str, TimeSummary]:
    """Each human-model preset's reaction times on cards of the given conflict kinds: the
    model's ex-Gaussian around its Hick-Hyman mean (plus interference on conflict cards),
    at least :data:`~ratenvs.ratto_zakko.reaction.MIN_RT_MS`, :data:`PRESET_SAMPLES` draws
    per card (before a bot's answer waits for the end of its tick)."""
    out = {}
    rng = np.random.default_rng(seed)
    for name, model in PRESETS.items():
        if not conflicts:
            out[name] = TimeSummary(0, None, None)
            continue
        means = np.array([model.mean_rt_ms(level, c) for c in conflicts])[:, None]
        shape = (len(conflicts), PRESET_SAMPLES)
        deviation = model.sigma_ms * rng.standard_normal(shape)
        deviation += rng.exponential(model.tau_ms, shape) - model.tau_ms
        times = np.maximum(means + deviation, MIN_RT_MS)
        out[name] = TimeSummary(times.size, float(times.mean()), float(np.median(times)))
    return out


class RattoZakkoWindow(WindowGame):
    """Ratto Zakko in the window, in real time (player_0 against the table's bots)."""

    title = "Ratto Zakko"
    rules_card = RULES_CARD
    panel_lines = 7
    message_lines = 5

    def __init__(self, table: Table) -> None:
        super().__init__(table)
        game = self.env.game
        self.tick_ms: int = game.tick_ms
        self.window_ms: float = game.window_ticks * game.tick_ms
        self.stage = "ready"
        """"ready" (the countdown to the next card), "react" (the card is showing),
        "relocate" (the winner of a fly or rat event moves), "over"."""
        self.reveal_at = 0.0
        """When the next card is revealed (stage "ready")."""
        self.revealed_at: float | None = None
        """When the card showing appeared on the screen (None: not drawn yet)."""
        self.relocate_at = 0.0
        """When a bot that won a fly or rat event moves."""
        self.card_number = 0
        self.reaction_times: list[ReactionTime] = []
        """The person's answers in time, in order."""
        self.cards_shown: list[tuple[int, bool]] = []
        """Every card revealed: (card id, a conflict card for the human model)."""
        self.bot_answer_ms: dict[int, list[float]] = {}
        """Each bot seat's answer times this game (ms, to the end of the answer's tick)."""

    # ------------------------------------------------------------ the game
    def start(self, now: float) -> None:
        game = self.env.game
        self.say(f"You are player_0 at the {game.level} level: answer each card with one key.")
        self.say("Keys are below; [?] or [F1] shows the rules card.", MUTED)
        self._next_card(now)

    def _next_card(self, when: float) -> None:
        """Count down from ``when`` to the reveal of the card the env has dealt."""
        self.stage = "ready"
        self.reveal_at = when + READY_S
        self.revealed_at = None

    def _elapsed_ms(self, now: float) -> float:
        return (now - self.revealed_at) * MS_PER_S

    def _card_open(self) -> bool:
        """The card being answered is still showing (not resolved)."""
        truth = self.env.truth
        return truth.phase == rules.PHASE_REACT and truth.cards_dealt == self.card_number

    def _play_tick(self, human_action: int) -> None:
        """Play one tick: the person's ``human_action`` (if it is still answering), the
        bots' actions from their observations."""
        env = self.env
        for _ in env.game.to_act(env.truth):
            agent = env.agent_selection
            seat = env.agent_name_mapping[agent]
            action = human_action if seat == 0 else self.table.bot_action(agent)
            env.step(action)

    def _advance(self, elapsed_ms: float) -> None:
        """Play every tick of the card showing that has ended by ``elapsed_ms`` (the person
        waiting), then, if the card was decided, go on."""
        slack_ms = SLACK_S * MS_PER_S
        while (
            self._card_open() and (self.env.truth.tick + 1) * self.tick_ms <= elapsed_ms + slack_ms
        ):
            self._play_tick(rules.ACTION_WAIT)
        if not self._card_open():
            self._card_decided()

    def _card_decided(self) -> None:
        """The card was decided: say how, then relocation, the next card or the end."""
        env = self.env
        result = env.truth.last_result
        agents = env.possible_agents
        decided_at = self.revealed_at + (result.tick + 1) * self.tick_ms / MS_PER_S
        for seat, (_, tick) in result.answers.items():
            if seat != 0:
                self.bot_answer_ms.setdefault(seat, []).append((tick + 1) * self.tick_ms)
        words = render.card_words(result.card)
        answer = render.response_words(result.correct)
        if result.winner is None:
            why = "a tie" if result.tied else "nobody was right"
            if not answer_is_public(env, result):  # it would tell where the hidden fly is
                answer = "no answer"
            self.say(f"{words}: {answer}. {why}: the card goes to the jackpot", MUTED)
        else:
            ms = (result.tick + 1) * self.tick_ms
            who = "you win" if result.winner == 0 else f"{agents[result.winner]} wins"
            colour = HIGHLIGHT if result.winner == 0 else WHITE
            self.say(f"{words}: {answer}. {who} {result.cards_won} card(s) at {ms} ms", colour)
        wrong = [agents[s] for s, (r, _) in result.answers.items() if r != result.correct]
        if wrong:
            returned = [agents[s] for s in result.returned_by]
            extra = f"; returned a card: {', '.join(returned)}" if returned else ""
            self.say(f"wrong: {', '.join(wrong)}{extra}", MUTED)
        truth = env.truth
        if truth.phase == rules.PHASE_OVER:
            self.stage = "over"
        elif truth.phase == rules.PHASE_RELOCATE:
            self.stage = "relocate"
            self.relocate_at = decided_at + BOT_RELOCATION_S
            if truth.relocator == 0:
                self.say("You won a fly or rat event: move the fly or the shaker (or [L]).")
        else:
            self._next_card(decided_at)

    def update(self, now: float) -> None:
        while True:
            if self.stage == "ready" and now + SLACK_S >= self.reveal_at:
                truth = self.env.truth
                self.stage = "react"
                self.card_number = truth.cards_dealt
                game = self.env.game
                conflict = is_conflict(truth.card, truth.shaker_on, truth.fly_under, game.level)
                self.cards_shown.append((truth.card, conflict))
                return  # the clock starts when the card is on the screen (shown)
            if self.stage == "react" and self.revealed_at is not None:
                self._advance(self._elapsed_ms(now))
                if self.stage == "react":
                    return
                continue
            if self.stage == "relocate" and self.env.truth.relocator != 0:
                if now + SLACK_S < self.relocate_at:
                    return
                agent = self.env.agent_selection
                action = self.table.bot_action(agent)
                self._relocate(agent, action, self.relocate_at)
                self.relocate_at += BOT_RELOCATION_S
                continue
            return

    def _relocate(self, agent: str, action: int, when: float) -> None:
        choice = action - rules.ACTION_RELOCATE_FIRST
        words = describe_relocation(choice)
        if agent == "player_0":  # "hides the fly ..." -> "you hide the fly ..."
            verb, rest = words.split(" ", 1)
            self.say(f"you {verb[:-1]} {rest}")
        else:
            self.say(f"{agent} {words}")
        self.env.step(action)
        if self.env.truth.phase != rules.PHASE_RELOCATE:
            self._next_card(when)

    def shown(self, now: float) -> None:
        if self.stage == "react" and self.revealed_at is None:
            self.revealed_at = now

    def next_deadline(self, now: float) -> float | None:
        if self.stage == "ready":
            return self.reveal_at
        if self.stage == "react" and self.revealed_at is None:
            return now  # draw the card at once: its clock starts when it is on the screen
        if self.stage == "relocate" and self.env.truth.relocator != 0:
            return self.relocate_at
        return None

    def relocation_keys(self) -> dict[str, int]:
        """The keys of the relocation choices open to the person now (key -> action)."""
        env = self.env
        if self.stage != "relocate" or env.truth.relocator != 0:
            return {}
        mask = env.observe("player_0")["action_mask"]
        first = rules.ACTION_RELOCATE_FIRST
        return {k: first + c for k, c in RELOCATION_KEYS.items() if mask[first + c]}

    def answering(self) -> bool:
        """The person may answer the card showing now."""
        truth = self.env.truth
        return (
            self.stage == "react"
            and self.revealed_at is not None
            and self._card_open()
            and truth.answer[0] == rules.NO_ANSWER
        )

    def on_key(self, key: KeyPress) -> bool:
        if self.stage == "relocate":
            action = self.relocation_keys().get(key.key)
            if action is None:
                return False
            self._relocate("player_0", action, key.at)
            return True
        response = RESPONSE_KEYS.get(key.key)
        if response is None or self.stage != "react" or self.revealed_at is None:
            return False
        elapsed = self._elapsed_ms(key.at)
        self._advance(elapsed)  # the ticks that ended before the key press
        if not self.answering():
            return False  # decided before the key press, or answered already
        truth = self.env.truth
        floor = self.env.game.min_reaction_ticks
        if truth.tick < floor:
            refused = floor * self.tick_ms
            self.say(f"too early ({elapsed:.0f} ms): answers before {refused} ms are refused")
            return True
        correct = self.env.game.correct(truth)
        card = truth.card
        conflict = self.cards_shown[-1][1]
        self.reaction_times.append(
            ReactionTime(
                self.card_number, card, elapsed, truth.tick, response, response == correct, conflict
            )
        )
        said = render.response_words(response)
        self.say(f"you: {said} after {elapsed:.0f} ms (tick {truth.tick + 1})", HIGHLIGHT)
        self._play_tick(rules.ACTION_RESPONSE_FIRST + response)
        if not self._card_open():
            self._card_decided()
        return True

    # ------------------------------------------------------------ the picture
    def picture(self, now: float) -> np.ndarray:
        env = self.env
        truth = env.truth
        frame = render.draw(env.game, truth, env.possible_agents, 0)
        c, draw = draw_over(frame)
        for i, (grab, shout) in enumerate(zip(GRAB_KEYS, SHOUT_FOOD_KEYS)):
            centre = (render.cloche_x(i) + render.CLOCHE_W / 2, render.CLOCHE_BASE - 76)
            keys = f"{key_label(grab)} {key_label(shout)}"  # grab it / shout its name
            label(c, centre, keys, 12, render.ON_COLOUR_INK[i], anchor="mm")
        if self.stage not in ("ready", "react"):
            return c.to_array()
        left, right = render.MARGIN + 4, render.TABLE_RIGHT
        draw.rectangle((left, render.CARD_Y - 16, right, render.CLOCK_Y + 38), fill=render.PANEL)
        x = render.BARS_X
        if self.stage == "react" and self._card_open():
            render.draw_revealed_card(c, truth.card)
            elapsed = 0.0 if self.revealed_at is None else self._elapsed_ms(now)
            left_ms = max(0.0, self.window_ms - elapsed)
            label(c, (x, render.CARD_Y), f"card {truth.cards_dealt} of {env.game.total_cards}", 22)
            if truth.answer[0] != rules.NO_ANSWER:
                said = render.response_words(truth.answer[0])
                label(c, (x, render.CARD_Y + 40), f"you said: {said}", 20, HIGHLIGHT)
            else:
                label(c, (x, render.CARD_Y + 40), "answer with one key!", 20, HIGHLIGHT)
            self._bar(c, f"time left {left_ms / MS_PER_S:.2f} s", left_ms / self.window_ms)
        else:
            wait = max(0.0, self.reveal_at - now)
            label(c, (x, render.CARD_Y), "next card in", 20, MUTED)
            label(c, (x, render.CARD_Y + 30), f"{wait:.1f} s", 40, HIGHLIGHT)
            self._bar(c, f"next card in {wait:.1f} s", wait / READY_S)
        return c.to_array()

    @staticmethod
    def _bar(c: Canvas, text: str, fraction: float) -> None:
        """The countdown bar at the clock's place: ``fraction`` of it still full."""
        x0, x1, y = render.MARGIN + 10, render.TABLE_RIGHT - 10, render.CLOCK_Y
        label(c, (x0, y), text, 14)
        c.box((x0, y + 20, x1, y + 34), fill=render.PANEL_LIGHT, outline=None, radius=4)
        if fraction > 0:
            fill = render.ALERT if fraction < 0.25 else HIGHLIGHT
            end = x0 + max(8, round((x1 - x0) * min(1.0, fraction)))
            c.box((x0, y + 20, end, y + 34), fill=fill, outline=None, radius=4)

    def panel(self, now: float) -> list[Line]:
        foods = rules.FOODS
        lines: list[Line] = []
        if self.stage == "relocate" and self.env.truth.relocator == 0:
            keys = self.relocation_keys()
            fly = [(k, f"fly under {foods[i]}") for i, k in enumerate(GRAB_KEYS) if k in keys]
            shaker = [
                (k, f"shaker on {foods[i]}") for i, k in enumerate(SHOUT_FOOD_KEYS) if k in keys
            ]
            lines.append(("You may move the fly or the shaker:", HIGHLIGHT))
            if fly:
                lines.append(panel_keys(fly, HIGHLIGHT))
            if shaker:
                lines.append(panel_keys(shaker, HIGHLIGHT))
            lines.append(panel_keys([(LEAVE_KEY, "leave them where they are")], HIGHLIGHT))
        else:
            colour = HIGHLIGHT if self.answering() else WHITE
            grab = [(k, foods[i]) for i, k in enumerate(GRAB_KEYS)]
            shout = [(k, foods[i]) for i, k in enumerate(SHOUT_FOOD_KEYS)]
            lines.append(("grab a cloche:  " + panel_keys(grab)[0], colour))
            lines.append(("shout a food:   " + panel_keys(shout)[0], colour))
            shouts = [(FLY_KEY, "shout FLY"), (RAT_KEY, "shout RAT"), (BANG_KEY, "BANG the table")]
            lines.append(panel_keys(shouts, colour))
        lines.append(
            (
                f"{key_label('?')} or {key_label('f1')} rules card (stops the clock)   "
                f"{key_label('escape')} quit",
                MUTED,
            )
        )
        return lines

    # ------------------------------------------------------------ the report
    def human_times(self) -> TimeSummary:
        """The person's reaction times so far (every answer in time)."""
        return TimeSummary.of([r.ms for r in self.reaction_times])

    def record_extra(self) -> dict[str, Any]:
        """``"reaction_times"``: player_0's answers (card number, card, real ms, tick,
        response, right or not), for the record (a replay does not read them)."""
        return {
            "reaction_times": [
                {
                    "card_number": r.card_number,
                    "card": rules.CARD_NAMES[r.card],
                    "ms": r.ms,
                    "tick": r.tick,
                    "response": rules.RESPONSES[r.response],
                    "correct": r.correct,
                }
                for r in self.reaction_times
            ]
        }

    def report(self) -> list[str]:
        env = self.env
        level = env.game.level
        times = [r.ms for r in self.reaction_times]
        right = [r.ms for r in self.reaction_times if r.correct]
        lines = [
            "Cards won: "
            + ", ".join(f"{a} {len(w)}" for a, w in zip(env.possible_agents, env.truth.won)),
            f"Your reaction times ({len(times)} answers to {len(self.cards_shown)} cards, "
            f"{len(right)} right): {self.human_times().text()}",
            f"  right answers: {TimeSummary.of(right).text()}",
        ]
        plain = [r.ms for r in self.reaction_times if not r.conflict]
        conflict = [r.ms for r in self.reaction_times if r.conflict]
        lines.append(
            f"  plain cards: {TimeSummary.of(plain).text()}; "
            f"conflict cards: {TimeSummary.of(conflict).text()}"
        )
        presets = preset_times(level, [c for _, c in self.cards_shown])
        lines.append("Human-model presets on the same cards (their reaction times):")
        for name, summary in presets.items():
            lines.append(f"  {name:6} {summary.text().split(' (')[0]}")
        if self.bot_answer_ms:
            lines.append("This game's bots (answer times, at the end of the tick):")
            for seat, ms in sorted(self.bot_answer_ms.items()):
                name = self.table.bot_names[seat - 1]
                lines.append(f"  player_{seat} ({name}): {TimeSummary.of(ms).text()}")
        return lines


main = window_main(set_up, RattoZakkoWindow)
"""``ratenvs play ratto-zakko --window``: play in the window; returns the exit code."""
