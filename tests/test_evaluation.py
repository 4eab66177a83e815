"""ratenvs.evaluation: matches with seats rotated, Wilson intervals, tournaments with
Bradley-Terry ratings, agents named as on the command lines (bots, agent:NAME, paths)."""

from __future__ import annotations

import pytest

from ratenvs import evaluation
from ratenvs.common.stats import wilson_interval
from ratenvs.evaluation import (
    EvaluationExtras,
    evaluate,
    extras_for,
    format_evaluation,
    format_tournament,
    resolve_agent,
    tournament,
)
from ratenvs.games import GAMES


def test_every_game_has_its_extras_or_none():
    assert extras_for("catz_ratz_batz").exact_grade is not None
    assert extras_for("ratto_zakko").tracker is not None
    assert extras_for("rat_a_tat_cat") == EvaluationExtras()
    assert set(GAMES) >= {"catz_ratz_batz", "ratto_zakko", "rat_a_tat_cat"}


def test_a_bot_plays_its_games_gymnasium_defaults_with_wilson_intervals():
    result = evaluate("catz_ratz_batz:lowest", games=6, seed=2)
    assert result["env_options"] == GAMES["catz_ratz_batz"].gymnasium_defaults
    assert result["games"] == 6 and result["agent"] == "catz_ratz_batz:lowest"
    assert result["opponents"] == []
    assert result["win_rate_ci"] == list(wilson_interval(result["wins"], 6))
    assert result["exact_expected_score"] == pytest.approx(22.341, abs=1e-3)
    assert (
        evaluate("catz_ratz_batz:lowest", games=6, seed=2)["mean_reward"] == (result["mean_reward"])
    )  # deterministic for a seed
    with pytest.raises(ValueError, match="one-player game"):
        evaluate("catz_ratz_batz:lowest", ["random"], games=1)


def test_play_match_puts_the_agent_in_every_seat_in_turn():
    spec = GAMES["rat_a_tat_cat"]
    bots = spec.bots()
    results = evaluation.play_match(
        spec, {"num_players": 3}, bots["heuristic"](), [bots["random"](), bots["random"]()], 5, 0
    )
    assert [r.seat for r in results] == [0, 1, 2, 0, 1]


def test_ratto_zakko_evaluations_count_answers():
    result = evaluate("ratto_zakko:adult", ["ratto_zakko:child"], games=2, seed=0)
    assert result["answers"] > 0 and 0 <= result["answer_accuracy"] <= 1
    assert "correct answers" in format_evaluation(result)


def test_a_tournament_of_bots_rates_them():
    names = ["ratto_zakko:adult", "ratto_zakko:child", "ratto_zakko:random"]
    result = tournament(names, games=4, seed=3)
    assert result["game"] == "ratto_zakko" and result["env_options"]["num_players"] == 2
    assert [(p["agent"], p["opponent"]) for p in result["pairs"]] == [
        (names[0], names[1]),
        (names[0], names[2]),
        (names[1], names[2]),
    ]
    assert sorted(r["agent"] for r in result["ratings"]) == sorted(names)
    elos = [r["elo"] for r in result["ratings"]]
    assert elos == sorted(elos, reverse=True) and sum(elos) == pytest.approx(0, abs=1e-6)
    for r in result["ratings"]:
        assert r["elo_ci"][0] <= r["elo"] + 1e-9 and r["elo"] <= r["elo_ci"][1] + 1e-9
    assert tournament(names, games=4, seed=3) == result
    text = format_tournament(result)
    assert "Bradley-Terry ratings" in text and names[0] in text


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["rat_a_tat_cat:heuristic"], "at least two agents"),
        (["rat_a_tat_cat:heuristic", "catz_ratz_batz:random"], "play different games"),
        (["rat_a_tat_cat:heuristic", "rat_a_tat_cat:nobody"], "unknown bot 'nobody'"),
        (["heuristic", "random"], "write a bot as game:bot"),
        (["chess:king", "rat_a_tat_cat:random"], "unknown game 'chess'"),
        (["agent:nobody", "rat_a_tat_cat:random"], "the shipped agents are"),
    ],
)
def test_a_bad_tournament_is_refused(names, message):
    with pytest.raises(ValueError, match=message):
        tournament(names, games=1, seed=0)


def test_shipped_agents_are_named_agent_name():
    pytest.importorskip("torch")
    ref = resolve_agent("agent:rat_a_tat_cat_2p")
    assert ref.label == "agent:rat_a_tat_cat_2p" and ref.game == "rat_a_tat_cat"
    assert ref.env_options == ref.checkpoint.card["env_options"]
    assert ref.env_options["num_players"] == 2
    with pytest.raises(ValueError, match="not for 'ratto_zakko'"):
        resolve_agent("agent:rat_a_tat_cat_2p", game="ratto_zakko")
    result = evaluate("agent:rat_a_tat_cat_2p", ["random"], games=4, seed=0)
    assert result["opponents"] == ["rat_a_tat_cat:random"] * 1
    assert result["checkpoint"] == "agent:rat_a_tat_cat_2p"
    four = evaluate("agent:rat_a_tat_cat_4p", ["heuristic", "random", "agent:rat_a_tat_cat_4p"], 2)
    assert four["opponents"] == [
        "rat_a_tat_cat:heuristic",
        "rat_a_tat_cat:random",
        "agent:rat_a_tat_cat_4p",
    ]
