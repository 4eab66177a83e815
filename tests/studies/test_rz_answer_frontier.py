"""studies.rz_answer_frontier: an observer's answers against three bayes bots by certainty."""

from __future__ import annotations

import json

import pytest

from studies import rz_answer_frontier as study


def test_a_lower_certainty_answers_more_cards_and_fewer_of_them_right(tmp_path, capsys):
    out = tmp_path / "frontier.json"
    study.main(["--games", "12", "--certainties", "0.4", "0.99", "--json", str(out)])
    f = json.loads(out.read_text())
    low, high = f["rows"]
    assert (low["certainty"], high["certainty"]) == (0.4, 0.99)
    assert low["min_answer_rate"] > high["min_answer_rate"]
    assert low["answer_accuracy"] < high["answer_accuracy"]
    for r in f["rows"]:
        assert min(r["answer_rates"].values()) == r["min_answer_rate"] <= r["max_answer_rate"]
        assert r["answer_rates"][r["max_answer_rate_response"]] == r["max_answer_rate"]
    printed = capsys.readouterr().out
    assert "| 0.4 |" in printed and "| 0.99 |" in printed


def test_an_unknown_bot_is_refused():
    with pytest.raises(ValueError, match="bot must be"):
        study.measure(bot="expert", games=1)
