"""Migrating a checkpoint to a newer env version (``python -m training.migrate``): the new
observation entries get zero weights, so the policy and its values are unchanged."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
import torch

from ratenvs.agents.checkpoint import card_version
from ratenvs.games import GAMES
from ratenvs.rat_a_tat_cat.rules import NUM_KINDS
from training.checkpoint import (
    CheckpointError,
    PolicySpec,
    build_policy,
    load_checkpoint,
    save_checkpoint,
)
from training.migrate import main, migrate

OPTIONS = {"num_players": 3, "owner_ceilings": True}


def _v0_checkpoint(tmp_path, options=OPTIONS):
    """A Rat-a-Tat Cat v0 checkpoint (random weights): the v1 observation less draw_pool."""
    env = GAMES["rat_a_tat_cat"].load().raw_env(**options)
    v1_size = env.observer.size
    spec = PolicySpec(v1_size - NUM_KINDS, env.game.num_actions, (16, 8), "relu")
    torch.manual_seed(0)
    policy = build_policy(spec)
    for p in policy.parameters():
        torch.nn.init.normal_(p, std=0.5)  # every input column matters
    card = {
        "game": "rat_a_tat_cat",
        "gymnasium_id": "ratenvs/RatATatCat-v0",
        "env_options": options,
        "policy": spec.to_dict(),
        "evaluation": {"win_rate": 0.5},
        "learning_curve": "curve.png",
    }
    path = save_checkpoint(tmp_path / "old", policy.state_dict(), card)
    return path, env


def _observations(env, count=64):
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    out = []
    while len(out) < count:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset(seed=len(out))
            continue
        out.append(obs["observation"])
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return np.array(out)


def test_the_migrated_policy_and_values_are_the_old_ones_on_the_new_observations(tmp_path):
    old_path, env = _v0_checkpoint(tmp_path)
    new_path = migrate(old_path, tmp_path / "new")
    old = load_checkpoint(old_path, any_version=True)
    new = load_checkpoint(new_path, game="rat_a_tat_cat")
    assert new.spec.observation_size == env.observer.size
    obs = _observations(env)
    at = env.observer.offset("draw_pool")
    assert obs[:, at : at + NUM_KINDS].any()  # the new entries are not all zero
    without = np.delete(obs, np.s_[at : at + NUM_KINDS], axis=1)
    np.testing.assert_allclose(new.bot().logits(obs), old.bot().logits(without), atol=1e-5)
    with torch.no_grad():
        v_new = new.policy().predict_values(torch.as_tensor(obs))
        v_old = old.policy().predict_values(torch.as_tensor(without))
    np.testing.assert_allclose(v_new.numpy(), v_old.numpy(), atol=1e-5)
    card = new.card
    assert card["gymnasium_id"] == GAMES["rat_a_tat_cat"].gymnasium_id and card_version(card) == 1
    assert "evaluation" not in card and card["migrated_from"]["evaluations"] == {"win_rate": 0.5}
    assert card["migrated_from"]["gymnasium_id"] == "ratenvs/RatATatCat-v0"
    assert card["learning_curve"] == "curve.png" and new.optimizer_state is None


def test_a_memoryless_agent_migrates_too(tmp_path):
    old_path, env = _v0_checkpoint(tmp_path, {"num_players": 2, "observation": "memoryless"})
    new = load_checkpoint(migrate(old_path, tmp_path / "new"))
    assert new.spec.observation_size == env.observer.size


def test_an_old_version_checkpoint_is_refused_at_load_with_the_way_to_migrate_it(tmp_path):
    old_path, _ = _v0_checkpoint(tmp_path)
    said = r"trained on ratenvs/RatATatCat-v0; this ratenvs plays ratenvs/RatATatCat-v1 "
    with pytest.raises(CheckpointError, match=said + r".*python -m training\.migrate"):
        load_checkpoint(old_path)
    assert load_checkpoint(old_path, any_version=True).spec.observation_size > 0


def test_a_current_checkpoint_is_not_migrated_and_the_cli_says_so(tmp_path, capsys):
    old_path, _ = _v0_checkpoint(tmp_path)
    new_path = migrate(old_path, tmp_path / "new")
    with pytest.raises(CheckpointError, match="nothing to migrate"):
        migrate(new_path, tmp_path / "again")
    assert main([str(new_path), str(tmp_path / "again")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "nothing to migrate" in err and err.count("\n") == 1
    assert not (tmp_path / "again.json").exists()


def test_a_dest_that_cannot_be_written_is_one_error_line(tmp_path, capsys):
    """DEST under a file (no folder can be made there): the command says so in one line and
    exits 2, the source untouched."""
    old_path, _ = _v0_checkpoint(tmp_path)
    before = old_path.read_bytes()
    (tmp_path / "plain").write_text("a file, not a folder")
    assert main([str(old_path), str(tmp_path / "plain" / "new")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {tmp_path / 'plain' / 'new'}: the checkpoint cannot be written")
    assert "Traceback" not in err and err.count("\n") == 1
    assert old_path.read_bytes() == before


def test_migrate_never_writes_over_another_checkpoint(tmp_path, capsys):
    """DEST naming another checkpoint is one error line, and both are left whole; DEST the
    source itself is a migration in place."""
    old_path, _ = _v0_checkpoint(tmp_path)
    other = migrate(old_path, tmp_path / "other")
    files = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert main([str(old_path), str(tmp_path / "other")]) == 2
    err = capsys.readouterr().err
    assert "a checkpoint is there already" in err and err.count("\n") == 1
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == files
    assert main([str(old_path), str(old_path.with_suffix(""))]) == 0
    assert card_version(json.loads(old_path.read_text())) == card_version(
        json.loads(other.read_text())
    )


def test_a_checkpoint_of_a_newer_version_is_refused(tmp_path):
    old_path, _ = _v0_checkpoint(tmp_path)
    card_file = old_path.with_suffix(".json")
    card = json.loads(card_file.read_text())
    card["gymnasium_id"] = "ratenvs/RatATatCat-v9"
    card_file.write_text(json.dumps(card))
    with pytest.raises(CheckpointError, match="newer than this ratenvs"):
        migrate(old_path, tmp_path / "new")


def test_a_card_naming_another_games_id_is_called_damaged_not_old(tmp_path):
    """A gymnasium_id of another game (the version alone was read) is said to be damaged, not
    sent to the migration."""
    path = migrate(_v0_checkpoint(tmp_path)[0], tmp_path / "new")
    card = json.loads(path.read_text())
    card["gymnasium_id"] = "ratenvs/CatzRatzBatz-v0"
    path.write_text(json.dumps(card))
    with pytest.raises(CheckpointError, match="is not an id of its game 'rat_a_tat_cat'"):
        load_checkpoint(path)


def _legacy_checkpoint(path):
    """A checkpoint of the older format, as ratenvs 0.2.0 wrote one: torch.save of the
    policy and optimizer into ``<name>.pt``, a format-1 card with its SHA-256."""
    import hashlib

    spec = PolicySpec(12, 4, (8,))
    torch.manual_seed(0)
    policy = build_policy(spec)
    policy.optimizer.zero_grad()
    sum(p.sum() for p in policy.parameters()).backward()
    policy.optimizer.step()
    pt = path.with_suffix(".pt")
    torch.save({"policy": policy.state_dict(), "optimizer": policy.optimizer.state_dict()}, pt)
    card = {
        "format": "ratenvs-checkpoint/1",
        "game": "catz_ratz_batz",
        "gymnasium_id": GAMES["catz_ratz_batz"].gymnasium_id,
        "env_options": {"num_players": 1},
        "policy": spec.to_dict(),
        "weights_file": pt.name,
        "weights_sha256": hashlib.sha256(pt.read_bytes()).hexdigest(),
        "evaluation": {"games": 7},
    }
    pt.with_suffix(".json").write_text(json.dumps(card))
    return pt, policy


def test_an_older_pt_checkpoint_is_converted_in_place_with_one_command(tmp_path, capsys):
    pt, policy = _legacy_checkpoint(tmp_path / "agent")
    assert main(["--in-place", str(pt)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {tmp_path / 'agent.json'}"
    card = json.loads((tmp_path / "agent.json").read_text())
    assert card["format"] == "ratenvs-checkpoint/2" and card["evaluation"] == {"games": 7}
    assert card["converted_from"]["weights_file"] == "agent.pt"
    files = {p.name for p in tmp_path.iterdir()}
    assert files == {"agent.json", card["weights_file"], card["optimizer_file"]}  # .pt gone
    new = load_checkpoint(tmp_path / "agent")
    for key, value in policy.state_dict().items():
        assert torch.equal(new.policy_state[key], value)
    old_opt = policy.optimizer.state_dict()
    assert new.optimizer_state["param_groups"] == old_opt["param_groups"]
    for index, moments in old_opt["state"].items():
        for name, value in moments.items():
            assert torch.equal(new.optimizer_state["state"][index][name], value)
    policy.optimizer.load_state_dict(new.optimizer_state)  # resumable
    assert main(["--in-place", str(pt)]) == 2  # once is enough
    assert "nothing to migrate" in capsys.readouterr().err


def test_every_shipped_agent_is_for_the_current_env_version():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "checkpoints"
    for card_file in sorted(root.glob("*/*.json")):
        card = json.loads(card_file.read_text())
        assert card["gymnasium_id"] == GAMES[card["game"]].gymnasium_id, card_file
        assert card["format"] == "ratenvs-checkpoint/2", card_file  # no torch to read it


def test_an_older_pt_checkpoint_without_torch_is_one_line_naming_the_way(
    tmp_path, capsys, monkeypatch
):
    pt, _ = _legacy_checkpoint(tmp_path / "agent")
    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    assert main(["--in-place", str(pt)]) == 2  # it ended in a traceback
    err = capsys.readouterr().err
    assert err.startswith("error: this is a checkpoint of the older format") and "torch" in err
    assert pt.exists()  # nothing lost
