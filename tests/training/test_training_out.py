"""The ``--out`` folder: a non-empty one is refused unless ``--resume`` or ``--overwrite``
(a stale ``best.pt`` of an earlier run used to turn a good run into exit 2), a file is a
clear error, and a run holds ``<out>/.lock`` so that a second run on the same folder is
refused instead of tearing ``progress.csv``. Errors: exit 2, one line, no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml
from small_configs import TINY_CATZ

from training.checkpoint import weights_path
from training.train import main as train_main

TINY = TINY_CATZ


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(TINY), encoding="utf-8")
    return path


def run(config, out, *extra):
    return train_main(["--config", str(config), "--out", str(out), *extra])


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    return lines[0]


def test_non_empty_out_refused_and_left_alone(tmp_path, config, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "best.pt").write_bytes(b"stale")
    assert run(config, out) == 2
    line = one_error_line(capsys)
    assert f"--out {out}: the folder is not empty (best.pt)" in line
    assert "--overwrite" in line and "--resume" in line
    assert (out / "best.pt").read_bytes() == b"stale"
    assert sorted(p.name for p in out.iterdir()) == ["best.pt"]  # no lock left behind


def test_out_naming_a_file_is_an_error(tmp_path, config, capsys):
    out = tmp_path / "run.txt"
    out.write_text("not a folder")
    assert run(config, out) == 2
    assert one_error_line(capsys) == f"error: --out {out}: is a file, not a folder"
    assert out.read_text() == "not a folder"


def test_overwrite_removes_an_earlier_runs_files(tmp_path, config, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "best.pt").write_bytes(b"stale weights of another game")
    (out / "best.json").write_text("{}")
    (out / "notes.txt").write_text("mine")
    assert run(config, out, "--overwrite") == 0
    assert "--overwrite: removed best.pt, best.json" in capsys.readouterr().err
    assert not (out / "best.pt").exists()  # eval.every 0: this run keeps no best
    assert (out / "notes.txt").read_text() == "mine"  # not a run's file: kept
    assert json.loads((out / "final.json").read_text())["evaluation"]["games"] == 2
    assert not (out / ".lock").exists()


def test_second_run_on_the_same_out(tmp_path, config, capsys):
    out = tmp_path / "run"
    assert run(config, out) == 0
    capsys.readouterr()
    assert run(config, out) == 2
    assert "the folder is not empty" in one_error_line(capsys)
    assert run(config, out, "--resume", str(out / "final.pt")) == 0  # continues the run
    assert json.loads((out / "final.json").read_text())["timesteps"] == 128
    capsys.readouterr()
    assert run(config, out, "--resume", str(out / "final.pt"), "--overwrite") == 2
    assert "--overwrite: not with --resume" in one_error_line(capsys)


def test_live_lock_refused_naming_it(tmp_path, config, capsys):
    out = tmp_path / "run"
    out.mkdir()
    lock = out / ".lock"
    lock.write_text(f"{os.getppid()}\n")  # a running process: another run
    for extra in ((), ("--overwrite",)):
        assert run(config, out, *extra) == 2
        line = one_error_line(capsys)
        assert f"another run (pid {os.getppid()})" in line
        assert str(lock) in line
    assert lock.read_text() == f"{os.getppid()}\n"  # still theirs
    assert sorted(p.name for p in out.iterdir()) == [".lock"]


def test_lock_without_a_pid_refused(tmp_path, config, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / ".lock").write_text("garbage")
    assert run(config, out) == 2
    assert f"the lock {out / '.lock'} holds no pid" in one_error_line(capsys)


def test_stale_lock_taken_over(tmp_path, config, capsys):
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # its pid is not running any more (a run killed with SIGKILL)
    out = tmp_path / "run"
    out.mkdir()
    (out / ".lock").write_text(f"{gone.pid}\n")
    assert run(config, out) == 0
    err = capsys.readouterr().err
    assert f"taking over the stale lock {out / '.lock'} (its pid {gone.pid} is not running)" in err
    assert (out / "final.json").is_file()
    assert not (out / ".lock").exists()


def test_resume_into_another_runs_folder_is_refused(tmp_path, config, capsys):
    first, other = tmp_path / "first", tmp_path / "other"
    assert run(config, first) == 0
    assert run(config, other) == 0
    capsys.readouterr()
    before = {p.name: p.read_bytes() for p in other.iterdir()}
    assert run(config, other, "--resume", str(first / "final.pt")) == 2
    line = one_error_line(capsys)
    assert f"--out {other}: the folder holds another run's files" in line
    assert f"--out {first})" in line
    assert {p.name: p.read_bytes() for p in other.iterdir()} == before  # nothing touched
    # an empty folder takes a resumed run
    assert run(config, tmp_path / "fresh", "--resume", str(first / "final.pt")) == 0


@pytest.mark.parametrize(("earlier", "replaced"), [(1e9, False), (-1e9, True)])
def test_a_resumed_run_keeps_the_best_unless_an_evaluation_beats_it(
    tmp_path, capsys, earlier, replaced
):
    config = tmp_path / "evaluated.yaml"
    config.write_text(yaml.safe_dump({**TINY, "eval": {**TINY["eval"], "every": 32}}))
    out = tmp_path / "run"
    assert run(config, out) == 0
    card = json.loads((out / "best.json").read_text())
    assert card["evaluation"]["selected_by"]["metric"] == "exact_expected_score"
    card["evaluation"]["selected_by"]["value"] = earlier  # the figure to beat
    (out / "best.json").write_text(json.dumps(card))
    weights = weights_path(out / "best").read_bytes()
    capsys.readouterr()
    assert run(config, out, "--resume", str(out / "final.pt")) == 0
    card = json.loads((out / "best.json").read_text())
    assert (card["timesteps"] == 128) is replaced
    assert (weights_path(out / "best").read_bytes() == weights) is not replaced


def test_a_resumed_run_under_other_eval_settings_says_its_best_is_replaced(tmp_path, capsys):
    evaluated = {**TINY, "eval": {**TINY["eval"], "every": 32}}
    config = tmp_path / "evaluated.yaml"
    config.write_text(yaml.safe_dump(evaluated))
    out = tmp_path / "run"
    assert run(config, out) == 0
    other = tmp_path / "other_seed.yaml"
    other.write_text(yaml.safe_dump({**evaluated, "eval": {**evaluated["eval"], "seed": 9}}))
    capsys.readouterr()
    assert run(other, out, "--resume", str(out / "final.pt")) == 0
    assert "picked under other evaluation settings" in capsys.readouterr().err
    assert json.loads((out / "best.json").read_text())["timesteps"] == 128


def test_resumed_twice_the_best_keeps_the_figure_that_selected_it(tmp_path, capsys):
    # a resume that kept best.pt wrapped its final evaluation again, so the next resume
    # found no figure ("picked under other evaluation settings") and replaced it
    config = tmp_path / "evaluated.yaml"
    config.write_text(yaml.safe_dump({**TINY, "eval": {**TINY["eval"], "every": 32}}))
    out = tmp_path / "run"
    assert run(config, out) == 0
    first = json.loads((out / "final.json").read_text())
    card = json.loads((out / "best.json").read_text())
    card["evaluation"]["selected_by"]["value"] = 1e9  # no evaluation beats it: kept
    (out / "best.json").write_text(json.dumps(card))
    for _ in range(2):
        capsys.readouterr()
        assert run(config, out, "--resume", str(out / "final.pt")) == 0
        assert "picked under other evaluation settings" not in capsys.readouterr().err
        best = json.loads((out / "best.json").read_text())
        selected = best["evaluation"]["selected_by"]
        assert selected["metric"] == "exact_expected_score" and "value" in selected
        assert "selected_by" not in selected and selected["value"] == 1e9
        assert best["timesteps"] == first["timesteps"]  # still the first run's


def test_a_best_picked_in_a_resumed_run_counts_the_earlier_wall_time(tmp_path):
    config = tmp_path / "evaluated.yaml"
    config.write_text(yaml.safe_dump({**TINY, "eval": {**TINY["eval"], "every": 32}}))
    out = tmp_path / "run"
    assert run(config, out) == 0
    first = json.loads((out / "final.json").read_text())
    first["wall_time_s"] = 1000.0  # the earlier run's wall time, as its card says
    (out / "final.json").write_text(json.dumps(first))
    card = json.loads((out / "best.json").read_text())
    card["evaluation"]["selected_by"]["value"] = -1e9  # the first evaluation beats it
    (out / "best.json").write_text(json.dumps(card))
    assert run(config, out, "--resume", str(out / "final.pt")) == 0
    best = json.loads((out / "best.json").read_text())
    assert best["timesteps"] > first["timesteps"]
    assert (
        1000.0 <= best["wall_time_s"] <= json.loads((out / "final.json").read_text())["wall_time_s"]
    )


@pytest.mark.parametrize("hard_links", [True, False])
def test_the_lock_appears_whole_and_leaves_nothing_behind(tmp_path, monkeypatch, hard_links):
    """The lock holds this run's pid from the moment it exists (a hard link of a file
    written first; where the filesystem has no hard links, created exclusively), a second
    lock is refused naming the first's pid, and releasing leaves the folder empty."""
    from training import train

    if not hard_links:

        def no_links(src, dst):
            raise PermissionError(1, "Operation not permitted")

        monkeypatch.setattr(train.os, "link", no_links)
    out = tmp_path / "run"
    out.mkdir()
    lock = train.acquire_lock(out)
    assert lock == out / ".lock" and lock.read_text() == f"{os.getpid()}\n"
    assert sorted(p.name for p in out.iterdir()) == [".lock"]  # no pid file left
    with pytest.raises(train.ConfigError, match=rf"another run \(pid {os.getpid()}\)"):
        train.acquire_lock(out)
    assert sorted(p.name for p in out.iterdir()) == [".lock"]
    train.release_lock(lock)
    assert list(out.iterdir()) == []
