"""Draw the README's pictures: one frame of each game and a replay GIF, from real bot games.

    python docs/make_pictures.py            # writes docs/images/*.png and *.gif

Each game is played by its scripted bots from a fixed seed (see ``PICTURES``),
so the pictures are reproducible.
"""

from __future__ import annotations

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


if __name__ == "__main__":
    main()
