"""OpenSpiel: every game as a pyspiel Python game, built on the Game interface.

Needs OpenSpiel: ``pip install "ratenvs[openspiel]"``. Importing this module registers the
three games with ``pyspiel.register_game`` (:func:`register` again is harmless)::

    import pyspiel
    import ratenvs.integrations.openspiel  # noqa: F401 (registers the games)

    game = pyspiel.load_game("ratenvs_rat_a_tat_cat", {"num_players": 2})

The games (``ratenvs_<name>``; their parameters are the game's options, declared once in
its ``OptionSpec``; an optional integer option off, ``None``, is the parameter ``0``):

- ``ratenvs_catz_ratz_batz``: sequential, perfect information, explicit chance: each roll
  is one chance node whose outcomes are the face counts of the rolled dice (3, 5, 7, Cat,
  Bat, Rat) with their multinomial probabilities. It needs a turn limit (``turns``): an
  OpenSpiel game has a longest length.
- ``ratenvs_rat_a_tat_cat``: sequential, imperfect information, explicit chance: a shuffle
  is drawn one card at a time, each chance outcome a kind of card (0 - 9, peek, swap,
  draw2) with probability (cards of that kind left) / (cards left); a card turned back into
  the deck goes to a position drawn uniformly. The information state (string and tensor) is
  the seat's ``knowledge`` view: every card the seat has seen and where it is, and the
  counts of the cards it has not located; the string carries every entry the tensor does.
  It is a summary of the seat's history, not the history itself: two histories the seat
  could tell apart (its own earlier choices, discards since covered) may share it, so it
  is not perfect recall in OpenSpiel's sense, and the guarantees of CFR-family methods,
  which assume perfect recall, do not hold for it. The observation is the ``memoryless``
  view (so the ``observation`` option is not a parameter here); ``resample_from_infostate``
  deals the hidden cards again with the game's resampler (``Game.resample``). It needs a
  rounds cap (``rounds``); ``max_game_length`` bounds a game but for Draw 2 chains after
  a reshuffle (a bound holding with very high probability, not a hard one).
- ``ratenvs_ratto_zakko``: simultaneous moves (one reaction tick, or the winner's
  relocation, per joint action: a seat that does not act may only wait), sampled chance
  (the perception glimpses are continuous): every state carries its own numpy generator,
  ``numpy.random.default_rng(rng_seed)`` (the game our envs deal for ``seed=rng_seed``: every
  initial state of such a game is that game) or fresh entropy for ``rng_seed=-1`` (the
  default), drawn when the state is made. A clone carries a copy of it, so a clone's
  future is its original's, a new state's clone too. OpenSpiel
  cannot serialise a Python game's sampled chance with ``serialize_game_and_state``;
  ``state.serialize()`` and ``game.deserialize_state`` keep the generator. The
  observation is the seat view of the ``observation`` option.

How explicit chance rides on the rules without a copy of them: the pending step (the deal,
or a player's action) is applied to a copy of the state before it, with a chance source
that plays back the chance outcomes chosen so far and, at the first draw it has no outcome
for, stops the step (:class:`ChanceNeeded`, carrying that draw's outcomes and their
probabilities). The pyspiel state is then a chance node; once its outcome is applied, the
step is run again from the saved state with one outcome more, until it completes. A draw
with a single outcome (the last kind of card left) is no chance node. Ratto Zakko draws
through the state's generator directly.

:class:`AgentBot` plays a ratenvs :class:`~ratenvs.common.bots.Bot` (a shipped agent,
a scripted bot) as a ``pyspiel.Bot``.
"""

from __future__ import annotations

import copy
import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - exercised where OpenSpiel is missing
    raise ImportError(
        'ratenvs.integrations.openspiel needs OpenSpiel: pip install "ratenvs[openspiel]" '
        f"(missing: {exc.name})"
    ) from exc

from ratenvs.common.game import Game

__all__ = [
    "GAME_NAMES",
    "AgentBot",
    "ChanceNeeded",
    "ChanceNode",
    "RatenvsGame",
    "RatenvsState",
    "register",
    "sample_chance",
    "short_name",
]

PREFIX = "ratenvs_"
"""pyspiel names are ``ratenvs_<game>``."""
RNG_SEED = "rng_seed"
"""Ratto Zakko's extra parameter: the seed of its sampled chance (-1: fresh entropy)."""
NO_VALUE = 0
"""The parameter value of an optional integer option that is off (``None``)."""


def short_name(game: str) -> str:
    """The pyspiel name of a ratenvs game: ``ratenvs_<game>``."""
    return PREFIX + game


# ------------------------------------------------------------------ explicit chance
@dataclass(frozen=True)
class ChanceNode:
    """The draw the rules asked for and the pyspiel state has not decided: its kind
    (``"multinomial"``, ``"card"`` or ``"position"``), its outcomes ``(id, probability)``
    and the name of each outcome id."""

    kind: str
    outcomes: tuple[tuple[int, float], ...]
    names: dict[int, str]
    request: tuple[Any, ...]
    """The draw as the rules asked for it: ``("multinomial", n, pvals)``,
    ``("permutation", n)`` or ``("integers", high)``."""
    items: tuple[int, ...] = ()
    """A shuffle's things, by kind, in the order the permutation indexes them."""
    drawn: int = 0
    """How many things of this shuffle are drawn already (0: the draw's first node)."""


class ChanceNeeded(Exception):
    """A step stopped at a draw the pyspiel state has no outcome for (internal signal)."""

    def __init__(self, node: ChanceNode) -> None:
        super().__init__(node.kind)
        self.node = node


@cache
def _compositions(n: int, k: int) -> tuple[tuple[int, ...], ...]:
    """Every way ``n`` dice fall into ``k`` faces (counts per face), in a fixed order: the
    outcome id of a roll is its index here."""
    out = []
    for bars in itertools.combinations(range(n + k - 1), k - 1):
        edges = (-1, *bars, n + k - 1)
        out.append(tuple(edges[i + 1] - edges[i] - 1 for i in range(k)))
    return tuple(out)


@cache
def _composition_index(n: int, k: int) -> dict[tuple[int, ...], int]:
    return {c: i for i, c in enumerate(_compositions(n, k))}


@cache
def _multinomial_outcomes(n: int, pvals: tuple[float, ...]) -> tuple[tuple[int, float], ...]:
    """``(id, probability)`` of every roll of ``n`` dice with face probabilities ``pvals``
    (outcomes of probability 0 left out)."""
    out = []
    for index, counts in enumerate(_compositions(n, len(pvals))):
        log_p = math.lgamma(n + 1)
        for c, p in zip(counts, pvals):
            if c:
                if p <= 0:
                    break
                log_p += c * math.log(p) - math.lgamma(c + 1)
        else:
            out.append((index, math.exp(log_p)))
    total = sum(p for _, p in out)
    return tuple((i, p / total) for i, p in out)


Permuted = Callable[[int, Any], Sequence[int]]
"""What a game's shuffle of ``n`` things permutes, as their kinds: ``permuted(n, live)``
(``live``: the state being played, None during the set-up)."""


class _ExplicitChance:
    """A :class:`~ratenvs.common.game.Chance` that plays back chosen outcome ids and stops
    the step (:class:`ChanceNeeded`) at the first draw it has none for."""

    def __init__(
        self,
        outcomes: Sequence[int],
        permuted: Permuted | None,
        kind_names: Sequence[str],
        live: Any = None,
    ) -> None:
        self.outcomes = outcomes
        self.position = 0
        self.permuted = permuted
        self.kind_names = kind_names
        self.live = live

    def _take(self) -> int | None:
        if self.position >= len(self.outcomes):
            return None
        self.position += 1
        return int(self.outcomes[self.position - 1])

    def multinomial(self, n: int, pvals: Any) -> np.ndarray:
        k = len(pvals)
        outcomes = _multinomial_outcomes(int(n), tuple(float(p) for p in pvals))
        if len(outcomes) == 1:
            return np.array(_compositions(int(n), k)[outcomes[0][0]], dtype=np.int64)
        chosen = self._take()
        if chosen is None:
            names = {i: "roll " + _counts_text(_compositions(int(n), k)[i]) for i, _ in outcomes}
            raise ChanceNeeded(
                ChanceNode("multinomial", outcomes, names, ("multinomial", int(n), tuple(pvals)))
            )
        return np.array(_compositions(int(n), k)[chosen], dtype=np.int64)

    def integers(self, high: int) -> np.int64:
        high = int(high)
        if high == 1:
            return np.int64(0)
        chosen = self._take()
        if chosen is None:
            names = {i: f"position {i} of {high}" for i in range(high)}
            outcomes = tuple((i, 1 / high) for i in range(high))
            raise ChanceNeeded(ChanceNode("position", outcomes, names, ("integers", high)))
        return np.int64(chosen)

    def permutation(self, n: int) -> np.ndarray:
        if self.permuted is None:
            raise TypeError("this game's rules shuffle nothing explicit chance can enumerate")
        kinds = [int(k) for k in self.permuted(int(n), self.live)]
        if len(kinds) != n:
            raise RuntimeError(f"a shuffle of {n} things, but {len(kinds)} kinds were given")
        left = Counter(kinds)
        order: list[int] = []
        while len(order) < n:
            present = sorted(k for k, c in left.items() if c)
            if len(present) == 1:
                order += present * left[present[0]]
                break
            chosen = self._take()
            if chosen is None:
                remaining = n - len(order)
                outcomes = tuple((k, left[k] / remaining) for k in present)
                names = {k: f"card {self.kind_names[k]}" for k in present}
                raise ChanceNeeded(
                    ChanceNode(
                        "card", outcomes, names, ("permutation", n), tuple(kinds), len(order)
                    )
                )
            order.append(chosen)
            left[chosen] -= 1
        # the i-th thing drawn is the lowest unused index of its kind (things of one kind
        # are alike: every order of them gives the same game)
        by_kind: dict[int, list[int]] = {}
        for index in range(n - 1, -1, -1):
            by_kind.setdefault(kinds[index], []).append(index)
        return np.array([by_kind[k].pop() for k in order], dtype=np.int64)

    def standard_normal(self, size: Any = None) -> Any:
        raise TypeError("a continuous draw has no explicit outcomes (a sampled-chance game)")

    def random(self) -> float:
        raise TypeError("a continuous draw has no explicit outcomes (a sampled-chance game)")


def _counts_text(counts: Sequence[int]) -> str:
    return " ".join(f"{name}x{c}" for name, c in zip(_CATZ_FACES, counts) if c) or "none"


def sample_chance(state: RatenvsState, rng: Any) -> list[int]:
    """Draw the pending draw of ``state`` (at its first chance node) from ``rng`` exactly as
    the rules would (one ``multinomial``, ``permutation`` or ``integers`` call) and return
    the chance outcomes that give it, in order (a shuffle is one outcome per card). With
    the generator our env seeds, a pyspiel game follows the env's game of that seed."""
    node = state.chance_node()
    if node.drawn:
        raise ValueError("sample_chance at a shuffle's later card: call it at the first one")
    kind, *args = node.request
    if kind == "multinomial":
        counts = tuple(int(x) for x in rng.multinomial(args[0], np.asarray(args[1])))
        return [_composition_index(sum(counts), len(counts))[counts]]
    if kind == "integers":
        return [int(rng.integers(args[0]))]
    order = [node.items[int(i)] for i in rng.permutation(args[0])]
    left = Counter(order)
    out = []
    for k in order:
        if sum(1 for c in left.values() if c) == 1:
            break
        out.append(k)
        left[k] -= 1
    return out


# ------------------------------------------------------------------ the games
@dataclass(frozen=True)
class _Spec:
    """How one ratenvs game is played as a pyspiel game."""

    game: str
    dynamics: Any
    chance_mode: Any
    information: Any
    max_chance_outcomes: Callable[[Game], int]
    max_game_length: Callable[[Game], int]
    utility: Callable[[Game], tuple[float, float, float | None]]
    """(min, max, sum or None) of a game's returns."""
    action_name: Callable[[Game, int], str]
    info_state_kind: str | None
    observation_kind: Callable[[Game], str]
    permuted: Permuted | None = None
    kind_names: tuple[str, ...] = ()
    not_parameters: tuple[str, ...] = ()
    needs: Callable[[Game], str | None] = lambda game: None
    """Why a game with these options cannot be an OpenSpiel game (None: it can)."""
    max_chance_nodes: Callable[[Game], int] = lambda game: 0
    """The most chance nodes a game's history holds (OpenSpiel's
    ``max_chance_nodes_in_history``; 0 for sampled chance, which the history does not
    record)."""
    string_pieces: tuple[str, ...] = ()
    """Pieces of the observation its text view leaves out, added to every string as
    ``name: values`` lines, so that a string (the key of OpenSpiel's tabular methods) tells
    apart every two views its tensor does."""
    terminal_rewards: Callable[[Game], bool] = lambda game: game.reward_mode == "win"  # type: ignore[attr-defined]
    """The game rewards only at its end (OpenSpiel's TERMINAL reward model, which its
    MCTS needs); otherwise it rewards as it goes (REWARDS)."""


# ---- Catz, Ratz and Batz
_CATZ_FACES = ("3", "5", "7", "Cat", "Bat", "Rat")
_CATZ_KEEPS_PER_TURN = 40
"""Keeps counted per turn in ``max_game_length``: a turn is longer only if 40 rerolls in a
row set no die aside (probability below 2**-40); the rules bound it by nothing."""


def _catz_length(game: Game) -> int:
    return game.num_players * game.turns * (1 + _CATZ_KEEPS_PER_TURN)  # type: ignore[attr-defined]


def _catz_utility(game: Game) -> tuple[float, float, float | None]:
    from ratenvs.catz_ratz_batz.observe import max_total

    if game.reward_mode == "win":  # type: ignore[attr-defined]
        return _win_utility(game.num_players)
    return 0.0, float(max_total(game.turns, game.target_score)), None  # type: ignore[attr-defined]


def _catz_action(game: Game, action: int) -> str:
    return ("keep 3", "keep 5", "keep 7", "roll")[action]


def _win_utility(n: int) -> tuple[float, float, float | None]:
    """``common.rewards.win_rewards``: +1 for a sole winner, -1 shared by the losers."""
    return -1.0, 1.0, 0.0


def _catz_needs(game: Game) -> str | None:
    if game.turns is None:  # type: ignore[attr-defined]
        return "needs a turn limit, 'turns' >= 1 (an OpenSpiel game has a longest length)"
    return None


# ---- Rat-a-Tat Cat
def _ratcat_permuted(n: int, live: Any) -> list[int]:
    from ratenvs.rat_a_tat_cat.rules import DECK_SIZE, KIND

    if n == DECK_SIZE:  # the deal: the card ids 0..53
        return list(KIND)
    # a reshuffle (the draw pile is empty) or the end-of-round merge: draw pile + discards
    return [KIND[c] for c in [*live.draw_pile, *live.discard_pile]]


def _ratcat_chance_outcomes(game: Game) -> int:
    """The most outcomes of one chance node: the places a card turned back at the deal can
    go, among the deck's other cards (more than the kinds a card can be)."""
    from ratenvs.rat_a_tat_cat.rules import DECK_SIZE

    return DECK_SIZE + 1


def _ratcat_length(game: Game) -> int:
    # a turn: draw or take, at most 3 Draw 2s each drawing again, place or discard, knock
    return game.rounds * game.max_turns_per_round * 10  # type: ignore[attr-defined]


_RATCAT_TURNED_BACK = 20
"""Power cards turned back at a deal counted in the chance bound: the first discard is
turned again while it is a power card (9 of 54), so more than 20 in a row has a chance
below 1e-13; the rules bound it by nothing."""


def _ratcat_chance_nodes(game: Game) -> int:
    """Chance nodes of a round: the deal's shuffle (53 kinds to choose, the last is
    forced) and the places of the power cards it turns back; the reshuffles while it is
    played (a shuffle's nodes are at most the cards drawn from that pile, or 53 for the
    last); at its end, up to one shuffle per power card in a hand (9) of the merged piles.
    A player's decisions draw at most one card each."""
    from ratenvs.rat_a_tat_cat.rules import DECK_SIZE

    per_round = (DECK_SIZE - 1) * (1 + 1 + 9) + _RATCAT_TURNED_BACK
    return game.rounds * (per_round + _ratcat_length(game) // game.rounds)  # type: ignore[attr-defined]


def _ratcat_utility(game: Game) -> tuple[float, float, float | None]:
    from ratenvs.rat_a_tat_cat.rules import POINTS_SCALE

    mode = game.reward_mode  # type: ignore[attr-defined]
    per_round = 4 * 9 / POINTS_SCALE  # four 9s at most in a hand
    rounds = game.rounds  # type: ignore[attr-defined]
    if mode == "win":
        return _win_utility(game.num_players)
    if mode == "points":
        return -per_round * rounds, 0.0, None
    low, high = -per_round * rounds, per_round * rounds
    if mode == "zero_sum_win":
        low, high = low - 1.0, high + 1.0
    return low, high, 0.0


def _ratcat_action(game: Game, action: int) -> str:
    from ratenvs.rat_a_tat_cat import rules as r

    if action == r.ACTION_DRAW:
        return "draw"
    if action == r.ACTION_TAKE_DISCARD:
        return "take discard"
    if r.ACTION_REPLACE <= action < r.ACTION_REPLACE + r.SLOTS:
        return f"replace slot {action - r.ACTION_REPLACE}"
    if action == r.ACTION_DISCARD:
        return "discard"
    if r.ACTION_PEEK <= action < r.ACTION_PEEK + r.SLOTS:
        return f"peek slot {action - r.ACTION_PEEK}"
    fixed = {
        r.ACTION_USE_DRAW2: "use draw2",
        r.ACTION_DECLINE: "decline",
        r.ACTION_KNOCK: "knock",
        r.ACTION_NO_KNOCK: "no knock",
    }
    if action in fixed:
        return fixed[action]
    own, offset, theirs = r.decode_swap(action)
    return f"swap own slot {own} with slot {theirs} of the player {offset} to the left"


def _ratcat_needs(game: Game) -> str | None:
    if game.rounds is None:  # type: ignore[attr-defined]
        return "needs a rounds cap, 'rounds' >= 1 (an OpenSpiel game has a longest length)"
    return None


# ---- Ratto Zakko
def _ratto_length(game: Game) -> int:
    # every card is open at most window_ticks ticks, then at most two relocation choices
    return game.total_cards * (game.window_ticks + 2)  # type: ignore[attr-defined]


def _ratto_utility(game: Game) -> tuple[float, float, float | None]:
    if game.reward_mode == "win":  # type: ignore[attr-defined]
        return _win_utility(game.num_players)
    cards = float(game.total_cards)  # type: ignore[attr-defined]
    return -cards, cards, None


def _ratto_action(game: Game, action: int) -> str:
    from ratenvs.ratto_zakko import rules as r

    if action == r.ACTION_WAIT:
        return "wait"
    if action < r.ACTION_RELOCATE_FIRST:
        return r.RESPONSES[action - r.ACTION_RESPONSE_FIRST]
    choice = action - r.ACTION_RELOCATE_FIRST
    if choice == r.LEAVE_BOTH:
        return "relocate: leave"
    if choice < r.RELOCATE_SHAKER_FIRST:
        return f"relocate: fly under {r.FOODS[choice]}"
    return f"relocate: shaker on {r.FOODS[choice - r.RELOCATE_SHAKER_FIRST]}"


def _rat_kind_names() -> tuple[str, ...]:
    from ratenvs.rat_a_tat_cat.rules import CARD_NAMES

    return tuple(CARD_NAMES)


_SPECS: dict[str, _Spec] = {}


def _specs() -> dict[str, _Spec]:
    if _SPECS:
        return _SPECS
    t = pyspiel.GameType
    _SPECS["catz_ratz_batz"] = _Spec(
        "catz_ratz_batz",
        t.Dynamics.SEQUENTIAL,
        t.ChanceMode.EXPLICIT_STOCHASTIC,
        t.Information.PERFECT_INFORMATION,
        max_chance_outcomes=lambda g: len(_compositions(9, 6)),
        max_game_length=_catz_length,
        max_chance_nodes=_catz_length,  # a roll before every decision, at most
        utility=_catz_utility,
        action_name=_catz_action,
        info_state_kind="knowledge",
        observation_kind=lambda g: "knowledge",
        needs=_catz_needs,
    )
    _SPECS["rat_a_tat_cat"] = _Spec(
        "rat_a_tat_cat",
        t.Dynamics.SEQUENTIAL,
        t.ChanceMode.EXPLICIT_STOCHASTIC,
        t.Information.IMPERFECT_INFORMATION,
        max_chance_outcomes=_ratcat_chance_outcomes,
        max_game_length=_ratcat_length,
        max_chance_nodes=_ratcat_chance_nodes,
        utility=_ratcat_utility,
        action_name=_ratcat_action,
        info_state_kind="knowledge",
        observation_kind=lambda g: "memoryless",
        string_pieces=("unseen_counts", "draw_pool"),
        terminal_rewards=lambda g: g.reward_mode == "win" or g.rounds == 1,  # type: ignore[attr-defined]
        permuted=_ratcat_permuted,
        kind_names=_rat_kind_names(),
        not_parameters=("observation",),
        needs=_ratcat_needs,
    )
    _SPECS["ratto_zakko"] = _Spec(
        "ratto_zakko",
        t.Dynamics.SIMULTANEOUS,
        t.ChanceMode.SAMPLED_STOCHASTIC,
        t.Information.IMPERFECT_INFORMATION,
        max_chance_outcomes=lambda g: 0,
        max_game_length=_ratto_length,
        utility=_ratto_utility,
        action_name=_ratto_action,
        info_state_kind=None,
        observation_kind=lambda g: g.observation_kind,
    )
    return _SPECS


GAME_NAMES = ("catz_ratz_batz", "rat_a_tat_cat", "ratto_zakko")
"""The ratenvs games registered with OpenSpiel (``ratenvs_<name>``)."""


def _game_class(name: str) -> type[Game]:
    """The :class:`~ratenvs.common.game.Game` class of a game."""
    if name == "catz_ratz_batz":
        from ratenvs.catz_ratz_batz.rules import CatzRatzBatz

        return CatzRatzBatz
    if name == "rat_a_tat_cat":
        from ratenvs.rat_a_tat_cat.rules import RatATatCat

        return RatATatCat
    from ratenvs.ratto_zakko.rules import RattoZakko

    return RattoZakko


def _parameter_default(option: Any) -> Any:
    value = option.default
    if value is None:
        if option.kind != "int" or not option.optional or (option.low or 0) <= NO_VALUE:
            raise ValueError(f"option {option.name!r}: no pyspiel parameter for a None default")
        return NO_VALUE
    return value


def _parameter_specification(spec: _Spec) -> dict[str, Any]:
    options = _game_class(spec.game).options
    out = {
        name: _parameter_default(o)
        for name, o in options.items()
        if name not in spec.not_parameters
    }
    if spec.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
        out[RNG_SEED] = -1
    return out


def _game_type(spec: _Spec) -> Any:
    cls = _game_class(spec.game)
    low = cls.options["num_players"].low
    high = cls.options["num_players"].high
    info = spec.info_state_kind is not None
    return pyspiel.GameType(
        short_name=short_name(spec.game),
        long_name=f"{cls.title} (ratenvs)",
        dynamics=spec.dynamics,
        chance_mode=spec.chance_mode,
        information=spec.information,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,  # the per-game value: RatenvsGame
        reward_model=pyspiel.GameType.RewardModel.REWARDS,
        max_num_players=high,
        min_num_players=low,
        provides_information_state_string=info,
        provides_information_state_tensor=info,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification=_parameter_specification(spec),
    )


class RatenvsGame(pyspiel.Game):
    """A ratenvs game (``ours``, its :class:`~ratenvs.common.game.Game`) as a pyspiel game;
    ``params`` are its options (``0`` for an optional integer option that is off) and, for
    Ratto Zakko, ``rng_seed``."""

    def __init__(self, name: str, params: dict[str, Any] | None = None) -> None:
        self.spec = _specs()[name]
        params = dict(params or {})
        spec_params = _parameter_specification(self.spec)
        unknown = sorted(set(params) - set(spec_params))
        if unknown:
            raise ValueError(
                f"{short_name(name)}: unknown parameter {unknown[0]!r}; "
                f"the parameters are {sorted(spec_params)}"
            )
        full = {**spec_params, **params}
        cls = _game_class(name)
        options = {}
        for key, value in full.items():
            if key == RNG_SEED:
                continue
            option = cls.options[key]
            if option.kind == "int" and option.optional and value == NO_VALUE:
                value = None
            options[key] = value
        self.ours: Game = cls(**options)
        why = self.spec.needs(self.ours)
        if why is not None:
            raise ValueError(f"{short_name(name)} {why}")
        seed = int(full.get(RNG_SEED, -1))
        if seed < -1:
            raise ValueError(
                f"{short_name(name)}: rng_seed must be -1 or an integer >= 0, got {seed}"
            )
        self.rng_seed = seed
        low, high, total = self.spec.utility(self.ours)
        game_type = _game_type(self.spec)
        utility = pyspiel.GameType.Utility.GENERAL_SUM
        if total == 0.0:
            utility = pyspiel.GameType.Utility.ZERO_SUM
        game_type = pyspiel.GameType(
            short_name=game_type.short_name,
            long_name=game_type.long_name,
            dynamics=game_type.dynamics,
            chance_mode=game_type.chance_mode,
            information=game_type.information,
            utility=utility,
            reward_model=pyspiel.GameType.RewardModel.TERMINAL
            if self.spec.terminal_rewards(self.ours)
            else pyspiel.GameType.RewardModel.REWARDS,
            max_num_players=game_type.max_num_players,
            min_num_players=game_type.min_num_players,
            provides_information_state_string=game_type.provides_information_state_string,
            provides_information_state_tensor=game_type.provides_information_state_tensor,
            provides_observation_string=True,
            provides_observation_tensor=True,
            provides_factored_observation_string=False,
            parameter_specification=game_type.parameter_specification,
        )
        info = pyspiel.GameInfo(
            num_distinct_actions=self.ours.num_actions,
            max_chance_outcomes=self.spec.max_chance_outcomes(self.ours),
            num_players=self.ours.num_players,
            min_utility=low,
            max_utility=high,
            utility_sum=total,
            max_game_length=self.spec.max_game_length(self.ours),
        )
        super().__init__(game_type, info, full)

    def new_initial_state(self, *args: Any) -> RatenvsState:
        """A new game (dealt when first looked at: a clone's set-up is its original's). A
        state from a string is ``deserialize_state``'s."""
        if args:
            raise ValueError(
                f"{self.get_type().short_name}: new_initial_state takes no arguments, got "
                f"{args!r} (a serialised state: game.deserialize_state)"
            )
        return RatenvsState(self)

    def max_chance_nodes_in_history(self) -> int:
        """The most chance nodes a game's history holds (see the spec's bound)."""
        return int(self.spec.max_chance_nodes(self.ours))

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> _Observer | None:
        """The observer pyspiel asks for: the information state (``perfect_recall``, what
        OpenSpiel asks for it) is the ``knowledge`` view, a summary of the seat's history
        (see the module docstring), otherwise the game's observation view; a view of every
        player's private information is the ``privileged`` view (the whole truth). None
        (OpenSpiel's "not supported") for a public-only or private-only view of a game with
        hidden information: every seat view holds both."""
        if params:
            raise ValueError(
                f"{self.get_type().short_name}: observer parameters {params} not supported"
            )
        kind = self.spec.observation_kind(self.ours)
        if iig_obs_type is not None:
            private = iig_obs_type.private_info
            hidden = self.ours.has_hidden_information
            if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
                kind = "privileged"
            elif hidden and (
                private == pyspiel.PrivateInfoType.NONE or not iig_obs_type.public_info
            ):
                return None
            elif iig_obs_type.perfect_recall:
                if self.spec.info_state_kind is None:
                    return None
                kind = self.spec.info_state_kind
        pieces = self.spec.string_pieces if kind == self.spec.info_state_kind else ()
        return _Observer(self.ours.observer(kind), kind, pieces)

    def _next_rng(self) -> np.random.Generator:
        """The generator of a new game: ``default_rng(rng_seed)`` (fresh entropy for -1)."""
        return np.random.default_rng(None if self.rng_seed < 0 else self.rng_seed)


class _Observer:
    """A ratenvs observer as OpenSpiel's Python observer (``tensor``, ``dict``,
    ``set_from``, ``string_from``)."""

    def __init__(self, observer: Any, kind: str, string_pieces: Sequence[str] = ()) -> None:
        self.observer = observer
        self.kind = kind
        self.tensor = np.zeros(observer.size, np.float32)
        self.dict = observer.views(self.tensor)
        names = {piece.name for piece in observer.pieces}
        self.string_pieces = tuple(p for p in string_pieces if p in names)

    def _seat(self, player: int) -> int | None:
        return None if self.kind == "privileged" else player

    def set_from(self, state: RatenvsState, player: int) -> None:
        truth = state.truth()
        if truth is None:  # the deal is still being shuffled
            self.tensor.fill(0)
        else:
            self.tensor[:] = self.observer.observe(truth, self._seat(player))

    def string_from(self, state: RatenvsState, player: int) -> str:
        truth = state.truth()
        if truth is None:
            return "the deal is being shuffled"
        text = self.observer.string_from(truth, self._seat(player))
        if not self.string_pieces:
            return text
        views = self.observer.views(self.observer.observe(truth, self._seat(player)))
        lines = [text]
        for name in self.string_pieces:
            values = np.asarray(views[name]).reshape(-1)
            lines.append(f"{name}: " + " ".join(f"{v:.6g}" for v in values.tolist()))
        return "\n".join(lines)


class RatenvsState(pyspiel.State):
    """A ratenvs game state as a pyspiel state (see the module docstring for chance).

    ``truth()`` is the ratenvs ``State`` (None while the deal is being shuffled); between a
    player's action and the chance outcomes it waits for, it is the state before that
    action."""

    def __init__(self, game: RatenvsGame) -> None:
        super().__init__(game)
        self._started = False
        self._truth: Any = None
        self._pending: tuple[tuple[int, int], ...] | None = None
        """The step waiting for chance: ``()`` the set-up, else the actions (seat, action)."""
        self._outcomes: list[int] = []
        self._node: ChanceNode | None = None
        self._rng: np.random.Generator | None = None
        if game.spec.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
            # drawn now, not at the deal: a clone (or a serialised copy) of a state nobody
            # has looked at yet deals the same game as its original
            self._rng = game._next_rng()
        n = game.num_players()
        self._rewards = [0.0] * n
        self._returns = [0.0] * n

    # ---------------------------------------------------------------- internals
    def _start(self) -> None:
        """Deal the game (on first use: a clone overwrites all of this)."""
        if self._started:
            return
        self._started = True
        game = self.get_game()
        if game.spec.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC:
            self._truth = game.ours.init(self._rng)
        else:
            self._pending = ()
            self._advance()

    def _advance(self) -> None:
        """Run the pending step with the outcomes chosen so far; commit it if it ends."""
        game = self.get_game()
        ours = game.ours
        spec = game.spec
        if self._pending == ():
            chance = _ExplicitChance(self._outcomes, spec.permuted, spec.kind_names)
            try:
                truth = ours.init(chance)
            except ChanceNeeded as need:
                self._node = need.node
                return
            self._commit(truth, None)
            return
        live = _copy_state(self._truth)
        chance = _ExplicitChance(self._outcomes, spec.permuted, spec.kind_names, live)
        try:
            rewards = ours.apply(live, dict(self._pending), chance)
        except ChanceNeeded as need:
            self._node = need.node
            return
        self._commit(live, rewards)

    def _commit(self, truth: Any, rewards: Any) -> None:
        self._truth = truth
        self._pending = None
        self._outcomes = []
        self._node = None
        self._reward(rewards)

    def _reward(self, rewards: Any) -> None:
        n = len(self._returns)
        self._rewards = [0.0] * n if rewards is None else [float(r) for r in rewards]
        self._returns = [a + b for a, b in zip(self._returns, self._rewards)]

    # ---------------------------------------------------------------- ratenvs side
    def truth(self) -> Any:
        """The ratenvs ``State`` (None while the first deal is being shuffled)."""
        self._start()
        return self._truth

    def chance_node(self) -> ChanceNode:
        """The draw this chance node decides."""
        self._start()
        if self._node is None:
            raise ValueError("not a chance node")
        return self._node

    # ---------------------------------------------------------------- pyspiel API
    def current_player(self) -> int:
        self._start()
        if self._node is not None:
            return pyspiel.PlayerId.CHANCE
        ours = self.get_game().ours
        if ours.is_terminal(self._truth):
            return pyspiel.PlayerId.TERMINAL
        if self.get_game().spec.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
            return pyspiel.PlayerId.SIMULTANEOUS
        return ours.to_act(self._truth)[0]

    def _legal_actions(self, player: int) -> list[int]:
        self._start()
        ours = self.get_game().ours
        if self._node is not None or ours.is_terminal(self._truth):
            return []
        if not 0 <= player < ours.num_players:
            raise ValueError(
                f"legal actions of player {player}: at a simultaneous node ask each player's, "
                "legal_actions(p) for p in range(num_players)"
                if player == pyspiel.PlayerId.SIMULTANEOUS
                else f"legal actions of player {player}: no such player"
            )
        if player in ours.to_act(self._truth):
            mask = ours.legal_mask(self._truth, player)
        elif self.get_game().spec.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
            mask = ours.waiting_mask(self._truth, player)
        else:
            return []
        return [int(a) for a in np.flatnonzero(mask)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self.chance_node().outcomes)

    def _apply_action(self, action: int) -> None:
        self._start()
        # a transition that ends no step (a player's action waiting for chance, a chance
        # outcome with more to come) rewards nothing; the step's rewards come with its end
        self._rewards = [0.0] * len(self._returns)
        if self._node is not None:
            if action not in self._node.names:
                raise ValueError(
                    f"chance outcome {action} is not one of this {self._node.kind} draw's "
                    f"{sorted(self._node.names)}"
                )
            self._outcomes = [*self._outcomes, int(action)]
            self._node = None
            self._advance()
            return
        ours = self.get_game().ours
        seat = self.current_player()
        if (
            seat < 0
            or not (0 <= action < ours.num_actions)
            or not ours.legal_mask(self._truth, seat)[action]
        ):
            raise ValueError(f"action {action} is not legal for player {seat} now")
        self._pending = ((seat, int(action)),)
        self._advance()

    def _apply_actions(self, actions: Sequence[int]) -> None:
        self._start()
        ours = self.get_game().ours
        truth = self._truth
        acting = ours.to_act(truth)
        if len(actions) != ours.num_players:
            raise ValueError(
                f"a joint action has one action per player ({ours.num_players}), got "
                f"{len(actions)}: {list(actions)}"
            )
        chosen = {}
        for seat, action in enumerate(actions):
            action = int(action)
            if seat in acting:
                if not 0 <= action < ours.num_actions or not ours.legal_mask(truth, seat)[action]:
                    raise ValueError(f"action {action} is not legal for player {seat} now")
                chosen[seat] = action
            elif action >= 0 and not (
                action < ours.num_actions and ours.waiting_mask(truth, seat)[action]
            ):
                raise ValueError(f"player {seat} does not act now: it may only wait, not {action}")
        self._reward(ours.apply(truth, chosen, self._rng))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            node = self._node
            if node is not None and action in node.names:
                return node.names[action]
            return f"chance outcome {action}"
        game = self.get_game()
        if not 0 <= action < game.ours.num_actions:
            raise ValueError(f"no action {action}: the actions are 0..{game.ours.num_actions - 1}")
        return game.spec.action_name(game.ours, int(action))

    def is_terminal(self) -> bool:
        self._start()
        return self._node is None and self.get_game().ours.is_terminal(self._truth)

    def rewards(self) -> list[float]:
        self._start()
        return list(self._rewards)

    def returns(self) -> list[float]:
        self._start()
        return list(self._returns)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> RatenvsState:
        """A state ``player_id`` cannot tell from this one, its hidden part dealt again by
        the game's resampler (``Game.resample``), seeded from ``probability_sampler`` (a
        callable giving numbers in [0, 1), as OpenSpiel's IS-MCTS passes)."""
        self._start()
        if self._node is not None or self._truth is None:
            raise ValueError("resample_from_infostate at a chance node")
        seed = int(float(probability_sampler()) * 2**63)
        rng = np.random.default_rng(seed)
        clone = self.clone()
        clone._truth = self.get_game().ours.resample(self._truth, player_id, rng)
        return clone

    def __str__(self) -> str:
        self._start()
        if self._truth is None:
            return f"shuffling the deal, outcomes so far {self._outcomes}"
        text = str(self.get_game().ours.to_json(self._truth))
        if self._node is not None:
            text += f" | waiting for chance after {dict(self._pending or ())}, {self._outcomes}"
        return text


def _copy_state(state: Any) -> Any:
    copier = getattr(state, "copy", None)
    return copier() if callable(copier) else copy.deepcopy(state)


# ------------------------------------------------------------------ bots
class AgentBot(pyspiel.Bot):
    """A ratenvs :class:`~ratenvs.common.bots.Bot` (``act(observation, action_mask, rng)``)
    playing one seat of a pyspiel ratenvs game: it sees the seat's view of ``kind`` (the
    game's env observation by default, what the bot was made for) and draws from ``rng``."""

    def __init__(
        self, game: RatenvsGame, player: int, bot: Any, seed: int = 0, kind: str | None = None
    ) -> None:
        pyspiel.Bot.__init__(self)
        self._game = game
        self._player = player
        self._bot = bot
        self._kind = kind or game.ours.observation_kind
        self._rng = np.random.default_rng(seed)

    def step(self, state: RatenvsState) -> int:
        ours = self._game.ours
        truth = state.truth()
        observation = ours.observer(self._kind).observe(truth, self._player)
        if self._player in ours.to_act(truth):
            mask = ours.legal_mask(truth, self._player)
        else:
            mask = ours.waiting_mask(truth, self._player)
        return int(self._bot.act(observation, mask, self._rng))

    def restart_at(self, state: Any) -> None:
        pass

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        pass


# ------------------------------------------------------------------ registration
class CatzRatzBatzGame(RatenvsGame):
    """``ratenvs_catz_ratz_batz``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__("catz_ratz_batz", params)


class RatATatCatGame(RatenvsGame):
    """``ratenvs_rat_a_tat_cat``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__("rat_a_tat_cat", params)


class RattoZakkoGame(RatenvsGame):
    """``ratenvs_ratto_zakko``."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__("ratto_zakko", params)


_GAME_CLASSES = {
    "catz_ratz_batz": CatzRatzBatzGame,
    "rat_a_tat_cat": RatATatCatGame,
    "ratto_zakko": RattoZakkoGame,
}


def register() -> None:
    """Register every game (``ratenvs_<name>``) with pyspiel; a second call does nothing."""
    registered = set(pyspiel.registered_names())
    for name in GAME_NAMES:
        spec = _specs()[name]
        if short_name(name) not in registered:
            pyspiel.register_game(_game_type(spec), _GAME_CLASSES[name])


register()
