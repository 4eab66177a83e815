"""Rules between options (``OptionRule``): declared once in a game's ``OptionSpec``, checked
by ``OptionSpec.check`` (so at every door, with the same message), listed in the env
docstring and the docs page, and with companions under which every allowed value of an
option keeps every rule."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from ratenvs.common.options import Option, OptionRule, OptionSpec
from ratenvs.games import GAMES

SPECS = {name: spec.load().raw_env.game_class.options for name, spec in GAMES.items()}

BROKEN = [
    (
        "ratto_zakko",
        {"answer_beliefs": True, "observation": "memoryless"},
        "option 'answer_beliefs' needs observation='knowledge'",
    ),
    (
        "ratto_zakko",
        {"min_reaction_ticks": 120, "window_ticks": 120},
        "option 'min_reaction_ticks' must be below 'window_ticks' (120), got 120",
    ),
    (
        "ratto_zakko",
        {"belief_prior": "deck"},
        "option 'belief_prior'='deck' needs answer_beliefs=True",
    ),
    (
        "ratto_zakko",
        {"belief_prior": "count", "answer_beliefs": True},
        "option 'belief_prior'='count' needs public_record=True",
    ),
    (
        "rat_a_tat_cat",
        {"eliminate_at": "reaches"},
        "option 'eliminate_at'='reaches' rules the elimination game: set 'target_score'",
    ),
    (
        "rat_a_tat_cat",
        {"elimination_tiebreak": "shared", "rounds": 3},
        "option 'elimination_tiebreak'='shared' rules the elimination game: set 'target_score'",
    ),
    (
        "catz_ratz_batz",
        {"turns": None},
        "option 'turns' may be None only in a race (set 'target_score')",
    ),
    (
        "catz_ratz_batz",
        {"race_end": "turn"},
        "option 'race_end'='turn' rules the race: it needs 'target_score'",
    ),
]


def allowed_values(option: Option) -> list[Any]:
    """Every allowed value of a choice or bool option; an int option's ends (a big value
    for an unbounded one) and None if it may be off."""
    if option.kind == "bool":
        return [False, True]
    if option.kind == "choice":
        return list(option.choices)
    low = option.low or 0
    values = [low, option.high if option.high is not None else 10**6]
    return values + ([None] if option.optional else [])


@pytest.mark.parametrize(("game", "values", "message"), BROKEN)
def test_a_broken_rule_is_refused_by_the_spec_and_every_door_alike(game, values, message):
    with pytest.raises(ValueError) as by_spec:
        SPECS[game].check(values)
    assert str(by_spec.value).startswith(message)
    raw_env = GAMES[game].load().raw_env
    for make in (raw_env, GAMES[game].load().env, GAMES[game].load().parallel_env):
        with pytest.raises(ValueError) as at_door:
            make(**values)
        assert str(at_door.value) == str(by_spec.value)


@pytest.mark.parametrize(("game", "values", "message"), BROKEN)
def test_the_same_values_pass_once_the_companions_are_set(game, values, message):
    """Setting the companions of the first option of a broken set (keeping that option's
    value) mends it."""
    name = next(iter(values))
    mended = {**values, **SPECS[game].companions(name), name: values[name]}
    SPECS[game].check(mended)


@pytest.mark.parametrize(
    ("game", "name"), [(g, n) for g, spec in SPECS.items() for n in spec], ids="-".join
)
def test_the_companions_of_an_option_let_every_allowed_value_of_it_pass(game, name):
    spec = SPECS[game]
    companions = spec.companions(name)
    assert name not in companions
    for value in allowed_values(spec[name]):
        checked = spec.check({**companions, name: value})
        assert checked[name] == value


def test_every_rule_refuses_some_allowed_values_with_its_own_message():
    """No declared rule is vacuous: some combination of allowed values of the options it
    ties is refused, and the spec's message is the rule's own."""
    for game, spec in SPECS.items():
        for rule in spec.rules:
            combos = itertools.product(*(allowed_values(spec[n]) for n in rule.options))
            refused = [
                values
                for values in (dict(zip(rule.options, c, strict=True)) for c in combos)
                if _refuses(spec, rule, values)
            ]
            assert refused, (game, rule.text)


def _refuses(spec: OptionSpec, rule: OptionRule, values: dict[str, Any]) -> bool:
    try:
        spec.check(values)
    except ValueError as error:
        return str(error) == rule.broken({**spec.defaults(), **values})
    return False


def test_the_rules_are_in_the_env_docstring_and_on_the_docs_page():
    from docs.gen_pages import options_table

    for game, spec in SPECS.items():
        doc = GAMES[game].load().raw_env.__init__.__doc__
        page = options_table(game)
        for rule in spec.rules:
            assert f"- {rule.text}" in doc, game
            assert f"- {rule.text}" in page, game
        assert ("Rules between options" in doc) == bool(spec.rules)


def test_a_rule_naming_an_unknown_option_is_refused():
    a = Option("a", "int", 0, "a", low=0)
    with pytest.raises(ValueError, match=r"names unknown options \['b'\]"):
        OptionSpec(a, rules=[OptionRule(("a", "b"), "a below b", lambda p: None)])
    with pytest.raises(ValueError, match=r"names unknown options \['c'\]"):
        OptionSpec(a, rules=[OptionRule(("a",), "a", lambda p: None, {"a": {"c": 1}})])
    with pytest.raises(KeyError):
        OptionSpec(a).companions("b")


def test_a_spec_without_rules_checks_as_before():
    a = Option("a", "int", 0, "a", low=0)
    spec = OptionSpec(a)
    assert spec.rules == () and spec.rules_text() == "" and spec.companions("a") == {}
    assert spec.check({"a": 3}) == {"a": 3}
