"""studies.ratcat_bot_tuning: the measurements behind the Rat-a-Tat Cat bots' constants."""

from __future__ import annotations

from ratenvs.common.bots import RandomBot
from ratenvs.common.play import play_game
from ratenvs.rat_a_tat_cat import rules
from ratenvs.rat_a_tat_cat.bots import KEPT_VALUES, HeuristicBot
from studies import ratcat_bot_tuning as tuning


def test_kept_card_values_are_what_the_ceiling_bot_uses():
    # the constants came from 1,000 games; a few games land near them
    quick = tuning.kept_card_values(games=12, seed=0)
    assert len(quick) == len(KEPT_VALUES) == rules.NO_CEILING + 1
    for c in (5, 9, rules.NO_CEILING):  # well-filled ceilings
        assert abs(quick[c] - KEPT_VALUES[c]) < 1.2
    assert list(KEPT_VALUES) == sorted(KEPT_VALUES)  # a lower ceiling, a lower card


def test_knock_decisions_are_the_heuristic_bots_knock_phases():
    seen = list(tuning.knock_decisions(games=1, seed=4))
    assert len(seen) > 10
    seats = {p for _, p in seen}
    assert seats <= set(range(4)) and len(seats) > 1


def test_heuristic_beats_random_with_alternating_seats():
    # the full measurement (>= 1000 games) is in studies/README.md; a quick check here
    assert tuning.win_rate(HeuristicBot(), RandomBot(), 160, seed=0) > 0.7


def test_game_g_of_a_win_rate_is_play_game_with_seed_plus_g(monkeypatch):
    played = []

    def watch(game, bots, seed, **kw):
        played.append(tuning_play_game(game, bots, seed, **kw))
        return played[-1]

    tuning_play_game = tuning.play_game
    monkeypatch.setattr(tuning, "play_game", watch)
    bot, rival = HeuristicBot(), RandomBot()
    rate = tuning.win_rate(bot, rival, 4, seed=10, rounds=2)
    game = rules.RatATatCat(num_players=2, rounds=2)
    for g, got in enumerate(played):
        again = play_game(game, [bot, rival] if g % 2 == 0 else [rival, bot], 10 + g)
        assert got.seed == 10 + g and got.actions == again.actions
        assert game.to_json(got.state) == game.to_json(again.state)
    shares = [w[g % 2] / sum(w) for g, w in enumerate(p.winners for p in played)]
    assert len(played) == 4 and rate == sum(shares) / 4


def test_knock_decisions_are_the_knock_tables_of_play_game():
    game = rules.RatATatCat(num_players=4, target_score=100)
    seen: list[tuple[str, int]] = []

    def on_step(game, state, actions, rewards):
        if state.phase == rules.PHASE_KNOCK:
            seen.append((str(game.to_json(state)), state.current))

    for g in range(2):
        play_game(game, [HeuristicBot() for _ in range(4)], 3 + g, on_step=on_step)
    found = [(str(game.to_json(s)), p) for s, p in tuning.knock_decisions(games=2, seed=3)]
    assert found == seen and len(found) > 20


def test_the_sweep_has_every_threshold():
    rates = tuning.tune_knock_threshold([4.0, 8.0], games=4, seed=1)
    assert set(rates) == {4.0, 8.0} and all(0.0 <= r <= 1.0 for r in rates.values())
    same = tuning.tune_knock_threshold([8.0], games=4, seed=1, opponent=HeuristicBot(8.0))
    assert 0.0 <= same[8.0] <= 1.0


def test_the_script_prints_every_part(capsys):
    argv = ["--games", "2", "--thresholds", "6", "8", "--strength-games", "2", "--kept-games", "2"]
    assert tuning.main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("knock threshold sweep") and len(out) == 2 + 2 + 1 + 1 + 3 + 1 + 4
    assert out[-3].startswith("  measured:") and len(out[-3].split()) == 1 + rules.NO_CEILING + 1
