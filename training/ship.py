"""Ship a trained agent: copy a run's checkpoint into ``checkpoints/<game>/``, evaluate it
against each opponent set, record every result in its card, and draw its learning curve.

Usage::

    python -m training.ship RUN_DIR/best.pt checkpoints/<game>/<name>
        [--vs BOT[,BOT...][@KEY=VALUE,...] ...] [--games N] [--seed S] [--replace]

Each ``--vs`` is one evaluation (comma-separated bots, one per opponent seat or
one for all; after ``@``, env options overridden for that evaluation only, e.g.
``--vs expert@min_reaction_ticks=7``: not the observation or action size); the
first is the card's headline ``evaluation``, all of them are under ``evaluations``.
An evaluation is the library's, as ``training.evaluate`` runs it, so a card also
carries what the game's tracker counts: e.g. the answers by correct response
(``by_correct_response``: cards, answers, correct answers, answer rate and accuracy
with Wilson 95% intervals) and the lowest answer rate (``min_answer_rate``,
``min_answer_rate_response``). The weights file is copied byte for byte, so its
SHA-256 (verified on every load) stays the one the run recorded.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ratenvs.agents.checkpoint import checkpoint_there
from ratenvs.common.arguments import SEED, ArgumentParser, UsageError, int_in, output_file, report
from ratenvs.evaluation import check_policy_fits, parse_env_overrides
from ratenvs.games import GAMES
from training.checkpoint import card_path, load_checkpoint, save_checkpoint, weights_path
from training.evaluate import MAX_GAMES, checkpoint_env, evaluate_agent, make_opponents
from training.plots import plot_responder, plot_run


def parse_vs(text: str) -> tuple[list[str], list[str]]:
    """One ``--vs`` text: ``BOT[,BOT...]``, optionally followed by ``@KEY=VALUE[,KEY=VALUE]``
    (env options overridden for this evaluation only, e.g. ``expert@min_reaction_ticks=7``).
    Returns the bot names and the ``KEY=VALUE`` texts."""
    bots, _, overrides = text.partition("@")
    return bots.split(","), [t for t in overrides.split(",") if t] if overrides else []


def ship(
    source: str | Path,
    dest: str | Path,
    opponent_sets: Sequence[Sequence[str] | None],
    games: int,
    seed: int,
    env_overrides: Sequence[Sequence[str]] | None = None,
    replace: bool = False,
) -> dict[str, Any]:
    """Evaluate, copy and document one agent; return its new card. Everything is checked
    before anything is written: the checkpoint (against its game), the destination, and
    every opponent set; nothing is written until every evaluation has run (an agent
    already at ``dest`` is left whole if one fails or is interrupted).
    ``env_overrides[i]`` (``KEY=VALUE`` texts) overrides env options for evaluation ``i``
    only (not the observation or action size); the evaluation's label and result record
    them. A checkpoint already at ``dest`` is replaced only with ``replace`` (else a
    UsageError before anything runs)."""
    ckpt = load_checkpoint(source)
    env = checkpoint_env(ckpt)
    src_w = card_path(source)  # a checkpoint is named by its card
    dst_w = card_path(dest)
    if dst_w.resolve() == src_w.resolve():
        raise UsageError(f"dest {dest}: is the source checkpoint itself; ship to another name")
    if not replace and checkpoint_there(dst_w):
        raise UsageError(
            f"dest {dest}: an agent is there already ({dst_w}); --replace ships over it"
        )
    legacy = dst_w.with_suffix(".pt")  # an older-format agent there is replaced
    for target in (dst_w, legacy, dst_w.with_name(dst_w.stem + "_curve.png")):
        output_file("dest", target)
    seats = env.num_players - 1
    for names in opponent_sets:
        if names and not seats:
            raise UsageError(
                f"--vs {','.join(names)}: {ckpt.game} with {ckpt.env_options} is a one-player "
                "game (no opponent seats)"
            )
        make_opponents(ckpt.game, names, seats, flag="--vs")  # fails here, not after copying
    overrides = [
        parse_env_overrides(ckpt.game, texts, flag="--vs ...@")
        for texts in (env_overrides or [[] for _ in opponent_sets])
    ]
    if len(overrides) != len(opponent_sets):
        raise UsageError("one list of env overrides per opponent set")
    for names, changed in zip(opponent_sets, overrides):
        if changed:  # an override must keep the policy's sizes: checked before copying
            options = {**ckpt.env_options, **changed}
            try:
                table = GAMES[ckpt.game].load().raw_env(**options)
                check_policy_fits("the agent", ckpt.bot(), table, ckpt.game, options)
            except (ValueError, TypeError) as exc:
                raise UsageError(f"--vs {','.join(names or [])}@...: {exc}") from None
    # the evaluations first: an agent already at dest stays whole (its weights and card)
    # until every figure of the new one is in hand, and an interrupted ship writes nothing
    card = dict(ckpt.card)
    card.pop("learning_curve", None)  # the source's; set below when one is drawn for dest
    card["shipped_from"] = str(src_w)
    evaluations = {}
    for names, changed in zip(opponent_sets, overrides):
        options = {**ckpt.env_options, **changed}
        result = evaluate_agent(ckpt.game, options, ckpt.bot(), names, games, seed)
        label = "vs " + ",".join(result["opponents"]) if result["opponents"] else "solo"
        if changed:
            result["env_overrides"] = dict(changed)
            label += " with " + ",".join(f"{k}={v}" for k, v in changed.items())
        evaluations[label] = result
    card["evaluation"] = next(iter(evaluations.values()))
    card["evaluations"] = evaluations
    dst_w.parent.mkdir(parents=True, exist_ok=True)
    curve = dst_w.with_name(dst_w.stem + "_curve.png")
    # the curve is drawn beside it under a name of its own and takes its place only once
    # the checkpoint is saved: an agent already at dest never shows the new one's curve
    drawn = curve.with_name(f".{curve.stem}.{os.getpid()}.shipping.png")
    run_dir = src_w.parent
    try:
        if (run_dir / "progress.csv").is_file():
            plot_run(run_dir, drawn, title=f"{ckpt.game}: {dst_w.stem}")
            card["learning_curve"] = curve.name
        elif (card.get("responder_of") or {}).get("learning_curve"):  # exploit --save-responder
            plot_responder(card, drawn, title=f"{ckpt.game}: {dst_w.stem}")
            card["learning_curve"] = curve.name
        # then the checkpoint as one unit: its weights under new names, the card last
        save_checkpoint(dst_w, ckpt.policy_state, card, ckpt.optimizer_state)
        if drawn.exists():
            os.replace(drawn, curve)
        elif curve.exists():  # the curve of the agent this one replaced
            curve.unlink()
    finally:
        with contextlib.suppress(OSError):
            drawn.unlink()
    load_checkpoint(dst_w, game=ckpt.game)  # the shipped checkpoint verifies
    return card


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m training.ship", description=__doc__)
    parser.add_argument("source", type=Path, help="a run's checkpoint (best.pt or final.pt)")
    parser.add_argument("dest", type=Path, help="checkpoints/<game>/<name>")
    parser.add_argument(
        "--vs",
        action="append",
        default=[],
        help="opponents of one evaluation: BOT[,BOT...][@KEY=VALUE[,KEY=VALUE...]] (env "
        "options overridden for it, e.g. expert@min_reaction_ticks=7)",
    )
    parser.add_argument("--games", type=int_in(1, MAX_GAMES), default=2000)
    parser.add_argument("--seed", type=SEED, default=2026)
    parser.add_argument(
        "--replace", action="store_true", help="ship over an agent already at dest (else refused)"
    )
    args = parser.parse_args(argv)
    parsed = [parse_vs(v) for v in args.vs]
    sets = [names for names, _ in parsed] or [None]
    texts = [t for _, t in parsed] or [[]]
    try:
        card = ship(args.source, args.dest, sets, args.games, args.seed, texts, args.replace)
    except (ValueError, OSError) as exc:  # a bad checkpoint or bot, an unwritable dest
        return report(exc)
    print(f"shipped {weights_path(args.dest)} with {card_path(args.dest)}")
    for label, ev in card["evaluations"].items():
        line = f"  {label}: {ev['games']} games, win rate {ev['win_rate']:.3f} {ev['win_rate_ci']}"
        line += f", mean reward {ev['mean_reward']:.3f}"
        if "ratio_to_optimal" in ev:
            line += f", exact {ev['exact_expected_score']:.4f} ({ev['ratio_to_optimal']:.4%})"
        if "answer_accuracy" in ev:
            line += f", correct answers {ev['answer_accuracy']:.3f}"
        if "min_answer_rate" in ev:
            line += (
                f", lowest answer rate {ev['min_answer_rate']:.3f} "
                f"({ev['min_answer_rate_response']})"
            )
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
