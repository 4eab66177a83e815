"""A write killed outright leaves its temporary ``.<name>.<random>.tmp`` beside the target
(issue 37: it was never cleaned or mentioned); the next write to that target removes it,
and nothing else: not a newer temporary (a write under way), not another target's."""

from __future__ import annotations

import os
import time

from ratenvs.common import atomic
from ratenvs.common.atomic import atomic_file, remove_stale_temporaries
from training.atomic import atomic_write_text

BEFORE = atomic.PROCESS_STARTED - 3600
"""A modification time before this process started (an hour earlier)."""


def leftover(folder, name, mtime=BEFORE):
    path = folder / name
    path.write_bytes(b"half a checkpoint")
    os.utime(path, (mtime, mtime))
    return path


def test_the_next_write_removes_a_killed_writes_temporary(tmp_path):
    target = tmp_path / "best.pt"
    target.write_bytes(b"old")
    stale = leftover(tmp_path, ".best.pt.k3_x9a0q.tmp")
    with atomic_file(target) as fh:
        fh.write(b"new")
    assert target.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best.pt"]
    assert not stale.exists()


def test_only_the_targets_old_temporaries_are_removed(tmp_path):
    target = tmp_path / "final.pt"
    kept = [
        leftover(tmp_path, ".final.pt.json.abcdefgh.tmp"),  # another target's (final.pt.json)
        leftover(tmp_path, ".final.pt.abcdefg.tmp"),  # not tempfile's 8 characters
        leftover(tmp_path, "final.pt.abcdefgh.tmp"),  # not hidden: not ours
        leftover(tmp_path, ".final.pt.abcdefgh.tmp", mtime=time.time() + 60),  # under way
    ]
    (tmp_path / ".final.pt.folder__1.tmp").mkdir()  # not a regular file
    os.utime(tmp_path / ".final.pt.folder__1.tmp", (BEFORE, BEFORE))
    stale = leftover(tmp_path, ".final.pt.0123456_.tmp")
    assert remove_stale_temporaries(target) == [stale]
    assert all(p.exists() for p in kept)
    assert (tmp_path / ".final.pt.folder__1.tmp").is_dir()


def test_training_writes_remove_them_too(tmp_path):
    target = tmp_path / "run" / "progress.csv"
    target.parent.mkdir()
    stale = leftover(target.parent, ".progress.csv.zzzzzzzz.tmp")
    atomic_write_text(target, "step\n")
    assert not stale.exists() and target.read_text() == "step\n"


def test_an_unlistable_folder_is_left_to_the_write(tmp_path):
    assert remove_stale_temporaries(tmp_path / "missing" / "x.json") == []
