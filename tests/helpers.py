"""Helpers every game's tests use: driving an AEC env's loop and random legal play.

Import it as ``import helpers`` / ``from helpers import ...`` (``tests/conftest.py`` makes
``tests/`` importable from every test folder).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from ratenvs.registration import PETTINGZOO_REGISTRY


def turns(env: Any) -> Iterator[tuple[str, dict[str, np.ndarray], float, bool]]:
    """The AEC loop of a reset ``env``: ``(agent, observation, reward, done)`` at every
    ``env.last()``. The caller steps a live agent (``done`` False); a done agent is stepped
    with None here once the caller's loop body has seen it."""
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        done = term or trunc
        yield agent, obs, reward, done
        if done:
            env.step(None)


def random_action(obs: dict[str, np.ndarray], rng: np.random.Generator) -> int:
    """A uniformly random legal action of an observation's ``action_mask``."""
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[rng.integers(legal.size)])


def play_random(env: Any, rng: np.random.Generator) -> dict[str, float]:
    """Play a reset AEC ``env`` to its end with :func:`random_action`; each agent's summed
    rewards (as ``env.last()`` reports them)."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent, obs, reward, done in turns(env):
        totals[agent] += reward
        if not done:
            env.step(random_action(obs, rng))
    return totals


def play_random_episode(env: Any, info: dict[str, Any], rng: np.random.Generator) -> float:
    """Play a reset gymnasium ``env`` (``info``: its reset's) to the episode's end with
    :func:`random_action`; the learner's summed rewards."""
    total, done = 0.0, False
    while not done:
        _, reward, term, trunc, info = env.step(random_action(info, rng))
        total += float(reward)
        done = term or trunc
    return total


def positions(
    env: Any, seed: int, every: int = 1, wait: int | None = None, wait_prob: float = 0.0
) -> Iterator[Any]:
    """Reset an AEC ``env`` with ``seed`` and play it to its end with random legal actions
    (``wait``, when given and legal, with probability ``wait_prob``), yielding the env every
    ``every`` steps and once more at the end."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    step = 0
    while env.agents and not env.terminations[env.agent_selection]:
        if step % every == 0:
            yield env
        mask = env.action_mask(env.agent_selection)
        waits = wait is not None and mask[wait] and rng.random() < wait_prob
        env.step(wait if waits else int(rng.choice(np.flatnonzero(mask))))
        step += 1
    yield env


needs_pettingzoo_registry = pytest.mark.skipif(
    not PETTINGZOO_REGISTRY, reason="this PettingZoo has no env registry (PettingZoo < 1.27)"
)
"""Marks a test of ``pettingzoo.make`` with our ids (registered only where PettingZoo has a
registry)."""


def parallel_seed_test(env_fn: Any, num_cycles: int = 60) -> None:
    """PettingZoo's ``parallel_seed_test`` with ``num_cycles`` where it takes it (PettingZoo
    >= 1.25; before, it always plays its own number of cycles)."""
    import inspect

    from pettingzoo.test import parallel_seed_test as pz_test

    if "num_cycles" in inspect.signature(pz_test).parameters:
        pz_test(env_fn, num_cycles=num_cycles)
    else:
        pz_test(env_fn)


TINY_CATZ: dict[str, Any] = {
    "game": "catz_ratz_batz",
    "env_options": {"num_players": 1, "turns": 1},
    "n_envs": 1,
    "timesteps": 64,
    "algorithm": {"n_steps": 32, "batch_size": 32, "n_epochs": 1, "net_arch": [16]},
    "eval": {"every": 0, "games": 2, "final_games": 2},
    "logging": {"progress_bar": False},
}
"""A one-turn Catz run of 64 steps, as YAML-ready data (the CLI tests write it to a file)."""
