"""A checkpoint whose card says ``"play": "sample"`` plays its policy's softmax over the
legal actions (everywhere it plays: evaluation, a frozen seat of the batched door, the
exploit tool's target); without it, or with ``"greedy"``, the argmax as before; any other
value is refused at load."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from ratenvs import agents
from ratenvs.agents.checkpoint import CheckpointError, PolicyBot, load_checkpoint

NAME = "rat_a_tat_cat_2p_vs_heuristic"


def _copy(tmp_path, **card):
    """The shipped agent's checkpoint copied to ``tmp_path``, its card updated."""
    src = agents.agent_path(NAME)
    data = json.loads(src.read_text())
    shutil.copy(src.with_name(data["weights_file"]), tmp_path / data["weights_file"])
    data.pop("optimizer_file", None)
    data.pop("optimizer_sha256", None)
    data.update(card)
    dst = tmp_path / f"{NAME}.json"
    dst.write_text(json.dumps(data))
    return dst


def _softmax(logits, mask):
    z = np.where(mask, logits, -np.inf)
    p = np.exp(z - z.max())
    return p / p.sum()


def test_a_sampling_policy_draws_from_its_softmax_over_the_legal_actions():
    ckpt = load_checkpoint(agents.agent_path(NAME))
    bot = PolicyBot(ckpt.policy_state, ckpt.spec, sample=True)
    rng = np.random.default_rng(0)
    obs = rng.random(ckpt.spec.observation_size).astype(np.float32) * 0.2
    mask = np.zeros(ckpt.spec.num_actions, dtype=bool)
    mask[[0, 3, 7, 12]] = True
    p = _softmax(bot.logits(obs), mask)
    n = 40_000
    draws = bot.sampled(np.tile(obs, (n, 1)), np.tile(mask, (n, 1)), rng)
    assert set(np.unique(draws)) <= {0, 3, 7, 12}
    freq = np.bincount(draws, minlength=len(mask)) / n
    # within 5 standard errors of every legal action's probability
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-9)
    greedy = PolicyBot(ckpt.policy_state, ckpt.spec)
    assert greedy.act(obs, mask, rng) == int(np.argmax(p)) == greedy.act(obs, mask, rng)


def test_the_card_says_how_a_checkpoint_plays(tmp_path):
    assert load_checkpoint(agents.agent_path(NAME)).bot().sample is False
    sampled = load_checkpoint(_copy(tmp_path, play="sample"))
    assert sampled.play == "sample" and sampled.bot().sample is True
    assert load_checkpoint(_copy(tmp_path, play="greedy")).bot().sample is False
    with pytest.raises(CheckpointError, match="'play' must be one of"):
        load_checkpoint(_copy(tmp_path, play="softmax"))


def test_the_batched_door_and_the_exploit_target_sample_a_sampling_policy(tmp_path):
    from ratenvs.evaluation import resolve_agent
    from ratenvs.exploit import _door_opponents

    path = _copy(tmp_path, play="sample")
    ckpt = load_checkpoint(path)
    bot = ckpt.bot()
    rng = np.random.default_rng(1)
    obs = np.zeros((500, ckpt.spec.observation_size), dtype=np.float32)
    masks = np.ones((500, ckpt.spec.num_actions), dtype=bool)
    assert len(np.unique(bot.choose(obs, masks, rng))) > 1  # the same table, several actions
    target = _door_opponents(resolve_agent(str(path)), seed=3)
    first = target.act(0, obs, masks)
    again = _door_opponents(resolve_agent(str(path)), seed=3).act(0, obs, masks)
    assert len(np.unique(first)) > 1 and np.array_equal(first, again)  # seeded draws
    greedy = _door_opponents(resolve_agent(f"agent:{NAME}"), seed=3).act(0, obs, masks)
    assert len(np.unique(greedy)) == 1
