"""Adapters for RL frameworks beyond PettingZoo and gymnasium: each module imports its
framework (an optional extra, named in the error when it is missing) and adds only what that
framework's own PettingZoo door needs.

- :mod:`ratenvs.integrations.torchrl`: TorchRL's PettingZoo wrappers (the ``torchrl`` extra).
- :mod:`ratenvs.integrations.rllib`: every game as an RLlib ``MultiAgentEnv`` (new API
  stack), an action-masking PPO ``RLModule`` and a self-play league of frozen snapshots
  (the ``rllib`` extra).
- :mod:`ratenvs.integrations.openspiel`: every game as a pyspiel Python game (``ratenvs_<name>``)
  for OpenSpiel's algorithms and bots (the ``openspiel`` extra).
"""
