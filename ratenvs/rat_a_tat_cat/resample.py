"""Determinization: a full game state consistent with everything one player knows.

As OpenSpiel's ``resample_from_infostate``: the cards whose place the player
does not know (face-down slots it has no knowledge of, the draw pile, a card
another player drew privately and holds) are dealt again at random, keeping
every constraint the player's information implies:

- a card keeps its shuffle epoch: after the discard pile was reshuffled into
  a new draw pile, the cards of that pile (and the ones drawn from it into
  hands) are exchanged only among themselves, since the player knows which
  cards formed it;
- a slot filled with a privately drawn card holds a number card (drawn power
  cards are never placed);
- a power card shuffled back into the draw pile at setup stays in the draw
  pile (or the held card) until a card of its kind is seen drawn; drawn as the
  pile's last card, just before a reshuffle, it is the held card.

Everything public or known to the player is left as it is, its own knowledge
(``know[seat]``, ``recent[seat]``) exactly.

What the other players know is dealt again too, as far as it is private. Another
player's knowledge has a public part - its outer cards at the deal, the cards it
placed, every card placed from the discard pile, carried along by the public swaps
(``State.known_publicly``) - which keeps its shape and takes the new cards' kinds. The
rest came from its Peeks, and which card a Peek looks at is not public here (nor,
outside a Draw 2 sequence, whether it was used at all: used or declined, the Peek goes
onto the discard pile and the turn goes on the same). So that part is dropped and the
Peeks are played again: each Peek of another player that was not publicly declined
(``State.peeks``, in order) is taken as used and looks at one of the player's slots of
that moment, drawn with ``rng`` uniformly among the slots its public knowledge did not
cover then (among all four if it covered them all), and the player knows the card that
was there where the public events since have moved it (nothing if it was replaced).
When the player has made no decision since its last Peek, its memoryless view
(``recent``) shows that card (and none of the others the Peek may have looked at), as
after a real Peek, beside what public play showed it since. Everything this uses is public
and the rest comes from ``rng``: two tables that differ only in what other players saw
with their Peeks give ``seat`` the same determinizations, card for card.

The model is simple on purpose: a Peek that the truth declined is replayed as used,
and a replayed Peek may look at a card an earlier replayed Peek already showed.

The sample is consistent but, like most determinizations, not weighted by how likely
the other players' past choices make each deal.
"""

from __future__ import annotations

import numpy as np

from ratenvs.rat_a_tat_cat.rules import (
    CODE_NUMBER,
    CODE_UNKNOWN,
    GONE,
    KIND,
    NO_CARD,
    NUM_KINDS,
    NUM_NUMBER_KINDS,
    SLOTS,
    State,
    phase_for_drawn,
)

_PILE = "pile"
_HELD = "held"


def hidden_positions(state: State, seat: int) -> list[tuple]:
    """The places whose card ``seat`` does not know: ``("slot", p, s)``, ``("pile", i)``,
    ``("held",)``."""
    out: list[tuple] = []
    know = state.know[seat]
    for p in range(state.num_players):
        if not state.active[p]:
            continue
        for s in range(SLOTS):
            if know[p, s] >= CODE_NUMBER:
                out.append(("slot", p, s))
    out.extend((_PILE, i) for i in range(len(state.draw_pile)))
    if state.held != NO_CARD and not state.held_public and state.current != seat:
        out.append((_HELD,))
    return out


def card_at(state: State, pos: tuple) -> int:
    """The card at a place of :func:`hidden_positions` (a slot, the draw pile, the held card)."""
    if pos[0] == "slot":
        return state.hands[pos[1]][pos[2]]
    if pos[0] == _PILE:
        return state.draw_pile[pos[1]]
    return state.held


def put_card(state: State, pos: tuple, card: int) -> None:
    """Put ``card`` at a place of :func:`hidden_positions` (nothing else is updated: see
    :func:`follow_cards`)."""
    if pos[0] == "slot":
        state.hands[pos[1]][pos[2]] = card
    elif pos[0] == _PILE:
        state.draw_pile[pos[1]] = card
    else:
        state.held = card


def resample_state(state: State, seat: int, rng: np.random.Generator) -> State:
    """A copy of ``state`` with every card ``seat`` cannot locate dealt again at random."""
    new = state.copy()
    positions = hidden_positions(state, seat)
    # the card the seat drew and holds: it knows it, and it counts for ``pile_must_hold``
    drew = state.held != NO_CARD and not state.held_public and state.current == seat
    own_draw = state.held if drew else None
    # the places ``pile_must_hold`` speaks of: the draw pile and a privately held card;
    # a card drawn as the old pile's last, before a reshuffle, keeps the old epoch
    must_epoch = state.epoch
    if state.held != NO_CARD and not state.held_public:
        must_epoch = state.card_epoch[state.held]
    groups: dict[int, list[tuple]] = {}
    for pos in positions:
        groups.setdefault(state.card_epoch[card_at(state, pos)], []).append(pos)
    for epoch, group in groups.items():
        cards = [card_at(state, pos) for pos in group]
        order = rng.permutation(len(cards))
        cards = [cards[int(i)] for i in order]
        free = [group[int(i)] for i in rng.permutation(len(group))]
        assignment: dict[tuple, int] = {}
        # 1. power cards known to be in the draw pile (setup returns) go to pile/held places
        if epoch == must_epoch:
            for kind in range(NUM_KINDS):
                need = state.pile_must_hold[kind]
                if own_draw is not None and KIND[own_draw] == kind:
                    need -= 1  # the seat holds it: the card it drew may be the one
                while need > 0:
                    card = next(c for c in cards if KIND[c] == kind)
                    pos = next(p for p in free if p[0] in (_PILE, _HELD))
                    cards.remove(card)
                    free.remove(pos)
                    assignment[pos] = card
                    need -= 1
        # 2. slots that surely hold a number card get number cards
        for pos in [p for p in free if p[0] == "slot" and state.number_only[p[1], p[2]]]:
            card = next(c for c in cards if KIND[c] < NUM_NUMBER_KINDS)
            cards.remove(card)
            free.remove(pos)
            assignment[pos] = card
        # 3. the rest anywhere
        for pos, card in zip(free, cards):
            assignment[pos] = card
        for pos, card in assignment.items():
            put_card(new, pos, card)
    if new.held != state.held:
        new.phase = phase_for_drawn(new.held)
    follow_cards(new, positions)
    replay_peeks(new, seat, rng)
    return new


def follow_cards(state: State, positions: list[tuple]) -> None:
    """After cards were dealt again into ``positions``: what other players knew of those
    slots keeps its shape (which slots they know) and takes the new cards' kinds (the
    private part of that shape is then dealt again by :func:`replay_peeks`)."""
    for pos in positions:
        if pos[0] != "slot":
            continue
        _, p, s = pos
        kind = KIND[state.hands[p][s]]
        for table in (state.know, state.recent):
            col = table[:, p, s]
            col[col < NUM_KINDS] = kind


def replay_peeks(state: State, seat: int, rng: np.random.Generator) -> None:
    """For every player but ``seat``: forget what its Peeks showed it, then let each of its
    Peeks look anew (see the module docstring). Only public facts (``known_publicly``,
    ``number_only``, ``peeks``) and ``rng`` decide what the players are left knowing."""
    know, recent = state.know, state.recent
    for o in range(state.num_players):
        if o == seat:
            continue
        table = know[o]
        private = (table < NUM_KINDS) & ~state.known_publicly[o]
        if private.any():
            table[private] = np.where(state.number_only[private], CODE_NUMBER, CODE_UNKNOWN)
    for record in state.peeks:
        o = record.by
        if o == seat:
            continue
        if record.fresh:  # ``recent`` shows the Peek until o's next decision: where the cards
            # it may have looked at are now, it shows that card or nothing (o's ``recent`` was
            # cleared at the Peek, and only swaps moved them since)
            for place in record.places:
                if place != GONE:
                    recent[o].flat[place] = CODE_UNKNOWN
        slots = [s for s in range(SLOTS) if record.unseen[s]] or list(range(SLOTS))
        place = record.places[slots[int(rng.integers(len(slots)))]]
        if place == GONE:
            continue
        p, s = divmod(place, SLOTS)
        kind = KIND[state.hands[p][s]]
        know[o, p, s] = kind
        if record.fresh:
            recent[o, p, s] = kind
