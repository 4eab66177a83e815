"""The site's mkdocs hook (``hooks:`` in ``mkdocs.yml``).

- ``on_files`` adds the pages and pictures of ``docs/gen_pages.py``: a page per game under
  ``games/`` and the shipped agents' learning curves under ``images/curves/``, generated
  from the repository's own code (its root comes first on ``sys.path``).
- ``on_page_markdown`` reads every page as GitHub does in two points (a list may start
  right under a paragraph line; ``\\|`` in a table's code span is a pipe):
  ``gen_pages.as_github_reads``. Hooks run after the plugins, so this reaches the included
  text too.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS))  # mkdocs puts sys.path back after loading this module
import gen_pages  # noqa: E402


def on_config(config: Any) -> Any:
    # the code the pages are generated from is this repository's (first on sys.path for the
    # rest of the build), whatever else is installed
    if str(ROOT) in sys.path:
        sys.path.remove(str(ROOT))
    sys.path.insert(0, str(ROOT))
    return config


def on_files(files: Files, config: Any) -> Files:
    for path, text in gen_pages.pages().items():
        files.append(File.generated(config, path, content=text))
    for path, source in gen_pages.images().items():
        files.append(File.generated(config, path, abs_src_path=str(source)))
    return files


def on_page_markdown(markdown: str, **kwargs: Any) -> str:
    return gen_pages.as_github_reads(markdown)
