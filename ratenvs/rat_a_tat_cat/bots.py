"""Scripted Rat-a-Tat Cat players behind the :class:`~ratenvs.common.bots.Bot` protocol.

Bots read only the observation vector and the action mask, so they see what
their seat may see, and they read the vector through named views of their
observer (``observer.views(observation)["slots"]``...), never through offsets:
``bind(observer)`` (called by :func:`~ratenvs.common.play.play_game` and
``SingleAgentEnv`` before play; call it yourself in a loop of your own, e.g.
``bot.bind(env.observer)``). An unbound bot reads the observer of the default game
(2 players, no ``owner_ceilings``) and raises a ValueError asking to bind it when
the vector is of another table.

- ``random``: any legal action, uniformly.
- ``heuristic``: values each own slot (a known number at its value; anything
  else at the mean of the number cards it has not seen - a power card is
  replaced by a random card at the end), takes a low discard, replaces its
  highest-valued slot when the new card is lower, peeks at unknown slots,
  swaps its highest card for an opponent's lowest known card (or a blind
  unknown one when its own card is high), always uses Draw 2, and knocks when
  its expected total is at most ``knock_threshold`` (:data:`KNOCK_THRESHOLD`).
- ``ceiling``: the heuristic's card play (or any ``base`` bot's), but it reads how
  the others have played (the ``owner_ceilings`` observation): a hidden card its
  owner has seen and kept is worth what such cards were worth in games of
  heuristic bots (:data:`KEPT_VALUES`, by ceiling), and with that guess of every
  hand it swaps its highest card for the lowest other card and knocks when its
  hand is ``knock_margin`` points below every other hand.
- ``ismcts`` and ``pimc``: the search bots of :mod:`ratenvs.common.search` (IS-MCTS and
  perfect-information Monte Carlo over ``resample_from_infostate``), with heuristic bots
  playing every seat of the play-outs to the end of the round. They search from the
  game's state (read only through the resampler), so they play where the harness holds it
  (:func:`~ratenvs.common.play.play_game`, ``ratenvs evaluate`` / ``tournament``); their
  plain ``act`` raises.
- ``search``: :class:`~ratenvs.rat_a_tat_cat.search.AgentSearchBot`, perfect-information
  Monte Carlo with a shipped agent playing out its seat (the heuristic the others),
  thousands of play-outs per move on the batched engine (the ``batched`` and ``agents``
  extras); a state searcher as the two above.
- ``guarded_search``: :class:`~ratenvs.rat_a_tat_cat.search.GuardedSearchBot`, the same
  search at the settings its study found strongest (2 players): 512 deals weighed by a
  shipped belief over the other hand, played out against the agent and the heuristic,
  the agent's own move kept unless another is clearly better against both.

How strong they are and where their constants come from: the repository's study
``python -m studies.ratcat_bot_tuning`` (figures in its ``studies/README.md``).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ratenvs.common.bots import Bot, RandomBot, make_bot
from ratenvs.common.search import EXPLORATION, ISMCTSBot, PIMCBot
from ratenvs.rat_a_tat_cat.rules import (
    ACTION_DECLINE,
    ACTION_DISCARD,
    ACTION_DRAW,
    ACTION_KNOCK,
    ACTION_NO_KNOCK,
    ACTION_PEEK,
    ACTION_REPLACE,
    ACTION_SWAP,
    ACTION_TAKE_DISCARD,
    ACTION_USE_DRAW2,
    CODE_NUMBER,
    KIND_COUNTS,
    NO_CEILING,
    NUM_NUMBER_KINDS,
    SLOTS,
    swap_action,
)
from ratenvs.rat_a_tat_cat.search import AgentSearchBot, GuardedSearchBot

KNOCK_THRESHOLD = 8.0
"""Knock when the expected own total is at most this: 8 points, measured by the repository's
``python -m studies.ratcat_bot_tuning``."""
TAKE_MARGIN = 2.0
"""Take the discard when it beats the highest-valued slot by at least this much ..."""
LOW_CARD = 2
"""... or when it is this low and still beats the highest-valued slot."""
BLIND_SWAP_MIN = 7.0
"""Swap blindly with an unknown opponent card only when the own card is worth at least this."""

KEPT_VALUES = (0.0, 0.5, 1.7, 1.9, 2.2, 2.7, 3.1, 3.5, 3.9, 4.6, 4.9)
"""Mean points of a hidden card whose owner has seen it, by its ceiling (``State.ceiling``,
10 = none): 0.0 under a ceiling of 0 up to 4.9 with none, measured by the repository's
``python -m studies.ratcat_bot_tuning``. A card its owner has not seen is worth the mean of
the unseen number cards."""
CEILING_KNOCK_MARGIN = 3.0
"""The ``ceiling`` bot knocks when its hand is estimated this many points below every other."""

_NUMBER_VALUES = np.arange(NUM_NUMBER_KINDS, dtype=np.float64)
_DECK_NUMBERS = np.array(KIND_COUNTS[:NUM_NUMBER_KINDS], dtype=np.float64)
_DECK_MEAN = float(_DECK_NUMBERS @ _NUMBER_VALUES / _DECK_NUMBERS.sum())


_DEFAULT_OBSERVER: Any = None


def _default_observer() -> Any:
    """The knowledge observer of the default game (2 players, no ``owner_ceilings``)."""
    global _DEFAULT_OBSERVER
    if _DEFAULT_OBSERVER is None:
        from ratenvs.rat_a_tat_cat.rules import RatATatCat

        _DEFAULT_OBSERVER = RatATatCat().observer("knowledge")
    return _DEFAULT_OBSERVER


class _BoundBot:
    """A bot that reads observations through the named views of its observer."""

    name = "bound"
    observer: Any = None

    def bind(self, observer: Any) -> None:
        """Read observations through ``observer`` (the env's ``env.observer``)."""
        self.observer = observer

    def views(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """The named pieces of ``observation`` (see :mod:`ratenvs.rat_a_tat_cat.observe`)."""
        observer = self.observer if self.observer is not None else _default_observer()
        if observation.shape[-1] != observer.size:
            raise ValueError(
                f"the {self.name!r} bot reads observations of {observer.size} entries, got "
                f"{observation.shape[-1]}: bind it to the env's observer first "
                "(bot.bind(env.observer); play_game and SingleAgentEnv do it)"
            )
        return observer.views(observation)


def _argmax_kind(block: np.ndarray) -> int:
    return int(np.argmax(block))


def _codes(views: dict[str, np.ndarray]) -> np.ndarray:
    """The knowledge code of every slot, observer first: shape ``(players, 4)``."""
    return np.argmax(views["slots"], axis=-1)


class HeuristicBot(_BoundBot):
    """Keeps a low hand with simple card counting and knocks below a threshold."""

    name = "heuristic"

    def __init__(self, knock_threshold: float = KNOCK_THRESHOLD) -> None:
        self.knock_threshold = float(knock_threshold)

    def unknown_value(self, unseen_counts: np.ndarray) -> float:
        """Expected value of a card it does not know: the mean of unseen number cards
        (``unseen_counts``: the piece of that name)."""
        unseen = unseen_counts[:NUM_NUMBER_KINDS] * _DECK_NUMBERS
        total = unseen.sum()
        if total < 0.5:  # memoryless mode (or nothing left): the deck's mean
            return _DECK_MEAN
        return float(unseen @ _NUMBER_VALUES / total)

    def slot_values(self, codes: np.ndarray, unknown: float) -> np.ndarray:
        """Expected points of each own slot."""
        own = codes[0]
        return np.array([float(c) if c < NUM_NUMBER_KINDS else unknown for c in own])

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        return self._act(self.views(observation), action_mask)

    def _act(self, v: dict[str, np.ndarray], action_mask: np.ndarray) -> int:
        codes = _codes(v)
        unknown = self.unknown_value(v["unseen_counts"])
        values = self.slot_values(codes, unknown)
        worst = int(np.argmax(values))
        held = _argmax_kind(v["held"])
        if action_mask[ACTION_DRAW]:
            if action_mask[ACTION_TAKE_DISCARD]:
                top = _argmax_kind(v["discard_top"])
                if top < values[worst] and (top <= LOW_CARD or top <= values[worst] - TAKE_MARGIN):
                    return ACTION_TAKE_DISCARD
            return ACTION_DRAW
        if action_mask[ACTION_REPLACE] and not action_mask[ACTION_DISCARD]:
            return ACTION_REPLACE + worst  # a taken discard must be placed
        if action_mask[ACTION_DISCARD]:
            if held < values[worst]:
                return ACTION_REPLACE + worst
            return ACTION_DISCARD
        if action_mask[ACTION_PEEK]:
            for s in range(SLOTS):
                if codes[0, s] >= CODE_NUMBER:
                    return ACTION_PEEK + s
            return ACTION_DECLINE
        if action_mask[ACTION_USE_DRAW2]:
            return ACTION_USE_DRAW2
        if action_mask[ACTION_KNOCK]:
            return ACTION_KNOCK if values.sum() <= self.knock_threshold else ACTION_NO_KNOCK
        if action_mask[ACTION_DECLINE]:  # a Swap
            return self._swap(codes, values, unknown, action_mask)
        legal = np.flatnonzero(action_mask)
        return int(legal[0])

    def _swap(self, codes: np.ndarray, values: np.ndarray, unknown: float, mask: np.ndarray) -> int:
        n = codes.shape[0]
        own = int(np.argmax(values))
        best: tuple[float, int] | None = None
        for offset in range(1, n):
            for s in range(SLOTS):
                action = swap_action(own, offset, s)
                if not mask[action]:
                    continue
                c = int(codes[offset, s])
                if c < NUM_NUMBER_KINDS:
                    gain = values[own] - c
                elif values[own] >= BLIND_SWAP_MIN:
                    gain = values[own] - unknown - 1.0  # prefer a known low card
                else:
                    continue
                if gain >= 1.0 and (best is None or gain > best[0]):
                    best = (gain, action)
        return ACTION_DECLINE if best is None else best[1]


class CeilingBot(HeuristicBot):
    """Guesses the other hands from how their owners have played; swaps and knocks on that.

    ``base`` (default: the heuristic bot) makes every decision but the Swap and the
    knock, from the observation without the ``owner_ceilings`` block (so a policy
    trained without it can be the base).
    """

    name = "ceiling"
    view_options: ClassVar[dict[str, Any]] = {"owner_ceilings": True}
    """What it must see: evaluations and tournaments seat it with the ``owner_ceilings``
    piece at any table (``ratenvs.common.bots.OwnView``)."""

    def __init__(self, knock_margin: float = CEILING_KNOCK_MARGIN, base: Bot | None = None) -> None:
        super().__init__()
        self.knock_margin = float(knock_margin)
        self.base = base

    _plain: Any = None
    """The observer of the same game without the ``owner_ceilings`` block (what ``base``
    and the heuristic card play read)."""

    def bind(self, observer: Any) -> None:
        """Read observations through ``observer`` (it must have the ``ceilings`` piece);
        ``base`` is bound to the same game's observer without it."""
        self.observer = observer
        self._plain = None
        if "ceilings" in observer.slices:
            from ratenvs.rat_a_tat_cat.rules import RatATatCat

            plain = RatATatCat(**{**observer.game.params, "owner_ceilings": False})
            self._plain = plain.observer(observer.kind)
            bind = getattr(self.base, "bind", None)
            if bind is not None:
                bind(self._plain)

    def _ceiling_views(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        if self.observer is None:
            raise ValueError(
                "the 'ceiling' bot reads the owner_ceilings observation: bind it to the env's "
                "observer (bot.bind(env.observer); play_game and SingleAgentEnv do it)"
            )
        v = self.views(observation)
        if "ceilings" not in v:
            raise ValueError(
                "the 'ceiling' bot reads the owner_ceilings observation: make the env with "
                "owner_ceilings=True"
            )
        return v

    def hand_estimates(self, observation: np.ndarray) -> np.ndarray:
        """Estimated points of every slot, shape ``(players, 4)``, observer first."""
        v = self._ceiling_views(observation)
        codes = _codes(v)
        n = codes.shape[0]
        unknown = self.unknown_value(v["unseen_counts"])
        block = v["ceilings"]
        est = np.full((n, SLOTS), unknown)
        est[0] = self.slot_values(codes, unknown)
        for k in range(1, n):
            for s in range(SLOTS):
                c = int(codes[k, s])
                if c < NUM_NUMBER_KINDS:
                    est[k, s] = c
                elif block[k, s, 0] > 0.5:
                    est[k, s] = KEPT_VALUES[round(float(block[k, s, 1]) * NO_CEILING)]
        return est

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        v = self._ceiling_views(observation)
        swap = bool(action_mask[ACTION_DECLINE] and action_mask[ACTION_SWAP:].any())
        if swap or action_mask[ACTION_KNOCK]:
            est = self.hand_estimates(observation)
            live = v["active"] > 0.5
            n = live.shape[0]
            if swap:
                return swap_by_estimate(est, action_mask)
            rivals = [est[k].sum() for k in range(1, n) if live[k]]
            ahead = est[0].sum() <= min(rivals) - self.knock_margin
            return ACTION_KNOCK if ahead else ACTION_NO_KNOCK
        plain = observation[: self.observer.offset("ceilings")]
        if self.base is not None:
            return int(self.base.act(plain, action_mask, rng))
        return self._act(self._plain.views(plain), action_mask)


def swap_by_estimate(est: np.ndarray, mask: np.ndarray, minimum: float = 1.0) -> int:
    """The Swap of an estimate of every slot (``(players, 4)``, observer first): the own
    card with the highest value for the legal other card with the lowest, when that gains
    more than ``minimum`` points; else decline."""
    own = int(np.argmax(est[0]))
    best, action = minimum, ACTION_DECLINE
    for offset in range(1, est.shape[0]):
        for s in range(SLOTS):
            a = swap_action(own, offset, s)
            if mask[a] and est[0, own] - est[offset, s] > best:
                best, action = est[0, own] - est[offset, s], a
    return action


ISMCTS_ITERATIONS = 100
"""IS-MCTS iterations per decision of the ``ismcts`` bot: about 0.16 s per searched decision
of a 2-player game on one free core of the development machine (0.4 s, 0.65 s in the
elimination game, with the machine's two cores shared by four processes: the repository's
``python -m studies.search_strength``)."""
PIMC_DETERMINIZATIONS = 16
"""Deals per decision of the ``pimc`` bot, every legal action played out once in each: about
0.09 s per searched decision of a 2-player game on one free core (0.2 s, 0.35 s in the
elimination game, on the shared machine: the repository's ``python -m studies.search_strength``)."""


class RatCatISMCTS(ISMCTSBot):
    """IS-MCTS over resampled tables, heuristic bots playing out every seat to the round's end.

    The :class:`~ratenvs.common.search.ISMCTSBot` with :data:`ISMCTS_ITERATIONS` iterations
    per decision: a play-out is won by the seat that scores the fewest points in the round
    (the end of the game in a one-round game). ``prior``: a trained agent's policy (e.g.
    ``load_agent_checkpoint("agent:rat_a_tat_cat_2p").bot()``) for PUCT, the search starting
    from its choices."""

    name = "ismcts"

    def __init__(
        self,
        iterations: int | None = ISMCTS_ITERATIONS,
        seconds: float | None = None,
        exploration: float = EXPLORATION,
        rollout: Any = HeuristicBot,
        value: str = "win",
        horizon: str = "reward",
        prior: Any = None,
    ) -> None:
        super().__init__(iterations, seconds, exploration, rollout, value, horizon, prior)


class RatCatPIMC(PIMCBot):
    """Perfect-information Monte Carlo over resampled tables, heuristic play-outs to the round end.

    The :class:`~ratenvs.common.search.PIMCBot` with :data:`PIMC_DETERMINIZATIONS` deals per
    decision, every legal action played out once in each; the value as ``ismcts``'s."""

    name = "pimc"

    def __init__(
        self,
        determinizations: int | None = PIMC_DETERMINIZATIONS,
        seconds: float | None = None,
        rollouts: int = 1,
        rollout: Any = HeuristicBot,
        value: str = "win",
        horizon: str = "reward",
    ) -> None:
        super().__init__(determinizations, seconds, rollouts, rollout, value, horizon)


BOTS: dict[str, type] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "ceiling": CeilingBot,
    "ismcts": RatCatISMCTS,
    "pimc": RatCatPIMC,
    "search": AgentSearchBot,
    "guarded_search": GuardedSearchBot,
}


def get_bot(name: str) -> Bot:
    """Build a Rat-a-Tat Cat bot by name (ValueError for an unknown one)."""
    return make_bot(name, BOTS, "rat_a_tat_cat")
