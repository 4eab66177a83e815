"""Ratto Zakko: the real-time reaction game: oracle, env, perception model, human-model bots."""
