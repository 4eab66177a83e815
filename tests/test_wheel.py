"""The sdist and the wheel install into a fresh venv outside the repository, where the
library works from its plain install plus the ``agents`` extra: the shipped agents are in
the wheel (package data), load and play, ``ratenvs evaluate`` and ``ratenvs tournament``
run, and the README's examples run (those whose optional packages, numba or SuperSuit,
a plain install lacks are counted as skipped). An editable install of the same tree reads
the checkpoints from the source folder.

Slow (a venv and a few packages from the registry, two to four minutes): ``make
test-wheel`` runs it alone; ``make test`` (so CI, ``.ci/run``) runs it with the rest. torch is
installed as the Makefile pins it (its CPU build is on disk on our machines).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OPTIONAL_MODULES = ("numba", "supersuit", "pygame", "stable_baselines3", "sb3_contrib")
"""Modules of extras the fresh venv does not install: README blocks that need them skip."""

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]


def _torch_requirement() -> str:
    """The torch the Makefile installs (``TORCH ?= torch==X``)."""
    match = re.search(r"^TORCH\s*\?=\s*(\S+)", (ROOT / "Makefile").read_text(), flags=re.M)
    assert match, "Makefile: no TORCH ?= line"
    return match.group(1)


def _run(*argv: object, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=1200
    )
    assert done.returncode == 0, f"{argv} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def _source_copy(dest: Path) -> Path:
    """The repository's files as git sees them (tracked, and new ones not ignored): what a
    clone of the commit would hold, with no build leftovers."""
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "-co", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read_bytes())
    return dest


IN_THE_VENV = textwrap.dedent(
    """
    import importlib.util, json, re, sys
    from pathlib import Path

    import numpy as np

    import ratenvs

    shipped = ratenvs.agents.available()  # the subpackage, on first use
    agents = ratenvs.agents
    from ratenvs.common.play import play_game
    from ratenvs.games import GAMES

    site = Path(ratenvs.__file__).resolve().parent
    assert "site-packages" in str(site), site
    assert importlib.util.find_spec("training") is None  # the library alone
    names = [a.name for a in shipped]
    assert "rat_a_tat_cat_2p" in names and len(names) >= 3, names
    assert agents.shipped_folder() == site / "_checkpoints", agents.shipped_folder()
    bot = agents.load("rat_a_tat_cat_2p")
    game = GAMES[bot.game].load().raw_env(**bot.env_options).game
    other = GAMES[bot.game].bots()[GAMES[bot.game].default_opponent]()
    wins = 0
    for seed in range(3):
        played = play_game(game, [bot, other], seed)
        wins += played.winners[0]
    try:
        agents.load("nobody")
    except agents.CheckpointError as exc:
        assert "rat_a_tat_cat_2p" in str(exc)
    else:
        raise AssertionError("an unknown agent loaded")

    readme = Path(sys.argv[1]).read_text()
    blocks = re.findall(r"```python\\n(.*?)```", readme, flags=re.S)
    ran, skipped = 0, []
    for index, block in enumerate(blocks):
        try:
            exec(compile(block, f"README block {index}", "exec"), {})
        except ModuleNotFoundError as exc:
            if exc.name not in sys.argv[2].split(","):
                raise
            skipped.append(exc.name)
        else:
            ran += 1
    print(json.dumps({"agents": names, "wins": wins, "ran": ran, "skipped": skipped}))
    """
)


def test_wheel_and_sdist_install_and_run_outside_the_repo(tmp_path):
    pytest.importorskip("build")  # the test extra has it (the floors run does not)
    src = _source_copy(tmp_path / "src")
    dist = tmp_path / "dist"
    # the sdist first, then the wheel built from the unpacked sdist: both are complete
    _run(sys.executable, "-m", "build", "--outdir", dist, src, cwd=tmp_path)
    (wheel,) = dist.glob("ratenvs-*.whl")
    (sdist,) = dist.glob("ratenvs-*.tar.gz")
    import tarfile
    import zipfile

    in_wheel = zipfile.ZipFile(wheel).namelist()
    assert "ratenvs/_checkpoints/rat_a_tat_cat/rat_a_tat_cat_2p.pt" in in_wheel
    assert "ratenvs/_checkpoints/rat_a_tat_cat/rat_a_tat_cat_2p.json" in in_wheel
    assert not [n for n in in_wheel if n.startswith(("training/", "tests/", "studies/"))]
    (meta,) = [n for n in in_wheel if n.endswith(".dist-info/METADATA")]
    description = zipfile.ZipFile(wheel).read(meta).decode()
    assert "Description-Content-Type: text/markdown" in description
    assert "## Quick start" in description and "](docs/images/" not in description
    with tarfile.open(sdist) as tar:
        members = tar.getnames()
    assert any(n.endswith("checkpoints/rat_a_tat_cat/rat_a_tat_cat_2p.pt") for n in members)

    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", venv, cwd=tmp_path)  # no system site-packages
    python = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    _run(
        python,
        "-m",
        "pip",
        "install",
        "-q",
        f"{wheel}[agents]",
        _torch_requirement(),
        cwd=tmp_path,
        env=env,
    )

    work = tmp_path / "elsewhere"  # outside the repository and its copy
    work.mkdir()
    script = work / "check.py"
    script.write_text(IN_THE_VENV)
    out = _run(python, script, ROOT / "README.md", ",".join(OPTIONAL_MODULES), cwd=work, env=env)
    report = json.loads(out.strip().splitlines()[-1])
    assert report["ran"] >= 5, report  # the envs, the Game interface, gymnasium, the solver...

    ratenvs = venv / "bin" / "ratenvs"
    listed = _run(ratenvs, "agents", "--json", cwd=work, env=env)
    assert "rat_a_tat_cat_2p" in [a["name"] for a in json.loads(listed)]
    argv = ["evaluate", "agent:rat_a_tat_cat_2p", "--opponents", "random", "--games", "3"]
    _run(ratenvs, *argv, "--json", work / "eval.json", cwd=work, env=env)
    result = json.loads((work / "eval.json").read_text())
    assert result["games"] == 3 and result["opponents"] == ["rat_a_tat_cat:random"]
    argv = ["tournament", "agent:rat_a_tat_cat_2p", "rat_a_tat_cat:random", "--games", "2"]
    printed = _run(ratenvs, *argv, cwd=work, env=env)
    assert "Bradley-Terry ratings" in printed

    # an editable install of the same tree reads checkpoints/ in the source folder
    _run(python, "-m", "pip", "install", "-q", "--no-deps", "-e", src, cwd=tmp_path, env=env)
    where = _run(
        python,
        "-c",
        "from ratenvs import agents; print(agents.shipped_folder()); "
        "print(agents.load('agent:rat_a_tat_cat_2p').game)",
        cwd=work,
        env=env,
    ).split()
    assert where == [str(src / "checkpoints"), "rat_a_tat_cat"]
