"""A policy twin of the ``ismcts`` bot, so that a best response to it can be trained.

Issue 38 asks for a 2-player agent that wins >= 75% of elimination games against
``ismcts`` (100 iterations, heuristic play-outs), and the exploit tool trains a best
response only against a target the batched door can play: a checkpoint or a bot with a
kernel twin. ``ismcts`` searches about 0.13 s a decision (some 8 s a game), so PPO against
it is out of reach on two cores; its choices can be imitated instead, and the imitation
trained against.

- ``collect``: the agent ``--agent`` plays ``ismcts`` at its shipped setting, seats
  alternating (game ``g``: seed ``seed + g``, the agent in seat ``g % 2``); every
  decision of the search bot with more than one legal action is recorded (its observation
  as the env gives it, the legal actions, the action chosen), and every game's result (the
  agent's share of the win). The record is rewritten atomically every ``--every`` games,
  so a run can be stopped and its games used; the agent's win rate against ``ismcts`` is
  a by-product (these are fresh games).
- ``fit``: behaviour cloning (cross-entropy over the legal actions) of the recorded
  decisions into a policy of the agent's architecture, starting from the agent's weights;
  a tenth of the games held out to report how often the twin's most likely action is the
  bot's. The twin is written as a checkpoint (its card says what it imitates, and that it
  plays its softmax: ``"play": "sample"``, the search's choices vary from game to game; or
  ``--play greedy``, its most likely choice), which ``ratenvs exploit TWIN --init agent:...``
  or a self-play pool (``selfplay.checkpoints``) trains against.
- ``sharpen``: the twin at a softmax temperature (its logits divided by it, ``"play":
  "sample"``). A fitted twin spreads its choices wider than the bot (it is also unsure
  where its data is thin); at the temperature where the agents win against it what they
  win against the bot, it stands in for the bot.

``python -m studies.ratcat_ismcts_twin collect --agent agent:rat_a_tat_cat_2p_vs_heuristic
--games 400 --seed 600000 --out runs/twin_a.npz``; ``python -m studies.ratcat_ismcts_twin
fit runs/twin_a.npz runs/twin_b.npz --agent agent:rat_a_tat_cat_2p_vs_heuristic --out
runs/ismcts_twin``; ``python -m studies.ratcat_ismcts_twin sharpen runs/ismcts_twin.json
--temperature 0.7 --out runs/ismcts_twin_t07``.
"""

from __future__ import annotations

import argparse
import io
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ratenvs.common.arguments import int_in
from ratenvs.common.play import play_game
from ratenvs.common.stats import wilson_interval
from ratenvs.rat_a_tat_cat.bots import ISMCTS_ITERATIONS, RatCatISMCTS
from ratenvs.rat_a_tat_cat.rules import RatATatCat
from training.atomic import atomic_write_bytes
from training.games.rat_a_tat_cat_win_chance import win_share


class _Recorded(RatCatISMCTS):
    """The ``ismcts`` bot, noting each decision it makes with more than one legal action:
    the observation its seat is given (``view``), the legal actions, the action."""

    def __init__(self, view: Any, record: dict[str, list[Any]], iterations: int) -> None:
        super().__init__(iterations=iterations)
        self.view, self.record = view, record

    def act_in_state(
        self, state: Any, seat: int, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        action = int(super().act_in_state(state, seat, action_mask, rng))
        if int(np.count_nonzero(action_mask)) > 1:
            self.record["observations"].append(self.view.observe(state, seat).astype(np.float32))
            self.record["masks"].append(np.asarray(action_mask, dtype=bool))
            self.record["actions"].append(action)
        return action


def collect(
    agent: str,
    games: int,
    seed: int,
    out: str,
    every: int = 10,
    iterations: int = ISMCTS_ITERATIONS,
) -> dict[str, Any]:
    """Play ``games`` games of ``agent`` against ``ismcts`` (``iterations`` per decision: its
    shipped setting unless told) and record the search bot's decisions to ``out`` (npz);
    return the agent's results. Game ``g`` is ``play_game(game, bots, seed + g)`` with the
    agent in seat ``g % 2``."""
    from ratenvs.agents import load_agent_checkpoint

    ckpt = load_agent_checkpoint(agent, game="rat_a_tat_cat")
    options = {k: v for k, v in ckpt.card["env_options"].items() if k != "reward"}
    game = RatATatCat(**options)
    if game.num_players != 2:
        raise SystemExit(f"{agent} plays {game.num_players} players; this study is heads-up")
    view = game.observer(game.observation_kind)
    bot = ckpt.bot()
    record: dict[str, list[Any]] = {"observations": [], "masks": [], "actions": [], "games": []}
    shares: list[float] = []
    seconds = 0.0
    t0 = time.perf_counter()
    for g in range(games):
        seat = g % 2
        search = _Recorded(view, record, iterations)
        played = play_game(game, [bot, search] if seat == 0 else [search, bot], seed + g)
        record["games"] += [seed + g] * (len(record["actions"]) - len(record["games"]))
        shares.append(win_share(played.winners, seat))
        if (g + 1) % every == 0 or g + 1 == games:
            seconds = time.perf_counter() - t0
            _write(out, record, shares, agent, seed, seconds)
            wins = sum(shares)
            low, high = wilson_interval(wins, len(shares))
            print(
                f"{g + 1} games: agent {100 * wins / len(shares):.1f}% "
                f"[{100 * low:.1f}, {100 * high:.1f}], {len(record['actions'])} decisions, "
                f"{seconds / (g + 1):.1f} s a game",
                flush=True,
            )
    decisions = len(record["actions"])
    return {"games": games, "agent_wins": sum(shares), "decisions": decisions, "seconds": seconds}


def _write(
    out: str,
    record: dict[str, list[Any]],
    shares: list[float],
    agent: str,
    seed: int,
    seconds: float,
) -> None:
    buffer = io.BytesIO()
    obs, masks = record["observations"], record["masks"]
    np.savez_compressed(
        buffer,
        observations=np.stack(obs) if obs else np.zeros((0, 0), np.float32),
        masks=np.stack(masks) if masks else np.zeros((0, 0), bool),
        actions=np.asarray(record["actions"], dtype=np.int64),
        games=np.asarray(record["games"], dtype=np.int64),
        shares=np.asarray(shares, dtype=np.float64),
        meta=np.asarray(json.dumps({"agent": agent, "seed": seed, "seconds": seconds})),
    )
    atomic_write_bytes(out, buffer.getvalue())


def load(paths: Sequence[str]) -> dict[str, np.ndarray]:
    """The records of ``paths`` concatenated."""
    parts = [np.load(p) for p in paths]
    keys = ("observations", "masks", "actions", "games", "shares")
    return {k: np.concatenate([p[k] for p in parts if len(p[k])]) for k in keys}


def fit(
    paths: Sequence[str],
    agent: str,
    out: str,
    epochs: int = 20,
    batch_size: int = 512,
    learning_rate: float = 3e-4,
    seed: int = 0,
    play: str = "sample",
) -> dict[str, Any]:
    """Clone the recorded decisions of ``paths`` into a policy started from ``agent``'s
    weights; write it to ``out`` (its card's ``play``: ``"sample"``, the twin draws from its
    softmax as the search's own choices vary, or ``"greedy"``, its most likely choice);
    return the fit's figures."""
    import torch

    from ratenvs.agents import AGENT_PREFIX, agent_path
    from training.checkpoint import load_checkpoint, save_checkpoint
    from training.pretrain import Demonstrations, behaviour_clone

    data = load(paths)
    where = agent_path(agent) if agent.startswith(AGENT_PREFIX) else agent
    ckpt = load_checkpoint(where, game="rat_a_tat_cat")
    policy = ckpt.policy()
    games = np.unique(data["games"])
    rng = np.random.default_rng(seed)
    held = set(rng.choice(games, size=max(1, len(games) // 10), replace=False).tolist())
    test = np.isin(data["games"], list(held))
    obs = torch.as_tensor(data["observations"])
    masks = torch.as_tensor(data["masks"])
    actions = torch.as_tensor(data["actions"])

    def agreement(rows: np.ndarray) -> tuple[float, float]:
        with torch.no_grad():
            dist = policy.get_distribution(obs[rows], action_masks=masks[rows])
            probs = dist.distribution.probs
            best = probs.argmax(dim=1)
            like = probs.gather(1, actions[rows, None]).clamp_min(1e-12).log().mean()
        return float((best == actions[rows]).float().mean()), float(like)

    train_rows, test_rows = np.flatnonzero(~test), np.flatnonzero(test)
    before = agreement(test_rows)
    print(f"the agent itself: {100 * before[0]:.1f}% of the held-out choices", flush=True)
    # the actions only: no returns to learn (a value coefficient of 0)
    teacher = Demonstrations(
        data["observations"][train_rows],
        data["masks"][train_rows],
        data["actions"][train_rows],
        np.zeros(len(train_rows), dtype=np.float32),
        len(games) - len(held),
        0.0,
    )
    behaviour_clone(policy, teacher, epochs, batch_size, learning_rate, 0.0, seed)
    after = agreement(test_rows)
    print(
        f"the twin: {100 * after[0]:.1f}% of the held-out choices, log-likelihood {after[1]:.3f}",
        flush=True,
    )
    figures = {
        "decisions": len(actions),
        "games": len(games),
        "held_out_games": len(held),
        "agent_agreement": round(before[0], 4),
        "twin_agreement": round(after[0], 4),
        "twin_log_likelihood": round(after[1], 4),
    }
    card = {
        "game": "rat_a_tat_cat",
        "gymnasium_id": ckpt.card.get("gymnasium_id"),
        "env_options": {k: v for k, v in ckpt.card["env_options"].items() if k not in ("reward",)},
        "policy": ckpt.card["policy"],
        "play": play,
        "twin_of": {
            "bot": "ismcts",
            "records": [str(p) for p in paths],
            "started_from": agent,
            "fit": figures,
        },
    }
    save_checkpoint(Path(out), policy.state_dict(), card)
    return figures


def sharpen(twin: str, temperature: float, out: str) -> dict[str, Any]:
    """Write ``twin`` at softmax temperature ``temperature`` to ``out``: its output layer
    (logits) divided by the temperature, so that drawing from its softmax is drawing from
    the twin's softmax at that temperature (below 1: nearer its most likely choice, as the
    search bot's own choices vary less than a fitted twin's); the card says the temperature
    and plays ``"sample"``. Returns the new card's ``twin_of`` block. (NumPy weights: no
    torch needed.)"""
    from ratenvs.agents import load_agent_checkpoint
    from ratenvs.agents.checkpoint import save_checkpoint

    if not temperature > 0:
        raise ValueError(f"the temperature must be > 0, got {temperature!r}")
    ckpt = load_agent_checkpoint(twin, game="rat_a_tat_cat")
    if "twin_of" not in ckpt.card:
        raise ValueError(f"{twin} is not a twin (its card has no 'twin_of' block)")
    state = dict(ckpt.policy_state)
    for key in ("action_net.weight", "action_net.bias"):
        state[key] = state[key] / temperature
    block = dict(ckpt.card["twin_of"])
    block["temperature"] = temperature * float(block.get("temperature", 1.0))
    block["sharpened_from"] = str(twin)
    card = {k: ckpt.card[k] for k in ("game", "gymnasium_id", "env_options", "policy")}
    card.update(play="sample", twin_of=block)
    save_checkpoint(Path(out), state, card)
    return block


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="record ismcts's decisions against the agent")
    c.add_argument("--agent", default="agent:rat_a_tat_cat_2p_vs_heuristic")
    c.add_argument("--games", type=int_in(1), default=400)
    c.add_argument("--seed", type=int, default=600000, help="game g is seeded seed + g")
    c.add_argument("--every", type=int, default=10, help="rewrite the record every N games")
    c.add_argument("--out", required=True, help="the record (npz)")
    f = sub.add_parser("fit", help="clone the recorded decisions into a twin checkpoint")
    f.add_argument("records", nargs="+")
    f.add_argument("--agent", default="agent:rat_a_tat_cat_2p_vs_heuristic")
    f.add_argument("--epochs", type=int_in(1), default=20)
    f.add_argument("--batch-size", type=int, default=512)
    f.add_argument("--learning-rate", type=float, default=3e-4)
    f.add_argument("--seed", type=int, default=0)
    f.add_argument(
        "--play",
        choices=("sample", "greedy"),
        default="sample",
        help="how the twin chooses: drawn from its softmax (as the search varies) or greedy",
    )
    f.add_argument("--out", required=True, help="the twin checkpoint")
    s = sub.add_parser("sharpen", help="a twin at another softmax temperature (sampled)")
    s.add_argument("twin", help="the twin checkpoint's card")
    s.add_argument("--temperature", type=float, required=True, help="below 1: sharper")
    s.add_argument("--out", required=True, help="the sharpened twin checkpoint")
    args = parser.parse_args(argv)
    if args.command == "collect":
        result = collect(args.agent, args.games, args.seed, args.out, args.every)
    elif args.command == "sharpen":
        result = sharpen(args.twin, args.temperature, args.out)
    else:
        result = fit(
            args.records,
            args.agent,
            args.out,
            epochs=args.epochs,
            batch_size=args.batch_size,
            learning_rate=args.learning_rate,
            seed=args.seed,
            play=args.play,
        )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
