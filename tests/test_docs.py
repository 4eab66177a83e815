"""The documentation site: its generated tables list every option and every observation
piece of every game, and every page, include and API module it names exists.

Everything but the last test runs without mkdocs (``docs/gen_pages.py`` is imported
directly); the last builds the site with ``mkdocs build --strict`` where the ``docs`` extra
is installed (``make docs`` does that in CI).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ratenvs.bench import markdown_table
from ratenvs.games import GAMES

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
_spec = importlib.util.spec_from_file_location("gen_pages", DOCS / "gen_pages.py")
gen_pages = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_pages)

NAMES = list(GAMES)


def _rows(table: str) -> list[list[str]]:
    """The body rows of a Markdown table, cells stripped."""
    lines = [line for line in table.splitlines() if line.strip().startswith("|")]
    return [[c.strip() for c in line.strip().strip("|").split(" | ")] for line in lines[2:]]


def _first_cells(table: str) -> list[str]:
    return [row[0].strip("`") for row in _rows(table)]


def _at(formula: str, n: int) -> int:
    """A formula of :func:`gen_pages.linear` evaluated at ``n`` players."""
    if ":" in formula:  # listed per player count
        return dict(tuple(map(int, p.split(":"))) for p in formula.split(","))[n]
    return eval(re.sub(r"(\d) n", r"\1 * n", formula), {"n": n})


def _configs(name: str) -> list[dict]:
    """Option sets chosen here, not by the generator: the defaults and every option at
    each of a few values (all choices, both switches, an int option's bounds, None where
    allowed), one at a time, at every player count; and the game's ``test_options``."""
    cls = gen_pages.game_class(name)
    singles: list[dict] = [{}]
    for o in cls.options.values():
        if o.name == "num_players":
            continue
        if o.kind == "bool":
            values = [True, False]
        elif o.kind == "choice":
            values = list(o.choices)
        else:
            values = [o.low, o.high or (o.low or 0) + 100] + ([None] if o.optional else [])
        singles += [{o.name: v} for v in values]
    o = cls.options["num_players"]
    out = [{**s, "num_players": n} for s in singles for n in range(o.low, o.high + 1)]
    return out + [dict(options) for options in GAMES[name].test_options]


def _env(name: str, options: dict):
    try:
        return GAMES[name].load().raw_env(**options)
    except ValueError:  # options that do not go together
        return None


@pytest.mark.parametrize("name", NAMES)
def test_options_table_lists_every_option(name):
    cls = gen_pages.game_class(name)
    table = gen_pages.options_table(name)
    assert _first_cells(table) == [*cls.options, "render_mode", "render_view"]
    rows = {row[0].strip("`"): row for row in _rows(table)}
    for option in cls.options.values():
        assert rows[option.name][2] == f"`{option.default!r}`"
        assert rows[option.name][4] == " ".join(option.help.split())
    assert table in gen_pages.game_page(name)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("kind", [None, "privileged"], ids=["observation", "state"])
def test_pieces_table_lists_every_piece(name, kind):
    """Every piece of every covered configuration's observation (``env.observer.pieces``)
    and state (``env.state()``) is a row, rows in layout order, with its size at that
    player count."""
    table = gen_pages.pieces_table(name, kind)
    rows = {row[0].strip("`"): row for row in _rows(table)}
    order = list(rows)
    assert len(order) == len(set(order))
    covered = 0
    for options in _configs(name):
        env = _env(name, options)
        if env is None:
            continue
        observer = env.observer if kind is None else env.game.observer(kind)
        names = [p.name for p in observer.pieces]
        assert set(names) <= set(rows), (options, set(names) - set(rows))
        assert sorted(names, key=order.index) == names
        for p in observer.pieces:
            assert _at(rows[p.name][2], options["num_players"]) == p.size, (options, p)
            assert rows[p.name][4] == " ".join(p.help.split()).replace("|", r"\|")
        covered += 1
    assert covered >= 2
    page = gen_pages.game_page(name)
    assert (table if kind is None else gen_pages._indent(table)) in page


@pytest.mark.parametrize("name", NAMES)
def test_test_options_pieces_are_covered(name):
    """The configurations the test battery runs are among the pages' variants."""
    variants = gen_pages.option_variants(name)
    for options in GAMES[name].test_options:
        assert dict(options) in variants


@pytest.mark.parametrize("name", NAMES)
def test_summary_sizes_match_the_env(name):
    """The summary's observation size formula and action range are the env's."""
    spec = GAMES[name]
    rows = dict(gen_pages.summary_rows(name))
    formula = re.match(r"\(([^,]+),\) for n players", rows["Observation shape"]).group(1)
    o = gen_pages.game_class(name).options["num_players"]
    for n in range(o.low, o.high + 1):
        env = spec.load().raw_env(num_players=n)
        assert _at(formula, n) == env.observation_space("player_0")["observation"].shape[0]
    env = spec.load().raw_env()
    assert f": 0 - {env.num_actions - 1}" in rows["Action values"]
    assert spec.pettingzoo_id in rows["PettingZoo id"]
    assert spec.gymnasium_id in rows["Gymnasium id"]


@pytest.mark.parametrize("name", NAMES)
def test_game_page_sections(name):
    page = gen_pages.game_page(name)
    for heading in (
        "## Description",
        "## Rules",
        "## Rulings and their options",
        "## Observation space",
        "## Action space",
        "## Rewards",
        "## Options",
        "## Bots",
    ):
        assert f"\n{heading}\n" in page, heading
    for bot in GAMES[name].bots():
        assert f"| `{bot}` |" in page
    assert "{options}" not in page and "{observation}" not in page


def test_pictures_exist():
    generated = gen_pages.images()
    assert all(path.is_file() for path in generated.values())
    for page in gen_pages.pages().values():
        for target in re.findall(r"!\[[^\]]*\]\(\.\./([^)]+)\)", page):
            assert (DOCS / target).is_file() or target in generated, target


INCLUDE = re.compile(r'\{%\s*include-markdown\s+"([^"]+)"(.*?)%\}', re.S)


def _includes():
    """(file the path is relative to, path, start, end) of every include directive."""
    found = []
    for page in DOCS.rglob("*.md"):
        for path, args in INCLUDE.findall(page.read_text(encoding="utf-8")):
            found.append((page.parent, path, args))
    for page in gen_pages.pages().values():  # generated pages: relative to docs/
        for path, args in INCLUDE.findall(page):
            found.append((DOCS, path, args))
    return found


def _argument(args: str, name: str) -> str | None:
    """A quoted directive argument, unescaped (``\\"`` is a quote)."""
    match = re.search(name + r'="((?:[^"\\]|\\.)*)"', args)
    return None if match is None else re.sub(r"\\(.)", r"\1", match.group(1))


def test_includes_find_their_text():
    """Every ``include-markdown`` names a file that exists and start / end delimiters that
    are in it, in that order (a renamed README or RULES.md heading fails here)."""
    includes = _includes()
    assert len(includes) >= 8
    for base, path, args in includes:
        source = (base / path).resolve()
        assert source.is_file(), source
        text = source.read_text(encoding="utf-8")
        start, end = _argument(args, "start"), _argument(args, "end")
        at = 0
        if start is not None:
            assert start in text, (path, start)
            at = text.index(start) + len(start)
        if end is not None:
            assert end in text[at:], (path, end)


def test_nav_and_api_modules_exist():
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = re.findall(r"^\s*- (?:[^:\n]+: )?(\S+\.md)\s*$", config, flags=re.M)
    generated = set(gen_pages.pages())
    assert generated <= set(nav)
    for page in nav:
        assert (DOCS / page).is_file() or page in generated, page
    modules = [
        m
        for page in (DOCS / "api").glob("*.md")
        for m in re.findall(r"^::: (\S+)", page.read_text(), flags=re.M)
    ]
    for module in (
        "ratenvs.rat_a_tat_cat_v1",
        "ratenvs.catz_ratz_batz_v0",
        "ratenvs.ratto_zakko_v0",
        "ratenvs.common.game",
        "ratenvs.common.observer",
        "ratenvs.common.batched",
        "ratenvs.games",
        "ratenvs.wrappers.single_agent",
        "ratenvs.wrappers.batched_vector",
        "ratenvs.agents",
        "ratenvs.agents.checkpoint",
        "ratenvs.evaluation",
        "training.train",
        "training.evaluate",
        "training.config",
    ):
        assert module in modules
    for spec in GAMES.values():
        assert f"ratenvs.{spec.name}.batched" in modules
    for module in modules:
        assert importlib.util.find_spec(module) is not None, module


def test_as_github_reads():
    text = "Setup\n- one\n- two\n\n```\nx\n- not a list\n```\nA turn\n1. first\n   more\n2. b\n"
    out = gen_pages.as_github_reads(text)
    assert out == (
        "Setup\n\n- one\n- two\n\n```\nx\n- not a list\n```\nA turn\n\n1. first\n   more\n2. b\n"
    )
    table = "| a |\n|---|\n- x\n"
    assert gen_pages.as_github_reads(table) == table
    row = "| `a \\| b` | c \\| d |"
    assert gen_pages.as_github_reads(row) == "| `a | b` | c \\| d |"


def test_rst_to_markdown():
    out = gen_pages.rst_to_markdown(
        "See :class:`~ratenvs.common.game.Game`, :func:`play_game` and :meth:`table`.\n"
        "Usage::\n\n    python -m x\n",
        "ratenvs.common.play",
        "ratenvs.common.observer.Observer",
    )
    assert '<autoref identifier="ratenvs.common.game.Game" optional><code>Game</code>' in out
    assert 'identifier="ratenvs.common.play.play_game" optional><code>play_game</code>' in out
    assert 'identifier="ratenvs.common.observer.Observer.table"' in out
    assert "Usage:\n\n    python -m x" in out


def test_linear():
    assert gen_pages.linear({1: 12, 2: 16, 3: 20}) == "8 + 4 n"
    assert gen_pages.linear({2: 1, 3: 2, 4: 3}) == "n - 1"
    assert gen_pages.linear({2: 182, 3: 246}) == "54 + 64 n"
    assert gen_pages.linear({2: 31, 3: 47}) == "16 n - 1"
    assert gen_pages.linear({2: 7, 3: 7}) == "7"
    assert gen_pages.linear({2: 4, 3: 9, 4: 16}) == "2: 4, 3: 9, 4: 16"


def test_strict_build(tmp_path):
    """``mkdocs build --strict``: no warning (broken links, missing includes, docstring
    problems mkdocstrings reports)."""
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        pytest.importorskip(module)
    pytest.importorskip("mkdocs_include_markdown_plugin")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr[-4000:]
    for name in NAMES:
        assert (tmp_path / "site" / "games" / name / "index.html").is_file()


# ------------------------------------------- what an installed ratenvs points its user to

_REPO_PATH = re.compile(
    r"(?<![\w/.-])("
    r"(?:docs|training|studies|tests|configs|benchmarks|checkpoints|\.ci)/[\w./<>*-]*"
    r"|[\w-]+\.md\b"
    r"|python\s+-m\s+(?:training|studies)\b[\w.*]*"
    r")"
)
"""A file or command of the repository that the wheel does not ship: a path under one of
its other folders, a Markdown page, or a ``python -m training.* / studies.*`` command."""
_SAID_SO = re.compile(r"repositor|source checkout|\bclone\b", re.I)
PENDING: set[str] = set()
"""Modules being rewritten right now (the torch-free agents); checked once that lands."""


def _shipped_texts():
    """(where, text) of every string the installed package shows: each docstring, help
    text and message of ``ratenvs/`` (string constants, f-string parts included), and the
    shipped rules page."""
    import ast

    package = ROOT / "ratenvs"
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        if where in PENDING:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                yield f"{where}:{node.lineno}", node.value
    yield "ratenvs/RULES.md", (package / "RULES.md").read_text(encoding="utf-8")


def test_no_shipped_text_names_a_file_the_wheel_lacks():
    """A docstring, help text or message names only files the package has (``RULES.md``,
    ``ratenvs/...``), or says that the file or command is the repository's."""
    package = ROOT / "ratenvs"
    bad = []
    for where, text in _shipped_texts():
        for match in _REPO_PATH.finditer(text):
            name = match.group(1)
            if (package / name).exists() or name.startswith("ratenvs/"):
                continue
            if not _SAID_SO.search(text[max(0, match.start() - 160) : match.end() + 40]):
                bad.append(f"{where}: {name}")
    assert not bad, "named as if an install had them:\n" + "\n".join(bad)
    assert _REPO_PATH.search("see ``docs/RULES.md``") and _REPO_PATH.search("python -m\nstudies.x")


def _results(name: str) -> dict:
    return json.loads((ROOT / "benchmarks" / name).read_text(encoding="utf-8"))


def test_benchmark_tables_are_made_from_the_results_files(tmp_path, monkeypatch):
    """A generated block of the benchmarks page is ``ratenvs.bench.markdown_table`` of the
    results file it names, and only the block changes."""
    meta = {
        "rounds": 3,
        "seconds": 2.0,
        "date": "2026-12-04 12:00:00",
        "command": "python benchmarks/bench_envs.py",
        "cpus": 2,
        "machine": "x86_64",
        "python": "3.11.7",
        "ratenvs": "0.2.0",
    }
    spread = {"min": 9.0, "median": 10.0, "max": 11.0}
    record = {
        "env": "catz_ratz_batz_v0 num_players=2",
        "decisions_per_s": 10.0,
        "cpu_decisions_per_s": spread,
        "ratio_vs_connect_four": 2.0,
        "ratio_vs_connect_four_spread": {"min": 1.9, "median": 2.0, "max": 2.1},
    }
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "benchmarks" / "r.json").write_text(json.dumps({"meta": meta, "records": [record]}))
    monkeypatch.setattr(gen_pages, "ROOT", tmp_path)
    marker = "<!-- generated from benchmarks/r.json by `python docs/gen_pages.py --benchmarks` -->"
    page = f"before\n\n{marker}\nan old table\n<!-- end of the generated table -->\n\nafter\n"
    out = gen_pages.benchmark_tables(page)
    expected = markdown_table({"meta": meta, "records": [record]})
    assert out == page.replace("an old table", expected)
    assert "| `catz_ratz_batz_v0 num_players=2` | 10 (9-11) | 2.00x (1.90-2.10) |" in out
    del record["cpu_decisions_per_s"]  # a file of the benchmark script before its spreads
    (tmp_path / "benchmarks" / "r.json").write_text(json.dumps({"meta": meta, "records": [record]}))
    with pytest.raises(ValueError, match=r"benchmarks/r.json has no 'cpu_decisions_per_s' field"):
        gen_pages.benchmark_tables(page)


def test_benchmarks_page_shows_the_results_files():
    """The benchmarks page's tables are those of ``benchmarks/results*.json`` (regenerate
    them with ``python docs/gen_pages.py --benchmarks``)."""
    page = gen_pages.BENCHMARKS_PAGE.read_text(encoding="utf-8")
    names = re.findall(r"<!-- generated from benchmarks/([\w.]+) by", page)
    assert names == ["results.json", "results_batched.json"]
    if any("command" not in _results(name)["meta"] for name in names):
        pytest.skip("benchmarks/results*.json predate ratenvs.bench.markdown_table's format")
    assert gen_pages.benchmark_tables(page) == page, "python docs/gen_pages.py --benchmarks"
