"""Without numba, every compiled kernel's module says in one line which extra installs it
(the ModuleNotFoundError's ``name`` is "numba", which the CLI's one-line errors read)."""

from __future__ import annotations

import subprocess
import sys

import pytest

KERNELS = [
    "ratenvs.rat_a_tat_cat.batched",
    "ratenvs.ratto_zakko.batched",
    "ratenvs.catz_ratz_batz.batched",
    "ratenvs.catz_ratz_batz.winsolver",
    "ratenvs.catz_ratz_batz.bestresponse",
    "ratenvs.common.batched",
]

HIDE_NUMBA = """
import sys
sys.modules["numba"] = None  # an install without the batched extra
try:
    __import__({module!r})
except ModuleNotFoundError as err:
    print(err.name, "|", err)
"""


@pytest.mark.parametrize("module", KERNELS)
def test_a_kernel_without_numba_names_the_extra(module):
    done = subprocess.run(
        [sys.executable, "-c", HIDE_NUMBA.format(module=module)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    name, message = done.stdout.strip().split(" | ")
    assert name == "numba"
    assert message == "the compiled kernels need numba: pip install 'ratenvs[batched]'"
