"""Moved to :mod:`training.games.rat_a_tat_cat_win_chance`; this path still imports."""

from training.games.rat_a_tat_cat_win_chance import *  # noqa: F403
