"""The documentation site's game pages, generated from the code.

One page per game of :data:`ratenvs.games.GAMES`, in the form of PettingZoo's environment
pages: the import line, the summary table, pictures, the description, the rules and rulings
(included from ``ratenvs/RULES.md``, the rules page the package ships), the observation
space, the action space, rewards, options, bots and the shipped agents. Every table is built
here from the code:

- options: the game's :class:`~ratenvs.common.options.OptionSpec` (``Game.options``) and
  the env's render options;
- observation: the observer's named pieces (``env.observer.pieces``) of every option variant
  and player count, with their shapes in ``n`` (players) and when they are present, and
  those of the privileged observer (``env.state()``);
- summary: action and observation sizes computed for every player count, and the ids of
  :class:`~ratenvs.games.GameSpec`;
- the prose sections (actions, rewards, illegal actions, version history) are the env
  module's docstring (``ratenvs.<game>.env``), written once there.

The site's hook (``docs/hooks.py``) hands :func:`pages` and :func:`images` to mkdocs; the
tests (``tests/test_docs.py``) import this module directly, without mkdocs. Nothing here
imports mkdocs.
"""

from __future__ import annotations

import importlib
import inspect
import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
RULES = ROOT / "ratenvs" / "RULES.md"
"""The rules page: shipped in the package (``ratenvs.rules_text``), included by the site."""
GAME_PAGES = "games"
"""The folder of the generated game pages (inside the docs)."""
CURVES = "images/curves"
"""Where the shipped agents' learning curves are copied in the site."""

# ---------------------------------------------------------------- reST -> Markdown

_ROLE = re.compile(r":(?:py:)?(class|func|meth|mod|attr|data|exc|obj|const):`(~?)([^`<>]+)`")
_LITERAL_MARKER = re.compile(r"(\S)::[ \t]*$", re.M)
_TOP_LEVEL = ("ratenvs", "training", "studies", "numpy", "gymnasium", "pettingzoo", "torch")


def rst_to_markdown(text: str, module: str, context: str | None = None) -> str:
    """The reST bits of a docstring as Markdown: Sphinx roles (``:class:`~a.b.C```) become
    optional cross-references (a link where the site documents the target, else code), and
    a line ending in ``::`` ends in ``:`` (the literal block after it is already an
    indented code block). Relative targets are looked up from ``context`` (the class or
    module the docstring belongs to) for methods and attributes, else from ``module``."""

    def role(match: re.Match[str]) -> str:
        kind, tilde, target = match.groups()
        target = target.strip().rstrip("()")
        title = target.rsplit(".", 1)[-1] if tilde else target
        if target.split(".", 1)[0] in _TOP_LEVEL:
            identifier = target
        elif kind in ("meth", "attr") and context and "." not in target:
            identifier = f"{context}.{target}"
        else:
            identifier = f"{module}.{target}"
        return f'<autoref identifier="{identifier}" optional><code>{title}</code></autoref>'

    return _LITERAL_MARKER.sub(r"\1:", _ROLE.sub(role, text))


_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d+[.)]) ")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_CODE = re.compile(r"`[^`]*`")


def as_github_reads(markdown: str) -> str:
    """``markdown`` (written for GitHub: the READMEs, ``ratenvs/RULES.md``) made to read the
    same in Python-Markdown, outside code fences: a blank line goes before a list that
    starts right under a paragraph line (GitHub lets a list interrupt a paragraph), and
    ``\\|`` in a table row's code span becomes ``|`` (GitHub needs the escape there,
    Python-Markdown shows it)."""
    out: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and out and _ITEM.match(line):
            before = out[-1]
            paragraph = before.strip() and not before[0].isspace() and not _ITEM.match(before)
            if paragraph and not before.startswith(("|", "#", "<", ">")):
                out.append("")
        elif not fenced and line.startswith("|"):
            line = _CODE.sub(lambda m: m.group(0).replace("\\|", "|"), line)
        out.append(line)
    return "\n".join(out)


# ------------------------------------------------------------------ small helpers


def _cell(text: Any) -> str:
    """Text for one Markdown table cell (pipes escaped, on one line)."""
    return " ".join(str(text).split()).replace("|", r"\|")


def _table(header: Iterable[str], rows: Iterable[Iterable[Any]]) -> str:
    header = list(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _num(x: float) -> str:
    return f"{x:g}"


def linear(values: Mapping[int, int], var: str = "n") -> str:
    """``values`` (player count -> number) as a formula in ``var`` when it is linear in it
    (``"8 + 4 n"``, ``"n - 1"``, ``"13"``), else the values listed (``"2: 5, 3: 9"``)."""
    ns = sorted(values)
    if len(ns) == 1 or len(set(values.values())) == 1:
        return str(values[ns[0]])
    slope = (values[ns[1]] - values[ns[0]]) / (ns[1] - ns[0])
    base = values[ns[0]] - slope * ns[0]
    if slope != int(slope) or any(values[n] != base + slope * n for n in ns):
        return ", ".join(f"{n}: {values[n]}" for n in ns)
    slope, base = int(slope), int(base)
    term = var if slope == 1 else f"{slope} {var}"
    if base == 0:
        return term
    if slope == 1 and base < 0:
        return f"{var} - {-base}"
    return f"{base} + {term}" if base > 0 else f"{term} - {-base}"


def _shape(shapes: Mapping[int, tuple[int, ...]]) -> str:
    """A piece's shape over player counts, each dimension as a formula in ``n``."""
    first = next(iter(shapes.values()))
    if not first:
        return "1"
    if any(len(s) != len(first) for s in shapes.values()):  # pragma: no cover - no such piece
        return "; ".join(f"{n}: {s}" for n, s in shapes.items())
    dims = [linear({n: s[d] for n, s in shapes.items()}) for d in range(len(first))]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def _spec_of(game: str | Any) -> Any:
    from ratenvs.games import GAMES

    return GAMES[game] if isinstance(game, str) else game


def game_class(game: str | Any) -> type:
    """The :class:`~ratenvs.common.game.Game` class of a game (name or GameSpec)."""
    return _spec_of(game).load().raw_env.game_class


def _player_counts(cls: type) -> list[int]:
    o = cls.options.get("num_players")
    if o is None:  # pragma: no cover - every shipped game has the option
        return [cls().num_players]
    return list(range(o.low or 1, (o.high or o.low or 1) + 1))


def _label(options: Mapping[str, Any]) -> str:
    return ", ".join(f"`{k}={v!r}`" for k, v in options.items()) or "the defaults"


# ------------------------------------------------------------------------- options


def _kind(option: Any) -> str:
    if option.kind == "choice":
        return type(option.choices[0]).__name__ if option.choices else "str"
    return option.kind + (" or None" if option.optional else "")


def options_rows(game: str | Any) -> list[list[str]]:
    """One row per option of the game's spec, then the env's render options: option, type,
    default, allowed values, meaning."""
    from ratenvs.common.options import RENDER_VIEW_HELP

    spec = _spec_of(game)
    cls = game_class(spec)
    rows = [
        [f"`{o.name}`", _kind(o), f"`{o.default!r}`", o.allowed, o.help]
        for o in cls.options.values()
    ]
    modes = spec.load().raw_env.metadata["render_modes"]
    rows.append(
        [
            "`render_mode`",
            "str or None",
            "`None`",
            " / ".join(["None", *(repr(m) for m in modes)]),
            '"ansi": render() returns the text view, "rgb_array": an (H, W, 3) uint8 picture,'
            ' "human": a pygame window (`pip install "ratenvs[render]"`)',
        ]
    )
    rows.append(
        [
            "`render_view`",
            "str",
            "`'omniscient'`",
            "'omniscient' / an agent name",
            RENDER_VIEW_HELP + " (only what that seat may see)",
        ]
    )
    return rows


def options_table(game: str | Any) -> str:
    """The Markdown table of a game env's options (see :func:`options_rows`), then the
    rules between options, if the game has any."""
    table = _table(["option", "type", "default", "allowed", "meaning"], options_rows(game))
    rules = game_class(_spec_of(game)).options.rules_text()
    return f"{table}\n\n{rules}" if rules else table


# --------------------------------------------------------------------- observation


def option_variants(game: str | Any) -> list[dict[str, Any]]:
    """The option sets the observation tables cover: the defaults, each switch or choice
    option at every other value (one at a time), and the game's ``test_options``."""
    spec = _spec_of(game)
    cls = game_class(spec)
    variants: list[dict[str, Any]] = [{}]
    for o in cls.options.values():
        if o.kind == "bool":
            variants.append({o.name: not o.default})
        elif o.kind == "choice":
            variants += [{o.name: c} for c in o.choices if c != o.default]
    for options in spec.test_options:
        if dict(options) not in variants:
            variants.append(dict(options))
    return variants


def _observer(cls: type, options: Mapping[str, Any], kind: str | None) -> Any:
    """The env's observer (``kind`` None) or the observer of ``kind``; None if the options
    do not go together."""
    try:
        game = cls(**options)
    except ValueError:
        return None
    return game.observer(game.observation_kind if kind is None else kind)


def observed_pieces(game: str | Any, kind: str | None = None) -> dict[str, dict[str, Any]]:
    """Every piece any option variant's observer has (``kind`` None: the env's observation,
    else that observer kind), in layout order: name -> ``piece`` (the Piece at the first
    variant that has it), ``shapes`` (player count -> shape) and ``variants`` (the
    indices into :func:`option_variants` whose observer has it)."""
    cls = game_class(game)
    variants = option_variants(game)
    found: dict[str, dict[str, Any]] = {}
    order: list[str] = []
    for i, options in enumerate(variants):
        counts = [options["num_players"]] if "num_players" in options else _player_counts(cls)
        for n in counts:
            observer = _observer(cls, {**options, "num_players": n}, kind)
            if observer is None:
                continue
            names = [p.name for p in observer.pieces]
            for j, p in enumerate(observer.pieces):
                entry = found.get(p.name)
                if entry is None:
                    entry = found[p.name] = {"piece": p, "shapes": {}, "variants": set()}
                    before = [m for m in names[:j] if m in order]
                    order.insert(order.index(before[-1]) + 1 if before else 0, p.name)
                entry["variants"].add(i)
                if "num_players" not in options:
                    entry["shapes"].setdefault(n, p.shape)
    for entry in found.values():
        if not entry["shapes"]:
            entry["shapes"] = {0: entry["piece"].shape}
    return {name: found[name] for name in order}


def _presence(variants: list[dict[str, Any]], present: set[int]) -> str:
    if len(present) == len(variants):
        return "always"
    singles = [i for i, v in enumerate(variants) if len(v) == 1 and "num_players" not in v]
    if 0 in present:
        absent = [i for i in range(len(variants)) if i not in present]
        without = [i for i in absent if i in singles] or absent
        return "except with " + "; ".join(_label(variants[i]) for i in without)
    with_ = [i for i in present if i in singles] or sorted(present)
    return "with " + "; or ".join(_label(variants[i]) for i in sorted(with_))


def pieces_rows(game: str | Any, kind: str | None = None) -> list[list[str]]:
    """One row per piece of :func:`observed_pieces`: piece, shape (in ``n`` players),
    entries, range, meaning, present."""
    variants = option_variants(game)
    rows = []
    for name, entry in observed_pieces(game, kind).items():
        p = entry["piece"]
        sizes = {n: math.prod(s) for n, s in entry["shapes"].items()}
        rows.append(
            [
                f"`{name}`",
                _shape(entry["shapes"]),
                linear(sizes),
                f"{_num(p.low)} - {_num(p.high)}",
                p.help,
                _presence(variants, entry["variants"]),
            ]
        )
    return rows


def pieces_table(game: str | Any, kind: str | None = None) -> str:
    """The Markdown table of every observation piece (see :func:`pieces_rows`)."""
    return _table(
        ["piece", "shape", "entries", "range", "meaning", "present"], pieces_rows(game, kind)
    )


def _sizes(cls: type, options: Mapping[str, Any], kind: str | None = None) -> dict[int, int]:
    out = {}
    for n in _player_counts(cls):
        observer = _observer(cls, {**options, "num_players": n}, kind)
        if observer is not None:
            out[n] = observer.size
    return out


def observation_sizes(game: str | Any) -> list[tuple[str, str]]:
    """The observation's size in ``n`` at the defaults, and under every single option
    change that alters it: (options label, formula)."""
    cls = game_class(game)
    base = _sizes(cls, {})
    out = [("the defaults", linear(base))]
    for options in option_variants(game)[1:]:
        if "num_players" in options:
            continue
        sizes = _sizes(cls, options)
        if sizes and sizes != {n: base[n] for n in sizes}:
            out.append((_label(options), linear(sizes)))
    return out


# ------------------------------------------------------------------------- summary


def summary_rows(game: str | Any) -> list[list[str]]:
    """PettingZoo's environment summary, computed: import, actions, agents, shapes, values
    and the registered ids."""
    spec = _spec_of(game)
    cls = game_class(spec)
    counts = _player_counts(cls)
    default = cls()
    n0 = default.num_players
    actions = {n: cls(num_players=n).num_actions for n in counts}
    observer = default.observer(default.observation_kind)
    state = default.observer("privileged")
    np_option = cls.options["num_players"]
    (_, base), *others = observation_sizes(spec)
    sizes = f"({base},) for n players" + "".join(f"; with {o}: ({f},)" for o, f in others)
    gym = ", ".join(f"{k}={v!r}" for k, v in spec.gymnasium_defaults.items())
    return [
        ["Import", f"`from ratenvs import {spec.name}_v0`"],
        ["Actions", "Discrete"],
        ["Parallel API", "Yes (`parallel_env()`)"],
        ["Manual control", f"`ratenvs play {spec.cli_name}`"],
        ["Agents", "`agents = ['player_0', ..., 'player_{n-1}']`"],
        [
            "Agents count",
            f"{counts[0]} - {counts[-1]} (`num_players`, default {np_option.default})",
        ],
        ["Action shape", "(1,)"],
        [
            "Action values",
            f"Discrete({linear(actions)}): 0 - {actions[n0] - 1} for {n0} players"
            if len(set(actions.values())) > 1
            else f"Discrete({actions[n0]}): 0 - {actions[n0] - 1}",
        ],
        ["Observation shape", f"{sizes}; float32"],
        [
            "Observation values",
            f"[{_num(observer.low.min())}, {_num(observer.high.max())}] (each piece's range"
            f" below), plus an int8 `action_mask` ({actions[n0]},) for {n0} players",
        ],
        ["State shape", f"({linear(_sizes(cls, {}, 'privileged'))},) float32: `env.state()`"],
        ["State values", f"[{_num(state.low.min())}, {_num(state.high.max())}]"],
        ["PettingZoo id", f"`{spec.pettingzoo_id}` (AEC and parallel)"],
        [
            "Gymnasium id",
            f"`{spec.gymnasium_id}` (one learner, {gym}; the other seats:"
            f' "{spec.default_opponent}" bots)',
        ],
    ]


def summary_table(game: str | Any) -> str:
    """The summary as a two-column Markdown table whose first row is the import line."""
    rows = summary_rows(game)
    first, rest = rows[0], rows[1:]
    lines = [f"| {first[0]} | {first[1]} |", "|---|---|"]
    lines += [f"| {_cell(a)} | {_cell(b)} |" for a, b in rest]
    return "\n".join(lines)


# ------------------------------------------------------------ the env's docstring


def env_doc(game: str | Any) -> tuple[str, list[tuple[str, str]]]:
    """The env module's docstring (``ratenvs.<game>.env``, as formatted at import) as the
    description (the prose before the first section, without its summary table) and its
    ``## `` sections (title, body), in order."""
    spec = _spec_of(game)
    module = importlib.import_module(f"ratenvs.{spec.name}.env")
    text = rst_to_markdown(inspect.cleandoc(module.__doc__ or ""), module.__name__)
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    intro = "\n".join(
        line for line in parts[0].splitlines() if not line.startswith(("# ", "|"))
    ).strip()
    sections = [(parts[i].strip(), parts[i + 1].strip()) for i in range(1, len(parts), 2)]
    return intro, sections


# ------------------------------------------------------------------- rules (included)


def rules_sections(game: str | Any) -> list[tuple[str, str, str | None]]:
    """The ``ratenvs/RULES.md`` sections of a game as (page heading, start, end) delimiters for
    ``include-markdown``: the numbered section whose heading names the game's title, and
    the rulings subsection whose heading names its versioned module (``<game>_v<N>``)."""
    spec = _spec_of(game)
    headings = [
        (len(m.group(1)), m.group(0))
        for m in re.finditer(r"^(#+) .+$", RULES.read_text(encoding="utf-8"), flags=re.M)
    ]

    def section(match: Any) -> tuple[str, str | None]:
        for i, (level, line) in enumerate(headings):
            if match(level, line):
                later = [h for lv, h in headings[i + 1 :] if lv <= level]
                return line, later[0] if later else None
        raise ValueError(f"ratenvs/RULES.md has no section for {spec.title}")

    rules = section(lambda lv, h: lv == 2 and re.match(rf"## \d+\. {re.escape(spec.title)}", h))
    module = spec.module.rsplit(".", 1)[1]
    rulings = section(lambda lv, h: lv == 3 and f"`{module}`" in h)
    return [("Rules", *rules), ("Rulings and their options", *rulings)]


def _include(path: str, start: str, end: str | None) -> str:
    # a generated page has no file of its own to rewrite relative links from

    def quoted(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    args = f" start={quoted(start)}" + (f" end={quoted(end)}" if end else "")
    return f'{{% include-markdown "{path}"{args} rewrite-relative-urls=false %}}'


# ---------------------------------------------------------------- bots and agents


def bots_rows(game: str | Any) -> list[list[str]]:
    """The game's bots: name and the first line of the class docstring."""
    spec = _spec_of(game)
    rows = []
    for name, bot in spec.bots().items():
        doc = inspect.getdoc(bot) or ""
        first = doc.split("\n\n", 1)[0]
        rows.append([f"`{name}`", rst_to_markdown(first, bot.__module__, bot.__qualname__)])
    return rows


def agents(game: str | Any) -> tuple[str | None, list[Path]]:
    """The results table rows of the game's shipped agents (``training.results``, from the
    cards in ``checkpoints/<game>/``; None if there are none) and their learning curves."""
    spec = _spec_of(game)
    folder = ROOT / "checkpoints" / spec.name
    curves = sorted(folder.glob("*_curve.png"))
    if not any(folder.glob("*.json")):
        return None, curves
    from training.results import results_table

    lines = results_table(ROOT / "checkpoints").splitlines()
    mine = [line for line in lines[2:] if line.startswith(f"| `{spec.name}/")]
    return "\n".join(lines[:2] + mine), curves


# ---------------------------------------------------------------------------- page


_PAGE_SECTIONS = {"Observation": "Observation space", "Actions": "Action space"}
_ORDER = ("Observation", "Actions", "Rewards", "Options")


def game_page(game: str | Any) -> str:
    """The Markdown page of one game (see the module docstring)."""
    spec = _spec_of(game)
    intro, sections = env_doc(spec)
    by_title = dict(sections)
    module = spec.module.rsplit(".", 1)[1]  # the versioned env module: catz_ratz_batz_v0
    out = [
        f"# {spec.title}",
        "<!-- generated by docs/gen_pages.py from the code; edit the code, not this page -->",
        f"```python\nfrom ratenvs import {module}\n\nenv = {module}.env()\n```",
        summary_table(spec),
    ]
    pictures = sorted(
        p for ext in ("png", "gif") for p in (DOCS / "images").glob(f"{spec.name}*.{ext}")
    )
    for picture in pictures:
        what = picture.stem[len(spec.name) :].strip("_").replace("_", " ") or "the table"
        out.append(f"![{spec.title}: {what}](../images/{picture.name})")
    out += ["## Description", intro]
    extra = DOCS / f"{spec.name}.md"
    if extra.exists():
        out.append(f"More on this game's model: [{extra.name}](../{extra.name}).")
    for heading, start, end in rules_sections(spec):
        # absolute: a generated page has no folder of its own to be relative to
        out += [f"## {heading}", _include(RULES.as_posix(), start, end)]
    ordered = [t for t in _ORDER if t in by_title] + [t for t, _ in sections if t not in _ORDER]
    for title in ordered:
        body = by_title[title]
        out.append(f"## {_PAGE_SECTIONS.get(title, title)}")
        if title == "Options":
            from ratenvs.common.aec import options_table as env_options_table

            table = env_options_table(game_class(spec))
            if table not in body:
                raise ValueError(f"{spec.name}: the env docstring's Options lack its table")
            body = body.replace(table, options_table(spec))
        out.append(body)
        if title == "Observation":
            out += [
                "### Every piece",
                "The observation is the pieces below, in this order, in one float32 vector"
                " (`env.observer.slices[name]` is a piece's index range and"
                " `env.observer.views(obs)` names them); shapes are in `n`, the number of"
                " players, ranges at the default options, and a piece an option adds is"
                " present only with it.",
                pieces_table(spec),
                '??? note "The pieces of `env.state()` (the whole truth)"',
                _indent(pieces_table(spec, "privileged")),
            ]
    out += [
        "## Bots",
        "Scripted players for the other seats (`opponents=` of the gymnasium id, by name):",
        _table(["bot", "plays"], bots_rows(spec)),
    ]
    results, curves = agents(spec)
    if results or curves:
        out.append("## Shipped agents")
        out.append(
            f"MaskablePPO agents in `checkpoints/{spec.name}/` (see [Training](../training.md)):"
        )
        if results:
            out.append(results)
        if curves:
            out.append("### Learning curves")
        for curve in curves:
            name = curve.stem.removesuffix("_curve")
            out.append(f"`{name}`\n\n![learning curve of {name}](../{CURVES}/{curve.name})")
    out += [
        "## API",
        f"[`{spec.name}_v0`](../api/envs.md): `env()`, `raw_env`, `parallel_env`;"
        f" the batched engine: [`{_engine_name(spec)}`](../api/batched.md).",
    ]
    return "\n\n".join(out) + "\n"


def _engine_name(spec: Any) -> str:
    # read from the source: importing the engine needs numba, which the docs extra lacks
    module = f"ratenvs.{spec.name}.batched"
    source = (ROOT / Path(*module.split("."))).with_suffix(".py").read_text(encoding="utf-8")
    match = re.search(r"^ENGINE = (\w+)", source, flags=re.M)
    return match.group(1) if match else "ENGINE"


def _indent(text: str) -> str:
    return "\n".join("    " + line if line else line for line in text.splitlines())


# ------------------------------------------------------------------------ the site


def pages() -> dict[str, str]:
    """Site path -> Markdown of every generated page."""
    from ratenvs.games import GAMES

    return {f"{GAME_PAGES}/{name}.md": game_page(spec) for name, spec in GAMES.items()}


def images() -> dict[str, Path]:
    """Site path -> file of every picture the generated pages show from outside the docs
    (the shipped agents' learning curves)."""
    from ratenvs.games import GAMES

    return {f"{CURVES}/{curve.name}": curve for spec in GAMES.values() for curve in agents(spec)[1]}


# ------------------------------------------------------------------- the benchmark tables

BENCHMARKS_PAGE = DOCS / "benchmarks.md"
_GENERATED = re.compile(
    r"(<!-- generated from (benchmarks/[\w.]+) by `python docs/gen_pages.py --benchmarks` -->\n)"
    r"(.*?)"
    r"(\n<!-- end of the generated table -->)",
    flags=re.S,
)


def benchmark_tables(text: str) -> str:
    """``text`` (the benchmarks page) with each generated block made again from the results
    file it names: :func:`ratenvs.bench.markdown_table` of ``benchmarks/results.json`` (the
    envs through ``env()``) or ``benchmarks/results_batched.json`` (the batched engines)."""
    import json

    from ratenvs.bench import markdown_table

    def table(match: re.Match[str]) -> str:
        data = json.loads((ROOT / match.group(2)).read_text(encoding="utf-8"))
        try:
            return match.group(1) + markdown_table(data) + match.group(4)
        except (KeyError, TypeError) as err:  # a file of an older benchmark script
            raise ValueError(
                f"{match.group(2)} has no {err} field (written before this benchmark "
                "script's format): measure again with make bench / make bench-batched"
            ) from None

    return _GENERATED.sub(table, text)


def write_benchmark_tables() -> bool:
    """Regenerate the benchmarks page's tables in place (atomically); True if it changed."""
    from ratenvs.common.atomic import atomic_file

    old = BENCHMARKS_PAGE.read_text(encoding="utf-8")
    new = benchmark_tables(old)
    if new != old:
        with atomic_file(BENCHMARKS_PAGE) as f:
            f.write(new.encode("utf-8"))
    return new != old


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--benchmarks"]:
        sys.exit("usage: python docs/gen_pages.py --benchmarks  (rewrites docs/benchmarks.md)")
    sys.path.insert(0, str(ROOT))
    try:
        changed = write_benchmark_tables()
    except (OSError, ValueError) as err:
        sys.exit(f"error: {err}")
    print("docs/benchmarks.md", "regenerated" if changed else "up to date")
