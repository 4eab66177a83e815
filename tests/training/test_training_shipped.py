"""Every shipped agent still loads (card, SHA-256, shapes) and clearly beats random play."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratenvs.catz_ratz_batz import solver
from ratenvs.catz_ratz_batz.evaluation import exact_exploitability_grade, exact_score_grade
from ratenvs.catz_ratz_batz.rules import NUMBERS, legal_keeps
from ratenvs.games import GAMES
from training.checkpoint import load_checkpoint
from training.evaluate import evaluate_agent
from training.results import results_table

CHECKPOINTS = Path(__file__).resolve().parents[2] / "checkpoints"
CARDS = sorted(CHECKPOINTS.glob("*/*.json"))
QUICK_GAMES = 100


def test_a_catz_ratz_batz_agent_is_shipped():
    assert any(c.parent.name == "catz_ratz_batz" for c in CARDS)


@pytest.mark.parametrize("card", CARDS, ids=[f"{c.parent.name}/{c.stem}" for c in CARDS])
def test_shipped_agent_loads_and_beats_random(card):
    ckpt = load_checkpoint(card, game=card.parent.name)
    assert ckpt.game in GAMES
    if "soup_of" in ckpt.card:  # a weight average was not trained: no curve of its own,
        assert len(ckpt.card["soup_of"]) >= 2  # but the ingredients it averages
    else:
        assert (card.parent / ckpt.card["learning_curve"]).is_file()
    assert "evaluation" in ckpt.card and "win_rate_ci" in ckpt.card["evaluation"]
    bot = ckpt.bot()
    if ckpt.game == "catz_ratz_batz":
        graded = exact_score_grade(bot, ckpt.env_options)  # its exploitability: below
        # what the card claims, re-derived exactly from the weights
        recorded = ckpt.card["evaluation"]["exact_expected_score"]
        assert graded["exact_expected_score"] == pytest.approx(recorded, abs=1e-9)

        def uniform(dice):
            legal = legal_keeps(dice)
            return [1.0 / len(legal) if k in legal else 0.0 for k in NUMBERS]

        assert graded["exact_expected_score"] > solver.evaluate_policy(uniform) + 2.0
        return
    players = int(ckpt.env_options.get("num_players", 2))
    result = evaluate_agent(ckpt.game, ckpt.env_options, bot, ["random"], QUICK_GAMES, seed=7)
    # clearly better than an equal share of wins against random seats
    assert result["win_rate_ci"][0] > 1.0 / players


def test_results_table_lists_every_card():
    table = results_table(CHECKPOINTS)
    for card in CARDS:
        assert f"{card.parent.name}/{card.stem}" in table


LEAD_CARDS = [c for c in CARDS if "exact_exploitability" in c.read_text()]


@pytest.mark.slow
@pytest.mark.parametrize("card", LEAD_CARDS, ids=[c.stem for c in LEAD_CARDS])
def test_a_shipped_exact_exploitability_is_the_weights_own(card):
    """The exact exploitability on a 2-player Catz agent's card, re-derived from its weights
    (about 3 CPU minutes)."""
    ckpt = load_checkpoint(card, game=card.parent.name)
    graded = exact_exploitability_grade(ckpt.bot(), ckpt.env_options)
    recorded = ckpt.card["evaluation"]["exact_exploitability"]
    assert graded["exact_exploitability"] == pytest.approx(recorded, abs=1e-9)
    assert 0 <= graded["exact_exploitability"] <= 0.005  # the bound: 0.5 points
