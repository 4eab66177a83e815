"""The sdist and the wheel install into a fresh venv outside the repository WITHOUT torch,
where the library works from its plain install plus the ``agents`` extra: ``import torch``
fails there, and still every shipped agent is in the wheel (package data), loads and plays
(``ratenvs.agents.load``), ``ratenvs agents``, ``ratenvs evaluate agent:NAME`` (every
shipped agent), ``ratenvs tournament`` and ``ratenvs play --vs agent:NAME`` (up to the
first move, which no one types) run, and the README's examples run (those whose
optional packages a plain install lacks are counted as skipped). An editable install of
the same tree reads the checkpoints from the source folder.

Nothing is downloaded and nothing is compiled: the sdist and the wheel are built with
this venv's setuptools (``--no-isolation``); the fresh venv (no pip, no system
site-packages) gets the wheel through this venv's pip (``--python``, ``--no-deps``,
``--no-index``) and its dependencies as links to this venv's installed distributions:
exactly the requirement closure of ``ratenvs[agents]`` read from the wheel's metadata,
which the test checks holds no torch. About 10 s of CPU.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OPTIONAL_MODULES = ("numba", "supersuit", "pygame", "stable_baselines3", "sb3_contrib", "torch")
"""Modules of extras the fresh venv does not install: README blocks that need them skip."""
EXTRA = "agents"
"""The extra whose install is proved torch-free."""

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def _run(*argv: object, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,  # a game waiting for a move sees the end of its input
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


def _closure(
    requirements: list[str], extras: set[str]
) -> dict[str, importlib.metadata.Distribution]:
    """The installed distributions ``requirements`` need (their markers evaluated with
    ``extras``; the dependencies' own requirements with none), transitively."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    found: dict[str, importlib.metadata.Distribution] = {}
    todo = [(text, extras) for text in requirements]
    while todo:
        text, wanted = todo.pop()
        req = Requirement(text)
        if req.marker and not any(req.marker.evaluate({"extra": e}) for e in wanted or {""}):
            continue
        name = canonicalize_name(req.name)
        if name in found:
            continue
        dist = importlib.metadata.distribution(req.name)
        found[name] = dist
        todo += [(t, set(req.extras)) for t in dist.requires or ()]
    return found


def _link_distributions(dists, site: Path) -> None:
    """Make ``dists`` importable in the venv whose site-packages is ``site``: each top-level
    entry of their files linked to this venv's copy (nothing copied, nothing downloaded)."""
    for dist in dists:
        tops = {Path(str(f)).parts[0] for f in dist.files or () if not str(f).startswith("..")}
        for top in sorted(tops):
            source = Path(dist.locate_file(top))
            if source.exists() and not (site / top).exists() and not top.endswith(".pth"):
                (site / top).symlink_to(source)


IN_THE_VENV = textwrap.dedent(
    """
    import importlib.util, json, re, sys
    from pathlib import Path

    import numpy as np

    import ratenvs

    assert importlib.util.find_spec("torch") is None  # the agents work without torch
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
    for name in names:  # every shipped agent loads and plays a move
        bot = agents.load(name)
        env = GAMES[bot.game].load().raw_env(**bot.env_options)
        env.reset(seed=0)
        seen = env.observe(env.agent_selection)
        action = bot.act(seen["observation"], seen["action_mask"], np.random.default_rng(0))
        assert seen["action_mask"][action], name
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


def test_wheel_and_sdist_install_and_run_outside_the_repo_without_torch(tmp_path):
    pytest.importorskip("build")  # the test extra has it (the floors run does not)
    pytest.importorskip("packaging")
    src = _source_copy(tmp_path / "src")
    dist = tmp_path / "dist"
    # the sdist first, then the wheel built from the unpacked sdist: both are complete
    _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", dist, src, cwd=tmp_path)
    (wheel,) = dist.glob("ratenvs-*.whl")
    (sdist,) = dist.glob("ratenvs-*.tar.gz")
    import tarfile
    import zipfile

    in_wheel = zipfile.ZipFile(wheel).namelist()
    cards = [n for n in in_wheel if re.fullmatch(r"ratenvs/_checkpoints/\w+/\w+\.json", n)]
    assert "ratenvs/_checkpoints/rat_a_tat_cat/rat_a_tat_cat_2p.json" in cards
    for card_name in cards:  # every card's weights are in the wheel, no optimizer state
        card = json.loads(zipfile.ZipFile(wheel).read(card_name))
        assert str(Path(card_name).with_name(card["weights_file"])) in in_wheel, card_name
    assert not [n for n in in_wheel if n.endswith((".pt", ".optimizer.safetensors", ".png"))]
    for belief in ("belief_2p.npz", "belief_2p_one_round.npz"):  # the search's beliefs
        assert f"ratenvs/rat_a_tat_cat/beliefs/{belief}" in in_wheel
    assert not [n for n in in_wheel if n.startswith(("training/", "tests/", "studies/"))]
    (meta,) = [n for n in in_wheel if n.endswith(".dist-info/METADATA")]
    description = zipfile.ZipFile(wheel).read(meta).decode()
    assert "Description-Content-Type: text/markdown" in description
    assert "## Quick start" in description and "](docs/images/" not in description
    with tarfile.open(sdist) as tar:
        members = tar.getnames()
    assert any(n.endswith("checkpoints/rat_a_tat_cat/rat_a_tat_cat_2p.json") for n in members)
    # the docs the description points to are in the sdist; the tests (which need the
    # repository's training/ and conftest) are not
    for linked in re.findall(r"`(docs/[^`]+)` in the source distribution", description):
        assert any(n.endswith("/" + linked.split("#")[0]) for n in members), linked
    assert not [n for n in members if "/tests/" in n]

    # ratenvs[agents] needs no torch: the closure of the wheel's own requirements
    requires = [line.split(":", 1)[1].strip() for line in description.splitlines()
                if line.startswith("Requires-Dist:")]  # fmt: skip
    needed = _closure(requires, {EXTRA})
    assert "safetensors" in needed and "numpy" in needed, sorted(needed)
    assert not {"torch", "nvidia-cudnn-cu12", "triton"} & set(needed), sorted(needed)

    venv = tmp_path / "venv"
    _run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)  # no system site
    python = venv / "bin" / "python"
    purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    site = Path(_run(python, "-c", purelib, cwd=tmp_path).strip())
    _link_distributions(needed.values(), site)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    pip = [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-index"]
    _run(*pip, "--no-deps", wheel, cwd=tmp_path, env=env)
    torch_import = subprocess.run([python, "-c", "import torch"], capture_output=True, text=True)
    assert torch_import.returncode != 0 and "No module named 'torch'" in torch_import.stderr

    work = tmp_path / "elsewhere"  # outside the repository and its copy
    work.mkdir()
    script = work / "check.py"
    script.write_text(IN_THE_VENV)
    out = _run(python, script, ROOT / "README.md", ",".join(OPTIONAL_MODULES), cwd=work, env=env)
    report = json.loads(out.strip().splitlines()[-1])
    blocks = re.findall(r"```python\n", (ROOT / "README.md").read_text())
    assert report["ran"] >= 1 and report["ran"] + len(report["skipped"]) == len(blocks), report

    ratenvs = venv / "bin" / "ratenvs"
    listed = json.loads(_run(ratenvs, "agents", "--json", cwd=work, env=env))
    names = [a["name"] for a in listed]
    assert names == report["agents"] and "rat_a_tat_cat_2p" in names
    for name in names:  # every shipped agent evaluates, without torch
        _run(ratenvs, "evaluate", f"agent:{name}", "--games", "2", "--json", work / f"{name}.json",
             cwd=work, env=env)  # fmt: skip
        assert json.loads((work / f"{name}.json").read_text())["games"] == 2
    argv = ["tournament", "agent:rat_a_tat_cat_2p", "rat_a_tat_cat:random", "--games", "2"]
    printed = _run(ratenvs, *argv, cwd=work, env=env)
    assert "Bradley-Terry ratings" in printed
    argv = ["play", "rat-a-tat-cat", "--vs", "agent:rat_a_tat_cat_2p", "--seed", "1"]
    assert "Game abandoned" in _run(ratenvs, *argv, cwd=work, env=env)  # the agent seated

    # an editable install of the same tree reads checkpoints/ in the source folder (built
    # with this venv's setuptools, linked in for the build alone)
    _link_distributions(_closure(["setuptools"], set()).values(), site)
    _run(*pip, "--no-deps", "--no-build-isolation", "-e", src, cwd=tmp_path, env=env)
    where = _run(
        python,
        "-c",
        "from ratenvs import agents; print(agents.shipped_folder()); "
        "print(agents.load('agent:rat_a_tat_cat_2p').game)",
        cwd=work,
        env=env,
    ).split()
    assert where == [str(src / "checkpoints"), "rat_a_tat_cat"]
