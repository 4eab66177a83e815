"""The 4-player agent's close knocks decided by search that plays out the agent itself,
valued in chances to win.

    python -m studies.ratcat_knock_playout [--agent CKPT] [--games 2000] [--seed 900000]
        [--deals 16] [--margin 3.0] [--json out.json]

The agent (greedy, its own observation) plays seat ``i mod 4`` of game ``i`` against three
heuristic bots (elimination at 100; game ``i`` is ``play_game(game, bots, seed + i)``, the
one seeding rule). Its knock decisions stay its own unless they are close: where the
knock's logit and the no-knock's differ by at most ``--margin``, it deals ``--deals``
tables consistent with what the seat knows (``game.resample``, uniform deals), plays the
round out in each after knocking and after not knocking (the same random numbers for both:
the agent in its seat, heuristic bots in the others, as the table really is), and takes the
action with the higher mean chance to win after the round (the training's ``WinChance`` of
the totals; a finished game counts its win share). The deals and play-out seeds come from
the seat's own stream. The agent alone plays the same seeds in the same run, so the
difference is paired.

This is the route ``studies/README.md`` left open after ``ratcat_pimc_knock`` (heuristic
play-outs, zero-sum round reward, every knock searched): search that plays out the agent's
own policy on top of the guess, only where the agent is unsure.
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
from ratenvs.common.search import copy_state
from ratenvs.rat_a_tat_cat.bots import HeuristicBot
from ratenvs.rat_a_tat_cat.rules import ACTION_KNOCK, ACTION_NO_KNOCK, RatATatCat
from studies.harness import paired_win_figures, write_figures
from training.games.rat_a_tat_cat_win_chance import shared_win_chance, win_share

AGENT = "checkpoints/rat_a_tat_cat/rat_a_tat_cat_4p_win_chance.pt"
"""The default agent: the shipped stage-4 4-player agent."""
OPTIONS: dict[str, Any] = {"num_players": 4, "target_score": 100}
"""The measured game (the agent's own observation pieces are added from its card)."""


def greedy(policy: Any, observation: np.ndarray, mask: np.ndarray) -> tuple[int, np.ndarray]:
    """The policy's greedy legal action and its logits."""
    logits = policy.logits(observation)
    return int(np.where(mask.astype(bool), logits, -np.inf).argmax()), logits


class KnockPlayout:
    """The agent, its close knocks decided by play-outs of itself (a StateBot for
    ``play_game``)."""

    name = "knock_playout"

    def __init__(self, policy: Any, chance: Any, deals: int, margin: float) -> None:
        self.policy = policy
        self.chance = chance
        self.deals = int(deals)
        self.margin = float(margin)
        self.asked = 0
        """Knock decisions seen."""
        self.searched = 0
        """Knock decisions searched (the close ones)."""
        self.changed = 0
        """Searched decisions where the search chose otherwise than the agent."""

    def bind_game(self, game: Any, seat: int) -> None:
        """Search ``game`` from ``seat`` (the harness calls it)."""
        self.game = game
        self.view = game.observer(game.observation_kind)
        self.others = [HeuristicBot() for _ in range(game.num_players)]
        for bot in self.others:
            bot.bind(self.view)

    def act(self, observation: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        raise RuntimeError("knock_playout searches from the state: play it with play_game")

    def act_in_state(
        self, state: Any, seat: int, mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """The agent's action, or the search's at a close knock decision."""
        choice, logits = greedy(self.policy, self.view.observe(state, seat), mask)
        if not (mask[ACTION_KNOCK] and mask[ACTION_NO_KNOCK]):
            return choice
        self.asked += 1
        if abs(float(logits[ACTION_KNOCK] - logits[ACTION_NO_KNOCK])) > self.margin:
            return choice
        self.searched += 1
        worth = {ACTION_KNOCK: 0.0, ACTION_NO_KNOCK: 0.0}
        for _ in range(self.deals):
            deal = self.game.resample(state, seat, rng)
            seed = int(rng.integers(2**63))
            for action in worth:
                play = copy_state(deal)
                worth[action] += self.play_round(play, seat, action, np.random.default_rng(seed))
        best = max(worth, key=lambda a: (worth[a], a == choice))
        self.changed += int(best != choice)
        return best

    def play_round(self, play: Any, seat: int, first: int, rng: np.random.Generator) -> float:
        """The seat's chance to win after playing ``first`` and the round out in ``play``."""
        game = self.game
        while True:
            actions = {}
            for s in game.to_act(play):
                mask = game.legal_mask(play, s)
                if s == seat and first >= 0:
                    actions[s], first = first, -1
                elif s == seat:
                    actions[s] = greedy(self.policy, self.view.observe(play, s), mask)[0]
                else:
                    actions[s] = int(self.others[s].act(self.view.observe(play, s), mask, rng))
            rewards = game.apply(play, actions, rng)
            if game.is_terminal(play) or rewards is not None:
                return float(self.chance.of_seat(play, seat))


def measure(
    agent: str = AGENT, games: int = 2000, seed: int = 900000, deals: int = 16, margin: float = 3.0
) -> dict[str, Any]:
    """The agent alone and with its close knocks searched, on the same ``games`` seeds."""
    checkpoint = load_checkpoint(agent)
    options = {**checkpoint.env_options, **OPTIONS}
    game = RatATatCat(**options)
    policy = checkpoint.bot()
    chance = shared_win_chance(options["num_players"], options["target_score"])
    searcher = KnockPlayout(policy, chance, deals, margin)
    shares: dict[Any, list[float]] = {policy: [], searcher: []}
    """Each game's win share of the agent alone and with its close knocks searched."""
    start = time.perf_counter()
    seconds = 0.0
    for i in range(games):
        seat = i % game.num_players
        for player, won in shares.items():
            bots: list[Any] = [HeuristicBot() for _ in range(game.num_players)]
            bots[seat] = player
            t = time.perf_counter()
            won.append(win_share(play_game(game, bots, seed + i).winners, seat))
            if player is searcher:
                seconds += time.perf_counter() - t
    return {
        "agent": agent,
        "options": options,
        "games": games,
        "seed": seed,
        "deals": deals,
        "margin": margin,
        **paired_win_figures(shares[policy], shares[searcher]),
        "knock_decisions": searcher.asked,
        "searched": searcher.searched,
        "changed": searcher.changed,
        "seconds_per_game": seconds / games,
        "seconds": time.perf_counter() - start,
    }


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Measure and print (and with ``--json`` write) the two win rates."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", default=AGENT)
    parser.add_argument("--games", type=int_in(1), default=2000)
    parser.add_argument("--seed", type=int, default=900000)
    parser.add_argument("--deals", type=int, default=16)
    parser.add_argument("--margin", type=float, default=3.0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    f = measure(args.agent, args.games, args.seed, args.deals, args.margin)
    print(
        f"{f['games']} games from seed {f['seed']}, against three heuristic bots:\n"
        f"  agent alone:            {f['agent_win_rate']:.3f} "
        f"[{f['agent_wilson_95'][0]:.3f}, {f['agent_wilson_95'][1]:.3f}]\n"
        f"  close knocks searched:  {f['search_win_rate']:.3f} "
        f"[{f['search_wilson_95'][0]:.3f}, {f['search_wilson_95'][1]:.3f}] "
        f"({f['deals']} deals, margin {f['margin']})\n"
        f"  paired gain: {f['gain']:+.3f} [{f['gain_95'][0]:+.3f}, {f['gain_95'][1]:+.3f}]\n"
        f"  knock decisions {f['knock_decisions']}, searched {f['searched']}, "
        f"changed {f['changed']}; {f['seconds_per_game']:.2f} s per searched game"
    )
    if args.json:
        write_figures(args.json, f)
    return f


if __name__ == "__main__":
    main()
