"""Without OpenSpiel, the adapter's import is one clear error naming the extra (this runs in
an install without the ``openspiel`` extra, e.g. ``make test``'s; ``nox -s openspiel`` has
it)."""

from __future__ import annotations

import importlib
import importlib.util

import pytest


@pytest.mark.skipif(importlib.util.find_spec("pyspiel") is not None, reason="pyspiel installed")
def test_import_without_openspiel_names_the_extra():
    with pytest.raises(ImportError, match=r'pip install "ratenvs\[openspiel\]"'):
        importlib.import_module("ratenvs.integrations.openspiel")
