"""Proof that a batched engine plays the reference game: replay its chance logs.

:func:`play_logged` drives a batched engine with random legal actions, every game logged,
and keeps every step's arrays; :func:`replay_turn_based` replays each game of the batch,
episode by episode, through the reference :class:`~ratenvs.common.game.Game` with a
:class:`~ratenvs.common.game.ChanceReplay` of the engine's log, and checks observations,
masks, rewards, terminations and the seat to act at every step (and that every logged
draw was used). Import as ``from batched_helpers import ...``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from ratenvs.common.batched import RandomActions
from ratenvs.common.bots import OwnView, with_own_view
from ratenvs.common.game import ChanceReplay
from ratenvs.rat_a_tat_cat.rules import (
    ACTION_DECLINE,
    ACTION_DISCARD,
    ACTION_KNOCK,
    ACTION_PEEK,
    ACTION_SWAP,
    ACTION_TAKE_DISCARD,
    ACTION_USE_DRAW2,
    DECK_SIZE,
    PHASE_NAMES,
)


@dataclass
class Trace:
    """Every step of a logged batch: the arrays after reset (index 0) and after each step."""

    engine: Any
    actions: list[np.ndarray] = field(default_factory=list)
    observation: list[np.ndarray] = field(default_factory=list)
    mask: list[np.ndarray] = field(default_factory=list)
    rewards: list[np.ndarray] = field(default_factory=list)
    terminated: list[np.ndarray] = field(default_factory=list)
    to_act: list[np.ndarray] = field(default_factory=list)
    dropped: list[int] = field(default_factory=lambda: [0])
    """Games the engine dropped (finished by its bots before an external decision), as
    counted by the replay."""
    final_obs: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    """(position, game) -> the engine's ``final_obs[game]`` (every seat's observation of
    the game that ended), for the games that ended in the step to that position."""
    finals_checked: int = 0
    """Final observations the replay compared with the reference."""

    def keep(self, batch: Any) -> None:
        self.observation.append(batch.observation.copy())
        self.mask.append(batch.mask.copy())
        self.rewards.append(batch.rewards.copy())
        self.terminated.append(batch.terminated.copy())
        self.to_act.append(batch.to_act.copy())
        position = len(self.terminated) - 1
        for g in np.flatnonzero(batch.terminated).tolist():
            self.final_obs[position, g] = self.engine.final_obs[g].copy()


def play_logged(
    engine_cls: type,
    num_envs: int,
    steps: int,
    seed: int,
    bots: dict[int, str] | None = None,
    finished: int | None = None,
    **options: Any,
) -> Trace:
    """``steps`` random legal steps of ``num_envs`` logged games (or, with ``finished``, as
    many as it takes for that many games to end, at most ``steps``; ``bots``: seat -> name of
    a kernel bot playing that seat in every game)."""
    engine = engine_cls(num_envs, seed=seed, log_games=range(num_envs), **options)
    if bots:
        table = np.full((num_envs, engine.num_players), engine.EXTERNAL)
        for seat, name in bots.items():
            table[:, seat] = engine.bot_index(name)
        engine.set_bots(table)
    picker = RandomActions(num_envs, seed=seed + 1)
    trace = Trace(engine)
    batch = engine.reset()
    trace.keep(batch)
    ended = 0
    for _ in range(steps):
        actions = picker.pick(batch.mask).copy()
        trace.actions.append(actions)
        batch = engine.step(actions)
        trace.keep(batch)
        ended += int(batch.terminated.sum())
        if finished is not None and ended >= finished:
            break
    return trace


def replay_turn_based(
    trace: Trace, games: range | None = None, bots: dict[int, Any] | None = None
) -> int:
    """Replay every game of a turn-based trace through the reference game; returns the
    number of finished games checked. Any difference fails with the game, episode, step.

    ``bots`` (seat -> reference bot) play the seats the engine's kernel bots played: a
    step's rewards are then summed over the external move and the bots' moves after it,
    and a new game's opening bot moves count in the next step (as the engine reports).
    """
    engine = trace.engine
    game = engine.game
    observer = game.observer(game.observation_kind)
    bots = bots or {}
    rng = np.random.default_rng(0)
    finished = 0
    dropped = trace.dropped

    def play_bots(state, chance, rewards) -> None:
        while not game.is_terminal(state) and game.to_act(state)[0] in bots:
            seat = game.to_act(state)[0]
            obs = observer.observe(state, seat)
            action = bots[seat].act(obs, game.legal_mask(state, seat), rng)
            got = game.apply(state, {seat: int(action)}, chance)
            if got is not None:
                rewards += got

    def _drop_finished(game, state, chance, episodes, episode, pending):
        """A new game the bots finished before an external decision: the engine dropped
        it with its rewards and dealt the next (logged as an episode of its own)."""
        while game.is_terminal(state):
            assert chance.exhausted, f"episode {episode}: logged draws left unused"
            dropped[0] += 1
            episode += 1
            pending[:] = 0.0
            chance = ChanceReplay(episodes[episode])
            state = game.init(chance)
            play_bots(state, chance, pending)
        return state, chance, episode

    for g in games if games is not None else range(engine.num_envs):
        episodes = engine.chance_logs(g)
        episode = 0
        chance = ChanceReplay(episodes[0])
        state = game.init(chance)
        pending = np.zeros(game.num_players)
        play_bots(state, chance, pending)
        state, chance, episode = _drop_finished(game, state, chance, episodes, episode, pending)
        _check_position(trace, game, observer, state, g, 0, episode)
        pending[:] = 0.0  # reset reports the opening moves' rewards itself
        for t, actions in enumerate(trace.actions):
            where = f"game {g}, episode {episode}, step {t}"
            seat = game.to_act(state)[0]
            rewards, pending = pending, np.zeros(game.num_players)
            got = game.apply(state, {seat: int(actions[g])}, chance)
            if got is not None:
                rewards += got
            play_bots(state, chance, rewards)
            over = _check_step(trace, game, state, chance, t, g, rewards, where)
            if over:
                externals = [s for s in range(game.num_players) if s not in bots]
                _check_final(trace, observer, state, t, g, externals, where)
                finished += 1
                episode += 1
                chance = ChanceReplay(episodes[episode])
                state = game.init(chance)
                play_bots(state, chance, pending)
                state, chance, episode = _drop_finished(
                    game, state, chance, episodes, episode, pending
                )
            _check_position(trace, game, observer, state, g, t + 1, episode)
        assert episode == len(episodes) - 1, f"game {g}: more episodes logged than played"
    return finished


def _check_step(trace, game, state, chance, t, g, rewards, where) -> bool:
    """The rewards and termination a step reported for game ``g``; True if it ended (then
    every logged draw of the episode must have been used)."""
    reported = trace.rewards[t + 1][g]
    if np.abs(reported - rewards).max() > 1e-6:
        raise AssertionError(f"{where}: rewards {reported.tolist()}, want {rewards}")
    over = game.is_terminal(state)
    assert bool(trace.terminated[t + 1][g]) == over, where
    if over:
        assert chance.exhausted, f"{where}: logged draws left unused"
    return over


def _check_final(trace, observer, state, t, g, seats, where, compare=None) -> None:
    """The engine's ``final_obs`` of game ``g``, which ended in step ``t``: every external
    seat's observation of the end, as the reference observer's (the single-agent door's
    terminal observation); ``compare(got, want, what)`` checks one (default: exactly)."""
    final = trace.final_obs[t + 1, g]
    for s in seats:
        got, want = final[s], observer.observe(state, s)
        what = f"{where}: seat {s} final_obs"
        if compare is not None:
            if got.tobytes() != want.tobytes():
                compare(got, want, what)
        elif not np.array_equal(got, want):
            np.testing.assert_array_equal(got, want, err_msg=what)
    trace.finals_checked += len(seats)


def _check_position(trace, game, observer, state, g, t, episode) -> None:
    where = f"game {g}, episode {episode}, after step {t}"
    seat = game.to_act(state)[0]
    assert int(trace.to_act[t][g]) == seat, where
    got, want = trace.observation[t][g], observer.observe(state, seat)
    if not np.array_equal(got, want):
        np.testing.assert_array_equal(got, want, err_msg=f"{where}: observation")
    got, want = trace.mask[t][g], game.legal_mask(state, seat)
    if not np.array_equal(got, want):
        np.testing.assert_array_equal(got, want, err_msg=f"{where}: mask")


# ------------------------------------------------- simultaneous games (Ratto Zakko's ticks)


@dataclass
class SimultaneousTrace(Trace):
    """A :class:`Trace` of a simultaneous engine (every array has a seat axis after the game
    axis; ``to_act`` is a bool per seat); ``states`` keeps ``state_observation()`` after
    every step when asked, and ``correct`` its ``correct_responses()``."""

    states: list[np.ndarray] = field(default_factory=list)
    correct: list[np.ndarray] = field(default_factory=list)


def play_logged_simultaneous(
    engine_cls: type,
    num_envs: int,
    steps: int,
    seed: int,
    bots: dict[int, str] | None = None,
    wait: float = 0.0,
    keep_states: bool = False,
    finished: int | None = None,
    seat_at: int = 0,
    **options: Any,
) -> SimultaneousTrace:
    """``steps`` ticks (or, with ``finished``, as many as it takes for that many games to
    end, at most ``steps``) of ``num_envs`` logged games with a uniformly random legal action
    for every seat (a seat that may only wait waits); ``wait``: the share of the answering
    seats' actions replaced by "wait" (longer cards); ``bots``: seat -> kernel bot name,
    seated before the reset, or with ``seat_at`` > 0 by ``set_bots`` after that many ticks
    (the trace's position then is the one after ``set_bots``, which may play bot ticks)."""
    engine = engine_cls(num_envs, seed=seed, log_games=range(num_envs), **options)
    p, a = engine.num_players, engine.num_actions
    table = np.full((num_envs, p), engine.EXTERNAL)
    for seat, name in (bots or {}).items():
        table[:, seat] = engine.bot_index(name)
    if bots and not seat_at:
        engine.set_bots(table)
    picker = RandomActions(num_envs * p, seed=seed + 1)
    waits = np.random.default_rng(seed + 2)
    trace = SimultaneousTrace(engine)
    batch = engine.reset()
    trace.keep(batch)
    if keep_states:
        trace.states.append(engine.state_observation())
        trace.correct.append(engine.correct_responses().copy())
    ended = 0
    for step in range(steps):
        if bots and seat_at and step == seat_at:
            engine.set_bots(table)
            assert not engine.terminated.any(), "a game ended in set_bots' bot ticks"
            for kept in (trace.observation, trace.mask, trace.to_act):
                kept.pop()
            trace.observation.append(engine.obs.copy())
            trace.mask.append(engine.mask.copy())
            trace.to_act.append(engine.to_act.copy())
            batch = batch._replace(observation=engine.obs, mask=engine.mask, to_act=engine.to_act)
            if keep_states:
                trace.states[-1] = engine.state_observation()
                trace.correct[-1] = engine.correct_responses().copy()
        actions = picker.pick(batch.mask.reshape(-1, a)).reshape(num_envs, p).copy()
        if wait:
            actions[(waits.random((num_envs, p)) < wait) & (batch.mask[..., 0] == 1)] = 0
        trace.actions.append(actions)
        batch = engine.step(actions)
        trace.keep(batch)
        if keep_states:
            trace.states.append(engine.state_observation())
            trace.correct.append(engine.correct_responses().copy())
        ended += int(batch.terminated.sum())
        if finished is not None and ended >= finished:
            break
    return trace


class BotDrawReplay:
    """The generator a reference bot is given in a replay: it plays back the draws the
    kernel's bot made (``engine.bot_logs``), checking each call's kind, and the logged
    decisions (:meth:`action`)."""

    def __init__(self, records: list[list[Any]]) -> None:
        self.records = records
        self.position = 0

    def _next(self, kind: str) -> list[Any]:
        if self.position >= len(self.records):
            raise AssertionError(f"the bot log ran out at record {self.position} ({kind})")
        record = self.records[self.position]
        if record[0] != kind:
            raise AssertionError(f"bot record {self.position}: asked for {kind}, got {record}")
        self.position += 1
        return record

    @property
    def exhausted(self) -> bool:
        return self.position == len(self.records)

    def standard_normal(self) -> float:
        return self._next("normal")[1]

    def exponential(self, scale: float) -> float:
        return scale * self._next("exponential")[1]

    def random(self) -> float:
        return self._next("random")[1]

    def integers(self, high: int) -> int:
        record = self._next("integers")
        if record[1] != high:
            raise AssertionError(f"the kernel bot drew below {record[1]}, the reference {high}")
        return record[2]

    def action(self, seat: int) -> int:
        record = self._next("action")
        if record[1] != seat:
            raise AssertionError(f"bot record {self.position - 1} is seat {record[1]}, not {seat}")
        return record[2]


CONTINUOUS_PIECES = ("identity", "colour", "answer_beliefs", "posteriors")
"""Observation pieces computed with ``exp`` (the kernel's C library, the reference's numpy):
compared within :data:`TOLERANCE`, every other entry exactly."""
TOLERANCE = 1e-6


def replay_simultaneous(
    trace: SimultaneousTrace,
    games: range | None = None,
    bots: dict[int, Any] | None = None,
    seated_at: int = 0,
) -> Counter:
    """Replay every game of a simultaneous trace through the reference game (a
    ``ChanceReplay`` of each episode's chance log), tick by tick, and check every seat's
    observation, mask and turn, the rewards and terminations (and the privileged view where
    the trace kept it) after every step. ``bots`` (seat -> a callable making the reference
    bot) play the seats the kernel's bots played, fed the kernel bots' logged draws
    (:class:`BotDrawReplay`); each of their decisions must equal the kernel's. With
    ``seated_at`` > 0 (the trace's ``seat_at``) the bots are made, fresh, before that step,
    and first play the bot ticks ``set_bots`` played.

    Returns counters of what happened (``finished`` games, resolved ``cards``, ``jackpot``
    cards, ``relocations``, answers given by kind, ...) and ``inexact``: how many continuous
    entries matched within :data:`TOLERANCE` but not bit for bit; ``bot_decisions_fly_unseen``
    counts the bots' decisions at a table where the fly is not where their seat's
    observations last showed it (the start cloche if never).
    """
    from ratenvs.ratto_zakko.rules import FOODS, START_FLY_UNDER

    engine = trace.engine
    game = engine.game
    p = game.num_players
    observer = game.observer(game.observation_kind)
    truth = game.observer("privileged")
    shown_at = observer.slices["fly_shown"].start
    fly_at = observer.slices["fly_under"]
    checker = _TickChecker(trace, game, observer, truth)
    stats = checker.stats

    def seat_bots() -> tuple[dict[int, Any], dict[int, int]]:
        # seated as the library seats them: a bot with its own view options (the ideal
        # bot's public record) sees the table through them
        made = {s: with_own_view(make(), game) for s, make in (bots or {}).items()}
        for bot in made.values():
            if hasattr(bot, "bind") and not isinstance(bot, OwnView):
                bot.bind(observer)
        return made, dict.fromkeys(made, FOODS.index(START_FLY_UNDER))

    def play_tick(state, chance, row, players, seen_fly, draws, where) -> Any:
        chosen = {}
        for s in game.to_act(state):
            if s in players:
                seen = observer.observe(state, s)
                if seen[shown_at] > 0.5:
                    seen_fly[s] = int(seen[fly_at].argmax())
                mask = game.legal_mask(state, s)
                bot = players[s]
                if isinstance(bot, OwnView):
                    a = bot.act_in_state(state, s, mask, draws)
                else:
                    a = int(bot.act(seen, mask, draws))
                logged = draws.action(s)
                assert a == logged, f"{where}: seat {s} bot plays {a}, the kernel {logged}"
                stats["bot_decisions"] += 1
                stats["bot_decisions_fly_unseen"] += seen_fly[s] != state.fly_under
                if a:
                    stats[f"bot_actions:{s}"] += 1
            else:
                a = int(row[s])
            chosen[s] = a
        last = state.last_result
        got = game.apply(state, chosen, chance)
        stats["ticks"] += 1
        if state.last_result is not last:
            checker.count_card(state.last_result)
        return got

    for g in games if games is not None else range(engine.num_envs):
        players, seen_fly = seat_bots() if not seated_at else ({}, {})
        episodes = engine.chance_logs(g)
        bot_episodes = engine.bot_logs(g)
        episode = 0
        chance = ChanceReplay(episodes[0])
        draws = BotDrawReplay(bot_episodes[0])
        state = game.init(chance)
        checker.check(state, g, 0, f"game {g}, episode 0, after reset")
        for t, actions in enumerate(trace.actions):
            where = f"game {g}, episode {episode}, step {t}"
            if seated_at and t == seated_at:
                # set_bots: fresh bots, who play on until an external seat acts
                players, seen_fly = seat_bots()
                while all(s in players for s in game.to_act(state)):
                    assert not game.is_terminal(state), f"{where}: the bots ended the game"
                    play_tick(state, chance, None, players, seen_fly, draws, where)
                checker.check(state, g, t, f"game {g}, episode {episode}, after set_bots")
            row = actions[g]
            rewards = np.zeros(p)
            while True:
                got = play_tick(state, chance, row, players, seen_fly, draws, where)
                if got is not None:
                    rewards += got
                if game.is_terminal(state) or not players:
                    break
                if any(s not in players for s in game.to_act(state)):
                    break
            over = _check_step(trace, game, state, chance, t, g, rewards, where)
            if over:
                externals = [s for s in range(p) if s not in players]
                _check_final(trace, observer, state, t, g, externals, where, checker.compare)
                stats["final_obs"] += len(externals)
                assert draws.exhausted, f"{where}: logged bot draws left unused"
                stats["finished"] += 1
                episode += 1
                chance = ChanceReplay(episodes[episode])
                draws = BotDrawReplay(bot_episodes[episode])
                state = game.init(chance)
            if t + 1 != seated_at:  # (checked after set_bots played)
                checker.check(state, g, t + 1, f"game {g}, episode {episode}, after step {t}")
        assert episode == len(episodes) - 1, f"game {g}: more episodes logged than played"
    return stats


class _TickChecker:
    """Compares one position of the trace with the reference (every seat)."""

    def __init__(self, trace: SimultaneousTrace, game: Any, observer: Any, truth: Any) -> None:
        from ratenvs.ratto_zakko.rules import RESPONSES

        self.trace, self.game, self.observer, self.truth = trace, game, observer, truth
        self.close = _continuous_mask(observer)
        self.close_truth = _continuous_mask(truth)
        self.kinds = [r.split(":")[0] for r in RESPONSES]
        self.stats: Counter = Counter()

    def check(self, state: Any, g: int, t: int, where: str) -> None:
        game, trace, observe = self.game, self.trace, self.observer.observe
        acting = game.to_act(state)
        observation, mask, to_act = trace.observation[t][g], trace.mask[t][g], trace.to_act[t][g]
        for s in range(game.num_players):
            want = observe(state, s)
            if observation[s].tobytes() != want.tobytes():
                self.compare(observation[s], want, f"{where}: seat {s} observation")
            mine = s in acting
            want = game.legal_mask(state, s) if mine else game.waiting_mask(state, s)
            if mask[s].tobytes() != want.tobytes():
                np.testing.assert_array_equal(mask[s], want, err_msg=f"{where}: seat {s} mask")
            assert bool(to_act[s]) == mine, f"{where}: seat {s} to_act"
        if trace.states:
            want = self.truth.observe(state, None)
            if trace.states[t][g].tobytes() != want.tobytes():
                self._compare(trace.states[t][g], want, self.close_truth, f"{where}: state")
            from ratenvs.ratto_zakko.rules import PHASE_REACT

            reacting = state.phase == PHASE_REACT
            want_correct = game.correct(state) if reacting else -1
            assert trace.correct[t][g] == want_correct, f"{where}: correct response"
            self.stats["correct_responses"] += reacting
        self.stats["positions"] += 1

    def compare(self, got: np.ndarray, want: np.ndarray, what: str) -> None:
        """A seat's observation: the continuous pieces within :data:`TOLERANCE`."""
        self._compare(got, want, self.close, what)

    def _compare(self, got: np.ndarray, want: np.ndarray, close: np.ndarray, what: str) -> None:
        differ = got != want
        if (differ & ~close).any():
            np.testing.assert_array_equal(got, want, err_msg=what)
        np.testing.assert_allclose(got, want, rtol=0, atol=TOLERANCE, err_msg=what)
        self.stats["inexact"] += int(differ.sum())

    def count_card(self, result: Any) -> None:
        """Count what a resolved card shows (for the non-vacuity checks)."""
        stats, kinds = self.stats, self.kinds
        stats["cards"] += 1
        stats["correct:" + kinds[result.correct]] += 1
        if result.winner is None:
            stats["jackpot"] += 1
            if result.tied:
                stats["tie"] += 1
        else:
            stats["won_by:" + kinds[result.correct]] += 1
            if result.cards_won > 1:
                stats["jackpot_taken"] += 1
        if result.event:
            stats["relocations"] += 1
        stats["returned"] += len(result.returned_by)
        if result.tick > 0:
            stats["late_cards"] += 1
        if result.tick == self.game.window_ticks - 1:
            stats["window_ends"] += 1
        for response, _tick in result.answers.values():
            stats["answer:" + kinds[response]] += 1


def _continuous_mask(observer: Any) -> np.ndarray:
    out = np.zeros(observer.size, dtype=bool)
    for name in CONTINUOUS_PIECES:
        if name in observer.slices:
            out[observer.slices[name]] = True
    return out


# ------------------------------------------------------------ proofs sized by coverage
FLOOR = 50
"""How many times every event a replay proof counts must have happened, each in some random
game: enough to take its code paths from many positions. The proof plays as many games as
that takes (a rarer event costs more games), not a fixed number."""
CHUNK_GAMES = 25
CHUNK_FINISHED = 50
"""A chunk of the replay proof: a fresh logged batch of :data:`CHUNK_GAMES` games played
until :data:`CHUNK_FINISHED` of them have ended (every game slot plays about two games in a
row: a batch stopped at a fixed step would finish only its short games), then replayed,
the unfinished last games too."""
MAX_CHUNKS = 60
"""The cap: a proof whose floors are not all reached in this many chunks fails (in the
random-play proofs 3000 finished games, about three times what the costliest option set
needs: Rat-a-Tat Cat for two, 19 chunks to its 50th Draw 2)."""

Floors = Mapping[str, int] | Callable[[Mapping[str, int]], Mapping[str, int]]


def replay_until_floors(
    play: Callable[[int], Any],
    replay: Callable[[Any], Mapping[str, int]],
    floors: Floors,
    max_chunks: int = MAX_CHUNKS,
) -> Counter:
    """The replay proof sized by its coverage: chunk after chunk (``play(k)``: the trace of
    chunk ``k``, a fresh batch with a seed of its own; ``replay(trace)``: replays it through
    the reference game, failing at any difference, and returns its counters), until every
    counter of ``floors`` (or of ``floors(counters)``) has reached its floor; failing, with
    the counters short of their floors, after ``max_chunks``. Returns the counters summed
    over the chunks (``chunks``: how many were played)."""
    total: Counter = Counter()
    short: dict[str, int] = {}
    for k in range(max_chunks):
        total.update(replay(play(k)))
        total["chunks"] = k + 1
        want = floors(total) if callable(floors) else floors
        short = {key: total[key] for key, floor in want.items() if total[key] < floor}
        if not short:
            return total
    pytest.fail(f"floors not reached in {max_chunks} chunks: {short} ({dict(total)})")


def assert_same_games(small: Any, large: Any, games: int) -> None:
    """Games ``0 .. games - 1`` of two traces are the same games: every step's actions,
    observations, masks, rewards, terminations and seats to act, the final observations of
    the games that ended, and every chance outcome they drew (``chance_logs``)."""
    assert len(small.actions) == len(large.actions)
    for name in ("actions", "observation", "mask", "rewards", "terminated", "to_act"):
        for t, (a, b) in enumerate(zip(getattr(small, name), getattr(large, name), strict=True)):
            np.testing.assert_array_equal(a[:games], b[:games], err_msg=f"{name} at {t}")
    ends = {key for key in large.final_obs if key[1] < games}
    assert set(small.final_obs) == ends
    for key in ends:
        np.testing.assert_array_equal(small.final_obs[key], large.final_obs[key], err_msg=key)
    for g in range(games):
        assert small.engine.chance_logs(g) == large.engine.chance_logs(g), g


SAME_GAMES_STEPS = 150
"""Steps (ticks) of the batch-size comparisons: every compared game ends and starts anew in
them (the first ends come at about 60 to 75)."""


# ------------------------------------------------------------ Rat-a-Tat Cat's counters
class Events:
    """What happened in a trace, counted from its actions, observations and chance logs."""

    def __init__(self, trace: Trace) -> None:
        engine = trace.engine
        views = engine.observer.views
        acts = np.array(trace.actions)  # (steps, games)
        obs = views(np.array(trace.observation))  # pieces of (steps + 1, games, ...)
        done = np.array(trace.terminated)
        self.finished = int(done.sum())
        self.knocks = int((acts == ACTION_KNOCK).sum())
        self.peeks = int(((acts >= ACTION_PEEK) & (acts < ACTION_PEEK + 4)).sum())
        self.swaps = int((acts >= ACTION_SWAP).sum())
        self.draw2 = int((acts == ACTION_USE_DRAW2).sum())
        chain = obs["draw2_left"][:-1] > 0.5  # deciding on the first card of a Draw 2 chain
        self.chain_second_draws = int(
            (chain & ((acts == ACTION_DISCARD) | (acts == ACTION_DECLINE))).sum()
        )
        phase = np.argmax(obs["phase"], axis=-1)
        self.chain_restarts = int((chain[:, :] & (phase[:-1] == PHASE_NAMES.index("draw2"))).sum())
        self.take = int((acts == ACTION_TAKE_DISCARD).sum())
        # a seat out of the game in a game still going on
        live = obs["active"].sum(axis=-1)
        self.eliminations = int(np.maximum(live[:-1] - live[1:], 0)[~done[1:]].sum())
        # a round that ended with its last turn at the cap: the turn counter falls back (a new
        # deal) or the game ends, right after a decision at max_turns - 1 turns played
        cap = engine.game.max_turns_per_round
        turns = obs["turns_played"]
        ended = (turns[1:] < turns[:-1]) | done[1:]
        capped = ended & (turns[:-1] == np.float32((cap - 1) / cap))
        self.capped_rounds = int(capped.sum())
        self.capped_unknocked = int((capped & (obs["knocked_by"][:-1].sum(axis=-1) == 0)).sum())
        # a round whose knock was honoured past the cap: it ended after a decision with
        # max_turns or more turns played (``turns_played`` stays at 1 there)
        self.past_the_cap = int((ended & (turns[:-1] == np.float32(1.0))).sum())
        self.reshuffles = 0
        self.deals = 0
        for g in range(engine.num_envs):
            for episode in engine.chance_logs(g):
                for kind, value in episode:
                    if kind == "permutation":
                        if len(value) == DECK_SIZE:
                            self.deals += 1
                        else:
                            self.reshuffles += 1
