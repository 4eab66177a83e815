"""Views of a Rat-a-Tat Cat table, text and pictures, both from the observer's seat view.

Text rendering of a Rat-a-Tat Cat table from a :class:`~ratenvs.rat_a_tat_cat.observe.SeatView`.

The observer decides what a view may see (:meth:`TableObserver.seat_view`); this
module only formats it, so a seat's text shows exactly what its observation
carries: its knowledge of every slot (``?`` unknown, ``#`` a number card of
unknown value), the held card only when it is the seat's own, the decision
phase only when it is the seat's decision, and the public table.

Pictures:

Pictures of a Rat-a-Tat Cat table (``render_mode="rgb_array"`` and the human window).

One frame shows every player's four slots, the draw pile, the discard top,
the card the player to act holds, whose turn it is, the knock and the totals.

A frame is drawn from the observer's
:class:`~ratenvs.rat_a_tat_cat.observe.SeatView` only (the same view the text
of that seat is formatted from): a seat's picture shows the knowledge codes of
its observation (``state.know``, or ``state.recent`` in the "memoryless" mode),
the held card face up only when it is that seat's own (another player's held
card, drawn or taken from the discard, is face down), and the decision phase
only when it is that seat's. In the "knowledge" mode it also rings the cards
the seat saw since its last decision (the peek after the deal, a Peek, the
reveal), which is the seat's own information. The omniscient picture turns
every card face up and marks the cards their owner knows.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import numpy as np
from PIL import Image

from ratenvs.common.render import HIGHLIGHT, INK, MUTED, PAPER, WHITE, Canvas, Colour, Sprite, label
from ratenvs.rat_a_tat_cat.observe import EMPTY, SeatView
from ratenvs.rat_a_tat_cat.rules import (
    CARD_NAMES,
    CODE_NUMBER,
    CODE_UNKNOWN,
    DRAW2,
    PEEK,
    PHASE_DRAW2,
    PHASE_KNOCK,
    PHASE_NAMES,
    PHASE_NUMBER,
    PHASE_PEEK,
    PHASE_PLACE,
    PHASE_START,
    PHASE_SWAP,
    SLOTS,
    SWAP,
    RatATatCat,
    State,
)

WIDTH = 800
MIN_HEIGHT = 500
HEADER = 56
"""Height of the title bar."""
MARGIN = 16
ROW_HEIGHT = 116
"""Height of one player's row (name panel and four cards)."""
CARD_W, CARD_H = 64, 88
CARD_GAP = 10
NAME_W = 164
"""Width of the name panel left of a player's cards."""
CARDS_X = MARGIN + NAME_W + 12
PILES_X = CARDS_X + SLOTS * CARD_W + (SLOTS - 1) * CARD_GAP + 40
"""Left edge of the right-hand column (piles, held card, status)."""

BACK: Colour = (44, 62, 120)
BACK_INNER: Colour = (92, 112, 172)
ROW_FILL: Colour = (30, 108, 72)
ROW_TO_ACT: Colour = (38, 126, 84)
ALERT: Colour = (255, 120, 90)
LOW_INK: Colour = (26, 120, 60)
HIGH_INK: Colour = (176, 38, 38)
POWER_STYLE: dict[int, tuple[Colour, tuple[str, ...]]] = {
    PEEK: ((30, 146, 168), ("PEEK",)),
    SWAP: ((226, 124, 36), ("SWAP",)),
    DRAW2: ((134, 78, 188), ("DRAW", "2")),
}
"""Fill colour and face text of each power card."""
LOW_CARD_MAX, HIGH_CARD_MIN = 3, 7
"""Number cards up to 3 are printed green, from 7 red (lower is better)."""

PHASE_HINTS = {
    PHASE_START: "draw, or take the discard",
    PHASE_PLACE: "place the taken discard",
    PHASE_NUMBER: "place or discard the drawn card",
    PHASE_PEEK: "use the Peek, or decline it",
    PHASE_SWAP: "use the Swap, or decline it",
    PHASE_DRAW2: "use the Draw 2, or decline it",
    PHASE_KNOCK: "knock, or not",
}
"""What the player to act decides in each phase (shown to that seat and the omniscient view)."""


def frame_height(num_players: int) -> int:
    """Frame height for ``num_players`` rows (the width is always :data:`WIDTH`)."""
    return max(MIN_HEIGHT, HEADER + 8 + num_players * ROW_HEIGHT + MARGIN)


def _number_ink(kind: int) -> Colour:
    if kind <= LOW_CARD_MAX:
        return LOW_INK
    return HIGH_INK if kind >= HIGH_CARD_MIN else INK


RING = 4
"""Width of the ring around a just-seen card (sprites are this much larger on each side)."""


@lru_cache(maxsize=128)
def card_sprite(code: int, owner_knows: bool = False, just_seen: bool = False) -> Image.Image:
    """The picture of one card (cached: a frame pastes these instead of drawing text anew).

    ``code`` is a kind 0..12 (face up), ``CODE_NUMBER`` (face down, a number card of
    unknown value), ``CODE_UNKNOWN`` (face down) or ``EMPTY``. ``owner_knows`` puts a dot in
    the corner (omniscient view); ``just_seen`` rings the card (seen by the viewing seat since
    its last decision)."""
    c = Sprite(CARD_W + 2 * RING, CARD_H + 2 * RING)
    x, y = RING, RING
    rect = (x, y, x + CARD_W, y + CARD_H)
    cx, cy = x + CARD_W / 2, y + CARD_H / 2
    if just_seen:
        c.box((0, 0, c.width - 1, c.height - 1), fill=HIGHLIGHT, outline=None)
    if code == EMPTY:
        c.box(rect, fill=None, outline=MUTED, width=1)
    elif code in (CODE_UNKNOWN, CODE_NUMBER):
        c.box(rect, fill=BACK, outline=INK)
        c.box((x + 6, y + 6, x + CARD_W - 6, y + CARD_H - 6), fill=None, outline=BACK_INNER)
        if code == CODE_NUMBER:
            c.box((x + 9, cy - 13, x + CARD_W - 9, cy + 13), fill=WHITE, outline=INK, radius=4)
            c.text((cx, cy), "0-9", size=17, fill=INK, anchor="mm")
        else:
            c.text((cx, cy), "?", size=30, fill=BACK_INNER, anchor="mm")
    elif code in POWER_STYLE:
        fill, words = POWER_STYLE[code]
        c.box(rect, fill=fill, outline=INK)
        if len(words) == 1:
            c.text((cx, cy), words[0], size=17, fill=WHITE, anchor="mm")
        else:
            c.text((cx, cy - 14), words[0], size=16, fill=WHITE, anchor="mm")
            c.text((cx, cy + 14), words[1], size=30, fill=WHITE, anchor="mm")
    else:
        c.box(rect, fill=PAPER, outline=INK)
        ink = _number_ink(code)
        c.text((cx, cy + 2), str(code), size=46, fill=ink, anchor="mm")
        c.text((x + 6, y + 4), str(code), size=13, fill=ink)
    if owner_knows:
        c.circle((x + CARD_W - 9, y + 9), 6, fill=HIGHLIGHT, outline=INK, width=1)
    return c.image


def draw_card(
    c: Canvas,
    x: int,
    y: int,
    code: int,
    owner_knows: bool = False,
    just_seen: bool = False,
) -> None:
    """One card with its top-left corner at ``(x, y)`` (see :func:`card_sprite`)."""
    sprite = card_sprite(code, owner_knows, just_seen)
    c.image.paste(sprite, (x - RING, y - RING), sprite)


def _draw_pile(c: Canvas, x: int, y: int, size: int) -> None:
    """The face-down draw pile: a small stack and its card count."""
    label(c, (x, y - 26), "draw pile", size=14, fill=MUTED)
    if size == 0:
        draw_card(c, x, y, EMPTY)
    else:
        for k in range(min(2, size - 1), 0, -1):
            draw_card(c, x + 3 * k, y - 3 * k, CODE_UNKNOWN)
        draw_card(c, x, y, CODE_UNKNOWN)
    label(c, (x + CARD_W / 2, y + CARD_H + 8), f"{size} cards", size=14, anchor="ma")


def _seat_codes(view: SeatView, p: int) -> list[int]:
    """What the view shows of player ``p``'s slots (kinds or face-down codes)."""
    return view.codes[p]


def draw(
    game: RatATatCat,
    state: State,
    agents: list[str],
    view_seat: int | None,
    pending: Mapping[int, int] | None = None,
) -> np.ndarray:
    """The frame of ``state`` seen by ``view_seat`` (None: omniscient) through the game's
    observer (the env's: its :meth:`~ratenvs.rat_a_tat_cat.observe.TableObserver.seat_view`
    only); one player acts at a time, so nothing is ever ``pending``."""
    observer = game.observer(game.observation_kind)
    return draw_view(observer.seat_view(state, view_seat), agents)


def draw_view(view: SeatView, agents: list[str]) -> np.ndarray:
    """The frame of a :class:`~ratenvs.rat_a_tat_cat.observe.SeatView`."""
    n = len(agents)
    view_seat = view.seat
    c = Canvas(WIDTH, frame_height(n))
    over = view.over
    sees_all = view_seat is None
    mode = view.mode
    rounds = view.rounds

    # ---------------------------------------------------------------- title bar
    label(c, (MARGIN, 12), "Rat-a-Tat Cat", size=24)
    round_text = f"round {view.round_index + 1}" + (f" of {rounds}" if rounds else "")
    if view.out_at is not None:
        round_text += f"  (out at {view.out_at})"
    label(c, (MARGIN + 180, 18), f"{round_text}   turn {view.turns_this_round + 1}", size=16)
    viewer = "omniscient: all cards face up" if sees_all else f"view: {agents[view_seat]}"
    label(c, (WIDTH - MARGIN, 18), viewer, size=16, fill=HIGHLIGHT, anchor="ra")

    # ------------------------------------------------------------ player rows
    order = list(range(n)) if sees_all else [(view_seat + k) % n for k in range(n)]
    winners = view.winners or [False] * n
    y = HEADER + 8
    for p in order:
        to_act = not over and p == view.current
        c.box(
            (MARGIN - 6, y, PILES_X - 24, y + ROW_HEIGHT - 4),
            fill=ROW_TO_ACT if to_act else ROW_FILL,
            outline=HIGHLIGHT if to_act else None,
            width=3,
        )
        name = agents[p] + (" (you)" if p == view_seat else "")
        label(c, (MARGIN + 4, y + 10), name, size=18, fill=HIGHLIGHT if to_act else WHITE)
        label(c, (MARGIN + 4, y + 34), f"total {view.totals[p]}", size=15)
        if view.last_round_points is not None and view.last_round_played[p]:
            last = f"last round {view.last_round_points[p]}"
            label(c, (MARGIN + 4, y + 56), last, size=13, fill=MUTED)
        badges = []
        if to_act:
            badges.append(("to act", HIGHLIGHT))
        if view.knocked_by == p:
            badges.append(("KNOCKED", ALERT))
        if not view.active[p]:
            badges.append(("out", MUTED))
        if winners[p]:
            badges.append(("WINNER", HIGHLIGHT))
        bx = MARGIN + 4
        for text, colour in badges:
            label(c, (bx, y + 76), text, size=15, fill=colour)
            bx += 12 + 9 * len(text)
        codes = _seat_codes(view, p)
        for s, code in enumerate(codes):
            x = CARDS_X + s * (CARD_W + CARD_GAP)
            marked = view.marks[p][s] and code != EMPTY
            if sees_all:
                draw_card(c, x, y + 4, code, owner_knows=marked)
            else:
                draw_card(c, x, y + 4, code, just_seen=marked)
            label(
                c, (x + CARD_W / 2, y + CARD_H + 8), f"slot {s}", size=11, fill=MUTED, anchor="ma"
            )
        y += ROW_HEIGHT

    # ------------------------------------------------------------------ piles
    px, py = PILES_X, HEADER + 36
    _draw_pile(c, px, py, view.draw_pile)
    dx = px + CARD_W + 40
    label(c, (dx, py - 26), "discard", size=14, fill=MUTED)
    top = view.discard_top
    draw_card(c, dx, py, EMPTY if top is None else top)
    label(
        c,
        (dx + CARD_W / 2, py + CARD_H + 8),
        f"{view.discard_pile} cards",
        size=14,
        anchor="ma",
    )

    # ------------------------------------------------------- the held card
    hy = py + CARD_H + 62
    if not over and view.held is not None:
        shows = view.held < CODE_NUMBER
        how = "taken from the discard" if view.held_public else "drawn"
        label(c, (px, hy - 20), f"{agents[view.current]} holds", size=14, fill=MUTED)
        draw_card(c, px, hy, view.held)
        label(c, (px + CARD_W + 12, hy + 30), how, size=14)
        if not shows:
            label(c, (px + CARD_W + 12, hy + 50), "(hidden from you)", size=14, fill=MUTED)

    # ------------------------------------------------------------------ status
    sy = hy + CARD_H + 24
    lines: list[tuple[str, Colour]] = []
    if over:
        names = ", ".join(agents[p] for p in range(n) if winners[p])
        lines.append(("game over", HIGHLIGHT))
        lines.append((f"winner: {names}", HIGHLIGHT))
    else:
        lines.append((f"{agents[view.current]} to act", HIGHLIGHT))
        if view.phase is not None:
            lines.append((PHASE_HINTS[view.phase], WHITE))
        else:
            lines.append(("playing", WHITE))
        if view.knocked_by is not None:
            left = view.final_turns_left
            turns = f"{left} turn{'' if left == 1 else 's'} left"
            lines.append((f"{agents[view.knocked_by]} knocked, {turns}", ALERT))
    for text, colour in lines:
        label(c, (px, sy), text, size=16, fill=colour)
        sy += 22

    # ------------------------------------------------------------------ legend
    ly = c.height - 58
    if not sees_all:
        label(c, (px, ly), "0-9 = a number card of unknown value", size=12, fill=MUTED)
    if sees_all:
        c.circle((px + 5, ly + 26), 5, fill=HIGHLIGHT, outline=INK, width=1)
        label(c, (px + 16, ly + 19), "its owner knows this card", size=12, fill=MUTED)
    elif mode == "knowledge":
        c.box((px, ly + 19, px + 10, ly + 31), fill=HIGHLIGHT, outline=None, radius=2)
        label(c, (px + 16, ly + 19), "seen since your last move", size=12, fill=MUTED)
    return c.to_array()


# ------------------------------------------------------------------ text
UNKNOWN_MARK = "?"
NUMBER_MARK = "#"


def _code_text(code: int) -> str:
    if code < CODE_NUMBER:
        return CARD_NAMES[code]
    return NUMBER_MARK if code == CODE_NUMBER else UNKNOWN_MARK


def render_view(view: SeatView, agents: list[str]) -> str:
    """The table as text. ``view.seat=None``: omniscient (every card, with ``*`` on the cards
    the owner knows); otherwise only what that seat's observation carries."""
    lines = []
    seat = view.seat
    viewer = "omniscient" if seat is None else agents[seat]
    lines.append(f"round {view.round_index + 1}  turn {view.turns_this_round + 1}  view: {viewer}")
    over = view.over
    for p, name in enumerate(agents):
        mark = ">" if (not over and p == view.current) else " "
        if view.out[p]:
            lines.append(f"{mark} {name}: out          total {view.totals[p]}")
            continue
        cells = []
        for s in range(SLOTS):
            code = view.codes[p][s]
            if seat is None:
                text = ("-" if code == EMPTY else CARD_NAMES[code]) + (
                    "*" if view.marks[p][s] else ""
                )
            else:
                text = _code_text(code)
            cells.append(f"{text:>6}")
        knock = "  (knocked)" if view.knocked_by == p else ""
        lines.append(f"{mark} {name}: [{' '.join(cells)} ]  total {view.totals[p]}{knock}")
    top = view.discard_top
    lines.append(
        f"discard top: {CARD_NAMES[top] if top is not None else '(empty)'}"
        f"   draw pile: {view.draw_pile}   discard pile: {view.discard_pile}"
    )
    if over:
        winners = [agents[p] for p, w in enumerate(view.winners or []) if w]
        lines.append(f"game over - winner(s): {', '.join(winners)}")
    else:
        who = agents[view.current]
        held = ""
        if view.held is not None and view.held < CODE_NUMBER:
            held = f", holding {CARD_NAMES[view.held]}"
        elif view.held is not None:
            held = ", holding the taken discard" if view.held_public else ", holding a drawn card"
        phase = PHASE_NAMES[view.phase] if view.phase is not None else "playing"
        lines.append(f"{who} to act ({phase}{held})")
        if view.knocked_by is not None:
            lines.append(f"{agents[view.knocked_by]} knocked; {view.final_turns_left} turn(s) left")
    if view.last_round_points is not None:
        pts = ", ".join(f"{agents[p]} {pt}" for p, pt in enumerate(view.last_round_points))
        lines.append(f"last round: {pts}")
    return "\n".join(lines)
