"""Terminal play of Ratto Zakko (untimed practice) with scripted input and a fake clock."""

from __future__ import annotations

import pytest

from ratenvs.ratto_zakko import play, rules


class FakeClock:
    """Each call returns the next time; an answer's delay is set per prompt by ``Typist``."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Typist:
    """Answers prompts from a list; typing each answer takes ``delay`` seconds of fake time."""

    def __init__(self, clock: FakeClock, answers, delay: float = 0.1) -> None:
        self.clock = clock
        self.answers = list(answers)
        self.delay = delay
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if not self.answers:
            raise EOFError
        self.clock.now += self.delay
        answer = self.answers.pop(0)
        return answer(self.prompts) if callable(answer) else answer


def test_parsing():
    assert play.parse_response("g cheese") == rules.RESPONSE_INDEX["grab:cheese"]
    assert play.parse_response("grab che") == rules.RESPONSE_INDEX["grab:cheese"]
    assert play.parse_response("g chi") == rules.RESPONSE_INDEX["grab:chili"]
    assert play.parse_response("s a") == rules.RESPONSE_INDEX["shout:apple"]
    assert play.parse_response("FLY") == rules.SHOUT_FLY
    assert play.parse_response("rat") == rules.SHOUT_RAT
    assert play.parse_response("bang") == rules.BANG
    assert play.parse_response("") is None
    assert play.parse_response("pass") is None
    for bad in ("g ch", "grab", "jump", "g pizza", "fly egg"):
        assert play.parse_response(bad) == "bad"
    assert play.parse_relocation("fly egg") == rules.RELOCATE_FLY_FIRST + 1
    assert play.parse_relocation("shaker fish") == rules.RELOCATE_SHAKER_FIRST + 3
    assert play.parse_relocation("leave") == rules.LEAVE_BOTH
    assert play.parse_relocation("fly") is None


def test_eof_exits_cleanly():
    clock = FakeClock()
    out: list[str] = []
    code = play.main(["--seed", "1"], ask=Typist(clock, []), say=out.append, clock=clock)
    assert code == 0
    assert "Game abandoned." in out[-1]


def test_the_start_says_the_game_is_untimed_practice_and_names_the_window():
    out: list[str] = []
    play.main(["--seed", "1"], ask=Typist(FakeClock(), []), say=out.append, clock=FakeClock())
    start = "\n".join(out[:4])
    assert "untimed practice" in start and "--window" in start and "? (the rules)" in start


def test_question_mark_prints_the_rules_and_asks_again():
    clock = FakeClock()
    out: list[str] = []
    typist = Typist(clock, ["?", "bang", "?", ""])
    play.main(["--players", "2", "--level", "main", "--seed", "0"], ask=typist, say=out.append)
    assert out.count(play.RULES[0]) == 2
    assert any(line.startswith("  you: bang") for line in out)  # asked again after the rules


def test_bad_input_is_asked_again_and_the_time_taken_is_said_not_counted():
    clock = FakeClock()
    out: list[str] = []
    typist = Typist(clock, ["hop", "bang"], delay=3.0)  # valid after 6 s: untimed, it counts
    code = play.main(
        ["--players", "2", "--bots", "perfect", "--level", "main", "--seed", "0"],
        ask=typist,
        say=out.append,
        clock=clock,
    )
    assert code == 0
    assert any("not understood" in line for line in out)
    assert any("you: bang (you took 6.0 s; untimed)" in line for line in out)
    # bang is never right at the main level; it counts at tick 0, before the perfect bot
    assert any("player_0 said bang - wrong" in line for line in out)


def test_a_fast_right_answer_wins_the_card():
    clock = FakeClock()
    out: list[str] = []

    def right(prompts):
        # the card was printed just before the prompt: read it from the output
        line = next(x for x in reversed(out) if x.startswith("CARD"))
        return answer_for(line, out)

    typist = Typist(clock, [right], delay=4.0)  # 4 s to type: untimed, it counts at tick 0
    play.main(
        ["--players", "3", "--bots", "expert", "perfect", "--seed", "3"],
        ask=typist,
        say=out.append,
        clock=clock,
    )
    assert any("player_0 wins 1 card(s) after 25 ms" in line for line in out), out[:12]


def answer_for(card_line: str, out: list[str]) -> str:
    """The correct typed answer for the first card of a starter game (fly under fish, shaker
    on cheese)."""
    text = card_line.split(": ", 1)[1]
    if text == "FLY card":
        return "g fish"
    food = text.split(" ")[0]
    card = f"{food}/{text.split('(')[1].rstrip(')')}"
    response = rules.correct_response(card, "cheese", "fish", "starter")
    kind, _, what = response.partition(":")
    return {"grab": f"g {what}", "shout": what if what in ("fly", "rat") else f"s {what}"}.get(
        kind, "bang"
    )


def test_bad_options_are_reported(capsys):
    for argv, said in (
        (["--players", "9"], "argument --players: must be an integer in 2..8, got 9"),
        (["--players", "3", "--bots", "adult"], "--bots needs 2 names, got 1"),
    ):
        with pytest.raises(SystemExit) as info:
            play.main(argv, ask=lambda p: "", say=lambda s: None)
        assert info.value.code == 2
        err = capsys.readouterr().err.strip()
        assert err == f"error: {said} (see ratenvs play ratto-zakko --help)"


def test_a_whole_game_with_no_answers_ends():
    clock = FakeClock()
    out: list[str] = []
    typist = Typist(clock, [""] * 200)
    assert (
        play.main(["--players", "2", "--seed", "2"], ask=typist, say=out.append, clock=clock) == 0
    )
    assert "game over" in out[-1]


def test_an_answer_counts_at_the_floor():
    """With ``--min-reaction-ticks 7`` (answers refused before 175 ms) a typed answer is
    given in tick 7, the earliest allowed: a right one wins at 200 ms, the end of tick 7."""
    clock = FakeClock()
    out: list[str] = []

    def right(prompts):
        return answer_for(next(x for x in reversed(out) if x.startswith("CARD")), out)

    argv = ["--players", "3", "--bots", "expert", "perfect", "--seed", "3"]
    play.main([*argv, "--min-reaction-ticks", "7"], ask=Typist(clock, [right]), say=out.append)
    assert "(by 200 ms)" in out[1]
    assert any("player_0 wins 1 card(s) after 200 ms" in line for line in out), out[:12]


@pytest.mark.parametrize("observation", ["memoryless", "knowledge"])
def test_a_card_nobody_answered_keeps_its_answer_where_the_fly_hides(observation):
    """Memoryless: the report after a card nobody answered right named the answer ("answer
    was grab:fish" on a fly card while the table showed "fly under ?"), which told where
    the hidden fly is. It now says "no answer"; with the fly in the observation, or when
    somebody answered right (everyone saw it), the answer is named."""
    clock = FakeClock()
    out: list[str] = []
    argv = ["--players", "2", "--bots", "child", "--level", "main", "--window-ticks", "44"]
    argv += ["--observation", observation, "--seed", "0"]
    play.main(argv, ask=Typist(clock, [""] * 400), say=out.append, clock=clock)
    unanswered = [line for line in out if "nobody was right" in line]
    assert len(unanswered) >= 5
    named = [line for line in unanswered if "answer was" in line]
    assert named == ([] if observation == "memoryless" else unanswered)
    assert any("answer was" in line and " wins " in line for line in out)


def test_a_relocation_the_mask_forbids_asks_again():
    """With ``relocation="both"`` the fly moves first: a shaker move then is not played (it
    reached env.step as an illegal action, ending the game and losing the record)."""
    import numpy as np

    mask = np.zeros(rules.NUM_ACTIONS, dtype=np.int8)
    for choice in range(rules.RELOCATE_SHAKER_FIRST):  # the fly's moves and "leave"
        mask[rules.ACTION_RELOCATE_FIRST + choice] = 1
    mask[rules.ACTION_RELOCATE_FIRST + rules.LEAVE_BOTH] = 1
    answers = iter(["shaker apple", "fly egg"])
    said: list[str] = []
    choice = play._ask_relocation(lambda _: next(answers), said.append, mask)
    assert choice == rules.RELOCATE_FLY_FIRST + play.parse_food("egg")
    assert len(said) == 1 and said[0].startswith("  not a move now; you may: ")


def test_the_relocation_prompt_says_that_enter_leaves_both():
    """An empty answer leaves the fly and the shaker where they are; the prompt says so."""
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return ""

    assert play._ask_relocation(ask, lambda _: None) == rules.LEAVE_BOTH
    assert "leave (or Enter)" in prompts[0]
