"""Resuming a policy on a longer observation (entries appended by an env option), and the
warm start from a teacher bot that plays on top of a checkpoint (``pretrain.teacher_base``)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from small_configs import small_ratcat_config

from training.checkpoint import (
    CheckpointError,
    PolicySpec,
    appended_options,
    build_policy,
    load_checkpoint,
    widen_inputs,
)
from training.config import ConfigError
from training.hooks import hooks_for
from training.train import train

APPENDABLE = hooks_for("rat_a_tat_cat").appended_options


def ratcat_config(**extra):
    return small_ratcat_config(**extra)


def test_appended_options_are_the_ones_turned_on_when_the_rest_is_equal():
    plain = {"num_players": 4, "target_score": 100}
    assert appended_options(plain, {**plain, "owner_ceilings": True}, APPENDABLE) == [
        "owner_ceilings"
    ]
    assert appended_options(plain, plain, APPENDABLE) == []
    assert appended_options(plain, {**plain, "owner_ceilings": False}, APPENDABLE) == []
    assert appended_options(plain, {"num_players": 3, "owner_ceilings": True}, APPENDABLE) == []
    ceil = {**plain, "owner_ceilings": True}
    assert appended_options(ceil, plain, APPENDABLE) == []  # entries are never dropped


def test_widening_keeps_the_policy_and_the_values_whatever_the_new_entries_hold():
    source = build_policy(PolicySpec(10, 4, (16, 16), "relu"))
    target = build_policy(PolicySpec(14, 4, (16, 16), "relu"))
    target.load_state_dict(widen_inputs(source.state_dict(), 4))
    obs = torch.rand(8, 10)
    wide = torch.cat([obs, torch.rand(8, 4)], dim=1)
    with torch.no_grad():
        torch.testing.assert_close(source.predict_values(obs), target.predict_values(wide))
        a = source.get_distribution(obs).distribution.logits
        b = target.get_distribution(wide).distribution.logits
    torch.testing.assert_close(a, b)


def test_resuming_a_plain_agent_with_owner_ceilings_widens_it(tmp_path, capsys):
    plain = train(ratcat_config(), tmp_path / "plain")
    size = load_checkpoint(plain).spec.observation_size
    cfg = ratcat_config(env_options={"num_players": 3, "owner_ceilings": True})
    final = train(cfg, tmp_path / "wide", resume=plain)
    assert "grew by 24 entries at its end (owner_ceilings)" in capsys.readouterr().err
    card = json.loads(final.with_suffix(".json").read_text())
    assert card["policy"]["observation_size"] == size + 8 * 3
    assert card["env_options"]["owner_ceilings"] is True
    bot = load_checkpoint(final, game="rat_a_tat_cat", observation_size=size + 24).bot()
    assert bot.logits(np.zeros(size + 24, np.float32)).shape == (15 + 16 * 2,)


def test_resuming_on_other_options_is_still_refused(tmp_path):
    plain = train(ratcat_config(), tmp_path / "plain")
    cfg = ratcat_config(env_options={"num_players": 4, "owner_ceilings": True})
    with pytest.raises(CheckpointError, match="expects observations of size"):
        train(cfg, tmp_path / "other", resume=plain)


def test_a_teacher_on_top_of_a_checkpoint_warm_starts_a_resumed_run(tmp_path):
    plain = train(ratcat_config(), tmp_path / "plain")
    cfg = ratcat_config(
        env_options={"num_players": 3, "owner_ceilings": True},
        pretrain={
            "teacher": "ceiling",
            "teacher_base": str(plain),
            "on_resume": True,
            "games": 2,
            "epochs": 1,
        },
    )
    final = train(cfg, tmp_path / "taught", resume=plain)
    pre = json.loads(final.with_suffix(".json").read_text())["pretrain"]
    assert pre["teacher"] == "ceiling" and pre["teacher_base"] == str(plain)
    assert pre["decisions"] > 10


@pytest.mark.parametrize(
    ("pretrain", "match"),
    [
        ({"teacher": "heuristic", "teacher_base": "x.pt"}, "takes no base policy"),
        ({"teacher_base": "x.pt"}, "takes no base policy"),
        ({"teacher": "ceiling", "teacher_base": "no/such.pt"}, "no checkpoint at"),
        ({"teacher": "ceiling", "on_resume": "yes"}, "pretrain.on_resume"),
    ],
)
def test_bad_teacher_bases_are_named(pretrain, match):
    with pytest.raises(ConfigError, match=match):
        ratcat_config(pretrain=pretrain)


def test_a_teacher_base_that_does_not_fit_is_refused_before_an_overwrite(tmp_path):
    """A teacher base of other observations (here 3-player weights for a 4-player run) is a
    ConfigError naming the key, raised before ``overwrite`` removes the earlier run."""
    plain = train(ratcat_config(), tmp_path / "plain")  # 3 players, no owner_ceilings
    out = tmp_path / "earlier"
    train(ratcat_config(), out)
    files = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    cfg = ratcat_config(
        env_options={"num_players": 4, "owner_ceilings": True},
        pretrain={"teacher": "ceiling", "teacher_base": str(plain), "games": 1, "epochs": 1},
    )
    with pytest.raises(ConfigError, match=r"pretrain\.teacher_base .*observation"):
        train(cfg, out, overwrite=True)
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == files
