"""The win-optimal solver of the 2-player game: exact against independent computations, against
Monte Carlo through play_game, and the optimal_win bot."""

import json
import math
from functools import lru_cache

import numpy as np
import pytest

from ratenvs.catz_ratz_batz import solver
from ratenvs.catz_ratz_batz.bots import (
    LowestBot,
    MostCommonBot,
    OptimalWinBot,
    exact_expected_score,
    get_bot,
)
from ratenvs.catz_ratz_batz.rules import (
    NUM_DICE,
    NUM_FACES,
    NUMBERS,
    PHASE_KEEP,
    CatzRatzBatz,
    Dice,
    apply_reroll,
    is_turn_over,
    legal_keeps,
    turn_score,
)
from ratenvs.common.play import play_game

winsolver = pytest.importorskip("ratenvs.catz_ratz_batz.winsolver")
Position = winsolver.Position


def _dice_policy(bot):
    """A bot that keeps by the dice alone, as a PolicyFn."""
    return lambda dice: bot.choose(dice)


def _uniform(dice):
    """Any number showing, uniformly (the random bot)."""
    legal = np.array([k in legal_keeps(dice) for k in NUMBERS], dtype=float)
    return legal / legal.sum()


# ---------------------------------------------------- an independent turn solver
@lru_cache(maxsize=1)
def _brute_model():
    """Every decision state's keeps as (next decision states, probs, terminal scores, probs),
    straight from rules.apply_reroll (no post-decision states, no classes)."""
    decisions = solver.all_decision_states()
    index = {d: i for i, d in enumerate(decisions)}
    rolls = {}
    for m in range(NUM_DICE + 1):
        rows = solver._compositions(m, NUM_FACES)
        probs = [
            math.factorial(m) / math.prod(math.factorial(x) for x in r) / NUM_FACES**m for r in rows
        ]
        rolls[m] = list(zip(rows, probs))
    model = []
    for d in decisions:
        row = {}
        for k in legal_keeps(d):
            nxt, pn, term, pt = [], [], [], []
            for rolled, p in rolls[d.number_dice - d.count(k)]:
                nd = apply_reroll(d, k, rolled)
                if is_turn_over(nd):
                    term.append(turn_score(nd))
                    pt.append(p)
                else:
                    nxt.append(index[nd])
                    pn.append(p)
            row[k] = (np.array(nxt, int), np.array(pn), np.array(term, int), np.array(pt))
        model.append(row)
    start = ([], [], [], [])
    for (n3, n5, n7, c, b, r), p in rolls[NUM_DICE]:
        d = Dice(c, b, r, n3, n5, n7)
        if is_turn_over(d):
            start[2].append(turn_score(d))
            start[3].append(p)
        else:
            start[0].append(index[d])
            start[1].append(p)
    return model, start


def _brute_best_turn(utility) -> float:
    """The best expected ``utility(score)`` of a turn, by policy iteration with dense solves."""
    model, start = _brute_model()
    n = len(model)
    keep = [max(row, key=lambda k: k) for row in model]
    while True:
        p = np.zeros((n, n))
        r = np.zeros(n)
        for s, row in enumerate(model):
            nxt, pn, term, pt = row[keep[s]]
            np.add.at(p[s], nxt, pn)
            r[s] = pt @ np.array([utility(x) for x in term])
        v = np.linalg.solve(np.eye(n) - p, r)
        changed = False
        for s, row in enumerate(model):
            q = {}
            for k, (nxt, pn, term, pt) in row.items():
                q[k] = pn @ v[nxt] + pt @ np.array([utility(x) for x in term])
            best = max(q, key=q.get)
            if q[best] > q[keep[s]] + 1e-12:
                keep[s], changed = best, True
        if not changed:
            break
    return float(np.dot(start[1], v[start[0]]) + np.dot(start[3], [utility(x) for x in start[2]]))


# ---------------------------------------------------------------- the turn kernel
def test_the_turn_kernel_reproduces_the_score_solver():
    model = winsolver.turn_model()
    value, keeps = winsolver.best_turn(model.scores.astype(float))
    assert value == pytest.approx(solver.solve().expected_score, abs=1e-10)
    policy = solver.solve().policy
    states = solver.all_decision_states()
    assert all(NUMBERS[k] == policy[d] for d, k in zip(states, keeps))
    for bot in (solver.solve().policy.__getitem__, _dice_policy(LowestBot())):
        dist = winsolver.score_distribution(bot)
        assert sum(dist.values()) == pytest.approx(1.0, abs=1e-12)
        assert all(p >= 0 for p in dist.values())
        mean = sum(s * p for s, p in dist.items())
        assert mean == pytest.approx(solver.evaluate_policy(bot), abs=1e-10)
    assert exact_expected_score(LowestBot()) == pytest.approx(
        sum(s * p for s, p in winsolver.score_distribution(_dice_policy(LowestBot())).items())
    )


@pytest.mark.parametrize("needed", [0, 20, 45, 100])
def test_last_turn_of_seat_1_is_its_best_response_by_brute_force(needed):
    # T = 1, seat 1 rolls last, behind by `needed`: it wins by scoring more, ties by scoring
    # the same; its share is max P(score > needed) + P(score = needed) / 2
    win = winsolver.solve_win(turns=1)
    brute = _brute_best_turn(lambda s: 1.0 if s > needed else 0.5 if s == needed else 0.0)
    assert win.share(Position(1, 0, -needed)) == pytest.approx(brute, abs=1e-11)


def test_first_turn_of_a_one_turn_game_is_one_minus_the_reply():
    win = winsolver.solve_win(turns=1)
    reply = {s: win.share(Position(1, 0, -s)) for s in winsolver.turn_model().scores}
    assert win.first_player_share == pytest.approx(
        _brute_best_turn(lambda s: 1.0 - reply[s]), abs=1e-11
    )
    # seat 1, rolling last with the score in view, has the edge
    assert 0.45 < win.first_player_share < 0.5


# ------------------------------------------------------------------ the positions
def test_shares_are_probabilities_monotone_in_the_lead_and_decided_beyond_the_bounds():
    win = winsolver.solve_win(turns=2)
    assert win.positions == sum(175 * (m + o) + 1 for m in range(1, 3) for o in (m - 1, m))
    for (m, o), table in win.shares.items():
        assert np.all(table >= -1e-12) and np.all(table <= 1 + 1e-12)
        assert np.all(np.diff(table) >= -1e-12), (m, o)  # a bigger lead never hurts
        assert win.share(Position(m, o, 175 * o + 1)) == 1.0
        assert win.share(Position(m, o, -175 * m - 1)) == 0.0
    # one maximal turn (4 Cats and five 7s: 175) ties: the bounds are tight
    assert win.share(Position(1, 1, 175)) < 1.0 and win.share(Position(1, 0, -175)) > 0.0
    with pytest.raises(ValueError, match="no position"):
        win.share(Position(2, 0, 0))
    with pytest.raises(ValueError, match="2 players"):
        winsolver.solve_win(num_players=3, turns=2)


def test_stored_keeps_are_the_best_turns_of_their_positions():
    win = winsolver.solve_win(turns=2)
    assert win.departures  # the win-optimal policy is not the score-optimal one
    for position in [
        Position(2, 2, 0),
        Position(1, 0, -60),
        Position(2, 1, 30),
        *list(win.departures)[::300],
    ]:
        fresh = winsolver.best_turn(win.terminal_values(position))
        assert np.array_equal(win.keeps(position), fresh[1])
        assert fresh[0] == pytest.approx(win.share(position), abs=1e-14)
    # decided: the score-optimal keeps
    assert np.array_equal(win.keeps(Position(1, 1, 500)), winsolver.turn_model().prefer)


def test_solve_command_win_figures(capsys):
    from ratenvs import cli

    assert cli.main(["solve", "catz-ratz-batz", "--win", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["turns"] == 1 and data["positions"] == 527
    assert data["seat_0"]["win_vs_win"]["share"] == pytest.approx(data["first_player_share"])
    assert data["seat_0"]["score_vs_score"]["share"] == pytest.approx(0.5)  # no position play
    assert cli.main(["solve", "catz-ratz-batz", "--win", "1"]) == 0
    assert "win-optimal vs score-optimal" in capsys.readouterr().out
    with pytest.raises(SystemExit) as refused:
        cli.main(["solve", "catz-ratz-batz", "--win", "0"])
    assert refused.value.code == 2
    assert "--win: must be an integer in 1..50" in capsys.readouterr().err


def test_solver_module_door():
    assert solver.solve_win(turns=1) is winsolver.solve_win(num_players=2, turns=1)
    assert winsolver.solve_win(2, 1) is winsolver.solve_win(turns=1)  # one cache entry


# ---------------------------------------------------------------- pairs of policies
def test_win_probability_of_optimal_play_is_the_solved_share():
    for turns in (1, 2):
        win = winsolver.solve_win(turns=turns)
        odds = winsolver.win_probability(win, win, turns)
        assert odds.win + odds.tie + odds.loss == pytest.approx(1.0)
        assert min(odds.win, odds.tie, odds.loss) >= 0
        assert odds.share == pytest.approx(win.first_player_share, abs=1e-12)


def test_one_turn_each_by_hand_from_the_score_distributions():
    # T = 1 with dice-only policies: seat 0 wins when its score beats seat 1's
    a = solver.solve().policy.__getitem__
    b = _dice_policy(LowestBot())
    da, db = winsolver.score_distribution(a), winsolver.score_distribution(b)
    win = sum(pa * pb for sa, pa in da.items() for sb, pb in db.items() if sa > sb)
    tie = sum(pa * db.get(sa, 0.0) for sa, pa in da.items())
    odds = winsolver.win_probability(winsolver.stationary(a), winsolver.stationary(b), 1)
    assert odds.win == pytest.approx(win, abs=1e-12)
    assert odds.tie == pytest.approx(tie, abs=1e-12)


@pytest.mark.parametrize("turns", [1, 2])
def test_win_optimal_does_at_least_as_well_as_score_optimal(turns):
    win, score = winsolver.solve_win(turns=turns), solver.solve()
    opponents = {
        "win": win,
        "score": score,
        "lowest": winsolver.stationary(_dice_policy(LowestBot())),
        "most_common": winsolver.stationary(_dice_policy(MostCommonBot())),
        "uniform": winsolver.stationary(_uniform),
    }
    if turns > 1:  # keep the test short
        opponents = {k: opponents[k] for k in ("score", "lowest")}
    for name, other in opponents.items():
        first = winsolver.win_probability(win, other, turns).share
        assert first >= winsolver.win_probability(score, other, turns).share - 1e-12, name
        second = 1 - winsolver.win_probability(other, win, turns).share
        assert second >= 1 - winsolver.win_probability(other, score, turns).share - 1e-12, name
    # against the win-optimal opponent nothing does better (the minimax value)
    assert winsolver.win_probability(score, win, turns).share < win.first_player_share


def test_a_position_dependent_policy_is_evaluated_per_position():
    # keep the lowest number when behind, the score-optimal one otherwise
    low, best = _dice_policy(LowestBot()), solver.solve().policy.__getitem__

    def policy(position):
        return low if position.lead < 0 else best

    odds = winsolver.win_probability(policy, solver.solve(), 2)
    assert 0.3 < odds.share < 0.7
    with pytest.raises(TypeError):
        winsolver.win_probability(3, solver.solve(), 2)
    with pytest.raises(TypeError, match="stationary"):  # a policy of the dice, not wrapped
        winsolver.win_probability(best, solver.solve(), 1)


# --------------------------------------------------------- Monte Carlo, and the bot
def _monte_carlo_share(bots, turns, games, first_seed=0):
    game = CatzRatzBatz(num_players=2, turns=turns)
    wins = 0.0
    for seed in range(first_seed, first_seed + games):
        w = play_game(game, bots, seed).winners
        wins += 1.0 if w == [True, False] else 0.5 if w == [True, True] else 0.0
    return wins / games


@pytest.mark.parametrize("order", ["win_first", "win_second"])
def test_optimal_win_bot_matches_the_exact_figure_in_play(order):
    turns, games = 2, 2000
    win = winsolver.solve_win(turns=turns)
    low = winsolver.stationary(_dice_policy(LowestBot()))
    if order == "win_first":
        bots, exact = [get_bot("optimal_win"), get_bot("lowest")], win_probability(win, low, turns)
    else:
        bots, exact = [get_bot("lowest"), get_bot("optimal_win")], win_probability(low, win, turns)
    share = _monte_carlo_share(bots, turns, games)
    sigma = math.sqrt(exact.share * (1 - exact.share) / games)
    assert abs(share - exact.share) < 4 * sigma, (share, exact)


def win_probability(a, b, turns):
    return winsolver.win_probability(a, b, turns)


def test_optimal_win_beats_optimal_over_both_seats():
    turns, games = 1, 2000
    win, score = winsolver.solve_win(turns=turns), solver.solve()
    edge = (
        win_probability(win, score, turns).share + 1 - win_probability(score, win, turns).share
    ) / 2
    assert edge > 0.5  # exact: the win-optimal seat takes more than half over both seats
    played = (
        _monte_carlo_share([get_bot("optimal_win"), get_bot("optimal")], turns, games)
        + 1
        - _monte_carlo_share([get_bot("optimal"), get_bot("optimal_win")], turns, games)
    ) / 2
    sigma = math.sqrt(0.25 / (2 * games))
    assert abs(played - edge) < 4 * sigma, (played, edge)


def test_bot_reads_the_position_from_its_observation():
    game = CatzRatzBatz(num_players=2, turns=2)
    observer = game.observer("knowledge")
    bot = OptimalWinBot()
    bot.bind(observer)
    win = winsolver.solve_win(turns=2)
    state = game.init(np.random.default_rng(0))
    state.totals = [40, 95]
    state.turns_taken = [1, 0]
    state.current = 1
    state.phase = PHASE_KEEP
    for dice in solver.all_decision_states()[::97]:
        state.dice = dice
        obs = observer.observe(state, 1)
        assert bot.position(obs) == Position(2, 1, 55)
        mask = game.legal_mask(state, 1)
        assert NUMBERS[bot.act(obs, mask, np.random.default_rng(0))] == win.best_keep(
            Position(2, 1, 55), dice
        )
    # behind with one turn left the bot gambles where the score-optimal keep would not
    state.totals, state.turns_taken, state.current = [150, 20], [2, 1], 1
    differs = 0
    for dice in solver.all_decision_states():
        state.dice = dice
        act = bot.act(observer.observe(state, 1), game.legal_mask(state, 1), None)
        differs += NUMBERS[act] != solver.solve().policy[dice]
    assert differs > 0


def test_bot_refuses_other_tables_and_unbound_observations_of_another_size():
    bot = OptimalWinBot()
    for options in ({"num_players": 3}, {"num_players": 2, "turns": None, "target_score": 60}):
        with pytest.raises(ValueError, match="optimal_win"):
            bot.bind(CatzRatzBatz(**options).observer("knowledge"))
    keep = np.array([1, 1, 0, 0], dtype=np.int8)
    with pytest.raises(ValueError, match="bind it"):
        bot.act(np.zeros(12, np.float32), keep, np.random.default_rng(0))
    # a game longer than it solves in reasonable time is refused when it sits down (101
    # turns failed at its second keep, mid-game; 51 to 100 solved for hours at its first)
    from ratenvs.catz_ratz_batz.bots import MAX_WIN_BOT_TURNS

    for turns in (MAX_WIN_BOT_TURNS + 1, 101):
        game = CatzRatzBatz(num_players=2, turns=turns)
        with pytest.raises(ValueError, match=rf"plays games of 1\.\.50 turns .* turns={turns}"):
            bot.bind(game.observer("knowledge"))
    bot.bind(CatzRatzBatz(num_players=2, turns=MAX_WIN_BOT_TURNS).observer("knowledge"))


def test_an_unbound_bot_in_a_game_of_other_turns_says_to_bind_it():
    # a 3-turn game after one turn each: turns left 2/3, which no 10-turn game shows
    game = CatzRatzBatz(num_players=2, turns=3)
    observer = game.observer("knowledge")
    state = game.init(np.random.default_rng(0))
    state.totals, state.turns_taken, state.current, state.phase = [30, 20], [1, 1], 0, PHASE_KEEP
    state.dice = solver.all_decision_states()[5]
    obs = observer.observe(state, 0)
    with pytest.raises(ValueError, match=r"reads a 10-turn game, .* bind it to the env"):
        OptimalWinBot().position(obs)
    bound = OptimalWinBot()
    bound.bind(observer)
    assert bound.position(obs) == Position(2, 2, 10)


@pytest.mark.parametrize("turns", [True, 0, 2.0, "2", np.bool_(True), 101, 10**9])
def test_the_solvers_refuse_turns_that_are_no_count(turns):
    for call in (
        lambda: winsolver.solve_win(num_players=2, turns=turns),
        lambda: winsolver.win_probability(solver.solve(), solver.solve(), turns=turns),
    ):
        with pytest.raises(ValueError, match=r"turns must be an int in 1\.\.100, got"):
            call()


def test_the_solvers_take_numpy_integer_turns():
    win = winsolver.solve_win(num_players=2, turns=np.int64(2))
    assert win.turns == 2 and type(win.turns) is int
    assert win is winsolver.solve_win(num_players=2, turns=2)  # one cached solution
    odds = winsolver.win_probability(solver.solve(), solver.solve(), turns=np.int32(1))
    assert odds == winsolver.win_probability(solver.solve(), solver.solve(), turns=1)


@pytest.mark.slow
def test_ten_turns():
    # the game: 36,770 positions, a minute or two on one core (README figures)
    win = winsolver.solve_win(turns=10)
    assert win.positions == 36770
    assert win.first_player_share == pytest.approx(0.4981487934426, abs=1e-12)
    score = solver.solve()
    first = winsolver.win_probability(win, score, 10)
    second = winsolver.win_probability(score, win, 10)
    assert first.share == pytest.approx(0.5017625218291, abs=1e-12)
    assert second.share == pytest.approx(0.4964003941961, abs=1e-12)
    # against the win-optimal opponent, the score-optimal policy gives up 0.2-0.4 points
    assert 0.001 < win.first_player_share - second.share < 0.004
    assert 0.001 < (1 - win.first_player_share) - (1 - first.share) < 0.004
