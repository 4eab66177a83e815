"""Scripted Catz, Ratz and Batz players behind the :class:`~ratenvs.common.bots.Bot` protocol.

Every bot rolls when a turn starts (the only legal action then). When it
must keep a number it chooses by the dice alone:

- ``random``: any number showing, uniformly.
- ``most_common``: the number shown by the most dice (ties: the higher number).
- ``lowest``: the lowest number showing (3s make Bats good).
- ``optimal``: the solver's optimal keep, maximising the expected turn score.
"""

from __future__ import annotations

import numpy as np

from ratenvs.catz_ratz_batz.observe import (
    ACTION_ROLL,
    dice_from_observation,
    keep_mask,
    observation_for_dice,
)
from ratenvs.catz_ratz_batz.rules import NUMBERS, Dice, legal_keeps
from ratenvs.catz_ratz_batz.solver import evaluate_policy, solve
from ratenvs.common.bots import Bot, RandomBot, make_bot


class _DiceBot:
    """A deterministic bot that keeps ``choose(dice)``; subclasses define ``choose``."""

    name = "dice"

    def choose(self, dice: Dice) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        if action_mask[ACTION_ROLL]:
            return ACTION_ROLL
        return NUMBERS.index(self.choose(dice_from_observation(observation)))

    def action_probs(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The exact distribution of :meth:`act` (one-hot)."""
        probs = np.zeros(len(action_mask))
        probs[self.act(observation, action_mask, np.random.default_rng(0))] = 1.0
        return probs


class MostCommonBot(_DiceBot):
    """Keeps the number shown by the most dice (ties: the higher number)."""

    name = "most_common"

    def choose(self, dice: Dice) -> int:
        return max(legal_keeps(dice), key=lambda k: (dice.count(k), k))


class LowestBot(_DiceBot):
    """Keeps the lowest number showing."""

    name = "lowest"

    def choose(self, dice: Dice) -> int:
        return min(legal_keeps(dice))


class OptimalBot(_DiceBot):
    """Keeps the number the exact solver says maximises the expected turn score."""

    name = "optimal"

    def __init__(self) -> None:
        self._policy = solve().policy

    def choose(self, dice: Dice) -> int:
        return self._policy[dice]


BOTS: dict[str, type] = {
    "random": RandomBot,
    "most_common": MostCommonBot,
    "lowest": LowestBot,
    "optimal": OptimalBot,
}
"""Bot names accepted by the env wrappers, the CLI and the evaluator."""


def get_bot(name: str):
    """The Catz, Ratz and Batz bot called ``name`` (a ValueError lists the choices)."""
    return make_bot(name, BOTS, "catz_ratz_batz")


def exact_expected_score(bot: Bot) -> float:
    """Exact expected turn score of ``bot`` (any object with ``act``; ``action_probs`` if it is
    stochastic), computed by the solver's policy evaluation over every dice state.

    The bot is shown the observation of a seat keeping a number on its first turn.
    """
    fixed_rng = np.random.default_rng(0)

    def policy(dice: Dice) -> np.ndarray:
        obs, mask = observation_for_dice(dice), keep_mask(dice)
        if hasattr(bot, "action_probs"):
            return np.asarray(bot.action_probs(obs, mask), dtype=np.float64)[: len(NUMBERS)]
        probs = np.zeros(len(NUMBERS))
        action = int(bot.act(obs, mask, fixed_rng))
        if not 0 <= action < len(NUMBERS):
            raise ValueError(f"{bot!r} chose action {action} when it had to keep a number")
        probs[action] = 1.0
        return probs

    return evaluate_policy(policy)
