"""Rat-a-Tat Cat's training hooks: the win-chance reward shaping
(``training/games/rat_a_tat_cat_win_chance.py``) and the ``owner_ceilings`` observation
entries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from training.config import ConfigError, TrainConfig
from training.hooks import GameHooks, Migration, RewardShaping, require_positive


@dataclass
class WinChanceOptions:
    """``reward_shaping.win_chance`` (elimination game only, training only): at every step
    the learner's reward gets ``scale`` times the change of its chance to win from the
    standings (:class:`~training.games.rat_a_tat_cat_win_chance.WinChanceReward`), added
    after ``algorithm.reward_scale`` (with ``reward_scale: 0`` it is the whole reward)."""

    scale: float
    """Multiplier of the change of the chance (> 0)."""
    gamma: float | None = None
    """The discount of the potential, in (0, 1]: each step adds ``scale * (gamma * after -
    before)``, Ng, Harada and Russell's form, which leaves the best policy of the
    discounted return unchanged only when ``gamma`` is the run's. None (the default): the
    run's ``algorithm.gamma``. 1.0: the plain change of the chance, as the shipped agents
    were trained (its sum over a game is the win minus the chance at the start, but under
    a discount below 1 it also pays for time spent at good standings)."""


def _check_win_chance(options: WinChanceOptions, cfg: TrainConfig) -> None:
    require_positive(options.scale, "reward_shaping.win_chance.scale")
    if options.gamma is None:
        options.gamma = float(cfg.algorithm.gamma)  # the run's discount: the invariant form
    elif not 0.0 < options.gamma <= 1.0:
        raise ConfigError(
            f"reward_shaping.win_chance.gamma: must be in (0, 1], got {options.gamma}"
        )
    if cfg.env_options.get("target_score") is None:
        raise ConfigError(
            "reward_shaping.win_chance: only for the elimination game (env_options.target_score)"
        )


def _wrap_win_chance(env: gym.Env, options: WinChanceOptions) -> gym.Env:
    from training.games.rat_a_tat_cat_win_chance import WinChanceReward

    gamma = 1.0 if options.gamma is None else options.gamma
    return WinChanceReward(env, options.scale, gamma)


def _batched_win_chance(venv: Any, door: Any, options: WinChanceOptions) -> Any:
    from training.games.rat_a_tat_cat_win_chance import batched_win_chance

    return batched_win_chance(venv, door, options)


HOOKS = GameHooks(
    game="rat_a_tat_cat",
    reward_shapings={
        "win_chance": RewardShaping(
            options=WinChanceOptions,
            wrap=_wrap_win_chance,
            check=_check_win_chance,
            batched=_batched_win_chance,
            scaled=False,
            summary="scale times the change of the learner's chance to win (elimination game)",
        ),
    },
    appended_options=("owner_ceilings",),
    migrations=(
        Migration(
            from_version=0,
            to_version=1,
            inserted_pieces=("draw_pool",),
            why="RULES.md section 1 rulings: elimination above the target, a knock honoured "
            "past the turn cap, the reshuffle as soon as the draw pile runs out; the "
            "draw_pool piece",
        ),
    ),
)
