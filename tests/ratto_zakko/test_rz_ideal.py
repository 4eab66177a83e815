"""The true ideal observer: answer beliefs with the deck's joint prior over (food, colour)
(``observe.joint_response_beliefs``) and the ``ideal`` bot that answers by them."""

from __future__ import annotations

import numpy as np
import pytest

from ratenvs import ratto_zakko_v0
from ratenvs.common.play import play_game
from ratenvs.ratto_zakko import observe as ob
from ratenvs.ratto_zakko import rules
from ratenvs.ratto_zakko.bots import BOTS, get_bot
from ratenvs.ratto_zakko.reaction import BayesBot, IdealBot

FOOD = rules.FOODS.index
IDX = rules.RESPONSE_INDEX
CHOICES = rules.ORIGINAL_COLOUR_CARD_CHOICES


# ------------------------------------------------------------------ the prior
def test_the_colour_prior_counts_the_deck():
    eye = np.eye(rules.NUM_FOODS)
    np.testing.assert_array_equal(ob.colour_prior(), 0.5 * eye + 0.125 * (1 - eye))
    np.testing.assert_array_equal(ob.colour_prior(4), ob.colour_prior())
    np.testing.assert_array_equal(ob.colour_prior(0), 0.25 * (1 - eye))
    np.testing.assert_array_equal(ob.colour_prior(8), eye)
    for k in CHOICES:
        prior = ob.colour_prior(k)
        assert prior.shape == (5, 5) and prior.dtype == np.float64
        np.testing.assert_array_equal(prior.sum(axis=1), np.ones(5))
        # the deck itself: P(c | f) = copies of card (f, c) / 8
        deck = rules.build_deck("dessert", k)
        for f in range(5):
            for c in range(5):
                assert prior[f, c] == deck.count(f * 5 + c) / rules.CARDS_PER_FOOD
        with pytest.raises(ValueError):
            prior[0, 0] = 1.0  # read-only: a shared cached table
    with pytest.raises(ValueError, match="original_colour_cards"):
        ob.colour_prior(3)


# ------------------------------------------------------------------ the beliefs
def _posteriors(identity: dict[str, float], colour: dict[str, float]):
    ident = np.zeros(7, dtype=np.float32)
    col = np.zeros(5, dtype=np.float32)
    for name, p in identity.items():
        ident[rules.IDENTITIES.index(name)] = p
    for name, p in colour.items():
        col[rules.COLOURS.index(name)] = p
    return ident, col


def test_a_hand_computed_case():
    """Apple or egg, green or white, each 50/50 by the posteriors. The ruling's prior gives
    apple/green (apple's original colour) 4 times the weight of apple/white: weights 2.5 and
    0.625 (times 0.25), so at dessert BANG (apple/green or egg/white) is 0.8 likely, each grab
    0.1; bayes says 0.5 and 0.25."""
    ident, col = _posteriors({"apple": 0.5, "egg": 0.5}, {"green": 0.5, "white": 0.5})
    sh, fl = FOOD("cheese"), FOOD("fish")
    joint = ob.joint_response_beliefs(ident, col, sh, fl, "dessert")
    want = np.zeros(13, dtype=np.float32)
    want[IDX["bang"]], want[IDX["grab:apple"]], want[IDX["grab:egg"]] = 0.8, 0.1, 0.1
    np.testing.assert_array_equal(joint, want)
    bayes = ob.response_beliefs(ident, col, sh, fl, "dessert")
    assert bayes[IDX["bang"]] == 0.5 and bayes[IDX["grab:apple"]] == 0.25
    # no card in its original colour: never BANG; all in it: certainly BANG
    zero = ob.joint_response_beliefs(ident, col, sh, fl, "dessert", original_colour_cards=0)
    assert zero[IDX["bang"]] == 0.0 and zero[IDX["grab:apple"]] == zero[IDX["grab:egg"]] == 0.5
    eight = ob.joint_response_beliefs(ident, col, sh, fl, "dessert", original_colour_cards=8)
    assert eight[IDX["bang"]] == 1.0 and eight.sum() == 1.0
    # outside dessert the colour does not matter: the same as bayes
    main = ob.joint_response_beliefs(ident, col, sh, fl, "main")
    np.testing.assert_array_equal(main, ob.response_beliefs(ident, col, sh, fl, "main"))


def test_fly_and_rat_cards_keep_their_identity_weight():
    """Food 0.5 (apple, green for sure), fly 0.25, rat 0.25: the apple/green card weighs
    0.5 * 2.5 = 1.25, so normalised 1.25 / 1.75 against 0.25 / 1.75 each."""
    ident, col = _posteriors({"apple": 0.5, "fly": 0.25, "rat": 0.25}, {"green": 1.0})
    sh, fl = FOOD("cheese"), FOOD("fish")
    got = ob.joint_response_beliefs(ident, col, sh, fl, "dessert")
    assert got[IDX["bang"]] == np.float32(1.25 / 1.75)
    assert got[IDX["grab:fish"]] == np.float32(0.25 / 1.75)  # the fly card: the fly's cloche
    assert got[IDX["shout:cheese"]] == np.float32(0.25 / 1.75)  # the rat card: under the shaker
    # at the starter level there are no rat cards
    starter = ob.joint_response_beliefs(ident, col, sh, fl, "starter")
    assert starter[IDX["shout:rat"]] == 0.0 and starter.sum() == pytest.approx(1.0)
    assert starter[IDX["grab:fish"]] == np.float32(0.25 / 1.5)


def brute_force(ident, colour, shaker, fly, level, rule, k):
    """The ideal observer's beliefs by name, card by card, through the string oracle."""
    prior = ob.colour_prior(k)
    out = np.zeros(rules.NUM_RESPONSES)
    names = rules.FOODS[shaker], rules.FOODS[fly]
    for i, name in enumerate(rules.IDENTITIES):
        if name == rules.RAT and level == "starter":
            continue
        if name in (rules.FLY, rules.RAT):
            ans = rules.correct_response(name, *names, level, fly_card_under_shaker=rule)
            out[IDX[ans]] += ident[i]
            continue
        for c, cname in enumerate(rules.COLOURS):
            card = f"{name}/{cname}"
            ans = rules.correct_response(card, *names, level, fly_card_under_shaker=rule)
            out[IDX[ans]] += ident[i] * colour[c] * prior[i, c] * 5
    return out / out.sum()


@pytest.mark.parametrize("level", rules.LEVELS)
@pytest.mark.parametrize("k", CHOICES)
def test_the_beliefs_are_the_joint_posterior_and_sum_to_one(level, k):
    rng = np.random.default_rng(k)
    for _ in range(60):
        ident = rng.dirichlet(np.full(7 if level != "starter" else 6, 0.3))
        ident = np.resize(ident, 7).astype(np.float32)
        if level == "starter":
            ident[rules.RAT_IDENTITY] = 0.0  # the starter level deals no rat cards
        colour = rng.dirichlet(np.full(5, 0.3)).astype(np.float32)
        sh, fl = (int(x) for x in rng.integers(5, size=2))
        rule = rules.FLY_CARD_RULES[int(rng.integers(2))]
        got = ob.joint_response_beliefs(ident, colour, sh, fl, level, rule, k)
        assert got.dtype == np.float32 and got.shape == (13,)
        assert got.sum() == pytest.approx(1.0, abs=1e-6)
        np.testing.assert_allclose(got, brute_force(ident, colour, sh, fl, level, rule, k),
                                   atol=1e-6)  # fmt: skip
        if level == "dessert":
            continue
        # below dessert a card's colour does not matter, and a uniform colour posterior
        # leaves every food its identity weight (the prior averages to 1): bayes's beliefs
        flat = np.full(5, 0.2, dtype=np.float32)
        np.testing.assert_allclose(
            ob.joint_response_beliefs(ident, flat, sh, fl, level, rule, k),
            ob.response_beliefs(ident, flat, sh, fl, level, rule),
            atol=1e-6,
        )


def test_no_card_gives_no_beliefs():
    zeros = np.zeros(7, dtype=np.float32)
    for k in CHOICES:
        got = ob.joint_response_beliefs(zeros, zeros[:5], 2, 3, "dessert", "grab", k)
        assert got.dtype == np.float32 and not got.any()
    # only impossible cards (a foreign colour when every card is in its original colour)
    ident, col = _posteriors({"apple": 1.0}, {"white": 1.0})
    assert not ob.joint_response_beliefs(ident, col, 2, 3, "main", "grab", 8).any()


# ------------------------------------------------------------------ the bot
def test_the_ideal_bot_is_registered_after_bayes():
    names = list(BOTS)
    assert names.index("ideal") == names.index("bayes") + 1
    bot = get_bot("ideal")
    assert isinstance(bot, IdealBot) and bot.name == "ideal"
    assert bot.certainty == 0.97 and bot.original_colour_cards == 4
    with pytest.raises(ValueError, match="certainty"):
        IdealBot(certainty=0.0)
    with pytest.raises(ValueError, match="original_colour_cards"):
        IdealBot(original_colour_cards=2)


def test_the_bot_takes_the_deck_from_the_game_it_is_bound_to():
    for k in CHOICES:
        env = ratto_zakko_v0.raw_env(num_players=3, original_colour_cards=k)
        bot = IdealBot(original_colour_cards=8 if k != 8 else 0)
        bot.bind(env.observer)
        assert bot.original_colour_cards == k
        bot.bind(ob.PREFIX)  # an observer without a game: the constructor's value
        assert bot.original_colour_cards == (8 if k != 8 else 0)


def _observation(ident, col, shaker, fly, level):
    """An observation at tick 1 of a card (the fixed prefix is what unbound bots read)."""
    vec = np.zeros(ob.observation_size(2), dtype=np.float32)
    vec[ob.IDENTITY_SLICE], vec[ob.COLOUR_SLICE] = ident, col
    vec[ob.CARD_SHOWING] = 1.0
    vec[ob.SHAKER_SLICE.start + shaker] = 1.0
    vec[ob.FLY_SLICE.start + fly] = 1.0
    vec[ob.FLY_SHOWN] = 1.0
    vec[ob.LEVEL_SLICE.start + rules.LEVELS.index(level)] = 1.0
    vec[ob.TICK_FRACTION] = 1 / 120
    vec[ob.ELAPSED_S] = 0.05
    vec[ob.CARDS_LEFT] = 0.5
    return vec


def test_the_prior_makes_the_ideal_bot_answer_where_bayes_waits():
    """An apple, probably green (0.92): bayes puts BANG at 0.999 * 0.92 < 0.97 and waits;
    with the ruling's prior apple/green is 4 times as likely as each other colour a priori,
    so the ideal bot bangs (0.978). With no apple/green cards in the deck it grabs the apple
    instead (0.989)."""
    rng = np.random.default_rng(0)
    ident, col = _posteriors(
        {"apple": 0.999, "egg": 0.0005, "fly": 0.0005},
        {"green": 0.92, "white": 0.02, "yellow": 0.02, "blue": 0.02, "red": 0.02},
    )
    obs = _observation(ident, col, FOOD("cheese"), FOOD("fish"), "dessert")
    mask = rules._REACT_MASK
    assert BayesBot().act(obs, mask, rng) == ob.ACTION_WAIT
    assert IdealBot().act(obs, mask, rng) == ob.ACTION_RESPONSE_FIRST + IDX["bang"]
    zero = IdealBot(original_colour_cards=0)
    assert zero.act(obs, mask, rng) == ob.ACTION_RESPONSE_FIRST + IDX["grab:apple"]


def test_the_ideal_bot_answers_what_its_beliefs_say():
    """Every decision in a game at dessert: the most likely response of
    ``joint_response_beliefs`` (the fly it remembers) exactly when it reaches 0.97."""
    for k in CHOICES:
        env = ratto_zakko_v0.raw_env(num_players=2, level="dessert", original_colour_cards=k)
        env.reset(seed=5)
        bots = [get_bot("ideal"), get_bot("ideal")]
        for bot in bots:
            bot.bind(env.observer)
        views = env.observer.views
        rng = np.random.default_rng(0)
        answered = 0
        while not env.truth.is_over:
            seat = env.agent_name_mapping[env.agent_selection]
            vec = env.observer.observe(env.truth, seat)
            mask = env.action_mask(env.possible_agents[seat])
            action = bots[seat].act(vec, mask, rng)
            if mask[ob.ACTION_RESPONSE_FIRST]:
                v = views(vec)
                beliefs = ob.joint_response_beliefs(
                    v["identity"], v["colour"], env.truth.shaker_on, env.truth.fly_under,
                    "dessert", "grab", k,
                )  # fmt: skip
                if beliefs.max() >= 0.97:
                    assert action == ob.ACTION_RESPONSE_FIRST + int(beliefs.argmax())
                    answered += 1
                else:
                    assert action == ob.ACTION_WAIT
            env.step(action)
        assert answered > 40


def test_with_the_public_record_the_ideal_bot_counts_cards():
    """Bound to an observer with ``public_record``, every decision is the most likely
    response of ``counted_response_beliefs`` of its own observation (the unseen cards, the
    answers ruled out), once it reaches 0.97; some decisions differ from the deck prior's."""
    env = ratto_zakko_v0.raw_env(num_players=3, level="dessert", public_record=True)
    env.reset(seed=6)
    bots = [get_bot("ideal"), get_bot("ideal"), get_bot("random")]
    for bot in bots[:2]:
        bot.bind(env.observer)
    views = env.observer.views
    rng = np.random.default_rng(0)
    answered = differs = 0
    while not env.truth.is_over:
        seat = env.agent_name_mapping[env.agent_selection]
        vec = env.observer.observe(env.truth, seat)
        mask = env.action_mask(env.possible_agents[seat])
        action = bots[seat].act(vec, mask, rng)
        if mask[ob.ACTION_RESPONSE_FIRST] and seat < 2:
            v = views(vec)
            table = (env.truth.shaker_on, env.truth.fly_under, "dessert", "grab")
            beliefs = ob.counted_response_beliefs(
                v["identity"], v["colour"], *table, np.rint(v["unseen"] * 8), v["ruled_out"] > 0
            )
            deck = ob.joint_response_beliefs(v["identity"], v["colour"], *table)
            want = ob.ACTION_RESPONSE_FIRST + int(beliefs.argmax())
            assert action == (want if beliefs.max() >= 0.97 else ob.ACTION_WAIT)
            answered += beliefs.max() >= 0.97
            differs += (beliefs.max() >= 0.97) != (deck.max() >= 0.97)
        env.step(action)
    assert answered > 40 and differs > 5, (answered, differs)


def test_the_racer_is_the_counting_ideal_observer_answering_at_one_half():
    """``racer``: the ideal bot's beliefs (it sees the record at any table), its most
    likely response as soon as that is 50% likely; it answers sooner than ``ideal``."""
    from ratenvs.common.bots import OwnView, with_own_view
    from ratenvs.ratto_zakko.reaction import RACER_CERTAINTY, RacerBot

    racer = get_bot("racer")
    assert isinstance(racer, RacerBot) and isinstance(racer, IdealBot)
    assert racer.certainty == RACER_CERTAINTY == 0.5
    game = rules.RattoZakko(num_players=3, level="dessert")
    seated = with_own_view(racer, game)
    assert isinstance(seated, OwnView)  # the public record, as the ideal bot
    state = game.init(np.random.default_rng(3))
    view = seated.view
    rng = np.random.default_rng(0)
    answered = 0
    while not game.is_terminal(state) and answered < 30:
        acts = {}
        for s in game.to_act(state):
            mask = game.legal_mask(state, s)
            if s == 0:
                acts[s] = seated.act_in_state(state, s, mask, rng)
                if mask[ob.ACTION_RESPONSE_FIRST]:
                    v = view.views(view.observe(state, s))
                    beliefs = ob.counted_response_beliefs(
                        v["identity"], v["colour"], state.shaker_on, state.fly_under,
                        "dessert", "grab", np.rint(v["unseen"] * 8), v["ruled_out"] > 0,
                    )  # fmt: skip
                    sure = beliefs.max() >= 0.5
                    want = ob.ACTION_RESPONSE_FIRST + int(beliefs.argmax())
                    assert acts[s] == (want if sure else ob.ACTION_WAIT)
                    answered += sure
            else:
                acts[s] = ob.ACTION_WAIT if mask[ob.ACTION_WAIT] else int(np.flatnonzero(mask)[0])
        game.apply(state, acts, rng)
    assert answered == 30


@pytest.mark.parametrize("level", rules.LEVELS)
@pytest.mark.parametrize("k", CHOICES)
def test_on_clear_perception_ideal_and_bayes_play_alike(level, k):
    """Seeing every card fully, both bots answer the correct response at the first tick: the
    same game, action for action."""
    game = rules.RattoZakko(num_players=3, level=level, perception="clear",
                            original_colour_cards=k)  # fmt: skip
    ideal = play_game(game, [get_bot("ideal"), get_bot("random"), get_bot("adult")], 3)
    bayes = play_game(game, [get_bot("bayes"), get_bot("random"), get_bot("adult")], 3)
    assert ideal.actions == bayes.actions
    assert game.to_json(ideal.state) == game.to_json(bayes.state)
