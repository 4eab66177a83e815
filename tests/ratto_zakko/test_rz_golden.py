"""Golden playthrough: a fixed seed and bots give a recorded game, card by card.

Regenerate (only after a deliberate, versioned change of rules, perception or bots) with
``RATENVS_REGEN_GOLDEN=1 pytest tests/ratto_zakko/test_rz_golden.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from ratenvs import ratto_zakko_v0
from ratenvs.ratto_zakko.bots import BOTS

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "main_four_humans_seed13": {
        "seed": 13,
        "options": {"num_players": 4, "level": "main"},
        "bots": ["adult", "expert", "child", "adult"],
    },
    "dessert_memoryless_seed5": {
        "seed": 5,
        "options": {"num_players": 3, "level": "dessert", "observation": "memoryless"},
        "bots": ["adult", "random", "expert"],
    },
}


def _playthrough(seed: int, options: dict, bots: list[str]) -> dict:
    env = ratto_zakko_v0.env(**options)
    env.reset(seed=seed)
    raw = env.unwrapped
    players = [BOTS[name]() for name in bots]
    rng = np.random.default_rng(seed)
    cards = []
    first_observations = []
    for agent in env.agent_iter():
        obs, _reward, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if len(first_observations) < 6:
            first_observations.append([round(float(x), 5) for x in obs["observation"]])
        previous = raw.truth.last_result
        seat = raw.agent_name_mapping[agent]
        env.step(players[seat].act(obs["observation"], obs["action_mask"], rng))
        if raw.truth.last_result is not previous:
            cards.append(raw.game_state()["last_result"])
    final = raw.game_state()
    return {
        "seed": seed,
        "options": options,
        "bots": bots,
        "first_observations": first_observations,
        "cards": cards,
        "cards_won": final["cards_won"],
        "jackpot": final["jackpot"],
    }


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_playthrough(name):
    case = CASES[name]
    got = _playthrough(case["seed"], case["options"], case["bots"])
    path = GOLDEN / f"{name}.json"
    if os.environ.get("RATENVS_REGEN_GOLDEN"):
        path.write_text(json.dumps(got, indent=1) + "\n")
    expected = json.loads(path.read_text())
    assert got["cards"] == expected["cards"]
    assert got["cards_won"] == expected["cards_won"]
    assert got["jackpot"] == expected["jackpot"]
    np.testing.assert_allclose(got["first_observations"], expected["first_observations"], atol=1e-5)
