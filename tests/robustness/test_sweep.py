"""The bad-input sweep (issue 18): every class of bad input, sent to every game through
every door, gets the documented answer, and an input that is refused changes nothing.

Doors: ``raw_env``, ``env()`` (PettingZoo AEC with the classic wrappers), ``parallel_env``,
the gymnasium ids (``gymnasium.make``, ``illegal_action`` "terminate" and "raise"), the
batched engines (``ratenvs/<game>/batched.py``) and the vector door
(``BatchedVectorEnv``). Inputs: actions of every type and value, every option of every
game (from its ``OptionSpec``) with wrong types, out-of-range values, NaN and infinity,
unknown option names, and random sequences of legal and refused actions, checked against
a twin that only ever saw the legal ones. (Seeds and the order of calls:
``test_lifecycle.py``.) Then the doors that read data (issue 37): a recorded game with any
field replaced, a record file of any text (deep, NaN, huge numbers), a training config of
any shape as a dict and as YAML nested up to 60,000 deep, a dict of options at every
constructor, and ``illegal_reward``: taken, or one clean ValueError/TypeError line, within
a deadline, never another exception.

The rules, as the docs state them (README, the env docstrings, ``ratenvs.common.aec``):

- An action is a Python or numpy integer or a 0-d integer array; nothing else (a bool, a
  float, a string, None, a 1-d array...) is ever coerced into one.
- Not an action, or not in ``0..n-1``: outside the action space ``Discrete(n)``, an
  ``ActionOutOfBoundsError`` (an ``IllegalActionError``, so a ValueError, and an
  AssertionError as PettingZoo's bounds check) naming the action and the space, at every
  door that raises, ``env()`` included; Ratto Zakko's ``parallel_env`` plays the default
  action instead, and the gymnasium door's "terminate" mode ends the episode.
- In the space but forbidden by the mask: ``raw_env``, a turn-based ``parallel_env`` and
  the gymnasium door's "raise" mode raise ``IllegalActionError`` naming the action and the
  legal ones; ``env()`` ends the game (everyone terminated and truncated, the offender -1,
  the others 0); the gymnasium door's "terminate" mode gives -1, terminated and
  ``info["illegal_action"]``; Ratto Zakko's ``parallel_env`` waits (leaves both, for the
  relocating winner).
- The batched engine and the vector door take an integer array with one action per game
  (per seat, for Ratto Zakko's engine): another shape or dtype is a ValueError "actions
  must be ..."; an illegal entry a ValueError naming its value and its game.
- Options: a wrong type, a value out of range, NaN or infinity is a ValueError naming the
  option and the value (the same message at every door: one ``OptionSpec``); an unknown
  name an ``UnknownOptionError``; every int option has an upper bound, and the batched
  engine and the vector door play every value up to it.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import string
import time
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

import ratenvs  # noqa: F401 - registers the gymnasium ids
from ratenvs.common.aec import ActionOutOfBoundsError, IllegalActionError
from ratenvs.common.batched import INT64_MAX
from ratenvs.common.options import UnknownOptionError
from ratenvs.games import GAMES
from ratenvs.wrappers.batched_vector import BatchedVectorEnv, Opponents

SPECS = pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))
OPTIONS = {
    "catz_ratz_batz": {"num_players": 2},
    "rat_a_tat_cat": {"num_players": 3},
    "ratto_zakko": {"num_players": 3, "level": "main"},
}
"""Each game's options here: several seats, so turns pass and Ratto Zakko's ticks have
several seats acting at once; its main level, so rat cards come up."""
BATCH = 3
"""Games in a batched engine or vector door here."""


def sweep(examples: int) -> Any:
    return settings(
        max_examples=examples,
        deadline=None,  # the first example may load the compiled kernels
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


INT_DTYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
OTHER_DTYPES = (np.float64, np.float32, np.bool_, np.str_, np.object_)
ALL_DTYPES = INT_DTYPES + OTHER_DTYPES
DTYPES = pytest.mark.parametrize("dtype", ALL_DTYPES, ids=[np.dtype(t).name for t in ALL_DTYPES])
SEEDS = st.integers(0, 2**32)
PICKS = st.lists(st.integers(0, 10**6), max_size=12)
"""Warm-up moves (each an index into the legal actions), to leave the opening."""
LEGAL, ILLEGAL, OUT = "legal", "illegal", "out of the action space"


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's illegal-move warning
        yield


# ----------------------------------------------------------------- the oracle
def integer(value: Any) -> int | None:
    """The documented rule, written out independently of ``as_action``: Python and numpy
    integers and 0-d integer arrays are actions; bools and everything else are not."""
    if isinstance(value, bool | np.bool_):
        return None
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu":
        return int(value)
    return None


def classify(value: Any, mask: np.ndarray) -> tuple[str, int | None]:
    index = integer(value)
    if index is None or not 0 <= index < len(mask):
        return OUT, index
    return (LEGAL if mask[index] else ILLEGAL), index


def pick(mask: np.ndarray, p: int) -> int:
    legal = np.flatnonzero(mask)
    return int(legal[p % len(legal)])


# ------------------------------------------------------------- the strategies
def numpy_integers() -> st.SearchStrategy:
    """A numpy integer scalar of any width and sign, any value it holds."""
    return st.sampled_from(INT_DTYPES).flatmap(
        lambda t: st.integers(int(np.iinfo(t).min), int(np.iinfo(t).max)).map(t)
    )


CLASSICS = (
    *(True, False, np.True_, None, "0", "1", b"1", 1.0, 0.0, float("nan"), float("inf")),
    *(np.float64(1.0), np.array(1.0), np.array([1]), np.array([]), [1], (1,), 1 + 0j),
    *(10**6, -1, 2**64, -(2**70), np.int8(-1), np.uint8(1), np.array(1, dtype=np.uint64)),
    np.uint64(2**64 - 1),
)
"""The values every action test tries first (hypothesis's explicit examples), then at
random: the bool, the integral float, the string, the 1-d array, the huge integer..."""


def classics(test: Any) -> Any:
    """``test`` tried on every value of :data:`CLASSICS` first (in the opening position)."""
    for value in CLASSICS:
        test = example(seed=0, picks=[], value=value)(test)
    return test


def action_values(n: int) -> st.SearchStrategy:
    """Anything a caller might pass as one action of a ``Discrete(n)`` space."""
    near = st.integers(-3, n + 3)  # in the space (legal or not) and just outside
    return st.one_of(
        st.sampled_from(CLASSICS),
        near,
        st.integers(-(2**70), 2**70),  # negative, huge, beyond int64
        near.map(np.int64),
        st.integers(0, n + 3).map(np.uint8),
        numpy_integers(),
        near.map(np.array),  # a 0-d integer array
        numpy_integers().map(np.array),
        st.lists(near, max_size=3).map(np.array),  # 1-d arrays (an empty one is float)
        st.lists(near, max_size=2),
        st.lists(near, max_size=2).map(tuple),
        st.floats(allow_nan=True, allow_infinity=True),
        near.map(float),  # 3.0 is no action
        near.map(np.float32),
        near.map(lambda v: np.array(float(v))),
        st.booleans(),
        st.booleans().map(np.bool_),
        near.map(str),
        st.text(string.printable, max_size=4),
        near.map(lambda v: str(v).encode()),
        near.map(complex),
        st.none(),
    )


ACTIONS = action_values(50)
"""Actions around every game's action space here (the largest: 47 actions)."""


def move(data: st.DataObject, mask: np.ndarray) -> Any:
    """A legal action half of the time, else any value at all (legal or not)."""
    if data.draw(st.booleans(), label="legal move"):
        return pick(mask, data.draw(st.integers(0, 10**6), label="pick"))
    return data.draw(ACTIONS, label="action")


@st.composite
def action_arrays(draw: Any, mask: np.ndarray, dtype: Any = None) -> np.ndarray:
    """An action array for a batch whose masks are ``mask`` (``(games, n)``, or
    ``(games, seats, n)``): legal entries or any integers of its dtype (``dtype``, or any),
    now and then another shape."""
    right = mask.shape[:-1]
    shape = right
    if draw(st.integers(0, 9), label="shape") == 0:
        others = [(), (right[0] - 1, *right[1:]), (1, *right), (*right, 1)]
        shape = draw(st.sampled_from(others), label="another shape")
    if dtype is None:
        dtype = draw(st.sampled_from(ALL_DTYPES), label="dtype")
    dtype = np.dtype(dtype)
    wild = dtype.kind in "iu" and draw(st.booleans(), label="wild")
    rows = mask.reshape(-1, mask.shape[-1])
    values = []
    for k, index in enumerate(np.ndindex(shape)):
        seat_mask = mask[index] if shape == right else rows[k % len(rows)]
        if wild and draw(st.booleans(), label="any value"):
            info = np.iinfo(dtype)
            values.append(draw(st.integers(int(info.min), int(info.max)), label="value"))
        else:
            values.append(pick(seat_mask, draw(st.integers(0, 10**6), label="pick")))
    return np.array(values, dtype=object).reshape(shape).astype(dtype)


def first_illegal(actions: np.ndarray, mask: np.ndarray) -> tuple[int, ...] | None:
    """The first entry (games, then seats) that its mask forbids."""
    n = mask.shape[-1]
    for index in np.ndindex(actions.shape):
        a = int(actions[index])
        if not 0 <= a < n or not mask[index][a]:
            return index
    return None


# ------------------------------------------------------------------- snapshots
def rng_state(generator: np.random.Generator) -> dict:
    return generator.bit_generator.state


def aec_snapshot(raw: Any) -> tuple:
    """Everything a refused action must leave as it was in an AEC env."""
    return (
        raw.game_state(),
        rng_state(raw.np_random),
        raw.agent_selection,
        list(raw.agents),
        dict(raw._pending),
        dict(raw._cumulative_rewards),
        dict(raw.rewards),
        dict(raw.terminations),
        dict(raw.truncations),
    )


def parallel_snapshot(par: Any) -> tuple:
    return par.game_state(), rng_state(par.np_random), list(par.agents)


def gym_snapshot(env: Any) -> tuple:
    door = env.unwrapped
    return aec_snapshot(door.aec), rng_state(door.np_random), door._mask.tolist(), door._seat


def arrays_of(obj: Any) -> dict[str, np.ndarray]:
    return {k: v.copy() for k, v in vars(obj).items() if isinstance(v, np.ndarray)}


def engine_snapshot(engine: Any) -> dict[str, Any]:
    """Every array of a batched engine (games, generators, tapes, buffers)."""
    return {**arrays_of(engine), "state": engine.state_observation().copy()}


def vector_snapshot(door: BatchedVectorEnv) -> dict[str, Any]:
    return {
        **{f"door.{k}": v for k, v in arrays_of(door).items()},
        **engine_snapshot(door.engine),
        "rng": rng_state(door._rng),
    }


def assert_same_arrays(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray):
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
        else:
            assert a[key] == b[key], key


# --------------------------------------------------------------------- doors
def make_aec(spec: Any, door: str, seed: int, picks: list[int]) -> Any:
    """``raw_env`` or ``env()``, reset with ``seed``, after the legal warm-up ``picks``."""
    env = getattr(spec.load(), door)(**OPTIONS[spec.name])
    env.reset(seed=seed)
    raw = env.unwrapped
    for p in picks:
        env.step(pick(raw.action_mask(raw.agent_selection), p))
        if all(raw.terminations.values()):  # a game over: the next one
            env.reset(seed=seed + 1)
    return env


def make_parallel(spec: Any, seed: int, picks: list[int]) -> Any:
    par = spec.load().parallel_env(**OPTIONS[spec.name])
    par.reset(seed=seed)
    for p in picks:
        game, truth = par.game, par.truth
        par.step(
            {par.possible_agents[s]: pick(game.legal_mask(truth, s), p) for s in game.to_act(truth)}
        )
        if not par.agents:
            par.reset(seed=seed + 1)
    return par


def make_gym(spec: Any, mode: str, seed: int, picks: list[int]) -> Any:
    env = gymnasium.make(spec.gymnasium_id, illegal_action=mode)
    env.reset(seed=seed)
    for p in picks:
        _, _, terminated, truncated, _ = env.step(pick(env.unwrapped.action_masks(), p))
        if terminated or truncated:
            env.reset(seed=seed + 1)
    return env


def make_engine(spec: Any, seed: int, picks: list[int]) -> Any:
    engine = spec.batched()(BATCH, seed=seed, **OPTIONS[spec.name])
    for p in picks:
        engine.step(legal_array(engine.mask, p))
    return engine


def make_vector(spec: Any, seed: int, picks: list[int]) -> BatchedVectorEnv:
    door = BatchedVectorEnv(spec.name, BATCH, seed=seed, **OPTIONS[spec.name])
    door.reset(seed=seed)
    for p in picks:
        door.step(legal_array(door.action_masks(), p))
    return door


def legal_array(mask: np.ndarray, p: int) -> np.ndarray:
    """The ``p``-th legal action (cyclically) of every game (and seat)."""
    flat = mask.reshape(-1, mask.shape[-1])
    return np.array([pick(m, p + i) for i, m in enumerate(flat)]).reshape(mask.shape[:-1])


def out_of_space(value: Any, agent: str, n: int) -> str:
    """The message of an action outside ``Discrete(n)`` (a regex)."""
    return (
        rf"^illegal action {re.escape(repr(value))} for {agent}: not in its action space "
        rf"Discrete\({n}\) \(an action is an integer 0\.\.{n - 1}\); legal actions: \["
    )


def illegal(index: int, agent: str, mask: np.ndarray) -> str:
    """The message of an action the mask forbids (a regex)."""
    legal = re.escape(str(np.flatnonzero(mask).tolist()))
    return rf"^illegal action {index} for {agent}; legal actions: {legal}"


def check_out_of_space(info: pytest.ExceptionInfo, value: Any, agent: str, n: int) -> None:
    err = info.value
    assert type(err) is ActionOutOfBoundsError
    assert isinstance(err, IllegalActionError) and isinstance(err, AssertionError)
    assert re.match(out_of_space(value, agent, n), str(err)), str(err)


# ==================================================================== actions
@SPECS
@pytest.mark.parametrize("door", ["raw_env", "env"])
@sweep(60)
@given(seed=SEEDS, picks=PICKS, value=ACTIONS)
@classics
def test_any_action_at_the_aec_doors(spec, door, seed, picks, value):
    """raw_env and env() answer any one action by the rule of its class; a refused one
    leaves the game, the generator, the rewards and the seat to act as they were, and an
    accepted numpy integer plays as the int would."""
    env = make_aec(spec, door, seed, picks)
    raw = env.unwrapped
    agent = raw.agent_selection
    mask = raw.action_mask(agent)
    kind, index = classify(value, mask)
    event(kind)
    before = aec_snapshot(raw)
    if kind == LEGAL:
        twin = make_aec(spec, door, seed, picks)
        env.step(value)
        twin.step(index)
        assert aec_snapshot(raw) == aec_snapshot(twin.unwrapped)
    elif kind == OUT:
        with pytest.raises(ActionOutOfBoundsError) as info:
            env.step(value)
        check_out_of_space(info, value, agent, raw.num_actions)
        assert aec_snapshot(raw) == before
    elif door == "raw_env":
        with pytest.raises(IllegalActionError, match=illegal(index, agent, mask)) as info:
            env.step(value)
        assert type(info.value) is IllegalActionError
        assert aec_snapshot(raw) == before
    else:  # env(): PettingZoo classic's illegal move ends the game
        env.step(value)
        assert raw.game_state() == before[0]
        assert all(raw.terminations.values()) and all(raw.truncations.values())
        assert raw.rewards == {a: -1.0 if a == agent else 0.0 for a in raw.agents}
        owed = before[5]  # the others keep what they had not collected yet, as PettingZoo's
        assert raw._cumulative_rewards == {**owed, agent: -1.0}


@SPECS
@sweep(40)
@given(data=st.data(), seed=SEEDS, picks=PICKS)
def test_any_actions_at_the_parallel_door(spec, data, seed, picks):
    """A turn-based parallel_env raises as raw_env does (a missing action too) and changes
    nothing; Ratto Zakko's plays the default action (wait; leave both) for every seat whose
    action is refused or missing, as if it had been given."""
    par = make_parallel(spec, seed, picks)
    game, truth, names = par.game, par.truth, par.possible_agents
    actions: dict[str, Any] = {}
    played: dict[str, int] = {}
    refused: list[tuple[str, str, Any, np.ndarray]] = []
    for seat in game.to_act(truth):
        agent, mask = names[seat], game.legal_mask(truth, seat)
        if data.draw(st.integers(0, 9), label="missing") == 0:
            refused.append(("missing", agent, None, mask))
            played[agent] = game.default_action(truth, seat)
            continue
        actions[agent] = value = move(data, mask)
        kind, index = classify(value, mask)
        if kind == LEGAL:
            played[agent] = index
        else:
            refused.append((kind, agent, value, mask))
            played[agent] = game.default_action(truth, seat)
    before = parallel_snapshot(par)
    if refused and spec.name != "ratto_zakko":
        kind, agent, value, mask = refused[0]
        with pytest.raises(IllegalActionError) as info:
            par.step(actions)
        if kind == OUT:
            check_out_of_space(info, value, agent, len(mask))
        elif kind == ILLEGAL:
            assert re.match(illegal(integer(value), agent, mask), str(info.value))
        else:
            legal = re.escape(str(np.flatnonzero(mask).tolist()))
            assert re.match(
                rf"^no action for {agent}, who acts now; legal actions: {legal}$", str(info.value)
            )
        assert parallel_snapshot(par) == before
        return
    twin = make_parallel(spec, seed, picks)
    got = par.step(actions)
    want = twin.step(played)
    assert parallel_snapshot(par) == parallel_snapshot(twin)
    assert got[1:] == want[1:]  # rewards, terminations, truncations, infos


@SPECS
def test_the_parallel_door_refuses_what_is_no_dict_of_agents(spec):
    par = spec.load().parallel_env(**OPTIONS[spec.name])
    par.reset(seed=0)
    before = parallel_snapshot(par)
    for bad in ([0], (0,), 0, "player_0", None, np.zeros(2)):
        with pytest.raises(TypeError, match=r"^actions must be a dict agent -> action, got "):
            par.step(bad)
    for bad in ({"player_9": 0}, {"nobody": 0, "player_0": 0}, {0: 1}):
        unknown = re.escape(str([a for a in bad if a not in par.possible_agents]))
        with pytest.raises(ValueError, match=rf"^unknown agent\(s\) {unknown}; the agents are"):
            par.step(bad)
    assert parallel_snapshot(par) == before


@SPECS
@pytest.mark.parametrize("mode", ["terminate", "raise"])
@sweep(30)
@given(seed=SEEDS, picks=PICKS, value=ACTIONS)
@classics
def test_any_action_at_the_gymnasium_door(spec, mode, seed, picks, value):
    """gymnasium.make(id): "raise" raises as raw_env does; "terminate" ends the episode
    with -1 and info["illegal_action"] for any action that is not legal, the game itself
    unchanged, and the next step is an error asking for reset()."""
    env = make_gym(spec, mode, seed, picks)
    door = env.unwrapped
    mask = door.action_masks().astype(np.int8)
    kind, index = classify(value, mask)
    event(kind)
    before = gym_snapshot(env)
    if kind == LEGAL:
        twin = make_gym(spec, mode, seed, picks)
        got, want = env.step(value), twin.step(index)
        np.testing.assert_array_equal(got[0], want[0])
        assert got[1:4] == want[1:4]
        assert gym_snapshot(env) == gym_snapshot(twin)
    elif mode == "raise":
        with pytest.raises(IllegalActionError) as info:
            env.step(value)
        if kind == OUT:
            check_out_of_space(info, value, door.learner, len(mask))
        else:
            assert type(info.value) is IllegalActionError
            assert re.match(illegal(index, door.learner, mask), str(info.value))
        assert gym_snapshot(env) == before
    else:
        seen = door._observation()
        obs, reward, terminated, truncated, info = env.step(value)
        assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
        np.testing.assert_array_equal(obs, seen)
        assert door.aec.game_state() == before[0][0]
        with pytest.raises(RuntimeError, match=r"after the episode ended; call reset\(\)"):
            env.step(pick(mask, 0))


@SPECS
@DTYPES
@sweep(6)
@given(data=st.data(), seed=SEEDS, picks=st.lists(st.integers(0, 10**6), max_size=6))
def test_any_action_array_at_the_batched_engine(spec, dtype, data, seed, picks):
    """A batched engine takes integer arrays of its shape: anything else is a ValueError
    "actions must be ..."; an illegal entry one naming its value and game (and seat); a
    refused array leaves every array of the engine as it was; a legal array of any integer
    dtype plays as int64 would."""
    engine = make_engine(spec, seed, picks)
    mask = engine.mask
    acts = data.draw(action_arrays(mask, dtype), label="actions")
    before = engine_snapshot(engine)
    shape = mask.shape[:-1]
    if acts.shape != shape or acts.dtype.kind not in "iu":
        with pytest.raises(ValueError, match=r"^actions must be "):
            engine.step(acts)
    elif (bad := first_illegal(acts, mask)) is not None:
        g = bad[0]
        legal = re.escape(str(np.flatnonzero(mask[bad]).tolist()))
        where = (
            rf"for seat {bad[1]} \(Ratto Zakko\)"
            if len(bad) > 1
            else rf"\(seat {engine.to_act[g]}\)"
        )
        with pytest.raises(
            ValueError, match=rf"^illegal action {acts[bad]} in game {g} {where}; legal: {legal}$"
        ):
            engine.step(acts)
    else:
        twin = make_engine(spec, seed, picks)
        engine.step(acts)
        twin.step(acts.astype(np.int64))
        assert_same_arrays(engine_snapshot(engine), engine_snapshot(twin))
        return
    assert_same_arrays(engine_snapshot(engine), before)


@SPECS
@DTYPES
@sweep(5)
@given(data=st.data(), seed=SEEDS, picks=st.lists(st.integers(0, 10**6), max_size=6))
def test_any_action_array_at_the_vector_door(spec, dtype, data, seed, picks):
    """BatchedVectorEnv takes one integer per game (the learner's action): floats, bools,
    strings and objects are refused, never cast; an illegal one is a ValueError naming it
    and its game; a refused step changes nothing, the rewards owed to the next step
    included."""
    door = make_vector(spec, seed, picks)
    mask = door.action_masks().astype(np.int8)
    acts = data.draw(action_arrays(mask, dtype), label="actions")
    door._carry[:] = np.arange(BATCH, dtype=np.float32) / 4  # rewards owed to the next step
    before = vector_snapshot(door)
    if acts.shape != (BATCH,) or acts.dtype.kind not in "iu":
        with pytest.raises(ValueError, match=rf"^actions must be {BATCH} integers, one per game"):
            door.step(acts)
    elif (bad := first_illegal(acts, mask)) is not None:
        (g,) = bad
        with pytest.raises(ValueError, match=rf"^illegal action {acts[g]} in game {g} "):
            door.step(acts)
    else:
        twin = make_vector(spec, seed, picks)
        twin._carry[:] = door._carry
        got, want = door.step(acts), twin.step(acts.astype(np.int64))
        for a, b in zip(got[:4], want[:4]):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(got[1] - want[1], 0.0)  # the owed rewards came along
        assert_same_arrays(vector_snapshot(door), vector_snapshot(twin))
        return
    assert_same_arrays(vector_snapshot(door), before)


@SPECS
def test_the_batched_doors_name_the_value_given_even_beyond_int64(spec):
    """A uint64 above int64's range is refused naming the number given (not the negative
    number it wraps to), and a float array is refused, never cast, at both batched doors."""
    engine, door = make_engine(spec, 0, []), make_vector(spec, 0, [])
    for subject, mask in ((engine, engine.mask), (door, door.action_masks())):
        acts = legal_array(mask, 0).astype(np.uint64)
        acts[(1,) * acts.ndim] = 2**64 - 1
        before = vector_snapshot(door) if subject is door else engine_snapshot(engine)
        with pytest.raises(ValueError, match=r"^illegal action 18446744073709551615 in game 1 "):
            subject.step(acts)
        with pytest.raises(ValueError, match=r"^actions must be .*got float64"):
            subject.step(legal_array(mask, 0).astype(np.float64))
        after = vector_snapshot(door) if subject is door else engine_snapshot(engine)
        assert_same_arrays(after, before)


class _CountingPolicies(Opponents):
    """Every opponent seat a frozen policy that plays its first legal action, counting the
    decisions it is asked for."""

    def __init__(self) -> None:
        self.asked = 0

    def draw(self, rng: Any, games: int, slots: int, bot_index: Any) -> np.ndarray:
        return np.full((games, slots), -2)

    def act(self, policy: int, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.asked += len(masks)
        return masks.argmax(axis=1)


@SPECS
def test_a_refused_step_at_the_vector_door_asks_no_policy(spec):
    """Frozen policies (self-play snapshots, maybe sampling) are not asked to act for a step
    that is then refused: the refusal costs nothing, not even a policy's random draw."""
    policies = _CountingPolicies()
    door = BatchedVectorEnv(spec.name, BATCH, seed=0, opponents=policies, **OPTIONS[spec.name])
    door.reset(seed=0)
    for p in range(3):
        door.step(legal_array(door.action_masks(), p))
    asked = policies.asked
    mask = door.action_masks()
    bad = legal_array(mask, 0)
    bad[1] = int(np.flatnonzero(mask[1] == 0)[0])
    before = vector_snapshot(door)
    with pytest.raises(ValueError, match=rf"^illegal action {bad[1]} in game 1 "):
        door.step(bad)
    assert policies.asked == asked
    assert_same_arrays(vector_snapshot(door), before)
    for p in range(20):  # a turn may take several of the learner's decisions
        door.step(legal_array(door.action_masks(), p))
    assert policies.asked > asked  # the policies play


# ================================================================== sequences
@SPECS
@pytest.mark.parametrize("door", ["raw_env", "env"])
@sweep(20)
@given(data=st.data(), seed=SEEDS, length=st.integers(1, 40))
def test_random_sequences_at_the_aec_doors(spec, door, data, seed, length):
    """Legal and refused actions in any order: after every one the env is where a twin that
    only got the legal ones is (env(): until an illegal move ends the game)."""
    env = make_aec(spec, door, seed, [])
    twin = make_aec(spec, "raw_env", seed, [])
    raw = env.unwrapped
    for _ in range(length):
        if all(raw.terminations.values()):
            break
        agent = raw.agent_selection
        mask = raw.action_mask(agent)
        value = move(data, mask)
        kind, index = classify(value, mask)
        if kind == LEGAL:
            env.step(value)
            twin.step(index)
        elif kind == OUT or door == "raw_env":
            with pytest.raises(ActionOutOfBoundsError if kind == OUT else IllegalActionError):
                env.step(value)
        else:
            env.step(value)
            assert all(raw.terminations.values())
            assert raw._cumulative_rewards[agent] == -1.0
            assert raw.game_state() == twin.game_state()
            return
        assert aec_snapshot(raw) == aec_snapshot(twin)


@SPECS
@sweep(15)
@given(data=st.data(), seed=SEEDS, length=st.integers(1, 25))
def test_random_sequences_at_the_gymnasium_door(spec, data, seed, length):
    """illegal_action="raise": refused actions between legal ones change nothing, not even
    the bots' generator: the episode goes on as a twin's that only got the legal ones."""
    env, twin = make_gym(spec, "raise", seed, []), make_gym(spec, "raise", seed, [])
    for _ in range(length):
        mask = env.unwrapped.action_masks().astype(np.int8)
        value = move(data, mask)
        kind, index = classify(value, mask)
        if kind != LEGAL:
            with pytest.raises(IllegalActionError):
                env.step(value)
            assert gym_snapshot(env) == gym_snapshot(twin)
            continue
        got, want = env.step(value), twin.step(index)
        assert got[1:4] == want[1:4]
        assert gym_snapshot(env) == gym_snapshot(twin)
        if got[2] or got[3]:
            break


@SPECS
@pytest.mark.parametrize("door", ["engine", "vector"])
@sweep(12)
@given(data=st.data(), seed=SEEDS, length=st.integers(1, 20))
def test_random_sequences_at_the_batched_doors(spec, door, data, seed, length):
    """The engine and the vector door after any mix of refused and legal action arrays are
    where a twin that only got the legal ones is."""
    make, snapshot = (
        (make_engine, engine_snapshot) if door == "engine" else (make_vector, vector_snapshot)
    )
    subject, twin = make(spec, seed, []), make(spec, seed, [])
    for _ in range(length):
        mask = subject.mask if door == "engine" else subject.action_masks().astype(np.int8)
        acts = data.draw(action_arrays(mask), label="actions")
        ok = acts.shape == mask.shape[:-1] and acts.dtype.kind in "iu"
        if ok and first_illegal(acts, mask) is None:
            subject.step(acts)
            twin.step(acts.astype(np.int64))
        else:
            with pytest.raises(ValueError):
                subject.step(acts)
        assert_same_arrays(snapshot(subject), snapshot(twin))


# ==================================================================== options
def wrong_types(option: Any) -> st.SearchStrategy:
    """Values of the wrong kind for ``option`` (NaN and infinity included)."""
    anything = st.one_of(
        st.text(max_size=4),
        st.lists(st.integers(-3, 3), min_size=1, max_size=2),
        st.lists(st.integers(-3, 3), min_size=1, max_size=3).map(np.array),
        st.sampled_from([float("nan"), float("inf"), -float("inf"), np.nan, np.float32("inf")]),
        st.complex_numbers(max_magnitude=10),
        st.builds(object),
    )
    if option.kind == "int":
        return st.one_of(
            anything,
            st.booleans(),
            st.booleans().map(np.bool_),
            st.floats().filter(lambda x: not math.isfinite(x) or x != int(x)),
            st.integers(0, 5).map(np.array),  # a 0-d array is no int option
            *([] if option.optional else [st.none()]),
        )
    if option.kind == "bool":
        return st.one_of(
            anything, st.integers(0, 1), st.sampled_from(["true", "false", "True", "1"]), st.none()
        )
    choices = option.choices
    similar = [c.upper() for c in choices if isinstance(c, str)] + [
        f" {c}" for c in choices if isinstance(c, str)
    ]
    return st.one_of(
        anything.filter(lambda v: not (isinstance(v, str) and v in choices)),
        st.sampled_from(similar or [-1]),
        st.none(),
        st.booleans(),
        st.sampled_from(choices).map(lambda c: np.array([c])),  # a 1-element array
        st.just(np.array(choices)),
        st.sampled_from(choices).map(lambda c: [c]),
        st.integers(-5, 10).filter(lambda v: v not in choices),
    )


def out_of_range(option: Any) -> st.SearchStrategy:
    low = option.low or 0
    below = st.integers(-(2**70), low - 1)
    above = st.integers(option.high + 1, 2**70) if option.high is not None else st.nothing()
    plain = st.one_of(below, above)
    return st.one_of(
        plain,
        plain.filter(lambda v: -(2**63) <= v < 2**63).map(np.int64),
        plain.filter(lambda v: abs(v) < 2**50).map(float),  # integral, so only the range is wrong
    )


def every_option(kind: str | None = None) -> list[tuple[str, str]]:
    return [
        (game, name)
        for game, spec in GAMES.items()
        for name, option in spec.load().raw_env.game_class.options.items()
        if kind is None or option.kind == kind
    ]


ALL_OPTIONS = pytest.mark.parametrize(("game", "name"), every_option(), ids="-".join)


def constructors(game: str) -> list[tuple[str, Any]]:
    """Every door's constructor of ``game``, taking the game's options."""
    spec = GAMES[game]
    module = spec.load()
    return [
        ("raw_env", module.raw_env),
        ("env", module.env),
        ("parallel_env", module.parallel_env),
        ("gymnasium", lambda **o: gymnasium.make(spec.gymnasium_id, **o)),
        ("engine", lambda **o: spec.batched()(2, **o)),
        ("vector", lambda **o: BatchedVectorEnv(game, 2, **o)),
    ]


def option_message(option: Any, value: Any, in_range_kind: bool) -> str:
    """The one message of a refused option value, as the options table states its rule."""
    name = option.name
    if option.kind == "int" and in_range_kind:
        low = option.low or 0
        bound = f">= {low}" if option.high is None else f"in {low}..{option.high}"
        return f"option {name!r} must be {bound}, got {int(value)}"
    if option.kind == "int":
        return f"option {name!r} must be an integer, got {value!r}"
    if option.kind == "bool":
        return f"option {name!r} must be True or False, got {value!r}"
    return f"option {name!r} must be one of {option.choices}, got {value!r}"


@ALL_OPTIONS
@sweep(25)
@given(data=st.data())
def test_a_bad_option_value_is_refused_alike_at_every_door(game, name, data):
    option = GAMES[game].load().raw_env.game_class.options[name]
    ranged = option.kind == "int" and data.draw(st.booleans(), label="out of range")
    value = data.draw(out_of_range(option) if ranged else wrong_types(option), label=name)
    want = option_message(option, value, ranged)
    for door, make in constructors(game):
        with pytest.raises(ValueError) as info:
            make(**{name: value})
        assert str(info.value) == want, door


def classic_bad_values(option: Any) -> list[tuple[Any, bool]]:
    """(value, out of range?) the options test tries on every option first."""
    common = [None, "", "x", [1], np.array([1, 2]), float("nan"), float("inf"), 1 + 0j]
    if option.kind == "int":
        values = [(v, False) for v in [*common, True, np.True_, 2.5, np.array(3), "3"]]
        values = [(v, r) for v, r in values if not (v is None and option.optional)]
        low = option.low or 0
        values += [(low - 1, True), (np.int64(low - 1), True), (float(low - 1), True)]
        if option.high is not None:
            values += [(option.high + 1, True), (2**70, True)]
        return values
    if option.kind == "bool":
        return [(v, False) for v in [*common, 0, 1, "true", "False", np.array(True)]]
    choice = option.choices[0]
    same_kind = [str(choice).upper(), f" {choice}"] if isinstance(choice, str) else [-1, 3]
    return [
        (v, False)
        for v in [*common, True, *same_kind, np.array([choice]), np.array(option.choices)]
    ]


@ALL_OPTIONS
def test_the_classic_bad_values_of_every_option_are_refused_alike(game, name):
    """A 1- or 2-element array, NaN, a bool for a number, a case variant of a choice...
    (the hypothesis test below draws any value; these come first, every time)."""
    option = GAMES[game].load().raw_env.game_class.options[name]
    for value, ranged in classic_bad_values(option):
        want = option_message(option, value, ranged)
        for door, make in constructors(game):
            with pytest.raises(ValueError) as info:
                make(**{name: value})
            assert str(info.value) == want, (door, value)


@ALL_OPTIONS
@sweep(15)
@given(data=st.data())
def test_a_good_option_value_is_taken_alike_at_every_door(game, name, data):
    """Every door takes an option's allowed values, numpy integers and integral floats for
    ints, numpy strings for text, and holds the plain value."""
    option = GAMES[game].load().raw_env.game_class.options[name]
    if option.kind == "int":
        top = option.high if option.high is not None else 50
        plain = data.draw(st.integers(option.low or 0, top), label=name)
        value = data.draw(st.sampled_from([plain, np.int64(plain), np.int32(plain), float(plain)]))
    elif option.kind == "bool":
        plain = value = data.draw(st.sampled_from([True, False, np.True_, np.False_]))
        plain = bool(plain)
    else:
        plain = data.draw(st.sampled_from(option.choices), label=name)
        forms = (
            [plain, np.str_(plain)]
            if isinstance(plain, str)
            else [plain, np.int64(plain), float(plain)]
        )
        value = data.draw(st.sampled_from(forms))
    companions = GAMES[game].load().raw_env.game_class.options.companions(name)
    for door, make in constructors(game):
        held = held_options(door, make(**companions, **{name: value}))
        assert held[name] == plain and type(held[name]) is type(plain), door


def held_options(door: str, env: Any) -> dict[str, Any]:
    """The checked options a door holds (every option, defaults included)."""
    if door == "engine":
        return env.options
    if door == "vector":
        return env.engine.options
    if door == "gymnasium":
        return env.unwrapped.aec.options
    return env.unwrapped.options


DOORS_OWN = {
    *("self", "render_mode", "render_view"),  # the envs'
    *("game", "opponents", "learner_seat", "illegal_action", "illegal_reward"),  # the doors'
    *("id", "max_episode_steps", "disable_env_checker"),  # gymnasium.make's
    *("num_envs", "seed", "log_games"),  # the batched doors'
}
"""Keyword arguments of the doors themselves, not game options."""


@SPECS
@sweep(20)
@given(name=st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,15}", fullmatch=True), value=st.integers())
def test_an_unknown_option_is_refused_naming_it(spec, name, value):
    options = spec.load().raw_env.game_class.options
    if name in options or name in DOORS_OWN:
        return
    for door, make in constructors(spec.name):
        with pytest.raises(UnknownOptionError) as info:
            make(**{name: value})
        assert isinstance(info.value, ValueError) and isinstance(info.value, TypeError)
        want = f"unknown option(s) {[name]}; the options are {list(options)}"
        got = str(info.value)  # gymnasium.make adds where the env was made to a TypeError's
        assert got.startswith(want) if door == "gymnasium" else got == want, door


@pytest.mark.parametrize(
    ("game", "name"), every_option("int"), ids=[f"{g}-{n}" for g, n in every_option("int")]
)
@sweep(6)
@given(data=st.data())
def test_every_int_option_is_bounded_and_the_batched_doors_hold_its_range(game, name, data):
    """Every int option has an upper bound (a length, a target or a cap mistyped is an error
    naming it at every door, never a game that does not end: the options test above checks
    the message), and the batched engine and the vector door over it play every value up
    to it (the engine's own ``option_bounds``, if any, are no lower)."""
    spec = GAMES[game]
    options = spec.load().raw_env.game_class.options
    option = options[name]
    companions = options.companions(name)  # other options under which every value holds
    assert option.high is not None, f"{game}'s option {name!r} has no upper bound"
    engine_cls = spec.batched()
    assert engine_cls.option_bounds.get(name, INT64_MAX) >= option.high
    fits = data.draw(
        st.sampled_from([option.high, (option_low(game, name) + option.high) // 2]), label="fits"
    )
    for make in (
        lambda **o: engine_cls(2, seed=0, **o),
        lambda **o: BatchedVectorEnv(game, 2, **o),
    ):
        door = make(**companions, **{name: fits})
        if isinstance(door, BatchedVectorEnv):
            door.reset(seed=0)
            door.close()
            continue
        for p in range(3):
            door.step(legal_array(door.mask, p))


def option_low(game: str, name: str) -> int:
    return GAMES[game].load().raw_env.game_class.options[name].low or 0


# ============================================================ strict numbers
def finite_real(value: Any) -> float | None:
    """The documented rule of a float argument (``illegal_reward``), written out apart from
    ``check_float``: a Python or numpy real that is not a bool and is finite as a float."""
    if isinstance(value, bool | np.bool_):
        return None
    if not isinstance(value, int | float | np.integer | np.floating):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


REWARDS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(2**1100), 2**1100),  # beyond a float too
    st.sampled_from([np.float32("nan"), np.float64("-inf"), np.float32(-1.5), np.int8(-1)]),
    st.booleans(),
    st.text(max_size=3),
    st.none(),
    st.complex_numbers(max_magnitude=2),
    st.lists(st.floats(-2, 2), max_size=1).map(np.array),
    st.sampled_from(["nan", "-1", np.array(-1.0)]),
)


def reward_doors(spec: Any) -> list[tuple[str, Any]]:
    """The doors taking ``illegal_reward``: the gymnasium door and the classic wrapper."""
    from ratenvs.common.wrappers import classic_env

    module = spec.load()
    return [
        ("gymnasium", lambda r: gymnasium.make(spec.gymnasium_id, illegal_reward=r).unwrapped),
        ("classic", lambda r: classic_env(module.raw_env(**OPTIONS[spec.name]), illegal_reward=r)),
    ]


@SPECS
@sweep(30)
@example(value=float("nan"))
@example(value=float("inf"))
@example(value=True)
@example(value="-1")
@given(value=REWARDS)
def test_illegal_reward_is_a_finite_number(spec, value):
    """``illegal_reward=nan`` was taken (and given to the learner as its reward): a float
    argument is a finite real, else one ValueError line naming it; integers are taken."""
    want = finite_real(value)
    for door, make in reward_doors(spec):
        if want is None:
            with pytest.raises(ValueError) as info:
                make(value)
            assert str(info.value) == (
                f"option 'illegal_reward' must be a finite number, got {value!r}"
            ), door
        else:
            env = make(value)
            held = env.illegal_reward if door == "gymnasium" else env._illegal_reward
            assert held == want and type(held) is float, door


# ===================================================== files, configs, options dicts
# Issue 37: every door that reads data - a record, a JSON or YAML file, a training config,
# a dict of options - takes it or refuses it with one clean line (a ValueError or
# TypeError we raise, its message one line), in bounded time, never another exception.
CLEAN = (ValueError, TypeError)

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=10,
)
"""Any JSON value, small."""


SECONDS = 5.0
"""The CPU time one case of a reading door may take (CPU time: the machine may be loaded)."""


def files_sweep(examples: int) -> Any:
    """A sweep of a reading door: ``examples`` cases (each timed by :func:`within`)."""
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@contextlib.contextmanager
def within(seconds: float = SECONDS) -> Any:
    """The block takes at most ``seconds`` of this process's CPU time (returning or
    raising)."""
    start = time.process_time()
    try:
        yield
    finally:
        took = time.process_time() - start
        assert took < seconds, f"took {took:.1f} s of CPU"


def clean_or_taken(call: Any, *args: Any) -> Any:
    """``call(*args)``'s result, or None if it refused with one clean line (within
    :data:`SECONDS` of CPU either way)."""
    with within():
        try:
            return call(*args)
        except CLEAN as err:
            assert "\n" not in str(err) and str(err), repr(err)
            return None


_RECORDS: dict[str, dict] = {}


def a_record(game: str) -> dict:
    """A short recorded game of ``game`` (two seats, random bots, its chance log)."""
    if game not in _RECORDS:
        from ratenvs.common.record import record_bot_game

        bot = GAMES[game].bots()["random"]
        _RECORDS[game] = record_bot_game(game, [bot(), bot()], 1, record_chance=True, num_players=2)
    return _RECORDS[game]


@SPECS
@files_sweep(40)
@given(data=st.data())
def test_a_record_of_any_shape_replays_or_is_one_clean_line(spec, data):
    """A recorded game with any of its fields, options, actions or chance draws replaced by
    any JSON value: replayed, or one clean line."""
    import copy

    from ratenvs.common.record import replay

    record = copy.deepcopy(a_record(spec.name))
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        where = data.draw(st.sampled_from(["field", "option", "action", "draw"]), label="where")
        if where == "field":
            key = data.draw(st.sampled_from([*sorted(record), "extra"]), label="field")
            record[key] = data.draw(JSON_VALUES, label="value")
        elif where == "option" and isinstance(record.get("options"), dict):
            key = data.draw(st.sampled_from([*sorted(record["options"]), "bogus"]), label="opt")
            record["options"][key] = data.draw(JSON_VALUES, label="value")
        elif where == "action" and isinstance(record.get("actions"), list) and record["actions"]:
            i = data.draw(st.integers(0, len(record["actions"]) - 1), label="index")
            record["actions"][i] = data.draw(st.integers(-3, 60) | JSON_VALUES, label="action")
        elif where == "draw" and isinstance(record.get("chance"), list) and record["chance"]:
            i = data.draw(st.integers(0, len(record["chance"]) - 1), label="index")
            if isinstance(record["chance"][i], list) and len(record["chance"][i]) == 2:
                value = data.draw(st.integers(-3, 60) | JSON_VALUES, label="outcome")
                record["chance"][i][1] = value
    clean_or_taken(replay, record)


JSON_TEXT = st.one_of(
    st.text(alphabet='[]{}",:0123456789.eE-+ \\ntrufalsN', max_size=60),
    JSON_VALUES.map(json.dumps),
    st.integers(1, 200_000).map(lambda n: "[" * n + "]" * n),
    st.integers(1, 200_000).map(lambda n: '{"a":' * n + "1" + "}" * n),
    st.sampled_from(["NaN", "[Infinity]", '{"seed": -Infinity}', "[1e999]", "9" * 5000, ""]),
)
"""Text a record or result file may hold: JSON, almost-JSON, deep, huge numbers."""


@files_sweep(60)
@given(text=JSON_TEXT)
def test_a_record_file_of_any_text_is_read_or_one_clean_line(tmp_path_factory, text):
    from ratenvs.common.record import load_record

    path = tmp_path_factory.mktemp("record") / "r.json"
    path.write_text(text, encoding="utf-8")
    got = clean_or_taken(load_record, path)
    assert got is None or isinstance(got, dict)


def a_config(draw: Any) -> dict:
    """A tiny Catz training config with some keys (top level or in a section) replaced by
    any JSON value, a number near a bound, or an unknown key."""
    from helpers import TINY_CATZ

    config = json.loads(json.dumps(TINY_CATZ))
    sections = {
        "algorithm": ["n_steps", "batch_size", "n_epochs", "net_arch", "learning_rate", "gamma"],
        "eval": ["every", "games", "final_games", "seed", "opponents"],
        "selfplay": ["enabled", "bots", "snapshot_every", "max_snapshots", "snapshot_prob"],
        "pretrain": ["games", "epochs", "batch_size", "teacher"],
    }
    values = st.one_of(
        JSON_VALUES,
        st.integers(-1, 2**64),
        st.sampled_from([0, 1, 4096, 4097, 2**21, 2**21 + 1, 10**12 + 1, 1.5]),
        st.lists(st.integers(-1, 10**10), max_size=20),  # a net_arch
        st.sampled_from([float("nan"), float("inf")]),
    )
    for _ in range(draw(st.integers(1, 3), label="changes")):
        section = draw(st.sampled_from([None, *sections]), label="section")
        if section is None:
            keys = ["n_envs", "timesteps", "seed", "vec_env", "opponents", "learner_seat", "x"]
            config[draw(st.sampled_from(keys), label="key")] = draw(values, label="value")
        else:
            part = config.setdefault(section, {})
            part[draw(st.sampled_from([*sections[section], "x"]), label="key")] = draw(values)
    return config


@files_sweep(60)
@given(data=st.data())
def test_a_config_of_any_shape_is_taken_or_one_clean_line(data):
    """``training.config.config_from_dict``: a TrainConfig, or one ConfigError line (every
    size bounded before anything is allocated)."""
    from training.config import ConfigError, TrainConfig, config_from_dict

    config = a_config(data.draw)
    try:
        with within():
            got = config_from_dict(config)
    except ConfigError as err:
        assert "\n" not in str(err)
        return
    assert isinstance(got, TrainConfig)
    assert len(got.algorithm.net_arch) <= 16 and max(got.algorithm.net_arch) <= 4096
    assert got.n_envs * got.algorithm.n_steps <= 2**21


@files_sweep(30)
@given(data=st.data(), depth=st.integers(0, 60_000), style=st.sampled_from("[{-"))
def test_a_config_file_of_any_shape_is_taken_or_one_clean_line(
    tmp_path_factory, data, depth, style
):
    """The same configs as YAML files, with a value nested ``depth`` deep (flow lists, flow
    mappings or block lists): read, or one ConfigError line (no RecursionError)."""
    from training.config import ConfigError, load_config

    config = a_config(data.draw)
    text = yaml.safe_dump(config)
    if style == "[":
        text += "x_deep: " + "[" * depth + "]" * depth + "\n"
    elif style == "{":
        text += "x_deep: " + "{a: " * depth + "1" + "}" * depth + "\n"
    else:
        text += "x_deep:\n" + "- " * depth + "1\n"
    path = tmp_path_factory.mktemp("config") / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err, within():  # x_deep is no key: refused anyway
        load_config(path)
    assert "\n" not in str(err.value)
    if depth > 15:  # too deep, or (a deep flow mapping) too big: refused before composing
        assert str(err.value).endswith("levels deep") or "bytes, more than the limit" in str(
            err.value
        )


@SPECS
@files_sweep(15)
@given(data=st.data())
def test_an_options_dict_of_any_shape_is_taken_or_one_clean_line(spec, data):
    """Every constructor of the game with a dict of its options (any subset, any values,
    now and then an unknown name): built, or one clean ValueError/TypeError line, alike at
    every door (the reference doors at least: a batched engine may refuse more)."""
    options = spec.load().raw_env.game_class.options
    names = data.draw(st.lists(st.sampled_from(list(options)), unique=True, max_size=3))
    given_options = {
        name: data.draw(
            st.one_of(
                st.just(options[name].default),
                JSON_VALUES,
                st.integers(-3, 12),
                st.sampled_from([float("nan"), True, np.int64(2), 2.0]),
            ),
            label=name,
        )
        for name in names
    }
    if data.draw(st.booleans(), label="unknown name"):
        given_options["bogus_option"] = 1
    refused = {}
    for door, make in constructors(spec.name):
        try:
            with within():
                env = make(**given_options)
        except CLEAN as err:
            assert "\n" not in str(err) and str(err), (door, repr(err))
            refused[door] = str(err)
            continue
        if hasattr(env, "close"):
            env.close()
    if "raw_env" in refused:  # one OptionSpec: every door refuses it alike
        assert set(refused) == {door for door, _ in constructors(spec.name)}
        for door, message in refused.items():  # gymnasium.make adds where the env was made
            assert message.startswith(refused["raw_env"]), door
    else:  # a batched engine may refuse more (what it cannot hold), the others nothing
        assert set(refused) <= {"engine", "vector"}, refused
