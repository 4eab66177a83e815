"""What the final evaluation needs is checked with the config, before any training: a
negative ``eval.seed`` or a mistyped bot in ``eval.opponents`` used to pass the check and
fail only after the whole run had trained."""

from __future__ import annotations

import pytest

from training.config import ConfigError, config_from_dict


def rat_a_tat_cat(**eval_options):
    return {"game": "rat_a_tat_cat", "env_options": {"num_players": 3}, "eval": eval_options}


def test_negative_eval_seed_refused():
    with pytest.raises(ConfigError, match=r"^eval\.seed: must be >= 0, got -3$"):
        config_from_dict(rat_a_tat_cat(seed=-3))


def test_eval_seed_zero_accepted():
    assert config_from_dict(rat_a_tat_cat(seed=0)).eval.seed == 0


def test_mistyped_eval_opponent_refused_with_the_choices():
    with pytest.raises(ConfigError) as info:
        config_from_dict(rat_a_tat_cat(opponents=["heuristic", "heuristc"]))
    message = str(info.value)
    assert message.startswith("eval.opponents: unknown bot 'heuristc' for rat_a_tat_cat")
    for bot in ("heuristic", "random"):
        assert bot in message


def test_eval_opponent_of_another_game_refused():
    with pytest.raises(ConfigError, match=r"eval\.opponents: 'catz_ratz_batz:random' is a bot"):
        config_from_dict(rat_a_tat_cat(opponents=["catz_ratz_batz:random"]))


@pytest.mark.parametrize(
    "names", [["heuristic"], ["random", "heuristic"], ["rat_a_tat_cat:random"]]
)
def test_eval_opponents_of_the_game_accepted(names):
    assert config_from_dict(rat_a_tat_cat(opponents=names)).eval.opponents == names


def test_wrong_number_of_eval_opponents_refused_before_training(tmp_path):
    from training.train import train

    cfg = config_from_dict(
        {
            **rat_a_tat_cat(opponents=["random", "random", "random"]),
            "opponents": ["heuristic"],
            "timesteps": 64,
            "n_envs": 1,
            "algorithm": {"n_steps": 32, "batch_size": 32, "n_epochs": 1, "net_arch": [16]},
            "logging": {"progress_bar": False},
        }
    )
    out = tmp_path / "run"
    rule = r"2 opponent seats: give 1 name \(for every seat\) or 2 \(one per seat\), got 3$"
    with pytest.raises(ConfigError, match=r"^eval\.opponents: .* 3 players: " + rule):
        train(cfg, out)
    assert not (out / "progress.csv").exists()  # nothing trained
    assert not (out / ".lock").exists()


def test_a_checkpoint_may_be_an_evaluation_opponent_if_it_exists(tmp_path):
    from training.config import ConfigError, config_from_dict

    shipped = "checkpoints/catz_ratz_batz/catz_ratz_batz_1p.pt"
    base = {"game": "catz_ratz_batz", "env_options": {"num_players": 2}}
    config_from_dict({**base, "eval": {"opponents": [shipped]}})
    with pytest.raises(ConfigError, match="no checkpoint at"):
        config_from_dict({**base, "eval": {"opponents": [str(tmp_path / "missing.pt")]}})
