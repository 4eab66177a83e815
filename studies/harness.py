"""How the studies play games: every game by the one seeding rule of
:func:`ratenvs.common.play.seed_streams`.

A study whose bots play a whole game calls :func:`~ratenvs.common.play.play_game`
(game ``i`` of a study is ``play_game(game, bots, seed + i)``), watching it with
``on_step``. A study that must intervene in a game (read the true table at a
decision, change the scores, search) drives it with :func:`drive`, and a
counterfactual play-out from a mid-game state goes on with :func:`play_on`; both
draw chance and each seat's randomness from the streams of ``seed_streams``, so
a driven game whose choices are the bots' own is the game ``play_game`` plays.
A study's own random numbers (the seeds of its play-outs) come from
:func:`study_rng`, a stream of the same seed that neither the game nor a bot uses.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ratenvs.common.game import Chance, Game
from ratenvs.common.play import StepHook, seed_streams
from ratenvs.common.stats import mean_interval, wilson_interval
from training.atomic import atomic_write_text

Choose = Callable[[Any, int, np.random.Generator], int]
"""(state, seat, the seat's generator) -> the seat's action."""


def study_rng(seed: int) -> np.random.Generator:
    """The study's own generator for the game seeded ``seed`` (``default_rng([seed, 2])``:
    apart from chance, ``np_random(seed)``, and the seats' bots, ``[seed, 1, seat]``)."""
    return np.random.default_rng([int(seed), 2])


def play_on(
    game: Game,
    state: Any,
    choose: Choose,
    chance: Chance,
    rngs: Sequence[np.random.Generator],
    *,
    stop: Callable[[Sequence[float] | None], bool] | None = None,
    on_step: StepHook | None = None,
) -> Sequence[float] | None:
    """Play ``state`` on (in place) until the game ends or ``stop(rewards)`` holds after a
    step; seat ``i`` chooses with ``rngs[i]``, chance draws from ``chance``. Returns the
    last step's rewards."""
    rewards = None
    while not game.is_terminal(state):
        actions = {seat: int(choose(state, seat, rngs[seat])) for seat in game.to_act(state)}
        rewards = game.apply(state, actions, chance)
        if on_step is not None:
            on_step(game, state, actions, rewards)
        if stop is not None and stop(rewards):
            break
    return rewards


def drive(game: Game, seed: int, choose: Choose, *, on_step: StepHook | None = None) -> Any:
    """A whole game seeded ``seed`` that ``choose`` plays, reading the true state; its
    final state. With ``choose(state, seat, rng) = bots[seat].act(observation, mask, rng)``
    it is the game ``play_game(game, bots, seed)`` plays."""
    chance, rngs = seed_streams(seed, game.num_players)
    state = game.init(chance)
    play_on(game, state, choose, chance, rngs, on_step=on_step)
    return state


def bots_choose(game: Game, bots: Sequence[Any], kind: str | None = None) -> Choose:
    """``choose`` for :func:`drive` / :func:`play_on` by which ``bots[seat]`` plays each seat
    on the observer ``kind`` (default: the game's), the bots bound to it."""
    view = game.observer(kind or game.observation_kind)
    for bot in bots:
        bind = getattr(bot, "bind", None)
        if bind is not None:
            bind(view)

    def choose(state: Any, seat: int, rng: np.random.Generator) -> int:
        return int(bots[seat].act(view.observe(state, seat), game.legal_mask(state, seat), rng))

    return choose


def mlp(inputs: int, outputs: int, seed: int = 0) -> Any:
    """The studies' 256-256 ReLU MLP (torch), its weights drawn after
    ``torch.manual_seed(seed)``: the network of the search's belief
    (``training.games.rat_a_tat_cat_belief.network``)."""
    from training.games.rat_a_tat_cat_belief import network

    return network(inputs, outputs, seed)


def write_figures(path: str | os.PathLike[str], figures: Any) -> None:
    """Write a study's figures to ``path`` as indented JSON, atomically (a temporary file
    renamed into place: an interrupted run leaves the old file, never half of one)."""
    atomic_write_text(path, json.dumps(figures, indent=2) + "\n")


def paired_win_figures(alone: Sequence[float], changed: Sequence[float]) -> dict[str, Any]:
    """The figures of a paired comparison: ``alone[i]`` and ``changed[i]`` are a player's
    win shares in game ``i`` as it is and with a change (the same seeds). Each win rate
    with its Wilson 95% interval (``agent_*``, ``search_*``), and the paired gain (the mean
    of the per-game differences) with its normal 95% interval (``gain``, ``gain_95``)."""
    if len(alone) != len(changed) or not alone:
        raise ValueError(
            f"a paired comparison needs as many games on each side, got {len(alone)} and "
            f"{len(changed)}"
        )
    n = len(alone)
    gain, gain_95 = mean_interval(np.subtract(changed, alone))
    return {
        "agent_win_rate": sum(alone) / n,
        "agent_wilson_95": list(wilson_interval(sum(alone), n)),
        "search_win_rate": sum(changed) / n,
        "search_wilson_95": list(wilson_interval(sum(changed), n)),
        "gain": gain,
        "gain_95": list(gain_95),
    }


def seat_share(
    game: str, options: dict[str, Any], seat: Any, others: Sequence[Any], games: int, seed: int
) -> dict[str, Any]:
    """``seat`` against ``others`` (one per other seat) over ``games`` seat-rotated games of
    the evaluator (:func:`ratenvs.evaluation.play_match`, game ``g`` seeded by its rule from
    ``seed``): the games it won (ties shared; Ratto Zakko: the most cards), their Wilson 95%
    interval and, where the game's tracker counts answers, the share of its answers that
    were right (else None)."""
    from ratenvs.evaluation import play_match, summarise
    from ratenvs.games import GAMES

    out = summarise(play_match(GAMES[game], dict(options), seat, list(others), games, seed))
    return {
        "games": games,
        "win_rate": out["win_rate"],
        "win_rate_ci": out["win_rate_ci"],
        "answer_accuracy": out.get("answer_accuracy"),
    }
