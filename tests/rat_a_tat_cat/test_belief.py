"""ratenvs.rat_a_tat_cat.belief: the belief files the search reads, the shipped ones, and
the search bound to one (``belief=``, the ``guarded_search`` bot)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ratenvs.agents import load_agent_checkpoint
from ratenvs.common.play import play_game
from ratenvs.rat_a_tat_cat.belief import (
    CLIP,
    KINDS,
    SHIPPED,
    SLOTS,
    Belief,
    belief_view,
    hand_kinds,
    shipped_belief,
)
from ratenvs.rat_a_tat_cat.bots import BOTS, HeuristicBot, get_bot
from ratenvs.rat_a_tat_cat.rules import RatATatCat
from ratenvs.rat_a_tat_cat.search import AgentSearchBot, GuardedSearchBot


def layers(sizes, seed=0):
    rng = np.random.default_rng(seed)
    out = {}
    for i, (a, b) in enumerate(itertools.pairwise(sizes)):
        out[f"w{i}"] = rng.normal(size=(a, b)).astype(np.float32) * 0.1
        out[f"b{i}"] = rng.normal(size=b).astype(np.float32) * 0.1
    return out


def test_a_belief_is_a_relu_network_of_the_view_and_the_hand(tmp_path):
    """The log weight is the MLP's logit of the observation and the hand's one-hot kinds,
    worked out here by hand, clipped to +-CLIP."""
    weights = layers([3 + SLOTS * KINDS, 5, 1])
    path = tmp_path / "b.npz"
    np.savez(path, view="agent", agent="agent:x", **weights)
    belief = Belief(path)
    assert (belief.view, belief.agent, belief.observation_size) == ("agent", "agent:x", 3)
    obs = np.array([[1.0, -2.0, 0.5], [0.0, 0.0, 3.0]], dtype=np.float32)
    kinds = np.array([[0, 13, 5, 12], [1, 1, 1, 1]])
    x = np.zeros((2, 3 + SLOTS * KINDS), dtype=np.float32)
    x[:, :3] = obs
    for r in range(2):
        for s in range(SLOTS):
            x[r, 3 + s * KINDS + kinds[r, s]] = 1.0
    hidden = np.maximum(x @ weights["w0"] + weights["b0"], 0.0)
    expected = (hidden @ weights["w1"] + weights["b1"])[:, 0]
    np.testing.assert_allclose(belief.log_weight(obs, kinds), expected, rtol=1e-5)
    belief.layers[-1] = (belief.layers[-1][0], belief.layers[-1][1] + 100.0)
    assert (belief.log_weight(obs, kinds) == CLIP).all()


def test_a_file_that_is_not_a_belief_is_a_clear_error(tmp_path):
    text = tmp_path / "notes.npz"
    text.write_text("not an archive")
    one = tmp_path / "one.npy"
    np.save(one, np.zeros(3))
    empty = tmp_path / "empty.npz"
    np.savez(empty, view="agent")
    gap = tmp_path / "gap.npz"
    np.savez(gap, **{k: v for k, v in layers([60, 4, 1]).items() if k != "b1"})
    skew = tmp_path / "skew.npz"
    w = layers([60, 4, 1])
    w["w1"] = np.zeros((5, 1), dtype=np.float32)
    np.savez(skew, **w)
    wide = tmp_path / "wide.npz"
    np.savez(wide, **layers([60, 4, 2]))
    seen = tmp_path / "seen.npz"
    np.savez(seen, view="everything", **layers([60, 4, 1]))
    for path, says in [
        (tmp_path / "absent.npz", "not a belief file"),
        (text, "not a belief file"),
        (one, "not one array"),
        (empty, "no layers w0, b0"),
        (gap, "no layers w0, b0"),
        (skew, "layer 1 does not follow"),
        (wide, "one logit"),
        (seen, "view 'everything'"),
    ]:
        with pytest.raises(ValueError, match=says):
            Belief(path)


def test_the_shipped_beliefs_read_their_agents_tables():
    """Each shipped belief names the agent whose games it was fitted on, reads that agent's
    table (its observation size), was fitted (its held-out log loss beats chance, 0.693), and
    tells a hand it would deal from another: weights that differ, of mean near 1 over the
    resampler's deals (a density ratio)."""
    for agent, file in SHIPPED.items():
        belief = shipped_belief(agent)
        assert belief.agent == agent and belief.path.name == file
        game = RatATatCat(**load_agent_checkpoint(agent).env_options)
        view = belief_view(game, belief.view)
        state = game.init(np.random.default_rng(1))
        assert view.observe(state, 0).size == belief.observation_size
        with np.load(belief.path) as data:
            assert float(data["held_out_log_loss"]) < 0.6
        rng = np.random.default_rng(2)
        tables = [game.resample(state, 0, rng) for _ in range(400)]
        seen = np.stack([view.observe(t, 0) for t in tables])
        kinds = np.stack([hand_kinds(t, 1) for t in tables])
        w = np.exp(belief.log_weight(seen, kinds))
        assert w.std() > 0.05 and 0.6 < w.mean() < 1.5, (agent, w.mean(), w.std())
    with pytest.raises(ValueError, match="no shipped belief was fitted on agent:rat_a_tat_cat_4p"):
        shipped_belief("agent:rat_a_tat_cat_4p")


def test_the_search_binds_only_a_belief_of_its_agent_and_table(tmp_path):
    two = RatATatCat(num_players=2)
    bot = AgentSearchBot(determinizations=2, belief="shipped")
    bot.bind_game(two, 0)  # the one-round agent by default, and its belief
    assert bot.belief is not None and bot.belief.agent == "agent:rat_a_tat_cat_2p_one_round"
    plain = AgentSearchBot(determinizations=2)
    plain.bind_game(two, 0)
    assert plain.belief is None
    elimination = RatATatCat(num_players=2, target_score=100)
    with pytest.raises(ValueError, match="fitted on agent:rat_a_tat_cat_2p_one_round's games"):
        AgentSearchBot(belief=shipped_belief("agent:rat_a_tat_cat_2p_one_round")).bind_game(
            elimination, 0
        )
    with pytest.raises(ValueError, match="2-player table, not of 4 players"):
        AgentSearchBot(belief="shipped").bind_game(RatATatCat(num_players=4), 0)
    policy = load_agent_checkpoint("agent:rat_a_tat_cat_2p_one_round").bot()
    with pytest.raises(ValueError, match="give the search a shipped agent"):
        AgentSearchBot(policy=policy, belief="shipped").bind_game(two, 0)
    # a belief of another table's view: the sizes differ
    np.savez(tmp_path / "b.npz", view="agent", agent="agent:x", **layers([10 + SLOTS * KINDS, 1]))
    with pytest.raises(ValueError, match="reads observations of size 10"):
        AgentSearchBot(policy=policy, belief=tmp_path / "b.npz").bind_game(two, 0)
    for bad in (3, 0.5, ["shipped"]):
        with pytest.raises(ValueError, match="belief must be None, 'shipped', a belief file"):
            AgentSearchBot(belief=bad)


def test_the_guarded_search_bot_plays_with_the_shipped_belief_and_the_guard():
    """``guarded_search`` is the search with 512 deals, both models, the guard at one
    standard error and the shipped belief; a game of it is legal, and its weighed deals
    count as the belief weighs them."""
    assert BOTS["guarded_search"] is GuardedSearchBot
    bot = get_bot("guarded_search")
    assert (bot.determinizations, bot.opponents, bot.margin) == (512, "both", 1.0)
    game = RatATatCat(num_players=2)
    quick = GuardedSearchBot(determinizations=24)
    played = play_game(game, [quick, HeuristicBot()], seed=3)
    assert game.is_terminal(played.state)
    assert quick.belief is not None and quick.belief.agent == "agent:rat_a_tat_cat_2p_one_round"
    assert "heuristic_means" in quick.last_search or quick.last_search["determinizations"] == 0
