"""ratenvs: reinforcement-learning environments for three rat games.

- Rat-a-Tat Cat (``rat_a_tat_cat_v1``): hidden-information memory card game.
- Catz, Ratz and Batz (``catz_ratz_batz_v0``): nine-dice game with an exact solver.
- Ratto Zakko (``ratto_zakko_v0``): real-time reaction game in discrete ticks.

Importing ``ratenvs`` registers the PettingZoo ids (``ratenvs/<game>-v<version>``) and
the gymnasium ids (``ratenvs/<Game>-v<version>``). ``ratenvs.agents`` (the shipped
agents, checkpoints as Bots) and ``ratenvs.evaluation`` (matches, tournaments) are
imported on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

from ratenvs.registration import register

__version__ = "0.2.0"

RETIRED = {
    "rat_a_tat_cat_v0": (
        "rat_a_tat_cat_v1",
        "0.2.0: the four rulings of RULES.md section 1 (elimination when a total exceeds the "
        "target, a knock honoured past the turn cap, the reshuffle as soon as the draw pile "
        "runs out, the draw_pool observation piece)",
    ),
}
"""Env modules of earlier versions: the module that replaced each, and since when and why."""

LAZY_SUBMODULES = ("agents", "evaluation")
"""Submodules reached as attributes of ``ratenvs`` and imported on first use."""

register()


def __getattr__(name: str) -> Any:
    """``ratenvs.agents`` and ``ratenvs.evaluation`` without importing them first;
    ``from ratenvs import rat_a_tat_cat_v0`` (a retired version) says what replaced it."""
    if name in LAZY_SUBMODULES:
        return importlib.import_module(f"ratenvs.{name}")
    if name in RETIRED:
        new, why = RETIRED[name]
        raise ImportError(
            f"ratenvs.{name} was replaced by ratenvs.{new} in ratenvs {why}; "
            f"use `from ratenvs import {new}` (see the changelog, CHANGELOG.md in the repository)"
        )
    raise AttributeError(f"module 'ratenvs' has no attribute {name!r}")


__all__ = ["RETIRED", "__version__", "agents", "evaluation", "register"]
