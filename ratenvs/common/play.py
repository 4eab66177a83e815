"""``play_game``: the one harness that plays a whole game between bots, with one seeding rule.

Evaluation, records, the benchmark, warm starts, the CLI and the studies all
play games through :func:`play_game`, so "seed 7 with these bots" is the same
game everywhere. The seeding rule (:func:`seed_streams`):

- chance (the deal, dice, glimpses) draws from ``seeding.np_random(seed)``, the
  generator ``env.reset(seed=seed)`` uses, so the game's chance is the env's;
- seat ``i``'s bot draws from its own stream, ``default_rng([seed, 1, i])``, so
  one bot's random choices never shift another's.

A search bot (:class:`~ratenvs.common.bots.StateBot`, e.g. ``ismcts``) is bound to the
game (``bind_game(game, seat)``) and decides with ``act_in_state(state, seat, mask, rng)``,
reading the state only through ``game.resample`` (what the seat may know); every other
bot decides with ``act(observation, mask, rng)``.

The actions come in the AEC env's order (seats of a simultaneous step in seat
order), so ``(seed, options, actions)`` replays in ``raw_env`` exactly
(:mod:`ratenvs.common.record`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium.utils import seeding

from ratenvs.common.aec import IllegalActionError
from ratenvs.common.bots import Bot, bind_bots, searches_state
from ratenvs.common.game import Chance, ChanceLog, Game

StepHook = Callable[[Game, Any, dict[int, int], Sequence[float] | None], None]
"""Called after every step with the game, the state after it, the actions and the rewards."""


def seed_streams(
    seed: int, num_players: int
) -> tuple[np.random.Generator, list[np.random.Generator]]:
    """The chance generator and one generator per seat's bot for ``seed`` (the one rule; an
    integer >= 0: anything else, a bool, a float, a string, None, is a ValueError)."""
    seed = game_seed(seed)
    chance, _ = seeding.np_random(seed)
    return chance, [np.random.default_rng([seed, 1, seat]) for seat in range(num_players)]


def game_seed(seed: Any, name: str = "a game's seed") -> int:
    """``seed`` as a game's seed: an integer >= 0 (Python or numpy); nothing is coerced, and
    anything else is a ValueError naming ``name`` and the value."""
    integer = isinstance(seed, int | np.integer) and not isinstance(seed, bool | np.bool_)
    if not integer or seed < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {seed!r}")
    return int(seed)


@dataclass
class PlayedGame:
    """What :func:`play_game` returns: the game's actions, results and (optionally) chance."""

    seed: int
    actions: list[int]
    """Every action in the AEC env's order."""
    returns: list[float]
    """Each seat's rewards summed over the game."""
    winners: list[bool]
    state: Any
    """The final state."""
    chance: list[list[Any]] | None = None
    """The chance log (``record_chance=True``): replay it with ``ChanceReplay``."""


def play_game(
    game: Game,
    bots: Sequence[Bot],
    seed: int,
    *,
    record_chance: bool = False,
    observer: str | None = None,
    on_step: StepHook | None = None,
    chance: Chance | None = None,
) -> PlayedGame:
    """Play a whole game with ``bots[i]`` in seat ``i``; the seeding rule is :func:`seed_streams`.

    ``observer`` picks the observer kind the bots see (default: the game's);
    ``chance`` replaces the seeded chance generator (e.g. a ``ChanceReplay``). A search
    bot (``act_in_state``) decides from the state through ``game.resample`` only.
    A bot's illegal action is an :class:`IllegalActionError` naming the seat.
    """
    n = game.num_players
    if len(bots) != n:
        raise ValueError(f"{len(bots)} bots for a {n}-seat game")
    seed = game_seed(seed)
    chance_rng, bot_rngs = seed_streams(seed, n)
    log = None
    if chance is None:
        chance = chance_rng
        if record_chance:
            chance = log = ChanceLog(chance_rng)
    view = game.observer(observer or game.observation_kind)
    bind_bots(bots, game, view)
    search = [searches_state(bot) for bot in bots]
    state = game.init(chance)
    actions: list[int] = []
    returns = [0.0] * n
    while not game.is_terminal(state):
        chosen: dict[int, int] = {}
        for seat in game.to_act(state):
            mask = game.legal_mask(state, seat)
            if search[seat]:
                action = int(bots[seat].act_in_state(state, seat, mask, bot_rngs[seat]))
            else:
                action = int(bots[seat].act(view.observe(state, seat), mask, bot_rngs[seat]))
            if not (0 <= action < len(mask) and mask[action]):
                raise IllegalActionError(
                    f"seat {seat}'s bot {getattr(bots[seat], 'name', bots[seat])!r} chose "
                    f"illegal action {action}; legal: {np.flatnonzero(mask).tolist()}"
                )
            chosen[seat] = action
            actions.append(action)
        rewards = game.apply(state, chosen, chance)
        if rewards is not None:
            for i, r in enumerate(rewards):
                returns[i] += float(r)
        if on_step is not None:
            on_step(game, state, chosen, rewards)
    return PlayedGame(
        seed=seed,
        actions=actions,
        returns=returns,
        winners=list(game.winners(state)),
        state=state,
        chance=None if log is None else log.draws,
    )


def replay_game(game: Game, actions: Sequence[int], chance: Chance) -> Any:
    """The final state of the game that ``actions`` (in the AEC env's order) play when chance
    comes from ``chance`` (a seeded generator, or a ``ChanceReplay`` of a recorded log: then
    the game is identical whatever generator first produced it). An action the game does not
    allow at its place is an :class:`IllegalActionError`; a game that ends before the actions
    do, a ValueError."""
    state = game.init(chance)
    pending = list(actions)
    position = 0
    while position < len(pending):
        if game.is_terminal(state):
            raise ValueError(f"the game ended with {len(pending) - position} action(s) left")
        chosen: dict[int, int] = {}
        for seat in game.to_act(state):
            if position == len(pending):
                raise ValueError("the actions stop in the middle of a simultaneous step")
            action = int(pending[position])
            mask = game.legal_mask(state, seat)
            if not (0 <= action < len(mask) and mask[action]):
                raise IllegalActionError(
                    f"action {position} ({action}) is illegal for seat {seat}; "
                    f"legal: {np.flatnonzero(mask).tolist()}"
                )
            chosen[seat] = action
            position += 1
        game.apply(state, chosen, chance)
    return state
