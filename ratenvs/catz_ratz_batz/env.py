"""
# Catz, Ratz and Batz

A PettingZoo AEC environment for the nine-dice game (rules: ``docs/RULES.md``
section 2). Seats take turns; a turn starts with a roll of all nine dice and
goes on with one decision per reroll: which number to keep.

| Import             | `from ratenvs import catz_ratz_batz_v0`            |
|--------------------|----------------------------------------------------|
| Actions            | Discrete(4)                                        |
| Parallel API       | No                                                 |
| Manual control     | `ratenvs play catz-ratz-batz`                      |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`       |
| Agents count       | 1 - 6 (`num_players`, default 2)                   |
| Action shape       | (1,)                                               |
| Action values      | 0 - 3                                              |
| Observation shape  | (8 + 4 n,) float32, plus an int8 `action_mask` (4,)|
| Registered ids     | `ratenvs/catz_ratz_batz-v0` (PettingZoo),          |
|                    | `ratenvs/CatzRatzBatz-v0` (Gymnasium, one learner) |

## Options

| option         | default | meaning                                                  |
|----------------|---------|----------------------------------------------------------|
| `num_players`  | 2       | seats, 1 - 6                                             |
| `turns`        | 10      | turns per seat; `None` only with `target_score`          |
| `target_score` | None    | race: the game ends after the round in which someone     |
|                |         | reaches it, so all seats had equal turns (ruling)        |
| `reward`       | "score" | "score": each turn's points to the seat that rolled;     |
|                |         | "win": zero-sum at the end (see below)                   |
| `render_mode`  | None    | None, "ansi" (returns text), "rgb_array" (returns an     |
|                |         | (H, W, 3) uint8 frame), "human" (a pygame window)        |
| `render_view`  | "omniscient" | whose view is drawn: "omniscient" or an agent name  |
|                |         | (all dice are public; the seat is marked "(you)")        |

## Observation

All information is public. See :mod:`ratenvs.catz_ratz_batz.observe` for the
index table: dice set aside and showing (/9), phase, totals (/100),
turns left, whose turn, points still needed for a target; the observer's own
entries first.

## Actions

| action | meaning            | legal when                                        |
|--------|--------------------|---------------------------------------------------|
| 0      | keep the 3s        | after a roll, a 3 is showing, the turn is not over|
| 1      | keep the 5s        | likewise for 5                                    |
| 2      | keep the 7s        | likewise for 7                                    |
| 3      | roll all nine dice | at the start of the seat's turn (the only action) |

A turn whose first roll already ends it (all number dice alike, or none)
has only the roll decision.

## Rewards

- "score": when a turn ends, the roller receives the turn's score.
- "win": at the end, ``r_i = n/(n-1) * (won_i / w - 1/n)`` with ``w`` tied
  winners (highest total): a sole winner +1, the losers share -1; two
  players +1 / -1 and a tie 0 / 0; a one-player game always 0.

## Illegal actions

`raw_env` raises :class:`~ratenvs.common.aec.IllegalActionError` (a
ValueError). `env()` applies PettingZoo classic's handling: the game ends
and the offending seat gets -1.

## Version history

- v0: first release.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ratenvs.catz_ratz_batz import rules
from ratenvs.catz_ratz_batz.observe import (
    ACTION_ROLL,
    NUM_ACTIONS,
    action_mask,
    observation_bounds,
    observe,
)
from ratenvs.catz_ratz_batz.render import draw
from ratenvs.common.aec import GameAECEnv
from ratenvs.common.options import check_choice, check_int, check_optional_int
from ratenvs.common.rewards import win_rewards
from ratenvs.common.wrappers import classic_env

REWARD_MODES = ("score", "win")
MAX_PLAYERS = 6


def env(**kwargs: Any) -> GameAECEnv:
    """The wrapped AEC env: PettingZoo classic's illegal-move handling (the game ends, the
    offender gets -1), bounds check and order enforcing, fused into one fast wrapper."""
    return classic_env(raw_env(**kwargs), illegal_reward=-1)


class raw_env(GameAECEnv):  # PettingZoo naming convention
    """Catz, Ratz and Batz for 1 - 6 seats (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "catz_ratz_batz_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int = 2,
        turns: int | None = 10,
        target_score: int | None = None,
        reward: str = "score",
        render_mode: str | None = None,
        render_view: str = "omniscient",
    ) -> None:
        super().__init__()
        n = check_int("num_players", num_players, 1, MAX_PLAYERS)
        self.target_score = check_optional_int("target_score", target_score, 1)
        if turns is None and self.target_score is None:
            raise ValueError("option 'turns' may be None only in a race (set 'target_score')")
        self.turns = check_optional_int("turns", turns, 1)
        self.reward_mode = check_choice("reward", reward, REWARD_MODES)
        low, high = observation_bounds(n, self.turns, self.target_score)
        self._setup_spaces(n, low, high, NUM_ACTIONS, render_mode, render_view)
        self.truth = rules.State.new(n, self.turns, self.target_score)

    # ------------------------------------------------------------ the game
    def _new_game(self) -> None:
        self.truth = rules.State.new(self.num_players, self.turns, self.target_score)

    def _current_seat(self) -> int:
        return self.truth.current

    def _action_mask(self, seat: int) -> np.ndarray:
        return action_mask(self.truth, seat)

    def _apply(self, seat: int, action: int) -> Sequence[float] | None:
        state = self.truth
        if action == ACTION_ROLL:
            points = rules.roll(state, self.np_random)
        else:
            points = rules.keep(state, rules.NUMBERS[action], self.np_random)
        rewards = None
        if points is not None and self.reward_mode == "score":
            rewards = [0.0] * self.num_players
            rewards[seat] = float(points)
        if state.phase == rules.PHASE_OVER and self.reward_mode == "win":
            rewards = win_rewards(state.winners()).tolist()
        if points is not None:
            self.infos[self.possible_agents[seat]] = {"turn_score": points}
        return rewards

    def _is_over(self) -> bool:
        return self.truth.phase == rules.PHASE_OVER

    def _observation_vector(self, seat: int) -> np.ndarray:
        return observe(self.truth, seat)

    # ----------------------------------------------------------- utilities
    def game_state(self) -> dict[str, Any]:
        """The whole game as JSON-ready data (for replays and debugging)."""
        s = self.truth
        return {
            "totals": list(s.totals),
            "turns_taken": list(s.turns_taken),
            "current_player": None if s.is_over else s.current,
            "phase": ["roll", "keep", "over"][s.phase],
            "dice": s.dice._asdict(),
            "last_turn_score": s.last_turn_score,
        }

    _draws_frames = True

    def _render_frame(self) -> np.ndarray:
        return draw(self.truth, self.possible_agents, self.render_seat)

    def _render_text(self) -> str:
        s = self.truth
        lines = []
        for i, a in enumerate(self.possible_agents):
            mark = "*" if (not s.is_over and i == s.current) else " "
            left = s.turns_left(i)
            lines.append(
                f"{mark} {a}: total {s.totals[i]:4d}"
                + ("" if left is None else f"  turns left {left}")
            )
        if s.is_over:
            winners = [a for a, w in zip(self.possible_agents, s.winners()) if w]
            lines.append(f"game over - winner(s): {', '.join(winners)}")
        elif s.phase == rules.PHASE_ROLL:
            last = "" if s.last_turn_score is None else f" (last turn scored {s.last_turn_score})"
            lines.append(f"{self.possible_agents[s.current]} to roll{last}")
        else:
            lines.append(f"dice: {s.dice.faces()}  keep one of {rules.numbers_showing(s.dice)}")
        return "\n".join(lines)
