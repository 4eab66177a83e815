"""Registration of every game under its PettingZoo and gymnasium ids.

Runs on ``import ratenvs``. The gymnasium ids also work from a fresh
interpreter as ``gymnasium.make("ratenvs:ratenvs/CatzRatzBatz-v0")`` (the
``module:id`` form imports ``ratenvs`` first). A game with a batched engine also has a
vector entry point: ``gymnasium.make_vec(id, num_envs=1024,
vectorization_mode="vector_entry_point")`` is its
:class:`~ratenvs.wrappers.batched_vector.BatchedVectorEnv`.
"""

from __future__ import annotations

import warnings

import gymnasium
import pettingzoo

from ratenvs.games import GAMES

PETTINGZOO_REGISTRY = hasattr(pettingzoo, "register") and hasattr(pettingzoo, "aec_registry")
"""Whether this PettingZoo has an env registry (``pettingzoo.make``; PettingZoo >= 1.27).
With an older one the PettingZoo ids are not registered: import the env modules
(``from ratenvs import rat_a_tat_cat_v1``), as PettingZoo's own envs are used."""


def register() -> None:
    """Register all shipped games (idempotent)."""
    for spec in GAMES.values():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # re-registration on reload is harmless
            if PETTINGZOO_REGISTRY and spec.pettingzoo_id not in pettingzoo.aec_registry:
                pettingzoo.register("aec", spec.pettingzoo_id, f"{spec.module}:env")
            if PETTINGZOO_REGISTRY and spec.pettingzoo_id not in pettingzoo.parallel_registry:
                pettingzoo.register("parallel", spec.pettingzoo_id, f"{spec.module}:parallel_env")
            if spec.gymnasium_id not in gymnasium.registry:
                gymnasium.register(
                    id=spec.gymnasium_id,
                    entry_point="ratenvs.wrappers.single_agent:make_single_agent",
                    vector_entry_point=(
                        "ratenvs.wrappers.batched_vector:make_batched_vector"
                        if spec.has_batched
                        else None
                    ),
                    kwargs={"game": spec.name, **spec.gymnasium_defaults},
                    disable_env_checker=False,
                )
