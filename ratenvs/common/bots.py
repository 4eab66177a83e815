"""The one small protocol every scripted player follows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Bot(Protocol):
    """A player that chooses an action from what its seat may see.

    ``observation`` is the flat float32 vector of the env's
    ``{"observation", "action_mask"}`` dict, ``action_mask`` the int8 mask,
    and ``rng`` the generator the bot must use for every random choice (so a
    seeded game is reproducible).
    """

    name: str

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """Return a legal action index."""
        ...


class RandomBot:
    """Plays a uniformly random legal action."""

    name = "random"

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action in the action mask")
        return int(legal[rng.integers(legal.size)])

    def action_probs(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The exact distribution of :meth:`act` (uniform over legal actions)."""
        mask = np.asarray(action_mask, dtype=np.float64)
        return mask / mask.sum()


def make_bot(name: str, registry: dict[str, type], game: str) -> Bot:
    """Build the bot called ``name`` from a game's bot registry, or raise a ValueError."""
    try:
        return registry[name]()
    except KeyError:
        raise ValueError(
            f"unknown bot {name!r} for {game}; choose one of {sorted(registry)}"
        ) from None


def opponent_bots(
    names: Sequence[str] | None, count: int, default: str, get_bot: Callable[[str], Bot]
) -> tuple[list[str], list[Bot]]:
    """Names and bots for ``count`` other seats: ``names`` (one per seat) or ``default`` for all.

    Raises a ValueError when the number of names is wrong or a name is unknown.
    """
    chosen = list(names) if names else [default] * count
    if len(chosen) != count:
        raise ValueError(f"--bots needs {count} names, got {len(chosen)}")
    return chosen, [get_bot(n) for n in chosen]
