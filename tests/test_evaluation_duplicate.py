"""Duplicate deals (``ratenvs evaluate --duplicate``): every deal played once from each
seat, the win rate and mean reward with normal intervals over the deals' means, and
duplicate runs pooled exactly."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ratenvs import evaluation
from ratenvs.cli import main
from ratenvs.common.stats import Z_95
from ratenvs.evaluation import (
    GAME_SEED_STRIDE,
    GameResult,
    evaluate,
    evaluate_agent,
    play_match,
    pool_evaluations,
    summarise,
)
from ratenvs.games import GAMES


def bot(game: str, name: str):
    return GAMES[game].bots()[name]()


def test_a_deal_is_played_once_from_every_seat(monkeypatch):
    """Games ``3b, 3b + 1, 3b + 2`` of a 3-seat duplicate match share deal ``b``'s seed,
    the agent in seats 0, 1, 2 and the table rotated around it as ever."""
    spec = GAMES["rat_a_tat_cat"]
    agent, a, b = (bot("rat_a_tat_cat", name) for name in ("random", "heuristic", "random"))
    played = []
    real = evaluation.play_game

    def watch(spec_, options, players, seed, env, tracker):
        played.append((seed, list(players)))
        return real(spec_, options, players, seed, env, tracker)

    monkeypatch.setattr(evaluation, "play_game", watch)
    results = play_match(spec, {"num_players": 3}, agent, [a, b], 6, 7, duplicate=True)
    deals = [7 * GAME_SEED_STRIDE + g // 3 for g in range(6)]
    assert [seed for seed, _ in played] == deals
    assert [r.deal for r in results] == deals
    for g, ((_, players), result) in enumerate(zip(played, results, strict=True)):
        assert result.seat == g % 3 and players[g % 3] is agent
        assert [players[(g + k) % 3] for k in (1, 2)] == [a, b]
    alone = play_match(spec, {"num_players": 3}, agent, [a, b], 6, 7)
    assert all(r.deal is None for r in alone)


@pytest.mark.parametrize("players", [2, 4])
def test_a_deterministic_bot_against_itself_wins_exactly_its_share_of_every_deal(players):
    """The heuristic bot draws no random numbers, so on a duplicate deal its games from
    every seat are the same game: each deal gives it exactly its share, 1 / players, and
    the interval over the deals has no width. On deals of their own the same number of
    games scatters (the deals were shared, not only the seeds' sequence)."""
    opts = {"num_players": players}
    heuristic = [bot("rat_a_tat_cat", "heuristic") for _ in range(players - 1)]
    dup = evaluate_agent(
        "rat_a_tat_cat",
        opts,
        bot("rat_a_tat_cat", "heuristic"),
        ["heuristic"],
        8 * players,
        3,
        duplicate=True,
    )
    share = 1 / players
    assert dup["win_rate"] == pytest.approx(share)
    assert dup["win_rate_ci"] == pytest.approx([share, share])
    assert dup["mean_reward_ci"][1] - dup["mean_reward_ci"][0] == pytest.approx(0, abs=1e-9)
    assert dup["duplicate"] is True and dup["deals"] == 8 and dup["games"] == 8 * players
    assert dup["deal_win_sd"] == pytest.approx(0, abs=1e-12)
    alone = summarise(
        play_match(
            GAMES["rat_a_tat_cat"],
            opts,
            bot("rat_a_tat_cat", "heuristic"),
            heuristic,
            8 * players,
            3,
        )
    )
    assert alone["win_rate_ci"][1] - alone["win_rate_ci"][0] > 0.2
    assert "duplicate" not in alone


def test_the_figures_are_over_the_deals_means():
    """Two deals of two games: win shares (1, 0) and (1, 1) are deal means 0.5 and 1; the
    interval is the normal one over those two means, clipped to [0, 1]."""
    games = [
        GameResult(0, 2.0, 1.0, deal=11),
        GameResult(1, -2.0, 0.0, deal=11),
        GameResult(0, 1.0, 1.0, deal=12),
        GameResult(1, 3.0, 1.0, deal=12),
    ]
    out = summarise(games)
    sd = float(np.std([0.5, 1.0], ddof=1))
    assert out["games"] == 4 and out["wins"] == 3.0 and out["deals"] == 2
    assert out["win_rate"] == pytest.approx(0.75)
    assert out["deal_win_sd"] == pytest.approx(sd)
    assert out["win_rate_ci"] == pytest.approx([0.75 - Z_95 * sd / math.sqrt(2), 1.0])
    reward_sd = float(np.std([0.0, 2.0], ddof=1))
    assert out["mean_reward"] == pytest.approx(1.0)
    half = Z_95 * reward_sd / math.sqrt(2)
    assert out["mean_reward_ci"] == pytest.approx([1.0 - half, 1.0 + half])
    with pytest.raises(ValueError, match="mixed"):
        summarise([*games, GameResult(0, 0.0, 0.0)])


def test_duplicate_runs_pool_to_the_figures_of_all_their_deals_at_once():
    spec = GAMES["rat_a_tat_cat"]
    opts = {"num_players": 2}
    seeds = (3, 4, 5)
    runs = [
        {
            **evaluate_agent(
                "rat_a_tat_cat",
                opts,
                bot("rat_a_tat_cat", "random"),
                ["heuristic"],
                10,
                s,
                duplicate=True,
            ),
            "game": "rat_a_tat_cat",
        }
        for s in seeds
    ]
    games = []
    for s in seeds:
        games += play_match(
            spec,
            opts,
            bot("rat_a_tat_cat", "random"),
            [bot("rat_a_tat_cat", "heuristic")],
            10,
            s,
            duplicate=True,
        )
    direct = summarise(games)
    pooled = pool_evaluations(runs)
    assert pooled["deals"] == direct["deals"] == 15 and pooled["games"] == 30
    for key in ("win_rate", "mean_reward", "deal_win_sd", "deal_reward_sd"):
        assert pooled[key] == pytest.approx(direct[key], rel=1e-9, abs=1e-12), key
    for key in ("win_rate_ci", "mean_reward_ci"):
        assert pooled[key] == pytest.approx(direct[key], rel=1e-9, abs=1e-12), key
    assert pooled["duplicate"] is True and pooled["seed"] == list(seeds)
    plain = {
        **evaluate_agent(
            "rat_a_tat_cat", opts, bot("rat_a_tat_cat", "random"), ["heuristic"], 10, 6
        ),
        "game": "rat_a_tat_cat",
    }
    with pytest.raises(ValueError, match="'duplicate'"):
        pool_evaluations([runs[0], plain])


@pytest.mark.parametrize(
    ("agent", "games", "message"),
    [
        ("rat_a_tat_cat:random", 5, "multiple of 2, at least 4"),
        ("rat_a_tat_cat:random", 2, "at least 4 \\(two deals\\); got 2"),
        ("catz_ratz_batz:lowest", 4, "one-player game"),
    ],
)
def test_games_that_are_not_whole_deals_are_refused_before_any_game(
    monkeypatch, agent, games, message
):
    def no_game(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(evaluation, "play_game", no_game)
    with pytest.raises(ValueError, match=message):
        evaluate(agent, games=games, duplicate=True)


def test_the_command_line_says_and_writes_it(tmp_path, capsys):
    out = tmp_path / "dup.json"
    args = ["evaluate", "rat_a_tat_cat:heuristic", "--games", "8", "--duplicate"]
    assert main([*args, "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "4 duplicate deals, each played from every seat" in text
    result = json.loads(out.read_text())
    assert result["duplicate"] is True and result["deals"] == 4
    assert main(["evaluate", "rat_a_tat_cat:heuristic", "--games", "7", "--duplicate"]) == 2
    assert "multiple of 2" in capsys.readouterr().err
