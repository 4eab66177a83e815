"""A training run that would need more memory than the machine has is refused before
anything is allocated (issue 37: ``net_arch: [1000000000]`` failed allocating 48 GB; the
config bounds a layer at 4,096 wide, but sixteen of them still make gigabytes)."""

from __future__ import annotations

import pytest
from helpers import TINY_CATZ

from training.checkpoint import PolicySpec
from training.config import ConfigError, config_from_dict
from training.train import check_memory, memory_estimate


def test_the_estimate_counts_the_rollout_and_the_networks():
    cfg = config_from_dict({**TINY_CATZ, "n_envs": 2})
    spec = PolicySpec(12, 4, (16,))
    rollout, networks = memory_estimate(cfg, spec)
    assert rollout == 2 * 32 * 4 * (12 + 4 + 8)
    weights = (16 * 12 + 16) * 2 + 4 * 16 + 4 + 16 + 1  # two hidden layers, two heads
    assert networks == 4 * weights * 4  # weights, gradients and Adam's two moments


def test_a_run_bigger_than_the_memory_is_one_config_error(monkeypatch):
    cfg = config_from_dict(
        {**TINY_CATZ, "algorithm": {**TINY_CATZ["algorithm"], "net_arch": [4096] * 16}}
    )
    spec = PolicySpec(12, 4, tuple(cfg.algorithm.net_arch))
    monkeypatch.setattr("ratenvs.common.batched.memory_limit", lambda: 4 * 10**9)
    with pytest.raises(ConfigError) as err:
        check_memory(cfg, spec)
    assert str(err.value) == (
        "algorithm: this run needs about 8.1 GB (the rollout of n_envs * n_steps = 32 frames "
        "3.1 kB, the networks of net_arch [4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096, "
        "4096, 4096, 4096, 4096, 4096, 4096, 4096, 4096] 8.1 GB), more than the 4.0 GB of "
        "memory here"
    )
    check_memory(config_from_dict(TINY_CATZ), PolicySpec(12, 4, (16,)))  # a small run fits


def test_the_training_command_refuses_it_before_writing(tmp_path, monkeypatch, capsys):
    import yaml

    from training.train import main

    monkeypatch.setattr(
        "ratenvs.common.batched.memory_limit", lambda: 1000
    )  # bytes: less than the tiny run needs
    config = tmp_path / "c.yaml"
    config.write_text(yaml.safe_dump(TINY_CATZ))
    out = tmp_path / "run"
    assert main(["--config", str(config), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: algorithm: this run needs about ") and "\n" not in err
    assert not out.exists()
