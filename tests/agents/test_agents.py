"""ratenvs.agents: the shipped agents by name, checkpoints by path, loaded safely as Bots
without stable-baselines3 (the shapes come from the card alone) and without torch (the
weights are safetensors read with NumPy; only the older ``.pt`` format needs torch)."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from ratenvs import agents
from ratenvs.agents.checkpoint import (
    LEGACY_FORMAT,
    CheckpointError,
    MissingExtraError,
    PolicyBot,
    PolicySpec,
    load_card,
    load_checkpoint,
    save_checkpoint,
)
from ratenvs.games import GAMES

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(p.stem for p in (ROOT / "checkpoints").glob("*/*.json"))
TWO_PLAYER = json.loads((ROOT / "checkpoints/rat_a_tat_cat/rat_a_tat_cat_2p.json").read_text())
"""The card of the shipped 2-player Rat-a-Tat Cat agent (the figures the tests expect)."""
CATZ_1P = PolicySpec(12, 4, (8, 8), "tanh")  # Catz, Ratz and Batz, one player: 8 + 4 n


def random_state(spec: PolicySpec, seed: int = 0) -> dict[str, np.ndarray]:
    """Random float32 weights of ``spec``'s shapes."""
    rng = np.random.default_rng(seed)
    return {
        k: rng.standard_normal(shape).astype(np.float32)
        for k, shape in spec.expected_shapes().items()
    }


def write_checkpoint(path: Path, spec: PolicySpec, state=None, **card) -> Path:
    """A checkpoint written as training writes one (``save_checkpoint``: safetensors +
    card), with no SB3 and no torch; returns its card."""
    full = {
        "game": "catz_ratz_batz",
        "env_options": {"num_players": 1, "turns": 1},
        "policy": spec.to_dict(),
        **card,
    }
    return save_checkpoint(path, random_state(spec) if state is None else state, full)


def write_legacy_checkpoint(path: Path, spec: PolicySpec, state=None) -> Path:
    """A checkpoint of the older format (torch.save ``<name>.pt`` + a format-1 card), as
    ratenvs 0.2.0 wrote them; returns its ``.pt``."""
    torch = pytest.importorskip("torch")
    state = random_state(spec) if state is None else state
    pt = path.with_suffix(".pt")
    torch.save({"policy": {k: torch.from_numpy(v) for k, v in state.items()}}, pt)
    full = {
        "format": LEGACY_FORMAT,
        "game": "catz_ratz_batz",
        "env_options": {"num_players": 1, "turns": 1},
        "policy": spec.to_dict(),
        "weights_sha256": hashlib.sha256(pt.read_bytes()).hexdigest(),
    }
    pt.with_suffix(".json").write_text(json.dumps(full))
    return pt


@pytest.fixture
def no_torch(monkeypatch):
    """torch cannot be imported (``import torch`` is a ModuleNotFoundError)."""
    monkeypatch.setitem(sys.modules, "torch", None)


def test_available_lists_every_shipped_card_without_reading_weights(no_torch):
    shipped = agents.available()
    assert [a.name for a in shipped] == SHIPPED
    for info in shipped:
        card = json.loads(info.path.with_name(f"{info.name}.json").read_text())
        assert info.game == card["game"] in GAMES
        assert info.env_options == card["env_options"]
        assert info.evaluation == card["evaluation"]
        assert info.path.is_file() and info.path.name == card["weights_file"]
        assert info.path.suffix == ".safetensors"
        assert info.name in info.summary() and info.game in info.summary()
    by_name = {a.name: a for a in shipped}
    assert by_name["rat_a_tat_cat_2p"].env_options == TWO_PLAYER["env_options"]
    headline = TWO_PLAYER["evaluation"]
    assert f"win rate {headline['win_rate']:.3f}" in by_name["rat_a_tat_cat_2p"].summary()


def test_the_subpackages_are_attributes_of_ratenvs():
    import ratenvs

    assert ratenvs.agents is agents and ratenvs.evaluation.MAX_GAMES >= 1
    with pytest.raises(AttributeError, match="no attribute 'agentz'"):
        ratenvs.agentz  # noqa: B018


def test_a_source_checkout_reads_the_repository_checkpoints():
    # the tests run from the source tree (editable install or PYTHONPATH): no package data
    # there, so the loader reads checkpoints/ itself (the wheel: tests/test_wheel.py)
    assert agents.shipped_folder() == ROOT / "checkpoints"


def test_load_by_name_prefix_and_path_is_the_same_greedy_bot(no_torch):
    by_name = agents.load("rat_a_tat_cat_2p")
    by_prefix = agents.load("agent:rat_a_tat_cat_2p")
    base = ROOT / "checkpoints" / "rat_a_tat_cat" / "rat_a_tat_cat_2p"
    by_path = agents.load(base.with_suffix(".json"))
    for other in (base, base.with_suffix(".pt"), str(base) + ".json"):  # the same checkpoint
        assert agents.load(other).name == "rat_a_tat_cat_2p"
    assert isinstance(by_name, PolicyBot) and by_name.name == "rat_a_tat_cat_2p"
    assert by_name.game == "rat_a_tat_cat"
    assert by_name.env_options == TWO_PLAYER["env_options"]
    env = GAMES["rat_a_tat_cat"].load().raw_env(**by_name.env_options)
    env.reset(seed=3)
    seen = env.observe(env.agent_selection)
    obs, mask = seen["observation"], seen["action_mask"]
    rng = np.random.default_rng(0)
    actions = {bot.act(obs, mask, rng) for bot in (by_name, by_prefix, by_path)}
    assert len(actions) == 1 and mask[actions.pop()]
    np.testing.assert_array_equal(by_name.logits(obs), by_path.logits(obs))


@pytest.mark.parametrize("name", ["nobody", "agent:nobody", "agent:", "rat_a_tat_cat"])
def test_an_unknown_name_lists_the_shipped_agents(name):
    with pytest.raises(CheckpointError, match="the shipped agents are: catz_ratz_batz_1p, ") as e:
        agents.load(name)
    assert all(n in str(e.value) for n in SHIPPED)


def test_load_refuses_an_agent_of_another_game():
    with pytest.raises(
        CheckpointError, match="an agent for 'rat_a_tat_cat', not for 'ratto_zakko'"
    ):
        agents.load("rat_a_tat_cat_2p", game="ratto_zakko")


def test_without_safetensors_loading_weights_names_the_extra(monkeypatch, tmp_path):
    path = write_checkpoint(tmp_path / "agent", CATZ_1P)
    monkeypatch.setitem(sys.modules, "safetensors", None)  # import -> ModuleNotFoundError
    monkeypatch.setitem(sys.modules, "safetensors.numpy", None)
    assert load_card(path)["game"] == "catz_ratz_batz"  # cards need nothing
    with pytest.raises(MissingExtraError, match=r'pip install "ratenvs\[agents\]"'):
        load_checkpoint(path)


def test_without_torch_the_shipped_agents_load_and_evaluate(no_torch, capsys):
    from ratenvs import cli

    for name in SHIPPED:
        assert agents.load(name).name == name
    argv = ["evaluate", "agent:rat_a_tat_cat_2p", "--opponents", "random", "--games", "1"]
    assert cli.main(argv) == 0
    assert "win rate" in capsys.readouterr().out


def test_an_older_pt_checkpoint_loads_with_torch_and_names_torch_without(tmp_path, monkeypatch):
    state = random_state(CATZ_1P, seed=4)
    old = write_legacy_checkpoint(tmp_path / "old", CATZ_1P, state)
    new = write_checkpoint(tmp_path / "new", CATZ_1P, state)
    obs = np.random.default_rng(1).standard_normal((5, 12)).astype(np.float32)
    want = agents.load(old).logits(obs)
    np.testing.assert_array_equal(want, agents.load(new).logits(obs))
    assert agents.load(old.with_suffix(".json")).name == "old"  # by its card too
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingExtraError, match=r"older format .* training.migrate --in-place"):
        agents.load(old)
    # the new format needs no torch, and gives the very logits the old one gave with it
    np.testing.assert_array_equal(agents.load(new).logits(obs), want)


def test_an_older_pt_checkpoint_with_complex_or_integer_weights_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    state = random_state(CATZ_1P)
    for dtype, said in ((torch.complex64, "complex64"), (torch.int32, "int32")):
        tensors = {k: torch.from_numpy(v) for k, v in state.items()}
        tensors["action_net.bias"] = tensors["action_net.bias"].to(dtype)
        pt = write_legacy_checkpoint(tmp_path / "bad", CATZ_1P)
        torch.save({"policy": tensors}, pt)
        card = json.loads(pt.with_suffix(".json").read_text())
        card["weights_sha256"] = hashlib.sha256(pt.read_bytes()).hexdigest()
        pt.with_suffix(".json").write_text(json.dumps(card))
        with pytest.raises(CheckpointError, match=rf"action_net.bias has dtype torch.{said}"):
            agents.load(pt)


def test_expected_shapes_follow_the_card():
    spec = PolicySpec(9, 5, (16, 4), "relu", critic_extra=7)
    assert spec.expected_shapes() == {
        "mlp_extractor.policy_net.0.weight": (16, 9),
        "mlp_extractor.policy_net.0.bias": (16,),
        "mlp_extractor.policy_net.2.weight": (4, 16),
        "mlp_extractor.policy_net.2.bias": (4,),
        "mlp_extractor.value_net.0.weight": (16, 16),  # 9 observed + 7 privileged entries
        "mlp_extractor.value_net.0.bias": (16,),
        "mlp_extractor.value_net.2.weight": (4, 16),
        "mlp_extractor.value_net.2.bias": (4,),
        "action_net.weight": (5, 4),
        "action_net.bias": (5,),
        "value_net.weight": (1, 4),
        "value_net.bias": (1,),
    }
    linear = PolicySpec(10, 3, ())
    assert linear.expected_shapes() == {
        "action_net.weight": (3, 10),
        "action_net.bias": (3,),
        "value_net.weight": (1, 10),
        "value_net.bias": (1,),
    }
    assert linear.parameter_count() == 30 + 3 + 10 + 1


@pytest.fixture
def no_sb3(monkeypatch):
    """stable-baselines3 and sb3-contrib cannot be imported: nothing may build a network."""
    for name in ("stable_baselines3", "sb3_contrib"):
        monkeypatch.setitem(sys.modules, name, None)


def test_a_checkpoint_loads_and_plays_without_sb3_or_torch(tmp_path, no_sb3, no_torch):
    path = write_checkpoint(tmp_path / "agent", CATZ_1P)
    bot = agents.load(path)
    assert bot.game == "catz_ratz_batz" and bot.spec == CATZ_1P
    from ratenvs.evaluation import evaluate

    result = evaluate(str(path), games=3, seed=1)
    assert result["games"] == 3 and "ratio_to_optimal" in result


def test_shapes_that_differ_from_the_card_are_refused_before_any_array(
    tmp_path, no_sb3, monkeypatch
):
    import safetensors.numpy

    state = {k: np.zeros(shape, np.float32) for k, shape in CATZ_1P.expected_shapes().items()}
    state["mlp_extractor.value_net.0.weight"] = np.zeros((12, 8), np.float32)  # transposed
    monkeypatch.setattr(safetensors.numpy, "load", None)  # building an array would fail
    path = write_checkpoint(tmp_path / "agent", CATZ_1P, state)
    with pytest.raises(
        CheckpointError, match=r"value_net\.0\.weight has shape \(12, 8\), .*\(8, 12\)"
    ):
        agents.load(path)
    renamed = {k.replace("action_net", "actor"): v for k, v in state.items()}
    path = write_checkpoint(tmp_path / "renamed", CATZ_1P, renamed)
    with pytest.raises(CheckpointError, match=r"missing \['action_net.bias'.*unexpected \['actor"):
        agents.load(path)


@pytest.fixture
def shipped_copy(tmp_path):
    """A copy of the shipped 2-player Rat-a-Tat Cat agent to break: its card (the weights
    file the card names beside it)."""
    source = ROOT / "checkpoints" / "rat_a_tat_cat" / "rat_a_tat_cat_2p.json"
    name = json.loads(source.read_text())["weights_file"]
    shutil.copy(source, tmp_path / "copy.json")
    shutil.copy(source.with_name(name), tmp_path / name)
    return tmp_path / "copy.json"


def _edit_card(card_file: Path, **changes) -> None:
    card = json.loads(card_file.read_text())
    card.update(changes)
    card_file.write_text(json.dumps(card))


def test_a_changed_weights_file_fails_its_sha256(shipped_copy):
    weights = shipped_copy.with_name(json.loads(shipped_copy.read_text())["weights_file"])
    data = bytearray(weights.read_bytes())
    data[-100] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"SHA-256 mismatch .* changed or corrupted"):
        agents.load(shipped_copy)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"format": "other/1"}, r"has format 'other/1'"),
        ({"game": "chess"}, r"unknown game 'chess'"),
        ({"policy": {"observation_size": 182}}, r"'policy.net_arch' must be a list"),
        ({"policy": "big"}, r"'policy' must be an object"),
        ({"weights_sha256": 5}, r"'weights_sha256' must be a string"),
        ({"env_options": {"num_players": 3, "target_score": 100}}, r"observations of size"),
        ({"env_options": {"num_players": 2, "bogus": 1}}, r"do not fit rat_a_tat_cat"),
        ({"env_options": {"num_players": 2, "render_mode": "human"}}, r"may not hold"),
    ],
)
def test_a_card_that_does_not_fit_is_refused(shipped_copy, changes, message):
    _edit_card(shipped_copy, **changes)
    with pytest.raises(CheckpointError, match=message):
        agents.load(shipped_copy)


@pytest.mark.parametrize("name", ["", ".", "/"])
def test_a_name_that_names_nothing_is_a_checkpoint_error(name):
    """An empty agent name was "PosixPath('.') has an empty name", a plain ValueError."""
    with pytest.raises(CheckpointError, match=r"no checkpoint|unknown agent"):
        agents.load(name)


def test_a_card_with_another_architecture_or_broken_json_is_refused(shipped_copy):
    card = json.loads(shipped_copy.read_text())
    _edit_card(shipped_copy, policy={**card["policy"], "net_arch": [128, 512]})
    with pytest.raises(CheckpointError, match="card and weights do not match"):
        agents.load(shipped_copy)
    shipped_copy.write_text("{not json")
    with pytest.raises(CheckpointError, match="not valid JSON"):
        agents.load(shipped_copy)


def test_the_docs_page_example_runs(capsys):
    """docs/agents.md's Python example runs as written."""
    import re

    page = (ROOT / "docs" / "agents.md").read_text()
    (block,) = re.findall(r"```python\n(.*?)```", page, flags=re.S)
    exec(compile(block, "docs/agents.md", "exec"), {})
    assert "rat_a_tat_cat_2p" in capsys.readouterr().out


def test_the_listing_keeps_its_columns():
    """``ratenvs agents``: every shipped name fits the name column, so the game column
    starts at the same place on every line."""
    infos = agents.available()
    assert max(len(info.name) for info in infos) < agents.NAME_WIDTH
    assert {info.summary().index(f" {info.game} ") for info in infos} == {agents.NAME_WIDTH}
