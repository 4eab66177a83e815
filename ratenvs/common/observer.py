"""Observers: what one seat may see, as named pieces of one float32 tensor.

An :class:`Observer` of a game is the only seat-view filter: the observation
vector, its named views (``views(tensor)["discard_top"]``), the seat's text
view (``string_from(state, seat)``) and the pictures are all built from it.
Its layout is a list of :class:`Piece` (name, shape, range, meaning), as in
OpenSpiel's observers; the docstrings' index tables are generated from the
pieces (:meth:`Observer.table`).

The kind ``"privileged"`` is the whole truth (every hidden card), for
centralised critics; the envs expose it as PettingZoo's ``state()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Piece:
    """A named block of the observation tensor: its shape, value range and meaning."""

    name: str
    shape: tuple[int, ...]
    help: str
    low: float = 0.0
    high: float = 1.0

    @property
    def size(self) -> int:
        return int(np.prod(self.shape)) if self.shape else 1


class Observer:
    """Named pieces over one float32 tensor, and the game-specific ``observe``.

    Subclasses implement :meth:`observe` (fast, writing the pieces in order) and
    :meth:`string_from`; this class derives the layout from ``pieces``.
    """

    def __init__(self, kind: str, pieces: Sequence[Piece]) -> None:
        self.kind = kind
        self.pieces: tuple[Piece, ...] = tuple(pieces)
        names = [p.name for p in self.pieces]
        if len(set(names)) != len(names):
            raise ValueError(f"observer pieces must have unique names: {names}")
        self.slices: dict[str, slice] = {}
        start = 0
        for p in self.pieces:
            self.slices[p.name] = slice(start, start + p.size)
            start += p.size
        self.size = start
        low = np.zeros(self.size, dtype=np.float32)
        high = np.zeros(self.size, dtype=np.float32)
        for p in self.pieces:
            low[self.slices[p.name]] = p.low
            high[self.slices[p.name]] = p.high
        self.low, self.high = low, high

    # ------------------------------------------------------------ layout
    def offset(self, name: str) -> int:
        """Index of the first entry of piece ``name``."""
        return self.slices[name].start

    def piece(self, name: str) -> Piece:
        for p in self.pieces:
            if p.name == name:
                return p
        raise KeyError(f"no piece {name!r}; the pieces are {[p.name for p in self.pieces]}")

    def views(self, tensor: np.ndarray) -> dict[str, np.ndarray]:
        """Every piece of ``tensor`` by name, reshaped to its shape (views, no copies)."""
        tensor = np.asarray(tensor)
        if tensor.shape[-1] != self.size:
            raise ValueError(
                f"a {self.kind} observation of this game has {self.size} entries, "
                f"got {tensor.shape[-1]}"
            )
        lead = tensor.shape[:-1]
        return {
            p.name: tensor[..., self.slices[p.name]].reshape(lead + p.shape) for p in self.pieces
        }

    def view(self, tensor: np.ndarray, name: str) -> np.ndarray:
        """One piece of ``tensor`` (see :meth:`views`)."""
        p = self.piece(name)
        return np.asarray(tensor)[..., self.slices[name]].reshape(np.shape(tensor)[:-1] + p.shape)

    def table(self) -> str:
        """The layout as a Markdown table: index range, piece, shape, range, meaning."""
        rows = ["| index | piece | shape | range | meaning |", "|---|---|---|---|---|"]
        for p in self.pieces:
            s = self.slices[p.name]
            index = str(s.start) if p.size == 1 else f"{s.start} - {s.stop - 1}"
            shape = "x".join(str(d) for d in p.shape) or "1"
            rows.append(
                f"| {index} | `{p.name}` | {shape} | {_num(p.low)} - {_num(p.high)} | {p.help} |"
            )
        return "\n".join(rows)

    # ---------------------------------------------------- what a game supplies
    def observe(self, state: Any, seat: int | None) -> np.ndarray:  # pragma: no cover
        """The float32 tensor of what ``seat`` may see (``None``: the privileged view)."""
        raise NotImplementedError

    def string_from(self, state: Any, seat: int | None) -> str:  # pragma: no cover
        """The text of what ``seat`` may see (``None``: the omniscient view)."""
        raise NotImplementedError


def max_total(
    per_step: int, steps: int | None, target_score: int | None, out_at: int | None = None
) -> int:
    """Highest game total a seat can reach when each of at most ``steps`` scoring steps (a
    turn, a round) adds at most ``per_step``, or, with a ``target_score`` that ends the game
    once reached, one step past a total just below it (the bound of a ``totals`` piece).
    ``out_at``: the lowest total that ends a seat's game when it is not ``target_score``
    itself (``target_score + 1`` for a target that must be exceeded)."""
    bounds = []
    if steps is not None:
        bounds.append(per_step * steps)
    if target_score is not None:
        bounds.append((target_score if out_at is None else out_at) - 1 + per_step)
    return min(bounds)


def _num(x: float) -> str:
    return f"{x:g}"
