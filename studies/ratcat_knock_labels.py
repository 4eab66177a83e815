"""Counterfactual knock labels for 4-player Rat-a-Tat Cat: how good can a knock learned from
the observation be?

    python -m studies.ratcat_knock_labels [--games 1200] [--seed 100000] [--epochs 4]
        [--eval-games 1000] [--agent CKPT]

Four heuristic bots play the elimination game at 100. At every knock decision the
round is played out twice from the true table, once after knocking and once after
not knocking, with the same random numbers (the heuristic bots play on), and the
label is the difference of the decider's zero-sum round reward (the mean of the
other live hands' points minus its own, / 10). An MLP (256-256) regresses the
label on the decider's observation (90% of the decisions; printed: the label's
mean and variance and the validation MSE), and "knock when the predicted gain is
positive" is then played in one seat against three heuristic bots with the
heuristic's card play and, with ``--agent``, with the agent's card play (seeds of
``studies.ratcat_4p_ablation``).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np

from ratenvs.common.bots import Bot
from ratenvs.rat_a_tat_cat import rules
from ratenvs.rat_a_tat_cat.bots import HeuristicBot
from ratenvs.rat_a_tat_cat.env import raw_env
from ratenvs.rat_a_tat_cat.observe import TableObserver as Observer
from studies import ratcat_4p_ablation as ablation
from studies.ratcat_rival_hands import fit_mlp

PLAYERS = 4


def play_round(
    state: rules.State,
    action: int,
    observer: Observer,
    seed: int,
    agent: Bot | None = None,
    seat: int = -1,
) -> tuple[rules.State, list[int]]:
    """The table and the round's points at the end of the round after ``action``: ``agent``
    (when given) plays ``seat`` on, heuristic bots every other seat."""
    bot = HeuristicBot()
    bot.bind(observer)
    game = observer.game
    st = state.copy()
    rng = np.random.default_rng(seed)
    points = rules.apply_action(st, action, rng, game)
    while points is None:
        p = st.current
        obs, mask = observer.observe(st, p), game.legal_mask(st, p)
        player = agent if agent is not None and p == seat else bot
        points = rules.apply_action(st, int(player.act(obs, mask, rng)), rng, game)
    return st, points


def play_out(state: rules.State, action: int, observer: Observer, seat: int, seed: int) -> float:
    """The decider's zero-sum round reward after ``action``, heuristic bots playing on."""
    _, points = play_round(state, action, observer, seed)
    others = [q for q in range(state.num_players) if q != seat and state.active[q]]
    return (float(np.mean([points[q] for q in others])) - points[seat]) / 10.0


def collect(games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and counterfactual knock gains at every knock decision."""
    bot = HeuristicBot()
    observations, gains = [], []
    for g in range(games):
        env = raw_env(num_players=PLAYERS, target_score=100)
        bot.bind(env.observer)
        env.reset(seed=seed + g)
        rng = np.random.default_rng(seed + g)
        while not env.truth.is_over:
            state = env.truth
            p = state.current
            seen = env.observe(env.possible_agents[p])
            obs = seen["observation"]
            action = int(bot.act(obs, seen["action_mask"], rng))
            if state.phase == rules.PHASE_KNOCK:
                common = int(rng.integers(1 << 30))
                knock = play_out(state, rules.ACTION_KNOCK, env.observer, p, common)
                wait = play_out(state, rules.ACTION_NO_KNOCK, env.observer, p, common)
                observations.append(obs)
                gains.append(knock - wait)
            env.step(action)
    return np.asarray(observations, np.float32), np.asarray(gains, np.float32)


def fit(x: np.ndarray, y: np.ndarray, epochs: int, seed: int) -> tuple[object, float]:
    """A 256-256 ReLU MLP regressing ``y`` on ``x`` (90% of rows); its validation MSE."""
    order = np.random.default_rng(seed).permutation(len(y))
    split = int(0.9 * len(y))
    return fit_mlp(x, y[:, None], order[:split], order[split:], epochs, batch_size=1024, seed=seed)


def learned_knock(model: object, card_play: ablation.Chooser | None) -> ablation.Chooser:
    """Knock when the model predicts a gain; card play by ``card_play`` (None: heuristic)."""
    import torch

    def choose(state: rules.State, seat: int, obs: np.ndarray, mask: np.ndarray, a: int) -> int:
        if mask[rules.ACTION_KNOCK]:
            with torch.no_grad():
                gain = float(model(torch.as_tensor(obs[None])))  # type: ignore[operator]
            return rules.ACTION_KNOCK if gain > 0 else rules.ACTION_NO_KNOCK
        return a if card_play is None else card_play(state, seat, obs, mask, a)

    return choose


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=100000)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--eval-seed", type=int, default=70000)
    parser.add_argument("--agent", help="checkpoint whose card play goes with the learned knock")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    x, y = collect(args.games, args.seed)
    print(f"{len(y)} knock decisions from {args.games} games ({time.perf_counter() - t0:.0f} s)")
    print(f"gain of knocking: mean {y.mean():.4f}, variance {y.var():.4f}")
    model, mse = fit(x, y, args.epochs, args.seed)
    print(f"validation MSE of the regression: {mse:.4f}")
    lines = [("heuristic card play, learned knock", learned_knock(model, None))]
    if args.agent:
        from training.checkpoint import load_checkpoint

        agent = load_checkpoint(args.agent, game="rat_a_tat_cat").bot()
        card_play = ablation.agent_plays(agent, ["start", "number", "swap", "peek", "draw2"])
        lines.append(("agent card play, learned knock", learned_knock(model, card_play)))
    for name, chooser in lines:
        rate = ablation.play(chooser, args.eval_games, args.eval_seed).win_rate
        print(f"{name:40s} {100 * rate:5.1f}% of {args.eval_games} games")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
