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

from collections.abc import Callable, Iterable, Mapping, Sequence
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
LEARNER_VIEW = "learner"
"""``render_view`` of the single-agent door that follows the learner's seat."""
MAX_DROPPED_GAMES = 1000
"""``reset`` gives up (a RuntimeError) after this many games in a row finished before the
learner's first decision."""


class SingleAgentEnv(gym.Env):
    """A game seen by one learner; every other seat is played by a bot or policy.

    Args:
        game: game name (``"catz_ratz_batz"``, ``"rat-a-tat-cat"``, ...).
        opponents: who plays the other seats: ``None`` (the game's default bot),
            one bot name, shipped agent (``"agent:NAME"``, :func:`ratenvs.agents.available`),
            checkpoint path or :class:`~ratenvs.common.bots.Bot` for every seat, a
            list with one per other seat, or a callable ``rng -> list of bots``
            called at every reset (self-play pools). An agent (or a
            :class:`~ratenvs.agents.checkpoint.PolicyBot` of :func:`ratenvs.agents.load`)
            plays only the game and rules its card was trained for (e.g.
            ``target_score=100``: give them as ``env_options``; a ValueError naming the
            seat says what differs, when the env is made) and sees the table with its
            card's view options (``owner_ceilings``, ...), as evaluations seat it; a
            policy without a card must fit the observation and action sizes.
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
        **env_options: the game env's options (``num_players``, ...); ``render_view`` is
            the game env's (``"omniscient"``, the default, or an agent name) or
            ``"learner"``: the learner's seat view, following the seat when it is drawn
            at every reset (a fixed ``"player_0"`` shows another seat's view then).
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
        self._view_follows_learner = env_options.get("render_view") == LEARNER_VIEW
        if self._view_follows_learner:
            env_options = {**env_options, "render_view": "player_0"}  # set at every reset
        self.aec: GameAECEnv = self.spec_game.load().raw_env(render_mode=render_mode, **env_options)
        # the game's own pace (Ratto Zakko's window runs at 4 frames a second, not 2)
        self.metadata = {**self.metadata, "render_fps": self.aec.metadata["render_fps"]}
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
            if callable(opponents) and not isinstance(opponents, (Bot, type))
            else self._seated(self._resolve(opponents, n - 1))
        )
        agent0 = self.aec.possible_agents[0]
        self.observation_space = self.aec.observation_space(agent0)["observation"]
        self.action_space = self.aec.action_space(agent0)
        self._seat = 0 if learner_seat == "random" else int(learner_seat)
        self._follow_view()
        self._bots: list[Bot] = []
        self._mask = np.zeros(self.action_space.n, dtype=np.int8)

    def _maker(self, x: Any) -> Callable[[], Bot]:
        """How to make the opponent ``x``: a bot name, a shipped agent ``agent:NAME``, a
        checkpoint path (or ``game:bot``, as :func:`~ratenvs.evaluation.resolve_agent`
        takes them) or a bot (itself); else a ValueError."""
        game = self.spec_game.name
        if isinstance(x, str):
            bots = self.spec_game.bots()
            if x in bots:
                return bots[x]
            if not x.strip():
                raise ValueError(
                    f"option 'opponents': an empty name; choose a bot from {sorted(bots)}, a "
                    "shipped agent as agent:NAME or a checkpoint path"
                )
            from ratenvs.agents import AGENT_PREFIX, is_checkpoint_path

            if x.startswith(AGENT_PREFIX) or ":" in x or is_checkpoint_path(x):
                from ratenvs.evaluation import resolve_agent

                try:
                    return resolve_agent(x, game).make
                except ValueError as exc:
                    raise ValueError(f"option 'opponents': {exc}") from None
            raise ValueError(
                f"unknown opponent {x!r} for {game}; choose a bot from {sorted(bots)}, a "
                "shipped agent as agent:NAME (ratenvs.agents.available()) or a checkpoint path"
            )
        if isinstance(x, type):
            raise ValueError(f"opponent {x.__name__} is a class; give a bot: {x.__name__}()")
        if hasattr(x, "act"):
            return lambda: x
        raise ValueError(f"opponent {x!r} is neither a bot name nor has act()")

    def _resolve(self, opponents: Any, count: int) -> list[Bot]:
        if opponents is None:
            opponents = self.spec_game.default_opponent
        if isinstance(opponents, str | type) or hasattr(opponents, "act"):
            make = self._maker(opponents)  # checked also when there is no other seat
            return [make() for _ in range(count)]
        if isinstance(opponents, bytes | Mapping) or not isinstance(opponents, Iterable):
            raise ValueError(
                "option 'opponents' takes a bot name, a shipped agent (agent:NAME), a "
                "checkpoint path or a bot for every seat, a list of them (one per other "
                f"seat) or a callable rng -> list of bots; got {opponents!r}"
            )
        opponents = list(opponents)
        if len(opponents) != count:
            raise ValueError(f"option 'opponents' needs {count} entries, got {len(opponents)}")
        return [self._maker(x)() for x in opponents]

    def _seated(self, bots: list[Bot]) -> list[Bot]:
        """``bots`` in the other seats, each as :func:`~ratenvs.common.bots.with_own_view`
        seats it (a policy with a card: of this game and rules, seeing with its card's view
        options) and fitting what it sees
        (:func:`~ratenvs.evaluation.check_policy_fits`); else a ValueError naming its seat."""
        from ratenvs.evaluation import check_policy_fits

        seated = []
        for i, bot in enumerate(bots):
            name = repr(str(getattr(bot, "name", type(bot).__name__)))
            try:
                own = with_own_view(bot, self.aec.game)
                # one in an OwnView sees its card's options: checked against its policy at load
                if own is bot:
                    label = f"agent {name}"
                    check_policy_fits(label, bot, self.aec, self.spec_game.name, self.aec.options)
            except ValueError as exc:
                if self.learner_seat == "random":
                    where = f"opponent {i + 1} of {len(bots)}"
                else:
                    where = f"seat {i if i < self.learner_seat else i + 1}"
                raise ValueError(f"option 'opponents', {where}: {exc}") from None
            seated.append(own)
        return seated

    # ------------------------------------------------------------ gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=check_seed(seed))
        n = self.aec.num_players
        if self.learner_seat == "random":
            self._seat = int(self.np_random.integers(n))
            self._follow_view()
        if self._fixed_opponents is None:
            self._bots = self._seated(self._resolve(self._opponents_arg(self.np_random), n - 1))
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

    def _follow_view(self) -> None:
        if self._view_follows_learner:
            self.aec.render_view = self.aec.possible_agents[self._seat]

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
