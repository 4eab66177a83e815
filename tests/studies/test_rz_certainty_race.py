"""studies.rz_certainty_race: best-response dynamics of the ideal observer's certainty."""

from __future__ import annotations

import json

import pytest

from studies import rz_certainty_race as study


def test_rivals_waiting_for_certainty_are_beaten_by_answering_sooner(tmp_path, capsys):
    out = tmp_path / "race.json"
    study.main(
        ["--games", "12", "--certainties", "0.8", "0.97", "--rounds", "2", "--json", str(out)]
    )
    f = json.loads(out.read_text())
    first = f["rounds"][0]
    assert first["rivals"] == 0.97 and [r["certainty"] for r in first["rows"]] == [0.8, 0.97]
    by = {r["certainty"]: r["win_rate"] for r in first["rows"]}
    assert by[0.8] > by[0.97]  # against three that wait for 97%, answering at 80% wins more
    assert first["best"] == 0.8
    # the next round seats the best response as the rivals; it stops at a fixed point
    assert len(f["rounds"]) == 1 or f["rounds"][1]["rivals"] == 0.8
    assert f["fixed_point"] == (f["rounds"][-1]["best"] == f["rounds"][-1]["rivals"])
    assert "rivals at 0.97" in capsys.readouterr().out


def test_bad_certainties_and_rounds_are_refused():
    with pytest.raises(ValueError, match="certainties"):
        study.measure(games=1, certainties=[0.0])
    with pytest.raises(ValueError, match="rounds"):
        study.measure(games=1, rounds=0)
