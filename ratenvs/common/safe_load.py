"""Bounded reading of the JSON and YAML files the project reads (records, replays, cards,
configs, results): a file too big, not a regular file, nested too deep or not valid is one
:class:`LoadError` line naming the file and the limit, never a traceback.

The checks come before the work they guard:

- the file is looked at (``os.stat``) before it is opened: only a regular file is read (a
  folder, a FIFO, ``/dev/zero``, a socket is an error saying what it is; opening a FIFO
  would block), and one larger than ``max_bytes`` is refused before a byte is read (and
  at most ``max_bytes + 1`` bytes are ever read, should it grow meanwhile);
- JSON nesting is measured by a linear scan of the text (brackets outside strings) before
  ``json.loads`` sees it (CPython's parser recurses: 100,000 ``[`` was a RecursionError);
- YAML is composed by PyYAML's safe loader counting its depth as it goes (its composer
  recurses too), so a 50,000-deep flow (``[[[...``) or block (``- - - ...``) document is
  refused at ``max_depth + 1`` levels, after reading only that far; aliases are refused
  (nested aliases expand exponentially).

JSON numbers are strict by default: ``NaN``, ``Infinity`` and ``-Infinity`` (which Python's
``json`` accepts) are refused, so is a literal that overflows to infinity (``1e999``), and
an integer literal beyond Python's digit limit (4,300 digits).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "LoadError",
    "json_depth",
    "load_json_file",
    "load_yaml_file",
    "loads_json",
    "loads_yaml",
    "read_regular_file",
]

MAX_BYTES = 64 * 1024 * 1024
"""Default largest file read: 64 MiB (a game record with its chance log is kilobytes)."""

MAX_DEPTH = 64
"""Default deepest nesting of lists and mappings (the project's files nest a few levels)."""


class LoadError(ValueError):
    """A file or text the project reads is refused: too big, not a regular file, nested
    too deep, not valid JSON/YAML. The message is one line naming the input (and the
    limit, when one was passed)."""


class MissingFileError(LoadError, FileNotFoundError):
    """The file to read does not exist (also a FileNotFoundError, for callers that catch
    that)."""


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _label(what: str, path: Path) -> str:
    return f"{what} {path}" if what else str(path)


def read_regular_file(
    path: str | os.PathLike[str], *, what: str = "", max_bytes: int = MAX_BYTES
) -> bytes:
    """The bytes of ``path``, a regular file of at most ``max_bytes`` bytes; else a
    :class:`LoadError` naming it (``what``: what the file is, e.g. ``"game record"``)."""
    path = Path(path)
    label = _label(what, path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise MissingFileError(f"{label}: no such file") from None
    except OSError as err:
        raise LoadError(f"{label}: cannot read it ({err.strerror or err})") from None
    if not stat.S_ISREG(info.st_mode):
        raise LoadError(f"{label}: {_kind_of(info.st_mode)}, not a regular file")
    if info.st_size > max_bytes:
        raise LoadError(f"{label}: {info.st_size:,} bytes, more than the limit of {max_bytes:,}")
    try:
        # O_NONBLOCK: should a FIFO replace the file after the stat, open does not block
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as err:
        raise LoadError(f"{label}: cannot read it ({err.strerror or err})") from None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise LoadError(f"{label}: not a regular file")
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise LoadError(f"{label}: more than the limit of {max_bytes:,} bytes")
    return data


def _text(data: bytes, label: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise LoadError(f"{label}: not UTF-8 text (byte {err.start})") from None


_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)', re.DOTALL)
"""A JSON string, or an unterminated one running to the end: written so that it never
fails once started (each string is matched once: linear time, where ``"(?:[^"\\]|\\.)*"``
was quadratic on ``"\\"\\"\\"...``, 19 s for 80 kB)."""
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def json_depth(text: str) -> int:
    """How deep the lists and objects of JSON ``text`` nest (brackets inside strings do not
    count), by a linear scan; 0 for a bare number or string."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    if not brackets:
        return 0
    codes = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.cumsum(steps).max())


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a finite number")


def _finite_float(literal: str) -> float:
    number = float(literal)
    if not math.isfinite(number):
        raise ValueError(f"{literal} is not a finite number")
    return number


def loads_json(text: str, *, what: str, max_depth: int = MAX_DEPTH, allow_nan: bool = False) -> Any:
    """Parse JSON ``text`` (``what``: what it is, for the message), refusing nesting deeper
    than ``max_depth`` before parsing and ``NaN`` / ``Infinity`` unless ``allow_nan``;
    every refusal a one-line :class:`LoadError`."""
    depth = json_depth(text)
    if depth > max_depth:
        raise LoadError(f"{what}: nested {depth:,} levels deep, more than the limit of {max_depth}")
    try:
        if allow_nan:
            return json.loads(text)
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError as err:
        raise LoadError(f"{what}: not valid JSON ({err})") from None
    except (ValueError, RecursionError) as err:  # a huge integer literal, NaN refused
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise LoadError(f"{what}: not valid JSON ({message})") from None


def load_json_file(
    path: str | os.PathLike[str],
    *,
    what: str,
    max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH,
    allow_nan: bool = False,
) -> Any:
    """The JSON data of the file ``path`` (``what`` it is: ``"game record"``, ``"card"``...),
    read by :func:`read_regular_file` and parsed by :func:`loads_json`."""
    path = Path(path)
    label = _label(what, path)
    text = _text(read_regular_file(path, what=what, max_bytes=max_bytes), label)
    return loads_json(text, what=label, max_depth=max_depth, allow_nan=allow_nan)


# ------------------------------------------------------------------------ YAML
def _depth_limited_loader() -> type:
    import yaml

    class DepthLimitedLoader(yaml.SafeLoader):
        """PyYAML's SafeLoader that counts how deep it composes (refusing more than
        ``max_depth`` levels before its recursion gets there) and refuses aliases."""

        max_depth = MAX_DEPTH
        what = ""
        """Named at the head of its errors (none: they start at the line)."""

        def __init__(self, stream: Any) -> None:
            super().__init__(stream)
            self._depth = 0

        def _where(self) -> str:
            return f"{self.what}: " if self.what else ""

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent):
                raise LoadError(
                    f"{self._where()}line {event.start_mark.line + 1}: YAML aliases "
                    f"(*{event.anchor}) are not allowed; write the value out"
                )
            if isinstance(event, yaml.CollectionStartEvent):
                self._depth += 1
                if self._depth > self.max_depth:
                    raise LoadError(
                        f"{self._where()}line {event.start_mark.line + 1}: nested more than "
                        f"the limit of {self.max_depth} levels deep"
                    )
                try:
                    return super().compose_node(parent, index)
                finally:
                    self._depth -= 1
            return super().compose_node(parent, index)

    return DepthLimitedLoader


_LOADER: type | None = None


def yaml_loader() -> type:
    """The depth-limited SafeLoader class (PyYAML needed; a subclass may add checks)."""
    global _LOADER
    if _LOADER is None:
        _LOADER = _depth_limited_loader()
    return _LOADER


def loads_yaml(
    text: str, *, what: str, max_depth: int = MAX_DEPTH, loader: type | None = None
) -> Any:
    """Parse one YAML document with the safe loader (``loader``: a subclass of
    :func:`yaml_loader`), refusing nesting deeper than ``max_depth`` and aliases; every
    refusal a one-line :class:`LoadError` naming ``what``."""
    import yaml

    cls = loader or yaml_loader()
    instance = cls(text)
    instance.max_depth = max_depth
    instance.what = what
    try:
        return instance.get_single_data()
    except yaml.YAMLError as err:
        message = " ".join(str(err).split())
        raise LoadError(f"{what}: not valid YAML ({message})") from None
    except RecursionError:  # pragma: no cover - the depth limit comes first
        raise LoadError(f"{what}: nested too deep") from None
    finally:
        instance.dispose()


def load_yaml_file(
    path: str | os.PathLike[str],
    *,
    what: str,
    max_bytes: int = MAX_BYTES,
    max_depth: int = MAX_DEPTH,
    loader: type | None = None,
) -> Any:
    """The YAML data of the file ``path`` (read by :func:`read_regular_file`, parsed by
    :func:`loads_yaml`); PyYAML must be installed (the ``train`` extra has it)."""
    path = Path(path)
    label = _label(what, path)
    text = _text(read_regular_file(path, what=what, max_bytes=max_bytes), label)
    return loads_yaml(text, what=label, max_depth=max_depth, loader=loader)
