"""Tiny training configs the training tests share."""

from __future__ import annotations

from typing import Any

from helpers import TINY_CATZ

from training.config import TrainConfig, config_from_dict

__all__ = ["TINY_CATZ", "small_ratcat_config"]


def small_ratcat_config(algorithm: dict[str, Any] | None = None, **extra: Any) -> TrainConfig:
    """A few dozen steps of 3-player Rat-a-Tat Cat against heuristic bots."""
    data = {
        "game": "rat_a_tat_cat",
        "env_options": {"num_players": 3},
        "opponents": ["heuristic"],
        "learner_seat": "random",
        "n_envs": 2,
        "timesteps": 64,
        "algorithm": {
            "n_steps": 32,
            "batch_size": 32,
            "n_epochs": 1,
            "net_arch": [32, 32],
            **(algorithm or {}),
        },
        "eval": {"every": 0, "games": 2, "final_games": 2},
        "logging": {"progress_bar": False},
    }
    data.update(extra)
    return config_from_dict(data)
