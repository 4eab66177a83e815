"""The batched Rat-a-Tat Cat engine beyond the generic replay proof of ``test_batched.py``.

Games steered into what random play rarely reaches (long rounds: reshuffles of the
discard pile, Draw 2 chains, peeks and swaps; short capped rounds: knocks, eliminations,
the turn cap), replayed through the reference game with counters that show those events
happened: as many games as it takes for each to happen 50 times; the kernel's bots against
the reference bots; the privileged view (``state_observation``); the doors (a bot needing
``owner_ceilings``, bots that would play a whole game, a tape that runs short mid-step).
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import ClassVar

import numpy as np
import pytest
from batched_helpers import (
    CHUNK_GAMES,
    FLOOR,
    Events,
    Trace,
    play_logged,
    replay_turn_based,
    replay_until_floors,
)

from ratenvs.common.batched import RandomActions
from ratenvs.common.game import ChanceReplay
from ratenvs.rat_a_tat_cat import batched as rb
from ratenvs.rat_a_tat_cat.batched import BatchedRatATatCat, unknown_value_table, unseen_piece
from ratenvs.rat_a_tat_cat.bots import CeilingBot, HeuristicBot
from ratenvs.rat_a_tat_cat.rules import (
    ACTION_DRAW,
    ACTION_KNOCK,
    ACTION_NO_KNOCK,
    ACTION_TAKE_DISCARD,
    KIND_COUNTS,
    NUM_NUMBER_KINDS,
    PHASE_NAMES,
)


# ------------------------------------------------------------------ drivers
def play_steered(
    num_envs: int,
    steps: int,
    seed: int,
    take: float,
    knock: float,
    keep_state: bool = False,
    **options,
) -> Trace:
    """Like ``play_logged``, with random legal actions that take the top discard with
    probability ``take`` (else draw) and knock with probability ``knock``; ``keep_state``
    also keeps every step's ``state_observation`` (``trace.state``)."""
    engine = BatchedRatATatCat(num_envs, seed=seed, log_games=range(num_envs), **options)
    picker = RandomActions(num_envs, seed=seed + 1)
    rng = np.random.default_rng(seed + 2)
    trace = Trace(engine)
    trace.state = []  # type: ignore[attr-defined]
    batch = engine.reset()

    def keep(batch) -> None:
        trace.keep(batch)
        if keep_state:
            trace.state.append(engine.state_observation())  # type: ignore[attr-defined]

    keep(batch)
    for _ in range(steps):
        actions = picker.pick(batch.mask).copy()
        start = batch.mask[:, ACTION_DRAW] == 1
        can_take = start & (batch.mask[:, ACTION_TAKE_DISCARD] == 1)
        actions[start] = ACTION_DRAW
        actions[can_take & (rng.random(num_envs) < take)] = ACTION_TAKE_DISCARD
        decide = batch.mask[:, ACTION_KNOCK] == 1
        actions[decide] = np.where(rng.random(num_envs) < knock, ACTION_KNOCK, ACTION_NO_KNOCK)[
            decide
        ]
        trace.actions.append(actions)
        batch = engine.step(actions)
        keep(batch)
    return trace


# ------------------------------------------------------------------ tables
def test_the_unknown_value_table_is_the_reference_value_whatever_the_split():
    """The heuristic's value of an unknown card is the reference's float for any unseen
    counts with the same count, total and nines (the kernel only knows those)."""
    table = unknown_value_table()
    bot = HeuristicBot()
    rng = np.random.default_rng(0)
    for _ in range(20000):
        counts = [int(rng.integers(0, KIND_COUNTS[k] + 1)) for k in range(NUM_NUMBER_KINDS)]
        for k in range(NUM_NUMBER_KINDS - 1):
            if rng.random() < 0.4:
                counts[k] = 0
        low = counts[: NUM_NUMBER_KINDS - 1]
        want = bot.unknown_value(unseen_piece(counts))
        got = table[sum(low), sum(k * c for k, c in enumerate(low)), counts[9]]
        assert got == want, counts


# ------------------------------------------------------------- replay proofs
def _replayed_events(trace: Trace) -> Counter:
    """Replay a trace (every game, every step) and count what happened in it."""
    finished = replay_turn_based(trace)
    events = Events(trace)
    assert finished == events.finished, (finished, vars(events))
    return Counter(vars(events))


LONG_ROUNDS = dict(num_players=6, reward="points", max_turns_per_round=400)
"""Players who draw and hardly knock (``play_steered(take=0.0, knock=0.005)``), 300 steps:
the draw pile runs out again and again."""
CAPPED_ROUNDS = dict(
    num_players=5, target_score=30, rounds=6, max_turns_per_round=12,
    elimination_tiebreak="shared", reward="zero_sum_win", observation="memoryless",
    owner_ceilings=True,
)  # fmt: skip
"""Short capped rounds to a low target (``play_steered(take=0.5, knock=0.12)``, 150
steps); memoryless views with owner ceilings."""


def test_long_rounds_reshuffles_draw2_chains_peeks_and_swaps_replay_exactly():
    """Players who draw and hardly knock: the draw pile runs out again and again. Chunks of
    :data:`~test_batched.CHUNK_GAMES` games until reshuffles, Draw 2 cards played, second
    draws of a chain, peeks, swaps and finished games have each happened FLOOR times, and a
    Draw 2 drawn inside a chain 25 times (about one Draw 2 played in twenty)."""
    floors = dict.fromkeys(
        ("finished", "reshuffles", "draw2", "chain_second_draws", "peeks", "swaps"), FLOOR
    )
    floors["chain_restarts"] = 25

    def play(k: int) -> Trace:
        return play_steered(CHUNK_GAMES, 300, 31 + 10 * k, take=0.0, knock=0.005, **LONG_ROUNDS)

    replay_until_floors(play, _replayed_events, floors)


def test_eliminations_the_turn_cap_and_knocks_replay_exactly():
    """Short capped rounds to a low target: knocks, rounds ended by the cap unknocked,
    knocks honoured past it, players eliminated, finished games (ties shared), each FLOOR
    times, in chunks of :data:`~test_batched.CHUNK_GAMES` games."""
    floors = dict.fromkeys(
        ("finished", "knocks", "capped_unknocked", "past_the_cap", "eliminations"), FLOOR
    )

    def play(k: int) -> Trace:
        return play_steered(CHUNK_GAMES, 150, 41 + 10 * k, take=0.5, knock=0.12, **CAPPED_ROUNDS)

    replay_until_floors(play, _replayed_events, floors)


def test_elimination_on_reaching_the_target_replays_exactly():
    """``eliminate_at="reaches"`` (v0's rule): out at a total equal to the target."""
    options = dict(num_players=3, target_score=20, max_turns_per_round=30,
                   eliminate_at="reaches")  # fmt: skip
    trace = play_steered(300, 120, 43, take=0.5, knock=0.2, **options)
    assert replay_turn_based(trace) >= 300
    ev = Events(trace)
    assert ev.eliminations >= 100 and ev.finished >= 300, vars(ev)


def test_the_privileged_state_observation_is_the_reference_privileged_view():
    for options in (
        {"num_players": 2},
        {"num_players": 3, "observation": "memoryless", "rounds": 2},
        {"num_players": 6, "target_score": 30, "max_turns_per_round": 30},
    ):
        trace = play_steered(100, 120, 51, take=0.3, knock=0.1, keep_state=True, **options)
        game = trace.engine.game
        privileged = game.observer("privileged")
        checked = 0
        for g in range(trace.engine.num_envs):
            episodes = trace.engine.chance_logs(g)
            episode = 0
            chance = ChanceReplay(episodes[0])
            state = game.init(chance)
            for t, actions in enumerate([None, *trace.actions]):
                if actions is not None:
                    game.apply(state, {game.to_act(state)[0]: int(actions[g])}, chance)
                    if game.is_terminal(state):
                        episode += 1
                        chance = ChanceReplay(episodes[episode])
                        state = game.init(chance)
                want = privileged.observe(state, None)
                np.testing.assert_array_equal(trace.state[t][g], want, err_msg=f"{g} {t}")
                checked += 1
        assert checked == 100 * 121


def test_returns_are_the_sum_of_a_games_rewards():
    engine = BatchedRatATatCat(300, seed=3, num_players=3, rounds=3, reward="zero_sum_win")
    picker = RandomActions(300, seed=4)
    batch = engine.reset()
    total = np.zeros((300, 3))
    ended = 0
    for _ in range(300):
        batch = engine.step(picker.pick(batch.mask))
        total += batch.rewards
        done = batch.terminated
        np.testing.assert_allclose(batch.returns[done], total[done], atol=1e-5)
        np.testing.assert_allclose(batch.returns[~done], total[~done], atol=1e-5)
        total[done] = 0.0
        ended += int(done.sum())
    assert ended >= 1000


# --------------------------------------------------------------------- bots
def _positions(options, num_envs=1500, steps=40, seed=5, driver=None, mix=0.3):
    """Engines at many positions (yielded after every step) of steered random play, or of
    play by the kernel bot ``driver`` with a share ``mix`` of random moves (late positions:
    low, known hands)."""
    engine = BatchedRatATatCat(num_envs, seed=seed, **options)
    picker = RandomActions(num_envs, seed)
    rng = np.random.default_rng(seed)
    batch = engine.reset()
    for _ in range(steps):
        yield engine, batch
        actions = picker.pick(batch.mask).copy()
        decide = batch.mask[:, ACTION_KNOCK] == 1
        actions[decide & (rng.random(num_envs) < 0.8)] = ACTION_NO_KNOCK
        if driver is not None:
            played = rng.random(num_envs) >= mix
            actions[played] = engine.bot_actions(driver)[played]
        batch = engine.step(actions)


BOT_OPTIONS = [
    ("heuristic", {"num_players": 2}),
    ("heuristic", {"num_players": 3, "observation": "memoryless"}),
    ("heuristic", {"num_players": 5, "target_score": 25, "owner_ceilings": True}),
    ("ceiling", {"num_players": 2, "owner_ceilings": True}),
    ("ceiling", {"num_players": 4, "owner_ceilings": True, "target_score": 25}),
    ("ceiling", {"num_players": 6, "owner_ceilings": True, "observation": "memoryless"}),
]


@pytest.mark.parametrize(("name", "options"), BOT_OPTIONS)
def test_kernel_bots_choose_as_the_reference_bots(name, options):
    bot = {"heuristic": HeuristicBot, "ceiling": CeilingBot}[name]()
    rng = np.random.default_rng(0)
    per_phase = np.zeros(len(PHASE_NAMES) - 1, dtype=np.int64)
    early = _positions(options, num_envs=900, steps=30)
    late = _positions(options, num_envs=900, steps=70, seed=6, driver=name)
    for engine, batch in itertools.chain(early, late):  # lazily: a batch is a live view
        if bot.observer is not engine.observer:
            bot.bind(engine.observer)
        chosen = engine.bot_actions(name)
        for g in range(0, engine.num_envs, 3):
            want = bot.act(batch.observation[g], batch.mask[g], rng)
            assert chosen[g] == want, (name, g, engine.observer.views(batch.observation[g]))
            per_phase[np.argmax(engine.observer.views(batch.observation[g])["phase"])] += 1
    assert per_phase.min() >= 100, dict(zip(PHASE_NAMES, per_phase.tolist()))


@pytest.mark.parametrize(
    ("bots", "options"),
    [
        ({1: "heuristic"}, {"num_players": 2}),
        (
            {1: "ceiling", 2: "heuristic", 3: "ceiling"},
            {"num_players": 4, "owner_ceilings": True, "target_score": 30},
        ),
        ({0: "heuristic", 2: "heuristic"}, {"num_players": 3, "observation": "memoryless"}),
    ],
)
def test_kernel_bots_in_the_batch_play_the_reference_bots_game(bots, options):
    """Seats played inside the kernel: the replay with the reference bots in those seats
    gives the same game at every external decision (in the elimination game the external
    seat is often out, and the bots play on to the end within one step)."""
    trace = play_logged(BatchedRatATatCat, 200, 60, 61, bots=bots, **options)
    reference = {}
    for seat, name in bots.items():
        reference[seat] = {"heuristic": HeuristicBot, "ceiling": CeilingBot}[name]()
        reference[seat].bind(trace.engine.observer)
    assert replay_turn_based(trace, bots=reference) >= 200


def test_the_kernel_random_bot_is_uniform_over_legal_actions():
    counts: dict[tuple, np.ndarray] = {}
    for engine, batch in _positions({"num_players": 3}, num_envs=3000, steps=25):
        chosen = engine.bot_actions("random")
        assert np.all(batch.mask[np.arange(engine.num_envs), chosen] == 1)
        for g in range(engine.num_envs):
            key = tuple(np.flatnonzero(batch.mask[g]).tolist())
            counts.setdefault(key, np.zeros(engine.num_actions))[chosen[g]] += 1
    assert len(counts) == 8  # draw, draw or take, place, number, peek, swap, draw2, knock
    for key, observed in counts.items():
        total = observed.sum()
        k = len(key)
        assert total > 500, key
        if k == 1:
            continue
        share = observed[list(key)] / total
        # every legal action equally likely: within 4.5 standard errors of 1/k
        bound = 4.5 * np.sqrt((1 / k) * (1 - 1 / k) / total)
        assert np.all(np.abs(share - 1 / k) < bound), key


# -------------------------------------------------------------------- doors
def test_the_ceiling_bot_needs_owner_ceilings():
    engine = BatchedRatATatCat(4, seed=0, num_players=2)
    with pytest.raises(ValueError, match="owner_ceilings"):
        engine.set_bots([[engine.bot_index("ceiling"), -1]] * 4)
    with pytest.raises(ValueError, match="owner_ceilings"):
        engine.bot_actions("ceiling")


def test_bots_that_would_play_a_whole_game_are_an_error():
    engine = BatchedRatATatCat(4, seed=0, num_players=2, max_turns_per_round=1)
    with pytest.raises(RuntimeError, match="before any external seat acted"):
        engine.set_bots([[engine.bot_index("heuristic"), -1]] * 4)


class _ShortTape(BatchedRatATatCat):
    """A tape with little room: after the reset only what the next external move needs,
    and grown (when the kernel stops a game for want of tape) by just enough for a few
    more decisions, so games stop often, in the bots' moves and in a new game's opening
    moves. Counts the stops of every step by stage."""

    stops: ClassVar[dict[int, int]] = {}

    def reset(self, seed=None):
        batch = super().reset(seed)
        self._tape_cap = int(self.cursor.max()) + 400
        self.tape = self.tape[:, : self._tape_cap].copy()
        return batch

    def _grow_tape(self) -> None:
        pass

    def _tape_room(self, room: int) -> None:
        super()._tape_room(0)  # no doubling: exactly what the kernel needs, plus a little
        need = int(self.cursor.max()) + rb.TAPE_RESERVE + 100
        if need > self._tape_cap:
            tape = np.zeros((len(self.log_games), need), dtype=np.float64)
            tape[:, : self._tape_cap] = self.tape
            self.tape, self._tape_cap = tape, need

    def _run(self, run: int, actions: np.ndarray, active: np.ndarray) -> int:
        stopped = super()._run(run, actions, active)
        for stage in (rb.STAGE_BOTS, rb.STAGE_OPENING):
            count = int((self.st[:, rb.F_STAGE] == stage).sum())
            self.stops[stage] = self.stops.get(stage, 0) + count
        return stopped


def test_a_tape_that_runs_short_mid_step_is_grown_and_the_game_goes_on():
    """A logged game short of tape stops between two decisions, the tape grows, the game
    goes on (bots playing whole rounds in one step: the external seat is often out of the
    elimination game) and the replay is still exact."""
    _ShortTape.stops = {}
    bots = {seat: "heuristic" for seat in (0, 1, 3, 4, 5)}
    trace = play_logged(_ShortTape, 60, 80, 71, bots=bots, num_players=6, target_score=60)
    stops = _ShortTape.stops
    assert stops.get(rb.STAGE_BOTS, 0) >= 50 and stops.get(rb.STAGE_OPENING, 0) >= 3, stops
    reference = {seat: HeuristicBot() for seat in bots}
    for bot in reference.values():
        bot.bind(trace.engine.observer)
    assert replay_turn_based(trace, bots=reference) >= 60


def test_strided_actions_play_as_their_contiguous_copy():
    one = BatchedRatATatCat(50, seed=9, num_players=3)
    two = BatchedRatATatCat(50, seed=9, num_players=3)
    picker = RandomActions(50, seed=10)
    batch = one.reset()
    two.reset()
    wide = np.zeros((50, 2), dtype=np.int64)
    for _ in range(100):
        actions = picker.pick(batch.mask).copy()
        wide[:, 0] = actions
        batch = one.step(wide[:, 0])  # a strided view
        other = two.step(actions)
        np.testing.assert_array_equal(batch.observation, other.observation)
        np.testing.assert_array_equal(batch.rewards, other.rewards)
