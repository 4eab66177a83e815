"""studies.responder_play: a responder's play beside its target's in the same seat."""

from __future__ import annotations

import json

import pytest

from studies import responder_play as study

ONE_ROUND = "checkpoints/rat_a_tat_cat/rat_a_tat_cat_2p_one_round.pt"
ELIMINATION = "checkpoints/rat_a_tat_cat/rat_a_tat_cat_2p.pt"


def test_the_target_as_its_own_responder_plays_the_same_games():
    # the two columns differ only by who sits in the seat: the same bot gives the same counts
    f = study.study(ONE_ROUND, "agent:rat_a_tat_cat_2p_one_round", games=4, seed=3)
    assert f["seat"]["responder"] == f["seat"]["target"]
    seat = f["seat"]["responder"]
    assert seat["win_rate"]["n"] == 4
    assert seat["knock_rate"]["n"] == 4  # one round a game
    assert seat["round_points"]["n"] == 4
    assert seat["take_discard"]["n"] > 0 and seat["keep_drawn"]["n"] > 0


def test_another_agent_in_the_seat_is_counted_apart(tmp_path, capsys):
    out = tmp_path / "play.json"
    study.main([ELIMINATION, "--target", "agent:rat_a_tat_cat_2p_one_round", "--games", "4",
                "--seed", "3", "--json", str(out)])  # fmt: skip
    f = json.loads(out.read_text())
    assert f["target"] == "agent:rat_a_tat_cat_2p_one_round" and f["games"] == 4
    assert f["seat"]["responder"] != f["seat"]["target"]
    for who in ("responder", "target"):
        for figure in f["seat"][who].values():
            if "share" in figure:
                low, high = figure["wilson_95"]
                assert 0.0 <= low <= figure["share"] <= high <= 1.0
        knocks = f["seat"][who].get("knock_lowest", {"n": 0})["n"]
        assert knocks == f["seat"][who].get("knock_turn", {"n": 0})["n"]
    assert "| knock_rate |" in capsys.readouterr().out


def test_a_bot_target_plays_the_responders_options():
    # a bot has no options of its own: the responder's, less the reward it learned from
    f = study.study(ELIMINATION, "rat-a-tat-cat:heuristic", games=2, seed=5)
    assert f["env_options"] == {"num_players": 2, "target_score": 100}
    assert f["seat"]["target"]["win_rate"]["n"] == 2


def test_a_checkpoint_without_a_target_is_refused():
    with pytest.raises(SystemExit, match="names no target"):
        study.study(ONE_ROUND, None, games=1, seed=0)
