"""One test battery for every game in the ``GAMES`` table, over each game's option combinations.

PettingZoo's own ``api_test``, ``parallel_api_test``, ``seed_test`` and ``render_test``;
``state()`` inside ``state_space``; pickle and deepcopy mid-game; the same game in another
process; a game replayed from its chance log under another seed; and the all-channel leak
check (observation, mask, text, picture of every seat unchanged when only what that seat
cannot know is resampled). A new game gets all of it by adding one ``GAMES`` entry.
"""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys

import numpy as np
import pytest
from helpers import random_action
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

from ratenvs.common.aec import GameAECEnv
from ratenvs.common.bots import RandomBot
from ratenvs.common.game import ChanceReplay
from ratenvs.common.play import play_game, replay_game
from ratenvs.games import GAMES
from ratenvs.registration import PETTINGZOO_REGISTRY


def _cases() -> list:
    cases = []
    for spec in GAMES.values():
        assert issubclass(spec.load().raw_env, GameAECEnv), spec.name  # every game, no skips
        for options in spec.test_options:
            label = ",".join(f"{k}={v}" for k, v in options.items()) or "defaults"
            cases.append(pytest.param(spec, options, id=f"{spec.name}[{label}]"))
    return cases


CASES = _cases()


def _random_steps(env, rng, steps):
    """Play up to ``steps`` random legal actions in an AEC env (stops at the end)."""
    for _ in range(steps):
        if not env.agents or env.terminations[env.agent_selection]:
            return
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize(("spec", "options"), CASES)
def test_pettingzoo_api_seed_and_parallel_tests(spec, options):
    module = spec.load()
    api_test(module.env(**options), num_cycles=200)
    seed_test(lambda: module.env(**options), 100)
    parallel_api_test(module.parallel_env(**options), num_cycles=200)


@pytest.mark.parametrize(("spec", "options"), CASES)
def test_render_test_every_mode(spec, options, monkeypatch):
    from ratenvs.common.render import HumanWindow

    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    show = HumanWindow.show
    monkeypatch.setattr(HumanWindow, "show", lambda self, frame, fps: show(self, frame, 0))
    module = spec.load()
    render_test(lambda render_mode: module.env(render_mode=render_mode, **options))


@pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))
def test_render_view_is_checked(spec):
    module = spec.load()
    for make in (module.raw_env, module.parallel_env):
        with pytest.raises(ValueError, match="render_view"):
            make(num_players=2, render_mode="rgb_array", render_view="player_2")
        with pytest.raises(ValueError, match="render_view"):
            make(render_view="nobody")


@pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))
@pytest.mark.parametrize("form", ["aec", "parallel"])
def test_the_human_window_opens_stays_open_and_closes(spec, form, monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    module = spec.load()
    make = module.env if form == "aec" else module.parallel_env
    env = make(num_players=2, render_mode="human", render_view="player_0")
    env.reset(seed=0)
    raw = env.unwrapped
    window = raw._window
    assert window is not None and window.is_open
    rng = np.random.default_rng(0)
    for _ in range(2):  # each frame pumps the window's events
        if form == "aec":
            env.step(random_action(env.last()[0], rng))
        else:
            seen = raw._observations().items()
            actions = {a: random_action(o, rng) for a, o in seen if o["action_mask"].any()}
            env.step(actions)
    assert raw._window is window and window.is_open
    env.close()
    assert raw._window is None


@pytest.mark.parametrize(("spec", "options"), CASES)
def test_state_lies_in_state_space_and_is_not_a_shadowed_attribute(spec, options):
    env = spec.load().raw_env(**options)
    assert callable(env.state)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(60):
        state = env.state()
        assert state.dtype == np.float32 and env.state_space.contains(state)
        _random_steps(env, rng, 5)
        if not env.agents or env.terminations[env.agent_selection]:
            break


@pytest.mark.parametrize(("spec", "options"), CASES)
@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_copied_env_plays_on_identically(spec, options, how):
    env = spec.load().raw_env(**options)
    env.reset(seed=11)
    _random_steps(env, np.random.default_rng(1), 25)
    twin = pickle.loads(pickle.dumps(env)) if how == "pickle" else copy.deepcopy(env)
    assert twin.game_state() == env.game_state()
    for _ in range(200):
        if not env.agents or env.terminations[env.agent_selection]:
            break
        agent = env.agent_selection
        assert twin.agent_selection == agent
        seen, seen_twin = env.observe(agent), twin.observe(agent)
        assert np.array_equal(seen["observation"], seen_twin["observation"])
        assert np.array_equal(seen["action_mask"], seen_twin["action_mask"])
        action = int(np.flatnonzero(seen["action_mask"])[-1])
        env.step(action)
        twin.step(action)
        assert env.rewards == twin.rewards
    assert twin.game_state() == env.game_state()


def _fingerprint(game_name: str, options: dict, seed: int) -> str:
    from ratenvs.games import get_game

    env = get_game(game_name).load().raw_env(**options)
    played = play_game(env.game, [RandomBot()] * env.num_players, seed)
    return json.dumps([played.actions, env.game.to_json(played.state)], sort_keys=True)


@pytest.mark.parametrize(("spec", "options"), CASES)
def test_the_same_seed_is_the_same_game_in_another_process(spec, options):
    here = _fingerprint(spec.name, options, 5)
    code = (
        "import json, sys; sys.path.insert(0, 'tests');"
        "from test_all_games import _fingerprint;"
        f"print(_fingerprint({spec.name!r}, {options!r}, 5))"
    )
    there = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert there == here
    assert _fingerprint(spec.name, options, 6) != here


@pytest.mark.parametrize(("spec", "options"), CASES)
def test_a_game_replayed_from_its_chance_log_is_identical_whatever_the_seed(spec, options):
    game = spec.load().raw_env(**options).game
    bots = [RandomBot()] * game.num_players
    for seed in range(3):
        first = play_game(game, bots, seed, record_chance=True)
        assert first.chance, "a game draws something"
        replay = ChanceReplay(first.chance)
        final = replay_game(game, first.actions, replay)
        assert replay.exhausted
        assert game.to_json(final) == game.to_json(first.state)
        # the same actions with another generator's chance are another game (or illegal)
        try:
            other = replay_game(game, first.actions, np.random.default_rng(seed + 1000))
        except ValueError:  # IllegalActionError too
            continue
        assert game.to_json(other) != game.to_json(first.state)


def _channels(env, seat):
    """Everything a seat is shown: observation, mask, its text view and its picture."""
    agent = env.possible_agents[seat]
    game, truth = env.game, env.truth
    observation = env.observer.observe(truth, seat)
    mask = game.legal_mask(truth, seat)
    text = env.observer.string_from(truth, seat)
    env.render_view = agent
    picture = env.render() if env.draw is not None else None
    return observation, mask, text, picture


@pytest.mark.parametrize(("spec", "options"), CASES)
def test_no_channel_of_a_seat_depends_on_what_it_cannot_know(spec, options):
    """Observation, mask, text and picture of every seat (the AEC door), and the parallel
    door's observation and mask, are the same for every resample of what the seat cannot
    know."""
    env = spec.load().raw_env(render_mode="rgb_array", **options)
    par = spec.load().parallel_env(**options)
    par.reset(seed=21)
    game = env.game
    rng = np.random.default_rng(7)
    env.reset(seed=21)
    differed = False

    def channels(seat):
        par.truth = env.truth
        agent = par.possible_agents[seat]
        door = par._observations().get(agent)
        parallel = None if door is None else (door["observation"], door["action_mask"])
        return (*_channels(env, seat), parallel)

    for _ in range(12):
        truth = env.truth
        for seat in range(env.num_players):
            before = channels(seat)
            for k in range(2):
                env.truth = game.resample(truth, seat, np.random.default_rng(100 * seat + k))
                after = channels(seat)
                differed |= env.game_state() != game.to_json(truth)
                env.truth = truth
                names = ("observation", "mask", "text", "picture", "parallel")
                for name, a, b in zip(names, before, after, strict=True):
                    if name == "parallel":
                        same = (a is None and b is None) or all(map(np.array_equal, a, b))
                    else:
                        same = np.array_equal(a, b) if name != "text" else a == b
                    assert same, f"{name} of seat {seat} changed with hidden information"
        _random_steps(env, rng, 7)
        if not env.agents or env.terminations[env.agent_selection]:
            break
    assert differed == game.has_hidden_information


@pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))
def test_the_docs_are_made_from_the_option_spec_and_the_pieces(spec):
    import inspect

    module = spec.load()
    doc = inspect.getmodule(module.raw_env).__doc__
    game_class = module.raw_env.game_class
    assert game_class.options.table() in doc
    params = inspect.signature(module.raw_env).parameters
    expected = {**game_class.options.defaults(), "render_mode": None, "render_view": "omniscient"}
    assert {name: p.default for name, p in params.items()} == expected
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params.values())
    observer = module.raw_env().observer
    for piece in observer.pieces:
        assert f"`{piece.name}`" in doc, piece.name


@pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))
def test_numpy_integers_pass_where_ints_do_and_both_ids_are_registered(spec):
    import pettingzoo

    import ratenvs  # noqa: F401  (registers the ids)

    module = spec.load()
    env = module.raw_env(num_players=np.int64(2))
    assert env.options["num_players"] == 2 and type(env.options["num_players"]) is int
    with pytest.raises(ValueError, match="num_players"):
        module.raw_env(num_players=np.float64(2.5))
    if not PETTINGZOO_REGISTRY:  # PettingZoo < 1.27 has no registry to put ids in
        return
    aec = pettingzoo.make("aec", spec.pettingzoo_id)
    par = pettingzoo.make("parallel", spec.pettingzoo_id)
    assert aec.unwrapped.game == par.unwrapped.game


@pytest.mark.parametrize("spec", list(GAMES.values()), ids=list(GAMES))
@pytest.mark.parametrize("door", ["raw_env", "env"])
def test_one_legal_mask_per_decision_and_step_checks_the_mask_it_showed(spec, door):
    """Through PettingZoo's loop (``last`` then ``step``) the game builds one mask per
    decision: ``step`` checks the action against the mask the observation showed (it built
    it again; the rules may check an action with one of their own). Writing into that
    shown mask changes nothing: a legal action it zeroed is still played, an illegal one it
    set is still refused (the refusal builds the mask it names)."""
    env = getattr(spec.load(), door)(num_players=3)
    raw = env.unwrapped
    game = raw.game
    built, applying = [], []
    game_legal_mask, game_apply = game.legal_mask, game.apply

    def legal_mask(state, seat):
        if not applying:
            built.append(seat)
        return game_legal_mask(state, seat)

    def apply(*args):
        applying.append(True)
        try:
            return game_apply(*args)
        finally:
            applying.clear()

    game.legal_mask, game.apply = legal_mask, apply
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    decisions = refused = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        action = int(rng.choice(np.flatnonzero(mask)))
        illegal = np.flatnonzero(mask == 0)
        if door == "raw_env" and decisions % 7 == 0 and illegal.size:
            mask[illegal[0]] = 1
            with pytest.raises(ValueError, match="illegal action"):
                env.step(int(illegal[0]))
            refused += 1
        mask[:] = 0
        env.step(action)
        decisions += 1
    assert decisions >= 10 and len(built) == decisions + refused
