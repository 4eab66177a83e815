"""The ismcts twin study (studies.ratcat_ismcts_twin): the decisions it records are the
search bot's in the games ``play_game`` plays, and the twin it fits imitates them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ratenvs.agents import load_agent_checkpoint
from ratenvs.common.play import play_game
from ratenvs.rat_a_tat_cat.bots import RatCatISMCTS
from ratenvs.rat_a_tat_cat.rules import RatATatCat
from studies import ratcat_ismcts_twin as twin

AGENT = "agent:rat_a_tat_cat_2p_vs_heuristic"


def test_the_record_is_the_search_bots_play_in_the_seeded_games(tmp_path):
    out = tmp_path / "rec.npz"
    result = twin.collect(AGENT, games=2, seed=5, out=str(out), every=1, iterations=3)
    data = np.load(out)
    assert result["decisions"] == len(data["actions"]) > 0
    assert set(data["games"].tolist()) <= {5, 6}
    masks, actions = data["masks"], data["actions"]
    assert masks.sum(axis=1).min() > 1  # only real choices are recorded
    assert masks[np.arange(len(actions)), actions].all()  # every recorded action legal
    game = RatATatCat(num_players=2, target_score=100)
    agent = load_agent_checkpoint(AGENT).bot()
    for g, share in enumerate(data["shares"]):
        seat = g % 2
        search = _Watched(iterations=3)
        bots = [agent, search] if seat == 0 else [search, agent]
        played = play_game(game, bots, 5 + g)
        assert share == (1.0 if played.winners[seat] else 0.0)
        kept = data["actions"][data["games"] == 5 + g]
        assert kept.tolist() == search.chosen  # the search bot's real choices, in order


class _Watched(RatCatISMCTS):
    """The search bot, noting the choices it makes with more than one legal action."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.chosen: list[int] = []

    def act_in_state(self, state, seat, action_mask, rng):
        action = super().act_in_state(state, seat, action_mask, rng)
        if np.count_nonzero(action_mask) > 1:
            self.chosen.append(int(action))
        return action


def test_the_twin_learns_the_recorded_choices(tmp_path):
    rng = np.random.default_rng(0)
    size = load_agent_checkpoint(AGENT).spec.observation_size
    n = 300
    obs = np.zeros((n, size), dtype=np.float32)
    obs[:, 0] = rng.integers(0, 2, n)
    masks = np.zeros((n, 31), dtype=bool)
    masks[:, :4] = True
    actions = np.where(obs[:, 0] > 0, 1, 2)  # a choice the observation decides
    rec = tmp_path / "rec.npz"
    np.savez(
        rec,
        observations=obs,
        masks=masks,
        actions=actions,
        games=np.arange(n) // 6,
        shares=np.zeros(n // 6),
    )
    figures = twin.fit(
        [str(rec)], AGENT, str(tmp_path / "twin"), epochs=8, batch_size=32, learning_rate=1e-3
    )
    assert figures["twin_agreement"] > 0.9 > figures["agent_agreement"]
    card = json.loads((tmp_path / "twin.json").read_text())
    assert card["twin_of"]["bot"] == "ismcts" and card["play"] == "sample"
    assert "reward" not in card["env_options"]
    twin_bot = load_agent_checkpoint(tmp_path / "twin.json").bot()
    assert twin_bot.sample and twin_bot.act(obs[0], masks[0], rng) in range(4)


@pytest.mark.parametrize("bad", ["agent:rat_a_tat_cat_4p"])
def test_a_table_of_four_is_refused(tmp_path, bad):
    with pytest.raises(SystemExit, match="heads-up"):
        twin.collect(bad, games=1, seed=0, out=str(tmp_path / "r.npz"))


def test_a_sharpened_twin_plays_the_softmax_at_its_temperature(tmp_path):
    """``sharpen`` divides the twin's logits by the temperature (twice: the temperatures
    multiply), plays ``"sample"``, and refuses a checkpoint that is not a twin."""
    base = load_agent_checkpoint(AGENT)
    card = {k: base.card[k] for k in ("game", "gymnasium_id", "env_options", "policy")}
    card["twin_of"] = {"bot": "ismcts"}
    card["play"] = "greedy"
    from ratenvs.agents.checkpoint import save_checkpoint

    save_checkpoint(tmp_path / "twin", base.policy_state, card)
    twin.sharpen(str(tmp_path / "twin.json"), 0.5, str(tmp_path / "sharp"))
    block = twin.sharpen(str(tmp_path / "sharp.json"), 0.8, str(tmp_path / "sharper"))
    assert block["temperature"] == pytest.approx(0.4)
    sharper = load_agent_checkpoint(tmp_path / "sharper.json")
    assert sharper.play == "sample" and sharper.card["twin_of"]["bot"] == "ismcts"
    obs = np.random.default_rng(1).random((5, base.spec.observation_size), dtype=np.float32)
    np.testing.assert_allclose(
        sharper.bot().logits(obs), base.bot().logits(obs) / 0.4, rtol=1e-4, atol=1e-4
    )
    with pytest.raises(ValueError, match="not a twin"):
        twin.sharpen(AGENT.replace("agent:", "checkpoints/rat_a_tat_cat/") + ".json", 0.5, "x")
    with pytest.raises(ValueError, match="> 0"):
        twin.sharpen(str(tmp_path / "twin.json"), 0.0, str(tmp_path / "zero"))
