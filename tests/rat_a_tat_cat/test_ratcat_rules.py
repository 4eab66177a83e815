"""Every rule of RULES.md section 1, on hand-built and dealt states."""

from collections import Counter

import numpy as np
import pytest
from ratcat_helpers import D2, P, S, build_state, check_invariants, game, kinds, play

from ratenvs.rat_a_tat_cat import rules
from ratenvs.rat_a_tat_cat.observe import _pool_by_cards, draw_pool_counts, unseen_counts
from ratenvs.rat_a_tat_cat.rules import CODE_NUMBER, CODE_UNKNOWN, KIND, swap_action

# the moves, by name (rules.ACTION_*)
DRAW, TAKE, DISCARD = rules.ACTION_DRAW, rules.ACTION_TAKE_DISCARD, rules.ACTION_DISCARD
REPLACE, PEEK_SLOT, USE_DRAW2 = rules.ACTION_REPLACE, rules.ACTION_PEEK, rules.ACTION_USE_DRAW2
DECLINE, KNOCK, NO_KNOCK = rules.ACTION_DECLINE, rules.ACTION_KNOCK, rules.ACTION_NO_KNOCK

HAND = [1, 2, 3, 4]
KNOCK_ROUND_3P = [DRAW, DISCARD, KNOCK] + [DRAW, DISCARD] * 2
"""A three-player round: player 0 draws, discards and knocks; the others draw and discard."""


def test_deck_has_exactly_54_cards_of_the_printed_kinds():
    assert rules.DECK_SIZE == 54 == len(rules.KIND)
    c = Counter(rules.KIND)
    assert all(c[k] == 4 for k in range(9)) and c[9] == 9
    assert c[P] == c[S] == c[D2] == 3
    state = rules.new_game(4, np.random.default_rng(0))
    assert sorted(state.all_cards()) == list(range(54))
    assert len(state.draw_pile) == 54 - 16 - 1 and len(state.discard_pile) == 1


@pytest.mark.parametrize("n", [2, 3, 6])
def test_setup_peeks_only_own_outer_cards(n):
    for seed in range(20):
        state = rules.new_game(n, np.random.default_rng(seed))
        check_invariants(state)
        for o in range(n):
            for p in range(n):
                for s in range(rules.SLOTS):
                    code = state.know[o, p, s]
                    if o == p and s in (0, 3):
                        assert code == KIND[state.hands[p][s]]
                    else:
                        assert code == CODE_UNKNOWN


class _StackedRng:
    """A generator whose shuffle puts a power card on top, then behaves normally."""

    def __init__(self, seed: int) -> None:
        self._rng = np.random.default_rng(seed)

    def permutation(self, n: int) -> np.ndarray:
        order = [c for c in range(n) if KIND[c] < rules.PEEK]
        powers = [c for c in range(n) if KIND[c] >= rules.PEEK]
        return np.array(order + powers)  # top (last) cards are power cards: 3 draw2s, ...

    def integers(self, high: int) -> int:
        return 0  # shuffle the returned card to the bottom


def test_setup_discard_is_never_a_power_card():
    # the stacked deck turns power cards first: each is shuffled back and another turned
    state = rules.new_game(2, _StackedRng(0))
    check_invariants(state)
    assert KIND[state.discard_pile[-1]] < rules.PEEK and len(state.discard_pile) == 1
    # the hands took 8 power cards; the ninth was turned, seen by all, and shuffled back
    assert KIND[state.draw_pile[0]] == P and state.pile_must_hold[P] == 1
    for seed in range(300):
        state = rules.new_game(3, np.random.default_rng(seed))
        assert len(state.discard_pile) == 1 and KIND[state.discard_pile[0]] < rules.PEEK


def test_take_discard_and_dead_power_cards():
    state = build_state([HAND, HAND], discard=[0, 7])
    assert rules.legal_actions(state) == [DRAW, TAKE]
    play(state, [TAKE])
    assert state.phase == rules.PHASE_PLACE and KIND[state.held] == 7
    assert DISCARD not in rules.legal_actions(state)  # a taken card must be placed
    play(state, [REPLACE + 2])
    assert kinds(state.hands[0]) == [1, 2, 7, 4] and KIND[state.discard_pile[-1]] == 3
    assert all(state.know[o, 0, 2] == 7 for o in range(2))  # placed from the discard: public
    dead = build_state([HAND, HAND], discard=[5, P])
    assert rules.legal_actions(dead) == [DRAW]
    with pytest.raises(ValueError, match="illegal"):
        rules.apply_action(dead, TAKE, np.random.default_rng(0), game())


def test_drawn_number_replace_is_private_and_discard_is_public():
    state = build_state([HAND, HAND], draw_top=[0, 8])
    play(state, [DRAW])
    assert state.phase == rules.PHASE_NUMBER and KIND[state.held] == 0
    play(state, [REPLACE + 1, NO_KNOCK])
    assert state.know[0, 0, 1] == 0 and state.know[1, 0, 1] == CODE_NUMBER
    assert KIND[state.discard_pile[-1]] == 2
    play(state, [DRAW, DISCARD])
    assert KIND[state.discard_pile[-1]] == 8 and kinds(state.hands[1]) == HAND


def test_peek_is_optional_and_private():
    state = build_state([HAND, HAND], draw_top=[P, P])
    play(state, [DRAW])
    assert state.phase == rules.PHASE_PEEK
    play(state, [PEEK_SLOT + 2])
    assert state.know[0, 0, 2] == 3 and state.know[1, 0, 2] == CODE_UNKNOWN
    assert state.phase == rules.PHASE_KNOCK and KIND[state.discard_pile[-1]] == P
    play(state, [NO_KNOCK, DRAW, DECLINE])
    assert state.know[1, 1, 1] == CODE_UNKNOWN and state.phase == rules.PHASE_KNOCK


def test_swap_is_blind_optional_and_knowledge_moves_with_the_cards():
    state = build_state([[0, 1, 2, 3], [9, 8, 7, 6], [5, 5, 4, 5]], draw_top=[S, S])
    play(state, [DRAW])
    assert state.phase == rules.PHASE_SWAP
    # own slot 0 (a 0, known to player 0) <-> player 2's slot 3 (a 5, known to player 2)
    play(state, [swap_action(0, 2, 3)])
    assert kinds(state.hands[0]) == [5, 1, 2, 3] and kinds(state.hands[2]) == [5, 5, 4, 0]
    assert state.know[0, 2, 3] == 0 and state.know[0, 0, 0] == CODE_UNKNOWN  # blind
    assert state.know[2, 0, 0] == 5 and state.know[2, 2, 3] == CODE_UNKNOWN
    assert state.know[1, 0, 0] == CODE_UNKNOWN and state.know[1, 2, 3] == CODE_UNKNOWN
    play(state, [NO_KNOCK])
    before = [h[:] for h in state.hands]
    play(state, [DRAW, DECLINE])  # player 1 declines the second Swap
    assert state.hands == before and KIND[state.discard_pile[-1]] == S


@pytest.mark.parametrize("out", [None, 0, 2])
def test_a_swap_pairs_every_own_slot_with_every_slot_of_each_other_player_still_in(out):
    """RULES.md, Swap: "you may exchange one of your cards with any card of any other
    player" (or decline it). Three players; player 1 draws a Swap after a round that put
    nobody, player 0 or player 2 out of an elimination game to 50: the legal moves are
    exactly its four slots paired with the four slots of each other player still in, and
    declining; never a card of its own as the target, never a player who is out."""
    totals = {None: [0, 0, 0], 0: [20, 10, 30], 2: [10, 10, 45]}[out]
    state, elimination = _knocked_elimination_round(totals)
    assert state.active == [p != out for p in range(3)] and not state.is_over
    seat = state.current
    assert seat == 1 and state.phase == rules.PHASE_START
    others = [p for p in range(3) if p not in (seat, out)]
    # stack a Swap on top of the new round's draw pile
    swap = next(c for c in state.draw_pile if KIND[c] == S)
    state.draw_pile.remove(swap)
    state.draw_pile.append(swap)
    play(state, [DRAW], game=elimination)
    assert state.phase == rules.PHASE_SWAP and state.held == swap

    expected = {
        swap_action(mine, (q - seat) % 3, theirs)
        for q in others
        for mine in range(rules.SLOTS)
        for theirs in range(rules.SLOTS)
    }
    assert len(expected) == rules.SLOTS * rules.SLOTS * len(others)
    mask = elimination.legal_mask(state, seat)
    assert set(np.flatnonzero(mask).tolist()) == expected | {DECLINE}
    assert set(rules.legal_actions(state)) == expected | {DECLINE}
    # the action space names no swap with oneself: every swap targets another player
    assert elimination.num_actions == rules.ACTION_SWAP + rules.SLOTS * 2 * rules.SLOTS
    for action in range(rules.ACTION_SWAP, elimination.num_actions):
        _, offset, _ = rules.decode_swap(action)
        target = (seat + offset) % 3
        assert target != seat and bool(mask[action]) == (target in others), action
    if out is not None:
        to_the_out = swap_action(0, (out - seat) % 3, 0)
        with pytest.raises(ValueError, match="illegal"):
            rules.apply_action(state.copy(), to_the_out, np.random.default_rng(0), elimination)
    # each legal swap exchanges exactly the two cards it names, nothing else
    for action in sorted(expected):
        mine, offset, theirs = rules.decode_swap(action)
        q = (seat + offset) % 3
        hands = [h[:] for h in state.hands]
        hands[seat][mine], hands[q][theirs] = hands[q][theirs], hands[seat][mine]
        after = state.copy()
        elimination.apply(after, {seat: action}, np.random.default_rng(0))
        assert after.hands == hands and after.phase == rules.PHASE_KNOCK
        check_invariants(after)


def _draws(state_before_pile: int, state) -> int:
    return state_before_pile - len(state.draw_pile)


def test_draw2_first_card_used_ends_the_sequence():
    state = build_state([HAND, HAND], draw_top=[D2, 0, 7])
    pile = len(state.draw_pile)
    play(state, [DRAW])
    assert state.phase == rules.PHASE_DRAW2
    play(state, [USE_DRAW2])
    assert KIND[state.held] == 0 and state.draw2_left == 1
    play(state, [REPLACE + 3])
    assert state.phase == rules.PHASE_KNOCK and _draws(pile, state) == 2


def test_draw2_first_discarded_draws_a_second_which_ends_it():
    state = build_state([HAND, HAND], draw_top=[D2, 9, P, 6])
    pile = len(state.draw_pile)
    play(state, [DRAW, USE_DRAW2, DISCARD])
    assert state.phase == rules.PHASE_PEEK and state.draw2_left == 0  # the second card: a Peek
    play(state, [DECLINE])
    assert state.phase == rules.PHASE_KNOCK and _draws(pile, state) == 3
    assert kinds(state.discard_pile[-3:]) == [D2, 9, P]


def test_draw2_first_power_declined_then_second_used():
    state = build_state([HAND, HAND], draw_top=[D2, S, 0])
    play(state, [DRAW, USE_DRAW2, DECLINE])
    assert state.phase == rules.PHASE_NUMBER and KIND[state.held] == 0
    play(state, [REPLACE + 0])
    assert state.phase == rules.PHASE_KNOCK


def test_draw2_inside_draw2_starts_the_sequence_again():
    state = build_state([HAND, HAND], draw_top=[D2, D2, 9, 8, 7])
    pile = len(state.draw_pile)
    play(state, [DRAW, USE_DRAW2])
    assert state.phase == rules.PHASE_DRAW2 and state.draw2_left == 1
    play(state, [USE_DRAW2])  # using the inner Draw 2: a fresh sequence of two
    assert KIND[state.held] == 9 and state.draw2_left == 1
    play(state, [DISCARD])
    assert KIND[state.held] == 8 and state.draw2_left == 0
    play(state, [DISCARD])
    assert state.phase == rules.PHASE_KNOCK and _draws(pile, state) == 4  # the 7 stays


def test_draw2_as_second_card_declined_ends_and_used_restarts():
    state = build_state([HAND, HAND], draw_top=[D2, 9, D2, 5])
    play(state, [DRAW, USE_DRAW2, DISCARD, DECLINE])
    assert state.phase == rules.PHASE_KNOCK and KIND[state.draw_pile[-1]] == 5
    state = build_state([HAND, HAND], draw_top=[D2, 9, D2, 5, 4])
    play(state, [DRAW, USE_DRAW2, DISCARD, USE_DRAW2])
    assert KIND[state.held] == 5 and state.draw2_left == 1
    play(state, [DISCARD])
    assert KIND[state.held] == 4
    play(state, [DISCARD])
    assert state.phase == rules.PHASE_KNOCK


def test_a_peek_used_as_first_card_of_a_draw2_sequence_ends_it():
    """RULES.md 1, Draw 2: "If you use that card (place a number card, or use a Peek/Swap),
    the sequence ends"."""
    state = build_state([HAND, HAND], draw_top=[D2, P, 0])
    play(state, [rules.ACTION_DRAW, rules.ACTION_USE_DRAW2, rules.ACTION_PEEK + 1])
    assert state.phase == rules.PHASE_KNOCK and state.held == rules.NO_CARD
    assert state.know[0, 0, 1] == 2 and rules.KIND[state.draw_pile[-1]] == 0  # 0 not drawn
    assert kinds(state.discard_pile[-2:]) == [D2, P]


def test_a_swap_used_as_first_card_of_a_draw2_sequence_ends_it():
    state = build_state([HAND, [5, 6, 7, 8]], draw_top=[D2, S, 0])
    play(state, [rules.ACTION_DRAW, rules.ACTION_USE_DRAW2, rules.swap_action(0, 1, 3)])
    assert state.phase == rules.PHASE_KNOCK and state.held == rules.NO_CARD
    assert kinds(state.hands[0]) == [8, 2, 3, 4] and kinds(state.hands[1]) == [5, 6, 7, 1]
    assert rules.KIND[state.draw_pile[-1]] == 0 and kinds(state.discard_pile[-2:]) == [D2, S]


def test_a_declined_draw2_as_first_card_of_a_sequence_draws_the_second_card():
    """RULES.md 1, Draw 2: "If you discard it (number) or decline it (power), draw a second
    card" - a Draw 2 is a power card too."""
    state = build_state([HAND, HAND], draw_top=[D2, D2, 7, 6])
    play(state, [rules.ACTION_DRAW, rules.ACTION_USE_DRAW2, rules.ACTION_DECLINE])
    assert state.phase == rules.PHASE_NUMBER and rules.KIND[state.held] == 7
    assert state.draw2_left == 0
    play(state, [rules.ACTION_DISCARD])
    assert state.phase == rules.PHASE_KNOCK and rules.KIND[state.draw_pile[-1]] == 6


def test_draw2_declined_goes_to_the_knock_decision():
    state = build_state([HAND, HAND], draw_top=[D2, 0])
    play(state, [DRAW, DECLINE])
    assert state.phase == rules.PHASE_KNOCK and KIND[state.discard_pile[-1]] == D2
    assert KIND[state.draw_pile[-1]] == 0


def _turn(state, seat):
    """One plain turn: draw and discard (plus a no-knock when allowed)."""
    assert state.current == seat and state.phase == rules.PHASE_START
    actions = [DRAW]
    state_rng = np.random.default_rng(0)
    g = game(state.num_players)
    rules.apply_action(state, DRAW, state_rng, g)
    if state.phase == rules.PHASE_NUMBER:
        rules.apply_action(state, DISCARD, state_rng, g)
    else:
        while state.phase in (
            rules.PHASE_PEEK,
            rules.PHASE_SWAP,
            rules.PHASE_DRAW2,
            rules.PHASE_NUMBER,
        ):
            act = DISCARD if state.phase == rules.PHASE_NUMBER else DECLINE
            rules.apply_action(state, act, state_rng, g)
    return actions


def test_knock_gives_every_other_player_exactly_one_more_turn():
    state = build_state([HAND, HAND, HAND], draw_top=[9] * 6)
    play(state, [DRAW, DISCARD, KNOCK])  # knocking on the first turn
    assert state.knocked_by == 0 and state.current == 1
    for seat in (1, 2):
        play(state, [DRAW, DISCARD])  # no knock decision once someone knocked
        if seat == 1:
            assert state.current == 2 and state.phase == rules.PHASE_START
    assert state.phase == rules.PHASE_OVER and state.turns_this_round == 3
    assert state.last_round_points == [10, 10, 10]


def test_knock_later_and_by_a_middle_player():
    state = build_state([HAND, HAND, HAND], draw_top=[9, 8] * 4)
    for _ in range(4):
        play(state, [DRAW, DISCARD, NO_KNOCK])
    assert state.current == 1
    play(state, [DRAW, DISCARD, KNOCK])
    order = []
    while not state.is_over:
        order.append(state.current)
        play(state, [DRAW, DISCARD])
    assert order == [2, 0]


def test_reshuffle_at_once_when_the_last_card_is_drawn_and_take_is_illegal_after():
    # RULES.md: "When the draw pile is exhausted (the last card has just been drawn), the
    # whole discard pile is shuffled at once to form the new draw pile"
    state = build_state([HAND, HAND], draw_top=[6], discard=[7, 0], rest_to="discard")
    assert len(state.draw_pile) == 1
    discards = sorted(state.discard_pile)
    play(state, [DRAW])  # the last card: the whole discard pile becomes the draw pile now
    assert KIND[state.held] == 6 and state.epoch == 1 and state.discard_pile == []
    assert sorted(state.draw_pile) == discards
    assert all(state.card_epoch[c] == 1 for c in state.draw_pile)
    assert state.card_epoch[state.held] == 0  # the drawn card was not reshuffled
    play(state, [DISCARD, NO_KNOCK])
    # the next player cannot take the 0 that was under the discard pile's top any more:
    # the only discard is the 6 just thrown away
    assert [KIND[c] for c in state.discard_pile] == [6] and state.can_take_discard()
    assert state.current == 1 and len(state.draw_pile) == len(discards)


def test_the_reshuffle_shuffles():
    """The discards become the draw pile in a shuffled order, not as they lie: kept in
    order, the next draw would be the card just discarded, seen by all. Over a few deals
    the new pile's order differs from the discard pile's (as often as a shuffle of a dozen
    cards does: always)."""
    orders = set()
    for seed in range(4):
        state = build_state([HAND, HAND], draw_top=[6], discard=[7, 0], rest_to="discard")
        lying = list(state.discard_pile)
        play(state, [DRAW], seed=seed)
        assert sorted(state.draw_pile) == sorted(lying)
        assert state.draw_pile not in (lying, lying[::-1])
        orders.add(tuple(state.draw_pile))
    assert len(orders) == 4  # each deal its own order


def test_the_reshuffle_comes_before_the_next_player_could_take_from_an_exhausted_pile():
    # in v0 the reshuffle waited for the next draw, so over an empty draw pile the next
    # player could still take the top discard (here the 0)
    state = build_state([HAND, HAND], draw_top=[6], discard=[7, 0], rest_to="discard")
    play(state, [DRAW, REPLACE + 1, NO_KNOCK])  # the 6 placed, slot 1's card discarded
    assert state.current == 1 and len(state.discard_pile) == 1
    assert KIND[state.discard_pile[-1]] == HAND[1]  # only the card just replaced
    assert 0 not in [KIND[c] for c in state.discard_pile]


def test_take_is_illegal_while_the_discard_pile_is_empty():
    state = build_state([HAND, HAND], draw_top=[], discard=[], rest_to="discard")
    # all the rest is in the discard pile; player 0 takes its top, then the pile is drawn
    state.discard_pile, state.draw_pile = [], state.discard_pile
    state.discard_counts = [0] * rules.NUM_KINDS
    check_invariants(state)
    assert rules.legal_actions(state) == [DRAW]


def test_end_of_round_power_cards_are_replaced_from_the_draw_pile():
    state = build_state([[P, 1, D2, 2], HAND], draw_top=[S, 5, 3, P, 6], discard=[4])
    bottom = state.draw_pile[0]
    play(state, [DRAW, DECLINE, KNOCK])  # draws the Swap, declines
    play(state, [DRAW, DISCARD])  # player 1 draws the 5
    assert state.is_over
    # slot 0: the Peek goes under, the 3 replaces it; slot 2: the Draw 2 goes under, the
    # next top card is a Peek: it goes under too, and the 6 replaces it
    assert kinds(state.last_round_hands[0]) == [3, 1, 6, 2]
    assert state.last_round_points[0] == 12 and state.totals[0] == 12
    assert kinds(state.draw_pile[:3]) == [P, D2, P] and state.draw_pile[3] == bottom
    assert state.know[1, 0, 2] == 6  # everyone sees the revealed hands


def _no_number_left_in_the_draw_pile():
    """A round's end with a Swap in player 0's hand and only power cards in the draw pile
    (the number cards moved under the discard pile's top)."""
    state = build_state([[S, 1, 1, 1], HAND], draw_top=[P, D2], discard=[0])
    numbers = [c for c in state.draw_pile if KIND[c] < 10]
    state.draw_pile = [c for c in state.draw_pile if KIND[c] >= 10]
    state.discard_pile = state.discard_pile[:-1] + numbers + state.discard_pile[-1:]
    state.discard_counts = [0] * rules.NUM_KINDS
    for c in state.discard_pile:
        state.discard_counts[KIND[c]] += 1
    check_invariants(state)
    return state


def test_end_of_round_replacement_repeats_and_reshuffles_when_no_number_is_left():
    state = _no_number_left_in_the_draw_pile()
    rules.replace_power_cards(state, np.random.default_rng(0))
    assert sorted(state.all_cards()) == list(range(54))
    assert KIND[state.hands[0][0]] < 10 and state.discard_pile == []


def test_the_end_of_round_reshuffle_shuffles_the_merged_piles():
    """When no number card is left in the draw pile, the draw and discard piles are merged
    and shuffled (not laid one under the other in order)."""
    merged_orders = set()
    for seed in range(4):
        state = _no_number_left_in_the_draw_pile()
        laid = state.draw_pile + state.discard_pile
        rules.replace_power_cards(state, np.random.default_rng(seed))
        as_laid = [c for c in laid if c in state.draw_pile]
        as_drawn = [c for c in state.draw_pile if c in laid]  # the power cards put under aside
        assert len(as_drawn) > 30 and as_drawn != as_laid
        merged_orders.add(tuple(as_drawn))
    assert len(merged_orders) == 4


def test_the_rounds_cap_ends_the_elimination_game():
    """RULES.md: with a target, a number of ``rounds`` caps the game: after that round it
    is over, lowest total among the players still in wins."""
    state = build_state([[9, 9, 9, 9], [0, 0, 1, 1], [2, 2, 2, 2]], draw_top=[9] * 3)
    capped = game(3, rounds=1, target_score=50)
    play(state, KNOCK_ROUND_3P, game=capped)
    assert state.is_over and state.totals == [36, 2, 8]
    assert state.active == [True, True, True] and state.winners == [False, True, False]
    uncapped = build_state([[9, 9, 9, 9], [0, 0, 1, 1], [2, 2, 2, 2]], draw_top=[9] * 3)
    play(uncapped, KNOCK_ROUND_3P, game=game(3, rounds=None, target_score=50))
    assert not uncapped.is_over  # the same round without the cap goes on


def test_turn_cap_ends_the_round():
    state = build_state([HAND, HAND], draw_top=[9] * 3)
    capped = game(2, max_turns_per_round=3)
    play(state, [DRAW, DISCARD, NO_KNOCK], game=capped)
    play(state, [DRAW, DISCARD, NO_KNOCK], game=capped)
    # third turn: no knock decision, round over
    play(state, [DRAW, DISCARD], game=capped)
    assert state.is_over and state.turns_this_round == 3


def test_a_knock_before_the_turn_cap_is_honoured_past_it():
    # RULES.md: "A knock already made is honoured first: every other player still gets
    # exactly one more turn, even past the cap" (in v0 the cap cut the final turns short)
    state = build_state([HAND, HAND, HAND], draw_top=[9] * 6)
    capped = game(3, max_turns_per_round=3)
    play(state, [DRAW, DISCARD, NO_KNOCK], game=capped)
    play(state, [DRAW, DISCARD, KNOCK], game=capped)  # turn 2 of 3: player 1 knocks
    order = []
    while not state.is_over:
        order.append(state.current)
        play(state, [DRAW, DISCARD], game=capped)
    assert order == [2, 0] and state.turns_this_round == 4  # one turn past the cap


def test_without_a_knock_the_cap_turn_offers_no_knock_and_ends_the_round():
    state = build_state([HAND, HAND, HAND], draw_top=[9] * 6)
    capped = game(3, max_turns_per_round=2)
    play(state, [DRAW, DISCARD, NO_KNOCK], game=capped)
    play(state, [DRAW, DISCARD], game=capped)  # turn 2 = the cap: no knock decision
    assert state.is_over and state.turns_this_round == 2 and state.knocked_by is None


@pytest.mark.parametrize(("eliminate_at", "out"), [("exceeds", False), ("reaches", True)])
def test_a_total_equal_to_the_target_is_out_only_when_reaching_eliminates(eliminate_at, out):
    # RULES.md: "a player whose total exceeds the target is out" (the seed), option
    # eliminate_at="reaches" for total >= target; player 2 ends the round at exactly 50
    state = build_state([[9, 9, 9, 9], [0, 0, 1, 1], [2, 2, 2, 2]], draw_top=[9] * 3,
                        totals=[20, 10, 42])  # fmt: skip
    elimination = game(3, rounds=None, target_score=50, eliminate_at=eliminate_at)
    play(state, KNOCK_ROUND_3P, game=elimination)
    assert state.totals == [56, 12, 50]
    assert state.active == [False, True, not out]
    assert state.is_over == out and (not out or state.winners == [False, True, False])


def test_the_default_eliminates_above_the_target():
    assert rules.RatATatCat(target_score=100).out_at == 101
    assert rules.RatATatCat(target_score=100, eliminate_at="reaches").out_at == 100
    assert rules.RatATatCat().out_at is None


def test_scoring_and_winner_lowest_total():
    state = build_state([[0, 0, 1, 1], [3, 3, 3, 3]], draw_top=[9, 9])
    out = play(state, [DRAW, DISCARD, KNOCK, DRAW, DISCARD])
    assert out[-1] == [2, 12] and state.totals == [2, 12] and state.winners == [True, False]


def test_multi_round_totals_and_the_deal_rotates():
    rng = np.random.default_rng(3)
    g = game(3, rounds=3)
    state = g.init(rng)
    starters, points = [state.current], []
    while not state.is_over:
        r = rules.apply_action(state, rules.legal_actions(state)[-1], rng, g)  # knocks at once
        check_invariants(state)
        if r is not None:
            points.append(r)
            if not state.is_over:
                starters.append(state.current)
    assert starters == [0, 1, 2] and len(points) == 3
    assert state.totals == [sum(p[i] for p in points) for i in range(3)]
    best = min(state.totals)
    assert state.winners == [t == best for t in state.totals]


@pytest.mark.parametrize(
    ("reward", "expected"),
    [
        ("zero_sum", [0.8, -0.8]),  # the round's edge: (13 - 5) / 10 points
        ("points", [-0.5, -1.3]),
        ("win", [0.0, 0.0]),  # a win shared by both players: nothing either way
        ("zero_sum_win", [0.8, -0.8]),
    ],
)
def test_a_tie_on_the_lowest_total_after_the_last_round_shares_the_win(reward, expected):
    """RULES.md: option `rounds`: "the game is that many rounds; lowest total wins", and
    "Ties share the win". The second of two rounds: player 0 (15 so far) ends it with 5
    points, player 1 (7 so far) with 13; both finish at 20 and both win, whoever won the
    round."""
    state = build_state([[0, 1, 2, 2], [3, 3, 3, 4]], draw_top=[9, 9], totals=[15, 7])
    state.round_index = 1  # the last round of two
    g = game(2, rounds=2, reward=reward)
    rng = np.random.default_rng(0)
    for action in (DRAW, DISCARD, KNOCK, DRAW):
        assert g.apply(state, {state.current: action}, rng) is None
    rewards = g.apply(state, {1: DISCARD}, rng)
    assert state.is_over and state.last_round_points == [5, 13] and state.totals == [20, 20]
    assert state.winners == [True, True] and g.winners(state) == [True, True]
    assert rewards == pytest.approx(expected)


def test_two_of_three_tied_on_the_lowest_total_share_the_win_and_its_reward():
    """RULES.md: "lowest total wins" after the `rounds`; "Ties share the win". Players 0
    and 2 end the last round at 20, player 1 at 36: the two share the win, and the "win"
    reward splits the winner's part between them (+1/4 each, -1/2 for the loser)."""
    state = build_state(
        [[0, 1, 2, 2], [9, 9, 9, 9], [3, 3, 3, 4]], draw_top=[9] * 3, totals=[15, 0, 7]
    )
    state.round_index = 1  # the last round of two
    g = game(3, rounds=2, reward="win")
    rng = np.random.default_rng(0)
    rewards = None
    for action in KNOCK_ROUND_3P:
        rewards = g.apply(state, {state.current: action}, rng)
    assert state.is_over and state.totals == [20, 36, 20]
    assert state.winners == [True, False, True]
    assert rewards == pytest.approx([0.25, -0.5, 0.25])


def _knocked_elimination_round(totals):
    """Three players (hands worth 36, 2 and 8) at ``totals`` play a round to a target of 50:
    player 0 draws a 9, discards it and knocks; the others draw and discard."""
    state = build_state([[9, 9, 9, 9], [0, 0, 1, 1], [2, 2, 2, 2]], draw_top=[9] * 3, totals=totals)
    elimination = game(3, rounds=None, target_score=50)
    play(state, KNOCK_ROUND_3P, game=elimination)
    return state, elimination


def test_elimination_last_player_left_wins():
    state, _ = _knocked_elimination_round([20, 10, 45])
    assert state.totals == [56, 12, 53] and state.is_over
    assert state.active == [False, True, False] and state.winners == [False, True, False]


@pytest.mark.parametrize(
    ("seed", "winners"),
    [(0, [False, True, True]), (7, [False, False, True])],
)
def test_elimination_continues_without_the_eliminated_and_all_out_together_lowest_total_wins(
    seed, winners
):
    """RULES.md: "If all remaining players are out in the same round, the lowest total
    wins (ruling). Ties share the win." Player 0 goes out in the first round; players 1
    and 2 play on (knocking at once) until a round puts both out together. The winner is
    whoever of the two has the lower total: with seed 0 they tie at 56 and share the win;
    with seed 7 player 2 wins at 63 over 64, although player 0, out a round earlier,
    has only 56."""
    state, elimination = _knocked_elimination_round([20, 10, 30])
    assert state.active == [False, True, True] and not state.is_over
    # the starter is out: the first turn passes to the next player still in (the ruling)
    assert state.current == 1 and state.hands[0] == [rules.NO_CARD] * 4
    check_invariants(state)
    # the rest of the game runs between players 1 and 2 only
    rng = np.random.default_rng(seed)
    while not state.is_over:
        assert state.current != 0
        in_before = [p for p in range(3) if state.active[p]]
        rules.apply_action(state, rules.legal_actions(state)[0], rng, elimination)
        check_invariants(state)
    # the last round put both remaining players out together
    assert in_before == [1, 2] and not any(state.active)
    assert all(state.totals[p] > 50 for p in in_before)
    best = min(state.totals[p] for p in in_before)
    assert state.winners == [p in in_before and state.totals[p] == best for p in range(3)]
    assert state.winners == winners


def test_elimination_everyone_crossing_in_one_round_lowest_total_wins_ties_share():
    state = build_state(
        [[9, 9, 9, 9], [5, 5, 5, 5], [6, 6, 6, 2]],
        draw_top=[9] * 3,
        discard=[4],
        totals=[20, 40, 40],
    )
    elimination = game(3, rounds=None, target_score=50)
    play(state, KNOCK_ROUND_3P, game=elimination)
    assert state.totals == [56, 60, 60] and state.winners == [True, False, False]
    # the same round under elimination_tiebreak="shared": all three share the win
    state = build_state(
        [[9, 9, 9, 9], [5, 5, 5, 5], [6, 6, 6, 2]],
        draw_top=[9] * 3,
        discard=[4],
        totals=[20, 40, 40],
    )
    shared = game(3, rounds=None, target_score=50, elimination_tiebreak="shared")
    play(state, KNOCK_ROUND_3P, game=shared)
    assert state.totals == [56, 60, 60] and state.winners == [True, True, True]
    state = build_state(
        [[5, 5, 5, 5], [6, 6, 6, 2]],
        draw_top=[9] * 3,
        discard=[4],
        totals=[40, 40],
    )
    actions = [DRAW, DISCARD, KNOCK, DRAW, DISCARD]
    play(state, actions, game=game(2, rounds=None, target_score=50))
    assert state.winners == [True, True]


def test_unseen_counts_are_the_deck_minus_what_the_player_located():
    state = build_state([[0, 1, 2, 3], [4, 5, 6, 7]], draw_top=[8], discard=[9])
    u = unseen_counts(state, 0)
    expected = np.array(rules.KIND_COUNTS)
    expected[0] -= 1  # slot 0
    expected[3] -= 1  # slot 3
    expected[9] -= 1  # discard
    assert u.tolist() == expected.tolist()
    play(state, [DRAW])
    assert unseen_counts(state, 0)[8] == 3 and unseen_counts(state, 1)[8] == 4


def test_the_draw_pool_is_every_unlocated_card_until_the_discards_are_reshuffled():
    state = build_state([[0, 1, 2, 3], [4, 5, 6, 7]], draw_top=[8], discard=[9])
    for seat in (0, 1):
        assert draw_pool_counts(state, seat).tolist() == unseen_counts(state, seat).tolist()


@pytest.mark.parametrize("n", [2, 5])
def test_the_draw_pool_read_from_unseen_counts_before_a_reshuffle_is_the_card_count(n):
    """``draw_pool_counts`` takes ``unseen_counts`` while the round has had no reshuffle:
    the cards counted one by one agree for every seat at every state of games that never
    knock (long rounds: reshuffles, power cards replaced at the end, eliminations)."""
    g = rules.RatATatCat(num_players=n, target_score=40)
    rng = np.random.default_rng(n)
    epochs = set()
    for _ in range(2):
        state = g.init(rng)
        while True:
            for seat in range(n):
                by_cards = _pool_by_cards(state, seat).tolist()
                assert draw_pool_counts(state, seat).tolist() == by_cards, (state.epoch, seat)
            if g.is_terminal(state):
                break
            legal = np.flatnonzero(g.legal_mask(state, state.current))
            action = NO_KNOCK if NO_KNOCK in legal else int(rng.choice(legal))
            g.apply(state, {state.current: action}, rng)
            epochs.add(state.epoch)
    assert {0, 1} <= epochs


def test_after_a_reshuffle_the_draw_pool_is_the_reshuffled_discards_less_what_was_located():
    # player 0 draws the last card: the discard pile (everything but the hands, the 6 it
    # holds) is the new draw pile, whose composition everyone saw
    state = build_state([HAND, [5, 5, 5, 5]], draw_top=[6], discard=[7, 0], rest_to="discard")
    reshuffled = Counter(KIND[c] for c in state.discard_pile)
    play(state, [DRAW])
    for seat in (0, 1):
        assert dict(Counter(dict(enumerate(draw_pool_counts(state, seat).tolist())))) == {
            k: reshuffled.get(k, 0) for k in range(rules.NUM_KINDS)
        }
    # the unlocated cards outside the pool are the older ones in hands (for player 1:
    # player 0's four, its own slots 1 and 2, and the 6 player 0 holds), which
    # unseen_counts lumps together with the pool
    assert unseen_counts(state, 1).sum() - draw_pool_counts(state, 1).sum() == 4 + 2 + 1
    play(state, [REPLACE + 1, NO_KNOCK])  # the 6 goes to slot 1 (not of the new shuffle)
    play(state, [DRAW])  # player 1 draws a card of the new pile
    drawn = KIND[state.held]
    mine, theirs = draw_pool_counts(state, 1), draw_pool_counts(state, 0)
    assert mine[drawn] == reshuffled[drawn] - 1 and theirs[drawn] == reshuffled[drawn]
    if state.phase == rules.PHASE_NUMBER:
        play(state, [REPLACE + 0])  # placed face down: player 0 still cannot locate it
        assert draw_pool_counts(state, 0)[drawn] == reshuffled[drawn]
        assert draw_pool_counts(state, 1)[drawn] == reshuffled[drawn] - 1


def test_the_memoryless_observation_carries_no_draw_pool():
    from ratenvs.rat_a_tat_cat.observe import Layout

    state = build_state([HAND, HAND], draw_top=[6], discard=[7, 0], rest_to="discard")
    play(state, [DRAW])
    lay = Layout(2)
    for mode, nonzero in (("knowledge", True), ("memoryless", False)):
        obs = rules.RatATatCat(observation=mode).observer(mode).observe(state, 1)
        assert obs[lay.draw_pool : lay.draw_pool + rules.NUM_KINDS].any() == nonzero


# ------------------------------------------------------------ owner evidence (public)
NO = rules.NO_CEILING


def test_after_the_deal_owners_have_seen_their_outer_cards_and_shown_nothing():
    state = build_state([HAND, HAND, HAND])
    assert state.owner_seen.tolist() == [[True, False, False, True]] * 3
    assert (state.ceiling == NO).all()


def test_drawing_over_a_takeable_discard_caps_the_seen_cards_one_above_it():
    state = build_state([HAND, HAND], draw_top=[8], discard=[3])
    play(state, [DRAW])  # a 3 was there to take: its seen cards are worth <= 4
    assert state.ceiling[0].tolist() == [4, NO, NO, 4] and (state.ceiling[1] == NO).all()
    play(state, [DISCARD])  # and it threw the drawn 8 away: <= 8 adds nothing
    assert state.ceiling[0].tolist() == [4, NO, NO, 4]


def test_discarding_a_drawn_number_caps_the_seen_cards_at_its_value():
    state = build_state([HAND, HAND], draw_top=[2], discard=[P])  # a dead discard: no take
    play(state, [DRAW, DISCARD])
    assert state.ceiling[0].tolist() == [2, NO, NO, 2]


def test_replacing_a_seen_card_caps_the_others_and_the_new_card_goes_below_it():
    state = build_state([[1, 2, 3, 7], HAND], draw_top=[0], discard=[P])
    play(state, [DRAW, REPLACE + 3])  # the seen 7 goes: the 1 is <= 7
    assert state.owner_seen[0].tolist() == [True, False, False, True]
    assert state.ceiling[0].tolist() == [7, NO, NO, 6]  # the drawn card: below the 7


def test_replacing_an_unseen_card_shows_the_seen_ones_are_below_an_unknown_card():
    state = build_state([HAND, HAND], draw_top=[0], discard=[P])
    play(state, [DRAW, REPLACE + 1])
    u = rules.UNSEEN_CEILING
    assert state.owner_seen[0].tolist() == [True, True, False, True]
    assert state.ceiling[0].tolist() == [u, u - 1, NO, u]


def test_a_taken_discard_is_public_so_it_gets_no_ceiling():
    state = build_state([[1, 2, 3, 7], HAND], discard=[0])
    play(state, [TAKE, REPLACE + 3])
    assert state.ceiling[0].tolist() == [7, NO, NO, NO]


def test_swapped_cards_are_unseen_by_their_new_owners_and_carry_nothing():
    state = build_state([[0, 1, 2, 3], [9, 8, 7, 6], [5, 5, 4, 5]], draw_top=[S, 1])
    state.ceiling[2, 3] = 4
    play(state, [DRAW, swap_action(0, 2, 3)])
    assert not state.owner_seen[0, 0] and not state.owner_seen[2, 3]
    assert state.ceiling[0, 0] == NO and state.ceiling[2, 3] == NO


def test_a_new_round_forgets_the_evidence():
    state = build_state([HAND, HAND], draw_top=[8, 7], discard=[3])
    actions = [DRAW, DISCARD, KNOCK, DRAW, DISCARD]
    play(state, actions, game=game(2, rounds=2))
    assert state.round_index == 1
    assert (state.ceiling == NO).all() and state.owner_seen[:, 1].sum() == 0
