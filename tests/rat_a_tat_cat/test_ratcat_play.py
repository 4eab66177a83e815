"""``ratenvs play rat-a-tat-cat`` in the terminal: the legend, the hand as the person knows
it, what each move does, and ``?`` for the rules."""

from __future__ import annotations

import numpy as np

from ratenvs.rat_a_tat_cat import play, rules


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
    assert code == 0 and said[-1] == "Game abandoned."
    assert said[-2].startswith("Seed ")  # the seed that deals this game again
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


def test_the_others_read_the_same_line_for_every_way_of_playing_a_peek():
    """RULES.md / ``PeekRecord``: nobody else sees which card a Peek looked at, nor, outside
    a Draw 2 sequence, whether it was used. The move log (terminal and window) tells the
    other seats the same for every legal play of a Peek; the mover reads its own slot.
    Inside a Draw 2 sequence declining is public (the next card is drawn), the slot is not."""
    from ratenvs.rat_a_tat_cat.play import describe

    game = rules.RatATatCat(num_players=2)
    agents = ["player_0", "player_1"]
    rng = np.random.default_rng(0)
    found = 0
    for seed in range(400):
        state = game.init(np.random.default_rng(seed))
        while not state.is_over and found < 4:
            seat = state.current
            mask = game.legal_mask(state, seat)
            if state.phase == rules.PHASE_PEEK and state.draw2_left == 0:
                found += 1
                inside = state.copy()
                inside.draw2_left = 1  # the same Peek as the first card of a Draw 2
                for before, count in ((state, 1), (inside, 2)):
                    lines = set()
                    for action in np.flatnonzero(mask).tolist():
                        after = before.copy()
                        game.apply(after, {seat: action}, np.random.default_rng(1))
                        lines.add(describe(agents[seat], action, before, after, agents, False))
                        own = describe(agents[seat], action, before, after, agents, True)
                        if rules.ACTION_PEEK <= action < rules.ACTION_PEEK + rules.SLOTS:
                            assert f"slot {action - rules.ACTION_PEEK}" in own  # the mover's
                    assert len(lines) == count and not any("slot" in x for x in lines), lines
            game.apply(state, {seat: int(rng.choice(np.flatnonzero(mask)))}, rng)
        if found >= 4:
            break
    assert found >= 4
