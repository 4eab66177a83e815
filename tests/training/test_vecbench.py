"""training/vecbench.py --train: the model as a real run builds it (the config's warm
start), thread counts compared on one config, rounds interleaved."""

from __future__ import annotations

import argparse
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
import torch
import yaml
from helpers import TINY_CATZ

import training.pretrain
import training.train
from training import vecbench
from training.config import config_from_dict

WARM = {**TINY_CATZ, "n_envs": 2, "pretrain": {"teacher": "optimal", "games": 1, "epochs": 1}}


def _args(**kw: Any) -> argparse.Namespace:
    base = {"torch_threads": None, "against": None, "batched_n_envs": 512}
    return argparse.Namespace(**{**base, **kw})


def test_thread_counts_are_one_config_each_sharing_one_warm_start() -> None:
    cfg = config_from_dict(WARM)
    sides = vecbench.contenders(_args(torch_threads=[1, 2]), cfg)
    assert [s.cfg.algorithm.torch_threads for s in sides] == [1, 2]
    assert sides[0].label.endswith("1 torch thread") and sides[1].label.endswith("2 torch threads")
    assert sides[0].starts is sides[1].starts
    assert sides[0].start_key() == sides[1].start_key()


def test_train_rate_starts_ppo_from_the_configs_warm_start(monkeypatch) -> None:
    calls = []

    def warm_start(policy: Any, cfg: Any) -> dict[str, Any]:
        calls.append(cfg.pretrain.teacher)
        with torch.no_grad():
            for p in policy.parameters():
                p.fill_(0.25)
        return {}

    first_weights = []
    make_model = training.train.make_model

    def spy(*args: Any, **kw: Any) -> Any:
        model = make_model(*args, **kw)
        learn = model.learn

        def first_learn(*a: Any, **k: Any) -> Any:
            if len(first_weights) < spy.made:
                first_weights.append([p.detach().clone() for p in model.policy.parameters()])
            return learn(*a, **k)

        spy.made += 1
        model.learn = first_learn
        return model

    spy.made = 0
    monkeypatch.setattr(training.pretrain, "warm_start", warm_start)
    monkeypatch.setattr(training.train, "make_model", spy)
    sides = vecbench.contenders(_args(torch_threads=[1, 1]), config_from_dict(WARM))
    for side in sides:
        wall, cpu = vecbench.train_rate(side, 32)
        assert wall > 0 and cpu > 0
    assert calls == ["optimal"]  # once for both: the second loads its weights
    assert len(first_weights) == 2
    for weights in first_weights:  # PPO's first update starts from the warm start
        assert all(bool((w == 0.25).all()) for w in weights)


def test_no_warm_start_without_pretrain(monkeypatch) -> None:
    monkeypatch.setattr(training.pretrain, "warm_start", lambda *a: pytest.fail("called"))
    side = vecbench.contenders(_args(torch_threads=[1]), config_from_dict({**TINY_CATZ}))[0]
    assert vecbench.train_rate(side, 32)[0] > 0


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--train", "--torch-threads", "1", "2", "--batched-n-envs", "8"],
            "not with --torch-threads",
        ),
        (["--torch-threads", "2"], "--torch-threads: only with --train"),
        (["--train", "--torch-threads", "0"], "--torch-threads: must be an integer in 1..64"),
    ],
)
def test_torch_threads_arguments(tmp_path: Path, capsys, extra: list[str], message: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(TINY_CATZ))
    with pytest.raises(SystemExit) if "must be" in message else nullcontext():
        assert vecbench.main(["--config", str(path), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
