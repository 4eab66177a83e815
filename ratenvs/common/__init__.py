"""Pieces every game shares: the AEC base, bot protocol, option checks and rewards."""
