"""Confidence intervals and ratings of the evaluator (:mod:`ratenvs.evaluation`): Wilson and
normal 95% intervals, Bradley-Terry ratings on the Elo scale with bootstrap intervals."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Z_95 = 1.959963984540054
"""Two-sided 95% quantile of the standard normal distribution."""


def wilson_interval(successes: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``successes`` may be fractional for ties)."""
    if n <= 0:
        raise ValueError(f"wilson_interval needs n >= 1, got {n}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be in [0, {n}], got {successes}")
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float], z: float = Z_95) -> tuple[float, tuple[float, float]]:
    """Mean and its normal-approximation 95% interval (``z`` standard errors either side)."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        raise ValueError("mean_interval needs at least one value")
    mean = float(x.mean())
    if x.size < 2:
        return mean, (mean, mean)
    half = z * float(x.std(ddof=1)) / math.sqrt(x.size)
    return mean, (mean - half, mean + half)


ELO_SCALE = 400.0 / math.log(10.0)
"""Natural-log Bradley-Terry strengths times this are Elo points."""
RATING_METHOD = (
    "Bradley-Terry fit by Hunter's MM algorithm with 0.5 pseudo-wins each way between every "
    "pair that met (a prior: finite ratings when one side won every game), on the Elo scale, "
    "mean 0; 95% intervals: 2.5-97.5 percentiles of 200 bootstrap fits, the games resampled "
    "with replacement within every pairing"
)
"""How :func:`bootstrap_bradley_terry` rates (its defaults), in words: for outputs and docs."""


def bradley_terry(
    wins: np.ndarray, prior: float = 0.5, iterations: int = 2000, tol: float = 1e-10
) -> np.ndarray:
    """Bradley-Terry log-strengths (mean 0) from ``wins[i, j]`` = games i won against j.

    Ties count half a win each way (pass them in ``wins`` already halved).
    ``prior`` pseudo-wins each way between every pair that met keep the fit
    finite when one agent won every game. Fitted by Hunter's (2004) MM algorithm.
    """
    w = np.asarray(wins, dtype=np.float64).copy()
    k = w.shape[0]
    if w.shape != (k, k):
        raise ValueError("wins must be a square matrix")
    games = w + w.T
    met = games > 0
    w = w + prior * met
    games = w + w.T
    total_wins = w.sum(axis=1)
    p = np.ones(k)
    for _ in range(iterations):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(denom > 0, total_wins / np.where(denom > 0, denom, 1.0), p)
        new = new / math.exp(float(np.mean(np.log(new))))
        if np.max(np.abs(new - p)) < tol:
            p = new
            break
        p = new
    return np.log(p)


def bootstrap_bradley_terry(
    results: dict[tuple[int, int], list[float]],
    k: int,
    rng: np.random.Generator,
    samples: int = 200,
) -> tuple[np.ndarray, np.ndarray]:
    """Elo ratings and their 2.5-97.5 percentile bootstrap intervals.

    ``results[(i, j)]`` lists i's score in each game against j (1 win, 0.5 tie,
    0 loss). Games are resampled with replacement within every pair.
    """

    def matrix(res: dict[tuple[int, int], np.ndarray]) -> np.ndarray:
        m = np.zeros((k, k))
        for (i, j), s in res.items():
            m[i, j] += s.sum()
            m[j, i] += (1.0 - s).sum()
        return m

    arrays = {key: np.asarray(v, dtype=np.float64) for key, v in results.items()}
    elo = ELO_SCALE * bradley_terry(matrix(arrays))
    boot = np.empty((samples, k))
    for b in range(samples):
        resampled = {key: s[rng.integers(0, s.size, s.size)] for key, s in arrays.items()}
        boot[b] = ELO_SCALE * bradley_terry(matrix(resampled))
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    return elo, np.stack([low, high], axis=1)
