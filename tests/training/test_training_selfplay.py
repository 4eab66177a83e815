"""The self-play pool: bots and frozen learner snapshots, drawn per opponent seat."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from training.checkpoint import PolicyBot, PolicySpec, build_policy
from training.selfplay import OpponentPool

SPEC = PolicySpec(12, 4, (8,), "tanh")


def snapshot_state():
    return build_policy(SPEC).state_dict()


def test_pool_without_snapshots_draws_only_bots():
    pool = OpponentPool("catz_ratz_batz", ["random", "optimal"], snapshot_prob=1.0, seats=3)
    rng = np.random.default_rng(0)
    drawn = [b.name for _ in range(50) for b in pool(rng)]
    assert set(drawn) == {"random", "optimal"}
    assert len(drawn) == 150


def test_pool_mixes_snapshots_at_the_given_rate_and_keeps_the_newest():
    torch.manual_seed(0)
    pool = OpponentPool("catz_ratz_batz", ["random"], snapshot_prob=0.25, max_snapshots=2, seats=1)
    for _ in range(3):
        pool.add_snapshot(snapshot_state(), SPEC)
    assert [s.name for s in pool.snapshots] == ["snapshot_1", "snapshot_2"]
    rng = np.random.default_rng(1)
    draws = [pool(rng)[0] for _ in range(4000)]
    share = np.mean([isinstance(b, PolicyBot) for b in draws])
    assert share == pytest.approx(0.25, abs=0.03)


def test_pool_draws_fixed_checkpoints_beside_the_newest_snapshots():
    fixed = PolicyBot(snapshot_state(), SPEC, name="responder")
    pool = OpponentPool(
        "catz_ratz_batz", ["random"], snapshot_prob=1.0, max_snapshots=1, seats=2, fixed=[fixed]
    )
    rng = np.random.default_rng(2)
    assert {b.name for _ in range(20) for b in pool(rng)} == {"responder"}
    for _ in range(2):
        pool.add_snapshot(snapshot_state(), SPEC)
    assert {b.name for _ in range(200) for b in pool(rng)} == {"responder", "snapshot_1"}


def test_pool_rejects_unknown_bots():
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        OpponentPool("catz_ratz_batz", ["nobody"])
    with pytest.raises(ValueError, match="at least one bot"):
        OpponentPool("catz_ratz_batz", [])


def test_every_seat_drawn_a_bot_gets_its_own():
    """Ratto Zakko's human-model bots keep per-card state (one per seat): the pool handed
    one object to every seat that drew its name, and three "adults" answered every card at
    the same tick, with the same error, a stronger table than any evaluation plays."""
    pool = OpponentPool("ratto_zakko", ["adult"], snapshot_prob=0.0, seats=3)
    rng = np.random.default_rng(0)
    first, second = pool(rng), pool(rng)
    assert len({id(b) for b in first + second}) == 6
    assert all(type(b).__name__ == "AdultBot" for b in first)


def test_selfplay_checkpoints_must_fit_the_learners_env():
    """The gymnasium door (``vec_env: dummy`` / ``subproc``) checks ``selfplay.checkpoints``
    against the learner's env as the batched door does (:func:`check_policy_fits`)."""
    from training.config import config_from_dict
    from training.selfplay import make_env

    shipped = "agent:rat_a_tat_cat_2p_one_round"
    base = {
        "game": "rat_a_tat_cat",
        "learner_seat": "random",
        "selfplay": {"enabled": True, "bots": ["heuristic"], "checkpoints": [shipped]},
    }
    env = make_env(config_from_dict({**base, "env_options": {"num_players": 2}}), monitor=False)
    assert env.pool.fixed[0].name == "rat_a_tat_cat_2p_one_round"  # it fits: in the pool
    four = config_from_dict({**base, "env_options": {"num_players": 4}})
    with pytest.raises(
        ValueError,
        match=r"selfplay\.checkpoints: rat_a_tat_cat_2p_one_round: its policy reads observations "
        r"of size 195 and has 31 actions; rat_a_tat_cat with .* gives 323 and 63",
    ):
        make_env(four, monitor=False)
