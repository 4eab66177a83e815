"""``final.pt`` is written as soon as training stops, before its evaluation: an error or an
interrupt in the final evaluation leaves a loadable ``final.pt`` (its card says why it has
no evaluation) and releases the ``--out`` lock."""

from __future__ import annotations

import json
import os

import pytest
import yaml
from small_configs import small_ratcat_config

import training.evaluate
from training.checkpoint import load_checkpoint
from training.train import main as train_main
from training.train import train


def test_evaluation_error_leaves_a_loadable_final(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    seen = []

    def broken(*_args, **_kwargs):
        seen.append((out / ".lock").read_text().strip())  # the run holds its lock here
        raise RuntimeError("evaluation exploded")

    monkeypatch.setattr(training.evaluate, "evaluate_agent", broken)
    with pytest.raises(RuntimeError, match="evaluation exploded"):
        train(small_ratcat_config(), out)
    assert seen == [str(os.getpid())]
    ckpt = load_checkpoint(out / "final.pt", game="rat_a_tat_cat")
    assert ckpt.card["timesteps"] == 64
    assert ckpt.card["evaluation"] is None
    assert ckpt.card["evaluation_skipped"] == "RuntimeError: evaluation exploded"
    assert ckpt.optimizer_state is not None
    assert not (out / ".lock").exists()
    assert "the final evaluation failed" in capsys.readouterr().err


def test_bad_evaluation_setting_exits_2_and_keeps_final(tmp_path, monkeypatch, capsys):
    def refused(*_args, **_kwargs):
        raise ValueError("unknown bot 'nobody'")

    monkeypatch.setattr(training.evaluate, "evaluate_agent", refused)
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(small_ratcat_config().to_dict()))
    out = tmp_path / "run"
    assert train_main(["--config", str(config), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "error: unknown bot 'nobody'" in err
    assert "Traceback" not in err
    assert load_checkpoint(out / "final.pt").card["evaluation_skipped"].startswith("ValueError")
    assert not (out / ".lock").exists()


def test_interrupt_in_the_final_evaluation_keeps_final(tmp_path, monkeypatch, capsys):
    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt  # what SIGTERM raises while the run holds its handler

    monkeypatch.setattr(training.evaluate, "evaluate_agent", interrupted)
    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump(small_ratcat_config().to_dict()))
    out = tmp_path / "run"
    assert train_main(["--config", str(config), "--out", str(out)]) == 130  # interrupted
    captured = capsys.readouterr()
    assert "not evaluated: interrupted" in captured.out
    assert "interrupted in the final evaluation" in captured.err
    card = json.loads((out / "final.json").read_text())
    assert card["evaluation"] is None
    load_checkpoint(out / "final.pt")
    assert not (out / ".lock").exists()
