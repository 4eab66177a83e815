"""Catz, Ratz and Batz: the nine-dice game, its env, bots and exact solver."""
