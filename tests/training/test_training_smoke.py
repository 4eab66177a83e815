"""A few hundred training steps on every game whose env is present, end to end:
config -> MaskablePPO -> logs, best/final checkpoints with cards, curve; then resume."""

from __future__ import annotations

import csv
import importlib.util
import json

import pytest

from ratenvs.games import GAMES
from training.checkpoint import load_checkpoint, sha256_file, weights_path
from training.config import config_from_dict
from training.train import main as train_main
from training.train import train

SMOKE_STEPS = 128
SELFPLAY = {"rat_a_tat_cat": ["random", "heuristic"], "ratto_zakko": ["adult", "random"]}


def present(game: str) -> bool:
    return importlib.util.find_spec(GAMES[game].module) is not None


def smoke_config(game: str, **extra):
    data = {
        "game": game,
        "n_envs": 2,
        "timesteps": SMOKE_STEPS,
        "algorithm": {"n_steps": 32, "batch_size": 32, "n_epochs": 1, "net_arch": [16]},
        "eval": {"every": SMOKE_STEPS, "games": 2, "final_games": 2},
        "logging": {"progress_bar": False},
    }
    if game in SELFPLAY:  # exercise the self-play pool with seat rotation and snapshots
        data["selfplay"] = {"enabled": True, "bots": SELFPLAY[game], "snapshot_every": 64}
        data["learner_seat"] = "random"
    data.update(extra)
    return config_from_dict(data)


@pytest.mark.parametrize(
    "game",
    [
        pytest.param(g, marks=pytest.mark.skipif(not present(g), reason=f"{g} env not present"))
        for g in GAMES
    ],
)
def test_smoke_training_run(game, tmp_path):
    cfg = smoke_config(game)
    final = train(cfg, tmp_path, config_name="smoke")
    card = json.loads(final.with_suffix(".json").read_text())
    for key in (
        "game",
        "gymnasium_id",
        "env_options",
        "config",
        "timesteps",
        "wall_time_s",
        "versions",
        "git_commit",
        "weights_sha256",
        "evaluation",
    ):
        assert key in card, key
    assert card["game"] == game
    assert card["timesteps"] >= SMOKE_STEPS
    assert card["weights_sha256"] == sha256_file(weights_path(final))
    assert card["evaluation"]["games"] == 2
    if game in SELFPLAY:  # snapshots every 64 steps reached every worker's pool
        assert card["selfplay_snapshots"] == SMOKE_STEPS // 64
    for key in ("torch", "sb3-contrib", "gymnasium", "pettingzoo"):
        assert key in card["versions"]
    ckpt = load_checkpoint(final, game=game)
    assert ckpt.optimizer_state is not None
    with (tmp_path / "eval.csv").open() as fh:
        assert len(list(csv.DictReader(fh))) >= 1
    with (tmp_path / "progress.csv").open() as fh:
        assert len(list(csv.DictReader(fh))) >= 1
    assert weights_path(tmp_path / "best").is_file()
    best_eval = load_checkpoint(tmp_path / "best.pt").card["evaluation"]  # the older name
    assert best_eval["games"] == 2
    # the cards report fresh games, not the periodic games that picked best.pt
    eval_seed = card["config"]["eval"]["seed"]
    assert card["evaluation"]["seed"] == best_eval["seed"] == eval_seed + 1
    assert best_eval["selected_by"]["periodic"]["seed"] == eval_seed
    assert (tmp_path / "curve.png").stat().st_size > 1000


def test_cli_train_with_overrides_and_resume(tmp_path, capsys):
    config = tmp_path / "tiny.yaml"
    cfg = smoke_config("catz_ratz_batz", env_options={"num_players": 1, "turns": 1})
    import yaml

    config.write_text(yaml.safe_dump(cfg.to_dict()))
    out = tmp_path / "run"
    assert (
        train_main(["--config", str(config), "--timesteps", "64", "--seed", "3", "--out", str(out)])
        == 0
    )
    first = json.loads((out / "final.json").read_text())
    assert first["config"]["seed"] == 3
    assert first["timesteps"] == 64
    assert "exact expected turn score" in capsys.readouterr().out
    out2 = tmp_path / "resumed"
    args = ["--config", str(config), "--timesteps", "64", "--out", str(out2)]
    assert train_main([*args, "--resume", str(out / "final.pt")]) == 0
    resumed = json.loads((out2 / "final.json").read_text())
    assert resumed["timesteps"] == 128
    assert resumed["resumed_from"].endswith("final.pt")
    # resuming a checkpoint of another game is a clear error
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump({**cfg.to_dict(), "env_options": {"num_players": 2}}))
    assert (
        train_main(
            [
                "--config",
                str(other),
                "--out",
                str(tmp_path / "x"),
                "--resume",
                str(out / "final.pt"),
            ]
        )
        == 2
    )
    assert "observations of size 12" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: catz_ratz_batz\nalgorithm: {learning_rat: 0.1}\n")
    assert train_main(["--config", str(bad)]) == 2
    assert "algorithm.learning_rat: unknown key" in capsys.readouterr().err


def test_a_resumed_linear_schedule_continues_one_run_of_both_lengths(tmp_path, monkeypatch):
    # the documented rule (training/README.md): after prev steps, T more start at
    # lr * T / (prev + T); SB3 passes the remaining progress at each update
    import training.train as train_module

    seen: list[float] = []
    real = train_module._LinearSchedule.__call__

    def record(self, progress_remaining):
        seen.append(round(progress_remaining, 6))
        return real(self, progress_remaining)

    monkeypatch.setattr(train_module._LinearSchedule, "__call__", record)
    cfg = smoke_config(
        "catz_ratz_batz",
        env_options={"num_players": 1, "turns": 1},
        algorithm={
            "learning_rate_schedule": "linear",
            "n_steps": 32,
            "batch_size": 32,
            "n_epochs": 1,
            "net_arch": [16],
        },
        n_envs=1,
        timesteps=64,
    )
    first = train(cfg, tmp_path / "first")
    fresh = list(dict.fromkeys(seen[1:]))  # after the optimizer's set-up at 1.0
    seen.clear()
    train(cfg, tmp_path / "resumed", resume=first)
    resumed = list(dict.fromkeys(seen[1:]))
    assert fresh == [0.5, 0.0]  # updates after 32 and 64 of 64 steps
    assert resumed == [0.25, 0.0]  # after 64 + 32 and 64 + 64 of 128: started at half


def test_a_periodic_evaluation_grades_the_weights_of_its_timesteps(tmp_path):
    """An evaluation row at N steps grades the weights after N steps of updates: the one
    at the last rollout is the final policy (the same exact score as the final card), and
    the one before updates nothing would be the untrained policy's. (Evaluated at the
    rollout's last step, the rows graded weights one update short of their timesteps.)"""
    cfg = smoke_config(
        "catz_ratz_batz",
        env_options={"num_players": 1, "turns": 1},
        eval={"every": 64, "games": 2, "final_games": 2},
        algorithm={"n_steps": 32, "batch_size": 32, "n_epochs": 2, "net_arch": [16]},
    )
    final = train(cfg, tmp_path, config_name="smoke")
    with (tmp_path / "eval.csv").open() as fh:
        rows = {int(r["timesteps"]): float(r["exact_expected_score"]) for r in csv.DictReader(fh)}
    assert sorted(rows) == [64, 128]
    card = json.loads(final.with_suffix(".json").read_text())
    assert card["timesteps"] == 128
    assert rows[128] == pytest.approx(card["evaluation"]["exact_expected_score"], abs=1e-9)
    assert rows[64] != pytest.approx(rows[128], abs=1e-9)  # the weights moved between them
