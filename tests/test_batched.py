"""The batched engines play the reference games exactly, and their doors behave.

For every game with a batched engine and every option combination of its ``test_options``:
batches of logged games played at random, replayed game by game through the reference
``Game`` from the engine's own chance logs (observations, masks, rewards, terminations, the
seat to act, at every step), as many as it takes for every event the game's counters count
to have happened :data:`FLOOR` times (:func:`replay_until_floors`); the kernel's bots
against the reference bots; errors that lose nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
from batched_helpers import (
    CHUNK_FINISHED,
    CHUNK_GAMES,
    FLOOR,
    SAME_GAMES_STEPS,
    Events,
    assert_same_games,
    play_logged,
    replay_turn_based,
    replay_until_floors,
)

from ratenvs.catz_ratz_batz.rules import (
    ACTION_KEEP_3,
    ACTION_KEEP_5,
    ACTION_KEEP_7,
    ACTION_ROLL,
    NUM_DICE,
)
from ratenvs.common.batched import RandomActions, decode_tape
from ratenvs.common.game import ChanceReplay
from ratenvs.common.options import UnknownOptionError
from ratenvs.games import GAMES

BATCHED = [spec for spec in GAMES.values() if spec.has_batched]
TURN_BASED = [spec for spec in BATCHED if not spec.batched().simultaneous]


def _cases(specs):
    return [
        pytest.param(spec, options, id=f"{spec.name}[{_label(options)}]")
        for spec in specs
        for options in spec.test_options
    ]


def _label(options):
    return ",".join(f"{k}={v}" for k, v in options.items()) or "defaults"


def catz_events(trace: Any) -> Counter:
    """What happened in a Catz trace, read from its actions and observations (the dice a
    turn ended with are still shown at the next seat's roll, and in ``final_obs``): rerolls
    keeping each number, turns over at their first roll, the scoring rule's branches (no
    number die left; Rats, with Bats at 7s, outweighing the good dice; as many good as bad;
    Cats, with Bats at 3s, multiplying), Bats at 3s and at 7s; games ended at the target
    (race), and ended mid-round (``race_end="turn"``)."""
    game = trace.engine.game
    acts = np.array(trace.actions)
    done = np.array(trace.terminated[1:])
    after = np.array(trace.observation[1:])  # the position after every step
    for (position, g), final in trace.final_obs.items():
        after[position - 1, g] = final[0]  # the end of a game that ended there
    view = trace.engine.observer.views(after)
    turn_over = done | (view["phase"][..., 0] == 1)  # the next turn's roll (or the end)
    dice = np.concatenate([view["set_aside"], view["showing"]], axis=-1)[turn_over]
    cats, bats, rats, threes, fives, sevens = np.rint(dice * NUM_DICE).astype(int).T
    numbers = threes + fives + sevens > 0
    good = cats + np.where(threes > 0, bats, 0)
    bad = rats + np.where(sevens > 0, bats, 0)
    events = Counter(
        keep_3=int((acts == ACTION_KEEP_3).sum()),
        keep_5=int((acts == ACTION_KEEP_5).sum()),
        keep_7=int((acts == ACTION_KEEP_7).sum()),
        over_at_the_roll=int((turn_over & (acts == ACTION_ROLL)).sum()),
        no_number_left=int((~numbers).sum()),
        outweighed=int((numbers & (good < bad)).sum()),
        even=int((numbers & (good == bad)).sum()),
        multiplied=int((numbers & (good > bad)).sum()),
        bats_at_3s=int(((threes > 0) & (bats > 0)).sum()),
        bats_at_7s=int(((sevens > 0) & (bats > 0)).sum()),
    )
    if game.target_score is not None:
        events["target_reached"] = int((view["points_needed"][done] == 0).any(axis=-1).sum())
        if game.race_end == "turn" and game.turns is not None:
            left = view["turns_left"][done]  # unequal: the game ended before the round did
            events["ended_mid_round"] = int((left != left[:, :1]).any(axis=-1).sum())
    return events


def rat_a_tat_cat_events(trace: Any) -> Counter:
    """What happened in a Rat-a-Tat Cat trace (``batched_helpers.Events``): knocks, top
    discards taken, the power cards played (Peek, Swap, Draw 2), rounds after a game's
    first (games of several rounds) and eliminations (games to a target). Random play
    knocks early: the reshuffles, Draw 2 chains and the turn cap are the steered proofs' of
    tests/test_batched_rat_a_tat_cat.py."""
    game, ev = trace.engine.game, Events(trace)
    events = Counter(knocks=ev.knocks, take=ev.take, peeks=ev.peeks, swaps=ev.swaps, draw2=ev.draw2)
    if (game.rounds or 1) > 1 or (game.rounds is None and game.target_score is not None):
        # every game dealt its first round: the finished ones and one in progress per slot
        events["later_rounds"] = ev.deals - ev.finished - trace.engine.num_envs
    if game.target_score is not None:
        events["eliminations"] = ev.eliminations
    return events


EVENTS = {"catz_ratz_batz": catz_events, "rat_a_tat_cat": rat_a_tat_cat_events}
RARE_FLOORS = {"no_number_left": 5}
"""Events too rare for :data:`FLOOR` at a fair cost: no number die left at a turn's end
(every die an animal: about one turn in 400)."""


CHUNK_MAX_STEPS = 5000
"""Steps at most of a chunk (the longest option set needs a few hundred)."""


def _replayed_events(trace: Any) -> Counter:
    """Replay a trace (every game, every step) and count what happened in it."""
    finished = replay_turn_based(trace)
    events = EVENTS[trace.engine.game.name](trace)
    events["finished"] = finished
    return events


def _floors(events: Mapping[str, int]) -> dict[str, int]:
    """The floor of every event counted (``events``: the counters of a replay)."""
    return {key: RARE_FLOORS.get(key, FLOOR) for key in events if key != "chunks"}


def test_every_game_has_a_batched_engine():
    """Every game (the simultaneous one's own tests: tests/test_batched_ratto_zakko.py)."""
    assert {spec.name for spec in BATCHED} == set(GAMES)


@pytest.mark.parametrize(("spec", "options"), _cases(TURN_BASED))
def test_replayed_through_the_reference_game(spec, options):
    """Every step of every game of every chunk replayed (the unfinished last games too),
    chunk after chunk until each event the game's counters count (:data:`EVENTS`) has
    happened :data:`FLOOR` times (rarer ones :data:`RARE_FLOORS`): the coverage this
    proves, :data:`FLOOR` finished games among it."""
    cls = spec.batched()

    def play(k: int) -> Any:
        return play_logged(
            cls, CHUNK_GAMES, CHUNK_MAX_STEPS, 7 + 10 * k, finished=CHUNK_FINISHED, **options
        )

    events = replay_until_floors(play, _replayed_events, _floors)
    assert events["finished"] >= FLOOR, events


@pytest.mark.parametrize("spec", TURN_BASED, ids=[s.name for s in TURN_BASED])
def test_a_game_does_not_depend_on_the_batch_size_and_seeds_repeat(spec):
    small = play_logged(spec.batched(), 3, SAME_GAMES_STEPS, 11)
    large = play_logged(spec.batched(), 50, SAME_GAMES_STEPS, 11)
    again = play_logged(spec.batched(), 3, SAME_GAMES_STEPS, 11)
    # the generators of games 0-2 are the same in both batches and the pickers are seeded
    # alike: the same actions, so the same games at every step, across their new deals
    assert_same_games(small, large, 3)
    assert_same_games(small, again, 3)
    assert np.array(small.terminated)[:, :3].any(axis=0).all()  # every compared game ended
    other = play_logged(spec.batched(), 3, SAME_GAMES_STEPS, 12)
    assert other.engine.chance_logs(0) != small.engine.chance_logs(0)


@pytest.mark.parametrize("spec", TURN_BASED, ids=[s.name for s in TURN_BASED])
def test_bad_input_is_a_clear_error_and_loses_nothing(spec):
    cls = spec.batched()
    with pytest.raises(ValueError, match="num_envs"):
        cls(0)
    with pytest.raises(TypeError, match="num_envs"):
        cls(2.5)
    with pytest.raises(UnknownOptionError, match="no_such_option"):
        cls(4, no_such_option=1)
    with pytest.raises(ValueError, match="num_players"):
        cls(4, num_players=99)
    with pytest.raises(ValueError, match="log_games"):
        cls(4, log_games=[4])
    # indices are integers: a float, a bool, a string or one bare number is refused, not
    # read as some other game (1.5 and True were game 1, "01" games 0 and 1)
    for bad in ([1.5], [True], "01", 5, [2**64]):
        with pytest.raises(ValueError, match="log_games"):
            cls(4, log_games=bad)
    assert cls(4, log_games={2, 1}).log_games == (1, 2)
    probe = cls(2, seed=3)
    probe.reset()
    for bad in (0.7, True, float("nan"), 2**63, "random"):  # 0.7 was bot 0, True bot 1
        table = [[-1] + [bad] * (probe.num_players - 1)] * 2
        with pytest.raises(ValueError, match="bots"):
            probe.set_bots(table)
        with pytest.raises(ValueError, match="bots"):
            probe.set_next_bots(table)
    engine = cls(8, seed=3, log_games=[0])
    batch = engine.reset()
    before = batch.observation.copy(), batch.mask.copy(), engine.rng.copy()
    illegal = RandomActions(8, 0).pick(batch.mask).copy()
    illegal[5] = int(np.flatnonzero(batch.mask[5] == 0)[0])
    with pytest.raises(ValueError, match=r"illegal action .* in game 5"):
        engine.step(illegal)
    with pytest.raises(ValueError, match="one per game"):
        engine.step(illegal[:3])
    with pytest.raises(ValueError, match="one per game"):
        engine.step(illegal.astype(float))
    # nothing moved: the same position, the same generators
    np.testing.assert_array_equal(engine.obs, before[0])
    np.testing.assert_array_equal(engine.mask, before[1])
    np.testing.assert_array_equal(engine.rng, before[2])
    with pytest.raises(ValueError, match="not logged"):
        engine.chance_logs(1)
    with pytest.raises(ValueError, match="external"):
        engine.set_bots(np.zeros((8, engine.num_players), dtype=np.int64))
    with pytest.raises(ValueError, match="shape"):
        engine.set_bots(np.zeros((3, engine.num_players), dtype=np.int64))
    with pytest.raises(ValueError, match="no batched bot"):
        engine.bot_index("nobody")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_none_on_a_fresh_engine_or_picker_is_a_clear_error(name):
    """``step(None)`` before any step, ``pick(None)`` before any pick: a ValueError (the
    lean call's memory of "no input yet" was None, so None took it and crashed Python)."""
    engine = GAMES[name].batched()(3, seed=0)
    engine.reset(seed=0)
    with pytest.raises(ValueError, match="one per game"):
        engine.step(None)
    with pytest.raises(ValueError, match="rows"):
        RandomActions(4, seed=0).pick(None)


def test_a_corrupt_chance_tape_is_refused():
    with pytest.raises(ValueError, match="episode marker"):
        decode_tape(np.array([2.0, 1.0]))
    with pytest.raises(ValueError, match="corrupt"):
        decode_tape(np.array([-1.0, 9.0]))


# ------------------------------------------------------------- Catz bots
CATZ = GAMES["catz_ratz_batz"]


def _catz_positions(num_envs=2000, steps=30, seed=5):
    """Engines at many positions of random play (yielded after every step)."""
    engine = CATZ.batched()(num_envs, seed=seed, num_players=2)
    picker = RandomActions(num_envs, seed)
    batch = engine.reset()
    for _ in range(steps):
        yield engine, batch
        batch = engine.step(picker.pick(batch.mask).copy())


@pytest.mark.parametrize("name", ["most_common", "lowest", "optimal"])
def test_catz_kernel_bots_choose_as_the_reference_bots(name):
    bot = CATZ.bots()[name]()
    rng = np.random.default_rng(0)
    checked = 0
    for engine, batch in _catz_positions():
        chosen = engine.bot_actions(name)
        for g in range(0, engine.num_envs, 7):
            want = bot.act(batch.observation[g], batch.mask[g], rng)
            assert chosen[g] == want, (name, g, batch.observation[g])
            checked += 1
    assert checked > 5000


def test_catz_kernel_random_bot_is_uniform_over_legal_keeps():
    counts: dict[tuple[int, ...], np.ndarray] = {}
    for engine, batch in _catz_positions(steps=20):
        chosen = engine.bot_actions("random")
        assert np.all(batch.mask[np.arange(engine.num_envs), chosen] == 1)
        for g in np.flatnonzero(batch.mask[:, 3] == 0):
            key = tuple(batch.mask[g, :3].tolist())
            counts.setdefault(key, np.zeros(3))[chosen[g]] += 1
    assert len(counts) == 4  # 3+5, 3+7, 5+7 and all three showing
    for key, observed in counts.items():
        legal = np.flatnonzero(key)
        total = observed.sum()
        assert total > 1000 and observed[[a for a in range(3) if not key[a]]].sum() == 0
        k = legal.size
        share = observed[legal] / total
        # every legal keep equally likely: within 4 standard errors of 1/k
        assert np.all(np.abs(share - 1 / k) < 4 * np.sqrt((1 / k) * (1 - 1 / k) / total)), key


@pytest.mark.parametrize("name", ["most_common", "optimal"])
def test_catz_kernel_bots_in_the_batch_play_the_reference_bots_game(name):
    """Seats 1 and 2 played inside the kernel: the replay with the reference bots in those
    seats gives the same game at every external decision."""
    trace = play_logged(
        CATZ.batched(), 300, 100, 21, bots={1: name, 2: name}, num_players=3, turns=3
    )
    bot = CATZ.bots()[name]()
    assert replay_turn_based(trace, bots={1: bot, 2: bot}) >= 300


@pytest.mark.parametrize("players", [2, 4])
def test_catz_games_the_kernel_bots_finish_before_the_external_seat_are_dropped(players):
    """race_end "turn": an opening bot reaching the target ends a new game before the
    external seat decides; the engine drops it (its rewards too) and deals another, so
    every step shows the external seat a decision, and the replay agrees game by game."""
    bots = dict.fromkeys(range(players - 1), "optimal")
    options = {"num_players": players, "target_score": 40, "race_end": "turn"}
    trace = play_logged(CATZ.batched(), 200, 60, 3, bots=bots, **options)
    for mask, to_act in zip(trace.mask, trace.to_act, strict=True):
        assert mask.any(axis=1).all()
        assert (to_act == players - 1).all()
    bot = CATZ.bots()["optimal"]()
    assert replay_turn_based(trace, bots=dict.fromkeys(bots, bot)) >= 200
    assert trace.dropped[0] >= 20  # the case comes up


def test_catz_state_observation_is_the_reference_privileged_view():
    trace = play_logged(CATZ.batched(), 300, 60, 4, num_players=3, turns=2)
    game = trace.engine.game
    privileged = game.observer("privileged")
    got = trace.engine.state_observation()
    checked = 0
    for g in range(300):
        episodes = trace.engine.chance_logs(g)
        chance = ChanceReplay(episodes[0])
        state, episode = game.init(chance), 0
        for actions in trace.actions:
            game.apply(state, {game.to_act(state)[0]: int(actions[g])}, chance)
            if game.is_terminal(state):
                episode += 1
                chance = ChanceReplay(episodes[episode])
                state = game.init(chance)
        np.testing.assert_array_equal(got[g], privileged.observe(state, None))
        checked += episode > 0
    assert checked > 100  # most games are past their first game


def _first_rolls(n_games=2000, steps=60):
    trace = play_logged(CATZ.batched(), n_games, steps, 13, num_players=1, turns=1)
    counts = []
    for g in range(n_games):
        for episode in trace.engine.chance_logs(g):
            if episode:
                counts.append(episode[0][1])
    return np.array(counts)


def test_catz_first_rolls_have_the_multinomial_distribution():
    counts = _first_rolls()
    assert counts.shape[1] == 6 and (counts.sum(axis=1) == 9).all()
    n = len(counts)
    assert n > 20000
    # every face: mean 9/6 per roll, within 4 standard errors
    sem = np.sqrt(9 * (1 / 6) * (5 / 6) / n)
    np.testing.assert_array_less(np.abs(counts.mean(axis=0) - 1.5), 4 * sem)
    # the number of Cats: Binomial(9, 1/6), chi-square with the 0..4+ bins
    from math import comb

    cats = np.minimum(counts[:, 3], 4)
    observed = np.bincount(cats, minlength=5)
    p = [comb(9, k) * (1 / 6) ** k * (5 / 6) ** (9 - k) for k in range(4)]
    expected = n * np.array([*p, 1 - sum(p)])
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    assert chi2 < 18.5, (observed, expected)  # 4 degrees of freedom, p = 0.001


@pytest.mark.parametrize("spec", TURN_BASED, ids=[s.name for s in TURN_BASED])
def test_strided_actions_and_active_masks_are_read_right(spec):
    """The kernels borrow their arrays: a strided view must be read as its values."""
    a = spec.batched()(64, seed=2)
    b = spec.batched()(64, seed=2)
    pick = RandomActions(64, 2)
    batch_a, batch_b = a.reset(), b.reset()
    for t in range(30):
        actions = pick.pick(batch_a.mask).copy()
        wide = np.stack([actions, np.zeros_like(actions)], axis=1)
        active = np.arange(64) % 3 != t % 3
        wide_active = np.stack([active, ~active], axis=1)
        batch_a = a.step(wide[:, 0], active=wide_active[:, 0])
        batch_b = b.step(actions, active=active)
        np.testing.assert_array_equal(batch_a.observation, batch_b.observation)
        np.testing.assert_array_equal(batch_a.rewards, batch_b.rewards)


@pytest.mark.parametrize("spec", TURN_BASED, ids=[s.name for s in TURN_BASED])
def test_games_left_out_of_a_partial_step_do_not_move(spec):
    engine = spec.batched()(32, seed=5, log_games=range(32))
    pick = RandomActions(32, 5)
    batch = engine.reset()
    for t in range(20):
        active = np.arange(32) % 2 == t % 2
        before = batch.observation.copy(), [len(engine.chance_logs(g)[-1]) for g in range(32)]
        batch = engine.step(pick.pick(batch.mask).copy(), active=active)
        idle = ~active
        np.testing.assert_array_equal(batch.observation[idle], before[0][idle])
        assert not batch.rewards[idle].any() and not batch.terminated[idle].any()
        after = [len(engine.chance_logs(g)[-1]) for g in range(32)]
        assert all(after[g] == before[1][g] for g in np.flatnonzero(idle))
