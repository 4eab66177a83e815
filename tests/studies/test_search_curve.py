"""studies.search_curve: the search bot's win rate by deals per move, and its plot."""

from __future__ import annotations

import json

import pytest

from studies import search_curve


def test_a_short_curve_reports_every_budget_and_plots(tmp_path, capsys):
    out = tmp_path / "curve.json"
    args = "--opponent heuristic --model heuristic --budgets 0 4 --games 2 --seed 3"
    search_curve.main([*args.split(), "--json", str(out)])
    figures = json.loads(out.read_text())
    assert figures["opponent"] == "heuristic" and figures["model"] == "heuristic"
    assert [r["determinizations"] for r in figures["rows"]] == [0, 4]
    for row in figures["rows"]:
        low, high = row["wilson_95"]
        assert 0.0 <= low <= row["win_rate"] <= high <= 1.0 and row["games"] == 2
    assert figures["rows"][0]["seconds_per_move_median"] == 0.0  # the agent alone
    assert figures["rows"][1]["seconds_per_move_median"] > 0.0
    assert "4 deals" in capsys.readouterr().out
    png = tmp_path / "curve.png"
    search_curve.main(["--plot", str(out), "--out", str(png)])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_an_unknown_opponent_is_refused():
    with pytest.raises(ValueError, match="opponent must be one of"):
        search_curve.measure("everyone", [0], "one_round", 1, 0)
