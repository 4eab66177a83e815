"""Text rendering of a Rat-a-Tat Cat table from a :class:`~ratenvs.rat_a_tat_cat.observe.SeatView`.

The observer decides what a view may see (:meth:`TableObserver.seat_view`); this
module only formats it, so a seat's text shows exactly what its observation
carries: its knowledge of every slot (``?`` unknown, ``#`` a number card of
unknown value), the held card only when it is the seat's own, the decision
phase only when it is the seat's decision, and the public table.
"""

from __future__ import annotations

from ratenvs.rat_a_tat_cat.observe import EMPTY, SeatView
from ratenvs.rat_a_tat_cat.rules import CARD_NAMES, CODE_NUMBER, PHASE_NAMES, SLOTS

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
