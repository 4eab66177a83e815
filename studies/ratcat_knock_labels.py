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

import time
from collections.abc import Sequence

import numpy as np

from ratenvs.common.bots import Bot
from ratenvs.common.play import play_game, seed_streams
from ratenvs.rat_a_tat_cat import rules
from ratenvs.rat_a_tat_cat.bots import HeuristicBot
from ratenvs.rat_a_tat_cat.observe import TableObserver as Observer
from ratenvs.rat_a_tat_cat.rules import RatATatCat
from studies import ratcat_4p_ablation as ablation
from studies.harness import bots_choose, play_on, study_rng
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
    """The table and the round's points at the end of the round after ``action``, played
    out from a copy of ``state``: ``agent`` (when given) plays ``seat`` on, heuristic bots
    every other seat; chance and the seats' bots draw from ``seed_streams(seed, n)``."""
    game = observer.game
    n = game.num_players
    bots = [agent if agent is not None and q == seat else HeuristicBot() for q in range(n)]
    choose = bots_choose(game, bots, observer.kind)
    st = state.copy()
    chance, rngs = seed_streams(seed, n)
    if game.apply(st, {st.current: action}, chance) is None:
        play_on(game, st, choose, chance, rngs, stop=lambda rewards: rewards is not None)
    assert st.last_round_points is not None
    return st, st.last_round_points


def play_out(state: rules.State, action: int, observer: Observer, seat: int, seed: int) -> float:
    """The decider's zero-sum round reward after ``action``, heuristic bots playing on."""
    _, points = play_round(state, action, observer, seed)
    others = [q for q in range(state.num_players) if q != seat and state.active[q]]
    return (float(np.mean([points[q] for q in others])) - points[seat]) / 10.0


def collect(games: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Observations and counterfactual knock gains at every knock decision of four heuristic
    bots: game ``g`` is ``play_game(game, bots, seed + g)``, its knock decisions played out
    from their tables (the play-outs' seeds: :func:`studies.harness.study_rng`)."""
    game = RatATatCat(num_players=PLAYERS, target_score=100)
    view = game.observer(game.observation_kind)
    observations, gains = [], []
    for g in range(games):
        draws = study_rng(seed + g)

        def label(
            game: object, state: rules.State, actions: object, rewards: object, draws=draws
        ) -> None:
            if state.phase != rules.PHASE_KNOCK:  # the next decision is not a knock
                return
            p = state.current
            common = int(draws.integers(1 << 30))
            knock = play_out(state, rules.ACTION_KNOCK, view, p, common)
            wait = play_out(state, rules.ACTION_NO_KNOCK, view, p, common)
            observations.append(view.observe(state, p))
            gains.append(knock - wait)

        play_game(game, [HeuristicBot() for _ in range(PLAYERS)], seed + g, on_step=label)
    return np.asarray(observations, np.float32), np.asarray(gains, np.float32)


def fit(x: np.ndarray, y: np.ndarray, epochs: int, seed: int) -> tuple[object, float]:
    """A 256-256 ReLU MLP regressing ``y`` on ``x`` (90% of rows); its validation MSE."""
    order = np.random.default_rng(seed).permutation(len(y))
    split = int(0.9 * len(y))
    return fit_mlp(x, y[:, None], order[:split], order[split:], epochs, batch_size=1024, seed=seed)


def learned_knock(model: object, card_play: ablation.Chooser | None) -> ablation.Chooser:
    """Knock when the model predicts a gain; card play by ``card_play`` (None: heuristic)."""
    import torch

    def gain(state: rules.State, seat: int, obs: np.ndarray, rng: ablation.Rng) -> float:
        with torch.no_grad():
            return float(model(torch.as_tensor(obs[None])))  # type: ignore[operator]

    return ablation.knock_on_gain(gain, card_play)


def main(argv: Sequence[str] | None = None) -> int:
    agent = "checkpoint whose card play goes with the learned knock"
    parser = ablation.study_parser(__doc__, 1200, 100000, agent)
    for flag, default in (("--epochs", 4), ("--eval-games", 1000), ("--eval-seed", 70000)):
        parser.add_argument(flag, type=int, default=default)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    x, y = collect(args.games, args.seed)
    print(f"{len(y)} knock decisions from {args.games} games ({time.perf_counter() - t0:.0f} s)")
    print(f"gain of knocking: mean {y.mean():.4f}, variance {y.var():.4f}")
    model, mse = fit(x, y, args.epochs, args.seed)
    print(f"validation MSE of the regression: {mse:.4f}")
    lines = [("heuristic card play, learned knock", learned_knock(model, None))]
    if args.agent:
        card_play = ablation.agent_card_play(args.agent)
        lines.append(("agent card play, learned knock", learned_knock(model, card_play)))
    for name, chooser in lines:
        rate = ablation.play(chooser, args.eval_games, args.eval_seed).win_rate
        print(f"{name:40s} {100 * rate:5.1f}% of {args.eval_games} games")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
