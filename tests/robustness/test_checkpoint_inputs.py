"""A checkpoint card that does not fit its weights is refused before any network is built:
small inputs never cost large work."""

from __future__ import annotations

import json
import time

import pytest

from training.checkpoint import CheckpointError, PolicySpec, build_policy, load_checkpoint
from training.checkpoint import save_checkpoint as save

SPEC = PolicySpec(observation_size=12, num_actions=4, net_arch=(8, 8))
BASE = {"game": "catz_ratz_batz", "env_options": {"num_players": 1}}


def _small_checkpoint(tmp_path):
    return save(
        tmp_path / "agent", build_policy(SPEC).state_dict(), {**BASE, "policy": SPEC.to_dict()}
    )


def _card_says(path, **policy):
    card_path = path.with_suffix(".json")
    card = json.loads(card_path.read_text())
    card["policy"].update(policy)
    card_path.write_text(json.dumps(card))


def test_the_parameter_count_is_the_built_networks():
    for spec in (SPEC, PolicySpec(10, 3, (), "relu"), PolicySpec(9, 5, (16, 4), critic_extra=7)):
        built = sum(int(v.numel()) for v in build_policy(spec).state_dict().values())
        assert spec.parameter_count() == built


def test_a_huge_architecture_next_to_small_weights_is_refused_at_once(tmp_path):
    path = _small_checkpoint(tmp_path)
    _card_says(path, net_arch=[3000, 3000, 3000])  # 36M weights: under the cap
    start = time.perf_counter()
    with pytest.raises(CheckpointError, match="card and weights do not match"):
        load_checkpoint(path)
    assert time.perf_counter() - start < 5  # no 6000-wide network was built


@pytest.mark.parametrize(
    "policy",
    [
        {"net_arch": [10**7]},
        {"net_arch": [6000, 6000, 6000]},  # 144M weights: over the cap
        {"observation_size": 0},
        {"net_arch": [64] * 100},
        {"num_actions": -3},
    ],
)
def test_implausible_architectures_are_refused_by_the_card_check(tmp_path, policy):
    path = _small_checkpoint(tmp_path)
    _card_says(path, **policy)
    with pytest.raises(CheckpointError, match=r"implausible|at most"):
        load_checkpoint(path)


def test_the_shapes_the_card_implies_are_the_built_networks():
    for spec in (SPEC, PolicySpec(10, 3, (), "relu"), PolicySpec(9, 5, (16, 4), critic_extra=7)):
        built = {k: tuple(v.shape) for k, v in build_policy(spec).state_dict().items()}
        assert list(spec.expected_shapes().items()) == list(built.items())  # keys in order


def test_the_shape_check_builds_no_network(tmp_path, monkeypatch):
    import sys

    import training.checkpoint

    path = _small_checkpoint(tmp_path)
    monkeypatch.setattr(training.checkpoint, "build_policy", None)  # calling it would fail
    for name in ("stable_baselines3", "sb3_contrib"):
        monkeypatch.setitem(sys.modules, name, None)  # importing them would fail
    assert load_checkpoint(path).spec == SPEC
    card = json.loads(path.with_suffix(".json").read_text())
    card["policy"]["net_arch"] = [7, 10]  # 397 weights, as (8, 8): only the shapes differ
    path.with_suffix(".json").write_text(json.dumps(card))
    with pytest.raises(
        CheckpointError, match=r"policy_net.0.weight has shape \(8, 12\), .*\(7, 12\)"
    ):
        load_checkpoint(path)
