"""Write the OpenSpiel playthroughs of ``tests/integrations/playthroughs/`` (needs the
``openspiel`` extra): ``python tests/integrations/openspiel_playthroughs.py``. Regenerate
them only after a deliberate, versioned rules change, and say which files changed."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from test_openspiel import PLAYTHROUGH_CASES, PLAYTHROUGHS, _playthrough_text

from ratenvs.common.atomic import atomic_file


def main() -> int:
    PLAYTHROUGHS.mkdir(exist_ok=True)
    for filename, (game_string, seed) in sorted(PLAYTHROUGH_CASES.items()):
        text = _playthrough_text(game_string, seed)
        with atomic_file(PLAYTHROUGHS / filename) as fh:
            fh.write(text.encode("utf-8"))
        print(f"{filename}: {len(text.splitlines())} lines")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
