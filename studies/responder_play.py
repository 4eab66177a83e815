"""What a Rat-a-Tat Cat best responder learned: its play beside the target's own.

    python -m studies.responder_play RESPONDER [--target agent:rat_a_tat_cat_4p]
        [--games 200] [--seed 500000] [--json out.json]

``RESPONDER`` is a checkpoint written by ``ratenvs exploit TARGET --save-responder PATH``
(its card's ``responder_of`` names the target, a checkpoint or a bot; ``--target``
overrides it). Game ``i`` (``drive(game, seed + i, ...)``, the one seeding rule; a
checkpoint's own options, e.g. elimination at 100, a bot's the responder's) is played
twice: with the responder in seat ``i mod players`` and the target in every other seat,
and with the target in every seat, so the two columns differ only by who sits in that
seat. For that seat the study counts, per decision of each kind:

- ``take_discard``: of the turns' first choices, the share that take the discard top;
- ``keep_drawn``: of the drawn number cards, the share put into the hand (the rest are
  discarded);
- ``peek`` / ``swap`` / ``draw2``: of the power cards drawn, the share used, not declined;
- ``knock_rate``: of the rounds, the share the seat ended by knocking; ``knock_turn``, the
  round's turn (over all seats) of its knock; ``knock_points``, the points of its hand at
  the knock (a power card counted as its kind's 10-12 until the round's end replaces it);
  ``knock_lowest``, the share of its knocks after which its hand was the round's lowest
  (a tie counts);
- ``round_points``: its mean points per round (after power-card replacement), and
  ``others_points`` the other seats'; ``win_rate``: the games it won (a tie counts as a
  share).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import numpy as np

from ratenvs import agents
from ratenvs.agents.checkpoint import load_card
from ratenvs.common.arguments import int_in
from ratenvs.common.stats import wilson_interval
from ratenvs.evaluation import resolve_agent
from ratenvs.games import get_game
from ratenvs.rat_a_tat_cat import rules as R
from studies.harness import bots_choose, drive, write_figures

POWER_DECISIONS = {R.PHASE_PEEK: "peek", R.PHASE_SWAP: "swap", R.PHASE_DRAW2: "draw2"}


class SeatTally:
    """The counts of one seat's decisions and rounds over many games."""

    def __init__(self) -> None:
        self.counts: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        self.values: dict[str, list[float]] = defaultdict(list)
        self.wins = 0.0
        self.games = 0

    def share(self, key: str, hit: bool) -> None:
        """One more decision of kind ``key``; ``hit`` if it was the counted choice."""
        self.counts[key][0] += float(hit)
        self.counts[key][1] += 1.0

    def figures(self) -> dict[str, Any]:
        """Each share with its Wilson 95% interval and count, each mean with its count."""
        out: dict[str, Any] = {}
        for key, (hits, n) in sorted(self.counts.items()):
            if n:
                out[key] = {"share": hits / n, "wilson_95": list(wilson_interval(hits, n)), "n": n}
        for key, values in sorted(self.values.items()):
            if values:
                out[key] = {"mean": float(np.mean(values)), "n": len(values)}
        out["win_rate"] = {
            "share": self.wins / self.games,
            "wilson_95": list(wilson_interval(self.wins, self.games)),
            "n": self.games,
        }
        return out


def watch(game: Any, bots: Sequence[Any], seed: int, seat: int, tally: SeatTally) -> None:
    """Play the game seeded ``seed`` with ``bots`` and count ``seat``'s play in ``tally``."""
    choose = bots_choose(game, bots)
    knock: dict[str, Any] = {}

    def counting(state: R.State, s: int, rng: np.random.Generator) -> int:
        action = choose(state, s, rng)
        playing[:] = [p for p in range(len(state.active)) if state.active[p]]
        if s != seat:
            return action
        phase = state.phase
        if phase == R.PHASE_START:
            tally.share("take_discard", action == R.ACTION_TAKE_DISCARD)
        elif phase == R.PHASE_NUMBER and not state.held_public:
            tally.share("keep_drawn", action != R.ACTION_DISCARD)
        elif phase in POWER_DECISIONS:
            tally.share(POWER_DECISIONS[phase], action != R.ACTION_DECLINE)
        elif phase == R.PHASE_KNOCK and action == R.ACTION_KNOCK:
            tally.values["knock_turn"].append(state.turns_this_round)
            tally.values["knock_points"].append(R.hand_points(state.hands[seat]))
            knock["round"] = state.round_index
        return action

    seen: list[Any] = [None]
    playing: list[int] = []  # the seats in the round, as of the last decision

    def on_step(game: Any, state: R.State, actions: Any, rewards: Any) -> None:
        points = state.last_round_points  # a new list at every round's end
        if points is None or points is seen[0]:
            return
        seen[0] = points
        if seat not in playing:  # out of the game (elimination)
            return
        points = [points[p] for p in playing]
        me = playing.index(seat)
        knocked = knock.pop("round", None) is not None
        tally.share("knock_rate", knocked)
        if knocked:
            tally.share("knock_lowest", points[me] <= min(points))
        tally.values["round_points"].append(points[me])
        others = [p for i, p in enumerate(points) if i != me]
        tally.values["others_points"].append(float(np.mean(others)))

    state = drive(game, seed, counting, on_step=on_step)
    winners = game.winners(state)
    tally.games += 1
    if winners[seat]:
        tally.wins += 1.0 / sum(winners)


def study(responder: str, target: str | None, games: int, seed: int) -> dict[str, Any]:
    """The responder's play and the target's in the same seat, over ``games`` games."""
    card = load_card(responder)
    target = target or card.get("responder_of", {}).get("target")
    if not target:
        raise SystemExit(f"{responder}: its card names no target; give --target")
    them = resolve_agent(target)
    if them.game != "rat_a_tat_cat":
        raise SystemExit(f"{target} plays {them.game}: this study reads Rat-a-Tat Cat")
    # a checkpoint plays its card's options; a bot the responder's (less the reward it
    # learned from: the game is the same)
    options = them.env_options
    if options is None:
        options = {k: v for k, v in card["env_options"].items() if k != "reward"}
    game = get_game(them.game).load().raw_env(**options).game
    response = agents.load(responder, game=them.game, name="responder")
    n = game.num_players
    tallies = {"responder": SeatTally(), "target": SeatTally()}
    for i in range(games):
        seat = i % n
        for who, tally in tallies.items():
            bots = [them.make() for _ in range(n)]  # a bot may keep state within a game
            if who == "responder":
                bots[seat] = response
            watch(game, bots, seed + i, seat, tally)
    return {
        "responder": responder,
        "target": target,
        "env_options": options,
        "games": games,
        "seed": seed,
        "seat": {who: t.figures() for who, t in tallies.items()},
    }


def _line(figures: dict[str, Any], key: str) -> str:
    cells = []
    for who in ("responder", "target"):
        f = figures["seat"][who].get(key)
        if f is None:
            cells.append("-")
        elif "share" in f:
            lo, hi = f["wilson_95"]
            cells.append(f"{f['share']:.3f} [{lo:.3f}, {hi:.3f}] (n={f['n']:.0f})")
        else:
            cells.append(f"{f['mean']:.2f} (n={f['n']})")
    return f"| {key} | {cells[0]} | {cells[1]} |"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("responder", help="a checkpoint written by exploit --save-responder")
    parser.add_argument("--target", default=None, help="default: the card's responder_of")
    parser.add_argument("--games", type=int_in(1), default=200)
    parser.add_argument("--seed", type=int, default=500_000)
    parser.add_argument("--json", default=None, help="write the figures here (atomically)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    figures = study(args.responder, args.target, args.games, args.seed)
    print(f"{figures['target']}, seat i mod players of game seed+i ({args.games} games)")
    print("| the seat's | the responder in it | the target in it |")
    print("|---|---:|---:|")
    keys = ["win_rate", "take_discard", "keep_drawn", "peek", "swap", "draw2", "knock_rate"]
    keys += ["knock_turn", "knock_points", "knock_lowest", "round_points", "others_points"]
    for key in keys:
        print(_line(figures, key))
    if args.json:
        write_figures(args.json, figures)


if __name__ == "__main__":
    main()
