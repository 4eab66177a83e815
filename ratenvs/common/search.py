"""Search bots over the Game interface: IS-MCTS and PIMC, for any game with a resampler.

Both are :class:`~ratenvs.common.bots.StateBot`\\ s: the harness
(:func:`~ratenvs.common.play.play_game`) binds them to the game and asks them to act in
the game's state, which they read only through ``game.resample(state, seat, rng)``: each
search deals a table consistent with everything the seat knows (a determinization) and
plays on in it, never in the state itself. A game without hidden information (Catz, Ratz
and Batz) resamples a copy, so the same bots search it as they are.

- :class:`ISMCTSBot` (``ismcts``): single-observer information-set Monte Carlo tree search
  (Cowling, Powley and Whitehouse 2012). Every iteration deals a determinization and
  descends a tree of the seat's information sets: a node is the seat's decision, reached
  by its own actions and what it observed since (its observation vector), the actions
  tried are those legal in this determinization, chosen by UCB1 with availability counts
  (an action's exploration term counts the visits in which it was legal). The other seats
  and chance play between the seat's decisions as the play-out does. A new node is added
  per iteration, the game is played out from it by the rollout bots, and the seat's value
  is backed up along the path. The move is the root's most visited action. With a
  ``prior`` (a policy with a ``logits(observation)`` method, e.g. a trained agent's
  :class:`~ratenvs.agents.checkpoint.PolicyBot`), actions are chosen by PUCT instead
  (AlphaZero's rule over availability counts): the mean value, an untried action the
  node's mean, plus ``exploration * P(a) * sqrt(availability) / (1 + visits)``, ``P`` the
  prior's softmax over the legal actions of the seat's observation at that node (asked
  once per information set); so the search starts from the policy's choice and leaves it
  only where the play-outs say so.
- :class:`PIMCBot` (``pimc``): perfect-information Monte Carlo. For each of
  ``determinizations`` deals, every legal action is played in it and the game played out
  ``rollouts`` times (the same random numbers for every action); the action with the best
  mean value over all deals is chosen.

The play-outs: every seat by the rollout bot (``rollout``: a bot class or factory, one
instance per seat, reading observations of the dealt table through the game's observer
as it would in play; :class:`~ratenvs.common.bots.RandomBot` unless the game's registry
names its own). The value backed up (``value``): ``"win"``, 1 for a win, ``1/k`` for a
win shared by ``k`` seats, 0 for a loss, or ``"reward"``, the seat's rewards summed from
the searched state on. ``horizon="game"`` plays to the end of the game; ``"reward"``
stops after the first step that hands out rewards (in Rat-a-Tat Cat: the end of a round),
and ``"win"`` is then won by the seats the game's
:meth:`~ratenvs.common.game.Game.step_winners` names (by default those with the highest
reward of that step; in Rat-a-Tat Cat the round's lowest scorers, whatever the reward
mode).

The budget: ``iterations`` (IS-MCTS iterations, PIMC deals) and ``seconds`` (a time limit
per decision); the search stops at whichever comes first. With ``seconds=None`` a search
is deterministic for the ``rng`` it is given (every random number - deals, play-out chance,
the rollout bots' choices - comes from it); with a time limit it depends on the machine. A
decision with one legal action is not searched.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ratenvs.common.bots import Bot, GameStateRequired, RandomBot, searches_state
from ratenvs.common.game import Game
from ratenvs.common.options import finite_real

VALUES = ("win", "reward")
"""What a play-out is worth to the searching seat (see the module docstring)."""
HORIZONS = ("game", "reward")
"""How far a play-out goes: the end of the game, or the first rewarded step."""
EXPLORATION = 0.7
"""Default UCB1 exploration constant (values in [0, 1] with ``value="win"``)."""


def copy_state(state: Any) -> Any:
    """A copy of a game state to play on (its ``copy()`` if it has one, else a deep copy)."""
    own = getattr(state, "copy", None)
    return own() if callable(own) else copy.deepcopy(state)


def search_count(name: str, value: Any) -> int | None:
    """A search's count budget (iterations, deals): None, or a whole number >= 1 (``3.0``
    is 3; ``2.9``, a bool or infinity is a ValueError naming ``name``)."""
    if value is None:
        return None
    if not finite_real(value) or int(value) != value or int(value) < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def search_seconds(value: Any) -> float | None:
    """A search's time budget per decision: None, or a finite number of seconds > 0."""
    if value is None:
        return None
    if not finite_real(value) or not float(value) > 0:
        raise ValueError(f"seconds must be a finite number > 0, got {value!r}")
    return float(value)


def legal_to_search(bot: Any, action_mask: np.ndarray) -> np.ndarray:
    """The legal actions of ``action_mask``, checked for a search ``bot``'s ``act_in_state``
    (the IS-MCTS and PIMC bots here, :class:`~ratenvs.rat_a_tat_cat.search.AgentSearchBot`):
    a GameStateRequired when the bot is not bound to a game (``bot.game`` None), a
    ValueError when no action is legal."""
    if bot.game is None:
        raise GameStateRequired(
            f"the {bot.name!r} bot is not bound to a game: call bind_game(game, seat) first"
        )
    legal = np.flatnonzero(action_mask)
    if legal.size == 0:
        raise ValueError("no legal action in the action mask")
    return legal


class _SearchBot:
    """What both search bots share: the options, the binding, the play-outs and the values."""

    name = "search"

    def __init__(
        self,
        iterations: int | None,
        seconds: float | None,
        rollout: Callable[[], Bot],
        value: str,
        horizon: str,
    ) -> None:
        if iterations is None and seconds is None:
            raise ValueError("a search needs a budget: iterations, seconds or both")
        iterations = search_count("iterations", iterations)
        seconds = search_seconds(seconds)
        if value not in VALUES:
            raise ValueError(f"value must be one of {VALUES}, got {value!r}")
        if horizon not in HORIZONS:
            raise ValueError(f"horizon must be one of {HORIZONS}, got {horizon!r}")
        if not callable(rollout):
            raise ValueError(f"rollout must be a bot class or factory, got {rollout!r}")
        self.iterations = None if iterations is None else int(iterations)
        self.seconds = None if seconds is None else float(seconds)
        self.rollout = rollout
        self.value = value
        self.horizon = horizon
        self.game: Game | None = None
        self.seat: int | None = None
        self._observer: Any = None
        self._view: Any = None
        self._players: list[Bot] = []
        self.last_search: dict[str, Any] = {}
        """Figures of the last decision searched: ``iterations`` (IS-MCTS iterations or
        PIMC deals) and ``seconds``."""

    # ------------------------------------------------------------ binding
    def bind(self, observer: Any) -> None:
        """The observer kind the play-outs' bots read (the harness's view); optional."""
        self._observer = observer
        if self.game is not None:
            self._bind_players()

    def bind_game(self, game: Game, seat: int) -> None:
        """Search ``game`` (called by the harness before play); ``seat``: where it sits."""
        self.game = game
        self.seat = int(seat)
        self._bind_players()

    def _bind_players(self) -> None:
        game = self.game
        assert game is not None
        kind = getattr(self._observer, "kind", None) or game.observation_kind
        self._view = game.observer(kind)
        self._players = []
        for _ in range(game.num_players):
            bot = self.rollout()
            if searches_state(bot):
                raise ValueError(f"the rollout bot {bot.name!r} searches itself: give a plain bot")
            bind = getattr(bot, "bind", None)
            if bind is not None:
                bind(self._view)
            self._players.append(bot)

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """Not possible: a search needs the game (see :class:`~ratenvs.common.bots.StateBot`)."""
        raise GameStateRequired(
            f"the {self.name!r} bot searches from the game's state, not an observation alone: "
            "play it through ratenvs.common.play.play_game (ratenvs evaluate / tournament do), "
            "or call bind_game(game, seat) and act_in_state(state, seat, action_mask, rng)"
        )

    # ------------------------------------------------------------ searching
    def act_in_state(
        self, state: Any, seat: int, action_mask: np.ndarray, rng: np.random.Generator
    ) -> int:
        """The searched action for ``seat`` (``state`` is read through ``game.resample`` only)."""
        legal = legal_to_search(self, action_mask)
        if legal.size == 1:
            self.last_search = {"iterations": 0, "seconds": 0.0}
            return int(legal[0])
        start = time.perf_counter()
        deadline = None if self.seconds is None else start + self.seconds
        action, done = self._search(state, int(seat), legal, rng, deadline)
        self.last_search = {"iterations": done, "seconds": time.perf_counter() - start}
        return int(action)

    def _search(
        self,
        state: Any,
        seat: int,
        legal: np.ndarray,
        rng: np.random.Generator,
        deadline: float | None,
    ) -> tuple[int, int]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _more(self, done: int, deadline: float | None) -> bool:
        if self.iterations is not None and done >= self.iterations:
            return False
        return deadline is None or done == 0 or time.perf_counter() < deadline

    def _deal(self, state: Any, seat: int, rng: np.random.Generator) -> Any:
        """A determinization: the only door through which the search reads ``state``."""
        assert self.game is not None
        return self.game.resample(state, seat, rng)

    def _step(
        self, det: Any, actions: dict[int, int], rng: np.random.Generator, gained: list[float]
    ) -> bool:
        """Play ``actions`` in the dealt table; add the seat rewards to ``gained``; True when
        the play-out must stop there (the game is over, or a rewarded step ends it)."""
        game = self.game
        assert game is not None
        infos: dict[int, dict[str, Any]] = {}
        rewards = game.apply(det, actions, rng, infos)
        if rewards is not None:
            for i, r in enumerate(rewards):
                gained[i] += float(r)
        self._last_rewards = rewards
        self._last_infos = infos
        return game.is_terminal(det) or (self.horizon == "reward" and rewards is not None)

    _last_rewards: Any = None
    _last_infos: dict[int, dict[str, Any]] = {}  # noqa: RUF012 - replaced, never mutated

    def _bot_actions(
        self, det: Any, rng: np.random.Generator, skip: int | None = None
    ) -> dict[int, int]:
        """The rollout bots' actions of every seat to act in ``det`` but ``skip``."""
        game = self.game
        assert game is not None
        out = {}
        for s in game.to_act(det):
            if s != skip:
                mask = game.legal_mask(det, s)
                out[s] = int(self._players[s].act(self._view.observe(det, s), mask, rng))
        return out

    def _play_out(self, det: Any, rng: np.random.Generator, gained: list[float]) -> None:
        """Every seat by its rollout bot, from ``det`` until the horizon."""
        game = self.game
        assert game is not None
        while not game.is_terminal(det):
            if self._step(det, self._bot_actions(det, rng), rng, gained):
                return

    def _worth(self, det: Any, seat: int, gained: list[float]) -> float:
        """The seat's value of a finished play-out (at the end of the game, or stopped at a
        rewarded step)."""
        if self.value == "reward":
            return gained[seat]
        game = self.game
        assert game is not None
        if game.is_terminal(det):
            won = game.winners(det)
        else:
            step = list(self._last_rewards or [])
            if not step:
                return 0.0
            won = game.step_winners(det, step, self._last_infos)
        k = sum(bool(w) for w in won)
        return 1.0 / k if k and won[seat] else 0.0


class _Node:
    """One information set of the searching seat: per action, visits, value and availability."""

    __slots__ = ("available", "children", "logits", "total", "visits")

    def __init__(self, num_actions: int) -> None:
        self.visits = np.zeros(num_actions, dtype=np.int64)
        self.total = np.zeros(num_actions, dtype=np.float64)
        self.available = np.zeros(num_actions, dtype=np.int64)
        self.children: dict[tuple[int, bytes], _Node] = {}
        self.logits: np.ndarray | None = None
        """The prior policy's logits at this information set (with a ``prior`` only)."""


class ISMCTSBot(_SearchBot):
    """Single-observer IS-MCTS (Cowling et al. 2012) over ``game.resample``; see the module.

    ``iterations`` / ``seconds``: the budget per decision (whichever ends first);
    ``exploration``: UCB1's constant (PUCT's with a prior); ``rollout``: the play-out bot
    (class or factory); ``value`` / ``horizon``: what a play-out is worth and how far it
    goes; ``prior``: a policy (``logits(observation)``) whose choices the search starts
    from (PUCT), or None (UCB1).
    """

    name = "ismcts"

    def __init__(
        self,
        iterations: int | None = 200,
        seconds: float | None = None,
        exploration: float = EXPLORATION,
        rollout: Callable[[], Bot] = RandomBot,
        value: str = "win",
        horizon: str = "game",
        prior: Any = None,
    ) -> None:
        super().__init__(iterations, seconds, rollout, value, horizon)
        if not finite_real(exploration) or not float(exploration) >= 0:
            raise ValueError(f"exploration must be a finite number >= 0, got {exploration!r}")
        if prior is not None and not callable(getattr(prior, "logits", None)):
            raise ValueError(
                f"prior must be a policy with a logits(observation) method (e.g. a trained "
                f"agent's PolicyBot), got {prior!r}"
            )
        self.exploration = float(exploration)
        self.prior = prior

    def _search(
        self,
        state: Any,
        seat: int,
        legal: np.ndarray,
        rng: np.random.Generator,
        deadline: float | None,
    ) -> tuple[int, int]:
        game = self.game
        assert game is not None
        root = _Node(game.num_actions)
        allowed = np.zeros(game.num_actions, dtype=bool)
        allowed[legal] = True
        done = 0
        while self._more(done, deadline):
            self._iterate(root, state, seat, allowed, rng)
            done += 1
        visits = np.where(allowed, root.visits, -1)
        means = np.where(root.visits > 0, root.total / np.maximum(root.visits, 1), -np.inf)
        best = np.flatnonzero(visits == visits.max())
        if best.size > 1:  # equal visits: the best mean, then the lowest action
            best = best[means[best] == means[best].max()]
        return int(best[0]), done

    def _choose(self, node: _Node, mask: np.ndarray, rng: np.random.Generator) -> int:
        legal = np.flatnonzero(mask)
        node.available[legal] += 1
        if node.logits is not None:
            return self._choose_puct(node, legal)
        untried = legal[node.visits[legal] == 0]
        if untried.size:
            return int(untried[rng.integers(untried.size)])
        n = node.visits[legal]
        score = node.total[legal] / n + self.exploration * np.sqrt(
            np.log(node.available[legal]) / n
        )
        return int(legal[int(np.argmax(score))])

    def _prior_logits(self, det: Any, seat: int) -> np.ndarray:
        """The prior's logits of the seat's information set in ``det`` (its observation)."""
        game = self.game
        assert game is not None
        logits = np.asarray(self.prior.logits(self._view.observe(det, seat)), dtype=np.float64)
        if logits.shape != (game.num_actions,):
            raise ValueError(
                f"the prior's logits have shape {logits.shape}; {game.name} has "
                f"{game.num_actions} actions (a policy trained for another table?)"
            )
        return logits

    def _choose_puct(self, node: _Node, legal: np.ndarray) -> int:
        """PUCT over the legal actions: the mean value (an untried action: the node's mean)
        plus ``exploration * P(a) * sqrt(availability) / (1 + visits)``, ``P`` the prior's
        softmax over the actions legal here; ties to the lowest action."""
        assert node.logits is not None
        z = node.logits[legal] - node.logits[legal].max()
        p = np.exp(z)
        p /= p.sum()
        n = node.visits[legal]
        seen = node.visits.sum()
        first = node.total.sum() / seen if seen else 0.0
        q = np.where(n > 0, node.total[legal] / np.maximum(n, 1), first)
        u = self.exploration * p * np.sqrt(node.available[legal]) / (1.0 + n)
        return int(legal[int(np.argmax(q + u))])

    def _iterate(
        self, root: _Node, state: Any, seat: int, allowed: np.ndarray, rng: np.random.Generator
    ) -> None:
        """One iteration: deal, descend (adding one node), play out, back up."""
        game = self.game
        assert game is not None
        det = self._deal(state, seat, rng)
        gained = [0.0] * game.num_players
        path: list[tuple[_Node, int]] = []
        node = root
        while True:
            mask = game.legal_mask(det, seat).astype(bool)
            if node is root:
                mask &= allowed
                if not mask.any():
                    raise RuntimeError(
                        f"{game.name}: no action of the seat's mask is legal in a resampled "
                        "state (the resampler must keep what the seat knows)"
                    )
            if self.prior is not None and node.logits is None:
                node.logits = self._prior_logits(det, seat)
            action = self._choose(node, mask, rng)
            path.append((node, action))
            actions = self._bot_actions(det, rng, skip=seat)
            actions[seat] = action
            stopped = self._step(det, actions, rng, gained)
            # the other seats and chance play on until the seat decides again
            while not stopped and seat not in game.to_act(det):
                stopped = self._step(det, self._bot_actions(det, rng), rng, gained)
            if stopped:
                break
            key = (action, self._view.observe(det, seat).tobytes())
            child = node.children.get(key)
            if child is None:  # expand: one new information set per iteration
                node.children[key] = _Node(game.num_actions)
                self._play_out(det, rng, gained)
                break
            node = child
        worth = self._worth(det, seat, gained)
        for n, a in path:
            n.visits[a] += 1
            n.total[a] += worth


class PIMCBot(_SearchBot):
    """Perfect-information Monte Carlo over ``game.resample``; see the module.

    ``determinizations`` / ``seconds``: the deals per decision (and a time limit, looked at
    after every action's play-outs: a later deal the limit cuts short is dropped, so every
    action keeps the same deals; the first deal, cut short, leaves the choice among the
    actions it played); ``rollouts``: play-outs per action and deal; ``rollout``,
    ``value``, ``horizon``: as :class:`ISMCTSBot`'s.
    """

    name = "pimc"

    def __init__(
        self,
        determinizations: int | None = 20,
        seconds: float | None = None,
        rollouts: int = 1,
        rollout: Callable[[], Bot] = RandomBot,
        value: str = "win",
        horizon: str = "game",
    ) -> None:
        super().__init__(
            search_count("determinizations", determinizations), seconds, rollout, value, horizon
        )
        self.rollouts = search_count("rollouts", rollouts)

    @property
    def determinizations(self) -> int | None:
        """Deals per decision (the ``iterations`` budget)."""
        return self.iterations

    def _search(
        self,
        state: Any,
        seat: int,
        legal: np.ndarray,
        rng: np.random.Generator,
        deadline: float | None,
    ) -> tuple[int, int]:
        game = self.game
        assert game is not None
        total = np.zeros(legal.size)
        count = np.zeros(legal.size)
        done = 0
        while self._more(done, deadline):
            det = self._deal(state, seat, rng)
            seeds = rng.integers(2**63, size=self.rollouts)
            deal = np.zeros(legal.size)
            for i, action in enumerate(legal):
                for r in range(self.rollouts):
                    deal[i] += self._evaluate(det, seat, int(action), int(seeds[r]))
                if deadline is not None and time.perf_counter() >= deadline:
                    break  # the time is up in the middle of a deal
            else:
                total += deal
                count += self.rollouts
                done += 1
                continue
            if done == 0:  # the first deal, cut short: choose among the actions it played
                total, count = deal, np.where(np.arange(legal.size) <= i, self.rollouts, 0)
            break  # a later one is dropped: every action keeps the same deals
        means = np.where(count > 0, total / np.maximum(count, 1), -np.inf)
        return int(legal[int(np.argmax(means))]), done

    def _evaluate(self, det: Any, seat: int, action: int, seed: int) -> float:
        """One play-out of ``action`` in a copy of the deal (its own random numbers, the same
        for every action: common random numbers)."""
        game = self.game
        assert game is not None
        play = copy_state(det)
        rng = np.random.default_rng(seed)
        gained = [0.0] * game.num_players
        actions = self._bot_actions(play, rng, skip=seat)
        actions[seat] = action
        if not self._step(play, actions, rng, gained):
            self._play_out(play, rng, gained)
        return self._worth(play, seat, gained)


def search_bot(kind: str, **options: Any) -> _SearchBot:
    """An ``"ismcts"`` or ``"pimc"`` bot with ``options`` (a ValueError names a bad one)."""
    makers: dict[str, type[_SearchBot]] = {"ismcts": ISMCTSBot, "pimc": PIMCBot}
    if kind not in makers:
        raise ValueError(f"unknown search {kind!r}; choose one of {sorted(makers)}")
    return makers[kind](**options)


__all__: Sequence[str] = (
    "EXPLORATION",
    "HORIZONS",
    "VALUES",
    "ISMCTSBot",
    "PIMCBot",
    "copy_state",
    "search_bot",
)
