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


def test_bad_input_is_one_line(tmp_path, capsys):
    """A ``--write`` that is no folder, a bad seed: one error line (they were tracebacks, and
    a seed of 1.5 was read as 1)."""
    from ratenvs.common.playthrough import main, playthrough

    afile = tmp_path / "afile"
    afile.write_text("kept")
    for where in (afile, afile / "sub"):
        assert main(["--write", str(where)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: --write") and err.count("\n") == 1
    assert afile.read_text() == "kept"
    with pytest.raises(SystemExit) as exit_:  # no case, no --write: the parser's one line
        main([])
    assert exit_.value.code == 2 and "name a case" in capsys.readouterr().err
    game = GAMES["catz_ratz_batz"].load().raw_env().game
    for seed in (-1, 1.5, True, None):
        with pytest.raises(ValueError, match="seed must be"):
            playthrough(game, seed)
