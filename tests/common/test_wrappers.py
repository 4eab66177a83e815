"""The fused ClassicWrapper behaves exactly like PettingZoo classic's three-wrapper stack."""

import numpy as np
import pytest
from pettingzoo.utils import wrappers

from ratenvs.catz_ratz_batz.env import raw_env
from ratenvs.common.wrappers import ClassicWrapper


def _pettingzoo_stack(**kw):
    e = wrappers.TerminateIllegalWrapper(raw_env(**kw), illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def _trace(env, seed, illegal_at):
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out = []
    for i, agent in enumerate(env.agent_iter()):
        obs, reward, term, trunc, info = env.last()
        out.append((agent, obs["observation"].tobytes(), reward, term, trunc, dict(info)))
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        if i == illegal_at:
            action = int(np.flatnonzero(mask == 0)[0])
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
    return out, dict(env.unwrapped._cumulative_rewards)


@pytest.mark.parametrize("illegal_at", [None, 0, 5, 17])
def test_same_trace_as_pettingzoo_classic_wrappers(illegal_at):
    for seed in range(3):
        ours = _trace(ClassicWrapper(raw_env(num_players=3, turns=3)), seed, illegal_at)
        theirs = _trace(_pettingzoo_stack(num_players=3, turns=3), seed, illegal_at)
        assert ours == theirs


def test_is_an_order_enforcing_wrapper_and_checks_bounds():
    env = ClassicWrapper(raw_env())
    assert isinstance(env, wrappers.OrderEnforcingWrapper)
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.terminations
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="action space"):
        env.step(-1)
    with pytest.raises(AssertionError, match="action space"):
        env.step("roll")
    env.step(np.int64(3))  # numpy integers are fine
