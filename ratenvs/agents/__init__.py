"""Shipped agents and checkpoints, loaded safely as Bots.

``ratenvs.agents.load("rat_a_tat_cat_2p")`` is a shipped agent by name (or
``"agent:rat_a_tat_cat_2p"``, as the command lines write it), ``load("path/to/x.json")``
(or ``x``, or ``x.pt``) any checkpoint; either is a
:class:`~ratenvs.agents.checkpoint.PolicyBot` (a greedy :class:`~ratenvs.common.bots.Bot`)
for the game and env options of its card.
:func:`available` lists the shipped agents (name, game, env options and the headline
evaluation of their cards) without reading any weights.

Reading weights needs safetensors, not torch: ``pip install "ratenvs[agents]"`` (the
forward pass is NumPy). Every load is the safe one of :mod:`ratenvs.agents.checkpoint`:
the card checked, the SHA-256 of the weights compared with it, the safetensors header's
names, dtypes and shapes compared with the card's architecture before any array is
built, NaN and infinities refused, and the card's env options checked against the
policy's observation and action sizes. Checkpoints of the older ``.pt`` format load
where torch is installed.

The shipped checkpoints are the repository's ``checkpoints/<game>/<name>.json`` cards and
the ``<name>.<digest>.safetensors`` weights they name,
installed as the package data ``ratenvs._checkpoints`` (a wheel); a source checkout (an
editable install, or the repository on ``sys.path``) reads them from ``checkpoints/``.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ratenvs.agents.checkpoint import (
    AGENTS_EXTRA,
    Checkpoint,
    CheckpointError,
    MissingExtraError,
    PolicyBot,
    PolicySpec,
    card_path,
    checkpoint_env,
    load_card,
    load_checkpoint,
    weights_path,
)

__all__ = [
    "AGENTS_EXTRA",
    "AGENT_PREFIX",
    "AgentInfo",
    "Checkpoint",
    "CheckpointError",
    "MissingExtraError",
    "PolicyBot",
    "PolicySpec",
    "agent_path",
    "available",
    "is_checkpoint_path",
    "load",
    "load_agent_checkpoint",
    "shipped_folder",
]

SHIPPED_PACKAGE = "ratenvs._checkpoints"
"""The package the shipped checkpoints are installed as (``checkpoints/`` in the repository)."""
AGENT_PREFIX = "agent:"
"""How command lines name a shipped agent: ``agent:NAME``."""
NAME_WIDTH = 30
"""The width of the name column of ``ratenvs agents`` (every shipped name fits)."""


@dataclass(frozen=True)
class AgentInfo:
    """A shipped agent, as its card describes it (no weights read)."""

    name: str
    """The name :func:`load` takes, e.g. ``rat_a_tat_cat_2p``."""
    game: str
    """Package name of its game (a key of ``ratenvs.games.GAMES``)."""
    env_options: dict[str, Any]
    """The env options it was trained for (and plays with)."""
    path: Path
    """Its weights file (the one its card names)."""
    evaluation: dict[str, Any] | None = None
    """The headline evaluation of its card (games, win rate and mean reward with 95%
    intervals, opponents, ...), or None."""
    evaluations: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Every evaluation of its card, by the opponents it was played against."""
    exploitability: dict[str, Any] | None = None
    """Its card's ``exploitability`` block (``ratenvs exploit``: the best responder's win
    rate with its interval, the budget, the command; or the exact figure), or None."""

    def summary(self) -> str:
        """One line: name, game, env options, the headline figure and, where its card has
        one, what a trained best response wins from it (exploitability)."""
        options = ", ".join(f"{k}={v}" for k, v in self.env_options.items())
        line = f"{self.name:{NAME_WIDTH}} {self.game:15} {options}"
        ev = self.evaluation
        if ev and "win_rate" in ev and ev.get("opponents"):
            low, high = ev["win_rate_ci"]
            line += (
                f"; win rate {ev['win_rate']:.3f} [{low:.3f}, {high:.3f}] over {ev['games']} "
                f"games vs {', '.join(ev['opponents'])}"
            )
            if "exact_exploitability" in ev:
                line += f"; exact exploitability {ev['exact_exploitability']:.4f}"
        elif ev and "ratio_to_optimal" in ev:
            line += f"; exact expected turn score {ev['ratio_to_optimal']:.2%} of optimal"
        elif ev and "mean_reward" in ev:
            line += f"; mean reward {ev['mean_reward']:.3f} over {ev['games']} games"
        block = self.exploitability or {}
        if "responder_win_rate" in block:
            low, high = block["win_rate_ci"]
            line += (
                f"; a best response of {block['frames']:,} frames wins "
                f"{block['responder_win_rate']:.3f} [{low:.3f}, {high:.3f}]"
            )
        return line


def shipped_folder() -> Path | None:
    """The folder of the shipped checkpoints (``<game>/<name>.json`` and their weights): the
    installed package data, else a source checkout's ``checkpoints/``; None if neither."""
    try:
        spec = importlib.util.find_spec(SHIPPED_PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            if Path(location).is_dir():
                return Path(location)
    source = Path(__file__).resolve().parents[2] / "checkpoints"
    if source.is_dir() and (source.parent / "pyproject.toml").is_file():
        return source
    return None


def _cards() -> dict[str, Path]:
    folder = shipped_folder()
    if folder is None:
        return {}
    return {card.stem: card for card in sorted(folder.glob("*/*.json"))}


def available() -> list[AgentInfo]:
    """The shipped agents, sorted by name (their cards are read and checked; no weights)."""
    out = []
    for name, card_file in _cards().items():
        card = load_card(card_file)
        evaluations = card.get("evaluations")
        out.append(
            AgentInfo(
                name=name,
                game=card["game"],
                env_options=dict(card["env_options"]),
                path=weights_path(card_file, card),
                evaluation=card.get("evaluation") or None,
                evaluations=dict(evaluations) if isinstance(evaluations, dict) else {},
                exploitability=card.get("exploitability") or None,
            )
        )
    return out


def agent_path(name: str) -> Path:
    """The card of the shipped agent ``name`` (``NAME`` or ``agent:NAME``); an
    unknown name is a CheckpointError listing the shipped agents."""
    key = name.removeprefix(AGENT_PREFIX)
    cards = _cards()
    if key not in cards:
        known = ", ".join(cards) if cards else "none (no shipped checkpoints in this install)"
        raise CheckpointError(
            f"unknown agent {name!r}; the shipped agents are: {known} (or give a checkpoint "
            "path, x.json)"
        )
    return cards[key]


def is_checkpoint_path(name: str | Path) -> bool:
    """``name`` names a checkpoint (``x.json``, ``x.pt``, ``x.safetensors``, a path, or the
    bare name ``x`` of an existing checkpoint or file) rather than a shipped agent or a
    bot (a folder named like a bot is no checkpoint: ``heuristic/`` in the working folder
    leaves the bot ``heuristic`` as it is)."""
    if isinstance(name, Path):
        return True
    if not name:
        return False
    path = Path(name)
    return (
        path.suffix in (".pt", ".json", ".safetensors")
        or "/" in name
        or path.is_file()
        or card_path(path).is_file()
        or path.with_suffix(".pt").is_file()
    )


def load_agent_checkpoint(name_or_path: str | Path, *, game: str | None = None) -> Checkpoint:
    """The checkpoint of a shipped agent (``NAME`` or ``agent:NAME``) or a checkpoint path,
    loaded safely and checked against its game's env (:func:`checkpoint_env`); ``game``,
    when given, must be its game."""
    text = str(name_or_path)
    if not text.startswith(AGENT_PREFIX) and is_checkpoint_path(name_or_path):
        path = Path(name_or_path)
    else:
        path = agent_path(text)
    ckpt = load_checkpoint(path, game=game)
    checkpoint_env(ckpt)
    return ckpt


def load(
    name_or_path: str | Path, *, game: str | None = None, name: str | None = None
) -> PolicyBot:
    """A shipped agent (``"rat_a_tat_cat_2p"`` or ``"agent:rat_a_tat_cat_2p"``) or a
    checkpoint (``"path/to/agent.pt"``) as a greedy Bot, loaded safely.

    The bot's ``game`` and ``env_options`` say where it plays (see
    :func:`load_agent_checkpoint` for the checkpoint itself); ``game``, when given, must
    be the agent's. A ``name`` labels the bot (default: the checkpoint's file name).
    """
    return load_agent_checkpoint(name_or_path, game=game).bot(name)
