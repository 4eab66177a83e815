"""Pooling evaluations run on other seeds (``ratenvs.evaluation.pool_evaluations``,
``python -m training.pool``): the pooled figures are those of all the games evaluated at
once, the counts of Ratto Zakko's tracker too; runs of other agents, opponents, tables or
the same seed are refused, and a refused pool leaves the card as it was."""

from __future__ import annotations

import json
import re

import pytest
from test_training_ship import OPTIONS as RZ_OPTIONS
from test_training_ship import make_ratto_zakko_checkpoint

from ratenvs.evaluation import (
    evaluate,
    evaluate_agent,
    extras_for,
    play_match,
    pool_evaluations,
    summarise,
)
from ratenvs.games import GAMES
from training import pool
from training.checkpoint import load_card, load_checkpoint, save_checkpoint

RTC = {"num_players": 2}
SEEDS = (3, 4, 5)


def bot(game: str, name: str):
    return GAMES[game].bots()[name]()


def evaluations(game: str, options: dict, opponent: str, games: int, seeds=SEEDS) -> list:
    return [
        {**evaluate_agent(game, options, bot(game, "random"), [opponent], games, s), "game": game}
        for s in seeds
    ]


def all_at_once(game: str, options: dict, opponent: str, games: int, seeds=SEEDS) -> dict:
    spec = GAMES[game]
    n = int(spec.load().raw_env(**options).num_players)
    results = []
    for s in seeds:
        opponents = [bot(game, opponent) for _ in range(n - 1)]
        results += play_match(
            spec, options, bot(game, "random"), opponents, games, s, extras=extras_for(game)
        )
    return summarise(results)


def assert_same_figures(pooled: dict, direct: dict) -> None:
    for key, value in direct.items():
        if key.endswith("_ci") or key in ("mean_reward", "win_rate", "answer_accuracy"):
            assert pooled[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
        elif key == "by_correct_response":
            for name, figures in value.items():
                for k, v in figures.items():
                    assert pooled[key][name][k] == pytest.approx(v, rel=1e-12), (name, k)
        else:
            assert pooled[key] == value, key


def test_pooled_runs_give_the_figures_of_all_their_games_at_once():
    pooled = pool_evaluations(evaluations("rat_a_tat_cat", RTC, "heuristic", 12))
    assert_same_figures(pooled, all_at_once("rat_a_tat_cat", RTC, "heuristic", 12))
    assert pooled["seed"] == list(SEEDS) and pooled["games"] == 36


def test_pooled_ratto_zakko_counts_are_the_counts_of_all_the_games():
    options = {"num_players": 2, "level": "main", "perception": "clear"}
    pooled = pool_evaluations(evaluations("ratto_zakko", options, "child", 2))
    direct = all_at_once("ratto_zakko", options, "child", 2)
    assert direct["answers"] > 0 and "min_answer_rate" in direct
    assert_same_figures(pooled, direct)


def test_runs_of_other_opponents_or_the_same_seed_are_refused():
    a, b = evaluations("rat_a_tat_cat", RTC, "heuristic", 2, seeds=(1, 2))
    (c,) = evaluations("rat_a_tat_cat", RTC, "random", 2, seeds=(3,))
    with pytest.raises(ValueError, match="differ in 'opponents'"):
        pool_evaluations([a, c])
    with pytest.raises(ValueError, match=r"share a seed \(the same games twice\): \[1, 2, 1\]"):
        pool_evaluations([a, b, a])
    with pytest.raises(ValueError, match="at least one"):
        pool_evaluations([])
    # a pooled result beside one of the runs it holds: the same games twice
    pooled = pool_evaluations([a, b])
    assert pooled["seed"] == [1, 2] and pooled["games"] == 4
    with pytest.raises(ValueError, match=r"share a seed \(the same games twice\): \[\[1, 2\], 2\]"):
        pool_evaluations([pooled, b])
    with pytest.raises(ValueError, match="differ in 'env_options'"):
        pool_evaluations([a, {**b, "env_options": {"num_players": 2, "rounds": 3}}])


def checkpoint_results(ckpt, seeds, options=None) -> list[dict]:
    """``ratenvs evaluate CKPT --opponents child --games 1 --seed S --json`` for each seed."""
    return [evaluate(str(ckpt), ["child"], 1, s, env_overrides=options or None) for s in seeds]


def write_results(tmp_path, results) -> list[str]:
    paths = []
    for r in results:
        path = tmp_path / f"result_{r['seed']}.json"
        path.write_text(json.dumps(r))
        paths.append(str(path))
    return paths


def test_the_cli_adds_the_pooled_entry_to_the_card_and_refuses_to_overwrite_it(tmp_path, capsys):
    ckpt = make_ratto_zakko_checkpoint(tmp_path / "rz")
    results = checkpoint_results(ckpt, (7, 8))
    assert results[0]["weights_sha256"] == load_card(ckpt)["weights_sha256"]
    paths = write_results(tmp_path, results)
    assert pool.main([str(ckpt), *paths, "--note", "two seeds"]) == 0
    assert "2 games on seeds [7, 8]" in capsys.readouterr().out
    card = load_card(ckpt)
    entry = card["evaluations"]["vs ratto_zakko:child, pooled"]
    assert entry["games"] == 2 and entry["note"] == "two seeds"
    assert [r["seed"] for r in entry["runs"]] == [7, 8]
    assert entry["answers"] == sum(r["answers"] for r in results)
    card = json.loads((tmp_path / "rz.json").read_text())
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("rz")) == sorted(
        ["rz.json", card["weights_file"]]
    )  # no temporary file left
    before = (tmp_path / "rz.json").read_bytes()
    assert pool.main([str(ckpt), *paths]) == 2
    assert "already has an evaluation 'vs ratto_zakko:child, pooled'" in capsys.readouterr().err
    assert (tmp_path / "rz.json").read_bytes() == before
    assert pool.main([str(ckpt), *paths, "--replace"]) == 0
    # under another label, a seed of that entry is the same games counted twice
    before = (tmp_path / "rz.json").read_bytes()
    assert pool.main([str(ckpt), paths[1], "--key", "again"]) == 2
    assert "seed 8 is pooled already in the card's entry" in capsys.readouterr().err
    assert (tmp_path / "rz.json").read_bytes() == before


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe", "not a JSON evaluation"),
        (b"{not json", r"not a JSON evaluation \(Expecting property name"),
        (b"[1, 2]", r"not an evaluation \(a JSON list\)"),
        (b'{"games": 3}', r"not an evaluation \(no game, env_options, opponents, seed, wins"),
    ],
)
def test_a_file_that_is_no_evaluation_is_named_and_the_card_kept(
    tmp_path, capsys, content, message
):
    ckpt = make_ratto_zakko_checkpoint(tmp_path / "rz")
    before = (tmp_path / "rz.json").read_bytes()
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    assert pool.main([str(ckpt), str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: result {bad}: ")
    assert re.search(message, err)
    assert (tmp_path / "rz.json").read_bytes() == before


def test_results_of_another_table_are_refused(tmp_path, capsys):
    ckpt = make_ratto_zakko_checkpoint(tmp_path / "rz")
    paths = write_results(tmp_path, checkpoint_results(ckpt, (1,), {"perception": "gradual"}))
    assert pool.main([str(ckpt), *paths]) == 2
    assert "the card's agent plays ratto_zakko with" in capsys.readouterr().err
    assert "evaluations" not in load_card(ckpt)


def test_results_of_a_bot_or_of_other_weights_are_refused(tmp_path, capsys):
    ckpt = make_ratto_zakko_checkpoint(tmp_path / "rz")
    loaded = load_checkpoint(ckpt)
    state = {k: v + 1 for k, v in loaded.policy_state.items()}  # other weights, same card
    other = save_checkpoint(tmp_path / "other" / "rz", state, loaded.card)
    before = (tmp_path / "rz.json").read_bytes()
    mine = checkpoint_results(ckpt, (1,))
    cases = [
        (evaluations("ratto_zakko", RZ_OPTIONS, "child", 1, seeds=(2,)), "names no weights"),
        (checkpoint_results(other, (2,)), "played other weights"),
    ]
    for extra, message in cases:
        paths = write_results(tmp_path, [*mine, *extra])
        assert pool.main([str(ckpt), *paths]) == 2
        err = capsys.readouterr().err
        assert "error: the result of seed 2 is of " in err and message in err
        assert (tmp_path / "rz.json").read_bytes() == before


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("env_options", [1], "env_options must be a mapping"),
        ("games", "two", "games must be a whole number of games above 0"),
        ("games", 0, "games must be a whole number of games above 0"),
        ("wins", 5, "wins must be a number from 0 to its games"),
        ("wins", "1", "wins must be a number from 0 to its games"),
        ("mean_reward", None, "mean_reward must be a number"),
        ("seed", [1.5], "seed must be a whole number or a list of them"),
        ("win_rate_ci", "wide", r"win_rate_ci must be a pair of numbers"),
        ("mean_reward_ci", [0.1], r"mean_reward_ci must be a pair of numbers"),
    ],
)
def test_figures_of_the_wrong_type_are_named_and_the_card_kept(tmp_path, capsys, key, value, said):
    """A result whose figures are not what pooling reads is one error line naming the key
    (it was a TypeError or ZeroDivisionError traceback, or a bad interval on the card)."""
    ckpt = make_ratto_zakko_checkpoint(tmp_path / "rz")
    results = checkpoint_results(ckpt, (7, 8))
    results[1][key] = value
    paths = write_results(tmp_path, results)
    before = (tmp_path / "rz.json").read_bytes()
    assert pool.main([str(ckpt), *paths]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err and err.count("\n") == 1
    assert (tmp_path / "rz.json").read_bytes() == before


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        (None, None, None),
        ("deals", 9, "deals must be a whole number of deals from 2 to its games (4)"),
        ("deal_win_sd", -0.1, "deal_win_sd must be a number >= 0"),
        ("duplicate", "yes", "duplicate must be true"),
        ("deal_reward_sd", ..., "a run of duplicate deals without deal_reward_sd"),
    ],
)
def test_duplicate_runs_pool_onto_the_card_and_bad_deal_figures_are_named(
    tmp_path, capsys, key, value, said
):
    """``ratenvs evaluate --duplicate --json`` runs pool by their deals (the card's entry
    keeps ``deals`` and the spreads); a run whose deal figures pooling cannot read is one
    error line naming the key, the card kept."""
    ckpt = make_ratto_zakko_checkpoint(tmp_path / "rz")
    results = [evaluate(str(ckpt), ["child"], 4, s, duplicate=True) for s in (7, 8)]
    if key is not None:
        if value is ...:
            del results[1][key]
        else:
            results[1][key] = value
    paths = write_results(tmp_path, results)
    before = (tmp_path / "rz.json").read_bytes()
    if key is None:
        assert pool.main([str(ckpt), *paths]) == 0
        entry = load_card(ckpt)["evaluations"]["vs ratto_zakko:child, pooled"]
        assert entry["duplicate"] is True and entry["deals"] == 4 and entry["games"] == 8
        return
    assert pool.main([str(ckpt), *paths]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err and err.count("\n") == 1
    assert (tmp_path / "rz.json").read_bytes() == before
