"""Game records: save, replay identically, detect tampering; ``ratenvs replay --gif``."""

import json
import os

import numpy as np
import pytest
from PIL import Image

from ratenvs import cli
from ratenvs.catz_ratz_batz.bots import get_bot
from ratenvs.common.record import (
    load_record,
    make_record,
    record_bot_game,
    replay,
    replay_frames,
    save_record,
)


@pytest.fixture
def record():
    return record_bot_game(
        "catz_ratz_batz", [get_bot("optimal"), get_bot("random")], seed=11, turns=2
    )


def test_round_trip_replays_to_the_same_final_state(record, tmp_path):
    path = tmp_path / "game.json"
    save_record(record, path)
    loaded = load_record(path)
    assert loaded == record
    env = replay(loaded, game="catz-ratz-batz")
    assert env.game_state() == record["final_state"]
    assert make_record("catz_ratz_batz", 11, record["options"], record["actions"]) == record


def test_saving_over_a_record_is_atomic(record, tmp_path, monkeypatch):
    path = tmp_path / "game.json"
    save_record(record, path)
    umask = os.umask(0)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # as open() makes files
    before = path.read_bytes()

    def no_disk(fd):
        raise OSError("disk gone")

    monkeypatch.setattr(os, "fsync", no_disk)
    with pytest.raises(OSError, match="disk gone"):
        save_record(dict(record, seed=12), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]


def test_tampering_and_mismatches_are_errors(record):
    bad = dict(record, seed=12)
    with pytest.raises(ValueError, match=r"diverged|after the game ended|illegal"):
        replay(bad)
    with pytest.raises(ValueError, match="not a rat_a_tat_cat record"):
        replay(record, game="rat_a_tat_cat")
    with pytest.raises(ValueError, match="after the game ended"):
        replay(dict(record, actions=[*record["actions"], 3], final_state=None))
    with pytest.raises(ValueError, match="version"):
        replay(dict(record, version=99))
    with pytest.raises(ValueError, match="lacks"):
        replay({"game": "catz_ratz_batz", "version": 0})


def test_frames_follow_the_game(record):
    frames = replay_frames(record, render_view="player_0")
    assert len(frames) == len(record["actions"]) + 1
    assert all(f.dtype == np.uint8 and f.ndim == 3 for f in frames)
    assert not np.array_equal(frames[0], frames[-1])


def test_cli_replay_writes_a_gif(record, tmp_path, capsys):
    path = tmp_path / "game.json"
    save_record(record, path)
    gif = tmp_path / "game.gif"
    assert cli.main(["replay", str(path), "--gif", str(gif), "--view", "player_1"]) == 0
    assert "final state matches" in capsys.readouterr().out
    with Image.open(gif) as im:
        # identical consecutive positions are merged into one longer GIF frame
        durations = []
        for i in range(im.n_frames):
            im.seek(i)
            durations.append(im.info["duration"])
    assert 1 < len(durations) <= len(record["actions"]) + 1
    assert sum(durations) == 500 * (len(record["actions"]) + 1)


def test_cli_replay_bad_files(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert cli.main(["replay", str(broken)]) == 2
    assert "not a game record" in capsys.readouterr().err
    assert cli.main(["replay", str(tmp_path / "missing.json")]) == 2
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"game": "chess", "version": 0, "seed": 0}))
    assert cli.main(["replay", str(wrong)]) == 2


def test_a_record_with_its_chance_log_replays_whatever_its_seed_says():
    from ratenvs.common.bots import RandomBot

    for game, options in (
        ("catz_ratz_batz", {"turns": 3}),
        ("rat_a_tat_cat", {"target_score": 30}),
        ("ratto_zakko", {"level": "dessert", "window_ticks": 8}),
    ):
        record = record_bot_game(game, [RandomBot()] * 3, 4, record_chance=True, **options)
        assert record["chance"]
        wrong_seed = json.loads(json.dumps({**record, "seed": 999}))  # the log decides
        assert replay(wrong_seed).game_state() == record["final_state"]
        without_log = {k: v for k, v in wrong_seed.items() if k != "chance"}
        with pytest.raises(ValueError, match=r"diverged|illegal|ended"):
            replay(without_log)
        short = {**record, "chance": record["chance"][:-1]}
        with pytest.raises(ValueError):
            replay(short)
