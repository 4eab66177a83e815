"""Game records: a finished (or partial) game as JSON - seed, options, actions - and its replay.

A record is ``{"game", "version", "seed", "options", "actions", "final_state"}``;
replaying builds ``raw_env(**options)``, resets it with ``seed`` and plays the
actions. The env's every random choice comes from its seeded generator, so the
replay reproduces the game exactly; :func:`replay` checks the final
``game_state()`` against the recorded one.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ratenvs.common.bots import Bot
from ratenvs.rat_a_tat_cat.env import raw_env

GAME = "rat_a_tat_cat"
RECORD_VERSION = 0


def make_record(
    seed: int, options: dict[str, Any], actions: Sequence[int], env: raw_env | None = None
) -> dict[str, Any]:
    """A JSON-ready record; ``env`` (after the actions) supplies the final state, else it is
    computed by replaying."""
    if env is None:
        env = _play(seed, options, actions)
    return {
        "game": GAME,
        "version": RECORD_VERSION,
        "seed": int(seed),
        "options": dict(options),
        "actions": [int(a) for a in actions],
        "final_state": env.game_state(),
    }


def _play(seed: int, options: dict[str, Any], actions: Sequence[int]) -> raw_env:
    env = raw_env(**options)
    env.reset(seed=seed)
    for i, action in enumerate(actions):
        if not env.agents or all(env.terminations.values()):
            raise ValueError(f"record has {len(actions) - i} action(s) after the game ended")
        env.step(int(action))
    return env


def replay(record: dict[str, Any]) -> raw_env:
    """Replay a record; returns the env after its last action. Raises ValueError if the record
    is not a Rat-a-Tat Cat record or the replay does not reach the recorded final state."""
    if record.get("game") != GAME:
        raise ValueError(f"not a {GAME} record: game={record.get('game')!r}")
    if record.get("version") != RECORD_VERSION:
        raise ValueError(f"unsupported record version {record.get('version')!r}")
    env = _play(record["seed"], record["options"], record["actions"])
    expected = record.get("final_state")
    if expected is not None and env.game_state() != expected:
        raise ValueError("replay diverged from the recorded final state")
    return env


def save_record(record: dict[str, Any], path: str | Path) -> None:
    """Write a record as JSON."""
    Path(path).write_text(json.dumps(record, indent=1) + "\n")


def load_record(path: str | Path) -> dict[str, Any]:
    """Read a record written by :func:`save_record`."""
    return json.loads(Path(path).read_text())


def record_bot_game(bots: Sequence[Bot], seed: int, **options: Any) -> dict[str, Any]:
    """Play a whole game with ``bots[i]`` in seat ``i`` and return its record."""
    options = {"num_players": len(bots), **options}
    env = raw_env(**options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    while not env.state.is_over:
        seat = env.state.current
        action = int(bots[seat].act(env._observation_vector(seat), env._action_mask(seat), rng))
        env.step(action)
        actions.append(action)
    return make_record(seed, options, actions, env)
