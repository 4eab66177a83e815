"""Ratto Zakko, version 0 (PettingZoo's versioned-module convention)."""

from ratenvs.ratto_zakko.env import env, parallel_env, raw_env

__all__ = ["env", "parallel_env", "raw_env"]
