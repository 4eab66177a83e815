"""The Ratto Zakko oracle, deck and card resolution, checked against RULES.md section 3."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratenvs.ratto_zakko import observe as rz_observe
from ratenvs.ratto_zakko import rules
from ratenvs.ratto_zakko.rules import (
    COLOURS,
    FOODS,
    LEVELS,
    RESPONSE_INDEX,
    WAIT,
    correct_response,
)

ORIGINAL = {
    "apple": "green",
    "egg": "white",
    "cheese": "yellow",
    "fish": "blue",
    "chili": "red",
}


def expected(card: str, shaker: str, fly: str, level: str, fly_rule: str = "grab") -> str:
    """RULES.md section 3 written as a decision table, independently of the implementation.

    Rows are tried top to bottom; the first whose condition holds gives the answer.
    ``fly_rule="rat"`` is the variant that applies the shaker rule to fly cards too.
    """
    if card == "fly":
        table = [(fly_rule == "rat" and fly == shaker, "shout:rat"), (True, f"grab:{fly}")]
    elif card == "rat":
        table = [(fly == shaker, "shout:fly"), (True, f"shout:{shaker}")]
    else:
        food, colour = card.split("/")
        table = [
            (level == "dessert" and ORIGINAL[food] == colour, "bang"),
            (shaker == food, "shout:rat"),
            (fly == food, "shout:fly"),
            (True, f"grab:{food}"),
        ]
    return next(answer for cond, answer in table if cond)


ALL_CARDS = [f"{f}/{c}" for f in FOODS for c in COLOURS] + ["fly", "rat"]


def test_oracle_exhaustive_against_the_table():
    checked = 0
    for card, shaker, fly, level in itertools.product(ALL_CARDS, FOODS, FOODS, LEVELS):
        if card == "rat" and level == "starter":
            continue
        assert correct_response(card, shaker, fly, level) == expected(card, shaker, fly, level), (
            card,
            shaker,
            fly,
            level,
        )
        checked += 1
    assert checked == 27 * 25 * 3 - 25


def test_fly_card_variant_option():
    for card, shaker, fly, level in itertools.product(ALL_CARDS, FOODS, FOODS, ("main",)):
        got = correct_response(card, shaker, fly, level, fly_card_under_shaker="rat")
        assert got == expected(card, shaker, fly, level, "rat")
    assert correct_response("fly", "egg", "egg", "main", fly_card_under_shaker="rat") == (
        "shout:rat"
    )
    assert correct_response("fly", "egg", "egg", "main") == "grab:egg"  # the ruling
    with pytest.raises(ValueError, match="fly_card_under_shaker"):
        correct_response("fly", "egg", "egg", "main", fly_card_under_shaker="swat")


@pytest.mark.parametrize(
    ("card", "shaker", "fly", "level", "answer"),
    [
        # seed text examples
        ("cheese/blue", "apple", "egg", "starter", "grab:cheese"),  # colour irrelevant
        ("chili/green", "apple", "chili", "starter", "shout:fly"),
        ("fish/blue", "fish", "egg", "starter", "shout:rat"),
        ("fish/red", "fish", "fish", "main", "shout:rat"),  # fly under the shaker: still RAT
        ("fly", "cheese", "fish", "starter", "grab:fish"),
        ("fly", "fish", "fish", "main", "grab:fish"),  # ruling: the shaker rule is for food
        ("rat", "apple", "fish", "main", "shout:apple"),
        ("rat", "egg", "egg", "dessert", "shout:fly"),  # never RAT on a rat card
        ("apple/green", "apple", "apple", "dessert", "bang"),  # bang beats RAT and FLY
        ("apple/green", "apple", "egg", "main", "shout:rat"),  # no colour rule at main
        ("apple/red", "egg", "egg", "dessert", "grab:apple"),  # foreign colour at dessert
        ("egg/white", "cheese", "fish", "dessert", "bang"),
    ],
)
def test_oracle_examples(card, shaker, fly, level, answer):
    assert correct_response(card, shaker, fly, level) == answer


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (("rat", "apple", "egg", "starter"), "starter"),
        (("banana/green", "apple", "egg", "main"), "food"),
        (("apple/purple", "apple", "egg", "main"), "colour"),
        (("apple", "apple", "egg", "main"), "card"),
        (("apple/green", "pizza", "egg", "main"), "shaker_on"),
        (("apple/green", "apple", "pizza", "main"), "fly_under"),
        (("apple/green", "apple", "egg", "lunch"), "level"),
        (("mouse", "apple", "egg", "main"), "card"),
    ],
)
def test_oracle_rejects_impossible_input(args, word):
    with pytest.raises(ValueError, match=word):
        correct_response(*args)


def test_responses_are_the_thirteen_of_the_rules():
    assert len(rules.RESPONSES) == 13
    assert len(set(rules.RESPONSES)) == 13
    for card, shaker, fly, level in itertools.product(ALL_CARDS, FOODS, FOODS, ("main",)):
        assert correct_response(card, shaker, fly, level) in rules.RESPONSES
    assert len(rules.RESPONSES_AT_LEVEL["starter"]) == 7
    assert len(rules.RESPONSES_AT_LEVEL["main"]) == 12
    assert len(rules.RESPONSES_AT_LEVEL["dessert"]) == 13


def test_responses_at_level_cover_every_correct_answer():
    for card, shaker, fly, level in itertools.product(ALL_CARDS, FOODS, FOODS, LEVELS):
        if card == "rat" and level == "starter":
            continue
        assert correct_response(card, shaker, fly, level) in rules.RESPONSES_AT_LEVEL[level]


def test_deck_composition():
    assert len(rules.build_deck("starter")) == 47
    assert len(rules.build_deck("main")) == 54
    assert len(rules.build_deck("dessert")) == 54
    deck = rules.build_deck("main")
    names = [rules.CARD_NAMES[c] for c in deck]
    assert names.count("fly") == 7
    assert names.count("rat") == 7
    assert "rat" not in [rules.CARD_NAMES[c] for c in rules.build_deck("starter")]
    for food in FOODS:
        cards = [n for n in names if n.startswith(food + "/")]
        assert len(cards) == 8
        assert cards.count(f"{food}/{ORIGINAL[food]}") == 4
        for colour in COLOURS:
            if colour != ORIGINAL[food]:
                assert cards.count(f"{food}/{colour}") == 1
    with pytest.raises(ValueError, match="level"):
        rules.build_deck("brunch")


@pytest.mark.parametrize(("k", "other"), [(0, 2), (4, 1), (8, 0)])
def test_original_colour_cards_option(k, other):
    names = [rules.CARD_NAMES[c] for c in rules.build_deck("dessert", original_colour_cards=k)]
    assert len(names) == 54
    for food in FOODS:
        assert names.count(f"{food}/{ORIGINAL[food]}") == k
        for colour in COLOURS:
            if colour != ORIGINAL[food]:
                assert names.count(f"{food}/{colour}") == other
    with pytest.raises(ValueError, match="original_colour_cards"):
        rules.build_deck("main", original_colour_cards=3)


def test_start_positions():
    game = rules.RattoZakko(num_players=3, level="main", perception="clear")
    state = game.init(np.random.default_rng(0))
    assert FOODS[state.fly_under] == "fish"
    assert FOODS[state.shaker_on] == "cheese"
    assert state.card is not None
    assert state.cards_accounted() == 54


# ----------------------------------------------------------------- resolution
def table(
    card: str,
    shaker: str = "cheese",
    fly: str = "fish",
    level: str = "main",
    n: int = 3,
    won: list[int] | None = None,
    jackpot: int = 0,
    window: int = 120,
) -> rules.State:
    """A game with ``card`` showing; each seat holds ``won[s]`` cards taken from the deck
    (its game: ``GAME[id(state)]``)."""
    rng = np.random.default_rng(0)
    game = rules.RattoZakko(num_players=n, level=level, window_ticks=window, perception="clear")
    state = game.init(rng)
    GAME[id(state)] = game
    state.deck.append(state.card)
    card_id = rules.CARD_NAMES.index(card)
    state.deck.remove(card_id)
    state.card = card_id
    state.shaker_on = FOODS.index(shaker)
    state.fly_under = FOODS.index(fly)
    for s, k in enumerate(won or [0] * n):
        state.won[s] = [state.deck.pop() for _ in range(k)]
    state.jackpot = [state.deck.pop() for _ in range(jackpot)]
    assert state.cards_accounted() == game.total_cards
    return state


GAME: dict[int, rules.RattoZakko] = {}
"""The game of each state :func:`table` made (the parameters live on the game)."""
RNG = np.random.default_rng(1)


def play_tick(state: rules.State, answers: dict[int, str]) -> list[int]:
    """Every seat still to act submits its answer (or waits); the tick ends."""
    for s in state.to_act():
        a = answers.get(s)
        rules.submit(state, s, WAIT if a is None else RESPONSE_INDEX[a])
    return rules.end_tick(GAME[id(state)], state, RNG)


def test_single_winner_takes_the_card_and_deals():
    state = table("egg/white", won=[0, 0, 0])
    card = state.card
    delta = play_tick(state, {1: "grab:egg"})
    assert delta == [1 if s == 1 else 0 for s in range(3)]
    assert state.won[1] == [card]
    assert state.last_result.winner == 1
    assert state.dealer == 1
    assert state.phase == rules.PHASE_REACT  # plain grab: no relocation, next card dealt
    assert state.card is not None and state.tick == 0
    assert state.cards_accounted() == GAME[id(state)].total_cards


def test_card_stays_open_while_nobody_is_right():
    state = table("egg/white")
    delta = play_tick(state, {0: "grab:apple"})
    assert delta == [0, 0, 0]
    assert state.tick == 1 and state.card == rules.CARD_NAMES.index("egg/white")
    assert state.to_act() == [1, 2]  # one answer per player per card
    with pytest.raises(ValueError, match="already answered"):
        rules.submit(state, 0, RESPONSE_INDEX["grab:egg"])


def test_wrong_answers_before_and_at_the_winner_return_cards_to_the_winner():
    state = table("egg/white", n=4, won=[2, 0, 3, 1])
    top0, top2 = state.won[0][-1], state.won[2][-1]
    play_tick(state, {0: "shout:rat"})  # wrong, tick 0
    play_tick(state, {})  # tick 1: nobody
    delta = play_tick(state, {1: "grab:egg", 2: "bang"})  # tick 2: winner 1, seat 2 wrong
    assert delta == [-1, 1 + 2, -1, 0]
    assert len(state.won[0]) == 1 and len(state.won[2]) == 2 and len(state.won[3]) == 1
    assert top0 in state.won[1] and top2 in state.won[1]
    assert sorted(state.last_result.returned_by) == [0, 2]
    assert state.cards_accounted() == GAME[id(state)].total_cards


def test_a_wrong_answer_without_cards_returns_nothing():
    state = table("egg/white", won=[0, 0, 0])
    delta = play_tick(state, {0: "grab:apple", 2: "grab:egg"})
    assert delta == [0, 0, 1]
    assert state.last_result.returned_by == []


def test_tie_sends_card_and_returned_cards_to_the_jackpot():
    state = table("apple/red", n=4, won=[1, 0, 0, 2])
    card = state.card
    returned = state.won[3][-1]
    delta = play_tick(state, {0: "grab:apple", 1: "grab:apple", 3: "grab:chili"})
    assert delta == [0, 0, 0, -1]
    assert state.last_result.winner is None
    assert state.last_result.tied == [0, 1]
    assert state.jackpot == [card, returned]
    assert state.dealer == 0  # nobody won: the dealer deals again
    assert state.cards_accounted() == GAME[id(state)].total_cards


def test_after_a_tie_the_last_winner_deals_again():
    """Only a winner takes the deal: a tie (or nobody right) leaves it where it was, with a
    dealer other than seat 0 so that a reset to 0 would show."""
    state = table("egg/white", n=3)
    play_tick(state, {2: "grab:egg"})
    assert state.dealer == 2
    right = rules.RESPONSES[
        rules.correct_response_index(
            state.card, state.shaker_on, state.fly_under, GAME[id(state)].level
        )
    ]
    play_tick(state, {0: right, 1: right})
    assert state.last_result.winner is None and state.last_result.tied == [0, 1]
    assert state.dealer == 2


def test_the_jackpot_left_after_the_last_card_stays_unclaimed():
    """The last card tied: it joins the jackpot, nobody takes it, and the cards won decide
    the game (RULES.md: the jackpot left after the last card stays unclaimed)."""
    state = table("egg/white", n=3, won=[2, 1, 0], jackpot=2)
    game = GAME[id(state)]
    state.won[0] += state.deck
    state.deck = []  # the card showing is the last
    counts = state.card_counts()
    play_tick(state, {0: "grab:egg", 1: "grab:egg"})
    assert state.is_over and len(state.jackpot) == 3
    assert state.card_counts() == counts and state.cards_accounted() == game.total_cards


def test_a_seat_that_answered_keeps_perceiving_the_card():
    """Gradual perception: a seat that already answered (wrongly) goes on glimpsing the card
    while it stays open, as every other seat does."""
    game = rules.RattoZakko(num_players=3, level="main", perception="gradual")
    state = game.init(np.random.default_rng(5))
    wrong = next(
        r
        for r in range(len(rules.RESPONSES))
        if r != rules.correct_response_index(state.card, state.shaker_on, state.fly_under, "main")
    )
    rules.submit(state, 0, wrong)
    rules.end_tick(game, state, np.random.default_rng(6))
    assert state.tick == 1 and state.answer[0] != rules.NO_ANSWER
    before = state.evidence.copy()
    rules.end_tick(game, state, np.random.default_rng(7))  # nobody answers this tick
    assert state.tick == 2
    for seat in range(3):  # every seat's evidence moved, the one that answered too
        assert not np.array_equal(state.evidence[seat], before[seat]), seat


def test_nobody_right_when_everyone_answered_wrongly():
    state = table("fly", n=2, fly="egg", won=[1, 1])
    delta = play_tick(state, {0: "shout:fly", 1: "grab:fish"})
    assert delta == [-1, -1]
    assert state.last_result.winner is None
    assert len(state.jackpot) == 3  # the fly card and both returned cards
    assert state.phase == rules.PHASE_REACT  # no relocation without a winner


def test_nobody_right_when_the_window_ends():
    state = table("chili/red", window=3)
    play_tick(state, {})
    play_tick(state, {0: "grab:egg"})
    assert state.tick == 2
    delta = play_tick(state, {})
    assert delta == [0, 0, 0]
    assert state.last_result.tick == 2 and state.last_result.winner is None
    assert len(state.jackpot) == 1


def test_jackpot_is_paid_to_the_next_winner():
    state = table("egg/white", n=2)
    play_tick(state, {0: "grab:egg", 1: "grab:egg"})  # tie: jackpot 1
    assert len(state.jackpot) == 1
    nxt = state.card
    answer = rules.RESPONSES[
        rules.correct_response_index(nxt, state.shaker_on, state.fly_under, GAME[id(state)].level)
    ]
    delta = play_tick(state, {1: answer})
    assert delta == [0, 2]
    assert state.jackpot == [] and len(state.won[1]) == 2


@pytest.mark.parametrize(
    ("card", "shaker", "fly", "level", "event"),
    [
        ("egg/white", "cheese", "fish", "main", False),  # plain grab
        ("fish/red", "cheese", "fish", "main", True),  # FLY
        ("cheese/red", "cheese", "fish", "main", True),  # RAT
        ("fly", "cheese", "fish", "starter", True),  # grab on a fly card
        ("rat", "cheese", "fish", "main", True),  # rat card, shout the food
        ("rat", "fish", "fish", "main", True),  # rat card, FLY
        ("fish/blue", "fish", "fish", "dessert", False),  # bang beats the fly and rat
    ],
)
def test_relocation_only_after_fly_or_rat_events(card, shaker, fly, level, event):
    state = table(card, shaker=shaker, fly=fly, level=level)
    answer = correct_response(card, shaker, fly, level)
    play_tick(state, {2: answer})
    assert state.last_result.winner == 2
    assert state.last_result.event is event
    if event:
        assert state.phase == rules.PHASE_RELOCATE
        assert state.to_act() == [2] and state.card is None
    else:
        assert state.phase == rules.PHASE_REACT


def test_relocation_moves_fly_or_shaker_once_and_deals():
    state = table("fly", fly="egg")
    play_tick(state, {1: "grab:egg"})
    with pytest.raises(ValueError, match="may not"):
        rules.relocate(GAME[id(state)], state, 0, rules.LEAVE_BOTH, RNG)
    rules.relocate(GAME[id(state)], state, 1, rules.RELOCATE_FLY_FIRST + FOODS.index("chili"), RNG)
    assert FOODS[state.fly_under] == "chili" and FOODS[state.shaker_on] == "cheese"
    assert state.fly_shown and state.phase == rules.PHASE_REACT and state.card is not None

    state = table("cheese/red")
    play_tick(state, {0: "shout:rat"})
    rules.relocate(
        GAME[id(state)], state, 0, rules.RELOCATE_SHAKER_FIRST + FOODS.index("apple"), RNG
    )
    assert FOODS[state.shaker_on] == "apple" and FOODS[state.fly_under] == "fish"
    assert not state.fly_shown

    state = table("cheese/red")
    play_tick(state, {0: "shout:rat"})
    rules.relocate(GAME[id(state)], state, 0, rules.LEAVE_BOTH, RNG)
    assert FOODS[state.shaker_on] == "cheese" and FOODS[state.fly_under] == "fish"


def test_relocation_both_variant_moves_fly_then_shaker():
    state = table("fly", fly="egg")
    GAME[id(state)].relocation = "both"
    play_tick(state, {1: "grab:egg"})
    assert rules.legal_relocations(GAME[id(state)], state) == [0, 1, 2, 3, 4, rules.LEAVE_BOTH]
    with pytest.raises(ValueError, match="not legal"):
        rules.relocate(GAME[id(state)], state, 1, rules.RELOCATE_SHAKER_FIRST, RNG)
    rules.relocate(GAME[id(state)], state, 1, rules.RELOCATE_FLY_FIRST + FOODS.index("apple"), RNG)
    assert state.phase == rules.PHASE_RELOCATE and state.relocation_stage == 1
    assert rules.legal_relocations(GAME[id(state)], state) == [5, 6, 7, 8, 9, rules.LEAVE_BOTH]
    rules.relocate(
        GAME[id(state)], state, 1, rules.RELOCATE_SHAKER_FIRST + FOODS.index("chili"), RNG
    )
    assert FOODS[state.fly_under] == "apple" and FOODS[state.shaker_on] == "chili"
    assert state.phase == rules.PHASE_REACT and state.fly_shown


def test_no_relocation_after_the_last_card():
    state = table("fly", fly="egg", won=[0, 0, 0])
    state.won[0].extend(state.deck)
    state.deck.clear()
    play_tick(state, {1: "grab:egg"})
    assert state.is_over and state.relocator is None


def test_game_ends_when_deck_is_used_and_most_cards_win():
    state = table("egg/white", n=3)
    state.won[1].extend(state.deck[:30])
    state.won[2].extend(state.deck[30:])
    state.deck.clear()
    play_tick(state, {2: "grab:egg"})
    assert state.is_over
    counts = state.card_counts()
    assert state.winners() == [c == max(counts) for c in counts]
    assert counts[1] + counts[2] == 54 and state.jackpot == []
    tie = table("egg/white", n=2)
    tie.won[0].extend(tie.deck[:27])  # 53 cards left after the one showing
    tie.won[1].extend(tie.deck[27:])
    tie.deck.clear()
    play_tick(tie, {1: "grab:egg"})
    assert tie.card_counts() == [27, 27]
    assert tie.winners() == [True, True]  # ties share


# ------------------------------------------------- resolution against a reference
def reference_resolution(correct, schedule, won, jackpot, window, n):
    """RULES.md's resolution written directly from the answer schedule.

    ``schedule``: seat -> (response, tick). Returns (resolution tick, winner or None,
    seats that return a card, cards won by each seat after, jackpot size after).
    """
    right_ticks = [t for (r, t) in schedule.values() if r == correct]
    if right_ticks:
        end = min(right_ticks)
    elif len(schedule) == n:
        end = max(t for (_r, t) in schedule.values())
    else:
        end = window - 1
    end = min(end, window - 1)
    given = {s: (r, t) for s, (r, t) in schedule.items() if t <= end}
    right = [s for s, (r, t) in given.items() if r == correct and t == end]
    wrong = sorted(s for s, (r, _t) in given.items() if r != correct)
    returners = [s for s in wrong if won[s] > 0]
    after = list(won)
    for s in returners:
        after[s] -= 1
    winner = right[0] if len(right) == 1 else None
    if winner is not None:
        after[winner] += 1 + jackpot + len(returners)
        jackpot_after = 0
    else:
        jackpot_after = jackpot + 1 + len(returners)
    return end, winner, returners, after, jackpot_after


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    n=st.integers(2, 6),
    window=st.integers(1, 8),
    card=st.sampled_from(ALL_CARDS),
    shaker=st.sampled_from(FOODS),
    fly=st.sampled_from(FOODS),
)
def test_resolution_matches_the_reference(data, n, window, card, shaker, fly):
    level = "main"
    won = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    jackpot = data.draw(st.integers(0, 2))
    state = table(
        card, shaker=shaker, fly=fly, level=level, n=n, won=won, jackpot=jackpot, window=window
    )
    correct = RESPONSE_INDEX[correct_response(card, shaker, fly, level)]
    responses = st.sampled_from([correct, *range(rules.NUM_RESPONSES)])  # often right
    schedule = {}
    for s in range(n):
        if data.draw(st.booleans()):
            schedule[s] = (data.draw(responses), data.draw(st.integers(0, window)))
    end, winner, returners, after, jackpot_after = reference_resolution(
        correct, schedule, won, jackpot, window, n
    )
    card_id = state.card
    dealt_before = state.cards_dealt
    for t in range(window):
        assert state.tick == t and state.cards_dealt == dealt_before
        for s in state.to_act():
            r, when = schedule.get(s, (None, -1))
            rules.submit(state, s, r if when == t else WAIT)
        rules.end_tick(GAME[id(state)], state, RNG)
        if state.last_result is not None and state.last_result.card == card_id:
            break
    result = state.last_result
    assert result is not None and result.card == card_id
    assert result.tick == end
    assert result.winner == winner
    assert sorted(result.returned_by) == returners
    assert state.card_counts() == after
    assert len(state.jackpot) == jackpot_after
    assert state.cards_accounted() == GAME[id(state)].total_cards


def test_rz_memoryless_hides_the_fly_at_a_new_card_when_it_did_not_move():
    """RULES.md 3: a memoryless observation must not show where the fly hides (it is shown
    only at the game's first tick and after it moved). Seat 0 wins plain (non-event) cards;
    the next card's tick-0 observation hides the fly."""
    options = {"level": "main", "perception": "clear", "observation": "memoryless"}
    game = rules.RattoZakko(num_players=2, **options)
    view = game.observer("memoryless")
    rng = np.random.default_rng(0)
    state = game.init(rng)
    checked = 0
    while not state.is_over and checked < 10:
        if state.phase == rules.PHASE_RELOCATE:
            game.apply(
                state, {state.relocator: rules.ACTION_RELOCATE_FIRST + rules.LEAVE_BOTH}, rng
            )
            continue
        right = game.correct(state)
        plain = not rules.is_fly_or_rat_event(state.card, right)
        game.apply(state, {0: rules.ACTION_RESPONSE_FIRST + right, 1: rules.ACTION_WAIT}, rng)
        if plain and state.phase == rules.PHASE_REACT and state.tick == 0:
            for seat in (0, 1):
                o = view.observe(state, seat)
                assert o[rz_observe.FLY_SHOWN] == 0 and not o[rz_observe.FLY_SLICE].any()
            checked += 1
    assert checked == 10
