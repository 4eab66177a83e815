"""Scripted bots: the protocol, their choices, and play through the single-agent door."""

import numpy as np
import pytest

from ratenvs.catz_ratz_batz.bots import BOTS, get_bot
from ratenvs.catz_ratz_batz.observe import ACTION_ROLL, keep_mask, observation_for_dice
from ratenvs.catz_ratz_batz.rules import NUMBERS, Dice
from ratenvs.catz_ratz_batz.solver import solve
from ratenvs.common.bots import Bot


def _keep(bot, dice):
    action = bot.act(observation_for_dice(dice), keep_mask(dice), np.random.default_rng(0))
    return NUMBERS[action]


def test_every_bot_follows_the_protocol_and_rolls_first():
    roll_mask = np.array([0, 0, 0, 1], dtype=np.int8)
    for name in BOTS:
        bot = get_bot(name)
        assert isinstance(bot, Bot) and bot.name == name
        assert bot.act(np.zeros(12, np.float32), roll_mask, np.random.default_rng(0)) == 3
    with pytest.raises(ValueError, match="unknown bot"):
        get_bot("clever")


def test_most_common_and_lowest():
    dice = Dice(cats=1, threes=2, fives=3, sevens=3)
    assert _keep(get_bot("most_common"), dice) == 7  # tie 5/7 -> the higher
    assert _keep(get_bot("lowest"), dice) == 3


def test_optimal_bot_follows_the_solver_and_random_is_uniform():
    policy = solve().policy
    bot = get_bot("optimal")
    for dice in list(policy)[::50]:
        assert _keep(bot, dice) == policy[dice]
    dice = Dice(threes=3, fives=3, sevens=3)
    rng = np.random.default_rng(0)
    rand = get_bot("random")
    picks = [rand.act(observation_for_dice(dice), keep_mask(dice), rng) for _ in range(600)]
    assert set(picks) == {0, 1, 2} and ACTION_ROLL not in picks
    assert max(np.bincount(picks)) < 260
