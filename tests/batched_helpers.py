"""Proof that a batched engine plays the reference game: replay its chance logs.

:func:`play_logged` drives a batched engine with random legal actions, every game logged,
and keeps every step's arrays; :func:`replay_turn_based` replays each game of the batch,
episode by episode, through the reference :class:`~ratenvs.common.game.Game` with a
:class:`~ratenvs.common.game.ChanceReplay` of the engine's log, and checks observations,
masks, rewards, terminations and the seat to act at every step (and that every logged
draw was used). Import as ``from batched_helpers import ...``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ratenvs.common.batched import RandomActions
from ratenvs.common.game import ChanceReplay


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

    def keep(self, batch: Any) -> None:
        self.observation.append(batch.observation.copy())
        self.mask.append(batch.mask.copy())
        self.rewards.append(batch.rewards.copy())
        self.terminated.append(batch.terminated.copy())
        self.to_act.append(batch.to_act.copy())


def play_logged(
    engine_cls: type,
    num_envs: int,
    steps: int,
    seed: int,
    bots: dict[int, str] | None = None,
    **options: Any,
) -> Trace:
    """``steps`` random legal steps of ``num_envs`` logged games (``bots``: seat -> name of
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
    for _ in range(steps):
        actions = picker.pick(batch.mask).copy()
        trace.actions.append(actions)
        batch = engine.step(actions)
        trace.keep(batch)
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

    def play_bots(state, chance, rewards) -> None:
        while not game.is_terminal(state) and game.to_act(state)[0] in bots:
            seat = game.to_act(state)[0]
            obs = observer.observe(state, seat)
            action = bots[seat].act(obs, game.legal_mask(state, seat), rng)
            got = game.apply(state, {seat: int(action)}, chance)
            if got is not None:
                rewards += got

    for g in games if games is not None else range(engine.num_envs):
        episodes = engine.chance_logs(g)
        episode = 0
        chance = ChanceReplay(episodes[0])
        state = game.init(chance)
        pending = np.zeros(game.num_players)
        play_bots(state, chance, pending)
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
            reported = trace.rewards[t + 1][g]
            if np.abs(reported - rewards).max() > 1e-6:
                raise AssertionError(f"{where}: rewards {reported.tolist()}, want {rewards}")
            over = game.is_terminal(state)
            assert bool(trace.terminated[t + 1][g]) == over, where
            if over:
                assert chance.exhausted, f"{where}: logged draws left unused"
                finished += 1
                episode += 1
                chance = ChanceReplay(episodes[episode])
                state = game.init(chance)
                play_bots(state, chance, pending)
            _check_position(trace, game, observer, state, g, t + 1, episode)
        assert episode == len(episodes) - 1, f"game {g}: more episodes logged than played"
    return finished


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
