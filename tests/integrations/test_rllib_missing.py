"""Without Ray, the RLlib adapter's import is one clear error naming the extra (this runs in
an install without the ``rllib`` extra, e.g. ``make test``'s; ``nox -s rllib`` has Ray)."""

from __future__ import annotations

import importlib
import importlib.util

import pytest


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="ray is installed")
def test_import_without_ray_names_the_extra():
    importlib.import_module("ratenvs.integrations")  # the package itself imports nothing
    with pytest.raises(ImportError, match=r'pip install "ratenvs\[rllib\]"'):
        importlib.import_module("ratenvs.integrations.rllib")
