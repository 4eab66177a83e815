"""Carry a checkpoint over to a newer env version of its game, or to the current format.

A new env version may add observation entries (a game's steps are its
``GameHooks.migrations``). A policy trained on the old version is
migrated by giving the first layers of its policy and value networks zero weights for
the new entries at their place: the migrated policy computes exactly the function it
computed before, now on the new version's observations, until training (``--resume``)
teaches it to use them. The optimizer state is dropped (its moments have the old
shapes); the card records where the checkpoint came from and keeps the old version's
evaluations under ``migrated_from`` (they were measured on the old rules: evaluate
again, e.g. with ``python -m training.ship``).

A checkpoint of the older format (weights in a torch ``.pt`` file, card format
``ratenvs-checkpoint/1``) is rewritten in the current one (weights in safetensors, read
without torch; see :mod:`ratenvs.agents.checkpoint`): the same weights and optimizer
state, the card's figures kept (they were measured on these very weights), the old file
recorded under ``converted_from``. Both at once when both apply. ``--in-place`` rewrites
each checkpoint under its own name (the old ``.pt`` is deleted once the new card is in
place: a kill meanwhile leaves the old checkpoint whole); this converted the shipped
agents::

    python -m training.migrate OLD.pt NEW
    python -m training.migrate --in-place checkpoints/*/*.json
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ratenvs.agents.checkpoint import (
    LEGACY_FORMAT,
    MissingExtraError,
    card_version,
    legacy_weights_path,
)
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
    """Migrate checkpoint ``source`` to the current env version of its game and the
    current format, written to ``dest`` as one unit (``dest`` may be ``source``: in
    place); return the new card's path."""
    from ratenvs.games import GAMES

    ckpt = load_checkpoint(source, any_version=True)
    spec_game = GAMES[ckpt.game]
    have, want = card_version(ckpt.card) or 0, spec_game.version
    legacy = ckpt.card["format"] == LEGACY_FORMAT
    if have == want and legacy:
        card = dict(ckpt.card)
        card["converted_from"] = {
            "format": LEGACY_FORMAT,
            "weights_file": legacy_weights_path(ckpt.path).name,
            "weights_sha256": ckpt.card["weights_sha256"],
        }
        return save_checkpoint(dest, ckpt.policy_state, card, ckpt.optimizer_state)
    if have == want:
        raise CheckpointError(
            f"{ckpt.path} is already for {spec_game.gymnasium_id} in the current format: "
            "nothing to migrate"
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
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="SOURCE DEST: a checkpoint of an older env version or format (x.json or x.pt) "
        "and where to write it (x: a new name, or SOURCE itself); with --in-place, the "
        "checkpoints to rewrite",
    )
    parser.add_argument(
        "--in-place",
        action="store_true",
        help="rewrite each checkpoint given under its own name",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.in_place and len(args.paths) != 2:
        parser.error(f"give SOURCE DEST (or --in-place PATH...), got {len(args.paths)} paths")
    pairs = [(p, p) for p in args.paths] if args.in_place else [tuple(args.paths)]
    if not args.in_place:  # a new name: a checkpoint already there is not replaced
        from ratenvs.agents.checkpoint import card_path, refuse_existing
        from ratenvs.common.arguments import report

        source, dest = pairs[0]
        if card_path(dest).resolve() != card_path(source).resolve():
            try:
                refuse_existing(dest, "DEST")
            except ValueError as exc:
                return report(exc)
    for source, dest in pairs:
        try:
            path = migrate(source, dest)
        except (ValueError, OSError, MissingExtraError) as exc:  # a CheckpointError, a DEST
            from ratenvs.common.arguments import report  # it cannot write, no torch for a .pt

            if isinstance(exc, OSError) and not isinstance(exc, CheckpointError):
                exc = OSError(f"{dest}: the checkpoint cannot be written there: {exc}")
            return report(exc)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
