"""Shared by every test folder: this folder (``tests/``) is on ``sys.path`` (pytest's default
"prepend" import mode puts a conftest's folder there), so tests ``import helpers``."""

import importlib.util

TRAIN_ONLY = [
    "training",
    "studies",
    "test_one_harness.py",
    "common/test_single_agent.py",
    "robustness/test_eval_inputs.py",
    "robustness/test_checkpoint_inputs.py",
    "robustness/test_config_inputs.py",
    "robustness/test_cli_inputs.py",
]
"""Test files that need the ``train`` extra (stable-baselines3, torch, PyYAML): left out
of the collection where it is not installed (the envs-only floors run, ``make
test-floors``); ``make test`` installs it and runs them all."""

if importlib.util.find_spec("stable_baselines3") is None:  # an envs-only install
    collect_ignore = TRAIN_ONLY
