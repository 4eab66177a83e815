"""studies.rz_ideal_counting: the counting ideal observer against the deck-prior one."""

from __future__ import annotations

import json

from ratenvs.common.bots import OwnView
from ratenvs.ratto_zakko.rules import RattoZakko
from studies import rz_ideal_counting as study


def test_the_counting_observer_sees_the_record_and_the_deck_observer_does_not():
    game = RattoZakko(**study.OPTIONS)
    counting = study._player("counting", game)
    deck = study._player("deck", game)
    assert isinstance(counting, OwnView) and counting.bot.layout.unseen is not None
    assert not isinstance(deck, OwnView) and deck.layout.unseen is None


def test_counting_wins_more_than_its_share(tmp_path, capsys):
    out = tmp_path / "counting.json"
    study.main(["--games", "16", "--json", str(out)])
    rows = {(r["seat"], r["against"]): r for r in json.loads(out.read_text())["rows"]}
    assert set(rows) == set(study.PAIRS)
    # a fair share is 0.25; on 16 games the counting observer is far above it
    assert rows["counting", "deck"]["win_rate"] > rows["deck", "counting"]["win_rate"]
    assert rows["counting", "bayes"]["win_rate"] > 0.5
    assert "counting vs 3 deck" in capsys.readouterr().out
