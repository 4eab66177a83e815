"""Where a 4-player Rat-a-Tat Cat agent's wins come from, against three heuristic bots.

    python -m studies.ratcat_4p_ablation [--agent CKPT] [--games 800] [--seed 70000]
        [--players 4]

Every line is one player in seat ``g % n`` of game ``g`` (elimination game at 100,
the other ``n - 1`` seats heuristic bots; ``--players n``, default 4: the same lines
heads-up with ``--players 2`` and a 2-player agent), scored as a win rate (ties shared):

- ``heuristic``: the heuristic bot itself (the fair share is 25%).
- ``oracle knock (own, others)``: the heuristic's card play, but it knocks when
  its hand is at least ``--margin`` points below every other hand still in the
  game. ``true`` reads the real cards (an oracle no player has: power cards count
  4.5), ``estimate`` the heuristic's estimate from the seat's own observation
  (a card it does not know counts as the mean of the unseen number cards). The
  gap between the lines says how much of the knock is worth knowing.
- ``agent plays <decisions>`` (with ``--agent``): the agent makes the listed
  kinds of decision (start = take the discard or draw, number = place or
  discard a drawn or taken number, knock, swap, peek, draw2) and the heuristic
  makes the rest: where the agent's edge over the heuristic comes from.
- ``agent, oracle knock / oracle swap ...`` (with ``--agent``): the agent's play,
  but the knock of the oracle that sees the other hands (its own hand estimated),
  a Swap that sees the other players' cards (``oracle swap``), both, or a Swap
  that guesses them fairly (``kept-card swap``: a card its owner has seen and kept counts
  :data:`KEPT_VALUE`, see :func:`belief_swap`): how much the hidden hands are
  worth to the agent, and how little of it a fair guess recovers.
- ``agent, owner-known knock / swap ...`` (with ``--agent``): the same oracles, but they
  see only the cards the other players have seen themselves (:func:`owner_known_hand`):
  everything another player's choices can tell about its hand, so a bound on what any
  reading of the others' play can add to the knock and the Swap.
- ``ceiling bot (heuristic / agent moves)``: the ``ceiling`` bot, which guesses
  the other hands from how their owners have played (env option
  ``owner_ceilings``) and swaps and knocks on that guess, on top of the
  heuristic's other moves or (with ``--agent``) the agent's.
- ``agent, knock logit +b`` (``--knock-biases``): the agent with ``b`` added to its
  knock logit (more knocks for b > 0): whether its knock is calibrated.
- ``ensemble`` (``--ensemble CKPT ...``): the agent and these checkpoints of the same
  observation, playing the legal action of highest mean probability.

An agent trained with ``owner_ceilings`` (its observation size says so) plays every
line on that observation; the heuristic bots read the same games without the block.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ratenvs.common.arguments import int_in
from ratenvs.common.bots import Bot
from ratenvs.rat_a_tat_cat import rules
from ratenvs.rat_a_tat_cat.bots import CeilingBot, HeuristicBot, swap_by_estimate
from ratenvs.rat_a_tat_cat.observe import layout_for_size, slot_codes
from ratenvs.rat_a_tat_cat.rules import RatATatCat
from studies.harness import drive
from training.games.rat_a_tat_cat_win_chance import win_share
from training.stats import mean_interval

if TYPE_CHECKING:
    from training.checkpoint import PolicyBot

Rng = np.random.Generator

PHASES = {
    "start": (rules.PHASE_START,),
    "number": (rules.PHASE_NUMBER, rules.PHASE_PLACE),
    "knock": (rules.PHASE_KNOCK,),
    "swap": (rules.PHASE_SWAP,),
    "peek": (rules.PHASE_PEEK,),
    "draw2": (rules.PHASE_DRAW2,),
}
POWER_VALUE = 4.5
"""Points an oracle counts for a power card in a hand (it is replaced by a random card)."""
KEPT_VALUE = 3.3
"""Mean points of a hidden card its owner has seen and kept, in games of heuristic bots
(the other hidden cards average about 4.6; measured for ``ratcat_pimc_knock``'s kept-card
belief)."""

Chooser = Callable[[rules.State, int, np.ndarray, np.ndarray, int, np.random.Generator], int]
"""(state, seat, observation, mask, heuristic's action, the seat's generator) -> the action
played."""


class Line(NamedTuple):
    """One line of the study: the seat's win rate and its rounds."""

    win_rate: float
    edge: float
    """Mean per round of (mean points of the other live hands - the seat's points)."""
    edge_ci: float
    """Half-width of the edge's 95% interval."""
    points: float
    """The seat's mean points per round."""
    rounds: float
    """Rounds per game."""

    def row(self) -> str:
        """The line's figures, under :data:`HEADER`."""
        return (
            f"{100 * self.win_rate:5.1f}%  {self.edge:+.2f} +- {self.edge_ci:.2f}  "
            f"{self.points:6.2f}  {self.rounds:5.1f}"
        )


HEADER = f"{'player in one seat':55s}  wins  edge/round        points  rounds"


def lineup(player: Bot, seat: int, num_players: int = 4) -> list[Bot]:
    """Heuristic bots in every seat but ``seat``, where ``player`` sits."""
    return [player if q == seat else HeuristicBot() for q in range(num_players)]


def play(
    chooser: Chooser,
    games: int,
    seed: int,
    handicap: float = 0.0,
    ceilings: bool = False,
    players: int = 4,
) -> Line:
    """``chooser`` in seat ``g % players`` of game ``g`` (seed ``seed + g``) against
    heuristic bots in the other seats.

    The games are driven (:func:`studies.harness.drive`: the chooser reads the true table),
    by the one seeding rule: with a chooser that keeps the heuristic's action, game ``g`` is
    ``play_game(game, heuristic bots in every seat, seed + g)``. ``handicap`` points come off the
    seat's score in every round it plays (taken off its total as the round is dealt, so
    eliminations see them): what a steady edge of that many points per round is worth.
    ``ceilings``: the env's ``owner_ceilings`` option (the heuristic bots read the
    observation without it; the same games).
    """
    game = RatATatCat(num_players=players, target_score=100, owner_ceilings=ceilings)
    score = 0.0
    edges: list[float] = []
    points: list[int] = []
    rounds = 0
    for g in range(games):
        one = _OneSeat(game, chooser, g % players, handicap)
        final = drive(game, seed + g, one.choose, on_step=one.on_step)
        edges += one.edges
        points += one.points
        rounds += final.round_index + 1
        score += win_share(final.winners, one.seat)
    edge, (low, high) = mean_interval(edges)
    return Line(score / games, edge, (high - low) / 2, float(np.mean(points)), rounds / games)


class _OneSeat:
    """One game of :func:`play`: the chooser in ``seat`` on the heuristic's play, the
    handicap, and the seat's rounds (its edge and points in every round it plays)."""

    def __init__(self, game: RatATatCat, chooser: Chooser, seat: int, handicap: float) -> None:
        self.game, self.chooser, self.seat, self.handicap = game, chooser, seat, handicap
        self.view = game.observer(game.observation_kind)
        self.heuristic = HeuristicBot()
        self.heuristic.bind(self.view)
        self.dealt = -1
        self.live = [True] * game.num_players
        self.edges: list[float] = []
        self.points: list[int] = []

    def choose(self, state: rules.State, p: int, rng: Rng) -> int:
        seat = self.seat
        if state.round_index != self.dealt:  # a new round: its players, the handicap
            self.dealt, self.live = state.round_index, state.active[:]
            if self.handicap:
                state.totals[seat] -= self.handicap  # type: ignore[call-overload]
        obs, mask = self.view.observe(state, p), self.game.legal_mask(state, p)
        action = int(self.heuristic.act(obs, mask, rng))
        return self.chooser(state, seat, obs, mask, action, rng) if p == seat else action

    def on_step(self, game: Any, state: rules.State, actions: Any, rewards: Any) -> None:
        seat = self.seat
        if rewards is not None and self.live[seat]:  # a round the seat played ended
            last = state.last_round_points
            others = [last[q] for q in range(len(last)) if q != seat and self.live[q]]
            self.edges.append(float(np.mean(others)) - last[seat])
            self.points.append(last[seat])


def true_hand(state: rules.State, player: int) -> float:
    """The real points of a hand (the oracle's view)."""
    kinds = [rules.KIND[c] for c in state.hands[player]]
    return float(sum(k if k < rules.NUM_NUMBER_KINDS else POWER_VALUE for k in kinds))


def estimated_hand(obs: np.ndarray, offset: int) -> float:
    """The heuristic bot's estimate of the hand ``offset`` seats on, from the observation."""
    lay = layout_for_size(len(obs))
    codes = slot_codes(obs, lay.num_players)
    unknown = HeuristicBot().unknown_value(obs[lay.unseen : lay.unseen + rules.NUM_KINDS])
    return float(sum(float(c) if c < rules.NUM_NUMBER_KINDS else unknown for c in codes[offset]))


def owner_known_hand(state: rules.State, obs: np.ndarray, seat: int, q: int) -> float:
    """Player ``q``'s hand as far as ``q`` itself knows it: the real value of every card
    ``q`` has seen (power cards :data:`POWER_VALUE`), the seat's own estimate
    (:func:`estimated_hand`) of the others.

    All that ``q``'s play can tell about its hand is in the cards ``q`` knows, so an
    oracle on this hand bounds what reading ``q``'s play can recover.
    """
    lay = layout_for_size(len(obs))
    offset = (q - seat) % state.num_players
    codes = slot_codes(obs, lay.num_players)[offset]
    unknown = HeuristicBot().unknown_value(obs[lay.unseen : lay.unseen + rules.NUM_KINDS])
    total = 0.0
    for s in range(rules.SLOTS):
        if state.know[q, q, s] < rules.NUM_KINDS:  # q has seen the card: the truth
            kind = rules.KIND[state.hands[q][s]]
            total += float(kind) if kind < rules.NUM_NUMBER_KINDS else POWER_VALUE
        else:  # what the seat knows of it, or its mean
            total += float(codes[s]) if codes[s] < rules.NUM_NUMBER_KINDS else unknown
    return total


def oracle_knock(own: str, others: str, margin: float) -> Chooser:
    """Knock when the own hand is ``margin`` below every other live hand (see module doc).

    ``others`` "true" reads the other hands, "owner-known" each as far as its owner knows
    it (:func:`owner_known_hand`), "estimate" the seat's estimate.
    """

    def choose(
        state: rules.State, seat: int, obs: np.ndarray, mask: np.ndarray, a: int, rng: Rng
    ) -> int:
        if not mask[rules.ACTION_KNOCK]:
            return a
        n = state.num_players
        mine = true_hand(state, seat) if own == "true" else estimated_hand(obs, 0)
        hand: dict[str, Callable[[int], float]] = {
            "true": lambda q: true_hand(state, q),
            "owner-known": lambda q: owner_known_hand(state, obs, seat, q),
            "estimate": lambda q: estimated_hand(obs, (q - seat) % n),
        }
        rivals = [hand[others](q) for q in range(n) if q != seat and state.active[q]]
        knock = mine <= min(rivals) - margin
        return rules.ACTION_KNOCK if knock else rules.ACTION_NO_KNOCK

    return choose


def belief_swap(belief: str, minimum: float = 1.0) -> Chooser:
    """At a Swap, give the own card with the highest estimated value for the other live
    player's card with the lowest, when that gains more than ``minimum`` points
    (:func:`~ratenvs.rat_a_tat_cat.bots.swap_by_estimate`).

    ``belief`` "oracle" reads the other players' real cards; "owner-known" those their
    owners have seen (the others as "kept-card" does not: what the seat knows, or the mean
    of the unseen number cards); "kept-card" sees what the seat knows, counts a card it
    does not know :data:`KEPT_VALUE` when the card's owner has seen it and the mean of the
    unseen number cards otherwise.
    """

    def choose(
        state: rules.State, seat: int, obs: np.ndarray, mask: np.ndarray, a: int, rng: Rng
    ) -> int:
        if state.phase != rules.PHASE_SWAP:
            return a
        lay = layout_for_size(len(obs))
        codes = slot_codes(obs, lay.num_players)
        unknown = HeuristicBot().unknown_value(obs[lay.unseen : lay.unseen + rules.NUM_KINDS])
        own = HeuristicBot().slot_values(codes, unknown)
        n = state.num_players
        est = np.full((n, rules.SLOTS), unknown)
        est[0] = own
        for offset in range(1, n):
            q = (seat + offset) % n
            for s in range(rules.SLOTS):
                owner_knows = state.know[q, q, s] < rules.NUM_KINDS
                if belief == "oracle" or (belief == "owner-known" and owner_knows):
                    kind = rules.KIND[state.hands[q][s]] if state.active[q] else 0
                    est[offset, s] = float(kind) if kind < rules.NUM_NUMBER_KINDS else POWER_VALUE
                elif codes[offset, s] < rules.NUM_NUMBER_KINDS:
                    est[offset, s] = float(codes[offset, s])
                elif belief == "kept-card" and state.know[q, q, s] < rules.NUM_NUMBER_KINDS:
                    est[offset, s] = KEPT_VALUE
        return swap_by_estimate(est, mask, minimum)

    return choose


def bot_plays(bot: Bot) -> Chooser:
    """A whole bot in the seat (its randomness: the seat's generator)."""

    def choose(
        state: rules.State, seat: int, obs: np.ndarray, mask: np.ndarray, a: int, rng: Rng
    ) -> int:
        if hasattr(bot, "bind"):  # the study's games: out at 100
            lay = layout_for_size(len(obs))
            bot.bind(_observer(lay.has_ceilings, lay.num_players))
        return int(bot.act(obs, mask, rng))

    return choose


@lru_cache(maxsize=4)
def _observer(ceilings: bool, players: int = 4) -> Any:
    """The knowledge observer of the study's game (``players`` players, out at 100)."""
    game = RatATatCat(num_players=players, target_score=100, owner_ceilings=ceilings)
    return game.observer("knowledge")


def chain(*choosers: Chooser) -> Chooser:
    """Each chooser in turn gets the action the previous one chose."""

    def choose(
        state: rules.State, seat: int, obs: np.ndarray, mask: np.ndarray, a: int, rng: Rng
    ) -> int:
        for c in choosers:
            a = c(state, seat, obs, mask, a, rng)
        return a

    return choose


def agent_plays(agent: Bot, decisions: Sequence[str]) -> Chooser:
    """The agent makes the ``decisions`` kinds of decision; the heuristic the others."""
    phases = {ph for d in decisions for ph in PHASES[d]}

    def choose(
        state: rules.State, seat: int, obs: np.ndarray, mask: np.ndarray, a: int, rng: Rng
    ) -> int:
        return int(agent.act(obs, mask, rng)) if state.phase in phases else a

    return choose


CARD_PLAY = ["start", "number", "swap", "peek", "draw2"]
"""Every kind of decision but the knock."""


def agent_card_play(checkpoint: str) -> Chooser:
    """The card play (:data:`CARD_PLAY`) of the agent saved in ``checkpoint``."""
    from training.checkpoint import load_checkpoint

    return agent_plays(load_checkpoint(checkpoint, game="rat_a_tat_cat").bot(), CARD_PLAY)


KnockGain = Callable[[rules.State, int, np.ndarray, Rng], float]
"""(state, seat, observation, the seat's generator) -> the estimated gain of knocking now."""


def knock_on_gain(gain: KnockGain, card_play: Chooser | None = None) -> Chooser:
    """Knock when ``gain`` is positive; every other decision by ``card_play`` (None: the
    heuristic's)."""

    def choose(
        state: rules.State, seat: int, obs: np.ndarray, mask: np.ndarray, a: int, rng: Rng
    ) -> int:
        if mask[rules.ACTION_KNOCK]:
            knock = gain(state, seat, obs, rng) > 0
            return rules.ACTION_KNOCK if knock else rules.ACTION_NO_KNOCK
        return a if card_play is None else card_play(state, seat, obs, mask, a, rng)

    return choose


def knock_bias(agent: PolicyBot, bias: float) -> Chooser:
    """The agent's own play with ``bias`` added to its knock logit."""

    def choose(
        state: rules.State, seat: int, obs: np.ndarray, mask: np.ndarray, a: int, rng: Rng
    ) -> int:
        logits = agent.logits(obs)
        logits[rules.ACTION_KNOCK] += bias
        return int(np.argmax(np.where(mask > 0, logits, -np.inf)))

    return choose


def ensemble(agents: Sequence[PolicyBot]) -> Chooser:
    """The legal action with the highest mean probability over ``agents``' policies."""

    def choose(
        state: rules.State, seat: int, obs: np.ndarray, mask: np.ndarray, a: int, rng: Rng
    ) -> int:
        total = np.zeros(len(mask))
        for agent in agents:
            logits = np.where(mask > 0, agent.logits(obs), -np.inf)
            probs = np.exp(logits - logits.max())
            total += probs / probs.sum()
        return int(np.argmax(total))

    return choose


def study_parser(doc: str, games: int, seed: int, agent: str) -> argparse.ArgumentParser:
    """The command line of a study of one seat against heuristic bots: ``--games``,
    ``--seed`` (game ``g`` is seeded ``seed + g``) and ``--agent`` (a checkpoint)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--games", type=int_in(1), default=games)
    parser.add_argument("--seed", type=int, default=seed, help="game g is seeded seed + g")
    parser.add_argument("--agent", help=agent)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = study_parser(
        __doc__, 800, 70000, "checkpoint of an agent of --players players (elimination game)"
    )
    parser.add_argument(
        "--players", type=int, choices=range(2, 7), default=4, help="players at the table"
    )
    parser.add_argument("--margin", type=float, default=3.0)
    parser.add_argument(
        "--handicaps",
        type=float,
        nargs="*",
        default=[1.0, 2.0],
        help="lines of the heuristic bot with this many points off every round",
    )
    parser.add_argument(
        "--knock-biases",
        type=float,
        nargs="*",
        default=[],
        help="lines of the agent with this added to its knock logit (with --agent)",
    )
    parser.add_argument(
        "--ensemble",
        nargs="*",
        default=[],
        help="a line of the agent and these checkpoints averaged (with --agent)",
    )
    parser.add_argument(
        "--only",
        nargs="*",
        default=[],
        help="play only the lines whose name contains one of these words",
    )
    args = parser.parse_args(argv)
    heuristic: Chooser = lambda s, seat, o, m, a, rng: a  # noqa: E731
    # (name, chooser, handicap, played on the owner_ceilings observation)
    lines: list[tuple[str, Chooser, float, bool]] = [
        ("heuristic", heuristic, 0.0, False),
        ("ceiling bot (heuristic moves)", bot_plays(CeilingBot()), 0.0, True),
    ]
    for b in args.handicaps:
        lines.append((f"heuristic, {b:g} points off every round", heuristic, b, False))
    for own, others in (("true", "true"), ("true", "estimate"), ("estimate", "true")):
        name = f"oracle knock (own {own}, others {others})"
        lines.append((name, oracle_knock(own, others, args.margin), 0.0, False))
    name = "oracle knock (both estimated)"
    lines.append((name, oracle_knock("estimate", "estimate", args.margin), 0.0, False))
    if args.agent:
        from training.checkpoint import load_checkpoint

        agent = load_checkpoint(args.agent, game="rat_a_tat_cat").bot()
        lay = layout_for_size(agent.spec.observation_size)
        if lay.num_players != args.players:
            parser.error(f"--agent plays {lay.num_players} players, not --players {args.players}")
        wide = lay.has_ceilings  # the agent's own
        agent_lines: list[tuple[str, Chooser]] = []
        for decisions in (
            list(PHASES),
            ["knock"],
            ["start"],
            ["start", "knock"],
            CARD_PLAY,
        ):
            name = f"agent plays {'+'.join(decisions)}"
            agent_lines.append((name, agent_plays(agent, decisions)))
        everything = agent_plays(agent, list(PHASES))
        seen = oracle_knock("estimate", "true", args.margin)
        agent_lines += [
            ("agent, oracle knock (others seen)", chain(everything, seen)),
            ("agent, oracle swap (others seen)", chain(everything, belief_swap("oracle"))),
            ("agent, oracle knock, oracle swap", chain(everything, seen, belief_swap("oracle"))),
            ("agent, kept-card swap", chain(everything, belief_swap("kept-card"))),
        ]
        known = oracle_knock("estimate", "owner-known", args.margin)
        agent_lines += [
            ("agent, owner-known knock", chain(everything, known)),
            ("agent, owner-known swap", chain(everything, belief_swap("owner-known"))),
            (
                "agent, owner-known knock and swap",
                chain(everything, known, belief_swap("owner-known")),
            ),
        ]
        agent_lines += [
            (f"agent, knock logit {b:+g}", knock_bias(agent, b)) for b in args.knock_biases
        ]
        if args.ensemble:
            others = [load_checkpoint(c, game="rat_a_tat_cat").bot() for c in args.ensemble]
            name = f"ensemble of the agent and {len(others)} more"
            agent_lines.append((name, ensemble([agent, *others])))
        lines += [(name, chooser, 0.0, wide) for name, chooser in agent_lines]
        if not wide:  # the ceiling bot's base reads the plain observation
            lines.append(
                ("ceiling bot (agent moves)", bot_plays(CeilingBot(base=agent)), 0.0, True)
            )
    if args.only:
        lines = [line for line in lines if any(w in line[0] for w in args.only)]
    print(f"{args.games} games per line, seeds {args.seed}..{args.seed + args.games - 1}")
    print(HEADER)
    for name, chooser, handicap, ceilings in lines:
        t0 = time.perf_counter()
        r = play(chooser, args.games, args.seed, handicap, ceilings=ceilings, players=args.players)
        print(f"{name:55s} {r.row()}   ({time.perf_counter() - t0:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
