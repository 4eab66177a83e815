"""Exact win-probability-optimal play of 2-player Catz, Ratz and Batz (Neller and Presser's
method for Pig: backward induction over the positions between turns, each turn's MDP solved
with the win probability of the position after it as its terminal value).

**Positions.** Between turns a 2-player game with ``turns`` turns per seat is a
:class:`Position` seen from the seat about to roll: its turns left ``m`` (this one
included), the opponent's turns left ``o`` (``o == m`` when seat 0 rolls, ``o == m - 1``
when seat 1 does) and its ``lead`` ``d`` (own total minus the opponent's). The winner is
the higher total and a tie is shared (``win_rewards``: 0 / 0, the same expected reward as
a coin flip), so the value of a position is the mover's **share**
``W = P(win) + P(tie) / 2`` (``= (1 + expected "win" reward) / 2``), and only the lead
matters, not the two totals.

**Recursion.** A turn ending with score ``s`` passes the dice to the opponent at position
``(o, m - 1, -(d + s))``, so ``W(m, o, d) = max over turn policies of
E[1 - W(o, m - 1, -(d + s))]`` and ``W(0, 0, d)`` is 1, 1/2 or 0 for ``d > 0``, ``= 0``,
``< 0``. Each ``W(m, o, d)`` is the value of one turn MDP (the dice states of
:mod:`.solver`) with the terminal value ``u(s) = 1 - W(o, m - 1, -(d + s))``; positions are
solved in order of the turns left, (1, 0), (1, 1), (2, 1), (2, 2), ...

**No truncation.** One turn scores 0 to 175 (``observe.MAX_TURN_SCORE``). From ``(m, o,
d)`` the final lead lies in ``[d - 175 o, d + 175 m]``: for ``d > 175 o`` the mover has
won whatever anyone does (``W = 1``), for ``d < -175 m`` it has lost (``W = 0``). The tables
hold every ``d`` in ``[-175 m, 175 o]`` (36,770 positions for 10 turns), so the recursion
is exact.

**Each turn, exactly.** A turn's states have cycles (a kept number may recur), but Cats,
Bats and Rats set aside never decrease. After a keep the state is a *post-decision state*
(animals, kept number, how many dice show it; 990 of them). Its value is the expectation
over the reroll: outcomes that end the turn (terminal value ``u``), outcomes with a new
animal (a class with more animals: already solved, classes are solved in order of
decreasing animals) and outcomes with no new animal (the same class, at most 24
post-decision states). Within a class the values of fixed keeps solve the linear system
``(I - P_same) V = ext``, solved exactly by Gaussian elimination (every row of ``P_same``
sums to at most ``2 ** -r <= 1/2``, ``r >= 1`` rerolled dice all showing numbers, so the
matrix is strictly diagonally dominant: no pivoting needed, well conditioned), and the best
keeps are found by policy iteration from the score-optimal ones (a keep is switched when
another is better by more than 1e-14: the loss is at most 1e-14 per keep a turn makes). So
every figure is exact up to float rounding and that bound (the tests: the kernel reproduces
:func:`~.solver.solve`'s 24.954... points per turn and an independent policy iteration over
the dice to 1e-11, and Monte Carlo play). Keeps of equal value (within 1e-12: e.g. in a
decided position) go to the score-optimal keep, so the bot still plays for points.

:func:`win_probability` gives the exact win, tie and loss probabilities of any pair of
policies (:data:`GamePolicy`: the turn policy at each position; :func:`stationary` for a
policy of the dice alone, such as the score-optimal one), by the same recursion with the
policies fixed.

Needs numba (the ``batched`` extra), as the batched engines do.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from ratenvs.catz_ratz_batz.observe import MAX_TURN_SCORE
from ratenvs.catz_ratz_batz.rules import (
    NUM_DICE,
    NUM_FACES,
    NUMBERS,
    Dice,
    apply_reroll,
    is_turn_over,
    legal_keeps,
    turn_score,
)
from ratenvs.catz_ratz_batz.solver import (
    PolicyFn,
    Solution,
    _compositions,
    all_decision_states,
    check_policy_table,
    policy_probabilities,
    solve,
)
from ratenvs.common.jit import njit

IMPROVE_TOL = 1e-14
"""Policy iteration switches a keep only when another is better by more than this (times the
largest terminal value)."""
TIE_TOL = 1e-12
"""Keeps whose win values differ by at most this are equal (the score-optimal one is played)."""


class Position(NamedTuple):
    """Where a 2-player game stands at the start of a turn, seen from the seat about to roll."""

    turns_left: int
    """The mover's turns left, the one it is about to play included."""
    opponent_turns_left: int
    """The opponent's turns left (equal when seat 0 rolls, one fewer when seat 1 does)."""
    lead: int
    """The mover's total minus the opponent's."""


TurnPolicy = PolicyFn | np.ndarray
"""How a seat keeps during one turn: a :data:`~.solver.PolicyFn` of the dice, or its table as
:func:`~.solver.policy_probabilities` returns it (probabilities of keeping 3, 5, 7 for every
state of :func:`~.solver.all_decision_states`, in that order)."""

GamePolicy = Callable[[Position], TurnPolicy]
"""A seat's play of a whole 2-player game: the turn policy it uses at each position (a
policy that looks at the totals only through the lead and the turns left: that is all a
win depends on)."""


# ------------------------------------------------------------------ the turn model
@dataclass(frozen=True)
class _TurnModel:
    """The turn MDP over post-decision states, as flat arrays for the kernel."""

    scores: np.ndarray  # the distinct turn scores, ascending
    dec_post: np.ndarray  # (decisions, 3): post-decision state of each keep, -1 if illegal
    post_ptr: np.ndarray  # (posts + 1, 3): start of each post's term / ext / same segments
    term_score: np.ndarray
    term_prob: np.ndarray
    ext_dec: np.ndarray
    ext_prob: np.ndarray
    same_dec: np.ndarray
    same_prob: np.ndarray
    class_post_ptr: np.ndarray
    class_posts: np.ndarray
    class_dec_ptr: np.ndarray
    class_decs: np.ndarray
    start_score: np.ndarray
    start_score_prob: np.ndarray
    start_dec: np.ndarray
    start_dec_prob: np.ndarray
    prefer: np.ndarray  # (decisions,): the score-optimal keep (action 0, 1, 2)
    post_local: np.ndarray  # (posts,): each post-decision state's place in its class

    def arrays(self) -> tuple[np.ndarray, ...]:
        return (
            self.dec_post,
            self.post_ptr,
            self.term_score,
            self.term_prob,
            self.ext_dec,
            self.ext_prob,
            self.same_dec,
            self.same_prob,
            self.class_post_ptr,
            self.class_posts,
            self.class_dec_ptr,
            self.class_decs,
            self.start_score,
            self.start_score_prob,
            self.start_dec,
            self.start_dec_prob,
        )


def _outcomes(m: int) -> list[tuple[tuple[int, ...], float]]:
    """Every roll of ``m`` dice as counts of 3, 5, 7, Cat, Bat, Rat, with its probability."""
    out = []
    for row in _compositions(m, NUM_FACES):
        ways = math.factorial(m) / math.prod(math.factorial(x) for x in row)
        out.append((row, ways / NUM_FACES**m))
    return out


@lru_cache(maxsize=1)
def turn_model() -> _TurnModel:
    """The turn MDP of :mod:`.solver` over post-decision states (built once)."""
    decisions = all_decision_states()
    dec_index = {d: i for i, d in enumerate(decisions)}
    states = [Dice(*c) for c in _compositions(NUM_DICE, NUM_FACES)]
    scores = sorted({turn_score(d) for d in states if is_turn_over(d)})
    score_index = {s: i for i, s in enumerate(scores)}
    animals = lambda d: (d.cats, d.bats, d.rats)  # noqa: E731
    classes = sorted({animals(d) for d in decisions}, key=lambda c: (-sum(c), c))
    posts: dict[tuple[int, ...], int] = {}
    dec_post = np.full((len(decisions), 3), -1, dtype=np.int64)
    for i, d in enumerate(decisions):
        for k in legal_keeps(d):
            key = (*animals(d), k, d.count(k))
            dec_post[i, NUMBERS.index(k)] = posts.setdefault(key, len(posts))
    outcomes = {m: _outcomes(m) for m in range(NUM_DICE + 1)}

    def split(rep: Dice | None, keep: int, m: int, cls: tuple[int, ...] | None):
        term: dict[int, float] = {}
        ext: list[tuple[int, float]] = []
        same: list[tuple[int, float]] = []
        for rolled, p in outcomes[m]:
            if rep is None:  # the first roll of nine dice
                n3, n5, n7, c, b, r = rolled
                nd = Dice(c, b, r, n3, n5, n7)
            else:
                nd = apply_reroll(rep, keep, rolled)
            if is_turn_over(nd):
                j = score_index[turn_score(nd)]
                term[j] = term.get(j, 0.0) + p
            elif animals(nd) == cls:
                same.append((dec_index[nd], p))
            else:
                ext.append((dec_index[nd], p))
        return sorted(term.items()), ext, same

    post_keys = sorted(posts, key=posts.get)
    ptr = np.zeros((len(post_keys) + 1, 3), dtype=np.int64)
    t_s, t_p, e_d, e_p, s_d, s_p = [], [], [], [], [], []
    for p, (c, b, r, k, count) in enumerate(post_keys):
        a = NUMBERS.index(k)
        numbers = [0, 0, 0]
        numbers[a] = count
        rep = Dice(c, b, r, *numbers)
        term, ext, same = split(rep, k, NUM_DICE - c - b - r - count, (c, b, r))
        for lst_i, lst_p, seg in ((t_s, t_p, term), (e_d, e_p, ext), (s_d, s_p, same)):
            lst_i.extend(x for x, _ in seg)
            lst_p.extend(y for _, y in seg)
        ptr[p + 1] = (len(t_s), len(e_d), len(s_d))
    class_of_post = [key[:3] for key in post_keys]
    cpp, cp, cdp, cd = [0], [], [0], []
    for cls in classes:
        cp.extend(p for p, pc in enumerate(class_of_post) if pc == cls)
        cd.extend(i for i, d in enumerate(decisions) if animals(d) == cls)
        cpp.append(len(cp))
        cdp.append(len(cd))
    post_local = np.zeros(len(post_keys), dtype=np.int64)
    for c in range(len(classes)):
        for i, p in enumerate(cp[cpp[c] : cpp[c + 1]]):
            post_local[p] = i
    term, ext, _ = split(None, 0, NUM_DICE, None)
    best = solve().policy
    prefer = np.array([NUMBERS.index(best[d]) for d in decisions], dtype=np.int64)
    i64, f64 = np.int64, np.float64
    return _TurnModel(
        scores=np.array(scores, dtype=i64),
        dec_post=dec_post,
        post_ptr=ptr,
        term_score=np.array(t_s, dtype=i64),
        term_prob=np.array(t_p, dtype=f64),
        ext_dec=np.array(e_d, dtype=i64),
        ext_prob=np.array(e_p, dtype=f64),
        same_dec=np.array(s_d, dtype=i64),
        same_prob=np.array(s_p, dtype=f64),
        class_post_ptr=np.array(cpp, dtype=i64),
        class_posts=np.array(cp, dtype=i64),
        class_dec_ptr=np.array(cdp, dtype=i64),
        class_decs=np.array(cd, dtype=i64),
        start_score=np.array([j for j, _ in term], dtype=i64),
        start_score_prob=np.array([p for _, p in term], dtype=f64),
        start_dec=np.array([i for i, _ in ext], dtype=i64),
        start_dec_prob=np.array([p for _, p in ext], dtype=f64),
        prefer=prefer,
        post_local=post_local,
    )


@njit(cache=True)
def _class_solve(
    c,
    u,
    pol,
    vpost,
    vdec,
    a_mat,
    post_local,
    dec_post,
    post_ptr,
    term_score,
    term_prob,
    ext_dec,
    ext_prob,
    same_dec,
    same_prob,
    class_post_ptr,
    class_posts,
    class_dec_ptr,
    class_decs,
):
    """Solve class ``c`` exactly for the keeps ``pol``: ``(I - P_same) V = ext`` by Gaussian
    elimination (strictly diagonally dominant: off-diagonal rows sum to at most 1/2)."""
    p0, p1 = class_post_ptr[c], class_post_ptr[c + 1]
    n = p1 - p0
    k_dim = u.shape[1]
    for i in range(n):
        for j in range(n):
            a_mat[i, j] = 0.0
        a_mat[i, i] = 1.0
        for kk in range(k_dim):
            a_mat[i, n + kk] = 0.0
        p = class_posts[p0 + i]
        for t in range(post_ptr[p, 0], post_ptr[p + 1, 0]):
            for kk in range(k_dim):
                a_mat[i, n + kk] += term_prob[t] * u[term_score[t], kk]
        for t in range(post_ptr[p, 1], post_ptr[p + 1, 1]):
            for kk in range(k_dim):
                a_mat[i, n + kk] += ext_prob[t] * vdec[ext_dec[t], kk]
        for t in range(post_ptr[p, 2], post_ptr[p + 1, 2]):
            s = same_dec[t]
            for a in range(3):
                w = pol[s, a]
                if w > 0.0:
                    a_mat[i, post_local[dec_post[s, a]]] -= same_prob[t] * w
    for col in range(n):  # elimination without pivoting (diagonally dominant)
        piv = a_mat[col, col]
        for r in range(col + 1, n):
            f = a_mat[r, col] / piv
            if f != 0.0:
                for j in range(col, n + k_dim):
                    a_mat[r, j] -= f * a_mat[col, j]
    for r in range(n - 1, -1, -1):
        p = class_posts[p0 + r]
        for kk in range(k_dim):
            acc = a_mat[r, n + kk]
            for j in range(r + 1, n):
                acc -= a_mat[r, j] * vpost[class_posts[p0 + j], kk]
            vpost[p, kk] = acc / a_mat[r, r]
    for j in range(class_dec_ptr[c], class_dec_ptr[c + 1]):
        s = class_decs[j]
        for kk in range(k_dim):
            acc = 0.0
            for a in range(3):
                if pol[s, a] > 0.0:
                    acc += pol[s, a] * vpost[dec_post[s, a], kk]
            vdec[s, kk] = acc


@njit(cache=True)
def _turn_exact(
    u,
    pol,
    optimize,
    prefer,
    eps,
    tie_tol,
    choice,
    post_local,
    dec_post,
    post_ptr,
    term_score,
    term_prob,
    ext_dec,
    ext_prob,
    same_dec,
    same_prob,
    class_post_ptr,
    class_posts,
    class_dec_ptr,
    class_decs,
    start_score,
    start_score_prob,
    start_dec,
    start_dec_prob,
):
    """Values of one turn whose end with score index ``j`` is worth ``u[j]`` (a row of K),
    class by class in order of decreasing animals, each class solved exactly.

    ``optimize`` (K = 1): policy iteration from the score-optimal keeps ``prefer`` (``pol``
    is overwritten), switching a keep only when another is better by more than ``eps``; the
    final keeps go to ``choice``, ties within ``tie_tol`` to ``prefer``. Else the keeps of
    ``pol`` (decisions x 3 probabilities). Returns the value before the first roll (K,)."""
    n_post = post_ptr.shape[0] - 1
    n_dec = dec_post.shape[0]
    k_dim = u.shape[1]
    vpost = np.zeros((n_post, k_dim))
    vdec = np.zeros((n_dec, k_dim))
    a_mat = np.zeros((32, 32 + k_dim))
    if optimize:
        for s in range(n_dec):
            for a in range(3):
                pol[s, a] = 0.0
            pol[s, prefer[s]] = 1.0
    for c in range(class_post_ptr.shape[0] - 1):
        for _ in range(100):
            _class_solve(
                c,
                u,
                pol,
                vpost,
                vdec,
                a_mat,
                post_local,
                dec_post,
                post_ptr,
                term_score,
                term_prob,
                ext_dec,
                ext_prob,
                same_dec,
                same_prob,
                class_post_ptr,
                class_posts,
                class_dec_ptr,
                class_decs,
            )
            if not optimize:
                break
            changed = False
            for j in range(class_dec_ptr[c], class_dec_ptr[c + 1]):
                s = class_decs[j]
                best_a = -1
                best = vdec[s, 0] + eps  # switch only for a clear improvement
                for a in range(3):
                    q = dec_post[s, a]
                    if q >= 0 and pol[s, a] == 0.0 and vpost[q, 0] > best:
                        best_a, best = a, vpost[q, 0]
                if best_a >= 0:
                    for a in range(3):
                        pol[s, a] = 0.0
                    pol[s, best_a] = 1.0
                    changed = True
            if not changed:
                break
        if optimize:
            for j in range(class_dec_ptr[c], class_dec_ptr[c + 1]):
                s = class_decs[j]
                best = -1.0e300
                for a in range(3):
                    if dec_post[s, a] >= 0 and vpost[dec_post[s, a], 0] > best:
                        best = vpost[dec_post[s, a], 0]
                pick = prefer[s]
                if vpost[dec_post[s, pick], 0] < best - tie_tol:
                    for a in range(3):
                        if dec_post[s, a] >= 0 and vpost[dec_post[s, a], 0] >= best - tie_tol:
                            pick = a
                            break
                choice[s] = pick
    out = np.zeros(k_dim)
    for t in range(start_score.shape[0]):
        for kk in range(k_dim):
            out[kk] += start_score_prob[t] * u[start_score[t], kk]
    for t in range(start_dec.shape[0]):
        for kk in range(k_dim):
            out[kk] += start_dec_prob[t] * vdec[start_dec[t], kk]
    return out


def best_turn(terminal_values: np.ndarray) -> tuple[float, np.ndarray]:
    """The best play of one turn whose end with score ``scores[j]`` is worth
    ``terminal_values[j]``: its value before the first roll and the keep (action 0, 1, 2 for
    3, 5, 7) in every state of :func:`~.solver.all_decision_states`."""
    model = turn_model()
    u = np.ascontiguousarray(terminal_values, dtype=np.float64).reshape(-1, 1)
    eps = IMPROVE_TOL * max(1.0, float(np.abs(u).max()))
    choice = np.zeros(len(model.prefer), dtype=np.int64)
    pol = np.zeros((len(model.prefer), 3))
    value = _turn_exact(
        u, pol, True, model.prefer, eps, TIE_TOL, choice, model.post_local, *model.arrays()
    )
    return float(value[0]), choice


def turn_values(terminal_values: np.ndarray, policy: np.ndarray) -> np.ndarray:
    """The value before the first roll of a turn played by ``policy`` (a table as
    :func:`~.solver.policy_probabilities` returns) whose end with score ``scores[j]`` is
    worth the row ``terminal_values[j]`` (shape (scores,) or (scores, K))."""
    model = turn_model()
    u = np.asarray(terminal_values, dtype=np.float64)
    u = np.ascontiguousarray(u.reshape(u.shape[0], -1))
    table = np.ascontiguousarray(policy, dtype=np.float64)
    choice = np.zeros(1, dtype=np.int64)
    return _turn_exact(
        u, table, False, model.prefer, 0.0, TIE_TOL, choice, model.post_local, *model.arrays()
    )


def score_distribution(policy: TurnPolicy) -> dict[int, float]:
    """The exact probability of every turn score when the keeps follow ``policy``."""
    model = turn_model()
    probs = turn_values(np.eye(len(model.scores)), _table(policy))
    return {int(s): float(p) for s, p in zip(model.scores, probs)}


def _table(policy: TurnPolicy) -> np.ndarray:
    if isinstance(policy, np.ndarray):
        return check_policy_table(policy)
    return policy_probabilities(policy)


def _one_hot(choice: np.ndarray) -> np.ndarray:
    table = np.zeros((len(choice), 3))
    table[np.arange(len(choice)), choice] = 1.0
    return table


# ------------------------------------------------------------- the game's positions
def _span(m: int, o: int) -> tuple[int, int]:
    """The leads of positions (m, o) not yet decided: ``[-175 m, 175 o]``."""
    return -MAX_TURN_SCORE * m, MAX_TURN_SCORE * o


def _order(turns: int) -> list[tuple[int, int]]:
    """Every (turns left, opponent's turns left) of a mover, in the order they are solved."""
    out = []
    for m in range(1, turns + 1):
        out += [(m, m - 1), (m, m)]
    return out


def _after(tables: dict, m: int, o: int, leads: np.ndarray, won, lost, tie_value) -> np.ndarray:
    """The opponent's values at (o, m - 1, leads): decided leads get ``won`` / ``lost``."""
    nm, no = o, m - 1
    if nm == 0 and no == 0:
        out = np.where((leads > 0)[:, None], won, np.where((leads < 0)[:, None], lost, tie_value))
        return out.astype(np.float64)
    lo, hi = _span(nm, no)
    table = tables[(nm, no)]
    if table.ndim == 1:
        table = table[:, None]
    idx = np.clip(leads - lo, 0, hi - lo)
    out = table[idx].copy()
    out[leads > hi] = won
    out[leads < lo] = lost
    return out


@dataclass(eq=False)
class WinSolution:
    """The win-optimal play of the 2-player game with ``turns`` turns per seat: the share
    ``P(win) + P(tie) / 2`` of the seat about to roll at every undecided position under
    optimal play on both sides, and its best keeps."""

    turns: int
    shares: dict[tuple[int, int], np.ndarray]
    """``shares[(m, o)][d + 175 m]``: the mover's share at Position(m, o, d)."""
    seconds: float
    """Time the solve took."""
    departures: dict[Position, tuple[np.ndarray, np.ndarray]] = field(repr=False)
    """At every undecided position, the decision states (indices into
    :func:`~.solver.all_decision_states`) where the win-optimal keep is not the score-optimal
    one, and the keeps (action 0, 1, 2) played there instead."""

    @property
    def positions(self) -> int:
        """Number of undecided positions solved (one turn MDP each)."""
        return sum(len(v) for v in self.shares.values())

    @property
    def first_player_share(self) -> float:
        """Seat 0's share of the game before its first roll, both seats playing optimally."""
        return self.share(Position(self.turns, self.turns, 0))

    def share(self, position: Position) -> float:
        """The mover's share ``P(win) + P(tie) / 2`` at ``position`` under optimal play."""
        m, o, d = self._check(position)
        lo, hi = _span(m, o)
        if d > hi:
            return 1.0
        if d < lo:
            return 0.0
        return float(self.shares[(m, o)][d - lo])

    def _check(self, position: Position) -> Position:
        m, o, d = (int(x) for x in position)
        if not (1 <= m <= self.turns and o in (m, m - 1)):
            raise ValueError(
                f"no position with {m} turns left against {o} in a {self.turns}-turn "
                "2-player game (the mover has as many turns left as the opponent, or one more)"
            )
        return Position(m, o, d)

    def terminal_values(self, position: Position) -> np.ndarray:
        """What ending the turn with each score (``turn_model().scores``) is worth to the
        mover at ``position``: one minus the opponent's share after it."""
        m, o, d = self._check(position)
        leads = -(d + turn_model().scores)
        return 1.0 - _after(self.shares, m, o, leads, 1.0, 0.0, 0.5)[:, 0]

    def keeps(self, position: Position) -> np.ndarray:
        """The win-optimal keep (action 0, 1, 2) in every decision state at ``position``."""
        position = self._check(position)
        keeps = turn_model().prefer.copy()
        if position in self.departures:  # elsewhere the game is decided: play for points
            where, keep = self.departures[position]
            keeps[where] = keep
        return keeps

    def policy(self, position: Position) -> np.ndarray:
        """The win-optimal turn policy at ``position`` as a table (a :data:`GamePolicy`)."""
        return _one_hot(self.keeps(position))

    def best_keep(self, position: Position, dice: Dice) -> int:
        """The win-optimal number to keep (3, 5 or 7) with ``dice`` at ``position``."""
        index = _dec_index()
        if dice not in index:
            raise ValueError(f"no choice to make with dice {dice.faces()}")
        return NUMBERS[int(self.keeps(position)[index[dice]])]


MAX_TURNS = 100
"""The longest game the exact 2-player solvers take (turns per seat): the work grows about
as the cube of the turns (10 turns take about 15 s), so 100 is hours, and more a
mistake (``ratenvs exploit --exact --turns`` allows 100, ``ratenvs solve --win`` 50)."""


def _check_turns(turns: Any) -> int:
    """``turns`` as an int in 1..:data:`MAX_TURNS` (a numpy integer too; not a bool), else a
    ValueError."""
    integer = isinstance(turns, int | np.integer) and not isinstance(turns, bool | np.bool_)
    if not (integer and 1 <= turns <= MAX_TURNS):
        raise ValueError(f"turns must be an int in 1..{MAX_TURNS}, got {turns!r}")
    return int(turns)


@lru_cache(maxsize=1)
def _dec_index() -> dict[Dice, int]:
    return {d: i for i, d in enumerate(all_decision_states())}


def solve_win(num_players: int = 2, turns: int = 10) -> WinSolution:
    """Solve the 2-player game with ``turns`` turns per seat for the win (module docstring:
    the positions, the recursion, why it is exact). Cached per ``turns``."""
    if num_players != 2:
        raise ValueError(f"the win-optimal solver covers 2 players, not {num_players}")
    return _solve_win(_check_turns(turns))


@lru_cache(maxsize=8)
def _solve_win(turns: int) -> WinSolution:
    """The backward induction of :func:`solve_win`, positions in order of the turns left."""
    import time

    scores, prefer = turn_model().scores, turn_model().prefer
    best_turn(scores.astype(np.float64))  # compiled before the clock starts
    start = time.perf_counter()
    shares: dict[tuple[int, int], np.ndarray] = {}
    departures: dict[Position, tuple[np.ndarray, np.ndarray]] = {}
    for m, o in _order(turns):
        lo, hi = _span(m, o)
        table = np.empty(hi - lo + 1)
        for i, d in enumerate(range(lo, hi + 1)):
            after = _after(shares, m, o, -(d + scores), 1.0, 0.0, 0.5)[:, 0]
            table[i], keeps = best_turn(1.0 - after)
            where = np.flatnonzero(keeps != prefer)
            if where.size:
                keep = keeps[where].astype(np.int8)
                departures[Position(m, o, d)] = (where.astype(np.int16), keep)
        shares[(m, o)] = table
    return WinSolution(turns, shares, time.perf_counter() - start, departures)


# ------------------------------------------------------------- any pair of policies
def stationary(policy: TurnPolicy) -> GamePolicy:
    """The game policy that plays ``policy`` at every position (e.g. the score-optimal one:
    ``stationary(solve().policy.__getitem__)``)."""
    table = _table(policy)
    return lambda position: table


@dataclass(frozen=True)
class MatchOdds:
    """Exact outcome probabilities of a 2-player game, for seat 0."""

    win: float
    tie: float
    loss: float

    @property
    def share(self) -> float:
        """``win + tie / 2``: seat 0's expected share (a tie is shared)."""
        return self.win + self.tie / 2


def _as_game_policy(policy: GamePolicy | Solution | WinSolution) -> GamePolicy:
    if isinstance(policy, Solution):
        return stationary(policy.policy.__getitem__)
    if isinstance(policy, WinSolution):
        return policy.policy
    if callable(policy):
        return policy
    raise TypeError(f"not a policy: {policy!r} (a GamePolicy, a Solution or a WinSolution)")


def _turn_policy(policy: GamePolicy, position: Position) -> TurnPolicy:
    """``policy(position)``, or a TypeError that says what a game policy is."""
    hint = "a GamePolicy maps a Position to a turn policy (stationary(f): f of the dice alone)"
    try:
        turn = policy(position)
    except (AttributeError, KeyError, TypeError) as err:
        raise TypeError(f"{policy!r} failed on {position}: {err!r}; {hint}") from err
    if not (isinstance(turn, np.ndarray) or callable(turn)):
        raise TypeError(f"{policy!r} returned {turn!r} at {position}; {hint}")
    return turn


def win_probability(
    policy_a: GamePolicy | Solution | WinSolution,
    policy_b: GamePolicy | Solution | WinSolution,
    turns: int = 10,
) -> MatchOdds:
    """Exact win / tie / loss probabilities of seat 0 playing ``policy_a`` against seat 1
    playing ``policy_b`` in the 2-player game with ``turns`` turns per seat.

    A policy is a :data:`GamePolicy` (the turn policy at each :class:`Position`), the
    score-optimal :class:`~.solver.Solution` (``solve()``) or a :class:`WinSolution`. The
    recursion of :func:`solve_win` with the keeps fixed: each position's (win, tie) is a
    turn's value with the terminal values of the position after it; a turn policy met at
    more than one position (a stationary one) is reduced once to its score distribution.
    """
    turns = _check_turns(turns)
    seats = (_as_game_policy(policy_a), _as_game_policy(policy_b))
    scores = turn_model().scores
    tables: dict[tuple[int, int], np.ndarray] = {}  # (win, tie) of the mover
    last: list[list] = [[None, None], [None, None]]  # per seat: last turn policy, its scores
    for m, o in _order(turns):
        mover = seats[0 if m == o else 1]
        lo, hi = _span(m, o)
        table = np.empty((hi - lo + 1, 2))
        for i, d in enumerate(range(lo, hi + 1)):
            turn = _turn_policy(mover, Position(m, o, d))
            after = _after(tables, m, o, -(d + scores), (1.0, 0.0), (0.0, 0.0), (0.0, 1.0))
            u = np.stack([1.0 - after[:, 0] - after[:, 1], after[:, 1]], axis=1)
            memo = last[0 if m == o else 1]
            if turn is memo[0]:  # met again: reduce it to its score distribution once
                if memo[1] is None:
                    memo[1] = turn_values(np.eye(len(scores)), _table(turn))
                table[i] = memo[1] @ u
            else:
                memo[:] = [turn, None]
                table[i] = turn_values(u, _table(turn))
        tables[(m, o)] = table
    win, tie = tables[(turns, turns)][-_span(turns, turns)[0]]
    return MatchOdds(float(win), float(tie), float(1.0 - win - tie))


def win_report(turns: int = 10) -> dict[str, Any]:
    """The exact figures of the 2-player game with ``turns`` turns per seat: seat 0's win,
    tie and loss probabilities and share with both seats win-optimal, with the win-optimal
    policy against the score-optimal one in both seat orders, and with both score-optimal;
    the seconds the solve and the evaluations took (``ratenvs solve catz-ratz-batz --win``)."""
    import time

    win = solve_win(num_players=2, turns=turns)
    score = solve()
    start = time.perf_counter()
    pairs = {
        "win_vs_win": (win, win),
        "win_vs_score": (win, score),
        "score_vs_win": (score, win),
        "score_vs_score": (score, score),
    }
    seat_0 = {}
    for name, (a, b) in pairs.items():
        odds = win_probability(a, b, turns)
        seat_0[name] = {"win": odds.win, "tie": odds.tie, "loss": odds.loss, "share": odds.share}
    return {
        "game": "catz_ratz_batz",
        "num_players": 2,
        "turns": turns,
        "positions": win.positions,
        "first_player_share": win.first_player_share,
        "seat_0": seat_0,
        "solve_seconds": win.seconds,
        "evaluate_seconds": time.perf_counter() - start,
    }
