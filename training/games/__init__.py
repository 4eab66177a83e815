"""Per-game training hooks: ``training/games/<game>.py`` exposes ``HOOKS`` (see
:mod:`training.hooks`)."""
