"""The one Game interface under every game, and its explicit chance source.

A :class:`Game` holds a game's parameters (its options, checked against one
:class:`~ratenvs.common.options.OptionSpec`) and its rules over a plain
``State``; it never holds a state itself. The env, the parallel env, the
play harness, bots, records and the batched engines all drive a game through
these methods only (the model is Pgx's ``Game`` and OpenSpiel's python games):

- ``init(rng)``: a new game (the deal, the first card...).
- ``to_act(state)``: the seats that act now: one seat in a turn-based game, every
  seat still answering in a Ratto Zakko tick; empty once the game is over.
- ``legal_mask(state, seat)``: int8 mask of the seat's legal actions.
- ``apply(state, actions, rng, infos)``: play ``{seat: action}`` for every seat of
  ``to_act`` at once; returns this step's reward per seat (None: all zero).
- ``is_terminal(state)``, ``winners(state)``, ``to_json(state)``.
- ``observer(kind)``: what a seat may see (:mod:`ratenvs.common.observer`).

Chance: every random outcome a step draws (dice faces, a shuffle, a glimpse)
comes from the ``rng`` argument through the few Generator methods of
:class:`Chance`. A plain ``numpy.random.Generator`` is one; :class:`ChanceLog`
draws from a generator and records what it drew, and :class:`ChanceReplay` plays
a recorded log back instead of drawing, so a game replayed from its log is
identical whatever generator produced it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol

import numpy as np

from ratenvs.common.options import OptionSpec

Actions = Mapping[int, int]
"""One step's actions: seat -> action, for every seat of ``to_act``."""
Infos = dict[int, dict[str, Any]]
"""Facts a step reports, seat -> info dict."""
Rewards = Sequence[float] | None
"""One step's reward per seat (None: nobody is rewarded)."""


class Chance(Protocol):
    """The random draws a game's rules may make (a subset of ``numpy.random.Generator``)."""

    def multinomial(self, n: int, pvals: Any) -> np.ndarray: ...

    def permutation(self, n: int) -> np.ndarray: ...

    def integers(self, high: int) -> Any: ...

    def standard_normal(self, size: Any = None) -> Any: ...

    def random(self) -> float: ...


def _plain(value: Any) -> Any:
    """A drawn value as JSON-ready data (floats keep every bit through ``repr``)."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    return value


class ChanceLog:
    """Draws from ``rng`` exactly as the rules ask and records every outcome, in order.

    ``draws`` is a JSON-ready list of ``[kind, value]`` pairs; feed it to
    :class:`ChanceReplay` to replay the same outcomes.
    """

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.draws: list[list[Any]] = []

    def _keep(self, kind: str, value: Any) -> Any:
        self.draws.append([kind, _plain(value)])
        return value

    def multinomial(self, n: int, pvals: Any) -> np.ndarray:
        return self._keep("multinomial", self.rng.multinomial(n, pvals))

    def permutation(self, n: int) -> np.ndarray:
        return self._keep("permutation", self.rng.permutation(n))

    def integers(self, high: int) -> Any:
        return self._keep("integers", self.rng.integers(high))

    def standard_normal(self, size: Any = None) -> Any:
        return self._keep("standard_normal", self.rng.standard_normal(size))

    def random(self) -> float:
        return self._keep("random", self.rng.random())


class ChanceReplayError(ValueError):
    """A replayed game asked for a draw its chance log does not hold (or of another kind)."""


class ChanceReplay:
    """Plays back the outcomes of a :class:`ChanceLog` instead of drawing.

    Each call must match the next recorded draw's kind (and shape); anything else
    is a :class:`ChanceReplayError`: the log belongs to another game.
    """

    def __init__(self, draws: Sequence[Sequence[Any]]) -> None:
        self.draws = [tuple(d) for d in draws]
        self.position = 0

    def _next(self, kind: str) -> Any:
        if self.position >= len(self.draws):
            raise ChanceReplayError(f"the chance log ran out at draw {self.position} ({kind})")
        got, value = self.draws[self.position]
        if got != kind:
            raise ChanceReplayError(
                f"draw {self.position}: the game asked for {kind}, the log holds {got}"
            )
        self.position += 1
        return value

    def _next_ints(self, kind: str) -> np.ndarray:
        """The next draw as 64-bit integers (a value that is none, or too large, is a
        :class:`ChanceReplayError`)."""
        value = self._next(kind)
        try:
            return np.asarray(value, dtype=np.int64)
        except (OverflowError, TypeError, ValueError):
            raise ChanceReplayError(
                f"draw {self.position - 1}: {kind} values must be 64-bit integers"
            ) from None

    @property
    def exhausted(self) -> bool:
        """Every recorded draw has been replayed."""
        return self.position == len(self.draws)

    def multinomial(self, n: int, pvals: Any) -> np.ndarray:
        out = self._next_ints("multinomial")
        if out.shape != (len(pvals),) or int(out.sum()) != n:
            raise ChanceReplayError(f"draw {self.position - 1}: not a multinomial of {n}")
        return out

    def permutation(self, n: int) -> np.ndarray:
        out = self._next_ints("permutation")
        if out.shape != (n,) or not np.array_equal(np.sort(out), np.arange(n)):
            raise ChanceReplayError(f"draw {self.position - 1}: not a permutation of {n}")
        return out

    def integers(self, high: int) -> np.int64:
        drawn = self._next_ints("integers")
        if drawn.shape != ():
            raise ChanceReplayError(f"draw {self.position - 1}: not one integer")
        value = int(drawn)
        if not 0 <= value < high:
            raise ChanceReplayError(f"draw {self.position - 1}: {value} not below {high}")
        return np.int64(value)

    def _next_reals(self, kind: str) -> np.ndarray:
        """The next draw as finite 64-bit reals (anything else is a
        :class:`ChanceReplayError`)."""
        value = self._next(kind)
        try:
            out = np.asarray(value, dtype=np.float64)
        except (OverflowError, TypeError, ValueError):
            out = None
        if out is None or not np.isfinite(out).all():
            raise ChanceReplayError(f"draw {self.position - 1}: {kind} values must be real numbers")
        return out

    def standard_normal(self, size: Any = None) -> Any:
        out = self._next_reals("standard_normal")
        if size is None:
            if out.shape != ():
                raise ChanceReplayError(f"draw {self.position - 1}: not one real number")
            return float(out)
        if out.shape != tuple(np.atleast_1d(size)):
            raise ChanceReplayError(f"draw {self.position - 1}: shape {out.shape}, not {size}")
        return out

    def random(self) -> float:
        out = self._next_reals("random")
        if out.shape != () or not 0.0 <= float(out) < 1.0:
            raise ChanceReplayError(f"draw {self.position - 1}: not one real in [0, 1)")
        return float(out)


class Game:
    """A game's parameters and rules over a plain ``State`` (see the module docstring).

    Subclasses set ``name``, ``title``, ``options`` (their :class:`OptionSpec`) and
    ``observer_kinds``, and implement the rules. ``Game(**options)`` checks the
    options; ``params`` holds the checked values (what a record stores).
    """

    name: ClassVar[str] = "game"
    """The package name, e.g. ``catz_ratz_batz``."""
    version: ClassVar[int] = 0
    """The env version (PettingZoo's ``<name>_v<version>``): raised whenever the same
    seed and actions can give another game or other observations."""
    title: ClassVar[str] = "Game"
    options: ClassVar[OptionSpec] = OptionSpec()
    observer_kinds: ClassVar[tuple[str, ...]] = ("privileged",)
    """Kinds :meth:`observer` builds; ``"privileged"`` (the whole truth) is always one."""
    has_hidden_information: ClassVar[bool] = True
    """False for a game whose every fact is public (the leak check has nothing to vary)."""
    observation_kind: str = "knowledge"
    """The observer kind the envs observe with (a game may take it from an option)."""

    num_players: int
    num_actions: int

    def __init__(self, **options: Any) -> None:
        self.params: dict[str, Any] = self.options.check(options)
        self.num_players = int(self.params.get("num_players", 1))
        self._observers: dict[str, Any] = {}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.params == self.params  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), tuple(sorted(self.params.items(), key=lambda kv: kv[0]))))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_game, (type(self), self.params))

    # -------------------------------------------------------------- the rules
    def init(self, rng: Chance) -> Any:  # pragma: no cover - abstract
        """A new game, with every random outcome of the set-up drawn from ``rng``."""
        raise NotImplementedError

    def to_act(self, state: Any) -> tuple[int, ...]:  # pragma: no cover - abstract
        """The seats that must act now, in seat order (empty once the game is over)."""
        raise NotImplementedError

    def legal_mask(self, state: Any, seat: int) -> np.ndarray:  # pragma: no cover - abstract
        """int8 mask of ``seat``'s legal actions (all zero if it is not to act)."""
        raise NotImplementedError

    def apply(
        self, state: Any, actions: Actions, rng: Chance, infos: Infos | None = None
    ) -> Rewards:  # pragma: no cover - abstract
        """Play one legal action for every seat of ``to_act(state)``; returns this step's
        reward per seat (None: nobody is rewarded). Facts a step reports to a seat (a
        turn's score...) go into ``infos[seat]`` when ``infos`` is given."""
        raise NotImplementedError

    def is_terminal(self, state: Any) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def winners(self, state: Any) -> list[bool]:  # pragma: no cover - abstract
        """Who won (ties share the win); meaningful once the game is over."""
        raise NotImplementedError

    def step_winners(self, state: Any, rewards: Sequence[float], infos: Infos) -> list[bool]:
        """Who won the stretch of play that a rewarded step ended before the game's end (a
        search's ``horizon="reward"`` play-out stops there): by default the seats with the
        highest reward of the step; ``infos`` is what the step reported. A game whose
        rewards at such a step do not rank the seats (Rat-a-Tat Cat's ``"win"`` mode)
        judges by what they say (the round's points)."""
        best = max(rewards)
        return [r == best for r in rewards]

    def to_json(self, state: Any) -> dict[str, Any]:  # pragma: no cover - abstract
        """The whole truth as JSON-ready data (for records, replays and debugging)."""
        raise NotImplementedError

    def resample(self, state: Any, seat: int, rng: np.random.Generator) -> Any:
        """A state that agrees with everything ``seat`` knows, with everything it does not
        know drawn anew (determinization for search, and the leak tests)."""
        raise NotImplementedError(f"{self.name} has no resampler")

    def waiting_mask(self, state: Any, seat: int) -> np.ndarray:
        """The mask the parallel env shows a live seat that does not act now (default: all
        zero; Ratto Zakko: wait only, the action its ``default_action`` plays)."""
        return np.zeros(self.num_actions, dtype=np.int8)

    def default_action(self, state: Any, seat: int) -> int | None:
        """The action the parallel env plays for a seat that gives none or an illegal one
        (Ratto Zakko: wait); None: such an action is an error."""
        return None

    # ------------------------------------------------------------- observers
    def observer(self, kind: str) -> Any:
        """The observer of ``kind`` (one of ``observer_kinds``), built once per game."""
        obs = self._observers.get(kind)
        if obs is None:
            if kind not in self.observer_kinds:
                raise ValueError(
                    f"unknown observer kind {kind!r} for {self.name}; "
                    f"choose one of {self.observer_kinds}"
                )
            obs = self._observers[kind] = self.make_observer(kind)
        return obs

    def make_observer(self, kind: str) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError


def _rebuild_game(cls: type[Game], params: dict[str, Any]) -> Game:
    return cls(**params)
