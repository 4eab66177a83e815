"""Validation of environment options: bad input fails loudly and names the option."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np


def check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    """Return ``value`` as an int in ``[low, high]`` or raise a ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise ValueError(f"option {name!r} must be an integer, got {value!r}")
    value = int(value)
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in {low}..{high}"
        raise ValueError(f"option {name!r} must be {bound}, got {value}")
    return value


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise a ValueError naming ``name``."""
    choices = tuple(choices)
    if value not in choices:
        raise ValueError(f"option {name!r} must be one of {choices}, got {value!r}")
    return value


def check_bool(name: str, value: Any) -> bool:
    """Return ``value`` if it is a bool (``numpy.bool_`` too), else raise a ValueError naming
    ``name`` (so ``"false"`` or ``0`` from a config file cannot pass as a switch)."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"option {name!r} must be True or False, got {value!r}")
    return bool(value)


def check_optional_int(name: str, value: Any, low: int, high: int | None = None) -> int | None:
    """Like :func:`check_int` but ``None`` is allowed (the option is off)."""
    return None if value is None else check_int(name, value, low, high)


def check_render_mode(value: Any, modes: Iterable[str]) -> str | None:
    """A render mode is ``None`` or one of the env's ``metadata["render_modes"]``."""
    if value is None:
        return None
    return check_choice("render_mode", value, modes)
