"""Determinized search on the knock for 4-player Rat-a-Tat Cat: does planning with sampled
hidden hands beat the heuristic's threshold?

    python -m studies.ratcat_pimc_knock [--games 400] [--samples 32] [--gate 14]
        [--prior-games 150] [--agent CKPT]

One seat plays against three heuristic bots (elimination game at 100, the seeds of
``studies.ratcat_4p_ablation``). At each of its knock decisions where the heuristic's
estimate of its own hand is at most ``--gate`` points (above it, it never knocks),
it deals ``--samples`` tables consistent with everything it knows, plays each
round out after knocking and after not knocking with the same random numbers
(heuristic bots in every seat, as in ``studies.ratcat_knock_labels``), and knocks when
the mean zero-sum round reward of knocking is higher (perfect-information Monte
Carlo, as in Skat and bridge programs).

Two beliefs deal the tables:

- ``uniform``: :func:`~ratenvs.rat_a_tat_cat.resample.resample_state`, every
  consistent table equally likely;
- ``kept-card``: the same, then a few Metropolis sweeps that weight the cards in
  slots whose owner knows them by how much more (or less) often such a card is
  of each kind than a uniform deal says (measured on ``--prior-games`` heuristic
  games): players keep the low cards they know, so uniform deals overrate the
  other hands;
- ``oracle-others`` (``--beliefs oracle-others``, for comparison only): the other
  players' cards as they really are, only the seat's own unseen cards and the
  draw pile dealt at random - what the search is worth when the belief is right.

Each belief is played with the heuristic's card play and, with ``--agent``, with
the agent's card play (its own knocks replaced by the search).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from ratenvs.rat_a_tat_cat import rules
from ratenvs.rat_a_tat_cat.resample import (
    card_at,
    follow_cards,
    hidden_positions,
    put_card,
    resample_state,
)
from ratenvs.rat_a_tat_cat.rules import RatATatCat
from studies import ratcat_4p_ablation as ablation
from studies.ratcat_bot_tuning import knock_decisions
from studies.ratcat_knock_labels import play_out

Sampler = Callable[[rules.State, int, np.random.Generator], rules.State]
"""(state, seat, rng) -> a table consistent with what ``seat`` knows."""


def owner_knows(state: rules.State, pos: tuple) -> bool:
    """Whether the place ``pos`` is a slot whose owner knows its card."""
    return pos[0] == "slot" and bool(state.know[pos[1]][pos[1], pos[2]] < rules.NUM_KINDS)


def kept_card_ratio(games: int, seed: int) -> np.ndarray:
    """Per kind: its share among hidden cards their owner knows, in real tables over its
    share in uniform deals (at the knock decisions of four heuristic bots)."""
    real = np.ones(rules.NUM_KINDS)  # add-one smoothing
    dealt = np.ones(rules.NUM_KINDS)
    deal_rng = np.random.default_rng(seed)
    for state, p in knock_decisions(games, seed):
        deal = resample_state(state, p, deal_rng)
        for pos in hidden_positions(state, p):
            if owner_knows(state, pos):
                real[rules.KIND[card_at(state, pos)]] += 1
                dealt[rules.KIND[card_at(deal, pos)]] += 1
    return (real / real.sum()) / (dealt / dealt.sum())


def kept_card_sampler(ratio: np.ndarray, sweeps: int = 5) -> Sampler:
    """Uniform deals reweighted by ``ratio`` at the slots whose owner knows the card.

    Metropolis exchanges of two number cards between hidden places of the same
    shuffle epoch keep every constraint of :func:`resample_state`; the stationary
    weight of a table is the product of ``ratio`` over its owner-known hidden slots.
    """

    def sample(state: rules.State, seat: int, rng: np.random.Generator) -> rules.State:
        deal = resample_state(state, seat, rng)
        places = hidden_positions(state, seat)
        order = [pos for pos in places if owner_knows(deal, pos)]  # a set's order would vary
        weighted = set(order)
        groups: dict[int, list[tuple]] = {}
        for pos in places:
            groups.setdefault(state.card_epoch[card_at(state, pos)], []).append(pos)
        group_of = {pos: group for group in groups.values() for pos in group}

        def weight(pos: tuple, card: int) -> float:
            return float(ratio[rules.KIND[card]]) if pos in weighted else 1.0

        for _ in range(sweeps):
            for t in order:
                group = group_of[t]
                u = group[int(rng.integers(len(group)))]
                ct, cu = card_at(deal, t), card_at(deal, u)
                if u == t or max(rules.KIND[ct], rules.KIND[cu]) >= rules.NUM_NUMBER_KINDS:
                    continue
                accept = weight(t, cu) * weight(u, ct) / (weight(t, ct) * weight(u, cu))
                if accept >= 1.0 or rng.random() < accept:
                    put_card(deal, t, cu)
                    put_card(deal, u, ct)
        follow_cards(deal, places)
        return deal

    return sample


def oracle_others(state: rules.State, seat: int, rng: np.random.Generator) -> rules.State:
    """An oracle belief for comparison: a uniform deal, then every other player's hidden
    cards put back where they really are (only the seat's own unseen cards and the draw
    pile stay dealt at random)."""
    deal = resample_state(state, seat, rng)
    places = hidden_positions(state, seat)
    for pos in places:
        if pos[0] != "slot" or pos[1] == seat:
            continue
        card = card_at(state, pos)
        if card_at(deal, pos) == card:
            continue
        there = next(u for u in places if card_at(deal, u) == card)
        moved = card_at(deal, pos)
        if there[0] == "slot" and rules.KIND[moved] >= rules.NUM_NUMBER_KINDS:
            # keep the power card out of that slot: a number card of the pile takes its place
            pile = [u for u in places if u[0] == "pile"]
            numbers = (u for u in pile if rules.KIND[card_at(deal, u)] < rules.NUM_NUMBER_KINDS)
            w = next(numbers, None)
            if w is None:
                continue
            put_card(deal, there, card_at(deal, w))
            there = w
        put_card(deal, there, moved)
        put_card(deal, pos, card)
    follow_cards(deal, places)
    return deal


def pimc_knock(
    sampler: Sampler, samples: int, gate: float, card_play: ablation.Chooser | None
) -> ablation.Chooser:
    """Knock when the sampled tables say knocking gains; card play by ``card_play``
    (None: the heuristic's). The deals and the play-outs' seeds are the seat's random
    numbers (its generator in the driven game)."""
    observer = RatATatCat(num_players=4, target_score=100).observer("knowledge")

    def gain(state: rules.State, seat: int, obs: np.ndarray, rng: ablation.Rng) -> float:
        if ablation.estimated_hand(obs, 0) > gate:
            return -1.0  # never knocks there
        total = 0.0
        for _ in range(samples):
            deal = sampler(state, seat, rng)
            common = int(rng.integers(1 << 30))
            total += play_out(deal, rules.ACTION_KNOCK, observer, seat, common)
            total -= play_out(deal, rules.ACTION_NO_KNOCK, observer, seat, common)
        return total

    return ablation.knock_on_gain(gain, card_play)


def main(argv: Sequence[str] | None = None) -> int:
    agent = "checkpoint whose card play goes with the search"
    parser = ablation.study_parser(__doc__, 400, 70000, agent)
    parser.add_argument("--samples", type=int, default=32)
    parser.add_argument("--gate", type=float, default=14.0)
    parser.add_argument("--prior-games", type=int, default=150)
    parser.add_argument(
        "--beliefs",
        nargs="+",
        choices=["uniform", "kept-card", "oracle-others"],
        default=["uniform", "kept-card"],
        help="oracle-others: the other hands as they really are (an oracle, for comparison)",
    )
    parser.add_argument(
        "--card-play",
        nargs="+",
        choices=["heuristic", "agent"],
        default=None,
        help="whose card play goes with the search knock (default: both, the agent's only "
        "with --agent; agent: needs --agent)",
    )
    args = parser.parse_args(argv)
    if args.card_play is None:
        args.card_play = ["heuristic", "agent"] if args.agent else ["heuristic"]
    elif "agent" in args.card_play and not args.agent:
        parser.error("--card-play agent needs --agent")
    ratio = kept_card_ratio(args.prior_games, seed=200000)
    kinds = " ".join(f"{k}:{r:.2f}" for k, r in enumerate(ratio[: rules.NUM_NUMBER_KINDS]))
    print(f"kept-card ratio by kind ({args.prior_games} games): {kinds}")
    samplers: dict[str, Sampler] = {
        "uniform": resample_state,
        "kept-card": kept_card_sampler(ratio),
        "oracle-others": oracle_others,
    }
    beliefs = [(name, samplers[name]) for name in args.beliefs]
    plays: list[tuple[str, ablation.Chooser | None]] = []
    if "heuristic" in args.card_play:
        plays.append(("heuristic", None))
    if "agent" in args.card_play:
        plays.append(("agent", ablation.agent_card_play(args.agent)))
    print(f"{args.games} games per line, seeds {args.seed}..{args.seed + args.games - 1}")
    print(ablation.HEADER)
    for play_name, card_play in plays:
        for belief, sampler in beliefs:
            t0 = time.perf_counter()
            chooser = pimc_knock(sampler, args.samples, args.gate, card_play)
            r = ablation.play(chooser, args.games, args.seed)
            name = f"{play_name} card play, search knock ({belief} belief)"
            print(f"{name:55s} {r.row()}   ({time.perf_counter() - t0:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
