"""Rat-a-Tat Cat game records: a game as JSON (seed, options, actions), replayed identically.

The format and replay are those of :mod:`ratenvs.common.record`: ``{"game",
"version", "seed", "options", "actions", "final_state", "views"}``; replaying builds
``raw_env(**options)``, resets it with ``seed`` and plays the actions, then checks the
final ``game_state()`` and what every seat saw against the recorded ones. ``env.options``
holds the options of an env in the form a record stores.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ratenvs.common import record as _common
from ratenvs.common.bots import Bot
from ratenvs.common.record import load_record, save_record
from ratenvs.rat_a_tat_cat.env import raw_env

GAME = "rat_a_tat_cat"


def make_record(
    seed: int, options: dict[str, Any], actions: Sequence[int], env: raw_env | None = None
) -> dict[str, Any]:
    """A JSON-ready record of the game ``seed`` + ``options`` + ``actions``."""
    return _common.make_record(GAME, seed, options, actions, env)


def replay(record: dict[str, Any]) -> raw_env:
    """Replay a Rat-a-Tat Cat record (ValueError if it is another game's, malformed, or the
    replay diverges from the recorded final state)."""
    return _common.replay(record, game=GAME)


def record_bot_game(bots: Sequence[Bot], seed: int, **options: Any) -> dict[str, Any]:
    """Play a whole game with ``bots[i]`` in seat ``i`` and return its record."""
    return _common.record_bot_game(GAME, bots, seed, **options)


__all__ = ["load_record", "make_record", "record_bot_game", "replay", "save_record"]
