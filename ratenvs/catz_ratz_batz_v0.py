"""Catz, Ratz and Batz, version 0 (PettingZoo's versioned-module convention).

``help()`` of this module shows the env's whole documentation after this line: its
options, observation and action tables, rewards, illegal actions and version history
(the docstring of ``ratenvs.catz_ratz_batz.env``)."""

import ratenvs.catz_ratz_batz.env as _documented
from ratenvs.catz_ratz_batz.env import env, parallel_env, raw_env

__doc__ = f"{__doc__}\n\n{_documented.__doc__}"

__all__ = ["env", "parallel_env", "raw_env"]
