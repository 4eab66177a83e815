"""Scripted Catz, Ratz and Batz players behind the :class:`~ratenvs.common.bots.Bot` protocol.

Every bot rolls when a turn starts (the only legal action then). When it
must keep a number it chooses by the dice alone:

- ``random``: any number showing, uniformly.
- ``most_common``: the number shown by the most dice (ties: the higher number).
- ``lowest``: the lowest number showing (3s make Bats good).
- ``optimal``: the solver's optimal keep, maximising the expected turn score.
- ``optimal_win``: the win-optimal keep of the 2-player game with a fixed number of turns
  (:func:`~ratenvs.catz_ratz_batz.winsolver.solve_win`), from the dice, both totals and
  both seats' turns left; it needs numba, and refuses other tables when bound.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ratenvs.catz_ratz_batz.observe import (
    ACTION_ROLL,
    TOTAL_SCALE,
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


MAX_WIN_BOT_TURNS = 50
"""The longest game (turns per seat) the ``optimal_win`` bot takes, as ``ratenvs solve
--win``: it solves the game exactly at its first keep, in time about the cube of the turns."""


class OptimalWinBot:
    """Keeps the number that maximises the seat's chance to win the 2-player game (a tie
    counts half), playing the exact win-optimal policy of
    :func:`~ratenvs.catz_ratz_batz.winsolver.solve_win` at the position it reads from its
    observation: its lead (the ``totals`` piece), both seats' turns left (``turns_left``) and
    the dice.

    Bind it to the env's observer (``play_game`` and ``SingleAgentEnv`` do): that tells it
    the game's ``turns``. Unbound it reads the default game's observations (2 players, 10
    turns): in a game of other ``turns`` its first turn is played as a 10-turn game's (the
    first turn's observation looks the same), and the next raises a ValueError saying to
    bind it. The game is solved on the first keep (about 15 s for 10 turns once numba has
    compiled the solver, then cached; the time grows as the cube of the turns, so binding
    refuses more than :data:`MAX_WIN_BOT_TURNS`).
    """

    name = "optimal_win"

    def __init__(self) -> None:
        self.observer: Any = None
        self.turns = 10

    def bind(self, observer: Any) -> None:
        """Read observations through ``observer`` (the env's ``env.observer``); a ValueError
        for any game but 2 players with a fixed number of turns and no ``target_score``."""
        game = observer.game
        if game.num_players != 2 or game.turns is None or game.target_score is not None:
            raise ValueError(
                "the 'optimal_win' bot plays the 2-player game with a fixed number of turns "
                f"(no target_score), not num_players={game.num_players}, turns={game.turns}, "
                f"target_score={game.target_score}"
            )
        if game.turns > MAX_WIN_BOT_TURNS:
            raise ValueError(
                f"the 'optimal_win' bot plays games of 1..{MAX_WIN_BOT_TURNS} turns (its exact "
                f"solve, at its first keep, grows as the cube of the turns: 10 take about 15 s, "
                f"{MAX_WIN_BOT_TURNS} about half an hour), not turns={game.turns}"
            )
        self.observer = observer
        self.turns = int(game.turns)

    def _views(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        if self.observer is None:
            from ratenvs.catz_ratz_batz.rules import CatzRatzBatz

            self.observer = CatzRatzBatz(num_players=2, turns=self.turns).observer("knowledge")
        if np.shape(observation)[-1] != self.observer.size:
            raise ValueError(
                f"the 'optimal_win' bot reads 2-player observations of {self.observer.size} "
                f"entries, got {np.shape(observation)[-1]}: bind it to the env's observer "
                "(bot.bind(env.observer); play_game and SingleAgentEnv do it)"
            )
        return self.observer.views(observation)

    def position(self, observation: np.ndarray) -> Any:
        """The :class:`~ratenvs.catz_ratz_batz.winsolver.Position` of the turn in progress."""
        from ratenvs.catz_ratz_batz.winsolver import Position

        views = self._views(observation)
        totals = np.rint(views["totals"].astype(np.float64) * TOTAL_SCALE).astype(int)
        share = views["turns_left"].astype(np.float64) * self.turns
        left = np.rint(share).astype(int)
        if np.abs(share - left).max() > 1e-3:  # turns left of another game's length
            raise ValueError(
                f"the 'optimal_win' bot reads a {self.turns}-turn game, but the observation's "
                f"turns left ({views['turns_left'].tolist()} of the game's turns) are of "
                "another length: bind it to the env's observer (bot.bind(env.observer); "
                "play_game and SingleAgentEnv do it)"
            )
        return Position(int(left[0]), int(left[1]), int(totals[0] - totals[1]))

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        if action_mask[ACTION_ROLL]:
            return ACTION_ROLL
        from ratenvs.catz_ratz_batz.winsolver import solve_win

        position = self.position(observation)
        dice = dice_from_observation(observation, self.observer)
        keep = solve_win(num_players=2, turns=self.turns).best_keep(position, dice)
        return NUMBERS.index(keep)

    def action_probs(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The exact distribution of :meth:`act` (one-hot)."""
        probs = np.zeros(len(action_mask))
        probs[self.act(observation, action_mask, np.random.default_rng(0))] = 1.0
        return probs


BOTS: dict[str, type] = {
    "random": RandomBot,
    "most_common": MostCommonBot,
    "lowest": LowestBot,
    "optimal": OptimalBot,
    "optimal_win": OptimalWinBot,
}
"""Bot names accepted by the env wrappers, the CLI and the evaluator."""

DICE_BOTS = ("random", "most_common", "lowest", "optimal")
"""The bots that keep by the dice alone, whose exact expected turn score grades them
(``ratenvs solve``); ``optimal_win`` also reads the position."""


def get_bot(name: str) -> Bot:
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
