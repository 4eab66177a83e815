"""The time-to-strength page (training/time_to_strength.py): made from the shipped cards,
each agent's legs as today's config files, frames and wall time with the recorded warm
start, the card's headline figure."""

from __future__ import annotations

import pytest
from conftest import ROOT

from training.config import ConfigError, config_from_dict, load_config
from training.time_to_strength import PAGE, commands, legs, main, page, row

CARDS = ROOT / "checkpoints"


def test_docs_page_is_the_generators_output() -> None:
    assert PAGE.read_text(encoding="utf-8") == page(CARDS), (
        "docs/time_to_strength.md is stale: python -m training.time_to_strength --write"
    )


def test_check_mode_says_when_the_page_differs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--check"]) == 0
    assert main(["--checkpoints", str(ROOT / "no-such-folder")]) == 2
    assert "no-such-folder" in capsys.readouterr().err


def _shipped_cards() -> list[dict]:
    from training.checkpoint import load_card

    return [load_card(p) for p in sorted(CARDS.glob("*/*.json"))]


def test_the_last_leg_is_the_file_holding_the_cards_config() -> None:
    """Where a card's config is readable today, the file its last leg names holds exactly
    that recipe (a renamed recipe is found under its new name)."""
    checked = 0
    for card in _shipped_cards():
        if "config" not in card:  # a best responder's card: its commands, no config
            assert card["responder_of"] and card["reproduced"]["commands"]
            continue
        if "soup_of" in card:  # a weight average: its config is an ingredient's (a seed of
            # its own, given as --seed in the recorded commands)
            assert any("training.soup" in c for c in card["reproduced"]["commands"])
            continue
        try:
            trained = config_from_dict(card["config"]).to_dict()
        except ConfigError:  # an older schema (keys moved since): not comparable
            continue
        config = legs(card)[-1][0]
        assert " " not in config, config
        assert load_config(ROOT / config).to_dict() == trained, (card["config_name"], config)
        checked += 1
    assert checked >= 4


CARD = {
    "created_utc": "2026-11-29T10:00:00+00:00",
    "config_name": "rat_a_tat_cat_4p_vs_heuristic",
    "timesteps": 2_800_000,
    "wall_time_s": 891.4,
    "pretrain": {"teacher": "heuristic", "decisions": 1_000, "seconds": 8.6},
    "training_history": [
        {"config": "configs/catz_ratz_batz.yaml", "timesteps": 2_000_000, "note": "best at 2M"},
        {"config": "configs/rat_a_tat_cat_4p_vs_heuristic.yaml", "timesteps": 800_000},
    ],
    "evaluation": {
        "games": 2000,
        "win_rate": 0.31775,
        "win_rate_ci": [0.2977, 0.3385],
        "opponents": ["rat_a_tat_cat:heuristic"] * 3,
    },
}


def test_a_row_sums_the_legs_and_the_recorded_warm_start() -> None:
    r = row(CARD, "agent")
    assert r["frames"] == 2_801_000
    assert r["wall_s"] == pytest.approx(900.0)
    assert r["headline"] == "won 31.8% [29.8, 33.9] of 2,000 games vs 3 x heuristic"
    # a card made before the rename names the recipe's old file; the next leg resumes the
    # checkpoint the note names (best), from today's file
    assert r["commands"] == [
        "python -m training.train --config configs/catz_ratz_batz_dummy.yaml --out runs/agent_1",
        "python -m training.train --config configs/rat_a_tat_cat_4p_vs_heuristic.yaml "
        "--out runs/agent_2 --resume runs/agent_1/best.pt",
    ]


def test_a_card_made_after_a_rename_keeps_the_name() -> None:
    card = {**CARD, "created_utc": "2026-12-02T00:00:00+00:00"}
    assert commands(card, "a")[0].startswith(
        "python -m training.train --config configs/catz_ratz_batz.yaml "
    )


def test_a_resumed_card_without_history_says_its_earlier_legs_are_missing() -> None:
    card = {**CARD, "training_history": None, "resumed_from": "checkpoints/x/y.pt (stage 2)"}
    r = row(card, "a")
    assert len(r["commands"]) == 1
    assert any("legs before are not listed" in note for note in r["notes"])
    named = {**card, "resumed_from": "y.pt (stage 1, configs/rat_a_tat_cat_4p.yaml)"}
    assert [c for c, _ in legs(named)] == [
        "configs/rat_a_tat_cat_4p.yaml",
        "configs/rat_a_tat_cat_4p_vs_heuristic.yaml",
    ]
    # configs/rat_a_tat_cat_4p.yaml has a warm start this card does not record
    assert any(
        "warm start of `configs/rat_a_tat_cat_4p.yaml`" in n for n in row(named, "a")["notes"]
    )


def test_a_legs_edit_of_its_config_becomes_the_flag_or_a_comment():
    """A seed is ``--seed N`` (pasting the line runs that seed); what no flag sets stays a
    comment saying to make it in a copy of the config."""
    from training.time_to_strength import _edit_flags

    assert _edit_flags("with seed: 9") == " --seed 9"
    assert _edit_flags("with learning_rate_schedule: linear and seed: 5") == (
        " --seed 5  # with learning_rate_schedule: linear in a copy of the config (no flag sets it)"
    )
    assert _edit_flags("") == ""


def test_a_leg_stopped_by_hand_or_shipped_at_its_best_says_so():
    """A pasted command runs its config to the end and leaves final.pt; a leg that was
    stopped by hand, or whose best checkpoint is the card, says so beside it."""
    card = {
        "config_name": "rat_a_tat_cat_4p_long",
        "shipped_from": "runs/x/best.json",
        "training_history": [
            {"config": "configs/rat_a_tat_cat_4p.yaml", "note": "best periodic evaluation"},
            {"config": "configs/rat_a_tat_cat_4p_long.yaml", "note": "stopped by hand at 9M; x"},
        ],
    }
    first, second = commands(card, "a")
    assert "#" not in first and "--resume runs/a_1/best.pt" in second
    assert second.endswith("  # stopped by hand at 9M, the card is its best.pt")
    card["shipped_from"] = "runs/x/final.pt"
    assert commands(card, "a")[1].endswith("  # stopped by hand at 9M")
