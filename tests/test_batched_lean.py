"""The batched engines' lean call (``ratenvs.common.batched``, lean calls): a step given an
action array the engine has checked before goes through one compiled call that reads its
arguments from a table of addresses. The replay proofs (tests/test_batched*.py) log their
games, and logged games never go lean, so these tests prove the lean call against the
checked path they cover: the same arrays after every step, the same errors, nothing moved
by an illegal action.
"""

from __future__ import annotations

import numpy as np
import pytest

from ratenvs.catz_ratz_batz.batched import BatchedCatzRatzBatz
from ratenvs.common.batched import NO_LEAN, RandomActions, lean_table
from ratenvs.rat_a_tat_cat.batched import BatchedRatATatCat
from ratenvs.ratto_zakko.batched import BatchedRattoZakko

ENGINES = [
    pytest.param(BatchedCatzRatzBatz, {"num_players": 2}, ("optimal",), id="catz-2p"),
    pytest.param(BatchedCatzRatzBatz, {"num_players": 1}, (), id="catz-1p"),
    pytest.param(BatchedRatATatCat, {"num_players": 2}, ("heuristic",), id="ratcat-2p"),
    pytest.param(
        BatchedRatATatCat,
        {"num_players": 3, "target_score": 30, "eliminate_at": "reaches"},
        ("heuristic",),
        id="ratcat-3p-elimination",
    ),
    pytest.param(BatchedRattoZakko, {"num_players": 3, "level": "dessert"}, ("bayes",), id="rz-3p"),
]

FIELDS = ("observation", "mask", "rewards", "terminated", "to_act", "returns")


def _state(engine) -> dict[str, np.ndarray]:
    """Copies of every array the engine holds (its whole state and outputs)."""
    return {k: v.copy() for k, v in vars(engine).items() if isinstance(v, np.ndarray)}


def _twins(cls, options, bots, num_envs):
    """Two engines of the same games, with a kernel bot in seat 1 of every other game."""
    pair = [cls(num_envs, seed=7, **options) for _ in range(2)]
    if bots:
        table = np.full((num_envs, pair[0].num_players), -1, dtype=np.int64)
        table[::2, 1] = pair[0].bot_index(bots[0])
        for engine in pair:
            engine.set_bots(table)
    return pair


@pytest.mark.parametrize("num_envs", [1, 5])
@pytest.mark.parametrize(("cls", "options", "bots"), ENGINES)
def test_the_lean_call_plays_what_the_checked_path_plays(cls, options, bots, num_envs):
    lean, checked = _twins(cls, options, bots, num_envs)
    shape = lean.mask.shape[:-1]
    picker = RandomActions(int(np.prod(shape)), seed=3)
    buffer = np.zeros(shape, dtype=np.int64)  # one array, given every step: it goes lean
    ended = 0
    for step in range(1500 if num_envs == 1 else 400):
        if step == 700:  # a reset replaces arrays: the lean table follows them
            for engine in (lean, checked):
                engine.reset(seed=11)
        buffer[...] = picker.pick(lean.mask.copy())
        # now and then the lean engine takes the checked path too: both read its state alike
        a = lean.step(buffer if step % 7 else buffer.tolist())
        b = checked.step(buffer.tolist())  # a list: the checked path every time
        for name in FIELDS:
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
        np.testing.assert_array_equal(lean.final_obs, checked.final_obs)
        ended += int(a.terminated.sum())
    assert lean._lean.key is buffer  # it did go lean
    assert checked._lean is NO_LEAN  # it never went lean
    assert ended >= 3  # games ended and were reset in place, through both paths


@pytest.mark.parametrize("num_envs", [1, 4])
@pytest.mark.parametrize(("cls", "options", "bots"), ENGINES)
def test_an_illegal_action_on_the_lean_call_moves_nothing(cls, options, bots, num_envs):
    engine = _twins(cls, options, bots, num_envs)[0]
    shape = engine.mask.shape[:-1]
    picker = RandomActions(int(np.prod(shape)), seed=1)
    buffer = np.zeros(shape, dtype=np.int64)
    for _ in range(3):
        buffer[...] = picker.pick(engine.mask.copy())
        engine.step(buffer)
    assert engine._lean.key is buffer
    # the last game's first external seat plays an action its mask forbids
    g = num_envs - 1
    seats = np.flatnonzero(engine.bots[g] < 0)
    index = (g,) if buffer.ndim == 1 else (g, int(seats[0]))
    forbidden = np.flatnonzero(engine.mask[index] == 0)
    buffer[...] = picker.pick(engine.mask.copy())
    buffer[index] = forbidden[0]
    before = _state(engine)
    with pytest.raises(ValueError, match=f"illegal action {forbidden[0]} in game {g}"):
        engine.step(buffer)
    after = _state(engine)
    assert before.keys() == after.keys()
    for name in before:
        np.testing.assert_array_equal(before[name], after[name], err_msg=name)
    buffer[index] = np.flatnonzero(engine.mask[index])[0]  # the game goes on, lean
    engine.step(buffer)


def test_a_ratcat_game_the_bots_end_is_an_error_on_the_lean_call_too():
    engine = BatchedRatATatCat(2, seed=0, num_players=2, max_turns_per_round=1)
    picker = RandomActions(2, seed=0)
    buffer = np.zeros(2, dtype=np.int64)
    buffer[:] = picker.pick(engine.mask)
    engine.step(buffer)
    assert engine._lean.key is buffer
    # from the next game on a bot plays first: it ends the round before seat 1 acts
    engine.set_next_bots([[engine.bot_index("heuristic"), -1]] * 2)
    with pytest.raises(RuntimeError, match="before any external seat acted"):
        for _ in range(200):
            buffer[:] = picker.pick(engine.mask)
            engine.step(buffer)


def test_the_picker_picks_the_same_through_its_lean_call():
    mask = np.zeros((6, 5), dtype=np.int8)
    rng = np.random.default_rng(0)
    lean, checked = RandomActions(6, seed=2), RandomActions(6, seed=2)
    for _ in range(300):
        mask[...] = rng.integers(0, 2, size=mask.shape)
        a = lean.pick(mask).copy()
        b = checked.pick(mask.copy())
        np.testing.assert_array_equal(a, b)
    assert lean._lean.key is mask
    # a simultaneous game's (games, seats, actions) masks give (games, seats) actions
    picker = RandomActions(6, seed=2)
    assert picker.pick(mask.reshape(2, 3, 5)).shape == (2, 3)
    with pytest.raises(ValueError, match="6 rows"):
        picker.pick(np.ones((4, 5), dtype=np.int8))


def test_a_lean_table_takes_only_what_a_lean_call_can_read():
    with pytest.raises(ValueError, match="C-contiguous"):
        lean_table([np.zeros((4, 4))[:, ::2]])
    table = lean_table([np.zeros((2, 3), dtype=np.float32), 7, True, (1, 2)])
    assert table.reshape(-1, 5)[1:, 0].tolist() == [7, 1, 1, 2]
    assert table.reshape(-1, 5)[0, 1:3].tolist() == [2, 3]
