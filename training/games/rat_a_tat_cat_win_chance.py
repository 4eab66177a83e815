"""Rat-a-Tat Cat elimination game: a player's chance to win from the standings, and a
training reward made of its changes.

In the elimination game (env option ``target_score``) a player whose total exceeds the
target (or reaches it: option ``eliminate_at``) is out and the last player left wins.
What a round's points are worth depends on the standings: 5 points are nothing at 20 and
the game at 96. The env's "zero_sum" reward counts every point the same; its "win" reward
says what the points were worth only at the end of a game of ten rounds or more, too late
for PPO on 2 cores (training/README.md).

:class:`WinChance` estimates every player's chance to win from the totals and who is still
in, by playing the rest of the game out many times with rounds drawn from a table of real
rounds (the points every live player scored in one round of heuristic bots,
:func:`round_points_table`); the draws are the same at every call, so the chance is a
fixed function of the standings. :class:`WinChanceReward` (training only,
``reward_shaping.win_chance``) adds ``scale`` times the change of the learner's chance
to its reward at every step: ``gamma`` times its chance after the step minus its chance
before, and at the end of the game ``gamma`` times its share of the win (1, 1/w for w
tied winners, or 0) minus its chance before. This is the potential-based shaping of Ng,
Harada and Russell (1999), ``gamma * phi(s') - phi(s)``: with ``gamma`` the discount PPO
uses, its discounted sum over a game is ``gamma**T`` times the win minus the chance at the
start whatever the path, so it rewards winning, and each round says at once what its
points were worth. With ``gamma = 1`` (the plain change, as the shipped agents were
trained) the undiscounted sum is the win minus the chance at the start, but a learner
discounting by less than 1 is also paid for the steps it spends at good standings.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from ratenvs.common.play import play_game
from ratenvs.rat_a_tat_cat.bots import HeuristicBot
from ratenvs.rat_a_tat_cat.observe import TOTAL_SCALE
from ratenvs.rat_a_tat_cat.rules import CODE_UNKNOWN, NUM_CODES, SLOTS, RatATatCat, State

__all__ = [
    "MAX_ROUNDS",
    "WinChance",
    "WinChanceReward",
    "batched_win_chance",
    "final_win_share",
    "round_points_table",
    "shared_win_chance",
    "win_share",
]

MAX_ROUNDS = 60
"""Play-outs still undecided after this many rounds share the win among the lowest totals."""


class _RoundPoints:
    """A ``play_game`` step hook that keeps the live players' points of every finished round."""

    def __init__(self, num_players: int, rows: dict[int, list[tuple[int, ...]]]) -> None:
        self.rows = rows
        self.live = list(range(num_players))  # the players of the round under way
        self.round = 0

    def __call__(self, _game: Any, state: State, _actions: Any, _rewards: Any) -> None:
        if state.round_index != self.round or state.is_over:
            points = state.last_round_points
            self.rows[len(self.live)].append(tuple(points[q] for q in self.live))
            self.round = state.round_index
            self.live = [p for p, active in enumerate(state.active) if active]


def round_points_table(
    num_players: int,
    target_score: int,
    games: int = 1000,
    seed: int = 0,
    *,
    eliminate_at: str = "exceeds",
) -> dict[int, np.ndarray]:
    """The points of the live players in every round of ``games`` elimination games of
    heuristic bots (``play_game``, seeds ``seed .. seed + games - 1``; the game's
    ``eliminate_at``), by the number of live players ``k``: an int array (rounds * k!, k)
    with every round in all orders of its players (so a draw favours no seat)."""
    rows: dict[int, list[tuple[int, ...]]] = {k: [] for k in range(2, num_players + 1)}
    game = RatATatCat(num_players=num_players, target_score=target_score, eliminate_at=eliminate_at)
    bots = [HeuristicBot() for _ in range(num_players)]
    for g in range(games):
        play_game(game, bots, seed + g, on_step=_RoundPoints(num_players, rows))
    out: dict[int, np.ndarray] = {}
    for k, kept in rows.items():
        if not kept:
            raise ValueError(f"no rounds with {k} players left in {games} games; play more")
        out[k] = np.array([perm for r in kept for perm in itertools.permutations(r)], np.int16)
    return out


def win_share(winners: Sequence[bool], seat: int) -> float:
    """The seat's share of the win of a finished game: 1, 1/w when w players share it, or 0."""
    return 1.0 / sum(winners) if winners[seat] else 0.0


class WinChance:
    """Every player's chance to win the elimination game from the standings (see the
    module doc): ``chance(totals, active)`` -> array of chances (0 for a player out).

    Args:
        table: :func:`round_points_table`.
        target_score: the elimination total.
        playouts: play-outs per estimate (the same draws every time).
        seed: seed of the draws.
        eliminate_at: the game's option: "exceeds" (the ruling and default: a total
            above the target is out) or "reaches" (a total at the target is out).
        elimination_tiebreak: the game's option for when every player left goes out in
            the same round: "lowest_total" (the default: the lowest of their totals
            wins) or "shared" (they all share the win).
    """

    def __init__(
        self,
        table: dict[int, np.ndarray],
        target_score: int,
        playouts: int = 1000,
        seed: int = 0,
        cache_size: int = 4096,
        *,
        eliminate_at: str = "exceeds",
        elimination_tiebreak: str = "lowest_total",
    ) -> None:
        if eliminate_at not in ("exceeds", "reaches"):
            raise ValueError(f"eliminate_at: 'exceeds' or 'reaches', got {eliminate_at!r}")
        if elimination_tiebreak not in ("lowest_total", "shared"):
            raise ValueError(
                f"elimination_tiebreak: 'lowest_total' or 'shared', got {elimination_tiebreak!r}"
            )
        self.table = table
        self.target_score = int(target_score)
        self.eliminate_at = eliminate_at
        self.elimination_tiebreak = elimination_tiebreak
        self.out_at = self.target_score + (1 if eliminate_at == "exceeds" else 0)
        """The lowest total that puts a player out (``RatATatCat.out_at``)."""
        self.playouts = int(playouts)
        self.seed = int(seed)
        self._cache: OrderedDict[tuple[tuple[int, ...], tuple[bool, ...]], np.ndarray] = (
            OrderedDict()
        )
        self._cache_size = cache_size
        rng = np.random.default_rng(self.seed)
        self._uniforms = rng.random((MAX_ROUNDS, self.playouts))
        """Play-out ``i``'s round ``r`` is drawn with ``_uniforms[r, i]`` at every call
        (common random numbers: close standings get close chances)."""

    def chance(self, totals: Any, active: Any) -> np.ndarray:
        """Each player's chance to win (their sum is 1 while the game is on)."""
        key = (tuple(int(t) for t in totals), tuple(bool(a) for a in active))
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        out = self._playout(np.array(key[0], np.int64), np.array(key[1], bool))
        self._cache[key] = out
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return out

    def of_seat(self, state: State, seat: int) -> float:
        """The seat's chance from the table's standings; its share of the win once the game
        is over."""
        if state.is_over:
            return win_share(state.winners, seat)
        return float(self.chance(state.totals, state.active)[seat])

    def _playout(self, totals: np.ndarray, active: np.ndarray) -> np.ndarray:
        n = len(totals)
        m = self.playouts
        if active.sum() <= 1:
            return active.astype(np.float64)
        big = np.iinfo(np.int32).max
        tot = np.tile(totals.astype(np.int32), (m, 1))
        act = np.tile(active, (m, 1))
        ids = np.arange(m)
        wins = np.zeros(n)
        for r in range(MAX_ROUNDS):
            live_count = act.sum(axis=1)
            for k, rows in self.table.items():
                (idx,) = np.nonzero(live_count == k)
                if len(idx) == 0:
                    continue
                draws = rows[(self._uniforms[r, ids[idx]] * len(rows)).astype(np.int64)]
                seats = np.nonzero(act[idx])[1].reshape(len(idx), k)
                tot[idx[:, None], seats] += draws
            crossed = act & (tot >= self.out_at)
            left = act & ~crossed
            left_count = left.sum(axis=1)
            ended = left_count <= 1
            if ended.any():
                # one player left wins; nobody left: the lowest total among those who
                # crossed (or all of them share: elimination_tiebreak "shared")
                end_tot = tot[ended]
                nobody = left_count[ended] == 0
                contenders = np.where(nobody[:, None], crossed[ended], left[ended])
                best = np.where(contenders, end_tot, big).min(axis=1)
                won = contenders & (end_tot == best[:, None])
                if self.elimination_tiebreak == "shared":
                    won = np.where(nobody[:, None], contenders, won)
                wins += (won / won.sum(axis=1, keepdims=True)).sum(axis=0)
                going = ~ended
                tot, act, ids = tot[going], left[going], ids[going]
                if len(tot) == 0:
                    break
            else:
                act = left
        if len(tot):  # undecided after MAX_ROUNDS: the lowest live totals share
            best = np.where(act, tot, big).min(axis=1)
            won = act & (tot == best[:, None])
            wins += (won / won.sum(axis=1, keepdims=True)).sum(axis=0)
        return wins / m


_CHANCES: dict[tuple[int, int, str, str], WinChance] = {}


def shared_win_chance(
    num_players: int,
    target_score: int,
    eliminate_at: str = "exceeds",
    elimination_tiebreak: str = "lowest_total",
) -> WinChance:
    """One :class:`WinChance` per (players, target, eliminate_at, elimination_tiebreak) in
    this process (its table takes about 50 s of heuristic games to build; every env of the
    process shares it)."""
    key = (num_players, target_score, eliminate_at, elimination_tiebreak)
    if key not in _CHANCES:
        table = round_points_table(num_players, target_score, eliminate_at=eliminate_at)
        _CHANCES[key] = WinChance(
            table,
            target_score,
            eliminate_at=eliminate_at,
            elimination_tiebreak=elimination_tiebreak,
        )
    return _CHANCES[key]


class WinChanceReward(gym.Wrapper):
    """Training only: ``scale * (gamma * after - before)``, the discounted change of the
    learner's chance to win, is added to its reward at every step (see the module doc).

    Wraps a Rat-a-Tat Cat :class:`~ratenvs.wrappers.single_agent.SingleAgentEnv` (through
    any wrappers) of the elimination game.
    """

    def __init__(self, env: gym.Env, scale: float, gamma: float = 1.0) -> None:
        super().__init__(env)
        if not 0.0 < gamma <= 1.0:
            raise ValueError(f"gamma must be in (0, 1], got {gamma}")
        self.gamma = float(gamma)
        aec = env.unwrapped.aec
        target = aec.game.target_score
        if target is None:
            raise ValueError(
                "reward_shaping.win_chance: needs the elimination game (env option target_score)"
            )
        self.scale = float(scale)
        game = aec.game
        self.chances = shared_win_chance(
            aec.num_players, int(target), game.eliminate_at, game.elimination_tiebreak
        )
        self._before = 0.0

    def _chance(self) -> float:
        single = self.env.unwrapped
        return self.chances.of_seat(single.aec.truth, single.aec.agent_name_mapping[single.learner])

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(**kwargs)
        self._before = self._chance()
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        after = self._chance()
        reward = float(reward) + self.scale * (self.gamma * after - self._before)
        self._before = after
        return obs, reward, terminated, truncated, info


def final_win_share(
    observation: np.ndarray, observer: Any, num_players: int, shared: bool = False
) -> float:
    """The observer's share of the win of a finished elimination game, read from its
    observation of the end (the engine's ``final_obs``; offset 0 is the observer): at the
    end every hand of the last round is revealed, so the players of that round are the
    ones with cards. One player left in wins; nobody left: the lowest total among the
    last round's players (all of them with ``shared``, the option
    ``elimination_tiebreak="shared"``); several left (a game of ``rounds``): the lowest
    total among them."""
    n = num_players
    totals_at, active_at = observer.offset("totals"), observer.offset("active")
    totals = np.rint(observation[totals_at : totals_at + n] * TOTAL_SCALE)
    active = observation[active_at : active_at + n] > 0.5
    slots_at = observer.offset("slots")
    codes = observation[slots_at : slots_at + n * SLOTS * NUM_CODES]
    played = (codes.reshape(n, SLOTS, NUM_CODES).argmax(axis=2) != CODE_UNKNOWN).any(axis=1)
    left = int(active.sum())
    if left == 1:
        winners = active
    elif left == 0 and shared:
        winners = played
    else:
        contenders = active if left > 1 else played
        winners = contenders & (totals == totals[contenders].min())
    return win_share(winners.tolist(), 0)


def batched_win_chance(venv: Any, door: Any, options: Any) -> Any:
    """:class:`WinChanceReward` for ``vec_env: batched`` (all the games of the batch at
    once): a stable-baselines3 VecEnv around ``venv`` whose learner rewards get ``scale *
    (gamma * after - before)``, the learner's chance to win from the standings (the
    batched engine's totals and who is in, at each of its decisions; its share of the win
    read from its observation of the end, :func:`final_win_share`, when its game ends)."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    from ratenvs.rat_a_tat_cat.batched import C_ACTIVE, F_TOTALS

    engine = door.engine
    game = engine.game
    if game.target_score is None:
        raise ValueError(
            "reward_shaping.win_chance: needs the elimination game (env option target_score)"
        )
    n = engine.num_players
    chances = shared_win_chance(
        n, int(game.target_score), game.eliminate_at, game.elimination_tiebreak
    )
    shared = game.elimination_tiebreak == "shared"
    observer = engine.observer
    scale = float(options.scale)
    gamma = 1.0 if options.gamma is None else float(options.gamma)
    memo: dict[bytes, np.ndarray] = {}

    def now() -> np.ndarray:
        """Each game's learner's chance at its decision now."""
        totals = engine.st[:, F_TOTALS : F_TOTALS + n]
        active = engine.cs[:, C_ACTIVE : C_ACTIVE + n] != 0
        out = np.empty(engine.num_envs)
        for g, seat in enumerate(door.learner.tolist()):
            key = totals[g].tobytes() + active[g].tobytes()
            hit = memo.get(key)
            if hit is None:
                if len(memo) > 1_000_000:
                    memo.clear()
                hit = memo[key] = chances.chance(totals[g], active[g])
            out[g] = hit[seat]
        return out

    class _WinChance(VecEnvWrapper):
        def __init__(self) -> None:
            super().__init__(venv)
            self._before = np.zeros(engine.num_envs)

        def reset(self) -> Any:
            obs = self.venv.reset()
            self._before = now()
            return obs

        def step_wait(self) -> Any:
            obs, rewards, dones, infos = self.venv.step_wait()
            after = now()
            end = after.copy()
            for g in np.flatnonzero(dones).tolist():
                final = np.asarray(infos[g]["terminal_observation"])[: observer.size]
                end[g] = final_win_share(final, observer, n, shared)
            shaped = rewards + np.float32(scale) * (gamma * end - self._before).astype(np.float32)
            self._before = after
            return obs, shaped.astype(np.float32), dones, infos

    return _WinChance()
