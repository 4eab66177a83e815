"""numba, or one line saying which extra installs it: the compiled kernels (the batched
engines, the Catz win solver and best response) import numba through here."""

from __future__ import annotations

NEEDS_NUMBA = "the compiled kernels need numba: pip install 'ratenvs[batched]'"
"""The message of the ModuleNotFoundError (its ``name`` is "numba") when numba is missing."""

try:
    from numba import carray, njit, types
    from numba.core import cgutils
    from numba.extending import intrinsic
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
    if exc.name != "numba":
        raise
    raise ModuleNotFoundError(NEEDS_NUMBA, name="numba") from exc

__all__ = ["NEEDS_NUMBA", "carray", "cgutils", "intrinsic", "njit", "types"]
