"""Golden playthroughs: a fixed seed and action list give the recorded observations.

Each file in ``golden/`` holds the seed, the env options, the action list and,
for every step, the acting agent, its observation (sparse: ``[index, value]``
of the non-zero entries), legal actions and reward, plus the final
``game_state()``. The test replays the stored actions and compares everything.

Regenerate (only after a deliberate, versioned rules or observation change)
with ``RATENVS_REGEN_GOLDEN=1 pytest tests/rat_a_tat_cat/test_ratcat_golden.py``;
the actions are then chosen again by :func:`_choose`.
"""

import json
import os
from pathlib import Path

import numpy as np
import pytest

from ratenvs import rat_a_tat_cat_v0
from ratenvs.rat_a_tat_cat import rules

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "two_players_knowledge_seed7": {"seed": 7, "options": {"num_players": 2}},
    "three_players_memoryless_two_rounds_seed3": {
        "seed": 3,
        "options": {"num_players": 3, "observation": "memoryless", "rounds": 2},
    },
    "four_players_elimination_seed11": {
        "seed": 11,
        "options": {"num_players": 4, "target_score": 40, "max_turns_per_round": 24},
    },
}


def _choose(step: int, legal: list[int]) -> int:
    """A deterministic spread of legal actions; knocks only late in the game."""
    if rules.ACTION_KNOCK in legal:
        return rules.ACTION_KNOCK if step % 23 == 22 else rules.ACTION_NO_KNOCK
    return legal[(step * 7) % len(legal)]


def _sparse(vec: np.ndarray) -> list[list[float]]:
    return [[int(i), round(float(vec[i]), 6)] for i in np.flatnonzero(vec)]


def _playthrough(seed: int, options: dict, actions: list[int] | None) -> dict:
    env = rat_a_tat_cat_v0.env(**options)
    env.reset(seed=seed)
    steps, chosen = [], []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        if term or trunc:
            action = None
        elif actions is None:
            action = _choose(len(chosen), legal)
        else:
            action = actions[len(chosen)]
        steps.append(
            {
                "agent": agent,
                "observation": _sparse(obs["observation"]),
                "legal": legal,
                "reward": round(float(reward), 6),
            }
        )
        if action is not None:
            chosen.append(action)
        env.step(action)
    return {
        "seed": seed,
        "options": options,
        "actions": chosen,
        "steps": steps,
        "final_state": env.unwrapped.game_state(),
    }


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_playthrough(name):
    path = GOLDEN / f"{name}.json"
    if os.environ.get("RATENVS_REGEN_GOLDEN"):
        got = _playthrough(**CASES[name], actions=None)
        path.write_text(json.dumps(got, separators=(",", ":")) + "\n")
    expected = json.loads(path.read_text())
    assert expected["seed"] == CASES[name]["seed"]
    got = _playthrough(expected["seed"], expected["options"], expected["actions"])
    assert len(got["steps"]) == len(expected["steps"])
    for i, (g, e) in enumerate(zip(got["steps"], expected["steps"])):
        assert g == e, f"step {i} differs"
    assert got["final_state"] == expected["final_state"]
    assert got["final_state"]["current_player"] is None  # the playthroughs are whole games
