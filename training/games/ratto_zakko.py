"""Ratto Zakko's training hooks: the answer tracker of the evaluations (the library's
:mod:`ratenvs.ratto_zakko.evaluation`), the wrong-answer
penalty (a reward shaping) and the ``answer_beliefs`` observation entries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium as gym

from ratenvs.ratto_zakko import rules
from ratenvs.ratto_zakko.evaluation import AnswerTracker
from ratenvs.ratto_zakko.rules import ACTION_RESPONSE_FIRST
from training.config import TrainConfig
from training.hooks import GameHooks, RewardShaping, require_positive


class WrongAnswerPenalty(gym.Wrapper):
    """Training only: the learner's reward drops by ``penalty`` for every wrong answer (on
    top of the game's own cost, a returned card when it has one).

    The game's "cards" reward makes a fast guess worth it against slow opponents; the
    penalty asks for the accuracy a careful player has. Outside the Monitor, so the logged
    episode rewards stay the cards won; evaluation never sees it.
    """

    def __init__(self, env: gym.Env, penalty: float) -> None:
        super().__init__(env)
        self.penalty = float(penalty)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        aec = self.env.unwrapped.aec
        state = aec.truth
        response = int(action) - ACTION_RESPONSE_FIRST
        wrong = (
            state.phase == rules.PHASE_REACT
            and 0 <= response < rules.NUM_RESPONSES
            and response != aec.game.correct(state)
        )
        obs, reward, term, trunc, info = self.env.step(action)
        return obs, float(reward) - (self.penalty if wrong else 0.0), term, trunc, info


def batched_wrong_answers(venv: Any, door: Any, options: WrongAnswersOptions) -> Any:
    """:class:`WrongAnswerPenalty` for ``vec_env: batched``: a stable-baselines3 VecEnv
    around ``venv`` whose learner rewards drop by ``penalty`` in every game where the
    learner's answer is not the correct response (read from the batched engine before
    the tick is played, as the single-env wrapper reads the game)."""
    import numpy as np
    from stable_baselines3.common.vec_env import VecEnvWrapper

    engine = door.engine
    cost = float(options.penalty)

    class _WrongAnswers(VecEnvWrapper):
        def __init__(self) -> None:
            super().__init__(venv)
            self._wrong = np.zeros(venv.num_envs, dtype=np.bool_)

        def reset(self) -> Any:
            return self.venv.reset()

        def step_async(self, actions: np.ndarray) -> None:
            response = np.asarray(actions).astype(np.int64) - ACTION_RESPONSE_FIRST
            correct = engine.correct_responses()
            self._wrong = (
                (correct >= 0)
                & (response >= 0)
                & (response < rules.NUM_RESPONSES)
                & (response != correct)
            )
            self.venv.step_async(actions)

        def step_wait(self) -> Any:
            obs, rewards, dones, infos = self.venv.step_wait()
            return obs, rewards - np.float32(cost) * self._wrong, dones, infos

    return _WrongAnswers()


@dataclass
class WrongAnswersOptions:
    """``reward_shaping.wrong_answers`` (training only): subtract ``penalty`` from the
    learner's reward for every wrong answer (inside ``algorithm.reward_scale``)."""

    penalty: float
    """Subtracted per wrong answer (> 0)."""


def _check_wrong_answers(options: WrongAnswersOptions, cfg: TrainConfig) -> None:
    require_positive(options.penalty, "reward_shaping.wrong_answers.penalty")


def _wrap_wrong_answers(env: gym.Env, options: WrongAnswersOptions) -> gym.Env:
    return WrongAnswerPenalty(env, options.penalty)


HOOKS = GameHooks(
    game="ratto_zakko",
    tracker=AnswerTracker,
    reward_shapings={
        "wrong_answers": RewardShaping(
            options=WrongAnswersOptions,
            wrap=_wrap_wrong_answers,
            check=_check_wrong_answers,
            batched=batched_wrong_answers,
            scaled=True,
            summary="penalty subtracted from the learner's reward for every wrong answer",
        ),
    },
    appended_options=("answer_beliefs",),
)
