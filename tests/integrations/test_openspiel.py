"""The three games as OpenSpiel games (``ratenvs.integrations.openspiel``): OpenSpiel's own
random-simulation test at several option sets, a lock-step game against our envs from one
seed (observations, masks, returns), the chance outcomes, a serialise round trip, OpenSpiel's
IS-MCTS (with our resampler) and MCTS bots through ``evaluate_bots``, the playthroughs of
``tests/integrations/playthroughs/`` and the recipe page. Skipped where OpenSpiel is not
installed (``pip install "ratenvs[openspiel]"``; ``nox -s openspiel``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from recipes import run_recipe  # noqa: E402

from ratenvs import catz_ratz_batz_v0, rat_a_tat_cat_v1, ratto_zakko_v0  # noqa: E402
from ratenvs.integrations import openspiel as ro  # noqa: E402

PLAYTHROUGHS = Path(__file__).resolve().parent / "playthroughs"
PLAYTHROUGH_CASES = {
    "ratenvs_catz_ratz_batz.txt": ("ratenvs_catz_ratz_batz(num_players=1,turns=1)", 7),
    "ratenvs_rat_a_tat_cat.txt": (
        "ratenvs_rat_a_tat_cat(num_players=2,max_turns_per_round=6)",
        7,
    ),
    "ratenvs_ratto_zakko.txt": (
        "ratenvs_ratto_zakko(num_players=2,window_ticks=2,rng_seed=5)",
        7,
    ),
}
"""File -> (game string, seed of the playthrough's random actions)."""

SIM_CASES = [
    ("ratenvs_catz_ratz_batz", {"num_players": 1, "turns": 2}),
    ("ratenvs_catz_ratz_batz", {"num_players": 3, "turns": 2, "reward": "win"}),
    ("ratenvs_catz_ratz_batz", {"num_players": 2, "target_score": 40, "race_end": "turn"}),
    ("ratenvs_rat_a_tat_cat", {"num_players": 2}),
    ("ratenvs_rat_a_tat_cat", {"num_players": 3, "rounds": 2, "reward": "points"}),
    (
        "ratenvs_rat_a_tat_cat",
        {"num_players": 4, "rounds": 3, "target_score": 20, "reward": "zero_sum_win"},
    ),
    ("ratenvs_ratto_zakko", {"num_players": 2, "window_ticks": 6}),
    (
        "ratenvs_ratto_zakko",
        {"num_players": 3, "level": "dessert", "relocation": "both", "reward": "win"},
    ),
    (
        "ratenvs_ratto_zakko",
        {"num_players": 4, "level": "main", "observation": "memoryless", "window_ticks": 8},
    ),
]


@pytest.mark.parametrize(("name", "params"), SIM_CASES)
def test_random_sim_test(name, params):
    """OpenSpiel's own checks: chance outcomes sum to 1, legal actions sorted and for the
    player to act only, clones and serialisation (not Ratto Zakko's: pyspiel cannot
    serialise a Python game's sampled chance; see the round trip below), observation sizes,
    returns within the utility range and summing as the game type says."""
    game = pyspiel.load_game(name, params)
    sampled = game.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    pyspiel.random_sim_test(game, num_sims=2, serialize=not sampled, verbose=False)


def test_the_game_types():
    catz = pyspiel.load_game("ratenvs_catz_ratz_batz").get_type()
    assert catz.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert catz.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    cat = pyspiel.load_game("ratenvs_rat_a_tat_cat")
    assert cat.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert cat.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    zakko = pyspiel.load_game("ratenvs_ratto_zakko").get_type()
    assert zakko.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert zakko.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    # the parameters are the game's options (optional ints: 0 for None)
    params = pyspiel.load_game("ratenvs_catz_ratz_batz").get_parameters()
    assert params == {
        "num_players": 2,
        "turns": 10,
        "target_score": 0,
        "race_end": "round",
        "reward": "score",
        "totals_view": "absolute",
    }
    ro.register()  # a second registration is harmless


@pytest.mark.parametrize(
    ("name", "params", "message"),
    [
        ("ratenvs_catz_ratz_batz", {"turns": 0, "target_score": 30}, "needs a turn limit"),
        ("ratenvs_catz_ratz_batz", {"num_players": 9}, "num_players"),
        ("ratenvs_rat_a_tat_cat", {"target_score": 30}, "needs a rounds cap"),
        ("ratenvs_rat_a_tat_cat", {"observation": "memoryless"}, "(?i)unknown parameter"),
        ("ratenvs_ratto_zakko", {"rng_seed": -2}, "rng_seed"),
    ],
)
def test_bad_parameters_are_one_clear_error(name, params, message):
    with pytest.raises(Exception, match=message):
        pyspiel.load_game(name, params)


def test_chance_outcomes_are_the_rules_draws():
    """A roll's outcomes are its multinomial face counts; a shuffle's first card is a kind
    with probability (its cards) / 54."""
    state = pyspiel.load_game("ratenvs_catz_ratz_batz").new_initial_state()
    state.apply_action(3)  # roll all nine dice
    outcomes = dict(state.chance_outcomes())
    assert len(outcomes) == 2002  # every way nine dice fall on six faces
    assert sum(outcomes.values()) == pytest.approx(1.0)
    nine_cats = [a for a in outcomes if state.action_to_string(-1, a) == "roll Catx9"]
    assert outcomes[nine_cats[0]] == pytest.approx(6.0**-9)
    deal = pyspiel.load_game("ratenvs_rat_a_tat_cat").new_initial_state()
    cards = dict(deal.chance_outcomes())
    assert cards[9] == pytest.approx(9 / 54) and cards[10] == pytest.approx(3 / 54)
    deal.apply_action(9)
    assert dict(deal.chance_outcomes())[9] == pytest.approx(8 / 53)
    with pytest.raises(Exception, match="not one of"):
        deal.apply_action(30)


def _lock_step_turns(module, name, options, seed, view):
    """Play our AEC env and the pyspiel game from one seed with the same actions (the k-th
    decision takes legal action k mod their number): every observation (``view``:
    information state or observation tensor), mask and the returns agree."""
    env = module.raw_env(**options)
    env.reset(seed=seed)
    game = pyspiel.load_game(name, options)
    state = game.new_initial_state()
    rng = np.random.default_rng(seed)  # the env's generator for this seed
    returns = dict.fromkeys(env.possible_agents, 0.0)
    queue: list[int] = []
    k = 0
    while not state.is_terminal():
        if state.is_chance_node():
            queue = queue or ro.sample_chance(state, rng)
            state.apply_action(queue.pop(0))
            continue
        assert not queue
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        assert state.current_player() == seat
        obs = env.observe(agent)
        np.testing.assert_array_equal(getattr(state, view)(seat), obs["observation"])
        legal = state.legal_actions()
        assert legal == list(np.flatnonzero(obs["action_mask"]))
        action = legal[k % len(legal)]
        env.step(action)
        state.apply_action(action)
        for a in env.agents:
            returns[a] += env.rewards[a]
        k += 1
    assert all(env.terminations.values()) or not env.agents
    assert state.returns() == pytest.approx([returns[a] for a in env.possible_agents])
    return k


@pytest.mark.parametrize(
    ("module", "name", "options", "view"),
    [
        (
            catz_ratz_batz_v0,
            "ratenvs_catz_ratz_batz",
            {"num_players": 3, "turns": 3},
            "information_state_tensor",
        ),
        (rat_a_tat_cat_v1, "ratenvs_rat_a_tat_cat", {"num_players": 2}, "information_state_tensor"),
        (
            rat_a_tat_cat_v1,
            "ratenvs_rat_a_tat_cat",
            {"num_players": 3, "rounds": 2, "reward": "points"},
            "information_state_tensor",
        ),
    ],
)
def test_lock_step_with_our_env(module, name, options, view):
    for seed in (1, 2, 3):
        assert _lock_step_turns(module, name, options, seed, view) > 3


def test_rat_a_tat_cat_observation_is_the_memoryless_view():
    """The pyspiel observation is our env's observation with ``observation="memoryless"``."""
    env = rat_a_tat_cat_v1.raw_env(num_players=2, observation="memoryless")
    env.reset(seed=4)
    state = pyspiel.load_game("ratenvs_rat_a_tat_cat", {"num_players": 2}).new_initial_state()
    rng = np.random.default_rng(4)
    queue: list[int] = []
    while state.is_chance_node():
        queue = queue or ro.sample_chance(state, rng)
        state.apply_action(queue.pop(0))
    for _ in range(12):
        if state.is_terminal():
            break
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        obs = env.observe(agent)["observation"]
        np.testing.assert_array_equal(state.observation_tensor(seat), obs)
        assert state.information_state_tensor(seat) != pytest.approx(obs) or _ == 0
        action = state.legal_actions()[-1]  # never a knock
        env.step(action)
        state.apply_action(action)
        while state.is_chance_node():
            queue = queue or ro.sample_chance(state, rng)
            state.apply_action(queue.pop(0))


def test_lock_step_ratto_zakko():
    """The simultaneous game from ``rng_seed`` is our parallel env's game of that seed."""
    options = {"num_players": 3, "window_ticks": 10, "level": "main"}
    env = ratto_zakko_v0.parallel_env(**options)
    observations, _ = env.reset(seed=9)
    game = pyspiel.load_game("ratenvs_ratto_zakko", {**options, "rng_seed": 9})
    state = game.new_initial_state()
    returns = np.zeros(3)
    k = 0
    while not state.is_terminal():
        assert state.is_simultaneous_node()
        actions = []
        for seat, agent in enumerate(env.possible_agents):
            obs = observations[agent]
            np.testing.assert_array_equal(state.observation_tensor(seat), obs["observation"])
            legal = state.legal_actions(seat)
            assert legal == list(np.flatnonzero(obs["action_mask"]))
            actions.append(legal[(k + seat) % len(legal)])
        state.apply_actions(actions)
        observations, rewards, _, _, _ = env.step(dict(zip(env.possible_agents, actions)))
        returns += [rewards.get(a, 0.0) for a in env.possible_agents]
        k += 1
    assert not env.agents
    assert state.returns() == pytest.approx(returns)
    assert k > 20


def test_serialise_round_trip():
    """A game and state serialised and read back are the same game and play on alike."""
    state = pyspiel.load_game("ratenvs_rat_a_tat_cat", {"num_players": 3}).new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node() or len(state.history()) < 70:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(state.legal_actions()[-1])
    text = pyspiel.serialize_game_and_state(state.get_game(), state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(state.get_game()) and str(state2) == str(state)
    assert state2.history() == state.history()
    for p in range(3):
        assert state2.information_state_string(p) == state.information_state_string(p)
    # sampled chance: the state's generator travels with it
    zakko = pyspiel.load_game("ratenvs_ratto_zakko", {"num_players": 2, "rng_seed": 3})
    live = zakko.new_initial_state()
    live.apply_actions([0, 0])
    copy = zakko.deserialize_state(live.serialize())
    for _ in range(30):
        live.apply_actions([0, 0])
        copy.apply_actions([0, 0])
    assert str(copy) == str(live) and copy.observation_string(0) == live.observation_string(0)


def test_resample_from_infostate_keeps_the_information_state():
    game = pyspiel.load_game("ratenvs_rat_a_tat_cat", {"num_players": 2})
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    while state.is_chance_node() or len(state.history()) < 60:
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(state.legal_actions()[-1])  # never a knock
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    hands = set()
    for _ in range(5):
        other = state.resample_from_infostate(player, sampler)
        assert other.information_state_string(player) == state.information_state_string(player)
        assert other.legal_actions() == state.legal_actions()
        hands.add(str(other.truth().hands[1 - player]))
    assert len(hands) > 1  # the opponent's cards are dealt anew


def test_a_string_tells_apart_what_its_tensor_does_and_hides_the_other_hands():
    """OpenSpiel's tabular methods key on the strings, its networks read the tensors: two
    states with one information-state (or observation) string have one tensor. And what a
    player cannot see changes neither: the other hands and the draw pile dealt anew
    (``resample_from_infostate`` for another player than the one looking) leave its strings
    and tensors as they are, for every player."""
    game = pyspiel.load_game("ratenvs_rat_a_tat_cat", {"num_players": 2, "max_turns_per_round": 8})
    rng = np.random.default_rng(4)
    tensors: dict[tuple, tuple] = {}
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    seen = resampled = 0
    for _ in range(40):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            for p in range(2):
                for key, tensor in (
                    (
                        ("info", state.information_state_string(p)),
                        state.information_state_tensor(p),
                    ),
                    (("obs", state.observation_string(p)), state.observation_tensor(p)),
                ):
                    known = tensors.setdefault(key, tuple(tensor))
                    assert known == tuple(tensor), key[1]
                    seen += 1
            mover = state.current_player()
            if rng.random() < 0.2:  # the other player's view of a table dealt anew for it
                other = 1 - mover
                for _ in range(2):
                    again = state.resample_from_infostate(other, sampler)
                    for look in (
                        "information_state_string",
                        "information_state_tensor",
                        "observation_string",
                        "observation_tensor",
                    ):
                        assert getattr(again, look)(other) == getattr(state, look)(other), look
                    resampled += 1
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert seen > 1000 and resampled > 50 and len(tensors) > 500


def test_a_clone_of_a_state_not_yet_looked_at_is_the_same_game():
    """Sampled chance (Ratto Zakko) with fresh entropy (``rng_seed=-1``): a clone or a
    serialised copy of a new state, before anything has read it, deals and plays the same
    game as the original."""
    zakko = pyspiel.load_game("ratenvs_ratto_zakko", {"num_players": 2})
    for copier in (lambda s: s.clone(), lambda s: zakko.deserialize_state(s.serialize())):
        fresh = zakko.new_initial_state()
        twin = copier(fresh)
        for _ in range(40):
            assert str(twin) == str(fresh)
            assert twin.observation_string(0) == fresh.observation_string(0)
            if fresh.is_terminal():
                break
            fresh.apply_actions([0, 0])
            twin.apply_actions([0, 0])
    # and two new states of such a game are two games
    assert str(zakko.new_initial_state()) != str(zakko.new_initial_state())


def test_openspiel_search_bots_play_our_games():
    """OpenSpiel's IS-MCTS (resampling with our resampler) plays Rat-a-Tat Cat and its MCTS
    plays Catz, Ratz and Batz, through ``evaluate_bots``."""
    from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts

    class ISMCTSBot(ismcts.ISMCTSBot):
        """OpenSpiel's Python IS-MCTS searches afresh at every step; evaluate_bots also
        calls restart_at, which it leaves to pyspiel.Bot (an error)."""

        def restart_at(self, state):
            pass

        def inform_action(self, state, player_id, action):
            pass

    rng = np.random.RandomState(0)
    cat = pyspiel.load_game("ratenvs_rat_a_tat_cat", {"num_players": 2, "max_turns_per_round": 8})
    evaluator = mcts.RandomRolloutEvaluator(1, rng)
    bots = [
        ISMCTSBot(cat, evaluator, 2.0, 10, random_state=rng),
        pyspiel.make_uniform_random_bot(1, 5),
    ]
    returns = evaluate_bots.evaluate_bots(cat.new_initial_state(), bots, rng)
    assert len(returns) == 2 and sum(returns) == pytest.approx(0.0)
    catz = pyspiel.load_game(
        "ratenvs_catz_ratz_batz", {"num_players": 2, "turns": 1, "reward": "win"}
    )
    bots = [
        mcts.MCTSBot(catz, 2.0, 8, mcts.RandomRolloutEvaluator(1, rng), random_state=rng),
        pyspiel.make_uniform_random_bot(1, 5),
    ]
    returns = evaluate_bots.evaluate_bots(catz.new_initial_state(), bots, rng)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def _playthrough_text(game_string: str, seed: int) -> str:
    from absl import flags
    from open_spiel.python.algorithms import generate_playthrough

    if not flags.FLAGS.is_parsed():
        flags.FLAGS.mark_as_parsed()
    return generate_playthrough.playthrough(game_string, None, seed=seed)


def _comparable(text: str) -> list[str]:
    """A playthrough's lines, the pickled ``SerializeState()`` of sampled chance left out
    (its bytes depend on the numpy and Python versions, not on the game)."""
    return [line for line in text.splitlines() if not line.startswith("SerializeState()")]


@pytest.mark.parametrize("filename", sorted(PLAYTHROUGH_CASES))
def test_playthroughs(filename):
    """The playthroughs in OpenSpiel's format pin the rules as that field reads them;
    regenerate with ``python tests/integrations/openspiel_playthroughs.py`` after a
    deliberate rules change."""
    game_string, seed = PLAYTHROUGH_CASES[filename]
    stored = (PLAYTHROUGHS / filename).read_text(encoding="utf-8")
    assert _comparable(_playthrough_text(game_string, seed)) == _comparable(stored)


def test_recipe_runs():
    ns = run_recipe("openspiel")
    assert len(ns["match_returns"]) == 2
    assert ns["mccfr_policy"] is not None


def _random_game(state, rng, each=lambda s: None):
    while not state.is_terminal():
        if state.is_chance_node():
            ids, ps = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(ids, p=ps)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
        each(state)
    return state


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("ratenvs_catz_ratz_batz", {"num_players": 2, "turns": 2}),
        ("ratenvs_rat_a_tat_cat", {"num_players": 2, "rounds": 2, "reward": "points"}),
    ],
)
def test_rewards_after_every_transition_add_up_to_the_returns(name, params):
    """A transition that ends no step (a player's action waiting for chance) rewards
    nothing: summing ``rewards()`` after every ``apply_action`` gives the returns."""
    game = pyspiel.load_game(name, params)
    summed = np.zeros(game.num_players())

    def add(state):
        summed[:] += state.rewards()

    scored = 0
    for seed in range(4):
        summed[:] = 0
        state = _random_game(game.new_initial_state(), np.random.default_rng(seed), add)
        assert summed.tolist() == pytest.approx(state.returns())
        scored += any(state.returns())
    assert scored  # the sums checked are not all zeros


@pytest.mark.parametrize(
    "params",
    [
        {"num_players": 2, "max_turns_per_round": 1},
        {"num_players": 3, "max_turns_per_round": 2},
        {"num_players": 2, "max_turns_per_round": 4, "rounds": 2},
    ],
)
def test_a_history_stays_within_the_declared_length(params):
    """Every chance node is in the history: a deal's shuffle alone is up to 53 of them, so
    ``max_history_length`` counts them (``max_chance_nodes_in_history``)."""
    game = pyspiel.load_game("ratenvs_rat_a_tat_cat", params)
    chance = game.max_chance_nodes_in_history()
    assert chance >= 53 * game.get_parameters().get("rounds", 1)
    for seed in range(4):
        state = _random_game(game.new_initial_state(), np.random.default_rng(seed))
        assert len(state.history()) <= game.max_history_length()
        assert state.move_number() <= game.max_move_number()
        history = state.full_history()
        assert sum(h.player == pyspiel.PlayerId.CHANCE for h in history) <= chance


def test_bad_actions_and_arguments_are_refused():
    catz = pyspiel.load_game("ratenvs_catz_ratz_batz", {"num_players": 2, "turns": 1})
    state = catz.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    for action in (-2, catz.num_distinct_actions(), 99):
        with pytest.raises(ValueError, match=f"action {action} is not legal"):
            state.apply_action(action)
        with pytest.raises(ValueError, match=f"no action {action}"):
            state.action_to_string(0, action)
    with pytest.raises(ValueError, match="takes no arguments"):
        catz.new_initial_state("garbage")
    zakko = pyspiel.load_game("ratenvs_ratto_zakko", {"num_players": 2, "rng_seed": 1})
    state = zakko.new_initial_state()
    assert state.is_simultaneous_node()
    for joint in ([], [0], [0, 0, 0]):
        with pytest.raises(ValueError, match="one action per player"):
            state.apply_actions(joint)
    assert state.history() == []
    with pytest.raises(ValueError, match="ask each player's"):
        state.legal_actions()
    assert state.legal_actions(0) and state.legal_actions(1)


def test_a_deals_states_differ_in_their_text():
    """The first deal's chance nodes are told apart by ``str`` (tabular OpenSpiel tools key
    on it)."""
    game = pyspiel.load_game("ratenvs_rat_a_tat_cat", {"num_players": 2})
    start = game.new_initial_state()
    texts = set()
    for outcome, _ in start.chance_outcomes():
        child = start.clone()
        child.apply_action(outcome)
        texts.add(str(child))
    assert len(texts) == len(start.chance_outcomes()) > 1
