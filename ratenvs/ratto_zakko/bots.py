"""Scripted Ratto Zakko players behind the :class:`~ratenvs.common.bots.Bot` protocol.

- ``random``: any legal action, uniformly (so it usually answers at the first tick).
- ``child``, ``adult``, ``expert``: human-model players (:mod:`~ratenvs.ratto_zakko.reaction`):
  ex-Gaussian reaction times following the Hick-Hyman law, Stroop-like interference and
  more errors on conflict cards.
- ``perfect``: never breaks a rule; answers after a fixed latency (250 ms) once its
  perception is sure.
- ``bayes``: an ideal observer that treats the card's identity and colour as independent:
  no latency, answers the most likely response once it is 97% likely (by the product of its
  identity and colour posteriors and the table it knows).
- ``ideal``: the ideal observer (up to one approximation: see :class:`IdealBot`): as
  ``bayes``, but it counts cards (the public record: the cards not yet face up, the
  answers already given, which it sees at any table) with the deck's joint prior over
  (food, colour) (a food's cards are mostly in its original colour: option
  ``original_colour_cards``, taken from the game when bound).
- ``racer``: ``ideal`` answering once a response is 50% likely, not 97%: the threshold
  that other thresholds gain least from in the race for the card.

Every bot decides from its seat's observation; the human-model and perfect bots keep
per-card state, so use one instance per seat. ``bayes`` and ``ideal`` differ only in the
prior: ``bayes`` treats identity and colour as independent (each colour equally likely for
every food), ``ideal`` uses the deck's joint prior (:func:`observe.joint_response_beliefs`).
"""

from __future__ import annotations

from ratenvs.common.bots import Bot, RandomBot, make_bot
from ratenvs.ratto_zakko.reaction import (
    AdultBot,
    BayesBot,
    ChildBot,
    ExpertBot,
    IdealBot,
    PerfectBot,
    RacerBot,
)

BOTS: dict[str, type] = {
    "random": RandomBot,
    "child": ChildBot,
    "adult": AdultBot,
    "expert": ExpertBot,
    "perfect": PerfectBot,
    "bayes": BayesBot,
    "ideal": IdealBot,
    "racer": RacerBot,
}
"""Bot names accepted by the env wrappers, the CLI and the evaluator."""


def get_bot(name: str) -> Bot:
    """The Ratto Zakko bot called ``name`` (a ValueError lists the choices)."""
    return make_bot(name, BOTS, "ratto_zakko")
