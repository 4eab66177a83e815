"""The one small protocol every scripted player follows, and its extension for search bots.

A :class:`Bot` decides from what its seat may see: ``act(observation, action_mask,
rng)``. A search bot (:class:`StateBot`, e.g. :mod:`ratenvs.common.search`) needs more:
a game to imagine the rest of the table with. The harness that holds the game's state
(:func:`ratenvs.common.play.play_game`, and everything that plays through it: the
evaluator, tournaments) then calls ``bind_game(game, seat)`` once before play and
``act_in_state(state, seat, action_mask, rng)`` instead of ``act`` at each of the seat's
decisions. Such a bot reads ``state`` only through ``game.resample(state, seat, rng)``, a
state dealt anew from everything the seat knows (the leak tests prove that a resample
carries nothing the seat cannot know), so it sees no more than a plain bot. The one
other kind of StateBot, :class:`OwnView`, passes the state to an observer only (a plain
bot seeing the table with its own view options).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Bot(Protocol):
    """A player that chooses an action from what its seat may see.

    ``observation`` is the flat float32 vector of the env's
    ``{"observation", "action_mask"}`` dict, ``action_mask`` the int8 mask,
    and ``rng`` the generator the bot must use for every random choice (so a
    seeded game is reproducible).
    """

    name: str

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """Return a legal action index."""
        ...


@runtime_checkable
class StateBot(Protocol):
    """A bot that searches from the game's state, read only through ``game.resample``.

    ``bind_game(game, seat)`` gives it the :class:`~ratenvs.common.game.Game` it plays
    (called by the harness before play; ``seat`` is where it sits, and the ``seat`` of
    each ``act_in_state`` call is the one it decides for). ``act_in_state(state, seat,
    action_mask, rng)`` returns a legal action; the bot must pass ``state`` to nothing but
    ``game.resample(state, seat, rng)`` and must draw every random number from ``rng``.
    Its plain ``act`` raises :class:`GameStateRequired`.
    """

    name: str

    def bind_game(self, game: Any, seat: int) -> None: ...

    def act_in_state(
        self, state: Any, seat: int, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int: ...


class GameStateRequired(RuntimeError):
    """A search bot (:class:`StateBot`) was asked to act from an observation alone."""


def searches_state(bot: Any) -> bool:
    """Whether ``bot`` is a :class:`StateBot` (it has ``act_in_state``): the harness then
    calls ``bind_game`` and ``act_in_state`` instead of ``act``."""
    return callable(getattr(bot, "act_in_state", None))


def bind_bots(bots: Sequence[Any], game: Any, observer: Any) -> None:
    """Before play: ``bind(observer)`` every bot that reads named pieces, and
    ``bind_game(game, seat)`` every search bot (:class:`StateBot`) in its seat."""
    for seat, bot in enumerate(bots):
        bind = getattr(bot, "bind", None)
        if bind is not None:
            bind(observer)
        bind_game = getattr(bot, "bind_game", None)
        if bind_game is not None:
            bind_game(game, seat)


def with_own_view(bot: Any, game: Any) -> Any:
    """``bot`` seated at a table of ``game``: as it is, or in an :class:`OwnView` when it
    sees with values of the game's view options the table does not show, seeing the
    table's play with them, as evaluations seat it: those its class declares
    (``view_options``: the Rat-a-Tat Cat ``ceiling`` bot reads the ``owner_ceilings``
    piece), or for a policy with a card (a :class:`~ratenvs.agents.checkpoint.PolicyBot`
    of :func:`ratenvs.agents.load`: its ``game`` and ``env_options``) the card's.

    A policy's card must be of ``game`` and of the table's rules (every option but the
    view ones: an agent trained for 100 points does not play the one-round game); else a
    ValueError saying what differs. A bot whose ``env_options`` is None has no card."""
    view = _card_view(bot, game)
    wanted = dict(getattr(type(bot), "view_options", None) or {}) if view is None else view
    if not wanted or all(game.params.get(k) == v for k, v in wanted.items()):
        return bot
    return OwnView(bot, type(game)(**{**game.params, **wanted}))


def _card_view(bot: Any, game: Any) -> dict[str, Any] | None:
    """The view options of ``bot``'s card (None: no card), once the card is found to be of
    ``game`` and of the rules of its table (else a ValueError)."""
    card = getattr(bot, "env_options", None)
    if isinstance(bot, type) or not isinstance(card, Mapping):
        return None
    name = str(getattr(bot, "name", type(bot).__name__))
    played = getattr(bot, "game", None)
    if isinstance(played, str) and played != game.name:
        raise ValueError(f"agent {name!r} plays {played}, not {game.name}")
    options = type(game).options
    mine = type(game)(**card).params  # as the game completes them (e.g. rounds)
    table = options.rules_of(game.params)
    differ = [k for k, v in options.rules_of(mine).items() if table[k] != v]
    if differ:
        raise ValueError(
            f"agent {name!r} was trained for {game.name} with {dict(card)}; this table plays "
            + ", ".join(f"{k}={table[k]!r} (its card: {mine[k]!r})" for k in differ)
            + ": make the env with the card's options (only the view options "
            f"{list(options.view_options())} may differ)"
        )
    return {k: mine[k] for k in options.view_options()}


class OwnView:
    """A bot that sees the table with its own values of the game's ``view_only`` options
    (:class:`~ratenvs.common.options.Option`): an agent trained with the ``answer_beliefs``
    piece, another prior, the ``owner_ceilings`` piece or another reward playing at a
    table whose env shows something else. The play is the table's; only the observation
    differs, built by ``game``'s observer (the seat filter: it holds what the seat may
    see and nothing more).

    It is a :class:`StateBot` for the harness: ``bind_game`` checks that the table plays
    the rules of ``game`` (else a ValueError naming the options that differ), and
    ``act_in_state`` hands the wrapped bot ``game``'s observation of the state. The state
    goes to that observer only.
    """

    def __init__(self, bot: Bot, game: Any) -> None:
        if searches_state(bot):
            raise TypeError(f"OwnView wraps a bot that acts on observations, not {bot!r}")
        self.bot = bot
        self.game = game
        self.name = str(getattr(bot, "name", type(bot).__name__))
        self.view = game.observer(game.observation_kind)
        bind = getattr(bot, "bind", None)
        if bind is not None:
            bind(self.view)

    def bind_game(self, game: Any, seat: int) -> None:
        options = type(self.game).options
        mine = options.rules_of(self.game.params)
        table = options.rules_of(game.params) if type(game) is type(self.game) else None
        if table is None or mine != table:
            differ = (
                "the game"
                if table is None
                else ", ".join(
                    f"{k}={table[k]!r} (its own {v!r})" for k, v in mine.items() if table[k] != v
                )
            )
            raise ValueError(
                f"bot {self.name!r} sees {self.game.name} with {self.game.params}; the table "
                f"plays other rules: {differ} (only view options may differ: "
                f"{list(options.view_options())})"
            )

    def act_in_state(
        self, state: Any, seat: int, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        return int(self.bot.act(self.view.observe(state, seat), action_mask, rng))

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        raise GameStateRequired(
            f"bot {self.name!r} sees the table with its own view options: a harness must "
            "hand it the state (play_game, the evaluator, tournaments and play commands do)"
        )


class RandomBot:
    """Plays a uniformly random legal action."""

    name = "random"

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action in the action mask")
        return int(legal[rng.integers(legal.size)])

    def action_probs(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The exact distribution of :meth:`act` (uniform over legal actions)."""
        mask = np.asarray(action_mask, dtype=np.float64)
        return mask / mask.sum()


def make_bot(name: str, registry: dict[str, type], game: str) -> Bot:
    """Build the bot called ``name`` from a game's bot registry, or raise a ValueError."""
    try:
        return registry[name]()
    except KeyError:
        raise ValueError(
            f"unknown bot {name!r} for {game}; choose one of {sorted(registry)}"
        ) from None


def opponent_bots(
    names: Sequence[str] | None, count: int, default: str, get_bot: Callable[[str], Bot]
) -> tuple[list[str], list[Bot]]:
    """Names and bots for ``count`` other seats: ``names`` (one per seat) or ``default`` for all.

    Raises a ValueError when the number of names is wrong or a name is unknown.
    """
    chosen = list(names) if names else [default] * count
    if len(chosen) != count:
        raise ValueError(f"--bots needs {count} names, got {len(chosen)}")
    return chosen, [get_bot(n) for n in chosen]
