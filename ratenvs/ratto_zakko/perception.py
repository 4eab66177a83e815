"""How a player sees a card: noisy glimpses, one per tick, and the Bayes posterior they give.

The model (``perception="gradual"``, the default). Each tick every player
receives, independently, a glimpse of the card: a vector of 12 numbers, one
per identity hypothesis (apple, egg, cheese, fish, chili, fly, rat) and one
per colour hypothesis (green, white, yellow, blue, red),

    x = d * onehot(true identity, true colour) + N(0, I),

i.e. each hypothesis channel is unit Gaussian noise and the true one is
shifted by the glimpse quality ``d`` (a signal-to-noise ratio, d'). The fly
and rat cards carry no food colour: their colour channels are pure noise.

The ideal observer's log likelihood of hypothesis ``h`` after ``k`` glimpses
is, up to a constant common to all hypotheses, ``L_h = d * sum_k x_h``; the
env keeps these sums plus the log prior (``State.evidence``, two blocks of 7
per seat, each shifted so its maximum is 0, which changes no posterior), and
the observation carries the Bayes posteriors ``softmax(L)`` over the 7
identities (uniform prior over the identities the level can deal: at the
starter level the rat has prior 0) and, separately, over the 5 colours
(uniform prior). The observation at tick ``t`` holds ``t + 1`` glimpses.

Calibration. ``d`` is set so that the ideal observer needs on average
:data:`TARGET_GLIMPSES` = 8 glimpses (8 ticks of 25 ms = 200 ms) until it is
95% certain of both the identity and the colour, i.e. until the largest
identity posterior and the largest colour posterior are both >= 0.95 (a food
card at the main level: 7 identities, 5 colours). :func:`calibrate_glimpse_snr`
finds ``d`` by bisection on a fixed-seed Monte Carlo estimate of that mean
first-passage time; :data:`DEFAULT_GLIMPSE_SNR` is its result (rounded) and
the tests recompute it. ``perception="clear"`` shows the card fully at tick 0
(posteriors one-hot from the first observation, no glimpses drawn).
"""

from __future__ import annotations

import numpy as np

PERCEPTIONS = ("gradual", "clear")
NUM_IDENTITY_CHANNELS = 7
NUM_COLOUR_CHANNELS = 5
NUM_CHANNELS = NUM_IDENTITY_CHANNELS + NUM_COLOUR_CHANNELS
RAT_CHANNEL = 6
COLOUR_OFFSET = NUM_IDENTITY_CHANNELS
NUM_FOOD_CARDS_KINDS = 25
"""Card ids below this are food cards (``food * 5 + colour``); 25 is the fly, 26 the rat."""

CERTAINTY = 0.95
"""The ideal observer is "certain" when the largest posterior reaches this."""
TARGET_GLIMPSES = 8.0
"""Mean number of glimpses (ticks) the ideal observer needs to be certain: 200 ms at 25 ms."""
DEFAULT_GLIMPSE_SNR = 1.065
"""The calibrated glimpse quality d (see :func:`calibrate_glimpse_snr`; the tests recompute it)."""
CLEAR_EVIDENCE = 60.0
"""Log-likelihood lead of the true hypothesis under ``perception="clear"`` (posterior ~1)."""


BLOCK = 7
"""Evidence is stored as two blocks of 7 channels per seat: identities, then colours padded
with two impossible channels, so both posteriors come from one vectorised softmax."""
IMPOSSIBLE = -np.inf


def _signal(card: int) -> np.ndarray:
    """The noiseless glimpse direction of ``card`` (shape (2, 7)): ones at its identity and
    colour channels; the fly and rat cards have no colour signal."""
    sig = np.zeros((2, BLOCK))
    if card < NUM_FOOD_CARDS_KINDS:
        sig[0, card // NUM_COLOUR_CHANNELS] = 1.0
        sig[1, card % NUM_COLOUR_CHANNELS] = 1.0
    else:
        sig[0, card - NUM_FOOD_CARDS_KINDS + 5] = 1.0  # fly -> channel 5, rat -> channel 6
    return sig


_SIGNALS = np.stack([_signal(c) for c in range(27)])


def prior_evidence(num_players: int, level: str) -> np.ndarray:
    """Log prior (n, 2, 7): uniform over the identities the level deals and over the colours;
    the two padding channels of the colour block, and the rat at the starter level, are -inf."""
    ev = np.zeros((num_players, 2, BLOCK))
    ev[:, 1, NUM_COLOUR_CHANNELS:] = IMPOSSIBLE
    if level == "starter":
        ev[:, 0, RAT_CHANNEL] = IMPOSSIBLE
    return ev


def add_glimpses(evidence: np.ndarray, card: int, snr: float, rng: np.random.Generator) -> None:
    """Add one glimpse per player to ``evidence`` in place, as log-likelihood increments
    ``d * x = d^2 * signal + d * noise``, then shift each block so its maximum is 0 (the
    posterior does not change, the numbers stay bounded)."""
    noise = rng.standard_normal(evidence.shape)
    noise *= snr
    noise += (snr * snr) * _SIGNALS[card]
    evidence += noise
    evidence -= evidence.max(axis=2, keepdims=True)


def clear_evidence(card: int, num_players: int, level: str) -> np.ndarray:
    """Evidence of a fully seen card (``perception="clear"``)."""
    ev = prior_evidence(num_players, level)
    ev += CLEAR_EVIDENCE * _SIGNALS[card]
    ev -= ev.max(axis=2, keepdims=True)
    return ev


def posteriors(evidence: np.ndarray) -> np.ndarray:
    """Bayes posteriors (n, 2, 7) from block-normalised evidence: identities (apple, egg,
    cheese, fish, chili, fly, rat) then colours (green, white, yellow, blue, red, -, -)."""
    p = np.exp(evidence)
    p /= p.sum(axis=2, keepdims=True)
    return p


def _softmax_max(x: np.ndarray) -> np.ndarray:
    """Largest softmax probability along the last axis."""
    z = x - x.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return 1.0 / e.sum(axis=-1)


def glimpses_to_certainty(
    snr: float,
    trials: int = 4000,
    max_glimpses: int = 80,
    seed: int = 0,
    certainty: float = CERTAINTY,
    return_errors: bool = False,
) -> float | tuple[float, float]:
    """Mean number of glimpses until an ideal observer is ``certainty``-sure of identity, colour.

    Monte Carlo over ``trials`` food cards (main level: 7 identities, 5
    colours; by symmetry the true identity and colour are channel 0). The
    first glimpse is number 1. Trials that never get there count as
    ``max_glimpses``. With ``return_errors`` also returns the fraction of
    trials where the observer's maximum-posterior guess at that moment was
    wrong (identity or colour).
    """
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal((trials, max_glimpses, NUM_CHANNELS))
    signal = _SIGNALS[0].reshape(-1)[:NUM_CHANNELS]  # apple, green
    evidence = np.cumsum(snr * snr * signal + snr * noise, axis=1)
    sure_id = _softmax_max(evidence[:, :, :NUM_IDENTITY_CHANNELS]) >= certainty
    sure_col = _softmax_max(evidence[:, :, COLOUR_OFFSET:]) >= certainty
    sure = sure_id & sure_col
    reached = sure.any(axis=1)
    first = np.where(reached, sure.argmax(axis=1) + 1, max_glimpses)
    mean = float(first.mean())
    if not return_errors:
        return mean
    idx = np.minimum(first, max_glimpses) - 1
    at = evidence[np.arange(trials), idx]
    wrong = (at[:, :NUM_IDENTITY_CHANNELS].argmax(axis=1) != 0) | (
        at[:, COLOUR_OFFSET:].argmax(axis=1) != 0
    )
    return mean, float(wrong.mean())


def calibrate_glimpse_snr(
    target: float = TARGET_GLIMPSES, trials: int = 4000, seed: int = 0, iterations: int = 30
) -> float:
    """The glimpse quality d whose mean glimpses-to-certainty is ``target`` (bisection).

    The same random numbers are used for every candidate d, so the estimate
    is monotone in d and the bisection is exact for that sample.
    """
    low, high = 0.2, 5.0
    for _ in range(iterations):
        mid = 0.5 * (low + high)
        if glimpses_to_certainty(mid, trials=trials, seed=seed) > target:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)
