"""Rat-a-Tat Cat, version 1 (PettingZoo's versioned-module convention)."""

from ratenvs.rat_a_tat_cat.env import env, parallel_env, raw_env

__all__ = ["env", "parallel_env", "raw_env"]
