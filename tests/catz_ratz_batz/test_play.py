"""``ratenvs play catz-ratz-batz``: what the person types at the prompts, and what the game
says of the dice."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from ratenvs.catz_ratz_batz import play, rules
from ratenvs.catz_ratz_batz.rules import NUM_ACTIONS, NUMBERS, PHASE_KEEP, Dice


def test_a_keep_answer_that_is_no_ascii_number_asks_again():
    # "²" and "٣" pass str.isdigit; neither may crash the prompt or pick a number
    env = SimpleNamespace(truth=SimpleNamespace(phase=PHASE_KEEP, dice=Dice(cats=1, threes=8)))
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[NUMBERS.index(3)] = 1
    answers = iter(["²", "٣", "-3", " 3 "])
    said: list[str] = []
    action = play._ask_action(env, mask, lambda _: next(answers), said.append)
    assert action == NUMBERS.index(3)
    assert said[0] == "  score if the turn ended with it kept now: 3s 48"
    assert len(said) == 4 and all("not a number you can keep" in s for s in said[1:])


def test_an_unreadable_or_endless_line_asks_again():
    """A line not in the terminal's encoding, or of 5,000 digits, asks again: they ended the
    game with an error (the digits beyond int()'s limit) and lost its record."""
    env = SimpleNamespace(truth=SimpleNamespace(phase=PHASE_KEEP, dice=Dice(cats=1, threes=8)))
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[NUMBERS.index(3)] = 1
    answers = iter([UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid"), "3" * 5000, "3"])

    def ask(_prompt):
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    said: list[str] = []
    assert play._ask_action(env, mask, ask, said.append) == NUMBERS.index(3)
    assert "could not be read" in said[1] and "5,000 characters long" in said[2]


def test_an_error_in_the_game_keeps_its_record(tmp_path, monkeypatch):
    """Whatever stops a game, the record of what was played is saved before the error is
    said."""
    record = tmp_path / "game.json"

    def broken(*_args, **_kwargs):
        raise ValueError("a broken bot")

    monkeypatch.setattr(play, "_ask_action", broken)
    with pytest.raises(ValueError, match="a broken bot"):
        play.main(["--seed", "1", "--record", str(record)], ask=lambda _: "", say=lambda _: None)
    assert record.is_file()


def test_only_enter_rolls_the_dice():
    """At the roll prompt Enter (or r) rolls; other text asks again (any text rolled)."""
    env = SimpleNamespace(truth=SimpleNamespace(phase=rules.PHASE_ROLL))
    answers = iter(["quit", "7", " R "])
    said: list[str] = []
    assert play._ask_action(env, None, lambda _: next(answers), said.append) == rules.ACTION_ROLL
    assert said == [
        "  'quit': press Enter to roll (? shows the rules)",
        "  '7': press Enter to roll (? shows the rules)",
    ]


@pytest.mark.parametrize(
    ("dice", "points", "reason"),
    [
        (Dice(cats=3, bats=1, rats=1, fives=4), 60, "5 x 4 = 20; good 3 > bad 1: x 3 = 60"),
        (Dice(cats=2, bats=1, rats=1, threes=5), 45, "3 x 5 = 15; good 3 > bad 1: x 3 = 45"),
        (Dice(cats=1, bats=3, rats=3, threes=2), 12, "3 x 2 = 6; good 4 > bad 3: x 2 = 12"),
        (Dice(cats=1, bats=1, rats=1, sevens=6), 0, "7 x 6 = 42, but good 1 < bad 2: 0"),
        (Dice(cats=1, rats=1, fives=7), 35, "5 x 7 = 35; good 1 = bad 1: 35"),
        (Dice(cats=4, rats=5), 0, "no number dice left: 0"),
    ],
)
def test_a_turns_end_says_why_it_scores_what_it_does(dice, points, reason):
    assert play.score_reason(dice) == reason
    number = (rules.numbers_showing(dice) or (3,))[0]
    assert rules.score(dice.cats, dice.bats, dice.rats, number, dice.count(number)) == points


def test_the_game_shows_its_legend_what_each_keep_gives_and_prints_the_rules_on_request():
    answers = iter(["?", "", "?", "5"])
    said: list[str] = []
    code = play.main(["--seed", "1", "--turns", "1"], ask=lambda _: next(answers), say=said.append)
    assert code == 0
    text = "\n".join(said)
    assert text.index(play.LEGEND) < text.index(play.SCORING) < text.index("player_0 to roll")
    assert text.count(play.RULES[-1]) == 2  # once per "?", and the game went on after each
    assert text.count("The full rules and the project's rulings: ratenvs rules catz-ratz-batz") == 2
    # seed 1: player_0 rolls CCCR 35555; keeping the 3 would score 3 x 1 x (1 + 3 - 1) = 9
    assert "score if the turn ended with it kept now: 3s 9, 5s 60" in text
    assert (
        "player_0's turn ends: CCCR 55555 scores 75 (5 x 5 = 25; good 3 > bad 1: x 3 = 75)" in text
    )
