"""The vector doors over the batched engines: gymnasium ``make_vec``, frozen-policy
opponents, seat rotation, rewards, and stable-baselines3 / MaskablePPO."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import ratenvs  # noqa: F401 - registers the ids
from ratenvs.catz_ratz_batz.solver import evaluate_policy
from ratenvs.common.batched import RandomActions
from ratenvs.games import GAMES
from ratenvs.wrappers.batched_vector import BatchedVectorEnv, Opponents, sb3_vec_env

CATZ = GAMES["catz_ratz_batz"]


def test_make_vec_returns_the_batched_door():
    envs = gymnasium.make_vec(
        CATZ.gymnasium_id, num_envs=64, vectorization_mode="vector_entry_point"
    )
    assert isinstance(envs, BatchedVectorEnv)
    obs, info = envs.reset(seed=0)
    assert obs.shape == (64, envs.single_observation_space.shape[0])
    assert envs.observation_space.contains(obs)
    assert (info["learner_seat"] == 0).all()
    obs2, _ = envs.reset(seed=0)
    np.testing.assert_array_equal(obs, obs2)
    with pytest.raises(ValueError, match="render"):
        gymnasium.make_vec(
            CATZ.gymnasium_id,
            num_envs=2,
            vectorization_mode="vector_entry_point",
            render_mode="rgb_array",
        )


def test_a_random_learner_scores_the_exact_expectation():
    """One player, ten turns: the mean return of uniformly random keeps is 10 x the exact
    expected turn score of the random policy (solver), within 4 standard errors."""
    envs = BatchedVectorEnv("catz_ratz_batz", 1024, seed=3, num_players=1)
    picker = RandomActions(1024, 3)
    envs.reset()
    returns, running = [], np.zeros(1024)
    while len(returns) < 20000:
        _, rewards, done, trunc, _ = envs.step(picker.pick(envs.engine.mask).copy())
        assert not trunc.any()
        running += rewards
        returns.extend(running[done].tolist())
        running[done] = 0.0
    exact = 10 * evaluate_policy(_uniform)
    sem = np.std(returns) / np.sqrt(len(returns))
    assert abs(np.mean(returns) - exact) < 4 * sem, (np.mean(returns), exact)


def _uniform(dice):
    legal = np.array([dice.threes > 0, dice.fives > 0, dice.sevens > 0], dtype=float)
    return legal / legal.sum()


def test_the_learner_always_sees_its_own_turn_and_seats_rotate():
    envs = BatchedVectorEnv(
        "catz_ratz_batz", 300, num_players=3, opponents="optimal", learner_seat="random", seed=1
    )
    picker = RandomActions(300, 1)
    obs, info = envs.reset()
    view = envs.engine.observer
    seats = []
    ended = 0
    for _ in range(400):
        # the to_act piece is "own first": the learner is always the one to act
        assert (view.view(obs, "to_act")[:, 0] == 1).all()
        seats.append(info["learner_seat"].copy())
        obs, _, done, _, info = envs.step(picker.pick(envs.engine.mask).copy())
        ended += done.sum()
    counts = np.bincount(np.concatenate(seats), minlength=3)
    assert ended > 300 and counts.min() > 0.25 * counts.sum()


def test_learner_rewards_add_up_to_the_engine_returns():
    envs = BatchedVectorEnv(
        "catz_ratz_batz", 200, num_players=2, opponents="lowest", learner_seat="random", seed=2
    )
    picker = RandomActions(200, 2)
    envs.reset()
    running = np.zeros(200)
    checked = 0
    for _ in range(600):
        learner = envs.learner.copy()
        _, rewards, done, _, _ = envs.step(picker.pick(envs.engine.mask).copy())
        running += rewards
        for g in np.flatnonzero(done):
            assert running[g] == pytest.approx(envs.engine.returns[g, learner[g]])
            checked += 1
        running[done] = 0.0
    assert checked > 500


class _PythonMostCommon(Opponents):
    """The reference most_common bot as a frozen 'policy' on observation batches."""

    def __init__(self):
        self.bot = CATZ.bots()["most_common"]()
        self.calls = 0
        self.rows = 0

    def draw(self, rng, games, slots, bot_index):
        return np.full((games, slots), -2)

    def act(self, policy, observations, masks):
        assert policy == 0
        self.calls += 1
        self.rows += len(observations)
        rng = np.random.default_rng(0)
        return np.array([self.bot.act(o, m, rng) for o, m in zip(observations, masks)])


def test_frozen_policies_play_as_the_kernel_bots_do():
    """Opponents played by a Python policy on batches = the same bot inside the kernel."""
    policy = _PythonMostCommon()
    outside = BatchedVectorEnv(
        "catz_ratz_batz", 128, num_players=3, opponents=policy, learner_seat=1, seed=5
    )
    inside = BatchedVectorEnv(
        "catz_ratz_batz", 128, num_players=3, opponents="most_common", learner_seat=1, seed=5
    )
    a, _ = outside.reset()
    b, _ = inside.reset()
    pick = RandomActions(128, 5)
    for _ in range(300):
        np.testing.assert_array_equal(a, b)
        actions = pick.pick(inside.engine.mask).copy()
        a, ra, da, _, _ = outside.step(actions)
        b, rb, db, _, _ = inside.step(actions)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(da, db)
    # batched: a policy call serves many games at once
    assert policy.rows / policy.calls > 20


def test_bad_door_options_are_clear_errors():
    with pytest.raises(ValueError, match="learner_seat"):
        BatchedVectorEnv("catz_ratz_batz", 4, num_players=2, learner_seat=2)
    with pytest.raises(ValueError, match="no batched bot"):
        BatchedVectorEnv("catz_ratz_batz", 4, num_players=2, opponents="nobody")
    for nobody in ("optimall", ["optimall"]):  # no seat to fill: still checked (was accepted)
        with pytest.raises(ValueError, match="no batched bot 'optimall'"):
            BatchedVectorEnv("catz_ratz_batz", 4, num_players=1, opponents=nobody)
    with pytest.raises(ValueError, match="needs 2 entries"):
        BatchedVectorEnv("catz_ratz_batz", 4, num_players=3, opponents=["optimal"])
    envs = BatchedVectorEnv("catz_ratz_batz", 4, num_players=2)
    with pytest.raises(RuntimeError, match="reset"):
        envs.step(np.zeros(4, dtype=np.int64))
    envs.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        envs.step(np.zeros(4, dtype=np.int64))  # everybody must roll first
    # gymnasium's partial reset is refused (it reset every game), other options ignored;
    # a seed seeds np_random too, as gymnasium's vector envs do
    with pytest.raises(ValueError, match="reset_mask"):
        envs.reset(options={"reset_mask": np.ones(4, dtype=bool)})
    first, _ = envs.reset(seed=5, options={"anything": 1})
    assert envs.np_random_seed == 5
    again, _ = envs.reset(seed=5)
    assert np.array_equal(first, again)


def test_maskable_ppo_trains_on_the_sb3_door():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    venv = sb3_vec_env(BatchedVectorEnv("catz_ratz_batz", 64, num_players=1, turns=1, seed=0))
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=512, n_epochs=1, seed=0)
    model.learn(64 * 32 * 2)
    assert model.num_timesteps >= 64 * 32 * 2
    priv = sb3_vec_env(BatchedVectorEnv("catz_ratz_batz", 8, num_players=2), privileged=True)
    obs = priv.reset()
    assert obs.shape == (8, 16 + priv.venv.engine.state_size + 2)


class _PythonBot(Opponents):
    """A reference bot (by name) as a frozen 'policy' on observation batches."""

    def __init__(self, game, name, observer):
        self.bot = GAMES[game].bots()[name]()
        if hasattr(self.bot, "bind"):
            self.bot.bind(observer)
        self.rows = self.calls = 0

    def draw(self, rng, games, slots, bot_index):
        return np.full((games, slots), -2)

    def act(self, policy, observations, masks):
        self.calls += 1
        self.rows += len(observations)
        rng = np.random.default_rng(0)
        return np.array([self.bot.act(o, m, rng) for o, m in zip(observations, masks)])


def test_rat_a_tat_cat_door_python_heuristic_policies_match_the_kernel_heuristic():
    options = {"num_players": 3, "target_score": 100}
    inside = gymnasium.make_vec(
        GAMES["rat_a_tat_cat"].gymnasium_id,
        num_envs=64,
        vectorization_mode="vector_entry_point",
        opponents="heuristic",
        learner_seat=1,
        seed=8,
        **options,
    )
    assert isinstance(inside, BatchedVectorEnv)
    policy = _PythonBot("rat_a_tat_cat", "heuristic", inside.engine.observer)
    # a fixed seat: with "random" seats the two doors draw the seats of new games in
    # other groupings (the policies' moves come in separate engine calls)
    outside = BatchedVectorEnv(
        "rat_a_tat_cat", 64, opponents=policy, learner_seat=1, seed=8, **options
    )
    a, ia = outside.reset()
    b, ib = inside.reset()
    pick = RandomActions(64, 8)
    ended = 0
    for _ in range(300):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(ia["learner_seat"], ib["learner_seat"])
        actions = pick.pick(inside.engine.mask).copy()
        a, ra, da, _, ia = outside.step(actions)
        b, rb, db, _, ib = inside.step(actions)
        np.testing.assert_allclose(ra, rb)
        np.testing.assert_array_equal(da, db)
        ended += int(da.sum())
    assert ended > 0 and policy.rows / policy.calls > 2  # several games per forward pass


def test_ratto_zakko_door_the_learner_answers_at_its_ticks():
    envs = gymnasium.make_vec(
        GAMES["ratto_zakko"].gymnasium_id,
        num_envs=128,
        vectorization_mode="vector_entry_point",
        opponents="adult",
        learner_seat="random",
        seed=4,
    )
    assert isinstance(envs, BatchedVectorEnv) and envs.simultaneous
    engine = envs.engine
    obs, info = envs.reset()
    games = np.arange(128)
    pick = RandomActions(128, 4)
    running = np.zeros(128)
    ended = 0
    for _ in range(400):
        seat = info["learner_seat"]
        # the learner acts at every step, and sees its own row
        assert engine.to_act[games, seat].all()
        np.testing.assert_array_equal(obs, engine.obs[games, seat])
        masks = envs.action_masks()
        np.testing.assert_array_equal(masks, engine.mask[games, seat].astype(bool))
        obs, rewards, done, _, info = envs.step(pick.pick(masks.astype(np.int8)).copy())
        running += rewards
        for g in np.flatnonzero(done):
            assert running[g] == pytest.approx(engine.returns[g, seat[g]])
            ended += 1
        running[done] = 0.0
    assert ended > 50


def test_ratto_zakko_door_frozen_policies_answer_in_the_learners_tick():
    """Policies answer in the same tick as the learner, from their own rows, in batches:
    every tick the engine plays (every ``engine.step``) carries, for each policy seat to
    act in it, the answer its policy gave to that seat's own observation and mask of that
    very tick (asked once, in that tick); the learner's step is one such tick, with the
    learner's answer in every game next to theirs. (The kernel's bots draw from the games'
    generators, so a Python copy of a bot does not replay the same games;
    tests/test_batched_ratto_zakko.py proves the kernel bots.)"""
    seen = []
    asked = {}  # (game, seat) -> the policy's answer, asked since the last tick

    def own_rows(observations, masks):
        """The (game, seat) of every row a policy is asked about: the policy seats to act
        now, in the door's order (game, then seat), each row that seat's own."""
        games, seats = np.nonzero(engine.to_act & (engine.bots <= -2))
        rows, i = [], 0
        for o, m in zip(observations, masks):
            while i < len(games) and not (
                np.array_equal(engine.obs[games[i], seats[i]], o)
                and np.array_equal(engine.mask[games[i], seats[i]], m)
            ):
                i += 1
            assert i < len(games), "a row that is no policy seat's to act now"
            rows.append((int(games[i]), int(seats[i])))
            i += 1
        return rows

    class Waiter(Opponents):
        def draw(self, rng, games, slots, bot_index):
            return np.full((games, slots), -2)

        def act(self, policy, observations, masks):
            seen.append(len(observations))
            assert masks.any(axis=1).all()
            legal = masks.astype(bool)
            # the last legal action: an answer when one is allowed
            answers = legal.shape[1] - 1 - np.argmax(legal[:, ::-1], axis=1)
            for row, a in zip(own_rows(observations, masks), answers.tolist(), strict=True):
                assert row not in asked, f"{row} asked twice for one tick"
                asked[row] = a
            return answers

    envs = BatchedVectorEnv("ratto_zakko", 64, opponents=Waiter(), learner_seat=0, seed=6)
    engine = envs.engine
    counts = {"learner_ticks": 0, "other_ticks": 0, "answered_with_the_learner": 0}
    engine_step = engine.step

    def tick(actions, active=None):
        """One tick of the engine: it plays what the policies answered for it."""
        games = np.arange(engine.num_envs)
        playing = np.ones(engine.num_envs, dtype=bool) if active is None else active
        acting = engine.to_act & (engine.bots <= -2) & playing[:, None]
        assert set(asked) == set(zip(*map(np.ndarray.tolist, np.nonzero(acting)))), (
            "the policy seats asked are not those to act in this tick"
        )
        learner = engine.to_act[games, envs.learner] & playing
        for (g, s), a in asked.items():
            assert actions[g, s] == a, f"seat {s} of game {g} plays {actions[g, s]}, not {a}"
            # an answer (not a wait) in the tick the learner answers too
            counts["answered_with_the_learner"] += bool(
                a and learner[g] and actions[g, envs.learner[g]]
            )
        if active is None:  # the learner's step: it acts in every game
            assert learner.all()
            counts["learner_ticks"] += 1
        else:  # a tick played on inside the step: the learner does not act in it
            assert not learner.any()
            counts["other_ticks"] += 1
        asked.clear()
        return engine_step(actions, active=active)

    engine.step = tick
    envs.reset()
    pick = RandomActions(64, 6)
    ended = 0
    for _ in range(1000):  # the cap; a first game ends at about step 50
        actions = pick.pick(envs.action_masks().astype(np.int8)).copy()
        _, _, done, _, _ = envs.step(actions)
        ended += int(done.sum())
        if ended > 0:
            break
    assert ended > 0 and np.mean(seen) > 2, (ended, np.mean(seen))
    assert counts["learner_ticks"] >= 10 and counts["answered_with_the_learner"] >= 100, counts


# ------------------------------------------------- same-step autoreset: final_obs, final_info
SAME_STEP_CASES = (
    # the bots open every game (learner in seat 1): opening moves, carried rewards
    ("catz_ratz_batz", {"num_players": 2, "turns": 3}, "optimal"),
    ("rat_a_tat_cat", {"num_players": 3, "max_turns_per_round": 12}, "heuristic"),
    ("rat_a_tat_cat", {"num_players": 2, "observation": "memoryless", "rounds": 2}, "heuristic"),
    ("ratto_zakko", {"num_players": 3, "level": "main", "perception": "clear",
                     "observation": "memoryless"}, "perfect"),
)  # fmt: skip


def _reference_bots(game, name, engine, seats):
    """Reference bots for the replay, as the replay of each kind of game takes them."""
    if GAMES[game].batched().simultaneous:
        return dict.fromkeys(seats, GAMES[game].bots()[name])
    bots = {}
    for seat in seats:
        bots[seat] = GAMES[game].bots()[name]()
        if hasattr(bots[seat], "bind"):
            bots[seat].bind(engine.observer)
    return bots


@pytest.mark.parametrize(
    ("game", "options", "bot"),
    SAME_STEP_CASES,
    ids=["catz", "rat_a_tat_cat", "rat_a_tat_cat-memoryless", "ratto_zakko"],
)
def test_same_step_final_obs_and_final_info_are_those_of_the_ended_games(game, options, bot):
    """gymnasium's same-step autoreset: for every game that ended in a step, ``final_obs``
    is the learner's observation of its end and ``final_info`` its seat and return; the
    engine's games (every one logged) replayed through the reference game show each final
    observation is the reference observer's of the terminal position (what the single-agent
    door ``gymnasium.make`` returns when that game terminates), and the learner's rewards
    over the episode add up to the return."""
    from batched_helpers import SimultaneousTrace, Trace, replay_simultaneous, replay_turn_based

    n, learner = 24, 1
    envs = BatchedVectorEnv(
        game, n, opponents=bot, learner_seat=learner, seed=9, log_games=range(n), **options
    )
    engine = envs.engine
    trace = (SimultaneousTrace if envs.simultaneous else Trace)(engine)
    _, info = envs.reset()
    trace.keep(_arrays(engine))
    pick = RandomActions(n, 9)
    running = np.zeros(n)
    checked = 0
    for t in range(300):
        actions = pick.pick(envs.action_masks().astype(np.int8)).copy()
        if envs.simultaneous:
            full = np.zeros((n, engine.num_players), dtype=np.int64)
            full[:, learner] = actions
            trace.actions.append(full)
        else:
            trace.actions.append(actions)
        _, rewards, done, _, info = envs.step(actions)
        trace.keep(_arrays(engine))
        running += rewards
        # as SyncVectorEnv: the keys only in a step where some game ended
        keys = {"final_obs", "_final_obs", "final_info", "_final_info"} & info.keys()
        assert len(keys) == (4 if done.any() else 0), keys
        if not done.any():
            continue
        np.testing.assert_array_equal(info["_final_obs"], done)
        np.testing.assert_array_equal(info["_final_info"], done)
        final = info["final_info"]
        for key in ("learner_seat", "return"):
            np.testing.assert_array_equal(final[f"_{key}"], done)
        for g in range(n):
            if not done[g]:
                assert info["final_obs"][g] is None
                continue
            got = info["final_obs"][g]
            assert got.dtype == np.float32 and got.shape == envs.single_observation_space.shape
            # the engine's final observation of the learner's seat (the replay checks it)
            np.testing.assert_array_equal(got, trace.final_obs[t + 1, g][learner])
            assert final["learner_seat"][g] == learner
            assert final["return"][g] == pytest.approx(running[g], abs=1e-5)
            checked += 1
        running[done] = 0.0
    assert checked >= 30, checked
    others = [s for s in range(engine.num_players) if s != learner]
    bots = _reference_bots(game, bot, engine, others)
    if envs.simultaneous:
        stats = replay_simultaneous(trace, bots=bots)
        assert stats["final_obs"] >= 30, stats
    else:
        assert replay_turn_based(trace, bots=bots) >= 30
    assert trace.finals_checked >= 30


def _arrays(engine):
    """The engine's arrays now, as a step returns them (for a replay trace)."""
    from ratenvs.common.batched import BatchStep

    return BatchStep(
        engine.obs, engine.mask, engine.rewards, engine.terminated, engine.to_act, engine.returns
    )


def test_same_step_info_has_the_structure_of_gymnasiums_sync_vector_env():
    """The keys, masks and types of a step where some games ended are those of gymnasium's
    ``SyncVectorEnv`` (same-step autoreset) over the single-agent door, on the keys both
    give (``final_info`` of the door also carries its ``action_mask``)."""
    from gymnasium.vector import AutoresetMode, SyncVectorEnv

    spec = GAMES["catz_ratz_batz"]
    options = {"num_players": 2, "turns": 1}
    sync = SyncVectorEnv(
        [lambda: gymnasium.make(spec.gymnasium_id, **options) for _ in range(4)],
        autoreset_mode=AutoresetMode.SAME_STEP,
    )
    batched = BatchedVectorEnv("catz_ratz_batz", 4, seed=0, **options)
    infos = []
    for envs in (sync, batched):
        envs.reset(seed=0)
        pick = RandomActions(4, 0)
        for _ in range(100):
            masks = np.stack(envs.call("action_masks")) if envs is sync else envs.action_masks()
            _, _, done, _, info = envs.step(pick.pick(masks.astype(np.int8)).copy())
            if done.any() and not done.all():
                infos.append((done, info))
                break
        else:
            pytest.fail("no step where some games ended and others did not")
    (done_sync, want), (done, got) = infos
    for key in ("final_obs", "_final_obs", "final_info", "_final_info", "learner_seat"):
        assert key in got and f"_{key.lstrip('_')}" in got, key
        assert type(got[key]) is type(want[key]), key
    for info, ended in ((want, done_sync), (got, done)):
        assert info["final_obs"].dtype == object and info["final_obs"].shape == (4,)
        assert [o is None for o in info["final_obs"]] == (~ended).tolist()
        assert info["_final_obs"].dtype == np.bool_
        np.testing.assert_array_equal(info["_final_info"], ended)
        final = info["final_info"]
        assert isinstance(final, dict)
        np.testing.assert_array_equal(final["_learner_seat"], ended)
        assert final["learner_seat"].shape == (4,)
        assert np.issubdtype(final["learner_seat"].dtype, np.integer)
    assert set(want["final_info"]) - set(got["final_info"]) == {"action_mask", "_action_mask"}
    sync.close()


def test_final_info_keeps_the_seat_of_the_game_that_ended():
    """Seats drawn for every game: ``final_info["learner_seat"]`` is the seat the learner had
    in the game that ended (``info["learner_seat"]`` already shows the next game's), and
    ``final_obs`` that seat's observation of the end."""
    envs = BatchedVectorEnv(
        "rat_a_tat_cat", 64, num_players=3, learner_seat="random", seed=5, max_turns_per_round=9
    )
    _, info = envs.reset()
    pick = RandomActions(64, 5)
    moved = checked = 0
    for _ in range(200):
        before = info["learner_seat"].copy()
        _, _, done, _, info = envs.step(pick.pick(envs.action_masks().astype(np.int8)).copy())
        for g in np.flatnonzero(done):
            seat = info["final_info"]["learner_seat"][g]
            assert seat == before[g]
            np.testing.assert_array_equal(info["final_obs"][g], envs.engine.final_obs[g, seat])
            moved += int(info["learner_seat"][g] != seat)
            checked += 1
    assert checked >= 100 and moved >= 30, (checked, moved)


class _FirstLegal(Opponents):
    """Frozen policy 0 in every opponent seat: the first legal action (``fail``: its
    forward pass raises instead)."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail

    def draw(self, rng, games, slots, bot_index):
        return np.full((games, slots), -2, dtype=np.int64)

    def act(self, policy, observations, masks):
        if self.fail:
            raise MemoryError("the policy's forward pass failed")
        return masks.argmax(axis=1).astype(np.int64)


def test_a_new_game_a_policy_ends_before_the_learners_first_move_is_dropped():
    """A race the policy in seat 0 wins before the learner (seat 1) decides is not the
    learner's game: dropped, its reward with it, and another dealt, as the engines drop the
    games their own bots end (it raised "a game ended twice", or put the loss into the
    learner's next game)."""
    env = BatchedVectorEnv(
        "catz_ratz_batz", 64, opponents=_FirstLegal(), learner_seat=1, seed=0,
        num_players=2, race_end="turn", target_score=10, reward="win",
    )  # fmt: skip
    env.reset(seed=0)
    assert not env._carry.any()  # a win reward before the first move: only a dropped game's
    returns, rewards_sum = [], np.zeros(64, np.float32)
    for _ in range(40):
        _, rewards, done, _, info = env.step(env.action_masks().argmax(axis=1))
        rewards_sum += rewards
        for g in np.flatnonzero(done):
            returns.append(info["final_info"]["return"][g])
            assert rewards_sum[g] == info["final_info"]["return"][g]  # the learner's game
            rewards_sum[g] = 0.0
    assert returns and set(returns) <= {-1.0, 0.0, 1.0}


def test_a_failed_step_leaves_the_door_needing_a_reset():
    """A policy that raises mid-step leaves the games half-played: every call but reset()
    then says so (the next step played the learner's actions in the policy's seat)."""
    policy = _FirstLegal()
    env = BatchedVectorEnv("rat_a_tat_cat", 8, opponents=policy, seed=0, num_players=2)
    env.reset(seed=1)
    policy.fail = True
    with pytest.raises(MemoryError):  # at the first step that ends the learner's turn
        for _ in range(20):
            env.step(env.action_masks().argmax(axis=1))
    for call in (env.action_masks, lambda: env.step(np.zeros(8, np.int64))):
        with pytest.raises(RuntimeError, match=r"step\(\) failed .*half-played; call reset"):
            call()
    policy.fail = False
    env.reset(seed=1)
    env.step(env.action_masks().argmax(axis=1))


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"opponents": "ceiling"}, "owner_ceilings=True"),
        ({"opponents": 3}, "takes the engine's bot names"),
        ({"opponents": lambda rng: []}, "takes the engine's bot names"),
    ],
)
def test_opponents_the_batched_door_cannot_seat_are_refused(options, said):
    with pytest.raises(ValueError, match=said):
        BatchedVectorEnv("rat_a_tat_cat", 4, seed=0, num_players=2, **options)


def test_an_opponents_pool_drawing_the_learners_code_is_refused():
    class Learner(Opponents):
        def draw(self, rng, games, slots, bot_index):
            return np.full((games, slots), -1, dtype=np.int64)

    with pytest.raises(ValueError, match="never the learner's"):
        BatchedVectorEnv("rat_a_tat_cat", 4, opponents=Learner(), seed=0, num_players=2)


def test_the_sb3_door_gives_the_terminal_observation_of_ended_games():
    pytest.importorskip("stable_baselines3")
    env = BatchedVectorEnv("catz_ratz_batz", 16, seed=0, num_players=1, turns=1)
    venv = sb3_vec_env(env)
    venv.reset()
    for _ in range(10):
        venv.step_async(np.array(venv.env_method("action_masks")).argmax(axis=1))
        _, _, done, infos = venv.step_wait()
        for g in np.flatnonzero(done):
            assert infos[g]["terminal_observation"].shape == env.single_observation_space.shape
            assert infos[g]["TimeLimit.truncated"] is False
        assert all(not i for g, i in enumerate(infos) if not done[g])


def _by_observation(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A legal action chosen by a hash of the observation: the same in every game that
    shows the same observation, whenever it is asked (a picker with a generator per game
    would draw once more for a game that restarts at the next step)."""
    keys = (np.abs(obs).sum(axis=1) * 997).astype(np.int64)
    actions = np.empty(len(obs), dtype=np.int64)
    for g, mask in enumerate(masks):
        legal = np.flatnonzero(mask)
        actions[g] = legal[keys[g] % legal.size]
    return actions


def _episodes(
    env: BatchedVectorEnv, steps: int, carried: list[int] | None = None
) -> list[list[tuple]]:
    """Every game's finished episodes: observations, rewards, the last observation, the
    learner's seat and return (each door's keys), checking next-step's restart steps;
    ``carried`` gets, after every step, how many games hold rewards of a new game from
    before the learner's first decision (the door's carry, paid at its next step)."""
    obs, info = env.reset(seed=5)
    n = env.num_envs
    shown = [[obs[g].copy()] for g in range(n)]
    got: list[list[float]] = [[] for _ in range(n)]
    episodes: list[list[tuple]] = [[] for _ in range(n)]
    restart = np.zeros(n, dtype=bool)
    for _ in range(steps):
        before = obs.copy()
        obs, rewards, done, truncated, info = env.step(_by_observation(obs, env.action_masks()))
        assert not truncated.any()
        for g in range(n):
            if restart[g]:  # next-step: the ended game's action is ignored; a new game shows
                assert rewards[g] == 0.0 and not done[g] and not np.array_equal(obs[g], before[g])
                shown[g], got[g] = [obs[g].copy()], []
                continue
            got[g].append(float(rewards[g]))
            if not done[g]:
                shown[g].append(obs[g].copy())
                continue
            if env.next_step:
                last, seat, ret = obs[g], info["learner_seat"][g], info["return"][g]
                assert info["_return"][g] and "final_obs" not in info
            else:
                final = info["final_info"]
                last, seat, ret = info["final_obs"][g], final["learner_seat"][g], final["return"][g]
            assert sum(got[g]) == pytest.approx(float(ret), abs=1e-5)
            episodes[g].append((np.array(shown[g]), got[g], last.copy(), int(seat), float(ret)))
            shown[g], got[g] = [obs[g].copy()], []
        restart = done.copy() if env.next_step else restart
        if carried is not None:
            carried.append(int(np.count_nonzero(env._carry)))
    return episodes


@pytest.mark.parametrize(
    ("game", "steps", "options"),
    [
        ("rat_a_tat_cat", 150, {"num_players": 3, "learner_seat": 1}),
        ("catz_ratz_batz", 150, {"num_players": 2, "learner_seat": 1, "opponents": "optimal"}),
        ("ratto_zakko", 500, {"num_players": 3, "opponents": "adult"}),
        # a frozen policy moves first, and wins some new games before the learner's first
        # move: those are dropped in both modes
        (
            "catz_ratz_batz",
            150,
            {"num_players": 2, "learner_seat": 1, "race_end": "turn", "target_score": 10,
             "reward": "win", "opponents": "first_legal"},
        ),
        # a frozen policy plays the only turn of every round before the learner's first
        # decision: a round's points reach the learner before it moves (the door's carry)
        (
            "rat_a_tat_cat",
            120,
            {"num_players": 2, "learner_seat": 1, "rounds": 3, "max_turns_per_round": 1,
             "opponents": "first_legal"},
        ),
    ],
)  # fmt: skip
def test_next_step_autoreset_plays_the_games_of_same_step(game, steps, options):
    """gymnasium's next-step autoreset (``autoreset_mode="next_step"``): each game plays the
    same episodes as with same-step autoreset (every observation, reward, last observation,
    seat and return), its end shown in the step it ends and the next game one step later;
    rewards carried from before the learner's first decision are paid alike."""
    options = dict(options)
    if options.get("opponents") == "first_legal":
        options["opponents"] = _FirstLegal()
    same = BatchedVectorEnv(game, 16, seed=3, **options)
    nxt = BatchedVectorEnv(game, 16, seed=3, autoreset_mode="next_step", **options)
    assert same.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode.SAME_STEP
    assert nxt.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode.NEXT_STEP
    carried_same, carried_next = [], []
    a, b = _episodes(same, steps, carried_same), _episodes(nxt, steps, carried_next)
    if "max_turns_per_round" in options:  # the carry case: carries were paid in both modes
        assert sum(carried_same) > 0 and sum(carried_next) > 0
    compared = 0
    for ga, gb in zip(a, b, strict=True):
        for x, y in zip(ga, gb, strict=False):  # next-step is a step behind per restart
            np.testing.assert_array_equal(x[0], y[0])
            np.testing.assert_array_equal(x[2], y[2])
            assert x[1] == y[1] and x[3:] == y[3:]
            compared += 1
    assert compared >= 32  # at least two episodes a game on average


def test_next_step_autoreset_takes_gymnasiums_observation_wrappers():
    """The observation wrappers that refuse same-step autoreset take the next-step door,
    and RecordEpisodeStatistics counts each game's return as the door does."""
    from gymnasium.wrappers.vector import NormalizeObservation, RecordEpisodeStatistics

    # gymnasium's own check of the mode (an assert before gymnasium 1.2)
    with pytest.raises((ValueError, AssertionError)):
        NormalizeObservation(BatchedVectorEnv("rat_a_tat_cat", 4, num_players=2))
    envs = gymnasium.make_vec(
        GAMES["rat_a_tat_cat"].gymnasium_id,
        num_envs=8,
        vectorization_mode="vector_entry_point",
        autoreset_mode=gymnasium.vector.AutoresetMode.NEXT_STEP,
        seed=2,
    )
    door = envs
    envs = RecordEpisodeStatistics(NormalizeObservation(envs))
    obs, _ = envs.reset(seed=1)
    ended = 0
    for _ in range(200):
        obs, _, done, _, info = envs.step(door.action_masks().argmax(axis=1))
        for g in np.flatnonzero(done):
            assert info["episode"]["r"][g] == pytest.approx(info["return"][g])
            ended += 1
    assert ended > 8 and np.isfinite(obs).all()


def test_bad_autoreset_modes_are_refused():
    for mode in ("disabled", gymnasium.vector.AutoresetMode.DISABLED, "next", 1):
        with pytest.raises(ValueError, match="option 'autoreset_mode' must be"):
            BatchedVectorEnv("rat_a_tat_cat", 4, num_players=2, autoreset_mode=mode)
    assert BatchedVectorEnv.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode.SAME_STEP
    nxt = BatchedVectorEnv("rat_a_tat_cat", 4, num_players=2, autoreset_mode="next_step")
    with pytest.raises(ValueError, match="sb3_vec_env needs the door's same-step autoreset"):
        sb3_vec_env(nxt)


@pytest.mark.parametrize(
    ("game", "options"),
    [("rat_a_tat_cat", {"num_players": 2}), ("ratto_zakko", {"num_players": 3})],
)
def test_next_step_ignores_the_action_of_a_game_that_restarts(game, options):
    """A game that showed its end restarts at the next step whatever its action (gymnasium's
    next-step rule), where the other games' illegal actions are still refused."""
    if game == "rat_a_tat_cat":  # games of different lengths: some end while others play
        options = {**options, "learner_seat": "random"}
    env = BatchedVectorEnv(game, 8, seed=1, autoreset_mode="next_step", **options)
    obs, _ = env.reset(seed=2)
    for _ in range(2000):
        obs, _, done, _, _ = env.step(_by_observation(obs, env.action_masks()))
        if done.any():
            break
    assert done.any() and (game == "ratto_zakko" or not done.all())
    actions = _by_observation(obs, env.action_masks())
    if not done.all():  # (Ratto Zakko's games of one deck end together)
        bad = actions.copy()
        bad[~done] = 10**6
        with pytest.raises(ValueError, match="illegal action 1000000 in game"):
            env.step(bad)
    actions[done] = 10**6  # ignored: those games restart
    _, rewards, again, _, _ = env.step(actions.astype(np.uint64))
    assert not rewards[done].any() and not again[done].any()


def test_next_step_says_the_seat_of_the_game_that_ended_and_reset_restarts_everything():
    """With random seats the step a game ends names the seat it was played in (not the next
    game's); reset() forgets the games waiting to restart, so every game moves at the first
    step after it (an audit's mutants: both went unseen)."""
    env = BatchedVectorEnv(
        "rat_a_tat_cat", 16, num_players=3, learner_seat="random", seed=1,
        autoreset_mode="NextStep",
    )  # fmt: skip
    _, info = env.reset(seed=2)
    seat, ended, changed = info["learner_seat"].copy(), 0, 0
    for _ in range(200):
        _, _, done, _, info = env.step(env.action_masks().argmax(axis=1))
        np.testing.assert_array_equal(info["learner_seat"][done], seat[done])
        ended += int(done.sum())
        changed += int((info["learner_seat"] != seat).sum())  # the restarts' new seats
        seat = info["learner_seat"].copy()
    assert ended > 100 and changed > 30
    while not done.any():
        _, _, done, _, _ = env.step(env.action_masks().argmax(axis=1))
    first, _ = env.reset(seed=9)
    after, _, _, _, _ = env.step(env.action_masks().argmax(axis=1))
    assert not (after == first).all(axis=1)[done].any()  # they moved: no restart pending
