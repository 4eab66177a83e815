"""Golden playthroughs: a fixed seed and action list give recorded observations.

Regenerate (only after a deliberate, versioned rules change) with
``RATENVS_REGEN_GOLDEN=1 pytest tests/catz_ratz_batz/test_golden.py``.
"""

import json
import os
from pathlib import Path

import numpy as np
import pytest

from ratenvs import catz_ratz_batz_v0

GOLDEN = Path(__file__).parent / "golden"
CASES = {"two_players_seed7": {"seed": 7, "options": {"num_players": 2, "turns": 3}}}


def _playthrough(seed: int, options: dict) -> dict:
    env = catz_ratz_batz_v0.env(**options)
    env.reset(seed=seed)
    steps = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        action = None if (term or trunc) else legal[len(steps) % len(legal)]
        steps.append(
            {
                "agent": agent,
                "observation": [round(float(x), 6) for x in obs["observation"]],
                "legal": legal,
                "reward": reward,
                "action": action,
            }
        )
        env.step(action)
    return {"seed": seed, "options": options, "steps": steps}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_playthrough(name):
    path = GOLDEN / f"{name}.json"
    got = _playthrough(**CASES[name])
    if os.environ.get("RATENVS_REGEN_GOLDEN"):
        path.write_text(json.dumps(got, indent=1) + "\n")
    expected = json.loads(path.read_text())
    assert len(got["steps"]) == len(expected["steps"])
    for i, (g, e) in enumerate(zip(got["steps"], expected["steps"])):
        assert g == e, f"step {i} differs"
