"""Warm start by behaviour cloning: before PPO, the policy imitates a teacher bot.

A teacher bot plays the learner's seat of the training env (the same
opponents, options and reward) for ``pretrain.games`` games. The policy
network then learns the teacher's actions (cross-entropy over the legal
actions, through MaskablePPO's own ``evaluate_actions``) and the value
network the discounted return that followed each decision. PPO then starts
from a policy that already plays like the teacher, instead of from uniform
random actions.

This matters where random play never finds the good moves: in a reaction game
whose decision is a 25 ms tick, a uniformly random policy answers at the first
tick of nearly every card (13 of its 14 legal actions answer), so it almost
never sees what waiting until it is sure would win; PPO from scratch collapses
to a fixed answer (training/README.md).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from training.config import TrainConfig
from training.selfplay import make_env


@dataclass
class Demonstrations:
    """The teacher's decisions: observations, masks, actions and the returns that followed."""

    observations: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    returns: np.ndarray
    episodes: int
    mean_episode_reward: float


def _load_base(cfg: TrainConfig) -> Any:
    """The checkpoint ``pretrain.teacher_base`` (None without one), checked against the game."""
    if cfg.pretrain.teacher_base is None:
        return None
    from training.checkpoint import load_checkpoint

    return load_checkpoint(cfg.pretrain.teacher_base, game=cfg.game)


def _teacher(make: Any, base: Any, env: Any) -> Any:
    """A new teacher bot (``make()``, on top of checkpoint ``base`` when there is one), bound
    to the views of ``env``'s table when it reads named pieces."""
    bot = make() if base is None else make(base=base.bot())
    bind = getattr(bot, "bind", None)
    if bind is not None:
        bind(env.unwrapped.aec.observer)
    return bot


def check_teacher_base(cfg: TrainConfig) -> None:
    """The teacher plays one decision of ``cfg``'s env on top of ``pretrain.teacher_base``
    (a checkpoint that does not load, is of another game or reads other observations is a
    ConfigError naming the key), so a run finds out before it writes anything."""
    from training.config import ConfigError

    if cfg.pretrain.teacher_base is None:
        return
    from ratenvs.games import GAMES

    try:
        base = _load_base(cfg)
        env = make_env(cfg, monitor=False)
        plain = env.unwrapped.observation_space.shape[0]
        bot = _teacher(GAMES[cfg.game].bots()[cfg.pretrain.teacher], base, env)
        obs, info = env.reset(seed=cfg.seed)
        mask = np.asarray(info["action_mask"], dtype=np.int8)
        bot.act(obs[:plain], mask, np.random.default_rng(0))
    except ValueError as exc:
        raise ConfigError(f"pretrain.teacher_base {cfg.pretrain.teacher_base}: {exc}") from None


def collect(cfg: TrainConfig, teacher: str, games: int, seed: int) -> Demonstrations:
    """Let the bot ``teacher`` play the learner's seat of ``cfg``'s env for ``games`` games.

    Returns are discounted with the config's ``gamma`` and scaled by its ``reward_scale``
    (what the value network will see during PPO).
    """
    from ratenvs.games import GAMES

    bots = GAMES[cfg.game].bots()
    if teacher not in bots:
        raise ValueError(
            f"pretrain.teacher: unknown bot {teacher!r} for {cfg.game}; "
            f"choose one of {sorted(bots)}"
        )
    env = make_env(cfg, monitor=False)
    plain = env.unwrapped.observation_space.shape[0]  # the learner's own observation
    rng = np.random.default_rng(seed)
    gamma = cfg.algorithm.gamma
    obs_list: list[np.ndarray] = []
    mask_list: list[np.ndarray] = []
    act_list: list[int] = []
    ret_list: list[float] = []
    totals = []
    base = _load_base(cfg)
    for g in range(games):
        bot = _teacher(bots[teacher], base, env)  # bots keep per-card state: one per game
        obs, info = env.reset(seed=seed + g)
        rewards: list[float] = []
        done = False
        while not done:
            mask = np.asarray(info["action_mask"], dtype=np.int8)
            # the teacher sees the learner's own observation: with a privileged critic the
            # env appends the privileged features (for the value net), which it must not read
            action = int(bot.act(obs[:plain], mask, rng))
            obs_list.append(np.asarray(obs, dtype=np.float32))
            mask_list.append(mask)
            act_list.append(action)
            obs, reward, term, trunc, info = env.step(action)
            rewards.append(float(reward))
            done = term or trunc
        ret = 0.0
        episode_returns = []
        for r in reversed(rewards):
            ret = r + gamma * ret
            episode_returns.append(ret)
        ret_list.extend(reversed(episode_returns))
        totals.append(sum(rewards))
    env.close()
    return Demonstrations(
        np.stack(obs_list),
        np.stack(mask_list).astype(bool),
        np.asarray(act_list, dtype=np.int64),
        np.asarray(ret_list, dtype=np.float32),
        games,
        float(np.mean(totals)),
    )


def behaviour_clone(
    policy: Any,
    data: Demonstrations,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    vf_coef: float,
    seed: int,
) -> dict[str, float]:
    """Fit ``policy`` (a MaskablePPO policy) to ``data``: the teacher's actions and returns.

    Returns the fit's figures: the share of decisions where the policy's most likely legal
    action is the teacher's, the mean log-likelihood of the teacher's actions and the
    value network's mean squared error (all on the whole data after the last epoch).
    """
    import torch

    torch.manual_seed(seed)
    obs = torch.as_tensor(data.observations)
    masks = torch.as_tensor(data.masks)
    actions = torch.as_tensor(data.actions)
    returns = torch.as_tensor(data.returns)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    gen = torch.Generator().manual_seed(seed)
    n = len(actions)
    policy.set_training_mode(True)
    for _ in range(epochs):
        order = torch.randperm(n, generator=gen)
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            values, log_prob, _ = policy.evaluate_actions(
                obs[idx], actions[idx], action_masks=masks[idx]
            )
            value_loss = torch.nn.functional.mse_loss(values.flatten(), returns[idx])
            loss = -log_prob.mean() + vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    policy.set_training_mode(False)
    with torch.no_grad():
        values, log_prob, _ = policy.evaluate_actions(obs, actions, action_masks=masks)
        dist = policy.get_distribution(obs, action_masks=masks)
        best = dist.distribution.probs.argmax(dim=1)
    return {
        "agreement": float((best == actions).float().mean()),
        "log_likelihood": float(log_prob.mean()),
        "value_mse": float(torch.nn.functional.mse_loss(values.flatten(), returns)),
    }


def warm_start(policy: Any, cfg: TrainConfig) -> dict[str, Any]:
    """Run the config's ``pretrain`` section on ``policy``; return what the card records."""
    p = cfg.pretrain
    assert p.teacher is not None
    t0 = time.perf_counter()
    data = collect(cfg, p.teacher, p.games, cfg.seed + 1_000_000)
    fit = behaviour_clone(
        policy,
        data,
        p.epochs,
        p.batch_size,
        p.learning_rate,
        cfg.algorithm.vf_coef,
        cfg.seed,
    )
    return {
        "teacher": p.teacher,
        **({"teacher_base": p.teacher_base} if p.teacher_base else {}),
        "games": p.games,
        "decisions": len(data.actions),
        "teacher_mean_reward": round(data.mean_episode_reward, 4),
        **{k: round(v, 4) for k, v in fit.items()},
        "seconds": round(time.perf_counter() - t0, 1),
    }
