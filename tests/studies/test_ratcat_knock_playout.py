"""studies.ratcat_knock_playout: the agent's close knocks decided by play-outs of itself."""

from __future__ import annotations

import json

import pytest

from studies import ratcat_knock_playout as study


def test_a_negative_margin_never_searches_and_plays_the_agents_own_games():
    f = study.measure(games=2, seed=11, deals=2, margin=-1.0)
    assert f["searched"] == 0 and f["changed"] == 0 and f["knock_decisions"] > 0
    assert f["search_win_rate"] == f["agent_win_rate"]
    assert f["gain"] == 0.0


def test_close_knocks_are_searched_and_the_figures_are_written(tmp_path, capsys):
    out = tmp_path / "figures.json"
    study.main(
        ["--games", "2", "--seed", "11", "--deals", "2", "--margin", "inf", "--json", str(out)]
    )
    f = json.loads(out.read_text())
    # an infinite margin takes in every knock decision
    assert f["searched"] == f["knock_decisions"] > 0
    assert 0 <= f["changed"] <= f["searched"]
    low, high = f["search_wilson_95"]
    assert 0.0 <= low <= f["search_win_rate"] <= high <= 1.0
    assert f["gain_95"][0] <= f["gain"] <= f["gain_95"][1]
    assert "close knocks searched" in capsys.readouterr().out


def test_the_bot_refuses_to_act_without_the_state():
    bot = study.KnockPlayout(policy=None, chance=None, deals=1, margin=0.0)
    with pytest.raises(RuntimeError, match="play_game"):
        bot.act(None, None, None)
