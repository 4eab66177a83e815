"""The package index's description (setup.py's ``index_readme``): README.md without links an
index cannot follow."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _setup_module():
    spec = importlib.util.spec_from_file_location("ratenvs_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # not __main__: setup() is not called
    return module


def test_the_index_readme_names_the_repository_pictures_instead_of_linking_them():
    setup = _setup_module()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert setup.RELATIVE.search(readme)  # the README has pictures of repository files
    out = setup.index_readme(readme)
    assert not setup.RELATIVE.search(out)
    assert "*Rat-a-Tat Cat* (picture: `docs/images/rat_a_tat_cat.png` in the source" in out
    assert out.count("\n") == readme.count("\n")  # nothing else moved


def test_urls_and_anchors_stay_links():
    setup = _setup_module()
    text = "[docs](https://example.org/x) [up](#quick-start) [f](docs/a.md) ![p](a.png)"
    assert setup.index_readme(text) == (
        "[docs](https://example.org/x) [up](#quick-start) *f* (file: `docs/a.md` in the "
        "source distribution) *p* (picture: `a.png` in the source distribution)"
    )
