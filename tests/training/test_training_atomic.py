"""Every file training writes is written atomically: a write that fails half-way leaves
the previous file intact and no temporary file behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from ratenvs.common import atomic as common_atomic
from ratenvs.common.arguments import UsageError
from training import plots, ship
from training.atomic import atomic_copy, atomic_write, atomic_write_text
from training.checkpoint import (
    CheckpointError,
    PolicySpec,
    build_policy,
    card_path,
    load_checkpoint,
    save_checkpoint,
    weights_path,
    write_card,
)

SPEC = PolicySpec(12, 4, (8,), "tanh")
BASE = {"game": "catz_ratz_batz", "env_options": {"num_players": 1, "turns": 1}}


class Boom(RuntimeError):
    pass


def make_checkpoint(path: Path, seed: int = 0, **card) -> Path:
    torch.manual_seed(seed)
    policy = build_policy(SPEC)
    return save_checkpoint(path, policy.state_dict(), {**BASE, "policy": SPEC.to_dict(), **card})


def names(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path):
    target = tmp_path / "a.txt"
    atomic_write_text(target, "old\n")
    atomic_write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert names(tmp_path) == {"a.txt"}
    assert (target.stat().st_mode & 0o777) == (0o666 & ~common_atomic._UMASK)


def test_atomic_write_failing_half_way_keeps_old_file(tmp_path):
    target = tmp_path / "a.bin"
    atomic_write_text(target, "old contents\n")

    def half(fh):
        fh.write(b"new but trunc")
        raise Boom

    with pytest.raises(Boom):
        atomic_write(target, half)
    assert target.read_text() == "old contents\n"
    assert names(tmp_path) == {"a.bin"}
    with pytest.raises(Boom):
        atomic_write(tmp_path / "fresh.bin", half)
    assert names(tmp_path) == {"a.bin"}


def test_save_checkpoint_writes_exactly_the_pair(tmp_path):
    make_checkpoint(tmp_path / "agent")
    weights = weights_path(tmp_path / "agent")
    assert names(tmp_path) == {weights.name, "agent.json"}
    assert weights.name.startswith("agent.") and weights.suffix == ".safetensors"
    load_checkpoint(tmp_path / "agent")


def _half_write(path_, data):
    """Write the first 100 bytes of ``data`` to ``path_``'s temporary file, then fail."""
    with common_atomic.atomic_file(path_) as fh:
        fh.write(data[:100])
        raise Boom


def test_a_weights_write_failing_half_way_keeps_the_old_checkpoint(tmp_path, monkeypatch):
    import ratenvs.agents.checkpoint as library

    path = make_checkpoint(tmp_path / "agent")
    before = {n: (tmp_path / n).read_bytes() for n in names(tmp_path)}
    monkeypatch.setattr(library, "_write_bytes", _half_write)
    with pytest.raises(Boom):
        make_checkpoint(tmp_path / "agent", seed=1)
    assert {n: (tmp_path / n).read_bytes() for n in names(tmp_path)} == before
    load_checkpoint(path)  # still a valid pair


def test_card_write_failing_half_way_keeps_old_card(tmp_path, monkeypatch):
    path = make_checkpoint(tmp_path / "agent", timesteps=1)
    old_card = card_path(path).read_text()
    import ratenvs.agents.checkpoint as library

    monkeypatch.setattr(library, "_write_bytes", _half_write)
    card = json.loads(old_card)
    card["timesteps"] = 2
    with pytest.raises(Boom):
        write_card(path, card)
    assert card_path(path).read_text() == old_card
    assert names(tmp_path) == {weights_path(path).name, "agent.json"}
    assert load_checkpoint(path).card["timesteps"] == 1


def test_atomic_copy_failing_keeps_old_copy(tmp_path, monkeypatch):
    src = tmp_path / "src.bin"
    src.write_bytes(b"x" * 5000)
    dst = tmp_path / "out" / "dst.bin"
    atomic_copy(src, dst)
    assert dst.read_bytes() == src.read_bytes()
    src.write_bytes(b"y" * 5000)

    def broken(s, d, n=0):
        d.write(b"y" * 10)
        raise Boom

    monkeypatch.setattr("shutil.copyfileobj", broken)
    with pytest.raises(Boom):
        atomic_copy(src, dst)
    assert dst.read_bytes() == b"x" * 5000
    assert names(dst.parent) == {"dst.bin"}


def test_plot_failing_half_way_keeps_old_png(tmp_path, monkeypatch):
    run = tmp_path / "run"
    run.mkdir()
    (run / "progress.csv").write_text("timesteps,ep_reward_mean\n10,0.1\n20,0.2\n")
    out = tmp_path / "curve.png"
    plots.plot_run(run, out)
    old = out.read_bytes()
    assert old.startswith(b"\x89PNG")
    assert names(tmp_path) == {"run", "curve.png"}
    import matplotlib.figure

    def half(self, fh, **kwargs):
        fh.write(b"\x89PNG trunc")
        raise Boom

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", half)
    with pytest.raises(Boom):
        plots.plot_run(run, out)
    assert out.read_bytes() == old
    assert names(tmp_path) == {"run", "curve.png"}


def test_ship_copies_atomically(tmp_path, monkeypatch):
    src = make_checkpoint(tmp_path / "run" / "best")
    dest = tmp_path / "ship" / "agent"
    monkeypatch.setattr(ship, "evaluate_agent", lambda *a, **k: {"opponents": [], "games": 1})
    ship.ship(src, dest, [None], games=1, seed=0)
    assert names(dest.parent) == {weights_path(dest).name, "agent.json"}
    assert weights_path(dest).read_bytes() == weights_path(src).read_bytes()


def test_an_interrupted_ship_leaves_the_agent_at_dest_whole(tmp_path, monkeypatch):
    # re-shipping over an agent: an evaluation that fails (or Ctrl-C) after the first one
    # must not leave the new weights beside the old card (a pair that no longer loads)
    dest = tmp_path / "ship" / "agent"
    ship.ship(make_checkpoint(tmp_path / "old" / "best", seed=1), dest, [None], 1, 0)
    before = {n: (dest.parent / n).read_bytes() for n in names(dest.parent)}
    src = make_checkpoint(tmp_path / "run" / "best", seed=2)
    calls = []

    def evaluate(*args, **kwargs):
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return {"opponents": [], "games": 1}

    monkeypatch.setattr(ship, "evaluate_agent", evaluate)
    with pytest.raises(KeyboardInterrupt):
        ship.ship(src, dest, [None, None], games=1, seed=0, replace=True)
    assert {n: (dest.parent / n).read_bytes() for n in names(dest.parent)} == before
    load_checkpoint(dest, game="catz_ratz_batz")  # the old pair still verifies


def test_nan_weights_refused_naming_the_tensor(tmp_path):
    torch.manual_seed(0)
    state = build_policy(SPEC).state_dict()
    state["action_net.weight"][1, 2] = float("nan")
    save_checkpoint(tmp_path / "nan", state, {**BASE, "policy": SPEC.to_dict()})
    with pytest.raises(CheckpointError, match=r"action_net\.weight holds NaN"):
        load_checkpoint(tmp_path / "nan")


def test_inf_weights_refused_naming_the_tensor(tmp_path):
    torch.manual_seed(0)
    state = build_policy(SPEC).state_dict()
    state["mlp_extractor.policy_net.0.bias"][0] = float("-inf")
    save_checkpoint(tmp_path / "inf", state, {**BASE, "policy": SPEC.to_dict()})
    with pytest.raises(CheckpointError, match=r"policy_net\.0\.bias holds infinity"):
        load_checkpoint(tmp_path / "inf")


def test_a_training_run_opens_nothing_in_its_folder_for_writing_but_temporary_files(
    tmp_path, monkeypatch
):
    # progress.csv and eval.csv were written row by row in place (a kill tore a row, and
    # a resumed run appended to it); every file of --out now goes through a temporary one
    import builtins
    import io

    from small_configs import TINY_CATZ

    from training.config import config_from_dict
    from training.train import train

    out = tmp_path / "run"
    in_place: list[tuple[str, str]] = []
    real_open, real_io_open = builtins.open, io.open

    def watch(opener):
        def opened(file, mode="r", *args, **kwargs):
            path = Path(str(file)) if isinstance(file, str | Path) else None
            writing = any(c in mode for c in "wax+")
            # atomic_file's temporaries are hidden: .name.*.tmp
            if writing and path is not None and out in path.parents and path.name[0] != ".":
                in_place.append((path.name, mode))
            return opener(file, mode, *args, **kwargs)

        return opened

    monkeypatch.setattr(builtins, "open", watch(real_open))
    monkeypatch.setattr(io, "open", watch(real_io_open))
    cfg = config_from_dict({**TINY_CATZ, "eval": {**TINY_CATZ["eval"], "every": 32}})
    final = train(cfg, out)
    train(cfg, out, resume=final)
    assert in_place == []
    progress = (out / "progress.csv").read_text().splitlines()
    assert progress[0].startswith("timesteps,") and len(progress) >= 3
    assert sum(line.startswith("timesteps,") for line in progress) == 1  # resumed: appended


def test_a_ship_failing_at_the_save_keeps_the_old_curve(tmp_path, monkeypatch):
    """The new agent's learning curve takes the old one's place only with its checkpoint:
    a save that fails leaves the agent at dest whole, its curve included, and no drawing
    behind."""
    dest = tmp_path / "ship" / "agent"
    old = make_checkpoint(tmp_path / "old" / "best", seed=1)
    (old.parent / "progress.csv").write_text("timesteps,ep_reward_mean\n10,0.1\n20,0.2\n")
    monkeypatch.setattr(ship, "evaluate_agent", lambda *a, **k: {"opponents": [], "games": 1})
    ship.ship(old, dest, [None], 1, 0)
    assert "agent_curve.png" in names(dest.parent)
    before = {n: (dest.parent / n).read_bytes() for n in names(dest.parent)}
    src = make_checkpoint(tmp_path / "run" / "best", seed=2)
    (src.parent / "progress.csv").write_text("timesteps,ep_reward_mean\n10,0.5\n20,0.9\n")

    def fails(*args, **kwargs):
        raise Boom

    monkeypatch.setattr(ship, "save_checkpoint", fails)
    with pytest.raises(Boom):
        ship.ship(src, dest, [None], 1, 0, replace=True)
    assert {n: (dest.parent / n).read_bytes() for n in names(dest.parent)} == before
    monkeypatch.undo()
    monkeypatch.setattr(ship, "evaluate_agent", lambda *a, **k: {"opponents": [], "games": 1})
    ship.ship(src, dest, [None], 1, 0, replace=True)
    assert (dest.parent / "agent_curve.png").read_bytes() != before["agent_curve.png"]
    assert not [n for n in names(dest.parent) if "shipping" in n]


def test_ship_replaces_an_agent_only_when_told_and_never_keeps_its_curve(tmp_path, monkeypatch):
    """An agent at dest is refused before any evaluation unless ``replace``; shipped over
    by one without a learning curve, the old agent's curve goes with it (card and file)."""
    dest = tmp_path / "ship" / "agent"
    old = make_checkpoint(tmp_path / "old" / "best", seed=1)
    (old.parent / "progress.csv").write_text("timesteps,ep_reward_mean\n10,0.1\n20,0.2\n")
    monkeypatch.setattr(ship, "evaluate_agent", lambda *a, **k: {"opponents": [], "games": 1})
    ship.ship(old, dest, [None], 1, 0)
    before = {n: (dest.parent / n).read_bytes() for n in names(dest.parent)}
    src = make_checkpoint(tmp_path / "run" / "best", seed=2)  # no progress.csv: no curve
    with pytest.raises(UsageError, match="an agent is there already"):
        ship.ship(src, dest, [None], 1, 0)
    assert {n: (dest.parent / n).read_bytes() for n in names(dest.parent)} == before
    assert ship.main([str(src), str(dest), "--games", "1"]) == 2
    ship.ship(src, dest, [None], 1, 0, replace=True)
    assert "agent_curve.png" not in names(dest.parent)
    assert "learning_curve" not in json.loads(card_path(dest).read_text())


def test_the_plots_command_says_what_is_wrong_in_one_line(tmp_path, capsys):
    """``python -m training.plots``: an output that is no figure, a folder, or logs that
    are not numbers end in one ``error:`` line and exit 2, never a traceback."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "progress.csv").write_text("timesteps,ep_reward_mean\n10,abc\n")
    cases = [
        (["--out", str(tmp_path / "curve.txt")], "a figure ends in one of .png, .svg, .pdf"),
        (["--out", str(run / "x.png" / "..")], "a figure ends in one of"),
        ([], "its logs cannot be drawn: could not convert string to float: 'abc'"),
    ]
    for extra, said in cases:
        assert plots.main([str(run), *extra]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and said in err and "Traceback" not in err
        assert len(err.strip().splitlines()) == 1
    (run / "progress.csv").write_text("timesteps,ep_reward_mean\n10,0.1\n20,0.3\n")
    folder = tmp_path / "figure.png"
    folder.mkdir()
    assert plots.main([str(run), "--out", str(folder)]) == 2
    assert "is a folder, not a file" in capsys.readouterr().err
    assert plots.main([str(run), "--out", str(tmp_path / "c.svg")]) == 0
    assert (tmp_path / "c.svg").read_bytes().lstrip().startswith(b"<?xml")
