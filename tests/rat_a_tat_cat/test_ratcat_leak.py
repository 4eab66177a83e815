"""The leak test: observations carry nothing a player may not know.

``resample_from_infostate(agent, seed)`` deals again every card ``agent``
cannot locate. If an observation of ``agent`` depended on any hidden card,
the resampled env would show it a different observation. So for thousands of
random states, every player and both observation modes: the observation is
unchanged, AND the hidden cards did change in most samples (a no-op
resampler would make the first check vacuous).
"""

import dataclasses
from typing import Any

import numpy as np
import pytest
from ratcat_helpers import P, S, build_state, check_invariants, play

from ratenvs.common.play import play_game
from ratenvs.rat_a_tat_cat import rules
from ratenvs.rat_a_tat_cat.bots import HeuristicBot
from ratenvs.rat_a_tat_cat.env import raw_env
from ratenvs.rat_a_tat_cat.resample import hidden_positions

SIZES = [2, 3, 4, 6]
GAMES_PER_SIZE = 12
STATES_PER_GAME = 12
STOP_PROBABILITY = 0.08


def _hidden_kinds(state: rules.State, seat: int) -> list[int]:
    out = []
    for pos in hidden_positions(state, seat):
        if pos[0] == "slot":
            out.append(rules.KIND[state.hands[pos[1]][pos[2]]])
        elif pos[0] == "pile":
            out.append(rules.KIND[state.draw_pile[pos[1]]])
        else:
            out.append(rules.KIND[state.held])
    return out


def _check_constraints(state: rules.State) -> None:
    check_invariants(state)  # all cards once; knowledge true; number-only slots hold numbers
    places = list(state.draw_pile)
    if state.held != rules.NO_CARD and not state.held_public:
        places.append(state.held)
    for kind, need in enumerate(state.pile_must_hold):
        assert sum(rules.KIND[c] == kind for c in places) >= need
    for c in state.draw_pile:
        assert state.card_epoch[c] == state.epoch


def _random_states(n: int, mode: str, game: int, **options):
    """Yield the env at random points of a random game (few knocks, mostly draws)."""
    env = raw_env(num_players=n, observation=mode, rounds=2, max_turns_per_round=40, **options)
    env.reset(seed=1000 * n + game)
    rng = np.random.default_rng(game)
    yielded = 0
    while not env.truth.is_over and yielded < STATES_PER_GAME:
        seat = env.truth.current
        legal = np.flatnonzero(env.game.legal_mask(env.truth, seat))
        if rules.ACTION_KNOCK in legal:
            action = rules.ACTION_KNOCK if rng.random() < 0.03 else rules.ACTION_NO_KNOCK
        elif rules.ACTION_TAKE_DISCARD in legal and rng.random() < 0.7:
            action = rules.ACTION_DRAW
        else:
            action = int(legal[rng.integers(legal.size)])
        env.step(action)
        if rng.random() < STOP_PROBABILITY:
            yielded += 1
            yield env


def _leak_check(n: int, mode: str, games: int, **options) -> tuple[int, int, int]:
    """(samples, samples whose hidden cards changed, samples whose observation changed)."""
    samples = changed = leaks = 0
    for game in range(games):
        for env in _random_states(n, mode, game, **options):
            for seat, agent in enumerate(env.possible_agents):
                before = env.observe(agent)
                new = env.resample_from_infostate(agent, seed=samples)
                _check_constraints(new.truth)
                after = new.observe(agent)
                if not np.array_equal(before["observation"], after["observation"]):
                    leaks += 1
                assert np.array_equal(before["action_mask"], after["action_mask"])
                assert new.truth.discard_pile == env.truth.discard_pile
                assert new.agent_selection == env.agent_selection
                samples += 1
                if _hidden_kinds(new.truth, seat) != _hidden_kinds(env.truth, seat):
                    changed += 1
    return samples, changed, leaks


@pytest.mark.parametrize("mode", ["knowledge", "memoryless"])
@pytest.mark.parametrize("n", SIZES)
def test_resampled_states_look_the_same_and_differ_in_hidden_cards(n, mode):
    samples, changed, leaks = _leak_check(n, mode, GAMES_PER_SIZE)
    assert leaks == 0, f"{leaks}/{samples} observations changed when hidden cards did"
    assert samples >= 100
    assert changed / samples > 0.9, f"resampling changed only {changed}/{samples} samples"


@pytest.mark.parametrize("n", [2, 4])
def test_owner_ceilings_leak_nothing(n):
    """How the others have played is public: resampling hidden cards keeps the block."""
    samples, changed, leaks = _leak_check(n, "knowledge", GAMES_PER_SIZE, owner_ceilings=True)
    assert leaks == 0, f"{leaks}/{samples} observations changed when hidden cards did"
    assert samples >= 100 and changed / samples > 0.9


def _reshuffled_states(n: int, games: int):
    """The env at random points after the discard pile was reshuffled (no knocks, long
    rounds, so the draw pile runs out)."""
    for game in range(games):
        env = raw_env(num_players=n, max_turns_per_round=400)
        env.reset(seed=77 + game)
        rng = np.random.default_rng(game)
        while not env.truth.is_over:
            legal = np.flatnonzero(env.game.legal_mask(env.truth, env.truth.current))
            if rules.ACTION_KNOCK in legal:
                action = rules.ACTION_NO_KNOCK
            else:
                action = int(legal[rng.integers(legal.size)])
            env.step(action)
            if env.truth.epoch >= 1 and rng.random() < 0.1:
                yield env
            if env.truth.epoch >= 3:
                break


@pytest.mark.parametrize("n", [2, 4])
def test_after_a_reshuffle_the_public_draw_pool_leaks_nothing_and_tells_something(n):
    """RULES.md: everyone saw the reshuffled cards face up, so the new draw pile's
    composition is public (``draw_pool``); resampling keeps it (cards keep their shuffle),
    and it is not just ``unseen_counts`` again: the older unlocated cards are in hands."""
    from ratenvs.rat_a_tat_cat.observe import draw_pool_counts, unseen_counts

    samples = leaks = informative = 0
    for env in _reshuffled_states(n, 6):
        for seat, agent in enumerate(env.possible_agents):
            before = env.observe(agent)["observation"]
            new = env.resample_from_infostate(agent, seed=samples)
            _check_constraints(new.truth)
            leaks += not np.array_equal(before, new.observe(agent)["observation"])
            pool = draw_pool_counts(env.truth, seat)
            assert (pool <= unseen_counts(env.truth, seat)).all()
            assert pool.sum() >= len(env.truth.draw_pile)
            informative += not np.array_equal(pool, unseen_counts(env.truth, seat))
            samples += 1
    assert leaks == 0, f"{leaks}/{samples} observations changed when hidden cards did"
    assert samples >= 100 and informative >= 50, (informative, samples)


def test_the_leak_test_catches_a_leaky_observation(monkeypatch):
    from ratenvs.rat_a_tat_cat.observe import TableObserver

    honest = TableObserver.observe

    def leaky(self, state, seat):  # also shows the kind of the top card of the draw pile
        out = honest(self, state, seat)
        out[-1] = rules.KIND[state.draw_pile[-1]] / 12 if state.draw_pile else 0.0
        return out

    monkeypatch.setattr(TableObserver, "observe", leaky)
    samples, _, leaks = _leak_check(2, "knowledge", 2)
    assert leaks > samples // 2


def test_resampling_is_seeded_and_the_resampled_game_plays_on():
    env = next(_random_states(3, "knowledge", 1))
    a = env.resample_from_infostate("player_1", seed=7)
    b = env.resample_from_infostate("player_1", seed=7)
    assert a.game_state() == b.game_state()
    c = env.resample_from_infostate("player_1", seed=8)
    assert a.game_state() != c.game_state()
    rng = np.random.default_rng(0)
    while not a.truth.is_over:
        legal = np.flatnonzero(a.game.legal_mask(a.truth, a.truth.current))
        a.step(int(legal[rng.integers(legal.size)]))
        check_invariants(a.truth)
    with pytest.raises(ValueError, match="unknown agent"):
        env.resample_from_infostate("player_9", seed=0)


@pytest.mark.parametrize("seed", [True, 1.0, 1.5, "1", -1, [1]])
def test_resampling_takes_the_seeds_reset_takes(seed):
    """A seed is None or an integer >= 0, as at ``reset``: True was dealt as seed 1 and 1.5
    was numpy's TypeError."""
    env = next(_random_states(2, "knowledge", 1))
    with pytest.raises(ValueError, match=r"^seed must be None or an integer >= 0, got "):
        env.resample_from_infostate("player_1", seed=seed)
    assert env.resample_from_infostate("player_1", seed=np.uint8(7)).game_state() == (
        env.resample_from_infostate("player_1", seed=7).game_state()
    )


def test_the_current_players_private_card_is_resampled_for_others():
    env = raw_env(num_players=2)
    env.reset(seed=4)
    env.step(rules.ACTION_DRAW)
    held_kinds = set()
    for seed in range(40):
        new = env.resample_from_infostate("player_1", seed=seed)
        held_kinds.add(rules.KIND[new.truth.held])
        assert new.truth.phase == rules.phase_for_drawn(new.truth.held)
        assert np.array_equal(
            new.observe("player_1")["observation"], env.observe("player_1")["observation"]
        )
        same = env.resample_from_infostate("player_0", seed=seed)
        assert same.truth.held == env.truth.held  # the drawer knows its card
    assert len(held_kinds) > 3


def test_a_privately_placed_card_stays_a_number_card_in_every_resample():
    env = raw_env(num_players=2)
    for seed in range(60):
        env.reset(seed=seed)
        env.step(rules.ACTION_DRAW)
        if env.truth.phase == rules.PHASE_NUMBER:
            break
    env.step(rules.ACTION_REPLACE + 1)  # player 0 places its drawn number in slot 1
    assert env.truth.know[1, 0, 1] == rules.CODE_NUMBER
    values = set()
    for seed in range(200):
        new = env.resample_from_infostate("player_1", seed=seed)
        kind = rules.KIND[new.truth.hands[0][1]]
        assert kind < rules.NUM_NUMBER_KINDS
        values.add(kind)
    assert len(values) > 4


def test_the_drawer_holding_the_power_card_the_pile_must_hold_is_resampled():
    # game 161 of two heuristic bots: a player draws the last card of the kind shuffled
    # back at setup; the draw pile need not hold one of that kind any more (it holds it)
    game = rules.RatATatCat(num_players=2, target_score=100)
    view = game.observer("knowledge")
    found: list[rules.State] = []

    def watch(g: Any, state: rules.State, _a: Any, _r: Any) -> None:
        held = state.held
        if g.is_terminal(state) or held == rules.NO_CARD or state.held_public:
            return
        kind = rules.KIND[held]
        in_pile = sum(rules.KIND[c] == kind for c in state.draw_pile)
        if state.pile_must_hold[kind] > in_pile:
            found.append(state.copy())

    play_game(game, [HeuristicBot(), HeuristicBot()], 161, on_step=watch)
    assert found  # the case really comes up in this game
    for state in found:
        seat = state.current
        for seed in range(30):
            new = game.resample(state, seat, np.random.default_rng(seed))
            _check_constraints(new)
            assert new.held == state.held
            assert np.array_equal(view.observe(new, seat), view.observe(state, seat))


def _draw_the_last_card(n: int, seed: int) -> Any:
    """Play always drawing (and discarding, declining, not knocking) until a player draws
    the pile's last card while the pile surely holds a power card shuffled back at setup."""
    env = raw_env(num_players=n, rounds=1, max_turns_per_round=200)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while not env.truth.is_over:
        state = env.truth
        legal = np.flatnonzero(env.game.legal_mask(state, state.current))
        if rules.ACTION_DRAW in legal:
            last = len(state.draw_pile) == 1 and sum(state.pile_must_hold) >= 1
            env.step(rules.ACTION_DRAW)
            if last:
                return env
            continue
        for action in (rules.ACTION_NO_KNOCK, rules.ACTION_DISCARD, rules.ACTION_DECLINE):
            if action in legal:
                env.step(action)
                break
        else:
            env.step(int(legal[rng.integers(legal.size)]))
    raise AssertionError(f"seed {seed}: the case did not come up")


@pytest.mark.parametrize(("n", "seed"), [(4, 2078), (4, 2404), (5, 303)])
def test_the_power_card_drawn_as_the_piles_last_stays_the_held_card(n, seed):
    # the pile surely held a Swap (or Draw 2) shuffled back at setup and its last card was
    # drawn: everyone knows the drawer holds it, also once the discard pile has been
    # shuffled into the new draw pile (the reshuffle used to forget it)
    env = _draw_the_last_card(n, seed)
    state = env.truth
    assert state.epoch == 1 and state.card_epoch[state.held] == 0
    kind = rules.KIND[state.held]
    assert kind >= rules.NUM_NUMBER_KINDS and state.pile_must_hold[kind] == 1
    for seat in range(n):
        if seat == state.current:
            continue
        for sample in range(40):
            new = env.game.resample(state, seat, np.random.default_rng(sample))
            _check_constraints(new)
            assert rules.KIND[new.held] == kind
            assert new.phase == state.phase
    # the drawer lets it go, face up: the pile holds no card surely any more
    assert env.game.legal_mask(state, state.current)[rules.ACTION_DECLINE]
    env.step(rules.ACTION_DECLINE)
    assert env.truth.pile_must_hold == [0] * rules.NUM_KINDS
    assert rules.KIND[env.truth.discard_pile[-1]] == kind


# ---------------------------------------------------------------- other players' Peeks
# Which card a Peek looks at is not public (rules.py, ``owner_seen``), nor, outside a Draw 2
# sequence, whether it was used at all: a determinization must not tell them.


def _same_state(a: rules.State, b: rules.State) -> bool:
    """Every field of the two states is equal (the truth, everyone's knowledge, the public
    records)."""
    for f in dataclasses.fields(rules.State):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            if x.dtype != y.dtype or not np.array_equal(x, y):
                return False
        elif x != y:
            return False
    return True


def _game_actions(game: rules.RatATatCat, seed: int, policy: str = "heuristic") -> list[int]:
    """The actions of a game of heuristic bots, or of random play that mostly draws and
    rarely knocks (chance: ``default_rng(seed)``)."""
    view = game.observer("knowledge")
    bots = [HeuristicBot() for _ in range(game.num_players)]
    for bot in bots:
        bot.bind(view)
    rng = np.random.default_rng(seed)
    bot_rng = np.random.default_rng(seed + 1)
    state = game.init(rng)
    actions = []
    while not game.is_terminal(state):
        seat = state.current
        mask = game.legal_mask(state, seat)
        if policy == "heuristic":
            action = int(bots[seat].act(view.observe(state, seat), mask, bot_rng))
        elif mask[rules.ACTION_KNOCK]:
            knock = bot_rng.random() < 0.02
            action = rules.ACTION_KNOCK if knock else rules.ACTION_NO_KNOCK
        elif mask[rules.ACTION_DRAW] and bot_rng.random() < 0.9:
            action = rules.ACTION_DRAW  # mostly draws: power cards
        else:
            legal = np.flatnonzero(mask)
            action = int(legal[bot_rng.integers(legal.size)])
        game.apply(state, {seat: action}, rng)
        actions.append(action)
    return actions


def _peek_variants(game: rules.RatATatCat, seed: int, policy: str = "heuristic"):
    """Yield ``(peeker, tables)`` for every decision on a drawn Peek in the game of
    :func:`_game_actions` and every other choice that looks the same to the others
    (another slot; declining, outside a Draw 2 sequence): ``tables`` yields the two tables
    in lockstep after every action from the Peek on, the same actions played in both."""
    actions = _game_actions(game, seed, policy)
    rng = np.random.default_rng(seed)
    state = game.init(rng)
    for i, action in enumerate(actions):
        if state.phase == rules.PHASE_PEEK:
            others = [rules.ACTION_PEEK + s for s in range(rules.SLOTS)]
            if state.draw2_left == 0:
                others.append(rules.ACTION_DECLINE)
            elif action == rules.ACTION_DECLINE:
                others = []  # declined in a Draw 2 sequence: a second card is drawn, public
            for other in others:
                if other != action:
                    yield state.current, _lockstep(game, seed, actions, i, other)
        game.apply(state, {state.current: action}, rng)


def _lockstep(game: rules.RatATatCat, seed: int, actions: list[int], i: int, other: int):
    """Play ``actions`` in two tables, ``actions[i]`` replaced by ``other`` in the second;
    yield both after every action from the ``i``-th on."""
    rng_a, rng_b = np.random.default_rng(seed), np.random.default_rng(seed)
    a, b = game.init(rng_a), game.init(rng_b)
    for j, action in enumerate(actions):
        game.apply(a, {a.current: action}, rng_a)
        game.apply(b, {b.current: other if j == i else action}, rng_b)
        if j >= i:
            yield a, b


@pytest.mark.parametrize(
    ("policy", "n", "seed"),
    [
        ("heuristic", 2, 4),
        ("heuristic", 3, 0),
        ("heuristic", 4, 2),
        ("random", 2, 1),
        ("random", 3, 0),
        ("random", 4, 3),
    ],
)
def test_what_another_player_peeked_at_changes_no_determinization(policy, n, seed):
    """Two tables that differ only in which slot a player's Peek looked at (or whether it
    was used) look the same to everyone else, and so must every resample for them, card
    for card and in everyone's knowledge: the search bots read the table only through
    it. (The resampler kept which slot each other player knew, so the opponents of a
    search played on what only they had seen.)"""
    game = rules.RatATatCat(num_players=n, max_turns_per_round=60, rounds=3)
    views = [game.observer(kind) for kind in ("knowledge", "memoryless")]
    pairs = differing = swapped = 0
    for peeker, tables in _peek_variants(game, seed, policy):
        round_index = None
        for a, b in tables:
            if round_index is None:
                round_index = a.round_index
            if game.is_terminal(a) or a.round_index != round_index:
                break  # the round's end reveals everything: the tables are the same again
            for seat in range(n):  # the premise: the others cannot tell the tables apart
                for view in views:
                    if seat != peeker:
                        assert np.array_equal(view.observe(a, seat), view.observe(b, seat))
            if _same_state(a, b):
                continue  # the Peek showed nothing new, or what it showed is gone
            differing += 1
            swapped += any(  # a card the Peek may have looked at has moved to another slot
                place not in (r.by * rules.SLOTS + s, rules.GONE)
                for r in a.peeks
                for s, place in enumerate(r.places)
            )
            for seat in range(n):
                if seat == peeker:
                    continue
                new_a = game.resample(a, seat, np.random.default_rng(pairs))
                new_b = game.resample(b, seat, np.random.default_rng(pairs))
                assert _same_state(new_a, new_b), (peeker, seat)
                assert game.to_json(new_a) == game.to_json(new_b)
                pairs += 1
            # the peeker's own resample keeps what it saw, exactly
            own = game.resample(b, peeker, np.random.default_rng(pairs))
            check_invariants(own)
            assert np.array_equal(own.know[peeker], b.know[peeker])
            assert np.array_equal(own.recent[peeker], b.recent[peeker])
    assert pairs >= 100 and differing >= 50, (pairs, differing)
    if policy == "random":  # the public record of the Peek followed the cards' swaps
        assert swapped >= 20, swapped


def test_a_search_reads_nothing_of_what_an_opponent_peeked_at():
    """IS-MCTS and PIMC decide the same way, play-out for play-out, whichever slot the
    opponent's Peek looked at (with the same random numbers)."""
    from ratenvs.common.search import ISMCTSBot, PIMCBot

    class RecordingPIMC(PIMCBot):
        def _evaluate(self, det, seat, action, seed):
            worth = super()._evaluate(det, seat, action, seed)
            self.seen.append(worth)
            return worth

    game = rules.RatATatCat(num_players=2)
    found = None
    for peeker, tables in _peek_variants(game, 25):
        for a, b in tables:
            if peeker == 1 and a.current == 0 and game.legal_mask(a, 0).sum() > 1:
                if not np.array_equal(a.know, b.know):
                    found = (a.copy(), b.copy())
                break
        if found:
            break
    assert found is not None
    a, b = found
    mask = game.legal_mask(a, 0)
    chosen, values = [], []
    for table in (a, b):
        ismcts = ISMCTSBot(iterations=40, rollout=HeuristicBot, horizon="reward")
        ismcts.bind_game(game, 0)
        pimc = RecordingPIMC(determinizations=8, rollout=HeuristicBot, horizon="reward")
        pimc.seen = []
        pimc.bind_game(game, 0)
        chosen.append(
            (
                ismcts.act_in_state(table, 0, mask, np.random.default_rng(3)),
                pimc.act_in_state(table, 0, mask, np.random.default_rng(3)),
            )
        )
        values.append(pimc.seen)
    assert chosen[0] == chosen[1]
    assert values[0] == values[1]


def _one_peek_then_a_swap() -> rules.State:
    """Player 0 peeks at its slot 1 (it knows slots 0 and 3), then player 1 swaps its own
    slot 0 with player 0's slot 1: what player 0 saw is now player 1's slot 0."""
    state = build_state([[1, 2, 3, 4], [5, 6, 7, 8]], draw_top=[P, S])
    play(state, [rules.ACTION_DRAW, rules.ACTION_PEEK + 1, rules.ACTION_NO_KNOCK])
    play(state, [rules.ACTION_DRAW, rules.swap_action(0, 1, 1), rules.ACTION_NO_KNOCK])
    return state


def test_another_players_peek_looks_anew_at_a_slot_it_did_not_know_and_follows_the_swaps():
    state = _one_peek_then_a_swap()
    assert state.know[0, 1, 0] == 2 and state.know[0, 0, 2] == rules.CODE_UNKNOWN
    looked = set()
    for k in range(60):
        new = rules.RatATatCat(num_players=2).resample(state, 1, np.random.default_rng(k))
        check_invariants(new)
        assert np.array_equal(new.know[1], state.know[1])  # the seat's own: untouched
        private = (new.know[0] < rules.NUM_KINDS) & ~new.known_publicly[0]
        # the Peek looked at slot 1 (its card is now player 1's slot 0) or at slot 2 (still
        # there), the two player 0 did not know then; never at a known one
        assert private.sum() == 1
        where = tuple(int(x) for x in np.argwhere(private)[0])
        assert where in ((1, 0), (0, 2))
        looked.add(where)
        assert (new.recent[0] == rules.CODE_UNKNOWN).all()  # it has decided since
    assert looked == {(1, 0), (0, 2)}


def test_a_peek_with_no_decision_since_shows_in_the_memoryless_view_anew():
    # player 0 knocks; player 1 peeks at its slot 1 and, its turn over, has no knock
    # decision: its memoryless view shows the peeked card during player 2's turn
    state = build_state([[1, 2, 3, 4], [5, 6, 7, 8], [0, 1, 2, 3]], draw_top=[5, P])
    play(state, [rules.ACTION_DRAW, rules.ACTION_DISCARD, rules.ACTION_KNOCK])
    play(state, [rules.ACTION_DRAW, rules.ACTION_PEEK + 1])
    assert state.current == 2 and state.recent[1, 1, 1] == 6
    looked = set()
    for k in range(40):
        new = rules.RatATatCat(num_players=3).resample(state, 2, np.random.default_rng(k))
        check_invariants(new)
        seen = np.argwhere(new.recent[1] != rules.CODE_UNKNOWN)
        assert len(seen) == 1 and seen[0][0] == 1 and seen[0][1] in (1, 2)
        looked.add(int(seen[0][1]))
    assert looked == {1, 2}


@pytest.mark.parametrize("reward", ["zero_sum", "points", "win", "zero_sum_win"])
def test_a_reward_tells_nothing_before_the_round_ends(reward):
    """Rewards are a channel too: a seat is paid only at the step that ends a round (its
    points, then public) or the game, never mid-round, where a reward could tell it what
    the hidden cards are worth; every reward mode, three players, to a target."""
    env = raw_env(num_players=3, target_score=40, reward=reward)
    rng = np.random.default_rng(7)
    paid = ended = 0
    for seed in range(12):
        env.reset(seed=seed)
        while env.agents:
            agent = env.agent_selection
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            rounds_before = env.truth.round_index
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            round_over = env.truth.round_index != rounds_before or env.truth.is_over
            ended += round_over
            if any(env.rewards.values()):
                paid += 1
                assert round_over, (seed, agent, env.rewards)
    assert ended >= 30 and (paid >= 20 or reward == "win"), (ended, paid)
