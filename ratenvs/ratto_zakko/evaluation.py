"""What an evaluation adds for Ratto Zakko: the evaluated seat's answers and how many were
right, overall and by the card's correct response (:mod:`ratenvs.evaluation` reads
``EXTRAS``)."""

from __future__ import annotations

from typing import Any

from ratenvs.evaluation import BY_RESPONSE, EvaluationExtras
from ratenvs.ratto_zakko.rules import RESPONSES, RESPONSES_AT_LEVEL


def _zero() -> dict[str, float]:
    return {"cards": 0.0, "answers": 0.0, "correct_answers": 0.0}


class AnswerTracker:
    """Counts the evaluated seat's answers and how many were the correct response.

    ``counts`` holds ``cards`` (cards resolved), ``answers`` (cards the seat answered before
    the card resolved) and ``correct_answers``, and the same three counts for every correct
    response type under ``by_correct_response`` (``{"shout:fly": {"cards": ...,
    "answers": ..., "correct_answers": ...}, ...}``, keyed by the names of
    :data:`~ratenvs.ratto_zakko.rules.RESPONSES`): a card counts under the response that
    was right for it, whatever the seat answered. :meth:`start` (the evaluator calls it
    with the game) lists every response that can be correct at the game's level
    (:data:`~ratenvs.ratto_zakko.rules.RESPONSES_AT_LEVEL`), so the keys are the same in
    every game of a level; a response seen without it is added when it first occurs. The
    evaluator sums the counts over the games and adds ``answer_accuracy`` and the
    per-response answer rates and accuracies (:func:`ratenvs.evaluation.summarise`).
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.seen: Any = None
        self.by_response: dict[str, dict[str, float]] = {}
        self.counts: dict[str, Any] = {
            "cards": 0.0,
            "answers": 0.0,
            "correct_answers": 0.0,
            BY_RESPONSE: self.by_response,
        }

    def start(self, game: Any) -> None:
        """List every response that can be correct at ``game``'s level (at zero)."""
        for name in RESPONSES_AT_LEVEL[game.level]:
            self.by_response.setdefault(name, _zero())

    def after_step(self, state: Any) -> None:
        """Count the card the step just finished, if it finished one."""
        result = state.last_result
        if result is None or result is self.seen:
            return
        self.seen = result
        kind = self.by_response.setdefault(RESPONSES[result.correct], _zero())
        self.counts["cards"] += 1
        kind["cards"] += 1
        answer = result.answers.get(self.seat)
        if answer is not None:
            right = float(answer[0] == result.correct)
            self.counts["answers"] += 1
            self.counts["correct_answers"] += right
            kind["answers"] += 1
            kind["correct_answers"] += right


EXTRAS = EvaluationExtras(tracker=AnswerTracker)
