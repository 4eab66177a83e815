"""Progress bars of the long commands (``ratenvs evaluate``, ``ratenvs exploit``): tqdm on
stderr, redrawn twice a second on a terminal and written as a line a minute elsewhere (a
log file). tqdm comes with the train extra; without it there is no bar."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any


@contextlib.contextmanager
def progress_bar(total: int, label: str, unit: str) -> Iterator[Callable[..., None] | None]:
    """A bar of ``total`` things (``unit``: their name) labelled ``label``: yields
    ``advance(n=1)`` (``n`` more done), or None where tqdm is not installed. The bar appears
    at the first ``advance``, so a mistake found before the work starts stays one line."""
    try:
        from tqdm import tqdm
    except ModuleNotFoundError:
        yield None
        return
    interactive = sys.stderr.isatty()
    bars: list[Any] = []

    def advance(n: int = 1) -> None:
        if not bars:
            bars.append(
                tqdm(
                    total=total,
                    desc=label,
                    unit=unit,
                    unit_scale=total >= 10_000,
                    mininterval=0.5 if interactive else 60.0,
                    dynamic_ncols=interactive,
                )
            )
        bars[0].update(n)

    try:
        yield advance
    finally:
        for bar in bars:
            bar.close()
