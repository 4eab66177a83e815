"""Catz, Ratz and Batz's training hooks: the exact grade of an agent by the solver (the
library's :mod:`ratenvs.catz_ratz_batz.evaluation`; ``exact_worst_case_share`` for a
2-player agent that reads the lead), and
``eval.metric: auto`` meaning that grade in the one-player game."""

from __future__ import annotations

from typing import Any

from ratenvs.catz_ratz_batz.evaluation import exact_grade, grades_exploitability
from training.hooks import GameHooks


def default_metric(env_options: dict[str, Any]) -> str | None:
    """The exact grade in the one-player game (the generic rule otherwise)."""
    if int(env_options.get("num_players", 1)) == 1:
        return "exact_expected_score"
    return None


def needs_the_lead(env_options: dict[str, Any]) -> str | None:
    """What ``exact_worst_case_share`` needs that ``env_options`` lack (None: nothing)."""
    if grades_exploitability(env_options):
        return None
    return (
        "needs the 2-player game of fixed turns without target_score, seen with "
        f"totals_view: relative (a policy of the lead), not {env_options}"
    )


HOOKS = GameHooks(
    game="catz_ratz_batz",
    exact_grade=exact_grade,
    default_metric=default_metric,
    exact_metrics_needing={"exact_worst_case_share": needs_the_lead},
)
