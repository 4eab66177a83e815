"""The packages of the wheel, with the shipped checkpoints as package data, and the
package index's description (every other setting is in pyproject.toml).

The shipped agents stay in the repository's ``checkpoints/<game>/`` folder and are
installed as the package ``ratenvs._checkpoints`` (``ratenvs._checkpoints.<game>``: their
``.json`` cards and the ``.safetensors`` weights the cards name; the optimizer states,
``*.optimizer.safetensors``, which only resuming training reads, and the learning-curve
pictures stay out of the wheel).
:mod:`ratenvs.agents` reads them from there, or from ``checkpoints/`` in a source checkout.

The description on a package index is README.md with its pictures, which are files of
the repository (relative links an index cannot show), replaced by a line naming them:
:func:`index_readme`.
"""

import re
from pathlib import Path

from setuptools import find_packages, setup

SHIPPED = "ratenvs._checkpoints"
FOLDER = "checkpoints"
ROOT = Path(__file__).parent
GAMES = sorted(p.name for p in (ROOT / FOLDER).iterdir() if p.is_dir())
RELATIVE = re.compile(r"(!?)\[([^\]]*)\]\((?!https?://|mailto:|#)([^)\s]+)\)")
"""A Markdown picture or link to a file of the repository (not a URL, not an anchor)."""


def index_readme(text: str) -> str:
    """README.md for a package index: every picture or link to a repository file becomes
    its text and the file's path (``*Rat-a-Tat Cat* (picture: docs/images/...png in the
    source distribution)``); URLs and anchors are kept."""

    def plain(match: re.Match) -> str:
        picture, words, path = match.groups()
        kind = "picture" if picture else "file"
        return f"*{words}* ({kind}: `{path}` in the source distribution)"

    return RELATIVE.sub(plain, text)


if __name__ == "__main__":  # the build backend runs this file as __main__
    setup(
        packages=[
            *find_packages(include=["ratenvs", "ratenvs.*"]),
            SHIPPED,
            *(f"{SHIPPED}.{game}" for game in GAMES),
        ],
        package_dir={SHIPPED: FOLDER},
        package_data={
            # the rules page (ratenvs.rulebook, `ratenvs rules`) and the search's shipped
            # beliefs over the other hand (ratenvs.rat_a_tat_cat.belief)
            "ratenvs": ["RULES.md", "rat_a_tat_cat/beliefs/*.npz"],
            **{f"{SHIPPED}.{game}": ["*.safetensors", "*.json"] for game in GAMES},
        },
        exclude_package_data={f"{SHIPPED}.{game}": ["*.optimizer.safetensors"] for game in GAMES},
        long_description=index_readme((ROOT / "README.md").read_text(encoding="utf-8")),
        long_description_content_type="text/markdown",
    )
