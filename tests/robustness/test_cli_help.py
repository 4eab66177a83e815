"""``--help`` of every command line prints its help and exits 0: ``ratenvs`` and each of
its subcommands, and every module with a ``main`` under ``training/``, ``benchmarks/`` and
``studies/`` (a ``%`` in a help text, "95% intervals", made ``ratenvs --help`` a
TypeError traceback)."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import io
from pathlib import Path

import pytest

from ratenvs import cli
from ratenvs.games import GAMES

ROOT = Path(__file__).resolve().parents[2]


def subcommands() -> list[str]:
    parser = cli.build_parser()
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sorted(action.choices)


TRAIN_EXTRA = importlib.util.find_spec("stable_baselines3") is not None
"""``training/`` and ``studies/`` need the ``train`` extra (not in the envs-only floors run)."""


def module_mains() -> list[str]:
    names = []
    for folder in ("training", "benchmarks", "studies"):
        for path in sorted((ROOT / folder).glob("*.py")):
            text = path.read_text(encoding="utf-8")
            if "def main(" in text and '__name__ == "__main__"' in text:
                names.append(f"{folder}.{path.stem}")
    return names


def module_cases() -> list:
    return [
        pytest.param(
            name,
            marks=pytest.mark.skipif(
                not TRAIN_EXTRA and not name.startswith("benchmarks."),
                reason="needs the train extra",
            ),
        )
        for name in module_mains()
    ]


def run_help(main, argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            status = main(argv)
        except SystemExit as stop:
            status = stop.code
    assert status in (0, None)
    text = out.getvalue()
    assert text.startswith("usage: "), text[:200]
    assert "option_strings" not in text  # a bare % in a help pastes argparse's dict in
    return text


def test_the_lists_are_whole():
    assert {"evaluate", "tournament", "play", "agents"} <= set(subcommands())
    assert {"rat-a-tat-cat", "catz-ratz-batz", "ratto-zakko"} <= set(play_games())
    assert {"training.train", "training.pool", "benchmarks.bench_envs"} <= set(module_mains())


def play_games() -> list[str]:
    return sorted(spec.cli_name for spec in GAMES.values())


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        *([c, "--help"] for c in subcommands()),
        *(["play", g, "--help"] for g in play_games()),
        *(["play", g, "--window", "--help"] for g in play_games()),
    ],
)
def test_ratenvs_help(argv):
    text = run_help(cli.main, argv)
    if argv == ["--help"]:
        assert "95% intervals" in text


@pytest.mark.parametrize("module", module_cases())
def test_module_help(module):
    run_help(importlib.import_module(module).main, ["--help"])
