"""A learned belief over the other hand, for the ``search`` bot's deals (2-player Rat-a-Tat Cat).

    python -m studies.ratcat_belief collect --games G [--seed S] [--view ceilings]
        [--agent agent:rat_a_tat_cat_2p] --out R.npz
    python -m studies.ratcat_belief fit R.npz [R.npz ...] [--epochs 8] --out BELIEF.npz

The ``search`` bot deals the cards its seat cannot locate uniformly (``game.resample``),
where the other player's hand is not uniform: it keeps the low cards it has seen and lets
the high ones go. ``studies/README.md`` ("search_curve") measured what a perfect deal of the
other hand is worth (``--oracle others``). This study learns how far the seat's own
observation can get there, by density-ratio estimation: a classifier told apart, at the same
decision, the other player's true hand from a hand of ``game.resample`` (the deal the bot
would play out). Its odds ``D / (1 - D)`` estimate ``p_true(hand | observation) /
q_resample(hand | observation)``, the importance weight that turns the bot's uniform deals
into deals drawn as the true hands are (the weights' mean over the resampler's deals is 1
where the classifier is right).

``collect``: 2-player games of the recorded agent's own setting (``--agent``; by default
``rat_a_tat_cat_2p_one_round``, one round), the agent in one seat and, two games of four,
the same agent or the ``heuristic`` in the other (game ``g`` seeded ``S + g``, the recorded
seat ``g mod 2``; against itself both seats are recorded); at every decision of an agent
seat with more than one legal action, its observation, the other hand's card kinds as they
are, and as one resample deals them (``--view ceilings``: the observation the classifier
reads is the seat's view with the ``owner_ceilings`` block, the public evidence of what the
other player kept; the agent still plays from its own).
``fit``: an MLP (the observation and a hand's kinds one-hot; told: the true hand or the
dealt one; 256-256, Adam), a tenth of the games held out; printed: the held-out log loss
(0.693 at chance) and accuracy. The file is the MLP's weights in NumPy (:class:`Belief` reads it).
``python -m studies.search_curve --belief BELIEF.npz`` weighs the search's deals by it.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ratenvs.common.arguments import int_in
from ratenvs.common.atomic import atomic_file
from studies.harness import mlp

AGENT = "agent:rat_a_tat_cat_2p_one_round"
"""The agent whose seats are recorded by default (the ``search`` bot's for one round;
``--agent agent:rat_a_tat_cat_2p`` for the elimination game at 100, the game of its card)."""
SLOTS = 4
"""Cards in a hand."""
KINDS = 14
"""A slot's classes: the 13 card kinds and an empty slot."""
CLIP = 8.0
"""Bound on a deal's log weight (a classifier's odds far out are its errors, not evidence)."""


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


VIEWS = ("agent", "ceilings")
"""What the classifier reads: the agent's observation, or the same with ``owner_ceilings``."""


def belief_view(game: Any, view: str) -> Any:
    """The observer of ``view`` at a table of ``game`` (see :data:`VIEWS`)."""
    if view not in VIEWS:
        raise ValueError(f"view must be one of {VIEWS}, got {view!r}")
    if view == "ceilings":
        game = type(game)(**{**game.params, "owner_ceilings": True})
    return game.observer(game.observation_kind)


def collect(
    games: int, seed: int, out: str | Path, view: str = "agent", agent_name: str = AGENT
) -> dict[str, Any]:
    """Play ``games`` of ``agent_name``'s own game and write the records to ``out`` (see the
    module)."""
    from ratenvs.agents import load_agent_checkpoint
    from ratenvs.rat_a_tat_cat.bots import HeuristicBot
    from ratenvs.rat_a_tat_cat.rules import RatATatCat

    agent = load_agent_checkpoint(agent_name)
    game = RatATatCat(**agent.env_options)
    reader = belief_view(game, view)  # what the classifier will read
    agents_view = game.observer(game.observation_kind)  # what the players read
    obs, true, dealt, game_of = [], [], [], []
    start = time.perf_counter()
    for g in range(games):
        rng = np.random.default_rng(seed + g)
        seat = g % 2
        vs_agent = (g // 2) % 2 == 0
        bots = [agent.bot(), agent.bot()]
        if not vs_agent:
            bots[1 - seat] = HeuristicBot()
        for bot in bots:
            if hasattr(bot, "bind"):
                bot.bind(agents_view)
        agent_seats = {0, 1} if vs_agent else {seat}
        state = game.init(rng)
        while not game.is_terminal(state):
            q = game.to_act(state)[0]
            seen = agents_view.observe(state, q)
            mask = game.legal_mask(state, q)
            if q in agent_seats and int(mask.sum()) > 1:
                obs.append(reader.observe(state, q))
                true.append(hand_kinds(state, 1 - q))
                dealt.append(hand_kinds(game.resample(state, q, rng), 1 - q))
                game_of.append(g)
            game.apply(state, {q: bots[q].act(seen, mask, rng)}, rng, {})
    records = {
        "observations": np.asarray(obs, dtype=np.float32),
        "true": np.asarray(true),
        "dealt": np.asarray(dealt),
        "game": np.asarray(game_of) + seed,
        "view": np.array(view),
        "agent": np.array(agent_name),
    }
    with atomic_file(out) as fh:
        np.savez_compressed(fh, **records)
    print(
        f"{games} games, {len(obs)} decisions recorded, {time.perf_counter() - start:.0f} s",
        flush=True,
    )
    return records


STORED_DEFAULTS = {"view": "agent", "agent": AGENT}
"""What a records or belief file written before a field was kept holds in its place."""


def _stored(data: Any, key: str) -> str:
    """A file's ``key`` (``view`` or ``agent``), or its default where the file predates it."""
    return str(data[key]) if key in data.files else STORED_DEFAULTS[key]


def _the_one(parts: Sequence[Any], key: str, says: str) -> str:
    """The one ``key`` all records ``parts`` share; an error that ``says`` how they differ."""
    found = {_stored(p, key) for p in parts}
    if len(found) != 1:
        raise ValueError(f"the records {says}: {sorted(found)}")
    return found.pop()


def fit(paths: Sequence[str | Path], out: str | Path, epochs: int = 8, seed: int = 0) -> dict:
    """Fit the classifier on the records of ``paths`` and write it to ``out``."""
    import torch

    parts = [np.load(p) for p in paths]
    view = _the_one(parts, "view", "were read through different views")
    agent = _the_one(parts, "agent", "are of different agents' games")
    obs = np.concatenate([p["observations"] for p in parts])
    true = np.concatenate([p["true"] for p in parts])
    dealt = np.concatenate([p["dealt"] for p in parts])
    game_of = np.concatenate([p["game"] for p in parts])
    held = np.isin(game_of, np.unique(game_of)[::10])  # a tenth of the games held out
    x = np.concatenate([features(obs, true), features(obs, dealt)])
    y = np.concatenate([np.ones(len(obs)), np.zeros(len(obs))]).astype(np.float32)
    val = np.concatenate([held, held])
    model = mlp(x.shape[1], 1, seed)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    xt, yt = torch.from_numpy(x[~val]), torch.from_numpy(y[~val])
    xv, yv = torch.from_numpy(x[val]), torch.from_numpy(y[val])
    loss_fn = torch.nn.BCEWithLogitsLoss()
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        order = torch.randperm(len(xt), generator=gen)
        for i in range(0, len(order), 512):
            batch = order[i : i + 512]
            opt.zero_grad()
            loss = loss_fn(model(xt[batch]).squeeze(1), yt[batch])
            loss.backward()
            opt.step()
        with torch.no_grad():
            logits = model(xv).squeeze(1)
            held_loss = float(loss_fn(logits, yv))
            accuracy = float(((logits > 0).float() == yv).float().mean())
        print(f"epoch {epoch + 1}: held-out log loss {held_loss:.4f}, accuracy {accuracy:.3f}")
    layers = [m for m in model if isinstance(m, torch.nn.Linear)]
    weights = {}
    for i, layer in enumerate(layers):
        weights[f"w{i}"] = layer.weight.detach().numpy().T.copy()
        weights[f"b{i}"] = layer.bias.detach().numpy().copy()
    with atomic_file(out) as fh:
        np.savez(fh, view=np.array(view), agent=np.array(agent), **weights)
    return {"decisions": len(obs), "held_out_log_loss": held_loss, "accuracy": accuracy}


class Belief:
    """The fitted classifier as a deal's log weight: ``log_weight(observation, kinds)``;
    ``view``: the observation it reads (:func:`belief_view`); ``agent``: whose games it was
    fitted on (the setting it belongs to)."""

    def __init__(self, path: str | Path) -> None:
        data = np.load(path)
        n = len([k for k in data.files if k.startswith("w")])
        if n == 0 or any(f"b{i}" not in data.files for i in range(n)):
            raise ValueError(
                f"{path}: not a fitted belief (no layers w0, b0, ...; `fit` writes one, "
                "`collect` writes the records it reads)"
            )
        self.layers = [(data[f"w{i}"], data[f"b{i}"]) for i in range(n)]
        self.view = _stored(data, "view")
        self.agent = _stored(data, "agent")

    def log_weight(self, observations: np.ndarray, kinds: np.ndarray) -> np.ndarray:
        """The classifier's logits (log odds true against dealt), clipped to +-:data:`CLIP`."""
        h = features(observations, kinds)
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < len(self.layers) - 1:
                h = np.maximum(h, 0.0)
        return np.clip(h[:, 0], -CLIP, CLIP)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--games", type=int_in(1), required=True)
    c.add_argument("--seed", type=int, default=900000)
    c.add_argument("--view", choices=VIEWS, default="agent")
    c.add_argument("--agent", default=AGENT, help=f"the recorded agent (default {AGENT})")
    c.add_argument("--out", required=True)
    f = sub.add_parser("fit")
    f.add_argument("records", nargs="+")
    f.add_argument("--epochs", type=int_in(1), default=8)
    f.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    if args.command == "collect":
        collect(args.games, args.seed, args.out, args.view, args.agent)
    else:
        fit(args.records, args.out, args.epochs)


if __name__ == "__main__":
    main()
