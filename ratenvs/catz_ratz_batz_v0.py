"""Catz, Ratz and Batz, version 0 (PettingZoo's versioned-module convention)."""

from ratenvs.catz_ratz_batz.env import env, parallel_env, raw_env

__all__ = ["env", "parallel_env", "raw_env"]
