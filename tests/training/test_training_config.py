"""The YAML training config is validated strictly: every error names the offending key."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from training.config import ConfigError, TrainConfig, config_from_dict, load_config

CONFIGS = sorted(
    p
    for p in (Path(__file__).resolve().parents[2] / "configs").glob("*.yaml")
    if not p.name.startswith("rllib_")  # RLlib runs: tests/training/test_rllib_config.py
)


def minimal(**extra):
    return {"game": "catz_ratz_batz", **extra}


def test_minimal_config_gets_defaults():
    cfg = config_from_dict(minimal())
    assert isinstance(cfg, TrainConfig)
    assert cfg.algorithm.name == "MaskablePPO"
    assert cfg.vec_env == "dummy"


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_shipped_configs_are_valid(path):
    cfg = load_config(path)
    assert cfg.timesteps >= 1
    # round trip: the dict form (written to the run dir and the card) validates again
    assert config_from_dict(cfg.to_dict()) == cfg


def test_default_config_is_small_catz_run():
    cfg = load_config(Path(__file__).resolve().parents[2] / "configs" / "default.yaml")
    assert cfg.game == "catz_ratz_batz"
    assert cfg.env_options["num_players"] == 1
    assert cfg.timesteps <= 100_000


@pytest.mark.parametrize(
    ("data", "names"),
    [
        (minimal(learning_rate=0.1), "learning_rate: unknown key"),
        (minimal(algorithm={"lr": 0.1}), "algorithm.lr: unknown key"),
        (minimal(eval={"gamez": 3}), "eval.gamez: unknown key"),
        (minimal(selfplay={"enabled": True, "bot": ["random"]}), "selfplay.bot: unknown key"),
    ],
)
def test_unknown_key_is_named(data, names):
    with pytest.raises(ConfigError, match=names):
        config_from_dict(data)


@pytest.mark.parametrize(
    ("data", "names"),
    [
        (minimal(timesteps="many"), "timesteps: expected an integer"),
        (minimal(timesteps=1.5), "timesteps: expected an integer"),
        (minimal(timesteps=True), "timesteps: expected an integer"),
        (
            minimal(algorithm={"learning_rate": "1e-3"}),
            r"algorithm.learning_rate: expected a number",
        ),
        (minimal(algorithm={"net_arch": [64, "wide"]}), r"algorithm.net_arch\[1\]: expected"),
        (minimal(algorithm={"activation": "sigmoid"}), "algorithm.activation: expected one of"),
        (minimal(vec_env="threads"), "vec_env: expected one of"),
        (minimal(env_options=[1, 2]), "env_options: expected a mapping"),
        (minimal(opponents="random"), "opponents: expected"),
        (minimal(learner_seat="left"), "learner_seat: expected"),
        (minimal(logging={"progress_bar": "yes"}), "logging.progress_bar: expected true/false"),
        (minimal(eval=5), "eval: expected a mapping"),
    ],
)
def test_wrong_type_is_named(data, names):
    with pytest.raises(ConfigError, match=names):
        config_from_dict(data)


@pytest.mark.parametrize(
    ("data", "names"),
    [
        ({}, "game: required key is missing"),
        (minimal(game="chess"), "game: unknown game 'chess'"),
        (minimal(timesteps=0), "timesteps: must be at least 1"),
        (minimal(algorithm={"gamma": 1.5}), "algorithm.gamma: must be in"),
        (minimal(n_envs=3, algorithm={"n_steps": 10, "batch_size": 4}), "algorithm.batch_size"),
        (minimal(selfplay={"enabled": True}), "selfplay.bots"),
        (minimal(env_options={"render_mode": "human"}), "env_options.render_mode"),
        (
            minimal(game="rat_a_tat_cat", eval={"metric": "exact_expected_score"}),
            "eval.metric: exact_expected_score needs an exact grade, and rat_a_tat_cat has none",
        ),
        (
            minimal(
                game="catz_ratz_batz",
                env_options={"num_players": 2},
                eval={"metric": "exact_worst_case_share"},
            ),
            "eval.metric: exact_worst_case_share needs the 2-player game of fixed turns without "
            "target_score, seen with totals_view: relative",
        ),
        # values that trained nothing, or opponents that sat nowhere (they ran, and the card
        # recorded them)
        (minimal(algorithm={"max_grad_norm": 0.0}), "algorithm.max_grad_norm: must be > 0"),
        (minimal(algorithm={"reward_scale": 0.0}), "algorithm.reward_scale: 0 leaves no reward"),
        (minimal(eval={"seed": 2**32 - 1}), "eval.seed: must be in 0..4,294,967,294"),
        (
            minimal(
                game="rat_a_tat_cat",
                opponents=["nosuchbot"],
                selfplay={"enabled": True, "bots": ["random"]},
            ),
            "opponents: not used with selfplay.enabled",
        ),
        (minimal(game="rat_a_tat_cat", opponents=["nosuchbot"]), "opponents: unknown bot"),
        (
            minimal(game="rat_a_tat_cat", selfplay={"enabled": True, "bots": ["nosuchbot"]}),
            "selfplay.bots: unknown bot",
        ),
        (minimal(selfplay={"bots": ["random"]}), "used only with selfplay.enabled"),
        (
            minimal(env_options={"num_players": 1, "turns": 1}, opponents=["optimal"]),
            "opponents: catz_ratz_batz with num_players=1 is a one-player game",
        ),
        (
            minimal(env_options={"num_players": 1}, eval={"opponents": ["random"]}),
            "eval.opponents: catz_ratz_batz with num_players=1 is a one-player game",
        ),
        (
            minimal(env_options={"num_players": 1}, selfplay={"enabled": True, "bots": ["random"]}),
            "selfplay.enabled: catz_ratz_batz with num_players=1",
        ),
        (
            minimal(
                game="rat_a_tat_cat",
                env_options={"num_players": 2},
                opponents=["random", "random", "random"],
            ),
            "opponents: rat_a_tat_cat with 2 players takes one name",
        ),
        (minimal(game="rat_a_tat_cat", opponents=["agent:nobody"]), "opponents: unknown agent"),
        (minimal(env_options={"num_players": 1}, learner_seat=1), "learner_seat: catz_ratz_batz"),
    ],
)
def test_bad_values_are_named(data, names):
    with pytest.raises(ConfigError, match=names):
        config_from_dict(data)


def test_config_error_is_a_value_error_naming_the_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(minimal(algorithm={"gama": 0.9})))
    with pytest.raises(ValueError, match=r"bad.yaml: algorithm.gama: unknown key"):
        load_config(path)
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "missing.yaml")
    path.write_text("- just\n- a list\n")
    with pytest.raises(ConfigError, match="mapping at the top level"):
        load_config(path)
