"""The table of shipped games: ids, modules, bots and defaults, in one place.

Registration, the CLI, the benchmark and the single-agent door all read this
table, so adding a game means adding one entry here.
"""

from __future__ import annotations

import importlib
import importlib.util
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class GameSpec:
    """How one game is wired into the library."""

    name: str
    """Package name, e.g. ``catz_ratz_batz``."""
    title: str
    """The game's printed name."""
    version: int
    """The env version (the game's ``Game.version``): in the module name and both ids."""
    gymnasium_id: str
    default_opponent: str
    """Bot that plays the other seats of the gymnasium id unless told otherwise."""
    gymnasium_defaults: dict[str, Any] = field(default_factory=dict)
    """Env options of the gymnasium id (the PettingZoo id uses the env's own defaults)."""
    bench_options: tuple[dict[str, Any], ...] = ({},)
    """Configurations measured by ``ratenvs bench``."""
    test_options: tuple[dict[str, Any], ...] = ({},)
    """Option combinations the generic test battery (the repository's
    ``tests/test_all_games.py``) runs."""

    @property
    def cli_name(self) -> str:
        """Name on the command line, e.g. ``catz-ratz-batz``."""
        return self.name.replace("_", "-")

    @property
    def module(self) -> str:
        """Versioned entry module with ``env``, ``raw_env`` and ``parallel_env``."""
        return f"ratenvs.{self.name}_v{self.version}"

    @property
    def pettingzoo_id(self) -> str:
        return f"ratenvs/{self.name}-v{self.version}"

    def load(self) -> Any:
        """Import and return the versioned entry module."""
        return importlib.import_module(self.module)

    def batched(self) -> type:
        """The game's batched engine class (``ratenvs.<game>.batched.ENGINE``)."""
        return importlib.import_module(f"ratenvs.{self.name}.batched").ENGINE

    @property
    def has_batched(self) -> bool:
        """The game has a batched engine."""
        return importlib.util.find_spec(f"ratenvs.{self.name}.batched") is not None

    def bots(self) -> dict[str, type]:
        """The game's bot registry (name -> class)."""
        return importlib.import_module(f"ratenvs.{self.name}.bots").BOTS


GAMES: dict[str, GameSpec] = {
    spec.name: spec
    for spec in (
        GameSpec(
            name="catz_ratz_batz",
            title="Catz, Ratz and Batz",
            version=0,
            gymnasium_id="ratenvs/CatzRatzBatz-v0",
            default_opponent="optimal",
            gymnasium_defaults={"num_players": 1},
            bench_options=({"num_players": 2},),
            test_options=(
                {"num_players": 1},
                {"num_players": 2, "reward": "win"},
                {"num_players": 3, "turns": None, "target_score": 60},
                {"num_players": 4, "target_score": 50, "race_end": "turn", "reward": "win"},
                {"num_players": 6, "turns": 2, "totals_view": "relative"},
            ),
        ),
        GameSpec(
            name="rat_a_tat_cat",
            title="Rat-a-Tat Cat",
            version=1,
            gymnasium_id="ratenvs/RatATatCat-v1",
            default_opponent="heuristic",
            gymnasium_defaults={"num_players": 2},
            bench_options=({"num_players": 2}, {"num_players": 4}, {"num_players": 6}),
            test_options=(
                {"num_players": 2},
                {"num_players": 3, "observation": "memoryless", "rounds": 2},
                {"num_players": 4, "target_score": 40, "owner_ceilings": True, "reward": "win"},
                {"num_players": 6, "reward": "zero_sum_win", "target_score": 30},
            ),
        ),
        GameSpec(
            name="ratto_zakko",
            title="Ratto Zakko",
            version=0,
            gymnasium_id="ratenvs/RattoZakko-v0",
            default_opponent="adult",
            gymnasium_defaults={"num_players": 4},
            bench_options=({"num_players": 4, "level": "dessert"},),
            test_options=(
                {"num_players": 2},
                {"num_players": 4, "level": "main", "perception": "clear", "reward": "win"},
                {"num_players": 3, "level": "dessert", "answer_beliefs": True},
                {
                    "num_players": 5,
                    "level": "main",
                    "observation": "memoryless",
                    "relocation": "both",
                },
                # the human-fair latency floor (rules.human_fair_min_reaction_ticks) and the
                # ideal observer's beliefs
                {
                    "num_players": 4,
                    "level": "dessert",
                    "min_reaction_ticks": 7,
                    "answer_beliefs": True,
                    "belief_prior": "deck",
                },
                # the public record (card counting, answers ruled out) and its beliefs
                {
                    "num_players": 3,
                    "level": "dessert",
                    "public_record": True,
                    "answer_beliefs": True,
                    "belief_prior": "count",
                },
            ),
        ),
    )
}


def available_games() -> dict[str, GameSpec]:
    """The games whose entry module is present in this installation."""
    return {
        name: spec
        for name, spec in GAMES.items()
        if importlib.util.find_spec(spec.module) is not None
    }


def get_game(name: str) -> GameSpec:
    """Look a game up by package name, CLI name or title; a ValueError lists the choices."""
    key = name.strip().lower().replace("-", "_").replace(" ", "_").replace(",", "")
    for spec in GAMES.values():
        if key in (spec.name, spec.cli_name.replace("-", "_")):
            return spec
    raise ValueError(f"unknown game {name!r}; choose one of {[s.cli_name for s in GAMES.values()]}")
