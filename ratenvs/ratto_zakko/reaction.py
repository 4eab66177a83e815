"""Human-model Ratto Zakko players: reaction times, interference and errors from the literature.

A :class:`HumanBot` decides from its seat's observation only (the perception
posteriors, the shaker and the fly as its observation mode allows, the level
and the time since the card was revealed). For every new card it draws, from
the generator it is given, one ex-Gaussian reaction-time deviation and one
error lottery; it answers at the first tick whose end is at least

    RT = a + b * log2(N + 1) + [interference if the card is a conflict card] + deviation

milliseconds after the card was revealed, where ``N`` is the number of
responses that can be correct at the level (starter 7, main 12, dessert 13;
:data:`~ratenvs.ratto_zakko.rules.RESPONSES_AT_LEVEL`). The answer is the
oracle's response for the card it perceives at that moment (the most probable
identity and colour), except that with the preset's error probability (higher
on conflict cards) it gives a wrong one: on a conflict card usually the
prepotent "lure" (grabbing the pictured food when an override applies, the
cloche of the card's colour, shouting RAT on a rat card ...), otherwise any
other response of the level.

Conflict cards (:func:`is_conflict`): a fly or rat card (their answers
override the picture: the fly's hidden cloche, the food under the shaker), a
food card whose cloche holds the shaker or the fly (RAT / FLY override the
grab), a food card in a foreign colour (the colour names another cloche: a
Stroop-like conflict), and at the dessert level a food card in its original
colour (the BANG rule).

Sources for the constants (set where they are defined below):

- Hick, W. E. (1952). On the rate of gain of information. Quarterly Journal
  of Experimental Psychology 4, 11-26; Hyman, R. (1953). Stimulus information
  as a determinant of reaction time. Journal of Experimental Psychology 45,
  188-196: choice RT = a + b log2(N + 1), b about 150 ms per bit for
  unpractised adults.
- Simple visual reaction time about 190-250 ms: Luce, R. D. (1986). Response
  Times. Oxford University Press; Kosinski, R. J. (2008/2013). A literature
  review on reaction time. Clemson University.
- Stroop, J. R. (1935). Studies of interference in serial verbal reactions.
  Journal of Experimental Psychology 18, 643-662; MacLeod, C. M. (1991). Half
  a century of research on the Stroop effect: an integrative review.
  Psychological Bulletin 109, 163-203: interference of roughly 50-100 ms and
  more errors on incongruent stimuli.
- Ex-Gaussian RT distributions (normal plus exponential): Ratcliff, R. (1979).
  Group reaction time distributions and an analysis of distribution
  statistics. Psychological Bulletin 86, 446-461; Luce (1986), ch. 2.
- Children are slower and more variable: Kail, R. (1991). Developmental
  change in speed of processing during childhood and adolescence.
  Psychological Bulletin 109, 490-501.
- Practice flattens the Hick-Hyman slope: Mowbray, G. H. & Rhoades, M. V.
  (1959). On the reduction of choice reaction times with practice. Quarterly
  Journal of Experimental Psychology 11, 16-23.

Bots keep per-card state (the sampled deviation and error lottery); it is
redrawn at the first tick of every card (every seat is asked then), or when the
number of cards left changes, so a bot's answers depend only on what it saw of
the card and on its generator, also across env resets. Ask a bot once per
tick, and use one bot instance per seat.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

import numpy as np

from ratenvs.common.observer import Observer
from ratenvs.ratto_zakko import observe as ob
from ratenvs.ratto_zakko import rules
from ratenvs.ratto_zakko.rules import (
    ACTION_RELOCATE_FIRST,
    ACTION_RESPONSE_FIRST,
    ACTION_WAIT,
)

MIN_RT_MS = 100.0
"""No human answers faster than about 100 ms after the stimulus (anticipation limit; Luce 1986)."""
LURE_SHARE = 0.7
"""Share of conflict-card errors that are the prepotent lure (the rest: any other response)."""
MS_PER_S = 1000.0


@dataclass(frozen=True)
class ReactionModel:
    """One skill preset of the human model (times in milliseconds)."""

    name: str
    simple_rt_ms: float
    """Hick-Hyman intercept a: the simple visual reaction time."""
    ms_per_bit: float
    """Hick-Hyman slope b."""
    sigma_ms: float
    """Standard deviation of the ex-Gaussian's normal part."""
    tau_ms: float
    """Mean of the ex-Gaussian's exponential part (its right tail)."""
    interference_ms: float
    """Extra time on a conflict card (Stroop-like interference)."""
    error_rate: float
    """Probability of a wrong answer on a plain card."""
    conflict_error_rate: float
    """Probability of a wrong answer on a conflict card."""

    def mean_rt_ms(self, level: str, conflict: bool) -> float:
        """Mean reaction time: a + b log2(N + 1) (+ interference on a conflict card)."""
        return _mean_rt_ms(self, level, conflict)

    def sample_deviation_ms(self, rng: np.random.Generator) -> float:
        """Ex-Gaussian deviation from the mean: N(0, sigma) + Exp(tau) - tau (mean 0)."""
        return float(
            self.sigma_ms * rng.standard_normal() + rng.exponential(self.tau_ms) - self.tau_ms
        )


@cache
def _mean_rt_ms(model: ReactionModel, level: str, conflict: bool) -> float:
    n = len(rules.RESPONSES_AT_LEVEL[level])
    rt = model.simple_rt_ms + model.ms_per_bit * math.log2(n + 1)
    return rt + (model.interference_ms if conflict else 0.0)


# Presets. Adult: simple RT 220 ms (Luce 1986; Kosinski: 190-250 ms), Hick-Hyman slope
# 150 ms/bit (Hick 1952, Hyman 1953), ex-Gaussian sigma 40 / tau 100 ms (typical fits in
# Ratcliff 1979), Stroop interference 75 ms and 3% / 10% errors (MacLeod 1991).
# Child (about 8-10 years): roughly 1.3-1.5x slower and more variable (Kail 1991), more errors.
# Expert (practised player): fast simple RT, slope flattened by practice (Mowbray & Rhoades
# 1959), smaller interference (50 ms, the low end of MacLeod 1991) and few errors.
PRESETS: dict[str, ReactionModel] = {
    m.name: m
    for m in (
        ReactionModel("child", 300.0, 190.0, 60.0, 150.0, 100.0, 0.06, 0.20),
        ReactionModel("adult", 220.0, 150.0, 40.0, 100.0, 75.0, 0.03, 0.10),
        ReactionModel("expert", 190.0, 100.0, 30.0, 60.0, 50.0, 0.01, 0.04),
    )
}
"""The skill presets by name."""


def is_conflict(card: int, shaker_on: int, fly_under: int, level: str) -> bool:
    """Is the card a conflict card (see the module docstring)? ``card`` is a card id."""
    if card in (rules.FLY_CARD, rules.RAT_CARD):
        return True
    food, colour = divmod(card, rules.NUM_COLOURS)
    if colour != food:
        return True  # foreign colour: the colour names another cloche
    if level == "dessert":
        return True  # original colour at dessert: BANG overrides
    return food in (shaker_on, fly_under)  # RAT / FLY override the grab


def lure_response(card: int, shaker_on: int, fly_under: int, level: str) -> int:
    """The prepotent wrong answer to a conflict card (a response index)."""
    if card == rules.RAT_CARD:
        return rules.SHOUT_RAT  # naming the picture: never RAT on a rat card
    if card == rules.FLY_CARD:
        return rules.SHOUT_FLY  # naming the picture instead of grabbing the fly's cloche
    food, colour = divmod(card, rules.NUM_COLOURS)
    correct = rules.correct_response_index(card, shaker_on, fly_under, level)
    grab_food = rules.GRAB_FIRST + food
    if correct == rules.BANG:
        return rules.correct_response_index(card, shaker_on, fly_under, "main")
    if colour != food and correct == grab_food:
        return rules.GRAB_FIRST + colour  # the cloche of the card's colour
    if correct != grab_food:
        return grab_food  # grabbing the pictured food despite RAT / FLY
    return rules.BANG if level == "dessert" else rules.GRAB_FIRST + colour


@dataclass
class SeatView:
    """What a bot reads from its observation vector."""

    showing: bool
    identity: int
    identity_p: float
    colour: int
    colour_p: float
    shaker_on: int
    fly_under: int | None
    """None unless the observation shows the fly now."""
    level: str
    elapsed_ms: float
    cards_left: float
    fly_card_rule: str
    """The ``fly_card_under_shaker`` variant in force ("grab" or "rat")."""
    first_tick: bool
    """The observation is of the card's first tick (tick 0)."""

    @property
    def card(self) -> int:
        """The perceived card id (most probable identity and colour)."""
        if self.identity == rules.FLY_IDENTITY:
            return rules.FLY_CARD
        if self.identity == rules.RAT_IDENTITY:
            return rules.RAT_CARD
        return self.identity * rules.NUM_COLOURS + self.colour


class Layout:
    """Where a bot finds the pieces it reads in an observation vector, taken from an
    observer's named pieces (:meth:`_CardBot.bind`); the default is the fixed prefix
    (:data:`~ratenvs.ratto_zakko.observe.PREFIX`), the same for every table size."""

    def __init__(self, observer: Observer = ob.PREFIX) -> None:
        s = observer.slices
        self.identity = s["identity"]
        self.colour = s["colour"]
        self.card_showing = s["card_showing"].start
        self.shaker_on = s["shaker_on"]
        self.fly_under = s["fly_under"]
        self.fly_shown = s["fly_shown"].start
        self.level = s["level"]
        self.elapsed_s = s["elapsed_s"].start
        self.cards_left = s["cards_left"].start
        self.fly_card_rat_variant = s["fly_card_rat_variant"].start
        self.tick_fraction = s["tick_fraction"].start
        self.unseen = s.get("unseen")
        """The public record's pieces (None without ``public_record``)."""
        self.ruled_out = s.get("ruled_out")


DEFAULT_LAYOUT = Layout()


def read_observation(observation: np.ndarray, layout: Layout = DEFAULT_LAYOUT) -> SeatView:
    """Decode the pieces of an observation vector a bot needs (at ``layout``'s places)."""
    o = observation
    ident = o[layout.identity]
    colour = o[layout.colour]
    i = int(ident.argmax())
    c = int(colour.argmax())
    fly_shown = o[layout.fly_shown] > 0.5
    return SeatView(
        showing=bool(o[layout.card_showing] > 0.5),
        identity=i,
        identity_p=float(ident[i]),
        colour=c,
        colour_p=float(colour[c]),
        shaker_on=int(o[layout.shaker_on].argmax()),
        fly_under=int(o[layout.fly_under].argmax()) if fly_shown else None,
        level=rules.LEVELS[int(o[layout.level].argmax())],
        elapsed_ms=float(o[layout.elapsed_s]) * MS_PER_S,
        cards_left=float(o[layout.cards_left]),
        fly_card_rule="rat" if o[layout.fly_card_rat_variant] > 0.5 else "grab",
        first_tick=bool(o[layout.tick_fraction] == 0.0),
    )


_FAST_PATH_MARGIN_S = 1e-6
"""The fast path waits only when clearly before the earliest answer time (no rounding doubt)."""


class _CardBot:
    """Shared machinery: fly memory, new-card detection, relocation and waiting."""

    name = "card_bot"

    def __init__(self) -> None:
        self._fly_memory = rules.FOODS.index(rules.START_FLY_UNDER)
        self._card_key: float | None = None
        self._earliest_s = 0.0
        """No answer to this card before this time (seconds): ticks before it just wait."""
        self.bind(ob.PREFIX)

    def bind(self, observer: Observer) -> None:
        """Read observations at the places of ``observer``'s named pieces (called by
        ``play_game`` and ``SingleAgentEnv``; unbound bots read the fixed prefix)."""
        self.layout = layout = Layout(observer)
        self._elapsed_at = layout.elapsed_s
        self._tick_fraction_at = layout.tick_fraction
        self._cards_left_at = layout.cards_left

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        if (
            observation[self._elapsed_at] < self._earliest_s - _FAST_PATH_MARGIN_S
            and observation[self._tick_fraction_at] != 0.0
            and observation[self._cards_left_at] == self._card_key
            and action_mask[ACTION_RESPONSE_FIRST]
        ):
            # fast path: the same card (fly and shaker cannot move during a card), too early
            return ACTION_WAIT
        view = read_observation(observation, self.layout)
        if view.fly_under is not None:
            self._fly_memory = view.fly_under
        if action_mask[ACTION_RELOCATE_FIRST:].any():
            return self.relocate(view, action_mask, rng)
        if not view.showing:
            return ACTION_WAIT
        if view.first_tick or view.cards_left != self._card_key:
            self._card_key = view.cards_left
            self.new_card(view, rng)
        if not action_mask[ACTION_RESPONSE_FIRST]:
            return ACTION_WAIT  # already answered this card
        response = self.decide(view)
        return ACTION_WAIT if response is None else ACTION_RESPONSE_FIRST + response

    def relocate(self, view: SeatView, action_mask: np.ndarray, rng: np.random.Generator) -> int:
        """After winning a fly or rat event: move the fly or the shaker at random (or leave)."""
        legal = np.flatnonzero(action_mask)
        return int(legal[rng.integers(legal.size)])

    def new_card(self, view: SeatView, rng: np.random.Generator) -> None:
        """A new card appeared: draw this card's randomness."""

    def decide(self, view: SeatView) -> int | None:  # pragma: no cover - abstract
        """The response index to give now, or None to wait."""
        raise NotImplementedError

    def correct_for(self, view: SeatView) -> int:
        """The oracle's answer for the perceived card, shaker and remembered fly."""
        card = view.card
        if card == rules.RAT_CARD and view.level == "starter":
            card = rules.FLY_CARD  # impossible at starter; the posterior gives rats 0 anyway
        return rules.correct_response_index(
            card, view.shaker_on, self._fly_memory, view.level, view.fly_card_rule
        )


class HumanBot(_CardBot):
    """A human-model player with the reaction model ``model`` (see the module docstring)."""

    def __init__(self, model: ReactionModel) -> None:
        super().__init__()
        self.model = model
        self.name = model.name
        self._deviation_ms = 0.0
        self._error_draw = 1.0
        self._lure_draw = 1.0
        self._other_draw = 0.0

    def new_card(self, view: SeatView, rng: np.random.Generator) -> None:
        self._deviation_ms = self.model.sample_deviation_ms(rng)
        self._error_draw = float(rng.random())
        self._lure_draw = float(rng.random())
        self._other_draw = float(rng.random())
        earliest = max(self.model.mean_rt_ms(view.level, False) + self._deviation_ms, MIN_RT_MS)
        self._earliest_s = earliest / MS_PER_S

    def reaction_time_ms(self, view: SeatView) -> float:
        """This card's reaction time given what the seat perceives now."""
        conflict = is_conflict(view.card, view.shaker_on, self._fly_memory, view.level)
        rt = self.model.mean_rt_ms(view.level, conflict) + self._deviation_ms
        return max(rt, MIN_RT_MS)

    def decide(self, view: SeatView) -> int | None:
        if view.elapsed_ms < self.reaction_time_ms(view):
            return None
        card = view.card
        if card == rules.RAT_CARD and view.level == "starter":
            card = rules.FLY_CARD
        shaker, fly, level = view.shaker_on, self._fly_memory, view.level
        correct = rules.correct_response_index(card, shaker, fly, level, view.fly_card_rule)
        conflict = is_conflict(card, shaker, fly, level)
        p_error = self.model.conflict_error_rate if conflict else self.model.error_rate
        if self._error_draw >= p_error:
            return correct
        if conflict and self._lure_draw < LURE_SHARE:
            lure = lure_response(card, shaker, fly, level)
            if lure != correct:
                return lure
        others = [rules.RESPONSE_INDEX[r] for r in rules.RESPONSES_AT_LEVEL[level]]
        others = [r for r in others if r != correct]
        return others[min(int(self._other_draw * len(others)), len(others) - 1)]


class ChildBot(HumanBot):
    """The "child" preset."""

    def __init__(self) -> None:
        super().__init__(PRESETS["child"])


class AdultBot(HumanBot):
    """The "adult" preset (the gymnasium id's default opponent)."""

    def __init__(self) -> None:
        super().__init__(PRESETS["adult"])


class ExpertBot(HumanBot):
    """The "expert" preset."""

    def __init__(self) -> None:
        super().__init__(PRESETS["expert"])


PERFECT_LATENCY_MS = 250.0
"""Fixed latency of the rule-perfect bot (a fast simple reaction, Kosinski)."""
PERFECT_CERTAINTY = 0.999
"""The rule-perfect bot answers only once its posterior reaches this (identity; colour too
where the colour matters: food cards at the dessert level)."""


class PerfectBot(_CardBot):
    """Never breaks a rule: answers the oracle's response after a fixed latency, once sure."""

    name = "perfect"

    def __init__(
        self, latency_ms: float = PERFECT_LATENCY_MS, certainty: float = PERFECT_CERTAINTY
    ) -> None:
        super().__init__()
        if not 0.0 < certainty <= 1.0:
            raise ValueError(f"certainty must be in (0, 1], got {certainty}")
        if not 0.0 <= latency_ms < math.inf:
            raise ValueError(f"latency_ms must be a finite time >= 0 (ms), got {latency_ms}")
        self.latency_ms = float(latency_ms)
        self.certainty = float(certainty)
        self._earliest_s = self.latency_ms / MS_PER_S

    def decide(self, view: SeatView) -> int | None:
        if view.elapsed_ms < self.latency_ms or view.identity_p < self.certainty:
            return None
        colour_matters = view.level == "dessert" and view.identity < rules.NUM_FOODS
        if colour_matters and view.colour_p < self.certainty:
            return None
        return self.correct_for(view)


BAYES_CERTAINTY = 0.97
"""The ideal-observer bot answers once the most likely response is this likely."""


class BayesBot(_CardBot):
    """An ideal observer that treats identity and colour as independent: no motor latency
    and no slips. Every tick it works out how likely each response is the correct answer
    (:func:`observe.response_beliefs`: the product of its identity and colour posteriors,
    each colour equally likely for every food, the shaker, the fly where it saw it last) and
    gives the most likely one as soon as that is at least ``certainty`` likely. A strong
    baseline (and the teacher that warm-starts the shipped agent); it moves the fly or
    shaker at random after winning an event. :class:`IdealBot` adds the deck's joint prior
    over (food, colour) and is stronger."""

    name = "bayes"

    def __init__(self, certainty: float = BAYES_CERTAINTY) -> None:
        super().__init__()
        if not 0.0 < certainty <= 1.0:
            raise ValueError(f"certainty must be in (0, 1], got {certainty}")
        self.certainty = float(certainty)
        self._observation = np.zeros(0, dtype=np.float32)

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        self._observation = observation
        return super().act(observation, action_mask, rng)

    def beliefs(self, view: SeatView) -> np.ndarray:
        """How likely each response is right (:func:`observe.response_beliefs`)."""
        o = self._observation
        return ob.response_beliefs(
            o[self.layout.identity],
            o[self.layout.colour],
            view.shaker_on,
            self._fly_memory,
            view.level,
            view.fly_card_rule,
        )

    def decide(self, view: SeatView) -> int | None:
        beliefs = self.beliefs(view)
        best = int(beliefs.argmax())
        return best if beliefs[best] >= self.certainty else None


class IdealBot(BayesBot):
    """The ideal observer (up to one approximation: fly and rat cards weigh their identity
    posterior, :func:`observe.counted_response_beliefs`): :class:`BayesBot` with the right
    prior over the card.

    With the public record in its observation (option ``public_record``, which it asks
    for: ``view_options``) it counts cards: the card showing is one of the cards not yet
    turned face up, each kind weighed by how many of it are left, and no response already
    given to the card (each was wrong) can be right
    (:func:`observe.counted_response_beliefs`). The evaluator, ``SingleAgentEnv``, terminal
    play and the batched engine seat it with the record at any table; ``play_game`` binds
    the bot as it is to the table's observer, so at a table without the record (or bound
    by hand to such an observer) it uses the deck's joint prior over (food, colour), the
    ideal observer of before 2026-12-05: ``bayes`` weighs every food card by the product
    of its identity and colour posteriors, as if identity and colour were independent and
    every colour equally likely; but of a food's 8 cards ``original_colour_cards`` (4, the
    ruling) are in its original colour, so this bot weighs a food card (f, c) by that
    product times ``P(c | f) / (1/5)`` (:func:`observe.joint_response_beliefs`). Fly and rat
    cards get their identity posterior (their colour channels are noise: the one
    approximation). Otherwise as ``bayes``: no latency, no slips, the most likely response
    once it is at least ``certainty`` likely, random relocations.

    Without the record the observation does not carry the deck's composition: :meth:`bind`
    takes ``original_colour_cards`` from the observer's game (``play_game``, ``SingleAgentEnv``,
    terminal play and the evaluator bind their bots); an unbound bot, or one bound to an
    observer without a game, uses the constructor's ``original_colour_cards`` (default 4,
    the ruling)."""

    name = "ideal"
    view_options: ClassVar[dict[str, Any]] = {"public_record": True}
    """Seated by the evaluator, ``SingleAgentEnv`` or terminal play, it sees the public record
    at any table (:class:`~ratenvs.common.bots.OwnView`); so does the batched engine's
    kernel bot."""

    def __init__(
        self,
        certainty: float = BAYES_CERTAINTY,
        original_colour_cards: int = rules.CARDS_PER_FOOD_IN_ORIGINAL_COLOUR,
    ) -> None:
        ob.colour_prior(original_colour_cards)  # a ValueError names the option
        self._default_original_colour_cards = original_colour_cards
        self.original_colour_cards = original_colour_cards
        super().__init__(certainty)

    def bind(self, observer: Observer) -> None:
        """Read observations at ``observer``'s places (:meth:`_CardBot.bind`) and take the
        deck's ``original_colour_cards`` from its game (the constructor's value if it has
        none)."""
        super().bind(observer)
        game = getattr(observer, "game", None)
        self.original_colour_cards = getattr(
            game, "original_colour_cards", self._default_original_colour_cards
        )

    def beliefs(self, view: SeatView) -> np.ndarray:
        """How likely each response is right: counting cards with the public record
        (:func:`observe.counted_response_beliefs`), else with the deck's joint prior
        (:func:`observe.joint_response_beliefs`)."""
        o = self._observation
        layout = self.layout
        if layout.unseen is not None:
            return ob.counted_response_beliefs(
                o[layout.identity],
                o[layout.colour],
                view.shaker_on,
                self._fly_memory,
                view.level,
                view.fly_card_rule,
                np.rint(o[layout.unseen] * ob.UNSEEN_SCALE),
                o[layout.ruled_out] > 0.5,
            )
        return ob.joint_response_beliefs(
            o[self.layout.identity],
            o[self.layout.colour],
            view.shaker_on,
            self._fly_memory,
            view.level,
            view.fly_card_rule,
            self.original_colour_cards,
        )


RACER_CERTAINTY = 0.5
"""The ``racer`` bot answers once the most likely response is this likely: among the ideal
observers' thresholds, three at 0.5 concede no threshold more than about a fair share (the
repository's ``python -m studies.rz_certainty_race``)."""


class RacerBot(IdealBot):
    """The ideal observer in a race: :class:`IdealBot` (counting cards, hearing the answers
    given) answering the most likely response as soon as it is 50% likely instead of 97%.
    Three ``ideal`` bots lose nearly every game to one answering at 75%; against three at
    50% no other threshold holds the most cards in more than about a quarter of the games,
    so it is the threshold opponent that a faster or slower rival gains least from."""

    name = "racer"

    def __init__(
        self,
        certainty: float = RACER_CERTAINTY,
        original_colour_cards: int = rules.CARDS_PER_FOOD_IN_ORIGINAL_COLOUR,
    ) -> None:
        super().__init__(certainty, original_colour_cards)


class IdleBot:
    """Never answers (always waits; leaves fly and shaker): an opponent that cuts no card short."""

    name = "idle"

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        if action_mask[ACTION_WAIT]:
            return ACTION_WAIT
        return ACTION_RELOCATE_FIRST + rules.LEAVE_BOTH
