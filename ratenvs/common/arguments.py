"""What every command line shares (``ratenvs``, and ``python -m training.*`` in the
repository): a mistake ends in one line on stderr and exit status 2, found before any long
work starts.

- :class:`ArgumentParser`: argparse's parser whose errors are one line
  (``error: argument --fps: ... (see ratenvs replay --help)``), exit status 2.
- argparse types that say what is allowed: :func:`int_in`, :func:`number_in`,
  :data:`SEED`.
- early checks of the files an argument names: :func:`input_file`,
  :func:`input_folder`, :func:`output_file`, :func:`output_folder` (the folder they
  would be written in exists or can be made, and takes a file: checked by writing one).
- :class:`UsageError` (a ValueError) for a mistake found in ``main``, and :func:`report`,
  which prints any error as the one ``error: ...`` line and returns 2.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from ratenvs.common.safe_load import MAX_BYTES, LoadError, read_regular_file

EXIT_USAGE = 2
INTERRUPTED_STATUS = 130
"""The exit status after Ctrl-C (128 + SIGINT, as shells report it)."""
"""The exit status of every mistake on the command line (argparse's own)."""

MAX_SEED = 2**32 - 1
"""Largest seed: the generators every door seeds (numpy's legacy seeding, which
stable-baselines3 uses, takes 0 .. 2**32 - 1)."""


class UsageError(ValueError):
    """A mistake on the command line (an argument, or what a file it names holds)."""


class ArgumentParser(argparse.ArgumentParser):
    """An ``argparse.ArgumentParser`` whose errors are one line on stderr, exit status 2:
    ``error: <what argparse says> (see <prog> --help)`` (no usage block)."""

    typed: frozenset[str] = frozenset()
    """The dests of the arguments typed on the last command line parsed (not those left at
    their defaults, even where a typed value equals the default)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"error: {one_line(message)} (see {self.prog} --help)\n")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed = super().parse_known_args(args, namespace)
        defaults = [(action, action.default, action.choices) for action in self._actions]
        try:  # again with no defaults: what is left in the namespace was typed
            for action, _, _ in defaults:
                action.default = argparse.SUPPRESS
                if not action.option_strings and action.nargs in ("?", "*"):
                    # an absent optional positional's default is checked against its
                    # choices, and SUPPRESS is none of them
                    action.choices = None
            bare, _ = super().parse_known_args(args, argparse.Namespace())
        finally:
            for action, default, choices in defaults:
                action.default = default
                action.choices = choices
        self.typed = frozenset(vars(bare)) - set(self._defaults)  # set_defaults: not typed
        return parsed


def one_line(message: object) -> str:
    """``message`` on one line: its lines joined with ``; ``."""
    lines = [line.strip() for line in str(message).splitlines()]
    return "; ".join(line for line in lines if line) or type(message).__name__


def report(error: BaseException) -> int:
    """Print ``error`` as one ``error: ...`` line on stderr; return the exit status 2."""
    text = one_line(error) if str(error) else type(error).__name__
    print(f"error: {text}", file=sys.stderr)
    return EXIT_USAGE


# ------------------------------------------------------------------ types
def int_in(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in ``low .. high`` (``high`` None: no upper bound)."""
    allowed = f"an integer >= {low:,}" if high is None else f"an integer in {low:,}..{high:,}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {value}")
        return value

    parse.__name__ = "integer"
    return parse


def number_in(low: float, high: float, *, above: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number in ``[low, high]`` (``above``: ``low`` excluded).
    NaN and infinities are refused."""
    allowed = f"a number {'above' if above else 'from'} {_show(low)} up to {_show(high)}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}") from None
        inside = (low < value if above else low <= value) and value <= high
        if not (math.isfinite(value) and inside):
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}")
        return value

    parse.__name__ = "number"
    return parse


def _show(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


SEED = int_in(0, MAX_SEED)
"""The argparse type of every ``--seed``."""


# ------------------------------------------------------------------ files
def input_file(flag: str, path: str | Path, error: type[Exception] = UsageError) -> Path:
    """``path`` (named by ``flag``) is an existing regular file; else ``error`` (a FIFO, a
    device or a socket is named as what it is: reading one would block or never end)."""
    path = Path(path)
    if not path.exists():
        raise error(f"{flag} {path}: no such file")
    if path.is_dir():
        raise error(f"{flag} {path}: is a folder, not a file")
    if not path.is_file():
        kind = "a FIFO (named pipe)" if path.is_fifo() else "a device or socket"
        raise error(f"{flag} {path}: is {kind}, not a regular file")
    return path


def input_folder(flag: str, path: str | Path, error: type[Exception] = UsageError) -> Path:
    """``path`` (named by ``flag``) is an existing folder; else ``error``."""
    path = Path(path)
    if not path.exists():
        raise error(f"{flag} {path}: no such folder")
    if not path.is_dir():
        raise error(f"{flag} {path}: is a file, not a folder")
    return path


def output_file(
    flag: str, path: str | Path, error: type[Exception] = UsageError, *, make_folder: bool = True
) -> Path:
    """A file may be written at ``path`` (named by ``flag``): it is not a folder, and the
    folder it goes in exists (or, with ``make_folder``, can be made) and takes a new file;
    else ``error``."""
    path = Path(path)
    if path.is_dir():
        raise error(f"{flag} {path}: is a folder, not a file")
    from ratenvs.common.atomic import NotARegularFileError, check_regular_or_new

    try:
        check_regular_or_new(path)
    except NotARegularFileError:
        raise error(
            f"{flag} {path}: not a regular file (a device, pipe or socket); give a file"
        ) from None
    if not make_folder and not path.parent.is_dir():
        what = "no such folder" if not path.parent.exists() else "not a folder"
        raise error(f"{flag} {path}: {what}: {path.parent}")
    _writable_folder(flag, path, path.parent, error)
    return path


def results_file(
    flag: str, path: str | Path, error: type[Exception] = UsageError, *, make_folder: bool = False
) -> Path:
    """:func:`output_file` for a file of results (``--json``, ``--markdown``, a game record,
    a GIF, an exported model), which is also not a checkpoint's card (weights files of its
    name beside it: written there, the results would leave the weights without the card
    that names them) nor a checkpoint's weights file (its card would name weights that are
    gone)."""
    from ratenvs.agents.checkpoint import is_weights_file, owned_files

    path = output_file(flag, path, error, make_folder=make_folder)
    if path.suffix == ".json" and path.is_file() and owned_files(path):
        raise error(
            f"{flag} {path}: is the card of a checkpoint (its weights are beside it); write "
            "the results to another file"
        )
    if path.is_file() and is_weights_file(path):
        raise error(
            f"{flag} {path}: is a checkpoint's weights file; write the results to another file"
        )
    return path


def same_file(a: str | Path, b: str | Path) -> bool:
    """Whether paths ``a`` and ``b`` name one file (links followed; a path that does not
    exist yet is compared by its resolved name)."""
    return Path(a).resolve() == Path(b).resolve()


def output_folder(flag: str, path: str | Path, error: type[Exception] = UsageError) -> Path:
    """Files may be written in the folder ``path`` (named by ``flag``): it is a folder or
    does not exist yet, and the nearest existing folder on its way takes a new file."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise error(f"{flag} {path}: is a file, not a folder")
    _writable_folder(flag, path, path, error)
    return path


def _writable_folder(flag: str, path: Path, folder: Path, error: type[Exception]) -> None:
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise error(f"{flag} {path}: {existing} is a file, not a folder")
    try:
        with tempfile.TemporaryFile(dir=existing, prefix=".write-check-"):
            pass
    except OSError as exc:
        raise error(f"{flag} {path}: cannot write in {existing} ({exc.strerror})") from None


def read_text(
    flag: str,
    path: str | Path,
    what: str,
    error: type[Exception] = UsageError,
    max_bytes: int = MAX_BYTES,
) -> str:
    """The UTF-8 text of the file ``path`` (named by ``flag``, holding ``what``): a missing
    file, a folder, a FIFO or device, a file over ``max_bytes``, or bytes that are not UTF-8
    text are ``error``."""
    path = input_file(flag, path, error)
    try:
        return read_regular_file(path, what=flag, max_bytes=max_bytes).decode("utf-8")
    except LoadError as exc:
        raise error(str(exc)) from None
    except UnicodeDecodeError:
        raise error(f"{flag} {path}: not {what} (not UTF-8 text)") from None
    except OSError as exc:
        raise error(f"{flag} {path}: cannot read it ({exc.strerror})") from None


def given(args: argparse.Namespace, *names: str) -> list[str]:
    """The ``--flags`` among ``names`` (argparse dests) that the command line gave (their
    value is not None: such arguments default to None)."""
    return ["--" + n.replace("_", "-") for n in names if getattr(args, n) is not None]


def only_with(args: argparse.Namespace, mode: str, names: tuple[str, ...]) -> None:
    """Refuse the arguments ``names`` (defaulting to None) when ``mode`` is off."""
    extra = given(args, *names)
    if extra:
        raise UsageError(f"{', '.join(extra)}: only with {mode}")
