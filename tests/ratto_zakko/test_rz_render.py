"""Pictures of Ratto Zakko: rgb_array frames, the human window, render_view.

The central promise: a seat's picture shows what that seat's observation
carries and nothing more. In the "memoryless" mode the fly is drawn for a seat
only at the ticks its observation shows it; under "gradual" perception the
card is drawn from the seat's own evidence, never from the true card. The
checks change the hidden truth in a copy of the state and require the seat's
picture to stay byte-identical while the omniscient picture changes (so the
check could fail).
"""

import copy

import numpy as np
import pytest
from helpers import positions

from ratenvs import ratto_zakko_v0
from ratenvs.common.render import WHITE
from ratenvs.ratto_zakko import render as frames
from ratenvs.ratto_zakko import rules
from ratenvs.ratto_zakko.observe import (
    ACTION_RELOCATE_FIRST,
    ACTION_RESPONSE_FIRST,
    ACTION_WAIT,
    perceived,
)
from ratenvs.ratto_zakko.perception import CERTAINTY, clear_evidence, posteriors

OMNISCIENT = "omniscient"
TICK_MS = 25
CARD_REGION = (
    slice(frames.CARD_Y - 6, frames.CARD_Y + frames.CARD_H + 7),
    slice(frames.CARD_X - 6, frames.CARD_X + frames.CARD_W + 7),
)
"""Where the card is drawn (with its paper border)."""


@pytest.fixture(autouse=True)
def _headless(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def _env(n: int = 4, view: str = OMNISCIENT, seed: int = 0, **options) -> ratto_zakko_v0.raw_env:
    env = ratto_zakko_v0.raw_env(
        num_players=n, render_mode="rgb_array", render_view=view, **options
    )
    env.reset(seed=seed)
    return env


def _draw(env, state: rules.State, view_seat: int | None, memoryless: bool = False) -> np.ndarray:
    """The frame of ``state`` under ``env``'s game, in the memoryless mode if ``memoryless``."""
    game = env.game
    if memoryless != game.memoryless:
        observation = "memoryless" if memoryless else "knowledge"
        game = rules.RattoZakko(**{**game.params, "observation": observation})
    agents = [f"player_{i}" for i in range(state.num_players)]
    return frames.draw(game, state, agents, view_seat)


def _wait_one_tick(env) -> None:
    """Every seat still to answer waits once (the tick resolves)."""
    ticks = env.truth.tick
    while env.truth.tick == ticks and env.truth.phase == rules.PHASE_REACT:
        env.step(ACTION_WAIT)


@pytest.mark.parametrize("n", [2, 8])
def test_frame_shape_and_dtype(n):
    env = _env(n, "player_0")
    frame = env.render()
    assert frame.shape == (frames.HEIGHT, frames.WIDTH, 3)
    assert frame.dtype == np.uint8
    assert frame.std() > 10  # a picture, not a blank canvas
    assert np.array_equal(frame, env.render())  # the same state draws the same frame


def test_eight_players_each_get_a_named_row():
    frame = _env(8).render()
    for row in range(8):
        top = frames.PLAYERS_Y + row * frames.ROW_H
        name_band = frame[top + 2 : top + 24, frames.PLAYERS_X + 8 : frames.PLAYERS_X + 120]
        assert (name_band == WHITE).all(axis=-1).sum() > 20, f"row {row} has no name"
    assert frames.totals_y(8) + 40 < frames.HEIGHT


def test_the_cloches_stand_in_their_original_colours():
    frame = _env(2).render()
    y = frames.CLOCHE_BASE - 20  # low on the dome, beside the fly
    for food, colour in enumerate(frames.CLOCHE_COLOURS):
        x = frames.cloche_x(food) + 12
        assert tuple(frame[y, x]) == colour, rules.FOODS[food]


def test_parallel_env_draws_the_same_frames_as_the_aec_env():
    aec = _env(3, "player_1", seed=7)
    par = ratto_zakko_v0.parallel_env(
        num_players=3, render_mode="rgb_array", render_view="player_1"
    )
    par.reset(seed=7)
    assert np.array_equal(aec.render(), par.render())
    for _ in range(3):
        _wait_one_tick(aec)
        par.step(dict.fromkeys(par.agents, ACTION_WAIT))
        frame = par.render()
        assert frame.shape == (frames.HEIGHT, frames.WIDTH, 3) and frame.dtype == np.uint8
        assert np.array_equal(aec.render(), frame)
    par.close()


def test_frames_change_when_a_new_card_is_revealed():
    env = _env(2, "player_0", seed=3)
    before = env.render()
    dealt = env.truth.cards_dealt
    while env.truth.cards_dealt == dealt:
        seat = env.agent_name_mapping[env.agent_selection]
        mask = env.action_mask(env.possible_agents[seat])
        if env.truth.phase == rules.PHASE_RELOCATE:
            env.step(ACTION_RELOCATE_FIRST + rules.LEAVE_BOTH)
        else:
            env.step(ACTION_RESPONSE_FIRST + rules.BANG if mask[1] else ACTION_WAIT)
    assert env.truth.tick == 0
    assert not np.array_equal(before, env.render())


@pytest.mark.parametrize("view", [OMNISCIENT, "player_1"])
def test_frames_change_when_the_shaker_or_the_fly_moves(view):
    env = _env(2, view)
    start = env.render()
    env.truth.shaker_on = (env.truth.shaker_on + 1) % rules.NUM_FOODS
    moved_shaker = env.render()
    assert not np.array_equal(start, moved_shaker)
    env.truth.fly_under = (env.truth.fly_under + 1) % rules.NUM_FOODS
    assert not np.array_equal(moved_shaker, env.render())  # knowledge mode: the fly is public


def test_memoryless_seat_frames_show_the_fly_only_while_the_observation_does():
    env = _env(3, seed=2, observation="memoryless")
    state = env.truth
    assert state.fly_shown  # the first tick of the game: everyone sees where the fly is
    moved = copy.deepcopy(state)
    moved.fly_under = (state.fly_under + 2) % rules.NUM_FOODS
    assert not np.array_equal(_draw(env, state, 1, True), _draw(env, moved, 1, True))

    _wait_one_tick(env)
    state = env.truth
    assert not state.fly_shown and state.phase == rules.PHASE_REACT
    assert not env.observer.observe(env.truth, 1)[18:23].any()
    for other in range(rules.NUM_FOODS):
        if other == state.fly_under:
            continue
        moved = copy.deepcopy(state)
        moved.fly_under = other
        assert np.array_equal(_draw(env, state, 1, True), _draw(env, moved, 1, True))
        assert not np.array_equal(_draw(env, state, None, True), _draw(env, moved, None, True))
    # the same tick in the knowledge mode: the fly is public knowledge, so it is drawn
    assert not np.array_equal(_draw(env, state, 1, False), _draw(env, moved, 1, False))


def test_gradual_seat_frames_depend_on_the_evidence_not_on_the_true_card():
    env = _env(2, seed=4, level="main")
    for _ in range(3):
        _wait_one_tick(env)
    state = env.truth
    assert env.game.perception == "gradual" and state.phase == rules.PHASE_REACT
    others = [c for c in range(rules.NUM_CARD_KINDS) if c != state.card]
    for card in others:
        swapped = copy.deepcopy(state)
        swapped.card = card  # the truth changes; every seat's evidence stays as it was
        for seat in range(2):
            assert np.array_equal(_draw(env, state, seat), _draw(env, swapped, seat)), card
        assert not np.array_equal(_draw(env, state, None), _draw(env, swapped, None))
    # ... while other evidence does change the seat's picture
    other_evidence = copy.deepcopy(state)
    other_evidence.evidence[0] = other_evidence.evidence[1]  # seat 0 glimpsed what seat 1 did
    other_evidence.posterior = posteriors(other_evidence.evidence)
    assert not np.array_equal(_draw(env, state, 0), _draw(env, other_evidence, 0))
    assert np.array_equal(_draw(env, state, 1), _draw(env, other_evidence, 1))


def test_a_seat_names_the_card_only_once_it_is_sure():
    uniform_id = np.full(7, 1 / 7)
    uniform_col = np.full(5, 1 / 5)
    assert perceived(uniform_id, uniform_col)[:2] == (None, None)
    sure_id = np.array([0.01, 0.01, CERTAINTY + 0.01, 0.01, 0.01, 0.0, 0.0])
    sure_col = np.array([0.0, 0.01, 0.01, 0.97, 0.01])
    assert perceived(sure_id, sure_col)[:2] == (2, 3)  # cheese, blue
    assert perceived(sure_id, uniform_col)[:2] == (2, None)


@pytest.mark.parametrize("card", [0, 2 * rules.NUM_COLOURS + 3, rules.FLY_CARD, rules.RAT_CARD])
def test_under_clear_perception_the_seat_sees_the_true_card(card):
    env = _env(2, perception="clear", level="main")
    state = env.truth
    state.card = card
    state.evidence = clear_evidence(card, 2, "main")
    state.posterior = posteriors(state.evidence)
    seat_card = _draw(env, state, 0)[CARD_REGION]
    assert np.array_equal(seat_card, _draw(env, state, None)[CARD_REGION])
    state.card = (card + 1) % rules.NUM_CARD_KINDS
    state.evidence = clear_evidence(state.card, 2, "main")
    state.posterior = posteriors(state.evidence)
    assert not np.array_equal(seat_card, _draw(env, state, 0)[CARD_REGION])


def test_answers_of_the_current_tick_show_only_in_the_omniscient_view():
    env = _env(3, seed=5)
    seat_view = env.render_view = "player_1"
    before_seat = env.render()
    env.render_view = OMNISCIENT
    before_all = env.render()
    assert env.agent_selection == "player_0"
    env.step(ACTION_RESPONSE_FIRST + rules.SHOUT_FLY)  # player_0 answers; the tick is still open
    assert env.truth.tick == 0
    assert not np.array_equal(before_all, env.render())
    env.render_view = seat_view
    assert np.array_equal(before_seat, env.render())
    env.step(ACTION_WAIT)
    env.step(ACTION_WAIT)  # the tick resolves: now everyone sees that player_0 has answered
    assert env.truth.phase == rules.PHASE_REACT and env.truth.cards_dealt == 1
    waited = copy.deepcopy(env.truth)
    waited.answer[0] = rules.NO_ANSWER
    waited.answer_tick[0] = rules.NO_ANSWER
    assert not np.array_equal(env.render(), _draw(env, waited, 1))


def _states_of_a_game(observation: str, seed: int, every: int):
    """Every ``every``-th position of a random 3-seat game (the env itself)."""
    env = _env(3, seed=seed, level="dessert", observation=observation, relocation="both")
    return positions(env, seed, every, wait=ACTION_WAIT, wait_prob=0.85)


@pytest.mark.parametrize("observation", ["knowledge", "memoryless"])
def test_seat_frames_never_show_hidden_truth_over_a_whole_game(observation):
    memoryless = observation == "memoryless"
    phases = set()
    checked = omniscient_changed = 0
    for env in _states_of_a_game(observation, seed=11, every=23):
        state = env.truth
        phases.add(state.phase)
        hidden = copy.deepcopy(state)
        if state.card is not None:
            hidden.card = (state.card + 5) % rules.NUM_CARD_KINDS
        if memoryless and not state.fly_shown:
            hidden.fly_under = (state.fly_under + 1) % rules.NUM_FOODS
        for seat in range(3):
            assert np.array_equal(
                _draw(env, state, seat, memoryless), _draw(env, hidden, seat, memoryless)
            )
        checked += 1
        if not np.array_equal(
            _draw(env, state, None, memoryless), _draw(env, hidden, None, memoryless)
        ):
            omniscient_changed += 1
    assert phases == {rules.PHASE_REACT, rules.PHASE_RELOCATE, rules.PHASE_OVER}
    assert checked >= 20 and omniscient_changed >= checked // 2


def test_parallel_human_window_opens_and_closes():
    par = ratto_zakko_v0.parallel_env(num_players=2, render_mode="human")
    par.reset(seed=0)
    window = par._window
    assert window is not None and window.is_open
    par.step(dict.fromkeys(par.agents, ACTION_WAIT))
    assert par._window is window and window.is_open
    par.close()
    assert par._window is None
