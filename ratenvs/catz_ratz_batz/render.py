"""Pictures of a Catz, Ratz and Batz game: the nine dice and the scoreboard.

Everything in this game is public, so every seat's view shows the same dice;
the viewing seat is marked "(you)" on the scoreboard.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ratenvs.catz_ratz_batz.rules import (
    PHASE_KEEP,
    PHASE_OVER,
    CatzRatzBatz,
    State,
    numbers_showing,
)
from ratenvs.common.render import HIGHLIGHT, INK, MUTED, PAPER, WHITE, Canvas

WIDTH, HEIGHT = 640, 400
DIE = 56
GAP = 10
ANIMALS = (
    ("cat", "C", (234, 140, 50)),
    ("bat", "B", (126, 87, 194)),
    ("rat", "R", (120, 120, 120)),
)
"""Name, letter and colour of each animal face."""


def _die(canvas: Canvas, x: int, y: int, label: str, fill, ink, ring=None) -> None:
    canvas.box((x, y, x + DIE, y + DIE), fill=fill, outline=ring or INK, width=4 if ring else 2)
    canvas.text((x + DIE / 2, y + DIE / 2), label, size=28, fill=ink, anchor="mm")


def draw(
    game: CatzRatzBatz,
    state: State,
    agents: list[str],
    view_seat: int | None,
    pending: Mapping[int, int] | None = None,
) -> np.ndarray:
    """The frame: dice set aside and in play (the kept number ringed) and each seat's total
    (one seat acts at a time, so nothing is ever ``pending``)."""
    c = Canvas(WIDTH, HEIGHT)
    over = state.phase == PHASE_OVER
    if over:
        title = "game over"
    else:
        title = f"{agents[state.current]} to " + ("keep" if state.phase == PHASE_KEEP else "roll")
    c.text((16, 12), "Catz, Ratz and Batz", size=22)
    c.text((WIDTH - 16, 14), title, size=18, fill=HIGHLIGHT, anchor="ra")

    d = state.dice
    c.text((16, 56), "set aside", size=14, fill=MUTED)
    x = 16
    for (name, letter, colour), count in zip(ANIMALS, (d.cats, d.bats, d.rats)):
        for _ in range(count):
            _die(c, x, 76, letter, colour, WHITE)
            x += DIE + GAP
        del name
    c.text((16, 150), "in play", size=14, fill=MUTED)
    x = 16
    for number, count in zip((3, 5, 7), d.numbers):
        ring = HIGHLIGHT if state.kept == number else None
        for _ in range(count):
            _die(c, x, 170, str(number), PAPER, INK, ring)
            x += DIE + GAP
    if state.phase == PHASE_KEEP:
        keeps = ", ".join(str(k) for k in numbers_showing(d))
        c.text((16, 236), f"keep one of: {keeps}", size=16)
    elif state.last_turn_score is not None:
        c.text((16, 236), f"last turn scored {state.last_turn_score}", size=16)

    y = 270
    c.text((16, y), "seat", size=14, fill=MUTED)
    c.text((300, y), "total", size=14, fill=MUTED, anchor="ra")
    c.text((420, y), "turns left", size=14, fill=MUTED, anchor="ra")
    winners = state.winners() if over else [False] * len(state.totals)
    for i, agent in enumerate(agents):
        y += 20
        colour = HIGHLIGHT if (not over and i == state.current) or winners[i] else WHITE
        mark = " (you)" if view_seat == i else ""
        crown = "  winner" if winners[i] else ""
        c.text((16, y), f"{agent}{mark}{crown}", size=15, fill=colour)
        c.text((300, y), str(state.totals[i]), size=15, fill=colour, anchor="ra")
        left = game.turns_left(state, i)
        c.text((420, y), "-" if left is None else str(left), size=15, fill=colour, anchor="ra")
    return c.to_array()
