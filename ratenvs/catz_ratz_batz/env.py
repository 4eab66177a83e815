"""
# Catz, Ratz and Batz

A PettingZoo AEC environment for the nine-dice game (rules: ``RULES.md`` section 2,
``ratenvs rules catz-ratz-batz``). Seats take turns; a turn starts with a roll of all nine dice and
goes on with one decision per reroll: which number to keep.

| Import             | `from ratenvs import catz_ratz_batz_v0`            |
|--------------------|----------------------------------------------------|
| Actions            | Discrete(4)                                        |
| Parallel API       | Yes (`parallel_env()`: one seat acts per step)     |
| Manual control     | `ratenvs play catz-ratz-batz`                      |
| Agents             | `agents = ['player_0', ..., 'player_{{n-1}}']`       |
| Agents count       | 1 - 6 (`num_players`, default 2)                   |
| Action shape       | (1,)                                               |
| Action values      | 0 - 3                                              |
| Observation shape  | (8 + 4 n,) float32, plus an int8 `action_mask` (4,)|
| Registered ids     | `ratenvs/catz_ratz_batz-v0` (PettingZoo),          |
|                    | `ratenvs/CatzRatzBatz-v0` (Gymnasium, one learner) |

## Options

{options}

All dice are public: a seat's view only marks the seat "(you)".

## Observation

All information is public. The pieces (``env.observer.pieces``; for 2 seats):

{observation}

``env.state()`` is the same table from seat 0 (``state_space``).

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

{illegal_actions}

## Version history

- v0: first release.
"""

from __future__ import annotations

from ratenvs.catz_ratz_batz import render
from ratenvs.catz_ratz_batz.rules import CatzRatzBatz
from ratenvs.common.aec import (
    TURN_BASED_ILLEGAL_ACTIONS,
    GameAECEnv,
    GameParallelEnv,
    options_table,
)
from ratenvs.common.wrappers import env_function


# the names raw_env, env and parallel_env are PettingZoo's convention
class raw_env(GameAECEnv, game=CatzRatzBatz, draw=render.draw):
    """Catz, Ratz and Batz for 1 - 6 seats, AEC form (see the module docstring)."""


env = env_function(raw_env)


class parallel_env(GameParallelEnv, game=CatzRatzBatz, draw=render.draw):
    """Catz, Ratz and Batz, parallel form: each step takes the action of the one seat to act."""


__doc__ = __doc__.format(
    illegal_actions=TURN_BASED_ILLEGAL_ACTIONS,
    options=options_table(CatzRatzBatz),
    observation=CatzRatzBatz(num_players=2).observer("knowledge").table(),
)
