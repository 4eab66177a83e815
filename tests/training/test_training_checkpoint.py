"""Checkpoints round-trip, are verified by SHA-256, never run pickled code, and refuse
to play a game or observation size they were not trained for."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest
import torch

from training.checkpoint import (
    CheckpointError,
    PolicyBot,
    PolicySpec,
    build_policy,
    card_path,
    load_card,
    load_checkpoint,
    save_checkpoint,
    sha256_file,
    weights_path,
    write_card,
)
from training.evaluate import evaluate_checkpoint

CATZ_1P_OBS = 12  # 8 + 4 * players
SPEC = PolicySpec(CATZ_1P_OBS, 4, (16, 16), "tanh")


def make_checkpoint(path: Path, spec: PolicySpec = SPEC, **card) -> Path:
    torch.manual_seed(0)
    policy = build_policy(spec)
    base = {
        "game": "catz_ratz_batz",
        "env_options": {"num_players": 1, "turns": 1},
        "policy": spec.to_dict(),
    }
    return save_checkpoint(
        path, policy.state_dict(), {**base, **card}, policy.optimizer.state_dict()
    )


def test_round_trip_keeps_weights_card_and_optimizer(tmp_path):
    path = make_checkpoint(tmp_path / "agent", timesteps=123)
    card = json.loads(card_path(path).read_text())
    assert card["weights_sha256"] == sha256_file(weights_path(path))
    assert card["timesteps"] == 123
    ckpt = load_checkpoint(path, game="catz_ratz_batz", observation_size=CATZ_1P_OBS)
    assert ckpt.spec == SPEC
    assert ckpt.optimizer_state is not None
    torch.manual_seed(0)
    original = build_policy(SPEC).state_dict()
    for key, value in original.items():
        assert torch.equal(ckpt.policy_state[key], value)
    # the NumPy PolicyBot computes the same logits as the torch policy
    obs = np.random.default_rng(1).random((5, CATZ_1P_OBS), dtype=np.float32)
    with torch.no_grad():
        dist = ckpt.policy().get_distribution(torch.as_tensor(obs))
        torch_logits = dist.distribution.logits.numpy()
    bot_logits = ckpt.bot().logits(obs)
    np.testing.assert_allclose(
        bot_logits - bot_logits.max(1, keepdims=True),
        torch_logits - torch_logits.max(1, keepdims=True),
        atol=1e-5,
    )


def test_policy_bot_plays_only_legal_actions_greedily():
    torch.manual_seed(3)
    bot = PolicyBot(build_policy(SPEC).state_dict(), SPEC)
    obs = np.zeros(CATZ_1P_OBS, dtype=np.float32)
    logits = bot.logits(obs)
    rng = np.random.default_rng(0)
    for legal in ([0], [1, 2], [0, 1, 2], [3]):
        mask = np.zeros(4, dtype=np.int8)
        mask[legal] = 1
        action = bot.act(obs, mask, rng)
        assert action == legal[int(np.argmax(logits[legal]))]
    with pytest.raises(ValueError, match="observation size 16"):
        bot.act(np.zeros(16, np.float32), np.ones(4, np.int8), rng)


def test_sha256_mismatch_is_refused(tmp_path):
    path = make_checkpoint(tmp_path / "agent")
    weights = weights_path(path)
    data = bytearray(weights.read_bytes())
    data[-40] ^= 0xFF  # flip bits inside the file
    weights.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="SHA-256 mismatch"):
        load_checkpoint(path)


def test_a_damaged_optimizer_state_stops_a_resume_but_not_an_evaluation(tmp_path):
    """The optimizer state is read only where it is used (``--resume``): evaluating the
    policy (``training.evaluate``, the final ``best`` evaluation, ``export_sb3``) plays it
    as ``ratenvs evaluate`` does."""
    path = make_checkpoint(tmp_path / "agent")
    optimizer = path.with_name(load_card(path)["optimizer_file"])
    data = bytearray(optimizer.read_bytes())
    data[-4] ^= 0xFF
    optimizer.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="SHA-256 mismatch"):
        load_checkpoint(path)
    assert load_checkpoint(path, optimizer=False).optimizer_state is None
    result = evaluate_checkpoint(path, None, games=2, seed=0)
    assert result["games"] == 2


class _RunsCode:
    """An object whose unpickling would create a marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "pwned"))


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
@pytest.mark.parametrize("writer", ["torch.save", "pickle.dump"])
def test_malicious_pickle_is_refused_without_running(tmp_path, writer):
    marker = tmp_path / "code_ran.txt"
    card = make_checkpoint(tmp_path / "agent")
    path = card.with_suffix(".pt")  # a checkpoint of the older format: a torch .pt file
    payload = {"policy": load_checkpoint(card).policy_state, "x": _RunsCode(marker)}
    if writer == "torch.save":
        torch.save(payload, path)
    else:
        with path.open("wb") as fh:
            pickle.dump(payload, fh)
    # prove the file really runs code when unpickled unsafely (in a copy, checked, then removed)
    probe = tmp_path / "probe.pkl"
    probe.write_bytes(path.read_bytes())
    if writer == "pickle.dump":
        with probe.open("rb") as fh:
            pickle.load(fh)
    else:
        torch.load(probe, weights_only=False)
    assert marker.read_text() == "pwned"
    marker.unlink()
    # a card with the file's true hash, so only the safe unpickler stands in the way
    card = load_card(path)
    card["format"] = "ratenvs-checkpoint/1"
    card["weights_sha256"] = sha256_file(path)
    write_card(path, card)
    with pytest.raises(CheckpointError, match="refused to load"):
        load_checkpoint(path)
    assert not marker.exists()


def test_checkpoint_for_another_game_is_refused(tmp_path):
    path = make_checkpoint(tmp_path / "agent")
    with pytest.raises(
        CheckpointError, match="agent for 'catz_ratz_batz', not for 'rat_a_tat_cat'"
    ):
        load_checkpoint(path, game="rat_a_tat_cat")


def test_checkpoint_for_another_observation_size_is_refused(tmp_path):
    path = make_checkpoint(tmp_path / "agent")
    with pytest.raises(CheckpointError, match=r"observations of size 12.*size 16"):
        load_checkpoint(path, observation_size=16)
    # a card whose env options give another observation size than the weights were made for
    bad = make_checkpoint(tmp_path / "two_players", env_options={"num_players": 2, "turns": 1})
    with pytest.raises(CheckpointError, match=r"observations of size 12.*gives 16"):
        evaluate_checkpoint(bad, None, 2, 0)


def test_weights_that_do_not_fit_the_card_are_refused(tmp_path):
    path = make_checkpoint(tmp_path / "agent")
    card = load_card(path)
    card["policy"]["net_arch"] = [32, 32]
    write_card(path, card)
    with pytest.raises(CheckpointError, match="card and weights do not match"):
        load_checkpoint(path)


def test_missing_or_broken_card(tmp_path):
    with pytest.raises(CheckpointError, match="card not found"):
        load_checkpoint(tmp_path / "nothing.pt")
    path = make_checkpoint(tmp_path / "agent")
    card_path(path).write_text("{not json")
    with pytest.raises(CheckpointError, match="not valid JSON"):
        load_checkpoint(path)
    card_path(path).write_text(json.dumps({"format": "other"}))
    with pytest.raises(CheckpointError, match="lacks"):
        load_checkpoint(path)
