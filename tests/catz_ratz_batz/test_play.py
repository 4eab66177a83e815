"""``ratenvs play catz-ratz-batz``: what the person types at the keep prompt."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ratenvs.catz_ratz_batz import play
from ratenvs.catz_ratz_batz.rules import NUM_ACTIONS, NUMBERS, PHASE_KEEP


def test_a_keep_answer_that_is_no_ascii_number_asks_again():
    # "²" and "٣" pass str.isdigit; neither may crash the prompt or pick a number
    env = SimpleNamespace(truth=SimpleNamespace(phase=PHASE_KEEP))
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[NUMBERS.index(3)] = 1
    answers = iter(["²", "٣", "-3", " 3 "])
    said: list[str] = []
    action = play._ask_action(env, mask, lambda _: next(answers), said.append)
    assert action == NUMBERS.index(3)
    assert len(said) == 3 and all("not a number you can keep" in s for s in said)
