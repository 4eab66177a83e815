"""ratenvs: reinforcement-learning environments for three rat games.

- Rat-a-Tat Cat (``rat_a_tat_cat_v0``): hidden-information memory card game.
- Catz, Ratz and Batz (``catz_ratz_batz_v0``): nine-dice game with an exact solver.
- Ratto Zakko (``ratto_zakko_v0``): real-time reaction game in discrete ticks.

Importing ``ratenvs`` registers the PettingZoo ids (``ratenvs/<game>-v0``) and
the gymnasium ids (``ratenvs/<Game>-v0``).
"""

from ratenvs.registration import register

__version__ = "0.1.0"

register()

__all__ = ["__version__", "register"]
