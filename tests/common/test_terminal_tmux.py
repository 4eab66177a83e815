"""The terminal games in a real terminal: ``ratenvs play GAME`` runs in a detached tmux
session, keys are sent as a person types them, and the screen is read back
(``tmux capture-pane``). tmux is installed by ``.ci/run``; elsewhere these tests skip when
it is absent (under ``CI=true`` they fail instead)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 20.0
"""How long to wait for a text to appear (the command's start, imports included)."""
POLL_S = 0.05

TMUX = shutil.which("tmux")
if TMUX is None and os.environ.get("CI") == "true":
    raise RuntimeError("tmux is not installed: .ci/run installs it for the terminal-game tests")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux)")


class Terminal:
    """One ``ratenvs`` command in a detached tmux session of its own server (socket)."""

    def __init__(self, args: list[str]) -> None:
        self.socket = f"ratenvs-test-{uuid.uuid4().hex[:8]}"
        command = [sys.executable, "-m", "ratenvs.cli", *args]
        self._tmux(
            "new-session", "-d", "-s", "play", "-x", "220", "-y", "60", "-c", str(ROOT),
            # the pane stays after the command ends, so its last screen can be read
            " ".join(command) + "; echo '[exited]'; sleep 30",
        )  # fmt: skip

    def _tmux(self, *args: str) -> str:
        done = subprocess.run(
            [TMUX, "-L", self.socket, *args], capture_output=True, text=True, timeout=10
        )
        if done.returncode != 0:
            raise RuntimeError(f"tmux {args[0]}: {done.stderr.strip()}")
        return done.stdout

    def screen(self) -> str:
        """Everything the terminal has shown (the scrollback too), wrapped lines joined,
        without the blank rows below the last line."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "play").rstrip()

    def wait_for(self, text: str, after: int = 0) -> str:
        """The screen once ``text`` appears after its first ``after`` characters."""
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            screen = self.screen()
            if text in screen[after:]:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} did not appear in {TIMEOUT_S} s; screen:\n{screen}")
            time.sleep(POLL_S)

    def wait_for_prompt(self, prompt: str) -> str:
        """The screen once it ends with ``prompt``: the game is reading the next answer
        (keys sent earlier could reach the terminal before the game reads them)."""
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            screen = self.screen()
            if screen.endswith(prompt.rstrip()):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"no prompt {prompt!r} in {TIMEOUT_S} s; screen:\n{screen}")
            time.sleep(POLL_S)

    def type(self, text: str) -> None:
        """Type ``text`` and press Enter."""
        if text:
            self._tmux("send-keys", "-t", "play", "-l", text)
        self._tmux("send-keys", "-t", "play", "Enter")

    def ctrl_d(self) -> None:
        self._tmux("send-keys", "-t", "play", "C-d")

    def close(self) -> None:
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], capture_output=True, timeout=10)


@pytest.fixture
def terminal() -> Iterator[type[Terminal]]:
    opened: list[Terminal] = []

    def open_one(args: list[str]) -> Terminal:
        term = Terminal(args)
        opened.append(term)
        return term

    yield open_one  # type: ignore[misc]
    for term in opened:
        term.close()


def test_catz_in_a_terminal_shows_its_legend_what_a_keep_gives_and_the_rules(terminal):
    term = terminal(["play", "catz-ratz-batz", "--seed", "1", "--turns", "1"])
    screen = term.wait_for_prompt("Press Enter to roll all nine dice [? rules]:")
    assert "C Cat (good), B Bat (good with 3s, bad with 7s, neutral with 5s), R Rat (bad)" in screen
    term.type("?")
    screen = term.wait_for("CCCCB 7777 -> 112")
    term.wait_for_prompt("[? rules]:")
    term.type("")
    screen = term.wait_for("Keep which number? [3/5, ? rules]:", after=len(screen))
    assert "score if the turn ended with it kept now: 3s 9, 5s 60" in screen
    term.wait_for_prompt("[3/5, ? rules]:")
    term.type("5")
    screen = term.wait_for("[exited]")
    assert "scores 75 (5 x 5 = 25; good 3 > bad 1: x 3 = 75)" in screen
    assert "game over - winner(s): player_0" in screen


def test_rat_a_tat_cat_in_a_terminal_shows_the_known_hand_the_moves_and_the_rules(terminal):
    term = terminal(["play", "rat-a-tat-cat", "--seed", "1"])
    screen = term.wait_for("Your moves:")
    assert "? for the rules" in screen
    assert "Your hand: 0: Draw 2 (replaced at the end)   1: ?   2: ?   3: 4" in screen
    term.wait_for_prompt(">")
    term.type("?")
    screen = term.wait_for("Power cards in a hand are replaced from the draw pile.")
    term.wait_for_prompt(">")
    term.type("d")
    screen = term.wait_for("you hold a 9", after=len(screen))
    assert "x        discard the card you hold (your hand stays as it is)" in screen
    term.wait_for_prompt(">")
    term.ctrl_d()
    term.wait_for("Game abandoned.")


def test_ratto_zakko_in_a_terminal_says_it_is_untimed_practice_and_names_the_window(terminal):
    term = terminal(["play", "ratto-zakko", "--seed", "1", "--players", "2"])
    screen = term.wait_for("CARD 1:")
    assert "untimed practice" in screen and "add --window" in screen
    term.wait_for_prompt(">")
    term.type("?")
    screen = term.wait_for("Most cards at the end wins.")
    term.type("bang")
    term.wait_for("you: bang (you took", after=len(screen))
    term.wait_for("CARD 2:", after=len(screen))
    term.wait_for_prompt(">")
    term.ctrl_d()
    term.wait_for("Game abandoned.")
