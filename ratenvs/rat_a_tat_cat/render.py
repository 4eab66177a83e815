"""Text rendering of a Rat-a-Tat Cat table, omniscient or from one seat's view."""

from __future__ import annotations

from ratenvs.rat_a_tat_cat.rules import (
    CARD_NAMES,
    CODE_NUMBER,
    KIND,
    NO_CARD,
    PHASE_NAMES,
    PHASE_OVER,
    SLOTS,
    State,
)

UNKNOWN_MARK = "?"
NUMBER_MARK = "#"


def _code_text(code: int) -> str:
    if code < CODE_NUMBER:
        return CARD_NAMES[code]
    return NUMBER_MARK if code == CODE_NUMBER else UNKNOWN_MARK


def render_table(state: State, seat: int | None, agents: list[str], mode: str = "knowledge") -> str:
    """The table as text. ``seat=None``: omniscient (every card, with ``*`` on the cards the
    owner knows); otherwise only what ``seat`` may see in observation ``mode``
    (``?`` unknown, ``#`` a number card of unknown value)."""
    lines = []
    viewer = "omniscient" if seat is None else agents[seat]
    lines.append(
        f"round {state.round_index + 1}  turn {state.turns_this_round + 1}  view: {viewer}"
    )
    table = state.know if mode == "knowledge" else state.recent
    over = state.phase == PHASE_OVER
    for p, name in enumerate(agents):
        mark = ">" if (not over and p == state.current) else " "
        if not state.active[p] and state.hands[p][0] == NO_CARD:
            lines.append(f"{mark} {name}: out          total {state.totals[p]}")
            continue
        cells = []
        for s in range(SLOTS):
            card = state.hands[p][s]
            if seat is None:
                text = CARD_NAMES[KIND[card]] + ("*" if state.know[p, p, s] < CODE_NUMBER else "")
            else:
                text = _code_text(int(table[seat, p, s]))
            cells.append(f"{text:>6}")
        knock = "  (knocked)" if state.knocked_by == p else ""
        lines.append(f"{mark} {name}: [{' '.join(cells)} ]  total {state.totals[p]}{knock}")
    top = state.discard_top
    lines.append(
        f"discard top: {CARD_NAMES[KIND[top]] if top != NO_CARD else '(empty)'}"
        f"   draw pile: {len(state.draw_pile)}   discard pile: {len(state.discard_pile)}"
    )
    if over:
        winners = [agents[p] for p, w in enumerate(state.winners or []) if w]
        lines.append(f"game over - winner(s): {', '.join(winners)}")
    else:
        who = agents[state.current]
        held = ""
        if state.held != NO_CARD and (seat is None or seat == state.current or state.held_public):
            held = f", holding {CARD_NAMES[KIND[state.held]]}"
        elif state.held != NO_CARD:
            held = ", holding a drawn card"
        phase = PHASE_NAMES[state.phase] if seat in (None, state.current) else "playing"
        lines.append(f"{who} to act ({phase}{held})")
        if state.knocked_by is not None:
            lines.append(
                f"{agents[state.knocked_by]} knocked; {state.final_turns_left} turn(s) left"
            )
    if state.last_round_points is not None:
        pts = ", ".join(f"{agents[p]} {pt}" for p, pt in enumerate(state.last_round_points))
        lines.append(f"last round: {pts}")
    return "\n".join(lines)
