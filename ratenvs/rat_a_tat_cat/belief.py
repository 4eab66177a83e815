"""A learned belief over the other hand of a 2-player Rat-a-Tat Cat table.

A seat's deals (``game.resample``) put the cards it cannot locate anywhere they could be,
uniformly; the other player's hand is not uniform: it keeps the low cards it has seen and
lets the high ones go. A belief is a classifier that tells, from the seat's own
observation, the other player's true hand from a hand ``game.resample`` deals (trained on
games of a shipped agent); its odds ``D / (1 - D)`` estimate the density ratio
``p_true(hand | observation) / q_resample(hand | observation)``, the importance weight that
turns the resampler's uniform deals into deals drawn as the true hands are. The ``search``
bot (:class:`~ratenvs.rat_a_tat_cat.search.AgentSearchBot`, ``belief=``) weighs its deals
by it.

A belief file (``.npz``) holds the classifier's layers (``w0, b0, w1, ...``: a ReLU MLP in
NumPy, no torch), ``agent`` (whose games it was fitted on: the setting it belongs to) and
``view`` (what it reads, :data:`VIEWS`). The repository's
``python -m training.games.rat_a_tat_cat_belief collect / fit`` writes one; the shipped ones
(:data:`SHIPPED`) are package data, fitted on the games of the agent they name.
"""

from __future__ import annotations

import zipfile
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

SLOTS = 4
"""Cards in a hand."""
KINDS = 14
"""A slot's classes: the 13 card kinds and an empty slot."""
CLIP = 8.0
"""Bound on a deal's log weight (a classifier's odds far out are its errors, not evidence)."""
VIEWS = ("agent", "ceilings")
"""What the classifier reads: the agent's observation, or the same with ``owner_ceilings``."""
SHIPPED = {
    "agent:rat_a_tat_cat_2p": "belief_2p.npz",
    "agent:rat_a_tat_cat_2p_one_round": "belief_2p_one_round.npz",
}
"""The shipped beliefs (package data of this package's ``beliefs`` folder), by the agent
whose games each was fitted on: the elimination game to 100 and one round, 2 players."""


def hand_kinds(state: Any, player: int) -> np.ndarray:
    """The kinds of ``player``'s cards, slot by slot (13: an empty slot)."""
    from ratenvs.rat_a_tat_cat.rules import KIND, NO_CARD

    return np.array(
        [KIND[c] if c != NO_CARD else KINDS - 1 for c in state.hands[player][:SLOTS]],
        dtype=np.int64,
    )


def features(observations: np.ndarray, kinds: np.ndarray) -> np.ndarray:
    """The classifier's input: the observations and the hands' kinds one-hot, row by row."""
    one_hot = np.zeros((len(kinds), SLOTS * KINDS), dtype=np.float32)
    rows = np.repeat(np.arange(len(kinds)), SLOTS)
    one_hot[rows, (np.arange(SLOTS) * KINDS + kinds).reshape(-1)] = 1.0
    return np.concatenate([observations.astype(np.float32), one_hot], axis=1)


def belief_view(game: Any, view: str) -> Any:
    """The observer of ``view`` at a table of ``game`` (see :data:`VIEWS`)."""
    if view not in VIEWS:
        raise ValueError(f"view must be one of {VIEWS}, got {view!r}")
    if view == "ceilings":
        game = type(game)(**{**game.params, "owner_ceilings": True})
    return game.observer(game.observation_kind)


STORED_DEFAULTS = {"view": "agent", "agent": "agent:rat_a_tat_cat_2p_one_round"}
"""What a belief file written before a field was kept holds in its place."""


def stored(data: Any, key: str) -> str:
    """A file's ``key`` (``view`` or ``agent``), or its default where the file predates it."""
    return str(data[key]) if key in data.files else STORED_DEFAULTS[key]


class Belief:
    """A fitted belief as a deal's log weight: ``log_weight(observations, kinds)``;
    ``view``: the observation it reads (:func:`belief_view`); ``agent``: whose games it was
    fitted on (the setting it belongs to); ``path``: the file."""

    def __init__(self, path: str | Path) -> None:
        try:
            data = np.load(path, allow_pickle=False)
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
            raise ValueError(f"{path}: not a belief file (an .npz of layers): {exc}") from None
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError(f"{path}: not a belief file (an .npz of layers, not one array)")
        with data:
            files = data.files
            n = len([k for k in files if k.startswith("w")])
            if n == 0 or not all(f"w{i}" in files and f"b{i}" in files for i in range(n)):
                raise ValueError(
                    f"{path}: not a fitted belief (no layers w0, b0, ...; `fit` writes one, "
                    "`collect` writes the records it reads)"
                )
            self.layers = [(data[f"w{i}"], data[f"b{i}"]) for i in range(n)]
            self.view = stored(data, "view")
            self.agent = stored(data, "agent")
        for i, (w, b) in enumerate(self.layers):
            inputs = self.layers[i - 1][0].shape[1] if i else w.shape[0]
            if w.ndim != 2 or b.shape != (w.shape[1],) or w.shape[0] != inputs:
                raise ValueError(f"{path}: layer {i} does not follow the one before it")
        if self.layers[-1][0].shape[1] != 1:
            raise ValueError(f"{path}: a belief's last layer gives one logit")
        if self.view not in VIEWS:
            raise ValueError(f"{path}: view {self.view!r} is not one of {VIEWS}")
        self.path = Path(path)

    @property
    def observation_size(self) -> int:
        """The size of the observation it reads (its input less the hand's one-hot)."""
        return int(self.layers[0][0].shape[0]) - SLOTS * KINDS

    def log_weight(self, observations: np.ndarray, kinds: np.ndarray) -> np.ndarray:
        """The classifier's logits (log odds true against dealt), clipped to +-:data:`CLIP`."""
        h = features(observations, kinds)
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < len(self.layers) - 1:
                h = np.maximum(h, 0.0)
        return np.clip(h[:, 0], -CLIP, CLIP)


def shipped_belief(agent: str) -> Belief:
    """The shipped belief fitted on ``agent``'s games (``agent:NAME``, :data:`SHIPPED`)."""
    if agent not in SHIPPED:
        raise ValueError(
            f"no shipped belief was fitted on {agent}'s games (there are: {sorted(SHIPPED)}); "
            "give a belief file (the repository's python -m "
            "training.games.rat_a_tat_cat_belief fit makes one)"
        )
    folder = resources.files("ratenvs.rat_a_tat_cat") / "beliefs"
    with resources.as_file(folder / SHIPPED[agent]) as path:
        return Belief(path)
