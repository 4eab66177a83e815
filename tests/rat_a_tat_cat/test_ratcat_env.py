"""The PettingZoo env and the gymnasium id: API, seeding, options, illegal actions, rewards,
observations, game_state and rendering."""

import json

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env
from helpers import needs_pettingzoo_registry, random_action, turns
from pettingzoo.test import api_test, seed_test

import ratenvs  # noqa: F401  (registers the ids)
from ratenvs import rat_a_tat_cat_v1
from ratenvs.common.aec import IllegalActionError
from ratenvs.rat_a_tat_cat import rules
from ratenvs.rat_a_tat_cat.observe import Layout, observation_size, slot_codes


@pytest.mark.parametrize("num_players", [2, 4, 6])
@pytest.mark.parametrize("observation", ["knowledge", "memoryless"])
def test_pettingzoo_api_and_seed_tests(num_players, observation):
    kw = {"num_players": num_players, "observation": observation}
    api_test(rat_a_tat_cat_v1.env(**kw), num_cycles=200)
    seed_test(lambda: rat_a_tat_cat_v1.env(**kw), 100)


@pytest.mark.parametrize("num_players", [2, 4])
def test_api_seed_and_check_env_for_the_elimination_game(num_players):
    """The configuration the shipped agents play: out at 100 points, several rounds."""
    kw = {"num_players": num_players, "target_score": 100}
    api_test(rat_a_tat_cat_v1.env(**kw), num_cycles=600)
    seed_test(lambda: rat_a_tat_cat_v1.env(**kw), 300)
    genv = gymnasium.make("ratenvs/RatATatCat-v1", **kw)
    check_env(genv.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("reward", ["zero_sum", "zero_sum_win"])
def test_api_seed_and_check_env_with_owner_ceilings(reward):
    """The configuration of the 4-player agent that reads how the others have played (and
    of its trial with the game's result added to the rounds' rewards)."""
    kw = {"num_players": 4, "target_score": 100, "owner_ceilings": True, "reward": reward}
    api_test(rat_a_tat_cat_v1.env(**kw), num_cycles=600)
    seed_test(lambda: rat_a_tat_cat_v1.env(**kw), 300)
    genv = gymnasium.make("ratenvs/RatATatCat-v1", **kw)
    check_env(genv.unwrapped, skip_render_check=True)


@pytest.mark.parametrize("num_players", [2, 3, 6])
def test_owner_ceilings_block_lists_every_slot_observer_first(num_players):
    n = num_players
    env = rat_a_tat_cat_v1.raw_env(num_players=n, owner_ceilings=True)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(60):  # play on a little so that some ceilings are set
        seat = env.truth.current
        legal = np.flatnonzero(env.game.legal_mask(env.truth, seat))
        if env.truth.is_over:
            break
        env.step(int(rng.choice(legal[legal != rules.ACTION_KNOCK] if legal.size > 1 else legal)))
    lay = Layout(n, ceilings=True)
    assert lay.size == observation_size(n, ceilings=True) == 72 * n + 67
    plain = rat_a_tat_cat_v1.raw_env(num_players=n)
    space = plain.observation_space(plain.possible_agents[0])["observation"]
    assert observation_size(n) == space.shape[0]
    assert (env.truth.ceiling < rules.NO_CEILING).any()
    for seat in range(n):
        obs = env.observer.observe(env.truth, seat)
        block = obs[lay.ceilings :].reshape(n, rules.SLOTS, 2)
        for k in range(n):
            p = (seat + k) % n
            assert block[k, :, 0].tolist() == env.truth.owner_seen[p].astype(float).tolist()
            assert np.allclose(block[k, :, 1], env.truth.ceiling[p] / rules.NO_CEILING)
        space = env.observation_space(env.possible_agents[seat])["observation"]
        assert space.contains(obs)


@needs_pettingzoo_registry
def test_registered_ids_and_gymnasium_check_env():
    env = pettingzoo.make("aec", "ratenvs/rat_a_tat_cat-v1")
    env.reset(seed=0)
    assert env.num_agents == 2
    genv = gymnasium.make("ratenvs/RatATatCat-v1")
    check_env(genv.unwrapped, skip_render_check=True)
    obs, info = genv.reset(seed=1)
    assert obs.shape == (observation_size(2),) and info["action_mask"].any()


def test_gymnasium_episode_against_heuristic_bots_ends():
    genv = gymnasium.make("ratenvs/RatATatCat-v1", num_players=3)
    _obs, info = genv.reset(seed=3)
    rng = np.random.default_rng(0)
    total, done = 0.0, False
    while not done:
        legal = np.flatnonzero(info["action_mask"])
        _obs, r, term, trunc, info = genv.step(int(rng.choice(legal)))
        total += r
        done = term or trunc
    assert np.isfinite(total)


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("num_players", 1),
        ("num_players", 7),
        ("num_players", "two"),
        ("rounds", 0),
        ("target_score", 0),
        ("max_turns_per_round", 0),
        ("observation", "everything"),
        ("reward", "score"),
        ("elimination_tiebreak", "coin_flip"),
        ("render_mode", "rgb"),
        ("render_view", "player_5"),
    ],
)
def test_bad_options_raise_value_error_naming_the_option(option, value):
    with pytest.raises(ValueError, match=option):
        rat_a_tat_cat_v1.raw_env(**{option: value})


def test_illegal_actions_raise_in_raw_env_and_end_the_game_in_env():
    raw = rat_a_tat_cat_v1.raw_env()
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError):
        raw.step(rules.ACTION_KNOCK)  # no knock before the card part of the turn
    wrapped = rat_a_tat_cat_v1.env()
    wrapped.reset(seed=0)
    agent = wrapped.agent_selection
    wrapped.step(rules.ACTION_KNOCK)
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[agent] == -1


def _play_out(env, rng):
    rewards = dict.fromkeys(env.possible_agents, 0.0)
    round_rewards = []
    for _agent, obs, _r, done in turns(env):
        if done:
            continue
        env.step(random_action(obs, rng))
        step = dict(env.rewards)
        if any(step.values()):
            round_rewards.append(step)
        for a in env.possible_agents:
            rewards[a] += step[a]
    return rewards, round_rewards


def test_rewards_zero_sum_points_and_win():
    for seed in range(5):
        env = rat_a_tat_cat_v1.raw_env(num_players=3, rounds=2)
        env.reset(seed=seed)
        _, rounds = _play_out(env, np.random.default_rng(seed))
        assert 1 <= len(rounds) <= 2
        for r in rounds:
            assert abs(sum(r.values())) < 1e-9
        pts = rat_a_tat_cat_v1.raw_env(num_players=3, rounds=2, reward="points")
        pts.reset(seed=seed)
        totals, _ = _play_out(pts, np.random.default_rng(seed))
        expected = [-t / 10 for t in pts.truth.totals]
        assert np.allclose([totals[a] for a in pts.possible_agents], expected)
        win = rat_a_tat_cat_v1.raw_env(num_players=3, rounds=2, reward="win")
        win.reset(seed=seed)
        totals, rounds = _play_out(win, np.random.default_rng(seed))
        assert len(rounds) == 1 and abs(sum(totals.values())) < 1e-9
        best = min(win.truth.totals)
        for a, t in zip(win.possible_agents, win.truth.totals):
            assert (totals[a] > 0) == (t == best and sum(win.truth.winners) < 3)


def test_zero_sum_win_is_the_zero_sum_rounds_plus_the_win_at_the_end():
    from ratenvs.common.rewards import win_rewards

    for seed in range(4):
        per_mode = {}
        for mode in ("zero_sum", "zero_sum_win"):
            env = rat_a_tat_cat_v1.raw_env(num_players=4, target_score=60, reward=mode)
            env.reset(seed=seed)
            per_mode[mode] = (_play_out(env, np.random.default_rng(seed)), env.truth)
        (_, plain), _ = per_mode["zero_sum"]
        (totals, mixed), state = per_mode["zero_sum_win"]
        assert len(mixed) == len(plain) >= 2  # the same game: one reward step per round
        for a, b in zip(plain[:-1], mixed[:-1]):  # every round but the last: zero_sum
            assert a == b
        win = win_rewards(state.winners)
        for p, agent in enumerate(env.possible_agents):
            assert mixed[-1][agent] == pytest.approx(plain[-1][agent] + win[p])
        assert abs(sum(totals.values())) < 1e-9  # still zero-sum over the game
    with pytest.raises(ValueError, match="zero_sum_win"):
        rat_a_tat_cat_v1.raw_env(reward="zero_sum_wins")


def test_zero_sum_reward_value():
    env = rat_a_tat_cat_v1.raw_env(num_players=3)
    env.reset(seed=2)
    _, rounds = _play_out(env, np.random.default_rng(1))
    pts = env.truth.last_round_points
    assert len(rounds) == 1 and len(set(pts)) > 1
    for p in range(3):
        others = (sum(pts) - pts[p]) / 2
        assert rounds[0][env.possible_agents[p]] == pytest.approx((others - pts[p]) / 10)


def test_observation_layout_and_knowledge_vs_memoryless():
    for n in range(2, 7):
        assert observation_size(n) == 64 * n + 67 == Layout(n).size
    know = rat_a_tat_cat_v1.raw_env(observation="knowledge")
    mem = rat_a_tat_cat_v1.raw_env(observation="memoryless")
    for e in (know, mem):
        e.reset(seed=11)
    lay = Layout(2)
    # at the deal both modes show the initial peek of slots 0 and 3 to their owner
    for e in (know, mem):
        codes = slot_codes(e.observe("player_0")["observation"], 2)
        assert codes[0, 0] == rules.KIND[e.truth.hands[0][0]]
        assert codes[0, 3] == rules.KIND[e.truth.hands[0][3]]
        assert (codes[0, 1:3] == rules.CODE_UNKNOWN).all() and (
            codes[1] == rules.CODE_UNKNOWN
        ).all()
    assert know.observe("player_0")["observation"][lay.unseen :].sum() > 0
    assert mem.observe("player_0")["observation"][lay.unseen :].sum() == 0
    # after its first decision the memoryless observer has forgotten its outer cards
    for e in (know, mem):
        e.step(rules.ACTION_DRAW)
    held = rules.KIND[know.truth.held]
    for e in (know, mem):
        obs = e.observe("player_0")["observation"]
        assert obs[lay.held + held] == 1 and obs[lay.phase : lay.phase + 7].sum() == 1
        assert e.observe("player_1")["observation"][lay.held + rules.NUM_KINDS] == 1
    assert slot_codes(know.observe("player_0")["observation"], 2)[0, 0] < rules.CODE_NUMBER
    assert slot_codes(mem.observe("player_0")["observation"], 2)[0, 0] == rules.CODE_UNKNOWN


def test_observations_stay_in_their_space():
    env = rat_a_tat_cat_v1.raw_env(num_players=4, rounds=3)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    space = env.observation_space("player_0")["observation"]
    while not env.truth.is_over:
        for a in env.possible_agents:
            assert space.contains(env.observe(a)["observation"])
        legal = np.flatnonzero(env.game.legal_mask(env.truth, env.truth.current))
        env.step(int(rng.choice(legal)))


def test_game_state_is_the_json_ready_truth():
    env = rat_a_tat_cat_v1.raw_env(num_players=3)
    env.reset(seed=9)
    env.step(rules.ACTION_DRAW)
    gs = json.loads(json.dumps(env.game_state()))
    names = set(rules.CARD_NAMES)
    cards = [c for h in gs["hands"] for c in h] + gs["draw_pile"] + gs["discard_pile"]
    cards.append(gs["held"])
    assert len(cards) == 54 and set(cards) <= names
    assert gs["held"] == rules.card_name(env.truth.held) and gs["current_player"] == 0
    assert gs["draw_pile"][-1] == rules.card_name(env.truth.draw_pile[-1])  # top last
    assert gs["scores"] == [0, 0, 0]


def test_render_from_a_seat_shows_only_what_it_may_see():
    env = rat_a_tat_cat_v1.raw_env(num_players=2, render_mode="ansi", render_view="player_1")
    env.reset(seed=1)
    text = env.render()
    lines = text.splitlines()
    p0 = next(line for line in lines if "player_0:" in line)
    p1 = next(line for line in lines if "player_1:" in line)
    assert p0.count("?") == 4 and p1.count("?") == 2
    omni = env.render_text("omniscient")
    assert "?" not in omni.split("discard")[0]
    env.step(rules.ACTION_DRAW)
    assert "holding a drawn card" in env.render_text("player_1")
    assert f"holding {rules.card_name(env.truth.held)}" in env.render_text("player_0")
    with pytest.raises(ValueError, match="view"):
        env.render_text("nobody")


def test_round_points_are_in_the_infos_of_the_step_that_ends_the_round_only():
    # the AEC env kept the last round's points in every later step's infos (last() showed
    # them with reward 0 until the next round ended); the parallel env was right
    from ratenvs.rat_a_tat_cat.env import raw_env as make

    env = make(num_players=2, rounds=3)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    told = ends = 0
    while env.agents:
        before = env.truth.round_index
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        ended = env.truth.round_index != before or env.truth.is_over
        ends += ended
        for a in env.possible_agents:
            has = "round_points" in env.infos.get(a, {})
            assert has == ended, (a, env.truth.round_index)
            told += has
    assert ends == 3 and told == 6
