"""A round's worth in the game to a target score: the chance to win the game from the totals.

    python -m studies.ratcat_game_value build [--games 3000] [--seed 600000]
        [--agent agent:rat_a_tat_cat_2p] --out VALUE.npz
    python -m studies.ratcat_game_value check VALUE.npz [--games 1000] [--seed 610000]

In the elimination game (2 players, a player whose total exceeds 100 is out, the other
wins; both out in the same round: the lower total wins, a tie shares the win) the ``search``
bot values each play-out by the round won, where what a round is worth is how it moves the
seat's chance to win the game: a round lost by one point at 20-20 costs little, a 30-point
round at 80-60 ends the game. This study gives the search that chance.

``build``: 2-player games of the agent's own setting, the agent in one seat and, in every
other game, the same agent or the ``heuristic`` in the other (game ``g`` seeded ``S + g``,
the agent's seat ``g mod 2``); every round's points, the agent's seat first. Two tables
of the chance to win the game from totals ``(mine, other's)`` follow by dynamic
programming, each round drawn from the recorded points as if independent of the totals:
``agent`` (the agent against itself, both seats' views pooled: symmetric) and ``heuristic``
(the agent against the heuristic, from the agent's seat). Totals at or above the game's
``out_at`` are out; the tables run past ``out_at + MAX_POINTS - 1`` so that any round's end can
be read off. ``check``: fresh games of the same pairing, every round start's table value
against whether the agent's seat went on to win (binned calibration and Brier score).
``python -m studies.search_curve --game-value VALUE.npz`` values the search's play-outs by
it (with ``--model both``, the table of each play-out's other seat).

Training has the same chance for any number of players
(``training.games.rat_a_tat_cat_win_chance.WinChance``: the rest of the game played out
many times with rounds of heuristic bots, for the win-chance reward); this study needs it
exact for two players and of the agent's own rounds, hence the dynamic programming here.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ratenvs.common.arguments import int_in
from ratenvs.common.atomic import atomic_file
from studies.harness import bots_choose, drive

AGENT = "agent:rat_a_tat_cat_2p"
"""The agent of the elimination game at 100 (2 players)."""
MAX_POINTS = 36
"""The most points a round can score a hand: four 9s (power cards are replaced at the end)."""
OPPONENTS = ("agent", "heuristic")


class Round(NamedTuple):
    """A round's end in a recorded game: its points, the totals after it, the winners (None
    while the game goes on); ``seat``: the agent's, ``opponent`` in the other."""

    opponent: str
    seat: int
    points: list[int]
    totals: list[int]
    winners: list[bool] | None


def _rounds(agent_name: str, games: int, seed: int) -> Iterator[Round]:
    """Every round's end of ``games`` games (game ``g``: ``studies.harness.drive`` with seed
    ``seed + g``, the agent in seat ``g mod 2`` and ``opponent`` in the other)."""
    from ratenvs.agents import load_agent_checkpoint
    from ratenvs.rat_a_tat_cat.bots import HeuristicBot
    from ratenvs.rat_a_tat_cat.rules import RatATatCat

    agent = load_agent_checkpoint(agent_name)
    game = RatATatCat(**agent.env_options)
    if game.num_players != 2 or game.out_at is None:
        raise ValueError(f"{agent_name} does not play the 2-player game to a target score")
    if game.elimination_tiebreak != "lowest_total":  # the tables' ends are that ruling's
        raise ValueError(f"{agent_name} plays elimination_tiebreak={game.elimination_tiebreak!r}")
    for g in range(games):
        seat = g % 2
        opponent = OPPONENTS[(g // 2) % 2]
        bots = [agent.bot(), agent.bot()]
        if opponent == "heuristic":
            bots[1 - seat] = HeuristicBot()
        yield from _game_rounds(game, bots, seed + g, opponent, seat)


def _game_rounds(game: Any, bots: list[Any], seed: int, opponent: str, seat: int) -> list[Round]:
    """The rounds of the game ``bots`` play, seeded ``seed``."""
    ended: list[Round] = []

    def on_step(game: Any, state: Any, actions: Any, rewards: Any) -> None:
        if state.round_index + state.is_over > len(ended):  # a round ended in this step
            winners = state.winners[:] if state.is_over else None
            ended.append(
                Round(opponent, seat, state.last_round_points[:], state.totals[:], winners)
            )

    drive(game, seed, bots_choose(game, bots), on_step=on_step)
    return ended


def round_points(agent_name: str, games: int, seed: int) -> dict[str, np.ndarray]:
    """Every round's points ``(mine, other's)`` of the agent's seat, by opponent."""
    points: dict[str, list[tuple[int, int]]] = {o: [] for o in OPPONENTS}
    for r in _rounds(agent_name, games, seed):
        points[r.opponent].append((r.points[r.seat], r.points[1 - r.seat]))
    return {o: np.asarray(p, dtype=np.int64).reshape(-1, 2) for o, p in points.items()}


def win_table(points: np.ndarray, out_at: int, symmetric: bool) -> np.ndarray:
    """``V[a, b]``: the chance that the seat with total ``a`` wins against the one with
    ``b``, rounds drawn from ``points`` (rows ``(mine, other's)``; ``symmetric``: pooled with
    the other seat's view). Totals ``>= out_at`` are out."""
    if len(points) == 0:
        raise ValueError("no rounds recorded against this opponent: record more games")
    hist = np.zeros((MAX_POINTS + 1, MAX_POINTS + 1))
    np.add.at(hist, (points[:, 0], points[:, 1]), 1.0)
    if symmetric:
        hist = hist + hist.T
    p = hist / hist.sum()
    size = out_at + MAX_POINTS + 1
    a = np.arange(size)[:, None]
    b = np.arange(size)[None, :]
    out_a, out_b = a >= out_at, b >= out_at
    v = np.where(out_a & out_b, np.where(a < b, 1.0, np.where(a == b, 0.5, 0.0)), 0.0)
    v = np.where(~out_a & out_b, 1.0, v)
    stay = p[0, 0]  # a round where both score 0 leaves the totals as they are
    for i in range(out_at - 1, -1, -1):
        for j in range(out_at - 1, -1, -1):
            # v[i, j] is still 0 here: the round that stays adds nothing to the sum
            on = float(np.sum(p * v[i : i + MAX_POINTS + 1, j : j + MAX_POINTS + 1]))
            v[i, j] = on / (1.0 - stay)
    return v


def build(agent_name: str, games: int, seed: int, out: str | Path) -> dict[str, Any]:
    """Record ``games`` games and write both tables to ``out`` (see the module)."""
    from ratenvs.agents import load_agent_checkpoint
    from ratenvs.rat_a_tat_cat.rules import RatATatCat

    start = time.perf_counter()
    if games < 3:  # games 0 and 1 against the agent, 2 against the heuristic
        raise ValueError(f"--games: at least 3 (both tables need rounds), got {games}")
    found = RatATatCat(**load_agent_checkpoint(agent_name).env_options).out_at
    if found is None:
        raise ValueError(f"{agent_name} does not play the 2-player game to a target score")
    out_at = int(found)
    points = round_points(agent_name, games, seed)
    records = {
        "agent": np.array(agent_name),
        "out_at": np.array(out_at),
        "games": np.array(games),
        "seed": np.array(seed),
    }
    for o in OPPONENTS:
        records[f"points_{o}"] = points[o]
        records[f"table_{o}"] = win_table(points[o], out_at, symmetric=o == "agent")
    with atomic_file(out) as fh:
        np.savez_compressed(fh, **records)
    for o in OPPONENTS:
        pts = points[o]
        print(
            f"vs {o}: {len(pts)} rounds, mean points {pts[:, 0].mean():.2f} vs "
            f"{pts[:, 1].mean():.2f}; chance to win from 0-0: {records[f'table_{o}'][0, 0]:.3f}",
            flush=True,
        )
    print(f"{time.perf_counter() - start:.0f} s", flush=True)
    return records


class GameValue:
    """The tables of a ``build`` file: :meth:`chance` of winning the game from totals."""

    def __init__(self, path: str | Path) -> None:
        with np.load(path) as data:
            self.agent = str(data["agent"])
            self.out_at = int(data["out_at"])
            self.tables = {o: data[f"table_{o}"] for o in OPPONENTS}

    def chance(self, opponent: str, mine: np.ndarray, other: np.ndarray) -> np.ndarray:
        """The chance that a seat at total ``mine`` wins against ``opponent`` at ``other``."""
        table = self.tables[opponent]
        top = table.shape[0] - 1
        return table[np.minimum(mine, top), np.minimum(other, top)]


def check(path: str | Path, games: int, seed: int) -> dict[str, Any]:
    """The table's chance at every round start of fresh games against the outcome."""
    from training.games.rat_a_tat_cat_win_chance import win_share

    value = GameValue(path)
    said: dict[str, list[float]] = {o: [] for o in OPPONENTS}
    won: dict[str, list[float]] = {o: [] for o in OPPONENTS}
    pending: list[float] = []
    for r in _rounds(value.agent, games, seed):
        if not pending:  # the game's first round started at 0-0
            pending.append(float(value.chance(r.opponent, np.array(0), np.array(0))))
        if r.winners is None:  # the next round starts: the table's chance from its totals
            t = np.asarray(r.totals)
            pending.append(float(value.chance(r.opponent, t[r.seat], t[1 - r.seat])))
            continue
        said[r.opponent] += pending
        won[r.opponent] += [win_share(r.winners, r.seat)] * len(pending)
        pending = []
    figures: dict[str, Any] = {}
    for o in OPPONENTS:
        s, w = np.asarray(said[o]), np.asarray(won[o])
        bins = np.clip((s * 5).astype(int), 0, 4)
        rows = [
            (
                f"{b / 5:.1f}-{(b + 1) / 5:.1f}",
                int((bins == b).sum()),
                s[bins == b].mean(),
                w[bins == b].mean(),
            )
            for b in range(5)
            if (bins == b).any()
        ]
        brier = float(np.mean((s - w) ** 2))
        base = float(np.mean((w.mean() - w) ** 2))
        figures[o] = {"brier": brier, "brier_constant": base, "bins": rows}
        print(f"vs {o}: {len(s)} round starts, Brier {brier:.4f} (a constant: {base:.4f})")
        for name, n, mean_said, mean_won in rows:
            print(f"  {name}: {n:>6} said {mean_said:.3f} won {mean_won:.3f}")
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="record games and write the tables")
    b.add_argument("--games", type=int_in(1), default=3000)
    b.add_argument("--seed", type=int, default=600000)
    b.add_argument("--agent", default=AGENT)
    b.add_argument("--out", required=True)
    c = sub.add_parser("check", help="the tables against fresh games")
    c.add_argument("value")
    c.add_argument("--games", type=int_in(1), default=1000)
    c.add_argument("--seed", type=int, default=610000)
    args = parser.parse_args(argv)
    if args.command == "build":
        build(args.agent, args.games, args.seed, args.out)
    else:
        check(args.value, args.games, args.seed)


if __name__ == "__main__":
    main()
