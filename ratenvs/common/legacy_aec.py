"""The old AEC shell, kept only until every game runs on :mod:`ratenvs.common.aec` (temporary).

A game env subclasses :class:`GameAECEnv` and supplies five small methods
(``_new_game``, ``_current_seat``, ``_action_mask``, ``_apply``,
``_observation_vector``) plus ``_is_over`` and ``_render_text``; this class
does the PettingZoo bookkeeping (agents, rewards, cumulative rewards,
terminations, dead steps, seeding, render modes) once, fast, for all games.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from ratenvs.common.aec import IllegalActionError
from ratenvs.common.options import check_render_mode
from ratenvs.common.render import HumanWindow, check_render_view


class LegacyAECEnv(AECEnv):
    """Base AEC env: one seat acts at a time, observations are ``{"observation", "action_mask"}``.

    Subclasses set ``metadata`` and call :meth:`_setup_spaces` from ``__init__``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "game"}

    def _setup_spaces(
        self,
        num_players: int,
        obs_low: np.ndarray,
        obs_high: np.ndarray,
        num_actions: int,
        render_mode: str | None,
        render_view: str = "omniscient",
    ) -> None:
        """Create agents and spaces once; the same space objects are returned every call."""
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        self.num_players = num_players
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.render_view = check_render_view(render_view, self.possible_agents)
        self._window: HumanWindow | None = None
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.num_actions = num_actions
        obs_box = spaces.Box(
            low=np.asarray(obs_low, dtype=np.float32),
            high=np.asarray(obs_high, dtype=np.float32),
            dtype=np.float32,
        )
        mask_box = spaces.Box(low=0, high=1, shape=(num_actions,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_box, "action_mask": mask_box})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self._no_actions = np.zeros(num_actions, dtype=np.int8)
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.agents = []

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # -------------------------------------------------- what a game supplies
    def _new_game(self) -> None:  # pragma: no cover - abstract
        """Deal / set up a new game using ``self.np_random``."""
        raise NotImplementedError

    def _current_seat(self) -> int:  # pragma: no cover - abstract
        """The seat that must decide now (only called while the game is not over)."""
        raise NotImplementedError

    def _action_mask(self, seat: int) -> np.ndarray:  # pragma: no cover - abstract
        """int8 mask of the legal actions of ``seat`` (all zero if it is not to act)."""
        raise NotImplementedError

    def _apply(self, seat: int, action: int) -> Sequence[float] | None:  # pragma: no cover
        """Play a legal ``action`` for ``seat``; return this step's reward per seat (or None)."""
        raise NotImplementedError

    def _is_over(self) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def _observation_vector(self, seat: int) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _render_text(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def render_text(self, view: str = "omniscient") -> str:
        """The table as text (the omniscient view)."""
        return self._render_text()

    # ------------------------------------------------------------- AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; ``seed`` re-seeds the env's generator (reset takes no options)."""
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._new_game()
        self.agent_selection = self.possible_agents[self._current_seat()]
        if self.render_mode == "human":
            self.render()

    def action_mask(self, agent: str) -> np.ndarray:
        """The legal actions of ``agent`` now."""
        return self._action_mask(self.agent_name_mapping[agent])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        return {
            "observation": self._observation_vector(seat),
            "action_mask": self._action_mask(seat),
        }

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.agent_name_mapping[agent]
        mask = self._action_mask(seat)
        if action is None or not 0 <= action < self.num_actions or not mask[action]:
            raise IllegalActionError(
                f"illegal action {action!r} for {agent}; legal actions: "
                f"{np.flatnonzero(mask).tolist()} (use env() for PettingZoo's "
                "terminate-on-illegal-move handling)"
            )
        self._play(agent, seat, int(action))

    def _play(self, agent: str, seat: int, action: int) -> None:
        """Play an action already known to be legal for ``agent`` (its seat ``seat``)."""
        self._cumulative_rewards[agent] = 0.0
        step_rewards = self._apply(seat, action)
        rewards = self.rewards
        if step_rewards is None:
            for a in rewards:
                rewards[a] = 0.0
        else:
            for a, r in zip(self.possible_agents, step_rewards):
                if a in rewards:
                    rewards[a] = float(r)
        if self._is_over():
            for a in self.agents:
                self.terminations[a] = True
        else:
            self.agent_selection = self.possible_agents[self._current_seat()]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    _draws_frames: ClassVar[bool] = False
    """True for games that implement :meth:`_render_frame` (``rgb_array`` and the window)."""

    def _render_frame(self) -> np.ndarray:  # pragma: no cover - abstract
        """The state as seen from ``self.render_view``, as an (H, W, 3) uint8 picture."""
        raise NotImplementedError

    @property
    def render_seat(self) -> int | None:
        """The seat whose view is rendered, or None for the omniscient view."""
        view = self.render_view
        return None if view == "omniscient" else self.agent_name_mapping[view]

    def render(self) -> str | np.ndarray | None:
        """ "ansi": the text; "rgb_array": the picture; "human": shows it in a window."""
        mode = self.render_mode
        if mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=...")
            return None
        if mode == "ansi":
            return self._render_text()
        if mode == "human" and not self._draws_frames:
            print(self._render_text())
            return None
        frame = self._render_frame()
        if mode == "rgb_array":
            return frame
        if self._window is None:
            self._window = HumanWindow(self.metadata["name"])
        self._window.show(frame, self.metadata.get("render_fps", 2))
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None
