"""Every mistake on a command line ends in one ``error: ...`` line on stderr and exit status
2, found before any long work starts, never a traceback (``ratenvs`` and
``python -m training.train / evaluate / ship / results / vecbench``, and
``benchmarks/bench_envs.py``).

Each row of :data:`CASES` is a mistake and the message it must end in. Rows marked
``FIXED`` ended, before this file, in a traceback, another exit status, a multi-line
message, a message that did not name the argument, a silent or wrong result, or only after
the long work or with files written (the comment says which); rows marked ``GUARD`` pin a
check made earlier (its message now in the same one-line ``error:`` form). Every case must
leave the folder its outputs would go to empty. The mains run in-process (their exit status
returned or raised as SystemExit); a few real processes prove that no traceback reaches a
user.
"""

# ruff: noqa: E501 - the table of cases reads best one case a line

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import TINY_CATZ

ROOT = Path(__file__).resolve().parents[2]

MAINS = {
    "ratenvs": "ratenvs.cli",
    "train": "training.train",
    "evaluate": "training.evaluate",
    "ship": "training.ship",
    "results": "training.results",
    "pool": "training.pool",
    "vecbench": "training.vecbench",
    "export_sb3": "training.export_sb3",
    "bench_envs": "benchmarks.bench_envs",
}

TINY = TINY_CATZ  # a one-turn Catz run of 64 steps

FIXED, GUARD = "fixed", "guard"

# (kind, cli, arguments split at spaces, message regex); {name}: a path of the `files` fixture
# fmt: off
CASES = [
    # ------------------------------------------------------------------ ratenvs
    (FIXED, "ratenvs", "", r"the following arguments are required: command \(see ratenvs --help\)"),  # usage block: 3 lines
    (FIXED, "ratenvs", "bench --seconds 0", r"argument --seconds: must be a number above 0 up to 3,600, got '0'"),  # SystemExit(text): status 1
    (FIXED, "ratenvs", "bench --seconds nan", r"--seconds: must be a number above 0 up to 3,600, got 'nan'"),  # status 1
    (FIXED, "ratenvs", "bench --seconds inf", r"--seconds: .* got 'inf'"),  # ran forever
    (FIXED, "ratenvs", "bench --rounds 0", r"--rounds: must be an integer in 1\.\.100, got 0"),  # status 1
    (FIXED, "ratenvs", "bench --batched --batch-sizes 0", r"--batch-sizes: must be an integer in 1\.\.65,536, got 0"),  # status 1
    (FIXED, "ratenvs", "bench --batched --batch-sizes 100000000000", r"--batch-sizes: .* got 100000000000"),  # MemoryError traceback (1.46 TiB)
    (FIXED, "ratenvs", "bench --games chess", r"--games: unknown game 'chess'; choose one of"),  # benchmarked connect four alone
    (FIXED, "ratenvs", "bench --batch-sizes 4", r"^error: --batch-sizes: only with --batched$"),  # silently ignored
    (FIXED, "ratenvs", "replay {missing}", r"record .*missing\.json: no such file$"),  # "[Errno 2] ...": did not name the argument
    (FIXED, "ratenvs", "replay {folder}", r"record .*folder: is a folder, not a file$"),  # "[Errno 21] ...": did not name the argument
    (FIXED, "ratenvs", "replay {binary}", r"binary\.json is not a game record \(not UTF-8 text\)"),  # a codec error
    (FIXED, "ratenvs", "replay {rec_list}", r"rec_list\.json is not a game record \(a JSON list, not an object\)"),  # AttributeError
    (FIXED, "ratenvs", "replay {rec_null}", r"\(a JSON null, not an object\)"),  # AttributeError
    (FIXED, "ratenvs", "replay {rec_seed_str}", r"record 'seed' must be an integer >= 0, got '3'"),  # gymnasium Error
    (FIXED, "ratenvs", "replay {rec_seed_neg}", r"record 'seed' must be an integer >= 0, got -1"),  # gymnasium Error
    (FIXED, "ratenvs", "replay {rec_options_list}", r"record 'options' must be an object, got a list"),  # TypeError
    (FIXED, "ratenvs", "replay {rec_actions_str}", r"record 'actions' must be a list, got a string"),  # "illegal action 0"
    (FIXED, "ratenvs", "replay {rec_chance_bad}", r"record 'chance' must be a list of \[kind, outcome\] draws"),  # "not enough values to unpack"
    (FIXED, "ratenvs", "replay {rec_render}", r"record 'options' may not hold \['render_mode'\]"),  # opened a window
    (GUARD, "ratenvs", "replay {rec_final_wrong}", r"replay diverged from the recorded final state"),
    (FIXED, "ratenvs", "replay {rec_deep}", r"rec_deep\.json is not a game record: nested 100,000 levels deep, more than the limit of 32$"),  # RecursionError traceback
    (FIXED, "ratenvs", "replay {rec_nan}", r"rec_nan\.json is not a game record: not valid JSON \(NaN is not a finite number\)$"),  # "record 'seed' must be an integer": NaN read as a number
    (FIXED, "ratenvs", "replay {fifo}", r"^error: record .*fifo\.json: is a FIFO \(named pipe\), not a regular file$"),  # "is a folder, not a file"
    (FIXED, "ratenvs", "replay {rec} --view player_0", r"^error: --view: only with --gif$"),  # silently ignored
    (FIXED, "ratenvs", "replay {rec} --fps 3", r"^error: --fps: only with --gif$"),  # silently ignored
    (FIXED, "ratenvs", "replay {rec} --gif {gif} --fps 0", r"argument --fps: must be a number from 0\.01 up to 50, got '0'"),  # ZeroDivisionError
    (FIXED, "ratenvs", "replay {rec} --gif {gif} --fps -1", r"--fps: .* got '-1'"),  # OverflowError
    (FIXED, "ratenvs", "replay {rec} --gif {gif} --fps nan", r"--fps: .* got 'nan'"),  # after rendering
    (FIXED, "ratenvs", "replay {rec} --gif {gif} --fps inf", r"--fps: .* got 'inf'"),  # wrote 0 ms frames
    (FIXED, "ratenvs", "replay {rec} --gif {folder}", r"--gif .*folder: is a folder, not a file"),  # after rendering
    (FIXED, "ratenvs", "replay {rec} --gif {under_file}", r"--gif .*inside\.gif: not a folder: .*a_file$"),  # after rendering
    (FIXED, "ratenvs", "replay {rec} --gif {in_missing_folder}", r"--gif .*: no such folder: .*missing_folder$"),  # after rendering
    (FIXED, "ratenvs", "replay {rec} --gif {gif} --view player_5", r"--view 'player_5': not a view of this 1-player game; choose omniscient or one of player_0"),  # named render_view
    (GUARD, "ratenvs", "solve rat-a-tat-cat", r"no exact solver for Rat-a-Tat Cat"),
    (GUARD, "ratenvs", "play chess", r"unknown game 'chess'"),
    (FIXED, "ratenvs", "play catz-ratz-batz --seed 1 --turns 1 --record {in_missing_folder}", r"--record .*r\.gif: no such folder: .*missing_folder \(see ratenvs play catz-ratz-batz --help\)$"),  # played the game, then lost it
    (FIXED, "ratenvs", "play catz-ratz-batz --seed -1", r"argument --seed: must be an integer in 0\.\.4,294,967,295, got -1"),  # gymnasium Error
    (FIXED, "ratenvs", "play catz-ratz-batz --players 0", r"argument --players: must be an integer in 1\.\.6, got 0"),  # usage block
    (FIXED, "ratenvs", "play rat-a-tat-cat --rounds x", r"argument --rounds: must be an integer \(1..10000 or None\), got 'x'"),  # "invalid parse value"
    (FIXED, "ratenvs", "play ratto-zakko --tick-ms 0", r"argument --tick-ms: must be in 1\.\.1000, got 0 \(see ratenvs play ratto-zakko --help\)$"),  # usage block
    (FIXED, "ratenvs", "play rat-a-tat-cat --target-score 0", r"argument --target-score: must be in 1..1000000, got 0 \(see ratenvs play rat-a-tat-cat --help\)$"),  # usage block
    (FIXED, "ratenvs", "play rat-a-tat-cat --eliminate-at reaches", r"option 'eliminate_at'='reaches' rules the elimination game: set 'target_score' .*\(see ratenvs play rat-a-tat-cat --help\)$"),  # played a one-round game
    (FIXED, "ratenvs", "play rat-a-tat-cat --eliminate-at sometimes", r"argument --eliminate-at: must be one of \('exceeds', 'reaches'\), got 'sometimes' \(see ratenvs play rat-a-tat-cat --help\)$"),  # usage block
    # --------------------------------------- ratenvs evaluate / tournament (the library's)
    (GUARD, "ratenvs", "evaluate {missing_pt}", r"checkpoint card not found: .*missing_agent\.json"),
    (GUARD, "ratenvs", "evaluate {empty_pt}", r"refused to load .*empty\.pt: it is not a plain tensor checkpoint"),
    (GUARD, "ratenvs", "evaluate {unknown_game}", r"is for an unknown game 'chess'"),
    (GUARD, "ratenvs", "evaluate {ratcat_card}", r"do not fit rat_a_tat_cat: unknown option"),
    (GUARD, "ratenvs", "evaluate agent:nobody", r"unknown agent 'agent:nobody'; the shipped agents are: catz_ratz_batz_1p, "),
    (GUARD, "ratenvs", "evaluate heuristic", r"agent 'heuristic': write a bot as game:bot"),
    (GUARD, "ratenvs", "evaluate {agent} --games 0", r"argument --games: must be an integer in 1\.\.1,000,000, got 0"),
    (GUARD, "ratenvs", "evaluate {agent} --seed -1", r"argument --seed: must be an integer in 0\.\.4,294,967,295, got -1"),
    (GUARD, "ratenvs", "evaluate {agent} --games 2 --json {folder}", r"--json .*folder: is a folder, not a file"),
    (GUARD, "ratenvs", "evaluate {agent} --games 2 --json {in_missing_folder}", r"--json .*: no such folder: .*missing_folder$"),
    (GUARD, "ratenvs", "evaluate {agent} --games 2 --opponents random", r"--opponents: catz_ratz_batz with .* is a one-player game"),
    (FIXED, "ratenvs", "evaluate {agent_2p} --games 2 --opponents random optimal", r"--opponents: one opponent seat: give 1 name, got 2$"),  # "need 1 or 1 names"
    (GUARD, "ratenvs", "evaluate {agent} --games 2 --env turns", r"^error: --env turns: write KEY=VALUE \(e\.g\. --env num_players=2\)$"),
    (GUARD, "ratenvs", "evaluate {agent} --games 2 --env nobody=1", r"--env nobody=1: catz_ratz_batz has no option 'nobody'; its options are \['num_players', 'turns', 'target_score', 'race_end', 'reward', 'totals_view'\]$"),
    (GUARD, "ratenvs", "evaluate {agent} --games 2 --env turns=ten", r"--env turns=ten: option 'turns' must be an integer \(1..10000 or None\), got 'ten'$"),
    (GUARD, "ratenvs", "evaluate {agent} --games 2 --env turns=0", r"--env turns=0: option 'turns' must be in 1..10000, got 0$"),
    (GUARD, "ratenvs", "evaluate catz_ratz_batz:random --games 1 --env turns=100000000000000000000000", r"--env turns=100000000000000000000000: option 'turns' must be in 1..10000, got 100000000000000000000000$"),  # a game that would not end
    (GUARD, "ratenvs", "exploit catz_ratz_batz:random --exact --frames 64", r"--frames: --exact trains and plays no games$"),
    (GUARD, "ratenvs", "evaluate {agent} --games 2 --env reward=wins", r"--env reward=wins: option 'reward' must be one of score, win, got 'wins'$"),
    (GUARD, "ratenvs", "evaluate {agent} --games 2 --env turns=none", r"--env turns=None: catz_ratz_batz with .*: option 'turns' may be None only in a race"),
    (GUARD, "ratenvs", "evaluate {agent} --games 2 --env num_players=2", r"--env num_players=2: the agent .*agent\.(pt|json): its policy reads observations of size 12 and has 4 actions; catz_ratz_batz with .* gives 16 and 4; an override may not change the observation or action size of a checkpoint$"),
    (GUARD, "ratenvs", "evaluate {agent} --games 2 --env turns=2 --env turns=3", r"--env turns=3: option 'turns' given twice$"),
    (GUARD, "ratenvs", "tournament catz_ratz_batz:optimal", r"needs at least two agents"),
    (GUARD, "ratenvs", "tournament rat_a_tat_cat:random {ratcat_card}", r"do not fit rat_a_tat_cat"),
    (GUARD, "ratenvs", "tournament rat_a_tat_cat:random ratto_zakko:random", r"play different games"),
    (GUARD, "ratenvs", "tournament rat_a_tat_cat:random rat_a_tat_cat:nobody", r"unknown bot 'nobody' for rat_a_tat_cat"),
    # --------------------------------------------------------------- export_sb3
    (GUARD, "export_sb3", "{missing_pt} {out}", r"checkpoint card not found"),
    (GUARD, "export_sb3", "{empty_pt} {out}", r"not a plain tensor checkpoint"),
    (GUARD, "export_sb3", "agent:nobody {out}", r"unknown agent 'agent:nobody'"),
    (GUARD, "export_sb3", "{agent} {folder}", r"out .*folder: is a folder, not a file"),
    (GUARD, "export_sb3", "{agent} {in_missing_folder}", r"no such folder: .*missing_folder$"),
    # ------------------------------------------------------------------ evaluate
    (GUARD, "evaluate", "--checkpoint {missing_pt}", r"checkpoint card not found: .*missing_agent\.json"),
    (FIXED, "evaluate", "--checkpoint {unknown_game}", r"unknown_game\.json is for an unknown game 'chess'; the games are catz_ratz_batz"),  # KeyError
    (FIXED, "evaluate", "--checkpoint {empty_pt}", r"refused to load .*empty\.pt: it is not a plain tensor checkpoint .*EOFError\)$"),  # the handler's IndexError
    (FIXED, "evaluate", "--checkpoint {text_pt}", r"refused to load .*text\.pt: .*KeyError"),  # KeyError
    (FIXED, "evaluate", "--checkpoint {options_list}", r"'env_options' must be an object, got \[1, 2\]"),  # TypeError
    (FIXED, "evaluate", "--checkpoint {card_folder}", r"card_folder\.json: a folder, not a regular file"),  # "card not found"
    (FIXED, "evaluate", "--checkpoint {card_binary}", r"card_binary\.json is not JSON \(not UTF-8 text\)"),  # a codec error
    (FIXED, "evaluate", "--checkpoint {ratcat_card}", r"checkpoint .*ratcat_card\.(pt|json): its card's env_options .* do not fit rat_a_tat_cat: unknown option"),  # did not name the checkpoint
    (FIXED, "evaluate", "--tournament rat_a_tat_cat:random {ratcat_card}", r"do not fit rat_a_tat_cat"),  # "two-seat matches"
    (FIXED, "evaluate", "--tournament rat_a_tat_cat:random {empty_pt}", r"not a plain tensor checkpoint"),  # IndexError
    (GUARD, "evaluate", "--checkpoint {agent} --games 0", r"argument --games: must be an integer in 1\.\.1,000,000, got 0"),
    (FIXED, "evaluate", "--checkpoint {agent} --games 100000000", r"--games: .* got 100000000"),  # ran for days
    (FIXED, "evaluate", "--checkpoint {agent} --seed -1", r"argument --seed: must be an integer in 0\.\.4,294,967,295, got -1"),  # gymnasium Error
    (FIXED, "evaluate", "--tournament catz_ratz_batz:random catz_ratz_batz:optimal --seed -5", r"--seed: .* got -5"),  # "expected non-negative integer"
    (FIXED, "evaluate", "--checkpoint {agent} --games 2 --json {folder}", r"--json .*folder: is a folder, not a file"),  # after the evaluation
    (FIXED, "evaluate", "--checkpoint {agent} --games 2 --json {under_file}", r"--json .*a_file is a file, not a folder"),  # after the evaluation
    (FIXED, "evaluate", "--checkpoint {agent} --games 2 --opponents random", r"--opponents: catz_ratz_batz with .* is a one-player game"),  # silently ignored
    (GUARD, "evaluate", "--tournament catz_ratz_batz:optimal catz_ratz_batz:nobody", r"unknown bot 'nobody' for catz_ratz_batz"),
    # ---------------------------------------------------------------------- ship
    (FIXED, "ship", "{empty_pt} {dest}", r"not a plain tensor checkpoint"),  # IndexError
    (FIXED, "ship", "{unknown_game} {dest}", r"for an unknown game 'chess'"),  # KeyError
    (FIXED, "ship", "{agent_2p} {dest} --games 2 --vs random,optimal", r"--vs: one opponent seat: give 1 name, got 2$"),  # "--opponents: need 1 or 1 names"
    (FIXED, "ship", "{agent} {dest} --games 0", r"argument --games: must be an integer in 1\.\.1,000,000, got 0"),  # after copying
    (FIXED, "ship", "{agent} {dest} --seed -1", r"argument --seed: .* got -1"),  # gymnasium Error, after copying
    (FIXED, "ship", "{agent} {dest} --vs random", r"--vs random: catz_ratz_batz with .* is a one-player game"),  # silently "solo"
    (FIXED, "ship", "{agent_2p} {dest} --vs nobody --games 2", r"unknown bot 'nobody' for catz_ratz_batz"),  # after copying the weights
    (FIXED, "ship", "{agent} {under_file}", r"dest .*a_file is a file, not a folder"),  # FileExistsError
    (FIXED, "ship", "{agent} {folder_pt}", r"dest .*folder_pt\.pt: is a folder, not a file"),  # IsADirectoryError
    (FIXED, "pool", "{agent} {missing}", r"^error: result .*missing\.json: no such file$"),  # new
    (FIXED, "pool", "{agent} {folder}", r"^error: result .*folder: is a folder, not a file$"),  # new
    (FIXED, "pool", "{agent} {binary}", r"^error: result .*binary\.json: not a JSON evaluation"),  # new
    (FIXED, "pool", "{agent} {rec}", r"^error: result .*rec\.json: not an evaluation \(no env_options, opponents"),  # new
    (FIXED, "pool", "{agent} {rec_deep}", r"^error: result .*rec_deep\.json: nested 100,000 levels deep, more than the limit of 16$"),  # new
    (FIXED, "pool", "{agent} {rec_nan}", r"^error: result .*rec_nan\.json: not a JSON evaluation \(NaN is not a finite number\)$"),  # new
    (FIXED, "pool", "{missing} {rec}", r"^error: checkpoint card .*missing\.json: no such file$"),  # new
    (FIXED, "ship", "{agent} {agent}", r"is the source checkpoint itself"),  # rewrote the source's card
    # ------------------------------------------------------------------- results
    (FIXED, "results", "--checkpoints {missing}", r"--checkpoints .*missing\.json: no such folder"),  # printed an empty table
    (FIXED, "results", "--checkpoints {folder}", r"folder: no checkpoint cards \(<game>/<name>\.json\) in it"),  # printed an empty table
    (FIXED, "results", "--checkpoints {cards_list}", r"checkpoint card .*a\.json is not a JSON object"),  # TypeError
    (FIXED, "results", "--checkpoints {cards_bad_json}", r"checkpoint card .*a\.json: not valid JSON"),  # JSONDecodeError
    (FIXED, "results", "--checkpoints {cards_no_figures}", r"checkpoint card .*a\.json: its evaluation lacks 'win_rate_ci'"),  # KeyError
    # --------------------------------------------------------------------- train
    (FIXED, "train", "--config {folder} --out {out}", r"--config .*folder: is a folder, not a file"),  # "config file not found"
    (FIXED, "train", "--config {binary} --out {out}", r"--config .*binary\.json: not a YAML config \(not UTF-8 text\)"),  # a codec error
    (FIXED, "train", "--config {cfg_bad_yaml} --out {out}", r"not valid YAML: while parsing a flow node; expected the node content"),  # 3 lines
    (FIXED, "train", "--config {cfg_bogus_option} --out {out}", r"^error: env_options: unknown option\(s\) \['bogus'\]; the options are \[[^]]*\]$"),  # gymnasium's wrapping; config.yaml left in --out
    (FIXED, "train", "--config {cfg_deep} --out {out}", r"cfg_deep\.yaml: line 2: nested more than the limit of 16 levels deep$"),  # RecursionError traceback
    (FIXED, "train", "--config {cfg_wide} --out {out}", r"cfg_wide\.yaml: algorithm\.net_arch\[0\]: must be at most 4,096 wide, got 1,000,000,000$"),  # accepted, then a 48 GB allocation
    (FIXED, "train", "--config {fifo} --out {out}", r"^error: --config .*fifo\.json: is a FIFO \(named pipe\), not a regular file$"),  # "is a folder, not a file"
    (FIXED, "train", "--config {cfg_seed} --out {out}", r"cfg_seed\.yaml: seed: must be in 0\.\.4294967295, got -1"),  # after building the model
    (FIXED, "train", "--config {cfg_eval_ckpt} --out {out}", r"eval\.opponents: the checkpoint .*agent\.(pt|json) reads observations of size 12, this run's env gives 16"),  # after training
    (FIXED, "train", "--config {tiny} --out {out} --seed -1", r"argument --seed: must be an integer in 0\.\.4,294,967,295, got -1"),  # after building the model
    (FIXED, "train", "--config {tiny} --out {out} --timesteps 100000000000000000000", r"--timesteps: must be an integer in 1\.\.1,000,000,000,000"),  # trained forever
    (FIXED, "train", "--config {tiny} --out {out} --max-minutes nan", r"argument --max-minutes: must be a number above 0 up to 1,000,000, got 'nan'"),  # no limit at all
    (GUARD, "train", "--config {tiny} --out {out} --max-minutes 0", r"--max-minutes: .* got '0'"),
    (GUARD, "train", "--config {tiny} --out {a_file}", r"^error: --out .*a_file: is a file, not a folder$"),
    (FIXED, "train", "--config {tiny} --out {under_file}", r"--out .*: .*a_file is a file, not a folder"),  # NotADirectoryError
    (FIXED, "train", "--config {tiny} --out /proc/ratenvs-run", r"--out /proc/ratenvs-run: cannot write in /proc"),  # FileNotFoundError
    (FIXED, "train", "--config {tiny} --out {out} --resume {empty_pt}", r"not a plain tensor checkpoint"),  # IndexError
    (FIXED, "train", "--config {tiny} --out {out} --resume {text_pt}", r"not a plain tensor checkpoint"),  # KeyError
    (FIXED, "train", "--config {tiny} --out {out} --resume {ratcat_card}", r"is an agent for 'rat_a_tat_cat', not for 'catz_ratz_batz'"),  # left config.yaml in --out
    # ------------------------------------------------------------------ vecbench
    (FIXED, "vecbench", "--config {missing}", r"--config .*missing\.json: no such file"),  # ConfigError traceback
    (FIXED, "vecbench", "--config {cfg_bogus_option}", r"env_options: unknown option\(s\) \['bogus'\]"),  # traceback
    (FIXED, "vecbench", "--config {tiny} --n-envs 0", r"argument --n-envs: must be an integer in 1\.\.1,024, got 0"),  # IndexError
    (FIXED, "vecbench", "--config {tiny} --n-envs 100000000", r"--n-envs: .* got 100000000"),  # made 10**8 envs
    (FIXED, "vecbench", "--config {tiny} --seconds inf", r"argument --seconds: .* got 'inf'"),  # ran forever
    (FIXED, "vecbench", "--config {tiny} --seconds 0", r"argument --seconds: .* got '0' \(see python -m training\.vecbench --help\)$"),  # usage block
    (FIXED, "vecbench", "--config {tiny} --train --batched-n-envs 3", r"--batched-n-envs 3: 3 x 10 frames per rollout is not a multiple of algorithm\.batch_size 32"),  # ValueError traceback
    (FIXED, "vecbench", "--config {tiny} --train --batched-n-envs 100000000", r"--batched-n-envs 100000000: on the batched door, n_envs: must be at most 65,536"),  # ran forever
    (FIXED, "vecbench", "--config {tiny} --train --against {cfg_ratcat}", r"--against .*cfg_ratcat\.yaml: a config of rat_a_tat_cat, not catz_ratz_batz"),  # status 1
    (FIXED, "vecbench", "--config {tiny} --train --against {missing}", r"--against .*missing\.json: no such file"),  # ConfigError traceback
    (FIXED, "vecbench", "--config {tiny} --against {tiny}", r"^error: --against: only with --train$"),  # silently ignored
    (FIXED, "vecbench", "--config {tiny} --train --seconds 1", r"^error: --seconds: not with --train$"),  # silently ignored
    # ---------------------------------------------------- benchmarks/bench_envs.py
    (FIXED, "bench_envs", "--seconds inf", r"argument --seconds: must be a number above 0 up to 3,600, got 'inf'"),  # ran forever
    (FIXED, "bench_envs", "--out {folder}", r"^error: --out .*folder: is a folder, not a file$"),  # IsADirectoryError after the benchmark
]
# fmt: on


def _card(path: Path, good: Path, weights: bytes | None, **changes: object) -> None:
    """Write the card of checkpoint ``path`` (.pt): ``good``'s card (naming its weights)
    with ``changes``; with ``weights``, an older-format checkpoint whose ``.pt`` holds them."""
    card = json.loads(good.read_text())
    card.update(changes)
    if weights is not None:
        path.write_bytes(weights)
        card.update(
            format="ratenvs-checkpoint/1", weights_sha256=hashlib.sha256(weights).hexdigest()
        )
    path.with_suffix(".json").write_text(json.dumps(card))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The files the cases read, good ones and broken ones (made once for all cases; the
    outputs a case names, ``{out}``, ``{dest}`` and ``{gif}``, are its own)."""
    import torch

    from ratenvs.catz_ratz_batz.bots import get_bot
    from ratenvs.common.record import record_bot_game, save_record
    from training.checkpoint import PolicySpec, build_policy, save_checkpoint

    d = tmp_path_factory.mktemp("cli")
    f = {"missing": str(d / "missing.json")}
    (d / "folder").mkdir()
    (d / "folder_pt.pt").mkdir()
    (d / "a_file").write_text("not a folder\n")
    (d / "binary.json").write_bytes(b"\x00\xff\xfe\x81 not text")
    f.update(
        folder=str(d / "folder"),
        folder_pt=str(d / "folder_pt"),
        a_file=str(d / "a_file"),
        under_file=str(d / "a_file" / "inside.gif"),
        in_missing_folder=str(d / "missing_folder" / "r.gif"),
        binary=str(d / "binary.json"),
    )
    # records
    rec = record_bot_game("catz_ratz_batz", [get_bot("random")], 3, num_players=1, turns=1)
    save_record(rec, d / "rec.json")
    f["rec"] = str(d / "rec.json")
    for name, data in {
        "rec_list": [rec],
        "rec_null": None,
        "rec_seed_str": {**rec, "seed": "3"},
        "rec_seed_neg": {**rec, "seed": -1},
        "rec_options_list": {**rec, "options": [1]},
        "rec_actions_str": {**rec, "actions": "012"},
        "rec_chance_bad": {**rec, "chance": [["integers"]]},
        "rec_render": {**rec, "options": {**rec["options"], "render_mode": "human"}},
        "rec_final_wrong": {**rec, "final_state": {"not": "it"}},
    }.items():
        (d / f"{name}.json").write_text(json.dumps(data))
        f[name] = str(d / f"{name}.json")
    deep = 100_000
    (d / "rec_deep.json").write_text("[" * deep + "]" * deep)
    (d / "rec_nan.json").write_text(json.dumps(rec).replace('"seed": 3', '"seed": NaN'))
    os.mkfifo(d / "fifo.json")
    f.update(rec_deep=str(d / "rec_deep.json"), rec_nan=str(d / "rec_nan.json"))
    f["fifo"] = str(d / "fifo.json")
    # checkpoints: a one-player Catz agent (observation 12, actions 4) and a two-player one
    torch.manual_seed(0)
    for name, size, options in (
        ("agent", 12, {"num_players": 1, "turns": 1}),
        ("agent_2p", 16, {"num_players": 2, "turns": 1}),
    ):
        spec = PolicySpec(size, 4, (8,))
        base = {"game": "catz_ratz_batz", "env_options": options, "policy": spec.to_dict()}
        f[name] = str(save_checkpoint(d / name, build_policy(spec).state_dict(), base))
    good = Path(f["agent"])
    for name, weights, changes in (
        ("unknown_game", None, {"game": "chess"}),
        ("ratcat_card", None, {"game": "rat_a_tat_cat"}),
        ("options_list", None, {"env_options": [1, 2]}),
        ("empty", b"", {}),
        ("text", b"hello, I am not a tensor file\n", {}),
    ):
        pt = d / f"{name}.pt"
        _card(pt, good, weights, **changes)
        f[name if weights is None else f"{name}_pt"] = str(pt)
    f["missing_pt"] = str(d / "missing_agent.pt")
    (d / "card_folder.pt").write_bytes(b"")
    (d / "card_folder.json").mkdir()
    (d / "card_binary.pt").write_bytes(b"")
    (d / "card_binary.json").write_bytes(b"\xff\xfe\x00\x81")
    f.update(card_folder=str(d / "card_folder.pt"), card_binary=str(d / "card_binary.pt"))
    # folders of cards for training.results
    for name, text in (
        ("cards_list", "[1]"),
        ("cards_bad_json", "{not json"),
        ("cards_no_figures", None),
    ):
        (d / name / "catz_ratz_batz").mkdir(parents=True)
        card = d / name / "catz_ratz_batz" / "a.json"
        if text is None:  # a real card whose evaluation lacks its intervals
            data = json.loads(good.with_suffix(".json").read_text())
            data["evaluation"] = {"games": 2, "opponents": ["random"], "win_rate": 0.5}
            text = json.dumps(data)
        card.write_text(text)
        f[name] = str(d / name)
    # configs
    for name, data in (
        ("tiny", TINY),
        ("cfg_bogus_option", {**TINY, "env_options": {"num_players": 1, "bogus": 2}}),
        ("cfg_seed", {**TINY, "seed": -1}),
        (
            "cfg_eval_ckpt",  # a one-player agent as the opponent of a two-player run
            {
                **TINY,
                "env_options": {"num_players": 2, "turns": 1},
                "eval": {**TINY["eval"], "opponents": [f["agent"]]},
            },
        ),
        ("cfg_ratcat", {**TINY, "game": "rat_a_tat_cat", "env_options": {"num_players": 2}}),
    ):
        (d / f"{name}.yaml").write_text(yaml.safe_dump(data))
        f[name] = str(d / f"{name}.yaml")
    (d / "cfg_deep.yaml").write_text("game: catz_ratz_batz\nenv_options: " + "[" * 50_000 + "\n")
    f["cfg_deep"] = str(d / "cfg_deep.yaml")
    wide = {**TINY, "algorithm": {**TINY["algorithm"], "net_arch": [10**9]}}
    (d / "cfg_wide.yaml").write_text(yaml.safe_dump(wide))
    f["cfg_wide"] = str(d / "cfg_wide.yaml")
    (d / "cfg_bad_yaml.yaml").write_text("game: [\n")
    f["cfg_bad_yaml"] = str(d / "cfg_bad_yaml.yaml")
    return f


def run_main(capsys, cli: str, argv: list[str]) -> tuple[object, str]:
    """Run ``cli``'s main in-process; (its exit status, returned or raised; its stderr)."""
    main = importlib.import_module(MAINS[cli]).main
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err


def _id(case: tuple) -> str:
    kind, cli, argv, _ = case
    return f"{kind}:{cli} " + re.sub(r"[{}]", "", argv)


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_a_mistake_is_one_line_and_exit_2(case, files, capsys, tmp_path):
    _, cli, argv, message = case
    outputs = {"out": tmp_path / "run", "dest": tmp_path / "shipped", "gif": tmp_path / "r.gif"}
    args = [a.format(**files, **outputs) for a in argv.split()]
    code, err = run_main(capsys, cli, args)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, (code, err)
    assert lines[0].startswith("error: ")
    assert re.search(message, lines[0]), lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # found before anything was written


def test_replay_without_a_final_state_does_not_claim_it_matches(files, capsys, tmp_path):
    from ratenvs import cli

    record = json.loads(Path(files["rec"]).read_text())
    del record["final_state"]
    path = tmp_path / "no_final.json"
    path.write_text(json.dumps(record))
    assert cli.main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "final state matches" not in out
    assert "the record holds no final state to check" in out
    assert cli.main(["replay", files["rec"]]) == 0
    assert "final state matches" in capsys.readouterr().out


def test_a_gif_is_written_at_the_fps_asked(files, tmp_path, capsys):
    from PIL import Image

    from ratenvs import cli

    gif = tmp_path / "replay"  # no suffix: still a GIF
    assert cli.main(["replay", files["rec"], "--gif", str(gif), "--fps", "4"]) == 0
    with Image.open(gif) as im:
        assert im.format == "GIF" and im.info["duration"] == 250


def test_a_bad_config_leaves_out_untouched_so_the_fixed_config_runs(files, tmp_path, capsys):
    """A config mistake found by the env used to leave config.yaml in --out: the next run,
    with the config fixed, was refused for a non-empty --out."""
    out = tmp_path / "run"
    code, err = run_main(
        capsys, "train", ["--config", files["cfg_bogus_option"], "--out", str(out)]
    )
    assert code == 2 and "env_options: unknown option(s) ['bogus']" in err
    assert not out.exists()


SUBPROCESS = [
    (["-m", "ratenvs.cli", "replay", "{rec_list}"], r"a JSON list, not an object"),
    (["-m", "ratenvs.cli", "replay", "{rec_deep}"], r"nested 100,000 levels deep"),
    (
        ["-m", "training.train", "--config", "{cfg_deep}", "--out", "{out}"],
        r"cfg_deep\.yaml: line 2: nested more than the limit of 16 levels deep$",
    ),
    (["-m", "training.evaluate", "--checkpoint", "{empty_pt}"], r"not a plain tensor checkpoint"),
    (
        ["-m", "training.train", "--config", "{tiny}", "--out", "{out}", "--max-minutes", "nan"],
        r"--max-minutes: .* got 'nan'",
    ),
]


@pytest.mark.parametrize("argv,message", SUBPROCESS, ids=[a[1] for a, _ in SUBPROCESS])
def test_a_real_process_prints_one_line_and_exits_2(files, argv, message, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [a.format(**files, out=tmp_path / "run") for a in argv]
    done = subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert re.search(message, lines[0])
