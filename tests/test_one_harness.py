"""Same seed + same bots = the same game everywhere: the callers of the one harness
(records, the evaluator, the win-chance tables) play exactly ``play_game``'s game."""

from __future__ import annotations

from math import factorial

import pytest

from ratenvs.common.play import play_game
from ratenvs.common.record import record_bot_game, replay
from ratenvs.games import GAMES
from training import evaluate
from training.games.rat_a_tat_cat_win_chance import round_points_table

CASES = [
    ("catz_ratz_batz", {"num_players": 3, "turns": 2}, "lowest"),
    ("rat_a_tat_cat", {"num_players": 3, "target_score": 25}, "heuristic"),
    ("ratto_zakko", {"num_players": 2, "level": "main", "window_ticks": 20}, "adult"),
]


@pytest.mark.parametrize(("name", "options", "bot"), CASES)
def test_records_and_the_evaluator_play_play_games_game(name, options, bot):
    spec = GAMES[name]
    env = spec.load().raw_env(**options)
    for seed in (0, 17):
        bots = [spec.bots()[bot]() for _ in range(env.num_players)]
        played = play_game(env.game, bots, seed)
        record = record_bot_game(name, [spec.bots()[bot]() for _ in bots], seed, **options)
        assert record["actions"] == played.actions
        assert replay(record).game_state() == env.game.to_json(played.state)
        fresh = [spec.bots()[bot]() for _ in bots]
        returns, winners = evaluate.play_game(spec, options, fresh, seed)
        assert returns == played.returns and winners == played.winners


def test_the_win_chance_table_holds_the_rounds_of_play_games_games():
    from ratenvs.rat_a_tat_cat.bots import HeuristicBot
    from ratenvs.rat_a_tat_cat.rules import RatATatCat

    game = RatATatCat(num_players=3, target_score=30)
    rounds: list[tuple[int, ...]] = []
    for seed in range(5, 15):
        played = play_game(game, [HeuristicBot() for _ in range(3)], seed)
        assert played.state.is_over
        rounds.append(played.state.round_index)
    table = round_points_table(3, 30, games=10, seed=5)
    # every round of these games is in the table, each in all orders of its live players
    assert sum(len(rows) // factorial(k) for k, rows in table.items()) == sum(r + 1 for r in rounds)
