"""Using an env before ``reset()`` is a clear error saying to call it, for every game and door."""

from __future__ import annotations

import pytest

from ratenvs.games import GAMES
from ratenvs.wrappers.single_agent import SingleAgentEnv

SPECS = pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))


@SPECS
def test_raw_env_step_before_reset(spec):
    with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\)"):
        spec.load().raw_env().step(0)


@SPECS
def test_parallel_env_step_before_reset_and_after_the_end(spec):
    par = spec.load().parallel_env()
    with pytest.raises(RuntimeError, match=r"call reset\(\)"):
        par.step({})
    par.reset(seed=0)
    par.agents = []  # as after the last step of a game
    with pytest.raises(RuntimeError, match="game is over"):
        par.step({})


@SPECS
def test_single_agent_step_before_reset(spec):
    env = SingleAgentEnv(spec.name)
    with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\)"):
        env.step(0)


@SPECS
def test_env_wrapper_before_reset(spec):
    env = spec.load().env()
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
