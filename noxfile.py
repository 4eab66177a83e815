"""Test sessions beyond ``make test`` (https://nox.thea.codes).

``nox -s floors`` (or ``make test-floors``) installs the lowest version of every
dependency that ``pyproject.toml`` allows for the envs (the core dependencies and the
``batched``, ``render`` and test extras: each ``>=X`` pinned to ``==X``) in a fresh venv,
and runs the test suite there. The tests that need the ``train`` extra (torch,
stable-baselines3) are left out by ``tests/conftest.py`` in such an install; ``make
test`` runs them with the newest versions.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nox

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).parent
FLOOR_EXTRAS = ("batched", "render", "test")
"""Extras whose floors the floors session installs (``train`` needs a torch build of its
own, and its floors are not tested)."""
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
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *session.posargs)
