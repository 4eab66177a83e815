"""The game-specific pieces of training, behind one table.

The generic modules of ``training/`` (the config, the env factory, the evaluator, the
training loop) know no game by name. What a game adds to its training is a
:class:`GameHooks`, looked up by the game's package name with :func:`hooks_for`; each
game's hooks live in ``training/games/<game>.py`` (imported on first use), which
exposes ``HOOKS = GameHooks(...)``. A game of ``ratenvs.games.GAMES`` without such a
module trains with no extras (empty hooks).

Every piece is optional:

- ``exact_grade``: an exact grade of an agent, added to every evaluation.
- ``tracker``: counts of the evaluated seat's play, summed next to the win rate.
- ``reward_shapings``: the training-only reward shapings the game offers, by their name
  under the config's ``reward_shaping:`` section.
- ``appended_options``: env options whose observation entries come after all the others
  (a checkpoint trained without them is widened when resumed with them).
- ``default_metric``: what ``eval.metric: auto`` means for the game, when not the
  generic rule.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    import gymnasium as gym

    from training.config import TrainConfig

GAMES_PACKAGE = "training.games"


@dataclass(frozen=True)
class RewardShaping:
    """A training-only reward shaping, configured as ``reward_shaping.<name>: {options}``.

    Evaluation never sees it (it wraps the training env only).
    """

    options: type
    """Dataclass of the shaping's options, validated strictly like the rest of the config
    (an unknown key or a wrong type names ``reward_shaping.<name>.<key>``)."""
    wrap: Callable[[gym.Env, Any], gym.Env]
    """``wrap(env, options)``: the training env with the shaping (a picklable callable)."""
    check: Callable[[Any, TrainConfig], None] | None = None
    """``check(options, cfg)`` raises a ConfigError (naming the dotted key) when the options
    do not fit the config (ranges, env options the shaping needs)."""
    scaled: bool = True
    """True: applied inside ``algorithm.reward_scale`` (the shaping is scaled with the
    game's reward); False: added after the scaling."""
    summary: str = ""
    """One line for error messages and docs."""
    batched: Callable[[Any, Any, Any], Any] | None = None
    """``batched(venv, door, options)``: the same shaping for ``vec_env: batched`` runs, a
    stable-baselines3 ``VecEnv`` around ``venv`` (all the games of the batch at once);
    ``door`` is the run's :class:`~ratenvs.wrappers.batched_vector.BatchedVectorEnv`, whose
    engine it may read. None: the shaping has no batched form (such a config is refused)."""


@dataclass(frozen=True)
class Migration:
    """One step of a game's env version (``python -m training.migrate``): the observation
    pieces it inserted, by their names in the new observer (the checkpoint gets zero
    input weights at their offsets)."""

    from_version: int
    to_version: int
    inserted_pieces: tuple[str, ...]
    why: str


@dataclass(frozen=True)
class GameHooks:
    """The game-specific pieces of training of one game (each optional)."""

    game: str
    """Package name of the game (``ratenvs/games.py``)."""
    exact_grade: Callable[[Any, dict[str, Any]], dict[str, float]] | None = None
    """``exact_grade(agent, env_options)``: exact figures of the agent (a Bot or a
    PolicyBot), merged into every evaluation."""
    tracker: Callable[[int], Any] | None = None
    """``tracker(seat)``: an object with ``after_step(state)`` (the game's state after every
    step) and ``counts`` (a dict of floats), made for every evaluation game; the counts are
    summed over the games."""
    reward_shapings: Mapping[str, RewardShaping] = field(default_factory=dict)
    """Shapings by name (applied in this order: the scaled ones, then the others)."""
    appended_options: tuple[str, ...] = ()
    """Env options that append observation entries after all the others."""
    migrations: tuple[Migration, ...] = ()
    """The steps between the game's env versions (``training.migrate``)."""
    exact_metrics_needing: Mapping[str, Callable[[dict[str, Any]], str | None]] = field(
        default_factory=dict
    )
    """Exact figures the grade gives only for some env options: figure -> ``check(env_options)``,
    which says what the figure needs (None: the options give it); a config choosing the
    figure as ``eval.metric`` with other options is refused."""
    default_metric: Callable[[dict[str, Any]], str | None] | None = None
    """``default_metric(env_options)``: the ``eval.metric: auto`` figure, or None for the
    generic rule (win rate with several players, else mean reward)."""


_REGISTRY: dict[str, GameHooks] = {}


def hooks_for(game: str) -> GameHooks:
    """The training hooks of ``game`` (a package name of ``ratenvs.games.GAMES``).

    Raises ValueError for a game that is not in the table.
    """
    hooks = _REGISTRY.get(game)
    if hooks is not None:
        return hooks
    from ratenvs.games import GAMES

    if game not in GAMES:
        raise ValueError(f"no training hooks: unknown game {game!r}; choose one of {sorted(GAMES)}")
    name = f"{GAMES_PACKAGE}.{game}"
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        hooks = GameHooks(game)
    else:
        hooks = module.HOOKS
        if not isinstance(hooks, GameHooks) or hooks.game != game:
            raise TypeError(f"{name}.HOOKS must be GameHooks(game={game!r}, ...)")
    _REGISTRY[game] = hooks
    return hooks


def require_positive(value: float, key: str) -> None:
    """A shaping's strength must be > 0: a ConfigError naming ``key`` otherwise (to turn a
    shaping off, leave it out of the config)."""
    from training.config import ConfigError

    if not value > 0:
        raise ConfigError(f"{key}: must be > 0, got {value} (leave the shaping out to turn it off)")
