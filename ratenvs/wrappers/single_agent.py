"""``SingleAgentEnv``: one seat is the learner, the other seats are bots or frozen policies.

The gymnasium door of every game (and so of stable-baselines3): a
``gymnasium.Env`` whose observation is the learner's flat observation vector
and whose reward is the learner's reward summed over everything that happened
since its previous decision. ``action_masks()`` feeds sb3-contrib's
``MaskablePPO``; ``info["action_mask"]`` carries the same mask.

``reset`` always returns a decision of the learner: a game the other seats finish before
the learner's first decision (Catz, Ratz and Batz with ``race_end="turn"``, an opening bot
reaching the target) is dropped and another dealt, as the batched engines do; the
reset's ``info["games_dropped"]`` counts them. Evaluation (``ratenvs evaluate``) plays
every game through the AEC env and counts them all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from ratenvs.common.aec import GameAECEnv, as_action, refused_action
from ratenvs.common.bots import Bot, searches_state, with_own_view
from ratenvs.common.options import check_choice, check_float, check_seed
from ratenvs.games import get_game

OpponentsArg = (
    str | Bot | Sequence["str | Bot"] | Callable[[np.random.Generator], Sequence[Bot]] | None
)
ILLEGAL_ACTION_MODES = ("terminate", "raise")
MAX_DROPPED_GAMES = 1000
"""``reset`` gives up (a RuntimeError) after this many games in a row finished before the
learner's first decision."""


class SingleAgentEnv(gym.Env):
    """A game seen by one learner; every other seat is played by a bot or policy.

    Args:
        game: game name (``"catz_ratz_batz"``, ``"rat-a-tat-cat"``, ...).
        opponents: who plays the other seats: ``None`` (the game's default bot),
            one bot name or :class:`~ratenvs.common.bots.Bot` for every seat, a
            list with one per other seat, or a callable ``rng -> list of bots``
            called at every reset (self-play pools).
        learner_seat: the learner's seat index, or ``"random"`` to draw the seat
            at every reset (seat rotation).
        illegal_action: ``"terminate"`` (default; the episode ends with
            ``illegal_reward`` and ``info["illegal_action"] = True``, as
            PettingZoo classic does) or ``"raise"`` (an
            :class:`~ratenvs.common.aec.IllegalActionError`, a ValueError;
            :class:`~ratenvs.common.aec.ActionOutOfBoundsError` for an action outside
            the action space), the game unchanged. Anything but an integer is an
            illegal action (never coerced: 1.9, True, "1").
        illegal_reward: reward of an illegal action under ``"terminate"``.
        render_mode: passed to the game env.
        **env_options: the game env's options (``num_players``, ...).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "render_fps": 2,
    }

    def __init__(
        self,
        game: str,
        opponents: OpponentsArg = None,
        learner_seat: int | str = 0,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **env_options: Any,
    ) -> None:
        self.spec_game = get_game(game)
        self.illegal_action = check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        self.illegal_reward = check_float("illegal_reward", illegal_reward)
        self.render_mode = render_mode
        self.aec: GameAECEnv = self.spec_game.load().raw_env(render_mode=render_mode, **env_options)
        n = self.aec.num_players
        if learner_seat != "random" and (
            isinstance(learner_seat, bool | np.bool_)
            or not isinstance(learner_seat, int | np.integer)
            or not 0 <= learner_seat < n
        ):
            raise ValueError(f"option 'learner_seat' must be 0..{n - 1} or 'random'")
        if learner_seat != "random":
            learner_seat = int(learner_seat)
        self.learner_seat = learner_seat
        self._opponents_arg = opponents
        self._fixed_opponents = (
            None
            if callable(opponents) and not isinstance(opponents, Bot)
            else [with_own_view(bot, self.aec.game) for bot in self._resolve(opponents, n - 1)]
        )
        agent0 = self.aec.possible_agents[0]
        self.observation_space = self.aec.observation_space(agent0)["observation"]
        self.action_space = self.aec.action_space(agent0)
        self._seat = 0 if learner_seat == "random" else int(learner_seat)
        self._bots: list[Bot] = []
        self._mask = np.zeros(self.action_space.n, dtype=np.int8)

    def _resolve(self, opponents: Any, count: int) -> list[Bot]:
        bots = self.spec_game.bots()

        def one(x: Any) -> Bot:
            if isinstance(x, str):
                if x not in bots:
                    raise ValueError(
                        f"unknown opponent {x!r} for {self.spec_game.name}; "
                        f"choose from {sorted(bots)}"
                    )
                return bots[x]()
            if hasattr(x, "act"):
                return x
            raise ValueError(f"opponent {x!r} is neither a bot name nor has act()")

        if opponents is None:
            opponents = self.spec_game.default_opponent
        if isinstance(opponents, str) or hasattr(opponents, "act"):
            first = one(opponents)  # checked also when there is no other seat
            return [first, *(one(opponents) for _ in range(count - 1))][:count]
        opponents = list(opponents)
        if len(opponents) != count:
            raise ValueError(f"option 'opponents' needs {count} entries, got {len(opponents)}")
        return [one(x) for x in opponents]

    # ------------------------------------------------------------ gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=check_seed(seed))
        n = self.aec.num_players
        if self.learner_seat == "random":
            self._seat = int(self.np_random.integers(n))
        if self._fixed_opponents is None:
            drawn = self._resolve(self._opponents_arg(self.np_random), n - 1)
            self._bots = [with_own_view(bot, self.aec.game) for bot in drawn]
        else:
            self._bots = self._fixed_opponents
        for i, bot in enumerate(self._bots):
            bind = getattr(bot, "bind", None)
            if bind is not None:
                bind(self.aec.observer)
            if searches_state(bot):  # a search bot reads the game only through resample
                bot.bind_game(self.aec.game, i if i < self._seat else i + 1)
        # a game the other seats finish before the learner decides (Catz, Ratz and Batz
        # with race_end "turn": an opening bot reaches the target) teaches nothing and
        # has no step to end: it is dropped and another dealt (info["games_dropped"])
        dropped = 0
        while True:
            self.aec.reset(seed=int(self.np_random.integers(2**31 - 1)))
            self._advance()
            if self._mask.any():
                break
            dropped += 1
            if dropped == MAX_DROPPED_GAMES:
                raise RuntimeError(
                    f"the other seats finished {dropped} games in a row before the learner "
                    f"(seat {self._seat}) had a decision; these options leave it none"
                )
        info = self._info()
        if dropped:
            info["games_dropped"] = dropped
        return self._observation(), info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        aec = self.aec
        agent = aec.possible_agents[self._seat]
        if not hasattr(aec, "terminations"):
            raise RuntimeError("step() before reset(): call reset() first")
        if aec.terminations[agent] or aec.truncations[agent]:
            raise RuntimeError("step() called after the episode ended; call reset()")
        index = as_action(action)
        if index is None or not (0 <= index < self.action_space.n and self._mask[index]):
            if self.illegal_action == "raise":
                raise refused_action(action, agent, self._mask)
            info = self._info()
            info["illegal_action"] = True
            for a in aec.agents:
                aec.terminations[a] = True
            return self._observation(), self.illegal_reward, True, False, info
        aec.step(index)
        self._advance()
        reward = float(aec._cumulative_rewards[agent])
        terminated = bool(aec.terminations[agent])
        truncated = bool(aec.truncations[agent]) and not terminated
        return self._observation(), reward, terminated, truncated, self._info()

    def _advance(self) -> None:
        """Let the other seats play until the learner must decide or the game is over."""
        aec = self.aec
        learner = aec.possible_agents[self._seat]
        rng = self.np_random
        while not aec.terminations[learner] and not aec.truncations[learner]:
            agent = aec.agent_selection
            seat = aec.agent_name_mapping[agent]
            if seat == self._seat:
                break
            seen = aec.observe(agent)
            bot = self._bots[seat if seat < self._seat else seat - 1]
            if searches_state(bot):
                action = bot.act_in_state(aec.truth, seat, seen["action_mask"], rng)
            else:
                action = bot.act(seen["observation"], seen["action_mask"], rng)
            aec.step(int(action))
        self._mask = aec.action_mask(learner)

    def _observation(self) -> np.ndarray:
        return self.aec.observe(self.aec.possible_agents[self._seat])["observation"]

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask.copy(), "learner_seat": self._seat}

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now (bool), for sb3-contrib's MaskablePPO; all False
        once the episode is over. Before ``reset()`` a RuntimeError says to call it."""
        if not hasattr(self.aec, "terminations"):
            raise RuntimeError("action_masks() before reset(): call reset() first")
        return self._mask.astype(bool)

    @property
    def learner(self) -> str:
        """The learner's agent name in the underlying AEC env."""
        return self.aec.possible_agents[self._seat]

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


def make_single_agent(game: str, **kwargs: Any) -> SingleAgentEnv:
    """Entry point of the registered gymnasium ids."""
    return SingleAgentEnv(game, **kwargs)
