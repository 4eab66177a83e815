"""The 4-player Rat-a-Tat Cat studies in benchmarks/: the oracle and hybrid players, the
rival-hands data and the counterfactual knock labels."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _load(name):
    """A script of benchmarks/ as a module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ablation = _load("ratcat_4p_ablation")


def test_the_oracle_reads_real_hands_and_knocks_only_when_ahead():
    from ratenvs.rat_a_tat_cat import rules
    from ratenvs.rat_a_tat_cat.env import raw_env

    env = raw_env(num_players=4, target_score=100)
    env.reset(seed=1)
    state = env.state
    state.hands[0] = [0, 4, 8, 12]  # kinds 0, 1, 2, 3: 6 points
    assert ablation.true_hand(state, 0) == 6.0
    state.current, state.phase = 0, rules.PHASE_KNOCK
    obs, mask = env._observation_vector(0), env._action_mask(0)
    choose = ablation.oracle_knock("true", "true", margin=3.0)
    rivals = [ablation.true_hand(state, q) for q in (1, 2, 3)]
    expected = rules.ACTION_KNOCK if min(rivals) - 3.0 >= 6.0 else rules.ACTION_NO_KNOCK
    assert choose(state, 0, obs, mask, rules.ACTION_NO_KNOCK) == expected
    state.hands[1] = [1, 5, 9, 13]  # a rival with the same 6 points: never knock
    assert choose(state, 0, obs, mask, rules.ACTION_KNOCK) == rules.ACTION_NO_KNOCK


def test_the_script_runs_every_line(capsys):
    agent = ROOT / "checkpoints" / "rat_a_tat_cat" / "rat_a_tat_cat_4p.pt"
    assert ablation.main(["--games", "4", "--agent", str(agent)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 + 5 + 5
    rates = [float(line.split("%")[0].split()[-1]) for line in lines[1:]]
    assert all(0.0 <= r <= 100.0 for r in rates)
    assert np.isfinite(rates).all()


def test_the_rival_hands_study_records_true_hands_and_public_history():
    rival = _load("ratcat_rival_hands")
    obs, hist, y = rival.collect(games=2, seed=5)
    n = len(y)
    assert n > 20
    assert obs.shape == (n, 64 * 4 + 54)
    assert hist.shape == (n, 4 * (2 * 4 + 3))
    assert ((y >= 0) & (y <= 36)).all()
    assert (hist >= 0).all() and (hist <= 1).all()
    assert hist.any()  # some card was taken out of a slot or dropped in two games


def test_knock_labels_are_common_random_number_differences():
    import torch

    from ratenvs.rat_a_tat_cat import rules

    labels = _load("ratcat_knock_labels")
    obs, gains = labels.collect(games=1, seed=7)
    assert obs.shape == (len(gains), 64 * 4 + 54) and len(gains) > 20
    assert np.isfinite(gains).all() and (np.abs(gains) <= 3.6).all()  # |points| <= 36
    # the same table and seed play out the same way
    from ratenvs.rat_a_tat_cat.env import raw_env

    env = raw_env(num_players=4, target_score=100)
    env.reset(seed=3)
    env.state.phase = rules.PHASE_KNOCK
    p = env.state.current
    once = labels.play_out(env.state, rules.ACTION_KNOCK, env.observer, p, 11)
    assert once == labels.play_out(env.state, rules.ACTION_KNOCK, env.observer, p, 11)
    mask = env._action_mask(p)
    for bias, expected in ((1.0, rules.ACTION_KNOCK), (-1.0, rules.ACTION_NO_KNOCK)):
        model = torch.nn.Linear(obs.shape[1], 1)
        torch.nn.init.zeros_(model.weight)
        torch.nn.init.constant_(model.bias, bias)
        choose = labels.learned_knock(model, None)
        assert choose(env.state, p, env._observation_vector(p), mask, -1) == expected
