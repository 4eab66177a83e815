"""Carry a checkpoint over to a newer env version of its game.

A new env version may add observation entries (a game's steps are its
``GameHooks.migrations``). A policy trained on the old version is
migrated by giving the first layers of its policy and value networks zero weights for
the new entries at their place: the migrated policy computes exactly the function it
computed before, now on the new version's observations, until training (``--resume``)
teaches it to use them. The optimizer state is dropped (its moments have the old
shapes); the card records where the checkpoint came from and keeps the old version's
evaluations under ``migrated_from`` (they were measured on the old rules: evaluate
again, e.g. with ``python -m training.ship``).

    python -m training.migrate OLD.pt NEW.pt
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ratenvs.agents.checkpoint import card_version
from training.checkpoint import (
    CheckpointError,
    PolicySpec,
    load_checkpoint,
    save_checkpoint,
)
from training.hooks import hooks_for


def insert_inputs(state: Mapping[str, Any], at: int, count: int) -> dict[str, Any]:
    """A policy state dict with ``count`` zero input columns inserted at observation index
    ``at`` in the first layers of the policy and value networks."""
    import torch

    out = dict(state)
    for key in ("mlp_extractor.policy_net.0.weight", "mlp_extractor.value_net.0.weight"):
        weight = state[key]
        zeros = torch.zeros(weight.shape[0], count, dtype=weight.dtype)
        out[key] = torch.cat([weight[:, :at], zeros, weight[:, at:]], dim=1)
    return out


def migrate(source: str | Path, dest: str | Path) -> Path:
    """Migrate checkpoint ``source`` to the current env version of its game, written to
    ``dest`` (weights and card, each atomically); return the new weights path."""
    from ratenvs.games import GAMES

    ckpt = load_checkpoint(source, any_version=True)
    spec_game = GAMES[ckpt.game]
    have, want = card_version(ckpt.card) or 0, spec_game.version
    if have == want:
        raise CheckpointError(
            f"{ckpt.path} is already for {spec_game.gymnasium_id}: nothing to migrate"
        )
    if have > want:
        raise CheckpointError(
            f"{ckpt.path} is for env version v{have}, newer than this ratenvs's "
            f"v{want}: upgrade ratenvs instead"
        )
    observer = _observer(ckpt.game, ckpt.env_options)
    state = ckpt.policy_state
    size = ckpt.spec.observation_size
    steps = []
    for version in range(have, want):
        step = next((m for m in hooks_for(ckpt.game).migrations if m.from_version == version), None)
        if step is None:
            raise CheckpointError(f"no migration of {ckpt.game} from v{version}")
        steps.append(step)
        # the pieces are inserted in the order of the new layout; offsets of the final
        # observer are right for the last step (the only one so far)
        for name in sorted(step.inserted_pieces, key=observer.offset):
            piece = next(p for p in observer.pieces if p.name == name)
            state = insert_inputs(state, observer.offset(name), piece.size)
            size += piece.size
    if size != observer.size:
        raise CheckpointError(
            f"migrating {ckpt.path} gives observations of size {size}, but "
            f"{spec_game.gymnasium_id} with {ckpt.env_options} has size {observer.size}"
        )
    policy = PolicySpec(**{**ckpt.spec.to_dict(), "observation_size": size})
    card = {k: v for k, v in ckpt.card.items() if k not in _RECOMPUTED}
    card["gymnasium_id"] = spec_game.gymnasium_id
    card["policy"] = policy.to_dict()
    card["migrated_from"] = {
        "checkpoint": str(ckpt.path),
        "weights_sha256": ckpt.card["weights_sha256"],
        "gymnasium_id": ckpt.card.get("gymnasium_id"),
        "steps": [f"v{m.from_version} -> v{m.to_version}: {m.why}" for m in steps],
        "evaluations": ckpt.card.get("evaluations", ckpt.card.get("evaluation")),
    }
    return save_checkpoint(dest, state, card)


_RECOMPUTED = (
    "format",
    "weights_file",
    "weights_sha256",
    "evaluation",
    "evaluations",
    "fresh_evaluations",
    "fresh_evaluations_pooled",
)
"""Card entries that describe the old weights on the old rules: not carried over."""


def _observer(game: str, env_options: Mapping[str, Any]) -> Any:
    from ratenvs.games import GAMES

    raw = GAMES[game].load().raw_env(**env_options)
    return raw.observer


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m training.migrate",
        description="Migrate a checkpoint to the current env version of its game (new "
        "observation entries get zero weights: the policy is unchanged until trained on).",
    )
    parser.add_argument("source", help="checkpoint of an older env version (x.pt or x.json)")
    parser.add_argument("dest", help="where to write the migrated checkpoint (x.pt)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        path = migrate(args.source, args.dest)
    except CheckpointError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
