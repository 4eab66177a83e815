"""What an evaluation adds for Catz, Ratz and Batz: the exact grade of an agent by the
solver (:mod:`ratenvs.evaluation` reads ``EXTRAS``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ratenvs.evaluation import EvaluationExtras


def exact_grade(agent: Any, env_options: dict[str, Any]) -> dict[str, float]:
    """Exact expected turn score of the agent's greedy keeps, graded by the solver.

    The agent (a Bot, or a PolicyBot: graded on its greedy actions) sees, for each dice
    state, the observation of its first turn in a game with the card's ``num_players``,
    ``turns`` and ``target_score``.
    """
    from ratenvs.catz_ratz_batz import observe, solver
    from ratenvs.catz_ratz_batz.rules import NUMBERS, legal_keeps

    states = solver.all_decision_states()
    num_players = int(env_options.get("num_players", 2))
    turns = env_options.get("turns", 10)
    target = env_options.get("target_score")
    obs = np.stack([observe.observation_for_dice(d, num_players, turns, target) for d in states])
    masks = np.zeros((len(states), observe.NUM_ACTIONS), dtype=np.int8)
    for i, d in enumerate(states):
        for k in legal_keeps(d):
            masks[i, NUMBERS.index(k)] = 1
    greedy = getattr(agent, "greedy", None)
    if greedy is not None:  # a PolicyBot: all its greedy actions at once
        actions = greedy(obs, masks)
    else:
        rng = np.random.default_rng(0)
        actions = np.array([agent.act(o, m, rng) for o, m in zip(obs, masks)])
    table = {d: NUMBERS[int(a)] for d, a in zip(states, actions)}
    score = solver.evaluate_policy(table.__getitem__)
    optimal = solver.solve().expected_score
    return {
        "exact_expected_score": score,
        "optimal_expected_score": optimal,
        "ratio_to_optimal": score / optimal,
    }


EXTRAS = EvaluationExtras(exact_grade=exact_grade)
