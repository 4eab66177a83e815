"""Every rule of RULES.md section 2 (Catz, Ratz and Batz), with the seed's worked examples."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratenvs import catz_ratz_batz_v0
from ratenvs.catz_ratz_batz import rules
from ratenvs.catz_ratz_batz.rules import Dice, score, turn_score


@pytest.mark.parametrize(
    ("dice", "expected"),
    [
        (Dice(cats=3, bats=1, rats=1, fives=4), 60),  # CCCBR 5555
        (Dice(cats=2, bats=1, rats=1, threes=5), 45),  # CCBR 33333
        (Dice(cats=1, bats=3, rats=3, threes=2), 12),  # CBBBRRR 33
        (Dice(cats=4, bats=1, sevens=4), 112),  # CCCCB 7777
    ],
)
def test_seed_examples(dice, expected):
    assert turn_score(dice) == expected


def test_bats_are_good_for_3_neutral_for_5_bad_for_7():
    # one Bat, nothing else: good 1 / bad 0 with 3s, 0 / 0 with 5s, 0 / 1 with 7s
    assert score(0, 1, 0, 3, 2) == 6 * 2
    assert score(0, 1, 0, 5, 2) == 10
    assert score(0, 1, 0, 7, 2) == 0


def test_fewer_good_than_bad_scores_zero_equal_scores_base():
    assert score(cats=1, bats=0, rats=2, number=5, count=3) == 0
    assert score(cats=2, bats=0, rats=2, number=5, count=3) == 15
    assert score(cats=0, bats=0, rats=0, number=7, count=1) == 7


def test_each_good_animal_beyond_the_bad_ones_adds_a_copy_of_the_base():
    for good in range(0, 6):
        assert score(cats=good, bats=0, rats=0, number=5, count=2) == 10 * (1 + good)


def test_no_number_dice_scores_zero_even_with_cats():
    assert turn_score(Dice(cats=9)) == 0
    assert turn_score(Dice(cats=5, bats=2, rats=2)) == 0


def test_turn_over_when_numbers_all_alike_or_none():
    assert rules.is_turn_over(Dice(cats=9))
    assert rules.is_turn_over(Dice(cats=2, fives=7))
    assert not rules.is_turn_over(Dice(threes=1, fives=8))
    assert rules.legal_keeps(Dice(threes=3, sevens=2, rats=4)) == (3, 7)
    assert rules.legal_keeps(Dice(threes=9)) == ()
    with pytest.raises(ValueError, match="not over"):
        turn_score(Dice(threes=1, fives=1, cats=7))


def test_reroll_keeps_the_number_sets_animals_aside_and_rerolls_the_rest():
    dice = Dice(cats=1, bats=1, threes=3, fives=2, sevens=2)
    after = rules.apply_reroll(dice, 3, (1, 0, 1, 1, 1, 0))  # rolled: 3, 7, Cat, Bat
    assert after == Dice(cats=2, bats=2, rats=0, threes=4, fives=0, sevens=1)
    rng = np.random.default_rng(0)
    for _ in range(200):
        out = rules.reroll(dice, 5, rng)
        assert sum(out) == rules.NUM_DICE
        assert out.fives >= 2 and out.cats >= 1 and out.bats >= 1
    with pytest.raises(ValueError, match="cannot keep 5"):
        rules.reroll(Dice(threes=4, sevens=5), 5, rng)


def test_the_kept_number_may_change_at_every_roll():
    # after keeping 3s, 7s may be kept next time
    dice = rules.apply_reroll(Dice(threes=1, fives=1, sevens=7), 3, (0, 0, 8, 0, 0, 0))
    assert dice == Dice(threes=1, sevens=8)
    assert rules.legal_keeps(dice) == (3, 7)


def test_first_roll_is_a_fair_die():
    rng = np.random.default_rng(1)
    counts = np.zeros(6)
    for _ in range(3000):
        d = rules.first_roll(rng)
        counts += [d.threes, d.fives, d.sevens, d.cats, d.bats, d.rats]
    freq = counts / counts.sum()
    assert np.all(np.abs(freq - 1 / 6) < 0.01)


def _game(players, turns, target_score=None):
    return rules.CatzRatzBatz(num_players=players, turns=turns, target_score=target_score)


def _play(game, rng, policy):
    state = game.init(rng)
    rolls = 0
    while not game.is_terminal(state):
        (seat,) = game.to_act(state)
        if state.phase == rules.PHASE_ROLL:
            action = rules.ACTION_ROLL
        else:
            action = rules.NUMBERS.index(policy(state.dice))
        assert game.legal_mask(state, seat)[action]
        game.apply(state, {seat: action}, rng)
        rolls += 1
        assert rolls < 10_000
        assert sum(state.dice) == rules.NUM_DICE
    return state


def test_the_game_declares_every_option_with_todays_defaults():
    """RULES.md section 2: "option `turns` (turns per player, default 10), highest total
    wins; option `target_score` (e.g. 200) for a race variant where the round in which
    someone reaches it is finished so all players had equal turns (ruling)"; and "There is
    no voluntary stop (ruling)": the only moves are to roll and to keep 3, 5 or 7."""
    spec = rules.CatzRatzBatz.options
    assert list(spec) == [
        "num_players",
        "turns",
        "target_score",
        "race_end",
        "reward",
        "totals_view",
    ]
    assert spec.defaults() == {
        "num_players": 2,
        "turns": 10,
        "target_score": None,
        "race_end": "round",
        "reward": "score",
        "totals_view": "absolute",
    }
    assert catz_ratz_batz_v0.raw_env().options == spec.defaults()
    game = rules.CatzRatzBatz()
    assert (game.turns, game.target_score, game.race_end) == (10, None, "round")
    assert rules.CatzRatzBatz(target_score=200).turns == 10  # a race keeps the turn limit
    assert rules.NUM_ACTIONS == game.num_actions == 4  # roll, keep 3 / 5 / 7: no stop
    # the default game: ten turns each, then the highest total wins
    state = _play(game, np.random.default_rng(10), lambda d: min(rules.legal_keeps(d)))
    assert state.turns_taken == [10, 10]
    assert state.winners() == [t == max(state.totals) for t in state.totals]


def test_game_ends_after_turns_each_and_totals_add_up():
    rng = np.random.default_rng(5)
    state = _play(_game(3, 4), rng, lambda d: min(rules.legal_keeps(d)))
    assert state.turns_taken == [4, 4, 4]
    assert state.winners() == [t == max(state.totals) for t in state.totals]


def test_race_finishes_the_round_so_all_seats_had_equal_turns():
    rng = np.random.default_rng(11)
    game = _game(3, None, 60)
    policy = lambda d: max(rules.legal_keeps(d), key=d.count)  # noqa: E731
    played_on = 0  # games where a seat reached the target before the round's last turn
    for _ in range(20):
        state = game.init(rng)
        round_ends, reached_at = [], None
        while not game.is_terminal(state):
            (seat,) = game.to_act(state)
            roll = state.phase == rules.PHASE_ROLL
            action = rules.ACTION_ROLL if roll else rules.NUMBERS.index(policy(state.dice))
            game.apply(state, {seat: action}, rng)
            if reached_at is None and max(state.totals) >= 60:
                reached_at = list(state.turns_taken)
            if len(set(state.turns_taken)) == 1 and state.turns_taken[0] > len(round_ends):
                round_ends.append(max(state.totals))  # a round ended: the highest total
        assert len(set(state.turns_taken)) == 1
        # every round before the last one ended with everybody below the target
        assert round_ends[-1] >= 60 and all(t < 60 for t in round_ends[:-1])
        assert len(round_ends) == state.turns_taken[0]
        played_on += len(set(reached_at)) > 1  # reached mid-round: the round went on
    assert played_on > 0


def test_race_ending_with_the_turn_stops_at_the_first_seat_to_reach_the_target():
    rng = np.random.default_rng(12)
    game = rules.CatzRatzBatz(num_players=3, turns=None, target_score=60, race_end="turn")
    policy = lambda d: max(rules.legal_keeps(d), key=d.count)  # noqa: E731
    unequal = 0
    for _ in range(30):
        state = game.init(rng)
        while not game.is_terminal(state):
            assert max(state.totals) < 60  # nobody had reached it while the game went on
            (seat,) = game.to_act(state)
            roll = state.phase == rules.PHASE_ROLL
            action = rules.ACTION_ROLL if roll else rules.NUMBERS.index(policy(state.dice))
            game.apply(state, {seat: action}, rng)
        last = (state.current - 1) % 3  # the seat whose turn ended the game
        assert state.totals[last] >= 60 and state.winners() == [s == last for s in range(3)]
        unequal += len(set(state.turns_taken)) > 1
    assert unequal > 0  # a seat before the last one reached it, and the round stopped


class _AllFives:
    """Dice that always show nine 5s: every turn scores 45 and ends at once."""

    def multinomial(self, n, _probs):
        return np.array([0, n, 0, 0, 0, 0])


@pytest.mark.parametrize(("target", "totals"), [(45, [45, 45]), (46, [90, 90])])
def test_a_race_is_reached_at_the_target_itself(target, totals):
    """Reaching is ``total >= target``: at 45 the first round ends it, at 46 it takes two
    (a threshold one off either way is another game)."""
    game = rules.CatzRatzBatz(num_players=2, turns=None, target_score=target)
    state = game.init(_AllFives())
    while not game.is_terminal(state):
        (seat,) = game.to_act(state)
        game.apply(state, {seat: rules.ACTION_ROLL}, _AllFives())
    assert list(state.totals) == totals


def test_turn_cap_applies_in_a_race_too():
    rng = np.random.default_rng(3)
    state = _play(_game(2, 2, 10_000), rng, lambda d: min(rules.legal_keeps(d)))
    assert state.turns_taken == [2, 2]


def test_game_parameters_live_on_the_game_not_the_state():
    game = _game(3, 4)
    state = game.init(np.random.default_rng(0))
    assert not hasattr(state, "turns") and not hasattr(state, "target_score")
    assert game.params == {
        "num_players": 3,
        "turns": 4,
        "target_score": None,
        "race_end": "round",
        "reward": "score",
        "totals_view": "absolute",
    }


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(1, 6),
    turns=st.integers(1, 4),
)
def test_random_play_terminates_with_consistent_totals(seed, players, turns):
    rng = np.random.default_rng(seed)
    game = _game(players, turns)
    state = game.init(rng)
    scores = [0] * players
    while not game.is_terminal(state):
        seat = state.current
        if state.phase == rules.PHASE_ROLL:
            action = rules.ACTION_ROLL
        else:
            keeps = rules.legal_keeps(state.dice)
            action = rules.NUMBERS.index(keeps[rng.integers(len(keeps))])
        infos = {}
        game.apply(state, {seat: action}, rng, infos)
        if infos:
            pts = infos[seat]["turn_score"]
            assert pts == turn_score(state.dice)
            scores[seat] += pts
    assert scores == state.totals
    assert state.turns_taken == [turns] * players


class _AllFives:
    """A chance source whose every roll shows nothing but 5s."""

    def multinomial(self, n, probs):
        return np.array([0, n, 0, 0, 0, 0])


def test_catz_a_tie_on_the_highest_total_shares_the_win():
    """RULES.md 2: "highest total wins" (ties share, as everywhere): both seats roll nine 5s
    (45 each) in a one-turn game."""
    game = rules.CatzRatzBatz(num_players=2, turns=1, reward="win")
    state = game.init(_AllFives())
    rewards = None
    while not game.is_terminal(state):
        (seat,) = game.to_act(state)
        rewards = game.apply(state, {seat: rules.ACTION_ROLL}, _AllFives())
    assert state.totals == [45, 45]
    assert game.winners(state) == [True, True] and rewards == [0.0, 0.0]
