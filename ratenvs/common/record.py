"""Game records for every game: a game as JSON (seed, options, actions), replayed identically.

A record is ``{"game", "version", "env_version", "seed", "options", "actions",
"final_state", "views"}`` (``version``: the record format; ``env_version``: the game's
env version it was played on, 0 when absent; ``views``: the SHA-256 of every seat's
observation at every position, absent from older records),
and optionally ``"chance"``: the game's chance log (every outcome drawn, in order;
:class:`~ratenvs.common.game.ChanceLog`). Replaying builds the game's
``raw_env(**options)`` and plays the actions; chance comes from the record's log
when it has one (so the replay is the same game whatever generator first drew it),
else from the env's generator seeded with ``seed``. :func:`replay` checks the final
``game_state()`` and what every seat saw (``views``) against the recorded ones.
:func:`iter_replay_frames` draws every position of a replay (``rgb_array``) one at a
time, for GIFs; :func:`replay_frames` lists them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ratenvs.common.aec import GameAECEnv
from ratenvs.common.atomic import atomic_file
from ratenvs.common.bots import Bot
from ratenvs.common.game import ChanceReplay
from ratenvs.common.safe_load import LoadError, loads_json, read_regular_file
from ratenvs.games import get_game

RECORD_VERSION = 0


def _raw_env(game: str, options: dict[str, Any], **extra: Any) -> GameAECEnv:
    return get_game(game).load().raw_env(**options, **extra)


def _is_over(env: GameAECEnv) -> bool:
    return not env.agents or env.terminations[env.agent_selection]


def make_record(
    game: str,
    seed: int,
    options: dict[str, Any],
    actions: Sequence[int],
    env: GameAECEnv | None = None,
    chance: Sequence[Sequence[Any]] | None = None,
) -> dict[str, Any]:
    """A JSON-ready record; ``env`` (after the actions) supplies the final state, else it is
    computed by replaying; ``chance`` (a chance log) is stored when given."""
    record: dict[str, Any] = {
        "game": get_game(game).name,
        "version": RECORD_VERSION,
        "env_version": get_game(game).version,
        "seed": int(seed),
        "options": dict(options),
        "actions": [int(a) for a in actions],
    }
    if chance is not None:
        record["chance"] = [list(draw) for draw in chance]
    replayed, views = _replayed_views(record)
    record["final_state"] = (env if env is not None else replayed).game_state()
    record["views"] = views
    return record


def _views_of(env: GameAECEnv, digest: Any) -> None:
    """Add every seat's observation of ``env``'s state (its observer's vectors, seat by
    seat) to ``digest``."""
    for seat in range(len(env.possible_agents)):
        view = np.ascontiguousarray(env.observer.observe(env.truth, seat), dtype=np.float32)
        digest.update(view.tobytes())


def _replayed_views(record: dict[str, Any]) -> tuple[GameAECEnv, str]:
    """Replay ``record``: the env after its last action, and the SHA-256 of what every seat
    saw at every position (what ``game_state()`` leaves out: a Peek at another slot
    changes what its seat knows, not the cards)."""
    import hashlib

    digest = hashlib.sha256()
    env = None
    for env in _positions(record):
        _views_of(env, digest)
    assert env is not None
    return env, digest.hexdigest()


def _positions(record: dict[str, Any], **extra: Any) -> Iterator[GameAECEnv]:
    """The env of ``record`` at the start and after each action (the same object, advanced);
    chance from the record's log when it has one, else from the generator seeded with its
    seed."""
    env = _raw_env(record["game"], record["options"], **extra)
    chance = record.get("chance")
    if chance is None:
        env.reset(seed=record["seed"])
    else:
        env.np_random = ChanceReplay(chance)  # reset() without a seed keeps it
        env.reset()
    yield env
    actions = record["actions"]
    for i, action in enumerate(actions):
        if _is_over(env):
            raise ValueError(f"record has {len(actions) - i} action(s) after the game ended")
        env.step(int(action))
        yield env
    if chance is not None and not env.np_random.exhausted:
        raise ValueError("the record's chance log holds draws its actions never used")


def _check(record: Any, game: str | None) -> str:
    """The game name of ``record`` after checking its shape: a JSON object with ``game``,
    ``version``, a seed (an integer >= 0), options (an object of the game's options, no
    render settings), actions (a list of integers) and optionally a chance log (a list of
    ``[kind, outcome]`` draws); a ValueError names what is wrong."""
    if not isinstance(record, dict):
        raise ValueError(f"a game record is a JSON object, got a {_json_type(record)}")
    name = record.get("game")
    if not isinstance(name, str):
        raise ValueError(f"record 'game' must be a game name, got {name!r}")
    if game is not None and name != get_game(game).name:
        raise ValueError(f"not a {get_game(game).name} record: game={name!r}")
    version = record.get("version")
    if not _is_int(version) or version != RECORD_VERSION:
        raise ValueError(f"unsupported record version {version!r}")
    spec = get_game(name)
    played_on = record.get("env_version", 0)
    if not _is_int(played_on) or played_on < 0:
        raise ValueError(f"record 'env_version' must be an integer >= 0, got {played_on!r}")
    if played_on != spec.version:
        raise ValueError(
            f"a record of {spec.name} v{played_on!r} cannot be replayed: this ratenvs plays "
            f"{spec.name} v{spec.version} (the rules or observations changed; see the "
            "changelog, CHANGELOG.md in the repository)"
        )
    missing = {"seed", "options", "actions"} - set(record)
    if missing:
        raise ValueError(f"record lacks {sorted(missing)}")
    seed, options, actions = record["seed"], record["options"], record["actions"]
    if not _is_int(seed) or seed < 0:
        raise ValueError(f"record 'seed' must be an integer >= 0, got {seed!r}")
    if not isinstance(options, dict):
        raise ValueError(f"record 'options' must be an object, got a {_json_type(options)}")
    render = sorted({"render_mode", "render_view"} & set(options))
    if render:
        raise ValueError(f"record 'options' may not hold {render} (a replay chooses its view)")
    if not isinstance(actions, list):
        raise ValueError(f"record 'actions' must be a list, got a {_json_type(actions)}")
    wrong = [a for a in actions if not _is_int(a)]
    if wrong:
        raise ValueError(f"record 'actions' must be integers, got {wrong[0]!r}")
    chance = record.get("chance")
    if chance is not None:
        pairs = isinstance(chance, list) and all(
            isinstance(d, list) and len(d) == 2 and isinstance(d[0], str) for d in chance
        )
        if not pairs:
            raise ValueError("record 'chance' must be a list of [kind, outcome] draws")
    return get_game(name).name


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _json_type(value: Any) -> str:
    names = {dict: "object", list: "list", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def replay(record: dict[str, Any], game: str | None = None) -> GameAECEnv:
    """Replay a record; returns the env after its last action. Raises ValueError for a record
    of another game (when ``game`` is given), a malformed one, or a replay that does not reach
    the recorded final state."""
    name = _check(record, game)
    env, views = _replayed_views({**record, "game": name})
    expected = record.get("final_state")
    if expected is not None and env.game_state() != expected:
        raise ValueError("replay diverged from the recorded final state")
    recorded = record.get("views")  # records since 2026-12-06; older ones have none
    if recorded is not None and views != recorded:
        raise ValueError(
            "replay diverged from the recorded views (what a seat saw differs at some "
            "position: an action was changed)"
        )
    return env


def iter_replay_frames(
    record: dict[str, Any], render_view: str = "omniscient"
) -> Iterator[np.ndarray]:
    """Every position of the replayed game drawn from ``render_view`` (rgb_array frames),
    one at a time as the replay advances: a whole game's frames are never all in memory
    (:func:`ratenvs.common.render.save_gif` streams them into a GIF). The record is checked
    before the first frame; a replay that goes wrong raises where it does."""
    checked = {**record, "game": _check(record, None)}
    positions = _positions(checked, render_mode="rgb_array", render_view=render_view)
    return (env.render() for env in positions)


def replay_frames(record: dict[str, Any], render_view: str = "omniscient") -> list[np.ndarray]:
    """Every position of the replayed game drawn from ``render_view`` (rgb_array frames), as
    a list (:func:`iter_replay_frames` gives them one at a time)."""
    return list(iter_replay_frames(record, render_view))


def save_record(record: dict[str, Any], path: str | Path) -> None:
    """Write a record as JSON: to a temporary file beside ``path``, fsync'd and renamed into
    place (:func:`~ratenvs.common.atomic.atomic_file`: a crash leaves the old file or the
    new one, never half of one)."""
    text = json.dumps(record, indent=1) + "\n"
    with atomic_file(path) as fh:
        fh.write(text.encode())


MAX_RECORD_BYTES = 64 * 1024 * 1024
"""Largest record file read: 64 MiB (a long game with its chance log is a few hundred kB)."""

MAX_RECORD_DEPTH = 32
"""Deepest nesting of lists and objects in a record (its final state nests a few levels)."""


def load_record(path: str | Path) -> dict[str, Any]:
    """Read a record written by :func:`save_record`: a regular file of at most
    :data:`MAX_RECORD_BYTES`, JSON nested at most :data:`MAX_RECORD_DEPTH` deep (checked
    before parsing), no NaN or infinity, a JSON object; else a one-line ValueError
    (a :class:`~ratenvs.common.safe_load.LoadError`) naming the file and the limit."""
    data = read_regular_file(path, what="record", max_bytes=MAX_RECORD_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise LoadError(f"{path} is not a game record (not UTF-8 text)") from None
    record = loads_json(text, what=f"{path} is not a game record", max_depth=MAX_RECORD_DEPTH)
    if not isinstance(record, dict):
        kind = _json_type(record)
        raise ValueError(f"{path} is not a game record (a JSON {kind}, not an object)")
    return record


def record_bot_game(
    game: str, bots: Sequence[Bot], seed: int, *, record_chance: bool = False, **options: Any
) -> dict[str, Any]:
    """Play a whole game with ``bots[i]`` in seat ``i`` (:func:`ratenvs.common.play.play_game`,
    its seeding rule) and return its record (with the chance log if ``record_chance``)."""
    from ratenvs.common.play import play_game

    options = {"num_players": len(bots), **options}
    env = _raw_env(game, options)
    played = play_game(env.game, bots, seed, record_chance=record_chance)
    return make_record(game, seed, env.options, played.actions, chance=played.chance)
