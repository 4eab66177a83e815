"""The ``search`` bot: perfect-information Monte Carlo on the batched engine, a trained agent
playing the searching seat's play-outs.

At each of its decisions the bot deals ``determinizations`` tables consistent with
everything its seat knows (``game.resample``, the one door through which it reads the
state), and in every one of them plays each legal action and then the rest of the round:
its own seat by the agent (its greedy choice from the seat's own observation, as in play),
the other seats by ``opponents``: the ``heuristic`` bot (the default), the agent, each in
every other deal (``mixed``), or ``both`` (every deal played out with each; the agent's own
move is kept unless another action wins more against both). The move is the action that
wins the most of those rounds (``value="win"``: 1 to the round's lowest scorer, ``1/k`` when
``k`` share it) or scores best (``value="points"``: the seat's zero-sum round points, the
others' mean minus its own). Every action is played out in the same deals (common random
numbers: the dealt draw pile is the same for all of them), so the comparison between actions
is paired. It is a one-step rollout improvement of the agent (Tesauro and Galperin's
rollouts) against the players it assumes: how much it gains depends on how well the
``opponents`` model the table, and the deals are uniform over what the seat does not know
(not weighted by how the others played); the repository's ``studies/README.md``
("search_curve") has the measurements. ``margin``: a guarded search, which keeps the agent's
own move unless another action gains more than ``margin`` standard errors of the paired
difference over the deals (the noise of a few hundred play-outs otherwise overrules good
choices of the agent). ``belief``: the deals weighed by a learned belief over the other
hand (:mod:`ratenvs.rat_a_tat_cat.belief`), where they are otherwise uniform. The
``guarded_search`` bot (:class:`GuardedSearchBot`) is the search with both, at the settings
the study found strongest.

The play-outs run on :class:`~ratenvs.rat_a_tat_cat.batched.BatchedRatATatCat`
(:meth:`~ratenvs.rat_a_tat_cat.batched.BatchedRatATatCat.load_states` puts the dealt tables
in, the kernel plays the heuristic seats, the agent's NumPy policy moves a whole batch of
tables at once). It needs the ``batched`` extra (numba) and an agent's weights
(``agents``).

The agent: ``policy``, a :class:`~ratenvs.agents.checkpoint.PolicyBot` or a checkpoint
(``agent:NAME`` or a path); by default the shipped agent of the table's options
(:func:`default_agent`: ``rat_a_tat_cat_2p`` for 2 players and elimination,
``rat_a_tat_cat_2p_one_round`` for one round of 2 players, ``rat_a_tat_cat_4p`` for 4).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from ratenvs.common.bots import GameStateRequired
from ratenvs.common.game import Game
from ratenvs.common.options import finite_real
from ratenvs.common.search import legal_to_search, search_count, search_seconds
from ratenvs.rat_a_tat_cat.belief import Belief, belief_view, hand_kinds, shipped_belief

VALUES = ("win", "points")
"""What a play-out is worth to the searching seat: the round won (a share of it when tied)
or its zero-sum round points."""
DETERMINIZATIONS = 256
"""Deals per decision of the ``search`` bot (every legal action played out in each): about
0.1 s per searched decision of a 2-player game on one core (the repository's ``python -m
studies.search_curve`` measures the strength and time of other budgets)."""
OPPONENTS = ("agent", "heuristic", "mixed", "both")
"""Who plays the other seats in the play-outs: the agent, the ``heuristic`` bot (in the
kernel), each in half of the deals (``mixed``), or ``both``: every deal played out with
each, and the agent's own move kept unless another wins more against both."""
BATCH = 512
"""Tables played out at once: a deal's actions stay in one batch."""


def default_agent(game: Game) -> str:
    """The shipped agent whose play-outs fit a table of ``game``'s options."""
    p = game.params
    n = p["num_players"]
    if n == 2 and p.get("target_score"):
        return "agent:rat_a_tat_cat_2p"
    if n == 2:
        return "agent:rat_a_tat_cat_2p_one_round"
    if n == 4:
        return "agent:rat_a_tat_cat_4p"
    raise ValueError(
        f"no shipped Rat-a-Tat Cat agent plays {n} players: give the search bot a policy "
        "(policy='agent:NAME' or a checkpoint path) trained for this table"
    )


class AgentSearchBot:
    """PIMC over dealt tables, a trained agent playing out the seat; see the module.

    ``determinizations`` / ``seconds``: the deals per decision and a time limit (looked at
    after each batch of deals; at least one batch is played); ``policy``: the agent (None:
    :func:`default_agent`); ``value``: ``"win"`` or ``"points"``; ``opponents``: who plays
    the other seats of the play-outs (:data:`OPPONENTS`); ``margin``: None (the action of
    the best mean), or keep the agent's own move unless another action's mean gain over it
    exceeds ``margin`` standard errors of the paired difference (with ``"both"``, against
    both kinds of players); ``belief``: None (every deal counts alike), ``"shipped"`` (the
    shipped belief fitted on its agent's games, :mod:`ratenvs.rat_a_tat_cat.belief`), a
    belief file or a :class:`~ratenvs.rat_a_tat_cat.belief.Belief`: each deal weighed by how
    likely the belief makes the other hand it deals (2 players).
    """

    name = "search"
    play_out_reward = "zero_sum"
    """The play-out engine's reward, which :meth:`_worth` reads (a subclass valuing rounds
    otherwise may ask for each seat's ``"points"``)."""

    def __init__(
        self,
        determinizations: int | None = DETERMINIZATIONS,
        seconds: float | None = None,
        policy: Any = None,
        value: str = "win",
        opponents: str = "heuristic",
        margin: float | None = None,
        belief: Any = None,
    ) -> None:
        if determinizations is None and seconds is None:
            raise ValueError("a search needs a budget: determinizations, seconds or both")
        determinizations = search_count("determinizations", determinizations)
        seconds = search_seconds(seconds)
        if value not in VALUES:
            raise ValueError(f"value must be one of {VALUES}, got {value!r}")
        if (
            policy is not None
            and not isinstance(policy, str)
            and not callable(getattr(policy, "greedy", None))
        ):
            raise ValueError(
                f"policy must be a PolicyBot, 'agent:NAME' or a checkpoint path, got {policy!r}"
            )
        self.determinizations = determinizations
        self.seconds = seconds
        if opponents not in OPPONENTS:
            raise ValueError(f"opponents must be one of {OPPONENTS}, got {opponents!r}")
        self.opponents = opponents
        if margin is not None and (not finite_real(margin) or not float(margin) >= 0.0):
            raise ValueError(f"margin must be a finite number >= 0 or None, got {margin!r}")
        self.margin = None if margin is None else float(margin)
        if belief is not None and not isinstance(belief, str | Path | Belief):
            raise ValueError(
                f"belief must be None, 'shipped', a belief file or a Belief, got {belief!r}"
            )
        self._belief_given = belief
        self.belief: Belief | None = None
        self._reader: Any = None
        self.value = value
        self._policy_given = policy
        self.policy: Any = None
        self.game: Game | None = None
        self.seat: int | None = None
        self._engine: Any = None
        self._view: Any = None
        self._tables_dealt = 0
        self.last_search: dict[str, Any] = {}
        """Figures of the last decision searched: ``determinizations``, ``seconds`` and
        ``means`` (every legal action's mean value)."""

    # ------------------------------------------------------------ binding
    def bind_game(self, game: Game, seat: int) -> None:
        """Search ``game`` (called by the harness before play); ``seat``: where it sits."""
        from ratenvs.rat_a_tat_cat.batched import BatchedRatATatCat

        if getattr(game, "name", None) != "rat_a_tat_cat":
            raise ValueError(f"the search bot plays Rat-a-Tat Cat, not {game.name!r}")
        policy = self._policy_given
        if policy is None or isinstance(policy, str):
            from ratenvs.agents import load_agent_checkpoint

            policy = load_agent_checkpoint(policy or default_agent(game)).bot()
        options = {k: v for k, v in game.params.items() if k != "reward"}
        engine = BatchedRatATatCat(BATCH, seed=0, reward=self.play_out_reward, **options)
        size = getattr(getattr(policy, "spec", None), "observation_size", engine.observation_size)
        if size != engine.observation_size:
            raise ValueError(
                f"the policy reads observations of size {size}; this table's are of size "
                f"{engine.observation_size} (an agent trained for other options?)"
            )
        self.game, self.seat, self.policy, self._engine = game, int(seat), policy, engine
        self._view = game.observer(game.observation_kind)
        self._bind_belief(game)

    def _bind_belief(self, game: Game) -> None:
        """Load the belief given (``"shipped"``: the one fitted on the games of the agent
        the search plays out with) and check it belongs to this table and that agent."""
        given = self._belief_given
        if given is None:
            return
        agent = self._policy_given or default_agent(game)
        named = agent if isinstance(agent, str) and agent.startswith("agent:") else None
        if game.num_players != 2:
            raise ValueError(
                f"a belief weighs deals of the other hand of a 2-player table, not of "
                f"{game.num_players} players"
            )
        if isinstance(given, Belief):
            belief = given
        elif given == "shipped":
            if named is None:
                raise ValueError(
                    "belief='shipped' is the belief of a shipped agent's games: give the "
                    "search a shipped agent (policy='agent:NAME') or a belief file"
                )
            belief = shipped_belief(named)
        else:
            belief = Belief(given)
        if named is not None and belief.agent != named:
            raise ValueError(
                f"the belief {belief.path.name} was fitted on {belief.agent}'s games; the "
                f"search plays out with {named} (a belief belongs to its agent's setting)"
            )
        reader = belief_view(game, belief.view)
        if reader.size != belief.observation_size:
            raise ValueError(
                f"the belief {belief.path.name} reads observations of size "
                f"{belief.observation_size}; this table's are of size {reader.size}"
            )
        self.belief, self._reader = belief, reader

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """Not possible: a search needs the game (see :class:`~ratenvs.common.bots.StateBot`)."""
        raise GameStateRequired(
            "the 'search' bot searches from the game's state, not an observation alone: play "
            "it through ratenvs.common.play.play_game (ratenvs evaluate / tournament do), or "
            "call bind_game(game, seat) and act_in_state(state, seat, action_mask, rng)"
        )

    # ------------------------------------------------------------ searching
    def act_in_state(
        self, state: Any, seat: int, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """The searched action for ``seat`` (``state`` is read through ``game.resample`` only)."""
        legal = legal_to_search(self, action_mask)
        if legal.size == 1:
            self.last_search = {"determinizations": 0, "seconds": 0.0}
            return int(legal[0])
        from ratenvs.common.batched import seed_generators

        start = time.perf_counter()
        engine = self._engine
        engine.rng = seed_generators(int(rng.integers(2**62)), engine.num_envs)
        models = ("agent", "heuristic") if self.opponents == "both" else (self.opponents,)
        per_batch = max(1, engine.num_envs // legal.size)
        total = np.zeros((len(models), legal.size))
        weight = 0.0
        worths: list[np.ndarray] = []  # per batch: (models, deals, actions), for the margin
        weights: list[np.ndarray] = []
        done = 0
        while True:
            deals = per_batch
            if self.determinizations is not None:
                deals = min(deals, self.determinizations - done)
            tables = [self._deal(state, seat, rng) for _ in range(deals)]
            w = np.asarray(self._weights(tables, seat), dtype=np.float64)
            played = [self._play_out(tables, seat, legal, model) for model in models]
            for m, worth in enumerate(played):
                total[m] += w @ worth
            if self.margin is not None:
                worths.append(np.stack(played))
                weights.append(w)
            weight += float(w.sum())
            done += deals
            if self.determinizations is not None and done >= self.determinizations:
                break
            if self.seconds is not None and time.perf_counter() - start >= self.seconds:
                break
        if not weight > 0.0:
            raise RuntimeError("every deal of this decision had weight 0")
        means = total / weight
        self.last_search = {
            "determinizations": done,
            "seconds": time.perf_counter() - start,
            "means": dict(zip(legal.tolist(), means[0].tolist(), strict=True)),
        }
        if len(models) == 1 and self.margin is None:
            return int(legal[int(np.argmax(means[0]))])
        if len(models) > 1:
            self.last_search["heuristic_means"] = dict(
                zip(legal.tolist(), means[1].tolist(), strict=True)
            )
        # the agent's own move, unless another gains enough (against every model); every
        # table shows the seat what it sees now: the agent's choice from any of them
        seen = self._view.observe(tables[0], seat)[None]
        own = int(self.policy.greedy(seen, action_mask[None])[0])
        mine = int(np.flatnonzero(legal == own)[0])
        gain = means - means[:, mine : mine + 1]
        if self.margin is None:
            enough = np.ones(legal.size, dtype=bool)
        else:
            played = np.concatenate(worths, axis=1)
            w = np.concatenate(weights)
            diff = played - played[:, :, mine : mine + 1]  # (models, deals, actions)
            spread = np.einsum("d,mda->ma", w, (diff - gain[:, None, :]) ** 2) / weight
            n_eff = weight**2 / float(np.sum(w * w))
            error = np.sqrt(spread / max(n_eff - 1.0, 1.0))
            enough = (gain > self.margin * error).all(axis=0)
            self.last_search["own"] = own
        worst = np.where(enough, gain.min(axis=0), -np.inf)
        best = int(np.argmax(worst))
        return int(legal[best if worst[best] > 0.0 else mine])

    def _deal(self, state: Any, seat: int, rng: np.random.Generator) -> Any:
        """A table to play out: ``game.resample``, the only door through which the search
        reads ``state``."""
        assert self.game is not None
        return self.game.resample(state, seat, rng)

    def _weight(self, table: Any, seat: int) -> float:
        """How much a dealt table counts (1: every deal alike; a subclass may weigh deals
        by how likely they make what the others did)."""
        return 1.0

    def _weights(self, tables: list[Any], seat: int) -> np.ndarray:
        """Every dealt table's weight, in order: with a belief, its odds of the other hand
        given the seat's view (one pass of the classifier for the batch), else each
        table's :meth:`_weight`."""
        if self.belief is not None:
            seen = np.stack([self._reader.observe(t, seat) for t in tables])
            kinds = np.stack([hand_kinds(t, 1 - seat) for t in tables])
            return np.exp(self.belief.log_weight(seen, kinds).astype(np.float64))
        return np.array([self._weight(t, seat) for t in tables], dtype=np.float64)

    def _play_out(self, tables: list[Any], seat: int, legal: np.ndarray, model: str) -> np.ndarray:
        """Every action of ``legal`` played in every table, then the round: the seat by the
        agent, the other seats by the agent or (``model`` ``"heuristic"``) the kernel's
        heuristic bot, or (``"mixed"``) each in every other table. The seat's values,
        ``(tables, actions)``."""
        from ratenvs.rat_a_tat_cat.batched import BOT_HEURISTIC, C_ACTIVE, F_ROUND, F_TOTALS

        engine = self._engine
        a = legal.size
        k = len(tables) * a
        bots = None
        if model != "agent":
            bots = np.full((k, engine.num_players), BOT_HEURISTIC, dtype=np.int64)
            bots[:, seat] = engine.EXTERNAL
            if model == "mixed":  # every other table: the agent in every seat
                agent_tables = (np.arange(len(tables)) + self._tables_dealt) % 2 == 0
                bots[np.repeat(agent_tables, a)] = engine.EXTERNAL
                self._tables_dealt += len(tables)
        batch = engine.load_states([t for t in tables for _ in range(a)], bots)
        rounds = engine.st[:k, F_ROUND].copy()
        playing = engine.cs[:k, C_ACTIVE : C_ACTIVE + engine.num_players] != 0
        totals = engine.st[:k, F_TOTALS : F_TOTALS + engine.num_players].copy()
        live = np.zeros(engine.num_envs, dtype=bool)
        live[:k] = True
        actions = np.zeros(engine.num_envs, dtype=np.int64)
        actions[:k] = np.tile(legal, len(tables))
        worth = np.zeros(k)
        policy = self.policy
        while True:
            batch = engine.step(actions, live)
            ended = live[:k] & (batch.terminated[:k] | (engine.st[:k, F_ROUND] != rounds))
            if ended.any():
                worth[ended] = self._worth(
                    batch.rewards[:k][ended], playing[ended], seat, totals[ended], model
                )
                live[:k] &= ~ended
            rows = np.flatnonzero(live)
            if rows.size == 0:
                break
            actions[rows] = policy.greedy(batch.observation[rows], batch.mask[rows])
        return worth.reshape(len(tables), a)

    def _worth(
        self,
        rewards: np.ndarray,
        playing: np.ndarray,
        seat: int,
        totals: np.ndarray,
        model: str,
    ) -> np.ndarray:
        """The seat's value of rounds that ended with zero-sum ``rewards`` (rows) among the
        seats ``playing`` them: its points, or its share of the round won (the highest
        zero-sum reward is the lowest score of the round). ``totals``: every seat's game
        total before the round; ``model``: who played the other seats of these play-outs
        (:data:`OPPONENTS`, not ``"both"``). Both unused here: a subclass may value a round by
        the totals it leaves, against the players it was played with."""
        mine = rewards[:, seat].astype(np.float64)
        if self.value == "points":
            return mine
        scored = np.where(playing, rewards, -np.inf)
        top = scored == scored.max(axis=1, keepdims=True)
        return np.where(top[:, seat], 1.0 / top.sum(axis=1), 0.0)


GUARDED_DETERMINIZATIONS = 512
"""Deals per decision of the ``guarded_search`` bot: a median of 0.19 CPU seconds per
searched decision of a 2-player game to 100 (p95 0.54 s; the repository's
``studies/README.md``)."""


class GuardedSearchBot(AgentSearchBot):
    """The ``guarded_search`` bot: the search at the settings the repository's study found
    strongest (``studies/README.md``, "search_curve"): :data:`GUARDED_DETERMINIZATIONS`
    deals weighed by the shipped belief over the other hand (``belief="shipped"``, fitted
    on the games of the agent it plays out with), every deal played out against both the
    agent and the heuristic (``opponents="both"``), and the agent's own move kept unless
    another gains more than one standard error against both (``margin=1``). 2 players,
    with a shipped agent (the elimination game to 100 or one round); every argument of
    :class:`AgentSearchBot` may be given."""

    name = "guarded_search"

    def __init__(
        self,
        determinizations: int | None = GUARDED_DETERMINIZATIONS,
        seconds: float | None = None,
        policy: Any = None,
        value: str = "win",
        opponents: str = "both",
        margin: float | None = 1.0,
        belief: Any = "shipped",
    ) -> None:
        super().__init__(determinizations, seconds, policy, value, opponents, margin, belief)


__all__ = [
    "BATCH",
    "DETERMINIZATIONS",
    "GUARDED_DETERMINIZATIONS",
    "OPPONENTS",
    "VALUES",
    "AgentSearchBot",
    "GuardedSearchBot",
    "default_agent",
]
