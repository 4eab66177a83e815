"""Rat-a-Tat Cat, version 1 (PettingZoo's versioned-module convention).

``help()`` of this module shows the env's whole documentation after this line: its
options, observation and action tables, rewards, illegal actions and version history
(the docstring of ``ratenvs.rat_a_tat_cat.env``)."""

import ratenvs.rat_a_tat_cat.env as _documented
from ratenvs.rat_a_tat_cat.env import env, parallel_env, raw_env

__doc__ = f"{__doc__}\n\n{_documented.__doc__}"

__all__ = ["env", "parallel_env", "raw_env"]
