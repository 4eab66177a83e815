"""Game records: save, replay identically, detect tampering; ``ratenvs replay --gif`` and
the streamed GIF writer under it (same pictures as Pillow's all-frames writer, memory of a
few frames, nothing left behind by a write that fails)."""

import itertools
import json
import os
import tracemalloc
import types

import numpy as np
import pytest
from PIL import Image

from ratenvs import cli
from ratenvs.catz_ratz_batz.bots import get_bot
from ratenvs.common.bots import RandomBot
from ratenvs.common.record import (
    iter_replay_frames,
    load_record,
    make_record,
    record_bot_game,
    replay,
    replay_frames,
    save_record,
)
from ratenvs.common.render import GIF_MAX_DELAY, save_gif


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


def test_a_record_of_another_env_version_is_refused_and_an_old_one_without_it_is_v0(record):
    from ratenvs.rat_a_tat_cat.bots import get_bot as ratcat_bot

    assert record["env_version"] == 0  # Catz, Ratz and Batz is v0
    old = {k: v for k, v in record.items() if k != "env_version"}  # written before 0.2.0
    assert replay(old).game_state() == record["final_state"]
    ratcat = record_bot_game(
        "rat_a_tat_cat", [ratcat_bot("heuristic"), ratcat_bot("random")], seed=3
    )
    assert ratcat["env_version"] == 1 and replay(ratcat).game_state() == ratcat["final_state"]
    v0 = {k: v for k, v in ratcat.items() if k != "env_version"}
    with pytest.raises(ValueError, match=r"rat_a_tat_cat v0 cannot be replayed: .* plays "
                       r"rat_a_tat_cat v1"):  # fmt: skip
        replay(v0)


def test_frames_follow_the_game(record):
    frames = replay_frames(record, render_view="player_0")
    assert len(frames) == len(record["actions"]) + 1
    assert all(f.dtype == np.uint8 and f.ndim == 3 for f in frames)
    assert not np.array_equal(frames[0], frames[-1])
    lazy = iter_replay_frames(record, render_view="player_0")
    assert isinstance(lazy, types.GeneratorType)  # one position at a time
    assert all(np.array_equal(a, b) for a, b in itertools.zip_longest(lazy, frames))
    with pytest.raises(ValueError, match="version"):
        iter_replay_frames(dict(record, version=99))  # checked before the first frame


def _pillow_gif(frames, path, fps):
    """The writer ``save_gif`` had before it streamed: every frame in memory, then Pillow."""
    images = [Image.fromarray(f) for f in frames]
    images[0].save(
        path,
        save_all=True,
        append_images=images[1:],
        duration=int(1000 / fps),
        loop=0,
        optimize=False,
    )


def _decoded(path):
    """Size, loop count and, per GIF frame, the picture shown (RGB) and its duration."""
    with Image.open(path) as im:
        size, loop, shown = im.size, im.info.get("loop"), []
        for i in range(im.n_frames):
            im.seek(i)
            shown.append((np.asarray(im.convert("RGB")).copy(), im.info["duration"]))
    return size, loop, shown


def _quantised(frame):
    """A frame as a GIF shows it: palette-quantised (256 colours, median cut)."""
    return np.asarray(Image.fromarray(frame).quantize(256).convert("RGB"))


@pytest.mark.parametrize(
    ("game", "options", "fps"),
    [
        ("catz_ratz_batz", {"turns": 2}, 2.0),
        ("rat_a_tat_cat", {"target_score": 30}, 3.0),
        ("ratto_zakko", {"level": "dessert", "window_ticks": 8}, 7.5),
    ],
)
def test_streamed_gif_shows_what_the_all_frames_writer_showed(game, options, fps, tmp_path):
    record = record_bot_game(game, [RandomBot(), RandomBot()], seed=11, **options)
    frames = list(itertools.islice(iter_replay_frames(record, render_view="player_0"), 30))
    _pillow_gif(frames, tmp_path / "old.gif", fps)
    # a generator, consumed once
    count = save_gif((f for f in frames), tmp_path / "new.gif", fps=fps)
    assert count == len(frames)
    size, loop, shown = _decoded(tmp_path / "new.gif")
    old_size, old_loop, old_shown = _decoded(tmp_path / "old.gif")
    assert size == (frames[0].shape[1], frames[0].shape[0])
    assert loop == 0
    assert (size, loop, len(shown)) == (old_size, old_loop, len(old_shown))
    for (picture, duration), (old_picture, old_duration) in zip(shown, old_shown):
        assert duration == old_duration
        np.testing.assert_array_equal(picture, old_picture)
    # a GIF frame stands for k equal positions, k * int(1000 / fps) ms cut to hundredths
    frame_ms = int(1000 / fps)
    repeats = [round(duration / frame_ms) for _, duration in shown]
    assert [d for _, d in shown] == [k * frame_ms // 10 * 10 for k in repeats]
    on_screen = [p for (p, _), k in zip(shown, repeats) for _ in range(k)]
    assert len(on_screen) == len(frames)
    expected = None
    for picture, frame, before in zip(on_screen, frames, [None, *frames]):
        if before is None or not np.array_equal(frame, before):  # (quantising is slow)
            expected = _quantised(frame)
        np.testing.assert_array_equal(picture, expected)


def _moving_square(count, side=200):
    """``count`` distinct (side, side, 3) frames, made one at a time (a square moving on a
    table, few colours like a game picture)."""
    for i in range(count):
        frame = np.empty((side, side, 3), np.uint8)
        frame[:] = (24, 92, 60)
        frame[side // 5 : -side // 5, side // 5 : -side // 5] = (248, 246, 238)
        x, y = (7 * i) % (side - 20), (3 * i) % (side - 20)
        frame[y : y + 20, x : x + 20] = (i % 256, 255 - i % 256, 30)
        yield frame


def test_a_long_gif_is_written_as_its_frames_come_in_bounded_memory(tmp_path):
    count, side = 1000, 200
    all_frames = count * side * side * 3  # 120 MB if they were all held
    out = tmp_path / "long.gif"
    written_at_half = []

    def frames():
        for i, frame in enumerate(_moving_square(count, side)):
            if i == count // 2:
                (temp,) = tmp_path.glob(".long.gif.*.tmp")
                written_at_half.append(temp.stat().st_size)
            yield frame

    tracemalloc.start()
    try:
        assert save_gif(frames(), out, fps=10) == count
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < all_frames / 10, f"peak {peak / 2**20:.1f} MiB"
    assert written_at_half[0] > out.stat().st_size / 4  # half the frames already on disk
    assert [p.name for p in tmp_path.iterdir()] == ["long.gif"]
    with Image.open(out) as im:
        assert (im.n_frames, im.size, im.info["loop"]) == (count, (side, side), 0)
        im.seek(count - 1)
        assert im.info["duration"] == 100
        last = np.asarray(im.convert("RGB"))
    *_, expected = _moving_square(count, side)
    np.testing.assert_array_equal(last, _quantised(expected))


@pytest.mark.parametrize("interrupt", [RuntimeError, KeyboardInterrupt])
def test_a_write_that_fails_half_way_leaves_no_gif_and_no_temp_file(interrupt, tmp_path):
    def frames():
        yield from _moving_square(5)
        raise interrupt("stop")

    out = tmp_path / "out.gif"
    with pytest.raises(interrupt):
        save_gif(frames(), out)
    assert list(tmp_path.iterdir()) == []
    out.write_bytes(b"the old gif")
    with pytest.raises(interrupt):
        save_gif(frames(), out)
    assert [p.name for p in tmp_path.iterdir()] == ["out.gif"]
    assert out.read_bytes() == b"the old gif"


def test_bad_frames_and_fps_are_errors_that_write_nothing(tmp_path):
    out = tmp_path / "out.gif"
    small, large = np.zeros((10, 10, 3), np.uint8), np.zeros((10, 12, 3), np.uint8)
    with pytest.raises(ValueError, match=r"frame 2 is 12x10 pixels, frame 0 is 10x10"):
        save_gif([small, small, large], out)
    with pytest.raises(ValueError, match="no frames"):
        save_gif(iter(()), out)
    with pytest.raises(ValueError, match=r"frame 1: expected an \(H, W, 3\) uint8 array"):
        save_gif([small, small.astype(np.float32)], out)
    with pytest.raises(ValueError, match=r"expected an \(H, W, 3\) uint8 array"):
        save_gif([small[..., 0]], out)
    with pytest.raises(ValueError, match="1 to 65535 pixels"):
        save_gif([np.zeros((0, 4, 3), np.uint8)], out)
    for fps in (0, -2, float("nan"), float("inf"), 101, 0.001):
        with pytest.raises(ValueError, match="fps"):
            save_gif([small], out, fps=fps)
    assert list(tmp_path.iterdir()) == []


def test_identical_frames_share_a_frame_up_to_the_longest_gif_delay(tmp_path):
    frames = list(_moving_square(3, side=16))
    frames = [frames[0]] * 3 + [frames[1], frames[2].copy(), frames[2]]
    out = tmp_path / "out.gif"
    assert save_gif(frames, out, fps=4) == 6
    assert [d for _, d in _decoded(out)[2]] == [750, 250, 500]
    frame_ms = int(1000 / 0.002)  # 500 s: two would not fit in one GIF delay
    assert 2 * frame_ms > 10 * GIF_MAX_DELAY
    assert save_gif(frames, out, fps=0.002) == 6
    _, _, shown = _decoded(out)
    assert [d for _, d in shown] == [frame_ms] * 6
    for (picture, _), frame in zip(shown, frames):
        np.testing.assert_array_equal(picture, _quantised(frame))
    single = tmp_path / "single.gif"
    save_gif([frames[0]] * 4, single, fps=2)
    with Image.open(single) as im:
        assert (im.n_frames, im.info["duration"], im.info["loop"]) == (1, 2000, 0)


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
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.gif", "game.json"]  # no temp


def test_cli_replay_gif_errors_leave_no_file(record, tmp_path, capsys):
    path = tmp_path / "game.json"
    save_record(record, path)
    gif = tmp_path / "game.gif"
    with pytest.raises(SystemExit, match="2"):  # refused by the argument parser
        cli.main(["replay", str(path), "--gif", str(gif), "--fps", "0"])
    assert "--fps: must be a number from 0.01 up to 50, got '0'" in capsys.readouterr().err
    assert cli.main(["replay", str(path), "--gif", str(gif), "--view", "player_9"]) == 2
    assert "--view 'player_9': not a view of this" in capsys.readouterr().err
    assert cli.main(["replay", str(path), "--gif", str(tmp_path / "no" / "game.gif")]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json"]


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


@pytest.mark.parametrize(
    ("kind", "value", "args"),
    [
        ("multinomial", [9.3e18, 0, 0, 0, 0, 0], (9, [1 / 6] * 6)),  # beyond 64 bits
        ("multinomial", "nine", (9, [1 / 6] * 6)),
        ("permutation", [0, None, 2], (3,)),
        ("integers", 9.3e18, (3,)),
        ("integers", [1, 2], (3,)),
    ],
)
def test_a_chance_log_value_that_is_no_draw_is_a_chance_replay_error(kind, value, args):
    """A corrupt chance log (a value too large for 64 bits, not a number, of another
    shape) is refused as the log's error, in one line, not an OverflowError."""
    from ratenvs.common.game import ChanceReplay, ChanceReplayError

    with pytest.raises(ChanceReplayError, match=r"^draw 0: "):
        getattr(ChanceReplay([[kind, value]]), kind)(*args)


@pytest.mark.parametrize(
    ("draws", "call", "said"),
    [
        ([("permutation", [0] * 5)], lambda r: r.permutation(5), "not a permutation of 5"),
        ([("permutation", [0, 1, 2, 3, 9])], lambda r: r.permutation(5), "not a permutation"),
        ([("standard_normal", {"a": 1})], lambda r: r.standard_normal(), "must be real"),
        ([("standard_normal", [1.0])], lambda r: r.standard_normal(), "not one real number"),
        ([("random", 1.5)], lambda r: r.random(), r"not one real in \[0, 1\)"),
        ([("random", "x")], lambda r: r.random(), "must be real"),
    ],
)
def test_a_chance_log_of_impossible_draws_is_refused(draws, call, said):
    """A replayed draw the generator could not have given (a "permutation" of zeros or out
    of range, a normal that is no number) is a ChanceReplayError (it dealt a deck of 54
    zeros, or was an IndexError or TypeError traceback)."""
    from ratenvs.common.game import ChanceReplay, ChanceReplayError

    with pytest.raises(ChanceReplayError, match=said):
        call(ChanceReplay(draws))


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("version", False, "unsupported record version False"),
        ("version", 0.0, "unsupported record version 0.0"),
        ("env_version", True, "'env_version' must be an integer >= 0"),
        ("env_version", 0.0, "'env_version' must be an integer >= 0"),
        ("actions", [0, None], "'actions' must be integers, got None"),
        ("actions", [1.5], "'actions' must be integers, got 1.5"),
    ],
)
def test_a_record_header_of_the_wrong_type_is_refused(key, value, said):
    """``version`` and ``env_version`` were compared with ``==``, so False or 0.0 passed;
    a null action was a TypeError traceback."""
    from ratenvs.common.record import RECORD_VERSION, _check

    record = {"game": "catz_ratz_batz", "version": RECORD_VERSION, "seed": 1, "options": {}}
    record["actions"] = []
    record[key] = value
    with pytest.raises(ValueError, match=said):
        _check(record, None)


def test_a_changed_peek_is_found_by_the_views():
    """A Peek at another slot leaves the cards (``final_state``) as they are and changes what
    the seat knows: the record's ``views`` finds it (it replayed as matching)."""
    from ratenvs.common.record import make_record, replay
    from ratenvs.rat_a_tat_cat import rules as rtc
    from ratenvs.rat_a_tat_cat.env import raw_env

    for seed in range(200):
        env = raw_env(num_players=2)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        actions, peek_at = [], None
        while env.agents and not env.terminations[env.agent_selection]:
            mask = env.observe(env.agent_selection)["action_mask"]
            peeks = [a for a in np.flatnonzero(mask) if rtc.ACTION_PEEK <= a < rtc.ACTION_PEEK + 4]
            if peek_at is None and len(peeks) >= 2:
                peek_at, action = len(actions), int(peeks[0])
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
            actions.append(action)
            env.step(action)
        if peek_at is not None:
            break
    record = make_record("rat_a_tat_cat", seed, {"num_players": 2}, actions, env)
    replay(record)
    tampered = {**record, "actions": list(actions)}
    tampered["actions"][peek_at] += 1  # the next slot: legal, the cards unchanged
    with pytest.raises(ValueError, match="recorded views"):
        replay(tampered)
