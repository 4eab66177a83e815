"""The recipes of ``docs/recipes/`` run as written: a page's ```` ```python ```` blocks, in
order, in one namespace (as a reader pastes them into one session). The framework tests in
``tests/integrations/`` run their page and check what its code made."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

RECIPES = Path(__file__).resolve().parent.parent / "docs" / "recipes"


def recipe_blocks(page: str) -> list[str]:
    """The Python blocks of ``docs/recipes/<page>.md``, in page order."""
    text = (RECIPES / f"{page}.md").read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def run_recipe(page: str) -> dict[str, Any]:
    """Run every Python block of ``docs/recipes/<page>.md`` in one namespace; return it."""
    namespace: dict[str, Any] = {"__name__": f"recipe_{page}"}
    blocks = recipe_blocks(page)
    if not blocks:
        raise ValueError(f"docs/recipes/{page}.md has no python block")
    for index, block in enumerate(blocks):
        exec(compile(block, f"docs/recipes/{page}.md block {index}", "exec"), namespace)
    return namespace
