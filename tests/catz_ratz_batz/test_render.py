"""Pictures of Catz, Ratz and Batz: rgb_array frames, the human window, render_view."""

import numpy as np
import pytest

from ratenvs import catz_ratz_batz_v0
from ratenvs.catz_ratz_batz.observe import ACTION_ROLL
from ratenvs.catz_ratz_batz.rules import PHASE_KEEP, Dice


@pytest.fixture(autouse=True)
def _headless(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def test_frame_shape_dtype_and_change_with_the_visible_state():
    env = catz_ratz_batz_v0.raw_env(num_players=2, render_mode="rgb_array")
    env.reset(seed=2)
    before = env.render()
    assert before.shape == (400, 640, 3) and before.dtype == np.uint8
    env.step(ACTION_ROLL)
    after = env.render()
    assert not np.array_equal(before, after)
    # the same state draws the same frame
    assert np.array_equal(after, env.render())


def test_kept_number_is_drawn():
    env = catz_ratz_batz_v0.raw_env(render_mode="rgb_array")
    env.reset(seed=0)
    env.truth.phase = PHASE_KEEP
    env.truth.dice = Dice(cats=2, threes=3, fives=4)
    plain = env.render()
    env.truth.kept = 5
    assert not np.array_equal(plain, env.render())


def test_render_view_marks_the_seat_and_is_validated():
    frames = []
    for view in ("omniscient", "player_0", "player_1"):
        env = catz_ratz_batz_v0.raw_env(render_mode="rgb_array", render_view=view)
        env.reset(seed=1)
        frames.append(env.render())
    assert not np.array_equal(frames[0], frames[1])
    assert not np.array_equal(frames[1], frames[2])
    with pytest.raises(ValueError, match="render_view"):
        catz_ratz_batz_v0.raw_env(render_view="player_9")
