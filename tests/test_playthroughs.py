"""Golden playthroughs of every game: the text made by ``ratenvs.common.playthrough`` from a
fixed seed, options and action rule must equal the file under ``tests/golden/``.

Regenerate (only after a deliberate, versioned rules change) with
``python -m ratenvs.common.playthrough --write tests/golden``.
"""

from pathlib import Path

import pytest

from ratenvs.common.playthrough import CASES, case_text
from ratenvs.games import GAMES

GOLDEN = Path(__file__).parent / "golden"


def test_every_game_has_a_golden_playthrough():
    assert {game for game, _, _ in CASES.values()} == set(GAMES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_playthrough(name):
    expected = (GOLDEN / f"{name}.txt").read_text().splitlines()
    got = case_text(name).splitlines()
    for i, (g, e) in enumerate(zip(got, expected)):
        assert g == e, f"{name}: line {i + 1} differs"
    assert len(got) == len(expected)
