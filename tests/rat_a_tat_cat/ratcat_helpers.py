"""Shared helpers: build a Rat-a-Tat Cat state with chosen cards, check its invariants, play
a game of bots."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ratenvs.common.bots import Bot
from ratenvs.rat_a_tat_cat import rules
from ratenvs.rat_a_tat_cat.env import raw_env
from ratenvs.rat_a_tat_cat.rules import State

P, S, D2 = rules.PEEK, rules.SWAP, rules.DRAW2


def build_state(
    hands: list[list[int]],
    draw_top: list[int] = (),
    discard: list[int] = (5,),
    rest_to: str = "draw",
    **kw,
) -> State:
    """A state at the start of player 0's first turn with the given kinds.

    The game's parameters are not the state's: play it with :func:`game` (``rounds``,
    ``target_score``... as options). ``draw_top`` lists the kinds on top of the draw pile,
    the very top first; ``discard`` the discard pile bottom to top. The deck's other cards go under
    the draw pile (``rest_to="draw"``) or under the discard pile.
    """
    pools: dict[int, list[int]] = {k: [] for k in range(rules.NUM_KINDS)}
    for card in range(rules.DECK_SIZE):
        pools[rules.KIND[card]].append(card)

    def take(kind: int) -> int:
        return pools[kind].pop()

    n = len(hands)
    state = rules.State(totals=kw.get("totals", [0] * n), active=[True] * n)
    state.hands = [[take(k) for k in hand] for hand in hands]
    discard_ids = [take(k) for k in discard]
    top_ids = [take(k) for k in draw_top]
    rest = [c for k in range(rules.NUM_KINDS) for c in pools[k]]
    if rest_to == "draw":
        state.draw_pile = rest + top_ids[::-1]
        state.discard_pile = discard_ids
    else:
        state.draw_pile = top_ids[::-1]
        state.discard_pile = rest + discard_ids
    state.discard_counts = [0] * rules.NUM_KINDS
    for c in state.discard_pile:
        state.discard_counts[rules.KIND[c]] += 1
    state.card_epoch = [0] * rules.DECK_SIZE
    state.pile_must_hold = [0] * rules.NUM_KINDS
    state.know = np.full((n, n, rules.SLOTS), rules.CODE_UNKNOWN, dtype=np.int8)
    state.recent = np.full((n, n, rules.SLOTS), rules.CODE_UNKNOWN, dtype=np.int8)
    state.number_only = np.zeros((n, rules.SLOTS), dtype=bool)
    rules.reset_owner_evidence(state)
    rules.reset_public_knowledge(state)
    for p in range(n):
        for s in rules.PEEKED_AT_SETUP:
            state.know[p, p, s] = rules.KIND[state.hands[p][s]]
            state.recent[p, p, s] = rules.KIND[state.hands[p][s]]
    check_invariants(state)
    return state


def game(num_players: int = 2, **options: object) -> rules.RatATatCat:
    """The game (its parameters) to play a built state with."""
    return rules.RatATatCat(num_players=num_players, **options)


def kinds(cards: list[int]) -> list[int]:
    return [rules.KIND[c] for c in cards]


def check_invariants(state: State) -> None:
    """All 54 cards somewhere exactly once; every bit of knowledge is true."""
    assert sorted(state.all_cards()) == list(range(rules.DECK_SIZE))
    n = state.num_players
    counts = [0] * rules.NUM_KINDS
    for c in state.discard_pile:
        counts[rules.KIND[c]] += 1
    assert counts == state.discard_counts
    for p in range(n):
        for s in range(rules.SLOTS):
            card = state.hands[p][s]
            if card == rules.NO_CARD:
                continue
            if state.number_only[p, s]:
                assert rules.KIND[card] < rules.NUM_NUMBER_KINDS
            for o in range(n):  # what a player knows publicly, it knows
                if state.known_publicly[o, p, s]:
                    assert state.know[o, p, s] == rules.KIND[card], (o, p, s)
            if state.owner_seen[p, s]:  # public evidence only about cards the owner saw
                assert state.know[p, p, s] != rules.CODE_UNKNOWN
            elif state.phase != rules.PHASE_OVER:
                assert state.ceiling[p, s] == rules.NO_CEILING
            for o in range(n):
                for table in (state.know, state.recent):
                    code = int(table[o, p, s])
                    if code == rules.CODE_NUMBER:
                        assert table is state.know and state.number_only[p, s]
                        assert rules.KIND[card] < rules.NUM_NUMBER_KINDS
                    elif code != rules.CODE_UNKNOWN:
                        assert code == rules.KIND[card], (o, p, s, code, rules.KIND[card])
                    if table is state.recent and code != rules.CODE_UNKNOWN:
                        assert state.know[o, p, s] == code


def play(
    state: State, actions: list[int], seed: int = 0, game: rules.RatATatCat | None = None
) -> list[list[int] | None]:
    """Apply actions (under ``game``'s parameters; default: the default game of the table
    size), checking invariants after each (and that the draw pile is never left empty: the
    discards are reshuffled as soon as its last card is drawn); returns what each returned."""
    rng = np.random.default_rng(seed)
    if game is None:
        game = rules.RatATatCat(num_players=state.num_players)
    out = []
    for a in actions:
        out.append(rules.apply_action(state, a, rng, game))
        check_invariants(state)
        assert state.draw_pile or state.phase == rules.PHASE_OVER
    return out


def play_game(bots: Sequence[Bot], seed: int, **options: object) -> list[bool]:
    """Play one game with ``bots[i]`` in seat ``i``; return who won (ties share)."""
    env = raw_env(num_players=len(bots), **options)
    for bot in bots:
        if hasattr(bot, "bind"):
            bot.bind(env.observer)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed + 1_000_003)
    while not env.truth.is_over:
        seen = env.observe(env.possible_agents[env.truth.current])
        env.step(int(bots[env.truth.current].act(seen["observation"], seen["action_mask"], rng)))
    return list(env.truth.winners)
