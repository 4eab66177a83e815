"""``training.ship``: a Ratto Zakko card carries the answers by correct response of every
evaluation (as the library's evaluator gives them), written atomically, and the results
table and the printed summary show the lowest answer rate."""

from __future__ import annotations

import json

import torch

from ratenvs.games import GAMES
from ratenvs.ratto_zakko.rules import RESPONSES_AT_LEVEL
from training import ship
from training.checkpoint import PolicySpec, build_policy, save_checkpoint
from training.results import results_table

OPTIONS = {"num_players": 2, "level": "main", "perception": "clear"}


def make_ratto_zakko_checkpoint(path):
    env = GAMES["ratto_zakko"].load().raw_env(**OPTIONS)
    agent = env.possible_agents[0]
    size = env.observation_space(agent)["observation"].shape[0]
    spec = PolicySpec(size, int(env.action_space(agent).n), (8,), "tanh")
    torch.manual_seed(0)
    card = {"game": "ratto_zakko", "env_options": OPTIONS, "policy": spec.to_dict()}
    return save_checkpoint(path, build_policy(spec).state_dict(), card)


def test_a_ratto_zakko_card_carries_the_answers_by_correct_response(tmp_path, capsys):
    src = make_ratto_zakko_checkpoint(tmp_path / "run" / "final")
    dest = tmp_path / "ship" / "ratto_zakko" / "rz"
    argv = [str(src), str(dest), "--vs", "child", "--vs", "random", "--games", "1", "--seed", "3"]
    assert ship.main(argv) == 0
    printed = capsys.readouterr().out
    card = json.loads((dest.parent / "rz.json").read_text())
    weights = card["weights_file"]
    assert sorted(p.name for p in dest.parent.iterdir()) == sorted(["rz.json", weights])  # no temp
    assert len(card["evaluations"]) == 2
    for ev in card["evaluations"].values():
        table = ev["by_correct_response"]
        assert list(table) == list(RESPONSES_AT_LEVEL["main"])
        for key in ("cards", "answers", "correct_answers"):
            assert sum(t[key] for t in table.values()) == ev[key]
        rates = [t["answer_rate"] for t in table.values() if t["cards"]]
        assert ev["min_answer_rate"] == min(rates)
        assert table[ev["min_answer_rate_response"]]["answer_rate"] == min(rates)
        assert f"lowest answer rate {ev['min_answer_rate']:.3f}" in printed
    assert card["evaluation"] == next(iter(card["evaluations"].values()))
    rows = [r for r in results_table(tmp_path / "ship").splitlines() if "lowest answer" in r]
    assert len(rows) == 2 and card["evaluation"]["min_answer_rate_response"] in rows[0]


def test_cards_without_the_figures_still_make_the_results_table(tmp_path):
    src = make_ratto_zakko_checkpoint(tmp_path / "rz" / "old")  # a card with no evaluation
    card_file = src.with_suffix(".json")
    card = json.loads(card_file.read_text())
    old = {"games": 1, "win_rate": 0.0, "win_rate_ci": [0.0, 0.8], "mean_reward": 0.0}
    card["evaluation"] = {**old, "mean_reward_ci": [0.0, 0.0], "opponents": ["x"]}
    card["evaluation"].update(answers=3, answer_accuracy=1.0, answer_accuracy_ci=[0.4, 1.0])
    card_file.write_text(json.dumps(card))
    table = results_table(tmp_path)
    assert "correct answers (3)" in table and "lowest answer rate" not in table


def test_the_results_table_shows_an_exact_grade_once_and_the_best_response(tmp_path):
    src = make_ratto_zakko_checkpoint(tmp_path / "rz" / "agent")
    card_file = src.with_suffix(".json")
    card = json.loads(card_file.read_text())
    ev = {"games": 10, "win_rate": 0.5, "win_rate_ci": [0.2, 0.8], "mean_reward": 0.0,
          "mean_reward_ci": [-0.1, 0.1], "exact_exploitability": 0.0123}  # fmt: skip
    card["evaluations"] = {
        "a": {**ev, "opponents": ["a", "a", "a"]},
        "b": {**ev, "opponents": ["b", "b", "b"]},
    }
    card["exploitability"] = {
        "frames": 2_000_000, "games": 400, "fair_share": 0.25, "responder_win_rate": 0.3125,
        "win_rate_ci": [0.27, 0.36], "responder": {"reward": "cards", "init": "agent:x"},
    }  # fmt: skip
    card_file.write_text(json.dumps(card))
    rows = results_table(tmp_path).splitlines()
    assert sum("exact exploitability | 0.0123" in r for r in rows) == 1
    assert sum("win rate (10 games)" in r for r in rows) == 2
    last = rows[-1]
    assert "a best response (2,000,000 frames, trained on cards, started from agent:x)" in last
    assert "its win rate (400 games; fair 0.25) | 0.312 | [0.270, 0.360]" in last


def test_training_evaluate_prints_the_answers_by_correct_response(tmp_path, capsys):
    from training import evaluate

    src = make_ratto_zakko_checkpoint(tmp_path / "run" / "final")
    out = tmp_path / "eval.json"
    argv = ["--checkpoint", str(src), "--opponents", "child", "--games", "1", "--json", str(out)]
    assert evaluate.main(argv) == 0
    printed = capsys.readouterr().out
    result = json.loads(out.read_text())
    assert "answers by the card's correct response" in printed
    for name, t in result["by_correct_response"].items():
        row = next(line for line in printed.splitlines() if f" {name} " in line)
        assert row.split("│")[2].strip() == str(t["cards"])  # not cut to fit 80 columns


def test_an_evaluation_with_env_overrides(tmp_path, capsys):
    """``--vs BOT@KEY=VALUE``: that evaluation plays the overridden options (the latency
    floor: no answer of the agent before tick 3), its label and result say so; an override
    that changes the observation size is refused before anything is written."""
    src = make_ratto_zakko_checkpoint(tmp_path / "run" / "final")
    dest = tmp_path / "ship" / "ratto_zakko" / "rz"
    argv = [str(src), str(dest), "--vs", "child", "--vs", "child@min_reaction_ticks=3"]
    assert ship.main([*argv, "--games", "2", "--seed", "3"]) == 0
    card = json.loads((dest.parent / "rz.json").read_text())
    plain, floored = card["evaluations"].values()
    assert list(card["evaluations"])[1].endswith(" with min_reaction_ticks=3")
    assert floored["env_overrides"] == {"min_reaction_ticks": 3}
    assert floored["env_options"] == {**OPTIONS, "min_reaction_ticks": 3}
    assert "env_overrides" not in plain and card["evaluation"] == plain
    assert plain != floored
    bad = tmp_path / "ship2" / "ratto_zakko" / "rz"
    argv = [str(src), str(bad), "--vs", "child@num_players=3", "--games", "1"]
    assert ship.main(argv) == 2
    assert "num_players" in capsys.readouterr().err and not bad.parent.exists()
    argv = [str(src), str(bad), "--vs", "child@min_reaction_ticks=x", "--games", "1"]
    assert ship.main(argv) == 2 and not bad.parent.exists()
