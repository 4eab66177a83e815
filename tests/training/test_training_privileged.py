"""The asymmetric actor-critic (training/privileged.py): the privileged features are the true
table, only the value network reads them, and checkpoints keep the shipped policy on the
player's own observation."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from small_configs import small_ratcat_config

from ratenvs.rat_a_tat_cat import rules
from training.checkpoint import PolicySpec, build_policy, load_checkpoint, save_checkpoint
from training.config import config_from_dict
from training.privileged import PrivilegedObservation, widen_critic
from training.selfplay import make_env
from training.train import train


def ratcat_config(privileged: bool = True, **extra):
    return small_ratcat_config({"privileged_critic": privileged}, **extra)


def test_the_features_are_the_whole_truth_and_the_learner_seat():
    env = make_env(ratcat_config(learner_seat="random"), monitor=False)
    assert isinstance(env, PrivilegedObservation)
    single = env.unwrapped
    aec = single.aec
    n = aec.num_players
    base_size = env.actor_size
    truth_size = aec.state_space.shape[0]
    assert env.extra == truth_size + n
    privileged = aec.game.observer("privileged")
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=3)
    seats = set()
    for _ in range(200):
        state, seat = aec.truth, aec.agent_name_mapping[single.learner]
        seats.add(seat)
        np.testing.assert_array_equal(obs[:base_size], single._observation())
        np.testing.assert_array_equal(obs[base_size : base_size + truth_size], aec.state())
        assert obs[base_size + truth_size :].tolist() == [float(s == seat) for s in range(n)]
        hands = privileged.views(obs[base_size : base_size + truth_size])["hands"].argmax(-1)
        for p in range(n):
            kinds = [
                rules.KIND[c] if c != rules.NO_CARD else rules.NUM_KINDS for c in state.hands[p]
            ]
            assert hands[p].tolist() == kinds
        assert env.observation_space.contains(obs)
        action = int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))
        obs, _, term, trunc, _ = env.step(action)
        if term or trunc:
            obs, _ = env.reset()
    assert len(seats) > 1


@pytest.mark.parametrize(
    "game, options",
    [("catz_ratz_batz", {"num_players": 2}), ("ratto_zakko", {"num_players": 2, "level": "main"})],
)
def test_every_game_offers_a_privileged_critic(game, options):
    cfg = config_from_dict(
        {"game": game, "env_options": options, "algorithm": {"privileged_critic": True}}
    )
    env = make_env(cfg, monitor=False)
    obs, _ = env.reset(seed=1)
    assert env.observation_space.contains(obs)
    assert env.extra == env.unwrapped.aec.state_space.shape[0] + 2


def test_only_the_value_network_reads_the_privileged_entries():
    spec = PolicySpec(10, 4, (16, 16), "relu", critic_extra=6)
    policy = build_policy(spec)
    for p in policy.parameters():  # no zero-initialised path hides a dependence
        torch.nn.init.normal_(p, std=0.5)
    obs = torch.rand(32, 16)
    other = obs.clone()
    other[:, 10:] = torch.rand(32, 6)  # resample everything privileged
    with torch.no_grad():
        logits_a = policy.get_distribution(obs).distribution.logits
        logits_b = policy.get_distribution(other).distribution.logits
        values_a, values_b = policy.predict_values(obs), policy.predict_values(other)
    torch.testing.assert_close(logits_a, logits_b)
    assert not torch.allclose(values_a, values_b)
    assert policy.mlp_extractor.policy_net[0].weight.shape == (16, 10)
    assert policy.mlp_extractor.value_net[0].weight.shape == (16, 16)


def test_a_privileged_checkpoint_plays_on_the_player_observation(tmp_path):
    spec = PolicySpec(12, 5, (8,), "tanh", critic_extra=3)
    policy = build_policy(spec)
    path = save_checkpoint(
        tmp_path / "agent",
        policy.state_dict(),
        {"game": "rat_a_tat_cat", "env_options": {}, "policy": spec.to_dict()},
    )
    assert json.loads((tmp_path / "agent.json").read_text())["policy"]["critic_extra"] == 3
    ckpt = load_checkpoint(path)
    assert ckpt.spec == spec
    bot = ckpt.bot()
    obs = np.random.default_rng(1).random((20, 12)).astype(np.float32)
    masks = np.ones((20, 5), dtype=bool)
    full = torch.as_tensor(np.concatenate([obs, np.zeros((20, 3), np.float32)], axis=1))
    with torch.no_grad():
        probs = ckpt.policy().get_distribution(full).distribution.probs.numpy()
    logits = bot.logits(obs)
    ours = np.exp(logits - logits.max(axis=1, keepdims=True))
    np.testing.assert_allclose(ours / ours.sum(axis=1, keepdims=True), probs, atol=1e-5)
    np.testing.assert_array_equal(bot.greedy(obs, masks), probs.argmax(axis=1))
    with pytest.raises(ValueError, match="size 15"):
        bot.logits(full.numpy())  # the shipped policy refuses the privileged vector


def test_widening_keeps_the_value_function():
    plain = PolicySpec(10, 4, (16,), "relu")
    wide = PolicySpec(10, 4, (16,), "relu", critic_extra=5)
    source = build_policy(plain)
    target = build_policy(wide)
    target.load_state_dict(widen_critic(source.state_dict(), 5))
    obs = torch.rand(8, 10)
    with torch.no_grad():
        expected = source.predict_values(obs)
        got = target.predict_values(torch.cat([obs, torch.rand(8, 5)], dim=1))
    torch.testing.assert_close(expected, got)


def test_training_with_a_privileged_critic_and_resuming_a_plain_run(tmp_path):
    plain = train(ratcat_config(privileged=False), tmp_path / "plain")
    final = train(ratcat_config(), tmp_path / "priv", resume=plain)
    card = json.loads(final.with_suffix(".json").read_text())
    base = card["policy"]["observation_size"]
    env = make_env(ratcat_config(), monitor=False)
    assert card["policy"]["critic_extra"] == env.unwrapped.aec.state_space.shape[0] + 3
    assert card["evaluation"]["games"] == 2
    ckpt = load_checkpoint(final, game="rat_a_tat_cat", observation_size=base)
    assert ckpt.bot().logits(np.zeros(base, np.float32)).shape == (rules.num_actions(3),)
