"""``ClassicWrapper``: PettingZoo classic's ``env()`` wrapper stack in one fast layer.

PettingZoo classic envs wrap ``raw_env`` in three wrappers:
``TerminateIllegalWrapper(illegal_reward=-1)``, ``AssertOutOfBoundsWrapper`` and
``OrderEnforcingWrapper``. Each forwards attribute access through
``__getattr__``, which costs more than our games' own logic. This single
wrapper keeps exactly their behaviour, reading the raw env directly:

- order enforcing: using the env before ``reset()`` is an error (it *is* an
  ``OrderEnforcingWrapper``, so tools that check for one still see it);
- out of bounds: an action outside the action space (not an integer, or not in
  ``0 .. n-1``; :func:`~ratenvs.common.aec.as_action`) raises
  :class:`~ratenvs.common.aec.ActionOutOfBoundsError`, a ValueError (an
  ``IllegalActionError``) and an AssertionError as PettingZoo's, naming the action and
  the action space; the game is unchanged (an out-of-range action is a programming
  error, not a move);
- illegal moves: an action the mask forbids warns, ends the game for
  everyone (terminated and truncated), gives the offending agent
  ``illegal_reward`` and the others 0, as ``TerminateIllegalWrapper`` does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from ratenvs.common.aec import GameAECEnv, as_action, refused_action
from ratenvs.common.options import check_float

_NEEDS_RESET = "{} cannot be accessed before reset"


def _mirror(name: str) -> property:
    """A wrapper attribute that is the raw env's (read after reset); setting it is a no-op,
    as the raw env's value is the one the game keeps."""
    return property(lambda self: self._checked(name), lambda self, value: None)


class ClassicWrapper(OrderEnforcingWrapper):
    """PettingZoo classic's illegal-move handling, bounds check and order enforcing, fused."""

    def __init__(self, env: GameAECEnv, illegal_reward: float = -1.0) -> None:
        super().__init__(env)
        self._raw = env
        self._illegal_reward = check_float("illegal_reward", illegal_reward)

    def _checked(self, name: str) -> Any:
        if not self._has_reset:
            raise AttributeError(_NEEDS_RESET.format(name))
        return getattr(self._raw, name)

    # direct pass-through of the data the AEC loop reads every step (the raw env holds it;
    # PettingZoo < 1.25's BaseWrapper.reset copies it onto the wrapper, which is a no-op)
    agent_selection = _mirror("agent_selection")
    agents = _mirror("agents")
    rewards = _mirror("rewards")
    terminations = _mirror("terminations")
    truncations = _mirror("truncations")
    infos = _mirror("infos")
    num_agents = property(lambda self: self._checked("num_agents"))
    np_random = property(lambda self: self._raw.np_random)  # PettingZoo < 1.27 forwards none
    _cumulative_rewards = property(lambda self: self._raw._cumulative_rewards, lambda self, v: None)

    def observe(self, agent: str) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.observe(agent)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        raw = self._raw
        agent = raw.agent_selection
        try:
            return (
                raw.observe(agent) if observe else None,
                raw._cumulative_rewards[agent],
                raw.terminations[agent],
                raw.truncations[agent],
                raw.infos[agent],
            )
        except KeyError:
            return raw.last(observe)  # the error that says what to do

    def step(self, action: Any) -> None:
        raw = self._raw
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(action)
            return
        index = as_action(action)
        seat = raw.agent_name_mapping[agent]
        if index is None or not 0 <= index < raw.num_actions:
            # PettingZoo's AssertOutOfBoundsWrapper, but never stripped by -O
            raise refused_action(action, agent, raw._seat_mask(seat))
        if raw._legal_now(seat)[index]:
            raw._play(agent, seat, index)
            return
        EnvLogger.warn_on_illegal_move()
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.truncations, 0)
        raw.rewards[agent] = self._illegal_reward
        raw._accumulate_rewards()
        raw._deads_step_first()

    def __str__(self) -> str:
        return str(self._raw)


def classic_env(raw: GameAECEnv, illegal_reward: float = -1.0) -> ClassicWrapper:
    """Wrap a raw game env the way PettingZoo classic's ``env()`` does."""
    return ClassicWrapper(raw, illegal_reward=illegal_reward)


def env_function(raw_env: type[GameAECEnv]) -> Callable[..., ClassicWrapper]:
    """A game's ``env(**options)``: its ``raw_env`` wrapped by :func:`classic_env`."""

    def env(**options: Any) -> ClassicWrapper:
        """The wrapped AEC env: PettingZoo classic's illegal-move handling (the game ends, the
        offender gets -1), bounds check and order enforcing, fused into one fast wrapper.

        An action the mask forbids is a move: it ends the game (everyone terminated and
        truncated, the offender -1, the others 0). An action outside the action space (not
        an integer ``0 .. n-1``: -1, 10**6, 2.5, True, "1", None for a live agent) is a
        programming error: :class:`~ratenvs.common.aec.ActionOutOfBoundsError` (a
        ValueError and an AssertionError) naming it and the action space, the game
        unchanged."""
        return classic_env(raw_env(**options), illegal_reward=-1)

    env.__module__ = raw_env.__module__
    return env
