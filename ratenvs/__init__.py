"""ratenvs: reinforcement-learning environments for three rat games.

- Rat-a-Tat Cat (``rat_a_tat_cat_v0``): hidden-information memory card game.
- Catz, Ratz and Batz (``catz_ratz_batz_v0``): nine-dice game with an exact solver.
- Ratto Zakko (``ratto_zakko_v0``): real-time reaction game in discrete ticks.

Importing ``ratenvs`` registers the PettingZoo ids (``ratenvs/<game>-v0``) and
the gymnasium ids (``ratenvs/<Game>-v0``). ``ratenvs.agents`` (the shipped agents,
checkpoints as Bots) and ``ratenvs.evaluation`` (matches, tournaments) are imported on
first use.
"""

from __future__ import annotations

import importlib
from typing import Any

from ratenvs.registration import register

__version__ = "0.1.0"

register()

LAZY_SUBMODULES = ("agents", "evaluation")
"""Submodules reached as attributes of ``ratenvs`` and imported on first use."""

__all__ = ["__version__", "agents", "evaluation", "register"]


def __getattr__(name: str) -> Any:
    """``ratenvs.agents`` and ``ratenvs.evaluation`` without importing them first."""
    if name in LAZY_SUBMODULES:
        return importlib.import_module(f"ratenvs.{name}")
    raise AttributeError(f"module 'ratenvs' has no attribute {name!r}")
