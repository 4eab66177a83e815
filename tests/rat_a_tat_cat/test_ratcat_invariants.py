"""Random play over many seeds and table sizes: every card is somewhere exactly once, all
knowledge is true, and games terminate."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from ratcat_helpers import check_invariants

from ratenvs.rat_a_tat_cat import rules


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(2, 6),
    rounds=st.integers(1, 3),
    max_turns=st.sampled_from([1, 2, 7, 40, 200]),
    knock_weight=st.sampled_from([0.0, 0.05, 0.5]),
)
def test_random_play_keeps_all_54_cards_and_terminates(seed, n, rounds, max_turns, knock_weight):
    rng = np.random.default_rng(seed)
    game = rules.RatATatCat(num_players=n, rounds=rounds, max_turns_per_round=max_turns)
    state = game.init(rng)
    decisions = 0
    bound = rounds * max_turns * 20  # a turn has at most a handful of decisions
    while not state.is_over:
        legal = rules.legal_actions(state)
        if rules.ACTION_KNOCK in legal:
            action = rules.ACTION_KNOCK if rng.random() < knock_weight else rules.ACTION_NO_KNOCK
        else:
            action = legal[int(rng.integers(len(legal)))]
        rules.apply_action(state, action, rng, game)
        check_invariants(state)
        decisions += 1
        assert decisions < bound
    assert state.round_index == rounds - 1
    assert sum(state.winners) >= 1


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(2, 6), target=st.integers(20, 80))
def test_elimination_games_terminate_with_the_right_winner(seed, n, target):
    rng = np.random.default_rng(seed)
    game = rules.RatATatCat(num_players=n, rounds=None, target_score=target, max_turns_per_round=30)
    state = game.init(rng)
    while not state.is_over:
        legal = rules.legal_actions(state)
        rules.apply_action(state, legal[int(rng.integers(len(legal)))], rng, game)
        check_invariants(state)
    alive = [p for p in range(n) if state.active[p]]
    assert len(alive) <= 1
    if alive:
        assert state.winners == [p == alive[0] for p in range(n)]
    else:  # everybody left crossed in the last round: the lowest of them won
        assert any(state.winners)
        assert all(state.totals[p] >= target for p in range(n))
