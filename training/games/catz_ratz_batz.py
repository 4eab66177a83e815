"""Catz, Ratz and Batz's training hooks: the exact grade of an agent by the solver (the
library's :mod:`ratenvs.catz_ratz_batz.evaluation`), and
``eval.metric: auto`` meaning that grade in the one-player game."""

from __future__ import annotations

from typing import Any

from ratenvs.catz_ratz_batz.evaluation import exact_grade
from training.hooks import GameHooks


def default_metric(env_options: dict[str, Any]) -> str | None:
    """The exact grade in the one-player game (the generic rule otherwise)."""
    if int(env_options.get("num_players", 1)) == 1:
        return "exact_expected_score"
    return None


HOOKS = GameHooks(game="catz_ratz_batz", exact_grade=exact_grade, default_metric=default_metric)
