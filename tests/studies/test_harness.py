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
