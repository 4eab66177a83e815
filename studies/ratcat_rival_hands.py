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

from ratenvs.rat_a_tat_cat import rules
from ratenvs.rat_a_tat_cat.bots import CeilingBot, HeuristicBot
from ratenvs.rat_a_tat_cat.env import raw_env

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
    their true points."""
    bots = [HeuristicBot() for _ in range(PLAYERS)]
    guesser = CeilingBot()
    obs_rows, ceiling_rows, hist_rows, guesses, targets = [], [], [], [], []
    for g in range(games):
        env = raw_env(num_players=PLAYERS, target_score=100, owner_ceilings=True)
        for bot in [*bots, guesser]:
            bot.bind(env.observer)
        env.reset(seed=seed + g)
        rng = np.random.default_rng(seed + g)
        round_index = -1
        removed = dropped = drops = np.zeros(0)
        while not env.truth.is_over:
            state = env.truth
            p = state.current
            if state.round_index != round_index:
                round_index = state.round_index
                removed = -np.ones((PLAYERS, rules.SLOTS))
                dropped = -np.ones(PLAYERS)
                drops = np.zeros(PLAYERS)
            seen = env.observe(env.possible_agents[p])
            obs = seen["observation"]
            action = int(bots[p].act(obs, seen["action_mask"], rng))
            if state.phase == rules.PHASE_KNOCK:
                hist: list[float] = []
                for k in range(PLAYERS):
                    q = (p + k) % PLAYERS
                    for s in range(rules.SLOTS):
                        seen = removed[q, s] >= 0
                        hist += [removed[q, s] / 12 if seen else 0.0, float(seen)]  # kind 0..12
                    hist += [dropped[q] / 9 if dropped[q] >= 0 else 0.0, float(dropped[q] >= 0)]
                    hist.append(min(drops[q] / 10, 1.0))
                obs_rows.append(obs[: env.observer.offset("ceilings")])
                ceiling_rows.append(obs)
                hist_rows.append(hist)
                guesses.append(guesser.hand_estimates(obs)[1:].sum(axis=1))
                targets.append([_points(state.hands[(p + k) % PLAYERS]) for k in (1, 2, 3)])
            phase = state.phase
            if phase in (rules.PHASE_NUMBER, rules.PHASE_PLACE) and (
                rules.ACTION_REPLACE <= action < rules.ACTION_REPLACE + rules.SLOTS
            ):
                slot = action - rules.ACTION_REPLACE
                removed[p, slot] = rules.KIND[state.hands[p][slot]]
            elif phase == rules.PHASE_NUMBER and action == rules.ACTION_DISCARD:
                dropped[p] = rules.KIND[state.held]
                drops[p] += 1
            elif phase == rules.PHASE_SWAP and action >= rules.ACTION_SWAP:
                own, offset, theirs = rules.decode_swap(action)
                q = (p + offset) % PLAYERS
                removed[p, own], removed[q, theirs] = removed[q, theirs], removed[p, own]
            env.step(action)
    return (
        np.asarray(obs_rows, np.float32),
        np.asarray(ceiling_rows, np.float32),
        np.asarray(hist_rows, np.float32),
        np.asarray(guesses, np.float32),
        np.asarray(targets, np.float32),
    )


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

    torch.manual_seed(seed)
    model = torch.nn.Sequential(
        torch.nn.Linear(x.shape[1], 256),
        torch.nn.ReLU(),
        torch.nn.Linear(256, 256),
        torch.nn.ReLU(),
        torch.nn.Linear(256, y.shape[1]),
    )
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
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=30)
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
