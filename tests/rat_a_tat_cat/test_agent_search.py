"""The ``search`` bot (PIMC with the shipped agent's play-outs on the batched engine)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from ratenvs.agents import load_agent_checkpoint
from ratenvs.common.bots import GameStateRequired
from ratenvs.common.play import play_game
from ratenvs.rat_a_tat_cat.bots import HeuristicBot
from ratenvs.rat_a_tat_cat.rules import RatATatCat
from ratenvs.rat_a_tat_cat.search import AgentSearchBot, default_agent

ONE_ROUND = "agent:rat_a_tat_cat_2p_one_round"


@pytest.fixture(scope="module")
def agent():
    return load_agent_checkpoint(ONE_ROUND).bot()


def reference_worth(game, table, seat, action, policy, others) -> float | None:
    """The seat's share of the round won when ``action`` is played in ``table`` and then the
    agent plays the seat and ``others`` every other seat, through the reference rules (None
    when chance - a reshuffle - would move, which the engine draws from its own generators)."""
    view = game.observer(game.observation_kind)
    if hasattr(others, "bind"):
        others.bind(view)
    state = copy.deepcopy(table)
    epoch = state.epoch
    rng = np.random.default_rng(0)
    game.apply(state, {seat: action}, rng, {})
    while not game.is_terminal(state):
        q = game.to_act(state)[0]
        game.apply(
            state,
            {
                q: (policy if q == seat else others).act(
                    view.observe(state, q), game.legal_mask(state, q), rng
                )
            },
            rng,
            {},
        )
        if state.epoch != epoch:
            return None
    won = state.winners
    return 1.0 / sum(won) if won[seat] else 0.0


@pytest.mark.parametrize("opponents", ["agent", "heuristic"])
def test_every_deal_is_played_out_as_the_reference_plays_it(agent, opponents) -> None:
    """One deal per move: each action's value is that of the reference play-out of the dealt
    table (the same table: the bot's generator replayed), the agent in the seat and the
    agent or the heuristic in the other."""
    game = RatATatCat(num_players=2)
    view = game.observer(game.observation_kind)
    others = agent if opponents == "agent" else HeuristicBot()
    bot = AgentSearchBot(determinizations=1, policy=agent, opponents=opponents)
    bot.bind_game(game, 0)
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(12):
        state = game.init(rng)
        for _ in range(int(rng.integers(0, 3))):  # a few moves in
            q = game.to_act(state)[0]
            game.apply(
                state,
                {q: agent.act(view.observe(state, q), game.legal_mask(state, q), rng)},
                rng,
                {},
            )
        if game.is_terminal(state):
            continue
        seat = game.to_act(state)[0]
        mask = game.legal_mask(state, seat)
        if mask.sum() < 2:
            continue
        seed = int(rng.integers(2**32))
        bot.act_in_state(state, seat, mask, np.random.default_rng(seed))
        replay = np.random.default_rng(seed)
        replay.integers(2**62)  # the engine's generators' seed
        table = game.resample(state, seat, replay)
        for action, mean in bot.last_search["means"].items():
            expected = reference_worth(game, table, seat, action, agent, others)
            if expected is not None:
                assert mean == expected, (action, mean, expected)
                checked += 1
    assert checked >= 20


def test_search_is_deterministic_for_its_generator_and_plays_legal_games(agent) -> None:
    game = RatATatCat(num_players=2)
    a = AgentSearchBot(determinizations=40, policy=agent)
    b = AgentSearchBot(determinizations=40, policy=agent)
    first = play_game(game, [a, HeuristicBot()], seed=5)
    second = play_game(game, [b, HeuristicBot()], seed=5)
    assert first.actions == second.actions
    assert a.last_search["determinizations"] in (0, 40)
    timed = AgentSearchBot(determinizations=None, seconds=0.01, policy=agent)
    played = play_game(game, [HeuristicBot(), timed], seed=6)
    assert game.is_terminal(played.state)
    assert timed.last_search["determinizations"] >= 1


def test_points_value_and_heuristic_opponents(agent) -> None:
    game = RatATatCat(num_players=2)
    for options in ({"value": "points"}, {"opponents": "heuristic"}, {"opponents": "mixed"}):
        bot = AgentSearchBot(determinizations=30, policy=agent, **options)
        played = play_game(game, [bot, HeuristicBot()], seed=8)
        assert any(played.winners)
        means = bot.last_search.get("means", {})
        if options.get("value") == "points":
            assert all(-3.0 <= m <= 3.0 for m in means.values())
        else:
            assert all(0.0 <= m <= 1.0 for m in means.values())


def test_default_agents_and_bad_options(agent) -> None:
    assert default_agent(RatATatCat(num_players=2)) == ONE_ROUND
    assert default_agent(RatATatCat(num_players=2, target_score=100)) == "agent:rat_a_tat_cat_2p"
    assert default_agent(RatATatCat(num_players=4)) == "agent:rat_a_tat_cat_4p"
    with pytest.raises(ValueError, match="no shipped Rat-a-Tat Cat agent plays 3 players"):
        default_agent(RatATatCat(num_players=3))
    with pytest.raises(ValueError, match="budget"):
        AgentSearchBot(determinizations=None, seconds=None)
    for bad in (0, 2.5, True, float("inf"), "many"):
        with pytest.raises(ValueError, match=r"^determinizations must be an integer >= 1"):
            AgentSearchBot(determinizations=bad)
    assert AgentSearchBot(determinizations=3.0).determinizations == 3
    for bad in (-1, 0, float("inf"), float("nan"), "long"):
        with pytest.raises(ValueError, match=r"^seconds must be a finite number > 0"):
            AgentSearchBot(seconds=bad)
    with pytest.raises(ValueError, match="value"):
        AgentSearchBot(value="fun")
    with pytest.raises(ValueError, match="opponents"):
        AgentSearchBot(opponents="everyone")
    with pytest.raises(ValueError, match="policy"):
        AgentSearchBot(policy=3)
    bot = AgentSearchBot(policy=agent)
    with pytest.raises(GameStateRequired):
        bot.act(
            np.zeros(195, dtype=np.float32), np.ones(31, dtype=np.int8), np.random.default_rng()
        )
    with pytest.raises(GameStateRequired, match="not bound"):
        bot.act_in_state(None, 0, np.ones(31, dtype=np.int8), np.random.default_rng())
    with pytest.raises(ValueError, match="observations of size 195"):
        AgentSearchBot(policy=agent).bind_game(RatATatCat(num_players=2, owner_ceilings=True), 0)
    from ratenvs.catz_ratz_batz.rules import CatzRatzBatz

    with pytest.raises(ValueError, match="plays Rat-a-Tat Cat"):
        AgentSearchBot(policy=agent).bind_game(CatzRatzBatz(), 0)


def test_deals_count_by_their_weight(agent) -> None:
    """A deal of weight 0 counts for nothing: weighing every other deal out gives the means
    of the deals that are left."""
    game = RatATatCat(num_players=2)
    state = game.init(np.random.default_rng(3))
    mask = game.legal_mask(state, 0)

    class EveryOther(AgentSearchBot):
        count = 0

        def _weight(self, table, seat):
            self.count += 1
            return float(self.count % 2)

    class Nothing(AgentSearchBot):
        def _weight(self, table, seat):
            return 0.0

    weighed = EveryOther(determinizations=8, policy=agent, opponents="agent")
    weighed.bind_game(game, 0)
    weighed.act_in_state(state, 0, mask, np.random.default_rng(4))
    plain = AgentSearchBot(determinizations=1, policy=agent, opponents="agent")
    plain.bind_game(game, 0)
    kept = []
    replay = np.random.default_rng(4)
    replay.integers(2**62)
    tables = [game.resample(state, 0, replay) for _ in range(8)]
    for table in tables[::2]:  # the deals of weight 1
        kept.append(plain._play_out([table], 0, np.flatnonzero(mask), "agent")[0])
    expected = np.mean(kept, axis=0)
    np.testing.assert_allclose(list(weighed.last_search["means"].values()), expected)
    nothing = Nothing(determinizations=4, policy=agent)
    nothing.bind_game(game, 0)
    with pytest.raises(RuntimeError, match="weight 0"):
        nothing.act_in_state(state, 0, mask, np.random.default_rng(5))


def test_the_margin_keeps_the_agents_move_unless_another_gains_enough(agent) -> None:
    """``margin``: the agent's own move stands unless another action's mean gain over it is
    more than ``margin`` standard errors of the paired differences over the deals; checked
    against those figures worked out from the same deals played out one by one."""
    game = RatATatCat(num_players=2)
    view = game.observer(game.observation_kind)
    deals = 24
    checked = set()
    for start in range(3, 12):
        state = game.init(np.random.default_rng(start))
        mask = game.legal_mask(state, 0)
        legal = np.flatnonzero(mask)
        if legal.size < 2:
            continue
        own = int(agent.greedy(view.observe(state, 0)[None], mask[None])[0])
        replay = np.random.default_rng(start)
        replay.integers(2**62)
        tables = [game.resample(state, 0, replay) for _ in range(deals)]
        plain = AgentSearchBot(determinizations=1, policy=agent, opponents="agent")
        plain.bind_game(game, 0)
        worth = np.array([plain._play_out([t], 0, legal, "agent")[0] for t in tables])
        diff = worth - worth[:, legal == own]
        gain = diff.mean(axis=0)
        error = np.sqrt(((diff - gain) ** 2).mean(axis=0) / (deals - 1))
        for margin in (0.0, 0.5, 1.0, 2.0, 1e9):
            enough = gain > margin * error
            expected = (
                int(legal[np.argmax(np.where(enough, gain, -np.inf))]) if enough.any() else own
            )
            bot = AgentSearchBot(
                determinizations=deals, policy=agent, opponents="agent", margin=margin
            )
            bot.bind_game(game, 0)
            chosen = bot.act_in_state(state, 0, mask, np.random.default_rng(start))
            assert chosen == expected, (start, margin)
            checked.add(chosen == own)
    assert checked == {True, False}  # both kinds of decision were met
    for bad in (-1.0, True, "wide", float("inf"), float("nan")):
        with pytest.raises(ValueError, match=r"^margin must be a finite number >= 0 or None"):
            AgentSearchBot(margin=bad)
