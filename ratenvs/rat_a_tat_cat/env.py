"""
# Rat-a-Tat Cat

A PettingZoo AEC environment for the memory card game (rules: ``RULES.md``
section 1). Each player has four face-down cards and wants the lowest total;
it sees only what the rules let it see. A turn is a few decisions in one
``Discrete`` action space: draw or take the discard, then place / discard /
use the card, then knock or not.

| Import             | `from ratenvs import rat_a_tat_cat_v0`                  |
|--------------------|---------------------------------------------------------|
| Actions            | Discrete(15 + 16 (n - 1))                               |
| Parallel API       | No                                                      |
| Manual control     | `ratenvs play rat-a-tat-cat --players 3`                |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`            |
| Agents count       | 2 - 6 (`num_players`, default 2)                        |
| Action shape       | (1,)                                                    |
| Action values      | 0 - 14 + 16 (n - 1)                                     |
| Observation shape  | (64 n + 54,) float32 (72 n + 54 with `owner_ceilings`), |
|                    | plus an int8 `action_mask`                              |
| Registered ids     | `ratenvs/rat_a_tat_cat-v0` (PettingZoo),                |
|                    | `ratenvs/RatATatCat-v0` (Gymnasium, one learner against |
|                    | heuristic bots, 2 players)                              |

## Options

| option                | default       | meaning                                            |
|-----------------------|---------------|----------------------------------------------------|
| `num_players`         | 2             | players, 2 - 6                                     |
| `rounds`              | None          | rounds in the game; None = 1 round, or (with       |
|                       |               | `target_score`) until the elimination is decided;  |
|                       |               | with a target, a number caps the rounds            |
| `target_score`        | None          | elimination: a player whose total reaches it is    |
|                       |               | out; the last one left wins; if all remaining      |
|                       |               | cross in one round the lowest total wins (ruling)  |
| `elimination_tiebreak`| "lowest_total"| all remaining players cross `target_score` in the  |
|                       |               | same round: "lowest_total" (ruling: the lowest     |
|                       |               | total among them wins) or "shared" (all share)     |
| `max_turns_per_round` | 200           | the round ends after this many turns, counted over |
|                       |               | all players, as if everyone had had the final turn |
|                       |               | (ruling: guarantees termination)                   |
| `observation`         | "knowledge"   | "knowledge" (perfect recall) or "memoryless"       |
| `owner_ceilings`      | False         | append, for every slot, whether its owner has seen |
|                       |               | the card and the card's ceiling: the lowest value  |
|                       |               | the owner has let go of since (public play; see    |
|                       |               | `rules.lower_ceilings`); 8 n more entries          |
| `reward`              | "zero_sum"    | "zero_sum", "points", "win", "zero_sum_win"        |
| `render_mode`         | None          | None, "ansi" (returns text), "rgb_array" (returns  |
|                       |               | an (H, W, 3) uint8 picture) or "human" (shows the  |
|                       |               | picture in a pygame window)                        |
| `render_view`         | "omniscient"  | whose view `render()` shows: "omniscient" or an    |
|                       |               | agent name (only what that seat may see)           |

Rulings of RULES.md that are not choices are fixed: a power card turned as the
first discard is shuffled back; a power card on the discard pile is dead; the
discard pile becomes the draw pile when it runs out (no take until something
is discarded); power cards in hands at the end go to the bottom of the draw
pile and are replaced (the discard pile is shuffled in when the draw pile
holds no number card); the player left of the dealer starts (round 1: player
0) and the deal rotates.

## Observation

See :mod:`ratenvs.rat_a_tat_cat.observe` for the index table: for every slot
(observer first, then the others in turn order) what the observer knows of the
card (its kind, "a number", or unknown); the discard top; the card it holds;
its decision phase; whose turn it is; who knocked and the turns left; turns
played; pile sizes; totals; who is still in; rounds done; and
``unseen_counts`` (knowledge mode). The "memoryless" mode keeps only the
table as it is now and what the observer saw since its last decision. With
``owner_ceilings=True``, for every slot also whether its owner has seen the
card and the card's ceiling: the lowest value the owner has let go of while
keeping it (public play: a card declined from the discard pile, a drawn card
discarded, a card replaced; the bot ``ceiling`` reads it).

## Actions

| action            | meaning                                             | legal in phase    |
|-------------------|-----------------------------------------------------|-------------------|
| 0                 | draw the top card of the draw pile                  | start             |
| 1                 | take the top discard (only a number card)           | start             |
| 2 - 5             | put the held card into own slot 0 - 3 (the old card| place, number     |
|                   | is discarded face up)                               |                   |
| 6                 | discard the drawn number card                       | number            |
| 7 - 10            | use a Peek: look at own slot 0 - 3                  | peek              |
| 11                | use a Draw 2: draw the next card                    | draw2             |
| 12                | decline the power card (it is discarded)            | peek, swap, draw2 |
| 13                | knock                                               | knock             |
| 14                | do not knock                                        | knock             |
| 15 + 16 (k-1)     | use a Swap: own slot ``a`` with slot ``b`` of the   | swap              |
|   + 4 a + b       | player ``k`` seats on (k = 1 .. n-1), blind         |                   |

Phases: "start" (a turn begins), "place" (holding the taken discard), "number"
/ "peek" / "swap" / "draw2" (holding a drawn card of that kind), "knock" (end
of a turn while nobody has knocked; skipped once someone has). In a Draw 2
sequence, discarding or declining the first drawn card draws a second one.

## Rewards

Given at the end of every round to the players of that round, in units of
``POINTS_SCALE`` = 10 points:

- "zero_sum" (default): (mean round points of the other players - own round
  points) / 10; the rewards of a round sum to 0.
- "points": - own round points / 10.
- "win": at the end of the game only, ``common.rewards.win_rewards``: a sole
  winner +1, the losers share -1; ties share the win.
- "zero_sum_win": both: the "zero_sum" rewards of every round, plus the "win"
  rewards at the end of the game (the round's edge teaches the card play, the
  game's result what an edge is worth when, e.g. near the elimination target).

## Illegal actions

`raw_env` raises :class:`~ratenvs.common.aec.IllegalActionError` (a
ValueError). `env()` applies PettingZoo classic's handling: the game ends
and the offending seat gets -1.

## Extras

- ``game_state()``: the whole truth as JSON-ready data (never used by observations).
- ``resample_from_infostate(agent, seed)``: a new ``raw_env`` consistent with
  everything ``agent`` knows (see :mod:`ratenvs.rat_a_tat_cat.resample`).
- Pictures: ``render_mode="rgb_array"`` draws the table from ``render_view`` (an
  800-pixel-wide frame, one row of four cards per player; see
  :mod:`ratenvs.rat_a_tat_cat.frames`); "human" shows it in a pygame window.
- Records: :mod:`ratenvs.rat_a_tat_cat.record` (on :mod:`ratenvs.common.record`)
  saves (seed, options, actions) as JSON and replays it identically.

## Version history

- v0: first release; the option ``owner_ceilings`` came later (default off, so
  observations without it are unchanged), and so did the reward mode
  "zero_sum_win" (the default reward is unchanged).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
from gymnasium.utils import seeding

from ratenvs.common.legacy_aec import LegacyAECEnv as GameAECEnv
from ratenvs.common.options import check_bool, check_choice, check_int, check_optional_int
from ratenvs.common.rewards import win_rewards
from ratenvs.common.wrappers import classic_env
from ratenvs.rat_a_tat_cat import frames, rules
from ratenvs.rat_a_tat_cat.observe import OBSERVATION_MODES, Observer, observation_bounds
from ratenvs.rat_a_tat_cat.render import render_table
from ratenvs.rat_a_tat_cat.resample import resample_state

REWARD_MODES = ("zero_sum", "points", "win", "zero_sum_win")
ELIMINATION_TIEBREAKS = ("lowest_total", "shared")
POINTS_SCALE = 10.0
"""Round rewards are in units of this many points."""
OMNISCIENT = "omniscient"


def env(**kwargs: Any) -> GameAECEnv:
    """The wrapped AEC env: PettingZoo classic's illegal-move handling (the game ends, the
    offender gets -1), bounds check and order enforcing, fused into one fast wrapper."""
    return classic_env(raw_env(**kwargs), illegal_reward=-1)


class raw_env(GameAECEnv):  # PettingZoo naming convention
    """Rat-a-Tat Cat for 2 - 6 players (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "rat_a_tat_cat_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int = 2,
        rounds: int | None = None,
        target_score: int | None = None,
        max_turns_per_round: int = rules.DEFAULT_MAX_TURNS,
        elimination_tiebreak: str = "lowest_total",
        observation: str = "knowledge",
        owner_ceilings: bool = False,
        reward: str = "zero_sum",
        render_mode: str | None = None,
        render_view: str = OMNISCIENT,
    ) -> None:
        super().__init__()
        n = check_int("num_players", num_players, rules.MIN_PLAYERS, rules.MAX_PLAYERS)
        self.target_score = check_optional_int("target_score", target_score, 1)
        rounds = check_optional_int("rounds", rounds, 1)
        if rounds is None and self.target_score is None:
            rounds = 1
        self.rounds = rounds
        self.max_turns_per_round = check_int("max_turns_per_round", max_turns_per_round, 1)
        self.elimination_tiebreak = check_choice(
            "elimination_tiebreak", elimination_tiebreak, ELIMINATION_TIEBREAKS
        )
        self.observation_mode = check_choice("observation", observation, OBSERVATION_MODES)
        self.reward_mode = check_choice("reward", reward, REWARD_MODES)
        self.owner_ceilings = check_bool("owner_ceilings", owner_ceilings)
        self.options = {
            "num_players": n,
            "rounds": rounds,
            "target_score": self.target_score,
            "max_turns_per_round": self.max_turns_per_round,
            "elimination_tiebreak": self.elimination_tiebreak,
            "observation": self.observation_mode,
            "owner_ceilings": self.owner_ceilings,
            "reward": self.reward_mode,
        }
        self.observer = Observer(
            n, self.observation_mode, rounds, self.max_turns_per_round, self.owner_ceilings
        )
        low, high = observation_bounds(n, rounds, self.target_score, self.owner_ceilings)
        self._setup_spaces(n, low, high, self.observer.num_actions, render_mode, render_view)
        self.truth = self._fresh_state()

    def _fresh_state(self) -> rules.State:
        return rules.new_game(
            self.num_players,
            self.np_random,
            rounds=self.rounds,
            target_score=self.target_score,
            max_turns_per_round=self.max_turns_per_round,
            elimination_tiebreak=self.elimination_tiebreak,
        )

    # ------------------------------------------------------------ the game
    def _new_game(self) -> None:
        self.truth = self._fresh_state()

    def _current_seat(self) -> int:
        return self.truth.current

    def _action_mask(self, seat: int) -> np.ndarray:
        return self.observer.action_mask(self.truth, seat)

    def _apply(self, seat: int, action: int) -> Sequence[float] | None:
        state = self.truth
        playing = state.active[:]
        points = rules.apply_action(state, action, self.np_random)
        if points is None:
            return None
        n = self.num_players
        seats = [p for p in range(n) if playing[p]]
        rewards = [0.0] * n
        mode = self.reward_mode
        if mode in ("zero_sum", "zero_sum_win"):
            total = sum(points[p] for p in seats)
            for p in seats:
                others = (total - points[p]) / (len(seats) - 1)
                rewards[p] = (others - points[p]) / POINTS_SCALE
        elif mode == "points":
            for p in seats:
                rewards[p] = -points[p] / POINTS_SCALE
        if mode in ("win", "zero_sum_win") and state.is_over:
            rewards = [r + w for r, w in zip(rewards, win_rewards(state.winners))]
        for p in seats:
            self.infos[self.possible_agents[p]] = {"round_points": points[p]}
        return rewards

    def _is_over(self) -> bool:
        return self.truth.phase == rules.PHASE_OVER

    def _observation_vector(self, seat: int) -> np.ndarray:
        return self.observer.observe(self.truth, seat)

    # ----------------------------------------------------------- utilities
    def game_state(self) -> dict[str, Any]:
        """The whole truth as JSON-ready data (for replays and debugging; piles top last)."""
        s = self.truth

        def names(cards: list[int]) -> list[str | None]:
            return [None if c == rules.NO_CARD else rules.card_name(c) for c in cards]

        return {
            "hands": [names(h) for h in s.hands],
            "draw_pile": names(s.draw_pile),
            "discard_pile": names(s.discard_pile),
            "held": None if s.held == rules.NO_CARD else rules.card_name(s.held),
            "held_from_discard": s.held_public,
            "scores": list(s.totals),
            "current_player": None if s.is_over else s.current,
            "phase": rules.PHASE_NAMES[s.phase],
            "knocked_by": s.knocked_by,
            "final_turns_left": s.final_turns_left,
            "turns_this_round": s.turns_this_round,
            "round": s.round_index,
            "active": list(s.active),
            "winners": None if s.winners is None else list(s.winners),
            "last_round_points": s.last_round_points,
        }

    def resample_from_infostate(self, agent: str, seed: int | None = None) -> raw_env:
        """A new raw env whose state agrees with everything ``agent`` knows, with everything
        it does not (unknown slots, the draw pile, another player's privately drawn card)
        shuffled; the new env's generator is seeded with ``seed``."""
        if agent not in self.agent_name_mapping:
            raise ValueError(f"unknown agent {agent!r}; choose one of {self.possible_agents}")
        seat = self.agent_name_mapping[agent]
        rng = np.random.default_rng(seed)
        new = raw_env(**self.options, render_mode=self.render_mode, render_view=self.render_view)
        new.np_random, new.np_random_seed = seeding.np_random(seed)
        new.truth = resample_state(self.truth, seat, rng)
        new.agents = self.agents[:]
        new.rewards = dict(self.rewards)
        new._cumulative_rewards = dict(self._cumulative_rewards)
        new.terminations = dict(self.terminations)
        new.truncations = dict(self.truncations)
        new.infos = {a: dict(i) for a, i in self.infos.items()}
        new.agent_selection = self.agent_selection
        return new

    def render_text(self, view: str = OMNISCIENT) -> str:
        """The table as text from ``view``: "omniscient" or an agent name (what it may see)."""
        if view != OMNISCIENT and view not in self.agent_name_mapping:
            raise ValueError(f"option 'view' must be {OMNISCIENT!r} or an agent name, got {view!r}")
        seat = None if view == OMNISCIENT else self.agent_name_mapping[view]
        return render_table(self.truth, seat, self.possible_agents, self.observation_mode)

    def _render_text(self) -> str:
        return self.render_text(self.render_view)

    _draws_frames = True

    def _render_frame(self) -> np.ndarray:
        """The table as a picture from ``render_view`` (see :mod:`ratenvs.rat_a_tat_cat.frames`)."""
        return frames.draw(
            self.truth, self.possible_agents, self.render_seat, self.observation_mode, self.rounds
        )
