"""The NumPy forward pass of every shipped agent is the torch policy's: on 10,000 recorded
observations per agent (games of random legal moves through the agent's own env, fixed
seeds), the logits agree within 1e-5 plus 16 float32 rounding steps of their size (the
two libraries sum in different orders, and how far that moves a float32 sum depends on the
processor's kernels: up to 1.5e-5 on logits near 30 on one of ours) and the greedy legal
actions are the same.

The torch side is the policy training builds (sb3-contrib's MaskableActorCriticPolicy of
the card's architecture, ``training.checkpoint.build_policy``) with the shipped weights.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import numpy as np
import pytest

from ratenvs import agents
from ratenvs.games import GAMES

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # training/ (not installed) builds the torch policy
    sys.path.insert(0, str(ROOT))
OBSERVATIONS = 10_000
NAMES = [a.name for a in agents.available()]


@functools.cache
def recorded(game: str, options: tuple) -> tuple[np.ndarray, np.ndarray]:
    """At least OBSERVATIONS (observation, action mask) pairs of the acting seats in games
    of random legal moves (seeds 0, 1, ...), for one game and env options."""
    env = GAMES[game].load().raw_env(**dict(options))
    rng = np.random.default_rng(2026)
    observations, masks = [], []
    seed = 0
    while len(observations) < OBSERVATIONS:
        env.reset(seed=seed)
        seed += 1
        for _ in env.agent_iter():
            seen, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            observations.append(seen["observation"])
            masks.append(seen["action_mask"].astype(bool))
            env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))
    return np.array(observations), np.array(masks)


@pytest.mark.parametrize("name", NAMES)
def test_the_numpy_policy_is_the_torch_policy_on_10000_observations(name):
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from training.checkpoint import load_checkpoint

    ckpt = load_checkpoint(agents.agent_path(name))  # torch tensors, as training loads them
    observations, masks = recorded(ckpt.game, tuple(sorted(ckpt.env_options.items())))
    assert len(observations) >= OBSERVATIONS and masks.any(axis=1).all()
    policy = ckpt.policy()
    with torch.no_grad():
        hidden = policy.mlp_extractor.policy_net(torch.as_tensor(observations))
        torch_logits = policy.action_net(hidden).numpy()
    bot = agents.load(name)  # the library's NumPy policy, from the safetensors file
    numpy_logits = bot.logits(observations)
    rounding = 16 * float(np.finfo(np.float32).eps)
    np.testing.assert_allclose(numpy_logits, torch_logits, rtol=rounding, atol=1e-5)
    torch_actions = np.where(masks, torch_logits, -np.inf).argmax(axis=1)
    np.testing.assert_array_equal(bot.greedy(observations, masks), torch_actions)
