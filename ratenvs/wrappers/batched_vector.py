"""The vector doors of the batched engines: one learner seat per game of a batch.

:class:`BatchedVectorEnv` is a ``gymnasium.vector.VectorEnv`` over a game's batched
engine (``ratenvs/<game>/batched.py``): every game of the batch has one learner seat;
the other seats are played by the engine's compiled bots, or by frozen policies
(self-play snapshots) evaluated on all the games that wait for them at once. It is
the gymnasium id's vector entry point::

    envs = gymnasium.make_vec("ratenvs/CatzRatzBatz-v0", num_envs=1024,
                              vectorization_mode="vector_entry_point")

Games end and restart inside the step, gymnasium's same-step autoreset
(``AutoresetMode.SAME_STEP``, the default: the observation of a game that ended is already
the next game's first decision), or, with ``autoreset_mode="next_step"``, gymnasium's
default next-step autoreset (``AutoresetMode.NEXT_STEP``: a game that ended shows its last
observation; the step after, its action is ignored and it shows the next game's first
decision, with reward 0; meanwhile ``action_masks()`` and ``state_features()`` are already
the next game's). The games never truncate. In Ratto Zakko (simultaneous ticks) a
step is the learner's answer at a tick where it answers; the policies answer in the same
tick, and the ticks in which the learner does not answer are played on inside the step.

``info`` (every key with its gymnasium mask ``_key``, True where the entry holds):

- ``learner_seat``: (num_envs,) int64, the learner's seat in every game now (of the next
  game where one ended).
- (same-step) only in a step where some game ended, as gymnasium's ``SyncVectorEnv``
  gives them:
  ``final_obs``, an object array holding, for every game that ended, the learner's
  observation of its end (float32, the array ``gymnasium.make`` returns when that game
  terminates) and None elsewhere; ``final_info``, the ended games' info: a dict of
  ``learner_seat`` (the learner's seat in the game that ended) and ``return`` (the
  learner's return of that game, float32), each with its mask.
- (next-step) in the step a game ends, ``learner_seat`` is its seat in the game that
  ended, and ``return`` (with ``_return``) the learner's return of that game.

``action_masks()`` gives the learner's legal actions of every game, for sb3-contrib's
``MaskablePPO``; :func:`sb3_vec_env` gives the same door as a stable-baselines3
``VecEnv``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv

from ratenvs.common.options import check_seed
from ratenvs.games import get_game

LEARNER = -1
"""Engine seat code of the learner (``BatchedGame.EXTERNAL``)."""
_POLICY0 = -2
"""Engine seat code of frozen policy k: ``-2 - k``."""


class Opponents:
    """Who plays the opponent seats of every game: the engine's bots and frozen policies.

    Subclasses give :meth:`draw` (each game's opponents for its next game) and, if they
    use policies, :meth:`act`. Codes: ``>= 0`` an engine bot (an index of the engine's
    ``bot_names``), ``<= -2`` frozen policy ``-2 - code``.
    """

    def draw(
        self, rng: np.random.Generator, games: int, slots: int, bot_index: Callable[[str], int]
    ) -> np.ndarray:  # pragma: no cover - abstract
        """(games, slots) codes: the players of the ``slots`` seats after the learner's."""
        raise NotImplementedError

    def act(
        self, policy: int, observations: np.ndarray, masks: np.ndarray
    ) -> np.ndarray:  # pragma: no cover - abstract
        """The actions of frozen policy ``policy`` for a batch of its decisions."""
        raise NotImplementedError(f"no policy {policy}")


class BotOpponents(Opponents):
    """Engine bots by name: one name for every opponent seat, or one per seat after the
    learner's."""

    def __init__(self, names: str | Sequence[str]) -> None:
        self.names = names

    def draw(
        self, rng: np.random.Generator, games: int, slots: int, bot_index: Callable[[str], int]
    ) -> np.ndarray:
        one = isinstance(self.names, str)
        codes = [bot_index(n) for n in ([self.names] if one else self.names)]  # every name,
        # also with no seat to fill (a one-player game), as the gymnasium door checks them
        if not one and len(codes) != slots:
            raise ValueError(f"option 'opponents' needs {slots} entries, got {len(codes)}")
        row = np.array(codes * slots if one else codes, dtype=np.int64)
        return np.tile(row, (games, 1))


class BatchedVectorEnv(VectorEnv):
    """One learner seat in each of ``num_envs`` games of a batched engine.

    Args:
        game: game name (``"catz_ratz_batz"``, ``"rat-a-tat-cat"``...).
        num_envs: games in the batch.
        opponents: ``None`` (the game's default bot), a bot name for every opponent seat,
            a list of names (one per seat after the learner's), or an :class:`Opponents`
            (self-play pools: bots and frozen policies, drawn anew for every game).
        learner_seat: the learner's seat, or ``"random"`` (drawn for every game).
        seed: seeds the engine's games and the draws of seats and opponents.
        autoreset_mode: ``"same_step"`` (the default) or ``"next_step"`` (or gymnasium's
            ``AutoresetMode`` of either), how a game that ended restarts (see the module).
        **env_options: the game's options (as the AEC env's).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(
        self,
        game: str,
        num_envs: int,
        *,
        opponents: str | Sequence[str] | Opponents | None = None,
        learner_seat: int | str = 0,
        seed: int | None = None,
        autoreset_mode: str | AutoresetMode = AutoresetMode.SAME_STEP,
        **env_options: Any,
    ) -> None:
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.spec_game = get_game(game)
        seed = check_seed(seed)
        if not self.spec_game.has_batched:
            raise ValueError(f"{self.spec_game.name} has no batched engine")
        engine_cls = self.spec_game.batched()
        self.simultaneous = bool(engine_cls.simultaneous)
        self.engine = engine_cls(num_envs, seed=seed, **env_options)
        n = self.engine.num_players
        if learner_seat != "random" and (
            isinstance(learner_seat, bool)
            or not isinstance(learner_seat, int | np.integer)
            or not 0 <= learner_seat < n
        ):
            raise ValueError(f"option 'learner_seat' must be 0..{n - 1} or 'random'")
        self.learner_seat = learner_seat
        if opponents is None:
            opponents = self.spec_game.default_opponent
        if not isinstance(opponents, Opponents | str) and not (
            isinstance(opponents, Sequence) and all(isinstance(x, str) for x in opponents)
        ):
            raise ValueError(
                "option 'opponents' of the batched door takes the engine's bot names (one for "
                f"every seat, or a list of them: {list(self.engine.bot_names)}) or an "
                f"Opponents pool (frozen policies); got {opponents!r} (a bot object or a "
                "shipped agent plays at the gymnasium.make door)"
            )
        self.opponents = opponents if isinstance(opponents, Opponents) else BotOpponents(opponents)
        self.num_envs = self.engine.num_envs
        self.num_players = n
        size = self.engine.observation_size
        observer = self.engine.observer
        self.single_observation_space = gym.spaces.Box(
            observer.low, observer.high, shape=(size,), dtype=np.float32
        )
        self.single_action_space = gym.spaces.Discrete(self.engine.num_actions)
        self.observation_space = gym.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        self._carry = np.zeros(self.num_envs, dtype=np.float32)
        self._started = False
        self._failed: str | None = None  # why the games are in no known state (a failed call)
        self.learner = np.zeros(self.num_envs, dtype=np.int64)
        # the games that ended in a step: the learner's seat, return and last observation
        self._final_obs = np.zeros((self.num_envs, size), dtype=np.float32)
        self._final_seat = np.zeros(self.num_envs, dtype=np.int64)
        self._final_return = np.zeros(self.num_envs, dtype=np.float32)
        # next-step autoreset: the games that showed their end and restart at the next step
        self._pending = np.zeros(self.num_envs, dtype=np.bool_)
        # a draw to fail early on bad opponents (the engine's checks too: set again at reset)
        self.engine.set_next_bots(np.tile(self._lineups(1), (self.num_envs, 1)))

    # ------------------------------------------------------------ lineups
    def _lineups(self, games: int) -> np.ndarray:
        """(games, num_players) engine seat codes for ``games`` new games."""
        n = self.num_players
        codes = np.asarray(
            self.opponents.draw(self._rng, games, n - 1, self.engine.bot_index), dtype=np.int64
        )
        if codes.shape != (games, n - 1):
            raise ValueError(f"opponents drew shape {codes.shape}, not {(games, n - 1)}")
        bad = (codes == LEARNER) | (codes >= len(self.engine.bot_names))
        if bad.any():
            raise ValueError(
                f"opponents drew seat code {int(codes[bad][0])}: a code is an engine bot "
                f"(0..{len(self.engine.bot_names) - 1}) or a frozen policy (-2 - k), never "
                f"the learner's ({LEARNER})"
            )
        if self.learner_seat == "random":
            seats = self._rng.integers(n, size=games)
        else:
            seats = np.full(games, int(self.learner_seat))
        rows = np.empty((games, n), dtype=np.int64)
        idx = np.arange(games)
        rows[idx, seats] = LEARNER
        for k in range(n - 1):
            rows[idx, (seats + 1 + k) % n] = codes[:, k]
        return rows

    # ------------------------------------------------------------ the API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start every game anew; ``seed`` (None or one integer >= 0) seeds the whole batch
        (and ``np_random``, as gymnasium's vector envs do). ``options`` is accepted and
        ignored (the games' options are given when it is made), but for gymnasium's
        ``reset_mask`` (a partial reset), refused: every game restarts here."""
        self._check_open("reset()")
        seed = check_seed(seed, "seed (one integer for the whole batch)")
        if options and "reset_mask" in options:
            raise ValueError(
                "options['reset_mask']: this door resets every game (a game that ends "
                "restarts by itself, in its step or, with autoreset_mode='next_step', the next)"
            )
        if seed is not None:
            super().reset(seed=seed)  # np_random and np_random_seed, as gymnasium's
            self._rng = np.random.default_rng(seed)
        engine = self.engine
        self._started = False
        self._pending[:] = False
        with self._unknown_on_failure("reset()"):
            engine.set_next_bots(self._lineups(self.num_envs))
            engine.reset(seed=int(self._rng.integers(2**63)) if seed is not None else None)
            engine.set_next_bots(self._lineups(self.num_envs))
            self._carry[:] = 0.0
            rewards = np.zeros(self.num_envs, dtype=np.float32)
            done = np.zeros(self.num_envs, dtype=np.bool_)
            # every game is new: its rewards before the learner's first decision count next step
            self._play_policies(rewards, done, np.ones(self.num_envs, dtype=np.bool_))
        self._started, self._failed = True, None
        return self._learner_view(engine.obs), self._info()

    @contextlib.contextmanager
    def _unknown_on_failure(self, call: str) -> Iterator[None]:
        """A failure inside (a policy's error, an engine's refusal after the learner moved)
        leaves the games half-played: the door then needs ``reset()`` before anything else
        (else the next step would play the learner's actions in another seat)."""
        try:
            yield
        except BaseException as exc:
            self._started = False
            self._failed = f"{call} failed ({type(exc).__name__}: {exc})"
            raise

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play the learner's action ``actions[g]`` in every game ``g`` (integers; anything
        else, or an illegal action, is a ValueError and nothing moves). With next-step
        autoreset, the action of a game that showed its end in the last step is ignored:
        that game restarts instead."""
        self._check_ready("step()")
        engine = self.engine
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,) or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(
                f"actions must be {self.num_envs} integers, one per game; "
                f"got {acts.dtype} of shape {acts.shape}"
            )
        restart = self._pending  # (replaced, never changed in place, by a step)
        restarting = bool(restart.any())
        moving = ~restart
        if self.simultaneous:  # the learner's answer and the policies' of the same tick
            self._check_learner_actions(acts, moving)
            full = self._policy_actions(moving)
            full[np.arange(self.num_envs), self.learner] = acts
            acts = full
        # refuses illegal actions before anything moves
        batch = engine.step(acts, active=moving) if restarting else engine.step(acts)
        with self._unknown_on_failure("step()"):
            games = np.arange(self.num_envs)
            if restarting:  # a restarting game's reward is 0; its carry counts next step
                rewards = np.where(restart, 0.0, self._carry).astype(np.float32)
                self._carry[moving] = 0.0
                rewards += np.where(moving, batch.rewards[games, self.learner], 0.0)
                done = batch.terminated & moving
            else:
                rewards = self._carry.copy()
                self._carry[:] = 0.0
                rewards += batch.rewards[games, self.learner]
                done = batch.terminated.copy()
            self._keep_final(done, self.learner)
            self._after_resets(done)
            self._play_policies(rewards, done, done.copy())
        truncated = np.zeros(self.num_envs, dtype=np.bool_)
        info = self._info()
        obs = self._learner_view(engine.obs)
        if done.any():
            if self.next_step:  # the end is shown now; the next game at the next step
                obs[done] = self._final_obs[done]
                info["learner_seat"][done] = self._final_seat[done]
                returns = np.where(done, self._final_return, 0.0).astype(np.float32)
                info["return"], info["_return"] = returns, done.copy()
            else:
                self._add_final_info(info, done)
        if self.next_step:
            self._pending = done.copy()
        return obs, rewards, done, truncated, info

    @property
    def next_step(self) -> bool:
        """Next-step autoreset (else same-step)."""
        return self.autoreset_mode is AutoresetMode.NEXT_STEP

    def _check_open(self, call: str) -> None:
        """A RuntimeError saying what to do when the env was closed."""
        if self.closed:
            raise RuntimeError(f"{call} after close(): this env is closed; make a new one")

    def _check_ready(self, call: str) -> None:
        """A RuntimeError saying what to do before the first reset or after close."""
        self._check_open(call)
        if self._failed is not None:
            raise RuntimeError(
                f"{call} after {self._failed}: the games are half-played; call reset()"
            )
        if not self._started:
            raise RuntimeError(f"{call} before reset(): call reset() first")

    def _check_learner_actions(self, acts: np.ndarray, moving: np.ndarray) -> None:
        """A ValueError naming the first game of ``moving`` whose learner's action its mask
        forbids (before the policies are asked, so a refused step costs nothing)."""
        mask = self._learner_view(self.engine.mask).astype(bool)
        n = mask.shape[1]
        if not moving.all():  # a restarting game's action is ignored: any legal one stands in
            acts = acts.copy()
            acts[~moving] = np.argmax(mask[~moving], axis=1)
        bad = (acts < 0) | (acts >= n)
        bad[~bad] = ~mask[np.flatnonzero(~bad), acts[~bad].astype(np.int64)]
        if bad.any():
            g = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"illegal action {acts[g]} in game {g} for the learner (seat "
                f"{int(self.learner[g])}); legal: {np.flatnonzero(mask[g]).tolist()}"
            )

    def _learner_view(self, per_seat: np.ndarray) -> np.ndarray:
        """The learner's rows of an engine array (a copy)."""
        if not self.simultaneous:
            return per_seat.copy()
        return per_seat[np.arange(self.num_envs), self.learner]

    def _waiting(self) -> np.ndarray:
        """Games whose learner does not act now while a frozen policy does."""
        engine = self.engine
        games = np.arange(self.num_envs)
        if not self.simultaneous:
            return engine.bots[games, engine.to_act] <= _POLICY0
        policy_acts = (engine.to_act & (engine.bots <= _POLICY0)).any(axis=1)
        return ~engine.to_act[games, self.learner] & policy_acts

    def _policy_actions(self, games_mask: np.ndarray) -> np.ndarray:
        """The frozen policies' actions in the games of ``games_mask``: one per game
        (turn-based: the seat to act) or one per seat (simultaneous: every policy seat
        that acts this tick; the other entries wait, action 0), each policy's decisions
        in one batch."""
        engine = self.engine
        games = np.arange(self.num_envs)
        if not self.simultaneous:
            code = np.where(games_mask, engine.bots[games, engine.to_act], 0)
            actions = np.zeros(self.num_envs, dtype=np.int64)
            for policy in np.unique(code[code <= _POLICY0]):
                rows = np.flatnonzero(code == policy)
                actions[rows] = self.opponents.act(
                    int(_POLICY0 - policy), engine.obs[rows], engine.mask[rows]
                )
            return actions
        actions = np.zeros((self.num_envs, self.num_players), dtype=np.int64)
        acting = engine.to_act & (engine.bots <= _POLICY0) & games_mask[:, None]
        for policy in np.unique(engine.bots[acting]):
            rows, seats = np.nonzero(acting & (engine.bots == policy))
            actions[rows, seats] = self.opponents.act(
                int(_POLICY0 - policy), engine.obs[rows, seats], engine.mask[rows, seats]
            )
        return actions

    def _after_resets(self, ended: np.ndarray) -> None:
        """Games that just restarted: note their new learner seat, draw their next lineup."""
        if ended.any():
            rows = np.flatnonzero(ended)
            nxt = self.engine.next_bots.copy()
            nxt[rows] = self._lineups(rows.size)
            self.engine.set_next_bots(nxt)
        self.learner = np.argmax(self.engine.bots == LEARNER, axis=1)

    MAX_DROPS = 10_000
    """How many new games in a row frozen policies may end before the learner's first
    decision before the door gives up (the learner's seat never gets to act)."""

    def _play_policies(self, rewards: np.ndarray, done: np.ndarray, fresh: np.ndarray) -> None:
        """Let the frozen policies move until the learner must decide in every game. In a
        game the learner has played (``~fresh``) their rewards go to ``rewards``, and its end
        is the learner's (``done``); in a new game (``fresh``: since ``reset()`` or since
        the learner's game ended in this step) they count at the learner's next step, and a
        new game the policies end before the learner's first decision is dropped, its
        rewards with it, and another dealt (as the engines drop those their own bots end)."""
        engine = self.engine
        self.learner = np.argmax(engine.bots == LEARNER, axis=1)
        games = np.arange(self.num_envs)
        drops = np.zeros(self.num_envs, dtype=np.int64)
        while True:
            waiting = self._waiting()
            if not waiting.any():
                return
            actions = self._policy_actions(waiting)
            learner = self.learner.copy()
            batch = engine.step(actions, active=waiting)
            got = batch.rewards[games, learner]
            ended = batch.terminated
            mine = ended & ~fresh  # the learner's game
            dropped = ended & fresh  # ended before the learner's first decision
            rewards += np.where(fresh, 0.0, got)
            self._carry += np.where(fresh & ~ended, got, 0.0)
            self._carry[dropped] = 0.0
            done |= mine
            self._keep_final(mine, learner)
            fresh |= ended  # the new games
            drops = np.where(dropped, drops + 1, 0)
            if (drops > self.MAX_DROPS).any():
                raise RuntimeError(
                    f"game {int(np.argmax(drops))}: {self.MAX_DROPS:,} new games in a row ended "
                    "before the learner's first decision (its seat never gets to act with "
                    "these options and opponents)"
                )
            self._after_resets(ended)

    def _keep_final(self, ended: np.ndarray, learner: np.ndarray) -> None:
        """The games of ``ended`` just ended (the engine reset them): keep the learner's seat
        (``learner``, the seats of the games that ended), its return and its observation of
        the end (the engine's ``final_obs``)."""
        if not ended.any():
            return
        rows = np.flatnonzero(ended)
        seats = learner[rows]
        self._final_seat[rows] = seats
        self._final_return[rows] = self.engine.returns[rows, seats]
        self._final_obs[rows] = self.engine.final_obs[rows, seats]

    def _add_final_info(self, info: dict[str, Any], done: np.ndarray) -> None:
        """gymnasium's same-step keys for the games of ``done``: ``final_obs`` and
        ``final_info`` with their masks (the structure of ``SyncVectorEnv``'s)."""
        rows = np.flatnonzero(done)
        final_obs = np.full(self.num_envs, None, dtype=object)
        for g in rows.tolist():
            final_obs[g] = self._final_obs[g].copy()
        seats = np.zeros(self.num_envs, dtype=np.int64)
        seats[rows] = self._final_seat[rows]
        returns = np.zeros(self.num_envs, dtype=np.float32)
        returns[rows] = self._final_return[rows]
        info["final_obs"], info["_final_obs"] = final_obs, done.copy()
        info["final_info"] = {
            "learner_seat": seats,
            "_learner_seat": done.copy(),
            "return": returns,
            "_return": done.copy(),
        }
        info["_final_info"] = done.copy()

    def _info(self) -> dict[str, Any]:
        return {"learner_seat": self.learner.copy(), "_learner_seat": np.ones(self.num_envs, bool)}

    def action_masks(self) -> np.ndarray:
        """(num_envs, num_actions) bool: the learner's legal actions in every game (a
        RuntimeError before the first ``reset()``: no learner is seated yet)."""
        self._check_ready("action_masks()")
        return self._learner_view(self.engine.mask).astype(bool)

    def state_features(self) -> np.ndarray:
        """The privileged features of every game (training's centralised critic): the
        engine's ``state_observation()`` then the learner's seat, one-hot (a RuntimeError
        before the first ``reset()``)."""
        self._check_ready("state_features()")
        seats = np.eye(self.num_players, dtype=np.float32)[self.learner]
        return np.concatenate([self.engine.state_observation(), seats], axis=1)

    def close_extras(self, **kwargs: Any) -> None:
        pass


def _autoreset_mode(mode: str | AutoresetMode) -> AutoresetMode:
    """The door's autoreset mode from its name or gymnasium's enum (a ValueError otherwise;
    ``DISABLED`` is refused: a game that ended would need a partial reset)."""
    modes = (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)
    if isinstance(mode, AutoresetMode) and mode in modes:
        return mode
    names = {"same_step": modes[0], "next_step": modes[1]} | {m.value: m for m in modes}
    if isinstance(mode, str) and mode in names:  # ours, or gymnasium's "SameStep" / "NextStep"
        return names[mode]
    raise ValueError(
        f"option 'autoreset_mode' must be 'same_step' or 'next_step' (or gymnasium's "
        f"AutoresetMode.SAME_STEP / NEXT_STEP, or their values), got {mode!r} (no partial "
        "reset: a game that ends always restarts)"
    )


def make_batched_vector(num_envs: int = 1, *, game: str, **kwargs: Any) -> BatchedVectorEnv:
    """The vector entry point of the gymnasium ids (``gymnasium.make_vec(...,
    vectorization_mode="vector_entry_point")``)."""
    if kwargs.pop("render_mode", None) is not None:
        raise ValueError("the batched vector env does not render; use gymnasium.make for that")
    return BatchedVectorEnv(game, num_envs, **kwargs)


def sb3_vec_env(venv: BatchedVectorEnv, privileged: bool = False) -> Any:
    """``venv`` as a stable-baselines3 ``VecEnv`` (with ``action_masks`` for MaskablePPO);
    ``privileged``: the observation is followed by :meth:`BatchedVectorEnv.state_features`
    (training's centralised critic). That is the whole truth, every hidden card included,
    in the one observation stable-baselines3 hands to actor and critic alike: only a
    policy that keeps its actor to the first ``single_observation_space`` entries
    (the repository's training tools build one) stays a fair player; a stock
    ``"MlpPolicy"`` would read the other hands. A game that ended has stable-baselines3's
    ``terminal_observation`` in its info (with ``privileged``, followed by zeros: the ended
    game's features are gone), ``TimeLimit.truncated`` False and the ``learner_seat`` it
    played."""
    if venv.next_step:
        raise ValueError(
            "sb3_vec_env needs the door's same-step autoreset (stable-baselines3 restarts a "
            "game in the step it ends); make it without autoreset_mode='next_step'"
        )
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv

    class _SB3(VecEnv):
        def __init__(self) -> None:
            self.venv = venv
            space = venv.single_observation_space
            if privileged:
                extra = venv.engine.state_observer
                n = venv.num_players
                low = np.concatenate([space.low, extra.low, np.zeros(n, np.float32)])
                high = np.concatenate([space.high, extra.high, np.ones(n, np.float32)])
                space = gym.spaces.Box(low, high, dtype=np.float32)
                self.extra = int(extra.size) + n
            else:
                self.extra = 0
            super().__init__(venv.num_envs, space, venv.single_action_space)
            self._actions: np.ndarray | None = None
            self._seed: int | None = None

        def _obs(self, obs: np.ndarray) -> np.ndarray:
            if not privileged:
                return obs
            return np.concatenate([obs, venv.state_features()], axis=1)

        def reset(self) -> np.ndarray:
            obs, _ = venv.reset(seed=self._seed)
            self._seed = None
            return self._obs(obs)

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = np.asarray(actions)

        def step_wait(self) -> Any:
            if self._actions is None:
                raise RuntimeError("step_wait() before step_async(): give the actions first")
            actions, self._actions = self._actions, None
            obs, rewards, done, _trunc, info = venv.step(actions)
            infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
            for g in np.flatnonzero(done).tolist():  # stable-baselines3's keys of an end
                final = info["final_obs"][g]
                if privileged:  # the ended game's features are gone with it: zeros
                    final = np.concatenate([final, np.zeros(self.extra, np.float32)])
                infos[g]["terminal_observation"] = final
                infos[g]["TimeLimit.truncated"] = False  # the games never truncate
                infos[g]["learner_seat"] = int(info["final_info"]["learner_seat"][g])
            return self._obs(obs), rewards, done, infos

        def seed(self, seed: int | None = None) -> list[int | None]:
            self._seed = seed
            return [seed] * self.num_envs

        def close(self) -> None:
            venv.close()

        def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
            value = getattr(venv, attr_name)
            return [value] * len(self._get_indices(indices))

        def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
            setattr(venv, attr_name, value)

        def env_method(
            self, method_name: str, *method_args: Any, indices: Any = None, **kwargs: Any
        ) -> list[Any]:
            idx = list(self._get_indices(indices))
            if method_name == "action_masks":
                return list(venv.action_masks()[idx])
            target = getattr(venv.opponents, method_name, None) or getattr(venv, method_name)
            result = target(*method_args, **kwargs)  # one pool for the whole batch
            return [result] * len(idx)

        def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
            return [False] * len(self._get_indices(indices))

        def action_masks(self) -> np.ndarray:
            return venv.action_masks()

    return _SB3()
