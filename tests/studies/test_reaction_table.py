"""studies.reaction_table: the Ratto Zakko presets measured alone (reaction time, errors)."""

from __future__ import annotations

import json

import pytest

from ratenvs.ratto_zakko import reaction
from ratenvs.ratto_zakko.bots import BOTS
from ratenvs.ratto_zakko.reaction import PRESETS
from studies import reaction_table
from studies.reaction_table import measure


@pytest.mark.parametrize("level", ["starter", "dessert"])
def test_measured_reaction_time_follows_the_model(level):
    stats = measure(BOTS["adult"], level, games=2, seed=5)
    model = PRESETS["adult"]
    expected = (
        model.mean_rt_ms(level, False) * (1 - stats.conflict_share)
        + model.mean_rt_ms(level, True) * stats.conflict_share
        + 12.5  # answers land at the end of a 25 ms tick
    )
    assert stats.answered == stats.cards
    assert stats.mean_rt_ms == pytest.approx(expected, abs=40)
    assert stats.error_rate < 0.2


def test_the_perfect_bot_is_never_wrong_and_answers_after_its_latency():
    # seeing the card clearly it never errs and answers exactly at its latency
    stats = measure(BOTS["perfect"], "dessert", games=2, seed=1, perception="clear")
    assert stats.error_rate == 0.0
    assert stats.mean_rt_ms == reaction.PERFECT_LATENCY_MS
    # with gradual perception it waits until it is 99.9% sure: rarely, if ever, wrong
    stats = measure(BOTS["perfect"], "dessert", games=2, seed=1)
    assert stats.error_rate <= 0.01
    assert reaction.PERFECT_LATENCY_MS <= stats.mean_rt_ms < reaction.PERFECT_LATENCY_MS + 150


def test_children_err_more_than_experts():
    child = measure(BOTS["child"], "main", games=3, seed=2)
    expert = measure(BOTS["expert"], "main", games=3, seed=2)
    assert child.error_rate > expert.error_rate
    assert child.mean_rt_ms > expert.mean_rt_ms + 200


@pytest.mark.parametrize("level", ["starter", "dessert"])
def test_the_bayes_bot_is_fast_and_rarely_wrong(level):
    bayes = measure(BOTS["bayes"], level, games=2, seed=3)
    expert = measure(BOTS["expert"], level, games=2, seed=3)
    assert bayes.error_rate <= 0.05
    assert bayes.mean_rt_ms < expert.mean_rt_ms - 200


def test_the_script_prints_the_table_and_writes_the_records(tmp_path, capsys):
    out = tmp_path / "records.json"
    assert reaction_table.main(["--games", "1", "--json", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    records = json.loads(out.read_text())
    assert len(records) == len(reaction_table.PRESETS) * 3
    assert lines[0].startswith("| preset | level |") and len(lines) == 2 + len(records) + 2
    assert all(r["answered"] > 0 for r in records)
