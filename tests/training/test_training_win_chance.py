"""The chance to win from the standings and the win-chance reward
(training/games/rat_a_tat_cat_win_chance.py):
the elimination rules of the play-outs, the table of real rounds, and the shaping's sum
over a game."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from small_configs import small_ratcat_config

from training.config import ConfigError, config_from_dict
from training.games import rat_a_tat_cat_win_chance as win_chance
from training.games.rat_a_tat_cat_win_chance import (
    WinChance,
    WinChanceReward,
    round_points_table,
    win_share,
)
from training.selfplay import make_env
from training.train import train


@pytest.fixture(scope="module")
def table3() -> dict[int, np.ndarray]:
    return round_points_table(3, 100, games=20, seed=5)


@pytest.fixture
def shared3(table3, monkeypatch) -> WinChance:
    """The process-wide estimator for 3 players at 100, built from a small table."""
    chances = WinChance(table3, 100, playouts=300)
    monkeypatch.setitem(win_chance._CHANCES, (3, 100, "exceeds", "lowest_total"), chances)
    return chances


def test_the_table_holds_every_round_in_every_order(table3):
    assert sorted(table3) == [2, 3]
    for k, rows in table3.items():
        assert rows.shape[1] == k
        assert len(rows) % math.factorial(k) == 0
        assert rows.min() >= 0
        # each round comes with all its orders: the columns are drawn alike
        np.testing.assert_allclose(rows.mean(axis=0), rows.mean(), rtol=1e-9)
        first = rows[: math.factorial(k)]
        assert sorted(map(tuple, first)) == sorted(itertools.permutations(first[0]))


def test_a_single_kind_of_round_decides_the_game_exactly():
    # every round both score 5: 90/94 -> 95/99 -> 100/104, both cross together and the
    # lowest total among them wins (ruling)
    chances = WinChance({2: np.array([[5, 5]])}, 100, playouts=50)
    np.testing.assert_array_equal(chances.chance([90, 94], [True, True]), [1.0, 0.0])
    # equal totals cross together: the win is shared
    np.testing.assert_array_equal(chances.chance([90, 90], [True, True]), [0.5, 0.5])
    # a player out has no chance; the last player left has won
    np.testing.assert_array_equal(chances.chance([120, 40], [False, True]), [0.0, 1.0])


def test_one_player_crossing_alone_loses():
    # one of the two scores 10 each round, at random: from 95/95 whoever takes it is out
    chances = WinChance({2: np.array([[10, 0], [0, 10]])}, 100, playouts=4000)
    got = chances.chance([95, 95], [True, True])
    assert got.sum() == pytest.approx(1.0)
    assert got[0] == pytest.approx(0.5, abs=0.03)
    # 3 live players: the first to take 10 at 95 is out, the other two play on
    three = WinChance({3: np.array(list(itertools.permutations([10, 0, 0])))}, 100)
    got = three.chance([95, 50, 50], [True, True, True])
    assert got.sum() == pytest.approx(1.0)
    assert got[0] < got[1]


def test_a_total_at_the_target_is_still_in_unless_it_reaches_out():
    # every round 5 and 6 points: from 95/94 both stand at 100 after one round
    rows = {2: np.array([[5, 6]])}
    # "exceeds" (the ruling and default): 100 is still in; at 105/106 both are out
    # together and the lower total wins
    exceeds = WinChance(rows, 100, playouts=20)
    assert exceeds.out_at == 101
    np.testing.assert_array_equal(exceeds.chance([95, 94], [True, True]), [1.0, 0.0])
    # "reaches": 100 is out, both go out at 100 together and share
    reaches = WinChance(rows, 100, playouts=20, eliminate_at="reaches")
    assert reaches.out_at == 100
    np.testing.assert_array_equal(reaches.chance([95, 94], [True, True]), [0.5, 0.5])
    # elimination_tiebreak "shared": everyone going out in the same last round shares
    shared = WinChance(rows, 100, playouts=20, elimination_tiebreak="shared")
    np.testing.assert_array_equal(shared.chance([95, 94], [True, True]), [0.5, 0.5])
    with pytest.raises(ValueError, match="eliminate_at: 'exceeds' or 'reaches', got 'above'"):
        WinChance(rows, 100, eliminate_at="above")
    with pytest.raises(ValueError, match="elimination_tiebreak: 'lowest_total' or 'shared'"):
        WinChance(rows, 100, elimination_tiebreak="low")


def test_the_reward_reads_the_games_elimination_options(monkeypatch):
    rows = {k: np.array(list(itertools.permutations([5] * k)), np.int16) for k in (2, 3)}
    key = (3, 100, "reaches", "shared")
    monkeypatch.setitem(win_chance._CHANCES, key, WinChance(rows, 100, 10))
    options = {"num_players": 3, "target_score": 100, "eliminate_at": "reaches"}
    options["elimination_tiebreak"] = "shared"
    cfg = small_ratcat_config(
        {"reward_scale": 0.0},
        env_options=options,
        reward_shaping={"win_chance": {"scale": 1.0}},
    )
    wrapper = make_env(cfg, monitor=False)
    while not isinstance(wrapper, WinChanceReward):
        wrapper = wrapper.env
    assert wrapper.chances is win_chance._CHANCES[key]


def test_chances_follow_the_standings_and_repeat(table3):
    chances = WinChance(table3, 100, playouts=500)
    row = [chances.chance([x, 30, 30], [True] * 3)[0] for x in range(0, 61, 10)]
    assert all(a > b for a, b in itertools.pairwise(row))  # fewer points, better chance
    assert row[0] > 0.5 > 0.05 > row[-1]
    again = WinChance(table3, 100, playouts=500)
    np.testing.assert_array_equal(
        again.chance([20, 30, 40], [True] * 3), chances.chance([20, 30, 40], [True] * 3)
    )
    np.testing.assert_allclose(chances.chance([20, 30, 40], [True] * 3).sum(), 1.0)


@pytest.mark.parametrize("gamma", [1.0, None, 0.9])
def test_the_reward_adds_up_to_the_win_minus_the_first_chance(shared3, gamma):
    """Discounted by ``gamma`` step by step, the shaping adds up to ``gamma**T`` times the
    win minus the first chance, whatever the path (Ng et al.'s form; None: the run's
    ``algorithm.gamma``). It was the plain change whatever the discount: only its
    undiscounted sum was path-free, and PPO's discounted return paid for good standings."""
    options = {"scale": 2.0} if gamma is None else {"scale": 2.0, "gamma": gamma}
    cfg = small_ratcat_config(
        {"reward_scale": 0.0},
        env_options={"num_players": 3, "target_score": 100},
        reward_shaping={"win_chance": options},
    )
    discount = cfg.algorithm.gamma if gamma is None else gamma
    assert discount < 1.0 or gamma == 1.0
    assert cfg.reward_shaping["win_chance"].gamma == discount
    env = make_env(cfg, monitor=False)
    wrapper = env
    while not isinstance(wrapper, WinChanceReward):
        wrapper = wrapper.env
    single = env.unwrapped
    rng = np.random.default_rng(1)
    for game in range(3):
        env.reset(seed=game)
        seat = single.aec.agent_name_mapping[single.learner]
        state = single.aec.truth
        first = shared3.chance(state.totals, state.active)[seat]
        total, done, steps = 0.0, False, 0
        while not done:
            action = int(rng.choice(np.flatnonzero(single.action_masks())))
            _, reward, term, trunc, _ = env.step(action)
            total += discount**steps * reward
            done = term or trunc
            steps += 1
        winners = single.aec.truth.winners
        share = win_share(winners, seat)
        assert share == (1.0 / sum(winners) if winners[seat] else 0.0)
        assert total == pytest.approx(2.0 * (discount**steps * share - first))
        assert steps > 10


def test_the_reward_needs_the_elimination_game():
    shaping = {"win_chance": {"scale": 1.0}}
    with pytest.raises(ConfigError, match=r"reward_shaping\.win_chance: only for the elim"):
        small_ratcat_config(reward_shaping=shaping)  # rounds, no target_score
    with pytest.raises(ConfigError, match=r"reward_shaping\.win_chance: catz_ratz_batz offers"):
        config_from_dict({"game": "catz_ratz_batz", "reward_shaping": shaping})
    elimination = {"num_players": 3, "target_score": 100}
    for bad in (0.0, -1.0):
        with pytest.raises(ConfigError, match=r"reward_shaping\.win_chance\.scale: must be > 0"):
            small_ratcat_config(
                env_options=elimination, reward_shaping={"win_chance": {"scale": bad}}
            )
    with pytest.raises(ConfigError, match=r"reward_shaping\.win_chance\.scale: required"):
        small_ratcat_config(env_options=elimination, reward_shaping={"win_chance": {}})
    for bad in (0.0, 1.5, -0.5):
        with pytest.raises(ConfigError, match=r"win_chance\.gamma: must be in \(0, 1\], got"):
            small_ratcat_config(
                env_options=elimination,
                reward_shaping={"win_chance": {"scale": 1.0, "gamma": bad}},
            )


def test_training_with_the_win_chance_reward(shared3, tmp_path):
    cfg = small_ratcat_config(
        env_options={"num_players": 3, "target_score": 100},
        reward_shaping={"win_chance": {"scale": 5.0}},
    )
    final = train(cfg, tmp_path / "run")
    assert final.exists()
