"""The ``search`` bot's strength against its budget: win rate by deals per move, and time.

    python -m studies.search_curve --opponent {heuristic,agent}
        [--model {heuristic,agent,mixed,both}] [--budgets 0 16 64 256 1024]
        [--setting {one_round,elimination}] [--games 400] [--seed 90000]
        [--oracle [{all,own,others}]] [--margin M] [--belief BELIEF.npz]
        [--game-value VALUE.npz] [--json out.json]
    python -m studies.search_curve --plot a.json b.json --out docs/images/search_curve.png

Two-player Rat-a-Tat Cat: :class:`~ratenvs.rat_a_tat_cat.search.AgentSearchBot` (PIMC with
the shipped agent playing out its seat, ``--budgets`` deals per move; budget 0 is the agent
alone, its own greedy moves; ``--model``: who plays the other seats in its play-outs, the
bot's ``opponents`` option) against ``--opponent``: the ``heuristic`` bot or the
shipped agent itself (``rat_a_tat_cat_2p_one_round`` in ``--setting one_round``,
``rat_a_tat_cat_2p`` in ``elimination`` at 100). Games are played in pairs on the same deal
(duplicate, as in bridge): game ``i`` is ``play_game(game, bots, seed + i // 2)`` (the one
seeding rule) with the searching side in seat ``i mod 2``, so each deal is played from both
seats and the luck of the cards cancels out of the difference; every budget plays the same
deals. Printed and written to ``--json``: per budget the win rate (a shared win counts
``1/k``), its Wilson 95% interval, and the median seconds per searched move (wall clock,
one process per core). ``--oracle``: a diagnostic that cheats, its deals keep every hand
as it truly is and shuffle only the draw pile (what uniform deals of the other hands cost);
``--oracle own`` / ``--oracle others`` keep only the seat's own cards / the other hands.
``--ceilings FACTOR``: an experiment, the deals weighed by the other player's public
ceilings. ``--margin M``: the guarded search (the bot's ``margin``: the agent's own move kept
unless another gains more than ``M`` standard errors). ``--belief FILE``: the deals weighed
by a learned belief over the other hand (the bot's ``belief``; ``python -m
training.games.rat_a_tat_cat_belief`` fits one). ``--game-value FILE``
(``--setting elimination``): each play-out valued by the chance to win the game from the
totals its round leaves (``studies.ratcat_game_value``), not by the round won. ``--plot`` draws the
curves of such files (win rate against deals per move, log scale, the agent alone at the
left) into ``--out``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ratenvs.agents import load_agent_checkpoint
from ratenvs.common.arguments import int_in
from ratenvs.common.atomic import atomic_file
from ratenvs.common.play import play_game
from ratenvs.common.stats import wilson_interval
from ratenvs.rat_a_tat_cat.belief import Belief
from ratenvs.rat_a_tat_cat.bots import HeuristicBot
from ratenvs.rat_a_tat_cat.rules import RatATatCat
from ratenvs.rat_a_tat_cat.search import AgentSearchBot
from studies.harness import write_figures

AGENTS = {"one_round": "agent:rat_a_tat_cat_2p_one_round", "elimination": "agent:rat_a_tat_cat_2p"}
"""The shipped agent of each setting (its own options: one round, or elimination at 100)."""
OPPONENTS = ("heuristic", "agent")


class _Timed(AgentSearchBot):
    """The search bot, keeping the seconds of every searched move."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.seconds_per_move: list[float] = []

    def act_in_state(
        self, state: Any, seat: int, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        action = super().act_in_state(state, seat, action_mask, rng)
        if self.last_search["determinizations"]:
            self.seconds_per_move.append(self.last_search["seconds"])
        return action


class _Oracle(_Timed):
    """A diagnostic that cheats: its deals keep every hand and what every player knows as
    they truly are, and shuffle only the draw pile (which nobody has seen). How much it wins
    beyond the fair bot is what dealing the other hands uniformly costs."""

    def _deal(self, state: Any, seat: int, rng: np.random.Generator) -> Any:
        table = state.copy()
        order = rng.permutation(len(table.draw_pile))
        table.draw_pile = [table.draw_pile[int(i)] for i in order]
        return table


class _PartOracle(_Timed):
    """A diagnostic that cheats on one part of the table: its deals keep the cards of
    :attr:`told` seats (``"own"``: the searching seat's own face-down cards; ``"others"``:
    the other players' cards) where they truly are and deal the rest as the fair bot does
    (``game.resample`` of a table where the seat is told those cards, its knowledge then
    put back as it was, so the play-outs play with what the seat really knows). Which part
    is worth more says where the uniform deal loses: a belief about the other hands can
    recover at most the ``others`` part; the seat's own unknown cards no observation
    tells."""

    def __init__(self, told: str = "own", **options: Any) -> None:
        super().__init__(**options)
        if told not in ("own", "others"):
            raise ValueError(f"told must be 'own' or 'others', got {told!r}")
        self.told = told

    def _deal(self, state: Any, seat: int, rng: np.random.Generator) -> Any:
        from ratenvs.rat_a_tat_cat.rules import KIND, NO_CARD

        told = state.copy()
        seats = [seat] if self.told == "own" else [q for q in range(len(state.hands)) if q != seat]
        for q in seats:
            for s, card in enumerate(state.hands[q]):
                if card != NO_CARD:
                    told.know[seat, q, s] = KIND[card]
        table = super()._deal(told, seat, rng)
        for q in seats:
            table.know[seat, q] = state.know[seat, q]
            table.recent[seat, q] = state.recent[seat, q]
        return table


class _Ceilings(_Timed):
    """An experiment: deals weighed by the other players' kept cards. A card its owner has
    seen and kept while letting go of a card worth ``c`` (its public ceiling, see
    ``rules.lower_ceilings``) is likely worth at most ``c``: each dealt card above its
    ceiling multiplies the deal's weight by :attr:`factor`."""

    factor = 0.25

    def __init__(self, factor: float | None = None, **options: Any) -> None:
        super().__init__(**options)
        if factor is not None:
            self.factor = float(factor)

    def _weight(self, table: Any, seat: int) -> float:
        from ratenvs.rat_a_tat_cat.rules import KIND, NO_CARD, NO_CEILING

        above = 0
        for q, hand in enumerate(table.hands):
            if q == seat:
                continue
            for s, card in enumerate(hand):
                ceiling = table.ceiling[q, s]
                if card != NO_CARD and ceiling < NO_CEILING and table.owner_seen[q, s]:
                    above += KIND[card] > ceiling
        return self.factor**above


class _GameValued:
    """An experiment, mixed in before a search class: each play-out valued by the seat's
    chance to win the game from the totals its round leaves (a table of
    :class:`studies.ratcat_game_value.GameValue`: of the agent against itself where the
    play-out's other seat is the agent, against the heuristic where it is the heuristic),
    where the bot values the round won. The play-out engine scores each seat's round points
    (:attr:`play_out_reward`) to read the totals off."""

    def __init__(self, game_value: str, **options: Any) -> None:
        from studies.ratcat_game_value import GameValue

        super().__init__(**options)
        if self.opponents == "mixed":  # one batch, two kinds of other seat: one table each
            raise ValueError("--game-value reads one table a play-out: not with --model mixed")
        self.game_value = GameValue(game_value)

    play_out_reward = "points"  # each seat's round points, to read the totals off

    def bind_game(self, game: Any, seat: int) -> None:
        if game.out_at != self.game_value.out_at or game.num_players != 2:
            raise ValueError("the game value's table is of another game")
        super().bind_game(game, seat)

    def _worth(
        self,
        rewards: np.ndarray,
        playing: np.ndarray,
        seat: int,
        totals: np.ndarray,
        model: str,
    ) -> np.ndarray:
        from ratenvs.rat_a_tat_cat.rules import POINTS_SCALE

        after = totals + np.rint(-rewards.astype(np.float64) * POINTS_SCALE).astype(np.int64)
        opponent = "agent" if model == "agent" else "heuristic"
        return self.game_value.chance(opponent, after[:, seat], after[:, 1 - seat])


def measure(
    opponent: str,
    budgets: Sequence[int],
    setting: str,
    games: int,
    seed: int,
    model: str = "heuristic",
    oracle: bool | str = False,
    ceilings: float | None = None,
    margin: float | None = None,
    belief: str | None = None,
    game_value: str | None = None,
) -> dict[str, Any]:
    """Every budget's win rate against ``opponent`` on the same ``games`` seeds (``oracle``:
    False, or the diagnostic's part of the table: ``"all"`` (True), ``"own"``,
    ``"others"``)."""
    oracle = "all" if oracle is True else oracle
    if oracle not in (False, "all", "own", "others"):
        raise ValueError(f"oracle must be all, own or others, got {oracle!r}")
    if opponent not in OPPONENTS:
        raise ValueError(f"opponent must be one of {OPPONENTS}, got {opponent!r}")
    checkpoint = load_agent_checkpoint(AGENTS[setting])
    game = RatATatCat(**checkpoint.env_options)
    if ceilings is not None and belief is not None:
        raise ValueError("--ceilings and --belief are two weights of the deals: give one")
    if oracle and belief is not None:
        raise ValueError("--oracle deals the true hands: there is nothing for --belief to weigh")
    fitted_on = None if belief is None else Belief(belief).agent
    if fitted_on is not None and fitted_on != AGENTS[setting]:
        raise ValueError(
            f"{belief} was fitted on {fitted_on}'s games, the setting plays {AGENTS[setting]}"
        )
    if oracle and ceilings is not None:
        raise ValueError("--oracle deals the true hands: there is nothing for --ceilings to weigh")
    if game_value is not None:
        from studies.ratcat_game_value import GameValue

        if setting != "elimination":
            raise ValueError("--game-value values rounds of the game to 100: --setting elimination")
        if GameValue(game_value).agent != AGENTS[setting]:
            raise ValueError(
                f"{game_value} was built from another agent's games than {AGENTS[setting]}"
            )

    def searcher_of(budget: int) -> Any:
        if budget == 0:
            return checkpoint.bot()
        options = {
            "determinizations": budget,
            "policy": checkpoint.bot(),
            "opponents": model,
            "margin": margin,
        }
        if ceilings is not None:
            kind, options = _Ceilings, {**options, "factor": ceilings}
        elif belief is not None:
            kind, options = _Timed, {**options, "belief": belief}
        elif oracle in ("own", "others"):
            kind, options = _PartOracle, {**options, "told": oracle}
        else:
            kind = _Oracle if oracle else _Timed
        if game_value is not None:
            kind = type(f"_GameValued{kind.__name__}", (_GameValued, kind), {})
            options["game_value"] = game_value
        return kind(**options)

    rows = []
    for budget in budgets:
        searcher = searcher_of(budget)
        wins = 0.0
        start = time.perf_counter()
        for i in range(games):
            seat = i % 2
            other = HeuristicBot if opponent == "heuristic" else checkpoint.bot
            bots = [other(), other()]
            bots[seat] = searcher
            played = play_game(game, bots, seed + i // 2)
            k = sum(played.winners)
            wins += (1.0 / k) if played.winners[seat] else 0.0
        low, high = wilson_interval(wins, games)
        moves = getattr(searcher, "seconds_per_move", [])
        row = {
            "determinizations": budget,
            "games": games,
            "win_rate": wins / games,
            "wilson_95": [low, high],
            "seconds_per_move_median": float(np.median(moves)) if moves else 0.0,
            "seconds_per_move_p95": float(np.percentile(moves, 95)) if moves else 0.0,
            "seconds": time.perf_counter() - start,
        }
        rows.append(row)
        print(
            f"{budget:>5} deals: {row['win_rate']:.1%} [{low:.1%}, {high:.1%}] of {games} "
            f"games vs {opponent} (play-outs: {model}); "
            f"{row['seconds_per_move_median']:.3f} s per move (median)",
            flush=True,
        )
    return {
        "setting": setting,
        "agent": AGENTS[setting],
        "opponent": opponent,
        "model": model,
        "oracle": oracle,
        "ceilings": ceilings,
        "margin": margin,
        "belief": belief,
        "game_value": game_value,
        "seed": seed,
        "rows": rows,
    }


def plot(paths: Sequence[str], out: str) -> None:
    """The curves of ``paths`` (files :func:`measure` wrote) in one figure at ``out``."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    for path in paths:
        data = json.loads(Path(path).read_text())
        rows = data["rows"]
        x = [max(r["determinizations"], 4) for r in rows]  # the agent alone at the left
        y = [r["win_rate"] for r in rows]
        lo = [r["win_rate"] - r["wilson_95"][0] for r in rows]
        hi = [r["wilson_95"][1] - r["win_rate"] for r in rows]
        ax.errorbar(
            x,
            y,
            yerr=[lo, hi],
            marker="o",
            capsize=3,
            label=f"vs {data['opponent']}, play-outs: {data['model']}",
        )
    ax.axhline(0.5, color="grey", lw=0.8)
    ax.axhline(0.55, color="grey", lw=0.8, ls="--")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("deals per move (4: the agent alone)")
    ax.set_ylabel("win rate, 2 players, one round")
    ax.set_title("the search bot by deals per move (duplicate deals, Wilson 95%)", fontsize=9)
    ax.legend()
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    with atomic_file(out) as fh:
        fh.write(buffer.getvalue())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opponent", choices=OPPONENTS, default="heuristic")
    parser.add_argument(
        "--model", choices=("agent", "heuristic", "mixed", "both"), default="heuristic"
    )
    parser.add_argument(
        "--oracle",
        nargs="?",
        const="all",
        default=False,
        choices=("all", "own", "others"),
        help="a diagnostic that cheats: the deals keep every hand as it is (all), only the "
        "seat's own cards (own) or only the other hands (others)",
    )
    parser.add_argument(
        "--ceilings",
        type=float,
        default=None,
        metavar="FACTOR",
        help="an experiment: weigh each deal by FACTOR per other player's card above its ceiling",
    )
    parser.add_argument(
        "--margin",
        type=float,
        default=None,
        metavar="M",
        help="the guarded search: keep the agent's move unless another gains M standard errors",
    )
    parser.add_argument(
        "--belief",
        default=None,
        metavar="FILE",
        help="weigh the deals by a learned belief (training.games.rat_a_tat_cat_belief fit)",
    )
    parser.add_argument(
        "--game-value",
        default=None,
        metavar="FILE",
        help="an experiment: value play-outs by the chance to win the game to 100 from the "
        "totals they leave (studies.ratcat_game_value build)",
    )
    parser.add_argument("--budgets", type=int, nargs="+", default=[0, 16, 64, 256, 1024])
    parser.add_argument("--setting", choices=tuple(AGENTS), default="one_round")
    parser.add_argument("--games", type=int_in(1), default=400)
    parser.add_argument("--seed", type=int, default=90000)
    parser.add_argument("--json", default=None, help="write the figures to this file")
    parser.add_argument("--plot", nargs="+", default=None, help="draw these files' curves")
    parser.add_argument("--out", default="docs/images/search_curve.png")
    args = parser.parse_args(argv)
    if args.plot:
        plot(args.plot, args.out)
        return
    out = measure(
        args.opponent,
        args.budgets,
        args.setting,
        args.games,
        args.seed,
        args.model,
        args.oracle,
        args.ceilings,
        args.margin,
        args.belief,
        args.game_value,
    )
    if args.json:
        write_figures(args.json, out)


if __name__ == "__main__":
    main()
