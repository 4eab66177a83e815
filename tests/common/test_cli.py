"""The ``ratenvs`` console script."""

import json
import re
import subprocess
import sys

import pytest

from ratenvs import cli
from ratenvs.catz_ratz_batz import play
from ratenvs.games import GAMES


def test_solve_json_has_the_promised_keys(capsys):
    assert cli.main(["solve", "catz-ratz-batz", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["expected_score"] == pytest.approx(data["value_iteration_check"], abs=1e-7)
    assert data["states"] == 2002
    assert set(data["bots"]) == {"random", "most_common", "lowest", "optimal"}
    assert data["bots"]["optimal"] == pytest.approx(data["expected_score"])


def test_solve_table_and_errors(capsys):
    assert cli.main(["solve", "catz-ratz-batz"]) == 0
    assert "optimal expected score" in capsys.readouterr().out
    assert cli.main(["solve", "chess"]) == 2
    assert "unknown game" in capsys.readouterr().err


def test_bench_json_records(capsys):
    assert cli.main(["bench", "--json", "--seconds", "0.05", "--rounds", "1"]) == 0
    records = json.loads(capsys.readouterr().out)
    by_env = {r["env"]: r for r in records}
    assert by_env["connect_four_v3"]["ratio_vs_connect_four"] == 1.0
    crb = next(r for r in records if r["env"].startswith("catz_ratz_batz"))
    assert crb["decisions_per_s"] > 0 and set(crb) >= {"env", "decisions_per_s"}


def test_bench_batched_json_records(capsys):
    argv = ["bench", "--batched", "--json", "--seconds", "0.05", "--rounds", "1"]
    assert cli.main([*argv, "--games", "catz-ratz-batz", "--batch-sizes", "1", "64"]) == 0
    records = json.loads(capsys.readouterr().out)
    keys = {"env", "batch_size", "decisions_per_s", "ratio_vs_raw_env", "ratio_vs_connect_four"}
    assert all(set(r) >= keys for r in records)
    batched = [r for r in records if r["engine"] == "batched"]
    assert sorted(r["batch_size"] for r in batched) == [1, 64]
    raw = next(r for r in records if r["engine"] == "raw_env" and r["env"] != "connect_four_v3")
    assert raw["ratio_vs_raw_env"] == 1.0 and all(r["decisions_per_s"] > 0 for r in records)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seconds", "0"], r"--seconds: must be a number above 0 up to 3,600, got '0'"),
        (["--rounds", "0"], r"--rounds: must be an integer in 1\.\.100, got 0"),
        (["--batched", "--batch-sizes", "0"], r"--batch-sizes: must be an integer in 1\.\.65,536"),
    ],
)
def test_bench_refuses_bad_numbers(argv, message, capsys):
    # these were SystemExit("message"): exit status 1, not the usage status 2
    with pytest.raises(SystemExit) as exited:
        cli.main(["bench", *argv])
    assert exited.value.code == 2
    assert re.search(message, capsys.readouterr().err)


def test_console_script_is_installed():
    out = subprocess.run(
        [sys.executable, "-m", "ratenvs.cli", "list"], capture_output=True, text=True, check=True
    )
    assert "ratenvs/catz_ratz_batz-v0" in out.stdout


def test_play_a_whole_game_with_bad_input_re_asked():
    answers = iter(["", "9", "seven", "3", "5", "7"] * 200)
    said = []

    def ask(prompt):
        said.append(prompt)
        return next(answers)

    assert (
        play.main(["--players", "2", "--turns", "2", "--seed", "4"], ask=ask, say=said.append) == 0
    )
    text = "\n".join(str(s) for s in said)
    assert "not a number you can keep" in text
    assert "game over" in text


def test_play_end_of_input_exits_cleanly():
    def ask(prompt):
        raise EOFError

    out = []
    assert play.main(["--seed", "1"], ask=ask, say=out.append) == 0
    assert "abandoned" in out[-1]


def test_play_bad_options_exit_with_a_message(capsys):
    with pytest.raises(SystemExit):
        play.main(["--players", "9"])
    assert "--players: must be an integer in 1..6, got 9" in capsys.readouterr().err


def test_play_reports_every_turn_of_a_solo_game():
    answers = iter(["", "3", "5", "7"] * 100)
    said = []
    assert (
        play.main(
            ["--players", "1", "--turns", "3", "--seed", "2"],
            ask=lambda _: next(answers),
            say=said.append,
        )
        == 0
    )
    assert sum("turn ends" in str(s) for s in said) == 3


def test_play_record_saves_a_game_that_replays(tmp_path):
    """``--record``: a whole terminal game (bad input included, which is not a move) is
    saved as a record whose replay reaches the same final state."""
    from ratenvs.common.record import load_record, replay

    answers = iter(["", "9", "3", "5", "7"] * 400)
    said: list[str] = []
    path = tmp_path / "game.json"
    argv = ["--players", "2", "--turns", "2", "--seed", "4", "--record", str(path)]
    assert play.main(argv, ask=lambda _: next(answers), say=said.append) == 0
    assert f"Record saved to {path}" in said[-1]
    record = load_record(path)
    assert record["seed"] == 4 and record["options"]["turns"] == 2
    assert len(record["actions"]) > 4
    env = replay(record)  # raises unless the final state is the recorded one
    assert env.truth.is_over
    assert cli.main(["replay", str(path)]) == 0
    assert any(line.startswith("Seed 4 (--seed 4") for line in said)


def test_replay_refuses_a_view_the_game_lacks_before_replaying(tmp_path, capsys):
    """``--view player_5`` of a 2-player record: one error line, before the replay runs."""
    answers = iter(["", "3", "5", "7"] * 100)
    path = tmp_path / "game.json"
    argv = ["--players", "2", "--turns", "1", "--seed", "4", "--record", str(path)]
    assert play.main(argv, ask=lambda _: next(answers), say=lambda _: None) == 0
    capsys.readouterr()
    gif = tmp_path / "game.gif"
    assert cli.main(["replay", str(path), "--gif", str(gif), "--view", "player_5"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "--view 'player_5'" in err and err.count("\n") == 1
    assert not gif.exists()


def test_play_record_of_an_abandoned_game_and_a_bad_path(tmp_path, capsys):
    from ratenvs.common.record import load_record, replay

    answers = iter(["", "5"])  # Enter rolls, then keep the 5s (or asked again)

    def ask(_prompt):
        answer = next(answers, None)
        if answer is None:
            raise EOFError
        return answer

    path = tmp_path / "part.json"
    out: list[str] = []
    assert play.main(["--seed", "1", "--record", str(path)], ask=ask, say=out.append) == 0
    record = load_record(path)
    assert not replay(record).truth.is_over and len(record["actions"]) >= 1
    with pytest.raises(SystemExit) as stop:  # checked before the game starts
        play.main(["--record", str(tmp_path)], ask=ask, say=out.append)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "--record" in err and "is a folder" in err


def test_version_and_play_help(capsys):
    import ratenvs

    with pytest.raises(SystemExit) as stop:
        cli.main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"ratenvs {ratenvs.__version__}"
    assert cli.main(["play", "--help"]) == 0
    text = capsys.readouterr().out
    for spec in GAMES.values():
        assert spec.cli_name in text
    assert "--record" in text


def test_bench_in_an_envs_only_install(monkeypatch, capsys):
    """Without pygame PettingZoo's connect_four_v3 cannot be built: bench says so and
    measures our envs alone; without numba ``--batched`` is a one-line error."""
    import importlib.util

    from ratenvs import bench

    def no_pygame():
        raise ModuleNotFoundError("No module named 'pygame'", name="pygame")

    monkeypatch.setattr(bench, "_reference_env", no_pygame)
    assert "need pygame" in bench.reference_missing()
    records = bench.run(games=["catz_ratz_batz"], seconds=0.05, rounds=1)
    assert [r["env"] for r in records] == ["catz_ratz_batz_v0 num_players=2"]
    assert records[0]["ratio_vs_connect_four"] is None and records[0]["decisions_per_s"] > 0
    assert (
        cli.main(["bench", "--games", "catz-ratz-batz", "--seconds", "0.05", "--rounds", "1"]) == 0
    )
    out = capsys.readouterr()
    assert "connect_four_v3 skipped" in out.err and "catz_ratz_batz_v0" in out.out
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "numba" else real(name, *a)
    )
    assert cli.main(["bench", "--batched"]) == 2
    assert "need numba" in capsys.readouterr().err


def test_the_parser_knows_what_was_typed():
    """``ArgumentParser.typed``: the arguments typed, also at their default value or by an
    abbreviation; not those left at their defaults or set by ``set_defaults``."""
    from ratenvs.common.arguments import ArgumentParser

    parser = ArgumentParser(prog="t")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--level", default="main")
    parser.add_argument("--seed", type=int, default=None)
    parser.set_defaults(func="run")
    args = parser.parse_args(["--players", "2", "--lev", "dessert"])
    assert (args.players, args.level, args.seed, args.func) == (2, "dessert", None, "run")
    assert parser.typed == {"players", "level"}
    parser.parse_args([])
    assert parser.typed == frozenset()
    assert parser.get_default("players") == 2  # the defaults are back


def test_a_missing_extra_is_one_line_with_its_install_command(monkeypatch, capsys):
    """Without the agents extra (safetensors) or the batched one (numba), a command that
    needs it says what to install in one line, exit status 2 (a traceback, or no install
    command, before)."""
    import sys

    from ratenvs.catz_ratz_batz import bestresponse

    with monkeypatch.context() as patch:
        for name in ("safetensors", "safetensors.numpy"):
            patch.setitem(sys.modules, name, None)  # import fails as if not installed
        assert cli.main(["evaluate", "agent:catz_ratz_batz_1p", "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert 'pip install "ratenvs[agents]"' in err and err.count("\n") == 1

    def no_numba(*_args, **_kwargs):  # numba is imported once per process: raised here
        raise ModuleNotFoundError("No module named 'numba'", name="numba")

    monkeypatch.setattr(bestresponse, "exact_report", no_numba)
    assert cli.main(["exploit", "catz-ratz-batz:lowest", "--exact", "--no-card"]) == 2
    err = capsys.readouterr().err
    assert err == "error: No module named 'numba': pip install \"ratenvs[batched]\"\n"


def test_an_output_that_is_an_input_is_refused(tmp_path, capsys):
    """``replay R --gif R`` turned the record into a GIF; ``tournament --json F --markdown F``
    wrote F twice; one agent named twice gave two rows of one name. Each is one error line
    before any work, the files as they were."""
    record = tmp_path / "game.json"
    record.write_text("{}")
    assert cli.main(["replay", str(record), "--gif", str(record)]) == 2
    assert "is the record itself" in capsys.readouterr().err
    assert record.read_text() == "{}"
    both = tmp_path / "t.out"
    argv = ["tournament", "catz-ratz-batz:lowest", "catz-ratz-batz:optimal", "--games", "2"]
    assert cli.main([*argv, "--json", str(both), "--markdown", str(both)]) == 2
    assert "--json and --markdown name one file" in capsys.readouterr().err
    assert not both.exists()
    assert cli.main(["tournament", "catz-ratz-batz:lowest", "catz-ratz-batz:lowest"]) == 2
    assert "given twice: catz_ratz_batz:lowest" in capsys.readouterr().err


def test_a_record_or_gif_is_never_written_over_a_checkpoint_card(tmp_path, capsys):
    """``play --record CARD`` (the card of the agent played against) and ``replay R --gif
    CARD`` replaced the card, and the agent no longer loaded: refused before anything."""
    import shutil

    from ratenvs import agents

    card = agents.agent_path("catz_ratz_batz_2p")
    for path in card.parent.glob("catz_ratz_batz_2p.*"):
        shutil.copy(path, tmp_path / path.name)
    copy = tmp_path / card.name
    before = copy.read_bytes()
    argv = ["play", "catz-ratz-batz", "--vs", str(copy), "--record", str(copy)]
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 2 and "is the card of a checkpoint" in capsys.readouterr().err
    record = tmp_path / "game.json"
    record.write_text("{}")
    assert cli.main(["replay", str(record), "--gif", str(copy)]) == 2
    assert "is the card of a checkpoint" in capsys.readouterr().err
    assert copy.read_bytes() == before
    agents.load(str(copy))


def test_a_reader_that_stops_reading_gets_no_error():
    """``ratenvs rules | head -1``: the reader closes the pipe before the output is
    written; the command stops quietly (exit 1, nothing on stderr), not with an error line
    or Python's "Exception ignored" at the exit."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ratenvs.cli", "rules"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader is gone before anything is written
    _, err = proc.communicate(timeout=120)
    assert err == b""
    assert proc.returncode == 1


def test_the_parser_takes_an_optional_positional_with_choices(capsys):
    """``nargs="?"`` with ``choices``, left out: parsed as its default, not refused (the pass
    that finds what was typed checked the absent value against the choices)."""
    from ratenvs.common.arguments import ArgumentParser

    parser = ArgumentParser(prog="p")
    parser.add_argument("case", nargs="?", default=None, choices=["a", "b"])
    parser.add_argument("--n", type=int, default=3)
    args = parser.parse_args([])
    assert (args.case, args.n, parser.typed) == (None, 3, frozenset())
    args = parser.parse_args(["b", "--n", "3"])
    assert (args.case, parser.typed) == ("b", frozenset({"case", "n"}))
    with pytest.raises(SystemExit):
        parser.parse_args(["c"])
    assert "invalid choice: 'c'" in capsys.readouterr().err
    assert parser._actions[1].choices == ["a", "b"]  # put back


def test_an_option_before_the_game_says_the_game_comes_first(capsys):
    """``play --seed 3 GAME`` read the 3 as the game: "unknown game '3'"."""
    assert cli.main(["play", "--seed", "3", "catz-ratz-batz"]) == 2
    err = capsys.readouterr().err
    assert "the game comes first: ratenvs play catz-ratz-batz [options]" in err
    assert err.count("\n") == 1
    assert cli.main(["play", "chess"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err
