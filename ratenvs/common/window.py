"""Play a game in a pygame window (``ratenvs play GAME --window``): what every game shares.

A person plays player_0 against bots, as in the terminal (:mod:`ratenvs.common.terminal`:
the same arguments, the same table, the same seeding rule and the same ``--record``), but
in a window: the game's picture (its renderer's seat view) with a panel below it that
shows the keys that do something now and what happened. Single keys play every move;
keys that mean nothing now are ignored. ``?`` or F1 shows the game's rules card (and
pauses the game's clock until it is closed); Esc, or closing the window, ends the game
(a record is still saved with ``--record``).

A game's window module (``ratenvs/<game>/window.py``) keeps only what is its own, as a
:class:`WindowGame`: the keys and what they do, the bots' pace, the picture and the
panel, the rules card and the report at the end. :func:`run` is the loop: it reads key
presses with the time of their arrival from a :class:`Clock` (the real one, or a fake
one in tests, which makes a timed game deterministic), lets the game advance with time
(Ratto Zakko's ticks, the bots' moves) and redraws the window.

pygame is the ``render`` extra; without it :func:`require_pygame` raises a
:class:`~ratenvs.common.arguments.UsageError` (one ``error:`` line, exit status 2).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from ratenvs.common.arguments import INTERRUPTED_STATUS, UsageError
from ratenvs.common.render import HIGHLIGHT, MUTED, WHITE, Canvas, Colour, font, label
from ratenvs.common.terminal import SayFn, Table, save_table_record

PYGAME_MISSING = 'the window needs pygame: pip install "ratenvs[render]"'
"""The error when pygame is not installed."""

FPS = 30.0
"""Frames per second of the window (key presses are timed between frames, to the ms)."""
PANEL_LINE = 20
"""Height of one line of the panel below the game's picture, in pixels."""
PANEL_BG: Colour = (36, 40, 54)
KEY_INK: Colour = (250, 204, 21)

SLACK_S = 1e-6
"""A game's deadline counts as reached this close to it (clock arithmetic rounds)."""
QUIT_KEYS = ("escape",)
"""Keys that end the game at once (a record is still saved)."""
RULES_KEYS = ("?", "f1")
"""Keys that show (and hide) the rules card."""
CLOSE_KEYS = ("escape", "enter")
"""Keys that close the window once the game is over."""

Line = tuple[str, Colour]
"""A line of text and its colour."""


HEADLESS_DRIVERS = ("offscreen", "dummy")
"""SDL's video drivers that show nothing: it falls back on one where there is no screen."""
NO_DISPLAY = (
    "no screen to open the window on (no DISPLAY or WAYLAND_DISPLAY, and no SDL_VIDEODRIVER "
    "chosen: SDL could only draw off screen, and the game would wait for keys forever); play "
    "in the terminal, without --window"
)


def headless_asked() -> bool:
    """The user chose a screenless driver on purpose (``SDL_VIDEODRIVER``, e.g. in tests)."""
    return os.environ.get("SDL_VIDEODRIVER", "") in HEADLESS_DRIVERS


def no_screen_in_env() -> bool:
    """On Linux, the environment names no screen (no ``DISPLAY``, no ``WAYLAND_DISPLAY``)
    and no video driver (``SDL_VIDEODRIVER``): SDL would find none, after printing an error
    line of its own."""
    env = os.environ
    return (
        sys.platform.startswith("linux")
        and not env.get("DISPLAY")
        and not env.get("WAYLAND_DISPLAY")
        and not env.get("SDL_VIDEODRIVER")
    )


def require_pygame() -> Any:
    """The pygame module; a :class:`~ratenvs.common.arguments.UsageError` naming the
    ``render`` extra when it is not installed."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError:
        raise UsageError(PYGAME_MISSING) from None
    return pygame


@dataclass(frozen=True)
class KeyPress:
    """A key the person pressed: its name (``"a"``, ``"3"``, ``"space"``, ``"enter"``,
    ``"escape"``, ``"f1"``, ``"?"``, ``"backspace"``) and when it arrived (clock seconds)."""

    key: str
    at: float


_NAMED_KEYS = {
    "K_ESCAPE": "escape",
    "K_F1": "f1",
    "K_RETURN": "enter",
    "K_KP_ENTER": "enter",
    "K_SPACE": "space",
    "K_BACKSPACE": "backspace",
}


def key_name(pygame: Any, event: Any) -> str:
    """The name of a KEYDOWN event's key: the named keys above, else the character typed
    (lower case; ``?`` stays ``?``), else pygame's name for the key."""
    for constant, name in _NAMED_KEYS.items():
        if event.key == getattr(pygame, constant):
            return name
    text = getattr(event, "unicode", "") or ""
    if len(text) == 1 and text.isprintable():
        return text.lower()
    return str(pygame.key.name(event.key))


class Clock:
    """Real time: ``now()`` in seconds (monotonic), and ``wait(seconds, pending)``, which
    returns after ``seconds`` or as soon as ``pending()`` says an event is waiting."""

    POLL_S = 0.001
    """How often waiting looks for a key press (1 ms: reaction times to the millisecond)."""

    def now(self) -> float:
        return time.monotonic()

    def wait(self, seconds: float, pending: Callable[[], bool]) -> None:
        deadline = time.monotonic() + seconds
        while not pending() and time.monotonic() < deadline:
            time.sleep(self.POLL_S)


class Window:
    """The pygame window: shows frames and hands over key presses, timed by ``clock``."""

    def __init__(self, title: str, clock: Clock, pygame: Any | None = None) -> None:
        if pygame is None and no_screen_in_env():  # before SDL prints its own complaint
            raise UsageError(NO_DISPLAY)
        self.pygame = pygame if pygame is not None else require_pygame()
        self.clock = clock
        self.pygame.display.init()
        if self.pygame.display.get_driver() in HEADLESS_DRIVERS and not headless_asked():
            self.pygame.display.quit()  # SDL found no screen and fell back on drawing nowhere
            raise UsageError(NO_DISPLAY)
        self.pygame.display.set_caption(title)
        self._screen: Any = None
        self._pressed: list[KeyPress] = []
        self.closed = False
        """The person closed the window (its close button)."""

    def show(self, frame: np.ndarray) -> None:
        """Display ``frame`` (an (H, W, 3) uint8 picture), resizing the window to it."""
        pygame = self.pygame
        h, w = frame.shape[:2]
        if self._screen is None or self._screen.get_size() != (w, h):
            self._screen = pygame.display.set_mode((w, h))
        surface = pygame.surfarray.make_surface(np.transpose(frame, (1, 0, 2)))
        self._screen.blit(surface, (0, 0))
        pygame.display.flip()

    def pending(self) -> bool:
        """Has a key press (or the window's close) arrived since the last
        :meth:`key_presses`? Takes the window's events, stamping key presses with the
        clock's time now. (pygame's ``event.peek`` is not used: pygame 2.6 crashes peeking
        at posted events.)"""
        pygame = self.pygame
        now = None
        for event in pygame.event.get():
            if event.type == pygame.QUIT:
                self.closed = True
            elif event.type == pygame.KEYDOWN:
                now = self.clock.now() if now is None else now
                self._pressed.append(KeyPress(key_name(pygame, event), now))
        return bool(self._pressed) or self.closed

    def key_presses(self) -> list[KeyPress]:
        """The keys pressed since the last call, each with the time of its arrival."""
        self.pending()
        pressed, self._pressed = self._pressed, []
        return pressed

    def close(self) -> None:
        self.pygame.display.quit()


class WindowGame:
    """One game played in the window (subclassed by each game's window module).

    The loop calls :meth:`update` with the game's time (the clock's, minus the time the
    rules card was open) before every frame, :meth:`on_key` for every key press that is
    not Esc, ``?`` or F1, then :meth:`frame`, and :meth:`shown` once the frame is on the
    screen. Times are seconds of the game's clock.
    """

    title = "ratenvs"
    rules_card: Sequence[str] = ()
    """The rules card's lines (``?`` or F1)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.env = table.env
        self.messages: list[Line] = []
        """What happened, the latest last (the panel shows the last few)."""

    # ------------------------------------------------------------ the game
    @property
    def over(self) -> bool:
        """The game has ended."""
        return bool(self.env.truth.is_over)

    def start(self, now: float) -> None:
        """The window opened at ``now``."""

    def update(self, now: float) -> None:
        """Let the game go on to ``now`` (bots' moves, ticks)."""

    def on_key(self, key: KeyPress) -> bool:
        """Play ``key`` if it means something now; False when it is ignored."""
        return False

    def next_deadline(self, now: float) -> float | None:
        """The next time the game changes by itself (a bot's move, a tick), or None."""
        return None

    def shown(self, now: float) -> None:
        """The last frame has been on the screen since ``now``."""

    # ------------------------------------------------------------ the picture
    def picture(self, now: float) -> np.ndarray:
        """The game's picture now (the renderer's view of player_0, or more)."""
        raise NotImplementedError

    def panel(self, now: float) -> list[Line]:
        """The panel's lines below the picture: the keys that do something now, and more."""
        return []

    def report(self) -> list[str]:
        """What is said at the end (also printed to the terminal)."""
        return []

    def standings(self, totals: Sequence[int], winners: Sequence[bool] | None) -> list[str]:
        """The totals of every player and, when the game is over, its winner(s): the first
        lines of a report."""
        agents = self.env.possible_agents
        lines = ["Totals: " + ", ".join(f"{a} {t}" for a, t in zip(agents, totals))]
        if winners is not None:
            names = [a for a, w in zip(agents, winners) if w]
            lines.append(("Winners: " if len(names) > 1 else "Winner: ") + ", ".join(names))
        return lines

    def record_extra(self) -> dict[str, Any]:
        """What the window adds to the game's record (``--record``), beside the moves."""
        return {}

    def say(self, text: str, colour: Colour = WHITE) -> None:
        """Add a line to the panel's messages."""
        self.messages.append((text, colour))

    panel_lines = 8
    """Lines of the panel for keys and hints."""
    message_lines = 5
    """Lines of the panel for the last messages."""

    def frame(self, now: float) -> np.ndarray:
        """The picture with the panel below it (keys and hints, the last messages)."""
        return compose(
            self.picture(now),
            self.panel(now),
            self.messages[-self.message_lines :],
            self.panel_lines,
            self.message_lines,
        )


def key_label(key: str) -> str:
    """How a key is written on the screen: ``[A]``, ``[Space]``, ``[Enter]``."""
    name = {"escape": "Esc", "f1": "F1"}.get(
        key, key.upper() if len(key) == 1 else key.capitalize()
    )
    return f"[{name}]"


@lru_cache(maxsize=1024)
def _wrap_line(text: str, size: int, width: float) -> tuple[str, ...]:
    measure = font(size).getlength
    out: list[str] = []
    line = ""
    for word in text.split(" "):
        longer = f"{line} {word}" if line else word
        if line and measure(longer) > width:
            out.append(line)
            line = "    " + word
        else:
            line = longer
    out.append(line)
    return tuple(out)


def wrap(lines: Sequence[Line], size: int, width: float) -> list[Line]:
    """``lines`` broken at spaces so that each fits ``width`` pixels at font ``size``."""
    return [(part, colour) for text, colour in lines for part in _wrap_line(text, size, width)]


def compose(
    picture: np.ndarray,
    lines: Sequence[Line],
    messages: Sequence[Line],
    panel_lines: int,
    message_lines: int,
) -> np.ndarray:
    """``picture`` with a panel of fixed height below it: the first ``panel_lines`` lines of
    ``lines`` (keys and hints), a rule, the last ``message_lines`` lines of ``messages``
    (long lines wrapped to the picture's width first)."""
    h, w = picture.shape[:2]
    lines = wrap(lines, 15, w - 32)[:panel_lines]
    messages = wrap(messages, 14, w - 32)[-message_lines:]
    panel_h = PANEL_LINE * (panel_lines + message_lines) + 24
    c = Canvas(w, h + panel_h, PANEL_BG)
    c.image.paste(Image.fromarray(picture), (0, 0))
    y = h + 8
    for text, colour in lines:
        label(c, (16, y), text, size=15, fill=colour)
        y += PANEL_LINE
    y = h + 8 + PANEL_LINE * panel_lines
    c.draw.line((16, y + 3, w - 16, y + 3), fill=MUTED, width=1)
    y += 8
    for text, colour in messages:
        label(c, (16, y), text, size=14, fill=colour)
        y += PANEL_LINE
    return c.to_array()


def card_frame(size: tuple[int, int], title: str, lines: Sequence[str], footer: str) -> np.ndarray:
    """A full-window card (the rules card, the report at the end): ``title``, ``lines``
    and ``footer``, on a ``size`` (width, height) picture."""
    w, h = size
    c = Canvas(w, h, PANEL_BG)
    label(c, (24, 18), title, size=24, fill=HIGHLIGHT)
    y = 60
    for line in lines:
        label(c, (24, y), line, size=15)
        y += PANEL_LINE
    label(c, (24, h - 32), footer, size=15, fill=KEY_INK)
    return c.to_array()


def darken(frame: np.ndarray) -> np.ndarray:
    """``frame`` dimmed (behind a card)."""
    return (frame * 0.35).astype(np.uint8)


@dataclass
class Outcome:
    """How a window game ended."""

    finished: bool
    """The game was played to its end (False: Esc or the window closed)."""
    report: list[str]


def run(game: WindowGame, window: Window, fps: float = FPS) -> Outcome:
    """Play ``game`` in ``window`` until it ends and the person closes the report, or until
    Esc or the window's close button; the outcome and the report."""
    clock = window.clock
    paused = 0.0  # seconds the rules card was open: the game's clock stood still
    rules_since: float | None = None
    size = (0, 0)
    last: np.ndarray | None = None  # the last picture of the game
    card: np.ndarray | None = None  # the rules card over it, while open
    end: np.ndarray | None = None  # the report at the end
    period = 1.0 / fps
    started = False
    while True:
        real = clock.now()
        now = real - paused if rules_since is None else rules_since - paused
        if not started:
            game.start(now)
            started = True
        for press in window.key_presses():
            if press.key in QUIT_KEYS:
                return Outcome(game.over, game.report())
            if game.over and rules_since is None:
                if press.key in CLOSE_KEYS:
                    return Outcome(True, game.report())
                continue
            if press.key in RULES_KEYS:
                if rules_since is None:
                    rules_since = press.at
                else:
                    paused += press.at - rules_since
                    rules_since = None
                continue
            if rules_since is not None:
                continue  # the rules card is open: other keys do nothing
            game.on_key(KeyPress(press.key, press.at - paused))
        if window.closed:
            return Outcome(game.over, game.report())
        real = clock.now()
        now = real - paused if rules_since is None else rules_since - paused
        if rules_since is None:
            game.update(now)
        if rules_since is not None and last is not None:
            if card is None:  # nothing changes while the card is open: drawn once
                card = rules_frame(game, last)
            frame = card
        elif game.over:
            if end is None:  # behind the report: the finished game (the last card counted)
                last = game.frame(now)
                size = (last.shape[1], last.shape[0])
                end = card_frame(
                    size, "Game over", game.report(), "[Esc] or [Enter]: close the window"
                )
                end = _on_top(darken(last) if last is not None else None, end)
            frame = end
        else:
            card = None
            last = game.frame(now)
            size = (last.shape[1], last.shape[0])
            frame = last
        window.show(frame)
        if rules_since is None:
            game.shown(clock.now() - paused)  # the frame is on the screen from now on
        deadline = game.next_deadline(now) if rules_since is None else None
        wait = period if deadline is None else min(period, max(0.0, deadline - now))
        clock.wait(wait, window.pending)


def rules_frame(game: WindowGame, behind: np.ndarray) -> np.ndarray:
    """The game's rules card, the size of the game's picture ``behind``; opaque, so that
    nothing of the game (a Ratto Zakko card) can be studied while its clock stands still."""
    size = (behind.shape[1], behind.shape[0])
    return card_frame(
        size,
        f"{game.title}: rules",
        game.rules_card,
        "[?] or [F1]: back to the game (its clock is paused)    [Esc]: quit",
    )


def _on_top(behind: np.ndarray | None, card: np.ndarray) -> np.ndarray:
    """``card`` over ``behind`` (the game shows faintly through the card's background)."""
    if behind is None or behind.shape != card.shape:
        return card
    mask = np.all(card == PANEL_BG, axis=2, keepdims=True)
    faint = (0.85 * np.array(PANEL_BG) + 0.15 * behind).astype(np.uint8)
    return np.where(mask, faint, card)


def window_main(
    set_up: Callable[[list[str] | None], Table], window_class: Callable[[Table], WindowGame]
) -> Callable[..., int]:
    """A game's ``main`` for ``ratenvs play GAME --window``: its table from ``set_up`` (the
    terminal play's arguments), then ``window_class`` played in the window."""

    def main(
        argv: list[str] | None = None,
        say: SayFn = print,
        clock: Clock | None = None,
        fps: float = FPS,
    ) -> int:
        """Play a game in the window; returns the process exit code (2: no pygame)."""
        table = set_up(argv)
        require_pygame()
        return play_window(table, window_class(table), say, clock, fps)

    return main


def play_window(
    table: Table,
    game: WindowGame,
    say: SayFn,
    clock: Clock | None = None,
    fps: float = FPS,
) -> int:
    """Open the window, play ``game`` in it, then print the report and save the record
    (``--record``), finished or not (Ctrl-C in the terminal that launched it included); the
    exit code 0, or 130 after Ctrl-C."""
    if clock is None and no_screen_in_env():  # before SDL prints its own complaint
        raise UsageError(NO_DISPLAY)
    pygame = require_pygame()
    window = Window(game.title, clock if clock is not None else Clock(), pygame)
    try:
        outcome = run(game, window, fps)
    except KeyboardInterrupt:
        outcome = None
    finally:
        window.close()
    if outcome is None:
        say("\nGame abandoned.")
        save_table_record(table, say, game.record_extra())
        return INTERRUPTED_STATUS
    say("" if outcome.finished else "Game abandoned.")
    for line in outcome.report:
        say(line)
    save_table_record(table, say, game.record_extra())
    return 0


def panel_keys(pairs: Sequence[tuple[str, str]], colour: Colour = WHITE) -> Line:
    """One panel line of keys and what they do: ``[D] draw   [T] take the discard``."""
    return ("   ".join(f"{key_label(k)} {what}" for k, what in pairs), colour)


def draw_over(frame: np.ndarray) -> tuple[Canvas, Any]:
    """A canvas over a copy of ``frame`` to draw on (and its ImageDraw)."""
    c = Canvas(frame.shape[1], frame.shape[0])
    c.image = Image.fromarray(frame)
    c.draw = ImageDraw.Draw(c.image)
    return c, c.draw
