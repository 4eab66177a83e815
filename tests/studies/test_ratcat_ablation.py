"""The 4-player Rat-a-Tat Cat studies: the oracle and hybrid players
(studies.ratcat_4p_ablation), the rival-hands data, the counterfactual knock labels and the
determinized-search knock."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ratenvs.rat_a_tat_cat.resample import card_at
from studies import ratcat_4p_ablation as ablation
from studies import ratcat_knock_labels as labels
from studies import ratcat_pimc_knock as pimc
from studies import ratcat_rival_hands as rival

ROOT = Path(__file__).resolve().parents[2]


def _seen(env, seat):
    """The observation and action mask of ``seat``, through the AEC ``observe``."""
    out = env.observe(env.possible_agents[seat])
    return out["observation"], out["action_mask"]


def test_the_oracle_reads_real_hands_and_knocks_only_when_ahead():
    from ratenvs.rat_a_tat_cat import rules
    from ratenvs.rat_a_tat_cat.env import raw_env

    env = raw_env(num_players=4, target_score=100)
    env.reset(seed=1)
    state = env.truth
    state.hands[0] = [0, 4, 8, 12]  # kinds 0, 1, 2, 3: 6 points
    assert ablation.true_hand(state, 0) == 6.0
    state.current, state.phase = 0, rules.PHASE_KNOCK
    obs, mask = _seen(env, 0)
    choose = ablation.oracle_knock("true", "true", margin=3.0)
    rivals = [ablation.true_hand(state, q) for q in (1, 2, 3)]
    expected = rules.ACTION_KNOCK if min(rivals) - 3.0 >= 6.0 else rules.ACTION_NO_KNOCK
    assert choose(state, 0, obs, mask, rules.ACTION_NO_KNOCK, None) == expected
    state.hands[1] = [1, 5, 9, 13]  # a rival with the same 6 points: never knock
    assert choose(state, 0, obs, mask, rules.ACTION_KNOCK, None) == rules.ACTION_NO_KNOCK


def test_the_script_runs_every_line(capsys):
    agent = ROOT / "checkpoints" / "rat_a_tat_cat" / "rat_a_tat_cat_4p.pt"
    assert ablation.main(["--games", "4", "--agent", str(agent), "--handicaps", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 + 1 + 2 + 4 + 5 + 5 + 3
    rates = [float(line[55:].split("%")[0]) for line in lines[2:]]
    assert all(0.0 <= r <= 100.0 for r in rates)
    assert np.isfinite(rates).all()


def test_the_script_plays_an_owner_ceilings_agent_on_its_observation(capsys):
    ckpts = ROOT / "checkpoints" / "rat_a_tat_cat"
    agent, other = ckpts / "rat_a_tat_cat_4p_ceilings.pt", ckpts / "rat_a_tat_cat_4p.pt"
    argv = ["--games", "2", "--agent", str(agent), "--handicaps", "--knock-biases", "-1", "1"]
    assert ablation.main([*argv, "--ensemble", str(agent)]) == 0
    lines = capsys.readouterr().out.splitlines()
    # no "ceiling bot (agent moves)": its base reads the plain observation
    assert len(lines) == 2 + 2 + 4 + 5 + 4 + 3 + 2 + 1
    assert lines[-3].startswith("agent, knock logit -1") and lines[-1].startswith("ensemble")
    with pytest.raises(ValueError, match="observation size"):  # another observation
        ablation.main([*argv[:4], "--handicaps", "--ensemble", str(other)])


def test_a_knock_bias_moves_only_the_knock_and_an_ensemble_of_one_is_the_agent():
    from ratenvs.rat_a_tat_cat import rules
    from ratenvs.rat_a_tat_cat.env import raw_env
    from training.checkpoint import load_checkpoint

    agent = load_checkpoint(
        ROOT / "checkpoints" / "rat_a_tat_cat" / "rat_a_tat_cat_4p.pt", game="rat_a_tat_cat"
    ).bot()
    rng = np.random.default_rng(0)
    env = raw_env(num_players=4, target_score=100)
    env.reset(seed=2)
    knocks = 0
    while not env.truth.is_over and knocks < 30:
        p, state = env.truth.current, env.truth
        obs, mask = _seen(env, p)
        own = agent.act(obs, mask, rng)
        assert ablation.ensemble([agent])(state, p, obs, mask, -1, rng) == own
        assert ablation.knock_bias(agent, 0.0)(state, p, obs, mask, -1, rng) == own
        if state.phase == rules.PHASE_KNOCK:
            knocks += 1
            for bias, expected in ((50.0, rules.ACTION_KNOCK), (-50.0, rules.ACTION_NO_KNOCK)):
                assert ablation.knock_bias(agent, bias)(state, p, obs, mask, -1, rng) == expected
        else:  # not a knock decision: the bias changes nothing
            assert ablation.knock_bias(agent, 50.0)(state, p, obs, mask, -1, rng) == own
        env.step(own)
    assert knocks > 5


def _swap_decision(seed=1):
    """A 4-player table where seat 0 holds a drawn Swap, and its observation."""
    from ratenvs.rat_a_tat_cat import rules
    from ratenvs.rat_a_tat_cat.env import raw_env

    env = raw_env(num_players=4, target_score=100)
    env.reset(seed=seed)
    state = env.truth
    state.current, state.phase = 0, rules.PHASE_SWAP
    state.held = next(c for c in state.draw_pile if rules.KIND[c] == rules.SWAP)
    state.draw_pile.remove(state.held)
    return env, state


def test_the_oracle_swap_takes_the_lowest_real_card_for_the_highest_own():
    from ratenvs.rat_a_tat_cat import rules

    env, state = _swap_decision()
    nines = [c for c in range(rules.DECK_SIZE) if rules.KIND[c] == 9]
    zero = next(c for c in range(rules.DECK_SIZE) if rules.KIND[c] == 0)
    others = [c for c in range(rules.DECK_SIZE) if rules.KIND[c] == 5]
    state.hands[0] = [nines[0], others[0], others[1], others[2]]
    state.know[0, 0] = [9, 5, 5, 5]
    state.hands[2] = [nines[1], nines[2], zero, nines[3]]  # the 0 in slot 2, unseen by seat 0
    state.hands[1] = [nines[4], nines[5], nines[6], nines[7]]
    state.hands[3] = [nines[8], others[3], 1, 2]
    obs, mask = _seen(env, 0)
    oracle = ablation.belief_swap("oracle")
    assert oracle(state, 0, obs, mask, rules.ACTION_DECLINE, None) == rules.swap_action(0, 2, 2)
    # a fair guess cannot find the 0: every hidden card is worth the same to it
    kept = ablation.belief_swap("kept-card")
    state.know[:, 1:] = rules.CODE_UNKNOWN
    state.know[3, 3, 1] = 5  # its owner saw this card and kept it: counts KEPT_VALUE
    choice = kept(state, 0, obs, mask, rules.ACTION_DECLINE, None)
    assert choice == rules.swap_action(0, 3, 1)
    # not worth a point: decline
    state.know[0, 0] = [3, 2, 2, 2]
    obs = _seen(env, 0)[0]
    assert kept(state, 0, obs, mask, rules.swap_action(0, 1, 0), None) == rules.ACTION_DECLINE


def test_the_owner_known_oracle_sees_only_the_cards_their_owners_have_seen():
    from ratenvs.rat_a_tat_cat import rules

    env, state = _swap_decision()
    nines = [c for c in range(rules.DECK_SIZE) if rules.KIND[c] == 9]
    zero = next(c for c in range(rules.DECK_SIZE) if rules.KIND[c] == 0)
    fives = [c for c in range(rules.DECK_SIZE) if rules.KIND[c] == 5]
    state.hands[0] = [nines[0], fives[0], fives[1], fives[2]]
    state.know[0, 0] = [9, 5, 5, 5]
    state.hands[1] = [nines[1], nines[2], nines[3], nines[4]]
    state.hands[2] = [nines[5], nines[6], zero, nines[7]]  # the 0 in slot 2
    state.hands[3] = [nines[8], fives[3], 1, 2]
    state.know[:, 1:] = rules.CODE_UNKNOWN  # seat 0 knows nothing of the other hands
    obs, mask = _seen(env, 0)
    blind = ablation.estimated_hand(obs, 2)
    assert ablation.owner_known_hand(state, obs, 0, 2) == blind  # its owner knows nothing
    state.know[2, 2] = [9, 9, 0, 9]  # its owner has seen all four: the real hand
    assert ablation.owner_known_hand(state, obs, 0, 2) == ablation.true_hand(state, 2) == 27.0
    state.know[2, 2] = [rules.CODE_UNKNOWN, rules.CODE_UNKNOWN, 0, rules.CODE_UNKNOWN]
    assert ablation.owner_known_hand(state, obs, 0, 2) == pytest.approx(blind - blind / 4)
    # the Swap finds the 0 its owner has seen, and not one its owner has not
    known = ablation.belief_swap("owner-known")
    assert known(state, 0, obs, mask, rules.ACTION_DECLINE, None) == rules.swap_action(0, 2, 2)
    state.know[2, 2] = rules.CODE_UNKNOWN
    assert known(state, 0, obs, mask, rules.ACTION_DECLINE, None) != rules.swap_action(0, 2, 2)
    # the knock: on the rivals' hands as their owners know them, not the real ones
    zeros = [c for c in range(rules.DECK_SIZE) if rules.KIND[c] == 0]
    twos = [c for c in range(rules.DECK_SIZE) if rules.KIND[c] == 2]
    state.phase = rules.PHASE_KNOCK
    state.hands[0], state.know[0, 0] = twos, [2, 2, 2, 2]  # 8 points, all seen
    state.hands[3] = zeros  # a rival with no points, none of them seen by seat 0
    obs, mask = _seen(env, 0)
    knock = ablation.oracle_knock("true", "owner-known", 3.0)
    assert knock(state, 0, obs, mask, -1, None) == rules.ACTION_KNOCK  # 3 knows nothing
    state.know[3, 3] = [0, 0, 0, 0]  # now its owner has seen its hand: no knock
    assert knock(state, 0, obs, mask, -1, None) == rules.ACTION_NO_KNOCK
    estimate = ablation.oracle_knock("true", "estimate", 3.0)  # the seat's guess: knock
    assert estimate(state, 0, obs, mask, -1, None) == rules.ACTION_KNOCK


def test_chain_hands_each_chooser_the_previous_choice():
    seen = []
    first = lambda state, seat, obs, mask, a, rng: a + 1  # noqa: E731
    second = lambda state, seat, obs, mask, a, rng: seen.append((a, rng)) or a * 10  # noqa: E731
    assert ablation.chain(first, second)(None, 0, None, None, 4, "rng") == 50
    assert seen == [(5, "rng")]


def test_a_handicap_comes_off_every_round_and_shows_in_the_win_rate():
    heuristic = lambda state, seat, obs, mask, a, rng: a  # noqa: E731
    even = ablation.play(heuristic, games=8, seed=3)
    ahead = ablation.play(heuristic, games=8, seed=3, handicap=5.0)
    assert even.rounds >= 3 and abs(even.points - 11.5) < 6.0
    # the same deals and play until the first elimination; then the seat lasts longer
    assert ahead.win_rate > even.win_rate
    assert ahead.rounds >= even.rounds
    # the edge is the round's zero-sum difference of real points: near zero for a bot
    # against its own kind, and the handicap is not in it
    assert abs(even.edge) < 3.0 and abs(ahead.edge) < 3.0


def test_the_rival_hands_study_records_true_hands_and_public_history():
    obs, with_ceilings, hist, guess, y = rival.collect(games=2, seed=5)
    n = len(y)
    assert n > 20
    assert obs.shape == (n, 64 * 4 + 67)
    assert with_ceilings.shape == (n, 64 * 4 + 67 + 8 * 4)
    assert (with_ceilings[:, : obs.shape[1]] == obs).all()  # the same observation, extended
    assert hist.shape == (n, 4 * (2 * 4 + 3))
    assert ((y >= 0) & (y <= 36)).all()
    assert (hist >= 0).all() and (hist <= 1).all()
    assert hist.any()  # some card was taken out of a slot or dropped in two games
    # the ceiling bot's guess: a hand of four cards of 0-9 points, closer than a blind one
    assert guess.shape == y.shape and ((guess >= 0) & (guess <= 36)).all()
    assert ((guess - y) ** 2).mean() < ((y.mean() - y) ** 2).mean()


def test_knock_labels_are_common_random_number_differences():
    import torch

    from ratenvs.rat_a_tat_cat import rules

    obs, gains = labels.collect(games=1, seed=7)
    assert obs.shape == (len(gains), 64 * 4 + 67) and len(gains) > 20
    assert np.isfinite(gains).all() and (np.abs(gains) <= 3.6).all()  # |points| <= 36
    # the same table and seed play out the same way
    from ratenvs.rat_a_tat_cat.env import raw_env

    env = raw_env(num_players=4, target_score=100)
    env.reset(seed=3)
    env.truth.phase = rules.PHASE_KNOCK
    p = env.truth.current
    once = labels.play_out(env.truth, rules.ACTION_KNOCK, env.observer, p, 11)
    assert once == labels.play_out(env.truth, rules.ACTION_KNOCK, env.observer, p, 11)
    mask = _seen(env, p)[1]
    for bias, expected in ((1.0, rules.ACTION_KNOCK), (-1.0, rules.ACTION_NO_KNOCK)):
        model = torch.nn.Linear(obs.shape[1], 1)
        torch.nn.init.zeros_(model.weight)
        torch.nn.init.constant_(model.bias, bias)
        choose = labels.learned_knock(model, None)
        assert choose(env.truth, p, _seen(env, p)[0], mask, -1, None) == expected


def test_the_kept_card_belief_deals_lower_cards_where_their_owner_knows_them():
    from ratenvs.rat_a_tat_cat import rules
    from ratenvs.rat_a_tat_cat.env import raw_env

    ratio = np.ones(rules.NUM_KINDS)
    ratio[:3] = 50.0  # owner-known hidden cards are very likely 0, 1 or 2
    sample = pimc.kept_card_sampler(ratio, sweeps=8)
    env = raw_env(num_players=4, target_score=100)
    env.reset(seed=2)
    state = env.truth
    rng = np.random.default_rng(0)
    places = [pos for pos in pimc.hidden_positions(state, 0) if pimc.owner_knows(state, pos)]
    assert places  # every rival knows its outer cards at the deal
    deals = [sample(state, 0, rng) for _ in range(20)]
    kinds = [rules.KIND[card_at(deal, pos)] for deal in deals for pos in places]
    numbers = [k for k in kinds if k < rules.NUM_NUMBER_KINDS]
    assert np.mean([k <= 2 for k in numbers]) > 0.6  # a uniform deal gives 12 / 45
    deal = sample(state, 0, rng)
    # what seat 0 knows is untouched, and the deal is a permutation of the same cards
    assert (deal.know[0] == state.know[0]).all()
    every = sorted([c for h in deal.hands for c in h] + deal.draw_pile + deal.discard_pile)
    assert every == sorted(
        [c for h in state.hands for c in h] + state.draw_pile + state.discard_pile
    )


def test_the_search_knock_runs_and_never_knocks_above_its_gate():
    from ratenvs.rat_a_tat_cat import rules
    from ratenvs.rat_a_tat_cat.env import raw_env

    env = raw_env(num_players=4, target_score=100)
    env.reset(seed=4)
    state = env.truth
    state.phase = rules.PHASE_KNOCK
    p = state.current
    obs, mask = _seen(env, p)
    never = pimc.pimc_knock(pimc.resample_state, samples=2, gate=-1.0, card_play=None)
    rng = np.random.default_rng(0)
    assert never(state, p, obs, mask, rules.ACTION_KNOCK, rng) == rules.ACTION_NO_KNOCK
    search = pimc.pimc_knock(pimc.resample_state, samples=2, gate=99.0, card_play=None)
    assert search(state, p, obs, mask, -1, rng) in (rules.ACTION_KNOCK, rules.ACTION_NO_KNOCK)
    line = ablation.play(search, games=1, seed=70000)
    assert 0.0 <= line.win_rate <= 1.0


def test_the_oracle_belief_keeps_the_other_hands_and_deals_the_rest():
    from ratenvs.rat_a_tat_cat.bots import HeuristicBot
    from ratenvs.rat_a_tat_cat.env import raw_env

    env = raw_env(num_players=4, target_score=100)
    env.reset(seed=6)
    rng = np.random.default_rng(1)
    bot = HeuristicBot()
    bot.bind(env.observer)
    changed = 0
    for _ in range(40):
        state = env.truth
        p = state.current
        deal = pimc.oracle_others(state, p, rng)
        assert all(deal.hands[q] == state.hands[q] for q in range(4) if q != p)
        cards = [c for h in deal.hands for c in h] + deal.draw_pile + deal.discard_pile
        truth = [c for h in state.hands for c in h] + state.draw_pile + state.discard_pile
        assert sorted(cards) == sorted(truth)
        changed += deal.draw_pile != state.draw_pile
        env.step(int(bot.act(*_seen(env, p), rng)))
    assert changed > 30  # the draw pile is dealt again


def test_a_driven_game_is_play_game_and_the_chooser_gets_the_seats_stream(monkeypatch):
    from ratenvs.common.play import play_game, seed_streams
    from ratenvs.rat_a_tat_cat.bots import HeuristicBot
    from ratenvs.rat_a_tat_cat.rules import RatATatCat

    finals, draws = [], []

    def watch(game, seed, choose, **kw):
        finals.append((seed, drive(game, seed, choose, **kw)))
        return finals[-1][1]

    def keep(state, seat, obs, mask, a, rng):  # the heuristic's own play, noting the stream
        draws.append((seat, rng.random()))
        return a

    drive = ablation.drive
    monkeypatch.setattr(ablation, "drive", watch)
    line = ablation.play(keep, games=3, seed=40)
    game = RatATatCat(num_players=4, target_score=100)
    wins = 0.0
    for g, (seed, final) in enumerate(finals):
        again = play_game(game, [HeuristicBot() for _ in range(4)], 40 + g)
        assert seed == 40 + g and game.to_json(final) == game.to_json(again.state)
        wins += again.winners[g % 4] / sum(again.winners)
    assert line.win_rate == wins / 3
    # the chooser draws from its seat's stream of the game's seed (the heuristic draws none)
    seat, first = draws[0]
    assert seat == 0 and first == seed_streams(40, 4)[1][0].random()


def test_the_script_plays_heads_up_with_a_two_player_agent(capsys):
    ckpts = ROOT / "checkpoints" / "rat_a_tat_cat"
    agent = ckpts / "rat_a_tat_cat_2p.json"
    argv = ["--games", "2", "--players", "2", "--handicaps"]
    assert ablation.main([*argv, "--agent", str(agent), "--only", "oracle swap"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("  ")[0] for line in lines[2:]] == [
        "agent, oracle swap (others seen)",
        "agent, oracle knock, oracle swap",
    ]
    with pytest.raises(SystemExit):  # a 4-player agent at a 2-player table
        ablation.main([*argv, "--agent", str(ckpts / "rat_a_tat_cat_4p.pt")])
    assert "plays 4 players, not --players 2" in capsys.readouterr().err


def test_a_heads_up_line_is_the_heuristic_game_when_the_chooser_keeps_its_action():
    from ratenvs.common.play import play_game
    from ratenvs.rat_a_tat_cat.bots import HeuristicBot
    from ratenvs.rat_a_tat_cat.rules import RatATatCat

    keep = lambda s, seat, o, m, a, rng: a  # noqa: E731
    line = ablation.play(keep, 6, 500, players=2)
    game = RatATatCat(num_players=2, target_score=100)
    wins = 0.0
    for g in range(6):
        final = play_game(game, [HeuristicBot(), HeuristicBot()], 500 + g)
        wins += ablation.win_share(final.winners, g % 2)
    assert line.win_rate == pytest.approx(wins / 6)
