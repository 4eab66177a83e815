"""The packages of the wheel, with the shipped checkpoints as package data (every other
setting is in pyproject.toml).

The shipped agents stay in the repository's ``checkpoints/<game>/`` folder and are
installed as the package ``ratenvs._checkpoints`` (``ratenvs._checkpoints.<game>``: their
``.pt`` weights and ``.json`` cards; the learning-curve pictures stay out of the wheel).
:mod:`ratenvs.agents` reads them from there, or from ``checkpoints/`` in a source checkout.
"""

from pathlib import Path

from setuptools import find_packages, setup

SHIPPED = "ratenvs._checkpoints"
FOLDER = "checkpoints"
GAMES = sorted(p.name for p in (Path(__file__).parent / FOLDER).iterdir() if p.is_dir())

setup(
    packages=[
        *find_packages(include=["ratenvs", "ratenvs.*"]),
        SHIPPED,
        *(f"{SHIPPED}.{game}" for game in GAMES),
    ],
    package_dir={SHIPPED: FOLDER},
    package_data={f"{SHIPPED}.{game}": ["*.pt", "*.json"] for game in GAMES},
)
