"""What an evaluation adds for Ratto Zakko: the evaluated seat's answers and how many were
right (:mod:`ratenvs.evaluation` reads ``EXTRAS``)."""

from __future__ import annotations

from typing import Any

from ratenvs.evaluation import EvaluationExtras


class AnswerTracker:
    """Counts the evaluated seat's answers and how many were the correct response
    (``cards``, ``answers``, ``correct_answers``; the evaluator adds ``answer_accuracy``)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.seen: Any = None
        self.counts = {"cards": 0.0, "answers": 0.0, "correct_answers": 0.0}

    def after_step(self, state: Any) -> None:
        """Count the card the step just finished, if it finished one."""
        result = state.last_result
        if result is None or result is self.seen:
            return
        self.seen = result
        self.counts["cards"] += 1
        answer = result.answers.get(self.seat)
        if answer is not None:
            self.counts["answers"] += 1
            self.counts["correct_answers"] += float(answer[0] == result.correct)


EXTRAS = EvaluationExtras(tracker=AnswerTracker)
