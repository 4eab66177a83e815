"""Draw the README's pictures: one frame of each game and a replay GIF, from real bot games,
and the window player's pictures (``ratenvs play GAME --window``) for docs/window.md.

    python docs/make_pictures.py            # writes docs/images/*.png and *.gif

Each game is played by its scripted bots from a fixed seed (see ``PICTURES``),
so the pictures are reproducible; the window's pictures are drawn without a window (a
window game's frames are Pillow pictures; pygame only shows them).
"""

from __future__ import annotations

import importlib
from pathlib import Path

from PIL import Image

from ratenvs.common.record import record_bot_game, replay_frames
from ratenvs.common.render import save_gif
from ratenvs.games import available_games, get_game

OUT = Path(__file__).parent / "images"
PICTURES = {
    "catz_ratz_batz": {"bots": ["optimal", "lowest"], "seed": 4, "options": {"turns": 2}},
    "rat_a_tat_cat": {"bots": ["heuristic", "heuristic", "heuristic"], "seed": 8, "options": {}},
    "ratto_zakko": {
        "bots": ["adult", "adult", "expert", "child"],
        "seed": 1,
        "options": {"level": "dessert"},
    },
}
"""Per game: bots per seat, seed, env options; the frame shown is the middle of the game."""
GIF_GAME = "catz_ratz_batz"
MAX_GIF_FRAMES = 60


WINDOW_PICTURES = {
    "catz_ratz_batz": ["--seed", "4", "--bots", "optimal"],
    "rat_a_tat_cat": ["--seed", "8", "--players", "3"],
    "ratto_zakko": ["--seed", "1", "--level", "dessert", "--players", "4"],
}
"""Per game: the ``ratenvs play GAME --window`` arguments of its window picture."""
WINDOW_ANSWER_S = 0.3
"""Ratto Zakko's window picture: this long after the card appeared."""


def window_picture(name: str, argv: list[str]) -> Image.Image:
    """The window of ``ratenvs play <name> --window <argv>`` at player_0's first decision
    (Catz, Ratz and Batz: after its first roll; Ratto Zakko: a moment into the first card)."""
    play = importlib.import_module(f"ratenvs.{name}.play")
    window = importlib.import_module(f"ratenvs.{name}.window")
    table = play.set_up(argv)
    classes = {
        "catz_ratz_batz": "CatzWindow",
        "rat_a_tat_cat": "RatATatCatWindow",
        "ratto_zakko": "RattoZakkoWindow",
    }
    game = getattr(window, classes[name])(table)
    now = 0.0
    game.start(now)
    if name == "ratto_zakko":
        now = window.READY_S
        game.update(now)
        game.shown(now)
        now += WINDOW_ANSWER_S
    else:
        now = 60.0  # the bots before player_0 have moved
    game.update(now)
    if name == "catz_ratz_batz":
        game.on_key(window.KeyPress(window.ROLL_KEY, now))
    return Image.fromarray(game.frame(now))


def main() -> None:
    OUT.mkdir(exist_ok=True)
    present = available_games()
    for name, spec in PICTURES.items():
        if name not in present or get_game(name).load().raw_env.draw is None:
            print(f"skip {name}: no frames")
            continue
        bots_registry = get_game(name).bots()
        bots = [bots_registry[b]() for b in spec["bots"]]
        record = record_bot_game(name, bots, seed=spec["seed"], **spec["options"])
        frames = replay_frames(record, render_view="player_0")
        Image.fromarray(frames[len(frames) // 2]).save(OUT / f"{name}.png")
        print(f"wrote {OUT / f'{name}.png'}")
        if name == GIF_GAME:
            save_gif(frames[:MAX_GIF_FRAMES], OUT / f"{name}_replay.gif", fps=2)
            print(f"wrote {OUT / f'{name}_replay.gif'}")
    for name, argv in WINDOW_PICTURES.items():
        if name in present:
            window_picture(name, argv).save(OUT / f"window_{name}.png")
            print(f"wrote {OUT / f'window_{name}.png'}")


if __name__ == "__main__":
    main()
