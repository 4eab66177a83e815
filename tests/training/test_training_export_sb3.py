"""python -m training.export_sb3: a checkpoint as a zip that sb3-contrib's
``MaskablePPO.load`` reads, playing the greedy actions of our PolicyBot."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from ratenvs import agents
from ratenvs.games import GAMES
from training import export_sb3
from training.checkpoint import PolicySpec, build_policy, save_checkpoint


def _samples(game: str, env_options: dict, count: int, seed: int = 0):
    """Observations and masks of the seats to act in games of random legal moves."""
    env = GAMES[game].load().raw_env(**env_options)
    rng = np.random.default_rng(seed)
    observations, masks = [], []
    env.reset(seed=seed)
    while len(observations) < count:
        if not env.agents:
            env.reset(seed=int(rng.integers(1 << 30)))
            continue
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        seen = env.observe(agent)
        observations.append(seen["observation"])
        masks.append(seen["action_mask"])
        env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))
    return np.stack(observations), np.stack(masks)


def _sb3_greedy(model, observations, masks) -> np.ndarray:
    actions, _ = model.predict(observations, action_masks=masks, deterministic=True)
    return np.asarray(actions)


@pytest.mark.parametrize("name", ["rat_a_tat_cat_2p", "ratto_zakko_4p_dessert"])
def test_a_shipped_agent_exported_plays_as_the_policy_bot(name, tmp_path, capsys):
    out = tmp_path / f"{name}.zip"
    assert export_sb3.main([f"agent:{name}", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert not list(tmp_path.glob(".*.tmp"))
    bot = agents.load(name)
    model = MaskablePPO.load(out)
    observations, masks = _samples(bot.game, bot.env_options, 300)
    np.testing.assert_array_equal(
        _sb3_greedy(model, observations, masks), bot.greedy(observations, masks)
    )
    # the zip's spaces are the gymnasium door's: MaskablePPO.load accepts that env
    env = gymnasium.make(GAMES[bot.game].gymnasium_id, **bot.env_options)
    with_env = MaskablePPO.load(out, env=env)
    obs, _ = env.reset(seed=0)
    mask = env.unwrapped.action_masks()
    action, _ = with_env.predict(obs, action_masks=mask, deterministic=True)
    assert int(action) == bot.act(obs, mask, np.random.default_rng(0))


def test_a_privileged_critic_exports_its_actor(tmp_path, capsys):
    spec = PolicySpec(12, 4, (16,), "relu", critic_extra=5)
    torch.manual_seed(1)
    card = {"game": "catz_ratz_batz", "env_options": {"num_players": 1}, "policy": spec.to_dict()}
    path = save_checkpoint(tmp_path / "privileged", build_policy(spec).state_dict(), card)
    out = tmp_path / "out.zip"
    assert export_sb3.main([str(path), str(out)]) == 0
    assert "freshly initialised value network" in capsys.readouterr().out
    bot = agents.load(path)
    observations, masks = _samples("catz_ratz_batz", {"num_players": 1}, 100)
    np.testing.assert_array_equal(
        _sb3_greedy(MaskablePPO.load(out), observations, masks), bot.greedy(observations, masks)
    )


def test_a_failed_export_leaves_the_old_zip(tmp_path, monkeypatch):
    out = tmp_path / "agent.zip"
    out.write_bytes(b"old")

    def broken(self, path, *args, **kwargs):
        path.write(b"half a zip")
        raise OSError("disk full")

    monkeypatch.setattr(MaskablePPO, "save", broken)
    assert export_sb3.main(["agent:catz_ratz_batz_1p", str(out)]) == 2
    assert out.read_bytes() == b"old" and not list(tmp_path.glob(".*.tmp"))


def test_the_zip_is_never_written_over_a_checkpoint(tmp_path, capsys):
    """The zip named as the input's card or weights file is one error line before any work;
    the checkpoint still loads."""
    import shutil

    card = agents.agent_path("catz_ratz_batz_1p")
    for path in card.parent.glob("catz_ratz_batz_1p.*"):
        shutil.copy(path, tmp_path / path.name)
    copy = tmp_path / card.name
    files = sorted(tmp_path.glob("catz_ratz_batz_1p.*"))
    kept = {f: f.read_bytes() for f in files}
    for out in files:
        if out.suffix in (".json", ".safetensors"):
            assert export_sb3.main([str(copy), str(out)]) == 2
            err = capsys.readouterr().err
            assert "of a checkpoint" in err or "checkpoint's weights" in err
            assert err.count("\n") == 1
    assert {f: f.read_bytes() for f in files} == kept
    agents.load(str(copy))
