"""Actions: Python and numpy integers (and 0-d integer arrays) are actions; nothing else is
coerced into one. An action outside the action space is a programming error, not a move:
every door that raises says so with an ``ActionOutOfBoundsError`` naming the action and the
space, ``env()`` included, and the game is unchanged. (Every type and value of action at
every door: ``test_sweep.py``.)"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from ratenvs.common.aec import ActionOutOfBoundsError, IllegalActionError, as_action
from ratenvs.games import GAMES

SPECS = pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))


def test_what_counts_as_an_action():
    assert as_action(3) == 3 and as_action(np.int64(3)) == 3 and as_action(np.array(3)) == 3
    for bad in (2.5, 3.0, True, np.True_, "1", None, np.array([3]), np.array(3.0), [3]):
        assert as_action(bad) is None, bad


@SPECS
@pytest.mark.parametrize("action", [10**6, -1, "out", 2**64])
def test_env_refuses_an_action_outside_the_action_space_in_every_game(spec, action):
    """env() (PettingZoo classic's bounds check, kept under ``python -O``): the same error
    in every game, an AssertionError as PettingZoo's and a ValueError as ours, naming the
    action and the space; the game goes on as if nothing had been sent."""
    env = spec.load().env(num_players=2)
    env.reset(seed=0)
    raw = env.unwrapped
    agent = raw.agent_selection
    before = raw.game_state()
    n = raw.num_actions
    legal = np.flatnonzero(raw.action_mask(agent)).tolist()
    with pytest.raises(ActionOutOfBoundsError) as info:
        env.step(action)
    assert isinstance(info.value, IllegalActionError | AssertionError)
    assert str(info.value) == (
        f"illegal action {action!r} for {agent}: not in its action space Discrete({n}) "
        f"(an action is an integer 0..{n - 1}); legal actions: {legal}"
    )
    assert raw.game_state() == before and not any(raw.terminations.values())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no illegal-move warning: the move is played
        env.step(legal[0])


@SPECS
def test_raw_env_and_env_draw_the_same_line(spec):
    """Out of the space: an error at both; in the space but masked: an error at raw_env,
    the end of the game with -1 at env()."""
    module = spec.load()
    raw, wrapped = module.raw_env(num_players=2), module.env(num_players=2)
    raw.reset(seed=0)
    wrapped.reset(seed=0)
    agent = raw.agent_selection
    masked = int(np.flatnonzero(raw.action_mask(agent) == 0)[0])
    for env in (raw, wrapped):
        with pytest.raises(ActionOutOfBoundsError):
            env.step(raw.num_actions)
    with pytest.raises(IllegalActionError, match=re.escape(f"illegal action {masked} for")):
        raw.step(masked)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped.step(masked)
    assert all(wrapped.terminations.values())
    assert wrapped.unwrapped._cumulative_rewards[agent] == -1.0
