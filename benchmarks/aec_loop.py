"""Speed of the AEC envs through PettingZoo's own loop: N random games, CPU seconds.

Plays ``--games`` games of one env (``raw_env`` or the wrapped ``env()``) with
uniformly random legal actions through ``agent_iter`` / ``last`` / ``step``, game
``i`` reset with seed ``--seed + i``; the action stream depends only on the seed and
the masks, so two versions of ratenvs whose rules agree play the same games. It
prints the decisions, the total reward and a digest of the actions (to check that
two trees played the same games) and the CPU seconds of the loop.

The script uses only what every version of ratenvs has had (``ratenvs.<game>.env``
with ``raw_env`` / ``env``, keyword options), so the same file times an older tree:

    PYTHONPATH=/path/to/old/tree python benchmarks/aec_loop.py rat_a_tat_cat --players 4
    python benchmarks/aec_loop.py rat_a_tat_cat --players 4

Time two trees against each other as whole processes, alternating runs (A B A B
...) and taking the median of the pair-by-pair CPU-time ratios.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import inspect
import json
import time
from typing import Any

import numpy as np

GAMES = ("rat_a_tat_cat", "catz_ratz_batz", "ratto_zakko")


def play(door: Any, games: int, seed: int) -> tuple[int, float, str]:
    """Play ``games`` random games through ``door`` (an AEC env); return the decisions, the
    total reward given and a digest of every action played."""
    rng = np.random.default_rng(seed)
    digest = hashlib.sha256()
    decisions = 0
    total = 0.0
    for i in range(games):
        door.reset(seed=seed + i)
        for _agent in door.agent_iter():
            obs, reward, term, trunc, _info = door.last()
            total += reward
            if term or trunc:
                door.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(legal.size)])
            digest.update(action.to_bytes(2, "little"))
            door.step(action)
            decisions += 1
    return decisions, total, digest.hexdigest()[:16]


def _value(text: str) -> Any:
    """An option's value: JSON (100, null, true, "reaches"), else the text itself."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=GAMES)
    parser.add_argument("--door", choices=("raw_env", "env"), default="raw_env")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a game option, e.g. target_score=100 (JSON, or else a string; repeatable)",
    )
    parser.add_argument(
        "--option-if-known",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a game option given only to a version of the env that has it (e.g. "
        "eliminate_at=reaches, the elimination rule of Rat-a-Tat Cat v0)",
    )
    args = parser.parse_args(argv)
    options: dict[str, Any] = {"num_players": args.players}
    for item in args.option:
        name, _, value = item.partition("=")
        options[name] = _value(value)
    module = importlib.import_module(f"ratenvs.{args.game}.env")
    known = inspect.signature(module.raw_env).parameters
    for item in args.option_if_known:
        name, _, value = item.partition("=")
        if name in known:
            options[name] = _value(value)
    door = getattr(module, args.door)(**options)
    start = time.process_time()
    decisions, total, digest = play(door, args.games, args.seed)
    cpu = time.process_time() - start
    print(
        f"{args.game} {args.door} {options}: {args.games} games, {decisions} decisions, "
        f"total reward {total:.6g}, actions {digest}, {cpu:.3f} s CPU"
    )


if __name__ == "__main__":
    main()
