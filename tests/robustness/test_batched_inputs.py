"""The batched engines and their vector door at their bounds: a batch too big for the
machine's memory is one ValueError naming ``num_envs`` and the limit (before any array
is made), and the door used out of order says what to do."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import ratenvs  # noqa: F401 - registers the gymnasium ids
from ratenvs.common import batched
from ratenvs.games import GAMES
from ratenvs.wrappers.batched_vector import BatchedVectorEnv, sb3_vec_env

SPECS = pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))


def test_a_billion_games_are_refused_before_any_array_is_made():
    with pytest.raises(ValueError, match=r"^num_envs=1,000,000,000 needs about .* GB .*at most"):
        gymnasium.make_vec(
            "ratenvs/CatzRatzBatz-v0", num_envs=10**9, vectorization_mode="vector_entry_point"
        )


@SPECS
def test_num_envs_is_checked_against_the_memory_limit(spec, monkeypatch):
    engine_cls = spec.batched()
    per_game = engine_cls(2).bytes_per_game() * batched.MEMORY_MARGIN
    monkeypatch.setattr(batched, "memory_limit", lambda: 100 * per_game)
    engine_cls(100)  # just fits
    with pytest.raises(ValueError, match=r"num_envs=101 needs about .*: at most 100 games"):
        engine_cls(101)
    with pytest.raises(ValueError, match="num_envs=101"):
        BatchedVectorEnv(spec.name, 101)


@SPECS
def test_bytes_per_game_counts_the_arrays_and_leaves_the_batch_alone(spec):
    engine = spec.batched()(3, seed=0)
    obs = engine.obs.copy()
    per_game = engine.bytes_per_game()
    held = sum(a.nbytes for a in vars(engine).values() if isinstance(a, np.ndarray))
    assert per_game * 3 <= held  # (held also counts the batch's tables)
    assert per_game >= engine.final_obs[0].nbytes + engine.obs[0].nbytes + engine.mask[0].nbytes
    assert engine.num_envs == 3 and engine.obs.shape[0] == 3
    np.testing.assert_array_equal(engine.obs, obs)


def test_the_memory_limit_is_the_machine_s_at_most():
    import os

    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert 0 < batched.memory_limit() <= physical


def test_the_memory_limit_is_the_process_s_at_most(monkeypatch):
    """Under ``ulimit -v`` the limit is the process's address space: a batch too large for
    it gets the one-line num_envs error, not numpy's MemoryError halfway through."""
    import resource

    monkeypatch.setattr(resource, "getrlimit", lambda which: (123_456_789, resource.RLIM_INFINITY))
    assert batched.memory_limit() == 123_456_789
    monkeypatch.setattr(resource, "getrlimit", lambda which: (resource.RLIM_INFINITY,) * 2)
    assert batched.memory_limit() > 123_456_789


@SPECS
def test_the_vector_door_before_reset_and_after_close_says_what_to_do(spec):
    door = BatchedVectorEnv(spec.name, 2, seed=0)
    for call in (door.action_masks, door.state_features):
        with pytest.raises(RuntimeError, match=r"\(\) before reset\(\): call reset\(\) first"):
            call()
    door.reset(seed=0)
    assert door.action_masks().any(axis=1).all()
    door.close()
    actions = np.zeros(2, dtype=np.int64)
    for name, call in (
        ("step", lambda: door.step(actions)),
        ("reset", door.reset),
        ("action_masks", door.action_masks),
        ("state_features", door.state_features),
    ):
        with pytest.raises(RuntimeError, match=rf"^{name}\(\) after close\(\): .*make a new one"):
            call()


def test_the_sb3_door_step_wait_needs_its_actions():
    pytest.importorskip("stable_baselines3", reason="the SB3 door needs the train extra")
    venv = sb3_vec_env(BatchedVectorEnv("catz_ratz_batz", 2, seed=0))
    venv.reset()
    with pytest.raises(RuntimeError, match=r"step_wait\(\) before step_async\(\)"):
        venv.step_wait()
    venv.step_async(np.argmax(venv.action_masks(), axis=1))
    venv.step_wait()
    with pytest.raises(RuntimeError, match=r"step_wait\(\) before step_async\(\)"):
        venv.step_wait()  # one step per actions given


def test_ratto_zakko_takes_actions_and_active_of_any_memory_layout():
    """The kernel borrows its arrays (no reference counting): a strided view of the
    actions or of ``active`` is copied to a contiguous array first, not read as one."""
    engine_cls = GAMES["ratto_zakko"].batched()
    a, b = engine_cls(6, seed=1), engine_cls(6, seed=1)
    rng = np.random.default_rng(0)
    for _ in range(30):
        acts = np.zeros((6, 4), dtype=np.int64)
        for g, s in zip(*np.nonzero(a.to_act), strict=True):
            acts[g, s] = rng.choice(np.flatnonzero(a.mask[g, s]))
        wide = np.zeros((6, 8), dtype=np.int64)
        wide[:, ::2] = acts
        active = rng.random(12) < 0.7
        out_a = a.step(wide[:, ::2], active=active[::2])
        out_b = b.step(acts.copy(), active=active[::2].copy())
        np.testing.assert_array_equal(out_a.observation, out_b.observation)
        np.testing.assert_array_equal(out_a.mask, out_b.mask)
