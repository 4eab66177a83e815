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
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`              |
| Agents count       | 2 - 8 (`num_players`, default 4)                          |
| Action shape       | (1,)                                                      |
| Action values      | 0 - 24                                                    |
| Observation shape  | (35 + 3 n,) float32, plus an int8 `action_mask` (25,)     |
| Registered ids     | `ratenvs/ratto_zakko-v0` (PettingZoo AEC and parallel),   |
|                    | `ratenvs/RattoZakko-v0` (Gymnasium: one learner, 4 seats, |
|                    | the other three "adult" human-model bots)                 |

## Options

| option         | default      | meaning                                                        |
|----------------|--------------|----------------------------------------------------------------|
| `num_players`  | 4            | seats, 2 - 8                                                   |
| `level`        | "starter"    | "starter" (47 cards, no rats), "main" (54), "dessert" (54 and  |
|                |              | BANG on a food in its original colour)                         |
| `tick_ms`      | 25           | length of a tick in milliseconds (1 - 1000)                    |
| `window_ticks` | 120          | ticks a card stays open (3 s); then nobody was right           |
| `perception`   | "gradual"    | "gradual": one noisy glimpse per tick, the observation carries |
|                |              | the Bayes posterior (calibrated: an ideal observer is 95% sure |
|                |              | after ~8 ticks); "clear": the card is fully seen at tick 0     |
| `observation`  | "knowledge"  | "knowledge": the fly's hiding place is always in the           |
|                |              | observation; "memoryless": only at the first tick of the game  |
|                |              | and of the card after it moved                                 |
| `reward`       | "cards"      | "cards": +1 per card won, -1 per card returned; "win":         |
|                |              | zero-sum at the end (see below)                                |
| `original_colour_cards` | 4   | ruling: of each food's 8 cards, 4 in its original colour and   |
|                |              | 1 in each other colour; 0 (2 in each other colour) or 8 (all   |
|                |              | in the original colour) are the variants                       |
| `fly_card_under_shaker` | "grab" | ruling: a fly card is answered by grabbing the fly's cloche |
|                |              | even under the shaker; "rat": shout RAT then                   |
| `relocation`   | "one"        | ruling: after a fly or rat event the winner moves the fly or   |
|                |              | the shaker or nothing; "both": first the fly, then the shaker  |
| `answer_beliefs` | False      | True appends 13 entries: how likely each response is the       |
|                |              | correct answer, by the seat's own posteriors and the table it  |
|                |              | knows (no new information; saves a learner the rules)          |
| `render_mode`  | None         | None, "ansi" (returns text), "rgb_array" (returns an (H, W, 3) |
|                |              | uint8 picture) or "human" (shows the picture in a window)      |
| `render_view`  | "omniscient" | whose view the picture shows: "omniscient" (the truth: fly,    |
|                |              | card, every answer) or an agent name (only what that seat's    |
|                |              | observation carries, see :mod:`ratenvs.ratto_zakko.frames`)    |

Pictures: ``render_mode="rgb_array"`` draws the five cloches, the shaker, the
fly (when the view may know it), the card (a seat's view: as perceived so
far), the tick, the players' cards and answers, the jackpot and the deck
(:mod:`ratenvs.ratto_zakko.frames`); "ansi" returns the text of the whole
table (the truth).

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

See :mod:`ratenvs.ratto_zakko.observe` for the index table: the seat's own
perception posteriors (7 identities, 5 colours), shaker and fly (as the
observation mode allows), level, tick and time, relocation phase, jackpot,
cards left, cards won by each seat, who answered in an earlier tick, dealer.

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

`raw_env` raises :class:`~ratenvs.common.aec.IllegalActionError` (a
ValueError). `env()` applies PettingZoo classic's handling: the game ends and
the offending seat gets -1. `parallel_env()` never fails on an action
(PettingZoo's parallel seed test samples without masks): an action the seat's
mask forbids, or a missing one, counts as **wait**; for the relocating
winner it counts as **leave both**.

## Version history

- v0: first release.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from ratenvs.common.legacy_aec import LegacyAECEnv as GameAECEnv
from ratenvs.common.options import check_bool, check_choice, check_int, check_render_mode
from ratenvs.common.render import HumanWindow, check_render_view
from ratenvs.common.rewards import win_rewards
from ratenvs.common.wrappers import classic_env
from ratenvs.ratto_zakko import frames, rules
from ratenvs.ratto_zakko.observe import (
    ACTION_RELOCATE_FIRST,
    ACTION_RESPONSE_FIRST,
    ACTION_WAIT,
    NUM_ACTIONS,
    OBSERVATIONS,
    action_mask,
    observation_bounds,
    observe,
)
from ratenvs.ratto_zakko.perception import DEFAULT_GLIMPSE_SNR, PERCEPTIONS

REWARD_MODES = ("cards", "win")
MIN_PLAYERS = 2
MAX_PLAYERS = 8
MAX_TICK_MS = 1000
MAX_WINDOW_TICKS = 10_000
METADATA: dict[str, Any] = {
    "render_modes": ["ansi", "human", "rgb_array"],
    "name": "ratto_zakko_v0",
    "is_parallelizable": False,
    "render_fps": 4,
}


@dataclass(frozen=True)
class Config:
    """The checked options of one env."""

    num_players: int
    level: str
    tick_ms: int
    window_ticks: int
    perception: str
    observation: str
    reward: str
    original_colour_cards: int = rules.CARDS_PER_FOOD_IN_ORIGINAL_COLOUR
    fly_card_under_shaker: str = "grab"
    relocation: str = "one"
    answer_beliefs: bool = False

    @property
    def memoryless(self) -> bool:
        return self.observation == "memoryless"

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Low and high bounds of the observation vector with these options."""
        return observation_bounds(
            self.num_players, self.tick_ms, self.window_ticks, self.answer_beliefs
        )

    def observe(self, state: rules.State, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` with these options (:func:`observe.observe`)."""
        return observe(state, seat, self.tick_ms, self.memoryless, self.answer_beliefs)


def make_config(
    num_players: int = 4,
    level: str = "starter",
    tick_ms: int = 25,
    window_ticks: int = 120,
    perception: str = "gradual",
    observation: str = "knowledge",
    reward: str = "cards",
    original_colour_cards: int = rules.CARDS_PER_FOOD_IN_ORIGINAL_COLOUR,
    fly_card_under_shaker: str = "grab",
    relocation: str = "one",
    answer_beliefs: bool = False,
) -> Config:
    """Check every option (a ValueError names a bad one)."""
    if original_colour_cards not in rules.ORIGINAL_COLOUR_CARD_CHOICES or isinstance(
        original_colour_cards, bool
    ):
        raise ValueError(
            "option 'original_colour_cards' must be one of "
            f"{rules.ORIGINAL_COLOUR_CARD_CHOICES}, got {original_colour_cards!r}"
        )
    answer_beliefs = check_bool("answer_beliefs", answer_beliefs)
    if answer_beliefs and observation == "memoryless":
        raise ValueError(
            "option 'answer_beliefs' needs observation='knowledge': the beliefs use where the "
            "fly hides, which a memoryless observation does not show"
        )
    return Config(
        num_players=check_int("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS),
        level=check_choice("level", level, rules.LEVELS),
        tick_ms=check_int("tick_ms", tick_ms, 1, MAX_TICK_MS),
        window_ticks=check_int("window_ticks", window_ticks, 1, MAX_WINDOW_TICKS),
        perception=check_choice("perception", perception, PERCEPTIONS),
        observation=check_choice("observation", observation, OBSERVATIONS),
        reward=check_choice("reward", reward, REWARD_MODES),
        original_colour_cards=int(original_colour_cards),
        fly_card_under_shaker=check_choice(
            "fly_card_under_shaker", fly_card_under_shaker, rules.FLY_CARD_RULES
        ),
        relocation=check_choice("relocation", relocation, rules.RELOCATION_MODES),
        answer_beliefs=answer_beliefs,
    )


def new_state(config: Config, rng: np.random.Generator) -> rules.State:
    """A fresh game for ``config``."""
    return rules.new_game(
        config.num_players,
        config.level,
        config.window_ticks,
        config.perception,
        DEFAULT_GLIMPSE_SNR,
        rng,
        original_colour_cards=config.original_colour_cards,
        fly_card_under_shaker=config.fly_card_under_shaker,
        relocation=config.relocation,
    )


def game_state_dict(state: rules.State) -> dict[str, Any]:
    """The whole game as JSON-ready data (the truth, for replays and debugging)."""
    last = state.last_result
    return {
        "level": state.level,
        "phase": ["react", "relocate", "over"][state.phase],
        "card": None if state.card is None else rules.CARD_NAMES[state.card],
        "tick": state.tick,
        "shaker_on": rules.FOODS[state.shaker_on],
        "fly_under": rules.FOODS[state.fly_under],
        "dealer": state.dealer,
        "relocator": state.relocator,
        "relocation_stage": state.relocation_stage,
        "answers": [
            None if a == rules.NO_ANSWER else [rules.RESPONSES[a], t]
            for a, t in zip(state.answer, state.answer_tick)
        ],
        "cards_won": state.card_counts(),
        "won_piles": [[rules.CARD_NAMES[c] for c in pile] for pile in state.won],
        "jackpot": [rules.CARD_NAMES[c] for c in state.jackpot],
        "deck": [rules.CARD_NAMES[c] for c in state.deck],
        "cards_dealt": state.cards_dealt,
        "last_result": None
        if last is None
        else {
            "card": rules.CARD_NAMES[last.card],
            "correct": rules.RESPONSES[last.correct],
            "tick": last.tick,
            "winner": last.winner,
            "answers": {str(s): [rules.RESPONSES[a], t] for s, (a, t) in last.answers.items()},
            "returned_by": list(last.returned_by),
            "tied": list(last.tied),
            "cards_won": last.cards_won,
            "event": last.event,
        },
    }


def render_text(state: rules.State, agents: Sequence[str]) -> str:
    """A few lines describing the table (the truth)."""
    lines = [
        f"level {state.level}  shaker on {rules.FOODS[state.shaker_on]}  "
        f"fly under {rules.FOODS[state.fly_under]}  jackpot {len(state.jackpot)}  "
        f"deck {len(state.deck)}"
    ]
    last = state.last_result
    if last is not None:
        who = "nobody (jackpot)" if last.winner is None else agents[last.winner]
        lines.append(
            f"last card {rules.CARD_NAMES[last.card]}: {rules.RESPONSES[last.correct]} "
            f"-> {who} at tick {last.tick}"
        )
    for i, a in enumerate(agents):
        ans = state.answer[i] if state.phase == rules.PHASE_REACT else rules.NO_ANSWER
        said = "" if ans == rules.NO_ANSWER else f"  answered {rules.RESPONSES[ans]}"
        lines.append(f"  {a}: {len(state.won[i]):2d} cards{said}")
    if state.phase == rules.PHASE_REACT:
        lines.append(f"card {rules.CARD_NAMES[state.card]}  tick {state.tick}")
    elif state.phase == rules.PHASE_RELOCATE:
        lines.append(f"{agents[state.relocator]} may move the fly or the shaker")
    else:
        winners = [a for a, w in zip(agents, state.winners()) if w]
        lines.append(f"game over - winner(s): {', '.join(winners)}")
    return "\n".join(lines)


def env(**kwargs: Any) -> GameAECEnv:
    """The wrapped AEC env: PettingZoo classic's illegal-move handling (the game ends, the
    offender gets -1), bounds check and order enforcing, fused into one fast wrapper."""
    return classic_env(raw_env(**kwargs), illegal_reward=-1)


class raw_env(GameAECEnv):  # PettingZoo naming convention
    """Ratto Zakko for 2 - 8 seats, AEC form (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = METADATA

    def __init__(
        self,
        num_players: int = 4,
        level: str = "starter",
        tick_ms: int = 25,
        window_ticks: int = 120,
        perception: str = "gradual",
        observation: str = "knowledge",
        reward: str = "cards",
        original_colour_cards: int = rules.CARDS_PER_FOOD_IN_ORIGINAL_COLOUR,
        fly_card_under_shaker: str = "grab",
        relocation: str = "one",
        answer_beliefs: bool = False,
        render_mode: str | None = None,
        render_view: str = "omniscient",
    ) -> None:
        super().__init__()
        self.config = make_config(
            num_players,
            level,
            tick_ms,
            window_ticks,
            perception,
            observation,
            reward,
            original_colour_cards,
            fly_card_under_shaker,
            relocation,
            answer_beliefs,
        )
        low, high = self.config.bounds()
        self._setup_spaces(
            self.config.num_players, low, high, NUM_ACTIONS, render_mode, render_view
        )
        self.truth = new_state(self.config, np.random.default_rng(0))
        self._queue: list[int] = self.truth.to_act()
        self._pos = 0

    # ------------------------------------------------------------ the game
    def _new_game(self) -> None:
        self.truth = new_state(self.config, self.np_random)
        self._queue = self.truth.to_act()
        self._pos = 0

    def _current_seat(self) -> int:
        return self._queue[self._pos]

    def _action_mask(self, seat: int) -> np.ndarray:
        if self.truth.phase == rules.PHASE_OVER or seat != self._queue[self._pos]:
            return self._no_actions.copy()
        return action_mask(self.truth, seat)

    def _apply(self, seat: int, action: int) -> Sequence[float] | None:
        state = self.truth
        delta = None
        if state.phase == rules.PHASE_RELOCATE:
            rules.relocate(state, seat, action - ACTION_RELOCATE_FIRST, self.np_random)
            self._queue = state.to_act()
            self._pos = 0
        else:
            rules.submit(
                state,
                seat,
                rules.WAIT if action == ACTION_WAIT else action - ACTION_RESPONSE_FIRST,
            )
            self._pos += 1
            if self._pos == len(self._queue):
                delta = rules.end_tick(state, self.np_random)
                self._queue = state.to_act()
                self._pos = 0
        return _step_rewards(self.config, state, delta)

    def _is_over(self) -> bool:
        return self.truth.phase == rules.PHASE_OVER

    def _observation_vector(self, seat: int) -> np.ndarray:
        return self.config.observe(self.truth, seat)

    # ----------------------------------------------------------- utilities
    def game_state(self) -> dict[str, Any]:
        """The whole game as JSON-ready data (the truth, for replays and debugging)."""
        return game_state_dict(self.truth)

    def _render_text(self) -> str:
        return render_text(self.truth, self.possible_agents)

    _draws_frames = True

    def _render_frame(self) -> np.ndarray:
        """The table as a picture from ``render_view`` (see :mod:`ratenvs.ratto_zakko.frames`)."""
        c = self.config
        return frames.draw(
            self.truth, self.possible_agents, self.render_seat, c.tick_ms, c.memoryless
        )


def _step_rewards(
    config: Config, state: rules.State, delta: list[int] | None
) -> list[float] | None:
    """This step's rewards per seat in the configured reward mode."""
    if config.reward == "cards":
        if delta is None or not any(delta):
            return None
        return [float(d) for d in delta]
    if state.phase == rules.PHASE_OVER:
        return win_rewards(state.winners()).tolist()
    return None


class parallel_env(ParallelEnv):  # PettingZoo naming convention
    """Ratto Zakko, parallel form: one ``step`` is one tick (or the winner's relocation).

    Same options as :class:`raw_env`. Every live agent gets an observation
    and mask; an action a seat's mask forbids (or a missing one) counts as
    wait, for the relocating winner as "leave both". The same seed and the
    same actions give the same game as the AEC form.
    """

    metadata: ClassVar[dict[str, Any]] = METADATA

    def __init__(
        self,
        num_players: int = 4,
        level: str = "starter",
        tick_ms: int = 25,
        window_ticks: int = 120,
        perception: str = "gradual",
        observation: str = "knowledge",
        reward: str = "cards",
        original_colour_cards: int = rules.CARDS_PER_FOOD_IN_ORIGINAL_COLOUR,
        fly_card_under_shaker: str = "grab",
        relocation: str = "one",
        answer_beliefs: bool = False,
        render_mode: str | None = None,
        render_view: str = "omniscient",
    ) -> None:
        self.config = make_config(
            num_players,
            level,
            tick_ms,
            window_ticks,
            perception,
            observation,
            reward,
            original_colour_cards,
            fly_card_under_shaker,
            relocation,
            answer_beliefs,
        )
        self.render_mode = check_render_mode(render_mode, self.metadata["render_modes"])
        n = self.config.num_players
        self.num_players = n
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.render_view = check_render_view(render_view, self.possible_agents)
        self._window: HumanWindow | None = None
        low, high = self.config.bounds()
        obs_box = spaces.Box(low=low, high=high, dtype=np.float32)
        mask_box = spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": obs_box, "action_mask": mask_box})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.agents: list[str] = []
        self.truth = new_state(self.config, np.random.default_rng(0))

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        c = self.config
        return {
            a: {
                "observation": c.observe(self.truth, i),
                "action_mask": action_mask(self.truth, i),
            }
            for i, a in enumerate(self.possible_agents)
            if a in self.agents
        }

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a new game; ``seed`` re-seeds the env's generator (reset takes no options)."""
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.agents = self.possible_agents[:]
        self.truth = new_state(self.config, self.np_random)
        if self.render_mode == "human":
            self.render()
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """Play one tick (or the relocation) with ``actions`` (agent -> action)."""
        state = self.truth
        names = self.possible_agents
        delta = None
        if state.phase == rules.PHASE_RELOCATE:
            seat = state.relocator
            a = _legal_or(actions.get(names[seat]), action_mask(state, seat), None)
            choice = rules.LEAVE_BOTH if a is None else a - ACTION_RELOCATE_FIRST
            rules.relocate(state, seat, choice, self.np_random)
        elif state.phase == rules.PHASE_REACT:
            for seat in state.to_act():
                a = _legal_or(actions.get(names[seat]), action_mask(state, seat), ACTION_WAIT)
                rules.submit(
                    state, seat, rules.WAIT if a == ACTION_WAIT else a - ACTION_RESPONSE_FIRST
                )
            delta = rules.end_tick(state, self.np_random)
        step_rewards = _step_rewards(self.config, state, delta)
        rewards = {
            a: 0.0 if step_rewards is None else float(step_rewards[i])
            for i, a in enumerate(names)
            if a in self.agents
        }
        over = state.phase == rules.PHASE_OVER
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, False)
        infos = {a: {} for a in self.agents}
        observations = self._observations()
        if over:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def game_state(self) -> dict[str, Any]:
        """The whole game as JSON-ready data (the truth, for replays and debugging)."""
        return game_state_dict(self.truth)

    def render(self) -> str | np.ndarray | None:
        """ "ansi": the text; "rgb_array": the picture from ``render_view``; "human": shows it
        in a window."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=...")
            return None
        if self.render_mode == "ansi":
            return render_text(self.truth, self.possible_agents)
        view = self.render_view
        seat = None if view == "omniscient" else self.agent_name_mapping[view]
        c = self.config
        frame = frames.draw(self.truth, self.possible_agents, seat, c.tick_ms, c.memoryless)
        if self.render_mode == "rgb_array":
            return frame
        if self._window is None:
            self._window = HumanWindow(self.metadata["name"])
        self._window.show(frame, self.metadata["render_fps"])
        return None

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None


def _legal_or(action: Any, mask: np.ndarray, default: int | None) -> int | None:
    """``action`` as an int if ``mask`` allows it, else ``default``."""
    try:
        a = int(action)
    except (TypeError, ValueError):
        return default
    if 0 <= a < NUM_ACTIONS and mask[a]:
        return a
    return default
