"""Self-play snapshots are frozen: the learner's later updates leave them as they were
(on CPU ``detach().cpu()`` shares the parameters' memory, and ``PolicyBot`` kept views of
the biases, so every PPO update moved every snapshot of the pool)."""

from __future__ import annotations

import numpy as np
import torch

from training.checkpoint import PolicyBot, PolicySpec, build_policy
from training.train import frozen_state


def test_a_policy_bot_keeps_its_weights_when_the_state_dict_changes():
    spec = PolicySpec(6, 4, (8,), "tanh")
    torch.manual_seed(0)
    state = build_policy(spec).state_dict()
    bot = PolicyBot(state, spec)
    obs = np.linspace(-1, 1, 6, dtype=np.float32)
    before = bot.logits(obs).copy()
    with torch.no_grad():
        for tensor in state.values():
            tensor += 1.0  # what an optimizer step does to the live parameters
    np.testing.assert_array_equal(bot.logits(obs), before)


def test_a_frozen_state_is_a_copy_of_the_policy():
    spec = PolicySpec(6, 4, (8,), "tanh")
    policy = build_policy(spec)
    frozen = frozen_state(policy)
    with torch.no_grad():
        for p in policy.parameters():
            p += 1.0
    for key, tensor in policy.state_dict().items():
        assert not torch.equal(frozen[key], tensor), key
