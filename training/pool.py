"""Pool evaluations of a shipped agent, run on other seeds, into one entry of its card.

Usage::

    python -m training.pool checkpoints/<game>/<name>.pt RESULT.json [RESULT.json ...]
        [--key LABEL] [--note TEXT] [--replace]

(``agent:NAME`` names a shipped agent's checkpoint.)

Each ``RESULT.json`` is one evaluation of the agent, as ``ratenvs evaluate AGENT
--opponents ... --games G --seed S --json RESULT.json`` writes it; all must be of the
card's game, env options and weights (``weights_sha256``), against the same opponents, on
different seeds. The entry
(:func:`ratenvs.evaluation.pool_evaluations`: wins and games summed, the Wilson interval
of the pooled win rate, the mean reward of all games, the trackers' counts summed) goes
under the card's ``evaluations`` as ``LABEL`` (default: ``vs <opponents>, pooled``),
with ``runs`` (each run's seed, games, win rate and mean reward) and ``note``; the README
results table (``python -m training.results``) shows it as a row of its own. The card is
rewritten atomically; an entry of the same label is refused unless ``--replace``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ratenvs.agents import AGENT_PREFIX, agent_path
from ratenvs.common.arguments import ArgumentParser, UsageError, input_file, read_text, report
from ratenvs.common.safe_load import LoadError, loads_json
from ratenvs.evaluation import pool_evaluations, result_seeds
from training.checkpoint import card_path, load_card, write_card

RUN_KEYS = (
    *("seed", "games", "wins", "win_rate", "win_rate_ci", "mean_reward", "mean_reward_ci"),
    *("answer_accuracy", "answer_accuracy_ci", "seconds"),
)
"""What the card keeps of each pooled run."""

NEEDED = ("game", "env_options", "opponents", "seed", "games", "wins", "mean_reward")


MAX_RESULT_BYTES = 16 * 1024 * 1024
"""Largest evaluation result file read (one is a few kB)."""

MAX_RESULT_DEPTH = 16
"""Deepest nesting of an evaluation result (it nests two or three levels)."""


def read_result(path: str | Path) -> dict[str, Any]:
    """One evaluation result file (``ratenvs evaluate --json``); a UsageError naming the
    file if it is missing, not JSON, or not an evaluation."""
    text = read_text("result", path, "a JSON evaluation", max_bytes=MAX_RESULT_BYTES)
    try:
        result = loads_json(text, what=f"result {path}", max_depth=MAX_RESULT_DEPTH)
    except LoadError as exc:  # not JSON, nested too deep, NaN or infinity
        message = str(exc).replace(": not valid JSON (", ": not a JSON evaluation (", 1)
        raise UsageError(message) from None
    if not isinstance(result, dict):
        raise UsageError(f"result {path}: not an evaluation (a JSON {type(result).__name__})")
    missing = [k for k in NEEDED if k not in result]
    if missing:
        raise UsageError(f"result {path}: not an evaluation (no {', '.join(missing)})")
    _check_figures(path, result)
    return result


def _real(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_figures(path: str | Path, result: Mapping[str, Any]) -> None:
    """The figures pooling reads have their types and ranges (a UsageError naming the key):
    ``env_options`` a mapping, ``games`` a positive whole number, ``wins`` from 0 to
    ``games``, ``mean_reward`` a number, ``seed`` a whole number or a list of them, the
    intervals (where present) pairs of numbers, and a run of duplicate deals its ``deals``
    (2 to ``games``) and their spreads (numbers >= 0)."""

    def bad(key: str, what: str) -> UsageError:
        return UsageError(f"result {path}: {key} must be {what}, got {result[key]!r}")

    if not isinstance(result["env_options"], Mapping):
        raise bad("env_options", "a mapping of env options")
    games = result["games"]
    if not isinstance(games, int) or isinstance(games, bool) or games < 1:
        raise bad("games", "a whole number of games above 0")
    if not _real(result["wins"]) or not 0 <= result["wins"] <= games:
        raise bad("wins", f"a number from 0 to its games ({games})")
    if not _real(result["mean_reward"]):
        raise bad("mean_reward", "a number")
    seeds = result["seed"] if isinstance(result["seed"], list) else [result["seed"]]
    if not seeds or not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds):
        raise bad("seed", "a whole number or a list of them")
    if "duplicate" in result:  # duplicate deals: pooled from the deals' means and spreads
        if result["duplicate"] is not True:
            raise bad("duplicate", "true (a run of duplicate deals) or absent")
        for key in ("deals", "deal_win_sd", "deal_reward_sd"):
            if key not in result:
                raise UsageError(f"result {path}: a run of duplicate deals without {key}")
        deals = result["deals"]
        if not isinstance(deals, int) or isinstance(deals, bool) or not 2 <= deals <= games:
            raise bad("deals", f"a whole number of deals from 2 to its games ({games})")
        for key in ("deal_win_sd", "deal_reward_sd"):
            if not _real(result[key]) or result[key] < 0:
                raise bad(key, "a number >= 0")
    for key in ("win_rate_ci", "mean_reward_ci"):
        pair = result.get(key)
        if pair is not None and not (
            isinstance(pair, list) and len(pair) == 2 and all(_real(v) for v in pair)
        ):
            raise bad(key, "a pair of numbers [low, high]")


def pooled_entry(
    card: Mapping[str, Any], results: Sequence[Mapping[str, Any]], note: str | None = None
) -> dict[str, Any]:
    """The card entry pooling ``results``: :func:`~ratenvs.evaluation.pool_evaluations`,
    each run's figures under ``runs`` and the ``note``. A UsageError if a result is not
    of the card's weights (its ``weights_sha256``: a bot's result, another checkpoint's, or
    one written before results named their weights), or of another game or other env
    options than the card (an override counts as other)."""
    for r in results:
        played = r.get("weights_sha256")
        if played != card["weights_sha256"]:
            who = r.get("agent", "an unnamed agent")
            why = (
                "names no weights (a bot's, or written before evaluations named them: "
                "evaluate the checkpoint again)"
                if played is None
                else f"played other weights (SHA-256 {str(played)[:12]}...)"
            )
            raise UsageError(
                f"the result of seed {r['seed']} is of {who} and {why}; the card's weights "
                f"are {card['weights_sha256'][:12]}..."
            )
        if r["game"] != card["game"] or dict(r["env_options"]) != dict(card["env_options"]):
            raise UsageError(
                f"the result of seed {r['seed']} is of {r['game']} with {r['env_options']}, "
                f"the card's agent plays {card['game']} with {card['env_options']}"
            )
    try:
        entry = pool_evaluations(results)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    entry["runs"] = [{k: r[k] for k in RUN_KEYS if k in r} for r in results]
    if note:
        entry["note"] = note
    return entry


def _refuse_pooled_twice(
    evaluations: Mapping[str, Any], label: str, entry: Mapping[str, Any]
) -> None:
    """A seed another pooled entry of the card holds against the same opponents is refused:
    the same games would count in two entries (the one being replaced aside)."""
    mine = set(result_seeds(entry))
    for other, held in evaluations.items():
        if other == label or not isinstance(held, Mapping) or "runs" not in held:
            continue
        if list(held.get("opponents") or []) != list(entry["opponents"]):
            continue
        twice = sorted(mine & set(result_seeds(held)))
        if twice:
            raise UsageError(
                f"seed {twice[0]} is pooled already in the card's entry {other!r} against the "
                "same opponents: its games would count twice; pool other seeds"
            )


def pool_into_card(
    checkpoint: str | Path,
    results: Sequence[Mapping[str, Any]],
    key: str | None = None,
    note: str | None = None,
    replace: bool = False,
) -> tuple[str, dict[str, Any]]:
    """Add the pooled entry of ``results`` to the card of ``checkpoint`` (atomically) and
    return its label and the entry; nothing is written if anything is refused."""
    card = load_card(input_file("checkpoint card", card_path(checkpoint)))
    entry = pooled_entry(card, results, note)
    label = key or f"vs {','.join(entry['opponents'])}, pooled"
    evaluations = dict(card.get("evaluations") or {})
    if label in evaluations and not replace:
        raise UsageError(f"the card already has an evaluation {label!r} (--replace to rewrite it)")
    _refuse_pooled_twice(evaluations, label, entry)
    evaluations[label] = entry
    write_card(checkpoint, {**card, "evaluations": evaluations})
    return label, entry


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m training.pool", description=__doc__)
    parser.add_argument(
        "checkpoint", type=Path, help="a shipped checkpoint (its card x.json, or agent:NAME)"
    )
    parser.add_argument("results", type=Path, nargs="+", help="ratenvs evaluate --json files")
    parser.add_argument("--key", help="the entry's label (default: 'vs <opponents>, pooled')")
    parser.add_argument("--note", help="what the runs are and why they are pooled")
    parser.add_argument("--replace", action="store_true", help="rewrite an entry of that label")
    args = parser.parse_args(argv)
    try:
        if str(args.checkpoint).startswith(AGENT_PREFIX):
            args.checkpoint = agent_path(str(args.checkpoint))
        input_file("checkpoint card", card_path(args.checkpoint))  # before the results
        results = [read_result(p) for p in args.results]
        label, entry = pool_into_card(args.checkpoint, results, args.key, args.note, args.replace)
    except (ValueError, OSError) as exc:
        return report(exc)
    lo, hi = entry["win_rate_ci"]
    print(
        f"{card_path(args.checkpoint)}: {label}: {entry['games']} games on seeds "
        f"{entry['seed']}, win rate {entry['win_rate']:.4f} [{lo:.4f}, {hi:.4f}]"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
