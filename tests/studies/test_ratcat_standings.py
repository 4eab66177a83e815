"""studies.ratcat_standings: a 4-player table in heads-up seen as a 2-player game, and
the knock valued in chances to win."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from ratenvs.rat_a_tat_cat import rules
from ratenvs.rat_a_tat_cat.bots import HeuristicBot
from ratenvs.rat_a_tat_cat.env import raw_env
from studies import ratcat_standings as standings
from training.checkpoint import load_checkpoint
from training.games.rat_a_tat_cat_win_chance import WinChance, round_points_table

ROOT = Path(__file__).resolve().parents[2]
CKPTS = ROOT / "checkpoints" / "rat_a_tat_cat"


def _seen(env, seat):
    """The observation and action mask of ``seat``, through the AEC ``observe``."""
    out = env.observe(env.possible_agents[seat])
    return out["observation"], out["action_mask"]


def _two_player_view(state: rules.State, a: int, b: int) -> rules.State:
    """The same table as a 2-player game of seats ``a`` (now 0) and ``b`` (now 1)."""
    pick = [a, b]
    where = {a: 0, b: 1}
    return dataclasses.replace(
        state.copy(),
        hands=[state.hands[p][:] for p in pick],
        totals=[state.totals[p] for p in pick],
        active=[state.active[p] for p in pick],
        current=where[state.current],
        starter=where.get(state.starter, 0),
        knocked_by=None if state.knocked_by is None else where[state.knocked_by],
        know=state.know[np.ix_(pick, pick)].copy(),
        recent=state.recent[np.ix_(pick, pick)].copy(),
    )


def _heads_up_positions(ceilings: bool):
    """(env, seat, rival seat) at every decision of a 4-player game once two are left."""
    bot = HeuristicBot()
    for seed in range(40):
        env = raw_env(num_players=4, target_score=100, owner_ceilings=ceilings)
        bot.bind(env.observer)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        found = False
        while not env.truth.is_over:
            state = env.truth
            live = [q for q in range(4) if state.active[q]]
            if len(live) == 2:
                found = True
                a = state.current
                yield env, a, live[1] if live[0] == a else live[0]
            p = state.current
            env.step(int(bot.act(*_seen(env, p), rng)))
        if found:
            return
    raise AssertionError("no heads-up in 40 games")


@pytest.mark.parametrize("ceilings", [False, True])
def test_a_heads_up_table_is_seen_as_the_two_player_game(ceilings):
    two = rules.RatATatCat(num_players=2, target_score=100).observer("knowledge")
    checked = knocked = 0
    for env, a, b in _heads_up_positions(ceilings):
        state = env.truth
        small = _two_player_view(state, a, b)
        got = standings.heads_up_observation(_seen(env, a)[0], (b - a) % 4, ceilings)
        np.testing.assert_array_equal(got, two.observe(small, 0))
        checked += 1
        knocked += state.knocked_by is not None
    assert checked > 20 and knocked > 0


def test_the_two_player_agent_moves_in_heads_up_are_legal_and_reach_the_rival():
    agent = load_checkpoint(CKPTS / "rat_a_tat_cat_2p.pt", game="rat_a_tat_cat").bot()
    swaps = 0
    for env, a, b in _heads_up_positions(False):
        obs, mask = _seen(env, a)
        action = standings.heads_up_action(agent, obs, mask, (b - a) % 4, False)
        assert mask[action]
        if action >= rules.ACTION_SWAP:
            swaps += 1
            assert rules.decode_swap(action)[1] == (b - a) % 4
    # a Swap decision made on purpose: every legal swap reaches the one rival left
    env, a, b = next(_heads_up_positions(False))
    env.truth.phase = rules.PHASE_SWAP
    mask = _seen(env, a)[1]
    assert mask[rules.ACTION_SWAP :].sum() == rules.SLOTS * rules.SLOTS


def test_knock_gains_are_chances_and_the_script_runs(capsys):
    agent = load_checkpoint(CKPTS / "rat_a_tat_cat_4p_ceilings.pt", game="rat_a_tat_cat").bot()
    chances = WinChance(round_points_table(4, 100, games=10, seed=1), 100, playouts=200)
    logits, gains = standings.knock_gains(agent, games=1, seed=3, chances=chances)
    assert len(logits) == len(gains) > 5
    assert np.isfinite(logits).all() and (np.abs(gains) <= 1.0).all()
    # the same table and seed play out the same way
    env = raw_env(num_players=4, target_score=100, owner_ceilings=True)
    env.reset(seed=3)
    env.truth.phase = rules.PHASE_KNOCK
    p = env.truth.current
    ends = [
        standings.play_round(env.truth, rules.ACTION_KNOCK, env.observer, 9, agent, p)[0]
        for _ in range(2)
    ]
    assert ends[0].totals == ends[1].totals and ends[0].round_index == 1
    argv = ["--agent", str(CKPTS / "rat_a_tat_cat_4p.pt"), "--games", "0"]
    two = str(CKPTS / "rat_a_tat_cat_2p.pt")
    assert standings.main([*argv, "--heads-up", two, "--heads-up-games", "4"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and out[1].startswith("2-player agent heads-up")
