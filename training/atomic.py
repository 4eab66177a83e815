"""Atomic file writes: a kill at any moment leaves the old file or the new one, never a
truncated one.

:func:`atomic_write` writes to a temporary file in the target's folder (so the rename
stays on one file system), flushes and fsyncs it, then renames it into place with
``os.replace`` (atomic on POSIX and Windows) and fsyncs the folder. On any exception the
temporary file is removed and the previous file, if any, is left untouched.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

TEMP_SUFFIX = ".tmp"
"""Suffix of the temporary files (named ``.<target name>.<random>.tmp``)."""

_UMASK = os.umask(0)
os.umask(_UMASK)


def atomic_write(path: str | Path, write_fn: Callable[[IO[bytes]], Any]) -> Path:
    """Write ``path`` atomically: ``write_fn`` gets a binary file object to write to."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as fh:
            if hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), 0o666 & ~_UMASK)  # as open() would, not mkstemp's 0600
            write_fn(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)
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


def _fsync_dir(directory: Path) -> None:
    """Make the rename durable (best effort: not every platform opens folders)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
