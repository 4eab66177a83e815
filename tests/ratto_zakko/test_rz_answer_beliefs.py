"""The ``answer_beliefs`` option: 13 extra entries, how likely each response is the correct
answer by the seat's own posteriors and the table it knows (observe.answer_beliefs)."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from helpers import parallel_seed_test, positions
from pettingzoo.test import api_test, parallel_api_test, seed_test

from ratenvs import ratto_zakko_v0
from ratenvs.ratto_zakko import observe as ob
from ratenvs.ratto_zakko import rules


def brute_force_beliefs(game: rules.RattoZakko, state: rules.State, seat: int) -> np.ndarray:
    """The same probabilities by name, card by card, through the string oracle."""
    out = np.zeros(rules.NUM_RESPONSES)
    ident, colour = state.posterior[seat][0], state.posterior[seat][1]
    shaker, fly = rules.FOODS[state.shaker_on], rules.FOODS[state.fly_under]
    rule = game.fly_card_under_shaker
    for i, name in enumerate(rules.IDENTITIES):
        if name == rules.RAT and game.level == "starter":
            continue
        if name in (rules.FLY, rules.RAT):
            ans = rules.correct_response(name, shaker, fly, game.level, fly_card_under_shaker=rule)
            out[rules.RESPONSE_INDEX[ans]] += ident[i]
            continue
        for c, cname in enumerate(rules.COLOURS):
            ans = rules.correct_response(
                f"{name}/{cname}", shaker, fly, game.level, fly_card_under_shaker=rule
            )
            out[rules.RESPONSE_INDEX[ans]] += ident[i] * colour[c]
    return out


def walk(env: ratto_zakko_v0.raw_env, seed: int, every: int = 1):
    """Play a game with random actions (mostly waits), yielding the env every ``every`` steps."""
    return positions(env, seed, every, wait=ob.ACTION_WAIT, wait_prob=0.9)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_bad_values_name_the_option(value):
    for make in (ratto_zakko_v0.raw_env, ratto_zakko_v0.parallel_env):
        with pytest.raises(ValueError, match="answer_beliefs"):
            make(answer_beliefs=value)


def test_memoryless_observations_refuse_the_beliefs():
    with pytest.raises(ValueError, match=r"answer_beliefs.*knowledge"):
        ratto_zakko_v0.raw_env(answer_beliefs=True, observation="memoryless")


@pytest.mark.parametrize("n", [2, 5])
def test_the_beliefs_are_appended_and_nothing_else_changes(n):
    plain = ratto_zakko_v0.raw_env(num_players=n, level="main")
    rich = ratto_zakko_v0.raw_env(num_players=n, level="main", answer_beliefs=True)
    size = ob.observation_size(n)
    assert ob.observation_size(n, True) == size + rules.NUM_RESPONSES
    assert rich.observation_space("player_0")["observation"].shape == (size + 13,)
    steps = 0
    for a, b in zip(walk(plain, seed=4), walk(rich, seed=4), strict=True):
        seat = a.agent_name_mapping[a.agent_selection]
        x, y = a.observer.observe(a.truth, seat), b.observer.observe(b.truth, seat)
        np.testing.assert_array_equal(x, y[:size])
        assert b.observation_space(b.agent_selection)["observation"].contains(y)
        steps += 1
    assert steps > 500


@pytest.mark.parametrize("level", rules.LEVELS)
@pytest.mark.parametrize("fly_rule", ["grab", "rat"])
def test_beliefs_are_the_oracle_applied_to_the_posteriors(level, fly_rule):
    env = ratto_zakko_v0.raw_env(
        num_players=3, level=level, answer_beliefs=True, fly_card_under_shaker=fly_rule
    )
    checked = 0
    for e in walk(env, seed=7, every=3):
        state = e.truth
        for seat in range(3):
            got = e.observer.observe(e.truth, seat)[ob.observation_size(3) :]
            if state.phase != rules.PHASE_REACT:
                assert not got.any()
                continue
            np.testing.assert_allclose(got, brute_force_beliefs(e.game, state, seat), atol=1e-6)
            assert got.sum() == pytest.approx(1.0, abs=1e-5)
            checked += 1
    assert checked > 300


@pytest.mark.parametrize("level", rules.LEVELS)
def test_clear_perception_gives_the_correct_answer_with_certainty(level):
    env = ratto_zakko_v0.raw_env(
        num_players=2, level=level, perception="clear", answer_beliefs=True
    )
    cards = set()
    for e in walk(env, seed=2):
        s = e.truth
        if s.phase != rules.PHASE_REACT:
            continue
        correct = rules.correct_response_index(s.card, s.shaker_on, s.fly_under, e.game.level)
        beliefs = e.observer.observe(e.truth, e.agent_name_mapping[e.agent_selection])[
            ob.observation_size(2) :
        ]
        assert beliefs.argmax() == correct and beliefs[correct] == pytest.approx(1.0)
        cards.add(s.card)
    assert len(cards) > 20


def test_the_beliefs_leak_nothing():
    """Changing what a seat cannot know (the true card, the other seats' glimpses) leaves its
    observation, beliefs included, unchanged; its own glimpses do change them."""
    env = ratto_zakko_v0.raw_env(num_players=3, level="dessert", answer_beliefs=True)
    rng = np.random.default_rng(0)
    checked = own_changes = 0
    for e in walk(env, seed=11, every=7):
        state = e.truth
        if state.phase != rules.PHASE_REACT:
            continue
        for seat in range(3):
            hidden = copy.deepcopy(state)
            hidden.card = int(rng.integers(rules.NUM_CARD_KINDS))
            for other in range(3):
                if other != seat:
                    hidden.posterior[other] = rng.dirichlet(np.ones(7), size=2)
            observe = e.observer.observe
            before = observe(state, seat)
            np.testing.assert_array_equal(before, observe(hidden, seat))
            mine = copy.deepcopy(state)
            mine.posterior[seat] = rng.dirichlet(np.ones(7), size=2)
            mine.posterior[seat][1, rules.NUM_COLOURS :] = 0.0
            own_changes += not np.array_equal(before, observe(mine, seat))
            checked += 1
    assert checked > 100 and own_changes == checked


def test_pettingzoo_api_and_seed_with_beliefs():
    options = {"num_players": 4, "level": "dessert", "window_ticks": 6, "answer_beliefs": True}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(ratto_zakko_v0.env(**options), num_cycles=60)
        parallel_api_test(ratto_zakko_v0.parallel_env(**options), num_cycles=400)
        seed_test(lambda: ratto_zakko_v0.env(**options), num_cycles=60)
        parallel_seed_test(lambda: ratto_zakko_v0.parallel_env(**options), num_cycles=60)
        import gymnasium
        from gymnasium.utils.env_checker import check_env

        import ratenvs  # noqa: F401  (registers the ids)

        genv = gymnasium.make("ratenvs/RattoZakko-v0", **options)
        check_env(genv.unwrapped, skip_render_check=True)


def test_a_belief_threshold_answers_almost_always_correctly():
    """What the option is for: answering the most likely response once it is 97% likely is
    right nearly always (the calibrated perception), and fast enough to beat adult bots."""
    from ratenvs.wrappers.single_agent import SingleAgentEnv

    env = SingleAgentEnv(
        "ratto_zakko",
        opponents=["adult"] * 3,
        num_players=4,
        level="dessert",
        answer_beliefs=True,
    )
    size = ob.observation_size(4)
    answers = correct = 0
    obs, _ = env.reset(seed=0)
    done = False
    while not done:
        mask = env.action_masks()
        beliefs = obs[size:]
        if mask[ob.ACTION_RESPONSE_FIRST] and beliefs.max() >= 0.97:
            action = ob.ACTION_RESPONSE_FIRST + int(beliefs.argmax())
            s = env.aec.truth
            answers += 1
            correct += beliefs.argmax() == rules.correct_response_index(
                s.card, s.shaker_on, s.fly_under, env.aec.game.level
            )
        else:
            action = int(np.flatnonzero(mask)[0])
        obs, _r, term, trunc, _ = env.step(action)
        done = term or trunc
    counts = env.aec.truth.card_counts()
    assert answers >= 50 and correct / answers >= 0.94
    assert counts[0] == max(counts) and counts[0] > sum(counts[1:])


# ------------------------------------------------------------------ the bayes bot
def test_the_bayes_bot_answers_what_the_beliefs_say():
    """The bot computes the beliefs from the plain observation (its posteriors and the fly
    it remembers); an env with the option shows the same numbers, and the bot answers their
    most likely response exactly when it reaches the bot's certainty."""
    from ratenvs.ratto_zakko.bots import get_bot

    env = ratto_zakko_v0.raw_env(num_players=2, level="dessert", answer_beliefs=True)
    env.reset(seed=5)
    size = ob.observation_size(2)
    bots = [get_bot("bayes"), get_bot("bayes")]
    rng = np.random.default_rng(0)
    answered = 0
    while not env.truth.is_over:
        seat = env.agent_name_mapping[env.agent_selection]
        vec, mask = (
            env.observer.observe(env.truth, seat),
            env.action_mask(env.possible_agents[seat]),
        )
        action = bots[seat].act(vec[:size], mask, rng)
        beliefs = vec[size:]
        if mask[ob.ACTION_RESPONSE_FIRST]:
            if beliefs.max() >= 0.97:
                assert action == ob.ACTION_RESPONSE_FIRST + int(beliefs.argmax())
                answered += 1
            else:
                assert action == ob.ACTION_WAIT
        env.step(action)
    assert answered > 40


def test_the_bayes_bot_refuses_a_bad_certainty():
    from ratenvs.ratto_zakko.reaction import BayesBot

    with pytest.raises(ValueError, match="certainty"):
        BayesBot(certainty=1.5)
