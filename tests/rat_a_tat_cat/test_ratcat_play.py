"""``ratenvs play rat-a-tat-cat`` in the terminal: the legend, the hand as the person knows
it, what each move does, and ``?`` for the rules."""

from __future__ import annotations

from ratenvs.rat_a_tat_cat import play


def scripted(answers: list[str]):
    """An ``ask`` typing ``answers`` in order, then Ctrl-D (EOFError)."""
    typed = iter(answers)

    def ask(_prompt: str) -> str:
        answer = next(typed, None)
        if answer is None:
            raise EOFError
        return answer

    return ask


def test_the_terminal_game_tells_what_the_person_knows_and_prints_the_rules_on_request():
    said: list[str] = []
    # seed 1: player_0 sees its Draw 2 (slot 0) and 4 (slot 3), draws a 9 and discards it
    code = play.main(["--seed", "1"], ask=scripted(["?", "d", "?", "x", "n"]), say=said.append)
    assert code == 0 and said[-1].startswith("\nGame abandoned")
    text = "\n".join(said)
    assert "? for the rules" in text.split("round 1")[0]  # said before the first table
    assert text.count(play.RULES[0]) == 2  # once per "?"; each time the move was asked again
    hand = (
        "Your hand: 0: Draw 2 (replaced at the end)   1: ?   2: ?   3: 4 (you know 4, + 3 unknown)"
    )
    assert text.count(hand) == 4  # the start, holding the 9, the knock, its next turn
    assert hand + "; you hold a 9" in text
    assert (
        "r S      put the card you hold into your slot S (0-3); the card there is discarded" in text
    )
    assert "player_0 discards the drawn 9" in text and "player_0 does not knock" in text
