"""Pictures of Rat-a-Tat Cat: rgb_array frames, the human window, render_view.

The central promise: a seat's picture shows only what that seat may see. As in
the observation leak test, ``resample_from_infostate(agent, seed)`` deals again
every card ``agent`` cannot locate; the picture drawn for ``agent`` must stay
byte-identical, while the omniscient picture (which shows those cards) must
change in most samples - otherwise the check would prove nothing.
"""

import numpy as np
import pytest

from ratenvs import rat_a_tat_cat_v1
from ratenvs.rat_a_tat_cat import render as frames
from ratenvs.rat_a_tat_cat import rules

OMNISCIENT = "omniscient"


@pytest.fixture(autouse=True)
def _headless(monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


def _frame_env(
    n: int = 2, view: str = OMNISCIENT, seed: int = 0, **options
) -> rat_a_tat_cat_v1.raw_env:
    env = rat_a_tat_cat_v1.raw_env(
        num_players=n, render_mode="rgb_array", render_view=view, **options
    )
    env.reset(seed=seed)
    return env


@pytest.mark.parametrize("n", [2, 6])
def test_frame_shape_and_dtype(n):
    env = _frame_env(n, "player_0")
    frame = env.render()
    assert frame.shape == (frames.frame_height(n), frames.WIDTH, 3)
    assert frame.dtype == np.uint8
    assert frame.std() > 10  # a picture, not a blank canvas
    assert np.array_equal(frame, env.render())  # the same state draws the same frame


def test_six_players_fit_and_everyone_gets_a_row_of_four_cards():
    assert frames.frame_height(6) <= 800
    frame = _frame_env(6).render()
    card_outline = 2 * 2 * (frames.CARD_W + frames.CARD_H)  # 2 px border around a card
    for p in range(6):
        top = frames.HEADER + 8 + p * frames.ROW_HEIGHT
        band = frame[top : top + frames.ROW_HEIGHT, frames.CARDS_X : frames.PILES_X]
        assert (band == frames.INK).all(axis=-1).sum() > 3.5 * card_outline


def _number_on_top_seed() -> int:
    """A seed whose first drawn card is a number card (so player_0 can place it)."""
    for seed in range(100):
        env = _frame_env(2, seed=seed)
        if rules.KIND[env.truth.draw_pile[-1]] < rules.NUM_NUMBER_KINDS:
            return seed
    raise AssertionError("no seed found")


def test_frames_change_with_what_the_viewing_seat_sees():
    seed = _number_on_top_seed()
    env = _frame_env(2, "player_0", seed)
    watcher = _frame_env(2, "player_1", seed)
    start, start_other = env.render(), watcher.render()
    env.step(rules.ACTION_DRAW)
    watcher.step(rules.ACTION_DRAW)
    drawn = env.render()
    assert not np.array_equal(start, drawn)  # the drawn card shows in player_0's picture
    assert not np.array_equal(start_other, watcher.render())  # player_1 sees a card is held
    # player_0 puts the card into slot 1 (unknown to it before): now it knows that slot
    held = env.truth.held
    env.step(rules.ACTION_REPLACE + 1)
    watcher.step(rules.ACTION_REPLACE + 1)
    placed = env.render()
    assert env.truth.know[0, 0, 1] == rules.KIND[held]
    assert not np.array_equal(drawn, placed)
    assert not np.array_equal(start, placed)
    # player_1 sees the old card on the discard pile and a number card of unknown value
    assert watcher.truth.know[1, 0, 1] == rules.CODE_NUMBER
    assert not np.array_equal(start_other, watcher.render())


def test_a_card_known_as_a_number_is_drawn_differently_from_an_unknown_one():
    env = _frame_env(2, "player_1")
    before = env.render()
    env.truth.know[1, 0, 1] = rules.CODE_NUMBER
    number = env.render()
    env.truth.know[1, 0, 1] = rules.KIND[env.truth.hands[0][1]]
    known = env.render()
    assert not np.array_equal(before, number)
    assert not np.array_equal(number, known)


def test_the_omniscient_view_marks_the_cards_their_owner_knows():
    env = _frame_env(2)
    marked = env.render()
    env.truth.know[0, 0, 0] = rules.CODE_UNKNOWN
    assert not np.array_equal(marked, env.render())


def _random_states(n: int, mode: str, game: int, count: int):
    """The env (rendering omniscient) at ``count`` random points of a random 2-round game."""
    env = rat_a_tat_cat_v1.raw_env(
        num_players=n,
        observation=mode,
        rounds=2,
        max_turns_per_round=30,
        render_mode="rgb_array",
    )
    env.reset(seed=100 * n + game)
    rng = np.random.default_rng(game)
    yielded = 0
    while not env.truth.is_over and yielded < count:
        legal = np.flatnonzero(env.game.legal_mask(env.truth, env.truth.current))
        if rules.ACTION_KNOCK in legal:
            action = rules.ACTION_KNOCK if rng.random() < 0.03 else rules.ACTION_NO_KNOCK
        else:
            action = int(legal[rng.integers(legal.size)])
        env.step(action)
        if rng.random() < 0.15:
            yielded += 1
            yield env


def _view(env, view: str) -> np.ndarray:
    env.render_view = view
    try:
        return env.render()
    finally:
        env.render_view = OMNISCIENT


def _hidden_frame_check(n: int, mode: str, games: int, count: int) -> tuple[int, int, int]:
    """(samples, samples whose omniscient frame changed, samples whose seat frame changed)."""
    samples = omniscient_changed = seat_changed = 0
    for game in range(games):
        for env in _random_states(n, mode, game, count):
            for agent in env.possible_agents:
                resampled = env.resample_from_infostate(agent, seed=samples)
                if not np.array_equal(_view(env, agent), _view(resampled, agent)):
                    seat_changed += 1
                if not np.array_equal(env.render(), resampled.render()):
                    omniscient_changed += 1
                samples += 1
    return samples, omniscient_changed, seat_changed


@pytest.mark.parametrize("mode", ["knowledge", "memoryless"])
@pytest.mark.parametrize("n", [2, 4])
def test_hidden_cards_are_not_drawn_for_a_seat(n, mode):
    samples, omniscient_changed, seat_changed = _hidden_frame_check(n, mode, games=4, count=6)
    assert samples >= 30
    assert seat_changed == 0, f"{seat_changed}/{samples} seat pictures showed hidden cards"
    assert omniscient_changed / samples > 0.8, (
        f"only {omniscient_changed}/{samples} resamples changed the omniscient picture"
    )


def test_the_hidden_card_check_catches_a_picture_that_shows_them(monkeypatch):
    from ratenvs.rat_a_tat_cat.observe import TableObserver

    honest = TableObserver.seat_view

    def leaky(self, state, seat):  # the observer hands the picture every card face up
        view = honest(self, state, seat)
        view.codes = [[rules.KIND[card] for card in hand] for hand in state.hands]
        return view

    monkeypatch.setattr(TableObserver, "seat_view", leaky)
    samples, _, seat_changed = _hidden_frame_check(2, "knowledge", games=1, count=4)
    assert seat_changed > samples // 2


def test_another_players_held_card_is_face_down_even_a_taken_discard():
    """The fix of "the text view shows a held card the observation hides": a seat's
    observation carries only its own held card, so its picture shows only that one."""
    env = _frame_env(2, "player_1")
    env.step(rules.ACTION_DRAW)
    card = env.truth.held
    shown = env.render()
    other = next(c for c in env.truth.draw_pile if rules.KIND[c] != rules.KIND[card])
    env.truth.held = other
    assert np.array_equal(shown, env.render())  # player_1 cannot tell which card it is
    env.truth.held_public = True  # as if taken from the discard pile
    public = env.render()
    assert not np.array_equal(shown, public)  # it says "taken from the discard" ...
    env.truth.held = card
    assert np.array_equal(public, env.render())  # ... face down, as in the observation


@pytest.mark.parametrize(
    ("eliminate_at", "header"), [("exceeds", "(out at 101)"), ("reaches", "(out at 100)")]
)
def test_the_header_names_the_lowest_total_that_is_out(monkeypatch, eliminate_at, header):
    """With a target of 100 a total must exceed it to be out (the default): a player at 100
    is still in, so the picture says 101 (it said "out at 100" under both rules)."""
    texts = []
    label = frames.label

    def spy(canvas, xy, text, *args, **kwargs):
        texts.append(text)
        return label(canvas, xy, text, *args, **kwargs)

    monkeypatch.setattr(frames, "label", spy)
    env = rat_a_tat_cat_v1.raw_env(
        num_players=2, target_score=100, eliminate_at=eliminate_at, render_mode="rgb_array"
    )
    env.reset(seed=1)
    env.render()
    assert [t for t in texts if "out at" in t] == [f"round 1  {header}   turn 1"]
