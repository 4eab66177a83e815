"""Batched engines: many games of one game advanced in one call, with compiled kernels.

A batched engine (``ratenvs/<game>/batched.py``) plays the same game as the
reference :class:`~ratenvs.common.game.Game` (the readable spec) over a batch of
``num_envs`` games held in numpy arrays, with numba kernels (``cache=True``: the
compile happens once per machine). What every engine shares lives here:

- :class:`BatchedGame`: the batch's options (the game's own
  :class:`~ratenvs.common.options.OptionSpec`), ``reset`` / ``step``, bots
  played inside the kernel, finished games reset in place.
- The chance source of the kernels: one small counter-free generator
  (splitmix64) per game of the batch, so a game's dice and shuffles do not depend
  on the other games of the batch or on the batch size.
- The chance tape: any game of the batch can log every outcome it draws, in the
  reference game's own terms (a multinomial's counts, a permutation...), so that
  the log and the actions replayed through the reference ``Game`` with a
  :class:`~ratenvs.common.game.ChanceReplay` give the same game, step for step
  (the repository's ``tests/test_batched.py`` proves it for thousands of games).

Turn-based games (Catz, Ratz and Batz; Rat-a-Tat Cat) show the observation and
mask of the one seat to act in every game; a Ratto Zakko step is a tick with an
action for every seat (its engine overrides the shapes).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import numpy as np

from ratenvs.common.game import Game
from ratenvs.common.jit import carray, cgutils, intrinsic, njit, types
from ratenvs.common.options import check_seed

INT64_MAX = int(np.iinfo(np.int64).max)
"""The kernels hold every number in int64: no int option may exceed it."""


# ------------------------------------------------------------- borrowed arrays
@intrinsic
def _void_pointer(typingctx, address):  # type: ignore[no-untyped-def]
    """An integer address as a ``void *``."""

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(address), codegen


@njit(cache=True, inline="always")
def borrow(a: np.ndarray) -> np.ndarray:
    """``a`` (C-contiguous) as an array that holds no reference, for use inside a kernel:
    handing it to compiled helpers costs no atomic reference-count updates (``a`` itself
    stays alive, an argument of the kernel, for as long as the kernel runs). Profiling the
    Rat-a-Tat Cat kernel found 45% of its time in those updates."""
    return carray(_void_pointer(a.ctypes.data), a.shape, a.dtype)


# ------------------------------------------------------------------ lean calls
# A compiled call costs about 0.25 us for its first array argument and 0.08 us for each
# further one (numba unboxes every array), so a kernel of thirty arrays costs ~4 us a call
# before it does anything: most of a step at small batch sizes. A *lean call* hands the
# kernel one integer instead: the address of an int64 table that holds every argument,
# ``LEAN_SLOTS`` numbers each (an array: its address and shape; an int or bool: its value),
# from which a small compiled wrapper rebuilds the arguments (``lean_*`` below) and calls the
# kernel. The engine builds the table when its arrays are allocated and rebuilds it whenever
# one is replaced; the arrays stay alive as long as the engine holds them.
LEAN_SLOTS = 5
"""Numbers of the lean table per argument: an array's address and up to four dimensions."""


def lean_table(arguments: Sequence[Any]) -> np.ndarray:
    """The lean table of ``arguments`` (arrays, C-contiguous, at most 4 dimensions; ints;
    bools; tuples of them flattened in place), :data:`LEAN_SLOTS` numbers each."""
    flat: list[Any] = []
    for a in arguments:
        flat.extend(a if isinstance(a, tuple) else (a,))
    table = np.zeros(LEAN_SLOTS * len(flat), dtype=np.int64)
    for k, a in enumerate(flat):
        at = LEAN_SLOTS * k
        if isinstance(a, np.ndarray):
            if not a.flags.c_contiguous or a.ndim > LEAN_SLOTS - 1:
                raise ValueError("a lean call takes C-contiguous arrays of at most 4 dimensions")
            table[at] = a.ctypes.data
            table[at + 1 : at + 1 + a.ndim] = a.shape
        else:
            table[at] = int(a)
    return table


@njit(cache=True, inline="always")
def lean_open(address: int) -> np.ndarray:
    """The lean table at ``address`` (its length does not matter: entries are read by index)."""
    return carray(_void_pointer(address), (1 << 20,), np.int64)


@njit(cache=True, inline="always")
def lean_1d(t: np.ndarray, k: int, dtype: Any) -> np.ndarray:
    """Argument ``k`` of a lean table: a 1-D array of ``dtype``."""
    at = LEAN_SLOTS * k
    return carray(_void_pointer(t[at]), (t[at + 1],), dtype)


@njit(cache=True, inline="always")
def lean_2d(t: np.ndarray, k: int, dtype: Any) -> np.ndarray:
    """Argument ``k`` of a lean table: a 2-D array of ``dtype``."""
    at = LEAN_SLOTS * k
    return carray(_void_pointer(t[at]), (t[at + 1], t[at + 2]), dtype)


@njit(cache=True, inline="always")
def lean_3d(t: np.ndarray, k: int, dtype: Any) -> np.ndarray:
    """Argument ``k`` of a lean table: a 3-D array of ``dtype``."""
    at = LEAN_SLOTS * k
    return carray(_void_pointer(t[at]), (t[at + 1], t[at + 2], t[at + 3]), dtype)


@njit(cache=True, inline="always")
def lean_4d(t: np.ndarray, k: int, dtype: Any) -> np.ndarray:
    """Argument ``k`` of a lean table: a 4-D array of ``dtype``."""
    at = LEAN_SLOTS * k
    return carray(_void_pointer(t[at]), (t[at + 1], t[at + 2], t[at + 3], t[at + 4]), dtype)


@njit(cache=True, inline="always")
def lean_int(t: np.ndarray, k: int) -> int:
    """Argument ``k`` of a lean table: an int."""
    return t[LEAN_SLOTS * k]


@njit(cache=True, inline="always")
def lean_bool(t: np.ndarray, k: int) -> bool:
    """Argument ``k`` of a lean table: a bool."""
    return t[LEAN_SLOTS * k] != 0


class LeanState:
    """What a lean call needs between calls: the input array it takes (``key``, the engine's
    or picker's caller hands the same object again), the table of addresses and the
    table's own address. Held apart from the engine's own arrays (not an array attribute:
    two engines of the same games hold the same arrays, but not the same addresses)."""

    __slots__ = ("address", "key", "table")

    def __init__(self, key: Any, table: Any = None, address: int = 0) -> None:
        self.key = key
        self.table = table
        self.address = address


NO_LEAN = LeanState(object())
"""The lean state of an engine or picker that has no remembered input yet: its key is an
object of its own, which no caller can hand in (with ``None``, ``step(None)`` on a fresh
engine took the lean call at address 0 and crashed the process)."""


def lean_entry(wrapper: Any) -> Any:
    """The compiled entry point of a lean wrapper ``(address: int64) -> int64``: a call to it
    skips numba's dispatch on the argument's type (about 0.12 us a call against 0.25 us
    through the dispatcher). The dispatcher itself where numba keeps no such entry."""
    signature = (types.int64,)
    wrapper.compile(signature)
    try:
        return wrapper.overloads[signature].entry_point
    except (AttributeError, KeyError):  # pragma: no cover - depends on numba's internals
        return wrapper


# ------------------------------------------------------------------ chance
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0


@njit(cache=True, inline="always")
def next_u64(rng: np.ndarray, g: int) -> np.uint64:
    """The next 64 random bits of game ``g``'s generator (splitmix64)."""
    s = rng[g] + _GOLDEN
    rng[g] = s
    z = (s ^ (s >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def uniform(rng: np.ndarray, g: int) -> float:
    """A uniform float in [0, 1) with 53 random bits."""
    return float(np.int64(next_u64(rng, g) >> _S11)) * _INV53  # signed: one instruction


@njit(cache=True, inline="always")
def below(rng: np.ndarray, g: int, k: int) -> int:
    """A uniform integer in ``0 .. k-1``."""
    return int(uniform(rng, g) * k)


@njit(cache=True)
def normal(rng: np.ndarray, g: int) -> float:
    """A standard normal draw (Marsaglia's polar method, one value per call)."""
    while True:
        u = 2.0 * uniform(rng, g) - 1.0
        v = 2.0 * uniform(rng, g) - 1.0
        s = u * u + v * v
        if 0.0 < s < 1.0:
            return u * np.sqrt(-2.0 * np.log(s) / s)


@njit(cache=True)
def shuffle_into(rng: np.ndarray, g: int, out: np.ndarray, n: int) -> None:
    """``out[:n]`` becomes a uniform permutation of ``0 .. n-1`` (Fisher-Yates)."""
    for i in range(n):
        out[i] = i
    for i in range(n - 1, 0, -1):
        j = below(rng, g, i + 1)
        t = out[i]
        out[i] = out[j]
        out[j] = t


@njit(cache=True)
def _random_legal(mask: np.ndarray, rng: np.ndarray, out: np.ndarray) -> None:
    for g in range(mask.shape[0]):
        n = 0
        for a in range(mask.shape[1]):
            n += mask[g, a] != 0
        k = below(rng, g, n) if n > 0 else -1
        out[g] = -1
        for a in range(mask.shape[1]):
            if mask[g, a] != 0:
                if k == 0:
                    out[g] = a
                    break
                k -= 1


@njit(cache=True)
def _random_legal_lean(address: int) -> int:
    """:func:`_random_legal` with its arguments (mask, generators, out) read from the lean
    table at ``address``."""
    t = lean_open(address)
    _random_legal(lean_2d(t, 0, np.int8), lean_1d(t, 1, np.uint64), lean_1d(t, 2, np.int64))
    return -1


@njit(cache=True)
def first_illegal(mask: np.ndarray, actions: np.ndarray, active: np.ndarray) -> int:
    """The first game (where ``active``) whose action its mask forbids, or -1."""
    n = mask.shape[1]
    for g in range(actions.shape[0]):
        if not active[g]:
            continue
        a = actions[g]
        if a < 0 or a >= n or mask[g, a] == 0:
            return g
    return -1


class RandomActions:
    """Uniformly random legal actions for a whole batch at once (a compiled picker with its
    own generator per row): ``pick(mask)`` for masks shaped ``(num_envs, num_actions)``, or
    ``(..., num_actions)`` with ``num_envs`` rows in all (a simultaneous game's
    ``(games, seats, actions)``: the actions come back shaped ``(games, seats)``).

    A row with no legal action gets -1. The returned array is the picker's own, overwritten
    by the next call. A mask array picked from before (an engine's own ``mask`` buffer)
    takes a lean call (see *lean calls* above).
    """

    def __init__(self, num_envs: int, seed: int | None = None) -> None:
        self.rng = seed_generators(seed, num_envs, stream=STREAM_PICKER)
        self._out = np.zeros(num_envs, dtype=np.int64)
        self._lean = NO_LEAN
        self._shaped: Any = None
        self._call = lean_entry(_random_legal_lean)

    def pick(self, mask: np.ndarray) -> np.ndarray:
        lean = self._lean
        if mask is lean.key:
            self._call(lean.address)
            return self._shaped
        given = np.asarray(mask)
        rows = self._out.shape[0]
        if given.ndim < 2 or given.size != rows * given.shape[-1]:
            raise ValueError(f"mask must have {rows} rows of actions, got shape {given.shape}")
        flat = np.ascontiguousarray(given).reshape(rows, given.shape[-1])
        _random_legal(flat, self.rng, self._out)
        shaped = self._out.reshape(given.shape[:-1])
        if given is mask and mask.flags.c_contiguous and mask.dtype == np.int8:
            # remembered (the table names its memory): the next pick of it goes lean
            table = lean_table([flat, self.rng, self._out])
            self._shaped = shaped
            self._lean = LeanState(mask, table, int(table.ctypes.data))
        return shaped


STREAM_ENGINE = 1
STREAM_PICKER = 2


def seed_generators(seed: int | None, num_envs: int, stream: int = STREAM_ENGINE) -> np.ndarray:
    """One generator state per game, derived from ``seed`` (None: fresh entropy) and a
    stream number, so that an engine, a picker and ``numpy.random.default_rng`` given the
    same seed draw unrelated numbers."""
    sequence = np.random.SeedSequence(seed, spawn_key=(0x7A7, stream))
    return sequence.generate_state(num_envs, dtype=np.uint64)


# ---------------------------------------------------------- the chance tape
# A logged game writes its draws to its row of ``tape`` at ``cursor[slot]``:
#   EPISODE                       a new game starts (reset)
#   MULTINOMIAL n k c_1 .. c_k    counts of n draws over k equally likely outcomes
#   PERMUTATION n v_1 .. v_n      a permutation of 0 .. n-1
#   INTEGERS v                    an integer below the asked bound
#   NORMAL v                      one standard normal
#   NORMALS d s_1 .. s_d v_1 ..   standard normals of shape (s_1, .., s_d)
#   RANDOM v                      a uniform float
TAPE_EPISODE = -1.0
TAPE_MULTINOMIAL = 0.0
TAPE_PERMUTATION = 1.0
TAPE_INTEGERS = 2.0
TAPE_NORMAL = 3.0
TAPE_NORMALS = 4.0
TAPE_RANDOM = 5.0


@njit(cache=True, inline="always")
def tape_put(tape: np.ndarray, cursor: np.ndarray, slot: int, value: float) -> None:
    """Append one number to a logged game's row of the tape."""
    tape[slot, cursor[slot]] = value
    cursor[slot] += 1


def grown(tape: np.ndarray, need: int) -> np.ndarray:
    """``tape`` (a tape per row) with room for ``need`` numbers per row, doubled as often
    as needed; the tape itself when it already has the room."""
    cap = tape.shape[1]
    if need <= cap:
        return tape
    while cap < need:
        cap *= 2
    out = np.zeros((tape.shape[0], cap), dtype=tape.dtype)
    out[:, : tape.shape[1]] = tape
    return out


def decode_tape(row: np.ndarray) -> list[list[list[Any]]]:
    """A logged game's tape as chance logs, one per episode (``ChanceLog.draws`` format)."""
    episodes: list[list[list[Any]]] = []
    i, n = 0, len(row)
    while i < n:
        kind = row[i]
        if kind == TAPE_EPISODE:
            episodes.append([])
            i += 1
            continue
        if not episodes:
            raise ValueError("a chance tape must start with an episode marker")
        draws = episodes[-1]
        if kind == TAPE_MULTINOMIAL:
            k = int(row[i + 2])
            draws.append(["multinomial", [int(x) for x in row[i + 3 : i + 3 + k]]])
            i += 3 + k
        elif kind == TAPE_PERMUTATION:
            m = int(row[i + 1])
            draws.append(["permutation", [int(x) for x in row[i + 2 : i + 2 + m]]])
            i += 2 + m
        elif kind == TAPE_INTEGERS:
            draws.append(["integers", int(row[i + 1])])
            i += 2
        elif kind == TAPE_NORMAL:
            draws.append(["standard_normal", float(row[i + 1])])
            i += 2
        elif kind == TAPE_NORMALS:
            d = int(row[i + 1])
            shape = tuple(int(x) for x in row[i + 2 : i + 2 + d])
            size = int(np.prod(shape))
            start = i + 2 + d
            values = np.asarray(row[start : start + size], dtype=np.float64).reshape(shape)
            draws.append(["standard_normal", values.tolist()])
            i = start + size
        elif kind == TAPE_RANDOM:
            draws.append(["random", float(row[i + 1])])
            i += 2
        else:
            raise ValueError(f"corrupt chance tape: kind {kind} at {i}")
    return episodes


# ------------------------------------------------------------------ memory
MEMORY_MARGIN = 3
"""A batch may take this many times its engine's own arrays (:meth:`BatchedGame.bytes_per_game`):
the copies a door makes of what a step returns, the learner's buffers of as many games (the
vector door's peak memory, 20,000 games stepped: 1.1x to 2.7x its engine's arrays)."""


def memory_limit() -> int:
    """Bytes of memory a batch may use at most: the machine's physical memory, or, if
    smaller, the memory limit of the control group (container) this process runs in or the
    process's own address-space limit (``ulimit -v``)."""
    limit = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            limit = min(limit, int(text))
    try:
        import resource
    except ImportError:  # pragma: no cover - not on this platform (Windows)
        return int(limit)
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY and soft > 0:
        limit = min(limit, soft)
    return int(limit)


def _holds_a_bool(value: Any) -> bool:
    """A bool anywhere in nested lists or tuples (a mixed list's True would become 1)."""
    if isinstance(value, bool | np.bool_):
        return True
    if isinstance(value, list | tuple):
        return any(_holds_a_bool(v) for v in value)
    return False


def integers(name: str, value: Any, ndim: int | None = None) -> np.ndarray:
    """``value`` as an int64 array: integers only (Python or numpy ints, in a sequence or an
    array of ``ndim`` dimensions when given), else a ValueError naming ``name`` (a float, a
    bool, a string or a number beyond int64 is not silently converted)."""
    if not isinstance(value, np.ndarray) and _holds_a_bool(value):  # numpy reads True as 1
        raise ValueError(f"{name}: must be integers, got a bool")
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as exc:  # ragged
        raise ValueError(f"{name}: must be integers ({exc})") from None
    if array.size == 0 and array.dtype == np.float64:  # () or []: no integers at all
        array = array.astype(np.int64)
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{name}: must be integers, got {array.dtype} values")
    if array.dtype == np.uint64 and array.size and int(array.max()) > INT64_MAX:
        raise ValueError(f"{name}: must be integers of at most {INT64_MAX:,}")
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name}: must be {ndim}-dimensional, got {array.ndim} dimensions")
    return array.astype(np.int64, copy=False)


def _gigabytes(size: int) -> str:
    return f"{size / 1e9:,.1f} GB" if size >= 1e8 else f"{size / 1e6:,.1f} MB"


# ------------------------------------------------------------------ results
class BatchStep(NamedTuple):
    """What a batched ``step`` returns, every array led by the game index.

    For a game that ended in this step, ``terminated`` is True, ``rewards`` and
    ``returns`` are those of the game that ended, and ``observation`` / ``mask`` /
    ``to_act`` already show the first decision of the game that replaced it (the seats'
    observations of the game that ended are in the engine's ``final_obs``).
    """

    observation: np.ndarray
    """(num_envs, observation_size) float32: the acting seat's observation."""
    mask: np.ndarray
    """(num_envs, num_actions) int8: the acting seat's legal actions."""
    rewards: np.ndarray
    """(num_envs, num_players) float32: every seat's reward of this step."""
    terminated: np.ndarray
    """(num_envs,) bool: the game ended in this step (and was reset)."""
    to_act: np.ndarray
    """(num_envs,) int64: the seat to act now."""
    returns: np.ndarray
    """(num_envs, num_players) float32: every seat's return of the game so far (of the game
    that ended, where ``terminated``)."""


class BatchedGame:
    """Base of the batched engines: ``num_envs`` games of one game with the same options.

    Args:
        num_envs: games in the batch (>= 1; a ValueError when the batch's arrays would not
            fit in the machine's memory, :meth:`bytes_per_game` times
            :data:`MEMORY_MARGIN` each).
        seed: seeds every game's generator (None: fresh entropy, else an integer >= 0).
        log_games: indices of games whose chance outcomes go to the tape
            (:meth:`chance_logs`).
        **options: the game's options, checked like the AEC env's; an int option the game
            leaves unbounded must also fit the engine (:attr:`option_bounds`, int64).

    A game that ends is reset in place, in the same step; its seats' last observations
    stay in :attr:`final_obs`.

    Subclasses set ``game_class``, ``tape_per_step`` (most tape numbers a step may
    write for one game) and ``bot_names``, allocate their state arrays in
    :meth:`_allocate` and implement the kernels behind :meth:`_reset_games` and
    :meth:`_step_games` (which write ``final_obs`` for the games that end).
    """

    final_obs: np.ndarray
    """``(num_envs, num_players, observation_size)`` float32: where a step's (or
    ``set_bots``') ``terminated[g]`` is True, ``final_obs[g, seat]`` is the observation of
    the game that ended, seen from ``seat`` (its last observation, the reference observer's
    of the terminal position), for every seat whose actions the caller gives (negative in
    ``bots``); kept until that game ends again. Written only for games that end."""

    game_class: ClassVar[type[Game]]
    tape_per_step: ClassVar[int] = 64
    bot_names: ClassVar[tuple[str, ...]] = ()
    """Bots the kernel can play (``set_bots``), by index."""
    simultaneous: ClassVar[bool] = False
    """True for a game whose step takes an action from every seat (Ratto Zakko's ticks)."""
    EXTERNAL: ClassVar[int] = -1
    """``set_bots`` entry of a seat whose actions the caller gives."""
    option_bounds: ClassVar[Mapping[str, int]] = {}
    """The highest value the engine holds for an int option the game leaves unbounded
    (tables sized by it...); every int option is held in int64 in any case."""
    lean_wrapper: ClassVar[Any] = None
    """The engine's lean wrapper (see *lean calls* above): a compiled ``(address) -> code``
    that checks the external actions and plays a step from the arguments
    :meth:`_lean_arguments` lists; its code is -1 for a step played, else what
    :meth:`_lean_failed` reads (the first illegal action, before any game moved). None: every
    step takes the checked path."""

    def __init__(
        self,
        num_envs: int,
        *,
        seed: int | None = None,
        log_games: Sequence[int] = (),
        **options: Any,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer):
            raise TypeError(f"num_envs must be an int, got {num_envs!r}")
        if num_envs < 1:
            raise ValueError(f"num_envs must be >= 1, got {num_envs}")
        self.num_envs = int(num_envs)
        seed = check_seed(seed)
        self.game: Game = self.game_class(**options)
        self._check_bounds()
        self.options: dict[str, Any] = dict(self.game.params)
        self.num_players = self.game.num_players
        self.num_actions = self.game.num_actions
        self.observer = self.game.observer(self.game.observation_kind)
        self.observation_size = self.observer.size
        self.state_observer = self.game.observer("privileged")
        self.state_size = self.state_observer.size
        if isinstance(log_games, set | frozenset):
            log_games = sorted(log_games)  # a set of indices, as an array takes them
        logged = sorted({int(g) for g in integers("log_games", log_games, 1)})
        if any(not 0 <= g < self.num_envs for g in logged):
            raise ValueError(f"log_games must be game indices 0..{self.num_envs - 1}")
        self.log_games = tuple(logged)
        self._check_memory()
        self._allocate_all()
        self._seed = seed
        self._started = False
        self._lean = NO_LEAN
        self._lean_call = None if self.lean_wrapper is None else lean_entry(self.lean_wrapper)
        self.reset(seed=seed)

    def _allocate_all(self) -> None:
        """Every array of the batch: the seats' players, ``final_obs`` and the engine's own
        (:meth:`_allocate`)."""
        self.bots = np.full((self.num_envs, self.num_players), self.EXTERNAL, dtype=np.int64)
        self.next_bots = self.bots.copy()
        self._everybody = np.ones(self.num_envs, dtype=np.bool_)
        self._nobody = np.zeros(self.num_envs, dtype=np.bool_)
        self._no_actions = np.zeros(self.num_envs, dtype=np.int64)
        self.final_obs = np.zeros(
            (self.num_envs, self.num_players, self.observation_size), dtype=np.float32
        )
        self._allocate()

    def bytes_per_game(self) -> int:
        """Bytes of memory one game of the batch takes: its rows of every array the engine
        holds (measured by allocating a batch of one game and one of two), with the
        generator, rewards and returns :meth:`reset` adds. The batch itself is left as it
        was."""
        saved = dict(vars(self))
        held = []
        try:
            for probe in (1, 2):
                self.num_envs = probe
                self._allocate_all()
                held.append(sum(a.nbytes for a in vars(self).values() if isinstance(a, np.ndarray)))
        finally:
            vars(self).clear()
            vars(self).update(saved)
        # reset: a generator state (uint64), slot_of (int64), rewards and returns (float32
        # per seat), terminated (bool)
        return held[1] - held[0] + 8 + 8 + 2 * 4 * self.num_players + 1

    def _check_memory(self) -> None:
        """``num_envs`` games fit in this machine's memory (:func:`memory_limit`): the
        engine's arrays, counted :data:`MEMORY_MARGIN` times (the doors' copies of what a
        step returns, a learner's buffers); else a ValueError naming the limit."""
        per_game = self.bytes_per_game() * MEMORY_MARGIN
        limit = memory_limit()
        need = per_game * self.num_envs
        if need > limit:
            raise ValueError(
                f"num_envs={self.num_envs:,} needs about {_gigabytes(need)} of memory for "
                f"{type(self).__name__} ({per_game:,} bytes a game), more than this "
                f"machine's {_gigabytes(limit)}: at most {limit // per_game:,} games"
            )

    def _check_bounds(self) -> None:
        """Every int option within what the engine holds (a ValueError names the option)."""
        for name, option in self.game_class.options.items():
            value = self.game.params[name]
            if option.kind != "int" or value is None:
                continue
            high = min(self.option_bounds.get(name, INT64_MAX), INT64_MAX)
            if value > high:
                raise ValueError(
                    f"option {name!r} must be at most {high:,} in the batched engine "
                    f"{type(self).__name__}, got {value}"
                )

    # ------------------------------------------------------------ the doors
    def reset(self, seed: int | None = None) -> BatchStep:
        """Start every game anew (``seed``: reseed every generator, else keep drawing)."""
        seed = check_seed(seed)
        if seed is not None or not self._started:
            self.rng = seed_generators(self._seed if seed is None else seed, self.num_envs)
        self._started = True
        self.slot_of = np.full(self.num_envs, -1, dtype=np.int64)
        for slot, g in enumerate(self.log_games):
            self.slot_of[g] = slot
        self._tape_cap = max(4096, 8 * self.tape_per_step)
        self.tape = np.zeros((len(self.log_games), self._tape_cap), dtype=np.float64)
        self.cursor = np.zeros(len(self.log_games), dtype=np.int64)
        self.rewards = np.zeros((self.num_envs, self.num_players), dtype=np.float32)
        self.returns = np.zeros((self.num_envs, self.num_players), dtype=np.float32)
        self.terminated = np.zeros(self.num_envs, dtype=np.bool_)
        self._reset_games()
        self._out = BatchStep(
            self.obs, self.mask, self.rewards, self.terminated, self.to_act, self.returns
        )
        self._lean_build()
        return self._result()

    def step(
        self, actions: np.ndarray | Sequence[int], active: np.ndarray | None = None
    ) -> BatchStep:
        """Play ``actions[g]`` for the seat to act in every game ``g`` (then the kernel's
        bots, until an external seat must act); finished games are reset in place.

        ``active`` (bool per game): only those games move (the others' actions are
        ignored and they report no reward). The returned arrays are the engine's own
        buffers, overwritten by the next call: copy what you keep.

        An action array the engine has checked once (int64, C-contiguous, the batch's
        shape), given again with ``active=None``, takes the lean call: one compiled call
        that checks the actions against the masks and plays the step (the same checks, the
        same errors, the same games).
        """
        lean = self._lean
        if actions is lean.key and active is None:
            code = self._lean_call(lean.address)
            if code != -1:
                self._lean_failed(code, actions)
            return self._out
        return self._checked_step(actions, active)

    def _checked_step(self, actions: Any, active: np.ndarray | None) -> BatchStep:
        """:meth:`step` through Python's checks (and the lean call's door: a fitting
        action array is remembered, so that the next step with it goes lean)."""
        given = np.asarray(actions)
        if given.shape != (self.num_envs,) or not np.issubdtype(given.dtype, np.integer):
            raise ValueError(
                f"actions must be {self.num_envs} integers (one per game), "
                f"got {given.dtype} of shape {given.shape}"
            )
        # contiguous: the kernels borrow their arrays (see borrow); a uint64 beyond int64
        # turns negative, so it is refused below (the message quotes what was given)
        acts = np.ascontiguousarray(given, dtype=np.int64)
        lean = active is None and acts is actions
        if active is None:
            active = self._everybody
        else:
            active = np.asarray(active)
            if active.shape != (self.num_envs,) or active.dtype != np.bool_:
                raise ValueError(f"active must be {self.num_envs} bools (one per game)")
            active = np.ascontiguousarray(active)
        g = first_illegal(self.mask, acts, active)
        if g >= 0:
            self._illegal(g, given)
        self._grow_tape()
        self._step_games(acts, active)
        if lean:
            self._lean_register(acts)
        return self._result()

    def _illegal(self, code: int, given: np.ndarray) -> None:
        """Raise the ValueError of the first illegal action, ``code`` as
        :func:`first_illegal` gives it (a game's index)."""
        g = code
        raise ValueError(
            f"illegal action {int(given[g])} in game {g} (seat {int(self.to_act[g])}); "
            f"legal: {np.flatnonzero(self.mask[g]).tolist()}"
        )

    # ------------------------------------------------------------ lean calls
    def _lean_arguments(self, actions: np.ndarray) -> list[Any]:  # pragma: no cover - abstract
        """The lean wrapper's arguments, in its order, for external actions ``actions``."""
        raise NotImplementedError

    def _lean_failed(self, code: int, actions: np.ndarray) -> None:
        """A lean call's code other than -1: an illegal action (``code`` >= 0, nothing moved;
        raises as the checked path does). Engines whose wrapper can stop otherwise
        override this."""
        self._illegal(code, actions)

    def _lean_register(self, actions: np.ndarray) -> None:
        """Steps with ``actions`` (int64, C-contiguous, the batch's shape) go lean from now
        on; the table names the array, so the engine keeps it."""
        if self._lean_call is None or self.log_games:
            return
        self._lean = NO_LEAN
        table = lean_table(self._lean_arguments(actions))
        self._lean = LeanState(actions, table, int(table.ctypes.data))

    def _lean_build(self) -> None:
        """The lean table anew (after the engine replaced any of its arrays), for the action
        array in use, if any. Logged games (their tapes grow between steps) never go lean."""
        key, self._lean = self._lean.key, NO_LEAN
        if key is not NO_LEAN.key:
            self._lean_register(key)

    def set_bots(self, bots: np.ndarray | Sequence[Sequence[int]]) -> None:
        """Which seats the kernel plays: ``bots[g, seat]`` is an index of ``bot_names``, or
        a negative number (``EXTERNAL``, -1, or any tag below it a caller gives its own
        players) for a seat whose actions ``step`` takes. Takes effect at once (games whose
        acting seat is now a bot are played on) and for every later game."""
        b = self._check_bots(bots)
        self.bots[:] = b
        self.next_bots[:] = b
        self._play_bots()

    def set_next_bots(self, bots: np.ndarray | Sequence[Sequence[int]]) -> None:
        """The seats' players of every game's next game (taken when it resets): a new
        draw of opponents or seats per game, without touching the games in progress."""
        self.next_bots[:] = self._check_bots(bots)

    def _check_bots(self, bots: Any) -> np.ndarray:
        b = integers("bots", bots)
        if b.shape != (self.num_envs, self.num_players):
            raise ValueError(f"bots must have shape {(self.num_envs, self.num_players)}")
        if (b >= len(self.bot_names)).any():
            raise ValueError(
                f"bot indices must be negative (external) or 0..{len(self.bot_names) - 1}"
            )
        if not (b < 0).any(axis=1).all():
            raise ValueError("every game needs at least one external (negative) seat")
        return b

    def state_observation(self) -> np.ndarray:  # pragma: no cover - abstract
        """(num_envs, state_size) float32: the ``privileged`` observer's vector of every
        game (the whole truth, PettingZoo's ``state()``), for centralised critics."""
        raise NotImplementedError

    def bot_index(self, name: str) -> int:
        """The index of bot ``name`` for :meth:`set_bots`."""
        if name not in self.bot_names:
            raise ValueError(
                f"no batched bot {name!r} for {self.game.name}; choose one of {self.bot_names}"
            )
        return self.bot_names.index(name)

    def chance_logs(self, game: int) -> list[list[list[Any]]]:
        """Every chance outcome logged game ``game`` drew, one ``ChanceLog.draws`` list per
        episode (the last one is the game in progress)."""
        if game not in self.log_games:
            raise ValueError(f"game {game} is not logged; pass it in log_games")
        slot = self.log_games.index(game)
        return decode_tape(self.tape[slot, : self.cursor[slot]])

    # ------------------------------------------------------------ internals
    def _grow_tape(self) -> None:
        """Room on the tape for what the next steps may write (before every step)."""
        if self.log_games:
            self._tape_room(self.tape_per_step * 64)

    def _tape_room(self, room: int) -> None:
        """Grow the tape until every logged game has ``room`` free numbers."""
        self.tape = grown(self.tape, int(self.cursor.max()) + room)
        self._tape_cap = self.tape.shape[1]
        self._lean_build()

    def _result(self) -> BatchStep:
        return self._out

    def _allocate(self) -> None:  # pragma: no cover - abstract
        """Allocate the state arrays, ``obs``, ``mask`` and ``to_act``."""
        raise NotImplementedError

    def _reset_games(self) -> None:  # pragma: no cover - abstract
        """Start every game anew and play its opening bot moves."""
        raise NotImplementedError

    def _step_games(self, actions: np.ndarray, active: np.ndarray) -> None:  # pragma: no cover
        """Play ``actions`` in the games where ``active`` (then the bots; reset the ended)."""
        raise NotImplementedError

    def _play_bots(self) -> None:  # pragma: no cover - abstract
        """Play the kernel's bots in every game whose acting seat is one."""
        raise NotImplementedError


# ------------------------------------------------- more chance (appended for Ratto Zakko)
_ZIG_LAYERS = 256
_ZIG_R = 3.6541528853610088
"""Start of the normal's tail in the 256-layer ziggurat (Marsaglia & Tsang 2000)."""


def _ziggurat_tables() -> tuple[np.ndarray, np.ndarray]:
    """Layer edges ``x`` (x[0] = the base strip's virtual width, x[1] = r, ..., x[256] = 0)
    and ``f = exp(-x^2 / 2)`` at them, for :func:`normal_ziggurat`."""
    import math

    def f(x: float) -> float:
        return math.exp(-0.5 * x * x)

    r = _ZIG_R
    v = r * f(r) + math.sqrt(math.pi / 2.0) * math.erfc(r / math.sqrt(2.0))  # each layer's area
    x = np.zeros(_ZIG_LAYERS + 1)
    x[0] = v / f(r)
    x[1] = r
    for i in range(1, _ZIG_LAYERS - 1):
        x[i + 1] = math.sqrt(-2.0 * math.log(f(x[i]) + v / x[i]))
    x[_ZIG_LAYERS] = 0.0
    return x, np.array([f(t) for t in x])


_ZIG_X, _ZIG_F = _ziggurat_tables()
_LOW8 = np.uint64(0xFF)


@njit(cache=True, inline="always")
def exponential(rng: np.ndarray, g: int) -> float:
    """A standard exponential draw (mean 1): ``-log(1 - U)``."""
    return -np.log(1.0 - uniform(rng, g))


@njit(cache=True, inline="always")
def _mix(s: np.uint64) -> np.uint64:
    """splitmix64's output function (as :func:`next_u64`)."""
    z = (s ^ (s >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def _ziggurat_slow(s: np.uint64, i: int, u: float, x: float) -> tuple[float, np.uint64]:
    """The ziggurat's rare cases (a wedge, the tail) for :func:`normal_from`."""
    while True:
        if i == 0:  # the tail beyond r (Marsaglia 1964)
            while True:
                s = s + _GOLDEN
                t = -np.log(1.0 - float(_mix(s) >> _S11) * _INV53) / _ZIG_R
                s = s + _GOLDEN
                y = -np.log(1.0 - float(_mix(s) >> _S11) * _INV53)
                if 2.0 * y >= t * t:
                    break
            return (_ZIG_R + t if u >= 0.0 else -(_ZIG_R + t)), s
        s = s + _GOLDEN
        v = float(_mix(s) >> _S11) * _INV53
        if _ZIG_F[i] + v * (_ZIG_F[i + 1] - _ZIG_F[i]) < np.exp(-0.5 * x * x):
            return x, s
        s = s + _GOLDEN
        bits = _mix(s)
        i = int(bits & _LOW8)
        u = 2.0 * (float(bits >> _S11) * _INV53) - 1.0
        x = u * _ZIG_X[i]
        if abs(x) < _ZIG_X[i + 1]:
            return x, s


@njit(cache=True, inline="always")
def normal_from(s: np.uint64) -> tuple[float, np.uint64]:
    """A standard normal by the 256-layer ziggurat (Marsaglia & Tsang 2000) from a generator
    state ``s`` held in a local variable; returns the draw and the advanced state. For a run
    of draws in a kernel: ``s = rng[g]``, draw, ``rng[g] = s`` (about 3x faster than going
    through the array each time; the same draws as :func:`normal_ziggurat`). One 64-bit draw
    for 98.5% of the values: the layer from the low 8 bits, a uniform in [-1, 1) from the
    high 53."""
    s = s + _GOLDEN
    bits = _mix(s)
    i = int(bits & _LOW8)
    u = 2.0 * (float(bits >> _S11) * _INV53) - 1.0
    x = u * _ZIG_X[i]
    if abs(x) < _ZIG_X[i + 1]:
        return x, s
    return _ziggurat_slow(s, i, u, x)


@njit(cache=True)
def normal_ziggurat(rng: np.ndarray, g: int) -> float:
    """A standard normal draw of game ``g`` by the ziggurat (:func:`normal_from`; a few
    times faster than :func:`normal`)."""
    x, rng[g] = normal_from(rng[g])
    return x
