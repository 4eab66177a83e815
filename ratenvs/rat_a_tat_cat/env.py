"""
# Rat-a-Tat Cat

A PettingZoo AEC environment for the memory card game (rules: ``RULES.md``
section 1). Each player has four face-down cards and wants the lowest total;
it sees only what the rules let it see. A turn is a few decisions in one
``Discrete`` action space: draw or take the discard, then place / discard /
use the card, then knock or not.

| Import             | `from ratenvs import rat_a_tat_cat_v1`                  |
|--------------------|---------------------------------------------------------|
| Actions            | Discrete(15 + 16 (n - 1))                               |
| Parallel API       | Yes (`parallel_env()`: one player acts per step)        |
| Manual control     | `ratenvs play rat-a-tat-cat --players 3`                |
| Agents             | `agents = ['player_0', ..., 'player_{{n-1}}']`            |
| Agents count       | 2 - 6 (`num_players`, default 2)                        |
| Action shape       | (1,)                                                    |
| Action values      | 0 - 14 + 16 (n - 1)                                     |
| Observation shape  | (64 n + 67,) float32 (72 n + 67 with `owner_ceilings`), |
|                    | plus an int8 `action_mask`                              |
| Registered ids     | `ratenvs/rat_a_tat_cat-v1` (PettingZoo),                |
|                    | `ratenvs/RatATatCat-v1` (Gymnasium, one learner against |
|                    | heuristic bots, 2 players)                              |

## Options

{options}

Rulings of RULES.md that are not choices are fixed: a power card turned as the
first discard is shuffled back; a power card on the discard pile is dead; the
discard pile is shuffled into the new draw pile as soon as the last card is
drawn (no take until something is discarded); a knock made before
``max_turns_per_round`` is honoured past it; power cards in hands at the end go
to the bottom of the draw pile and are replaced (the discard pile is shuffled in when the draw pile
holds no number card); the player left of the dealer starts (round 1: player
0) and the deal rotates: each round's first turn passes to the next player still in
after the last round's starter (a player who is out starts no round).

## Observation

What a seat may see (:mod:`ratenvs.rat_a_tat_cat.observe`, ``env.observer``): for
every slot (observer first, then the others in turn order) what the observer knows
of the card (its kind, "a number", or unknown); the discard top; the card it
holds; its decision phase; whose turn it is; who knocked and the turns left;
turns played; pile sizes; totals; who is still in; rounds done; and
``unseen_counts`` and ``draw_pool`` (knowledge mode: the cards the observer has not
located, and which of them came with the draw pile's last shuffle - after a
reshuffle of the discard pile, whose cards everyone saw, that composition is
public). The "memoryless" mode keeps only the table as it is now and what the
observer saw since its last decision. With
``owner_ceilings=True``, for every slot also whether its owner has seen the card
and the card's ceiling: the lowest value the owner has let go of while keeping it
(public play: a card declined from the discard pile, a drawn card discarded, a
card replaced; the bot ``ceiling`` reads it). The pieces
(``env.observer.pieces``; for 2 players with ``owner_ceilings=True``):

{observation}

``env.state()`` is the ``privileged`` observer: the whole truth in seat order
(every card in every hand, the held card, the draw pile's composition, ...), in
``env.state_space``; see :mod:`ratenvs.rat_a_tat_cat.observe` for its pieces.

The text view (``render_text(agent)``, ``render_mode="ansi"``) and the picture of
a seat are built by the same observer and show only what its observation carries:
another player's held card is never named or shown face up, even a card taken
from the discard pile.

## Actions

| action | meaning | legal in phase |
|---|---|---|
| 0 | draw the top card of the draw pile | start |
| 1 | take the top discard (only a number card) | start |
| 2 - 5 | place the held card in own slot 0 - 3; the old card is discarded face up | place, number |
| 6 | discard the drawn number card | number |
| 7 - 10 | use a Peek: look at own slot 0 - 3 | peek |
| 11 | use a Draw 2: draw the next card | draw2 |
| 12 | decline the power card (it is discarded) | peek, swap, draw2 |
| 13 | knock | knock |
| 14 | do not knock | knock |
| 15 + 16 (k-1) + 4 a + b | use a Swap: own slot a with slot b of the k-th next player | swap |

A Swap is blind; ``k`` (1 .. n - 1) counts the seats from the player to the other one.

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

{illegal_actions}

## Extras

- ``game_state()``: the whole truth as JSON-ready data (never used by observations).
- ``resample_from_infostate(agent, seed)``: a new ``raw_env`` consistent with
  everything ``agent`` knows (see :mod:`ratenvs.rat_a_tat_cat.resample`). The other
  players keep only the knowledge public play gave them (their outer cards at the deal,
  cards they placed, cards taken from the discard pile, moved by swaps); which card their
  Peeks showed is not public (nor, outside a Draw 2 sequence, whether a Peek was used),
  so each of their Peeks looks again at a slot drawn with the seed.
- Pictures: ``render_mode="rgb_array"`` draws the table from ``render_view`` (an
  800-pixel-wide frame, one row of four cards per player; see
  :mod:`ratenvs.rat_a_tat_cat.render`); "human" shows it in a pygame window.
- Records: :mod:`ratenvs.rat_a_tat_cat.record` (on :mod:`ratenvs.common.record`)
  saves (seed, options, actions) as JSON and replays it identically.

## Version history

- v1 (ratenvs 0.2.0): the rulings of RULES.md section 1 as the seeds read: a
  player is out of an elimination game when its total exceeds ``target_score``
  (option ``eliminate_at``, "reaches" for v0's rule); a knock made before the
  turn cap is honoured past it; the discard pile is reshuffled as soon as the
  draw pile's last card is drawn (v0: at the next draw); the knowledge
  observation gained ``draw_pool`` (13 entries after ``unseen_counts``), and
  ``turns_played`` stays at 1 past the cap. Checkpoints of v0 are migrated by the
  repository's ``python -m training.migrate`` (the new inputs get zero weights).
- v0: first release; the option ``owner_ceilings`` came later (default off, so
  observations without it are unchanged), and so did the reward mode
  "zero_sum_win" (the default reward is unchanged).
"""

from __future__ import annotations

import numpy as np
from gymnasium.utils import seeding

from ratenvs.common.aec import (
    TURN_BASED_ILLEGAL_ACTIONS,
    GameAECEnv,
    GameParallelEnv,
    options_table,
)
from ratenvs.common.options import check_seed
from ratenvs.common.wrappers import env_function
from ratenvs.rat_a_tat_cat import render
from ratenvs.rat_a_tat_cat.resample import resample_state
from ratenvs.rat_a_tat_cat.rules import (
    ELIMINATION_TIEBREAKS,
    POINTS_SCALE,
    REWARD_MODES,
    RatATatCat,
)

__all__ = [
    "ELIMINATION_TIEBREAKS",
    "POINTS_SCALE",
    "REWARD_MODES",
    "env",
    "parallel_env",
    "raw_env",
]


# the names raw_env, env and parallel_env are PettingZoo's convention
class raw_env(GameAECEnv, game=RatATatCat, draw=render.draw):
    """Rat-a-Tat Cat for 2 - 6 players, AEC form (see the module docstring)."""

    def resample_from_infostate(self, agent: str, seed: int | None = None) -> raw_env:
        """A new raw env whose state agrees with everything ``agent`` knows, with everything
        it does not (unknown slots, the draw pile, another player's privately drawn card)
        shuffled; the new env's generator is seeded with ``seed`` (None or an integer >= 0,
        as at ``reset``). It renders as this env does, but never in a window: a "human"
        env's copies have no render mode (a search stepping them would open windows)."""
        seed = check_seed(seed)
        if agent not in self.agent_name_mapping:
            raise ValueError(f"unknown agent {agent!r}; choose one of {self.possible_agents}")
        seat = self.agent_name_mapping[agent]
        rng = np.random.default_rng(seed)
        mode = None if self.render_mode == "human" else self.render_mode
        new = raw_env(**self.options, render_mode=mode, render_view=self.render_view)
        new.np_random, new.np_random_seed = seeding.np_random(seed)
        new.truth = resample_state(self.truth, seat, rng)
        new._dealt = self._dealt
        new.agents = self.agents[:]
        new.rewards = dict(self.rewards)
        new._cumulative_rewards = dict(self._cumulative_rewards)
        new.terminations = dict(self.terminations)
        new.truncations = dict(self.truncations)
        new.infos = {a: dict(i) for a, i in self.infos.items()}
        new.agent_selection = self.agent_selection
        new._queue = new.game.to_act(new.truth)
        new._pending = {}
        return new


env = env_function(raw_env)


class parallel_env(GameParallelEnv, game=RatATatCat, draw=render.draw):
    """Rat-a-Tat Cat, parallel form: each step takes the action of the one player to act."""


__doc__ = __doc__.format(
    illegal_actions=TURN_BASED_ILLEGAL_ACTIONS,
    options=options_table(RatATatCat),
    observation=RatATatCat(num_players=2, owner_ceilings=True).observer("knowledge").table(),
)
