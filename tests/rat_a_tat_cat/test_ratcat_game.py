"""Rat-a-Tat Cat on the Game interface: the Game and its options, the observers (named
pieces, docstring tables, the privileged ``state()``), the parallel env, pickling, the
chance-log replay, and the views of a seat that must not change with hidden cards."""

import copy
import pickle

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from ratenvs import rat_a_tat_cat_v1
from ratenvs.common.bots import RandomBot
from ratenvs.common.game import ChanceReplay
from ratenvs.common.play import play_game
from ratenvs.rat_a_tat_cat import bots, observe, rules
from ratenvs.rat_a_tat_cat import env as env_module
from ratenvs.rat_a_tat_cat.rules import RatATatCat

OMNISCIENT = "omniscient"


# ------------------------------------------------------------------ the Game
def test_the_game_declares_every_env_option_with_todays_defaults():
    spec = RatATatCat.options
    assert list(spec) == [
        "num_players",
        "rounds",
        "target_score",
        "eliminate_at",
        "max_turns_per_round",
        "elimination_tiebreak",
        "observation",
        "owner_ceilings",
        "reward",
    ]
    assert spec.defaults() == {
        "num_players": 2,
        "rounds": None,
        "target_score": None,
        "eliminate_at": "exceeds",
        "max_turns_per_round": 200,
        "elimination_tiebreak": "lowest_total",
        "observation": "knowledge",
        "owner_ceilings": False,
        "reward": "zero_sum",
    }
    assert rat_a_tat_cat_v1.raw_env().options["rounds"] == 1  # no target: one round
    assert rat_a_tat_cat_v1.raw_env(target_score=50).options["rounds"] is None
    game = RatATatCat(num_players=3, observation="memoryless")
    assert game.observation_kind == "memoryless" and game.num_actions == rules.num_actions(3)
    assert game.observer_kinds == ("knowledge", "memoryless", "privileged")
    assert pickle.loads(pickle.dumps(game)) == game


def test_docstring_tables_are_generated_from_the_spec_and_the_pieces():
    from ratenvs.common.aec import options_table

    assert options_table(RatATatCat) in env_module.__doc__
    two = RatATatCat(num_players=2, owner_ceilings=True)
    assert two.observer("knowledge").table() in env_module.__doc__
    assert two.observer("knowledge").table() in observe.__doc__
    assert two.observer("privileged").table() in observe.__doc__
    assert RatATatCat.options.table() in rat_a_tat_cat_v1.raw_env.__init__.__doc__


@pytest.mark.parametrize("n", [2, 4, 6])
@pytest.mark.parametrize("ceilings", [False, True])
def test_layout_is_derived_from_the_pieces(n, ceilings):
    game = RatATatCat(num_players=n, owner_ceilings=ceilings)
    obs = game.observer("knowledge")
    lay = observe.Layout(n, ceilings)
    assert obs.size == lay.size == (72 if ceilings else 64) * n + 67
    for p in obs.pieces:
        name = "unseen" if p.name == "unseen_counts" else p.name
        assert getattr(lay, name) == obs.offset(p.name)
    assert observe.layout_for_size(lay.size).num_players == n


# ------------------------------------------------------------------ envs
@pytest.mark.parametrize("kw", [{"num_players": 2}, {"num_players": 4, "target_score": 60}])
def test_parallel_env_passes_the_parallel_api_test(kw):
    parallel_api_test(rat_a_tat_cat_v1.parallel_env(**kw), num_cycles=300)


def test_parallel_env_plays_the_same_game_as_the_aec_env():
    aec = rat_a_tat_cat_v1.raw_env(num_players=3, rounds=2)
    par = rat_a_tat_cat_v1.parallel_env(num_players=3, rounds=2)
    aec.reset(seed=4)
    obs, _ = par.reset(seed=4)
    rng = np.random.default_rng(0)
    while par.agents:
        agent = aec.agent_selection
        assert np.array_equal(obs[agent]["observation"], aec.observe(agent)["observation"])
        legal = np.flatnonzero(obs[agent]["action_mask"])
        action = int(legal[rng.integers(legal.size)])
        obs, rewards, *_ = par.step({agent: action})
        aec.step(action)
        assert rewards == {a: aec.rewards[a] for a in rewards}
    assert par.game_state() == aec.game_state()


@pytest.mark.parametrize("kw", [{"num_players": 3}, {"num_players": 4, "target_score": 60}])
def test_state_lies_in_the_state_space_through_a_random_game(kw):
    env = rat_a_tat_cat_v1.raw_env(**kw)
    env.reset(seed=2)
    rng = np.random.default_rng(2)
    steps = 0
    while not env.truth.is_over:
        state = env.state()
        assert state.dtype == np.float32 and env.state_space.contains(state), steps
        legal = np.flatnonzero(env.action_mask(env.agent_selection))
        env.step(int(legal[rng.integers(legal.size)]))
        steps += 1
    assert env.state_space.contains(env.state())
    views = env.game.observer("privileged").views(env.state())
    hands = np.argmax(views["hands"], axis=-1)
    assert hands.tolist() == [
        [rules.KIND[c] if c != rules.NO_CARD else rules.NUM_KINDS for c in h]
        for h in env.truth.hands
    ]


def _random_steps(env, rng, count):
    for _ in range(count):
        if env.truth.is_over:
            return
        legal = np.flatnonzero(env.action_mask(env.agent_selection))
        env.step(int(legal[rng.integers(legal.size)]))


@pytest.mark.parametrize("clone", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))])
def test_a_copied_env_mid_game_continues_identically(clone):
    env = rat_a_tat_cat_v1.raw_env(num_players=3, target_score=60)
    env.reset(seed=5)
    _random_steps(env, np.random.default_rng(5), 80)
    twin = clone(env)
    assert twin.game_state() == env.game_state()
    for e in (env, twin):
        _random_steps(e, np.random.default_rng(9), 400)
    assert twin.game_state() == env.game_state()
    assert twin._cumulative_rewards == env._cumulative_rewards
    for agent in env.possible_agents:
        assert np.array_equal(twin.observe(agent)["observation"], env.observe(agent)["observation"])


# ------------------------------------------------------------------ chance replay
class _Replay:
    """Plays back a list of actions (whatever its rng says)."""

    name = "replay"

    def __init__(self, actions):
        self.actions = iter(actions)

    def act(self, observation, action_mask, rng):
        return next(self.actions)


class _PatientRandomBot(RandomBot):
    """A random bot that seldom knocks (so rounds run long enough to reshuffle)."""

    name = "patient_random"

    def act(self, observation, action_mask, rng):
        if action_mask[rules.ACTION_KNOCK] and rng.random() < 0.98:
            return rules.ACTION_NO_KNOCK
        return super().act(observation, action_mask, rng)


def _coverage_hook(seen):
    """Counts what the games went through: Draw 2 used (and used again within the same
    sequence), knocks, reshuffles of the discard pile, games ended by elimination."""
    prev = {"action": None, "phase": rules.PHASE_START}

    def hook(game, state, actions, rewards):
        (action,) = actions.values()
        in_sequence = prev["action"] in (
            rules.ACTION_USE_DRAW2,
            rules.ACTION_DISCARD,
            rules.ACTION_DECLINE,
        ) and prev["phase"] not in (rules.PHASE_KNOCK, rules.PHASE_START, rules.PHASE_OVER)
        seen["draw2"] += action == rules.ACTION_USE_DRAW2
        seen["chained"] += action == rules.ACTION_USE_DRAW2 and in_sequence
        seen["knocks"] += action == rules.ACTION_KNOCK
        seen["reshuffles"] += state.epoch > 0 and not seen["_epoch"]
        seen["_epoch"] = state.epoch
        seen["eliminated"] += state.is_over and not all(state.active)
        prev["action"], prev["phase"] = action, state.phase

    return hook


def test_chance_log_replays_the_same_games_under_another_seed():
    seen = dict.fromkeys(["draw2", "chained", "knocks", "reshuffles", "eliminated", "_epoch"], 0)
    games = 0
    for n in (2, 3, 4):
        game = RatATatCat(num_players=n, target_score=40, max_turns_per_round=80)
        for seed in range(100):
            played = play_game(
                game,
                [_PatientRandomBot() for _ in range(n)],
                seed,
                record_chance=True,
                on_step=_coverage_hook(seen),
            )
            shared = _Replay(played.actions)
            again = play_game(game, [shared] * n, seed + 10_000, chance=ChanceReplay(played.chance))
            assert again.actions == played.actions
            assert game.to_json(again.state) == game.to_json(played.state)
            assert again.returns == played.returns
            games += 1
    assert games == 300
    assert seen["draw2"] > 300 and seen["chained"] > 5 and seen["knocks"] > 200
    assert seen["eliminated"] > 200 and seen["reshuffles"] > 100


def test_deterministic_bots_replay_the_same_actions_from_the_chance_log_alone():
    game = RatATatCat(num_players=4, target_score=60, owner_ceilings=True)
    for seed in range(6):
        players = [bots.HeuristicBot(), bots.CeilingBot(), bots.HeuristicBot(), bots.CeilingBot()]
        played = play_game(game, players, seed, record_chance=True)
        replay = ChanceReplay(played.chance)
        again = play_game(game, players, seed + 99, chance=replay)
        assert again.actions == played.actions and replay.exhausted
        assert game.to_json(again.state) == game.to_json(played.state)


# ------------------------------------------------------------------ bots
def test_an_unbound_bot_on_another_table_asks_to_be_bound():
    env = rat_a_tat_cat_v1.raw_env(num_players=4)
    env.reset(seed=0)
    seen = env.observe(env.agent_selection)
    bot = bots.HeuristicBot()
    with pytest.raises(ValueError, match="bind"):
        bot.act(seen["observation"], seen["action_mask"], np.random.default_rng(0))
    bot.bind(env.observer)
    assert seen["action_mask"][bot.act(seen["observation"], seen["action_mask"], None)]
    two = rat_a_tat_cat_v1.raw_env()  # the default table works unbound
    two.reset(seed=0)
    seen = two.observe(two.agent_selection)
    assert seen["action_mask"][
        bots.HeuristicBot().act(seen["observation"], seen["action_mask"], None)
    ]
    with pytest.raises(ValueError, match=r"bind|owner_ceilings"):
        bots.CeilingBot().act(seen["observation"], seen["action_mask"], None)


# ------------------------------------------------------------------ what a seat sees
def _frame(env, view):
    env.render_view = view
    try:
        return env.render()
    finally:
        env.render_view = OMNISCIENT


def _seat_channels(env, agent):
    """Everything ``agent`` is shown: observation, mask, text and picture."""
    seen = env.observe(agent)
    return (
        seen["observation"].tobytes(),
        seen["action_mask"].tobytes(),
        env.render_text(agent),
        _frame(env, agent).tobytes(),
    )


def _omniscient_channels(env):
    return (env.state().tobytes(), env.render_text(OMNISCIENT), _frame(env, OMNISCIENT).tobytes())


def _patient_steps(env, rng, count):
    """``count`` random decisions that seldom knock."""
    for _ in range(count):
        if env.truth.is_over:
            return
        legal = np.flatnonzero(env.action_mask(env.agent_selection))
        if rules.ACTION_KNOCK in legal and rng.random() < 0.95:
            env.step(rules.ACTION_NO_KNOCK)
        else:
            env.step(int(legal[rng.integers(legal.size)]))


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("mode", ["knowledge", "memoryless"])
def test_hidden_cards_change_no_view_of_a_seat_but_change_the_omniscient_views(n, mode):
    samples = omniscient_changed = 0
    for game in range(3):
        env = rat_a_tat_cat_v1.raw_env(
            num_players=n,
            observation=mode,
            target_score=60,
            max_turns_per_round=40,
            owner_ceilings=True,
            render_mode="rgb_array",
        )
        env.reset(seed=10 * n + game)
        rng = np.random.default_rng(game)
        for _ in range(6):
            _patient_steps(env, rng, int(rng.integers(1, 15)))
            if env.truth.is_over:
                break
            for agent in env.possible_agents:
                new = env.resample_from_infostate(agent, seed=samples)
                assert _seat_channels(new, agent) == _seat_channels(env, agent), (agent, samples)
                omniscient_changed += _omniscient_channels(new) != _omniscient_channels(env)
                samples += 1
    assert samples >= 12 * n
    assert omniscient_changed > samples * 0.8  # the check can fail: hidden cards did move


def test_another_players_held_card_is_never_named_nor_shown_even_a_taken_discard():
    env = rat_a_tat_cat_v1.raw_env(num_players=2, render_mode="rgb_array", render_view="player_1")
    env.reset(seed=0)
    top = rules.card_name(env.truth.discard_top)
    assert env.action_mask("player_0")[rules.ACTION_TAKE_DISCARD]
    env.step(rules.ACTION_TAKE_DISCARD)
    assert env.truth.held_public
    assert f"holding {top}" in env.render_text("player_0")
    text = env.render_text("player_1")
    assert "holding the taken discard" in text and f"holding {top}" not in text
    obs = env.observer.views(env.observe("player_1")["observation"])
    assert obs["held"][rules.NUM_KINDS] == 1  # the observation does not carry it either
    shown = env.render()
    other = next(c for c in env.truth.draw_pile if rules.KIND[c] != rules.KIND[env.truth.held])
    env.truth.held = other
    assert np.array_equal(shown, env.render())  # the picture does not show it
    assert env.render_text("player_1") == text
