"""Make the repository's ``studies`` and ``training`` packages importable (they are run as
``python -m studies.<name>`` from the repository root and are not installed with ``ratenvs``)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
