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


@SPECS
@pytest.mark.parametrize("bad", [1.9, "1", True, None])
def test_the_gymnasium_door_never_coerces_an_action(spec, bad):
    from ratenvs.wrappers.single_agent import SingleAgentEnv

    env = SingleAgentEnv(spec.name, illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match=re.escape(repr(bad))):
        env.step(bad)
    terminating = SingleAgentEnv(spec.name)
    terminating.reset(seed=0)
    _, reward, terminated, _, info = terminating.step(bad)
    assert terminated and reward == -1.0 and info["illegal_action"]


def test_the_parallel_env_counts_a_non_integer_as_the_default_action():
    from ratenvs import ratto_zakko_v0

    plain, odd = (
        ratto_zakko_v0.parallel_env(num_players=2),
        ratto_zakko_v0.parallel_env(num_players=2),
    )
    plain.reset(seed=3)
    odd.reset(seed=3)
    wait = plain.game.default_action(plain.truth, 0)
    answer = wait + 1  # a response, legal while the card is open
    a = plain.step({"player_0": wait, "player_1": wait})
    b = odd.step({"player_0": float(answer), "player_1": str(answer)})  # never coerced
    assert plain.game_state() == odd.game_state() and a[1] == b[1]
