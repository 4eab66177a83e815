"""Exact best responses and exploitability of 2-player Catz: against brute force (dense turn
models straight from the rules, value iteration, the game enumerated) on the one-turn game,
both recursions against each other, and the figures they must give."""

import math
from functools import lru_cache

import numpy as np
import pytest

from ratenvs.catz_ratz_batz import solver
from ratenvs.catz_ratz_batz.bots import LowestBot, MostCommonBot
from ratenvs.catz_ratz_batz.rules import (
    NUM_DICE,
    NUM_FACES,
    NUMBERS,
    PHASE_KEEP,
    CatzRatzBatz,
    Dice,
    apply_reroll,
    is_turn_over,
    keep_mask,
    legal_keeps,
    turn_score,
)

pytest.importorskip("numba")  # the win solver's kernel (the batched extra)
from ratenvs.catz_ratz_batz import bestresponse as br
from ratenvs.catz_ratz_batz import winsolver

Position = winsolver.Position


# ------------------------------------------------ brute force: dense turn models
@lru_cache(maxsize=1)
def _dense():
    """Per keep a: P[a] (decision -> decision) and T[a] (decision -> turn score index), and
    the first roll's (p_start, t_start); straight from rules.apply_reroll."""
    decisions = solver.all_decision_states()
    index = {d: i for i, d in enumerate(decisions)}
    scores = list(winsolver.turn_model().scores)
    where = {s: j for j, s in enumerate(scores)}
    n, k = len(decisions), len(scores)
    rolls = {}
    for m in range(NUM_DICE + 1):
        rows = solver._compositions(m, NUM_FACES)
        rolls[m] = [
            (r, math.factorial(m) / math.prod(math.factorial(x) for x in r) / NUM_FACES**m)
            for r in rows
        ]
    p = np.zeros((3, n, n))
    t = np.zeros((3, n, k))
    legal = np.zeros((n, 3), dtype=bool)
    for i, d in enumerate(decisions):
        for keep in legal_keeps(d):
            a = NUMBERS.index(keep)
            legal[i, a] = True
            for rolled, pr in rolls[d.number_dice - d.count(keep)]:
                nd = apply_reroll(d, keep, rolled)
                if is_turn_over(nd):
                    t[a, i, where[turn_score(nd)]] += pr
                else:
                    p[a, i, index[nd]] += pr
    p0, t0 = np.zeros(n), np.zeros(k)
    for (n3, n5, n7, c, b, r), pr in rolls[NUM_DICE]:
        d = Dice(c, b, r, n3, n5, n7)
        if is_turn_over(d):
            t0[where[turn_score(d)]] += pr
        else:
            p0[index[d]] += pr
    return p, t, legal, p0, t0, np.array(scores)


def _brute_distribution(table):
    """The distribution of the turn score when keeping by ``table``: a dense linear solve."""
    return _brute_distribution_of(np.ascontiguousarray(table, dtype=np.float64).tobytes())


@lru_cache(maxsize=8)
def _brute_distribution_of(table_bytes):
    table = np.frombuffer(table_bytes).reshape(-1, 3)
    p, t, _, p0, t0, _ = _dense()
    pp = np.einsum("sa,asn->sn", table, p)
    tt = np.einsum("sa,ask->sk", table, t)
    x = np.linalg.solve(np.eye(len(pp)) - pp, tt)
    return p0 @ x + t0


def _brute_best(u):
    """The best expected ``u[score index, column]`` of a turn, column by column, by value
    iteration over the dice (no post-decision states, no classes, no elimination)."""
    p, t, legal, p0, t0, _ = _dense()
    v = np.zeros((p.shape[1], u.shape[1]))
    for _ in range(2000):
        q = np.stack([p[a] @ v + t[a] @ u for a in range(3)])
        q[~legal.T] = -np.inf
        new = q.max(axis=0)
        if np.abs(new - v).max() < 1e-15:
            break
        v = new
    return p0 @ new + t0 @ u


def _share_u(scores, against):
    """u[s, j]: the share of scoring s against the j-th score of ``against`` (win 1, tie 1/2)."""
    return np.array([[1.0 if s > x else 0.5 if s == x else 0.0 for x in against] for s in scores])


def _brute_one_turn(seat, target_table):
    """The best share of a responder in ``seat`` of the one-turn game against a target whose
    turn policy at each position is ``target_table(position)``, by enumerating the first
    mover's scores."""
    scores = _dense()[5]
    if seat == 1:  # the target rolls first (lead 0), the responder replies to every score
        first = _brute_distribution(target_table(Position(1, 1, 0)))
        reply = _brute_best(_share_u(scores, scores))
        return float(first @ reply)
    # the responder rolls first; the target replies behind by s (its lead -s)
    lose = [
        _brute_distribution(target_table(Position(1, 0, -s))) @ (1 - _share_u(scores, [s])[:, 0])
        for s in scores
    ]
    return float(_brute_best(np.array(lose)[:, None])[0])


def _table_of(bot):
    return solver.policy_probabilities(bot.choose)


@pytest.mark.parametrize(
    ("seat", "target"), [(0, "most_common"), (1, "most_common"), (1, "win_optimal")]
)
def test_best_response_of_the_one_turn_game_is_the_brute_force_one(seat, target):
    if target == "most_common":
        table = _table_of(MostCommonBot())
        policy, by_position = winsolver.stationary(table), lambda position: table
    else:  # depends on the position (the agent test below has a target that reads the lead)
        win = winsolver.solve_win(turns=1)
        policy, by_position = win, win.policy
    got = br.best_response(policy, seat, turns=1)
    assert got.share == pytest.approx(_brute_one_turn(seat, by_position), abs=1e-11)
    # the best response it records plays to that share
    pair = (got.policy, policy) if seat == 0 else (policy, got.policy)
    odds = winsolver.win_probability(*pair, turns=1)
    assert (odds.share if seat == 0 else 1 - odds.share) == pytest.approx(got.share, abs=1e-12)


class _ParityAgent:
    """A fake trained agent that reads the totals from its observation: it keeps the
    lowest number when the opponent's total is odd, else the most common one."""

    name = "parity"

    def __init__(self, observer):
        self.observer = observer
        self.env_options = {"num_players": 2, "turns": 1}

    def greedy(self, observations, masks):
        views = self.observer.views(observations)
        other = np.rint(views["totals"][:, 1].astype(np.float64) * 100).astype(int)
        out = []
        for obs, odd in zip(observations, other % 2 == 1):
            dice = Dice(*(int(x) for x in np.rint(obs[:6].astype(np.float64) * NUM_DICE)))
            bot = LowestBot() if odd else MostCommonBot()
            out.append(NUMBERS.index(bot.choose(dice)))
        return np.array(out)


def test_an_agent_reading_both_totals_is_best_responded_over_the_totals():
    game = CatzRatzBatz(num_players=2, turns=1)
    agent = _ParityAgent(game.observer("knowledge"))
    lowest, common = _table_of(LowestBot()), _table_of(MostCommonBot())
    # in the one-turn game, seat 1 (the agent when the responder is seat 0) faces the total
    # s of seat 0: lowest if s is odd
    by_position = lambda position: lowest if position.lead % 2 else common  # noqa: E731
    got = br.exploitability_totals(br.AgentPolicy(agent, 1), turns=1)
    assert got.seat_0.share == pytest.approx(_brute_one_turn(0, by_position), abs=1e-11)
    assert got.seat_1.share == pytest.approx(_brute_one_turn(1, lambda position: common), abs=1e-11)
    assert got.value == pytest.approx((got.seat_0.share + got.seat_1.share) / 2 - 0.5)


def test_an_agent_that_samples_its_keeps_is_refused():
    game = CatzRatzBatz(num_players=2, turns=1)
    agent = _ParityAgent(game.observer("knowledge"))
    agent.sample = True  # a card's "play": "sample"
    with pytest.raises(ValueError, match="draws its keeps from its softmax"):
        br.AgentPolicy(agent, 1)


def test_agent_tables_are_its_actions_on_the_observers_own_observations():
    game = CatzRatzBatz(num_players=2, turns=3)
    observer = game.observer("knowledge")

    class Seen:
        def __init__(self):
            self.env_options = {"num_players": 2, "turns": 3}

        def greedy(self, obs, masks):
            self.obs, self.masks = obs, masks
            return np.argmax(masks[:, :3], axis=1)

    agent = Seen()
    br.AgentPolicy(agent, 3).tables(2, 1, np.array([135]), np.array([40]))
    state = game.init(np.random.default_rng(0))
    state.phase, state.current = PHASE_KEEP, 1
    state.totals, state.turns_taken = [40, 135], [2, 1]  # seat 1 rolls, 2 turns left to 1
    for i in (0, 700, 1451):
        state.dice = solver.all_decision_states()[i]
        np.testing.assert_array_equal(agent.obs[i], observer.observe(state, 1))
        np.testing.assert_array_equal(agent.masks[i][:3], keep_mask(state.dice)[:3])


def test_the_two_recursions_agree_on_a_policy_of_the_lead():
    # the score-optimal policy read through both doors in the two-turn game
    score = solver.solve()
    by_lead = br.best_response(score, 1, turns=2)
    by_totals = br.best_response_totals(br.LeadPolicy(score), 1, turns=2)
    assert by_totals.share == pytest.approx(by_lead.share, abs=1e-12)


def test_the_win_optimal_policy_is_unexploitable_and_the_bots_are_not():
    win = winsolver.solve_win(turns=2)
    exact = br.exploitability(win, turns=2)
    assert exact.value == pytest.approx(0.0, abs=1e-12)
    assert exact.seat_0.share == pytest.approx(win.first_player_share, abs=1e-12)
    score = br.exploitability(solver.solve(), turns=2).value
    common = br.exploitability(winsolver.stationary(_table_of(MostCommonBot())), turns=2).value
    assert 0 < score < common < 0.5


def test_bad_seats_turns_and_oversized_games_are_refused():
    with pytest.raises(ValueError, match="seat must be 0 or 1"):
        br.best_response(solver.solve(), 2, turns=1)
    with pytest.raises(ValueError, match=r"turns must be an int in 1\.\.100"):
        br.best_response(solver.solve(), 0, turns=0)
    with pytest.raises(ValueError, match=r"turns must be an int in 1\.\.100, got 101"):
        br.best_response(solver.solve(), 0, turns=101)
    with pytest.raises(ValueError, match=r"more than the 300,000 it takes"):
        br.best_response_totals(br.LeadPolicy(solver.solve()), 0, turns=10)
    bad = type("A", (), {"env_options": {"num_players": 2, "turns": 10}, "greedy": None})()
    with pytest.raises(ValueError, match="not the 2-player game of 3 turns"):
        br.AgentPolicy(bad, 3)


class _LeadParityAgent:
    """A fake trained agent of the relative totals view (vectorised): it keeps the lowest
    number when the lead is odd, else the most common one."""

    name = "lead parity"

    def __init__(self, turns):
        self.env_options = {"num_players": 2, "turns": turns, "totals_view": "relative"}
        self.observer = CatzRatzBatz(**self.env_options).observer("knowledge")
        self.code = np.zeros((2, 10**6), dtype=np.int64)  # [odd lead, dice code]: the keep
        for dice in solver.all_decision_states():
            c = self._code(np.array([dice], dtype=np.float64))[0]
            self.code[1, c] = NUMBERS.index(LowestBot().choose(dice))
            self.code[0, c] = NUMBERS.index(MostCommonBot().choose(dice))

    @staticmethod
    def _code(counts):
        return (counts[:, :6] @ (10 ** np.arange(6))).astype(np.int64)

    def greedy(self, observations, masks):
        views = self.observer.views(observations)
        assert np.all(views["totals"][:, 0] == 0)  # its own entry
        lead = -np.rint(views["totals"][:, 1].astype(np.float64) * 100).astype(np.int64)
        counts = np.rint(observations[:, :6].astype(np.float64) * NUM_DICE)
        return self.code[lead % 2, self._code(counts)]


def test_an_agent_reading_the_lead_is_best_responded_over_the_lead():
    agent = _LeadParityAgent(turns=1)
    assert br.reads_the_lead(agent)
    lowest, common = _table_of(LowestBot()), _table_of(MostCommonBot())
    by_position = lambda position: lowest if position.lead % 2 else common  # noqa: E731
    got = br.agent_exploitability(agent, turns=1)  # over the lead
    assert got.seat_0.share == pytest.approx(_brute_one_turn(0, by_position), abs=1e-11)
    assert got.seat_1.share == pytest.approx(_brute_one_turn(1, lambda position: common), abs=1e-11)
    # in the 2-turn game: the agent's tables are the policy it plays at every position (the
    # recursion over the lead against that over both totals: the test of LeadPolicy above)
    by_agent = br.agent_exploitability(_LeadParityAgent(turns=2), turns=2)
    direct = br.exploitability(by_position, turns=2)
    assert by_agent.value == pytest.approx(direct.value, abs=1e-13)
    assert by_agent.value > 0.01


def test_lead_agent_tables_are_its_actions_on_the_observers_own_observations():
    game = CatzRatzBatz(num_players=2, turns=3, totals_view="relative")
    observer = game.observer("knowledge")

    class Seen:
        def __init__(self):
            self.env_options = {"num_players": 2, "turns": 3, "totals_view": "relative"}

        def greedy(self, obs, masks):
            self.obs = obs
            return np.argmax(masks[:, :3], axis=1)

    agent = Seen()
    policy = br.AgentLeadPolicy(agent, 3, chunk=1000)
    policy(Position(2, 1, 95))  # the whole level: leads -350 .. 175
    state = game.init(np.random.default_rng(0))
    state.phase, state.current = PHASE_KEEP, 1
    state.totals, state.turns_taken = [40, 135], [2, 1]  # seat 1 rolls, 2 turns left to 1
    other = observer.slices["totals"].start + 1  # the opponent's entry: minus the lead
    (at,) = np.flatnonzero(agent.obs[:, other] == np.float32(-95 / 100))[:1]
    for i in (0, 700, 1451):
        state.dice = solver.all_decision_states()[i]
        np.testing.assert_array_equal(agent.obs[at + i], observer.observe(state, 1))
    with pytest.raises(ValueError, match="reads both totals"):
        br.AgentLeadPolicy(_ParityAgentOf2(), 2)


class _ParityAgentOf2:
    def __init__(self):
        self.env_options = {"num_players": 2, "turns": 2}

    def greedy(self, obs, masks):  # pragma: no cover - refused before it plays
        return np.zeros(len(obs), dtype=np.int64)
