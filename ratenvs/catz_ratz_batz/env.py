"""
# Catz, Ratz and Batz

A PettingZoo AEC environment for the nine-dice game (rules: ``docs/RULES.md``
section 2). Seats take turns; a turn starts with a roll of all nine dice and
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

An action is an integer (Python or numpy, or a 0-d integer array); nothing else
(2.5, True, "1") is ever coerced into one. An action the mask forbids: `raw_env`
and `parallel_env()` raise :class:`~ratenvs.common.aec.IllegalActionError` (a
ValueError) naming it and the legal actions, the game unchanged; `env()` applies
PettingZoo classic's handling: the game ends and the offending seat gets -1. An
action outside the action space (-1, 10**6, 2.5, "1", or None for a live agent) is
a programming error, not a move: `raw_env`, `env()` and `parallel_env()` raise
:class:`~ratenvs.common.aec.ActionOutOfBoundsError` (an IllegalActionError, and an
AssertionError as PettingZoo's bounds check, kept under `python -O`) naming the
action and the action space, the game unchanged. (The gymnasium door ends the
episode with -1 for any action that is not legal, or raises the same errors with
`illegal_action="raise"`.)

## Version history

- v0: first release.
"""

from __future__ import annotations

from ratenvs.catz_ratz_batz import render
from ratenvs.catz_ratz_batz.rules import CatzRatzBatz
from ratenvs.common.aec import GameAECEnv, GameParallelEnv, options_table
from ratenvs.common.wrappers import env_function


# the names raw_env, env and parallel_env are PettingZoo's convention
class raw_env(GameAECEnv, game=CatzRatzBatz, draw=render.draw):
    """Catz, Ratz and Batz for 1 - 6 seats, AEC form (see the module docstring)."""


env = env_function(raw_env)


class parallel_env(GameParallelEnv, game=CatzRatzBatz, draw=render.draw):
    """Catz, Ratz and Batz, parallel form: each step takes the action of the one seat to act."""


__doc__ = __doc__.format(
    options=options_table(CatzRatzBatz),
    observation=CatzRatzBatz(num_players=2).observer("knowledge").table(),
)
