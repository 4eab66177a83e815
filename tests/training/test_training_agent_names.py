"""``agent:NAME`` names a shipped agent's checkpoint at every training door that reads
one (``python -m training.evaluate --checkpoint``, ``python -m training.pool``), as it
does for ``ratenvs evaluate``: before, both looked for a file ``agent:NAME.json``."""

from __future__ import annotations

import json

from ratenvs.agents import agent_path
from training import evaluate, pool
from training.checkpoint import load_card

SHIPPED = "agent:catz_ratz_batz_1p"


def test_evaluate_reads_a_shipped_agent_and_names_its_weights(tmp_path, capsys):
    out = tmp_path / "eval.json"
    assert evaluate.main(["--checkpoint", SHIPPED, "--games", "2", "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["checkpoint"] == SHIPPED and result["games"] == 2
    assert result["weights_sha256"] == load_card(agent_path(SHIPPED))["weights_sha256"]
    assert "ratio to optimal" in capsys.readouterr().out


def test_an_unknown_shipped_agent_is_one_error_line(tmp_path, capsys):
    result = tmp_path / "r.json"
    result.write_text("{}")
    for main, argv in (
        (evaluate.main, ["--checkpoint", "agent:nope", "--games", "1"]),
        (pool.main, ["agent:nope", str(result)]),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: unknown agent 'agent:nope'; the shipped agents are: ")
        assert "catz_ratz_batz_1p" in err and len(err.strip().splitlines()) == 1
