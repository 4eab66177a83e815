"""Rat-a-Tat Cat: the memory card game, its env with leak-proof observations, bots and play."""
