"""Average the weights of checkpoints of one lineage (a "model soup"): one policy whose every
weight is the mean of theirs.

Usage::

    python -m training.soup OUT CKPT CKPT [CKPT ...] [--replace]

The checkpoints must be of one game, with the same env options and the same network (the
same observation size, actions and layers): runs trained on from one checkpoint, as the two
legs averaged into a shipped 4-player agent were (training/README.md, "Stage 7"). Averaging
networks trained apart from different starts gives nothing useful, and the tool cannot tell
those apart: a soup is measured like any agent before it is trusted. The soup's card is the
first checkpoint's, without its evaluations (they are not the soup's), with ``soup_of``
naming each ingredient and its weights' SHA-256; it keeps no optimizer state (a resumed run
starts its optimizer afresh). Written as one unit (``save_checkpoint``).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ratenvs.agents.checkpoint import (
    Checkpoint,
    CheckpointError,
    card_path,
    load_checkpoint,
    refuse_existing,
    save_checkpoint,
)
from ratenvs.common.arguments import ArgumentParser, report

_NOT_THE_SOUPS = ("evaluation", "evaluations", "exploitability", "learning_curve", "shipped_from")
"""Card entries that describe the first ingredient's own play, not the soup's."""


def _same_lineage(first: Checkpoint, other: Checkpoint) -> None:
    """A CheckpointError unless ``other`` plays the game of ``first`` with its network."""
    for what, a, b in (
        ("game", first.game, other.game),
        ("env options", first.env_options, other.env_options),
        ("network", first.spec, other.spec),
        ("weights", sorted(first.policy_state), sorted(other.policy_state)),
    ):
        if a != b:
            raise CheckpointError(
                f"{other.path}: its {what} ({b}) are not those of {first.path} ({a}); a soup "
                "averages checkpoints of one game, env options and network"
            )


def soup(out: str | Path, checkpoints: Sequence[str | Path], replace: bool = False) -> Path:
    """Write the weight average of ``checkpoints`` (two or more, of one lineage) as checkpoint
    ``out``; return its card path. ``out`` must not hold a checkpoint unless ``replace``."""
    if len(checkpoints) < 2:
        raise ValueError(f"a soup needs two checkpoints or more, got {len(checkpoints)}")
    if not replace:
        refuse_existing(out, "OUT")
    loaded = [load_checkpoint(c, optimizer=False) for c in checkpoints]
    paths = [card_path(c.path).resolve() for c in loaded]
    if len(set(paths)) != len(paths):
        raise ValueError("a checkpoint is given twice (a soup weighs each one once)")
    if card_path(out).resolve() in paths:
        raise ValueError(f"OUT {out} is one of the checkpoints averaged")
    first = loaded[0]
    for other in loaded[1:]:
        _same_lineage(first, other)
    state: dict[str, Any] = {}
    for key, value in first.policy_state.items():
        stack = np.stack([np.asarray(c.policy_state[key], dtype=np.float64) for c in loaded])
        state[key] = stack.mean(axis=0).astype(np.asarray(value).dtype)
    card = {k: v for k, v in first.card.items() if k not in _NOT_THE_SOUPS}
    card["soup_of"] = [
        {"checkpoint": str(c.path), "weights_sha256": c.card["weights_sha256"]} for c in loaded
    ]
    return save_checkpoint(out, state, card)


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(prog="python -m training.soup", description=__doc__)
    parser.add_argument("out", type=Path, help="the soup's checkpoint (x, x.json)")
    parser.add_argument("checkpoints", nargs="+", type=Path, help="two or more checkpoints")
    parser.add_argument("--replace", action="store_true", help="write over a checkpoint at OUT")
    args = parser.parse_args(argv)
    try:
        path = soup(args.out, args.checkpoints, replace=args.replace)
    except (ValueError, OSError) as exc:  # CheckpointError, bad counts, files
        return report(exc)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
