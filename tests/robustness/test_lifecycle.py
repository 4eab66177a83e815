"""Using an env out of order is a clear error for every game and door, and changes nothing:
a step before ``reset()``, a step after the game ended, a reset with a seed that is not
None or an integer >= 0 (one rule at every door: a numpy integer is a seed, a bool, a
float, a string or a negative number is a ValueError naming it)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ratenvs  # noqa: F401 - registers the gymnasium ids
from ratenvs.games import GAMES
from ratenvs.wrappers.batched_vector import BatchedVectorEnv
from ratenvs.wrappers.single_agent import SingleAgentEnv

SPECS = pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))


@SPECS
def test_raw_env_step_before_reset(spec):
    with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\)"):
        spec.load().raw_env().step(0)


@SPECS
def test_env_wrapper_before_reset(spec):
    env = spec.load().env()
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before step"):
        env.step(0)


@SPECS
def test_single_agent_step_before_reset(spec):
    with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\)"):
        SingleAgentEnv(spec.name).step(0)
    with pytest.raises(gymnasium.error.ResetNeeded, match=r"before calling env\.reset\(\)"):
        gymnasium.make(spec.gymnasium_id).step(0)


@SPECS
def test_vector_door_step_before_reset_and_the_engine_ready_when_made(spec):
    door = BatchedVectorEnv(spec.name, 2, seed=0)
    with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\)"):
        door.step(np.zeros(2, dtype=np.int64))
    engine = spec.batched()(2, seed=0)  # made = reset: its games are dealt
    engine.step(engine.mask.argmax(axis=-1))


@SPECS
@pytest.mark.parametrize("door", ["raw_env", "env"])
def test_aec_last_and_observe_before_reset_say_to_reset(spec, door):
    """``raw_env``: a RuntimeError naming the call and reset() (they raised AttributeError
    'agent_selection'); ``env()``: PettingZoo's order-enforcing error, which says it too
    (its ``last`` raised the AttributeError)."""
    env = getattr(spec.load(), door)()
    agent = env.possible_agents[0]
    calls = {"last": env.last, "observe": lambda: env.observe(agent)}
    if door == "raw_env":
        calls["action_mask"] = lambda: env.action_mask(agent)
    for name, call in calls.items():
        if door == "raw_env":
            message = rf"^{name}\(\) before reset\(\): call reset\(\) first$"
            with pytest.raises(RuntimeError, match=message):
                call()
        else:
            with pytest.raises(AssertionError, match=r"^reset\(\) needs to be called before"):
                call()
    env.reset(seed=0)
    assert env.last()[0]["action_mask"].any()


@SPECS
@pytest.mark.parametrize("door", ["raw_env", "env"])
def test_aec_last_after_every_agent_left_says_to_reset(spec, door):
    """Each agent done is seen by ``last`` once more and stepped out with None; after the
    last one, ``last`` says the game ended and to call reset() (it raised KeyError)."""
    env = getattr(spec.load(), door)(num_players=2)
    _play_to_the_end(env)
    while env.unwrapped.agents:
        assert env.last()[2]  # terminated
        env.step(None)
    message = r"^last\(\) after the game ended \(every agent is done\): call reset\(\)$"
    for observe in (True, False):
        with pytest.raises(RuntimeError, match=message):
            env.last(observe)
    env.reset(seed=1)
    assert not env.last()[2]


@SPECS
def test_single_agent_action_masks_before_reset_say_to_reset(spec):
    """``action_masks()`` before reset() returned all False (no legal action at all)."""
    for env in (SingleAgentEnv(spec.name), gymnasium.make(spec.gymnasium_id).unwrapped):
        with pytest.raises(RuntimeError, match=r"^action_masks\(\) before reset\(\): call"):
            env.action_masks()
        env.reset(seed=0)
        assert env.action_masks().any()


def _play_to_the_end(env, seed=0):
    """Random legal moves until every agent is done."""
    raw = env.unwrapped
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not all(raw.terminations.values()):
        env.step(int(rng.choice(np.flatnonzero(raw.action_mask(raw.agent_selection)))))


@SPECS
@pytest.mark.parametrize("door", ["raw_env", "env"])
def test_aec_step_after_the_game_ended(spec, door):
    """Once the game is over every agent is dead: its only step is None (PettingZoo's rule);
    after the last one, raw_env says to call reset() and env() warns and does nothing, as
    PettingZoo's OrderEnforcingWrapper does."""
    env = getattr(spec.load(), door)(num_players=2)
    raw = env.unwrapped
    _play_to_the_end(env)
    end = raw.game_state()
    while raw.agents:
        with pytest.raises(
            ValueError, match="when an agent is dead, the only valid action is None"
        ):
            env.step(0)
        env.step(None)
    assert raw.game_state() == end
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for action in (None, 0, 10**6):
            if door == "raw_env":
                with pytest.raises(RuntimeError, match=r"^step\(\) after the game ended .* reset"):
                    env.step(action)
            else:
                env.step(action)  # "step() called after all agents are terminated..."
    assert raw.game_state() == end
    _play_to_the_end(env, seed=1)  # a reset starts a new game


@SPECS
def test_parallel_env_step_before_reset_and_after_the_end(spec):
    par = spec.load().parallel_env(num_players=2)
    with pytest.raises(RuntimeError, match=r"^step\(\) before reset\(\): call reset\(\) first$"):
        par.step({})
    par.reset(seed=0)
    rng = np.random.default_rng(0)
    while par.agents:
        game, truth = par.game, par.truth
        par.step(
            {
                par.possible_agents[s]: int(rng.choice(np.flatnonzero(game.legal_mask(truth, s))))
                for s in game.to_act(truth)
            }
        )
    end = par.game_state()
    message = r"^step\(\) after the game ended \(every agent is done\): call reset\(\)$"
    with pytest.raises(RuntimeError, match=message):
        par.step({"player_0": 0})
    assert par.game_state() == end


@SPECS
def test_gymnasium_step_after_the_episode_ended(spec):
    env = gymnasium.make(spec.gymnasium_id)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(int(env.unwrapped.action_masks().argmax()))
        done = terminated or truncated
    with pytest.raises(RuntimeError, match=r"after the episode ended; call reset\(\)"):
        env.step(int(env.unwrapped.action_masks().argmax()))
    env.reset(seed=1)
    env.step(int(env.unwrapped.action_masks().argmax()))


# --------------------------------------------------------------------- seeds
ODD_SEEDS = st.one_of(
    st.integers(max_value=-1),
    st.integers(-(2**63), -1).map(np.int64),
    st.booleans(),
    st.booleans().map(np.bool_),
    st.floats(),
    st.integers(0, 9).map(float),  # 3.0 is no seed
    st.text(max_size=3),
    st.lists(st.integers(0, 9), min_size=1, max_size=2),
    st.lists(st.integers(0, 9), max_size=2).map(tuple),
    st.integers(0, 9).map(np.array),
    st.integers(0, 9).map(complex),
)
GOOD_SEEDS = st.tuples(
    st.integers(0, 2**64 - 1),
    st.sampled_from([int, np.uint64, np.int64, np.uint32, np.uint8]),
).filter(lambda pair: pair[0] <= np.iinfo(pair[1]).max if pair[1] is not int else True)


def _rng(generator):
    return generator.bit_generator.state


def _resets(spec):
    """(door, its reset, what a refused reset must not change) for every door of ``spec``."""
    module = spec.load()
    raw, wrapped, par = module.raw_env(), module.env(), module.parallel_env()
    gym = gymnasium.make(spec.gymnasium_id)
    engine = spec.batched()(2, seed=0)
    door = BatchedVectorEnv(spec.name, 2, seed=0)
    for env in (raw, wrapped, par, gym, door):
        env.reset(seed=0)

    def aec(env):
        raw = env.unwrapped
        return raw.game_state(), _rng(raw.np_random), dict(raw.terminations)

    return [
        ("raw_env", raw.reset, lambda: aec(raw)),
        ("env", wrapped.reset, lambda: aec(wrapped)),
        ("parallel_env", par.reset, lambda: (par.game_state(), _rng(par.np_random))),
        ("gymnasium", gym.reset, lambda: (aec(gym.unwrapped.aec), _rng(gym.unwrapped.np_random))),
        ("engine", engine.reset, lambda: (engine.rng.tolist(), engine.obs.tolist())),
        ("vector", door.reset, lambda: (door.engine.rng.tolist(), _rng(door._rng))),
    ]


@SPECS
@settings(max_examples=25, deadline=None)
@given(seed=ODD_SEEDS)
def test_an_odd_seed_is_refused_at_every_door_and_changes_nothing(spec, seed):
    for name, reset, state in _resets(spec):
        before = state()
        what = "seed (one integer for the whole batch)" if name == "vector" else "seed"
        with pytest.raises(ValueError) as info:
            reset(seed=seed)
        assert str(info.value) == f"{what} must be None or an integer >= 0, got {seed!r}", name
        assert state() == before, name
    for make in (
        lambda: spec.batched()(2, seed=seed),
        lambda: BatchedVectorEnv(spec.name, 2, seed=seed),
    ):
        with pytest.raises(ValueError, match=r"^seed must be None or an integer >= 0, got "):
            make()


@SPECS
@settings(max_examples=10, deadline=None)
@given(pair=GOOD_SEEDS)
def test_a_numpy_integer_seed_is_the_same_seed_at_every_door(spec, pair):
    value, kind = pair
    for (name, reset, state), (_, twin_reset, twin_state) in zip(_resets(spec), _resets(spec)):
        reset(seed=kind(value))
        twin_reset(seed=value)
        assert state() == twin_state(), name


@SPECS
@pytest.mark.parametrize("options", [None, {}, {"num_players": 4}, {"options": 1}])
def test_reset_options_are_ignored_at_every_door(spec, options):
    """A game's options are given when its env is made; reset accepts ``options`` and
    ignores them, as PettingZoo's classic envs do (its ``api_test`` passes ``{"options":
    1}``): the game is the one a plain reset with the same seed deals."""
    for (name, reset, state), (_, twin_reset, twin_state) in zip(_resets(spec), _resets(spec)):
        if name == "engine":  # the engine's reset takes a seed only
            continue
        reset(seed=3, options=options)
        twin_reset(seed=3)
        assert state() == twin_state(), name


@SPECS
@settings(max_examples=15, deadline=None)
@given(seed=ODD_SEEDS | st.none())
def test_play_game_refuses_what_no_door_takes_as_a_seed(spec, seed):
    """``play_game`` (the one harness) takes the doors' seeds and no others: 1.9, "1" or
    True were played as game 1."""
    from ratenvs.common.play import play_game, seed_streams

    game = spec.load().raw_env().game
    bots = [spec.bots()["random"]() for _ in range(game.num_players)]
    for call in (lambda: play_game(game, bots, seed), lambda: seed_streams(seed, 2)):
        with pytest.raises(ValueError, match=r"^a game.s seed must be an integer >= 0, got "):
            call()
