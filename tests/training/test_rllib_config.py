"""The RLlib run configs (training/rllib_train.py) are validated as strictly as the SB3 ones;
none of this needs Ray (the training itself is tests/integrations/test_rllib.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from ratenvs.games import GAMES
from training.config import ConfigError
from training.rllib_train import (
    RLlibTrainConfig,
    build_parser,
    load_rllib_config,
    main,
    prepare_out,
    rllib_config_from_dict,
)

ROOT = Path(__file__).resolve().parents[2]
RLLIB_CONFIGS = sorted((ROOT / "configs").glob("rllib_*.yaml"))


def test_every_game_has_a_shipped_rllib_config():
    assert [p.name for p in RLLIB_CONFIGS] == sorted(f"rllib_{g}.yaml" for g in GAMES)


@pytest.mark.parametrize("path", RLLIB_CONFIGS, ids=[p.name for p in RLLIB_CONFIGS])
def test_shipped_rllib_configs_are_valid(path):
    cfg = load_rllib_config(path)
    assert path.name == f"rllib_{cfg.game}.yaml"
    assert cfg.iterations >= 1 and cfg.env_runners.num_env_runners >= 1
    # round trip: the dict form (written to <out>/config.yaml) validates again
    assert rllib_config_from_dict(cfg.to_dict()) == cfg


def test_minimal_config_gets_defaults():
    cfg = rllib_config_from_dict({"game": "ratto_zakko"})
    assert isinstance(cfg, RLlibTrainConfig)
    assert cfg.selfplay.snapshot_every >= 1 and cfg.fault_tolerance.restart_failed_env_runners


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"game": "chess"}, "game: unknown game 'chess'"),
        ({"game": "ratto_zakko", "iteratons": 3}, "iteratons: unknown key"),
        ({"game": "ratto_zakko", "ppo": {"lambda": 0.9}}, "ppo.lambda: unknown key"),
        ({"game": "ratto_zakko", "ppo": {"lr": "1e-3"}}, "ppo.lr: expected a number"),
        ({"game": "ratto_zakko", "iterations": 0}, "iterations: must be at least 1"),
        ({"game": "ratto_zakko", "env_runners": {"num_env_runners": -1}}, "must be >= 0"),
        ({"game": "ratto_zakko", "ppo": {"gamma": 1.5}}, "ppo.gamma: must be in"),
        (
            {"game": "ratto_zakko", "ppo": {"minibatch_size": 512, "train_batch_size": 256}},
            "ppo.minibatch_size",
        ),
        ({"game": "ratto_zakko", "selfplay": {"snapshot_prob": 2.0}}, "selfplay.snapshot_prob"),
        ({"game": "ratto_zakko", "env_options": {"num_players": 99}}, "env_options:"),
        ({"game": "ratto_zakko", "env_options": {"colour": "red"}}, "env_options:"),
        ({"game": "ratto_zakko", "env_options": {"render_mode": "ansi"}}, "render_mode"),
        ({"game": "ratto_zakko", "seed": -1}, "seed: must be in"),
        ([1, 2], "mapping at the top level"),
        # sizes a typo makes huge are refused before Ray starts or a network is built
        (
            {"game": "ratto_zakko", "ppo": {"fcnet_hiddens": [256, 10**9]}},
            "ppo.fcnet_hiddens[1]: must be at most 4,096 wide, got 1,000,000,000",
        ),
        (
            {"game": "ratto_zakko", "ppo": {"fcnet_hiddens": [8] * 17}},
            "ppo.fcnet_hiddens: at most 16 hidden layers, got 17",
        ),
        (
            {"game": "ratto_zakko", "ppo": {"train_batch_size": 10**15}},
            "ppo.train_batch_size: must be at most 2,097,152, got 1,000,000,000,000,000",
        ),
        (
            {"game": "ratto_zakko", "env_runners": {"num_envs_per_env_runner": 10**9}},
            "env_runners.num_envs_per_env_runner: must be at most 1,024",
        ),
        (
            {"game": "ratto_zakko", "selfplay": {"max_snapshots": 10**9}},
            "selfplay.max_snapshots: must be at most 1,000",
        ),
        (
            {
                "game": "ratto_zakko",
                "env_runners": {
                    "num_env_runners": 64,
                    "num_envs_per_env_runner": 1024,
                    "rollout_fragment_length": 64,
                },
            },
            "env_runners.rollout_fragment_length: the env runners' envs times their fragment",
        ),
        (
            {"game": "catz_ratz_batz", "env_options": {"turns": 10**30}},
            "env_options: option 'turns' must be in 1..10000",
        ),
    ],
)
def test_bad_configs_name_the_key(data, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        rllib_config_from_dict(data)


def test_yaml_is_read_strictly(tmp_path):
    path = tmp_path / "dup.yaml"
    path.write_text("game: ratto_zakko\niterations: 2\niterations: 3\n")
    with pytest.raises(ConfigError, match="duplicate key 'iterations'"):
        load_rllib_config(path)
    path.write_text("game: &g ratto_zakko\n")
    with pytest.raises(ConfigError, match="anchors"):
        load_rllib_config(path)
    with pytest.raises(ConfigError, match="no such file"):
        load_rllib_config(tmp_path / "missing.yaml")


def test_out_folder_is_not_clobbered(tmp_path):
    out = tmp_path / "run"
    (out / "checkpoint_000001").mkdir(parents=True)
    (out / "results.jsonl").write_text("{}\n")
    with pytest.raises(ValueError, match="not empty"):
        prepare_out(out, overwrite=False)
    assert prepare_out(out, overwrite=True) == out and not any(out.iterdir())
    (out / "checkpoint_000002").mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match=r"notes\.txt"):
        prepare_out(out, overwrite=True)
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "checkpoint_000002").is_dir()  # found before anything was removed


def test_an_earlier_run_stays_when_ray_is_missing(tmp_path, monkeypatch, capsys):
    """``--overwrite`` removes the earlier run only once Ray is there and up."""
    out = tmp_path / "run"
    (out / "checkpoint_000001").mkdir(parents=True)
    (out / "results.jsonl").write_text("{}\n")
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails
    args = ["--config", str(RLLIB_CONFIGS[0]), "--out", str(out), "--overwrite"]
    assert main(args) == 2
    assert "Traceback" not in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint_000001", "results.jsonl"]


def test_command_line_mistakes_are_one_line(tmp_path, capsys):
    config = str(RLLIB_CONFIGS[0])
    assert main(["--config", config, "--out", str(tmp_path), "--address", "auto",
                 "--num-cpus", "2"]) == 2  # fmt: skip
    assert "--num-cpus: only without --address" in capsys.readouterr().err
    assert main(["--config", str(tmp_path / "none.yaml"), "--out", str(tmp_path)]) == 2
    assert "no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["--config", config, "--out", "x", "--iterations", "0"])
    assert exit_.value.code == 2


class _Algo:
    """A stand-in for an RLlib Algorithm's ``save_to_path``: writes two files, or fails
    half-way (a full disk) when told."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    def save_to_path(self, path: str) -> str:
        folder = Path(path)
        folder.mkdir(parents=True)
        (folder / "algorithm_state.pkl").write_bytes(b"state")
        if self.fail:
            raise OSError(28, "No space left on device")
        (folder / "rllib_checkpoint.json").write_text("{}")
        return path


def test_a_checkpoint_is_renamed_into_place_whole(tmp_path):
    """``<out>/checkpoint_<iteration>`` exists only whole: written beside it, renamed into
    place; a save failing half-way leaves neither it nor the folder it was written in."""
    from training.rllib_train import prepare_out, save_checkpoint

    out = tmp_path / "run"
    out.mkdir()
    path = save_checkpoint(_Algo(), out, 10)
    assert path == (out / "checkpoint_000010").resolve()
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint_000010"]
    assert sorted(p.name for p in path.iterdir()) == [
        "algorithm_state.pkl",
        "rllib_checkpoint.json",
    ]
    with pytest.raises(OSError, match="No space left"):
        save_checkpoint(_Algo(fail=True), out, 20)
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint_000010"]
    # a run killed while saving leaves its .tmp folder: --overwrite clears it with the rest
    (out / ".checkpoint_000030.123.tmp").mkdir()
    prepare_out(out, overwrite=True)
    assert list(out.iterdir()) == []


def test_a_checkpoint_replaced_is_kept_until_the_new_one_is_in(tmp_path, monkeypatch):
    """A checkpoint of the same iteration is set aside, not removed, until the new one is
    renamed into place: a failure between the two puts the earlier one back."""
    import os

    from training.rllib_train import save_checkpoint

    out = tmp_path / "run"
    out.mkdir()
    path = save_checkpoint(_Algo(), out, 10)
    (path / "algorithm_state.pkl").write_bytes(b"earlier")
    real = os.replace
    calls = []

    def second_rename_fails(src, dst):
        calls.append((src, dst))
        if len(calls) == 2:  # the new one into place
            raise OSError(5, "Input/output error")
        return real(src, dst)

    monkeypatch.setattr(os, "replace", second_rename_fails)
    with pytest.raises(OSError, match="Input/output"):
        save_checkpoint(_Algo(), out, 10)
    monkeypatch.setattr(os, "replace", real)
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint_000010"]
    assert (path / "algorithm_state.pkl").read_bytes() == b"earlier"
    save_checkpoint(_Algo(), out, 10)  # and replaced when nothing fails
    assert (path / "algorithm_state.pkl").read_bytes() == b"state"
    assert sorted(p.name for p in out.iterdir()) == ["checkpoint_000010"]
