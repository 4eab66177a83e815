"""Readable golden playthroughs of any game (OpenSpiel's playthroughs are the model).

A playthrough is a fixed seed, options and a fixed rule for the actions (the
``k``-th decision takes legal action number ``k mod (number of legal actions)``),
written as text: at every step the seats to act, each one's observation by named
piece, its legal actions, its text view, the action taken, the rewards, and at the
end the whole state. The golden files under the repository's ``tests/golden/`` are made by::

    python -m ratenvs.common.playthrough --write tests/golden

and checked by ``tests/test_playthroughs.py``; regenerate them only after a
deliberate, versioned rules change, and say which files changed in the commit.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from ratenvs.common.atomic import atomic_file
from ratenvs.common.game import Game
from ratenvs.games import get_game

CASES: dict[str, tuple[str, dict[str, Any], int]] = {
    "catz_ratz_batz_2p_seed7": ("catz_ratz_batz", {"num_players": 2, "turns": 3}, 7),
    "catz_ratz_batz_3p_race_seed4": (
        "catz_ratz_batz",
        {"num_players": 3, "turns": None, "target_score": 40, "reward": "win"},
        4,
    ),
    "rat_a_tat_cat_2p_knowledge_seed7": ("rat_a_tat_cat", {"num_players": 2}, 7),
    "rat_a_tat_cat_3p_memoryless_two_rounds_seed3": (
        "rat_a_tat_cat",
        {"num_players": 3, "observation": "memoryless", "rounds": 2},
        3,
    ),
    "rat_a_tat_cat_4p_elimination_ceilings_seed11": (
        "rat_a_tat_cat",
        {"num_players": 4, "target_score": 30, "owner_ceilings": True, "reward": "zero_sum_win"},
        11,
    ),
    "ratto_zakko_2p_dessert_memoryless_seed5": (
        "ratto_zakko",
        {"num_players": 2, "level": "dessert", "observation": "memoryless", "window_ticks": 6},
        5,
    ),
    "ratto_zakko_4p_main_beliefs_seed13": (
        "ratto_zakko",
        {"num_players": 4, "level": "main", "answer_beliefs": True, "window_ticks": 4},
        13,
    ),
}
"""Name -> (game, options, seed) of every golden playthrough."""


def _values(values: np.ndarray) -> str:
    flat = np.asarray(values, dtype=np.float64).reshape(-1)
    return " ".join(f"{x:.6g}" for x in flat)


def playthrough(game: Game, seed: int, max_steps: int = 400) -> str:
    """The text of a playthrough of ``game`` from ``seed`` (an integer >= 0; see the module
    docstring)."""
    from gymnasium.utils import seeding

    from ratenvs.common.options import check_seed

    if check_seed(seed) is None:  # None: fresh entropy, which a playthrough cannot be
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    chance, _ = seeding.np_random(int(seed))
    observer = game.observer(game.observation_kind)
    lines = [
        f"game: {game.name}",
        f"options: {json.dumps(game.params, sort_keys=True)}",
        f"seed: {seed}",
        f"observer: {observer.kind} ({observer.size} entries)",
    ]
    state = game.init(chance)
    decision = 0
    step = 0
    while not game.is_terminal(state) and step < max_steps:
        lines.append("")
        seats = game.to_act(state)
        lines.append(f"step {step}: to act {', '.join(f'player_{s}' for s in seats)}")
        chosen = {}
        for seat in seats:
            obs = observer.observe(state, seat)
            lines.append(f"  player_{seat} observation:")
            for name, view in observer.views(obs).items():
                lines.append(f"    {name}: {_values(view)}")
            legal = np.flatnonzero(game.legal_mask(state, seat)).tolist()
            lines.append(f"  player_{seat} legal: {legal}")
            lines.append(f"  player_{seat} sees:")
            lines += [f"    | {t}" for t in observer.string_from(state, seat).splitlines()]
            action = legal[decision % len(legal)]
            decision += 1
            chosen[seat] = action
            lines.append(f"  player_{seat} plays {action}")
        infos: dict[int, dict[str, Any]] = {}
        rewards = game.apply(state, chosen, chance, infos)
        if rewards is not None:
            lines.append(f"  rewards: {[round(float(r), 6) for r in rewards]}")
        for seat, info in sorted(infos.items()):
            lines.append(f"  player_{seat} told: {json.dumps(info, sort_keys=True)}")
        step += 1
    lines.append("")
    lines.append(f"terminal: {game.is_terminal(state)}")
    if game.is_terminal(state):
        lines.append(f"winners: {game.winners(state)}")
    lines.append(f"state: {json.dumps(game.to_json(state), sort_keys=True)}")
    return "\n".join(lines) + "\n"


def case_text(name: str) -> str:
    """The playthrough of the golden case ``name``."""
    game_name, options, seed = CASES[name]
    game = get_game(game_name).load().raw_env(**options).game
    return playthrough(game, seed)


def main(argv: Sequence[str] | None = None) -> int:
    from ratenvs.common.arguments import ArgumentParser, output_folder, report

    parser = ArgumentParser(
        prog="python -m ratenvs.common.playthrough",
        description="Print a golden playthrough, or write every golden case into a folder.",
    )
    parser.add_argument(
        "case", nargs="?", default=None, choices=sorted(CASES), help="the case to print"
    )
    parser.add_argument("--write", metavar="DIR", help="write every case as DIR/<case>.txt")
    args = parser.parse_args(argv)
    if args.write:
        try:
            folder = output_folder("--write", args.write)
            folder.mkdir(parents=True, exist_ok=True)
        except (ValueError, OSError) as exc:
            return report(exc)
        for name in CASES:
            path = folder / f"{name}.txt"
            with atomic_file(path) as fh:
                fh.write(case_text(name).encode())
            print(f"wrote {path}")
        return 0
    if args.case is None:
        parser.error("name a case or give --write DIR")
    print(case_text(args.case), end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
