"""How well a seat can guess the other hands in 4-player Rat-a-Tat Cat, and whether the
discard history would help.

    python -m studies.ratcat_rival_hands [--games 600] [--seed 0] [--epochs 30]

Four heuristic bots play the elimination game at 100. At every knock decision the
script records the deciding seat's observation ("knowledge" mode, what the agents
see) and the true points of the three other hands (a power card counts 4.5). It
also records the public history the observation does not carry: for every slot,
the card last taken out of it this round (it went face up to the discard pile;
swaps move it with the card), and for every player the last drawn number it
discarded unused and how many it discarded so. Two MLPs (256-256, Adam, the same
seed) regress the three hands on 80% of the decisions: one on the observation, one
on the observation plus the history. Printed: the variance of a hand's points and
the validation mean squared error of each. A model that cannot beat the observation
alone says the history holds nothing more about the hands (against these bots).

Two more lines read how the others have played (env option ``owner_ceilings``): the
``ceiling`` bot's guess (:data:`~ratenvs.rat_a_tat_cat.bots.KEPT_VALUES`, one number
per ceiling, no fitting) and the same MLP on the observation with the option's block.
When the MLP barely beats the table, the table holds what the observation says.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np

from ratenvs.common.arguments import int_in
from ratenvs.common.play import play_game
from ratenvs.rat_a_tat_cat import rules
from ratenvs.rat_a_tat_cat.bots import CeilingBot, HeuristicBot
from ratenvs.rat_a_tat_cat.rules import RatATatCat
from studies.harness import mlp

PLAYERS = 4
POWER_VALUE = 4.5


def _points(hand: list[int]) -> float:
    kinds = [rules.KIND[c] for c in hand]
    return float(sum(k if k < rules.NUM_NUMBER_KINDS else POWER_VALUE for k in kinds))


def collect(
    games: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """At knock decisions: the observations (without and with the ``owner_ceilings``
    block), history features, the ``ceiling`` bot's guess of the other hands' points and
    their true points (game ``g``: ``play_game(game, four heuristic bots, seed + g)``)."""
    game = RatATatCat(num_players=PLAYERS, target_score=100, owner_ceilings=True)
    rows = _Rows(game)
    for g in range(games):
        watch = _History(rows)
        play_game(game, [HeuristicBot() for _ in range(PLAYERS)], seed + g, on_step=watch.on_step)
    return (
        np.asarray(rows.obs, np.float32),
        np.asarray(rows.ceilings, np.float32),
        np.asarray(rows.hist, np.float32),
        np.asarray(rows.guesses, np.float32),
        np.asarray(rows.targets, np.float32),
    )


class _Rows:
    """What :func:`collect` records, one row per knock decision."""

    def __init__(self, game: RatATatCat) -> None:
        self.view = game.observer(game.observation_kind)
        self.guesser = CeilingBot()
        self.guesser.bind(self.view)
        self.obs: list[np.ndarray] = []
        self.ceilings: list[np.ndarray] = []
        self.hist: list[list[float]] = []
        self.guesses: list[np.ndarray] = []
        self.targets: list[list[float]] = []


class _History:
    """Watches one game (``on_step``): the public history of the round, and a row at every
    knock decision (the state after a step is the state of the next decision)."""

    def __init__(self, rows: _Rows) -> None:
        self.rows = rows
        self.round_index = 0
        self._new_round()
        self.before: tuple[int, int, list[int], int] | None = None
        """(seat, phase, its hand's kinds, the held card's kind) at the next decision."""

    def _new_round(self) -> None:
        self.removed = -np.ones((PLAYERS, rules.SLOTS))
        self.dropped = -np.ones(PLAYERS)
        self.drops = np.zeros(PLAYERS)

    def on_step(
        self, game: object, state: rules.State, actions: dict[int, int], _r: object
    ) -> None:
        if self.before is not None:  # the first decision is a draw: no history
            self._played(*self.before, actions[self.before[0]])
        if state.is_over:
            return
        if state.round_index != self.round_index:
            self.round_index = state.round_index
            self._new_round()
        p = state.current
        if state.phase == rules.PHASE_KNOCK:
            self._row(state, p)
        held = rules.KIND[state.held] if state.held != rules.NO_CARD else -1
        self.before = (p, state.phase, [rules.KIND[c] for c in state.hands[p]], held)

    def _played(self, p: int, phase: int, hand: list[int], held: int, action: int) -> None:
        removed = self.removed
        if phase in (rules.PHASE_NUMBER, rules.PHASE_PLACE) and (
            rules.ACTION_REPLACE <= action < rules.ACTION_REPLACE + rules.SLOTS
        ):
            removed[p, action - rules.ACTION_REPLACE] = hand[action - rules.ACTION_REPLACE]
        elif phase == rules.PHASE_NUMBER and action == rules.ACTION_DISCARD:
            self.dropped[p] = held
            self.drops[p] += 1
        elif phase == rules.PHASE_SWAP and action >= rules.ACTION_SWAP:
            own, offset, theirs = rules.decode_swap(action)
            q = (p + offset) % PLAYERS
            removed[p, own], removed[q, theirs] = removed[q, theirs], removed[p, own]

    def _row(self, state: rules.State, p: int) -> None:
        rows = self.rows
        hist: list[float] = []
        for k in range(PLAYERS):
            q = (p + k) % PLAYERS
            for s in range(rules.SLOTS):
                seen = self.removed[q, s] >= 0
                hist += [self.removed[q, s] / 12 if seen else 0.0, float(seen)]  # kind 0..12
            dropped = self.dropped[q]
            hist += [dropped / 9 if dropped >= 0 else 0.0, float(dropped >= 0)]
            hist.append(min(self.drops[q] / 10, 1.0))
        obs = rows.view.observe(state, p)
        rows.obs.append(obs[: rows.view.offset("ceilings")])
        rows.ceilings.append(obs)
        rows.hist.append(hist)
        rows.guesses.append(rows.guesser.hand_estimates(obs)[1:].sum(axis=1))
        rows.targets.append([_points(state.hands[(p + k) % PLAYERS]) for k in (1, 2, 3)])


def fit_mlp(
    x: np.ndarray,
    y: np.ndarray,
    train: np.ndarray,
    val: np.ndarray,
    epochs: int,
    batch_size: int = 512,
    seed: int = 0,
) -> tuple[object, float]:
    """A 256-256 ReLU MLP regressing ``y`` (rows: targets) on ``x`` over the ``train`` rows
    (Adam, learning rate 1e-3); the model and its mean squared error on the ``val`` rows."""
    import torch

    model = mlp(x.shape[1], y.shape[1], seed)
    opt = torch.optim.Adam(model.parameters(), 1e-3)
    xt, yt = torch.as_tensor(x), torch.as_tensor(y)
    tr = torch.as_tensor(train)
    for _ in range(epochs):
        order = tr[torch.randperm(len(tr))]
        for i in range(0, len(order), batch_size):
            batch = order[i : i + batch_size]
            loss = ((model(xt[batch]) - yt[batch]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        return model, float(((model(xt[val]) - yt[val]) ** 2).mean())


def fit_mse(x: np.ndarray, y: np.ndarray, train: np.ndarray, val: np.ndarray, epochs: int) -> float:
    """Validation MSE of a 256-256 ReLU MLP regressing ``y`` on ``x``."""
    return fit_mlp(x, y, train, val, epochs)[1]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int_in(1), default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epochs", type=int_in(1), default=30)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    obs, with_ceilings, hist, guess, y = collect(args.games, args.seed)
    n = len(y)
    order = np.random.default_rng(args.seed).permutation(n)
    train, val = order[: int(0.8 * n)], order[int(0.8 * n) :]
    print(f"{n} knock decisions from {args.games} games ({time.perf_counter() - t0:.0f} s)")
    print(f"variance of a hand's points:         {y[val].var():6.2f}")
    print(f"MSE from the observation:            {fit_mse(obs, y, train, val, args.epochs):6.2f}")
    both = np.concatenate([obs, hist], axis=1)
    print(f"MSE from observation + history:      {fit_mse(both, y, train, val, args.epochs):6.2f}")
    table = float(((guess[val] - y[val]) ** 2).mean())
    print(f"MSE of the ceiling bot's guess:      {table:6.2f}")
    fitted = fit_mse(with_ceilings, y, train, val, args.epochs)
    print(f"MSE from observation + ceilings:     {fitted:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
