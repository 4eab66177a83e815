"""The exact solver: optimality, policy evaluation, Monte-Carlo cross-check through the env."""

import math

import numpy as np
import pytest

from ratenvs import catz_ratz_batz_v0
from ratenvs.catz_ratz_batz import solver, winsolver
from ratenvs.catz_ratz_batz.bots import BOTS, DICE_BOTS, exact_expected_score
from ratenvs.catz_ratz_batz.rules import NUMBERS, Dice, legal_keeps, turn_score


def test_policy_iteration_agrees_with_value_iteration():
    sol = solver.solve()
    assert sol.expected_score == pytest.approx(solver.value_iteration(), abs=1e-7)
    assert sol.states == math.comb(9 + 5, 5)  # face counts of nine six-sided dice
    assert sol.decision_states == len(solver.all_decision_states())


def test_the_solution_is_the_published_one():
    """The figures docs/solver.md publishes, pinned absolutely (the cross-checks above hold
    for any rules the solver and its checks share): 2,002 dice states, 1,452 decisions, an
    expected turn score of 24.954 (an independent value iteration of RULES.md's turn gives
    24.954257562960), the bots' 22.341 / 18.207 / 14.800."""
    sol = solver.solve()
    assert (sol.states, sol.decision_states) == (2002, 1452)
    assert sol.expected_score == pytest.approx(24.954257562960, abs=1e-9)
    scores = {name: exact_expected_score(BOTS[name]()) for name in DICE_BOTS}
    assert scores["lowest"] == pytest.approx(22.341244946777, abs=1e-9)
    assert scores["most_common"] == pytest.approx(18.207427116459, abs=1e-9)
    assert scores["random"] == pytest.approx(14.800435896408, abs=1e-9)


def test_optimal_values_satisfy_the_bellman_equation():
    sol = solver.solve()
    for dice, q in list(sol.q_values.items())[::7]:
        assert set(q) == set(legal_keeps(dice))
        assert sol.values[dice] == pytest.approx(max(q.values()), abs=1e-9)
        assert q[sol.policy[dice]] == pytest.approx(sol.values[dice], abs=1e-9)


def test_one_step_value_by_hand():
    # One 3 and one 5 with 7 animals: keep 5, reroll the 3: it shows 5 (1/6) -> 5s count 2, or an
    # animal (1/2) -> one 5 left, or 3 (1/6) -> keep again, or 7 (1/6) -> keep again.
    sol = solver.solve()
    dice = Dice(cats=7, threes=1, fives=1)
    q5 = sol.q_values[dice][5]
    # the exact value involves recursion; check it against the explicit equation
    v = sol.values
    rhs = (
        turn_score(Dice(cats=7, fives=2)) / 6
        + (turn_score(Dice(cats=8, fives=1)) + 0 + 0) / 6  # Cat
        + turn_score(Dice(cats=7, bats=1, fives=1)) / 6  # Bat (neutral for 5)
        + turn_score(Dice(cats=7, rats=1, fives=1)) / 6  # Rat
        + v[Dice(cats=7, threes=1, fives=1)] / 6
        + v[Dice(cats=7, fives=1, sevens=1)] / 6
    )
    assert q5 == pytest.approx(rhs, abs=1e-9)


def test_evaluate_policy_of_the_optimal_policy_is_the_optimum_and_bots_are_below():
    sol = solver.solve()
    assert solver.evaluate_policy(sol.best_keep) == pytest.approx(sol.expected_score, abs=1e-9)
    for name in DICE_BOTS:  # the bots that keep by the dice alone
        value = exact_expected_score(BOTS[name]())
        assert value <= sol.expected_score + 1e-9, name
        if name != "optimal":
            assert value < sol.expected_score - 1.0, name


def test_stochastic_policy_is_the_mix_of_deterministic_ones():
    lo = solver.evaluate_policy(lambda d: min(legal_keeps(d)))
    hi = solver.evaluate_policy(lambda d: max(legal_keeps(d)))
    mix = solver.evaluate_policy(
        lambda d: [0.5 if k in (min(legal_keeps(d)), max(legal_keeps(d))) else 0 for k in NUMBERS]
    )
    assert min(lo, hi) < mix < max(lo, hi)


def test_evaluate_policy_rejects_illegal_keeps():
    with pytest.raises(ValueError, match="not showing"):
        solver.evaluate_policy(lambda d: 3)
    with pytest.raises(ValueError, match="probabilities"):
        solver.evaluate_policy(lambda d: [0.5, 0.5, 0.5])


def _monte_carlo(bot_name: str, turns: int, games: int, seed: int) -> np.ndarray:
    """Turn scores of ``bot_name`` playing the env itself (1 player, score rewards)."""
    bot = BOTS[bot_name]()
    rng = np.random.default_rng(seed)
    env = catz_ratz_batz_v0.env(num_players=1, turns=turns)
    out = []
    for g in range(games):
        env.reset(seed=seed + g)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if reward:
                out.append(reward)
            elif env.infos[agent].get("turn_score") == 0:
                out.append(0.0)
            if term or trunc:
                env.step(None)
                continue
            env.infos[agent].clear()
            env.step(bot.act(obs["observation"], obs["action_mask"], rng))
    assert len(out) == turns * games
    return np.array(out)


@pytest.mark.parametrize("bot_name", ["optimal", "lowest", "most_common"])
def test_solver_matches_monte_carlo_through_the_env(bot_name):
    exact = exact_expected_score(BOTS[bot_name]())
    scores = _monte_carlo(bot_name, turns=250, games=24, seed=123)
    se = scores.std(ddof=1) / math.sqrt(scores.size)
    assert abs(scores.mean() - exact) < 4 * se, (scores.mean(), exact, se)
    # the bound is tight enough to tell bots apart (the test has power)
    others = [exact_expected_score(BOTS[n]()) for n in DICE_BOTS if n != bot_name]
    assert all(abs(scores.mean() - o) > 4 * se for o in others)


def test_policy_tables_that_are_not_policies_are_refused():
    good = solver.policy_probabilities(solver.solve().policy.__getitem__)
    assert np.array_equal(solver.check_policy_table(good), good)
    n = len(solver.all_decision_states())
    hidden = next(  # a state where some number is not showing, and that number
        (s, a)
        for s, d in enumerate(solver.all_decision_states())
        for a, k in enumerate(NUMBERS)
        if k not in legal_keeps(d)
    )
    triple, zeros, nan, keeps_hidden = good.copy(), good.copy(), good.copy(), good.copy()
    triple[5] = 1.0
    zeros[7] = 0.0
    nan[3, 0] = np.nan
    keeps_hidden[hidden[0]] = 0.0
    keeps_hidden[hidden[0], hidden[1]] = 1.0
    for table, match in (
        (good[:-1], rf"shape \({n}, 3\)"),
        (triple, "row 5 .*summing to 1"),
        (zeros, "row 7 .*summing to 1"),
        (nan, "row 3 .*summing to 1"),
        (keeps_hidden, f"may keep {NUMBERS[hidden[1]]} .*not showing"),
    ):
        with pytest.raises(ValueError, match=match):
            solver.check_policy_table(table)
        with pytest.raises(ValueError, match=match):  # and so does every user of a table
            winsolver.score_distribution(table)


def test_tolerances_that_would_not_give_the_optimum_are_refused():
    for tol in (1e9, 1e-3, 0.0, -1e-9, float("nan")):
        with pytest.raises(ValueError, match="tol must be in"):
            solver.solve(tol)
        with pytest.raises(ValueError, match="tol must be in"):
            solver.value_iteration(tol)
    with pytest.raises(RuntimeError, match="did not converge"):
        solver.value_iteration(max_iter=1)
