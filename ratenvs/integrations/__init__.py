"""Adapters for RL frameworks beyond PettingZoo and gymnasium: each module imports its
framework (an optional extra, named in the error when it is missing) and adds only what that
framework's own PettingZoo door needs."""
