"""What an evaluation adds for Catz, Ratz and Batz: the exact grade of an agent by the
solver, and for a 2-player agent that reads the lead its exact exploitability.

:mod:`ratenvs.evaluation` reads ``EXTRAS``: ``ratenvs evaluate`` adds the score grade
(:func:`exact_score_grade`, under a second, NumPy only). The exploitability
(:func:`exact_exploitability_grade`: numba, a few CPU minutes at 10 turns) comes from
``ratenvs exploit CHECKPOINT --exact`` and from training's evaluations (its hooks use
:func:`exact_grade`, both), not from every evaluation of a few games."""

from __future__ import annotations

from typing import Any

import numpy as np

from ratenvs.evaluation import EvaluationExtras


def exact_grade(agent: Any, env_options: dict[str, Any]) -> dict[str, float]:
    """The agent's exact figures: :func:`exact_score_grade`, and for a 2-player agent of the
    lead :func:`exact_exploitability_grade`."""
    return {
        **exact_score_grade(agent, env_options),
        **exact_exploitability_grade(agent, env_options),
    }


def exact_score_grade(agent: Any, env_options: dict[str, Any]) -> dict[str, float]:
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


def grades_exploitability(env_options: dict[str, Any]) -> bool:
    """Whether :func:`exact_grade` gives a policy of ``env_options`` its exact
    exploitability: the 2-player game of fixed turns without ``target_score``, seen with
    ``totals_view="relative"`` (a policy of the lead: the recursion over the lead covers
    any length)."""
    return (
        int(env_options.get("num_players", 2)) == 2
        and env_options.get("turns", 10) is not None
        and env_options.get("target_score") is None
        and env_options.get("totals_view", "absolute") == "relative"
    )


class _Seen:
    """An agent's batched greedy keeps with the env options it plays (for AgentLeadPolicy)."""

    def __init__(self, agent: Any, env_options: dict[str, Any]) -> None:
        self.greedy = agent.greedy
        self.env_options = dict(env_options)
        self.name = getattr(agent, "name", "agent")


def exact_exploitability_grade(agent: Any, env_options: dict[str, Any]) -> dict[str, float]:
    """For an agent with a batched ``greedy`` in a game :func:`grades_exploitability` covers:
    ``exact_exploitability`` (a best response's share over both seats above an even game,
    :func:`~.bestresponse.agent_exploitability`) and ``exact_worst_case_share`` (1/2 minus
    it: the share the agent keeps against a best response, averaged over the seats); else
    nothing. The 10-turn game: its keep in every dice state at about 37,000 leads, a few
    CPU minutes for a network of two layers of 256."""
    if not grades_exploitability(env_options) or not callable(getattr(agent, "greedy", None)):
        return {}
    from ratenvs.catz_ratz_batz.bestresponse import agent_exploitability

    turns = int(env_options.get("turns", 10))
    result = agent_exploitability(_Seen(agent, env_options), turns)
    return {
        "exact_exploitability": result.value,
        "exact_worst_case_share": 0.5 - result.value,
        "exact_best_response_share_seat_0": result.seat_0.share,
        "exact_best_response_share_seat_1": result.seat_1.share,
    }


EXTRAS = EvaluationExtras(exact_grade=exact_score_grade)
