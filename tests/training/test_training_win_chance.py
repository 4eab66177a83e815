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

from ratenvs.rat_a_tat_cat.rules import CODE_UNKNOWN, NUM_CODES
from training.config import ConfigError, config_from_dict
from training.games import rat_a_tat_cat_win_chance as win_chance
from training.games.rat_a_tat_cat_win_chance import (
    WinChance,
    WinChanceReward,
    final_win_share,
    round_points_table,
    win_share,
)
from training.selfplay import make_batched_vec_env, make_env
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


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (3, {}),
        (4, {"eliminate_at": "reaches", "owner_ceilings": True}),
        (2, {"elimination_tiebreak": "shared"}),
    ],
)
def test_the_share_read_from_the_end_is_the_games(players, options):
    """``final_win_share`` reads the learner's share of the win from its observation of
    the end; the engine's own "win" reward (``p/(p-1) * (share - 1/p)``, the game's
    return) says what it was. Played until every way a game ends has been seen: one
    player left (the learner or another), nobody left (the learner among the last
    round's players or out before), the learner winning and losing."""
    from ratenvs.wrappers.batched_vector import make_batched_vector

    door = make_batched_vector(
        64,
        game="rat_a_tat_cat",
        opponents="heuristic",
        seed=players,
        num_players=players,
        target_score=30,
        reward="win",
        **options,
    )
    observer = door.engine.observer
    shared = options.get("elimination_tiebreak") == "shared"
    active_at = observer.offset("active")
    rng = np.random.default_rng(players)
    door.reset(seed=players)
    slots_at = observer.offset("slots")
    seen: set[tuple[str, bool]] = set()
    wanted = {("one left", True), ("one left", False), ("nobody left", True)}
    if not shared:  # shared: the last round's players all win
        wanted.add(("nobody left", False))
    if players > 2:  # the learner out, the others play on
        wanted.add(("learner out before", False))
    for _ in range(3000):
        masks = door.action_masks()
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, _, done, _, info = door.step(acts)
        for g in np.flatnonzero(done).tolist():
            final = info["final_obs"][g]
            truth = info["final_info"]["return"][g] * (players - 1) / players + 1 / players
            share = final_win_share(final, observer, players, shared)
            assert share == pytest.approx(truth, abs=1e-6)
            left = int((final[active_at : active_at + players] > 0.5).sum())
            seen.add(("one left" if left == 1 else "nobody left", share > 0))
            mine = final[slots_at : slots_at + 4 * NUM_CODES].reshape(4, NUM_CODES)
            if (mine.argmax(axis=1) == CODE_UNKNOWN).all():  # no cards: out before the end
                seen.add(("learner out before", share > 0))
        if wanted <= seen:
            break
    assert wanted <= seen, f"endings never seen: {wanted - seen}"


BATCHED_WIN_CHANCE = {
    "game": "rat_a_tat_cat",
    "env_options": {"num_players": 3, "target_score": 100},
    "opponents": ["heuristic"],
    "learner_seat": "random",
    "vec_env": "batched",
    "n_envs": 16,
    "seed": 7,
    "algorithm": {"n_steps": 2, "batch_size": 32, "reward_scale": 0.0},
}


@pytest.mark.parametrize("gamma", [1.0, 0.9])
def test_the_batched_reward_adds_up_to_the_win_minus_the_first_chance(shared3, gamma):
    """The batched form (``vec_env: batched``): in every game of the batch the shaping,
    discounted step by step, adds up to ``gamma**T`` times the learner's share of the win
    minus its chance at its first decision, as the one-env wrapper's; the chance is the
    estimator's of the engine's standings."""
    from ratenvs.rat_a_tat_cat.batched import C_ACTIVE, F_TOTALS

    options = {"scale": 2.0, "gamma": gamma}
    cfg = config_from_dict({**BATCHED_WIN_CHANCE, "reward_shaping": {"win_chance": options}})
    venv = make_batched_vec_env(cfg, monitor=False)
    door = venv.unwrapped.venv
    engine, n = door.engine, 3

    def first_chances() -> np.ndarray:
        totals = engine.st[:, F_TOTALS : F_TOTALS + n]
        active = engine.cs[:, C_ACTIVE : C_ACTIVE + n] != 0
        return np.array(
            [shared3.chance(totals[g], active[g])[s] for g, s in enumerate(door.learner)]
        )

    rng = np.random.default_rng(0)
    venv.reset()
    first = first_chances()
    total = np.zeros(cfg.n_envs)
    steps = np.zeros(cfg.n_envs, dtype=np.int64)
    ended = checked = 0
    while ended < 2 * cfg.n_envs or not checked:  # and a game the learner won
        assert ended < 5000, "the learner never won"
        masks = np.array(venv.env_method("action_masks"))
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, rewards, dones, infos = venv.step(acts)
        total += gamma**steps * rewards
        steps += 1
        new_first = first_chances()
        for g in np.flatnonzero(dones).tolist():
            share = final_win_share(infos[g]["terminal_observation"], engine.observer, n)
            want = 2.0 * (gamma ** steps[g] * share - first[g])
            assert total[g] == pytest.approx(want, abs=1e-4)
            checked += share > 0
            total[g], steps[g], first[g] = 0.0, 0, new_first[g]
            ended += 1


def test_a_batched_run_with_the_win_chance_reward(shared3, tmp_path):
    cfg = config_from_dict(
        {
            **BATCHED_WIN_CHANCE,
            "timesteps": 64,
            "algorithm": {**BATCHED_WIN_CHANCE["algorithm"], "n_epochs": 1, "net_arch": [16]},
            "eval": {"every": 0, "games": 2, "final_games": 2},
            "logging": {"progress_bar": False},
            "reward_shaping": {"win_chance": {"scale": 5.0}},
        }
    )
    assert train(cfg, tmp_path / "run").exists()
