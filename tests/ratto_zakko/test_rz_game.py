"""Ratto Zakko on the Game interface: options declared once, observers with named pieces,
``state()``, the generic envs (and why PettingZoo's aec_to_parallel cannot convert ours),
copies, chance-log replays, and views that leak nothing hidden."""

from __future__ import annotations

import copy
import pickle
import warnings
import zlib
from typing import ClassVar

import numpy as np
import pytest
from helpers import random_action, turns
from pettingzoo.test import api_test, parallel_api_test

from ratenvs import ratto_zakko_v0
from ratenvs.common.aec import IllegalActionError, options_table
from ratenvs.common.game import ChanceReplay
from ratenvs.common.play import play_game
from ratenvs.ratto_zakko import env as env_module
from ratenvs.ratto_zakko import observe as ob
from ratenvs.ratto_zakko import rules
from ratenvs.ratto_zakko.rules import ACTION_RESPONSE_FIRST, ACTION_WAIT, RattoZakko

COMBOS = [
    {"num_players": 3, "level": "dessert", "observation": "memoryless", "relocation": "both"},
    {"num_players": 2, "level": "main", "perception": "clear", "reward": "win"},
    {"num_players": 5, "level": "main", "fly_card_under_shaker": "rat", "original_colour_cards": 0},
    {"num_players": 4, "level": "starter", "answer_beliefs": True, "tick_ms": 40},
    {"num_players": 3, "level": "dessert", "min_reaction_ticks": 3},
]


# ------------------------------------------------------------------ options, docs
def test_the_options_are_declared_once_with_todays_defaults():
    assert RattoZakko.options.defaults() == {
        "num_players": 4,
        "level": "starter",
        "tick_ms": 25,
        "min_reaction_ticks": 0,
        "window_ticks": 120,
        "perception": "gradual",
        "observation": "knowledge",
        "reward": "cards",
        "original_colour_cards": 4,
        "fly_card_under_shaker": "grab",
        "relocation": "one",
        "answer_beliefs": False,
        "belief_prior": "independent",
        "public_record": False,
    }
    import inspect

    for cls in (ratto_zakko_v0.raw_env, ratto_zakko_v0.parallel_env):
        params = inspect.signature(cls.__init__).parameters
        assert list(params)[1:-2] == list(RattoZakko.options)
    env = ratto_zakko_v0.raw_env(level="main", original_colour_cards=8.0)
    assert env.options["original_colour_cards"] == 8 and env.game.level == "main"
    with pytest.raises(ValueError, match="answer_beliefs"):
        RattoZakko(answer_beliefs=True, observation="memoryless")
    with pytest.raises(ValueError, match="original_colour_cards"):
        RattoZakko(original_colour_cards=True)


def test_docs_equal_code():
    """The docstring tables are generated from the option spec and the observers' pieces."""
    assert options_table(RattoZakko) in env_module.__doc__
    game = RattoZakko(num_players=2, answer_beliefs=True, public_record=True)
    seat, truth = game.observer("knowledge"), game.observer("privileged")
    assert seat.table() in env_module.__doc__
    assert seat.table() in ob.__doc__ and truth.table() in ob.__doc__
    assert "{" not in ob.__doc__.split("Actions (25")[0]
    # the pieces are the layout: sizes, the fixed prefix the bots fall back to, bounds
    for n in (2, 5, 8):
        for beliefs, record in ((False, False), (True, False), (False, True), (True, True)):
            g = RattoZakko(
                num_players=n,
                answer_beliefs=beliefs,
                public_record=record,
                tick_ms=40,
                window_ticks=7,
            )
            obs = g.observer("knowledge")
            assert obs.size == ob.observation_size(n, beliefs, record)
            assert [p.name for p in obs.pieces[:15]] == [p.name for p in ob.PREFIX.pieces]
            assert obs.slices["cards_won"].start == ob.PER_SEAT
            assert obs.high[obs.offset("elapsed_s")] == np.float32(7 * 40 / 1000)
            assert obs.high[obs.offset("tick_s")] == np.float32(0.04)


# ------------------------------------------------------------------ the beliefs' prior
def test_belief_prior_deck_gives_the_ideal_observers_beliefs():
    """``belief_prior="deck"``: the ``answer_beliefs`` piece is
    ``observe.joint_response_beliefs`` of the seat's posteriors (the ``ideal`` bot's), and
    it differs from the independent beliefs on the same tables."""
    with pytest.raises(ValueError, match="needs answer_beliefs=True"):
        RattoZakko(belief_prior="deck")
    with pytest.raises(ValueError, match="belief_prior"):
        RattoZakko(answer_beliefs=True, belief_prior="uniform")
    deck = RattoZakko(num_players=3, level="dessert", answer_beliefs=True, belief_prior="deck")
    plain = RattoZakko(num_players=3, level="dessert", answer_beliefs=True)
    view = deck.observer("knowledge")
    state = deck.init(np.random.default_rng(4))
    rng = np.random.default_rng(5)
    differs = 0
    for _ in range(300):
        if deck.is_terminal(state):
            break
        for seat in range(3):
            got = view.view(view.observe(state, seat), "answer_beliefs")
            if state.phase != rules.PHASE_REACT:
                assert not got.any()
                continue
            post = state.posterior[seat]
            want = ob.joint_response_beliefs(
                post[0], post[1], state.shaker_on, state.fly_under, "dessert"
            )
            assert got.tolist() == want.tolist()
            differs += not np.array_equal(got, ob.answer_beliefs(plain, state, seat))
        deck.apply(state, {s: deck.default_action(state, s) for s in deck.to_act(state)}, rng)
    assert differs >= 100


def test_the_public_record_counts_cards_and_rules_out_given_answers():
    """``public_record``: ``unseen`` counts the cards not yet face up and ``ruled_out`` the
    answers given to the card in earlier ticks (all wrong); ``belief_prior="count"`` is
    ``observe.counted_response_beliefs`` of the seat's own observation, never rules out the
    truth, and predicts the right answer better (lower log loss) than the deck's prior."""
    options = {"num_players": 3, "level": "dessert", "answer_beliefs": True}
    game = RattoZakko(public_record=True, belief_prior="count", **options)
    deck = RattoZakko(belief_prior="deck", **options)
    view = game.observer("knowledge")
    state = game.init(np.random.default_rng(7))
    rng = np.random.default_rng(8)
    before = None
    loss = {"count": [], "deck": []}
    ruled = 0
    while not game.is_terminal(state):
        pool = [*state.deck] + ([] if state.card is None else [state.card])
        for seat in range(3):
            v = view.views(view.observe(state, seat))
            unseen = np.rint(v["unseen"] * ob.UNSEEN_SCALE)
            assert unseen.tolist() == np.bincount(pool, minlength=27).tolist()
            given = {a for a in state.answer if a != rules.NO_ANSWER}
            if state.phase != rules.PHASE_REACT:
                assert not v["ruled_out"].any() and not v["answer_beliefs"].any()
                continue
            assert set(np.flatnonzero(v["ruled_out"])) == given
            right = game.correct(state)
            assert right not in given
            want = ob.counted_response_beliefs(
                v["identity"],
                v["colour"],
                int(v["shaker_on"].argmax()),
                int(v["fly_under"].argmax()),
                "dessert",
                "grab",
                unseen,
                v["ruled_out"] > 0.5,
            )
            got = v["answer_beliefs"]
            assert got.tolist() == want.tolist()
            assert not got[list(given)].any() and abs(got.sum() - 1) < 1e-5
            ruled += bool(given)
            loss["count"].append(-np.log(max(float(got[right]), 1e-12)))
            other = ob.answer_beliefs(deck, state, seat)
            loss["deck"].append(-np.log(max(float(other[right]), 1e-12)))
        if before is not None:
            assert (np.bincount(pool, minlength=27) <= before).all()  # only ever fewer
        before = np.bincount(pool, minlength=27)
        acts = {}
        for s in game.to_act(state):
            legal = np.flatnonzero(game.legal_mask(state, s))
            acts[s] = int(rng.choice(legal)) if rng.random() < 0.1 else int(legal[0])
        game.apply(state, acts, rng)
    assert ruled >= 100 and len(loss["count"]) >= 1000, (ruled, len(loss["count"]))
    assert np.mean(loss["count"]) < np.mean(loss["deck"])


# ------------------------------------------------------------------ the latency floor
def test_the_human_fair_floor_is_200_ms_whatever_the_tick():
    assert rules.HUMAN_FAIR_REACTION_MS == 200
    assert rules.human_fair_min_reaction_ticks() == 7  # an answer in tick 7 lands at 200 ms
    for tick_ms in (1, 7, 10, 25, 40, 199, 200, 201, 1000):
        k = rules.human_fair_min_reaction_ticks(tick_ms)
        assert (k + 1) * tick_ms >= 200 and (k == 0 or k * tick_ms < 200), tick_ms
    with pytest.raises(ValueError, match="tick_ms"):
        rules.human_fair_min_reaction_ticks(0)


def test_a_floor_at_or_past_the_window_is_refused():
    with pytest.raises(ValueError, match=r"min_reaction_ticks.*below 'window_ticks'"):
        RattoZakko(window_ticks=10, min_reaction_ticks=10)
    with pytest.raises(ValueError, match="min_reaction_ticks"):
        RattoZakko(min_reaction_ticks=-1)
    assert RattoZakko(window_ticks=10, min_reaction_ticks=9).min_reaction_ticks == 9


def test_before_the_floor_a_seat_may_only_wait_and_an_answer_is_refused():
    game = RattoZakko(num_players=3, level="dessert", min_reaction_ticks=4)
    state = game.init(np.random.default_rng(0))
    rng = np.random.default_rng(1)
    for tick in range(4):
        assert state.tick == tick and game.to_act(state) == (0, 1, 2)
        for seat in range(3):
            assert game.legal_mask(state, seat).tolist() == game.waiting_mask(state, seat).tolist()
        before = copy.deepcopy(state)
        with pytest.raises(ValueError, match="seat 1 answered too early: tick"):
            game.apply(state, {0: ACTION_WAIT, 1: ACTION_RESPONSE_FIRST, 2: ACTION_WAIT}, rng)
        assert pickle.dumps(state) == pickle.dumps(before)
        game.apply(state, dict.fromkeys(range(3), ACTION_WAIT), rng)
    assert state.tick == 4
    assert game.legal_mask(state, 0)[: ACTION_RESPONSE_FIRST + 13].all()
    # raw_env refuses the early answer with the legal actions, the game unchanged
    raw = ratto_zakko_v0.raw_env(num_players=2, min_reaction_ticks=4)
    raw.reset(seed=0)
    snapshot = pickle.dumps(raw.truth)
    with pytest.raises(IllegalActionError, match=r"legal actions: \[0\]"):
        raw.step(ACTION_RESPONSE_FIRST + 2)
    assert pickle.dumps(raw.truth) == snapshot


@pytest.mark.parametrize("bot", ["random", "child", "expert", "perfect", "bayes", "ideal", "racer"])
def test_every_bot_honours_the_floor(bot):
    """Bots follow their masks: no answer of theirs comes before the floor (tick 7, the
    human-fair 200 ms), and they still answer after it."""
    from ratenvs.ratto_zakko.bots import get_bot

    game = RattoZakko(num_players=3, level="dessert", min_reaction_ticks=7, window_ticks=40)
    ticks = []

    def hook(_game, state, _chosen, _rewards):
        if state.last_result is not None and state.last_result.tick >= 0:
            ticks.extend(t for _, t in state.last_result.answers.values())

    play_game(game, [get_bot(bot) for _ in range(3)], seed=3, on_step=hook)
    assert ticks and min(ticks) >= 7, (bot, ticks[:10])


# ------------------------------------------------------------------ the envs
@pytest.mark.parametrize("options", COMBOS)
def test_api_tests_over_option_combinations(options):
    small = {**options, "window_ticks": 5}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(ratto_zakko_v0.env(**small), num_cycles=40)
        parallel_api_test(ratto_zakko_v0.parallel_env(**small), num_cycles=300)


@pytest.mark.parametrize("options", COMBOS)
def test_state_lies_in_the_state_space(options):
    aec = ratto_zakko_v0.raw_env(**options, window_ticks=8)
    par = ratto_zakko_v0.parallel_env(**options, window_ticks=8)
    aec.reset(seed=2)
    par.reset(seed=2)
    rng = np.random.default_rng(0)
    phases = set()
    for _agent in aec.agent_iter():
        s = aec.state()
        assert s.dtype == np.float32 and aec.state_space.contains(s), aec.game_state()
        phases.add(aec.truth.phase)
        obs, _r, term, trunc, _ = aec.last()
        if term or trunc:
            aec.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        aec.step(int(ACTION_WAIT if rng.random() < 0.7 and legal[0] == 0 else rng.choice(legal)))
    assert aec.state_space.contains(aec.state())
    assert phases >= {rules.PHASE_REACT, rules.PHASE_OVER}
    assert par.state_space == aec.state_space
    views = aec.game.observer("privileged").views(aec.state())
    assert views["cards_won"].sum() * aec.game.total_cards == pytest.approx(
        sum(aec.truth.card_counts())
    )


def test_aec_to_parallel_cannot_convert_the_aec_env():
    """``is_parallelizable`` stays False: PettingZoo's conversion steps every live agent once
    per cycle, but a seat that answered is not asked again this card (and a relocation asks
    only the winner). The first tick converts fine; the tick after an answer does not."""
    from pettingzoo.utils.conversions import aec_to_parallel

    assert ratto_zakko_v0.raw_env.metadata["is_parallelizable"] is False

    class Claimed(ratto_zakko_v0.raw_env):  # as if we claimed it
        metadata: ClassVar[dict] = {**ratto_zakko_v0.raw_env.metadata, "is_parallelizable": True}

    converted = aec_to_parallel(Claimed(num_players=3, level="main"))
    native = ratto_zakko_v0.parallel_env(num_players=3, level="main")
    obs_c, _ = converted.reset(seed=4)
    obs_n, _ = native.reset(seed=4)
    for a in native.agents:
        np.testing.assert_array_equal(obs_c[a]["observation"], obs_n[a]["observation"])
    first = {"player_0": ACTION_RESPONSE_FIRST + rules.BANG, "player_1": 0, "player_2": 0}
    obs_c, *_ = converted.step(first)  # never right at main: the card stays open
    obs_n, *_ = native.step(first)
    for a in native.agents:
        np.testing.assert_array_equal(obs_c[a]["observation"], obs_n[a]["observation"])
    with pytest.raises(AssertionError, match="step in a cycle"):
        converted.step(dict.fromkeys(native.agents, ACTION_WAIT))


def _random_steps(env, rng, count):
    for _ in range(count):
        agent = env.agent_selection
        if env.terminations[agent]:
            return
        legal = np.flatnonzero(env.action_mask(agent))
        env.step(int(ACTION_WAIT if rng.random() < 0.8 and legal[0] == 0 else rng.choice(legal)))


def _trace(env, rng):
    out = []
    for agent, obs, r, done in turns(env):
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), r))
        if not done:
            env.step(random_action(obs, rng))
    return out, env.game_state()


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_copy_mid_game_continues_identically(how):
    env = ratto_zakko_v0.raw_env(num_players=3, level="dessert", relocation="both", window_ticks=9)
    env.reset(seed=6)
    _random_steps(env, np.random.default_rng(1), 157)  # mid-tick: actions are buffered
    assert env._pending
    twin = pickle.loads(pickle.dumps(env)) if how == "pickle" else copy.deepcopy(env)
    assert twin.game == env.game and twin.game_state() == env.game_state()
    assert _trace(env, np.random.default_rng(2)) == _trace(twin, np.random.default_rng(2))
    par = ratto_zakko_v0.parallel_env(num_players=2, level="main")
    par.reset(seed=1)
    for _ in range(30):
        par.step({a: ACTION_WAIT for a in par.agents})
    twin = pickle.loads(pickle.dumps(par)) if how == "pickle" else copy.deepcopy(par)
    for _ in range(40):
        a, b = par.step({"player_0": 3}), twin.step({"player_0": 3})
        assert pickle.dumps(a) == pickle.dumps(b)
    assert twin.game_state() == par.game_state()


# ------------------------------------------------------------------ chance replay
class HashBot:
    """Deterministic from what it sees (no rng): so a game replays under any seed. Waits
    mostly, answers some seemingly random legal response, relocates likewise."""

    name = "hash"

    def __init__(self, salt: int, wait: float) -> None:
        self.salt, self.wait = salt, wait

    def act(self, observation, action_mask, rng):
        h = zlib.crc32(observation.tobytes(), self.salt)
        legal = np.flatnonzero(action_mask)
        if action_mask[ACTION_WAIT] and (h % 1000) / 1000 < self.wait:
            return ACTION_WAIT
        return int(legal[(h >> 10) % legal.size])


def test_chance_log_replays_identically_under_another_seed():
    games = jackpots = relocations = 0
    for level in rules.LEVELS:
        for relocation in rules.RELOCATION_MODES:
            for perception in rules.PERCEPTIONS:
                for k in range(12 if perception == "gradual" else 6):
                    n = 2 + k % 3
                    game = RattoZakko(
                        num_players=n,
                        level=level,
                        relocation=relocation,
                        perception=perception,
                        window_ticks=3,
                        reward="cards" if k % 2 else "win",
                    )
                    seen = {"jackpot": False, "relocate": False}

                    def watch(g, state, actions, rewards, seen=seen):
                        seen["jackpot"] |= bool(state.jackpot)
                        seen["relocate"] |= state.phase == rules.PHASE_RELOCATE

                    bots = [HashBot(s + 7 * k, 0.6 + 0.1 * s) for s in range(n)]
                    seed = 1000 * k + 17
                    first = play_game(game, bots, seed, record_chance=True, on_step=watch)
                    replay = ChanceReplay(first.chance)
                    again = play_game(game, bots, seed + 1, chance=replay)
                    assert again.actions == first.actions
                    assert game.to_json(again.state) == game.to_json(first.state)
                    assert again.returns == first.returns and replay.exhausted
                    games += 1
                    jackpots += seen["jackpot"]
                    relocations += seen["relocate"]
    assert games >= 100 and jackpots >= games // 2 and relocations >= games // 2


def test_human_bots_replay_from_the_chance_log_under_the_same_seed():
    """Bots with their own randomness replay too when their seed streams are the same."""
    from ratenvs.ratto_zakko.bots import get_bot

    total = 0
    for level in rules.LEVELS:
        for seed in range(20):
            game = RattoZakko(num_players=3, level=level, window_ticks=4, relocation="both")
            names = ["adult", "expert", "bayes"] if seed % 2 else ["random", "perfect", "child"]
            first = play_game(game, [get_bot(x) for x in names], seed, record_chance=True)
            again = play_game(
                game, [get_bot(x) for x in names], seed, chance=ChanceReplay(first.chance)
            )
            assert again.actions == first.actions
            assert game.to_json(again.state) == game.to_json(first.state)
            total += 1
    assert total >= 60


def test_play_game_binds_the_bots_and_matches_the_env():
    """play_game (bound bots) plays the same game as the AEC env with the same seeds."""
    from ratenvs.common.play import seed_streams
    from ratenvs.ratto_zakko.bots import get_bot

    names = ["adult", "bayes", "expert", "perfect"]
    game = RattoZakko(num_players=4, level="main", answer_beliefs=True)
    played = play_game(game, [get_bot(x) for x in names], 9)
    env = ratto_zakko_v0.raw_env(num_players=4, level="main", answer_beliefs=True)
    env.reset(seed=9)
    bots = [get_bot(x) for x in names]
    for b in bots:
        b.bind(env.observer)
    _, rngs = seed_streams(9, 4)
    actions = []
    for agent, obs, _r, done in turns(env):
        if done:
            continue
        seat = env.agent_name_mapping[agent]
        actions.append(int(bots[seat].act(obs["observation"], obs["action_mask"], rngs[seat])))
        env.step(actions[-1])
    assert actions == played.actions
    assert env.game_state() == game.to_json(played.state)


# ------------------------------------------------------------------ hidden information
def _hide(state: rules.State, rng, memoryless: bool) -> rules.State:
    """A copy that differs only in what no seat can know now."""
    hidden = copy.deepcopy(state)
    rng.shuffle(hidden.deck)  # the order of the cards to come
    if state.card is not None:
        hidden.card = (state.card + 1 + int(rng.integers(rules.NUM_CARD_KINDS - 1))) % (
            rules.NUM_CARD_KINDS
        )
    if memoryless and not state.fly_shown:
        hidden.fly_under = (state.fly_under + 1 + int(rng.integers(4))) % rules.NUM_FOODS
    return hidden


def _seat_views(env, agent):
    env.render_view = agent
    seen = env.observe(agent)
    return (
        seen["observation"].tobytes(),
        seen["action_mask"].tobytes(),
        env.action_mask(agent).tobytes(),
        env.render_text(agent),
        env.render().tobytes(),
    )


def _omniscient_views(env):
    env.render_view = "omniscient"
    return env.state().tobytes(), env.render_text(), env.render().tobytes()


@pytest.mark.parametrize("observation", ["knowledge", "memoryless"])
def test_hidden_information_changes_no_seat_view(observation):
    """Changing only what a seat cannot know (the true card, the deck order, the fly while a
    memoryless observation hides it; the other seats' glimpses) leaves every seat's
    observation, mask, text and picture unchanged, while the omniscient views change."""
    memoryless = observation == "memoryless"
    env = ratto_zakko_v0.raw_env(
        num_players=3,
        level="dessert",
        observation=observation,
        relocation="both",
        window_ticks=10,
        render_mode="rgb_array",
    )
    env.reset(seed=3)
    rng = np.random.default_rng(5)
    checked = changed = fly_hidden = 0
    step = 0
    while not env.truth.is_over:
        if step % 11 == 0:
            state = env.truth
            hidden = _hide(state, rng, memoryless)
            fly_hidden += hidden.fly_under != state.fly_under
            before = {a: _seat_views(env, a) for a in env.possible_agents}
            truth_before = _omniscient_views(env)
            env.truth = hidden
            for a in env.possible_agents:
                assert _seat_views(env, a) == before[a], (a, env.game_state())
            truth_after = _omniscient_views(env)
            changed += all(x != y for x, y in zip(truth_before, truth_after))
            # another seat's glimpses are hidden too: seat 0's views ignore seat 1's
            if state.phase == rules.PHASE_REACT:
                env.truth = glimpsed = copy.deepcopy(state)
                glimpsed.posterior[1] = rng.dirichlet(np.ones(7), size=2)
                glimpsed.posterior[1][1, rules.NUM_COLOURS :] = 0.0
                assert _seat_views(env, "player_0") == before["player_0"]
                assert _seat_views(env, "player_1") != before["player_1"]
            env.truth = state
            checked += 1
        _random_steps(env, rng, 1)
        step += 1
    assert checked > 40 and changed > checked // 2
    if memoryless:
        assert fly_hidden > 10


def test_a_seat_text_shows_the_card_as_perceived_and_the_fly_only_when_shown():
    env = ratto_zakko_v0.raw_env(num_players=2, level="main", observation="memoryless")
    env.reset(seed=4)
    truth = env.truth
    true_card = rules.CARD_NAMES[truth.card]
    assert f"card {true_card}" in env.render_text()
    text = env.render_text("player_0")
    assert true_card not in text and "card ?" in text  # one glimpse: not sure yet
    assert "fly under fish" in text  # game start: the fly is shown
    env.step(ACTION_WAIT)
    env.step(ACTION_WAIT)
    text = env.render_text("player_0")
    assert "fly under" not in text and "fly not shown" in text
    assert "fly under fish" in env.render_text()
    clear = ratto_zakko_v0.raw_env(num_players=2, level="main", perception="clear")
    clear.reset(seed=4)
    food, colour = rules.CARD_NAMES[clear.truth.card].partition("/")[::2]
    if clear.truth.card < rules.FLY_CARD:
        assert f"card {food} ({colour})" in clear.render_text("player_1")
    ansi = ratto_zakko_v0.raw_env(num_players=2, render_mode="ansi", render_view="player_1")
    ansi.reset(seed=4)
    assert ansi.render() == ansi.render_text("player_1") != ansi.render_text()
