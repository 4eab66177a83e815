"""studies.ratcat_search_prior: the 2-player agent with IS-MCTS on top, its policy the prior."""

from __future__ import annotations

import json

import pytest

from studies import ratcat_search_prior as study


def test_the_search_plays_paired_games_and_the_figures_are_written(tmp_path, capsys):
    out = tmp_path / "figures.json"
    study.main(["--games", "2", "--seed", "11", "--iterations", "4", "--json", str(out)])
    f = json.loads(out.read_text())
    assert f["games"] == 2 and f["searched_decisions"] > 0
    assert 0 <= f["differed"] <= f["searched_decisions"]
    for key in ("agent", "search"):
        low, high = f[f"{key}_wilson_95"]
        assert 0.0 <= low <= f[f"{key}_win_rate"] <= high <= 1.0
    assert f["gain_95"][0] <= f["gain"] <= f["gain_95"][1]
    assert f["gain"] == pytest.approx(f["search_win_rate"] - f["agent_win_rate"])
    assert len(f["agent_shares"]) == len(f["search_shares"]) == 2
    assert sum(f["search_shares"]) / 2 == pytest.approx(f["search_win_rate"])
    assert "with the search" in capsys.readouterr().out


def test_one_iteration_plays_the_agents_own_games():
    # one iteration visits the prior's favourite, the agent's greedy choice, and plays it
    f = study.measure(games=2, seed=11, iterations=1)
    assert f["differed"] == 0 and f["searched_decisions"] > 0
    assert f["search_win_rate"] == f["agent_win_rate"] and f["gain"] == 0.0


def test_bad_choices_are_refused():
    with pytest.raises(ValueError, match="rollout"):
        study.measure(games=1, rollout="random")
    with pytest.raises(ValueError, match="opponent"):
        study.measure(games=1, opponent="random")
    with pytest.raises(ValueError, match="2-player"):
        study.measure(agent="checkpoints/rat_a_tat_cat/rat_a_tat_cat_4p.pt", games=1)
