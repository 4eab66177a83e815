"""The leak test: observations carry nothing a player may not know.

``resample_from_infostate(agent, seed)`` deals again every card ``agent``
cannot locate. If an observation of ``agent`` depended on any hidden card,
the resampled env would show it a different observation. So for thousands of
random states, every player and both observation modes: the observation is
unchanged, AND the hidden cards did change in most samples (a no-op
resampler would make the first check vacuous).
"""

from typing import Any

import numpy as np
import pytest
from ratcat_helpers import check_invariants

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
