"""The 2-player agent with IS-MCTS on top: its policy as the search's prior (PUCT).

    python -m studies.ratcat_search_prior [--agent CKPT] [--games 300] [--seed 31000]
        [--iterations 100] [--exploration 1.5] [--rollout {heuristic,agent}]
        [--value {win,reward}] [--opponent {heuristic,ismcts}] [--json out.json]

The issue's "search-augmented agent": :class:`~ratenvs.rat_a_tat_cat.bots.RatCatISMCTS`
(IS-MCTS over ``game.resample``, play-outs to the end of the round, a play-out worth 1
to the seat with the fewest points in it, or with ``--value reward`` the seat's zero-sum
reward of the round, in points) with the agent's policy as its ``prior``: at every
information set of its seat the search chooses by PUCT from the policy's softmax, so it
plays the agent's choice unless the play-outs (by heuristic bots, or by the agent itself
with ``--rollout agent``) find a better one. The agent plays seat ``i mod 2`` of game
``i`` (elimination at 100, the agent's own options; game ``i`` is ``play_game(game, bots,
seed + i)``, the one seeding rule) against ``--opponent``, once alone and once with the
search, on the same seeds, so the difference is paired. A searched decision "differs"
when the search picks another action than the agent's greedy one.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ratenvs.agents.checkpoint import load_checkpoint
from ratenvs.common.arguments import int_in
from ratenvs.common.play import play_game
from ratenvs.rat_a_tat_cat.bots import HeuristicBot, RatCatISMCTS
from ratenvs.rat_a_tat_cat.rules import RatATatCat
from studies.harness import paired_win_figures, write_figures
from training.games.rat_a_tat_cat_win_chance import win_share

AGENT = "checkpoints/rat_a_tat_cat/rat_a_tat_cat_2p.pt"
"""The default agent: the shipped 2-player elimination agent."""
ROLLOUTS = ("heuristic", "agent")
OPPONENTS = ("heuristic", "ismcts")


class PriorSearch(RatCatISMCTS):
    """``ismcts`` with the agent as its prior, counting the decisions where the search
    leaves the agent's greedy choice."""

    name = "ismcts_prior"

    def __init__(self, policy: Any, **options: Any) -> None:
        super().__init__(prior=policy, **options)
        self.searched = 0
        self.differed = 0
        self.times: list[float] = []

    def act_in_state(
        self, state: Any, seat: int, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        action = super().act_in_state(state, seat, action_mask, rng)
        if self.last_search["iterations"]:
            assert self._view is not None
            logits = self.prior.logits(self._view.observe(state, seat))
            greedy = int(np.where(action_mask.astype(bool), logits, -np.inf).argmax())
            self.searched += 1
            self.differed += int(action != greedy)
            self.times.append(self.last_search["seconds"])
        return action


def measure(
    agent: str = AGENT,
    games: int = 300,
    seed: int = 31000,
    iterations: int = 100,
    exploration: float = 1.5,
    rollout: str = "heuristic",
    opponent: str = "heuristic",
    value: str = "win",
) -> dict[str, Any]:
    """The agent alone and with the search on top, on the same ``games`` seeds."""
    if rollout not in ROLLOUTS:
        raise ValueError(f"rollout must be one of {ROLLOUTS}, got {rollout!r}")
    if opponent not in OPPONENTS:
        raise ValueError(f"opponent must be one of {OPPONENTS}, got {opponent!r}")
    checkpoint = load_checkpoint(agent)
    options = dict(checkpoint.env_options)
    game = RatATatCat(**options)
    if game.num_players != 2:
        raise ValueError(f"a 2-player agent is measured here, {agent} plays {options}")
    policy = checkpoint.bot()
    searcher = PriorSearch(
        policy,
        iterations=iterations,
        exploration=exploration,
        rollout=checkpoint.bot if rollout == "agent" else HeuristicBot,
        value=value,
    )
    other = RatCatISMCTS if opponent == "ismcts" else HeuristicBot
    shares: dict[Any, list[float]] = {policy: [], searcher: []}
    """Each game's win share of the agent alone and with the search."""
    start = time.perf_counter()
    for i in range(games):
        seat = i % 2
        for player, won in shares.items():
            bots: list[Any] = [other(), other()]
            bots[seat] = player
            won.append(win_share(play_game(game, bots, seed + i).winners, seat))
    return {
        "agent": agent,
        "options": options,
        "opponent": opponent,
        "games": games,
        "seed": seed,
        "iterations": iterations,
        "exploration": exploration,
        "rollout": rollout,
        "value": value,
        **paired_win_figures(shares[policy], shares[searcher]),
        "agent_shares": shares[policy],
        "search_shares": shares[searcher],
        "searched_decisions": searcher.searched,
        "differed": searcher.differed,
        "seconds_per_decision": float(np.median(searcher.times)) if searcher.times else 0.0,
        "seconds": time.perf_counter() - start,
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Measure and print (and with ``--json`` write) the two win rates."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default=AGENT)
    parser.add_argument("--games", type=int_in(1), default=300)
    parser.add_argument("--seed", type=int, default=31000)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--exploration", type=float, default=1.5)
    parser.add_argument("--rollout", choices=ROLLOUTS, default="heuristic")
    parser.add_argument("--opponent", choices=OPPONENTS, default="heuristic")
    parser.add_argument("--value", choices=("win", "reward"), default="win")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    f = measure(
        args.agent,
        args.games,
        args.seed,
        args.iterations,
        args.exploration,
        args.rollout,
        args.opponent,
        args.value,
    )
    print(
        f"{f['games']} games from seed {f['seed']}, against {f['opponent']}:\n"
        f"  agent alone:         {f['agent_win_rate']:.3f} "
        f"[{f['agent_wilson_95'][0]:.3f}, {f['agent_wilson_95'][1]:.3f}]\n"
        f"  with the search:     {f['search_win_rate']:.3f} "
        f"[{f['search_wilson_95'][0]:.3f}, {f['search_wilson_95'][1]:.3f}] "
        f"({f['iterations']} iterations, exploration {f['exploration']}, "
        f"{f['rollout']} play-outs, value {f['value']})\n"
        f"  paired gain: {f['gain']:+.3f} [{f['gain_95'][0]:+.3f}, {f['gain_95'][1]:+.3f}]\n"
        f"  searched decisions {f['searched_decisions']}, the search left the agent's "
        f"choice at {f['differed']}; {f['seconds_per_decision']:.3f} s per searched decision"
    )
    if args.json:
        write_figures(args.json, f)
    return f


if __name__ == "__main__":
    main()
