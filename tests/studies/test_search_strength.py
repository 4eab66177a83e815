"""studies.search_strength: the search bots against the heuristic bot, with their time per move."""

from __future__ import annotations

import json

from studies import search_strength


def test_a_short_measurement_reports_wins_intervals_and_seconds(tmp_path, capsys):
    out = tmp_path / "figures.json"
    search_strength.main(["--bot", "pimc", "--max-games", "2", "--seed", "4", "--json", str(out)])
    figures = json.loads(out.read_text())
    assert figures["games"] == 2 and figures["options"] == {"num_players": 2}
    low, high = figures["wilson_95"]
    assert 0.0 <= low <= figures["win_rate"] <= high <= 1.0
    assert figures["searched_moves"] > 0 and figures["seconds_per_move_mean"] > 0
    assert "pimc vs heuristic, one_round" in capsys.readouterr().out


def test_the_knock_and_the_value_can_be_replaced():
    figures = search_strength.measure(
        "ismcts", "one_round", 1.0, 1, seed=2, knock="heuristic", value="reward"
    )
    assert figures["knock"] == "heuristic" and figures["value"] == "reward"
    assert figures["games"] == 1


def test_the_budget_can_be_set(capsys):
    figures = search_strength.measure("ismcts", "one_round", 1.0, 1, seed=2, iterations=3)
    assert figures["iterations"] == 3 and figures["games"] == 1  # the bot's own budget
    assert search_strength.measure("ismcts", "one_round", 1.0, 1, seed=2)["iterations"] == 100
    search_strength.main(["--bot", "pimc", "--max-games", "1", "--iterations", "2"])
    assert "2 iterations" in capsys.readouterr().out
