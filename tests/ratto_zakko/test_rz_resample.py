"""Ratto Zakko's resampler (``RattoZakko.resample``): a state dealt anew from what one seat
sees. It must not give away what the seat cannot know (the card under gradual perception,
the fly while a memoryless observation hides it, the other seats' answers), and it must be
a state the game could be in (the cards add up; no earlier answer is right for the card)."""

from __future__ import annotations

import copy
import pickle
from collections import Counter

import numpy as np
import pytest

from ratenvs.ratto_zakko import rules
from ratenvs.ratto_zakko.rules import ACTION_RELOCATE_FIRST, ACTION_RESPONSE_FIRST, ACTION_WAIT

RESAMPLES = 400


def _answered_card(
    observation: str = "memoryless",
    perception: str = "gradual",
    seed: int = 0,
    public_record: bool = False,
):
    """A 4-seat dessert game at tick 1 of a card: seats 0, 1 and 2 answered it wrongly at
    tick 0, seat 3 still waits; seat 0's answer is the commonest wrong response of the cards
    it might be (so a resample that forgot it would often make it right)."""
    game = rules.RattoZakko(
        num_players=4,
        level="dessert",
        observation=observation,
        perception=perception,
        public_record=public_record,
    )
    state = game.init(np.random.default_rng(seed))
    right = game.correct(state)
    tallies = Counter(
        rules.correct_response_index(c, state.shaker_on, f, game.level)
        for c in set(state.deck)
        for f in range(rules.NUM_FOODS)
    )
    own = next(r for r, _ in tallies.most_common() if r != right)
    wrong = [r for r in range(rules.NUM_RESPONSES) if r not in (right, own)]
    actions = {0: own, 1: wrong[0], 2: wrong[1], 3: None}
    game.apply(
        state,
        {s: ACTION_WAIT if a is None else ACTION_RESPONSE_FIRST + a for s, a in actions.items()},
        np.random.default_rng(seed + 1),
    )
    assert state.phase == rules.PHASE_REACT and state.tick == 1 and not state.fly_shown
    return game, state


def _resamples(game, state, seat=0):
    return [game.resample(state, seat, np.random.default_rng(k)) for k in range(RESAMPLES)]


def test_the_hidden_fly_may_be_under_any_cloche_the_true_one_too():
    game, state = _answered_card(perception="clear")
    flies = Counter(new.fly_under for new in _resamples(game, state))
    assert set(flies) == set(range(rules.NUM_FOODS))
    # the seat's own wrong answer rules some out; the true place never is
    assert flies[state.fly_under] > RESAMPLES // 20


def test_a_shown_fly_stays_and_a_seen_card_stays():
    game, state = _answered_card(observation="knowledge", perception="clear")
    for new in _resamples(game, state)[:50]:
        assert (new.fly_under, new.card) == (state.fly_under, state.card)
        assert sorted(new.deck) == sorted(state.deck)


def test_the_resampled_card_is_one_not_yet_dealt_and_the_deck_does_not_give_the_truth_away():
    game, state = _answered_card()
    not_dealt = sorted([*state.deck, state.card])
    cards = Counter()
    for new in _resamples(game, state):
        assert sorted([*new.deck, new.card]) == not_dealt  # the cards add up
        assert new.cards_accounted() == state.cards_accounted()
        cards[new.card] += 1
    assert len(cards) > 5  # early in the card, many cards are likely
    assert cards[state.card] < RESAMPLES // 2


def test_no_earlier_answer_is_right_for_the_resampled_card_and_the_others_are_drawn_anew():
    game, state = _answered_card()
    others = Counter()
    for new in _resamples(game, state):
        right = game.correct(new)
        assert new.answer[0] == state.answer[0] != right  # its own answer, still wrong
        assert all(new.answer[s] != right for s in (1, 2))  # theirs: wrong for this card
        assert new.answer[3] == rules.NO_ANSWER and new.answer_tick == state.answer_tick
        others[new.answer[1]] += 1
    assert len(others) > 5  # the seat does not know what they answered


def test_with_the_public_record_every_answer_is_kept_and_none_is_right():
    """``public_record``: the seat saw what the others answered, so a resample keeps their
    answers, and the resampled card (and hidden fly) is right for none of them; the seat's
    observation (unseen cards, answers ruled out) is unchanged."""
    game, state = _answered_card(public_record=True)
    observer = game.observer("memoryless")
    seen = observer.observe(state, 0)
    assert observer.views(seen)["ruled_out"].sum() == 3
    cards = Counter()
    for new in _resamples(game, state):
        right = game.correct(new)
        assert new.answer == state.answer and right not in state.answer
        assert observer.observe(new, 0).tobytes() == seen.tobytes()
        cards[new.card] += 1
    assert len(cards) > 5  # the card is still drawn anew


def test_the_state_resampled_for_another_seat_keeps_that_seats_answer():
    game, state = _answered_card()
    for new in _resamples(game, state, seat=2)[:100]:
        assert new.answer[2] == state.answer[2] != game.correct(new)
        assert new.posterior[2].tobytes() == state.posterior[2].tobytes()


RIGHT = "right"


@pytest.mark.parametrize(
    "actions",
    [
        {3: RIGHT, 1: ACTION_WAIT},  # seat 1 has answered this card already
        {3: RIGHT, 7: ACTION_WAIT},  # no such seat
        {3: RIGHT, 0: RIGHT},  # seat 0 too
        {3: ACTION_RELOCATE_FIRST},  # not an answer
        {3: 99},  # no such action
        {3: -1},
    ],
)
def test_a_tick_with_one_refused_action_gives_none_of_them(actions):
    """Seat 3's right answer comes first; a refused action after it must not leave it given
    (the seat would win the card at the next tick without having answered validly)."""
    game, state = _answered_card()
    right = ACTION_RESPONSE_FIRST + game.correct(state)
    actions = {s: right if a == RIGHT else a for s, a in actions.items()}
    before = copy.deepcopy(state)
    with pytest.raises(ValueError, match="no action of this tick was given"):
        game.apply(state, actions, np.random.default_rng(0))
    assert pickle.dumps(state) == pickle.dumps(before)
