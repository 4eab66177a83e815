"""A soup averages the weights of checkpoints of one lineage into one checkpoint."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_training_checkpoint import SPEC, make_checkpoint

from ratenvs.agents.checkpoint import load_checkpoint, save_checkpoint
from training.checkpoint import PolicySpec
from training.soup import main, soup


def _variant(tmp_path, name, shift, **card):
    """A checkpoint of the test lineage with every weight moved by ``shift``."""
    base = load_checkpoint(make_checkpoint(tmp_path / "base"), optimizer=False)
    state = {k: np.asarray(v) + np.float32(shift) for k, v in base.policy_state.items()}
    full = {**base.card, "evaluation": {"games": 9}, **card}
    return save_checkpoint(tmp_path / name, state, full)


def test_a_soup_is_the_mean_of_its_ingredients_and_says_what_they_were(tmp_path):
    paths = [_variant(tmp_path, f"run{i}", shift) for i, shift in enumerate((0.0, 0.5, 2.5))]
    out = soup(tmp_path / "soup", paths)
    made = load_checkpoint(out)
    parts = [load_checkpoint(p) for p in paths]
    for key, value in made.policy_state.items():
        expected = np.mean([np.float64(p.policy_state[key]) for p in parts], axis=0)
        np.testing.assert_allclose(value, expected, rtol=1e-6)
        assert value.dtype == np.float32
    card = json.loads(out.read_text())
    assert "evaluation" not in card and "optimizer_file" not in card  # not the soup's
    assert [x["weights_sha256"] for x in card["soup_of"]] == [
        p.card["weights_sha256"] for p in parts
    ]
    observation = np.zeros(SPEC.observation_size, np.float32)
    assert made.bot().act(observation, np.ones(4, np.int8), None) in range(4)  # it plays


def test_checkpoints_of_other_lineages_and_bad_outputs_are_refused(tmp_path, capsys):
    a = _variant(tmp_path, "a", 0.0)
    b = _variant(tmp_path, "b", 1.0)
    other_options = _variant(tmp_path, "c", 1.0, env_options={"num_players": 1, "turns": 2})
    wider = make_checkpoint(tmp_path / "wide", PolicySpec(SPEC.observation_size, 4, (32, 16)))
    with pytest.raises(ValueError, match="two checkpoints or more"):
        soup(tmp_path / "s", [a])
    with pytest.raises(ValueError, match="env options"):
        soup(tmp_path / "s", [a, other_options])
    with pytest.raises(ValueError, match="network"):
        soup(tmp_path / "s", [a, wider])
    with pytest.raises(ValueError, match="given twice"):
        soup(tmp_path / "s", [a, tmp_path / "a.json"])
    with pytest.raises(ValueError, match="one of the checkpoints averaged"):
        soup(tmp_path / "a", [a, b], replace=True)
    assert not (tmp_path / "s.json").exists()
    soup(tmp_path / "s", [a, b])
    before = (tmp_path / "s.json").read_text()
    assert main([str(tmp_path / "s"), str(a), str(b)]) == 2  # nothing written over
    assert "a checkpoint is there already" in capsys.readouterr().err
    assert (tmp_path / "s.json").read_text() == before
    assert main([str(tmp_path / "s"), str(b), str(a), "--replace"]) == 0
    assert "wrote" in capsys.readouterr().out
