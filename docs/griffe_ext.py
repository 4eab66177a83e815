"""A griffe extension for the API reference: Sphinx roles and literal-block markers in the
docstrings become Markdown, so the docstrings read as they are written.

``:class:`~ratenvs.common.game.Game``` becomes a link to the object when the reference
documents it (an optional autoref: plain code when it does not), and a paragraph ending in
``::`` (reST's "a literal block follows") ends in ``:``; the indented block after it is a
Markdown code block as it is. Loaded by mkdocstrings (``extensions`` in ``mkdocs.yml``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import griffe

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_pages import rst_to_markdown


class SphinxRoles(griffe.Extension):
    """Rewrite every docstring with :func:`gen_pages.rst_to_markdown` as it is loaded."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is None:
            return
        context = obj.path if obj.is_class else obj.parent.path if obj.parent else obj.path
        obj.docstring.value = rst_to_markdown(obj.docstring.value, obj.module.path, context)
