"""Rat-a-Tat Cat's training hooks: the privileged features of the true table, the
win-chance reward shaping (``training/games/rat_a_tat_cat_win_chance.py``) and the
``owner_ceilings`` observation entries.

Privileged features (``algorithm.privileged_critic``): the true kind of every card in
every hand (one-hot, 13 kinds + empty, players by offset from the learner: 56 entries per
player), and the kind of the top card of the draw pile (14 entries).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from ratenvs.rat_a_tat_cat import rules
from training.config import ConfigError, TrainConfig
from training.hooks import GameHooks, PrivilegedFeatures, RewardShaping

_CODES = rules.NUM_KINDS + 1  # 13 kinds + empty / none


def privileged_features(state: Any, seat: int) -> np.ndarray:
    """Every hand's true kinds by offset from ``seat``, and the next draw."""
    n = state.num_players
    slots = rules.SLOTS
    out = np.zeros(n * slots * _CODES + _CODES, dtype=np.float32)
    for k in range(n):
        hand = state.hands[(seat + k) % n]
        for s in range(slots):
            card = hand[s]
            code = rules.NUM_KINDS if card == rules.NO_CARD else rules.KIND[card]
            out[(k * slots + s) * _CODES + code] = 1.0
    top = state.draw_pile[-1] if state.draw_pile else rules.NO_CARD
    code = rules.NUM_KINDS if top == rules.NO_CARD else rules.KIND[top]
    out[n * slots * _CODES + code] = 1.0
    return out


def privileged_size(num_players: int) -> int:
    return num_players * rules.SLOTS * _CODES + _CODES


@dataclass
class WinChanceOptions:
    """``reward_shaping.win_chance`` (elimination game only, training only): at every step
    the learner's reward gets ``scale`` times the change of its chance to win from the
    standings (:class:`~training.games.rat_a_tat_cat_win_chance.WinChanceReward`), added
    after ``algorithm.reward_scale`` (with ``reward_scale: 0`` it is the whole reward)."""

    scale: float
    """Multiplier of the change of the chance (> 0)."""


def _check_win_chance(options: WinChanceOptions, cfg: TrainConfig) -> None:
    if not options.scale > 0:
        raise ConfigError(
            f"reward_shaping.win_chance.scale: must be > 0, got {options.scale} "
            "(leave the shaping out to turn it off)"
        )
    if cfg.env_options.get("target_score") is None:
        raise ConfigError(
            "reward_shaping.win_chance: only for the elimination game (env_options.target_score)"
        )


def _wrap_win_chance(env: gym.Env, options: WinChanceOptions) -> gym.Env:
    from training.games.rat_a_tat_cat_win_chance import WinChanceReward

    return WinChanceReward(env, options.scale)


HOOKS = GameHooks(
    game="rat_a_tat_cat",
    reward_shapings={
        "win_chance": RewardShaping(
            options=WinChanceOptions,
            wrap=_wrap_win_chance,
            check=_check_win_chance,
            scaled=False,
            summary="scale times the change of the learner's chance to win (elimination game)",
        ),
    },
    privileged=PrivilegedFeatures(privileged_features, privileged_size),
    appended_options=("owner_ceilings",),
)
