"""No Ratto Zakko seat's view depends on what it cannot know, in the views the shipped
agents read and the other view options: every seat, at every tick of games played mostly
by waiting (so cards stay open and gradual perception runs its course), observation and
mask are the same in every state ``game.resample`` deals from what that seat knows (the
card under gradual perception, the hidden fly, the others' answers, their glimpses)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ratenvs.ratto_zakko import rules

CARDS = sorted((Path(__file__).resolve().parents[2] / "checkpoints" / "ratto_zakko").glob("*.json"))
AGENT_OPTIONS = {card.stem: json.loads(card.read_text())["env_options"] for card in CARDS}
VIEW_OPTIONS = {
    # every prior of the beliefs piece, with and without the record where allowed (the
    # counted prior without it read every seat's answers)
    "beliefs_independent_3p": {"num_players": 3, "answer_beliefs": True},
    "beliefs_deck_2p": {"num_players": 2, "answer_beliefs": True, "belief_prior": "deck"},
    "beliefs_deck_record_4p": {
        "num_players": 4,
        "answer_beliefs": True,
        "belief_prior": "deck",
        "public_record": True,
    },
    "beliefs_count_record_2p_main": {
        "num_players": 2,
        "level": "main",
        "answer_beliefs": True,
        "belief_prior": "count",
        "public_record": True,
    },
    "memoryless_record_3p": {"num_players": 3, "observation": "memoryless", "public_record": True},
}
"""View options beside the agents': the tables a user can set up with them."""
CASES = {**AGENT_OPTIONS, **VIEW_OPTIONS}


def test_every_shipped_agent_of_the_game_is_covered():
    assert len(AGENT_OPTIONS) >= 3, AGENT_OPTIONS


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_seat_sees_the_same_in_every_state_dealt_from_what_it_knows(name):
    game = rules.RattoZakko(**CASES[name])
    observer = game.observer(game.observation_kind)
    rng = np.random.default_rng(3)
    state = game.init(np.random.default_rng(11))
    checked = differed = 0
    for tick in range(160):
        if game.is_terminal(state):
            break
        if tick % 4 == 0:  # every fourth tick: every seat, three deals each
            for seat in range(game.num_players):
                seen = observer.observe(state, seat)
                mask = game.legal_mask(state, seat)
                for k in range(3):
                    other = game.resample(state, seat, np.random.default_rng(1000 * tick + k))
                    assert np.array_equal(observer.observe(other, seat), seen), (tick, seat)
                    assert np.array_equal(game.legal_mask(other, seat), mask), (tick, seat)
                    differed += (other.card, other.fly_under) != (state.card, state.fly_under)
                    checked += 1
        actions = {}
        for seat in game.to_act(state):
            legal = np.flatnonzero(game.legal_mask(state, seat))
            waits = rules.ACTION_WAIT in legal and rng.random() < 0.93
            actions[seat] = rules.ACTION_WAIT if waits else int(rng.choice(legal))
        game.apply(state, actions, rng)
    assert checked >= 100 * game.num_players and differed >= 40, (checked, differed)
