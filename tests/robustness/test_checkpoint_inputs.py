"""A checkpoint card that does not fit its weights is refused before any network is built:
small inputs never cost large work. Cards are strict (integers are integers, numbers
finite) and bounded (size, nesting); only regular files are read; the safetensors header
is bounded and checked (names, real dtypes, shapes, byte ranges) before any array is built;
every refusal is one line naming the file and the limit."""

from __future__ import annotations

import hashlib
import json
import os
import time

import numpy as np
import pytest

from ratenvs.agents.checkpoint import load_checkpoint as library_load
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


# ----------------------------------------------------- cards: strict and bounded
def _numpy_checkpoint(tmp_path, name="agent", seed=0):
    """A small checkpoint written by the library (NumPy weights, no torch); its card."""
    from ratenvs.agents.checkpoint import save_checkpoint as library_save

    rng = np.random.default_rng(seed)
    state = {
        k: rng.standard_normal(s).astype(np.float32) for k, s in SPEC.expected_shapes().items()
    }
    return library_save(tmp_path / name, state, {**BASE, "policy": SPEC.to_dict()}), state


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('"observation_size": 12.7', r"'policy.observation_size' must be an integer, got 12.7"),
        ('"num_actions": "4"', r"'policy.num_actions' must be an integer, got '4'"),
        ('"num_actions": true', r"'policy.num_actions' must be an integer, got True"),
        ('"net_arch": [8, 8.0]', r"'policy.net_arch' must be a list of integers, got 8.0"),
        ('"observation_size": Infinity', r"card .*agent.json: not valid JSON .*Infinity"),
        ('"observation_size": 1e999', r"card .*agent.json: not valid JSON .*1e999"),
        ('"observation_size": NaN', r"card .*agent.json: not valid JSON .*NaN"),
    ],
)
def test_card_numbers_are_strict(tmp_path, text, message):
    card_file, _ = _numpy_checkpoint(tmp_path)
    card = json.loads(card_file.read_text())
    key = text.split('"')[1]
    card["policy"][key] = "@@"
    card_file.write_text(json.dumps(card).replace(f'"{key}": "@@"', text))
    with pytest.raises(CheckpointError, match=message) as err:
        library_load(card_file)
    assert "\n" not in str(err.value)


def test_a_card_nested_100000_deep_is_one_line_naming_the_limit(tmp_path):
    card_file, _ = _numpy_checkpoint(tmp_path)
    text = card_file.read_text().replace('"evaluation_note"', "")
    card_file.write_text(text[:-2] + ', "deep": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    with pytest.raises(CheckpointError, match=r"nested 100,00\d levels deep, .* limit of 32"):
        library_load(card_file)


def test_a_huge_card_is_refused_before_it_is_read(tmp_path):
    from ratenvs.agents.checkpoint import MAX_CARD_BYTES

    card_file, _ = _numpy_checkpoint(tmp_path)
    with card_file.open("r+b") as fh:
        fh.truncate(MAX_CARD_BYTES + 1)  # sparse: no time spent writing it
    with pytest.raises(CheckpointError, match=r"more than the limit of 4,194,304"):
        library_load(card_file)


# ------------------------------------------------- only regular files are read
def test_a_fifo_or_a_device_is_no_checkpoint(tmp_path):
    card_file, _ = _numpy_checkpoint(tmp_path)
    weights = card_file.with_name(json.loads(card_file.read_text())["weights_file"])
    weights.unlink()
    weights.symlink_to("/dev/zero")  # the card names /dev/zero
    with pytest.raises(CheckpointError, match=r"weights .*: a character device, not a regular"):
        library_load(card_file)
    weights.unlink()
    os.mkfifo(weights)  # opening it would block forever
    with pytest.raises(CheckpointError, match=r"weights .*: a FIFO \(named pipe\), not a regular"):
        library_load(card_file)
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(CheckpointError, match=r"card .*pipe.json: a FIFO \(named pipe\)"):
        library_load(fifo)
    for given in ("/dev/zero", tmp_path / "pipe"):
        with pytest.raises(CheckpointError, match=r"not a regular file|a FIFO"):
            library_load(given)


# ------------------------------------------------------ the safetensors header
def _rewrite_weights(card_file, data: bytes) -> None:
    """Replace a checkpoint's weights file with ``data`` and put its SHA-256 on the card."""
    card = json.loads(card_file.read_text())
    card_file.with_name(card["weights_file"]).write_bytes(data)
    card["weights_sha256"] = hashlib.sha256(data).hexdigest()
    card_file.write_text(json.dumps(card))


def _safetensors(entries: dict, body: bytes = b"") -> bytes:
    header = json.dumps(entries).encode()
    return len(header).to_bytes(8, "little") + header + body


def test_a_header_is_bounded_and_checked_before_any_array(tmp_path, monkeypatch):
    import safetensors.numpy

    card_file, state = _numpy_checkpoint(tmp_path)
    monkeypatch.setattr(safetensors.numpy, "load", None)  # building an array would fail
    huge = (1 << 40).to_bytes(8, "little") + b"{}"
    _rewrite_weights(card_file, huge)
    with pytest.raises(CheckpointError, match=r"header of 1,099,511,627,776 bytes, more than"):
        library_load(card_file)
    _rewrite_weights(card_file, (500).to_bytes(8, "little") + b"{}")
    with pytest.raises(CheckpointError, match=r"header runs past the end of the file"):
        library_load(card_file)
    offset, entries = 0, {}
    for key, array in state.items():
        entries[key] = {"dtype": "F32", "shape": list(array.shape)}
        entries[key]["data_offsets"] = [offset, offset + array.nbytes]
        offset += array.nbytes
    body = b"".join(a.tobytes() for a in state.values())
    for dtype in ("C64", "I32", "F16"):  # complex, integer, half
        bias = entries["action_net.bias"]
        bad = {**entries, "action_net.bias": {**bias, "dtype": dtype}}
        _rewrite_weights(card_file, _safetensors(bad, body))
        with pytest.raises(CheckpointError, match=rf"action_net.bias has dtype '{dtype}'; only"):
            library_load(card_file)
    shifted = {**entries, "value_net.bias": {**entries["value_net.bias"], "data_offsets": [0, 8]}}
    _rewrite_weights(card_file, _safetensors(shifted, body))
    with pytest.raises(CheckpointError, match=r"value_net.bias's byte range \[0, 8\] does not"):
        library_load(card_file)
    monkeypatch.undo()
    _rewrite_weights(card_file, _safetensors(entries, body))  # the same weights, by hand
    assert library_load(card_file).policy_state.keys() == state.keys()


def test_non_finite_weights_are_refused(tmp_path):
    from ratenvs.agents.checkpoint import save_checkpoint as library_save

    _, state = _numpy_checkpoint(tmp_path)
    state["action_net.weight"][1, 2] = np.inf
    card_file = library_save(tmp_path / "inf", state, {**BASE, "policy": SPEC.to_dict()})
    with pytest.raises(CheckpointError, match=r"action_net.weight holds infinity \(1 of 32"):
        library_load(card_file)


def test_a_weights_file_larger_than_its_architecture_is_not_read(tmp_path):
    card_file, _ = _numpy_checkpoint(tmp_path)
    weights = card_file.with_name(json.loads(card_file.read_text())["weights_file"])
    with weights.open("r+b") as fh:
        fh.truncate(2 << 20)  # 2 MiB for 397 weights
    with pytest.raises(CheckpointError, match=r"2,097,152 bytes, more than the limit of"):
        library_load(card_file)
