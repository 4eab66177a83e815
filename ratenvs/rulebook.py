"""The rules page the package ships: ``ratenvs/RULES.md``, the rules of the three games as
the environments implement them, with the project's rulings where the published rules are
silent, and the env option that carries each ruling that is a choice.

Docstrings that say "RULES.md section N" mean this page: it is installed with the package
(the documentation site shows it too), so ``ratenvs rules GAME`` or
:func:`rules_text` prints it from any install.
"""

from __future__ import annotations

import re
from importlib import resources

from ratenvs.games import GAMES, GameSpec

PAGE = "RULES.md"
"""The page's file name inside the ``ratenvs`` package."""


def rules_page() -> str:
    """The whole rules page (Markdown), as installed with the package."""
    return resources.files("ratenvs").joinpath(PAGE).read_text(encoding="utf-8")


def _game(game: str) -> GameSpec:
    key = game.strip().lower()
    for spec in GAMES.values():
        names = (spec.name, spec.cli_name, spec.module.rsplit(".", 1)[1], spec.title.lower())
        if key in names:
            return spec
    names = ", ".join(spec.cli_name for spec in GAMES.values())
    raise ValueError(f"no rules for game {game!r}: the games are {names}")


def _section(text: str, level: int, found: re.Match[str] | None, what: str) -> str:
    """From the heading ``found`` to the next heading of ``level`` or above."""
    if found is None:
        raise ValueError(f"{PAGE} has no section for {what}")  # a broken install
    rest = text[found.end() :]
    later = re.search(rf"^#{{1,{level}}} ", rest, flags=re.M)
    return (found.group(0) + rest[: later.start() if later else len(rest)]).strip()


def rules_text(game: str | None = None) -> str:
    """The rules of one game (Markdown): its numbered section of the rules page and its
    rulings as env options (each ruling that is a choice, its option and default), or the
    whole page for ``None``.

    Args:
        game: a game as the command line names it (``catz-ratz-batz``), its package name
            (``catz_ratz_batz``), its versioned module (``catz_ratz_batz_v0``) or its title.

    Raises:
        ValueError: for a name that is no game (the message lists the games).
    """
    text = rules_page()
    if game is None:  # the page without the maintainers' comment that opens it
        return re.sub(r"\A<!--.*?-->\s*", "", text, flags=re.S)
    spec = _game(game)
    title = re.escape(spec.title)
    rules = re.search(rf"^## \d+\. {title}\b.*$", text, flags=re.M)
    module = spec.module.rsplit(".", 1)[1]
    rulings = re.search(rf"^### .*`{module}`.*$", text, flags=re.M)
    return (
        _section(text, 2, rules, spec.title)
        + "\n\n"
        + _section(text, 3, rulings, module).replace("### ", "## Rulings as env options: ", 1)
        + "\n"
    )
