"""Atomic file writes: a kill at any moment leaves the old file or the new one, never a
truncated one.

:func:`atomic_write` is :func:`ratenvs.common.atomic.atomic_file` (the library's one
atomic write) with a writer callback: a temporary file in the target's folder (so the
rename stays on one file system), flushed and fsync'd, renamed into place with
``os.replace`` (atomic on POSIX and Windows), the folder fsync'd. On any exception the
temporary file is removed and the previous file, if any, is left untouched; a full disk is
one :class:`~ratenvs.common.atomic.DiskFullError` line naming the file ("no space left on
device writing PATH"), and the temporary file a killed write left is removed by the next
write to its target (:func:`~ratenvs.common.atomic.remove_stale_temporaries`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from ratenvs.common.atomic import TEMP_SUFFIX, atomic_file

__all__ = ["TEMP_SUFFIX", "atomic_copy", "atomic_write", "atomic_write_bytes", "atomic_write_text"]


def atomic_write(path: str | Path, write_fn: Callable[[IO[bytes]], Any]) -> Path:
    """Write ``path`` atomically (its folder made if missing): ``write_fn`` gets a binary
    file object to write to."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_file(path) as fh:
        write_fn(fh)
    return path


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically."""
    return atomic_write(path, lambda fh: fh.write(data))


def atomic_write_text(path: str | Path, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically."""
    return atomic_write_bytes(path, text.encode(encoding))


def atomic_copy(source: str | Path, dest: str | Path) -> Path:
    """Copy ``source`` to ``dest`` byte for byte, atomically."""
    import shutil

    def copy(fh: IO[bytes]) -> None:
        with Path(source).open("rb") as src:
            shutil.copyfileobj(src, fh, 1 << 20)

    return atomic_write(dest, copy)
