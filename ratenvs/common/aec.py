"""One AEC env and one parallel env for any :class:`~ratenvs.common.game.Game`.

A game's env module declares ``class raw_env(GameAECEnv, game=..., draw=...)``
with its :class:`~ratenvs.common.game.Game` and picture function (and, for
every game, ``parallel_env`` the same way over :class:`GameParallelEnv`); the
metadata, the option signature and everything else - agents, rewards,
cumulative rewards, terminations, dead steps, seeding, render modes,
``state()`` - is done here once, fast, for all games.

Turns: the AEC env asks the game who acts (``to_act``). In a turn-based game
that is one seat and its action is applied at once. When several seats act at
once (a Ratto Zakko tick) they act one after another in seat order, nobody
sees another's action of the same step, and the step is applied after the
last of them, as PettingZoo's ``parallel_to_aec`` does. ``parallel_env`` takes
the actions of every seat that acts in one ``step``.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv

from ratenvs.common.game import Game
from ratenvs.common.options import RENDER_VIEW_HELP, check_render_mode, check_seed
from ratenvs.common.render import TEXT_INSTEAD, HumanWindow, check_render_view, pygame_installed

OMNISCIENT = "omniscient"
Draw = Callable[[Game, Any, list[str], int | None, Mapping[int, int] | None], np.ndarray]
"""A game's picture function (see :attr:`_GameEnvBase.draw`)."""
_RENDER_PARAMS = (
    inspect.Parameter(
        "render_mode", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=str | None
    ),
    inspect.Parameter(
        "render_view", inspect.Parameter.KEYWORD_ONLY, default=OMNISCIENT, annotation=str
    ),
)


def options_table(game_class: type[Game]) -> str:
    """The Markdown table of an env's options: the game's spec, then the render options;
    then the rules between options, if the game has any."""
    return (
        game_class.options.table()
        + '\n| `render_mode` | `None` | None / "ansi" / "rgb_array" / "human" | "ansi" returns '
        'text, "rgb_array" an (H, W, 3) uint8 picture, "human" shows it in a pygame window |'
        + f"\n| `render_view` | `'omniscient'` | 'omniscient' / an agent name | {RENDER_VIEW_HELP}"
        " (only what that seat may see) |"
        + (f"\n\n{rules}" if (rules := game_class.options.rules_text()) else "")
    )


NEEDS_RESET = "{}() before reset(): call reset() first"


def as_action(value: Any) -> int | None:
    """``value`` as an action index if it is an integer (Python or numpy, or a 0-d integer
    array), else None: a float, a bool, a string or None is never coerced into an action."""
    if type(value) is int:
        return value
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
        return int(value)
    return None


class IllegalActionError(ValueError):
    """An agent played an action its action mask forbids (raised by ``raw_env``, a
    turn-based ``parallel_env`` and the gymnasium door with ``illegal_action="raise"``)."""


class ActionOutOfBoundsError(IllegalActionError, AssertionError):
    """An action outside the action space ``Discrete(n)``: not an integer (see
    :func:`as_action`) or not in ``0 .. n-1``. A programming error, not a move of the game,
    so every door raises it, ``env()`` included (PettingZoo classic's
    ``AssertOutOfBoundsWrapper`` raises an AssertionError there, and this is one too); the
    game is unchanged."""


_SHOWN_CHARS = 80
"""Longest ``repr`` of a refused input an error message quotes."""


def _shown(value: Any) -> str:
    """``repr(value)``, cut to a readable length for an error message."""
    text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


def refused_action(action: Any, agent: str, mask: np.ndarray, hint: str = "") -> IllegalActionError:
    """The error for ``action`` refused for ``agent`` whose legal actions are ``mask``: an
    :class:`ActionOutOfBoundsError` if it is not in the action space, else an
    :class:`IllegalActionError` (followed by ``hint``). Both name the action, the legal
    actions and the agent."""
    legal = np.flatnonzero(mask).tolist()
    n = len(mask)
    index = as_action(action)
    if index is None or not 0 <= index < n:
        return ActionOutOfBoundsError(
            f"illegal action {_shown(action)} for {agent}: not in its action space "
            f"Discrete({n}) (an action is an integer 0..{n - 1}); legal actions: {legal}"
        )
    return IllegalActionError(f"illegal action {index} for {agent}; legal actions: {legal}{hint}")


TURN_BASED_ILLEGAL_ACTIONS = """\
An action is an integer (Python or numpy, or a 0-d integer array); nothing else
(2.5, True, "1") is ever coerced into one. An action the mask forbids: `raw_env`
and `parallel_env()` raise :class:`~ratenvs.common.aec.IllegalActionError` (a
ValueError) naming it and the legal actions, the game unchanged; `env()` applies
PettingZoo classic's handling: the game ends and the offending seat gets -1. An
action outside the action space (-1, 10**6, 2.5, "1", or None for a live agent) is
a programming error, not a move: `raw_env`, `env()` and `parallel_env()` raise
:class:`~ratenvs.common.aec.ActionOutOfBoundsError` (an IllegalActionError, and an
AssertionError as PettingZoo's bounds check, kept under `python -O`) naming the
action and the action space, the game unchanged. (The gymnasium door ends the
episode with -1 for any action that is not legal, or raises the same errors with
`illegal_action="raise"`.)"""
"""The "Illegal actions" section of a turn-based game's env docstring."""

RAW_ENV_HINT = " (use env() for PettingZoo's terminate-on-illegal-move handling)"
GAME_OVER = "{}() after the game ended (every agent is done): call reset()"


class _GameEnvBase:
    """What the AEC and the parallel env share: the game, spaces, ``state()``, rendering."""

    game_class: ClassVar[type[Game]]
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "name": "game"}

    def __init_subclass__(
        cls,
        game: type[Game] | None = None,
        draw: Draw | None = None,
        render_fps: int = 2,
        **kwargs: Any,
    ) -> None:
        """``class raw_env(GameAECEnv, game=G, draw=render.draw, render_fps=2)`` declares a
        game's env: its ``game_class``, its picture hook ``draw`` and its ``metadata``
        (named ``<game name>_v<game version>``; "ansi", "human" and, with ``draw``, "rgb_array")."""
        super().__init_subclass__(**kwargs)
        if game is not None:
            cls.game_class = game
            modes = ["ansi", "human"] + (["rgb_array"] if draw is not None else [])
            # not parallelizable: each game has a native parallel_env, and PettingZoo's
            # aec_to_parallel expects every live agent to step once per cycle (a Ratto
            # Zakko tick does not: a seat that has answered is not asked again this card)
            cls.metadata = {
                "render_modes": modes,
                "name": f"{game.name}_v{game.version}",
                "is_parallelizable": False,
                "render_fps": render_fps,
            }
        if draw is not None:
            cls.draw = staticmethod(draw)
        game_class = cls.__dict__.get("game_class")
        if game_class is None:
            return

        def __init__(self: Any, **options: Any) -> None:
            super(cls, self).__init__(**options)

        __init__.__signature__ = game_class.options.signature(_RENDER_PARAMS)  # type: ignore[attr-defined]
        __init__.__doc__ = (
            f"{game_class.title}; every option is keyword-only (see the module docstring).\n\n"
            + options_table(game_class)
        )
        __init__.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = __init__  # type: ignore[method-assign]

    def _setup(self, render_mode: str | None, render_view: str, options: dict[str, Any]) -> None:
        self.game: Game = self.game_class(**options)
        game = self.game
        self.options: dict[str, Any] = dict(game.params)
        """The checked options (every one, defaults included): what a record stores."""
        self.observer = game.observer(game.observation_kind)
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        self.num_players = n = game.num_players
        self.num_actions = game.num_actions
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.render_view = check_render_view(render_view, self.possible_agents)
        self._window: HumanWindow | None = None
        obs_box = spaces.Box(low=self.observer.low, high=self.observer.high, dtype=np.float32)
        mask_box = spaces.Box(low=0, high=1, shape=(self.num_actions,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_box, "action_mask": mask_box})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        truth = game.observer("privileged")
        self.state_space = spaces.Box(low=truth.low, high=truth.high, dtype=np.float32)
        self._no_actions = np.zeros(self.num_actions, dtype=np.int8)
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.agents: list[str] = []
        self.truth = game.init(np.random.default_rng(0))
        """The game's true state (every hidden card): for replays, tests and the privileged
        view only; observations come from the observer."""
        self._dealt = False  # reset() has dealt a game (render() shows nothing before)

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def state(self) -> np.ndarray:
        """The whole truth as a float32 vector (the ``privileged`` observer), for centralised
        critics; it lies in ``state_space``."""
        return self.game.observer("privileged").observe(self.truth, None)

    def game_state(self) -> dict[str, Any]:
        """The whole truth as JSON-ready data (for replays and debugging)."""
        return self.game.to_json(self.truth)

    # ---------------------------------------------------------------- render
    @property
    def render_seat(self) -> int | None:
        """The seat whose view is rendered, or None for the omniscient view."""
        view = self.render_view
        return None if view == OMNISCIENT else self.agent_name_mapping[view]

    def render_text(self, view: str = OMNISCIENT) -> str:
        """The table as text from ``view``: "omniscient" or an agent name (what it may see)."""
        if view != OMNISCIENT and view not in self.agent_name_mapping:
            raise ValueError(f"option 'view' must be {OMNISCIENT!r} or an agent name, got {view!r}")
        seat = None if view == OMNISCIENT else self.agent_name_mapping[view]
        return self.observer.string_from(self.truth, seat)

    draw: ClassVar[Draw | None] = None
    """The game's pictures (``rgb_array`` and the window), set as ``staticmethod(draw)``:
    ``draw(game, state, agents, view_seat, pending)`` is the frame of ``state`` seen by
    ``view_seat`` (None: omniscient); ``pending`` (seat -> action) holds the actions the
    AEC env keeps until the last seat of a simultaneous step has acted (None in the
    parallel env). None: the game has text only ("human" prints it)."""

    def _render_frame(self) -> np.ndarray:
        """The state as seen from ``self.render_view``, as an (H, W, 3) uint8 picture."""
        pending = getattr(self, "_pending", None)
        return self.draw(self.game, self.truth, self.possible_agents, self.render_seat, pending)

    def render(self) -> str | np.ndarray | None:
        """ "ansi": the text; "rgb_array": the picture; "human": shows it in a window."""
        mode = self.render_mode
        if not self._dealt:  # the placeholder deal is nobody's game
            raise RuntimeError(NEEDS_RESET.format("render"))
        if mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=...")
            return None
        if mode == "ansi":
            return self.render_text(self.render_view)
        if mode == "human" and self.draw is not None and not pygame_installed():
            # the envs-only install: the text, as without draw, for this env from now on
            self.draw = None  # (the class keeps its draw)
            warnings.warn(TEXT_INSTEAD, stacklevel=2)
        if mode == "human" and self.draw is None:
            print(self.render_text(self.render_view))
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


class GameAECEnv(_GameEnvBase, AECEnv):
    """The AEC env of a game: one seat decides at a time; observations are
    ``{"observation", "action_mask"}`` dicts (see the module docstring)."""

    def __init__(
        self, render_mode: str | None = None, render_view: str = OMNISCIENT, **options: Any
    ) -> None:
        super().__init__()
        self._setup(render_mode, render_view, options)
        self._queue: tuple[int, ...] = ()
        self._pending: dict[int, int] = {}
        self._legal: bytes | None = None
        """The legal actions of ``agent_selection`` as its last observation's mask showed
        them (one byte per action), while the game is unchanged since; else None."""
        self._legal_truth: Any = None
        """The state ``_legal`` was read from (a state put in ``truth`` by hand is read
        again)."""

    # ------------------------------------------------------------- AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; ``seed`` (None or an integer >= 0) re-seeds the env's generator
        (``options`` is accepted and ignored, as in PettingZoo's classic envs: a game's
        options are given when its env is made)."""
        if type(seed) is not int or seed < 0:
            seed = check_seed(seed)
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.truth = self.game.init(self.np_random)
        self._dealt = True
        self._queue = self.game.to_act(self.truth)
        self._pending = {}
        self._legal = None
        self.agent_selection = self.possible_agents[self._queue[0]]
        if self.render_mode == "human":
            self.render()

    def _selected(self, method: str) -> str:
        """``agent_selection``, or the error that ``method`` was called before ``reset()``."""
        try:
            return self.agent_selection
        except AttributeError:
            raise RuntimeError(NEEDS_RESET.format(method)) from None

    def action_mask(self, agent: str) -> np.ndarray:
        """The legal actions of ``agent`` now (all zero unless it is ``agent_selection``)."""
        self._selected("action_mask")
        return self._seat_mask(self.agent_name_mapping[agent])

    def _seat_mask(self, seat: int) -> np.ndarray:
        # agent_selection is the next seat of to_act without an action yet
        if self._queue and self.possible_agents[seat] == self.agent_selection:
            return self.game.legal_mask(self.truth, seat)
        return self._no_actions.copy()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        truth = self.truth
        if self._queue and agent == self.agent_selection:
            mask = self.game.legal_mask(truth, seat)
            self._legal = mask.tobytes()  # what step checks the action against
            self._legal_truth = truth
        else:
            self._selected("observe")  # before reset(): the error
            mask = self._no_actions.copy()
        return {"observation": self.observer.observe(truth, seat), "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """PettingZoo's ``last``: the observation (if ``observe``), cumulative reward,
        termination, truncation and info of ``agent_selection``."""
        try:
            agent = self.agent_selection
            return (
                self.observe(agent) if observe else None,
                self._cumulative_rewards[agent],
                self.terminations[agent],
                self.truncations[agent],
                self.infos[agent],
            )
        except AttributeError:
            if hasattr(self, "agent_selection"):
                raise
            raise RuntimeError(NEEDS_RESET.format("last")) from None
        except KeyError:
            if agent in self._cumulative_rewards:
                raise
            # the last agent done has stepped out of the game
            raise RuntimeError(GAME_OVER.format("last")) from None

    def _legal_now(self, seat: int) -> bytes | np.ndarray:
        """The legal actions of ``seat``, the selected agent: the mask its observation
        showed if the game has not changed since, else built now."""
        legal = self._legal
        if legal is not None and self._legal_truth is self.truth:
            return legal
        return self._seat_mask(seat)

    def step(self, action: int | None) -> None:
        try:
            agent = self.agent_selection
            dead = self.terminations[agent] or self.truncations[agent]
        except AttributeError:
            raise RuntimeError(NEEDS_RESET.format("step")) from None
        except KeyError:  # the last agent done has stepped out of the game
            raise RuntimeError(GAME_OVER.format("step")) from None
        if dead:
            self._legal = None
            self._was_dead_step(action)
            return
        seat = self.agent_name_mapping[agent]
        legal = self._legal_now(seat)
        index = action if type(action) is int else as_action(action)
        if index is None or not 0 <= index < self.num_actions or not legal[index]:
            raise refused_action(action, agent, self._seat_mask(seat), RAW_ENV_HINT)
        self._play(agent, seat, index)

    def _play(self, agent: str, seat: int, action: int) -> None:
        """Play an action already known to be legal for ``agent`` (its seat ``seat``)."""
        self._cumulative_rewards[agent] = 0.0
        self._legal = None
        queue = self._queue
        step_rewards: Sequence[float] | None = None
        if len(queue) == 1:  # turn-based: the one seat to act plays at once
            step_rewards = self._apply({seat: action})
        else:
            pending = self._pending
            pending[seat] = action
            if len(pending) == len(queue):
                self._pending = {}
                step_rewards = self._apply(pending)
            else:
                self.agent_selection = self.possible_agents[queue[len(pending)]]
        rewards = self.rewards
        if step_rewards is not None:
            for a, r in zip(self.possible_agents, step_rewards):
                if a in rewards:
                    rewards[a] = float(r)
            self._accumulate_rewards()
        elif any(rewards.values()):  # a step without rewards adds nothing to the sums
            for a in rewards:
                rewards[a] = 0.0
        if self.render_mode == "human":
            self.render()

    def _apply(self, actions: dict[int, int]) -> Sequence[float] | None:
        """Apply one step of the game (every seat of ``to_act``): infos, who acts next, or
        every agent terminated; returns the step's rewards (None: all zero)."""
        game = self.game
        truth = self.truth
        infos: dict[int, dict[str, Any]] = {}
        step_rewards = game.apply(truth, actions, self.np_random, infos)
        names = self.possible_agents
        told = self.infos
        if any(told.values()):  # what the step before told (none: empty)
            for a, info in told.items():
                if info:
                    told[a] = {}
        for s, info in infos.items():
            told[names[s]] = info
        self._queue = queue = game.to_act(truth)
        if queue:
            self.agent_selection = names[queue[0]]
        else:
            for a in self.agents:
                self.terminations[a] = True
        return step_rewards


class GameParallelEnv(_GameEnvBase, ParallelEnv):
    """The parallel env of a game: one ``step`` takes the action of every seat that acts.

    Every live agent gets an observation and a mask; seats that do not act now
    get the game's ``waiting_mask`` (all zero unless the game says otherwise) and
    their actions are ignored. A seat that acts and
    gives no action or an illegal one plays the game's default action (Ratto
    Zakko: wait; the relocating winner: leave both), or, in a game without one,
    raises :class:`IllegalActionError` (:class:`ActionOutOfBoundsError` for an action
    outside the action space), the game unchanged. ``actions`` that is not a dict, or
    names an agent the game does not have, is an error too. The same seed and the same
    actions give the same game as the AEC form.
    """

    def __init__(
        self, render_mode: str | None = None, render_view: str = OMNISCIENT, **options: Any
    ) -> None:
        self._setup(render_mode, render_view, options)

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        game, truth, observe = self.game, self.truth, self.observer.observe
        acting = set(game.to_act(truth))
        out = {}
        for i, a in enumerate(self.possible_agents):
            if a in self.agents:
                mask = game.legal_mask(truth, i) if i in acting else game.waiting_mask(truth, i)
                out[a] = {"observation": observe(truth, i), "action_mask": mask}
        return out

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a new game; ``seed`` (None or an integer >= 0) re-seeds the env's generator
        (``options`` is accepted and ignored, as in PettingZoo's classic envs: a game's
        options are given when its env is made)."""
        seed = check_seed(seed)
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.agents = self.possible_agents[:]
        self.truth = self.game.init(self.np_random)
        self._dealt = True
        if self.render_mode == "human":
            self.render()
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Play one step with ``actions`` (agent -> action) for the seats that act now."""
        if not self.agents:
            raise RuntimeError((GAME_OVER if self._dealt else NEEDS_RESET).format("step"))
        if not isinstance(actions, Mapping):
            raise TypeError(f"actions must be a dict agent -> action, got {_shown(actions)}")
        unknown = [a for a in actions if a not in self.agent_name_mapping]
        if unknown:
            raise ValueError(f"unknown agent(s) {unknown}; the agents are {self.possible_agents}")
        game, truth = self.game, self.truth
        names = self.possible_agents
        chosen: dict[int, int] = {}
        for seat in game.to_act(truth):
            mask = game.legal_mask(truth, seat)
            given = actions.get(names[seat])
            action = _legal_or_none(given, mask)
            if action is None:
                action = game.default_action(truth, seat)
                if action is None and names[seat] not in actions:
                    raise IllegalActionError(
                        f"no action for {names[seat]}, who acts now; legal actions: "
                        f"{np.flatnonzero(mask).tolist()}"
                    )
                if action is None:
                    raise refused_action(given, names[seat], mask)
            chosen[seat] = action
        infos_now: dict[int, dict[str, Any]] = {}
        step_rewards = game.apply(truth, chosen, self.np_random, infos_now) if chosen else None
        rewards = {
            a: 0.0 if step_rewards is None else float(step_rewards[i])
            for i, a in enumerate(names)
            if a in self.agents
        }
        over = game.is_terminal(truth)
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, False)
        infos = {a: infos_now.get(self.agent_name_mapping[a], {}) for a in self.agents}
        observations = self._observations()
        if over:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos


def _legal_or_none(action: Any, mask: np.ndarray) -> int | None:
    """``action`` as an index if it is an integer (:func:`as_action`) that ``mask`` allows,
    else None."""
    a = as_action(action)
    if a is not None and 0 <= a < len(mask) and mask[a]:
        return a
    return None
