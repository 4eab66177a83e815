"""training.games.rat_a_tat_cat_belief (records and a fit) and ratenvs.rat_a_tat_cat.belief (the
belief the search reads): a learned density ratio over the other hand, for the search's deals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ratenvs.rat_a_tat_cat import belief as ratcat_belief
from ratenvs.rat_a_tat_cat.search import AgentSearchBot
from studies import search_curve
from training.games import rat_a_tat_cat_belief as maker


def test_features_put_each_slots_kind_one_hot_after_the_observation():
    obs = np.arange(6, dtype=np.float32).reshape(2, 3)
    kinds = np.array([[0, 13, 5, 12], [1, 1, 1, 1]])
    x = ratcat_belief.features(obs, kinds)
    assert x.shape == (2, 3 + ratcat_belief.SLOTS * ratcat_belief.KINDS)
    np.testing.assert_array_equal(x[:, :3], obs)
    hot = x[:, 3:].reshape(2, ratcat_belief.SLOTS, ratcat_belief.KINDS)
    assert (hot.sum(axis=2) == 1).all()
    np.testing.assert_array_equal(hot.argmax(axis=2), kinds)


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("belief")
    records = folder / "r.npz"
    out = maker.collect(8, 900000, records)
    belief = folder / "belief.npz"
    maker.fit([records], belief, epochs=1)
    return out, records, belief


def test_collect_records_the_true_and_a_dealt_hand_of_the_other_player(fitted):
    """Each record: the deciding agent seat's observation, the other hand's kinds as they
    are and as a resample deals them."""
    out, records, _ = fitted
    n = len(out["observations"])
    assert n > 20 and out["true"].shape == out["dealt"].shape == (n, ratcat_belief.SLOTS)
    assert ((out["true"] >= 0) & (out["true"] < ratcat_belief.KINDS)).all()
    # the dealt hands are the resampler's: they differ from the true ones somewhere
    assert (out["true"] != out["dealt"]).any()
    assert set(np.unique(out["game"])) <= set(range(900000, 900008))
    assert sorted(np.load(records).files) == [
        "agent",
        "dealt",
        "game",
        "observations",
        "true",
        "view",
    ]
    assert str(np.load(records)["agent"]) == maker.AGENT


def test_the_belief_reads_back_as_clipped_log_odds(fitted):
    out, _, path = fitted
    belief = ratcat_belief.Belief(path)
    logits = belief.log_weight(out["observations"][:5], out["true"][:5])
    assert logits.shape == (5,) and np.isfinite(logits).all()
    assert (np.abs(logits) <= ratcat_belief.CLIP).all()
    big = ratcat_belief.Belief(path)
    big.layers[-1] = (big.layers[-1][0], big.layers[-1][1] + 100.0)
    assert (big.log_weight(out["observations"][:5], out["true"][:5]) == ratcat_belief.CLIP).all()


def test_the_ceilings_view_reads_the_owner_ceilings_block(tmp_path):
    """``--view ceilings``: the classifier reads the seat's observation with the
    ``owner_ceilings`` block (195 + 16 for 2 players); a fit keeps the view, and records of
    two views do not mix."""
    plain = maker.collect(2, 5, tmp_path / "a.npz")
    told = maker.collect(2, 5, tmp_path / "c.npz", view="ceilings")
    assert plain["observations"].shape[1] == 195 and told["observations"].shape[1] == 211
    maker.fit([tmp_path / "c.npz"], tmp_path / "bc.npz", epochs=1)
    assert ratcat_belief.Belief(tmp_path / "bc.npz").view == "ceilings"
    with pytest.raises(ValueError, match="different views"):
        maker.fit([tmp_path / "a.npz", tmp_path / "c.npz"], tmp_path / "x.npz", epochs=1)
    with pytest.raises(ValueError, match="view must be one of"):
        maker.collect(1, 5, tmp_path / "z.npz", view="everything")


def test_the_search_weighs_its_deals_by_the_belief(fitted, tmp_path):
    _, _, path = fitted
    out = tmp_path / "belief.json"
    args = f"--budgets 4 --games 2 --seed 5 --belief {path} --json {out}"
    search_curve.main(args.split())
    assert json.loads(out.read_text())["belief"] == str(path)
    with pytest.raises(ValueError, match="nothing for --belief"):
        search_curve.measure("heuristic", [2], "one_round", 2, 5, oracle=True, belief=str(path))
    with pytest.raises(ValueError, match="give one"):
        search_curve.measure("heuristic", [2], "one_round", 2, 5, ceilings=0.5, belief=str(path))


def test_a_belief_belongs_to_the_setting_of_its_agent(fitted, tmp_path):
    """``--agent agent:rat_a_tat_cat_2p`` records the elimination game's agent (its game to
    100 points); a fit keeps whose games it read, records of two agents do not mix, and the
    search refuses a belief of the other setting's agent."""
    _, one_round, one_round_belief = fitted
    records = tmp_path / "e.npz"
    out = maker.collect(1, 7, records, agent_name="agent:rat_a_tat_cat_2p")
    assert str(out["agent"]) == "agent:rat_a_tat_cat_2p"
    # a game to 100 points is many rounds: more decisions than a round holds
    assert len(out["observations"]) > 40
    maker.fit([records], tmp_path / "be.npz", epochs=1)
    assert ratcat_belief.Belief(tmp_path / "be.npz").agent == "agent:rat_a_tat_cat_2p"
    with pytest.raises(ValueError, match="different agents"):
        maker.fit([records, one_round], tmp_path / "x.npz", epochs=1)
    with pytest.raises(ValueError, match="fitted on agent:rat_a_tat_cat_2p_one_round"):
        search_curve.measure("heuristic", [2], "elimination", 2, 5, belief=str(one_round_belief))


def test_a_batch_of_deals_is_weighed_as_each_deal_alone(fitted):
    """The search weighs a batch of deals in one pass of the classifier: each deal's weight
    is its odds read alone, ``exp`` of the log weight of its seat's view and other hand."""
    from ratenvs.rat_a_tat_cat.rules import RatATatCat

    _, _, path = fitted
    game = RatATatCat(num_players=2)
    state = game.init(np.random.default_rng(11))
    bot = AgentSearchBot(determinizations=1, belief=str(path), policy=maker.AGENT)
    bot.bind_game(game, 0)
    rng = np.random.default_rng(12)
    tables = [game.resample(state, 0, rng) for _ in range(6)]
    weights = bot._weights(tables, 0)
    alone = [
        np.exp(
            bot.belief.log_weight(
                bot._reader.observe(t, 0)[None], ratcat_belief.hand_kinds(t, 1)[None]
            )[0]
        )
        for t in tables
    ]
    assert weights.shape == (6,) and len(set(weights.tolist())) > 1
    np.testing.assert_allclose(weights, alone, rtol=1e-5)


def test_the_command_says_what_is_wrong_in_one_line_and_writes_over_nothing(
    fitted, tmp_path, capsys
):
    """A records file that is missing or is not one, or an --out that exists (without
    --replace), is one ``error:`` line and exit status 2; the file at --out is kept."""
    _, records, belief = fitted
    text = tmp_path / "text.npz"
    text.write_text("not records")
    kept = tmp_path / "kept.npz"
    kept.write_bytes(b"keep me")
    for argv, says in [
        (["fit", str(tmp_path / "absent.npz"), "--out", str(tmp_path / "o.npz")], "absent.npz"),
        (["fit", str(text), "--out", str(tmp_path / "o.npz")], "not a records file of collect"),
        (["fit", str(belief), "--out", str(tmp_path / "o.npz")], "no observations, true"),
        (["fit", str(records), "--out", str(kept)], "exists: give another --out, or --replace"),
        (["collect", "--games", "1", "--out", str(kept)], "exists"),
    ]:
        assert maker.main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("error: ") and says in err, err
    assert kept.read_bytes() == b"keep me"
    assert not (tmp_path / "o.npz").exists()
    assert (
        maker.main(["collect", "--games", "1", "--seed", "3", "--out", str(kept), "--replace"]) == 0
    )
    assert "observations" in np.load(kept).files
