"""Pictures of a Ratto Zakko table (``render_mode="rgb_array"`` and the human window).

One frame shows the five cloches in their original colours (apple green, egg
white, cheese yellow, fish blue, chili red) with the food named on each, the
rat shaker on its cloche, the fly under its cloche, the revealed card, the
tick within the reaction window (a progress bar) and the time, each player's
won cards and who has answered this card, the jackpot, the cards left, the
level and the relocation phase (who may move the fly or the shaker).

What a view shows:

- The omniscient view shows the truth: the fly always, the true card and the
  answer that is correct now, what every player has answered (also in the
  current tick, before it resolves) and how sure each player is of the card.
- A seat's view draws from that seat's observation (the game's observer,
  :class:`~ratenvs.ratto_zakko.observe.SeatObserver`) and the public table (won
  cards, jackpot, deck, dealer, relocating winner, how the last card ended):
  the fly only when the observation carries it (the "knowledge" mode: always;
  "memoryless": at the ticks ``fly_shown``); the card as the seat has
  perceived it so far (its Bayes posteriors over the 7 identities and 5
  colours as bars; the card is named only once the seat is
  :data:`~ratenvs.ratto_zakko.perception.CERTAINTY` sure, else "?"), never
  the true card; which players answered in an earlier tick (not what they
  said, which the observation does not carry; the seat's own answer is shown
  to it); of the last card only its public outcome (who won it and how many
  cards, or that it went to the jackpot, and who returned a card), not the
  card or the correct answer, which the observation does not carry either.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from ratenvs.common.render import (
    HIGHLIGHT,
    INK,
    MUTED,
    PAPER,
    WHITE,
    Canvas,
    Colour,
    Sprite,
    label,
    paste,
)
from ratenvs.ratto_zakko.observe import perceived
from ratenvs.ratto_zakko.perception import CERTAINTY
from ratenvs.ratto_zakko.rules import (
    ACTION_RESPONSE_FIRST,
    ACTION_WAIT,
    BANG,
    COLOURS,
    FLY_CARD,
    FOODS,
    GRAB_FIRST,
    IDENTITIES,
    NO_ANSWER,
    NUM_COLOURS,
    NUM_FOODS,
    PHASE_OVER,
    PHASE_REACT,
    PHASE_RELOCATE,
    RAT_CARD,
    RESPONSES,
    SHOUT_FLY,
    SHOUT_FOOD_FIRST,
    SHOUT_RAT,
    CardResult,
    RattoZakko,
    State,
)

WIDTH, HEIGHT = 960, 620
MARGIN = 16
HEADER = 52
"""Height of the title bar."""

TABLE_BG: Colour = (44, 48, 66)
"""The table (slate, so that every cloche colour stands out)."""
PANEL: Colour = (58, 63, 84)
PANEL_LIGHT: Colour = (72, 78, 102)
ALERT: Colour = (255, 120, 90)
GOOD: Colour = (120, 220, 130)
SILVER: Colour = (196, 198, 206)
SILVER_DARK: Colour = (120, 124, 136)
UNSURE_CARD: Colour = (128, 132, 146)
FLY_CARD_FILL: Colour = (70, 70, 78)
RAT_CARD_FILL: Colour = (150, 118, 92)

CLOCHE_COLOURS: tuple[Colour, ...] = (
    (84, 176, 72),  # apple green
    (246, 244, 236),  # egg white
    (248, 206, 48),  # cheese yellow
    (48, 112, 214),  # fish blue
    (216, 48, 40),  # chili red
)
"""The five colours, ``CLOCHE_COLOURS[i]`` for ``COLOURS[i]``: each cloche's original colour
and the colour a food card is printed in."""
ON_COLOUR_INK: tuple[Colour, ...] = (INK, INK, INK, WHITE, WHITE)
"""Legible text colour on each of :data:`CLOCHE_COLOURS`."""

# ------------------------------------------------------------------ layout
TABLE_RIGHT = 596
"""Right edge of the left part (cloches, card, clock, last card)."""
CLOCHE_W, CLOCHE_GAP = 100, 14
CLOCHE_X0 = 30
DOME_H = 92
"""Height of a cloche's dome above its plate."""
CLOCHE_BASE = 236
"""y of the plates the cloches stand on."""
SHAKER_W, SHAKER_H = 30, 44
FLY_W, FLY_H = 40, 30
CARD_X, CARD_Y = 36, 336
CARD_W, CARD_H = 132, 160
BARS_X = CARD_X + CARD_W + 28
"""Left edge of the text and bars right of the card."""
COLOUR_BARS_X = BARS_X + 206
BAR_ROW = 15
BAR_LABEL_W = 48
BAR_LEN = 110
CLOCK_Y = 510
"""Top of the reaction-window clock (label and progress bar)."""
LAST_Y = 551
"""Top of the two lines about the last card."""
PLAYERS_X = 612
PLAYERS_RIGHT = WIDTH - MARGIN
PLAYERS_Y = HEADER + 32
ROW_H = 50
"""Height of one player's row (8 rows fit)."""


def totals_y(num_players: int) -> int:
    """Top of the jackpot / deck line below the players' rows."""
    return PLAYERS_Y + num_players * ROW_H + 10


def cloche_x(food: int) -> int:
    """Left edge of the cloche over ``FOODS[food]``."""
    return CLOCHE_X0 + food * (CLOCHE_W + CLOCHE_GAP)


def response_words(response: int) -> str:
    """A response index in words: "grab fish", "shout FLY", "shout RAT", "shout cheese",
    "BANG"."""
    if response == BANG:
        return "BANG"
    if response == SHOUT_FLY:
        return "shout FLY"
    if response == SHOUT_RAT:
        return "shout RAT"
    if SHOUT_FOOD_FIRST <= response < SHOUT_FOOD_FIRST + NUM_FOODS:
        return f"shout {FOODS[response - SHOUT_FOOD_FIRST]}"
    if GRAB_FIRST <= response < GRAB_FIRST + NUM_FOODS:
        return f"grab {FOODS[response - GRAB_FIRST]}"
    return RESPONSES[response]


def card_words(card: int) -> str:
    """A card in words: "cheese (blue)", "FLY card", "RAT card"."""
    if card == FLY_CARD:
        return "FLY card"
    if card == RAT_CARD:
        return "RAT card"
    food, colour = divmod(card, NUM_COLOURS)
    return f"{FOODS[food]} ({COLOURS[colour]})"


# ------------------------------------------------------------ cached drawing
@lru_cache(maxsize=1)
def shaker_sprite() -> Image.Image:
    """The rat shaker: a silver shaker with a dark cap and "RAT" on it."""
    s = Sprite(SHAKER_W, SHAKER_H)
    s.box((2, 10, SHAKER_W - 2, SHAKER_H - 1), fill=SILVER, outline=INK, width=2, radius=6)
    s.box((5, 1, SHAKER_W - 5, 13), fill=SILVER_DARK, outline=INK, width=2, radius=4)
    for dx in (-6, 0, 6):
        s.circle((SHAKER_W / 2 + dx, 7), 1.5, fill=INK, outline=None)
    s.text((SHAKER_W / 2, 28), "RAT", size=11, fill=INK, anchor="mm")
    return s.image


@lru_cache(maxsize=1)
def fly_sprite() -> Image.Image:
    """The fly chip: a black fly with grey wings and red eyes."""
    s = Sprite(FLY_W, FLY_H)
    cx, cy = FLY_W / 2, FLY_H / 2 + 2
    s.draw.ellipse((cx - 18, cy - 12, cx - 1, cy + 2), fill=(214, 222, 232), outline=INK, width=1)
    s.draw.ellipse((cx + 1, cy - 12, cx + 18, cy + 2), fill=(214, 222, 232), outline=INK, width=1)
    s.draw.ellipse((cx - 6, cy - 7, cx + 6, cy + 12), fill=(16, 16, 16))
    s.circle((cx - 3, cy - 6), 2.5, fill=(210, 30, 30), outline=None)
    s.circle((cx + 3, cy - 6), 2.5, fill=(210, 30, 30), outline=None)
    return s.image


def _draw_cloche(c: Canvas, food: int) -> None:
    """One cloche on its plate, in its original colour, with the food's name on it."""
    x = cloche_x(food)
    cx = x + CLOCHE_W / 2
    base = CLOCHE_BASE
    c.draw.ellipse((x - 10, base - 7, x + CLOCHE_W + 10, base + 11), fill=SILVER, outline=INK)
    c.draw.chord(
        (x, base - DOME_H, x + CLOCHE_W, base + DOME_H),
        start=180,
        end=360,
        fill=CLOCHE_COLOURS[food],
        outline=INK,
        width=2,
    )
    c.circle((cx, base - DOME_H - 4), 7, fill=CLOCHE_COLOURS[food], outline=INK, width=2)
    c.text((cx, base - 58), FOODS[food], size=19, fill=ON_COLOUR_INK[food], anchor="mm")


@lru_cache(maxsize=1)
def _background() -> Image.Image:
    """Everything that never changes: panels, the five cloches, fixed captions."""
    c = Canvas(WIDTH, HEIGHT, TABLE_BG)
    c.box((0, 0, WIDTH, HEADER - 6), fill=PANEL, outline=None, radius=0)
    c.text((MARGIN, 12), "Ratto Zakko", size=24)
    c.box((MARGIN, HEADER + 2, TABLE_RIGHT, 300), fill=PANEL, outline=None)
    c.text((MARGIN + 10, HEADER + 8), "cloches", size=13, fill=MUTED)
    for food in range(NUM_FOODS):
        _draw_cloche(c, food)
    c.box((MARGIN, 310, TABLE_RIGHT, HEIGHT - MARGIN), fill=PANEL, outline=None)
    c.box((PLAYERS_X - 4, HEADER + 2, PLAYERS_RIGHT, HEIGHT - MARGIN), fill=PANEL, outline=None)
    c.text((PLAYERS_X + 6, HEADER + 8), "players", size=13, fill=MUTED)
    c.text((PLAYERS_RIGHT - 10, HEADER + 8), "cards won", size=13, fill=MUTED, anchor="ra")
    return c.image


# ------------------------------------------------------------------ the card
def _card_face(c: Canvas, identity: int | None, colour: int | None) -> None:
    """The card at its place: ``identity`` (index into IDENTITIES, None: not sure) and ``colour``
    (index into COLOURS, None: not sure or no colour) decide face text and fill."""
    rect = (CARD_X, CARD_Y, CARD_X + CARD_W, CARD_Y + CARD_H)
    cx, cy = CARD_X + CARD_W / 2, CARD_Y + CARD_H / 2
    c.box((rect[0] - 6, rect[1] - 6, rect[2] + 6, rect[3] + 6), fill=PAPER, outline=INK, radius=10)
    if identity is not None and IDENTITIES[identity] == "fly":
        c.box(rect, fill=FLY_CARD_FILL, outline=INK, radius=8)
        paste(c, fly_sprite(), (cx - FLY_W / 2, cy - 40))
        label(c, (cx, cy + 26), "FLY", size=30, anchor="mm")
    elif identity is not None and IDENTITIES[identity] == "rat":
        c.box(rect, fill=RAT_CARD_FILL, outline=INK, radius=8)
        label(c, (cx, cy), "RAT", size=38, fill=WHITE, anchor="mm")
    else:
        fill = UNSURE_CARD if colour is None else CLOCHE_COLOURS[colour]
        ink = WHITE if colour is None else ON_COLOUR_INK[colour]
        c.box(rect, fill=fill, outline=INK, radius=8)
        if identity is None:
            label(c, (cx, cy), "?", size=64, fill=ink, anchor="mm")
        else:
            label(c, (cx, cy), FOODS[identity], size=30, fill=ink, anchor="mm")
        if colour is None and identity is not None:
            label(c, (cx, cy + 34), "colour ?", size=15, fill=ink, anchor="mm")


def draw_revealed_card(c: Canvas, card: int) -> None:
    """The card face up at its place, as a person at the table sees it (its food and colour,
    or the fly or the rat), and nothing of what it asks for: the window's card."""
    if card == FLY_CARD:
        _card_face(c, IDENTITIES.index("fly"), None)
    elif card == RAT_CARD:
        _card_face(c, IDENTITIES.index("rat"), None)
    else:
        food, colour = divmod(card, NUM_COLOURS)
        _card_face(c, food, colour)


def _posterior_bars(
    c: Canvas, identity: np.ndarray, colour: np.ndarray, caption: str, sure_id: int | None
) -> None:
    """The seat's posteriors: 7 identity bars and 5 colour bars (in the colours; greyed once the
    seat is sure of a fly or rat card, which has no colour), and its best guesses."""
    y0 = CARD_Y - 6
    label(c, (BARS_X, y0), "you see: identity", size=13, fill=MUTED)
    colourless = sure_id is not None and sure_id >= NUM_FOODS
    if colourless:
        head = f"colour (a {IDENTITIES[sure_id].upper()} card has none)"
    else:
        head = "colour (fly, rat: none)"
    label(c, (COLOUR_BARS_X, y0), head, size=13, fill=MUTED)
    best = int(np.argmax(identity))
    for k, p in enumerate(identity):
        fill = HIGHLIGHT if k == best else WHITE
        _bar(c, BARS_X, y0 + 20 + k * BAR_ROW, IDENTITIES[k], float(p), fill, k == best)
    best = int(np.argmax(colour))
    for k, p in enumerate(colour):
        y = y0 + 20 + k * BAR_ROW
        fill = MUTED if colourless else CLOCHE_COLOURS[k]
        _bar(c, COLOUR_BARS_X, y, COLOURS[k], float(p), fill, k == best and not colourless)
    y = y0 + 26 + len(identity) * BAR_ROW
    label(c, (BARS_X, y), caption, size=15)
    label(
        c,
        (BARS_X, y + 20),
        f"the card is named once you are {100 * CERTAINTY:.0f}% sure",
        size=13,
        fill=MUTED,
    )


def _bar(c: Canvas, x: int, y: int, name: str, p: float, fill: Colour, best: bool) -> None:
    label(c, (x, y), name, size=12, fill=WHITE if best else MUTED)
    bx = x + BAR_LABEL_W
    c.draw.rectangle((bx, y + 2, bx + BAR_LEN, y + BAR_ROW - 3), fill=PANEL_LIGHT)
    if p > 0:
        c.draw.rectangle((bx, y + 2, bx + round(BAR_LEN * p), y + BAR_ROW - 3), fill=fill)
    label(c, (bx + BAR_LEN + 8, y), f"{100 * p:.0f}%", size=12, fill=WHITE if best else MUTED)


def _true_card(c: Canvas, card: int, correct: int) -> None:
    """The omniscient view's card: the truth and the answer that is correct now."""
    draw_revealed_card(c, card)
    label(c, (BARS_X, CARD_Y - 8), "the card", size=13, fill=MUTED)
    label(c, (BARS_X, CARD_Y + 12), card_words(card), size=22)
    label(c, (BARS_X, CARD_Y + 52), "correct answer now", size=13, fill=MUTED)
    label(c, (BARS_X, CARD_Y + 72), response_words(correct), size=26, fill=GOOD)


def _no_card(c: Canvas, lines: Sequence[tuple[str, Colour]]) -> None:
    """The card place between cards (relocation) or after the game."""
    c.box((CARD_X, CARD_Y, CARD_X + CARD_W, CARD_Y + CARD_H), fill=None, outline=MUTED, width=1)
    centre = (CARD_X + CARD_W / 2, CARD_Y + CARD_H / 2)
    label(c, centre, "no card", size=15, fill=MUTED, anchor="mm")
    y = CARD_Y + 10
    for text, colour in lines:
        label(c, (BARS_X, y), text, size=18, fill=colour)
        y += 28


# ------------------------------------------------------------------ the frame
def _relocation_move(game: RattoZakko, state: State) -> str:
    """What the relocating winner may move now."""
    if game.relocation == "both":
        return "the fly" if state.relocation_stage == 0 else "the shaker"
    return "the fly or the shaker"


def _last_card_lines(
    result: CardResult, agents: Sequence[str], tick_ms: int, sees_all: bool
) -> list[tuple[str, Colour]]:
    """How the last card ended: the public outcome; the card and the answers only for the
    omniscient view."""
    ms = (result.tick + 1) * tick_ms
    if result.winner is not None:
        outcome = f"{agents[result.winner]} won {result.cards_won} card(s) at {ms} ms"
    elif result.tied:
        outcome = "a tie (" + ", ".join(agents[s] for s in result.tied) + "): to the jackpot"
    else:
        outcome = "nobody was right: to the jackpot"
    lines = []
    if sees_all:
        answer = response_words(result.correct)
        lines.append((f"last card {card_words(result.card)}, answer {answer}", WHITE))
        lines.append((outcome, WHITE))
    else:
        lines.append((f"last card: {outcome}", WHITE))
    if result.returned_by:
        names = ", ".join(agents[s] for s in result.returned_by)
        lines.append((f"returned a card (wrong answer): {names}", ALERT))
    return lines


def draw(
    game: RattoZakko,
    state: State,
    agents: Sequence[str],
    view_seat: int | None,
    pending: Mapping[int, int] | None = None,
) -> np.ndarray:
    """The frame of ``state`` of ``game`` seen by ``view_seat`` (None: omniscient).

    A seat's frame is drawn from the game's observer (its observation kind) and the
    public table. ``pending`` (seat -> action) are the actions given so far in this tick
    that the AEC env holds until the tick ends: only the omniscient view shows them."""
    n = state.num_players
    tick_ms = game.tick_ms
    memoryless = game.memoryless
    sees_all = view_seat is None
    c = Canvas(WIDTH, HEIGHT)
    c.image = _background().copy()
    c.draw = ImageDraw.Draw(c.image)
    reacting = state.phase == PHASE_REACT

    # What the view knows of the fly, the card and who answered.
    if sees_all:
        fly_under: int | None = state.fly_under
        answered = [a != NO_ANSWER for a in state.answer] if reacting else [False] * n
    else:
        observer = game.observer(game.observation_kind)
        seen = observer.views(observer.observe(state, view_seat))
        shown = bool(seen["fly_shown"][0])
        fly_under = int(np.argmax(seen["fly_under"])) if shown else None
        answered = [False] * n
        for i in range(n):
            answered[(view_seat + i) % n] = bool(seen["answered"][i])

    # ------------------------------------------------------------ title bar
    x = MARGIN + 170
    x += label(c, (x, 18), f"level {game.level}", size=16) + 10
    if game.level == "dessert":
        x += label(c, (x, 19), "(BANG on a food in its own colour)", size=14, fill=MUTED)
    label(c, (x + 24, 18), f"card {state.cards_dealt} of {game.total_cards}", size=16)
    viewer = "omniscient view" if sees_all else f"view: {agents[view_seat]}"
    label(c, (WIDTH - MARGIN, 16), viewer, size=18, fill=HIGHLIGHT, anchor="ra")

    # ------------------------------------------------------ shaker and fly
    sx = cloche_x(state.shaker_on) + CLOCHE_W / 2
    paste(c, shaker_sprite(), (sx - SHAKER_W / 2, CLOCHE_BASE - DOME_H - 10 - SHAKER_H))
    label(
        c,
        (sx + SHAKER_W / 2 + 4, CLOCHE_BASE - DOME_H - 30),
        "shaker",
        size=12,
        fill=MUTED,
    )
    if fly_under is not None:
        fx = cloche_x(fly_under) + CLOCHE_W / 2
        paste(c, fly_sprite(), (fx - FLY_W / 2, CLOCHE_BASE - 36))
        label(c, (fx, CLOCHE_BASE + 16), "fly here", size=13, fill=HIGHLIGHT, anchor="ma")
        fly_text = f"fly under the {FOODS[fly_under]} cloche"
        if not sees_all and memoryless:
            fly_text += " (shown now: remember it)"
    else:
        fly_text = "fly: not shown now (memoryless: remember it)"
    label(c, (MARGIN + 10, 277), f"shaker on the {FOODS[state.shaker_on]} cloche", size=14)
    label(c, (MARGIN + 230, 277), fly_text, size=14, fill=WHITE if fly_under is not None else ALERT)

    # ------------------------------------------------------------- the card
    correct = -1
    if reacting:
        if sees_all:
            correct = game.correct(state)
            _true_card(c, state.card, correct)
        else:
            identity = seen["identity"]
            colour = seen["colour"]
            sure_id, sure_col, caption = perceived(identity, colour)
            _card_face(c, sure_id, sure_col)
            _posterior_bars(c, identity, colour, caption, sure_id)
    elif state.phase == PHASE_RELOCATE:
        _no_card(
            c,
            [
                (f"{agents[state.relocator]} won a fly or rat event", WHITE),
                (f"and may move {_relocation_move(game, state)} (or not)", HIGHLIGHT),
                ("then the next card", MUTED),
            ],
        )
    else:
        names = [a for a, w in zip(agents, state.winners()) if w]
        lines = [("game over", HIGHLIGHT)]
        who = ("winners: " if len(names) > 1 else "winner: ") + ", ".join(names)
        lines.append((who, HIGHLIGHT))
        if state.jackpot:
            lines.append((f"the jackpot ({len(state.jackpot)}) stays unclaimed", MUTED))
        _no_card(c, lines)

    # ------------------------------------------------------------- the clock
    bx0, bx1 = MARGIN + 10, TABLE_RIGHT - 10
    if reacting:
        elapsed = (state.tick + 1) * tick_ms
        window_ms = game.window_ticks * tick_ms
        text = f"tick {state.tick + 1} of {game.window_ticks}    {elapsed} ms of {window_ms} ms"
        frac = (state.tick + 1) / game.window_ticks
    else:
        text, frac = "no reaction window open", 0.0
    label(c, (bx0, CLOCK_Y), text, size=14)
    c.box((bx0, CLOCK_Y + 20, bx1, CLOCK_Y + 34), fill=PANEL_LIGHT, outline=None, radius=4)
    if frac > 0:
        fill = ALERT if frac > 0.75 else HIGHLIGHT
        end = bx0 + max(8, round((bx1 - bx0) * frac))
        c.box((bx0, CLOCK_Y + 20, end, CLOCK_Y + 34), fill=fill, outline=None, radius=4)

    # --------------------------------------------------------- the last card
    if state.last_result is not None:
        y = LAST_Y
        for text, colour in _last_card_lines(state.last_result, agents, tick_ms, sees_all):
            label(c, (bx0, y), text, size=14, fill=colour)
            y += 19

    # -------------------------------------------------------------- players
    order = list(range(n)) if sees_all else [(view_seat + k) % n for k in range(n)]
    last = state.last_result
    winners_flags = state.winners() if state.phase == PHASE_OVER else [False] * n
    for row, p in enumerate(order):
        y = PLAYERS_Y + row * ROW_H
        moving = state.phase == PHASE_RELOCATE and state.relocator == p
        fill = PANEL_LIGHT if p == view_seat else TABLE_BG
        c.box(
            (PLAYERS_X + 2, y, PLAYERS_RIGHT - 6, y + ROW_H - 6),
            fill=fill,
            outline=HIGHLIGHT if moving or winners_flags[p] else None,
            width=2,
        )
        name = agents[p] + (" (you)" if p == view_seat else "")
        label(c, (PLAYERS_X + 10, y + 4), name, size=16)
        label(c, (PLAYERS_RIGHT - 14, y + 2), str(len(state.won[p])), size=24, anchor="ra")
        notes: list[tuple[str, Colour]] = []
        if winners_flags[p]:
            notes.append(("WINNER", HIGHLIGHT))
        if moving:
            notes.append((f"moves {_relocation_move(game, state)}", HIGHLIGHT))
        if reacting and state.dealer == p:
            notes.append(("dealer", MUTED))
        if reacting:
            said = state.answer[p]
            if answered[p] and (sees_all or p == view_seat):
                at = (state.answer_tick[p] + 1) * tick_ms
                mark = (GOOD if said == correct else ALERT) if sees_all else HIGHLIGHT
                notes.append((f"{response_words(said)} at {at} ms", mark))
            elif answered[p]:
                notes.append(("answered", HIGHLIGHT))
            given = ACTION_WAIT if pending is None else pending.get(p, ACTION_WAIT)
            if sees_all and said == NO_ANSWER and given != ACTION_WAIT:
                now = given - ACTION_RESPONSE_FIRST
                mark = GOOD if now == correct else ALERT
                notes.append((f"this tick: {response_words(now)}", mark))
            if sees_all and game.perception == "gradual" and said == NO_ANSWER:
                post = state.posterior[p, 0]
                k = int(np.argmax(post))
                notes.append((f"sees {IDENTITIES[k]} {100 * post[k]:.0f}%", MUTED))
        elif sees_all and last is not None and p in last.answers and state.phase != PHASE_OVER:
            said, _ = last.answers[p]
            mark = GOOD if said == last.correct else ALERT
            notes.append((f"said {response_words(said)}", mark))
        nx = PLAYERS_X + 10
        for text, colour in notes:
            nx += label(c, (nx, y + 26), text, size=13, fill=colour) + 12

    # ---------------------------------------------------- jackpot and deck
    ty = totals_y(n)
    label(c, (PLAYERS_X + 6, ty), "jackpot", size=13, fill=MUTED)
    label(c, (PLAYERS_X + 6, ty + 16), f"{len(state.jackpot)} cards", size=20)
    label(c, (PLAYERS_X + 120, ty), "deck", size=13, fill=MUTED)
    label(c, (PLAYERS_X + 120, ty + 16), f"{len(state.deck)} left", size=20)
    label(c, (PLAYERS_X + 230, ty), "tick", size=13, fill=MUTED)
    label(c, (PLAYERS_X + 230, ty + 16), f"{tick_ms} ms", size=20)
    return c.to_array()
