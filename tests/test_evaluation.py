"""ratenvs.evaluation: matches with seats rotated, Wilson intervals, tournaments with
Bradley-Terry ratings, agents named as on the command lines (bots, agent:NAME, paths)."""

from __future__ import annotations

import json

import pytest

from ratenvs import evaluation
from ratenvs.common.stats import wilson_interval
from ratenvs.evaluation import (
    EvaluationExtras,
    evaluate,
    extras_for,
    format_evaluation,
    format_tournament,
    format_tournament_markdown,
    pairing_seats,
    resolve_agent,
    sum_counts,
    tournament,
    tournament_command,
    win_shares,
)
from ratenvs.games import GAMES
from ratenvs.ratto_zakko.rules import (
    ACTION_RESPONSE_FIRST,
    ACTION_WAIT,
    RESPONSES,
    RESPONSES_AT_LEVEL,
)


def test_every_game_has_its_extras_or_none():
    assert extras_for("catz_ratz_batz").exact_grade is not None
    assert extras_for("ratto_zakko").tracker is not None
    assert extras_for("rat_a_tat_cat") == EvaluationExtras()
    assert set(GAMES) >= {"catz_ratz_batz", "ratto_zakko", "rat_a_tat_cat"}


def test_a_bot_plays_its_games_gymnasium_defaults_with_wilson_intervals():
    result = evaluate("catz_ratz_batz:lowest", games=6, seed=2)
    assert result["env_options"] == GAMES["catz_ratz_batz"].gymnasium_defaults
    assert result["games"] == 6 and result["agent"] == "catz_ratz_batz:lowest"
    assert result["opponents"] == []
    assert result["win_rate_ci"] == list(wilson_interval(result["wins"], 6))
    assert result["exact_expected_score"] == pytest.approx(22.341, abs=1e-3)
    assert (
        evaluate("catz_ratz_batz:lowest", games=6, seed=2)["mean_reward"] == (result["mean_reward"])
    )  # deterministic for a seed
    with pytest.raises(ValueError, match="one-player game"):
        evaluate("catz_ratz_batz:lowest", ["random"], games=1)


def test_play_match_puts_the_agent_in_every_seat_in_turn():
    spec = GAMES["rat_a_tat_cat"]
    bots = spec.bots()
    results = evaluation.play_match(
        spec, {"num_players": 3}, bots["heuristic"](), [bots["random"](), bots["random"]()], 5, 0
    )
    assert [r.seat for r in results] == [0, 1, 2, 0, 1]


def test_play_match_rotates_the_whole_table(monkeypatch):
    """With different opponents every player sits in every seat alike, and the order of play
    around the table stays: the k-th opponent always k + 1 turns after the agent (only the
    agent's seat rotated before, the first-named opponent mostly in seat 0)."""
    spec = GAMES["catz_ratz_batz"]
    bots = spec.bots()
    agent, a, b, c = (bots["random"]() for _ in range(4))
    seatings = []
    real = evaluation.play_game

    def watch(spec_, options, players, seed, env, tracker):
        seatings.append(list(players))
        return real(spec_, options, players, seed, env, tracker)

    monkeypatch.setattr(evaluation, "play_game", watch)
    results = evaluation.play_match(spec, {"num_players": 4}, agent, [a, b, c], 8, 0)
    for g, (players, result) in enumerate(zip(seatings, results, strict=True)):
        seat = g % 4
        assert result.seat == seat and players[seat] is agent
        assert [players[(seat + k) % 4] for k in (1, 2, 3)] == [a, b, c]
    for bot in (agent, a, b, c):
        assert sorted(p.index(bot) for p in seatings) == [0, 0, 1, 1, 2, 2, 3, 3]


def test_ratto_zakko_evaluations_count_answers():
    result = evaluate("ratto_zakko:adult", ["ratto_zakko:child"], games=2, seed=0)
    assert result["answers"] > 0 and 0 <= result["answer_accuracy"] <= 1
    assert "correct answers" in format_evaluation(result)


@pytest.mark.parametrize("level", ["starter", "dessert"])
def test_ratto_zakko_answers_by_correct_response_add_up(level):
    spec = GAMES["ratto_zakko"]
    bots = spec.bots()
    options = {"num_players": 3, "level": level}
    result = evaluation.evaluate_agent("ratto_zakko", options, bots["adult"](), ["child"], 3, 4)
    table = result["by_correct_response"]
    assert list(table) == list(RESPONSES_AT_LEVEL[level])  # every type of the level, in order
    for key in ("cards", "answers", "correct_answers"):
        assert sum(t[key] for t in table.values()) == result[key]
    rates = {}
    for name, t in table.items():
        assert t["correct_answers"] <= t["answers"] <= t["cards"]
        if t["cards"]:
            rates[name] = t["answers"] / t["cards"]
            assert t["answer_rate"] == rates[name]
            assert t["answer_rate_ci"] == list(wilson_interval(t["answers"], t["cards"]))
        else:
            assert t["answer_rate"] is None and t["answer_rate_ci"] is None
        if t["answers"]:
            assert t["accuracy"] == t["correct_answers"] / t["answers"]
            assert t["accuracy_ci"] == list(wilson_interval(t["correct_answers"], t["answers"]))
        else:
            assert t["accuracy"] is None and t["accuracy_ci"] is None
    lowest = min(rates.values())
    assert result["min_answer_rate"] == lowest
    assert rates[result["min_answer_rate_response"]] == lowest
    assert (
        result["min_answer_rate_ci"] == table[result["min_answer_rate_response"]]["answer_rate_ci"]
    )
    if level == "dessert":
        assert table["bang"]["cards"] > 0 and table["shout:apple"]["cards"] >= 0
    json.dumps(result, allow_nan=False)  # plain JSON (None for an empty type)
    again = evaluation.evaluate_agent("ratto_zakko", options, bots["adult"](), ["child"], 3, 4)
    assert again["by_correct_response"] == table  # deterministic for a seed
    text = format_evaluation({**result, "agent": "ratto_zakko:adult", "game": "ratto_zakko"})
    assert "answers by the card's correct response" in text
    assert f"lowest answer rate ({result['min_answer_rate_response']}:" in text
    for name in table:
        assert any(line.startswith(name + " ") for line in text.splitlines())


class OnlyBangs:
    """The adult bot, but waiting unless it would bang (the failure of an agent that answered
    almost only "bang" cards, its accuracy counted over the cards it answered)."""

    def __init__(self) -> None:
        self.inner = GAMES["ratto_zakko"].bots()["adult"]()

    def act(self, observation, action_mask, rng):
        action = self.inner.act(observation, action_mask, rng)
        if ACTION_RESPONSE_FIRST <= action < ACTION_RESPONSE_FIRST + len(RESPONSES):
            return action if RESPONSES[action - ACTION_RESPONSE_FIRST] == "bang" else ACTION_WAIT
        return action  # a relocation


def test_a_seat_that_only_bangs_shows_in_the_lowest_answer_rate():
    options = {"num_players": 2, "level": "dessert", "perception": "clear"}
    result = evaluation.evaluate_agent("ratto_zakko", options, OnlyBangs(), ["child"], 2, 0)
    table = result["by_correct_response"]
    assert result["answer_accuracy"] > 0.9  # the flat figure alone hides it
    assert table["bang"]["answer_rate"] >= 0.5
    for name, t in table.items():
        if name != "bang":
            assert t["correct_answers"] == 0
    assert result["min_answer_rate"] == 0.0 and result["min_answer_rate_response"] != "bang"
    never = [t["cards"] for t in table.values() if t["cards"] and not t["answers"]]
    assert table[result["min_answer_rate_response"]]["cards"] == max(never)  # best measured


def test_sum_counts_adds_nested_counts_key_by_key():
    games = [
        {"cards": 2.0, "by": {"a": {"n": 1.0}, "b": {"n": 1.0}}},
        {"cards": 3.0, "by": {"a": {"n": 2.0}, "c": {"n": 4.0}}, "new": 1.0},
    ]
    assert sum_counts(games) == {
        "cards": 5.0,
        "by": {"a": {"n": 3.0}, "b": {"n": 1.0}, "c": {"n": 4.0}},
        "new": 1.0,
    }
    assert list(sum_counts(games)["by"]) == ["a", "b", "c"]
    assert sum_counts([]) == {}


def test_a_tournament_of_bots_rates_them():
    names = ["ratto_zakko:adult", "ratto_zakko:child", "ratto_zakko:random"]
    result = tournament(names, games=4, seed=3)
    assert result["game"] == "ratto_zakko" and result["env_options"]["num_players"] == 2
    assert [(p["agent"], p["opponent"]) for p in result["pairs"]] == [
        (names[0], names[1]),
        (names[0], names[2]),
        (names[1], names[2]),
    ]
    assert sorted(r["agent"] for r in result["ratings"]) == sorted(names)
    elos = [r["elo"] for r in result["ratings"]]
    assert elos == sorted(elos, reverse=True) and sum(elos) == pytest.approx(0, abs=1e-6)
    for r in result["ratings"]:
        assert r["elo_ci"][0] <= r["elo"] + 1e-9 and r["elo"] <= r["elo_ci"][1] + 1e-9
    assert tournament(names, games=4, seed=3) == result
    text = format_tournament(result)
    assert "Bradley-Terry ratings" in text and names[0] in text
    assert (
        "0.5 pseudo-wins" in result["rating_method"]
        and "200 bootstrap" in (result["rating_method"])
    )


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["rat_a_tat_cat:heuristic"], "at least two agents"),
        (["rat_a_tat_cat:heuristic", "catz_ratz_batz:random"], "play different games"),
        (["rat_a_tat_cat:heuristic", "rat_a_tat_cat:nobody"], "unknown bot 'nobody'"),
        (["heuristic", "random"], "write a bot as game:bot"),
        (["chess:king", "rat_a_tat_cat:random"], "unknown game 'chess'"),
        (["agent:nobody", "rat_a_tat_cat:random"], "the shipped agents are"),
    ],
)
def test_a_bad_tournament_is_refused(names, message):
    with pytest.raises(ValueError, match=message):
        tournament(names, games=1, seed=0)


@pytest.mark.parametrize(
    ("games", "seed", "message"),
    [
        (0, 0, r"^games must be an integer in 1\.\.1,000,000, got 0$"),
        (2.0, 0, r"^games must be an integer in 1\.\.1,000,000, got 2\.0$"),
        (True, 0, r"^games must be an integer in 1\.\.1,000,000, got True$"),
        (2, -1, r"^seed must be an integer >= 0, got -1$"),
        (2, 2.5, r"^seed must be an integer >= 0, got 2\.5$"),
        (2, None, r"^seed must be an integer >= 0, got None$"),
    ],
)
def test_the_evaluation_doors_check_games_and_seed_first(games, seed, message):
    """The library's doors take the games and seeds the command lines take: games=0 was a
    ZeroDivisionError in a tournament, and a bad seed was named as the derived game seed
    (``-1000003``)."""
    bots = ["rat_a_tat_cat:random", "rat_a_tat_cat:heuristic"]
    spec = GAMES["rat_a_tat_cat"]
    calls = [
        lambda: tournament(bots, games=games, seed=seed),
        lambda: evaluation.evaluate(bots[0], ["heuristic"], games=games, seed=seed),
        lambda: evaluation.play_pairing(spec, {}, *[lambda: None] * 2, games, seed),
    ]
    for call in calls:
        with pytest.raises(ValueError, match=message):
            call()


def test_a_two_seat_tournament_is_as_before():
    """players=2 (given or by default) plays exactly the two-seat tournament of before:
    the same seats, seeds and scores (the figures below were stored before tournaments
    took more seats)."""
    names = ["rat_a_tat_cat:heuristic", "rat_a_tat_cat:random"]
    result = tournament(names, games=3, seed=5)
    assert tournament(names, games=3, seed=5, players=2, env_overrides={}) == result
    assert result["players"] == 2 and result["env_options"] == {"num_players": 2}
    assert "env_overrides" not in result and result["agents"] == names
    (pair,) = result["pairs"]
    assert pair["score"] == pytest.approx(2 / 3)
    assert pair["score_ci"] == pytest.approx([0.2076596008020477, 0.9385080552796037], abs=1e-12)
    assert [r["agent"] for r in result["ratings"]] == names
    elos = [(r["elo"], *r["elo_ci"]) for r in result["ratings"]]
    assert elos[0] == pytest.approx((44.369749923271264, -169.0196080028513, 169.0196080028513))
    assert elos[1] == pytest.approx((-44.369749923271264, -169.0196080028513, 169.0196080028513))
    assert [r["mean_score"] for r in result["ratings"]] == pytest.approx([2 / 3, 1 / 3])
    rz = ["ratto_zakko:adult", "ratto_zakko:child", "ratto_zakko:random"]
    three = tournament(rz, games=4, seed=3)
    assert [p["score"] for p in three["pairs"]] == [1.0, 1.0, 1.0]
    assert [r["elo"] for r in three["ratings"]] == pytest.approx(
        [283.8285455786, 0, -283.8285455836], abs=1e-6
    )


def test_pairing_seats_alternate_even_and_odd():
    assert [pairing_seats(g, 2) for g in range(3)] == [([0], [1]), ([1], [0]), ([0], [1])]
    assert pairing_seats(0, 4) == ([0, 2], [1, 3]) and pairing_seats(1, 4) == ([1, 3], [0, 2])
    assert pairing_seats(0, 3) == ([0, 2], [1]) and pairing_seats(1, 3) == ([1], [0, 2])


def test_a_four_seat_tournament_alternates_the_seats(monkeypatch):
    seen: list[list] = []
    real = evaluation.play_game

    def recording(spec, env_options, players, seed, env=None, tracker=None):
        seen.append(list(players))
        return real(spec, env_options, players, seed, env, tracker)

    monkeypatch.setattr(evaluation, "play_game", recording)
    names = ["ratto_zakko:random", "ratto_zakko:bayes", "ratto_zakko:child"]
    result = tournament(names, games=3, seed=0, players=4, env_overrides={"window_ticks": 20})
    assert result["players"] == 4 and result["env_overrides"] == {"window_ticks": 20}
    assert result["env_options"] == {"num_players": 4, "window_ticks": 20}
    assert len(result["pairs"]) == 3 and len(seen) == 9
    for p in result["pairs"]:
        assert 0 <= p["score"] <= 1 and 0 <= p["score_ci"][0] <= p["score_ci"][1] <= 1
    for r in result["ratings"]:
        assert 0 <= r["mean_score"] <= 1
    for pairing in range(3):
        games = seen[3 * pairing : 3 * pairing + 3]
        first = {id(b) for b in games[0][0::2]}  # the pairing's first agent, game 0
        assert len({id(b) for b in games[0]}) == 4  # an instance per seat
        for g, players in enumerate(games):
            mine = [seat for seat, b in enumerate(players) if id(b) in first]
            assert mine == ([0, 2] if g % 2 == 0 else [1, 3])
    assert tournament(names, 3, 0, players=4, env_overrides={"window_ticks": 20}) == result


def test_a_tournament_score_is_the_share_of_the_win(monkeypatch):
    assert win_shares([True, False, True, False]) == [0.5, 0.0, 0.5, 0.0]
    assert win_shares([True, True, True, False]) == [1 / 3, 1 / 3, 1 / 3, 0.0]
    assert win_shares([False, True]) == [0.0, 1.0]
    games = iter([[True, True, True, False], [False, False, False, True]])

    def hand_made(spec, env_options, players, seed, env=None, tracker=None):
        return [0.0] * len(players), next(games)

    monkeypatch.setattr(evaluation, "play_game", hand_made)
    names = ["ratto_zakko:random", "ratto_zakko:child"]
    result = tournament(names, games=2, seed=0, players=4)
    # game 0: random in seats 0 and 2 (2 of the 3 winners), child in 1 and 3 (1 of 3);
    # game 1: random in seats 1 and 3 (seat 3 the sole winner), child in 0 and 2
    assert result["pairs"][0]["score"] == pytest.approx((2 / 3 + 1) / 2)
    means = {r["agent"]: r["mean_score"] for r in result["ratings"]}
    assert means == pytest.approx({names[0]: (2 / 3 + 1) / 2, names[1]: (1 / 3 + 0) / 2})


def test_a_tournament_as_markdown():
    result = tournament(["ratto_zakko:random", "ratto_zakko:child"], 2, 1, players=3)
    command = tournament_command(result)
    assert command == (
        "ratenvs tournament ratto_zakko:random ratto_zakko:child --players 3 --games 2 --seed 1"
    )
    text = format_tournament_markdown(result)
    caption, blank, *rest = text.splitlines()
    assert blank == "" and text.endswith("|\n")
    assert "ratto_zakko" in caption and "num_players=3" in caption and "3 players" in caption
    assert "2 games per pairing" in caption and "seed 1" in caption and f"`{command}`" in caption
    assert "| rank | agent | Elo | 95% interval | mean score |" in rest
    assert "| agent | opponent | score | 95% interval (Wilson) |" in rest
    assert sum(line.startswith("| 1 | ") or line.startswith("| 2 | ") for line in rest) == 2
    with_env = dict(result, env_overrides={"answer_beliefs": True, "rounds": None})
    assert "--env answer_beliefs=true --env rounds=none" in tournament_command(with_env)


@pytest.mark.parametrize(
    ("names", "kwargs", "message"),
    [
        (["ratto_zakko:random", "ratto_zakko:child"], {"players": 9}, r"^players 9: ratto_zakko"),
        (["catz_ratz_batz:random", "catz_ratz_batz:lowest"], {"players": 1}, "two-seat matches"),
        (
            ["ratto_zakko:random", "ratto_zakko:child"],
            {"env_overrides": {"num_players": 4}},
            r"env_overrides num_players=4: a tournament's seat count is players",
        ),
        (
            ["ratto_zakko:random", "ratto_zakko:child"],
            {"env_overrides": {"window_ticks": 0}},
            r"'window_ticks' must be in",
        ),
    ],
)
def test_a_bad_seat_count_or_override_is_refused(names, kwargs, message):
    with pytest.raises(ValueError, match=message):
        tournament(names, games=1, seed=0, **kwargs)


def test_a_checkpoint_of_other_seats_is_refused():
    pytest.importorskip("torch")
    with pytest.raises(
        ValueError, match=r"^players 2: the checkpoint agent:rat_a_tat_cat_4p plays"
    ):
        tournament(["agent:rat_a_tat_cat_4p", "rat_a_tat_cat:random"], 1, 0, players=2)
    with pytest.raises(ValueError, match=r"different rules \(num_players: 2 / 4\)"):
        tournament(["agent:rat_a_tat_cat_4p", "agent:rat_a_tat_cat_2p"], 1, 0)
    with pytest.raises(ValueError, match=r"target_score: 100 / None.*view options"):
        tournament(["agent:rat_a_tat_cat_2p", "agent:rat_a_tat_cat_2p_one_round"], 1, 0)


def test_checkpoints_of_other_view_options_meet_each_seeing_its_own():
    """The 4-player agents with and without the owner_ceilings piece share a table (the
    view options may differ); each sees its own observation, and the result says so."""
    pytest.importorskip("torch")
    names = ["agent:rat_a_tat_cat_4p", "agent:rat_a_tat_cat_4p_ceilings", "rat_a_tat_cat:heuristic"]
    result = tournament(names, games=2, seed=0)
    assert result["env_options"] == {"num_players": 4, "target_score": 100}
    assert result["own_views"] == {
        "agent:rat_a_tat_cat_4p_ceilings": {
            "num_players": 4,
            "target_score": 100,
            "owner_ceilings": True,
        }
    }
    text = format_tournament_markdown(result)
    assert "agent:rat_a_tat_cat_4p_ceilings sees the table with its own view options" in text
    assert "sees with" in evaluation.format_tournament(result)
    four = evaluate("agent:rat_a_tat_cat_4p", ["agent:rat_a_tat_cat_4p_ceilings"], games=2, seed=0)
    assert four["games"] == 2 and four["env_options"] == {"num_players": 4, "target_score": 100}


def test_shipped_agents_are_named_agent_name():
    pytest.importorskip("torch")
    ref = resolve_agent("agent:rat_a_tat_cat_2p")
    assert ref.label == "agent:rat_a_tat_cat_2p" and ref.game == "rat_a_tat_cat"
    assert ref.env_options == ref.checkpoint.card["env_options"]
    assert ref.env_options["num_players"] == 2
    with pytest.raises(ValueError, match="not for 'ratto_zakko'"):
        resolve_agent("agent:rat_a_tat_cat_2p", game="ratto_zakko")
    result = evaluate("agent:rat_a_tat_cat_2p", ["random"], games=4, seed=0)
    assert result["opponents"] == ["rat_a_tat_cat:random"] * 1
    assert result["checkpoint"] == "agent:rat_a_tat_cat_2p"
    four = evaluate("agent:rat_a_tat_cat_4p", ["heuristic", "random", "agent:rat_a_tat_cat_4p"], 2)
    assert four["opponents"] == [
        "rat_a_tat_cat:heuristic",
        "rat_a_tat_cat:random",
        "agent:rat_a_tat_cat_4p",
    ]


SEEN: list[dict] = []
"""The options of every game an :class:`OptionsSeen` tracker was started on."""


class OptionsSeen:
    """A tracker that keeps the options of every game it is started on (in ``SEEN``)."""

    def __init__(self, seat: int) -> None:
        self.counts: dict[str, float] = {}

    def start(self, game) -> None:
        SEEN.append(dict(game.params))

    def after_step(self, state) -> None:
        pass


@pytest.mark.parametrize(
    ("agent", "overrides"),
    [
        ("ratto_zakko:adult", {"window_ticks": 60, "tick_ms": 10}),
        ("rat_a_tat_cat:heuristic", {"target_score": 50}),
    ],
)
def test_env_overrides_reach_the_env_and_are_recorded(agent, overrides):
    SEEN.clear()
    extras = EvaluationExtras(tracker=OptionsSeen)
    result = evaluate(agent, games=2, seed=1, extras=extras, env_overrides=overrides)
    game = agent.split(":")[0]
    assert result["env_overrides"] == overrides
    assert result["env_options"] == {**GAMES[game].gymnasium_defaults, **overrides}
    assert len(SEEN) == 2
    for params in SEEN:
        assert {k: params[k] for k in overrides} == overrides
    assert "env overrides" in format_evaluation(result)
    assert "env_overrides" not in evaluate(agent, games=1, seed=1)  # as before: none given


def test_a_short_window_leaves_the_human_models_no_time_to_answer():
    quick = evaluate("ratto_zakko:adult", games=1, seed=0, env_overrides={"window_ticks": 1})
    assert quick["cards"] > 0 and quick["answers"] == 0
    assert "answer_accuracy" not in quick and quick["min_answer_rate"] == 0.0


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["window_ticks=60"], {"window_ticks": 60}),
        (["level=dessert", "answer_beliefs=true"], {"level": "dessert", "answer_beliefs": True}),
        (["answer_beliefs=No"], {"answer_beliefs": False}),
        (["original_colour_cards=8"], {"original_colour_cards": 8}),
        ([" tick_ms = 10"], {"tick_ms": 10}),
        ([], {}),
    ],
)
def test_env_override_texts_are_typed_by_the_options(texts, expected):
    parsed = evaluation.parse_env_overrides("ratto_zakko", texts)
    assert parsed == expected
    assert [type(v) for v in parsed.values()] == [type(v) for v in expected.values()]


def test_an_optional_int_is_none_when_written_none():
    parsed = evaluation.parse_env_overrides("rat_a_tat_cat", ["rounds=none", "target_score=7"])
    assert parsed == {"rounds": None, "target_score": 7}


@pytest.mark.parametrize(
    ("texts", "message"),
    [
        (["window_ticks"], r"^--env window_ticks: write KEY=VALUE"),
        (["=3"], r"^--env =3: write KEY=VALUE"),
        (["window=60"], r"^--env window=60: ratto_zakko has no option 'window'; its options are"),
        (["window_ticks=0"], r"^--env window_ticks=0: option 'window_ticks' must be in 1\.\.10000"),
        (["window_ticks=1.5"], r"^--env window_ticks=1\.5: option 'window_ticks' must be an int"),
        (["window_ticks=none"], r"option 'window_ticks' must be an integer \(1\.\.10000\)"),
        (["level=desert"], r"^--env level=desert: option 'level' must be one of starter, main,"),
        (["answer_beliefs=maybe"], r"option 'answer_beliefs' takes true or false, got 'maybe'"),
        (["tick_ms=5", "tick_ms=6"], r"^--env tick_ms=6: option 'tick_ms' given twice$"),
    ],
)
def test_a_bad_env_override_text_is_one_clear_error(texts, message):
    with pytest.raises(ValueError, match=message):
        evaluation.parse_env_overrides("ratto_zakko", texts)


@pytest.mark.parametrize(
    ("agent", "overrides", "message"),
    [
        ("ratto_zakko:adult", {"bogus": 1}, r"^env_overrides \{'bogus': 1\}: ratto_zakko has no"),
        (
            "ratto_zakko:adult",
            {"window_ticks": "60"},
            r"'window_ticks' must be an integer, got '60'",
        ),
        (
            "ratto_zakko:adult",
            {"answer_beliefs": True, "observation": "memoryless"},
            r"needs observation='knowledge'",
        ),
        ("catz_ratz_batz:lowest", {"turns": None}, r"may be None only in a race"),
    ],
)
def test_bad_env_overrides_are_refused_before_any_game(agent, overrides, message):
    with pytest.raises(ValueError, match=message):
        evaluate(agent, games=1, env_overrides=overrides)


def test_an_override_may_not_change_a_checkpoints_observation_or_action_size():
    pytest.importorskip("torch")
    with pytest.raises(ValueError, match=r"env_overrides \{'num_players': 3\}: the agent agent:r"):
        evaluate("agent:rat_a_tat_cat_2p", games=1, env_overrides={"num_players": 3})
    with pytest.raises(ValueError, match=r"may not change the observation or action size"):
        evaluate("agent:rat_a_tat_cat_2p", games=1, env_overrides={"owner_ceilings": True})
    result = evaluate("agent:rat_a_tat_cat_2p", ["random"], 2, 0, env_overrides={"rounds": 1})
    assert result["env_options"] == {"num_players": 2, "target_score": 100, "rounds": 1}
    with pytest.raises(ValueError, match=r"^opponent agent:rat_a_tat_cat_4p: its policy reads"):
        evaluate("rat_a_tat_cat:random", ["agent:rat_a_tat_cat_4p"], games=1)


def test_response_figures_of_hand_made_counts():
    counts = {
        "grab:apple": {"cards": 5.0, "answers": 0.0, "correct_answers": 0.0},
        "shout:fly": {"cards": 20.0, "answers": 0.0, "correct_answers": 0.0},
        "shout:rat": {"cards": 0.0, "answers": 0.0, "correct_answers": 0.0},
        "bang": {"cards": 10.0, "answers": 9.0, "correct_answers": 9.0},
    }
    out = evaluation.response_figures(counts)
    table = out["by_correct_response"]
    assert table["bang"]["answer_rate"] == 0.9 and table["bang"]["accuracy"] == 1.0
    assert table["shout:rat"]["answer_rate"] is None and table["shout:rat"]["accuracy"] is None
    assert out["min_answer_rate"] == 0.0
    assert out["min_answer_rate_response"] == "shout:fly"  # of equal rates, the most cards
    assert out["min_answer_rate_ci"] == list(wilson_interval(0, 20))
    assert evaluation.response_figures({})["by_correct_response"] == {}
    assert "min_answer_rate" not in evaluation.response_figures({})


def test_a_bot_that_needs_a_view_option_sees_with_it_at_any_table():
    """The ceiling bot reads the owner_ceilings piece: evaluations and tournaments seat it
    with that piece whatever the table shows (its class's ``view_options``)."""
    result = tournament(["rat_a_tat_cat:ceiling", "rat_a_tat_cat:heuristic"], games=2, seed=0)
    assert result["env_options"].get("owner_ceilings", False) is False
    assert result["own_views"]["rat_a_tat_cat:ceiling"]["owner_ceilings"] is True
    alone = evaluate(
        "rat_a_tat_cat:ceiling",
        ["ceiling", "heuristic"],
        games=3,
        seed=0,
        env_overrides={"num_players": 3},
    )
    assert alone["games"] == 3
    with_piece = tournament(
        ["rat_a_tat_cat:ceiling", "rat_a_tat_cat:heuristic"],
        games=2,
        seed=0,
        env_overrides={"owner_ceilings": True},
    )
    assert "own_views" not in with_piece
    # what each seat saw is the same at both tables, so the games are the same
    assert with_piece["pairs"] == result["pairs"]


def test_one_game_prints_no_interval_for_its_mean_reward():
    """One game has no spread to estimate: its mean reward's interval was printed as the
    point ``[m, m]`` (a certainty it does not have); the JSON keeps ``[m, m]`` for pooling."""
    one = evaluation.evaluate("rat_a_tat_cat:random", ["heuristic"], games=1, seed=4)
    rows = {name: interval for name, _, interval in evaluation.evaluation_rows(one)}
    assert rows["mean reward"] == "n/a (one game)"
    assert one["mean_reward_ci"] == [one["mean_reward"]] * 2
    two = evaluation.evaluate("rat_a_tat_cat:random", ["heuristic"], games=2, seed=4)
    assert evaluation.evaluation_rows(two)[1][2].startswith("[")


def test_a_one_player_evaluation_reports_its_score_and_grade_not_a_win_rate():
    """One player wins every game: ``win rate 1.000 [0.996, 1.0]`` said nothing. The text
    (``ratenvs evaluate``, ``python -m training.evaluate``, ``make train``'s last line) gives
    the mean score and the solver's grade; the JSON keeps the win rate for pooling."""
    solo = evaluate("catz_ratz_batz:optimal", games=3, seed=0, env_overrides={"turns": 2})
    assert solo["players"] == 1 and solo["win_rate"] == 1.0
    rows = {name: value for name, value, _ in evaluation.evaluation_rows(solo)}
    assert "win rate" not in rows
    assert rows["mean score per game"] == f"{solo['mean_reward']:.3f}"
    assert rows["ratio to optimal"] == "100.0000%"  # the optimal bot, graded by the solver
    assert "3 games, one player" in format_evaluation(solo).splitlines()[0]
    line = evaluation.evaluation_line(solo)
    assert "win rate" not in line and "one player): mean score" in line
    assert line.endswith("= 100.0000% of optimal")
    two = {"num_players": 2, "turns": 2}
    duel = evaluate("catz_ratz_batz:optimal", ["random"], games=2, seed=0, env_overrides=two)
    assert evaluation.evaluation_rows(duel)[0][0] == "win rate"
    assert evaluation.evaluation_line(duel).startswith(
        "evaluation (2 games vs catz_ratz_batz:random): win rate"
    )


def test_a_tournament_in_text_names_its_env_options():
    names = ["catz_ratz_batz:optimal", "catz_ratz_batz:random"]
    result = tournament(names, games=2, seed=1, env_overrides={"turns": 2})
    first = format_tournament(result).splitlines()[0]
    assert first == "catz_ratz_batz, env options: num_players=2, turns=2 (env overrides turns=2)"


def test_results_are_never_written_over_a_checkpoint_card(tmp_path, capsys):
    """``--json`` naming a checkpoint's card (the evaluated one's here) is one error line
    before any game, and the checkpoint still loads: results written there left its weights
    without their card."""
    import shutil

    from ratenvs import agents
    from ratenvs.cli import main

    card = agents.agent_path("catz_ratz_batz_1p")
    for path in card.parent.glob("catz_ratz_batz_1p.*"):
        shutil.copy(path, tmp_path / path.name)
    copy = tmp_path / card.name
    before = copy.read_bytes()
    for command in (["evaluate", str(copy)], ["tournament", str(copy), "catz-ratz-batz:lowest"]):
        assert main([*command, "--games", "2", "--json", str(copy)]) == 2
        err = capsys.readouterr().err
        assert "is the card of a checkpoint" in err and err.count("\n") == 1
    assert copy.read_bytes() == before
    # nor over its weights (the card would name weights that are gone)
    weights = sorted(tmp_path.glob("catz_ratz_batz_1p.*.safetensors"))
    kept = {w: w.read_bytes() for w in weights}
    for w in weights:
        for command in (
            ["evaluate", str(copy), "--json", str(w)],
            ["tournament", str(copy), "catz-ratz-batz:lowest", "--markdown", str(w)],
        ):
            assert main([*command, "--games", "2"]) == 2
            err = capsys.readouterr().err
            assert "is a checkpoint's weights file" in err and err.count("\n") == 1
    assert {w: w.read_bytes() for w in weights} == kept
    agents.load(str(copy))
    assert main(["evaluate", str(copy), "--games", "2", "--json", str(tmp_path / "r.json")]) == 0


def test_ctrl_c_is_one_line_and_status_130(monkeypatch, capsys):
    """Ctrl-C in a command ends it with "interrupted" and status 130, not a traceback."""
    from ratenvs.cli import INTERRUPTED_STATUS, main

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluation, "evaluate", interrupted)
    assert main(["evaluate", "catz-ratz-batz:lowest", "--games", "2"]) == INTERRUPTED_STATUS == 130
    err = capsys.readouterr().err
    assert err.strip() == "interrupted" and "Traceback" not in err


def test_an_agent_seen_with_its_own_view_options_is_graded_exactly(capsys):
    """A Catz agent evaluated at a table with other view options (``--env reward=win``)
    plays through its own view and is graded by the solver on that view (the grade called
    the wrapper's act after every game had been played, and the command ended in a
    traceback)."""
    from ratenvs.cli import main

    assert main(["evaluate", "agent:catz_ratz_batz_1p", "--games", "4", "--env", "reward=win"]) == 0
    out = capsys.readouterr().out
    plain = evaluation.evaluate("agent:catz_ratz_batz_1p", None, 4, 0)
    assert f"{plain['ratio_to_optimal']:.4%}" in out


def test_the_results_name_the_weights_and_views_that_played(tmp_path):
    """An evaluation's result names each checkpoint opponent's weights and the view options
    it saw the table with (it said nothing of them); a tournament's, each checkpoint's
    weights."""
    from ratenvs import agents

    ceilings = "agent:rat_a_tat_cat_4p_ceilings"
    card = agents.load_agent_checkpoint(ceilings).card
    result = evaluation.evaluate(
        "agent:rat_a_tat_cat_4p", [ceilings, "heuristic", "heuristic"], games=4, seed=1
    )
    assert result["opponent_details"] == {
        ceilings: {"weights_sha256": card["weights_sha256"], "own_view": {"owner_ceilings": True}}
    }
    assert f"{ceilings} sees the table with its own" in evaluation.format_evaluation(result)
    plain = evaluation.evaluate("agent:rat_a_tat_cat_4p", ["heuristic"], games=2, seed=1)
    assert "opponent_details" not in plain
    played = tournament([ceilings, "rat_a_tat_cat:heuristic"], games=2, seed=1)
    assert played["weights_sha256"] == {ceilings: card["weights_sha256"]}
