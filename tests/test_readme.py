"""The README's Python examples run as written (a block that imports an optional
integration, e.g. SuperSuit, or needs an extra, e.g. torch for the shipped agents, is
skipped where it is not installed: the floors run)."""

import importlib.util
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 3


OPTIONAL = ("supersuit",)
"""Integrations the README shows that an envs-only install may lack (the test extra has
them, so ``make test`` runs every block)."""


NEEDS = {"torch": r"ratenvs\.agents\.load\(", "numba": r"solve_win\("}
"""Extras a block needs without importing them itself (the shipped agents' weights need
torch, the win-optimal solver numba), by a pattern of the call that needs them."""


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, capsys):
    block = BLOCKS[index]
    for name in OPTIONAL:
        if re.search(rf"^import {name}\b", block, flags=re.M) and not importlib.util.find_spec(
            name
        ):
            pytest.skip(f"README block {index} needs {name}, not installed here")
    for name, call in NEEDS.items():
        if re.search(call, block) and not importlib.util.find_spec(name):
            pytest.skip(f"README block {index} needs {name}, not installed here")
    exec(compile(block, f"README block {index}", "exec"), {})


TOURNAMENTS = README.parent / "docs" / "tournaments"


def test_readme_shows_every_tournament_table_as_generated():
    """Each ``docs/tournaments/*.md`` (written by ``ratenvs tournament --markdown``, its
    caption the command that regenerates it) is in the README word for word."""
    tables = sorted(TOURNAMENTS.glob("*.md"))
    assert len(tables) >= 2
    text = README.read_text()
    for table in tables:
        body = table.read_text().strip()
        assert "ratenvs tournament " in body and f"--markdown docs/tournaments/{table.name}" in body
        assert body in text, table.name
