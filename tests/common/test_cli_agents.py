"""``ratenvs agents``, ``ratenvs evaluate``, ``ratenvs tournament`` and
``ratenvs play GAME --vs AGENT``."""

from __future__ import annotations

import importlib.util
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ratenvs import cli
from ratenvs.agents.checkpoint import PolicyBot
from ratenvs.common import terminal
from ratenvs.games import GAMES

ROOT = Path(__file__).resolve().parents[2]


def _play_module(game: str):
    import importlib

    return importlib.import_module(f"ratenvs.{game}.play")


def test_agents_lists_the_shipped_agents(capsys):
    card = json.loads((ROOT / "checkpoints/rat_a_tat_cat/rat_a_tat_cat_2p.json").read_text())
    assert cli.main(["agents"]) == 0
    out = capsys.readouterr().out
    assert "rat_a_tat_cat_2p" in out and f"win rate {card['evaluation']['win_rate']:.3f}" in out
    assert cli.main(["agents", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {a["game"] for a in listed} == set(GAMES)
    two = next(a for a in listed if a["name"] == "rat_a_tat_cat_2p")
    assert two["env_options"] == card["env_options"]
    assert two["evaluation"] == card["evaluation"]
    assert two["exploitability"] == card["exploitability"]  # the whole block
    block = card["exploitability"]
    low, high = block["win_rate_ci"]
    said = f"best response of {block['frames']:,} frames wins {block['responder_win_rate']:.3f}"
    assert f"{said} [{low:.3f}, {high:.3f}]" in out


def test_evaluate_a_shipped_agent_writes_json(capsys, tmp_path):
    pytest.importorskip("torch")
    out = tmp_path / "eval.json"
    argv = ["evaluate", "agent:rat_a_tat_cat_2p", "--opponents", "random", "--games", "4"]
    assert cli.main([*argv, "--seed", "5", "--json", str(out)]) == 0
    captured = capsys.readouterr()
    printed = captured.out
    assert "win rate" in printed and "agent:rat_a_tat_cat_2p" in printed
    if importlib.util.find_spec("tqdm") is not None:  # the games as they are played
        assert "games: 100%" in captured.err and "4/4" in captured.err, captured.err
    result = json.loads(out.read_text())
    assert result["games"] == 4 and result["seed"] == 5
    assert result["opponents"] == ["rat_a_tat_cat:random"]
    assert not list(tmp_path.glob(".*.tmp"))  # written through a temporary file


def test_evaluate_prints_and_writes_the_answers_by_correct_response(capsys, tmp_path):
    out = tmp_path / "rz.json"
    argv = ["evaluate", "ratto_zakko:adult", "--opponents", "child", "--games", "2"]
    assert cli.main([*argv, "--env", "window_ticks=60", "--env", "level=dessert"]) == 0
    printed = capsys.readouterr().out
    assert (
        cli.main([*argv, "--env", "window_ticks=60", "--env", "level=dessert", "--json", str(out)])
        == 0
    )
    assert capsys.readouterr().out == printed  # deterministic
    result = json.loads(out.read_text())
    assert result["env_overrides"] == {"window_ticks": 60, "level": "dessert"}
    assert result["env_options"] == {"num_players": 4, "window_ticks": 60, "level": "dessert"}
    table = result["by_correct_response"]
    assert len(table) == 13 and sum(t["cards"] for t in table.values()) == result["cards"]
    assert "env overrides {'window_ticks': 60, 'level': 'dessert'}" in printed
    assert "answers by the card's correct response" in printed
    assert f"lowest answer rate ({result['min_answer_rate_response']}:" in printed
    for name, t in table.items():
        row = next(line.split() for line in printed.splitlines() if line.startswith(name + " "))
        assert row[1:3] == [str(t["cards"]), str(t["answers"])]


def test_evaluate_a_shipped_agent_with_an_env_override(capsys):
    pytest.importorskip("torch")
    argv = ["evaluate", "agent:rat_a_tat_cat_2p", "--opponents", "random", "--games", "2"]
    assert cli.main([*argv, "--env", "target_score=50"]) == 0
    assert "{'num_players': 2, 'target_score': 50}" in capsys.readouterr().out
    assert cli.main([*argv, "--env", "num_players=3"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --env num_players=3: the agent agent:rat_a_tat_cat_2p: its")
    assert "an override may not change the observation or action size" in err
    assert len(err.splitlines()) == 1


def test_tournament_prints_pairings_and_ratings(capsys, tmp_path):
    out = tmp_path / "t.json"
    argv = ["tournament", "ratto_zakko:adult", "ratto_zakko:random", "--games", "2"]
    assert cli.main([*argv, "--json", str(out)]) == 0
    captured = capsys.readouterr()
    printed = captured.out
    assert "pairings" in printed and "Bradley-Terry ratings" in printed
    if importlib.util.find_spec("tqdm") is not None:  # the games as the pairings are played
        assert "games: 100%" in captured.err and "2/2" in captured.err, captured.err
    result = json.loads(out.read_text())
    assert [r["agent"] for r in result["ratings"]] == ["ratto_zakko:adult", "ratto_zakko:random"]


def test_tournament_of_four_seats_writes_markdown_atomically(capsys, tmp_path, monkeypatch):
    import os

    md = tmp_path / "t.md"
    argv = ["tournament", "ratto_zakko:random", "ratto_zakko:bayes", "--players", "4"]
    argv += ["--env", "window_ticks=20", "--games", "2", "--markdown", str(md)]
    replaced = []
    real = os.replace

    def spy(src, dst):
        replaced.append((os.path.basename(src), os.path.basename(dst)))
        real(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    assert cli.main(argv) == 0
    assert "4 seats" in capsys.readouterr().out
    text = md.read_text()
    assert "| rank | agent | Elo | 95% interval | mean score |" in text
    assert "| agent | opponent | score | 95% interval (Wilson) |" in text
    command = " ".join(["ratenvs", *argv[:-4], "--games", "2", "--seed", "0", *argv[-2:]])
    assert f"`{command}`" in text.splitlines()[0]
    assert "window_ticks=20" in text.splitlines()[0]
    assert [dst for _, dst in replaced] == ["t.md"] and replaced[0][0].startswith(".t.md.")
    assert not list(tmp_path.glob(".*.tmp"))

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    md.write_text("old\n")
    assert cli.main(argv) == 2
    assert md.read_text() == "old\n" and not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--players", "1"], r"^error: argument --players: must be an integer >= 2, got 1"),
        (["--players", "x"], r"^error: argument --players: must be an integer >= 2, got 'x'"),
        (["--players", "9"], r"^error: --players 9: ratto_zakko option 'num_players' must be"),
        (["--env", "num_players=4"], r"^error: --env num_players=4: a tournament's seat count"),
        (["--env", "window_ticks=0"], r"^error: --env window_ticks=0: option 'window_ticks'"),
    ],
)
def test_a_bad_tournament_flag_is_one_line(capsys, extra, message):
    import re

    with pytest.raises(SystemExit) if extra[1] in ("1", "x") else _nothing():
        code = cli.main(["tournament", "ratto_zakko:random", "ratto_zakko:bayes", *extra])
        assert code == 2
    err = capsys.readouterr().err
    assert re.search(message, err) and len(err.strip().splitlines()) == 1


def test_a_tournament_checkpoint_of_other_seats_is_one_line(capsys):
    pytest.importorskip("torch")
    argv = ["tournament", "agent:rat_a_tat_cat_4p", "rat_a_tat_cat:random", "--players", "2"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --players 2: the checkpoint agent:rat_a_tat_cat_4p plays")


def _nothing():
    import contextlib

    return contextlib.nullcontext()


def test_help_shows_the_defaults():
    out = subprocess.run(
        [sys.executable, "-m", "ratenvs.cli", "evaluate", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "default: 200" in out and "default: 0" in out and "agent:NAME" in out
    assert "--env KEY=VALUE" in out
    out = subprocess.run(
        [sys.executable, "-m", "ratenvs.cli", "tournament", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "games per pairing (1..1,000,000; default: 200)" in " ".join(out.split())


def test_play_against_a_shipped_agent_to_the_end():
    pytest.importorskip("torch")
    moves = itertools.cycle(["k", "n", "d", "x", "t", "r 0", "p 0", "u", "s 0 1 0"])
    said: list[str] = []
    play = _play_module("rat_a_tat_cat")
    argv = ["--vs", "agent:rat_a_tat_cat_2p", "--seed", "3"]
    assert play.main(argv, ask=lambda _: next(moves), say=said.append) == 0
    assert "game over" in said[-1]  # the elimination game to 100 points, played out


def test_vs_brings_the_agents_env_options(monkeypatch):
    pytest.importorskip("torch")
    tables = []
    real = terminal.set_table

    def spy(*args, **kwargs):
        tables.append(real(*args, **kwargs))
        return tables[-1]

    for game, agent, options in (
        ("rat_a_tat_cat", "agent:rat_a_tat_cat_4p_ceilings", {"owner_ceilings": True}),
        ("ratto_zakko", "agent:ratto_zakko_4p_dessert", {"answer_beliefs": True}),
    ):
        play = _play_module(game)
        monkeypatch.setattr(play, "set_table", spy)

        def stop(_prompt):
            raise EOFError

        assert play.main(["--vs", agent, "--seed", "1"], ask=stop, say=lambda _: None) == 0
        table = tables[-1]
        assert table.env.num_players == 4 and table.bot_names == [agent] * 3
        assert all(isinstance(b, PolicyBot) for b in table.bots)
        for key, value in options.items():  # options with no command-line flag
            assert table.env.options[key] == value


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            "play rat-a-tat-cat --players 3 --vs agent:rat_a_tat_cat_2p",
            r"--players 3: the agent agent:rat_a_tat_cat_2p plays with num_players=2",
        ),
        (
            "play rat-a-tat-cat --target-score 50 --vs agent:rat_a_tat_cat_2p",
            r"--target-score 50: the agent .* plays with target_score=100",
        ),
        # typed at the parser's default (2 players, the main level): it was overridden
        (
            "play rat-a-tat-cat --vs agent:rat_a_tat_cat_4p --players 2",
            r"--players 2: the agent agent:rat_a_tat_cat_4p plays with num_players=4 \(see",
        ),
        (
            "play ratto-zakko --vs agent:ratto_zakko_4p_dessert --level starter",
            r"--level starter: the agent .* plays with level=dessert \(see",
        ),
        # an option the card leaves at its default: it was not compared
        (
            "play rat-a-tat-cat --vs agent:rat_a_tat_cat_2p_one_round --target-score 100",
            r"--target-score 100: the agent .* plays with target_score=None \(see",
        ),
        (
            "play ratto-zakko --vs agent:ratto_zakko_4p_dessert --window-ticks 60",
            r"--window-ticks 60: the agent .* plays with window_ticks=120 \(see",
        ),
        ("play catz-ratz-batz --vs agent:catz_ratz_batz_1p", r"plays a one-player game"),
        ("play rat-a-tat-cat --vs agent:ratto_zakko_4p_dessert", r"not for 'rat_a_tat_cat'"),
        ("play rat-a-tat-cat --vs agent:nobody", r"the shipped agents are: catz_ratz_batz_1p"),
        ("play rat-a-tat-cat --vs heuristic --bots random", r"--vs and --bots: give one"),
        ("play ratto-zakko --vs nobody", r"unknown bot 'nobody' for ratto_zakko"),
    ],
)
def test_bad_vs_is_one_line_and_exit_2(argv, message, capsys):
    import re

    if "agent:" in argv:
        pytest.importorskip("torch")  # the agent is loaded before its options are compared
    try:
        code = cli.main(argv.split())
    except SystemExit as exc:
        code = exc.code
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("error: ")
    assert re.search(message, lines[0]), lines[0]


def test_vs_a_bot_fills_every_other_seat():
    said: list[str] = []
    answers = iter(["", "3", "5", "7"] * 200)
    play = _play_module("catz_ratz_batz")
    argv = ["--players", "3", "--turns", "1", "--seed", "2", "--vs", "lowest"]
    assert play.main(argv, ask=lambda _: next(answers), say=said.append) == 0
    assert any("(catz_ratz_batz:lowest) keeps" in s for s in said)


def test_a_folder_named_like_a_bot_leaves_the_bot(capsys, tmp_path, monkeypatch):
    """A bare bot name names the bot unless a checkpoint file of that name exists: a folder
    ``heuristic/`` in the working folder was taken for a checkpoint ("checkpoint card not
    found: heuristic.json")."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "heuristic").mkdir()
    argv = ["evaluate", "rat_a_tat_cat:random", "--opponents", "heuristic", "--games", "2"]
    assert cli.main(argv) == 0
    assert "rat_a_tat_cat:heuristic" in capsys.readouterr().out
