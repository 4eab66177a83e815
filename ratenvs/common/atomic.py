"""Atomic file writes: an interrupted write leaves the old file or the new one, never half of one.

:func:`atomic_file` hands out a binary file in the target's folder (a temporary
``.<name>.<random>.tmp``, so the rename stays on one file system); when the ``with``
block ends it is flushed, fsync'd and renamed over the target with ``os.replace``
(atomic on POSIX and Windows), and the folder is fsync'd. If the block raises
(``KeyboardInterrupt`` included) the temporary file is removed and the target, if it
existed, is left untouched; a full disk (``ENOSPC``, ``EDQUOT``) is a
:class:`DiskFullError` naming the target.

A write killed outright (SIGKILL, power loss) cannot remove its temporary file. The next
write to the same target removes such leftovers: a regular file named exactly as this
module names the target's temporary files (``.<name>.`` + 8 random characters + ``.tmp``)
and last modified before the writing process started (:data:`PROCESS_STARTED`) - so a
write under way in this process is never touched, and another file never matches.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

TEMP_SUFFIX = ".tmp"
"""Suffix of the temporary files (named ``.<target name>.<random>.tmp``)."""

PROCESS_STARTED = time.time()
"""When this process began writing files (this module's import): a temporary file last
modified before it is a leftover of an earlier, killed write."""

_RANDOM = "[a-z0-9_]{8}"
"""The random part of a temporary file's name (``tempfile``'s eight characters)."""


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _umask()


DISK_FULL = frozenset(
    code for code in (errno.ENOSPC, getattr(errno, "EDQUOT", None)) if code is not None
)
"""The errors of a full disk (or a used-up quota)."""


class DiskFullError(OSError):
    """No space left on the device (or the quota used up) writing a file: one line naming
    it (``no space left on device writing PATH``); the file's old contents are kept."""

    def __str__(self) -> str:
        return f"no space left on device writing {self.filename}"


class NotARegularFileError(OSError):
    """The path to write exists and is not a regular file (a device, a pipe, a socket)."""

    def __str__(self) -> str:
        return f"{self.filename}: not a regular file (a device, pipe or socket); not written"


def check_regular_or_new(path: str | os.PathLike[str]) -> None:
    """``path`` (its symbolic links followed) does not exist or is a regular file; else a
    :class:`NotARegularFileError` (a folder is left to the caller's own check)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    except OSError:
        return  # unreadable: the write itself says why
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise NotARegularFileError(errno.EINVAL, "not a regular file", str(path))


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file to write ``path``'s new contents to, moved into place on success.

    Usage: ``with atomic_file(path) as fh: fh.write(data)``. The file gets the
    permissions ``open()`` would give it (not ``mkstemp``'s 0600). A symbolic link is
    written through (its target replaced, the link kept); an existing path that is not a
    regular file (a device such as ``/dev/null``, a pipe, a socket) is a
    :class:`NotARegularFileError`, left as it is (a rename would replace the device).
    """
    path = Path(os.path.realpath(path))
    check_regular_or_new(path)
    remove_stale_temporaries(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TEMP_SUFFIX)
    except FileNotFoundError:
        raise FileNotFoundError(errno.ENOENT, "no such folder", str(path.parent)) from None
    except OSError as err:
        if err.errno in DISK_FULL:
            raise DiskFullError(err.errno, os.strerror(err.errno), str(path)) from None
        raise
    try:
        with os.fdopen(fd, "wb") as fh:
            if hasattr(os, "fchmod"):
                os.fchmod(fh.fileno(), 0o666 & ~_UMASK)
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        full = isinstance(err, OSError) and err.errno in DISK_FULL
        if full and not isinstance(err, DiskFullError):
            raise DiskFullError(err.errno, os.strerror(err.errno), str(path)) from None
        raise
    _fsync_dir(path.parent)


def remove_stale_temporaries(path: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporary files that killed writes to ``path`` left beside it (named as
    :func:`atomic_file` names them, last modified before :data:`PROCESS_STARTED`); return
    them. Best effort: a folder that cannot be listed, or a file that cannot be removed,
    is left as it is (the write itself reports a real problem)."""
    path = Path(path)
    pattern = re.compile(re.escape(f".{path.name}.") + _RANDOM + re.escape(TEMP_SUFFIX))
    removed = []
    try:
        entries = os.scandir(path.parent)
    except OSError:
        return removed
    with entries:
        for entry in entries:
            if not pattern.fullmatch(entry.name):
                continue
            try:
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(info.st_mode) and info.st_mtime < PROCESS_STARTED:
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
            except OSError:
                continue
    return removed


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
