"""Exact best responses and exact exploitability in 2-player Catz, Ratz and Batz.

A **best response** to a fixed policy of one seat is the play of the other seat (the
*responder*) that maximises its share ``P(win) + P(tie) / 2`` against it. It is the
recursion of :mod:`.winsolver` with the max taken only at the responder's positions: at the
target's positions the turn is played by the target's fixed turn policy (a turn MDP
evaluated, not solved). Every figure is exact up to float rounding and the policy
iteration tolerance of :func:`~.winsolver.best_turn` (1e-14 per keep).

**Exploitability.** The seats are not symmetric (seat 1 rolls last with the score in view),
so a target is judged over both seats, each with probability 1/2::

    exploitability(pi) = (BR_0(pi) + BR_1(pi)) / 2 - 1/2

where ``BR_0(pi)`` is the best share of a responder in seat 0 against ``pi`` in seat 1 and
``BR_1(pi)`` that of a responder in seat 1 against ``pi`` in seat 0. It is 0 exactly for the
win-optimal policy (``BR_0`` is then the first player's optimal share, ``BR_1`` one minus
it: the game with the seats drawn at random is symmetric with value 1/2, and the
win-optimal policy is its equilibrium), and at most 1/2. ``0.01`` means a best response
wins one point of win probability more than an even game, averaged over the seats.

**Two recursions.**

- :func:`best_response` (positions ``(m, o, d)``: the turns left and the lead): for a
  target whose play depends on the totals only through the lead (a :data:`GamePolicy`:
  the dice bots, the score-optimal and win-optimal solutions). The 10-turn game in about
  ten seconds.
- :func:`best_response_totals` (both totals: ``(m, o, own total, opponent's total)``): for
  a target that reads both totals, such as a trained agent (:class:`AgentPolicy`: its
  greedy keep in every dice state at every pair of totals, its observations evaluated in
  batches). The pairs of totals a game can reach grow as the square of the turns
  (:func:`totals_pairs`); at most :data:`MAX_TOTALS_PAIRS` are tabulated, enough for 2 and
  3 turns per seat, not 10 (a ValueError says so).

Needs numba (the ``batched`` extra), as :mod:`.winsolver` does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple, Protocol

import numpy as np

from ratenvs.catz_ratz_batz.observe import ACTION_ROLL, MAX_TURN_SCORE, TOTAL_SCALE
from ratenvs.catz_ratz_batz.rules import NUMBERS, PHASE_KEEP, CatzRatzBatz, keep_mask, legal_keeps
from ratenvs.catz_ratz_batz.solver import Solution, all_decision_states
from ratenvs.catz_ratz_batz.winsolver import (
    GamePolicy,
    Position,
    WinSolution,
    _after,
    _as_game_policy,
    _check_turns,
    _one_hot,
    _order,
    _span,
    _table,
    _turn_policy,
    best_turn,
    turn_model,
    turn_values,
)

MAX_TOTALS_PAIRS = 300_000
"""Most undecided pairs of totals :func:`best_response_totals` tabulates (each is a turn
MDP, and for an agent 1,452 observations): 3 turns per seat need 106,551
(:func:`totals_pairs`)."""
SEATS = (0, 1)


class TotalsPosition(NamedTuple):
    """Where a 2-player game stands at the start of a turn, with both totals, seen from the
    seat about to roll."""

    turns_left: int
    """The mover's turns left, the one it is about to play included."""
    opponent_turns_left: int
    """The opponent's turns left (equal when seat 0 rolls, one fewer when seat 1 does)."""
    total: int
    """The mover's total."""
    opponent_total: int
    """The opponent's total."""


class TotalsPolicy(Protocol):
    """A seat's play of a whole game that may read both totals: its turn policies (tables
    as :func:`~.solver.policy_probabilities` returns) at a batch of positions."""

    def tables(
        self,
        turns_left: int,
        opponent_turns_left: int,
        totals: np.ndarray,
        opponent_totals: np.ndarray,
    ) -> np.ndarray:
        """(n, decision states, 3): the turn policy of the mover at each of ``n`` pairs of
        totals (the mover's ``totals[i]``, the opponent's ``opponent_totals[i]``)."""
        ...  # pragma: no cover - protocol


@dataclass(eq=False)
class BestResponse:
    """The best response to a fixed target in one seat of the 2-player game."""

    turns: int
    """Turns per seat."""
    seat: int
    """The responder's seat (the target plays the other one)."""
    share: float
    """The responder's share ``P(win) + P(tie) / 2`` before the game's first roll."""
    positions: int
    """Undecided positions solved or evaluated (one turn MDP each)."""
    seconds: float
    """Time the recursion took."""
    departures: dict[Any, tuple[np.ndarray, np.ndarray]] = field(repr=False)
    """At every undecided position of the responder (a :class:`~.winsolver.Position`, or a
    :class:`TotalsPosition` for :func:`best_response_totals`), the decision states where its
    best keep is not the score-optimal one, and the keeps (action 0, 1, 2) played there."""

    def keeps(self, position: Position | TotalsPosition) -> np.ndarray:
        """The best response's keep (action 0, 1, 2) in every decision state at
        ``position`` (the score-optimal keep where the game is decided)."""
        keeps = turn_model().prefer.copy()
        if position in self.departures:
            where, keep = self.departures[position]
            keeps[where] = keep
        return keeps

    def policy(self, position: Position) -> np.ndarray:
        """The best response's turn policy at ``position`` as a table (a
        :data:`~.winsolver.GamePolicy`, for :func:`~.winsolver.win_probability`)."""
        return _one_hot(self.keeps(Position(*position)))


@dataclass(frozen=True)
class Exploitability:
    """How much a best response wins from a target, seat by seat (module docstring)."""

    turns: int
    seat_0: BestResponse
    """The responder in seat 0 (the target in seat 1)."""
    seat_1: BestResponse
    """The responder in seat 1 (the target in seat 0)."""

    @property
    def value(self) -> float:
        """``(BR_0 + BR_1) / 2 - 1/2``: the responder's share over both seats above an even
        game (0 for the win-optimal policy)."""
        return (self.seat_0.share + self.seat_1.share) / 2 - 0.5

    def to_dict(self) -> dict[str, Any]:
        """The figures as JSON-ready numbers."""
        return {
            "turns": self.turns,
            "exploitability": self.value,
            "best_response_share_seat_0": self.seat_0.share,
            "best_response_share_seat_1": self.seat_1.share,
            "seconds": self.seat_0.seconds + self.seat_1.seconds,
        }


def _check_seat(seat: Any) -> int:
    if not (isinstance(seat, int | np.integer) and not isinstance(seat, bool) and seat in SEATS):
        raise ValueError(f"seat must be 0 or 1 (the responder's seat), got {seat!r}")
    return int(seat)


def _record(departures: dict, key: Any, keeps: np.ndarray) -> None:
    where = np.flatnonzero(keeps != turn_model().prefer)
    if where.size:
        departures[key] = (where.astype(np.int16), keeps[where].astype(np.int8))


# ------------------------------------------------------------ over the lead
def best_response(
    target: GamePolicy | Solution | WinSolution, seat: int, turns: int = 10
) -> BestResponse:
    """The exact best response in ``seat`` to ``target`` playing the other seat of the
    2-player game with ``turns`` turns per seat. ``target`` is a
    :data:`~.winsolver.GamePolicy` (its turn policy at each position), the score-optimal
    :class:`~.solver.Solution` or a :class:`~.winsolver.WinSolution`."""
    turns, seat = _check_turns(turns), _check_seat(seat)
    policy = _as_game_policy(target)
    scores = turn_model().scores
    start = time.perf_counter()
    shares: dict[tuple[int, int], np.ndarray] = {}  # the mover's share
    departures: dict[Any, tuple[np.ndarray, np.ndarray]] = {}
    memo: list[Any] = [None, None]  # the target's last turn policy, its score distribution
    for m, o in _order(turns):
        mover = 0 if m == o else 1
        lo, hi = _span(m, o)
        table = np.empty(hi - lo + 1)
        for i, d in enumerate(range(lo, hi + 1)):
            u = 1.0 - _after(shares, m, o, -(d + scores), 1.0, 0.0, 0.5)[:, 0]
            if mover == seat:
                table[i], keeps = best_turn(u)
                _record(departures, Position(m, o, d), keeps)
                continue
            turn = _turn_policy(policy, Position(m, o, d))
            if turn is memo[0]:  # met again (a stationary policy): its score distribution
                if memo[1] is None:
                    memo[1] = turn_values(np.eye(len(scores)), _table(turn))
                table[i] = memo[1] @ u
            else:
                memo[:] = [turn, None]
                table[i] = turn_values(u, _table(turn))[0]
        shares[(m, o)] = table
    first = float(shares[(turns, turns)][-_span(turns, turns)[0]])
    share = first if seat == 0 else 1.0 - first
    count = sum(len(t) for t in shares.values())
    return BestResponse(turns, seat, share, count, time.perf_counter() - start, departures)


def exploitability(target: GamePolicy | Solution | WinSolution, turns: int = 10) -> Exploitability:
    """The exact exploitability of ``target`` (a policy :func:`best_response` takes) in the
    2-player game with ``turns`` turns per seat: the best responses in both seats."""
    return Exploitability(
        _check_turns(turns), best_response(target, 0, turns), best_response(target, 1, turns)
    )


# ------------------------------------------------------------ over both totals
@lru_cache(maxsize=16)
def _reachable(turns_taken: int) -> np.ndarray:
    """Which totals ``turns_taken`` turns can sum to (bool over 0 .. 175 turns_taken)."""
    reach = np.zeros(1, dtype=bool)
    reach[0] = True
    for _ in range(turns_taken):
        nxt = np.zeros(len(reach) + MAX_TURN_SCORE, dtype=bool)
        for s in turn_model().scores:
            nxt[s : s + len(reach)] |= reach
        reach = nxt
    reach.flags.writeable = False
    return reach


def _level_pairs(turns: int, m: int, o: int) -> tuple[np.ndarray, np.ndarray]:
    """The undecided pairs of totals (mover's, opponent's) the game can reach at (m, o)."""
    a = np.flatnonzero(_reachable(turns - m))
    b = np.flatnonzero(_reachable(turns - o))
    aa, bb = np.meshgrid(a, b, indexing="ij")
    lead = aa - bb
    lo, hi = _span(m, o)
    keep = (lead >= lo) & (lead <= hi)
    return aa[keep], bb[keep]


def totals_pairs(turns: int) -> int:
    """How many undecided pairs of totals the game with ``turns`` turns per seat reaches
    (the positions :func:`best_response_totals` solves)."""
    turns = _check_turns(turns)
    return sum(len(_level_pairs(turns, m, o)[0]) for m, o in _order(turns))


def _after_totals(levels: dict, m: int, o: int, a: int, b: int) -> np.ndarray:
    """The next mover's share after a turn from (m, o, a, b) scoring each score: the
    opponent rolls at (o, m - 1) with total ``b`` against ``a + s``."""
    after = a + turn_model().scores
    lead = b - after
    nm, no = o, m - 1
    if nm == 0 and no == 0:
        return np.where(lead > 0, 1.0, np.where(lead < 0, 0.0, 0.5))
    lo, hi = _span(nm, no)
    table = levels[(nm, no)]
    row = table[b, np.minimum(after, table.shape[1] - 1)]
    return np.where(lead > hi, 1.0, np.where(lead < lo, 0.0, row))


class LeadPolicy:
    """A :data:`~.winsolver.GamePolicy` (play by the lead) as a :class:`TotalsPolicy`."""

    def __init__(self, policy: GamePolicy | Solution | WinSolution) -> None:
        self.policy = _as_game_policy(policy)
        self._last: tuple[Any, np.ndarray] | None = None  # a turn policy met again: its table

    def tables(
        self,
        turns_left: int,
        opponent_turns_left: int,
        totals: np.ndarray,
        opponent_totals: np.ndarray,
    ) -> np.ndarray:
        out = []
        for d in np.asarray(totals) - np.asarray(opponent_totals):
            turn = _turn_policy(self.policy, Position(turns_left, opponent_turns_left, int(d)))
            if self._last is None or self._last[0] is not turn:
                self._last = (turn, _table(turn))
            out.append(self._last[1])
        return np.stack(out)


def best_response_totals(
    target: TotalsPolicy, seat: int, turns: int, *, chunk: int = 64
) -> BestResponse:
    """The exact best response in ``seat`` to ``target`` (a :class:`TotalsPolicy`, e.g. an
    :class:`AgentPolicy`) in the other seat, over both totals; the target's turn policies are
    asked for ``chunk`` pairs of totals at a time. A ValueError if the game reaches more than
    :data:`MAX_TOTALS_PAIRS` undecided pairs of totals (:func:`totals_pairs`)."""
    turns, seat = _check_turns(turns), _check_seat(seat)
    pairs = totals_pairs(turns)
    if pairs > MAX_TOTALS_PAIRS:
        raise ValueError(
            f"a best response over both totals in a {turns}-turn game solves {pairs:,} pairs "
            f"of totals, more than the {MAX_TOTALS_PAIRS:,} it takes (2 or 3 turns per seat "
            "fit; a policy of the lead alone takes best_response at any length)"
        )
    start = time.perf_counter()
    levels: dict[tuple[int, int], np.ndarray] = {}  # [mover's total, opponent's]: its share
    departures: dict[Any, tuple[np.ndarray, np.ndarray]] = {}
    for m, o in _order(turns):
        mover = 0 if m == o else 1
        a_all, b_all = _level_pairs(turns, m, o)
        table = np.full((MAX_TURN_SCORE * (turns - m) + 1, MAX_TURN_SCORE * (turns - o) + 1), -1.0)
        if mover == seat:
            for a, b in zip(a_all.tolist(), b_all.tolist()):
                u = 1.0 - _after_totals(levels, m, o, a, b)
                table[a, b], keeps = best_turn(u)
                _record(departures, TotalsPosition(m, o, a, b), keeps)
        else:
            for c in range(0, len(a_all), chunk):
                a_part, b_part = a_all[c : c + chunk], b_all[c : c + chunk]
                tables = np.asarray(target.tables(m, o, a_part, b_part), dtype=np.float64)
                for a, b, turn in zip(a_part.tolist(), b_part.tolist(), tables):
                    u = 1.0 - _after_totals(levels, m, o, a, b)
                    table[a, b] = turn_values(u, _table(turn))[0]
        levels[(m, o)] = table
    first = float(levels[(turns, turns)][0, 0])
    share = first if seat == 0 else 1.0 - first
    return BestResponse(turns, seat, share, pairs, time.perf_counter() - start, departures)


def exploitability_totals(target: TotalsPolicy, turns: int) -> Exploitability:
    """The exact exploitability of ``target`` over both totals (:func:`best_response_totals`
    in both seats)."""
    return Exploitability(
        _check_turns(turns),
        best_response_totals(target, 0, turns),
        best_response_totals(target, 1, turns),
    )


# ------------------------------------------------------------ a trained agent
class AgentPolicy:
    """A trained 2-player agent (a :class:`~ratenvs.agents.checkpoint.PolicyBot`, or any
    object with a batched ``greedy(observations, action_masks)``) as a
    :class:`TotalsPolicy`: its greedy keep in every dice state, read from the observations
    the game's observer gives the mover at each pair of totals (its keeps are deterministic,
    so its tables are one-hot)."""

    def __init__(self, agent: Any, turns: int) -> None:
        self.turns = _check_turns(turns)
        options = getattr(agent, "env_options", None) or {}
        self.totals_view = str(options.get("totals_view", "absolute"))
        asked = {"num_players": 2, "turns": self.turns}
        for key, value in options.items():
            if (key in asked and value != asked[key]) or (key == "target_score" and value):
                raise ValueError(
                    f"agent {getattr(agent, 'name', agent)!r} plays {options}, not the "
                    f"2-player game of {self.turns} turns per seat"
                )
        if not callable(getattr(agent, "greedy", None)):
            raise TypeError(f"{agent!r} has no batched greedy(observations, action_masks)")
        if getattr(agent, "sample", False):
            raise ValueError(
                f"agent {getattr(agent, 'name', agent)!r} draws its keeps from its softmax "
                '(its card\'s "play": "sample"): the exact best response here is to a '
                "policy whose keeps are deterministic"
            )
        self.agent = agent
        game = CatzRatzBatz(num_players=2, turns=self.turns, totals_view=self.totals_view)
        self.observer = game.observer("knowledge")
        state = game.init(np.random.default_rng(0))
        state.phase = PHASE_KEEP
        rows, masks = [], []
        for dice in all_decision_states():
            state.dice = dice
            rows.append(self.observer.observe(state, 0))
            masks.append(keep_mask(dice))
        self._template = np.stack(rows)
        self._masks = np.stack(masks)
        self._masks[:, ACTION_ROLL] = 0
        self._totals = self.observer.slices["totals"]
        self._turns_left = self.observer.slices["turns_left"]

    def tables(
        self,
        turns_left: int,
        opponent_turns_left: int,
        totals: np.ndarray,
        opponent_totals: np.ndarray,
    ) -> np.ndarray:
        totals, opponent_totals = np.asarray(totals), np.asarray(opponent_totals)
        actions = self.keeps(turns_left, opponent_turns_left, totals, opponent_totals)
        n, k = actions.shape
        out = np.zeros((n * k, len(NUMBERS)))
        out[np.arange(n * k), actions.ravel()] = 1.0
        return out.reshape(n, k, len(NUMBERS))

    def keeps(
        self,
        turns_left: int,
        opponent_turns_left: int,
        totals: np.ndarray,
        opponent_totals: np.ndarray,
    ) -> np.ndarray:
        """(n, decision states): the agent's keep (action 0, 1, 2) in every dice state at
        each of ``n`` pairs of totals (its observations as the observer writes them: the
        totals themselves, or each minus the mover's with ``totals_view="relative"``)."""
        totals = np.asarray(totals, dtype=np.int64)
        opponent_totals = np.asarray(opponent_totals, dtype=np.int64)
        n, k = len(totals), len(self._template)
        obs = np.tile(self._template, (n, 1))
        if self.totals_view == "relative":  # as the observer: (total - own) / 100
            own = np.zeros(n * k)
            other = np.repeat(
                [float(b - a) / TOTAL_SCALE for a, b in zip(totals, opponent_totals)], k
            )
        else:
            own = np.repeat([float(t) / TOTAL_SCALE for t in totals], k)
            other = np.repeat([float(t) / TOTAL_SCALE for t in opponent_totals], k)
        obs[:, self._totals] = np.stack([own, other], axis=1).astype(np.float32)
        obs[:, self._turns_left] = np.float32(
            [turns_left / self.turns, opponent_turns_left / self.turns]
        )
        actions = np.asarray(self.agent.greedy(obs, np.tile(self._masks, (n, 1))))
        if actions.min() < 0 or actions.max() >= len(NUMBERS):
            raise ValueError(f"agent chose action {int(actions.max())} when it had to keep")
        return actions.reshape(n, k)


class AgentLeadPolicy:
    """A trained 2-player agent that sees the totals relative to its own (the option
    ``totals_view="relative"``: its play reads the totals only through the lead) as a
    :data:`~.winsolver.GamePolicy`, for :func:`best_response` at any number of turns: its
    greedy keep in every dice state at every lead of a (turns left, opponent's turns left)
    level the game can reach, tabulated a level at a time (``chunk`` leads per batch of
    observations). At a lead no play reaches (it weighs nothing in any share from the start)
    it answers the score-optimal keeps."""

    def __init__(self, agent: Any, turns: int, *, chunk: int = 64) -> None:
        self.agent_policy = AgentPolicy(agent, turns)
        if self.agent_policy.totals_view != "relative":
            raise ValueError(
                f"agent {getattr(agent, 'name', agent)!r} reads both totals (totals_view "
                f"{self.agent_policy.totals_view!r}), not the lead alone: best_response_totals "
                "and AgentPolicy take it"
            )
        self.chunk = chunk
        self._level: tuple[int, int] | None = None
        self._keeps = np.empty((0, 0), dtype=np.int8)
        self._row = np.empty(0, dtype=np.int64)
        self._low = 0
        self._unreached = _one_hot(turn_model().prefer)
        self._last: tuple[int, np.ndarray] = (-1, self._unreached)

    def __call__(self, position: Position) -> np.ndarray:
        m, o, d = position
        if self._level != (m, o):
            self._tabulate(m, o)
        row = self._row[d - self._low]
        if row < 0:  # a lead the game cannot reach here: never weighed, any table serves
            return self._unreached
        if row != self._last[0]:
            self._last = (row, _one_hot(self._keeps[row]))
        return self._last[1]  # the same table while the keeps repeat (best_response's memo)

    def _tabulate(self, m: int, o: int) -> None:
        """The agent's keeps at every lead of level (m, o) the game can reach (the mover has
        taken ``turns - m`` turns, the opponent ``turns - o``), the same keeps one row."""
        turns = self.agent_policy.turns
        lo, hi = _span(m, o)
        mine = _reachable(turns - m).astype(np.float64)
        theirs = _reachable(turns - o).astype(np.float64)
        hits = np.convolve(mine, theirs[::-1])  # index i: lead i - (len(theirs) - 1)
        leads = np.flatnonzero(hits > 0.5) - (len(theirs) - 1)
        leads = leads[(leads >= lo) & (leads <= hi)]
        parts = [
            self.agent_policy.keeps(m, o, part, np.zeros_like(part))
            for part in np.array_split(leads, max(1, -(-len(leads) // self.chunk)))
        ]
        keeps = np.concatenate(parts).astype(np.int8)
        unique, inverse = np.unique(keeps, axis=0, return_inverse=True)
        self._row = np.full(hi - lo + 1, -1, dtype=np.int64)
        self._row[leads - lo] = inverse.ravel()
        self._level, self._low, self._keeps = (m, o), lo, unique
        self._last = (-1, self._unreached)


def reads_the_lead(agent: Any) -> bool:
    """Whether ``agent`` sees the totals relative to its own (``totals_view="relative"`` in
    its env options): its play then reads them only through the lead."""
    options = getattr(agent, "env_options", None) or {}
    return options.get("totals_view", "absolute") == "relative"


def agent_exploitability(agent: Any, turns: int) -> Exploitability:
    """The exact exploitability of a trained 2-player agent of ``turns`` turns per seat:
    over the lead (:class:`AgentLeadPolicy`, :func:`best_response`, any number of turns) for
    an agent that sees the totals relative to its own, else over both totals
    (:class:`AgentPolicy`, :func:`best_response_totals`, up to 3 turns per seat)."""
    if reads_the_lead(agent):
        return exploitability(AgentLeadPolicy(agent, turns), turns)
    return exploitability_totals(AgentPolicy(agent, turns), turns)


# ------------------------------------------------------------ by name
def bot_policy(name: str, turns: int) -> GamePolicy | Solution | WinSolution:
    """The 2-player game policy of the Catz bot ``name`` (``random``, ``most_common``,
    ``lowest``, ``optimal``: the dice alone; ``optimal_win``: the win-optimal play of the
    ``turns``-turn game, solved)."""
    from ratenvs.catz_ratz_batz.bots import BOTS, LowestBot, MostCommonBot
    from ratenvs.catz_ratz_batz.solver import solve
    from ratenvs.catz_ratz_batz.winsolver import solve_win, stationary

    if name == "optimal":
        return solve()
    if name == "optimal_win":
        return solve_win(num_players=2, turns=turns)
    if name == "random":  # any number showing, uniformly
        table = np.zeros((len(all_decision_states()), len(NUMBERS)))
        for i, dice in enumerate(all_decision_states()):
            legal = [NUMBERS.index(k) for k in legal_keeps(dice)]
            table[i, legal] = 1.0 / len(legal)
        return stationary(table)
    chooser = {"most_common": MostCommonBot, "lowest": LowestBot}.get(name)
    if chooser is None:
        raise ValueError(f"unknown bot {name!r} for catz_ratz_batz; choose one of {sorted(BOTS)}")
    return stationary(chooser().choose)


def exact_report(target: str, turns: int = 10) -> dict[str, Any]:
    """The exact exploitability of ``target``: a Catz bot (``catz_ratz_batz:BOT`` or a bare
    name) in the 2-player game of ``turns`` turns per seat, or a 2-player Catz checkpoint or
    shipped agent in the game of its card (``ratenvs exploit TARGET --exact``)."""
    from ratenvs import agents

    if target.startswith(agents.AGENT_PREFIX) or agents.is_checkpoint_path(target):
        ckpt = agents.load_agent_checkpoint(target, game="catz_ratz_batz")
        options = ckpt.env_options
        if options.get("num_players") != 2 or not options.get("turns"):
            raise ValueError(
                f"{target} plays {options}: the exact best response covers the 2-player game "
                "with a fixed number of turns"
            )
        turns = int(options["turns"])
        agent = ckpt.bot()
        result = agent_exploitability(agent, turns)
        method = "best_response" if reads_the_lead(agent) else "best_response_totals"
        weights = {"target_weights_sha256": ckpt.card["weights_sha256"]}
    else:
        name = target.split(":", 1)[1] if ":" in target else target
        game = target.split(":", 1)[0] if ":" in target else "catz_ratz_batz"
        if game.replace("-", "_") != "catz_ratz_batz":
            raise ValueError(
                f"--exact: only Catz, Ratz and Batz has an exact best response, not {game}"
            )
        result = exploitability(bot_policy(name, _check_turns(turns)), turns)
        target, method = f"catz_ratz_batz:{name}", "best_response"
        weights = {}
    return {
        "target": target,
        "game": "catz_ratz_batz",
        "num_players": 2,
        "method": method,
        **result.to_dict(),
        **weights,  # a checkpoint's: the card is written only for the weights computed on
    }
