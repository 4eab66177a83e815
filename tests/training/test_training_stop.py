"""Stopping a run early: SIGTERM (what ``kill`` sends, and what reaches a background run)
writes the final checkpoint like Ctrl-C, and the card says why it stopped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from small_configs import TINY_CATZ

ROOT = Path(__file__).resolve().parents[2]


SUBPROC_SELFPLAY = {
    "env_options": {"num_players": 2, "turns": 3},
    "n_envs": 2,
    "vec_env": "subproc",
    "selfplay": {"enabled": True, "bots": ["random"], "snapshot_every": 64},
}
"""A self-play run in worker processes: SIGTERM lands mid-step, the step's results still
in the workers' pipes (the card's snapshot count read them: a TypeError, no final.pt)."""


@pytest.mark.parametrize(
    ("extra", "sig"),
    [
        ({"env_options": {"num_players": 1, "turns": 3}}, signal.SIGTERM),
        (SUBPROC_SELFPLAY, signal.SIGTERM),
        (SUBPROC_SELFPLAY, signal.SIGINT),  # Ctrl-C
        (
            {"env_options": {"num_players": 1, "turns": 3}, "n_envs": 2, "vec_env": "subproc"},
            signal.SIGINT,
        ),
    ],
    ids=["catz", "subproc_selfplay", "subproc_selfplay_ctrl_c", "subproc_ctrl_c"],
)
def test_sigterm_writes_the_final_checkpoint(tmp_path, extra, sig):
    config = {
        **TINY_CATZ,
        "timesteps": 10_000_000,
        "algorithm": {"n_steps": 64, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        **extra,
    }
    cfg = tmp_path / "long.yaml"
    cfg.write_text(yaml.safe_dump(config), encoding="utf-8")
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "training.train", "--config", str(cfg), "--out", str(out)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's job
    )
    progress = out / "progress.csv"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until PPO is learning (a few rollouts logged)
        if progress.is_file() and len(progress.read_text().splitlines()) > 3:
            break
        assert proc.poll() is None, proc.communicate()[1]
        time.sleep(0.2)
    assert (out / ".lock").read_text().strip() == str(proc.pid)  # the run holds its lock
    if sig == signal.SIGINT:  # a terminal's Ctrl-C reaches the whole group, workers too
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err  # final.pt written, the run not what was asked
    assert not (out / ".lock").exists()  # released on SIGTERM too
    card = json.loads((out / "final.json").read_text())
    assert card["stopped_early"] == "interrupted (Ctrl-C or SIGTERM)"
    assert 0 < card["timesteps"] < 10_000_000


def test_the_wall_clock_limit_is_said_as_given(tmp_path):
    # the card said "0.0 minutes" for a limit under 3 seconds (one decimal)
    from training.config import config_from_dict
    from training.train import train

    cfg = config_from_dict({**TINY_CATZ, "timesteps": 100_000})
    final = train(cfg, tmp_path / "run", max_minutes=0.0001)
    card = json.loads(final.with_suffix(".json").read_text())
    assert card["stopped_early"] == "wall-clock limit of 0.0001 minutes"
    assert card["timesteps"] < 100_000
    # the rollout cut short is logged too: progress.csv ends where the card does
    rows = (tmp_path / "run" / "progress.csv").read_text().splitlines()
    assert int(rows[-1].split(",")[0]) == card["timesteps"]


def test_ctrl_c_in_the_warm_start_leaves_a_folder_the_same_command_takes(
    tmp_path, monkeypatch, capsys
):
    """Interrupted before PPO (the warm start): exit 130, and the fresh run's folder holds
    nothing (its config.yaml was left, and the same command was refused as a non-empty
    --out)."""
    import training.pretrain
    from training.train import main

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    config = {**TINY_CATZ, "pretrain": {"teacher": "optimal", "games": 2, "epochs": 1}}
    cfg = tmp_path / "warm.yaml"
    cfg.write_text(yaml.safe_dump(config), encoding="utf-8")
    out = tmp_path / "run"
    monkeypatch.setattr(training.pretrain, "warm_start", interrupted)
    argv = ["--config", str(cfg), "--out", str(out)]
    assert main(argv) == 130
    assert "interrupted before training started" in capsys.readouterr().err
    assert list(out.iterdir()) == []
    monkeypatch.undo()
    assert main([*argv, "--timesteps", "64"]) == 0
