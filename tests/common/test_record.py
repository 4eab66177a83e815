"""Game records: save, replay identically, detect tampering; ``ratenvs replay --gif``."""

import json

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
