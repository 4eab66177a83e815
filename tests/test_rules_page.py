"""The rules page ships in the package (``ratenvs/RULES.md``): ``ratenvs.rulebook`` and
``ratenvs rules GAME`` print a game's rules and rulings from any install, and the
versioned env modules' ``help()`` shows the env's whole documentation."""

from __future__ import annotations

import pydoc
import re
from pathlib import Path

import pytest

from ratenvs.cli import main
from ratenvs.games import GAMES
from ratenvs.rulebook import rules_page, rules_text

ROOT = Path(__file__).resolve().parent.parent


def test_the_page_is_package_data():
    assert (ROOT / "ratenvs" / "RULES.md").is_file()
    assert '"ratenvs": ["RULES.md", ' in (ROOT / "setup.py").read_text(encoding="utf-8")
    assert rules_page().startswith("<!--") and "# Rules as the environments implement them" in (
        rules_page()
    )


@pytest.mark.parametrize("name", list(GAMES))
def test_one_games_rules_and_rulings(name):
    spec = GAMES[name]
    module = spec.module.rsplit(".", 1)[1]
    for key in (spec.cli_name, name, module, spec.title):
        text = rules_text(key)
        assert re.match(rf"## \d\. {re.escape(spec.title)}", text)
        assert f"## Rulings as env options: {spec.title} (`{module}`)" in text
        others = [s.title for s in GAMES.values() if s.name != name]
        assert not any(re.search(rf"^## \d\. {re.escape(t)}", text, re.M) for t in others)
        assert "| option |" in text or "| ruling" in text  # the rulings table came along


def test_rules_command(capsys):
    assert main(["rules", "ratto-zakko"]) == 0
    assert capsys.readouterr().out == rules_text("ratto_zakko")
    assert main(["rules"]) == 0
    page = capsys.readouterr().out  # the whole page, without the maintainers' comment
    assert page.startswith("# Rules as the environments implement them\n")
    assert page == rules_page()[rules_page().index("# Rules as") :] == rules_text()
    assert main(["rules", "chess"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "error: no rules for game 'chess': the games are catz-ratz-batz, rat-a-tat-cat, ratto-zakko"
    ]


@pytest.mark.parametrize("name", list(GAMES))
def test_help_of_the_versioned_module_is_the_envs_documentation(name):
    spec = GAMES[name]
    env_doc = __import__(f"ratenvs.{name}.env", fromlist=["env"]).__doc__
    shown = pydoc.render_doc(spec.load(), renderer=pydoc.plaintext)
    first = next(line for line in env_doc.splitlines() if line.strip())
    assert first.strip() in shown
    assert "Observation" in shown
