"""The window player (``ratenvs play GAME --window``) under SDL's dummy video driver.

Synthetic pygame key events are posted into the window's event queue, timed by a fake
clock (it jumps to the next moment something is due, so a real-time game is
deterministic and fast): every game is played to its end from the window with a fixed
seed, its record replays with ``ratenvs replay``, Ratto Zakko's reported reaction times
are the synthetic ones, keys that are no legal move are ignored, Esc ends the game.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

os.environ["SDL_VIDEODRIVER"] = "dummy"  # before pygame opens a display
pygame = pytest.importorskip("pygame")

from ratenvs import cli  # noqa: E402
from ratenvs.catz_ratz_batz import rules as crb_rules  # noqa: E402
from ratenvs.catz_ratz_batz import window as crb_window  # noqa: E402
from ratenvs.catz_ratz_batz.play import set_up as crb_set_up  # noqa: E402
from ratenvs.common import window  # noqa: E402
from ratenvs.rat_a_tat_cat import rules as rtc_rules  # noqa: E402
from ratenvs.rat_a_tat_cat import window as rtc_window  # noqa: E402
from ratenvs.rat_a_tat_cat.play import set_up as rtc_set_up  # noqa: E402
from ratenvs.ratto_zakko import rules as rz_rules  # noqa: E402
from ratenvs.ratto_zakko import window as rz_window  # noqa: E402
from ratenvs.ratto_zakko.env import raw_env as rz_raw_env  # noqa: E402
from ratenvs.ratto_zakko.play import set_up as rz_set_up  # noqa: E402

FPS = 4.0
"""The tests' frame rate (of the fake clock): fewer frames, the same game."""

_KEYS = {
    "space": (pygame.K_SPACE, " "),
    "escape": (pygame.K_ESCAPE, "\x1b"),
    "enter": (pygame.K_RETURN, "\r"),
    "backspace": (pygame.K_BACKSPACE, "\b"),
    "f1": (pygame.K_F1, ""),
    "?": (pygame.K_QUESTION, "?"),
}


def post(key: str) -> None:
    """Post a synthetic KEYDOWN of ``key`` (a key name of :func:`window.key_name`)."""
    code, text = _KEYS.get(key, (pygame.key.key_code(key) if len(key) == 1 else 0, key))
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=code, unicode=text, mod=0))


class FakeClock:
    """A clock that never sleeps: ``wait`` calls ``driver(clock)``, then jumps to the end
    of the wait or to the first timer due before it (and runs it), unless a key waits."""

    def __init__(self, driver=None, start: float = 100.0) -> None:
        self.t = start
        self.timers: list[tuple[float, object]] = []
        self.driver = driver
        self.waits = 0

    def now(self) -> float:
        return self.t

    def at(self, when: float, action) -> None:
        self.timers.append((when, action))

    def wait(self, seconds: float, pending) -> None:
        self.waits += 1
        assert self.waits < 50_000, "the window loop does not get on"
        if self.driver is not None:
            self.driver(self)
        if pending():
            return
        deadline = self.t + seconds
        due = sorted((t for t in self.timers if t[0] <= deadline), key=lambda t: t[0])
        if due:
            self.timers.remove(due[0])
            self.t = max(self.t, due[0][0])
            due[0][1]()
        else:
            self.t = deadline


def replays(path, capsys) -> dict:
    """``ratenvs replay PATH`` succeeds with a final state that matches; the record."""
    capsys.readouterr()
    assert cli.main(["replay", str(path)]) == 0
    assert "final state matches" in capsys.readouterr().out
    return json.loads(path.read_text())


# ------------------------------------------------------------ Catz, Ratz and Batz
def test_catz_played_to_the_end_from_the_window(tmp_path, capsys):
    path = tmp_path / "catz.json"
    table = crb_set_up(["--seed", "3", "--turns", "2", "--bots", "lowest", "--record", str(path)])
    game = crb_window.CatzWindow(table)
    rng = np.random.default_rng(0)
    step = {"illegal_at": None, "moves": 0, "checked_scores": 0}

    def driver(clock):
        if game.over:
            post("enter")
            return
        keys = game.human_keys()
        if not keys:
            return
        if step["illegal_at"] is None:  # first a key that is no move now
            step["illegal_at"] = len(table.actions)
            post("9" if game.env.truth.phase == crb_rules.PHASE_KEEP else "3")
            return
        assert len(table.actions) == step["illegal_at"], "an illegal key played a move"
        step["illegal_at"] = None
        state = game.env.truth
        if state.phase == crb_rules.PHASE_KEEP:  # the panel's score if kept now
            text = " ".join(t for t, _ in game.panel(clock.now()))
            for k in crb_rules.numbers_showing(state.dice):
                n = state.dice.count(k)
                expected = crb_rules.score(state.dice.cats, state.dice.bats, state.dice.rats, k, n)
                assert f"{k}s: {expected}" in text
                step["checked_scores"] += 1
        step["moves"] += 1
        post(str(rng.choice(sorted(keys))))

    said = []
    assert window.play_window(table, game, said.append, FakeClock(driver), FPS) == 0
    assert game.over and step["moves"] > 2 and step["checked_scores"] > 0
    assert any(line.startswith("Winner") for line in said)
    record = replays(path, capsys)
    assert record["actions"] == table.actions


def test_the_picture_behind_the_report_is_of_the_finished_game(monkeypatch):
    """The report at the end lies over the last picture: it was the one drawn before the
    last move (Ratto Zakko's side panel counted 17 cards where the report said 18)."""
    table = crb_set_up(["--seed", "3", "--players", "1", "--turns", "1"])
    game = crb_window.CatzWindow(table)
    drawn: list[bool] = []
    frame = game.frame
    monkeypatch.setattr(game, "frame", lambda now: (drawn.append(game.over), frame(now))[1])

    def driver(clock):
        if game.over:
            post("enter")
        elif game.human_keys():
            post(sorted(game.human_keys())[0])

    assert window.play_window(table, game, lambda _: None, FakeClock(driver), FPS) == 0
    assert drawn[-1] is True and drawn.count(True) == 1  # drawn once, with the game over


# ------------------------------------------------------------ Rat-a-Tat Cat
def test_rat_a_tat_cat_played_to_the_end_from_the_window(tmp_path, capsys):
    path = tmp_path / "rtc.json"
    table = rtc_set_up(["--seed", "5", "--players", "3", "--record", str(path)])
    game = rtc_window.RatATatCatWindow(table)
    rng = np.random.default_rng(1)
    seen = {"swaps": 0, "decisions": 0, "illegal": 0}

    def driver(clock):
        if game.over:
            post("enter")
            return
        if not game.humans_turn or game.swap_keys:
            return
        mask = game.mask()
        legal = [int(a) for a in np.flatnonzero(mask)]
        seen["decisions"] += 1
        if seen["decisions"] % 4 == 1:  # a key that is no legal move now: nothing happens
            before = list(table.actions)
            for key in ("z", "d" if not mask[rtc_rules.ACTION_DRAW] else "k"):
                game.on_key(window.KeyPress(key, clock.now()))
            assert table.actions == before
            seen["illegal"] += 1
        swaps = [a for a in legal if a >= rtc_rules.ACTION_SWAP]
        if swaps:
            action = int(rng.choice(swaps))
            seen["swaps"] += 1
        elif mask[rtc_rules.ACTION_NO_KNOCK] and seen["decisions"] < 40:
            action = rtc_rules.ACTION_NO_KNOCK  # play on a while
        elif mask[rtc_rules.ACTION_DRAW]:
            action = rtc_rules.ACTION_DRAW  # power cards come from the draw pile
        else:
            action = int(rng.choice(legal))
        keys = game.keys_for(action)
        if len(keys) == 3:  # a Swap: a wrong second key and Backspace first
            keys = [keys[0], "backspace", keys[0], *keys[1:]]
        for key in keys:
            post(key)

    said = []
    assert window.play_window(table, game, said.append, FakeClock(driver), FPS) == 0
    assert game.over and seen["swaps"] > 0 and seen["illegal"] > 0
    assert any(line.startswith("Winner") for line in said)
    record = replays(path, capsys)
    assert record["actions"] == table.actions
    assert any(a >= rtc_rules.ACTION_SWAP for a in table.actions[::1])


def test_rat_a_tat_cat_hand_sum_counts_the_cards_known():
    codes = [3, rtc_rules.CODE_UNKNOWN, rtc_rules.CODE_NUMBER, 9]
    text, total, unknown = rtc_window.hand_text(codes)
    assert (total, unknown) == (12, 2) and "1: ?" in text and "2: #" in text


# ------------------------------------------------------------ Ratto Zakko
DELAYS_S = (0.2137, 0.3011, 0.2552, 0.4123, 0.1789)
"""The synthetic reaction times, one per card in turn."""


def test_ratto_zakko_reaction_times_are_the_synthetic_ones(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(rz_window, "READY_S", 0.3)  # a shorter countdown: fewer frames
    path = tmp_path / "rz.json"
    table = rz_set_up(["--seed", "3", "--players", "3", "--record", str(path)])
    game = rz_window.RattoZakkoWindow(table)
    keys = {response: key for key, response in rz_window.RESPONSE_KEYS.items()}
    assert len(keys) == rz_rules.NUM_RESPONSES  # a key for each of the 13 responses
    planned: dict[int, float] = {}
    synthetic: list[float] = []
    early = {"posted": False}

    def driver(clock):
        if game.over:
            post("enter")
            return
        if game.stage == "ready" and not early["posted"]:
            early["posted"] = True  # an answer before the card is shown: ignored
            post("a")
        if game.answering() and game.card_number not in planned:
            number = game.card_number
            delay = DELAYS_S[number % len(DELAYS_S)]
            correct = game.env.game.correct(game.env.truth)
            response = correct if number % 4 else (correct + 1) % rz_rules.NUM_RESPONSES
            planned[number] = delay
            synthetic.append(delay * 1000)
            clock.at(game.revealed_at + delay, lambda key=keys[response]: post(key))
        relocations = game.relocation_keys()
        if relocations:
            post("z")  # no relocation key: ignored
            post(sorted(relocations)[0])

    said = []
    assert window.play_window(table, game, said.append, FakeClock(driver), FPS) == 0
    assert game.over
    times = game.reaction_times
    assert [r.ms for r in times] == pytest.approx(synthetic, abs=1e-6)
    assert len(times) == game.env.game.total_cards  # the early key answered nothing
    assert all(r.tick == int(r.ms // game.tick_ms) for r in times)
    assert any(not r.correct for r in times) and any(r.correct for r in times)
    report = "\n".join(said)
    summary = game.human_times()
    assert summary.count == len(synthetic)
    assert summary.mean_ms == pytest.approx(np.mean(synthetic), abs=1e-6)
    assert summary.median_ms == pytest.approx(np.median(synthetic), abs=1e-6)
    assert f"right): {summary.text()}" in report
    assert f"mean {np.mean(synthetic):.0f} ms, median {np.median(synthetic):.0f} ms" in report
    for preset in ("child", "adult", "expert"):
        assert f"  {preset:6} mean " in report

    record = replays(path, capsys)
    assert [r["ms"] for r in record["reaction_times"]] == [r.ms for r in times]
    env = rz_raw_env(**record["options"])  # the answers' ticks, from the record alone
    env.reset(seed=record["seed"])
    ticks, last = [], None
    for action in record["actions"]:
        env.step(action)
        result = env.truth.last_result
        if result is not last and result is not None:
            last = result
            if 0 in result.answers:
                ticks.append(result.answers[0][1])
    assert ticks == [r.tick for r in times]


def test_ratto_zakko_rules_card_stops_the_clock(monkeypatch):
    monkeypatch.setattr(rz_window, "READY_S", 0.3)
    table = rz_set_up(["--seed", "1", "--players", "2", "--bots", "child"])
    game = rz_window.RattoZakkoWindow(table)
    script = {"done": False}

    def driver(clock):
        if game.answering() and not script["done"]:
            script["done"] = True
            shown = game.revealed_at
            clock.at(shown + 0.1, lambda: post("?"))  # 100 ms in: the rules card
            clock.at(shown + 10.0, lambda: post("f1"))  # 9.9 s later: back to the card
            clock.at(shown + 10.15, lambda: post(rz_window.GRAB_KEYS[0]))  # 150 ms later
            clock.at(shown + 11.0, lambda: post("escape"))

    said = []
    window.play_window(table, game, said.append, FakeClock(driver), FPS)
    (answer,) = game.reaction_times
    assert answer.ms == pytest.approx(250.0, abs=1e-6)  # the 9.9 s of rules do not count
    assert "Game abandoned." in said


def test_ratto_zakko_window_refuses_a_key_before_the_floor(monkeypatch):
    """With ``--min-reaction-ticks 7`` a key at 100 ms is refused (said so) and the person
    may answer again; the second key, at 260 ms, is the answer."""
    monkeypatch.setattr(rz_window, "READY_S", 0.3)
    argv = ["--seed", "1", "--players", "2", "--bots", "child", "--min-reaction-ticks", "7"]
    table = rz_set_up(argv)
    game = rz_window.RattoZakkoWindow(table)
    script = {"done": False}

    def driver(clock):
        if game.answering() and not script["done"]:
            script["done"] = True
            shown = game.revealed_at
            clock.at(shown + 0.1, lambda: post(rz_window.GRAB_KEYS[0]))
            clock.at(shown + 0.26, lambda: post(rz_window.GRAB_KEYS[1]))
            clock.at(shown + 1.0, lambda: post("escape"))

    said = []
    window.play_window(table, game, said.append, FakeClock(driver), FPS)
    lines = [text for text, _ in game.messages]
    assert "too early (100 ms): answers before 175 ms are refused" in lines
    (answer,) = game.reaction_times
    assert answer.ms == pytest.approx(260.0, abs=1e-6) and answer.tick == 10


# ------------------------------------------------------------ the command line
def _esc() -> None:
    post("escape")


def _ctrl_c() -> None:
    raise KeyboardInterrupt  # Ctrl-C in the terminal that launched the window


@pytest.mark.parametrize(("stop", "status"), [(_esc, 0), (_ctrl_c, 130)])
def test_cli_window_quit_saves_the_record(tmp_path, capsys, monkeypatch, stop, status):
    """Esc quits and saves the record; Ctrl-C too (the record was lost), with the exit
    status of an interrupt."""
    path = tmp_path / "abandoned.json"

    class StopClock(FakeClock):
        def __init__(self):
            super().__init__(self.drive)

        def drive(self, clock):
            if self.waits == 3:
                post("d")  # draw: the first move
            elif self.waits == 6:
                stop()

    monkeypatch.setattr(window, "Clock", StopClock)
    argv = ["play", "rat-a-tat-cat", "--window", "--seed", "2", "--record", str(path)]
    assert cli.main(argv) == status
    out = capsys.readouterr().out
    assert "Game abandoned." in out and "Record saved" in out
    record = replays(path, capsys)
    assert record["actions"][0] == rtc_rules.ACTION_DRAW


def test_cli_window_without_pygame_is_one_error_line(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "pygame", None)  # import pygame fails
    argv = ["play", "catz-ratz-batz", "--window", "--bots", "lowest", "--seed", "1"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ['error: the window needs pygame: pip install "ratenvs[render]"']


def test_key_names_of_events():
    assert window.key_name(pygame, pygame.event.Event(pygame.KEYDOWN, key=pygame.K_a, unicode="A"))
    names = {
        (pygame.K_a, "A"): "a",
        (pygame.K_SLASH, "?"): "?",
        (pygame.K_ESCAPE, ""): "escape",
        (pygame.K_F1, ""): "f1",
        (pygame.K_SPACE, " "): "space",
        (pygame.K_RETURN, "\r"): "enter",
    }
    for (code, text), name in names.items():
        event = pygame.event.Event(pygame.KEYDOWN, key=code, unicode=text)
        assert window.key_name(pygame, event) == name


@pytest.mark.parametrize("driver", ["offscreen", "dummy"])
def test_no_screen_is_one_clear_error_not_a_window_that_waits_forever(monkeypatch, driver):
    """With no DISPLAY or WAYLAND_DISPLAY, SDL falls back on a driver that shows nothing:
    ``ratenvs play GAME --window`` then waited for keys forever. Unless the user chose such
    a driver (``SDL_VIDEODRIVER``, as these tests do), the window refuses to open."""
    from types import SimpleNamespace

    from ratenvs.common import window as win
    from ratenvs.common.arguments import UsageError

    calls = []
    display = SimpleNamespace(
        init=lambda: calls.append("init"),
        get_driver=lambda: driver,
        quit=lambda: calls.append("quit"),
        set_caption=lambda title: calls.append("caption"),
    )
    fake = SimpleNamespace(display=display)
    monkeypatch.delenv("SDL_VIDEODRIVER", raising=False)
    with pytest.raises(UsageError, match=r"^no screen to open the window on .* without --window$"):
        win.Window("t", win.Clock(), fake)
    assert calls == ["init", "quit"]
    monkeypatch.setenv("SDL_VIDEODRIVER", driver)  # asked for: it opens
    win.Window("t", win.Clock(), fake)
    assert calls[-1] == "caption"
    display.get_driver = lambda: "x11"
    monkeypatch.delenv("SDL_VIDEODRIVER")
    win.Window("t", win.Clock(), fake)


def test_no_screen_in_the_environment_is_found_before_sdl_speaks(monkeypatch):
    """On Linux with no DISPLAY, WAYLAND_DISPLAY or SDL_VIDEODRIVER the window refuses before
    pygame opens a display (SDL printed a line of its own, XDG_RUNTIME_DIR..., before ours)."""
    from ratenvs.common import window as win
    from ratenvs.common.arguments import UsageError

    monkeypatch.setattr(win.sys, "platform", "linux")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    real = win.require_pygame
    monkeypatch.setattr(win, "require_pygame", lambda: pytest.fail("pygame was opened"))
    with pytest.raises(UsageError, match=r"^no screen to open the window on"):
        win.Window("t", win.Clock())
    monkeypatch.setattr(win, "require_pygame", real)  # the command imports it: no display yet
    argv = ["play", "catz-ratz-batz", "--window", "--bots", "lowest", "--seed", "1"]
    monkeypatch.setattr(win, "Window", lambda *a, **k: pytest.fail("a window was opened"))
    assert cli.main(argv) == 2  # the command: one line, ours
    monkeypatch.setenv("DISPLAY", ":0")
    assert not win.no_screen_in_env()


def test_rat_a_tat_cat_says_out_where_a_player_out_of_the_game_had_a_hand():
    """Out of an elimination game, player_0's slots are empty: the panel and the terminal
    read them as cards (-1 each, a sum of -4); they now say the player is out."""
    from ratenvs.rat_a_tat_cat.observe import EMPTY
    from ratenvs.rat_a_tat_cat.play import known_hand

    table = rtc_set_up(["--seed", "9", "--players", "3", "--target-score", "15"])
    game = rtc_window.RatATatCatWindow(table)
    env = game.env
    env.truth.active[0], env.truth.totals[0] = False, 23  # as after a round that put it out
    env.truth.hands[0] = [rtc_rules.NO_CARD] * rtc_rules.SLOTS
    assert game.panel(0.0)[0][0] == known_hand(env) == "You are out of the game (total 23)."
    with pytest.raises(ValueError, match="out of the game has no hand"):
        rtc_window.hand_text([EMPTY] * rtc_rules.SLOTS)


def _human(module, fps=1000):
    env = module.raw_env(render_mode="human")
    env.metadata = {**env.metadata, "render_fps": fps}  # no half-second waits in a test
    return env


def _first_legal(env):
    return int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])


def test_human_windows_share_the_display_copy_without_it_and_wait_for_reset():
    """Closing one "human" env no longer quits another's window (its next frame crashed);
    a copy of an env whose window is open leaves the window behind (deepcopy and pickle
    raised on pygame's surface); render() before reset() is refused (it drew a placeholder
    deal); the person closing the window ends it until the env's close()."""
    import copy
    import pickle

    import pygame

    from ratenvs import catz_ratz_batz_v0, rat_a_tat_cat_v1
    from ratenvs.wrappers import SingleAgentEnv

    for env in (
        rat_a_tat_cat_v1.raw_env(render_mode="rgb_array"),
        rat_a_tat_cat_v1.parallel_env(render_mode="ansi"),
        SingleAgentEnv("catz_ratz_batz", render_mode="ansi"),
    ):
        with pytest.raises(RuntimeError, match=r"render\(\) before reset\(\)"):
            env.render()
    a, b = _human(rat_a_tat_cat_v1), _human(catz_ratz_batz_v0)
    a.reset(seed=1)
    b.reset(seed=1)
    a.close()
    b.step(_first_legal(b))  # renders in the window a left open
    assert b._window.is_open and pygame.display.get_init()
    for twin in (copy.deepcopy(b), pickle.loads(pickle.dumps(b))):
        assert not twin._window.is_open and twin.game_state() == b.game_state()
    pygame.event.post(pygame.event.Event(pygame.QUIT))  # the person closes the window
    b.step(_first_legal(b))
    b.step(_first_legal(b))
    assert not b._window.is_open and not pygame.display.get_init()  # it stays closed
    b.close()
    b.reset(seed=2)  # after close(), a new game opens it again
    assert b._window.is_open
    b.close()


def test_a_human_envs_resampled_copies_open_no_window():
    """A search steps many resampled copies: in "human" mode each opened a window and waited
    half a second a step."""
    from ratenvs import rat_a_tat_cat_v1

    env = _human(rat_a_tat_cat_v1)
    env.reset(seed=3)
    copy = env.resample_from_infostate("player_0", seed=1)
    assert copy.render_mode is None and copy.render_view == env.render_view
    copy.step(_first_legal(copy))
    assert copy._window is None
    env.close()
