"""Doors into the games for single-agent libraries (gymnasium, stable-baselines3)."""

from ratenvs.wrappers.single_agent import SingleAgentEnv, make_single_agent

__all__ = ["SingleAgentEnv", "make_single_agent"]
