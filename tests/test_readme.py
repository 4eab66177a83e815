"""The README and the documentation pages that took over its details: every Python example
runs as written (a block that imports an optional integration, e.g. SuperSuit, or needs an
extra, e.g. numba for the win solver, is skipped where it is not installed: the floors
run), every ``help(...)`` example shows the env's documentation, the README stays a
ten-minute read, its speed table is the benchmark files' figures, the commands that need
the repository are said to, and the generated tables of ``docs/`` are as their commands
make them."""

from __future__ import annotations

import importlib
import importlib.util
import json
import pydoc
import re
from pathlib import Path

import pytest

from ratenvs.games import GAMES

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
README_TEXT = README.read_text(encoding="utf-8")
FENCE = re.compile(r"```python\n(.*?)```", flags=re.S)

PAGES = (
    "usage.md",
    "game_interface.md",
    "hidden_information.md",
    "real_time.md",
    "batched.md",
    "solver.md",
    "agents.md",
    "ratto_zakko.md",
)
"""The documentation pages whose Python examples run here (the recipes run in
``tests/integrations/``, in the frameworks' own venvs)."""

BLOCKS = [("README.md", i, b) for i, b in enumerate(FENCE.findall(README_TEXT))] + [
    (page, i, b)
    for page in PAGES
    for i, b in enumerate(FENCE.findall((DOCS / page).read_text(encoding="utf-8")))
]

OPTIONAL = ("supersuit",)
"""Integrations the examples show that an envs-only install may lack (the test extra has
them, so ``make test`` runs every block)."""

NEEDS = {
    r"agents\.load\(": ("safetensors",),
    r"solve_win\(|BatchedCatzRatzBatz|BatchedVectorEnv|vector_entry_point": ("numba",),
}
"""Extras a block needs without importing them itself, by a pattern of the call that needs
them: the shipped agents' weights, the win-optimal solver and the batched engines."""


def test_every_page_with_examples_is_run():
    """A page of ``docs/`` with a Python example is in :data:`PAGES` (the recipes aside)."""
    assert len([b for b in BLOCKS if b[0] == "README.md"]) >= 3
    with_examples = {p.name for p in DOCS.glob("*.md") if FENCE.search(p.read_text("utf-8"))}
    assert with_examples <= set(PAGES), with_examples - set(PAGES)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{page}-{i}" for page, i, _ in BLOCKS])
def test_example_runs(block, capsys):
    page, index, code = block
    for name in OPTIONAL:
        if re.search(rf"^import {name}\b", code, flags=re.M) and not importlib.util.find_spec(name):
            pytest.skip(f"{page} block {index} needs {name}, not installed here")
    for call, modules in NEEDS.items():
        missing = [m for m in modules if importlib.util.find_spec(m) is None]
        if re.search(call, code) and missing:
            pytest.skip(f"{page} block {index} needs {missing}, not installed here")
    exec(compile(code, f"{page} block {index}", "exec"), {})


HELP = re.compile(r"help\(([A-Za-z_][\w.]*)\)")


def test_help_examples_show_the_envs_documentation(capsys):
    """Every ``help(X)`` the README or a page shows names an env module the same snippet
    imports, and its help is the env's documentation (observation tables included)."""
    modules = {spec.module.rsplit(".", 1)[1]: spec for spec in GAMES.values()}
    texts = [README_TEXT] + [(DOCS / page).read_text(encoding="utf-8") for page in PAGES]
    names = [name for text in texts for name in HELP.findall(text)]
    assert "catz_ratz_batz_v0" in names
    readme_help = [b for _, _, b in BLOCKS if "help(" in b]
    assert readme_help, "the README's help example is a block the suite runs"
    for name in names:
        assert name in modules, f"help({name}) names no env module"
        env_doc = importlib.import_module(f"ratenvs.{modules[name].name}.env").__doc__
        shown = pydoc.render_doc(modules[name].load(), renderer=pydoc.plaintext)
        assert "Observation" in shown and env_doc.split("\n\n")[1].splitlines()[0] in shown


def test_readme_is_a_ten_minute_read():
    assert README_TEXT.count("\n") <= 250


def test_commands_that_need_the_repository_are_said_to():
    """``python -m training.*`` / ``studies.*`` (not in the wheel) appear only after the line
    that says these commands need the repository."""
    cut = README_TEXT.index("These need the repository")
    assert not re.search(r"python -m (training|studies)\b", README_TEXT[:cut])
    assert "python -m training.export_sb3" in README_TEXT[cut:]


def _records(name: str) -> list[dict]:
    return json.loads((ROOT / "benchmarks" / name).read_text(encoding="utf-8"))["records"]


def speed_table() -> str:
    """The README's speed table as the benchmark files give it: every env of
    ``results.json`` (but the reference), its decisions/s and ratio to
    ``connect_four_v3``, and the same env's batched engine from ``results_batched.json``:
    at one game its ratio to the ``raw_env``, at 4,096 games its decisions/s and ratio."""

    def batched(size: int) -> dict[str, dict]:
        return {
            r["env"]: r
            for r in _records("results_batched.json")
            if r.get("engine") == "batched" and r.get("batch_size") == size
        }

    one, many = batched(1), batched(4096)
    rows = [
        "| env | `env()` decisions per CPU s | vs `connect_four_v3` | batched, 1 game: vs "
        "`raw_env` | batched, 4,096 games: decisions per CPU s | vs `raw_env` |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in _records("results.json"):
        if r["env"] == "connect_four_v3":
            continue
        a, b = one.get(r["env"]), many.get(r["env"])
        cells = [f"{a['ratio_vs_raw_env']:.0f}x" if a else "-"]
        cells += [f"{b['decisions_per_s']:,.0f}", f"{b['ratio_vs_raw_env']:.0f}x"] if b else []
        rows.append(
            f"| `{r['env']}` | {r['decisions_per_s']:,.0f} | {r['ratio_vs_connect_four']:.2f}x | "
            + " | ".join(cells if b else [*cells, "-", "-"])
            + " |"
        )
    return "\n".join(rows)


def test_readme_speed_table_is_the_benchmark_files():
    expected = speed_table()
    assert expected in README_TEXT, "the README's speed table should read:\n" + expected


def test_tournament_tables_are_included_as_generated():
    """Each ``docs/tournaments/*.md`` (written by ``ratenvs tournament --markdown``, its
    caption the command that regenerates it, into that very file) is included by the
    tournaments page."""
    page = (DOCS / "tournaments.md").read_text(encoding="utf-8")
    tables = sorted((DOCS / "tournaments").glob("*.md"))
    assert len(tables) >= 2
    for table in tables:
        body = table.read_text(encoding="utf-8")
        assert "ratenvs tournament " in body
        assert f"--markdown docs/tournaments/{table.name}" in body
        assert f'{{% include-markdown "tournaments/{table.name}" %}}' in page, table.name


def test_results_page_shows_the_generated_table():
    """``docs/results.md`` holds ``python -m training.results``'s table of the shipped cards."""
    results = pytest.importorskip("training.results")
    page = (DOCS / "results.md").read_text(encoding="utf-8")
    expected = results.results_table().strip()
    assert expected in page, "regenerate it with python -m training.results"
