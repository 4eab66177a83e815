"""A full disk while writing (issue 37): one line naming the file, exit status 2, the old
file kept and no temporary file left; in a training run the earlier checkpoint survives."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
import yaml
from helpers import TINY_CATZ

from ratenvs.common.atomic import DiskFullError, atomic_file


def fill_the_disk(monkeypatch, prefix: str) -> None:
    """Every write to a temporary file of a target named ``prefix...`` fails with ENOSPC,
    as on a full disk (the file object's own write, so every writer meets it)."""
    real = os.fdopen

    def fdopen(fd, *args, **kwargs):
        fh = real(fd, *args, **kwargs)
        if Path(os.readlink(f"/proc/self/fd/{fd}")).name.startswith(f".{prefix}"):

            def write(data):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

            fh.write = write
        return fh

    monkeypatch.setattr(os, "fdopen", fdopen)


def test_a_full_disk_names_the_file_and_keeps_the_old_one(tmp_path, monkeypatch):
    target = tmp_path / "card.json"
    target.write_text("old")
    fill_the_disk(monkeypatch, "card.json")
    with pytest.raises(DiskFullError) as info, atomic_file(target) as fh:
        fh.write(b"new")
    assert str(info.value) == f"no space left on device writing {target}"
    assert isinstance(info.value, OSError) and info.value.errno == errno.ENOSPC
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["card.json"]


def test_a_full_disk_during_training_is_one_line_and_the_best_checkpoint_survives(
    tmp_path, monkeypatch, capsys
):
    from training.checkpoint import load_card
    from training.train import main

    config = tmp_path / "tiny.yaml"
    config.write_text(yaml.safe_dump({**TINY_CATZ, "eval": {"every": 32, "games": 2}}))
    out = tmp_path / "run"
    fill_the_disk(monkeypatch, "final.")  # best is written at step 32, final at the end
    assert main(["--config", str(config), "--out", str(out)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"error: no space left on device writing {out / 'final.'}")
    assert load_card(out / "best.json")["timesteps"] in (32, 64)  # written, intact
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    assert not [p for p in out.iterdir() if p.name.startswith("final.")]
