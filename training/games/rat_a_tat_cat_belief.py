"""The search's belief over the other hand (2-player Rat-a-Tat Cat): records and a fit.

    python -m training.games.rat_a_tat_cat_belief collect --games G [--seed S]
        [--view ceilings] [--agent agent:rat_a_tat_cat_2p] --out R.npz
    python -m training.games.rat_a_tat_cat_belief fit R.npz [R.npz ...] [--epochs 8]
        --out BELIEF.npz

What a belief is and how the ``search`` bot reads one: :mod:`ratenvs.rat_a_tat_cat.belief`
(a classifier that tells the other player's true hand from a hand of ``game.resample``,
whose odds are the density ratio that weighs the search's deals). This module makes one.

``collect``: 2-player games of the recorded agent's own setting (``--agent``; by default
``rat_a_tat_cat_2p_one_round``, one round), the agent in one seat and, two games of four,
the same agent or the ``heuristic`` in the other (game ``g`` seeded ``S + g``, the recorded
seat ``g mod 2``; against itself both seats are recorded); at every decision of an agent
seat with more than one legal action, its observation, the other hand's card kinds as they
are, and as one resample deals them (``--view ceilings``: the observation the classifier
reads is the seat's view with the ``owner_ceilings`` block, the public evidence of what the
other player kept; the agent still plays from its own).
``fit`` (torch, the train extra): an MLP (the observation and a hand's kinds one-hot; told:
the true hand or the dealt one; 256-256 ReLU, Adam), a tenth of the games held out;
printed: the held-out log loss (0.693 at chance) and accuracy. The file is the MLP's weights
in NumPy (:class:`~ratenvs.rat_a_tat_cat.belief.Belief` reads it). The shipped beliefs
(:data:`~ratenvs.rat_a_tat_cat.belief.SHIPPED`) were made so; their commands are in
``training/README.md``.
"""

from __future__ import annotations

import sys
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ratenvs.agents.checkpoint import require_training_packages
from ratenvs.common.arguments import ArgumentParser, int_in, output_file, report
from ratenvs.common.atomic import atomic_file
from ratenvs.rat_a_tat_cat.belief import VIEWS, belief_view, features, hand_kinds, stored

AGENT = "agent:rat_a_tat_cat_2p_one_round"
"""The agent whose seats are recorded by default (the ``search`` bot's for one round;
``--agent agent:rat_a_tat_cat_2p`` for the elimination game at 100, the game of its card)."""


def network(inputs: int, outputs: int = 1, seed: int = 0) -> Any:
    """The belief's 256-256 ReLU MLP (torch; one output, the logit), its weights drawn after
    ``torch.manual_seed(seed)`` (the repository's studies fit the same network)."""
    import torch

    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(inputs, 256),
        torch.nn.ReLU(),
        torch.nn.Linear(256, 256),
        torch.nn.ReLU(),
        torch.nn.Linear(256, outputs),
    )


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


def _the_one(parts: Sequence[Any], key: str, says: str) -> str:
    """The one ``key`` all records ``parts`` share; an error that ``says`` how they differ."""
    found = {stored(p, key) for p in parts}
    if len(found) != 1:
        raise ValueError(f"the records {says}: {sorted(found)}")
    return found.pop()


def seed_ranges(seeds: np.ndarray) -> np.ndarray:
    """The games' seeds as ``(first, last + 1)`` rows of consecutive runs."""
    seeds = np.unique(seeds)
    breaks = np.flatnonzero(np.diff(seeds) != 1) + 1
    runs = np.split(seeds, breaks)
    return np.array([(int(r[0]), int(r[-1]) + 1) for r in runs], dtype=np.int64).reshape(-1, 2)


def fit(paths: Sequence[str | Path], out: str | Path, epochs: int = 8, seed: int = 0) -> dict:
    """Fit the classifier on the records of ``paths`` and write it to ``out``."""
    require_training_packages("fitting a belief")
    import torch

    parts = [_records(p) for p in paths]
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
    model = network(x.shape[1], 1, seed)
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
        np.savez(
            fh,
            view=np.array(view),
            agent=np.array(agent),
            games=seed_ranges(game_of),
            epochs=np.array(epochs),
            held_out_log_loss=np.array(held_loss),
            accuracy=np.array(accuracy),
            **weights,
        )
    return {"decisions": len(obs), "held_out_log_loss": held_loss, "accuracy": accuracy}


RECORD_FIELDS = ("observations", "true", "dealt", "game")
"""What a records file of ``collect`` holds (besides its ``view`` and ``agent``)."""


def _records(path: str | Path) -> Any:
    """The records file ``path`` (a ValueError naming it when it is not one)."""
    try:
        data = np.load(path, allow_pickle=False)
    except (ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{path}: not a records file of collect: {exc}") from None
    missing = [k for k in RECORD_FIELDS if k not in getattr(data, "files", ())]
    if missing:
        raise ValueError(f"{path}: not a records file of collect (no {', '.join(missing)})")
    return data


def _new_file(path: str | Path, replace: bool) -> None:
    """Refuse to write over ``path`` unless ``replace`` (nothing is lost by a slip), and a
    path that cannot be written (a folder, no such place) before minutes of work."""
    output_file("--out", path, ValueError)
    if Path(path).exists() and not replace:
        raise ValueError(f"{path} exists: give another --out, or --replace to write over it")


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m training.games.rat_a_tat_cat_belief",
        description=__doc__.split("\n\n")[0],
    )
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="record games of an agent")
    c.add_argument("--games", type=int_in(1), required=True)
    c.add_argument("--seed", type=int, default=900000)
    c.add_argument("--view", choices=VIEWS, default="agent")
    c.add_argument("--agent", default=AGENT, help=f"the recorded agent (default {AGENT})")
    c.add_argument("--out", required=True)
    c.add_argument("--replace", action="store_true", help="write over a file at --out")
    f = sub.add_parser("fit", help="fit a belief on records")
    f.add_argument("records", nargs="+")
    f.add_argument("--epochs", type=int_in(1), default=8)
    f.add_argument("--out", required=True)
    f.add_argument("--replace", action="store_true", help="write over a file at --out")
    args = parser.parse_args(argv)
    try:
        _new_file(args.out, args.replace)
        if args.command == "collect":
            collect(args.games, args.seed, args.out, args.view, args.agent)
        else:
            fit(args.records, args.out, args.epochs)
    except (ValueError, OSError, ModuleNotFoundError) as exc:  # files, the train extra
        return report(exc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
