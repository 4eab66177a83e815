"""Actions: Python and numpy integers (and 0-d integer arrays) are actions; nothing else is
coerced into one. ``raw_env`` answers anything else with an IllegalActionError naming the
value and the legal actions, and loses nothing (the game is unchanged)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ratenvs.common.aec import IllegalActionError, as_action
from ratenvs.games import GAMES

SPECS = pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))


def test_what_counts_as_an_action():
    assert as_action(3) == 3 and as_action(np.int64(3)) == 3 and as_action(np.array(3)) == 3
    for bad in (2.5, 3.0, True, np.True_, "1", None, np.array([3]), np.array(3.0), [3]):
        assert as_action(bad) is None, bad


@SPECS
@pytest.mark.parametrize("bad", [2.5, 1.0, True, "1", None, np.array([0])])
def test_raw_env_refuses_a_non_integer_action_and_keeps_the_game(spec, bad):
    env = spec.load().raw_env(num_players=2)
    env.reset(seed=1)
    before = env.game_state()
    legal = np.flatnonzero(env.action_mask(env.agent_selection)).tolist()
    expected = re.escape(f"legal actions: {legal}")
    with pytest.raises(IllegalActionError, match=rf"illegal action .*{expected}"):
        env.step(bad)
    assert env.game_state() == before


@SPECS
def test_raw_env_takes_numpy_integers(spec):
    env = spec.load().raw_env(num_players=2)
    env.reset(seed=1)
    legal = np.flatnonzero(env.action_mask(env.agent_selection))
    env.step(np.int32(legal[0]))
    env.step(np.array(np.flatnonzero(env.action_mask(env.agent_selection))[0]))
