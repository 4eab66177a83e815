"""Evaluate agents: an agent against bots or other agents, or a round-robin tournament.

Agents are named as on every command line (:func:`resolve_agent`): a game's bot
``game:bot`` (e.g. ``rat_a_tat_cat:heuristic``; a bare bot name where the game is known),
a shipped agent ``agent:NAME`` (:func:`ratenvs.agents.available`) or a checkpoint path
(``path/to/agent.json``, its card). In every evaluation the agent's seat rotates game by game (game
``i``: seat ``i mod players``; a number of games that is a multiple of the seats plays
every seat alike, another gives the low seats one game more, seat 0 first, which the
first player's edge tilts a little: the shipped cards' 2,000 and 4,000 games are
multiples), and every game is played through the library's one
harness (:func:`ratenvs.common.play.play_game`, its seeding rule). The win rate counts a
shared win as ``1/w`` of a win (``w`` tied winners) and carries a Wilson 95% interval;
the mean reward (the agent's summed rewards per game in the env's reward mode, e.g. its
total score) carries a normal 95% interval. A game's :class:`EvaluationExtras` (module
``ratenvs.<game>.evaluation``) can add an exact grade of the agent (Catz, Ratz and Batz:
the solver's ``exact_expected_score`` and ``ratio_to_optimal``) and counts of its play
(Ratto Zakko: ``answer_accuracy``, and by the card's correct response the cards, the
answer rate and the accuracy, with the lowest answer rate ``min_answer_rate``). An
evaluation plays the agent's own env options, or some of them overridden
(``env_overrides``; not a checkpoint's observation or action size). A tournament plays
every pair of agents in games of two or more seats (the two share them: one in the even
seats, the other in the odd ones, alternated game by game; an agent scores its seats'
share of the win) and fits Bradley-Terry ratings on the Elo scale with bootstrap 95%
intervals. Everything is deterministic for a given seed.

``ratenvs evaluate AGENT [--env KEY=VALUE ...]`` and ``ratenvs tournament A B C ...
[--players N] [--env KEY=VALUE ...] [--markdown FILE]`` run it from the command line;
shipped agents and checkpoints need safetensors, not torch (``pip install "ratenvs[agents]"``).
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ratenvs.common.bots import Bot, OwnView
from ratenvs.common.options import Option, OptionSpec
from ratenvs.common.play import game_seed
from ratenvs.common.play import play_game as harness_play
from ratenvs.common.stats import (
    RATING_METHOD,
    Z_95,
    bootstrap_bradley_terry,
    mean_interval,
    wilson_interval,
)
from ratenvs.games import GAMES, GameSpec, get_game

MAX_GAMES = 1_000_000
"""Most games of one evaluation (as ``eval.games`` in a training config)."""
TOURNAMENT_SEED_STRIDE = 7919
"""Pairing ``(i, j)`` of ``k`` agents plays with seed ``seed + 7919 * (i * k + j)``."""
GAME_SEED_STRIDE = 1_000_003
"""Game ``g`` of a match with seed ``s`` is dealt with seed ``s * 1_000_003 + g``."""
BY_RESPONSE = "by_correct_response"
"""Tracker counts (and evaluation figures) by the cards' correct response (Ratto Zakko)."""
COUNT_KEYS = ("cards", "answers", "correct_answers")


def seat_count_rule(seats: int) -> str:
    """How many opponent names ``seats`` opponent seats take, in words."""
    if seats == 1:
        return "one opponent seat: give 1 name"
    return f"{seats} opponent seats: give 1 name (for every seat) or {seats} (one per seat)"


def check_run(games: Any, seed: Any) -> tuple[int, int]:
    """``games`` (an integer in 1..:data:`MAX_GAMES`) and ``seed`` (an integer >= 0) of an
    evaluation, match or tournament, as the command lines take them; anything else is a
    ValueError naming the argument and the value given, before any game is played."""
    integer = isinstance(games, int | np.integer) and not isinstance(games, bool | np.bool_)
    if not integer or not 1 <= games <= MAX_GAMES:
        raise ValueError(f"games must be an integer in 1..{MAX_GAMES:,}, got {games!r}")
    return int(games), game_seed(seed, "seed")


@dataclass(frozen=True)
class EvaluationExtras:
    """What a game adds to its evaluations (each optional), from ``ratenvs.<game>.evaluation``'s
    ``EXTRAS``."""

    exact_grade: Callable[[Any, dict[str, Any]], dict[str, float]] | None = None
    """``exact_grade(agent, env_options)``: exact figures of the agent (a Bot or a
    PolicyBot), merged into every evaluation."""
    tracker: Callable[[int], Any] | None = None
    """``tracker(seat)``: an object with ``after_step(state)`` (the game's state after every
    step), optionally ``start(game)`` (the :class:`~ratenvs.common.game.Game` before the
    first step), and ``counts``: a dict of floats, or of dicts of floats (to any depth),
    made for every evaluation game; the counts are summed key by key over the games
    (:func:`sum_counts`)."""


def extras_for(game: str) -> EvaluationExtras:
    """The :class:`EvaluationExtras` of ``game`` (``ratenvs.<game>.evaluation.EXTRAS``), or
    none when the game has no such module."""
    name = f"ratenvs.{game}.evaluation"
    if importlib.util.find_spec(name) is None:
        return EvaluationExtras()
    extras = importlib.import_module(name).EXTRAS
    if not isinstance(extras, EvaluationExtras):
        raise TypeError(f"{name}.EXTRAS must be an EvaluationExtras")
    return extras


# ------------------------------------------------------------------ playing
@dataclass
class GameResult:
    """One finished game from the evaluated seat's point of view."""

    seat: int
    reward: float
    """The seat's rewards summed over the game."""
    win: float
    """1 for a sole win, 1/w for a win shared by w seats, else 0."""
    extras: dict[str, float] | None = None
    """Counts of the game's tracker (:attr:`EvaluationExtras.tracker`), e.g. answers given
    and how many were right."""
    deal: int | None = None
    """The seed of the deal the game shares with the other games of a duplicate match (the
    agent in another seat of each); None: a deal of its own."""


def play_game(
    spec: GameSpec,
    env_options: dict[str, Any],
    players: Sequence[Bot],
    seed: int,
    env: Any = None,
    tracker: Any = None,
) -> tuple[list[float], list[bool]]:
    """Play one game with ``players[seat]`` in every seat through the library's one harness
    (:func:`ratenvs.common.play.play_game`, its seeding rule); return each seat's summed
    rewards and the game's winners. ``tracker.after_step(state)`` sees every step (after
    ``tracker.start(game)``, if the tracker has it)."""
    if env is None:
        env = spec.load().raw_env(**env_options)
    if len(players) != env.num_players:
        raise ValueError(f"{len(players)} players for a {env.num_players}-seat game")
    on_step = None if tracker is None else (lambda _g, state, _a, _r: tracker.after_step(state))
    if tracker is not None and hasattr(tracker, "start"):
        tracker.start(env.game)
    played = harness_play(env.game, players, seed, on_step=on_step)
    return played.returns, played.winners


def play_match(
    spec: GameSpec,
    env_options: dict[str, Any],
    agent: Bot,
    opponents: Sequence[Bot],
    games: int,
    seed: int,
    first_seat: int = 0,
    extras: EvaluationExtras | None = None,
    on_game: Callable[[], None] | None = None,
    *,
    duplicate: bool = False,
) -> list[GameResult]:
    """``games`` games of ``agent`` against ``opponents`` (one per other seat), the whole
    table rotated: game ``g`` seats the agent in seat ``s = (first_seat + g) mod players``
    and ``opponents[k]`` in seat ``(s + 1 + k) mod players``, so each player sits in every
    seat equally often and the order of play around the table stays the same (the k-th
    opponent always plays k + 1 turns after the agent). ``on_game``: called after each game
    (a progress bar's tick).

    ``duplicate``: every deal is played once from each seat (as duplicate bridge deals
    its boards): games ``g`` of one block of ``players`` share the seed of deal
    ``g // players``, so the chance draws that do not depend on the play (the first
    shuffle, the dice) are the same while the agent takes every seat in turn. What each
    seat was dealt then cancels out of the block's mean, whose spread is what
    :func:`summarise` reports; ``games`` must be a whole number of blocks."""
    games, seed = check_run(games, seed)
    env = spec.load().raw_env(**env_options)
    n = env.num_players
    if len(opponents) != n - 1:
        raise ValueError(f"need {n - 1} opponents for a {n}-seat game, got {len(opponents)}")
    if duplicate:
        check_duplicate(games, n)
    make_tracker = (extras_for(spec.name) if extras is None else extras).tracker
    results = []
    for g in range(games):
        seat = (first_seat + g) % n
        table = [agent, *opponents]
        players = [table[(j - seat) % n] for j in range(n)]
        tracker = None if make_tracker is None else make_tracker(seat)
        deal = seed * GAME_SEED_STRIDE + (g // n if duplicate else g)
        totals, winners = play_game(spec, env_options, players, deal, env, tracker)
        w = sum(winners)
        win = (1.0 / w) if winners[seat] else 0.0
        counts = tracker and tracker.counts
        results.append(GameResult(seat, totals[seat], win, counts, deal if duplicate else None))
        if on_game is not None:
            on_game()
    return results


def sum_counts(counts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Trackers' counts summed key by key: numbers are added, nested dicts summed the same
    way (a key missing from some games counts 0 there); the keys keep the order in which
    they first occur."""
    out: dict[str, Any] = {}
    for c in counts:
        for key, value in c.items():
            if isinstance(value, Mapping):
                out[key] = sum_counts([out.get(key, {}), value])
            else:
                out[key] = out.get(key, 0.0) + float(value)
    return out


def _as_ints(counts: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _as_ints(v) if isinstance(v, Mapping) else int(v) for k, v in counts.items()}


def _rate(successes: float, n: float) -> tuple[float | None, list[float] | None]:
    """A proportion and its Wilson 95% interval, or (None, None) when ``n`` is 0."""
    if not n:
        return None, None
    return successes / n, list(wilson_interval(successes, int(n)))


def response_figures(by_response: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
    """The figures of summed per-response counts (the ``by_correct_response`` of
    :class:`~ratenvs.ratto_zakko.evaluation.AnswerTracker`): for every correct response type its
    ``cards``, ``answers`` and ``correct_answers``, ``answer_rate`` (answers / cards) and
    ``accuracy`` (correct answers / answers), each with a Wilson 95% interval (None where
    its denominator is 0), and the lowest answer rate over the types that had cards:
    ``min_answer_rate`` (with its interval) and ``min_answer_rate_response`` (of types with
    equal rates, the one with the most cards).

    An answer counts only if the seat gave it before the card resolved: against fast
    opponents a card someone already won is gone before a slow seat answers, so the
    answer rate is "answered before the card resolved", not "would have answered"."""
    table: dict[str, Any] = {}
    for name, c in by_response.items():
        cards, answers, correct = (int(c.get(k, 0)) for k in COUNT_KEYS)
        answer_rate, answer_rate_ci = _rate(answers, cards)
        accuracy, accuracy_ci = _rate(correct, answers)
        table[name] = {
            "cards": cards,
            "answers": answers,
            "correct_answers": correct,
            "answer_rate": answer_rate,
            "answer_rate_ci": answer_rate_ci,
            "accuracy": accuracy,
            "accuracy_ci": accuracy_ci,
        }
    out: dict[str, Any] = {BY_RESPONSE: table}
    seen = [(t["answer_rate"], -t["cards"], name) for name, t in table.items() if t["cards"]]
    if seen:  # of equal rates the best measured (most cards), then the first
        rate, _, name = min(seen, key=lambda t: t[:2])
        out["min_answer_rate"] = rate
        out["min_answer_rate_ci"] = table[name]["answer_rate_ci"]
        out["min_answer_rate_response"] = name
    return out


def check_duplicate(games: int, players: int) -> None:
    """A ValueError unless ``games`` is a whole number of duplicate blocks (one game from
    every seat of a deal) of a game of ``players`` seats, at least two."""
    if players < 2:
        raise ValueError("duplicate deals need seats to rotate: this is a one-player game")
    if games % players or games < 2 * players:
        raise ValueError(
            f"with duplicate deals every deal is played from each of the {players} seats: "
            f"games must be a multiple of {players}, at least {2 * players} (two deals); "
            f"got {games}"
        )


def _mean_and_spread(means: np.ndarray) -> tuple[float, float]:
    """The mean of the per-deal means and their sample standard deviation."""
    return float(means.mean()), float(means.std(ddof=1)) if means.size > 1 else 0.0


def deal_figures(
    deals: int, win: float, win_sd: float, reward: float, reward_sd: float
) -> dict[str, Any]:
    """The win rate and mean reward of a duplicate evaluation from its ``deals`` deals'
    means and their sample standard deviations: normal 95% intervals over the deals (the
    win rate's clipped to [0, 1]); the deals' spreads are kept (``deal_win_sd``,
    ``deal_reward_sd``) so that runs can be pooled exactly."""
    win_half = Z_95 * win_sd / math.sqrt(deals)
    reward_half = Z_95 * reward_sd / math.sqrt(deals)
    return {
        "win_rate": win,
        "win_rate_ci": [max(0.0, win - win_half), min(1.0, win + win_half)],
        "mean_reward": reward,
        "mean_reward_ci": [reward - reward_half, reward + reward_half],
        "duplicate": True,
        "deals": deals,
        "deal_win_sd": win_sd,
        "deal_reward_sd": reward_sd,
    }


def summarise(results: Sequence[GameResult]) -> dict[str, Any]:
    """Win rate (Wilson 95%) and mean reward (normal 95%) of a list of games, and the
    summed counts of the game's tracker (with ``answer_accuracy`` and its Wilson interval
    when the counts hold answers, and the per-response figures of
    :func:`response_figures` when they hold ``by_correct_response``).

    Games of duplicate deals (:func:`play_match` with ``duplicate``) are summarised by
    deal: the win rate and mean reward are the same means, their normal 95% intervals are
    over the deals' means (the games of a deal are not independent of each other: they
    share its cards), with ``duplicate``, ``deals`` and the deals' spreads
    (:func:`deal_figures`)."""
    n = len(results)
    wins = float(sum(r.win for r in results))
    dealt = [r.deal is not None for r in results]
    if any(dealt):
        if not all(dealt):
            raise ValueError("games of duplicate deals and games of their own deals mixed")
        order = {d: i for i, d in enumerate(dict.fromkeys(r.deal for r in results))}
        rows = np.array([order[r.deal] for r in results])
        size = np.bincount(rows)
        win_means = np.bincount(rows, [r.win for r in results]) / size
        reward_means = np.bincount(rows, [r.reward for r in results]) / size
        out = {"games": n, "wins": wins}
        out.update(
            deal_figures(len(order), *_mean_and_spread(win_means), *_mean_and_spread(reward_means))
        )
    else:
        mean, ci = mean_interval([r.reward for r in results])
        low, high = wilson_interval(wins, n)
        out = {
            "games": n,
            "wins": wins,
            "win_rate": wins / n,
            "win_rate_ci": [low, high],
            "mean_reward": mean,
            "mean_reward_ci": list(ci),
        }
    extras = [r.extras for r in results if r.extras]
    if extras:
        out.update(count_figures(sum_counts(extras)))
    return out


def count_figures(totals: Mapping[str, Any]) -> dict[str, Any]:
    """The trackers' summed counts as integers, with ``answer_accuracy`` and its Wilson
    interval when they hold answers, and the per-response figures of
    :func:`response_figures` when they hold ``by_correct_response``."""
    totals = dict(totals)
    by_response = totals.pop(BY_RESPONSE, None)
    out: dict[str, Any] = _as_ints(totals)
    if totals.get("answers"):
        correct = totals["correct_answers"]
        out["answer_accuracy"] = correct / totals["answers"]
        out["answer_accuracy_ci"] = list(wilson_interval(correct, int(totals["answers"])))
    if by_response is not None:
        out.update(response_figures(by_response))
    return out


_POOL_PER_RUN = {
    *("games", "wins", "win_rate", "win_rate_ci", "mean_reward", "mean_reward_ci"),
    *("seed", "seconds", "answer_accuracy", "answer_accuracy_ci", BY_RESPONSE),
    *("min_answer_rate", "min_answer_rate_ci", "min_answer_rate_response", *COUNT_KEYS),
    *("deals", "deal_win_sd", "deal_reward_sd"),
}
"""Keys recomputed from the runs when they are pooled (the rest must agree)."""


def _tracker_counts(result: Mapping[str, Any]) -> dict[str, Any]:
    """The tracker's counts in an evaluation result (its figures left out), to sum."""
    counts: dict[str, Any] = {k: result[k] for k in COUNT_KEYS}
    if BY_RESPONSE in result:
        counts[BY_RESPONSE] = {
            name: {k: kind[k] for k in COUNT_KEYS} for name, kind in result[BY_RESPONSE].items()
        }
    return counts


def result_seeds(result: Mapping[str, Any]) -> list[Any]:
    """The seeds of an evaluation's games: its ``seed``, or a pooled one's list of them."""
    seed = result.get("seed")
    return list(seed) if isinstance(seed, list) else [seed]


def pool_evaluations(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Several evaluations of one agent against the same opponents on the same table
    (results of :func:`evaluate`, e.g. ``ratenvs evaluate --json`` on other seeds) as one:
    games and wins summed, the Wilson interval of the pooled win rate, the mean reward of
    all games with its normal 95% interval (recovered exactly from each run's mean,
    interval and size), the trackers' counts summed (answer accuracy and the per-response
    figures again), ``seed`` the list of the runs' seeds and ``seconds`` their sum.

    A ValueError if there are no results, two share a seed (the same games twice), or
    they differ in anything that is not recomputed: the game, agent, opponents, env
    options or overrides, or a figure such as an exact grade."""
    if not results:
        raise ValueError("pool_evaluations needs at least one evaluation")
    first = results[0]
    for r in results[1:]:
        for key in sorted((set(first) | set(r)) - _POOL_PER_RUN):
            if first.get(key) != r.get(key):
                raise ValueError(
                    f"evaluations to pool differ in {key!r}: {first.get(key)!r} and "
                    f"{r.get(key)!r} (seeds {first.get('seed')} and {r.get('seed')})"
                )
    seeds = [r["seed"] for r in results]
    flat = [s for r in results for s in result_seeds(r)]
    if len({repr(s) for s in flat}) != len(flat):  # a pooled result holds its runs' seeds
        raise ValueError(f"evaluations to pool share a seed (the same games twice): {seeds}")
    n = int(sum(r["games"] for r in results))
    wins = float(sum(r["wins"] for r in results))
    if first.get("duplicate"):
        out = {"games": n, "wins": wins}
        out.update(_pool_deals(results))
        return _pooled_rest(results, out)
    mean = sum(r["mean_reward"] * r["games"] for r in results) / n
    # each run's sample variance from its interval: half = Z * sd / sqrt(games)
    within = sum(
        (r["games"] - 1)
        * ((r["mean_reward_ci"][1] - r["mean_reward_ci"][0]) / 2 / Z_95) ** 2
        * r["games"]
        for r in results
    )
    between = sum(r["games"] * (r["mean_reward"] - mean) ** 2 for r in results)
    half = Z_95 * math.sqrt((within + between) / (n - 1) / n) if n > 1 else 0.0
    out: dict[str, Any] = {
        "games": n,
        "wins": wins,
        "win_rate": wins / n,
        "win_rate_ci": list(wilson_interval(wins, n)),
        "mean_reward": mean,
        "mean_reward_ci": [mean - half, mean + half],
    }
    return _pooled_rest(results, out)


def _pooled_rest(results: Sequence[Mapping[str, Any]], out: dict[str, Any]) -> dict[str, Any]:
    """A pooled evaluation's counts, the keys its runs share, its seeds and seconds."""
    if all("answers" in r for r in results):
        counts = [_tracker_counts(r) for r in results]
        out.update(count_figures(sum_counts(counts)))
    out.update({k: v for k, v in results[0].items() if k not in _POOL_PER_RUN})
    out["seed"] = [r["seed"] for r in results]
    out["seconds"] = round(sum(float(r.get("seconds", 0.0)) for r in results), 3)
    return out


def _pool_deals(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The deal figures (:func:`deal_figures`) of duplicate runs pooled: the deals' means
    and spreads recovered exactly from each run's deals, means and spreads."""
    deals = int(sum(r["deals"] for r in results))
    figures = []
    for mean_key, sd_key in (("win_rate", "deal_win_sd"), ("mean_reward", "deal_reward_sd")):
        mean = sum(r[mean_key] * r["deals"] for r in results) / deals
        within = sum((r["deals"] - 1) * r[sd_key] ** 2 for r in results)
        between = sum(r["deals"] * (r[mean_key] - mean) ** 2 for r in results)
        figures += [mean, math.sqrt((within + between) / (deals - 1))]
    return deal_figures(deals, *figures)


# ------------------------------------------------------------------- agents
@dataclass
class AgentRef:
    """An agent named on a command line: a bot ``game:bot``, a shipped agent ``agent:NAME``
    or a checkpoint."""

    label: str
    game: str
    make: Callable[[], Bot]
    env_options: dict[str, Any] | None = None
    """The checkpoint's env options (None for bots)."""
    checkpoint: Any = None
    """The loaded :class:`~ratenvs.agents.checkpoint.Checkpoint` (None for bots)."""


def resolve_agent(name: str, game: str | None = None) -> AgentRef:
    """The agent ``name`` names: ``agent:NAME`` (a shipped agent), a checkpoint path (both
    loaded safely and checked against their game: :func:`ratenvs.agents.checkpoint_env`),
    ``game:bot`` or, when ``game`` is known, a bare bot name. ``game``, when given, must be
    the agent's game. A ValueError says what is wrong."""
    from ratenvs import agents

    if name.startswith(agents.AGENT_PREFIX) or agents.is_checkpoint_path(name):
        ckpt = agents.load_agent_checkpoint(name, game=game)
        return AgentRef(name, ckpt.game, ckpt.bot, ckpt.env_options, ckpt)
    if ":" in name:
        game_name, bot = name.split(":", 1)
        spec = get_game(game_name)
    elif game is not None:
        spec, bot = GAMES[game], name
    else:
        example = next(iter(GAMES.values()))
        raise ValueError(
            f"agent {name!r}: write a bot as game:bot (e.g. "
            f"{example.name}:{example.default_opponent}), a shipped agent as agent:NAME, or "
            "give a checkpoint path"
        )
    if game is not None and spec.name != game:
        raise ValueError(f"agent {name!r} plays {spec.name}, not {game}")
    registry = spec.bots()
    if bot not in registry:
        raise ValueError(f"unknown bot {bot!r} for {spec.name}; choose one of {sorted(registry)}")
    return AgentRef(f"{spec.name}:{bot}", spec.name, registry[bot])


def make_opponents(
    game: str,
    names: Sequence[str] | None,
    seats: int,
    env_options: Mapping[str, Any] | None = None,
    flag: str = "--opponents",
) -> tuple[list[Bot], list[str]]:
    """Players for ``seats`` opponent seats: one name for all, one name per seat, or the
    game's default bot (names as :func:`resolve_agent` takes them; ``flag``, what the user
    wrote them with, names them in errors). With the table's ``env_options``, a checkpoint
    trained with other values of the game's view options sees the table with its own
    (:func:`seat_maker`)."""
    refs = opponent_refs(game, names, seats, flag)
    if env_options is None:
        return [r.make() for r in refs], [r.label for r in refs]
    return [seat_maker(r, env_options)() for r in refs], [r.label for r in refs]


def opponent_refs(
    game: str, names: Sequence[str] | None, seats: int, flag: str = "--opponents"
) -> list[AgentRef]:
    """The agents of ``seats`` opponent seats, resolved once (:func:`make_opponents`)."""
    spec = GAMES[game]
    if not names:
        names = [spec.default_opponent]
    if len(names) == 1:
        names = list(names) * seats
    if len(names) != seats:
        raise ValueError(f"{flag}: {seat_count_rule(seats)}, got {len(names)}")
    refs: dict[str, AgentRef] = {}
    for name in names:
        if name not in refs:
            refs[name] = resolve_agent(name, game)
    return [refs[name] for name in names]


def opponent_details(
    refs: Sequence[AgentRef], env_options: Mapping[str, Any]
) -> dict[str, dict[str, Any]]:
    """For each opponent (by label) that is a checkpoint or sees the table with view options
    of its own: the SHA-256 of its weights (``weights_sha256``) and those options
    (``own_view``), so a result says which weights and which views played."""
    out: dict[str, dict[str, Any]] = {}
    for ref in {r.label: r for r in refs}.values():
        label = ref.label
        info: dict[str, Any] = {}
        if ref.checkpoint is not None:
            info["weights_sha256"] = ref.checkpoint.card["weights_sha256"]
        own = own_view_options(ref, env_options)
        if own:
            info["own_view"] = own
        if info:
            out[label] = info
    return out


def own_view_options(
    ref: AgentRef, table_options: Mapping[str, Any], overrides: Mapping[str, Any] | None = None
) -> dict[str, Any] | None:
    """The view options ``ref`` sees a table of ``table_options`` with where they are not
    the table's (None: it sees the table's): a checkpoint's from its card (``overrides``
    of view options on top), a bot's from its class's ``view_options``."""
    options = game_options(ref.game)
    table = options.check(table_options)
    if ref.env_options is None:
        own = dict(getattr(ref.make, "view_options", None) or {})
    else:
        mine = options.check(ref.env_options)
        own = {k: (overrides or {}).get(k, mine[k]) for k in options.view_options()}
    differ = {k: v for k, v in own.items() if table[k] != v}
    return differ or None


def seat_maker(
    ref: AgentRef, table_options: Mapping[str, Any], overrides: Mapping[str, Any] | None = None
) -> Callable[[], Bot]:
    """How to seat ``ref`` at a table of ``table_options``: a bot as it is; a checkpoint
    trained with the table's values of the game's view options (``Option.view_only``:
    what a seat sees or is rewarded with) as it is too; one trained with other values
    wrapped in :class:`~ratenvs.common.bots.OwnView`, seeing the table's play with its
    own view options (its card's values, with the view options among ``overrides`` on
    top), as in training. Its policy must fit that view (a ValueError naming it). A bot
    class that declares ``view_options`` (e.g. the Rat-a-Tat Cat ``ceiling`` bot reads the
    ``owner_ceilings`` piece) sees with those values wherever the table's differ."""
    spec = GAMES[ref.game]
    own_views = own_view_options(ref, table_options, overrides)
    if own_views is None:
        return ref.make
    own = {**dict(table_options), **own_views}
    try:
        env = spec.load().raw_env(**own)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{ref.label} sees with its own view options {own_views}: {exc}") from None
    if ref.checkpoint is not None:
        check_policy_fits(ref.label, ref.checkpoint.spec, env, ref.game, own)
    game = env.game

    def make() -> Bot:
        return OwnView(ref.make(), game)

    return make


# ------------------------------------------------------------ env overrides
BOOL_WORDS = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False}
"""How ``--env KEY=VALUE`` writes a switch."""


def game_options(game: str) -> OptionSpec:
    """The declared options of ``game`` (its Game class's ``options``): the env options."""
    return GAMES[game].load().raw_env.game_class.options


def _option(game: str, key: str, what: str) -> Option:
    options = game_options(game)
    if key not in options:
        raise ValueError(f"{what}: {game} has no option {key!r}; its options are {list(options)}")
    return options[key]


def parse_option_value(option: Option, text: str) -> Any:
    """The value ``text`` writes for ``option``, by its declared type: an int (``none`` for
    an optional int), a switch (true / false, yes / no, 1 / 0) or one of its choices
    (written as printed: ``dessert``, ``4``); then checked by the option (its range). A
    ValueError says what is wrong."""
    value: Any
    if option.kind == "int":
        if option.optional and text.strip().lower() == "none":
            value = None
        else:
            try:
                value = int(text)
            except ValueError:
                raise ValueError(
                    f"option {option.name!r} must be an integer ({option.allowed}), got {text!r}"
                ) from None
    elif option.kind == "bool":
        if text.strip().lower() not in BOOL_WORDS:
            raise ValueError(f"option {option.name!r} takes true or false, got {text!r}")
        value = BOOL_WORDS[text.strip().lower()]
    else:
        matches = [c for c in option.choices if str(c) == text.strip()]
        if not matches:
            raise ValueError(
                f"option {option.name!r} must be one of "
                f"{', '.join(str(c) for c in option.choices)}, got {text!r}"
            )
        value = matches[0]
    return option.check(value)


def parse_env_overrides(game: str, texts: Sequence[str], flag: str = "--env") -> dict[str, Any]:
    """``KEY=VALUE`` texts (``--env``, repeatable) as typed env options of ``game``
    (:func:`parse_option_value`); a malformed text, an unknown option, a bad value or an
    option given twice is a ValueError naming ``flag`` and the text."""
    out: dict[str, Any] = {}
    for text in texts:
        what = f"{flag} {text}"
        key, sep, value = text.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"{what}: write KEY=VALUE (e.g. {flag} num_players=2)")
        if key in out:
            raise ValueError(f"{what}: option {key!r} given twice")
        option = _option(game, key, what)
        try:
            out[key] = parse_option_value(option, value)
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None
    return out


def check_policy_fits(
    label: str, bot: Any, env: Any, game: str, options: Mapping[str, Any]
) -> None:
    """A policy (a :class:`~ratenvs.agents.checkpoint.PolicyBot`, or its
    :class:`~ratenvs.agents.checkpoint.PolicySpec`) reads the observations and chooses among
    the actions of ``env``; else a ValueError naming it (before any game). Other bots fit
    every env."""
    from ratenvs.agents.checkpoint import PolicyBot, PolicySpec

    spec = bot.spec if isinstance(bot, PolicyBot) else bot
    if not isinstance(spec, PolicySpec):
        return
    agent = env.possible_agents[0]
    size = int(env.observation_space(agent)["observation"].shape[0])
    actions = int(env.action_space(agent).n)
    if (size, actions) != (spec.observation_size, spec.num_actions):
        raise ValueError(
            f"{label}: its policy reads observations of size {spec.observation_size} and has "
            f"{spec.num_actions} actions; {game} with {dict(options)} gives {size} and "
            f"{actions}"
        )


def apply_env_overrides(
    ref: AgentRef, overrides: Mapping[str, Any] | None, flag: str = "env_overrides"
) -> dict[str, Any]:
    """The env options of an evaluation of ``ref``: its own (a bot: its game's gymnasium
    defaults) with ``overrides`` (typed values, e.g. ``{"window_ticks": 60}``) on top. Every
    override is checked by its option, the whole set by the game; for a checkpoint agent an
    override may not change the observation size or the action count its policy was
    trained for. A ValueError names ``flag`` (``--env`` on the command line) and says what
    is wrong."""
    spec = GAMES[ref.game]
    base = dict(spec.gymnasium_defaults) if ref.env_options is None else dict(ref.env_options)
    overrides = dict(overrides or {})
    if not overrides:
        return base
    if flag.startswith("--"):
        what = " ".join(f"{flag} {k}={v}" for k, v in overrides.items())
    else:
        what = f"{flag} {overrides}"
    for key, value in overrides.items():
        option = _option(ref.game, key, what)
        try:
            option.check(value)
        except ValueError as exc:
            raise ValueError(f"{what}: {exc}") from None
    options = {**base, **overrides}
    try:
        env = spec.load().raw_env(**options)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"{what}: {ref.game} with {options}: {exc}") from None
    if ref.checkpoint is not None:
        try:
            check_policy_fits(f"the agent {ref.label}", ref.checkpoint.spec, env, ref.game, options)
        except ValueError as exc:
            raise ValueError(
                f"{what}: {exc}; an override may not change the observation or action size "
                "of a checkpoint"
            ) from None
    return options


def evaluate_agent(
    game: str,
    env_options: dict[str, Any],
    agent: Bot,
    opponent_names: Sequence[str] | None,
    games: int,
    seed: int,
    extras: EvaluationExtras | None = None,
    on_game: Callable[[], None] | None = None,
    *,
    duplicate: bool = False,
) -> dict[str, Any]:
    """Evaluate ``agent`` over ``games`` seat-rotated games against the named opponents;
    add the game's exact grade (:attr:`EvaluationExtras.exact_grade`) if it has one. A
    policy among the players (the agent or a checkpoint opponent) must fit the env's
    observation and action sizes (a ValueError before any game). ``on_game``: called after
    each game. ``duplicate``: every deal played from each seat (:func:`play_match`),
    intervals over the deals (:func:`summarise`)."""
    games, seed = check_run(games, seed)
    spec = GAMES[game]
    extras = extras_for(game) if extras is None else extras
    env = spec.load().raw_env(**env_options)
    n = int(env.num_players)
    refs = opponent_refs(game, opponent_names, n - 1)
    opponents = [seat_maker(r, env_options)() for r in refs]
    labels = [r.label for r in refs]
    players = [
        ("the agent", agent),
        *((f"opponent {name}", b) for name, b in zip(labels, opponents)),
    ]
    for label, bot in players:
        check_policy_fits(label, bot, env, game, env_options)
    t0 = time.perf_counter()
    matches = play_match(
        spec,
        env_options,
        agent,
        opponents,
        games,
        seed,
        extras=extras,
        on_game=on_game,
        duplicate=duplicate,
    )
    out = summarise(matches)
    out["opponents"] = labels
    details = opponent_details(refs, env_options)
    if details:
        out["opponent_details"] = details
    out["seed"] = seed
    out["env_options"] = dict(env_options)
    out["players"] = n
    out["reward_mode"] = env.options.get("reward")  # what the mean reward sums (None: no option)
    if extras.exact_grade is not None:  # graded as it sees the game (its own view options)
        from ratenvs.common.bots import OwnView

        if isinstance(agent, OwnView):
            out.update(extras.exact_grade(agent.bot, dict(agent.game.params)))
        else:
            out.update(extras.exact_grade(agent, env_options))
    out["seconds"] = round(time.perf_counter() - t0, 3)
    return out


def evaluate(
    agent: str | AgentRef,
    opponents: Sequence[str] | None = None,
    games: int = 200,
    seed: int = 0,
    extras: EvaluationExtras | None = None,
    *,
    env_overrides: Mapping[str, Any] | None = None,
    on_game: Callable[[], None] | None = None,
    duplicate: bool = False,
) -> dict[str, Any]:
    """Evaluate the agent named ``agent`` (:func:`resolve_agent`, or an :class:`AgentRef`
    already resolved) in its own game and env options (a bot: its game's gymnasium
    defaults) against ``opponents`` (default: the game's default bot in every other seat).

    ``env_overrides`` (typed values, e.g. ``{"window_ticks": 60}``) changes options of
    that env for this evaluation (:func:`apply_env_overrides`: checked by the game; not
    the observation or action size of a checkpoint). The result's ``env_options`` are the
    options played, ``env_overrides`` (when some were given) what was overridden; a
    checkpoint's result names it (``checkpoint``) and its weights (``weights_sha256``).
    ``duplicate``: every deal is played from each seat, the intervals over the deals
    (:func:`play_match`, :func:`summarise`); ``games`` a multiple of the seats."""
    games, seed = check_run(games, seed)
    ref = agent if isinstance(agent, AgentRef) else resolve_agent(agent)
    spec = GAMES[ref.game]
    env_options = apply_env_overrides(ref, env_overrides)
    n = int(spec.load().raw_env(**env_options).num_players)
    if opponents and n == 1:
        raise ValueError(
            f"--opponents: {ref.game} with {env_options} is a one-player game (no opponent seats)"
        )
    out = evaluate_agent(
        ref.game,
        env_options,
        seat_maker(ref, env_options)(),
        opponents,
        games,
        seed,
        extras,
        on_game=on_game,
        duplicate=duplicate,
    )
    if env_overrides:
        out["env_overrides"] = dict(env_overrides)
    if ref.checkpoint is not None:
        out["checkpoint"] = ref.label
        out["weights_sha256"] = ref.checkpoint.card["weights_sha256"]  # which weights played
    out["agent"] = ref.label
    out["game"] = ref.game
    return out


# --------------------------------------------------------------- tournament
def pairing_seats(game: int, players: int) -> tuple[list[int], list[int]]:
    """The seats of a pairing's two agents in its game ``game`` of ``players`` seats: the
    first agent in the even seats and the second in the odd ones when ``game`` is even,
    the other way round when it is odd (two seats: the first agent in seat ``game mod 2``,
    as :func:`play_match` rotates them). An even number of games balances the seats; with
    an odd one the first agent has one game more on the even seats (seat 0, and with an odd
    number of seats one seat more in that game): every shipped table plays an even number."""
    even = list(range(0, players, 2))
    odd = list(range(1, players, 2))
    return (even, odd) if game % 2 == 0 else (odd, even)


def win_shares(winners: Sequence[bool]) -> list[float]:
    """Each seat's share of a game's win: ``1/w`` for each of ``w`` winners, else 0."""
    w = sum(bool(x) for x in winners)
    return [(1.0 / w) if x else 0.0 for x in winners]


def play_pairing(
    spec: GameSpec,
    env_options: dict[str, Any],
    first: Callable[[], Bot],
    second: Callable[[], Bot],
    games: int,
    seed: int,
) -> tuple[list[float], list[float]]:
    """``games`` games between two agents sharing the seats (:func:`pairing_seats`), each
    seat played by its own instance (``first()`` / ``second()``, made once for the
    pairing); game ``g`` is dealt with seed ``seed * GAME_SEED_STRIDE + g``. Returns each
    agent's score per game: the summed win shares of its seats (:func:`win_shares`)."""
    games, seed = check_run(games, seed)
    env = spec.load().raw_env(**env_options)
    n = int(env.num_players)
    slots = (n + 1) // 2
    bots_a = [first() for _ in range(slots)]
    bots_b = [second() for _ in range(slots)]
    scores_a: list[float] = []
    scores_b: list[float] = []
    for g in range(games):
        seats_a, seats_b = pairing_seats(g, n)
        players: list[Any] = [None] * n
        for bot, seat in zip(bots_a, seats_a):
            players[seat] = bot
        for bot, seat in zip(bots_b, seats_b):
            players[seat] = bot
        _, winners = play_game(spec, env_options, players, seed * GAME_SEED_STRIDE + g, env)
        shares = win_shares(winners)
        scores_a.append(sum(shares[s] for s in seats_a))
        scores_b.append(sum(shares[s] for s in seats_b))
    return scores_a, scores_b


def tournament_agents(names: Sequence[str | AgentRef]) -> list[AgentRef]:
    """The agents of a tournament (:func:`resolve_agent`, or already resolved): at least
    two, each named once, all of one game; else a ValueError."""
    if len(names) < 2:
        raise ValueError("a tournament needs at least two agents")
    refs = [n if isinstance(n, AgentRef) else resolve_agent(n) for n in names]
    labels = [r.label for r in refs]
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:  # two rows of one name: which rating is whose?
        raise ValueError(f"a tournament names each agent once; given twice: {', '.join(twice)}")
    games_set = {r.game for r in refs}
    if len(games_set) != 1:
        raise ValueError(f"tournament agents play different games: {sorted(games_set)}")
    return refs


def tournament_env(
    refs: Sequence[AgentRef],
    players: int | None = None,
    env_overrides: Mapping[str, Any] | None = None,
    *,
    players_flag: str = "players",
    env_flag: str = "env_overrides",
) -> tuple[dict[str, Any], int]:
    """The env options and seat count of a tournament of ``refs``.

    The seats: ``players``, by default the checkpoints' ``num_players`` (else 2); the
    options: the first checkpoint's env options (the checkpoints must agree on the rules
    and play that many seats; they may differ in the game's view options, and then each
    sees the table with its own: :func:`seat_maker`), else the game's gymnasium defaults
    with ``num_players`` seats; ``env_overrides`` on top (as :func:`apply_env_overrides`:
    checked by the game, not a checkpoint's observation or action size, and not
    ``num_players``: that is ``players``). A ValueError names ``players_flag`` /
    ``env_flag`` and says what is wrong."""
    game = refs[0].game
    spec = GAMES[game]
    seat_option = game_options(game)["num_players"]
    checkpoints = [r for r in refs if r.env_options is not None]
    options = [dict(r.env_options) for r in checkpoints]
    game_opts = game_options(game)
    rules = [game_opts.rules_of(o) for o in options]
    if rules and any(r != rules[0] for r in rules):
        differ = sorted({k for r in rules for k in r if r[k] != rules[0][k]})
        raise ValueError(
            "tournament checkpoints were trained with different rules ("
            + ", ".join(f"{k}: " + " / ".join(sorted({repr(r[k]) for r in rules})) for k in differ)
            + f"); only the view options {list(game_opts.view_options())} may differ"
        )
    trained = int(options[0].get("num_players", seat_option.default)) if options else None
    if players is not None:
        try:
            seat_option.check(players)
        except ValueError as exc:
            raise ValueError(f"{players_flag} {players}: {game} {exc}") from None
        if trained is not None and trained != players:
            raise ValueError(
                f"{players_flag} {players}: the checkpoint {checkpoints[0].label} plays "
                f"num_players={trained}: a tournament with it plays {trained} seats"
            )
    seats = int(players if players is not None else 2 if trained is None else trained)
    if seats < 2:
        raise ValueError(
            f"tournaments are two-seat matches or more; these agents play with num_players={seats}"
        )
    overrides = dict(env_overrides or {})
    if "num_players" in overrides:
        raise ValueError(
            f"{env_flag} num_players={overrides['num_players']}: a tournament's seat count is "
            f"{players_flag}"
        )
    if checkpoints:
        for ref in reversed(checkpoints):  # each checked; the table is the first's
            env_options = apply_env_overrides(ref, overrides, flag=env_flag)
        return env_options, seats
    base = {**spec.gymnasium_defaults, "num_players": seats}
    if not overrides:
        try:
            spec.load().raw_env(**base)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{players_flag} {seats}: {game} with {base}: {exc}") from None
    bots = AgentRef(refs[0].label, game, refs[0].make, base)
    return apply_env_overrides(bots, overrides, flag=env_flag), seats


def tournament(
    names: Sequence[str | AgentRef],
    games: int,
    seed: int,
    *,
    players: int | None = None,
    env_overrides: Mapping[str, Any] | None = None,
    on_games: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Every agent against every other (:func:`play_pairing`: the two share the seats,
    even and odd alternated game by game); Elo ratings from a Bradley-Terry fit with
    bootstrap 95% intervals.

    The agents (:func:`resolve_agent`, or already resolved) must play the same game.
    ``players`` seats per game (default: the checkpoints' ``num_players``, else 2); the
    env options are the first checkpoint's (the checkpoints must agree on the rules and
    play ``players`` seats; one trained with other view options sees the table with its
    own: :func:`seat_maker`), or for bots alone the game's gymnasium defaults with
    ``num_players=players``, with ``env_overrides`` on top (:func:`tournament_env`). An
    agent's score in a game is the share of the win its seats took (a win shared by ``w``
    seats: ``1/w`` each). Returns the game, env options (and the overrides, when some
    were given; ``own_views``: the options of each agent that sees with its own), players,
    games per pairing, seed, the agents in order, every pairing's score (Wilson 95%) and
    the ratings, best first, each with the agent's mean score over its games. ``on_games``:
    called with the games of each pairing once it is played (a progress bar's tick).
    """
    games, seed = check_run(games, seed)
    refs = tournament_agents(names)
    game = refs[0].game
    spec = GAMES[game]
    env_options, seats = tournament_env(refs, players, env_overrides)
    makers = [seat_maker(r, env_options, env_overrides) for r in refs]
    k = len(refs)
    results: dict[tuple[int, int], list[float]] = {}
    own: list[list[float]] = [[] for _ in refs]
    pairs = []
    for i in range(k):
        for j in range(i + 1, k):
            scores, other = play_pairing(
                spec,
                env_options,
                makers[i],
                makers[j],
                games,
                seed + TOURNAMENT_SEED_STRIDE * (i * k + j),
            )
            results[(i, j)] = scores
            if on_games is not None:
                on_games(games)
            own[i] += scores
            own[j] += other
            total = float(sum(scores))
            pairs.append(
                {
                    "agent": refs[i].label,
                    "opponent": refs[j].label,
                    "games": games,
                    "score": total / games,
                    "score_ci": list(wilson_interval(total, games)),
                }
            )
    elo, ci = bootstrap_bradley_terry(results, k, np.random.default_rng(seed))
    order = np.argsort(-elo)
    ratings = [
        {
            "agent": refs[i].label,
            "elo": float(elo[i]),
            "elo_ci": [float(ci[i, 0]), float(ci[i, 1])],
            "mean_score": float(np.mean(own[i])),
        }
        for i in order
    ]
    out: dict[str, Any] = {"game": game, "env_options": env_options}
    if env_overrides:
        out["env_overrides"] = dict(env_overrides)
    views = {}
    for r in refs:
        own = own_view_options(r, env_options, env_overrides)
        if own is not None:
            views[r.label] = {**env_options, **own}
    if views:
        out["own_views"] = views
    weights = {
        r.label: r.checkpoint.card["weights_sha256"] for r in refs if r.checkpoint is not None
    }
    if weights:
        out["weights_sha256"] = weights  # which weights played, by agent
    out.update(
        {
            "players": seats,
            "games": games,
            "seed": seed,
            "agents": [r.label for r in refs],
            "pairs": pairs,
            "ratings": ratings,
            "rating_method": RATING_METHOD,
        }
    )
    return out


# ----------------------------------------------------------------- printing
def is_solo(result: Mapping[str, Any]) -> bool:
    """An evaluation of a one-player game (Catz, Ratz and Batz with ``num_players=1``): the
    agent wins every game, so its win rate says nothing; its score and grade do."""
    players = result.get("players", result.get("env_options", {}).get("num_players"))
    return players == 1


def evaluation_rows(result: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The figures of an evaluation (:func:`evaluate`) as (figure, value, 95% interval)
    rows: win rate (none in a one-player game: :func:`is_solo`), mean reward (a one-player
    game's mean score, under ``reward="score"``), and the game's own (correct answers, the
    exact grade)."""
    solo = is_solo(result)
    rows = []
    if not solo:
        low, high = result["win_rate_ci"]
        rows.append(("win rate", f"{result['win_rate']:.3f}", f"[{low:.3f}, {high:.3f}]"))
    low, high = result["mean_reward_ci"]
    # one game has no spread to estimate: its [mean, mean] (kept for pooling) is no interval
    spread = f"[{low:.3f}, {high:.3f}]" if result["games"] > 1 else "n/a (one game)"
    mean = "mean score per game" if solo and result.get("reward_mode") == "score" else "mean reward"
    rows.append((mean, f"{result['mean_reward']:.3f}", spread))
    if "answer_accuracy" in result:
        low, high = result["answer_accuracy_ci"]
        rows.append(
            (
                f"correct answers ({result['answers']} of {result['cards']} cards answered)",
                f"{result['answer_accuracy']:.3f}",
                f"[{low:.3f}, {high:.3f}]",
            )
        )
    if "min_answer_rate" in result:
        low, high = result["min_answer_rate_ci"]
        name = result["min_answer_rate_response"]
        kind = result[BY_RESPONSE][name]
        rows.append(
            (
                f"lowest answer rate ({name}: {kind['answers']} of {kind['cards']} cards)",
                f"{result['min_answer_rate']:.3f}",
                f"[{low:.3f}, {high:.3f}]",
            )
        )
    if "exact_expected_score" in result:
        rows.append(("exact expected turn score", f"{result['exact_expected_score']:.4f}", "exact"))
        rows.append(("optimal turn score", f"{result['optimal_expected_score']:.4f}", "exact"))
        rows.append(("ratio to optimal", f"{result['ratio_to_optimal']:.4%}", "exact"))
    return rows


def evaluation_line(result: Mapping[str, Any]) -> str:
    """An evaluation in one line (what ``make train`` prints at the end of a run): the win
    rate and the mean reward, or in a one-player game (:func:`is_solo`) the mean score and
    the exact grade (the solver's expected turn score and its share of the optimum)."""
    against = ", ".join(result["opponents"]) or "-"
    low, high = result["mean_reward_ci"]
    if is_solo(result):
        mean = "mean score" if result.get("reward_mode") == "score" else "mean reward"
        line = f"evaluation ({result['games']} games, one player): {mean} "
        line += f"{result['mean_reward']:.3f} [{low:.3f}, {high:.3f}]"
    else:
        wl, wh = result["win_rate_ci"]
        line = (
            f"evaluation ({result['games']} games vs {against}): win rate "
            f"{result['win_rate']:.3f} [{wl:.3f}, {wh:.3f}], "
            f"mean reward {result['mean_reward']:.3f}"
        )
    if "ratio_to_optimal" in result:
        line += (
            f"; exact expected turn score {result['exact_expected_score']:.4f} "
            f"= {result['ratio_to_optimal']:.4%} of optimal"
        )
    return line


RESPONSE_HEADER = (
    "correct response",
    "cards",
    "answered",
    "answer rate",
    "95% interval",
    "correct",
    "accuracy",
    "95% interval",
)
"""The columns of :func:`response_rows`."""
RESPONSE_TITLE = "answers by the card's correct response (answered: before the card resolved)"


def _share(value: float | None, ci: Sequence[float] | None) -> tuple[str, str]:
    if value is None or ci is None:
        return "-", "-"
    return f"{value:.3f}", f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def response_rows(result: dict[str, Any]) -> list[tuple[str, ...]]:
    """The per-response figures of an evaluation (:func:`response_figures`) as rows of
    :data:`RESPONSE_HEADER` (none when the evaluation has no such figures)."""
    rows = []
    for name, t in result.get(BY_RESPONSE, {}).items():
        rows.append(
            (
                name,
                str(t["cards"]),
                str(t["answers"]),
                *_share(t["answer_rate"], t["answer_rate_ci"]),
                str(t["correct_answers"]),
                *_share(t["accuracy"], t["accuracy_ci"]),
            )
        )
    return rows


def format_evaluation(result: dict[str, Any]) -> str:
    """An evaluation (:func:`evaluate`) as a plain-text table: figure, value, 95% interval;
    then, for Ratto Zakko, the answers by correct response (:func:`response_rows`)."""
    rows = evaluation_rows(result)
    against = ", ".join(result["opponents"]) or "no opponents"
    played = ", one player" if is_solo(result) else f" against {against}"
    title = (
        f"{result.get('agent', 'agent')} ({result.get('game', '')}, {result['env_options']}): "
        f"{result['games']} games{played}"
    )
    if result.get("duplicate"):
        title += (
            f"\n{result['deals']} duplicate deals, each played from every seat: the intervals "
            "are over the deals"
        )
    if result.get("env_overrides"):
        title += f" (env overrides {result['env_overrides']})"
    for label, info in (result.get("opponent_details") or {}).items():
        if info.get("own_view"):
            title += f"\n{label} sees the table with its own {info['own_view']}"
    text = title + "\n" + _table(("figure", "value", "95% interval"), rows, right=(1, 2))
    by_response = response_rows(result)
    if by_response:
        right = tuple(range(1, len(RESPONSE_HEADER)))
        text += "\n\n" + RESPONSE_TITLE + "\n" + _table(RESPONSE_HEADER, by_response, right)
    return text


def _pair_rows(result: dict[str, Any]) -> list[tuple[str, ...]]:
    rows = []
    for p in result["pairs"]:
        low, high = p["score_ci"]
        rows.append(
            (
                p["agent"],
                p["opponent"],
                str(p["games"]),
                f"{p['score']:.3f}",
                f"[{low:.3f}, {high:.3f}]",
            )
        )
    return rows


def _rating_rows(result: dict[str, Any]) -> list[tuple[str, ...]]:
    rows = []
    for rank, r in enumerate(result["ratings"], 1):
        low, high = r["elo_ci"]
        mean = r.get("mean_score")
        rows.append(
            (
                str(rank),
                r["agent"],
                f"{r['elo']:+.0f}",
                f"[{low:+.0f}, {high:+.0f}]",
                "-" if mean is None else f"{mean:.3f}",
            )
        )
    return rows


PAIRS_TITLE = (
    "pairings (score: the agent's share of the wins, a shared win split; seats alternated)"
)
RATINGS_TITLE = "Bradley-Terry ratings (Elo scale, mean 0, bootstrap 95%)"


def tournament_caption(result: Mapping[str, Any]) -> str:
    """The game of a tournament and the env options it played (with those overridden by
    ``--env``), e.g. ``catz_ratz_batz, env options: num_players=2, turns=2``."""
    options = _options_text(result.get("env_options", {})) or "default options"
    caption = f"{result.get('game', 'tournament')}, env options: {options}"
    if result.get("env_overrides"):
        caption += f" (env overrides {_options_text(result['env_overrides'])})"
    return caption


def format_tournament(result: dict[str, Any]) -> str:
    """A tournament (:func:`tournament`) as a line naming the game and the env options it
    played (and any overridden), then two plain-text tables: the pairings and the
    ratings."""
    players = result.get("players", 2)
    played = tournament_caption(result)
    views = [f"{label} sees with {_options_text(opts)}" for label, opts in _views(result)]
    return "\n".join(
        [
            played,
            *views,
            f"{PAIRS_TITLE}, {players} seats",
            _table(
                ("agent", "opponent", "games", "score", "95% interval"),
                _pair_rows(result),
                (2, 3, 4),
            ),
            "",
            RATINGS_TITLE,
            _table(
                ("rank", "agent", "elo", "95% interval", "mean score"),
                _rating_rows(result),
                right=(0, 2, 3, 4),
            ),
        ]
    )


def _options_text(options: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={_cli_value(v)}" for k, v in options.items())


def _views(result: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The agents that see the table with their own view options, and those options."""
    return list((result.get("own_views") or {}).items())


def _cli_value(value: Any) -> str:
    """An env option's value as ``--env KEY=VALUE`` writes it (:func:`parse_option_value`)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def tournament_command(result: dict[str, Any]) -> str:
    """The ``ratenvs tournament`` command line that plays ``result`` again (its agents,
    players, env overrides, games per pairing and seed), quoted for a POSIX shell."""
    import shlex

    words = ["ratenvs", "tournament", *result["agents"], "--players", str(result["players"])]
    for key, value in (result.get("env_overrides") or {}).items():
        words += ["--env", f"{key}={_cli_value(value)}"]
    words += ["--games", str(result["games"]), "--seed", str(result["seed"])]
    return shlex.join(words)


def _md_cell(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")


def _md_table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int]) -> str:
    rule = ["---:" if c in right else "---" for c in range(len(header))]
    lines = [header, rule, *rows]
    return "\n".join("| " + " | ".join(_md_cell(c) for c in line) + " |" for line in lines)


def format_tournament_markdown(result: dict[str, Any], command: str | None = None) -> str:
    """A tournament (:func:`tournament`) as a markdown section: a one-line caption (the
    game, env options, players, games per pairing, seed and ``command``, the command line
    that regenerates it: by default :func:`tournament_command`), the ratings table (rank,
    agent, Elo with its bootstrap 95% interval, mean score) and the pairings table (agent,
    opponent, score with its Wilson 95% interval)."""
    command = tournament_command(result) if command is None else command
    options = _options_text(result["env_options"])
    views = "".join(
        f" {label} sees the table with its own view options ({_options_text(opts)})."
        for label, opts in _views(result)
    )
    caption = (
        f"Tournament of {result['game']} ({options or 'default options'}): "
        f"{result['players']} players, {result['games']} games per pairing, seed "
        f"{result['seed']}; regenerate with `{command}`" + (f".{views}" if views else "")
    )
    ratings = _rating_rows(result)
    pairs = [(agent, opp, score, ci) for agent, opp, _games, score, ci in _pair_rows(result)]
    return "\n".join(
        [
            caption,
            "",
            _md_table(
                ("rank", "agent", "Elo", "95% interval", "mean score"), ratings, (0, 2, 3, 4)
            ),
            "",
            _md_table(("agent", "opponent", "score", "95% interval (Wilson)"), pairs, (2, 3)),
            "",
        ]
    )


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int]) -> str:
    widths = [max(len(str(r[c])) for r in [header, *rows]) for c in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        out = [
            str(cell).rjust(w) if c in right else str(cell).ljust(w)
            for c, (cell, w) in enumerate(zip(cells, widths))
        ]
        return "  ".join(out).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in rows)])
