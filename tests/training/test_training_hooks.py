"""The hook table (training/hooks.py, training/games/): every shipped game has hooks, the
generic modules name no game, and the ``reward_shaping:`` config section."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from small_configs import small_ratcat_config

from ratenvs.games import GAMES
from training.config import MOVED_KEYS, ConfigError, config_from_dict
from training.games import rat_a_tat_cat_win_chance as win_chance
from training.games.rat_a_tat_cat import WinChanceOptions
from training.games.ratto_zakko import WrongAnswerPenalty, WrongAnswersOptions
from training.hooks import GameHooks, RewardShaping, hooks_for
from training.privileged import PrivilegedObservation
from training.selfplay import make_env

TRAINING = Path(__file__).resolve().parents[2] / "training"
GAME_NAMES = re.compile(
    r"rat_a_tat_cat|catz_ratz_batz|ratto_zakko|rat-a-tat|ratto|zakko|catz|ratcat",
    re.IGNORECASE,
)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_shipped_game_has_its_hooks_module(game):
    assert (TRAINING / "games" / f"{game}.py").is_file()
    hooks = hooks_for(game)
    assert isinstance(hooks, GameHooks)
    assert hooks.game == game
    assert hooks_for(game) is hooks  # imported once
    for name, shaping in hooks.reward_shapings.items():
        assert isinstance(shaping, RewardShaping), name
        assert shaping.summary


def test_the_hooks_hold_the_game_specific_pieces():
    assert hooks_for("catz_ratz_batz").exact_grade is not None
    assert hooks_for("ratto_zakko").tracker is not None
    assert set(hooks_for("rat_a_tat_cat").reward_shapings) == {"win_chance"}
    assert set(hooks_for("ratto_zakko").reward_shapings) == {"wrong_answers"}
    assert hooks_for("rat_a_tat_cat").appended_options == ("owner_ceilings",)
    assert hooks_for("ratto_zakko").appended_options == ("answer_beliefs",)
    rule = hooks_for("catz_ratz_batz").default_metric
    assert rule is not None
    assert rule({"num_players": 1}) == "exact_expected_score"
    assert rule({"num_players": 2}) is None


def test_an_unknown_game_is_a_clear_error():
    with pytest.raises(ValueError, match=r"unknown game 'chess'; choose one of \['catz"):
        hooks_for("chess")


def test_the_generic_training_modules_name_no_game():
    named = {
        path.name: sorted({m.group(0).lower() for m in GAME_NAMES.finditer(path.read_text())})
        for path in sorted(TRAINING.glob("*.py"))
    }
    assert {k: v for k, v in named.items() if v} == {}


# ------------------------------------------------------------ reward_shaping
def ratto_config(**extra):
    return config_from_dict(
        {
            "game": "ratto_zakko",
            "env_options": {"num_players": 2, "level": "main"},
            "opponents": ["adult"],
            **extra,
        }
    )


@pytest.mark.parametrize(
    ("algorithm", "moved_to"),
    [
        ({"win_chance_reward": 5.0}, r"reward_shaping: \{win_chance: \{scale: 5\.0\}\}"),
        ({"wrong_answer_penalty": 3.0}, r"reward_shaping: \{wrong_answers: \{penalty: 3\.0\}\}"),
        ({"wrong_answer_penalty": 0.0}, r"0 meant off: then delete the key"),
    ],
)
def test_a_moved_key_says_where_it_went(algorithm, moved_to):
    (old,) = algorithm
    new = MOVED_KEYS[f"algorithm.{old}"]
    for game in GAMES:  # whatever the game, even at 0 (an old run's config.yaml)
        with pytest.raises(ConfigError, match=rf"algorithm\.{old}: moved to {new}") as err:
            config_from_dict({"game": game, "algorithm": algorithm})
        assert re.search(moved_to, str(err.value))


def test_a_shaping_the_game_does_not_offer_names_the_game_and_its_shapings():
    with pytest.raises(
        ConfigError,
        match=r"reward_shaping\.wrong_answers: rat_a_tat_cat offers no reward shaping "
        r"'wrong_answers' \(its shapings: win_chance\)",
    ):
        small_ratcat_config(reward_shaping={"wrong_answers": {"penalty": 1.0}})
    with pytest.raises(ConfigError, match=r"catz_ratz_batz offers .*\(its shapings: none\)"):
        config_from_dict({"game": "catz_ratz_batz", "reward_shaping": {"win_chance": {}}})


@pytest.mark.parametrize(
    ("section", "names"),
    [
        ({"wrong_answers": {"penalty": 1.0, "per": 2}}, r"reward_shaping\.wrong_answers\.per: "),
        ({"wrong_answers": {"penalty": "high"}}, r"wrong_answers\.penalty: expected a number"),
        ({"wrong_answers": 3.0}, r"reward_shaping\.wrong_answers: expected a mapping"),
        ({"wrong_answers": {}}, r"reward_shaping\.wrong_answers\.penalty: required key"),
        ([1], r"reward_shaping: expected a mapping"),
    ],
)
def test_shaping_options_are_validated_strictly(section, names):
    with pytest.raises(ConfigError, match=names):
        ratto_config(reward_shaping=section)


def test_the_section_builds_the_options_and_round_trips():
    cfg = ratto_config(reward_shaping={"wrong_answers": {"penalty": 2.5}})
    assert cfg.reward_shaping == {"wrong_answers": WrongAnswersOptions(2.5)}
    data = cfg.to_dict()
    assert data["reward_shaping"] == {"wrong_answers": {"penalty": 2.5}}
    assert "wrong_answer_penalty" not in data["algorithm"]
    assert config_from_dict(data) == cfg
    assert ratto_config().reward_shaping == {}


def chain(env: gym.Env) -> list[str]:
    """Wrapper class names from the outside in, down to the SingleAgentEnv."""
    out = []
    while isinstance(env, gym.Wrapper):
        out.append(type(env).__name__)
        env = env.env
    return out


def test_the_wrappers_come_in_the_order_they_always_did(monkeypatch):
    # the scaled shaping inside the reward scale, outside the Monitor
    cfg = ratto_config(
        algorithm={"reward_scale": 2.0}, reward_shaping={"wrong_answers": {"penalty": 1.0}}
    )
    env = make_env(cfg)
    assert chain(env)[:3] == ["TransformReward", "WrongAnswerPenalty", "Monitor"]
    assert isinstance(env.env, WrongAnswerPenalty) and env.env.penalty == 1.0
    # the unscaled one after the scale, then the privileged features
    rows = {k: np.array(list(itertools.permutations([5] * k)), np.int16) for k in (2, 3)}
    monkeypatch.setitem(
        win_chance._CHANCES,
        (3, 100, "exceeds", "lowest_total"),
        win_chance.WinChance(rows, 100, 10),
    )
    cfg = small_ratcat_config(
        {"reward_scale": 0.5, "privileged_critic": True},
        env_options={"num_players": 3, "target_score": 100},
        reward_shaping={"win_chance": {"scale": 5.0}},
    )
    # the discount of the potential left out: the run's (algorithm.gamma)
    assert cfg.reward_shaping == {"win_chance": WinChanceOptions(5.0, cfg.algorithm.gamma)}
    env = make_env(cfg)
    assert isinstance(env, PrivilegedObservation)
    assert chain(env)[:4] == [
        "PrivilegedObservation",
        "WinChanceReward",
        "TransformReward",
        "Monitor",
    ]
    assert env.env.scale == 5.0
