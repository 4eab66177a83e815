"""studies.ratcat_game_value: the chance to win the game to 100 from the totals, for the search."""

from __future__ import annotations

import copy
import functools

import numpy as np
import pytest

from ratenvs.agents import load_agent_checkpoint
from ratenvs.rat_a_tat_cat.bots import HeuristicBot
from ratenvs.rat_a_tat_cat.rules import RatATatCat
from studies import ratcat_game_value, search_curve


def recursion(p: np.ndarray, out_at: int):
    """The chance to win by the definition: a memoised recursion over rounds."""

    @functools.cache
    def chance(a: int, b: int) -> float:
        if a >= out_at and b >= out_at:
            return 1.0 if a < b else 0.5 if a == b else 0.0
        if a >= out_at or b >= out_at:
            return float(b >= out_at)
        on = sum(
            p[x, y] * chance(a + x, b + y)
            for x in range(p.shape[0])
            for y in range(p.shape[1])
            if (x, y) != (0, 0) and p[x, y]
        )
        return on / (1.0 - p[0, 0])

    return chance


@pytest.mark.parametrize("symmetric", [False, True])
def test_the_table_is_the_chance_to_win_over_independent_rounds(symmetric):
    rng = np.random.default_rng(3)
    points = rng.integers(0, 6, size=(40, 2))
    points[:6] = 0  # rounds where both score nothing leave the totals as they are
    points[6:9] = MAX = ratcat_game_value.MAX_POINTS
    points[9] = (MAX, 0)
    table = ratcat_game_value.win_table(points, 15, symmetric)
    rows = np.concatenate([points, points[:, ::-1]]) if symmetric else points
    hist = np.zeros((MAX + 1, MAX + 1))
    np.add.at(hist, (rows[:, 0], rows[:, 1]), 1.0)
    chance = recursion(hist / hist.sum(), 15)
    for a in range(0, 15 + MAX, 3):
        for b in range(0, 15 + MAX, 4):
            assert table[a, b] == pytest.approx(chance(a, b), abs=1e-12), (a, b)
    if symmetric:
        np.testing.assert_allclose(table + table.T, 1.0)


@pytest.fixture(scope="module")
def value_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("game_value") / "value.npz"
    ratcat_game_value.build(ratcat_game_value.AGENT, 8, 600000, path)
    return path


def test_every_round_of_the_recorded_games_is_kept(value_file):
    """The rounds' points of each game add up to its final totals."""
    totals = {o: np.zeros(2, dtype=np.int64) for o in ratcat_game_value.OPPONENTS}
    for r in ratcat_game_value._rounds(ratcat_game_value.AGENT, 8, 600000):
        if r.winners is not None:
            totals[r.opponent] += (r.totals[r.seat], r.totals[1 - r.seat])
    with np.load(value_file) as data:
        assert int(data["out_at"]) == 101
        for o in ratcat_game_value.OPPONENTS:
            np.testing.assert_array_equal(data[f"points_{o}"].sum(axis=0), totals[o])
            assert data[f"table_{o}"].shape == (101 + ratcat_game_value.MAX_POINTS + 1,) * 2


def reference_chance(game, table, seat, action, policy, others, chance) -> float | None:
    """The seat's chance to win the game from the totals left when ``action`` is played in
    ``table`` and the round played out (the agent in the seat, ``others`` in the other), by
    the reference rules and ``chance(mine, other's)``; None when a reshuffle would move
    (the engine draws it from its own generators)."""
    view = game.observer(game.observation_kind)
    state = copy.deepcopy(table)
    epoch, start = state.epoch, state.round_index
    rng = np.random.default_rng(0)
    game.apply(state, {seat: action}, rng, {})
    while not state.is_over and state.round_index == start:
        q = game.to_act(state)[0]
        bot = policy if q == seat else others
        game.apply(
            state, {q: bot.act(view.observe(state, q), game.legal_mask(state, q), rng)}, rng, {}
        )
        if state.epoch != epoch and state.round_index == start:
            return None
    t = np.asarray(state.totals)
    return float(chance(t[seat], t[1 - seat]))


@pytest.mark.parametrize("opponents", ["agent", "heuristic"])
def test_the_search_values_a_play_out_by_the_totals_its_round_leaves(value_file, opponents):
    agent = load_agent_checkpoint(ratcat_game_value.AGENT).bot()
    game = RatATatCat(**load_agent_checkpoint(ratcat_game_value.AGENT).env_options)
    view = game.observer(game.observation_kind)
    others = agent if opponents == "agent" else HeuristicBot()
    if hasattr(others, "bind"):
        others.bind(view)
    kind = type("Valued", (search_curve._GameValued, search_curve._Timed), {})
    bot = kind(game_value=str(value_file), determinizations=1, policy=agent, opponents=opponents)
    bot.bind_game(game, 0)
    value = ratcat_game_value.GameValue(value_file)
    chance = functools.partial(value.chance, opponents)
    rng = np.random.default_rng(17)
    checked = ends = 0
    for _ in range(12):
        state = game.init(rng)
        state.totals = [int(t) for t in rng.integers(60, 101, size=2)]  # near the end
        for _ in range(int(rng.integers(0, 3))):
            q = game.to_act(state)[0]
            game.apply(
                state,
                {q: agent.act(view.observe(state, q), game.legal_mask(state, q), rng)},
                rng,
                {},
            )
        seat = game.to_act(state)[0]
        mask = game.legal_mask(state, seat)
        if game.is_terminal(state) or mask.sum() < 2:
            continue
        seed = int(rng.integers(2**32))
        bot.bind_game(game, seat)
        bot.act_in_state(state, seat, mask, np.random.default_rng(seed))
        replay = np.random.default_rng(seed)
        replay.integers(2**62)  # the engine's generators' seed
        table = game.resample(state, seat, replay)
        for action, mean in bot.last_search["means"].items():
            expected = reference_chance(game, table, seat, action, agent, others, chance)
            if expected is not None:
                assert mean == pytest.approx(expected, abs=1e-12), (action, mean, expected)
                checked += 1
                ends += expected in (0.0, 0.5, 1.0)
    assert checked >= 20 and ends >= 1


def test_the_game_value_is_of_the_elimination_game_and_its_agent(value_file, tmp_path):
    with pytest.raises(ValueError, match="--setting elimination"):
        search_curve.measure("heuristic", [2], "one_round", 2, 5, game_value=str(value_file))
    other = tmp_path / "other.npz"
    with np.load(value_file) as data:
        np.savez(other, **{**dict(data), "agent": np.array("agent:someone_else")})
    with pytest.raises(ValueError, match="another agent"):
        search_curve.measure("heuristic", [2], "elimination", 2, 5, game_value=str(other))


def test_the_game_value_reads_one_table_a_play_out(value_file):
    kind = type("Valued", (search_curve._GameValued, search_curve._Timed), {})
    with pytest.raises(ValueError, match="mixed"):
        kind(game_value=str(value_file), determinizations=1, opponents="mixed")
