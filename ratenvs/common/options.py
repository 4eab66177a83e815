"""Game options declared once: checks, env signatures, docs tables and CLI defaults.

Every game declares its options in one :class:`OptionSpec` (as OpenSpiel's
``parameter_specification``): name, type, default, allowed values or range and
one line of help. The env's signature, the docstring's options table, the
CLI's ``--help`` defaults and a record's ``options`` all come from it. Bad input
fails loudly and names the option; numpy integers are accepted where ints are.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import numbers
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np


class UnknownOptionError(ValueError, TypeError):
    """An option name the game does not have (a TypeError too, as for any unexpected keyword
    argument)."""


def check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    """Return ``value`` as an int in ``[low, high]`` or raise a ValueError naming ``name``.

    Python and numpy integers are accepted, and floats with an integral value
    (``3.0``); booleans, NaN, infinities and other types are not.
    """
    if isinstance(value, bool | np.bool_):
        raise ValueError(f"option {name!r} must be an integer, got {value!r}")
    finite = isinstance(value, numbers.Real) and math.isfinite(value)
    if isinstance(value, numbers.Integral) or (finite and int(value) == value):
        value = int(value)
    else:
        raise ValueError(f"option {name!r} must be an integer, got {value!r}")
    if value < low or (high is not None and value > high):
        bound = f">= {low}" if high is None else f"in {low}..{high}"
        raise ValueError(f"option {name!r} must be {bound}, got {value}")
    return value


def finite_real(value: Any) -> bool:
    """Whether ``value`` is a Python or numpy real (integers too), not a boolean, whose
    float is finite: not NaN, not an infinity, not an int beyond a float."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:  # an int beyond a float
        return False


def check_float(name: str, value: Any) -> float:
    """Return ``value`` as a finite float or raise a ValueError naming ``name``.

    Python and numpy reals are accepted (integers too: ``-1`` is ``-1.0``); booleans,
    NaN, infinities, strings, arrays and complex numbers are not (a NaN reward would
    reach the learner's loss unseen): :func:`finite_real`."""
    if not finite_real(value):
        raise ValueError(f"option {name!r} must be a finite number, got {value!r}")
    return float(value)


def _is_choice(value: Any, choice: Any) -> bool:
    """``value`` is ``choice``: the same kind of thing (text for text, a number for a number,
    a bool for a bool) and equal to it. An array, a list or a complex number never is, so
    ``numpy.array(["score"])`` or ``4 + 0j`` does not pass for a choice."""
    if isinstance(choice, bool | np.bool_):
        return isinstance(value, bool | np.bool_) and bool(value) == bool(choice)
    if isinstance(choice, str):
        return isinstance(value, str) and value == choice
    if isinstance(choice, numbers.Real):
        return (
            isinstance(value, numbers.Real)
            and not isinstance(value, bool | np.bool_)
            and bool(value == choice)
        )
    try:
        same = value == choice
    except Exception:  # a value that cannot even be compared is no choice
        return False
    return isinstance(same, bool | np.bool_) and bool(same)


def check_choice(name: str, value: Any, choices: Iterable[Any]) -> Any:
    """Return the choice ``value`` is (one of ``choices``), else raise a ValueError naming
    ``name``. A value is a choice if it is of the choice's kind and equal to it (numpy
    strings and integers too, ``4.0`` for ``4``); arrays and containers never are."""
    choices = tuple(choices)
    for choice in choices:
        if _is_choice(value, choice):
            return choice
    raise ValueError(f"option {name!r} must be one of {choices}, got {value!r}")


def check_bool(name: str, value: Any) -> bool:
    """Return ``value`` if it is a bool (``numpy.bool_`` too), else raise a ValueError naming
    ``name`` (so ``"false"`` or ``0`` from a config file cannot pass as a switch)."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"option {name!r} must be True or False, got {value!r}")
    return bool(value)


def check_optional_int(name: str, value: Any, low: int, high: int | None = None) -> int | None:
    """Like :func:`check_int` but ``None`` is allowed (the option is off)."""
    return None if value is None else check_int(name, value, low, high)


def check_seed(value: Any, name: str = "seed") -> int | None:
    """Return ``value`` as a seed: None (fresh entropy) or a non-negative integer (Python or
    numpy); anything else - a bool, a float, a string, a negative number, a sequence - is a
    ValueError naming ``name`` and the value, raised before anything is seeded."""
    if value is None:
        return None
    integer = isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)
    if integer and value >= 0:
        return int(value)
    raise ValueError(f"{name} must be None or an integer >= 0, got {value!r}")


def check_render_mode(value: Any, modes: Iterable[str]) -> str | None:
    """A render mode is ``None`` or one of the env's ``metadata["render_modes"]``."""
    if value is None:
        return None
    return check_choice("render_mode", value, modes)


@dataclass(frozen=True)
class Option:
    """One option of a game: its name, type, default, allowed values and one line of help.

    ``kind`` is ``"int"``, ``"bool"`` or ``"choice"``. An int option has a range
    ``low .. high`` (``high`` None: unbounded) and may allow ``None``
    (``optional``: the option is off); a choice option lists its ``choices``.

    ``view_only`` marks an option that changes only what a seat sees or how it is
    rewarded, never the play: the same seed and actions give the same states, masks and
    winners whatever its value (a test of every game proves it). Seats of one table may
    differ in such options (:class:`ratenvs.common.bots.OwnView`), so agents trained with
    other values of them can meet.
    """

    name: str
    kind: str
    default: Any
    help: str
    low: int | None = None
    high: int | None = None
    choices: tuple[Any, ...] = ()
    optional: bool = False
    view_only: bool = False

    def check(self, value: Any) -> Any:
        """``value`` checked and normalised (a ValueError names the option)."""
        if self.kind == "int":
            if self.optional:
                return check_optional_int(self.name, value, self.low or 0, self.high)
            return check_int(self.name, value, self.low or 0, self.high)
        if self.kind == "bool":
            return check_bool(self.name, value)
        if self.kind == "choice":
            return check_choice(self.name, value, self.choices)
        raise AssertionError(f"unknown option kind {self.kind!r}")  # pragma: no cover

    @property
    def allowed(self) -> str:
        """The allowed values in words, for tables and ``--help``."""
        if self.kind == "bool":
            return "True / False"
        if self.kind == "choice":
            return " / ".join(repr(c) for c in self.choices)
        rng = f"{self.low}..{self.high}" if self.high is not None else f">= {self.low}"
        return rng + (" or None" if self.optional else "")

    @property
    def annotation(self) -> Any:
        """The Python type of the option's values (for the env signatures)."""
        base = {"int": int, "bool": bool, "choice": type(self.choices[0]) if self.choices else str}
        t = base[self.kind]
        return t | None if self.optional else t


@dataclass(frozen=True)
class OptionRule:
    """A rule between options that no one option's own check can say, e.g. "a latency
    floor below the window a card stays open".

    ``options`` are the options it ties; ``broken(values)`` reads the checked values and
    returns None when the rule holds, else the error message (a ValueError at every door,
    after each option's own check). ``text`` says the rule in one line for the docs tables.
    ``companions[name]`` gives values of the other options under which every allowed value
    of ``name`` keeps the rule (what a sweep over ``name`` sets beside it).
    """

    options: tuple[str, ...]
    text: str
    broken: Callable[[Mapping[str, Any]], str | None]
    companions: Mapping[str, Mapping[str, Any]] = dataclasses.field(default_factory=dict)


class OptionSpec(Mapping[str, Option]):
    """The options of one game, in declaration order (a read-only mapping name -> Option),
    and the :class:`OptionRule` s between them (``rules``)."""

    def __init__(self, *options: Option, rules: Iterable[OptionRule] = ()) -> None:
        self._options = {o.name: o for o in options}
        if len(self._options) != len(options):
            raise ValueError("option names must be unique")
        self.rules: tuple[OptionRule, ...] = tuple(rules)
        for rule in self.rules:
            unknown = [n for n in (*rule.options, *rule.companions) if n not in self._options]
            for companion in rule.companions.values():
                unknown += [n for n in companion if n not in self._options]
            if unknown:
                raise ValueError(f"option rule {rule.text!r} names unknown options {unknown}")

    def __getitem__(self, name: str) -> Option:
        return self._options[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._options)

    def __len__(self) -> int:
        return len(self._options)

    def defaults(self) -> dict[str, Any]:
        """Every option at its default."""
        return {name: o.default for name, o in self._options.items()}

    def check(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Every option, from ``values`` or its default, checked one by one in declaration
        order, then the :attr:`rules` between them; an unknown name is a ValueError listing
        the options."""
        unknown = sorted(set(values) - set(self._options))
        if unknown:
            raise UnknownOptionError(
                f"unknown option(s) {unknown}; the options are {list(self._options)}"
            )
        checked = {name: o.check(values.get(name, o.default)) for name, o in self._options.items()}
        for rule in self.rules:
            message = rule.broken(checked)
            if message is not None:
                raise ValueError(message)
        return checked

    def companions(self, name: str) -> dict[str, Any]:
        """Values of other options under which every allowed value of ``name`` keeps every
        rule (empty when no rule needs any); a KeyError for an unknown option."""
        self._options[name]
        out: dict[str, Any] = {}
        for rule in self.rules:
            out.update(rule.companions.get(name, {}))
        return out

    def rules_of(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The options of ``values`` that decide the play (:meth:`check`, without the
        ``view_only`` ones): two sets of values with the same rules give the same games
        from the same seed and actions."""
        checked = self.check(values)
        return {k: v for k, v in checked.items() if not self._options[k].view_only}

    def view_options(self) -> tuple[str, ...]:
        """The names of the ``view_only`` options (what a seat sees or is rewarded with)."""
        return tuple(name for name, o in self._options.items() if o.view_only)

    def table(self) -> str:
        """The options as a Markdown table (option, default, allowed values, meaning)."""
        rows = ["| option | default | allowed | meaning |", "|---|---|---|---|"]
        for o in self._options.values():
            rows.append(f"| `{o.name}` | `{o.default!r}` | {o.allowed} | {o.help} |")
        return "\n".join(rows)

    def rules_text(self) -> str:
        """The :attr:`rules` as Markdown bullets under "Rules between options" (empty text
        when there are none)."""
        if not self.rules:
            return ""
        return "Rules between options:\n\n" + "\n".join(f"- {r.text}" for r in self.rules)

    def signature(self, extra: Iterable[inspect.Parameter] = ()) -> inspect.Signature:
        """A keyword-only signature ``(self, *, option=default, ...)`` for an env's ``__init__``."""
        params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        params += [
            inspect.Parameter(
                o.name, inspect.Parameter.KEYWORD_ONLY, default=o.default, annotation=o.annotation
            )
            for o in self._options.values()
        ]
        params += list(extra)
        return inspect.Signature(params)

    def add_arguments(
        self, parser: Any, names: Iterable[str] | None = None, defaults: Mapping[str, Any] = {}
    ) -> None:
        """Add ``--name`` arguments to an argparse parser for ``names`` (all by default), with
        the spec's (or ``defaults``') default shown in ``--help``."""
        for name in names if names is not None else self._options:
            o = self._options[name]
            default = defaults.get(name, o.default)
            flag = "--" + name.replace("_", "-")
            helptext = f"{o.help} ({o.allowed}; default: {default!r})".replace("%", "%%")
            if o.kind == "bool":
                parser.add_argument(
                    flag, dest=name, action=_BoolAction, default=default, help=helptext
                )
            else:
                parser.add_argument(
                    flag, dest=name, type=_parser_type(o), default=default, help=helptext
                )


def _parser_type(option: Option) -> Callable[[str], Any]:
    if option.kind == "int":

        def parse(text: str) -> int | None:
            import argparse

            if option.optional and text.lower() == "none":
                return None
            try:
                return int(text)
            except ValueError:  # the range is the option's check, with the option's name
                raise argparse.ArgumentTypeError(
                    f"must be an integer ({option.allowed}), got {text!r}"
                ) from None

        return parse
    return str


class _BoolAction:  # an argparse action taking "true"/"false"
    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        import argparse

        class BoolAction(argparse.Action):
            def __init__(self, option_strings: Any, dest: str, **kw: Any) -> None:
                super().__init__(option_strings, dest, nargs="?", const=True, **kw)

            def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None):
                if isinstance(values, str):
                    if values.lower() not in ("true", "false", "1", "0", "yes", "no"):
                        parser.error(f"{option} takes true or false, got {values!r}")
                    values = values.lower() in ("true", "1", "yes")
                setattr(namespace, self.dest, bool(values))

        return BoolAction(*args, **kwargs)


RENDER_VIEW_HELP = 'whose view render() shows: "omniscient" or an agent name'
