"""Speed of every shipped env: decisions per second through ``env()``.

Each env is played with uniformly random legal actions through the public AEC
loop (``agent_iter`` / ``last`` / ``step``, observations included), exactly
like PettingZoo's own ``connect_four_v3``, which is measured in the same run
as the yardstick. Rounds alternate between the envs so that background load
hits all of them alike; the median round counts.
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from statistics import median
from typing import Any

import numpy as np

from ratenvs.games import available_games

REFERENCE = "connect_four_v3"


def _decisions_per_second(make: Callable[[], Any], seconds: float, seed: int) -> float:
    """Play games with random legal actions for about ``seconds``; return decisions/s."""
    env = make()
    rng = np.random.default_rng(seed)
    decisions = 0
    game = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        env.reset(seed=seed + game)
        game += 1
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            decisions += 1
    elapsed = time.perf_counter() - start
    env.close()
    return decisions / elapsed


def _reference_env() -> Any:
    import pettingzoo

    return pettingzoo.make("aec", "classic/connect_four-v3")


def bench_targets(games: list[str] | None = None) -> list[tuple[str, Callable[[], Any]]]:
    """(label, constructor) for every configuration to measure, the reference first."""
    targets: list[tuple[str, Callable[[], Any]]] = [(REFERENCE, _reference_env)]
    for name, spec in available_games().items():
        if games and name not in games and spec.cli_name not in games:
            continue
        module = importlib.import_module(spec.module)
        for options in spec.bench_options:
            label = f"{name}_v0" + "".join(f" {k}={v}" for k, v in options.items())
            targets.append((label, lambda m=module, o=options: m.env(**o)))
    return targets


def run(
    games: list[str] | None = None, seconds: float = 2.0, rounds: int = 3, seed: int = 0
) -> list[dict[str, Any]]:
    """Measure every target; return one record per env with the ratio to connect_four_v3."""
    targets = bench_targets(games)
    samples: dict[str, list[float]] = {label: [] for label, _ in targets}
    for _ in range(rounds):
        for label, make in targets:
            samples[label].append(_decisions_per_second(make, seconds, seed))
    reference = median(samples[REFERENCE])
    return [
        {
            "env": label,
            "decisions_per_s": round(median(values), 1),
            "ratio_vs_connect_four": round(median(values) / reference, 2),
            "rounds": values,
        }
        for label, values in samples.items()
    ]


def format_table(records: list[dict[str, Any]]) -> str:
    """A plain-text table of :func:`run` results."""
    width = max(len(r["env"]) for r in records)
    lines = [f"{'env':<{width}}  {'decisions/s':>12}  {'vs connect_four_v3':>18}"]
    for r in records:
        lines.append(
            f"{r['env']:<{width}}  {r['decisions_per_s']:>12,.0f}  "
            f"{r['ratio_vs_connect_four']:>17.2f}x"
        )
    return "\n".join(lines)
