"""The evaluator: intervals, exact Catz, Ratz and Batz grades, determinism, JSON, tournaments."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
import torch
from test_training_checkpoint import make_checkpoint

from ratenvs.catz_ratz_batz import solver
from ratenvs.catz_ratz_batz.bots import LowestBot, OptimalBot
from ratenvs.catz_ratz_batz.observe import ACTION_ROLL
from ratenvs.common.bots import RandomBot
from training import evaluate
from training.checkpoint import PolicyBot, PolicySpec, build_policy
from training.games.catz_ratz_batz import exact_grade
from training.stats import bradley_terry, mean_interval, wilson_interval


@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [
        # reference values: Newcombe (1998), Table I / any Wilson calculator
        (8, 10, 0.4902, 0.9433),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (50, 100, 0.4038, 0.5962),
        (81, 263, 0.2553, 0.3662),
    ],
)
def test_wilson_interval_known_values(successes, n, low, high):
    lo, hi = wilson_interval(successes, n)
    assert lo == pytest.approx(low, abs=1e-4)
    assert hi == pytest.approx(high, abs=1e-4)


def test_wilson_interval_rejects_bad_counts():
    with pytest.raises(ValueError):
        wilson_interval(3, 0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_mean_interval():
    mean, (lo, hi) = mean_interval([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    half = 1.959963984540054 * np.std([1, 2, 3, 4], ddof=1) / 2
    assert (lo, hi) == pytest.approx((2.5 - half, 2.5 + half))


def test_bradley_terry_orders_and_is_symmetric():
    wins = np.array([[0, 30, 40], [10, 0, 25], [0, 15, 0]], dtype=float)
    r = bradley_terry(wins)
    assert r[0] > r[1] > r[2]
    assert r.mean() == pytest.approx(0.0, abs=1e-9)
    even = bradley_terry(np.array([[0, 20], [20, 0]], dtype=float))
    assert even == pytest.approx([0.0, 0.0], abs=1e-9)


def test_catz_exact_grades_bots_with_the_solver():
    options = {"num_players": 1, "turns": 1}
    optimal = exact_grade(OptimalBot(), options)
    assert optimal["ratio_to_optimal"] == pytest.approx(1.0)
    assert optimal["optimal_expected_score"] == pytest.approx(solver.solve().expected_score)
    lowest = exact_grade(LowestBot(), options)
    assert lowest["exact_expected_score"] == pytest.approx(
        solver.evaluate_policy(LowestBot().choose)
    )
    assert lowest["ratio_to_optimal"] < 0.95


def test_catz_exact_of_a_policy_matches_its_greedy_table():
    spec = PolicySpec(12, 4, (8,), "relu")
    torch.manual_seed(5)
    bot = PolicyBot(build_policy(spec).state_dict(), spec)
    graded = exact_grade(bot, {"num_players": 1, "turns": 10})
    from ratenvs.catz_ratz_batz.observe import observation_for_dice
    from ratenvs.catz_ratz_batz.rules import NUMBERS, legal_keeps

    def choose(dice):
        mask = np.array([k in legal_keeps(dice) for k in NUMBERS] + [False], dtype=np.int8)
        return NUMBERS[bot.act(observation_for_dice(dice, 1, 10), mask, np.random.default_rng())]

    assert graded["exact_expected_score"] == pytest.approx(solver.evaluate_policy(choose))


@pytest.mark.parametrize(
    "options",
    [
        {"num_players": 2, "turns": None, "target_score": 100},
        {"num_players": 3, "target_score": 60},
    ],
)
def test_catz_exact_grade_shows_a_race_agent_its_own_first_turn(options):
    # the grade shows each dice state as the agent sees it on its first turn of the card's game
    from ratenvs.catz_ratz_batz.rules import PHASE_KEEP, CatzRatzBatz

    seen = {}

    class Recorder(OptimalBot):
        def act(self, obs, mask, rng):
            seen[len(seen)] = obs
            return super().act(obs, mask, rng)

    graded = exact_grade(Recorder(), options)
    assert graded["ratio_to_optimal"] == pytest.approx(1.0)
    game = CatzRatzBatz(**options)
    state = game.init(np.random.default_rng(3))
    game.apply(state, {0: ACTION_ROLL}, np.random.default_rng(3))
    assert state.phase == PHASE_KEEP
    index = solver.all_decision_states().index(state.dice)
    assert np.array_equal(seen[index], game.observer("knowledge").observe(state, 0))


def test_seats_rotate_and_optimal_beats_random_in_two_player_games():
    spec = evaluate.GAMES["catz_ratz_batz"]
    results = evaluate.play_match(
        spec, {"num_players": 2, "turns": 3}, OptimalBot(), [RandomBot()], 200, seed=1
    )
    assert [r.seat for r in results[:4]] == [0, 1, 0, 1]
    summary = evaluate.summarise(results)
    assert summary["win_rate"] > 0.6
    assert summary["win_rate_ci"][0] < summary["win_rate"] < summary["win_rate_ci"][1]


def test_evaluation_is_deterministic_for_a_seed_and_writes_json(tmp_path):
    path = make_checkpoint(tmp_path / "agent")
    out1, out2, out3 = (tmp_path / f"e{i}.json" for i in range(3))
    assert (
        evaluate.main(
            ["--checkpoint", str(path), "--games", "30", "--seed", "4", "--json", str(out1)]
        )
        == 0
    )
    assert (
        evaluate.main(
            ["--checkpoint", str(path), "--games", "30", "--seed", "4", "--json", str(out2)]
        )
        == 0
    )
    assert (
        evaluate.main(
            ["--checkpoint", str(path), "--games", "30", "--seed", "5", "--json", str(out3)]
        )
        == 0
    )
    a, b, c = (json.loads(p.read_text()) for p in (out1, out2, out3))
    a.pop("seconds"), b.pop("seconds"), c.pop("seconds")
    assert a == b
    assert a["mean_reward"] != c["mean_reward"]
    for key in ("games", "win_rate", "win_rate_ci", "mean_reward", "mean_reward_ci"):
        assert key in a
    assert a["games"] == 30
    assert len(a["win_rate_ci"]) == 2 and len(a["mean_reward_ci"]) == 2
    assert a["exact_expected_score"] == pytest.approx(
        a["ratio_to_optimal"] * solver.solve().expected_score
    )


def test_tournament_rates_optimal_above_random(tmp_path):
    out = tmp_path / "t.json"
    code = evaluate.main(
        [
            "--tournament",
            "catz_ratz_batz:optimal",
            "catz_ratz_batz:random",
            "catz_ratz_batz:lowest",
            "--games",
            "30",
            "--json",
            str(out),
        ]
    )
    assert code == 0
    result = json.loads(out.read_text())
    ratings = {r["agent"]: r for r in result["ratings"]}
    assert ratings["catz_ratz_batz:optimal"]["elo"] > ratings["catz_ratz_batz:random"]["elo"]
    for r in result["ratings"]:
        assert r["elo_ci"][0] <= r["elo"] <= r["elo_ci"][1]
    assert len(result["pairs"]) == 3


def test_cli_errors_are_clear(tmp_path, capsys):
    assert evaluate.main(["--tournament", "catz_ratz_batz:optimal", "catz_ratz_batz:nobody"]) == 2
    assert "unknown bot 'nobody'" in capsys.readouterr().err
    path = make_checkpoint(tmp_path / "agent")
    assert evaluate.main(["--checkpoint", str(path), "--opponents", "a", "b", "c"]) == 2
    assert evaluate.main(["--checkpoint", str(tmp_path / "missing.pt")]) == 2
    assert "not found" in capsys.readouterr().err


def test_tournament_with_checkpoints(tmp_path):
    two_seat = make_checkpoint(
        tmp_path / "two",
        spec=PolicySpec(16, 4, (8,), "tanh"),
        env_options={"num_players": 2, "turns": 2},
    )
    result = evaluate.tournament([str(two_seat), "catz_ratz_batz:optimal"], games=6, seed=0)
    assert {r["agent"] for r in result["ratings"]} == {str(two_seat), "catz_ratz_batz:optimal"}
    assert result["env_options"] == {"num_players": 2, "turns": 2}
    one_seat = make_checkpoint(tmp_path / "one")
    with pytest.raises(ValueError, match="two-seat matches"):
        evaluate.tournament([str(one_seat), "catz_ratz_batz:optimal"], games=2, seed=0)
    with pytest.raises(ValueError, match="different games"):
        evaluate.tournament(["catz_ratz_batz:optimal", "rat_a_tat_cat:random"], games=2, seed=0)


def test_training_evaluate_and_ratenvs_evaluate_agree(tmp_path, capsys):
    """``python -m training.evaluate`` is a door onto the library's evaluator: the same
    checkpoint, games and seed give the same figures and the same tournament."""
    from ratenvs import cli

    path = make_checkpoint(tmp_path / "agent")
    ours, theirs = tmp_path / "training.json", tmp_path / "ratenvs.json"
    argv = ["--games", "12", "--seed", "3", "--json"]
    assert evaluate.main(["--checkpoint", str(path), *argv, str(ours)]) == 0
    assert cli.main(["evaluate", str(path), *argv, str(theirs)]) == 0
    a, b = json.loads(ours.read_text()), json.loads(theirs.read_text())
    a.pop("seconds"), b.pop("seconds")
    assert b.pop("agent") == str(path)
    assert a == b
    names = ["rat_a_tat_cat:heuristic", "rat_a_tat_cat:random", "agent:rat_a_tat_cat_2p"]
    assert evaluate.main(["--tournament", *names, "--games", "4", "--json", str(ours)]) == 0
    assert cli.main(["tournament", *names, "--games", "4", "--json", str(theirs)]) == 0
    assert json.loads(ours.read_text()) == json.loads(theirs.read_text())
    four = ["ratto_zakko:bayes", "ratto_zakko:random", "--players", "4", "--games", "2"]
    assert evaluate.main(["--tournament", *four, "--json", str(ours)]) == 0
    assert cli.main(["tournament", *four, "--json", str(theirs)]) == 0
    assert json.loads(ours.read_text()) == json.loads(theirs.read_text())
    assert json.loads(ours.read_text())["players"] == 4
    capsys.readouterr()


def test_players_is_for_tournaments_and_checked(tmp_path, capsys):
    path = make_checkpoint(tmp_path / "agent")
    assert evaluate.main(["--checkpoint", str(path), "--players", "3"]) == 2
    assert "--players applies to --tournament only" in capsys.readouterr().err
    bots = ["--tournament", "rat_a_tat_cat:random", "rat_a_tat_cat:heuristic"]
    assert evaluate.main([*bots, "--players", "9"]) == 2
    assert "--players 9: rat_a_tat_cat" in capsys.readouterr().err


def test_evaluating_a_checkpoint_needs_no_torch(tmp_path, monkeypatch):
    """It only plays the policy, as the library does with NumPy (it loaded the weights into
    torch tensors and ended in a traceback where torch was not installed)."""
    path = make_checkpoint(tmp_path / "agent")
    with_torch = evaluate.evaluate_checkpoint(path, None, 6, 3)
    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    without = evaluate.evaluate_checkpoint(path, None, 6, 3)
    with_torch.pop("seconds"), without.pop("seconds")
    assert without == with_torch and without["games"] == 6


def test_training_without_its_packages_is_one_line_naming_the_extra(tmp_path, capsys, monkeypatch):
    from training import train

    for name, said in (("torch", "torch"), ("sb3_contrib", "sb3-contrib")):
        out = tmp_path / name
        argv = ["--config", "configs/default.yaml", "--out", str(out)]
        with monkeypatch.context() as patch:
            patch.setitem(sys.modules, name, None)  # as if it were not installed
            assert train.main(argv) == 2  # it ended in a traceback, an empty --out left
        assert capsys.readouterr().err.strip() == (
            f'error: training needs {said} (the train extra: pip install "ratenvs[train]")'
        )
        assert not out.exists()
