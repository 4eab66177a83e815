"""Rare Rat-a-Tat Cat branches the batched replay proofs do not count, played from built
positions loaded into the batched engine beside the reference rules: every remaining player
out in one round (both tiebreaks), two players out together and tied, ``eliminate_at=
"reaches"`` at exactly the target, a knock honoured past the turn cap, the cap turn without
a knock, and the end-of-round replacement when the draw pile holds only power cards."""

from __future__ import annotations

import numpy as np
import pytest
from ratcat_helpers import D2, P, S, build_state

from ratenvs.rat_a_tat_cat import rules

pytest.importorskip("numba")

DRAW, DISCARD = rules.ACTION_DRAW, rules.ACTION_DISCARD
KNOCK, NO_KNOCK, DECLINE = rules.ACTION_KNOCK, rules.ACTION_NO_KNOCK, rules.ACTION_DECLINE
KNOCK_ROUND_3P = [DRAW, DISCARD, KNOCK] + [DRAW, DISCARD] * 2


def _play_both(state: rules.State, actions: list[int], **options) -> rules.State:
    """Play ``actions`` from ``state`` in the reference rules and in the batched engine (the
    position loaded), checking every step's seat, mask and rewards, the end, and every seat's
    final observation; returns the reference's final state."""
    from ratenvs.rat_a_tat_cat.batched import BatchedRatATatCat

    game = rules.RatATatCat(num_players=state.num_players, **options)
    engine = BatchedRatATatCat(1, seed=0, num_players=state.num_players, **options)
    view = game.observer(game.observation_kind)
    batch = engine.load_states([state.copy()])
    ref = state.copy()
    rng = np.random.default_rng(0)
    for step, action in enumerate(actions):
        seat = ref.current
        assert batch.to_act[0] == seat, step
        assert batch.mask[0, action] == 1 and game.legal_mask(ref, seat)[action] == 1, step
        got = game.apply(ref, {seat: action}, rng)
        want = np.zeros(state.num_players) if got is None else np.array(got)
        batch = engine.step(np.array([action]))
        np.testing.assert_allclose(batch.rewards[0], want, atol=1e-6, err_msg=f"step {step}")
        assert bool(batch.terminated[0]) == ref.is_over, step
    assert ref.is_over, "the actions end the game"
    for seat in range(state.num_players):
        np.testing.assert_array_equal(engine.final_obs[0][seat], view.observe(ref, seat))
    return ref


@pytest.mark.parametrize("tiebreak", ["lowest_total", "shared"])
def test_every_remaining_player_out_in_one_round(tiebreak: str) -> None:
    hands = [[9, 9, 9, 9], [5, 5, 5, 5], [6, 6, 6, 2]]
    state = build_state(hands, draw_top=[9] * 3, discard=[4], totals=[20, 40, 40])
    ref = _play_both(
        state,
        KNOCK_ROUND_3P,
        rounds=None,
        target_score=50,
        elimination_tiebreak=tiebreak,
        reward="win",
    )
    # 56, 60 and 60: all out; the lowest total wins, or every one shares
    assert ref.winners == ([True, False, False] if tiebreak == "lowest_total" else [True] * 3)


def test_two_players_out_together_and_tied() -> None:
    hands = [[5, 5, 5, 5], [6, 6, 6, 2]]
    state = build_state(hands, draw_top=[9] * 3, discard=[4], totals=[40, 40])
    ref = _play_both(
        state, [DRAW, DISCARD, KNOCK, DRAW, DISCARD], rounds=None, target_score=50, reward="win"
    )
    assert ref.totals == [60, 60] and ref.winners == [True, True]


def test_reaching_the_target_exactly_puts_a_player_out() -> None:
    hands = [[9, 9, 9, 9], [0, 0, 1, 1], [2, 2, 2, 2]]
    state = build_state(hands, draw_top=[9] * 3, totals=[20, 10, 42])
    ref = _play_both(
        state, KNOCK_ROUND_3P, rounds=None, target_score=50, eliminate_at="reaches", reward="win"
    )
    assert ref.totals[2] == 50 and not ref.winners[2]


def test_a_knock_is_honoured_past_the_turn_cap_and_the_cap_turn_has_no_knock() -> None:
    hands = [[1, 2, 3, 4]] * 3
    actions = [DRAW, DISCARD, NO_KNOCK, DRAW, DISCARD, KNOCK, DRAW, DISCARD, DRAW, DISCARD]
    _play_both(build_state(hands, draw_top=[9] * 6), actions, max_turns_per_round=3)
    capped = [DRAW, DISCARD, NO_KNOCK, DRAW, DISCARD]  # the second turn is the cap's: no knock
    _play_both(build_state(hands, draw_top=[9] * 6), capped, max_turns_per_round=2)


def test_a_power_card_left_in_a_hand_is_replaced_when_only_power_cards_are_left() -> None:
    """The round ends with a Swap in seat 0's hand and only power cards in the draw pile: the
    discard pile is shuffled in and the Swap replaced by a number card, in both engines."""
    from ratenvs.rat_a_tat_cat.batched import BatchedRatATatCat

    state = build_state([[S, 1, 1, 1], [1, 2, 3, 4]], draw_top=[P, D2], discard=[0])
    numbers = [c for c in state.draw_pile if rules.KIND[c] < 10]
    state.draw_pile = [c for c in state.draw_pile if rules.KIND[c] >= 10]
    state.discard_pile = state.discard_pile[:-1] + numbers + state.discard_pile[-1:]
    state.discard_counts = [0] * rules.NUM_KINDS
    for card in state.discard_pile:
        state.discard_counts[rules.KIND[card]] += 1
    # seat 0 draws the Draw 2, declines it and knocks; seat 1 draws the Peek and declines it
    actions = [DRAW, DECLINE, KNOCK, DRAW, DECLINE]
    ref = state.copy()
    game = rules.RatATatCat(num_players=2, reward="points")
    rng = np.random.default_rng(0)
    for action in actions:
        game.apply(ref, {ref.current: action}, rng)
    replaced = [rules.KIND[c] for c in ref.last_round_hands[0]]
    assert replaced[1:] == [1, 1, 1] and replaced[0] < 10
    engine = BatchedRatATatCat(1, seed=0, num_players=2, reward="points")
    batch = engine.load_states([state.copy()])
    for action in actions:
        batch = engine.step(np.array([action]))
    points = -batch.rewards[0] * 10  # the round's points: 3 + the number card that came
    assert 3 <= points[0] <= 12 and points[1] == 10
