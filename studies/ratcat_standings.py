"""Does the elimination game's standings hide the 4-player agent's missing wins?

    python -m studies.ratcat_standings --agent CKPT [--games 800] [--seed 90000]
        [--heads-up CKPT --heads-up-games 2000 --heads-up-seed 70000]

Two checks on a 4-player agent (elimination game at 100, three heuristic bots; the agent
in seat ``g % 4`` of game ``g``):

- **The knock in chances to win.** At each of the agent's knock decisions, the round is
  played out twice from the true table, after knocking and after not knocking now (the
  agent plays its seat on, the heuristic bots the others, the same random numbers), and
  both ends are valued by the agent's chance to win from the standings
  (:meth:`training.games.rat_a_tat_cat_win_chance.WinChance.of_seat`; at the end of the
  game, its share of the win).
  Printed by the agent's knock logit (knock minus no-knock): the mean gain of knocking
  now, with its 95% interval. A knock blind to the standings would show gains of one sign
  where the agent does the opposite.
- **Heads-up** (``--heads-up``, a 2-player agent of the elimination game): the same games
  played twice, once by the agent throughout and once with the 2-player agent taking the
  seat's decisions as soon as one other player is left (its observation is the 4-player
  one with the out players dropped). Printed: wins, the share of games the seat reaches
  heads-up, and its wins there.
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ratenvs.common.arguments import int_in
from ratenvs.common.play import play_game
from ratenvs.rat_a_tat_cat import rules
from ratenvs.rat_a_tat_cat.observe import Layout
from ratenvs.rat_a_tat_cat.rules import RatATatCat
from studies.harness import study_rng
from studies.ratcat_4p_ablation import lineup
from studies.ratcat_knock_labels import play_round
from training.games.rat_a_tat_cat_win_chance import WinChance, win_share
from training.stats import mean_interval

if TYPE_CHECKING:
    from training.checkpoint import PolicyBot

PLAYERS = 4
TARGET = 100


def _has_ceilings(agent: PolicyBot) -> bool:
    return agent.spec.observation_size == Layout(PLAYERS, True).size


def _game(ceilings: bool) -> RatATatCat:
    return RatATatCat(num_players=PLAYERS, target_score=TARGET, owner_ceilings=ceilings)


def knock_gains(
    agent: PolicyBot, games: int, seed: int, chances: WinChance
) -> tuple[np.ndarray, np.ndarray]:
    """(knock logit - no-knock logit, gain in chance to win of knocking now) at every knock
    decision of the agent, in seat ``g % 4`` of game ``g``: ``play_game(game, bots, seed +
    g)`` with three heuristic bots, each of the agent's knock decisions played out from its
    table both ways (the play-outs' seeds: :func:`studies.harness.study_rng`)."""
    game = _game(_has_ceilings(agent))
    view = game.observer(game.observation_kind)
    logits_out, gains = [], []
    for g in range(games):
        seat, draws = g % PLAYERS, study_rng(seed + g)

        def value(
            game: object,
            state: rules.State,
            actions: object,
            rewards: object,
            seat: int = seat,
            draws: np.random.Generator = draws,
        ) -> None:
            if state.phase != rules.PHASE_KNOCK or state.current != seat:
                return
            logits = agent.logits(view.observe(state, seat))
            common = int(draws.integers(1 << 30))
            knock, wait = (
                chances.of_seat(play_round(state, a, view, common, agent, seat)[0], seat)
                for a in (rules.ACTION_KNOCK, rules.ACTION_NO_KNOCK)
            )
            logits_out.append(logits[rules.ACTION_KNOCK] - logits[rules.ACTION_NO_KNOCK])
            gains.append(knock - wait)

        play_game(game, lineup(agent, seat), seed + g, on_step=value)
    return np.asarray(logits_out), np.asarray(gains)


def heads_up_observation(obs: np.ndarray, rival: int, ceilings: bool) -> np.ndarray:
    """A 2-player observation (plain) from a 4-player one where only the observer and the
    player ``rival`` seats on are still in."""
    big, small = Layout(PLAYERS, ceilings), Layout(2)
    out = np.zeros(small.size, dtype=np.float32)
    hand = small.slot_index(1, 0)  # one player's four slots
    out[:hand] = obs[:hand]
    out[hand : 2 * hand] = obs[big.slot_index(rival, 0) : big.slot_index(rival, 0) + hand]
    out[small.discard_top : small.to_act] = obs[big.discard_top : big.to_act]
    for k_big, k_small in ((0, 0), (rival, 1)):
        for block in ("to_act", "knocked_by", "totals", "active"):
            out[getattr(small, block) + k_small] = obs[getattr(big, block) + k_big]
    # final turns after a knock / (n - 1): one turn left is 1/3 of 4 players, 1 of 2
    out[small.final_turns] = min(1.0, obs[big.final_turns] * (PLAYERS - 1))
    out[small.turns_played : small.totals] = obs[big.turns_played : big.totals]
    out[small.rounds_done] = obs[big.rounds_done]
    out[small.unseen : small.unseen + rules.NUM_KINDS] = obs[
        big.unseen : big.unseen + rules.NUM_KINDS
    ]
    out[small.draw_pool : small.draw_pool + rules.NUM_KINDS] = obs[
        big.draw_pool : big.draw_pool + rules.NUM_KINDS
    ]
    return out


def heads_up_action(
    two: PolicyBot, obs: np.ndarray, mask: np.ndarray, rival: int, ceilings: bool
) -> int:
    """The 2-player agent's move for the observer of a 4-player game in heads-up."""
    small_mask = np.zeros(rules.num_actions(2), dtype=np.int8)
    small_mask[: rules.ACTION_SWAP] = mask[: rules.ACTION_SWAP]
    for own in range(rules.SLOTS):
        for s in range(rules.SLOTS):
            small_mask[rules.swap_action(own, 1, s)] = mask[rules.swap_action(own, rival, s)]
    logits = two.logits(heads_up_observation(obs, rival, ceilings))
    action = int(np.argmax(np.where(small_mask > 0, logits, -np.inf)))
    if action >= rules.ACTION_SWAP:
        own, _, s = rules.decode_swap(action)
        action = rules.swap_action(own, rival, s)
    return action


class HeadsUpSeat:
    """The agent in one seat; ``two`` (a 2-player agent, when given) takes the seat's
    decisions once one other player is left (read from the observation's ``active``)."""

    def __init__(self, agent: PolicyBot, two: PolicyBot | None, ceilings: bool) -> None:
        self.agent, self.two, self.ceilings = agent, two, ceilings
        self.active = Layout(PLAYERS, ceilings).active
        self.reached = False
        """Whether the seat has decided in heads-up."""

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> int:
        others = [k for k in range(1, PLAYERS) if obs[self.active + k] > 0.5]
        if len(others) == 1:
            self.reached = True
            if self.two is not None:
                return heads_up_action(self.two, obs, mask, others[0], self.ceilings)
        return int(self.agent.act(obs, mask, rng))


def heads_up_games(
    agent: PolicyBot, two: PolicyBot | None, games: int, seed: int
) -> tuple[float, float, float]:
    """(wins, share of games the seat reaches heads-up, wins among those); ``two`` (when
    given) plays the seat's heads-up decisions (:class:`HeadsUpSeat` in seat ``g % 4`` of
    ``play_game(game, bots, seed + g)``, three heuristic bots)."""
    ceilings = _has_ceilings(agent)
    game = _game(ceilings)
    shares, there = [], []
    for g in range(games):
        seat = g % PLAYERS
        player = HeadsUpSeat(agent, two, ceilings)
        share = win_share(play_game(game, lineup(player, seat), seed + g).winners, seat)
        shares.append(share)
        if player.reached:
            there.append(share)
    return float(np.mean(shares)), len(there) / games, float(np.mean(there)) if there else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", required=True, help="a 4-player agent (elimination game)")
    parser.add_argument(
        "--games", type=int_in(0), default=800, help="games of the knock check (0: skip it)"
    )
    parser.add_argument("--seed", type=int, default=90000)
    parser.add_argument("--heads-up", help="a 2-player agent of the elimination game")
    parser.add_argument("--heads-up-games", type=int_in(1), default=2000)
    parser.add_argument("--heads-up-seed", type=int, default=70000)
    args = parser.parse_args(argv)
    if not args.games and not args.heads_up:
        parser.error("nothing to do: --games 0 and no --heads-up")
    from training.checkpoint import load_checkpoint
    from training.games.rat_a_tat_cat_win_chance import shared_win_chance

    agent = load_checkpoint(args.agent, game="rat_a_tat_cat").bot()
    if args.games:
        t0 = time.perf_counter()
        logits, gains = knock_gains(agent, args.games, args.seed, shared_win_chance(4, TARGET))
        print(
            f"{len(gains)} knock decisions of the agent in {args.games} games "
            f"({time.perf_counter() - t0:.0f} s); gain in chance to win of knocking now:"
        )
        edges = [-np.inf, -4, -2, -1, 0, 1, 2, 4, np.inf]
        for low, high in itertools.pairwise(edges):
            sel = (logits >= low) & (logits < high)
            if sel.any():
                mean, (lo, hi) = mean_interval(gains[sel])
                print(
                    f"  knock logit in [{low:+g}, {high:+g}): {sel.sum():6d} decisions, "
                    f"gain {100 * mean:+.2f} points of chance [{100 * lo:+.2f}, {100 * hi:+.2f}]"
                )
    if args.heads_up:
        two = load_checkpoint(
            args.heads_up, game="rat_a_tat_cat", observation_size=Layout(2).size
        ).bot()
        for name, player in (("the agent throughout", None), ("2-player agent heads-up", two)):
            t0 = time.perf_counter()
            wins, reached, there = heads_up_games(
                agent, player, args.heads_up_games, args.heads_up_seed
            )
            print(
                f"{name:26s} wins {100 * wins:5.1f}%, heads-up in {100 * reached:5.1f}% "
                f"of games, wins {100 * there:5.1f}% of those "
                f"({time.perf_counter() - t0:.0f} s)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
