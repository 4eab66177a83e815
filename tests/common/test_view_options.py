"""View options (``Option.view_only``): what a seat sees or is rewarded with, never the play.

Every game's view options are proven not to change the play: the same seed and actions
give the same states, masks, seats to act and winners whatever their values. A seat
that sees with its own view options (:class:`OwnView`) sees exactly what it would see at
a table of its own, and tournaments and evaluations seat such agents together.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest

from ratenvs.common.bots import GameStateRequired, OwnView, RandomBot
from ratenvs.common.play import play_game
from ratenvs.games import GAMES

MAX_STEPS = 600
"""Steps compared per game (a Ratto Zakko game takes thousands of ticks)."""


def game_class(name: str) -> Any:
    return GAMES[name].load().raw_env.game_class


def option_values(option: Any) -> list[Any]:
    if option.kind == "bool":
        return [False, True]
    return list(option.choices)


def variants(name: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(base options, the same with one view option at another value) for every test
    option set of the game, every view option and every value the game accepts there."""
    cls = game_class(name)
    out = []
    for base in GAMES[name].test_options:
        checked = cls.options.check(base)
        for key in cls.options.view_options():
            for value in option_values(cls.options[key]):
                if value == checked[key]:
                    continue
                other = {**base, key: value}
                try:
                    cls(**other)
                except ValueError:
                    continue  # e.g. answer_beliefs with a memoryless observation
                out.append((dict(base), other))
    return out


def trajectory(name: str, options: dict[str, Any], seed: int, actions_seed: int) -> list[Any]:
    """The play of one game: per step the state (as JSON), the seats to act and their masks;
    the actions drawn from ``actions_seed`` over the masks, the chance from ``seed``."""
    game = game_class(name)(**options)
    chance = np.random.default_rng(seed)
    pick = np.random.default_rng(actions_seed)
    state = game.init(chance)
    steps: list[Any] = []
    for _ in range(MAX_STEPS):
        if game.is_terminal(state):
            break
        seats = game.to_act(state)
        masks = {s: game.legal_mask(state, s).tolist() for s in seats}
        steps.append((game.to_json(state), seats, masks))
        actions = {s: int(pick.choice(np.flatnonzero(masks[s]))) for s in seats}
        game.apply(state, actions, chance)
    steps.append((game.to_json(state), game.is_terminal(state)))
    if game.is_terminal(state):
        steps.append(list(game.winners(state)))
    return steps


def same_play(name: str, a: dict[str, Any], b: dict[str, Any], seeds: int = 3) -> bool:
    return all(
        trajectory(name, a, s, 100 + s) == trajectory(name, b, s, 100 + s) for s in range(seeds)
    )


CASES = [(name, base, other) for name in GAMES for base, other in variants(name)]


def test_every_game_has_view_options_to_prove():
    assert {name for name, _, _ in CASES} == set(GAMES)


@pytest.mark.parametrize(
    ("name", "base", "other"), CASES, ids=[f"{n}-{sorted(o.items())}" for n, _, o in CASES]
)
def test_a_view_option_never_changes_the_play(name, base, other):
    assert same_play(name, base, other)


@pytest.mark.parametrize(
    ("name", "rules"),
    [
        ("ratto_zakko", {"level": "dessert"}),
        ("rat_a_tat_cat", {"rounds": 3}),
        ("catz_ratz_batz", {"turns": 2}),
    ],
)
def test_the_comparison_sees_a_rules_option(name, rules):
    """The proof above has teeth: a rules option does change the play it compares."""
    base = dict(GAMES[name].test_options[0])
    assert not game_class(name).options[next(iter(rules))].view_only
    assert not same_play(name, base, {**base, **rules})


def test_rules_of_drops_the_view_options():
    options = game_class("ratto_zakko").options
    a = options.rules_of({"answer_beliefs": True, "belief_prior": "deck", "reward": "win"})
    assert a == options.rules_of({})
    assert "answer_beliefs" not in a and "level" in a
    assert options.rules_of({"level": "dessert"}) != a


class Recorder:
    """A bot that keeps every observation it is shown and plays at random."""

    name = "recorder"

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []
        self.inner = RandomBot()

    def act(self, observation, action_mask, rng):
        self.seen.append(np.array(observation))
        return self.inner.act(observation, action_mask, rng)


@pytest.mark.parametrize(
    ("name", "table", "own"),
    [
        (
            "ratto_zakko",
            {"num_players": 3, "level": "dessert"},
            {"num_players": 3, "level": "dessert", "answer_beliefs": True, "belief_prior": "deck"},
        ),
        ("rat_a_tat_cat", {"num_players": 3}, {"num_players": 3, "owner_ceilings": True}),
        (
            "rat_a_tat_cat",
            {"num_players": 2, "owner_ceilings": True},
            {"num_players": 2, "observation": "memoryless", "reward": "win"},
        ),
    ],
)
def test_an_own_view_sees_what_it_would_see_at_its_own_table(name, table, own):
    cls = game_class(name)
    n = own["num_players"]
    at_own = [Recorder() for _ in range(n)]
    play_game(cls(**own), at_own, seed=5)
    mixed = [OwnView(Recorder(), cls(**own))] + [Recorder() for _ in range(n - 1)]
    play_game(cls(**table), mixed, seed=5)
    seen, expected = mixed[0].bot.seen, at_own[0].seen
    assert len(seen) == len(expected) > 0
    assert all(np.array_equal(a, b) for a, b in zip(seen, expected))
    table_size = cls(**table).observer(cls(**table).observation_kind).size
    own_size = cls(**own).observer(cls(**own).observation_kind).size
    assert mixed[1].seen[0].size == table_size
    if table_size != own_size:
        assert seen[0].size == own_size


def test_an_own_view_refuses_a_table_of_other_rules():
    cls = game_class("rat_a_tat_cat")
    bot = OwnView(RandomBot(), cls(num_players=2, owner_ceilings=True))
    with pytest.raises(ValueError, match=r"other rules: .*target_score=100 \(its own None\)"):
        play_game(cls(num_players=2, target_score=100), [bot, RandomBot()], seed=0)
    with pytest.raises(GameStateRequired, match="its own view options"):
        bot.act(np.zeros(3, np.float32), np.ones(3, np.int8), np.random.default_rng(0))
    with pytest.raises(TypeError, match="acts on observations"):
        OwnView(bot, cls(num_players=2))


def test_an_own_view_pickles_with_its_game():
    cls = game_class("ratto_zakko")
    bot = OwnView(RandomBot(), cls(answer_beliefs=True))
    again = pickle.loads(pickle.dumps(bot))
    assert again.game == bot.game and again.view.size == bot.view.size


def test_view_options_are_declared_where_expected():
    declared = {name: set(game_class(name).options.view_options()) for name in GAMES}
    assert declared == {
        "catz_ratz_batz": {"reward", "totals_view"},
        "rat_a_tat_cat": {"observation", "owner_ceilings", "reward"},
        "ratto_zakko": {"observation", "reward", "answer_beliefs", "belief_prior", "public_record"},
    }
    assert all(
        not o.view_only
        for name in GAMES
        for key, o in game_class(name).options.items()
        if key not in declared[name]
    )
