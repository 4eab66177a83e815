"""Scripted Rat-a-Tat Cat players behind the :class:`~ratenvs.common.bots.Bot` protocol.

Bots read only the observation vector and the action mask, so they see what
their seat may see.

- ``random``: any legal action, uniformly.
- ``heuristic``: values each own slot (a known number at its value; anything
  else at the mean of the number cards it has not seen - a power card is
  replaced by a random card at the end), takes a low discard, replaces its
  highest-valued slot when the new card is lower, peeks at unknown slots,
  swaps its highest card for an opponent's lowest known card (or a blind
  unknown one when its own card is high), always uses Draw 2, and knocks when
  its expected total is at most ``knock_threshold`` (tuned against random:
  see :data:`KNOCK_THRESHOLD`).

Measured with :func:`win_rate` (two players, seats alternated, a tie counts
half): heuristic vs random wins 80.6% of 2000 one-round games (random often
knocks on its first turns, leaving little time), 92.6% of 1000 three-round
games, and 64.6% of 1000 one-round games with "memoryless" observations.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ratenvs.common.bots import Bot, RandomBot, make_bot
from ratenvs.rat_a_tat_cat.observe import Layout, slot_codes
from ratenvs.rat_a_tat_cat.rules import (
    ACTION_DECLINE,
    ACTION_DISCARD,
    ACTION_DRAW,
    ACTION_KNOCK,
    ACTION_NO_KNOCK,
    ACTION_PEEK,
    ACTION_REPLACE,
    ACTION_TAKE_DISCARD,
    ACTION_USE_DRAW2,
    CODE_NUMBER,
    KIND_COUNTS,
    NUM_KINDS,
    NUM_NUMBER_KINDS,
    SLOTS,
    swap_action,
)

KNOCK_THRESHOLD = 8.0
"""Knock when the expected own total is at most this. Tuned with ``tune_knock_threshold``:
against random every threshold 4 - 10 wins ~81% (random knocks early); against a heuristic
knocking at 12, thresholds 6 / 8 / 10 / 12 / 14 won 56 / 57 / 56 / 50 / 48% (400 games)."""
TAKE_MARGIN = 2.0
"""Take the discard when it beats the highest-valued slot by at least this much ..."""
LOW_CARD = 2
"""... or when it is this low and still beats the highest-valued slot."""
BLIND_SWAP_MIN = 7.0
"""Swap blindly with an unknown opponent card only when the own card is worth at least this."""

_NUMBER_VALUES = np.arange(NUM_NUMBER_KINDS, dtype=np.float64)
_DECK_NUMBERS = np.array(KIND_COUNTS[:NUM_NUMBER_KINDS], dtype=np.float64)
_DECK_MEAN = float(_DECK_NUMBERS @ _NUMBER_VALUES / _DECK_NUMBERS.sum())


class _Layouts:
    """Observation layouts by vector length."""

    def __init__(self) -> None:
        self._by_size: dict[int, Layout] = {}

    def get(self, size: int) -> Layout:
        lay = self._by_size.get(size)
        if lay is None:
            n = (size - Layout(2).size) // (Layout(3).size - Layout(2).size) + 2
            lay = Layout(n)
            if lay.size != size:
                raise ValueError(f"not a Rat-a-Tat Cat observation of any table size: {size}")
            self._by_size[size] = lay
        return lay


_LAYOUTS = _Layouts()


def _argmax_kind(block: np.ndarray) -> int:
    return int(np.argmax(block))


class HeuristicBot:
    """Keeps a low hand with simple card counting and knocks below a threshold."""

    name = "heuristic"

    def __init__(self, knock_threshold: float = KNOCK_THRESHOLD) -> None:
        self.knock_threshold = float(knock_threshold)

    def unknown_value(self, observation: np.ndarray, lay: Layout) -> float:
        """Expected value of a card it does not know: the mean of unseen number cards."""
        unseen = observation[lay.unseen : lay.unseen + NUM_NUMBER_KINDS] * _DECK_NUMBERS
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
        lay = _LAYOUTS.get(len(observation))
        n = lay.num_players
        codes = slot_codes(observation, n)
        unknown = self.unknown_value(observation, lay)
        values = self.slot_values(codes, unknown)
        worst = int(np.argmax(values))
        held = _argmax_kind(observation[lay.held : lay.held + NUM_KINDS + 1])
        if action_mask[ACTION_DRAW]:
            if action_mask[ACTION_TAKE_DISCARD]:
                top = _argmax_kind(observation[lay.discard_top : lay.discard_top + NUM_KINDS + 1])
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


BOTS: dict[str, type] = {"random": RandomBot, "heuristic": HeuristicBot}


def get_bot(name: str) -> Bot:
    """Build a Rat-a-Tat Cat bot by name (ValueError for an unknown one)."""
    return make_bot(name, BOTS, "rat_a_tat_cat")


def play_game(bots: Sequence[Bot], seed: int, **options: object) -> list[bool]:
    """Play one game with ``bots[i]`` in seat ``i``; return who won (ties share)."""
    from ratenvs.rat_a_tat_cat.env import raw_env

    env = raw_env(num_players=len(bots), **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed + 1_000_003)
    while not env.state.is_over:
        seat = env.state.current
        obs = env._observation_vector(seat)
        mask = env._action_mask(seat)
        env.step(int(bots[seat].act(obs, mask, rng)))
    return list(env.state.winners)


def win_rate(bot: Bot, opponent: Bot, games: int, seed: int = 0, **options: object) -> float:
    """Share of two-player games ``bot`` wins against ``opponent``, seats alternating
    (a tie counts half)."""
    score = 0.0
    for g in range(games):
        seat = g % 2
        seats = [bot, opponent] if seat == 0 else [opponent, bot]
        winners = play_game(seats, seed + g, **options)
        if winners[seat]:
            score += 1.0 / sum(winners)
    return score / games


def tune_knock_threshold(
    thresholds: Sequence[float], games: int = 400, seed: int = 0
) -> dict[float, float]:
    """Win rate against ``random`` of the heuristic bot for each knock threshold."""
    return {t: win_rate(HeuristicBot(t), RandomBot(), games, seed=seed) for t in thresholds}
