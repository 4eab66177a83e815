"""Reward helpers shared by the games."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def win_rewards(winners: Sequence[bool]) -> np.ndarray:
    """Zero-sum win/loss rewards with ties shared.

    A sole winner gets +1; the ``n - 1`` losers share -1 between them
    (each ``-1/(n-1)``); ``w`` tied winners share the winner's part:
    ``r_i = n/(n-1) * (winner_i / w - 1/n)``. Two players: +1 / -1, a tie 0 / 0.
    Everyone tied, or a single player: all 0. The rewards always sum to 0.
    """
    n = len(winners)
    out = np.zeros(n, dtype=np.float64)
    w = int(sum(bool(x) for x in winners))
    if n < 2 or w in (0, n):
        return out
    for i, won in enumerate(winners):
        out[i] = n / (n - 1) * ((1.0 / w if won else 0.0) - 1.0 / n)
    return out
