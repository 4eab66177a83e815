"""Research studies on top of ratenvs (and the repository's ``training`` package).

Not part of the library and not in its wheel: each module is a script run from the
repository root as ``python -m studies.<name>``, importable (tests and other studies
import it), with its findings in ``studies/README.md``.
"""
