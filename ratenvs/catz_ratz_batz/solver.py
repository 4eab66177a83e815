"""Exact solution of one Catz, Ratz and Batz turn.

A turn is a Markov decision process over :class:`~.rules.Dice` (face counts
of the nine dice). After each roll with two or more different numbers
showing, the player chooses the number to keep; the others are rerolled.
A kept number can recur (keep 3s, reroll a die, see a 5 again), so the state
graph has cycles: values are found by **policy iteration**, each policy's
value computed *exactly* by solving the linear system ``(I - P_pi) V = r_pi``
over all decision states (every policy ends a turn with probability 1, since
all rerolled dice can land on the kept number, so the system is regular).

:func:`evaluate_policy` gives the exact expected turn score of ANY policy,
deterministic or stochastic, which is how agents are graded.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ratenvs.catz_ratz_batz.rules import (
    NUM_DICE,
    NUM_FACES,
    NUMBERS,
    Dice,
    is_turn_over,
    legal_keeps,
    turn_score,
)

_BASE = np.array([10**i for i in range(NUM_FACES)], dtype=np.int64)
"""Dice are encoded as base-10 digits (each count is at most 9) for table look-ups."""

PolicyFn = Callable[[Dice], "int | Sequence[float] | np.ndarray"]
"""A policy maps dice to the number to keep (3, 5, 7) or to probabilities over (3, 5, 7)."""


def _compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    """All tuples of ``parts`` non-negative ints summing to ``total``."""
    if parts == 1:
        return [(total,)]
    return [(i, *rest) for i in range(total + 1) for rest in _compositions(total - i, parts - 1)]


def _multinomial_probs(rows: np.ndarray, m: int) -> np.ndarray:
    coef = np.array(
        [math.factorial(m) / math.prod(math.factorial(int(x)) for x in row) for row in rows]
    )
    return coef / float(NUM_FACES**m)


@dataclass(frozen=True)
class _Model:
    """All dice states of a turn and the transition of every (decision state, keep)."""

    decision_states: tuple[Dice, ...]
    index: dict[Dice, int]
    all_states: int
    # per decision state, per action slot 0..2 (keep 3, 5, 7): None if illegal, else
    # (next decision indices, their probs, expected score of transitions that end the turn)
    transitions: tuple[tuple[tuple[np.ndarray, np.ndarray, float] | None, ...], ...]
    start_idx: np.ndarray
    start_probs: np.ndarray
    start_terminal_value: float


@lru_cache(maxsize=1)
def _model() -> _Model:
    states = [Dice(*c) for c in _compositions(NUM_DICE, NUM_FACES)]
    decisions = tuple(d for d in states if not is_turn_over(d))
    index = {d: i for i, d in enumerate(decisions)}
    lookup = np.full(10**NUM_FACES, -1, dtype=np.int64)
    terminal_score = np.zeros(10**NUM_FACES, dtype=np.float64)
    for d in states:
        code = int(np.dot(d, _BASE))
        if d in index:
            lookup[code] = index[d]
        else:
            terminal_score[code] = turn_score(d)
    outcomes = {}
    for m in range(NUM_DICE + 1):
        rows = np.array(_compositions(m, NUM_FACES), dtype=np.int64)  # cats..sevens order
        outcomes[m] = (rows @ _BASE, _multinomial_probs(rows, m))

    def split(codes: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        nxt = lookup[codes]
        dec = nxt >= 0
        return nxt[dec], probs[dec], float(probs[~dec] @ terminal_score[codes[~dec]])

    transitions = []
    for d in decisions:
        row: list[tuple[np.ndarray, np.ndarray, float] | None] = [None, None, None]
        for k in legal_keeps(d):
            a = NUMBERS.index(k)
            kept = d.count(k)
            base = np.array(d, dtype=np.int64)
            base[3:] = 0
            base[3 + a] = kept
            codes, probs = outcomes[d.number_dice - kept]
            row[a] = split(int(base @ _BASE) + codes, probs)
        transitions.append(tuple(row))
    start_codes, start_probs = outcomes[NUM_DICE]
    s_idx, s_p, s_term = split(start_codes, start_probs)
    return _Model(decisions, index, len(states), tuple(transitions), s_idx, s_p, s_term)


def _policy_matrix(model: _Model, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Transition matrix among decision states and expected terminal reward under ``probs``."""
    n = len(model.decision_states)
    p = np.zeros((n, n))
    r = np.zeros(n)
    for s, row in enumerate(model.transitions):
        for a in range(3):
            w = probs[s, a]
            if w == 0.0:
                continue
            nxt, pr, term = row[a]  # type: ignore[misc]
            np.add.at(p[s], nxt, w * pr)
            r[s] += w * term
    return p, r


def _evaluate(model: _Model, probs: np.ndarray) -> np.ndarray:
    p, r = _policy_matrix(model, probs)
    return np.linalg.solve(np.eye(len(r)) - p, r)


def _start_value(model: _Model, values: np.ndarray) -> float:
    return float(model.start_probs @ values[model.start_idx] + model.start_terminal_value)


def _q_values(model: _Model, values: np.ndarray) -> np.ndarray:
    q = np.full((len(model.decision_states), 3), -np.inf)
    for s, row in enumerate(model.transitions):
        for a, tr in enumerate(row):
            if tr is not None:
                nxt, pr, term = tr
                q[s, a] = term + pr @ values[nxt]
    return q


@dataclass(frozen=True)
class Solution:
    """The optimal play of one turn: values, the policy, and the expected turn score."""

    expected_score: float
    """Expected score of one turn under optimal play, before the first roll."""
    states: int
    """Number of dice states of a turn (face counts of nine dice)."""
    decision_states: int
    """States in which the player has a choice (two or more numbers showing)."""
    values: dict[Dice, float]
    """Optimal expected final score from each decision state."""
    policy: dict[Dice, int]
    """Optimal number to keep (3, 5 or 7) in each decision state."""
    q_values: dict[Dice, dict[int, float]]
    """Expected final score of keeping each legal number, then playing optimally."""
    iterations: int

    def best_keep(self, dice: Dice) -> int:
        """The optimal number to keep for ``dice`` (a decision state)."""
        return self.policy[dice]


@lru_cache(maxsize=1)
def solve(tol: float = 1e-9) -> Solution:
    """Solve a turn exactly by policy iteration (computed, never hard-coded).

    ``tol``: how much better another keep must be to change the policy, in points (at most
    1e-6, so the policy found is the optimal one).
    """
    _check_tol(tol, 1e-6)
    model = _model()
    n = len(model.decision_states)
    # start from "keep the most common number" and improve until stable
    probs = np.zeros((n, 3))
    for s, d in enumerate(model.decision_states):
        probs[s, int(np.argmax(d.numbers))] = 1.0
    iterations = 0
    while True:
        iterations += 1
        values = _evaluate(model, probs)
        q = _q_values(model, values)
        current = np.where(probs > 0, q, 0.0).sum(axis=1)
        best = q.max(axis=1)
        if np.all(best <= current + tol):
            break
        new = np.zeros_like(probs)
        # keep the current action unless another is strictly better (ensures termination)
        improve = best > current + tol
        new[~improve] = probs[~improve]
        new[improve, np.argmax(q[improve], axis=1)] = 1.0
        probs = new
    policy = {d: NUMBERS[int(np.argmax(probs[s]))] for s, d in enumerate(model.decision_states)}
    qv = {
        d: {NUMBERS[a]: float(q[s, a]) for a in range(3) if np.isfinite(q[s, a])}
        for s, d in enumerate(model.decision_states)
    }
    return Solution(
        expected_score=_start_value(model, values),
        states=model.all_states,
        decision_states=n,
        values={d: float(values[s]) for s, d in enumerate(model.decision_states)},
        policy=policy,
        q_values=qv,
        iterations=iterations,
    )


def policy_probabilities(policy: PolicyFn) -> np.ndarray:
    """Tabulate ``policy`` over all decision states as probabilities of keeping 3, 5, 7."""
    model = _model()
    probs = np.zeros((len(model.decision_states), 3))
    for s, d in enumerate(model.decision_states):
        choice = policy(d)
        if isinstance(choice, int | np.integer):
            if int(choice) not in legal_keeps(d):
                raise ValueError(f"policy keeps {choice} for dice {d.faces()}: not showing")
            probs[s, NUMBERS.index(int(choice))] = 1.0
        else:
            row = np.asarray(choice, dtype=np.float64)
            if row.shape != (3,) or np.any(row < 0) or not np.isclose(row.sum(), 1.0):
                raise ValueError(f"policy returned {choice!r}: need 3 probabilities summing to 1")
            for a, k in enumerate(NUMBERS):
                if row[a] > 0 and k not in legal_keeps(d):
                    raise ValueError(f"policy may keep {k} for dice {d.faces()}: not showing")
            probs[s] = row
    return probs


@lru_cache(maxsize=1)
def _showing() -> np.ndarray:
    """(decision states, 3): whether 3, 5, 7 are showing in each decision state."""
    rows = [[k in legal_keeps(d) for k in NUMBERS] for d in _model().decision_states]
    table = np.array(rows, dtype=bool)
    table.flags.writeable = False
    return table


def check_policy_table(table: np.ndarray) -> np.ndarray:
    """``table`` as a turn policy's table (:func:`policy_probabilities`' form: probabilities
    of keeping 3, 5, 7 in every state of :func:`all_decision_states`, in order), float64;
    ValueError if it is not one: the wrong shape, a probability that is negative or not
    finite, a row that does not sum to 1, or a keep of a number that is not showing."""
    n = len(_model().decision_states)
    table = np.asarray(table, dtype=np.float64)
    if table.shape != (n, 3):
        raise ValueError(f"a turn policy table has shape ({n}, 3), got {table.shape}")
    bad = ~np.isfinite(table).all(axis=1) | (table < 0).any(axis=1)
    bad |= ~np.isclose(table.sum(axis=1), 1.0)
    if bad.any():
        s = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"turn policy table row {s} (dice {_model().decision_states[s].faces()}) is "
            f"{table[s].tolist()}: need 3 probabilities summing to 1"
        )
    hidden = (table > 0) & ~_showing()
    if hidden.any():
        s, a = (int(i) for i in np.argwhere(hidden)[0])
        raise ValueError(
            f"turn policy table may keep {NUMBERS[a]} for dice "
            f"{_model().decision_states[s].faces()} (row {s}): not showing"
        )
    return table


def _check_tol(tol: float, most: float) -> None:
    if not 0.0 < tol <= most:
        raise ValueError(f"tol must be in (0, {most:g}], got {tol!r}")


def evaluate_policy(policy: PolicyFn) -> float:
    """Exact expected score of one turn when the keeps are chosen by ``policy``."""
    model = _model()
    return _start_value(model, _evaluate(model, policy_probabilities(policy)))


def value_iteration(tol: float = 1e-10, max_iter: int = 10_000) -> float:
    """Expected optimal turn score by plain value iteration (an independent cross-check).

    Iterates until no state's value moves by ``tol`` (in (0, 1e-6]); RuntimeError if that
    takes more than ``max_iter`` sweeps.
    """
    _check_tol(tol, 1e-6)
    model = _model()
    values = np.zeros(len(model.decision_states))
    for _ in range(max_iter):
        new = _q_values(model, values).max(axis=1)
        if np.max(np.abs(new - values)) < tol:
            return _start_value(model, new)
        values = new
    raise RuntimeError(
        f"value iteration did not converge to {tol:g} in {max_iter} sweeps (raise max_iter)"
    )


def all_decision_states() -> tuple[Dice, ...]:
    """Every dice state in which the player must choose a number to keep."""
    return _model().decision_states


def solve_win(num_players: int = 2, turns: int = 10) -> Any:
    """The exact win-probability-optimal play of the 2-player game with ``turns`` turns per
    seat: a :class:`~ratenvs.catz_ratz_batz.winsolver.WinSolution` (see that module for the
    method and why it is exact; it needs numba)."""
    from ratenvs.catz_ratz_batz.winsolver import solve_win as _solve_win

    return _solve_win(num_players=num_players, turns=turns)
