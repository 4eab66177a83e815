"""
# Ratto Zakko

A real-time PettingZoo environment for the reaction game Ratto Zakko (Drei
Magier 2019, English "Natty Ratty"; rules: ``RULES.md`` section 3). A card is
revealed; in every tick of ``tick_ms`` milliseconds each seat that has not
answered this card waits or gives one response; answers of the same tick are
simultaneous. The first correct answer wins the card and the jackpot.

| Import             | `from ratenvs import ratto_zakko_v0`                      |
|--------------------|-----------------------------------------------------------|
| Actions            | Discrete(25)                                              |
| Parallel API       | Yes (`parallel_env()`: one simultaneous step per tick)    |
| Manual control     | `ratenvs play ratto-zakko`                                |
| Agents             | `agents = ['player_0', ..., 'player_{{n-1}}']`              |
| Agents count       | 2 - 8 (`num_players`, default 4)                          |
| Action shape       | (1,)                                                      |
| Action values      | 0 - 24                                                    |
| Observation shape  | (35 + 3 n,) float32 (+ 40 `public_record`, + 13           |
|                    | `answer_beliefs`), plus an int8 `action_mask` (25,)       |
| Registered ids     | `ratenvs/ratto_zakko-v0` (PettingZoo AEC and parallel),   |
|                    | `ratenvs/RattoZakko-v0` (Gymnasium: one learner, 4 seats, |
|                    | the other three "adult" human-model bots)                 |

## Options

Declared once in :class:`~ratenvs.ratto_zakko.rules.RattoZakko` (``RattoZakko.options``):

{options}

Pictures: ``render_mode="rgb_array"`` draws the five cloches, the shaker, the
fly (when the view may know it), the card (a seat's view: as perceived so
far), the tick, the players' cards and answers, the jackpot and the deck
(:mod:`ratenvs.ratto_zakko.render`); "ansi" returns the text from
``render_view`` (``env.render_text(view)``): the truth for "omniscient", for a
seat only what its observation carries (the card as perceived so far, the fly
only when shown).

Further rulings (no option): the jackpot left after the last card stays
unclaimed; a returned card is the returning seat's most recently won card;
"the same moment" is the same tick.

## Time

A card opens at tick 0. In the AEC form (`env()`, `raw_env`) the seats that
have not answered act one after another in seat order within a tick, and the
tick resolves after the last of them; nobody sees an answer of the same tick
before it resolves. `parallel_env()` takes all of a tick's actions in one
`step`. The card resolves at the earliest tick with a correct answer, when
every seat has answered, or after `window_ticks` ticks. If it had a winner
and was a fly or rat event, the winner alone then decides the relocation (an
extra decision outside the clock); then the winner deals the next card.

## Observation

The pieces (``env.observer.pieces``, named views with ``env.observer.views(obs)``;
for 2 seats with ``answer_beliefs=True`` and ``public_record=True``; see
:mod:`ratenvs.ratto_zakko.observe`):

{observation}

``env.state()`` is the whole truth (the ``privileged`` observer, in
``env.state_space``): the true card, the fly, every seat's answers and
perception, the deck's composition.

## Actions

| action   | meaning                                          |
|----------|--------------------------------------------------|
| 0        | wait                                             |
| 1 - 5    | grab the apple, egg, cheese, fish, chili cloche  |
| 6, 7     | shout FLY, shout RAT                             |
| 8 - 12   | shout apple, egg, cheese, fish, chili            |
| 13       | bang the table                                   |
| 14 - 18  | (relocating winner) move the fly under a cloche  |
| 19 - 23  | (relocating winner) move the shaker onto a cloche|
| 24       | (relocating winner) no move                      |

## Rewards

- "cards": when a card resolves, the winner gets +1 for every card it takes
  (the card, the jackpot, the returned cards); each seat that returned a
  card gets -1. Nothing else.
- "win": at the end, ``r_i = n/(n-1) * (won_i / w - 1/n)`` with ``w`` tied
  winners (most cards): a sole winner +1, the losers share -1.

## Illegal actions

An action is an integer (Python or numpy, or a 0-d integer array); nothing else
(2.5, True, "1") is ever coerced into one. An action the mask forbids: `raw_env`
raises :class:`~ratenvs.common.aec.IllegalActionError` (a ValueError) naming it
and the legal actions, the game unchanged; `env()` applies PettingZoo classic's
handling: the game ends and the offending seat gets -1. An action outside the
action space (-1, 10**6, 2.5, "1", or None for a live agent) is a programming
error, not a move: `raw_env` and `env()` raise
:class:`~ratenvs.common.aec.ActionOutOfBoundsError` (an IllegalActionError, and an
AssertionError as PettingZoo's bounds check, kept under `python -O`) naming the
action and the action space, the game unchanged. `parallel_env()` never fails on
an action (PettingZoo's parallel seed test samples without masks): an action the
seat's mask forbids, one outside the action space, or a missing one, counts as
**wait**; for the relocating winner it counts as **leave both**. (The gymnasium
door ends the episode with -1 for any action that is not legal, or raises the
same errors as `raw_env` with `illegal_action="raise"`.)

## Version history

- v0: first release.
"""

from __future__ import annotations

from ratenvs.common.aec import GameAECEnv, GameParallelEnv, options_table
from ratenvs.common.wrappers import env_function
from ratenvs.ratto_zakko import render
from ratenvs.ratto_zakko.rules import MAX_PLAYERS, MIN_PLAYERS, RattoZakko

__all__ = ["MAX_PLAYERS", "METADATA", "MIN_PLAYERS", "env", "parallel_env", "raw_env"]


# the names raw_env, env and parallel_env are PettingZoo's convention
class raw_env(GameAECEnv, game=RattoZakko, draw=render.draw, render_fps=4):
    """Ratto Zakko for 2 - 8 seats, AEC form (see the module docstring)."""


env = env_function(raw_env)
METADATA = raw_env.metadata


class parallel_env(GameParallelEnv, game=RattoZakko, draw=render.draw, render_fps=4):
    """Ratto Zakko, parallel form: one ``step`` is one tick (or the winner's relocation).

    Same options as :class:`raw_env`. Every live agent gets an observation
    and mask; an action a seat's mask forbids (or a missing one) counts as
    wait, for the relocating winner as "leave both". The same seed and the
    same actions give the same game as the AEC form.
    """


__doc__ = __doc__.format(
    options=options_table(RattoZakko),
    observation=RattoZakko(num_players=2, answer_beliefs=True, public_record=True)
    .observer("knowledge")
    .table(),
)
