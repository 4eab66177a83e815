"""Atomic file writes: an interrupted write leaves the old file or the new one, never half of one.

:func:`atomic_file` hands out a binary file in the target's folder (a temporary
``.<name>.<random>.tmp``, so the rename stays on one file system); when the ``with``
block ends it is flushed, fsync'd and renamed over the target with ``os.replace``
(atomic on POSIX and Windows), and the folder is fsync'd. If the block raises
(``KeyboardInterrupt`` included) the temporary file is removed and the target, if it
existed, is left untouched.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

TEMP_SUFFIX = ".tmp"
"""Suffix of the temporary files (named ``.<target name>.<random>.tmp``)."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s new contents to, moved into place on success.

    Usage: ``with atomic_file(path) as fh: fh.write(data)``. The file gets the
    permissions ``open()`` would give it (not ``mkstemp``'s 0600).
    """
    path = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, "no such folder", str(path.parent)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            if hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), 0o666 & ~_UMASK)
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


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
