"""studies.search_curve: the search bot's win rate by deals per move, and its plot."""

from __future__ import annotations

import json

import pytest

from studies import search_curve


def test_a_short_curve_reports_every_budget_and_plots(tmp_path, capsys):
    out = tmp_path / "curve.json"
    args = "--opponent heuristic --model heuristic --budgets 0 4 --games 2 --seed 3"
    search_curve.main([*args.split(), "--json", str(out)])
    figures = json.loads(out.read_text())
    assert figures["opponent"] == "heuristic" and figures["model"] == "heuristic"
    assert [r["determinizations"] for r in figures["rows"]] == [0, 4]
    for row in figures["rows"]:
        low, high = row["wilson_95"]
        assert 0.0 <= low <= row["win_rate"] <= high <= 1.0 and row["games"] == 2
    assert figures["rows"][0]["seconds_per_move_median"] == 0.0  # the agent alone
    assert figures["rows"][1]["seconds_per_move_median"] > 0.0
    assert "4 deals" in capsys.readouterr().out
    png = tmp_path / "curve.png"
    search_curve.main(["--plot", str(out), "--out", str(png)])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_an_unknown_opponent_is_refused():
    with pytest.raises(ValueError, match="opponent must be one of"):
        search_curve.measure("everyone", [0], "one_round", 1, 0)


def test_the_oracle_deals_keep_every_hand_and_shuffle_the_pile(tmp_path):
    import numpy as np

    from ratenvs.rat_a_tat_cat.rules import RatATatCat

    game = RatATatCat(num_players=2)
    state = game.init(np.random.default_rng(1))
    table = search_curve._Oracle(determinizations=1)._deal(state, 0, np.random.default_rng(2))
    assert table.hands == state.hands and table.draw_pile != state.draw_pile
    assert sorted(table.draw_pile) == sorted(state.draw_pile)
    out = tmp_path / "oracle.json"
    search_curve.main(["--budgets", "2", "--games", "2", "--oracle", "--json", str(out)])
    figures = json.loads(out.read_text())
    assert figures["oracle"] and figures["rows"][0]["games"] == 2


@pytest.mark.parametrize("told", ["own", "others"])
def test_the_part_oracles_keep_their_part_and_deal_the_rest(told):
    """``--oracle own``: the seat's own cards stay where they are, the other hand is dealt
    anew; ``--oracle others``: the reverse. The seat's knowledge is its own either way."""
    import numpy as np

    from ratenvs.rat_a_tat_cat.rules import RatATatCat

    game = RatATatCat(num_players=2)
    state = game.init(np.random.default_rng(1))
    bot = search_curve._PartOracle(told=told, determinizations=1)
    bot.game = game
    kept, dealt = (0, 1) if told == "own" else (1, 0)
    moved = 0
    for k in range(20):
        table = bot._deal(state, 0, np.random.default_rng(k))
        assert table.hands[kept] == state.hands[kept]
        assert (table.know[0] == state.know[0]).all() and (table.recent[0] == state.recent[0]).all()
        # the seat's two outer cards are known to it: only the inner two may move
        inner = [1, 2] if dealt == 0 else [0, 1, 2, 3]
        moved += any(table.hands[dealt][s] != state.hands[dealt][s] for s in inner)
    assert moved >= 15
    with pytest.raises(ValueError, match="told must be"):
        search_curve._PartOracle(told="nobody", determinizations=1)
    with pytest.raises(ValueError, match="oracle must be"):
        search_curve.measure("heuristic", [2], "one_round", 2, 5, oracle="half")


def test_the_ceiling_weight_counts_the_other_players_cards_above_their_ceilings():
    import numpy as np

    from ratenvs.rat_a_tat_cat.rules import KIND, RatATatCat

    game = RatATatCat(num_players=2)
    table = game.init(np.random.default_rng(1)).copy()
    bot = search_curve._Ceilings(determinizations=1)
    assert bot._weight(table, 0) == 1.0  # no ceilings at the deal
    table.owner_seen[1, 0] = True
    table.ceiling[1, 0] = KIND[table.hands[1][0]] - 1  # a kept card above what was let go
    table.owner_seen[0, 1] = True
    table.ceiling[0, 1] = -1  # the seat's own cards do not count
    assert bot._weight(table, 0) == search_curve._Ceilings.factor


def test_the_oracle_and_the_ceilings_do_not_mix():
    with pytest.raises(ValueError, match="nothing for --ceilings"):
        search_curve.measure("heuristic", [2], "one_round", 2, 5, oracle=True, ceilings=0.5)
    assert search_curve._Ceilings(factor=0.5, determinizations=1).factor == 0.5


def test_an_unbeatable_margin_plays_the_agent_alone(tmp_path):
    """``--margin``: the guarded search; at a margin no gain clears it plays the agent's own
    moves, so it wins what the agent alone wins on the same deals."""
    out = tmp_path / "guarded.json"
    args = "--opponent heuristic --budgets 0 8 --games 4 --seed 11 --margin 1e9"
    search_curve.main([*args.split(), "--json", str(out)])
    figures = json.loads(out.read_text())
    assert figures["margin"] == 1e9
    alone, guarded = figures["rows"]
    assert guarded["win_rate"] == alone["win_rate"] and guarded["seconds_per_move_median"] > 0.0
