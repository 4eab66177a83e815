"""``BatchedRatATatCat.load_states``: reference positions put into the engine play on as the
reference plays them (the door the ``search`` bot deals its tables through)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from ratenvs.rat_a_tat_cat.batched import BOT_HEURISTIC, BatchedRatATatCat
from ratenvs.rat_a_tat_cat.bots import HeuristicBot
from ratenvs.rat_a_tat_cat.rules import PHASE_OVER, RatATatCat, State

OPTIONS = [
    {"num_players": 2, "target_score": 100},
    {"num_players": 3},
    {"num_players": 4, "owner_ceilings": True},
    {"num_players": 2, "observation": "memoryless"},
]
BATCH = 48


def positions(game: RatATatCat, seed: int, count: int) -> list[State]:
    """``count`` positions of heuristic play (every seat), true tables and resampled ones."""
    rng = np.random.default_rng(seed)
    view = game.observer(game.observation_kind)
    bot = HeuristicBot()
    bot.bind(view)
    out: list[State] = []
    while len(out) < count:
        state = game.init(rng)
        while not game.is_terminal(state) and len(out) < count:
            seat = game.to_act(state)[0]
            if rng.random() < 0.3:
                take = game.resample(state, seat, rng) if rng.random() < 0.5 else state
                out.append(copy.deepcopy(take))
            action = bot.act(view.observe(state, seat), game.legal_mask(state, seat), rng)
            game.apply(state, {seat: action}, rng, {})
    return out


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: "-".join(f"{v}" for v in o.values()))
def test_loaded_positions_show_and_play_as_the_reference(options: dict) -> None:
    game = RatATatCat(**options)
    view = game.observer(game.observation_kind)
    engine = BatchedRatATatCat(BATCH, seed=1, **options)
    states = positions(game, 3, BATCH)
    batch = engine.load_states(states)
    for g, state in enumerate(states):
        seat = game.to_act(state)[0]
        assert batch.to_act[g] == seat
        np.testing.assert_array_equal(batch.mask[g], game.legal_mask(state, seat))
        np.testing.assert_array_equal(batch.observation[g], view.observe(state, seat))
    # the same moves in both, while no chance moves them apart (a reshuffle, a new deal)
    rng = np.random.default_rng(4)
    bot = HeuristicBot()
    bot.bind(view)
    same = [copy.deepcopy(s) for s in states]
    alike = np.ones(BATCH, dtype=bool)
    compared = 0
    for _ in range(6):
        actions = np.zeros(BATCH, dtype=np.int64)
        for g, state in enumerate(same):
            if not alike[g] or game.is_terminal(state):
                alike[g] = False
                actions[g] = int(np.flatnonzero(engine.mask[g])[0])
                continue
            seat = game.to_act(state)[0]
            actions[g] = bot.act(view.observe(state, seat), game.legal_mask(state, seat), rng)
            before = (state.round_index, state.epoch)
            game.apply(state, {seat: int(actions[g])}, rng, {})
            if game.is_terminal(state) or (state.round_index, state.epoch) != before:
                alike[g] = False
        batch = engine.step(actions)
        for g in np.flatnonzero(alike):
            seat = game.to_act(same[g])[0]
            np.testing.assert_array_equal(batch.observation[g], view.observe(same[g], seat))
            compared += 1
    assert compared > 2 * BATCH  # most positions played on for several moves


def test_loaded_positions_with_kernel_bots() -> None:
    """The other seats played by the kernel's heuristic, as the reference heuristic plays."""
    options = {"num_players": 3}
    game = RatATatCat(**options)
    view = game.observer(game.observation_kind)
    engine = BatchedRatATatCat(BATCH, seed=1, **options)
    states = positions(game, 5, BATCH)
    bots = np.full((BATCH, 3), BOT_HEURISTIC)
    seats = [game.to_act(s)[0] for s in states]
    bots[np.arange(BATCH), seats] = engine.EXTERNAL
    batch = engine.load_states(states, bots)
    rng = np.random.default_rng(6)
    heuristic = HeuristicBot()
    heuristic.bind(view)
    actions = np.array([np.flatnonzero(batch.mask[g])[0] for g in range(BATCH)])
    batch = engine.step(actions)
    checked = 0
    for g, state in enumerate(states):
        state = copy.deepcopy(state)
        before = (state.round_index, state.epoch)
        game.apply(state, {seats[g]: int(actions[g])}, rng, {})
        while not game.is_terminal(state) and game.to_act(state)[0] != seats[g]:
            q = game.to_act(state)[0]
            a = heuristic.act(view.observe(state, q), game.legal_mask(state, q), rng)
            game.apply(state, {q: a}, rng, {})
        if game.is_terminal(state) or (state.round_index, state.epoch) != before:
            continue
        np.testing.assert_array_equal(batch.observation[g], view.observe(state, seats[g]))
        checked += 1
    assert checked > BATCH // 2


def test_bad_loads_are_refused() -> None:
    game = RatATatCat(num_players=2)
    engine = BatchedRatATatCat(4, seed=0, num_players=2)
    state = positions(game, 7, 1)[0]
    with pytest.raises(ValueError, match="1 to 4 positions"):
        engine.load_states([state] * 5)
    with pytest.raises(ValueError, match="1 to 4 positions"):
        engine.load_states([])
    three = positions(RatATatCat(num_players=3), 7, 1)[0]
    with pytest.raises(ValueError, match="undecided 2-player position"):
        engine.load_states([three])
    over = copy.deepcopy(state)
    over.phase = PHASE_OVER
    with pytest.raises(ValueError, match="undecided"):
        engine.load_states([over])
    bots = np.full((1, 2), BOT_HEURISTIC)
    with pytest.raises(ValueError, match="seat to act in a loaded position must be external"):
        engine.load_states([state], bots)
    with pytest.raises(ValueError, match=r"bots must be \(1, 2\)"):
        engine.load_states([state], np.zeros((2, 2)))
    logged = BatchedRatATatCat(2, seed=0, num_players=2, log_games=[0])
    with pytest.raises(ValueError, match="logged"):
        logged.load_states([state])
    second = BatchedRatATatCat(2, seed=0, num_players=2, log_games=[1])
    before = second.cs.copy()
    with pytest.raises(ValueError, match="game 1 is logged"):
        second.load_states([state] * 2)
    np.testing.assert_array_equal(second.cs, before)  # a refused load writes nothing
    other = BatchedRatATatCat(2, seed=0, num_players=2, log_games=[1])
    assert other.load_states([state]).to_act[0] == state.current  # game 0 is not logged
