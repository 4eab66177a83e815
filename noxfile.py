"""Test sessions beyond ``make test`` (https://nox.thea.codes).

``nox -s floors`` (or ``make test-floors``) installs the lowest version of every
dependency that ``pyproject.toml`` allows for the envs (the core dependencies and the
``batched``, ``render`` and test extras: each ``>=X`` pinned to ``==X``) in a fresh venv,
and runs the test suite there (on every core, as ``make test``). The tests that need the
``train`` extra (torch, stable-baselines3) are left out by ``tests/conftest.py`` in such an
install; ``make test`` runs them with the newest versions.

``nox -s frameworks agilerl`` (or ``make test-frameworks``) runs the framework integrations
(``tests/integrations/``, whose recipes are ``docs/recipes/``) on the Makefile's torch pin:
TorchRL and Tianshou in one venv, AgileRL in one of its own (its exact ``tensordict`` pin
cannot sit next to TorchRL's, and its ``pygame-ce`` replaces our test extra's ``pygame``).

``nox -s openspiel`` (or ``make test-openspiel``) runs the OpenSpiel tests (the games as
pyspiel games: random simulations, lock-step with our envs, IS-MCTS and MCTS, playthroughs,
``docs/recipes/openspiel.md``) with the ``openspiel`` extra, in a venv of its own.

``nox -s rllib`` (or ``make test-rllib``) runs the RLlib tests (two self-play iterations of
every game on a local Ray instance, ``tests/integrations/test_rllib.py``) with the ``rllib``
extra (Ray) on the same torch pin, in a venv of its own.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import nox

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).parent
INTEGRATIONS = "tests/integrations"
NOT_HERE = (
    "--ignore=tests/integrations/test_rllib.py",
    "--ignore=tests/integrations/test_openspiel.py",
)
"""Integration tests with sessions of their own elsewhere (RLlib: ``nox -s rllib``;
OpenSpiel: ``nox -s openspiel``)."""
FLOOR_EXTRAS = ("batched", "render", "test")
"""Extras whose floors the floors session installs (``train`` needs a torch build of its
own, and its floors are not tested)."""
XDIST = ("-n", os.environ.get("WORKERS", "auto"), "--dist", "worksteal")
"""The suite on every core (pytest-xdist, in the test extra; ``WORKERS`` as in the Makefile)."""
NOT_FOR_FLOORS = ("ruff", "nox", "supersuit", "build")
"""Test-extra packages the floors session leaves out: tools it does not need, and the
integrations tested at their newest (their tests skip without them)."""


def floors() -> list[str]:
    """``name==X`` for every ``name>=X`` requirement of the core and ``FLOOR_EXTRAS``."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = list(project["dependencies"])
    for extra in FLOOR_EXTRAS:
        requirements += project["optional-dependencies"][extra]
    pins: dict[str, str] = {}
    for req in requirements:
        match = re.fullmatch(r"\s*([A-Za-z0-9_.\-\[\]]+)\s*>=\s*([^,;\s]+).*", req)
        if match is None:
            raise ValueError(f"pyproject.toml: {req!r} has no '>=' floor")
        name, low = match.groups()
        if name.split("[")[0] not in NOT_FOR_FLOORS:
            pins[name] = f"{name}=={low}"
    return sorted(pins.values())


@nox.session(name="floors", reuse_venv=True)
def floors_session(session: nox.Session) -> None:
    """The test suite on the lowest allowed versions (envs, batched engines, rendering)."""
    session.install(*floors())
    session.install("--no-deps", "-e", ".")
    session.run("python", "-m", "pip", "list", "--format=freeze", silent=False)
    # the slow tier (the 10-turn win solve, the wheel) runs in `make test-slow` at the newest
    # versions; here it would only repeat it
    session.run(
        "python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow",
        *XDIST, *session.posargs,
    )  # fmt: skip


def torch_pin() -> str:
    """The torch requirement the Makefile installs (``TORCH ?= ...``; ``TORCH`` in the
    environment wins, as in make)."""
    makefile = (ROOT / "Makefile").read_text()
    match = re.search(r"^TORCH\s*\?=\s*(\S+)\s*$", makefile, flags=re.M)
    if match is None:
        raise ValueError("Makefile: no 'TORCH ?= ...' line")
    return os.environ.get("TORCH") or match.group(1)


def _integration_tests(
    session: nox.Session, extras: str, tests: tuple[str, ...] = (INTEGRATIONS, *NOT_HERE)
) -> None:
    """Install the torch pin and ``.[extras]`` in the session's venv, then run ``tests``."""
    session.install(torch_pin())
    session.install("-e", f".[{extras}]", "pytest>=8", "pytest-timeout>=2.2")
    session.run("python", "-m", "pip", "list", "--format=freeze", silent=False)
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests, *session.posargs)


@nox.session(name="frameworks", reuse_venv=True)
def frameworks_session(session: nox.Session) -> None:
    """TorchRL and Tianshou tests and recipes, in one venv (``torchrl``, ``tianshou`` extras).

    ``test_agilerl.py`` skips here."""
    _integration_tests(session, "torchrl,tianshou")


@nox.session(name="agilerl", reuse_venv=True)
def agilerl_session(session: nox.Session) -> None:
    """AgileRL tests and recipe, in a venv of its own (the ``agilerl`` extra).

    The TorchRL and Tianshou tests skip here."""
    _integration_tests(session, "agilerl")


@nox.session(name="rllib", reuse_venv=True)
def rllib_session(session: nox.Session) -> None:
    """RLlib tests (the ``rllib`` extra: Ray RLlib, newest), in a venv of their own: the env
    wrapper, the masking module, two self-play iterations per game on two env runners."""
    _integration_tests(session, "rllib", (f"{INTEGRATIONS}/test_rllib.py",))


@nox.session(name="openspiel", reuse_venv=True)
def openspiel_session(session: nox.Session) -> None:
    """OpenSpiel tests, playthroughs and recipe (``tests/integrations/test_openspiel.py``), in
    a venv of their own: the ``openspiel`` extra and the ``agents`` extra (the recipe's
    shipped agent reads its weights without torch, so no torch is installed)."""
    session.install("-e", ".[openspiel,agents]", "pytest>=8", "pytest-timeout>=2.2")
    session.run("python", "-m", "pip", "list", "--format=freeze", silent=False)
    session.run(
        "python", "-m", "pytest", "-q", "-p", "no:cacheprovider",
        f"{INTEGRATIONS}/test_openspiel.py", *session.posargs,
    )  # fmt: skip
