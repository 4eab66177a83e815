"""Confidence intervals and ratings: the library's :mod:`ratenvs.common.stats` (kept here for
the importers of ``training.stats``)."""

from __future__ import annotations

from ratenvs.common.stats import (
    ELO_SCALE,
    Z_95,
    bootstrap_bradley_terry,
    bradley_terry,
    mean_interval,
    wilson_interval,
)

__all__ = [
    "ELO_SCALE",
    "Z_95",
    "bootstrap_bradley_terry",
    "bradley_terry",
    "mean_interval",
    "wilson_interval",
]
