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
    "robustness/test_disk_full.py",
    "robustness/test_memory_estimate.py",
    "robustness/test_sweep.py",
]
"""Test files that need the ``train`` extra (stable-baselines3, torch, PyYAML): left out
of the collection where it is not installed (the envs-only floors run, ``make
test-floors``); ``make test`` installs it and runs them all."""

if importlib.util.find_spec("stable_baselines3") is None:  # an envs-only install
    collect_ignore = TRAIN_ONLY


HEAVY_FIRST = (
    "tests/studies/test_ratcat_knock_playout.py",
    "tests/test_batched_rat_a_tat_cat.py",
    "tests/test_batched.py",
    "tests/test_batched_ratto_zakko.py",
    "tests/training/test_training_out.py",
    "tests/robustness/test_sweep.py",
)
"""The tests that cost the most CPU time (node id prefixes, dearest first): collected first,
so that pytest-xdist's workers start on them and end on the many short tests (one started
last would leave the other cores idle while it runs)."""


def pytest_collection_modifyitems(config, items) -> None:
    """Put the :data:`HEAVY_FIRST` tests first (a stable sort: the order within each group and
    of every other test is kept)."""

    def rank(item) -> int:
        for i, prefix in enumerate(HEAVY_FIRST):
            if item.nodeid.startswith(prefix):
                return i
        return len(HEAVY_FIRST)

    items.sort(key=rank)
