"""studies.harness.write_figures: a study's figures written whole or not at all."""

from __future__ import annotations

import json

import pytest

from ratenvs.common import atomic
from studies import harness


def test_figures_are_written_as_json_and_replace_the_old_file(tmp_path):
    target = tmp_path / "figures.json"
    harness.write_figures(target, {"old": 1})
    harness.write_figures(target, {"win_rate": 0.5, "runs": [1, 2]})
    assert json.loads(target.read_text()) == {"win_rate": 0.5, "runs": [1, 2]}
    assert [p.name for p in tmp_path.iterdir()] == ["figures.json"]


def test_a_write_that_fails_before_the_rename_leaves_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "figures.json"
    harness.write_figures(target, {"old": 1})

    def fail(*_args):
        raise OSError("disk full")

    monkeypatch.setattr(atomic.os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        harness.write_figures(target, {"new": 2})
    assert json.loads(target.read_text()) == {"old": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["figures.json"]


def test_paired_win_figures_give_both_rates_and_the_paired_gain():
    f = harness.paired_win_figures([1.0, 0.0, 0.5, 0.0], [1.0, 1.0, 0.5, 1.0])
    assert f["agent_win_rate"] == pytest.approx(0.375)
    assert f["search_win_rate"] == pytest.approx(0.875)
    assert f["gain"] == pytest.approx(0.5)
    # the differences 0, 1, 0, 1: standard deviation 0.577 over 4 games
    assert f["gain_95"] == pytest.approx([0.5 - 0.5658, 0.5 + 0.5658], abs=1e-3)
    low, high = f["agent_wilson_95"]
    assert low < 0.375 < high
    with pytest.raises(ValueError, match="as many games"):
        harness.paired_win_figures([1.0], [1.0, 0.0])
    with pytest.raises(ValueError, match="as many games"):
        harness.paired_win_figures([], [])
