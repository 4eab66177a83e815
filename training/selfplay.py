"""Training envs: the gymnasium id of a game with its opponents, and the self-play pool.

With self-play, every reset draws each opponent seat from a pool: a frozen
snapshot of the learner (with probability ``snapshot_prob`` once any exists)
or one of the pool's bots; the learner's seat is drawn too (``learner_seat:
random``), so the learner meets every seat order. Snapshots are plain state
dicts sent to the env workers by ``VecEnv.env_method("add_snapshot", ...)``,
so the pool works the same in ``DummyVecEnv`` and ``SubprocVecEnv``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from ratenvs.common.bots import Bot
from ratenvs.evaluation import check_policy_fits
from ratenvs.games import GAMES
from ratenvs.wrappers.batched_vector import Opponents
from training.checkpoint import PolicyBot, PolicySpec
from training.config import TrainConfig
from training.hooks import hooks_for


class OpponentPool:
    """Draws the opponents of one game: bots by name and frozen snapshots of the learner."""

    def __init__(
        self,
        game: str,
        bots: Sequence[str],
        snapshot_prob: float = 0.5,
        max_snapshots: int = 5,
        seats: int = 1,
        fixed: Sequence[PolicyBot] = (),
    ) -> None:
        registry = GAMES[game].bots()
        unknown = [b for b in bots if b not in registry]
        if unknown:
            raise ValueError(
                f"unknown bot {unknown[0]!r} for {game}; choose from {sorted(registry)}"
            )
        if not bots:
            raise ValueError("an opponent pool needs at least one bot")
        self.game = game
        self.bots: list[Callable[[], Bot]] = [registry[b] for b in bots]
        """The pool's bots, as classes: every seat a bot is drawn for gets its own new one (a
        bot that keeps state between its decisions, shared by three seats, played as three
        clones)."""
        self.snapshot_prob = float(snapshot_prob)
        self.max_snapshots = int(max_snapshots)
        self.snapshots: list[PolicyBot] = []
        self.fixed = list(fixed)
        """Frozen policies drawn like snapshots and never dropped (``selfplay.checkpoints``)."""
        self.seats = seats
        """Opponent seats to fill (players - 1); set by the env factory."""

    def add_snapshot(self, state_dict: Mapping[str, Any], spec: PolicySpec) -> None:
        """Freeze a copy of the learner into the pool (dropping the oldest beyond the cap)."""
        self.snapshots.append(PolicyBot(state_dict, spec, name=f"snapshot_{len(self.snapshots)}"))
        del self.snapshots[: -self.max_snapshots]

    def __call__(self, rng: np.random.Generator) -> list[Bot]:
        out: list[Bot] = []
        frozen = self.fixed + self.snapshots
        for _ in range(self.seats):
            if frozen and rng.random() < self.snapshot_prob:
                out.append(frozen[int(rng.integers(len(frozen)))])
            else:
                out.append(self.bots[int(rng.integers(len(self.bots)))]())
        return out


class BatchedPool(Opponents):
    """The self-play pool of a batched run (``vec_env: batched``): every game of the batch
    draws each opponent seat, at every new game, from the pool's bots (played inside the
    engine's kernel) and the frozen snapshots (each one evaluated on all the games that
    wait for it at once, one forward pass per snapshot).

    Implements :class:`ratenvs.wrappers.batched_vector.Opponents`; snapshots keep their
    number for as long as the run lasts, so games in progress keep their opponents when
    the pool moves on (only the last ``max_snapshots`` are drawn).
    """

    def __init__(
        self,
        bots: Sequence[str],
        snapshot_prob: float,
        max_snapshots: int,
        fixed: Sequence[PolicyBot] = (),
        seed: int = 0,
    ) -> None:
        if not bots:
            raise ValueError("an opponent pool needs at least one bot")
        self.rng = np.random.default_rng([int(seed), 4])
        """Draws the actions of frozen policies that sample (a card's ``"play": "sample"``)."""
        self.bots = list(bots)
        self.snapshot_prob = float(snapshot_prob)
        self.max_snapshots = int(max_snapshots)
        self.fixed = len(fixed)
        """The first ``fixed`` frozen policies are ``selfplay.checkpoints``: always drawn."""
        self.frozen: list[PolicyBot] = list(fixed)

    def add_snapshot(self, state_dict: Mapping[str, Any], spec: PolicySpec) -> None:
        """Freeze a copy of the learner into the pool."""
        self.frozen.append(PolicyBot(state_dict, spec, name=f"snapshot_{len(self.frozen)}"))

    def snapshot_count(self) -> int:
        return min(len(self.frozen) - self.fixed, self.max_snapshots)

    def draw(
        self, rng: np.random.Generator, games: int, slots: int, bot_index: Callable[[str], int]
    ) -> np.ndarray:
        kernel = np.array([bot_index(b) for b in self.bots], dtype=np.int64)
        codes = kernel[rng.integers(len(kernel), size=(games, slots))]
        if self.frozen:
            snapshots = np.arange(self.fixed, len(self.frozen))[-self.max_snapshots :]
            live = np.concatenate([np.arange(self.fixed), snapshots])
            frozen = live[rng.integers(len(live), size=(games, slots))]
            use = rng.random((games, slots)) < self.snapshot_prob
            codes = np.where(use, -2 - frozen, codes)
        return codes

    def act(self, policy: int, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return self.frozen[policy].choose(observations, masks, self.rng)


def make_batched_vec_env(cfg: TrainConfig, monitor: bool = True) -> Any:
    """The ``n_envs`` training games of a ``vec_env: batched`` run as one stable-baselines3
    VecEnv: the batched door, episode statistics, the reward shapings (their batched
    forms) and scale, the privileged features (``algorithm.privileged_critic``), the
    self-play pool."""
    from stable_baselines3.common.vec_env import VecEnvWrapper, VecMonitor

    from ratenvs.wrappers.batched_vector import BatchedVectorEnv, sb3_vec_env

    if cfg.selfplay.enabled:
        sp = cfg.selfplay
        opponents: Any = BatchedPool(
            sp.bots, sp.snapshot_prob, sp.max_snapshots, fixed_policies(cfg), seed=cfg.seed
        )
    else:
        opponents = opponents_arg(cfg)
    door = BatchedVectorEnv(
        cfg.game,
        cfg.n_envs,
        opponents=opponents,
        learner_seat=cfg.learner_seat,
        seed=cfg.seed,
        **env_options(cfg),
    )
    if cfg.selfplay.enabled:
        # the door has no AEC env to check against: the game's raw env of the same options
        options = env_options(cfg)
        table = GAMES[cfg.game].load().raw_env(**options)
        _check_fixed_fit(opponents.frozen[: opponents.fixed], table, cfg.game, options)
    venv = sb3_vec_env(door, privileged=cfg.algorithm.privileged_critic)
    if monitor:
        venv = VecMonitor(venv)
    offered = hooks_for(cfg.game).reward_shapings
    # in the game's order, whatever the config's; outside the monitor (its episode
    # rewards stay the game's)
    shapings = [(s, cfg.reward_shaping[n]) for n, s in offered.items() if n in cfg.reward_shaping]
    for shaping, opts in shapings:
        if shaping.scaled:
            venv = shaping.batched(venv, door, opts)
    scale = cfg.algorithm.reward_scale
    if scale != 1.0:

        class _Scaled(VecEnvWrapper):
            def reset(self) -> np.ndarray:
                return self.venv.reset()

            def step_wait(self) -> Any:
                obs, rewards, dones, infos = self.venv.step_wait()
                return obs, rewards * scale, dones, infos

        venv = _Scaled(venv)
    for shaping, opts in shapings:
        if not shaping.scaled:
            venv = shaping.batched(venv, door, opts)
    return venv


class SelfPlayWrapper(gym.Wrapper):
    """Gives a vectorised env's workers a handle on their opponent pool."""

    def __init__(self, env: gym.Env, pool: OpponentPool) -> None:
        super().__init__(env)
        self.pool = pool

    def add_snapshot(self, state_dict: Mapping[str, Any], spec: PolicySpec) -> None:
        """Add a frozen learner to this worker's pool."""
        self.pool.add_snapshot(state_dict, spec)

    def snapshot_count(self) -> int:
        return len(self.pool.snapshots)


def fixed_policies(cfg: TrainConfig) -> list[PolicyBot]:
    """The frozen policies of ``selfplay.checkpoints``, loaded safely."""
    from ratenvs import agents

    out = []
    for name in cfg.selfplay.checkpoints:
        try:
            out.append(agents.load(name, game=cfg.game))
        except (ValueError, OSError) as exc:
            raise ValueError(f"selfplay.checkpoints: {exc}") from None
    return out


def _check_fixed_fit(
    policies: Sequence[PolicyBot], env: Any, game: str, options: Mapping[str, Any]
) -> None:
    """Each of ``selfplay.checkpoints`` reads the observations and chooses among the
    actions of the learner's env (``env``, the AEC env of ``game`` with ``options``;
    :func:`~ratenvs.evaluation.check_policy_fits`: a ValueError says which does not)."""
    for bot in policies:
        check_policy_fits(f"selfplay.checkpoints: {bot.name}", bot, env, game, options)


def env_options(cfg: TrainConfig) -> dict[str, Any]:
    """The game env's options of a run: the gymnasium id's defaults updated by the config."""
    return {**GAMES[cfg.game].gymnasium_defaults, **cfg.env_options}


def opponents_arg(cfg: TrainConfig) -> str | list[str] | None:
    """The ``opponents`` argument of SingleAgentEnv for a run without self-play."""
    if cfg.opponents is None:
        return None
    if len(cfg.opponents) == 1:
        return cfg.opponents[0]
    return list(cfg.opponents)


def make_env(cfg: TrainConfig, rank: int = 0, monitor: bool = True) -> gym.Env:
    """One training env of the run: the gymnasium id, Monitor, the game's reward shapings
    that are scaled, the reward scale, the shapings added after it, the privileged
    features, self-play."""
    import ratenvs  # noqa: F401 - registers the ids (also inside subprocess workers)

    spec = GAMES[cfg.game]
    pool = None
    if cfg.selfplay.enabled:
        sp = cfg.selfplay
        pool = OpponentPool(
            cfg.game, sp.bots, sp.snapshot_prob, sp.max_snapshots, fixed=fixed_policies(cfg)
        )
        opponents: Any = pool
    else:
        opponents = opponents_arg(cfg)
    env = gym.make(
        spec.gymnasium_id,
        opponents=opponents,
        learner_seat=cfg.learner_seat,
        disable_env_checker=True,
        **cfg.env_options,
    )
    if pool is not None:
        pool.seats = env.unwrapped.aec.num_players - 1
        _check_fixed_fit(pool.fixed, env.unwrapped.aec, cfg.game, env_options(cfg))
    if monitor:
        from stable_baselines3.common.monitor import Monitor

        env = Monitor(env)
    offered = hooks_for(cfg.game).reward_shapings
    # in the game's order, whatever the config's
    shapings = [(s, cfg.reward_shaping[n]) for n, s in offered.items() if n in cfg.reward_shaping]
    for shaping, opts in shapings:
        if shaping.scaled:
            env = shaping.wrap(env, opts)
    scale = cfg.algorithm.reward_scale
    if scale != 1.0:
        env = gym.wrappers.TransformReward(env, _Scale(scale))
    for shaping, opts in shapings:
        if not shaping.scaled:
            env = shaping.wrap(env, opts)
    if cfg.algorithm.privileged_critic:
        from training.privileged import PrivilegedObservation

        env = PrivilegedObservation(env)
    if pool is not None:
        env = SelfPlayWrapper(env, pool)
    return env


class _Scale:
    """Picklable reward multiplier (lambdas do not cross to subprocess workers)."""

    def __init__(self, factor: float) -> None:
        self.factor = factor

    def __call__(self, reward: float) -> float:
        return reward * self.factor


def env_factories(cfg: TrainConfig) -> list[Callable[[], gym.Env]]:
    """One factory per vectorised env (picklable for SubprocVecEnv)."""
    return [_Factory(cfg, rank) for rank in range(cfg.n_envs)]


class _Factory:
    def __init__(self, cfg: TrainConfig, rank: int) -> None:
        self.cfg = cfg
        self.rank = rank

    def __call__(self) -> gym.Env:
        return make_env(self.cfg, self.rank)
