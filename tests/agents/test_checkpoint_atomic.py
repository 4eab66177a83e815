"""A checkpoint is replaced as one unit: a writer killed at any step between its file
operations leaves the old checkpoint or the new one loadable, never neither, and the
next write cleans up what the killed one left.

The kill is injected at each boundary in turn (not at random times): every
``tempfile.mkstemp``, ``os.fsync``, ``os.replace`` and ``os.unlink`` of a write is a step;
at step ``k`` the process "dies": that operation and every later one raises, so nothing
after it happens (not even the cleanup a normal exception would run), as after SIGKILL.
"""

from __future__ import annotations

import contextlib
import os
import tempfile

import numpy as np
import pytest

from ratenvs.agents.checkpoint import (
    PolicySpec,
    load_checkpoint,
    owned_files,
    save_checkpoint,
)
from ratenvs.common.atomic import PROCESS_STARTED

SPEC = PolicySpec(observation_size=12, num_actions=4, net_arch=(8,))
CARD = {"game": "catz_ratz_batz", "env_options": {"num_players": 1}, "policy": SPEC.to_dict()}
STEPS = ((tempfile, "mkstemp"), (os, "fsync"), (os, "replace"), (os, "unlink"))


class Killed(BaseException):
    """The writer's process died here."""


def _state(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {k: rng.standard_normal(s).astype(np.float32) for k, s in SPEC.expected_shapes().items()}


def _optimizer(seed: int) -> dict:
    """An optimizer state shaped as torch's Adam writes one (no torch needed)."""
    rng = np.random.default_rng(seed)
    shapes = list(SPEC.expected_shapes().values())
    state = {
        i: {"step": np.array(seed, np.float32), "exp_avg": rng.standard_normal(shape)}
        for i, shape in enumerate(shapes)
    }
    groups = [{"lr": 1e-3, "betas": (0.9, 0.999), "params": list(range(len(shapes)))}]
    return {"state": state, "param_groups": groups}


def _kill_at(monkeypatch: pytest.MonkeyPatch, step: int) -> list[str]:
    """From the ``step``-th file operation on (0-based), every one raises Killed."""
    done: list[str] = []
    for module, name in STEPS:
        real = getattr(module, name)

        def op(*args, _real=real, _name=name, **kwargs):
            if len(done) >= step:
                raise Killed(_name)
            done.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, op)
    return done


def _which(path, old, new) -> str:
    ckpt = load_checkpoint(path, optimizer=True)  # must load, whatever happened
    got = ckpt.policy_state
    for label, state in (("old", old), ("new", new)):
        if all(np.array_equal(got[k], state[k]) for k in state):
            return label
    raise AssertionError("the checkpoint holds neither the old nor the new weights")


def test_a_writer_killed_at_any_step_leaves_the_old_or_the_new_checkpoint(tmp_path):
    old, new = _state(1), _state(2)
    with pytest.MonkeyPatch.context() as mp:  # a clean write: how many steps it has
        save_checkpoint(tmp_path / "count" / "agent", old, CARD, _optimizer(1))
        steps = _kill_at(mp, 10**6)
        save_checkpoint(tmp_path / "count" / "agent", new, CARD, _optimizer(2))
    assert steps.count("replace") == 3 and "unlink" in steps, steps  # weights, optimizer, card
    commit = [i for i, name in enumerate(steps) if name == "replace"][2]  # the card's rename
    seen = []
    for k in range(len(steps) + 1):
        path = tmp_path / f"kill{k}" / "agent"
        save_checkpoint(path, old, CARD, _optimizer(1))
        with pytest.MonkeyPatch.context() as mp:
            _kill_at(mp, k)
            with contextlib.suppress(Killed):
                save_checkpoint(path, new, CARD, _optimizer(2))
        seen.append(_which(path, old, new))
        assert seen[-1] == ("new" if k > commit else "old"), (k, steps)
        leftovers = [p for p in path.parent.iterdir() if p.name.endswith(".tmp")]
        for p in leftovers:  # the killed writer was an earlier process
            os.utime(p, (PROCESS_STARTED - 3600, PROCESS_STARTED - 3600))
        save_checkpoint(path, new, CARD, _optimizer(3))  # the next write cleans up
        card = load_checkpoint(path).card
        named = {card["weights_file"], card["optimizer_file"], "agent.json"}
        assert {p.name for p in path.parent.iterdir()} == named, (k, leftovers)
        assert {p.name for p in owned_files(path)} == named - {"agent.json"}
    assert seen[0] == "old" and seen[-1] == "new"


def test_a_stale_temporary_file_is_removed_and_said_by_the_next_write(tmp_path, capsys):
    path = tmp_path / "agent"
    save_checkpoint(path, _state(1), CARD)
    stale = tmp_path / ".agent.json.k1ll3d_x.tmp"  # as atomic_file names them
    stale.write_bytes(b"half a card")
    os.utime(stale, (PROCESS_STARTED - 3600, PROCESS_STARTED - 3600))  # an earlier process's
    other = tmp_path / ".agent_other.json.abcdefgh.tmp"  # another checkpoint's: kept
    other.write_bytes(b"")
    under_way = tmp_path / ".agent.json.w0rk1ng_.tmp"  # a write under way now: kept
    under_way.write_bytes(b"")
    save_checkpoint(path, _state(2), CARD)
    assert not stale.exists() and other.exists() and under_way.exists()
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"removed {stale}: a temporary file an interrupted write")


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda o: o["state"][1].update(exp_avg=np.zeros(3)), "exp_avg of parameter 1 has shape"),
        (lambda o: o["param_groups"][0]["params"].pop(), "holds 7 parameters"),
        (lambda o: o["state"].update({9: {}}), "names parameter 9"),
        (lambda o: o.pop("param_groups"), "not an optimizer state"),
    ],
)
def test_an_optimizer_state_that_does_not_fit_the_architecture_is_refused(tmp_path, change, said):
    """The moments of the optimizer are checked against the card's architecture at load (a
    resumed run met them only in its first update, in torch's words); the policy alone,
    without the optimizer, still loads."""
    from ratenvs.agents.checkpoint import CheckpointError

    optimizer = _optimizer(1)
    change(optimizer)
    path = save_checkpoint(tmp_path / "agent", _state(1), CARD, optimizer)
    with pytest.raises(CheckpointError, match=said):
        load_checkpoint(path, optimizer=True)
    assert load_checkpoint(path).optimizer_state is None
