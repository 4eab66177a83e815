"""The search bots (ratenvs.common.search) and the harness hook they play through: legal,
deterministic for a seed, blind to what their seat cannot know, on any game with a
resampler."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ratenvs.catz_ratz_batz.bots import get_bot as catz_bot
from ratenvs.catz_ratz_batz.rules import CatzRatzBatz
from ratenvs.common.bots import Bot, GameStateRequired, StateBot, bind_bots, searches_state
from ratenvs.common.play import play_game
from ratenvs.common.search import ISMCTSBot, PIMCBot, search_bot
from ratenvs.evaluation import play_match
from ratenvs.games import GAMES
from ratenvs.rat_a_tat_cat import resample as ratcat_resample
from ratenvs.rat_a_tat_cat.bots import HeuristicBot, RatCatISMCTS, RatCatPIMC, get_bot
from ratenvs.rat_a_tat_cat.rules import RatATatCat


def _ismcts(iterations: int = 12, **kw: Any) -> ISMCTSBot:
    return ISMCTSBot(iterations=iterations, rollout=HeuristicBot, horizon="reward", **kw)


class _Prior:
    """A policy for the PUCT prior: fixed logits (every action's number, highest first:
    ``favourite``), recording the observations it is asked about."""

    def __init__(self, num_actions: int, favourite: int | None = None) -> None:
        self.values = -np.arange(num_actions, dtype=np.float64) / num_actions
        if favourite is not None:
            self.values[favourite] = 50.0
        self.seen: list[np.ndarray] = []

    def logits(self, observation: np.ndarray) -> np.ndarray:
        self.seen.append(np.array(observation))
        return self.values.copy()


class _PriorISMCTS(ISMCTSBot):
    """IS-MCTS with a :class:`_Prior` sized for the game it is bound to."""

    def bind_game(self, game: Any, seat: int) -> None:
        self.prior = _Prior(game.num_actions)
        super().bind_game(game, seat)


def _ismcts_prior(iterations: int = 12, **kw: Any) -> ISMCTSBot:
    return _PriorISMCTS(
        iterations=iterations, rollout=HeuristicBot, horizon="reward", prior=_Prior(1), **kw
    )


def _pimc(determinizations: int = 3, **kw: Any) -> PIMCBot:
    return PIMCBot(determinizations=determinizations, rollout=HeuristicBot, horizon="reward", **kw)


def _decisions(game: Any, seed: int, seat: int = 0, count: int = 12) -> list[Any]:
    """States where ``seat`` has a choice (more than one legal action), from a heuristic game."""
    out: list[Any] = []

    def keep(g: Any, state: Any, _a: Any, _r: Any) -> None:
        live = len(out) < count and not g.is_terminal(state) and seat in g.to_act(state)
        if live and g.legal_mask(state, seat).sum() > 1:
            out.append(state.copy())

    play_game(game, [HeuristicBot() for _ in range(game.num_players)], seed, on_step=keep)
    return out


# ------------------------------------------------------------------ the protocol
def test_the_registry_builds_search_bots_that_refuse_to_act_without_the_game():
    for name, cls in (("ismcts", RatCatISMCTS), ("pimc", RatCatPIMC)):
        bot = get_bot(name)
        assert isinstance(bot, cls) and bot.name == name
        assert isinstance(bot, Bot) and isinstance(bot, StateBot) and searches_state(bot)
        game = RatATatCat()
        state = game.init(np.random.default_rng(0))
        mask = game.legal_mask(state, 0)
        obs = game.observer("knowledge").observe(state, 0)
        with pytest.raises(GameStateRequired, match="play_game"):
            bot.act(obs, mask, np.random.default_rng(0))
        with pytest.raises(GameStateRequired, match="bind_game"):
            bot.act_in_state(state, 0, mask, np.random.default_rng(0))
    assert not searches_state(HeuristicBot())


def test_options_are_checked():
    for bad in (
        {"iterations": 0},
        {"iterations": None, "seconds": None},
        {"seconds": 0},
        {"exploration": -1},
        {"value": "points"},
        {"horizon": "turn"},
        {"rollout": "heuristic"},
        {"prior": "agent:rat_a_tat_cat_2p"},
        {"prior": HeuristicBot()},
    ):
        with pytest.raises(ValueError):
            ISMCTSBot(**bad)
    with pytest.raises(ValueError, match="rollouts"):
        PIMCBot(rollouts=0)
    with pytest.raises(ValueError, match="unknown search"):
        search_bot("alphazero")
    bot = ISMCTSBot(rollout=RatCatISMCTS)
    with pytest.raises(ValueError, match="searches itself"):
        bot.bind_game(RatATatCat(), 0)


class _Recording(ISMCTSBot):
    def __init__(self) -> None:
        super().__init__(iterations=2, rollout=HeuristicBot, horizon="reward")
        self.bound: list[tuple[Any, int]] = []
        self.calls: list[int] = []

    def bind_game(self, game: Any, seat: int) -> None:
        self.bound.append((game, seat))
        super().bind_game(game, seat)

    def act_in_state(self, state: Any, seat: int, action_mask: Any, rng: Any) -> int:
        self.calls.append(seat)
        return super().act_in_state(state, seat, action_mask, rng)


def test_play_game_binds_search_bots_and_asks_them_in_the_state():
    game = RatATatCat(num_players=3)
    bot = _Recording()
    played = play_game(game, [HeuristicBot(), bot, HeuristicBot()], 4)
    assert bot.bound == [(game, 1)]
    assert bot.calls and set(bot.calls) == {1}
    # every decision of seat 1 went to act_in_state: its plain act raises
    assert played.state.is_over
    # bind_bots: the observer binding still reaches plain bots
    plain = HeuristicBot()
    bind_bots([plain], game, game.observer("knowledge"))
    assert plain.observer is game.observer("knowledge")


def test_the_evaluator_plays_search_bots_through_the_harness():
    spec = GAMES["rat_a_tat_cat"]
    results = play_match(spec, {"num_players": 2}, _pimc(2), [HeuristicBot()], games=2, seed=3)
    assert [r.seat for r in results] == [0, 1]
    assert all(0.0 <= r.win <= 1.0 for r in results)


# ------------------------------------------------------------------ legal and deterministic
@pytest.mark.parametrize("make", [_ismcts, _ismcts_prior, _pimc])
@pytest.mark.parametrize(
    "options", [{"num_players": 2}, {"num_players": 3, "target_score": 20, "rounds": 3}]
)
def test_search_bots_play_legal_games_deterministically(make, options):
    game = RatATatCat(**options)
    n = game.num_players
    for seed in (0, 1):

        def bots(seed: int = seed) -> list[Any]:
            return [make() if s == seed % n else HeuristicBot() for s in range(n)]

        first = play_game(game, bots(), seed)  # play_game raises on an illegal action
        again = play_game(game, bots(), seed)
        assert first.actions == again.actions


@pytest.mark.parametrize(
    "bot",
    [
        ISMCTSBot(iterations=1, rollout=HeuristicBot),
        PIMCBot(determinizations=1, rollout=HeuristicBot),
        ISMCTSBot(iterations=1),  # random play-outs to the end of the game
    ],
)
def test_a_budget_of_one_iteration_plays_legally(bot):
    game = RatATatCat(num_players=2, target_score=30)
    played = play_game(game, [bot, HeuristicBot()], 5)
    assert played.state.is_over and bot.last_search["iterations"] in (0, 1)


def test_the_same_rng_gives_the_same_action_and_the_search_uses_its_budget():
    game = RatATatCat(num_players=2)
    bot = _ismcts(20)
    bot.bind_game(game, 0)
    for state in _decisions(game, 2)[:5]:
        mask = game.legal_mask(state, 0)
        a = bot.act_in_state(state, 0, mask, np.random.default_rng(9))
        assert bot.last_search["iterations"] == 20
        assert a == bot.act_in_state(state, 0, mask, np.random.default_rng(9))
        assert mask[a]


@pytest.mark.parametrize("kind", [ISMCTSBot, PIMCBot])
def test_a_budget_is_a_whole_count_and_a_finite_time(kind):
    """A budget the search could never finish (an infinite time, a fraction of an
    iteration) is a ValueError naming it, before any game."""
    count = "iterations" if kind is ISMCTSBot else "determinizations"
    for bad in (0, 2.9, True, float("inf"), "ten"):
        with pytest.raises(ValueError, match=rf"^{count} must be an integer >= 1"):
            kind(**{count: bad})
    assert getattr(kind(**{count: 4.0}), count) == 4
    for bad in (0, -1, float("inf"), float("nan"), "soon"):
        with pytest.raises(ValueError, match=r"^seconds must be a finite number > 0"):
            kind(**{count: None, "seconds": bad})
    if kind is PIMCBot:
        with pytest.raises(ValueError, match=r"^rollouts must be an integer >= 1"):
            PIMCBot(rollouts=0.5)
    if kind is ISMCTSBot:
        for bad in (float("inf"), -0.5, "wide"):
            with pytest.raises(ValueError, match=r"^exploration must be a finite number >= 0"):
                ISMCTSBot(exploration=bad)


def test_a_time_budget_stops_the_search():
    game = RatATatCat(num_players=2)
    bot = ISMCTSBot(iterations=None, seconds=0.05, rollout=HeuristicBot, horizon="reward")
    bot.bind_game(game, 0)
    state = _decisions(game, 3)[0]
    bot.act_in_state(state, 0, game.legal_mask(state, 0), np.random.default_rng(0))
    assert bot.last_search["iterations"] >= 1
    assert bot.last_search["seconds"] < 1.0


def test_the_prior_steers_the_search_to_its_favourite():
    game = RatATatCat(num_players=2)
    states = _decisions(game, 2, count=8)
    differed = 0
    for state in states:
        mask = game.legal_mask(state, 0)
        favourite = int(np.flatnonzero(mask)[-1])  # the highest legal action
        bot = _ismcts(10, prior=_Prior(game.num_actions, favourite), exploration=50.0)
        bot.bind_game(game, 0)
        assert bot.act_in_state(state, 0, mask, np.random.default_rng(4)) == favourite
        plain = _ismcts(10)
        plain.bind_game(game, 0)
        differed += plain.act_in_state(state, 0, mask, np.random.default_rng(4)) != favourite
    assert differed >= 1  # without the prior the search goes elsewhere


def test_the_prior_reads_the_seats_observation_once_per_information_set():
    game = RatATatCat(num_players=2)
    prior = _Prior(game.num_actions)
    bot = _ismcts(30, prior=prior)
    bot.bind_game(game, 0)
    state = _decisions(game, 5)[0]
    bot.act_in_state(state, 0, game.legal_mask(state, 0), np.random.default_rng(0))
    assert np.array_equal(prior.seen[0], game.observer("knowledge").observe(state, 0))
    # the root and at most one new information set per iteration, each asked once
    assert 2 <= len(prior.seen) <= 31


def test_a_prior_of_the_wrong_size_is_refused():
    game = RatATatCat(num_players=2)
    bot = _ismcts(5, prior=_Prior(game.num_actions + 1))
    bot.bind_game(game, 0)
    state = _decisions(game, 5)[0]
    with pytest.raises(ValueError, match="logits"):
        bot.act_in_state(state, 0, game.legal_mask(state, 0), np.random.default_rng(0))


# ------------------------------------------------------------------ hidden information
class _Sealed:
    """A state nobody may read: only the sealing game's ``resample`` opens it."""

    def __init__(self, state: Any) -> None:
        object.__setattr__(self, "_inside", state)

    def __getattribute__(self, name: str) -> Any:
        raise AssertionError(f"the search read the state ({name}) other than through resample")


class _SealingRatCat(RatATatCat):
    def resample(self, state: Any, seat: int, rng: np.random.Generator) -> Any:
        return super().resample(object.__getattribute__(state, "_inside"), seat, rng)


class _CanonicalRatCat(RatATatCat):
    """Resamples from the seat's information alone: the hidden cards of each shuffle epoch
    are put in order before they are dealt again, so two states that differ only in what
    the seat cannot see give the same deal for the same random numbers."""

    def resample(self, state: Any, seat: int, rng: np.random.Generator) -> Any:
        ordered = state.copy()
        groups: dict[int, list[tuple]] = {}
        for pos in ratcat_resample.hidden_positions(state, seat):
            card = ratcat_resample.card_at(state, pos)
            groups.setdefault(state.card_epoch[card], []).append(pos)
        for group in groups.values():
            cards = sorted(ratcat_resample.card_at(state, pos) for pos in group)
            for pos, card in zip(group, cards):
                ratcat_resample.put_card(ordered, pos, card)
        return super().resample(ordered, seat, rng)


@pytest.mark.parametrize("make", [_ismcts, _ismcts_prior, _pimc])
def test_the_search_reads_the_state_only_through_resample(make):
    game = _SealingRatCat(num_players=3)
    bot = make()
    bot.bind_game(game, 0)
    for state in _decisions(RatATatCat(num_players=3), 6)[:4]:
        mask = game.legal_mask(state, 0)
        action = bot.act_in_state(_Sealed(state), 0, mask, np.random.default_rng(1))
        assert mask[action]


@pytest.mark.parametrize("make", [_ismcts, _ismcts_prior, _pimc])
def test_states_that_differ_only_in_hidden_cards_get_the_same_search(make):
    game = _CanonicalRatCat(num_players=2)
    differed = 0
    for seed in (7, 8):
        for state in _decisions(RatATatCat(num_players=2), seed, count=6):
            other = game.resample(state, 0, np.random.default_rng(seed))  # the rest dealt anew
            differed += game.to_json(other)["hands"][1] != game.to_json(state)["hands"][1]
            mask = game.legal_mask(state, 0)
            assert np.array_equal(mask, game.legal_mask(other, 0))
            picks, worths, after = [], [], []
            for s in (state, other):
                bot = make()
                bot.bind_game(game, 0)
                seen: list[float] = []
                bot._worth = _recorded(bot._worth, seen)  # every play-out's value, in order
                rng = np.random.default_rng(3)
                picks.append(bot.act_in_state(s, 0, mask, rng))
                worths.append(seen)
                after.append(rng.bit_generator.state)
            # the same search: every play-out worth the same, the same random numbers drawn
            assert worths[0] and worths[0] == worths[1]
            assert picks[0] == picks[1] and after[0] == after[1]
    assert differed >= 3  # the hidden cards really differed


def _recorded(worth, seen):
    """``worth`` (a search bot's ``_worth``) that appends every value it gives to ``seen``."""

    def recording(*args):
        value = worth(*args)
        seen.append(value)
        return value

    return recording


def test_the_agent_search_reads_the_state_only_through_resample_and_sees_no_hidden_card():
    """The ``search`` bot (PIMC with the shipped agent's play-outs): from a sealed state it
    searches through ``game.resample`` alone; and from two states that differ only in the
    cards its seat cannot see it runs the same search (every action's mean over the same
    deals, the same random numbers drawn, the same choice), guarded or not."""
    from ratenvs.agents import load_agent_checkpoint
    from ratenvs.rat_a_tat_cat.search import AgentSearchBot

    policy = load_agent_checkpoint("agent:rat_a_tat_cat_2p_one_round").bot()
    plain = RatATatCat(num_players=2)
    differed = 0
    for options in ({"opponents": "heuristic"}, {"opponents": "both", "margin": 1.0}):
        bot = AgentSearchBot(determinizations=16, policy=policy, **options)
        bot.bind_game(_SealingRatCat(num_players=2), 0)
        for state in _decisions(plain, 4)[:3]:
            mask = plain.legal_mask(state, 0)
            assert mask[bot.act_in_state(_Sealed(state), 0, mask, np.random.default_rng(1))]
        canonical = _CanonicalRatCat(num_players=2)
        for state in _decisions(plain, 5, count=6):
            other = canonical.resample(state, 0, np.random.default_rng(5))
            differed += canonical.to_json(other)["hands"][1] != canonical.to_json(state)["hands"][1]
            mask = plain.legal_mask(state, 0)
            seen = []
            for s in (state, other):
                bot = AgentSearchBot(determinizations=16, policy=policy, **options)
                bot.bind_game(canonical, 0)
                rng = np.random.default_rng(3)
                action = bot.act_in_state(s, 0, mask, rng)
                seen.append((action, bot.last_search.get("means"), rng.bit_generator.state))
            assert seen[0] == seen[1]
    assert differed >= 3  # the hidden cards really differed


# ------------------------------------------------------------------ any game with a resampler
@pytest.mark.parametrize(
    "bot",
    [
        ISMCTSBot(iterations=30, rollout=lambda: catz_bot("lowest")),
        PIMCBot(determinizations=4),
    ],
)
def test_search_bots_play_catz_ratz_and_batz(bot):
    game = CatzRatzBatz(num_players=2, turns=2)
    played = play_game(game, [bot, catz_bot("lowest")], 11)
    assert played.state.is_over
    again = play_game(game, [bot, catz_bot("lowest")], 11)
    assert again.actions == played.actions


def test_the_gymnasium_door_plays_search_bots_in_the_other_seats():
    from helpers import play_random_episode

    from ratenvs.wrappers.single_agent import SingleAgentEnv

    bot = RatCatPIMC(determinizations=2)
    asked: list[int] = []
    searched = bot.act_in_state

    def spy(state, seat, mask, rng):
        asked.append(seat)
        return searched(state, seat, mask, rng)

    bot.act_in_state = spy
    env = SingleAgentEnv("rat_a_tat_cat", opponents=bot, learner_seat="random")
    rng = np.random.default_rng(0)
    learners = set()
    for seed in range(6):  # the learner's seat is drawn at every reset
        asked.clear()
        _, info = env.reset(seed=seed)  # the bot may move first, in the reset
        learner = env._seat
        learners.add(learner)
        play_random_episode(env, info, rng)
        assert env.aec.truth.is_over
        # the search bot played the other seat, searching from the state, every time
        assert asked and set(asked) == {1 - learner}
    assert learners == {0, 1}


def test_terminal_play_asks_a_search_bot_in_the_state():
    from ratenvs.rat_a_tat_cat.play import main

    moves = iter(["d", "x", "n"] * 200)
    said: list[str] = []
    code = main(["--bots", "pimc", "--seed", "1"], ask=lambda _: next(moves), say=said.append)
    assert code == 0 and any(line.startswith("player_1 ") for line in said)


# ------------------------------------------------------------------ what a round is worth
def _round_ends(game: RatATatCat, seed: int, count: int) -> list[Any]:
    """States of a heuristic game where the search stands just after a round's end, with
    ``_step`` having played it (so ``_worth`` judges that step)."""
    bot = _ismcts()
    bot.bind_game(game, 0)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        det = game.init(rng)
        while not game.is_terminal(det) and len(out) < count:
            gained = [0.0] * game.num_players
            stopped = bot._step(det, bot._bot_actions(det, rng), rng, gained)
            if stopped and not game.is_terminal(det):
                out.append((det.copy(), bot._worth(det, 0, gained)))
    return out


@pytest.mark.parametrize("reward", ["win", "points", "zero_sum", "zero_sum_win"])
def test_a_round_end_is_won_by_its_lowest_scorer_in_every_reward_mode(reward):
    # "win" rewards nobody at a round's end: the play-out stopped there must still be
    # judged by the round's points, not shared by every seat as a tie at zero
    game = RatATatCat(num_players=2, target_score=100, reward=reward)
    for det, worth in _round_ends(game, 4, 6):
        points = det.last_round_points
        low = min(points)
        expected = 1.0 / points.count(low) if points[0] == low else 0.0
        assert worth == expected, (points, worth)


def test_a_player_out_of_the_elimination_game_does_not_win_the_round():
    # three players, one out: it scores nothing in the rounds it does not play, and the
    # round is won among those who played it, in "points" mode as in the others
    game = RatATatCat(num_players=3, target_score=40, reward="points")
    seen = 0
    bot = _ismcts()
    bot.bind_game(game, 0)
    for seed in range(40):
        rng = np.random.default_rng(seed)
        det = game.init(rng)
        while not game.is_terminal(det) and seen < 6:
            playing = det.active[:]
            gained = [0.0] * 3
            stopped = bot._step(det, bot._bot_actions(det, rng), rng, gained)
            if stopped and not det.is_over and not all(playing) and playing[0]:
                points = det.last_round_points
                low = min(points[p] for p in range(3) if playing[p])
                won = [playing[p] and points[p] == low for p in range(3)]
                assert game.step_winners(det, bot._last_rewards, bot._last_infos) == won
                assert bot._worth(det, 0, gained) == (1.0 / sum(won) if won[0] else 0.0)
                seen += 1
        if seen >= 6:
            break
    assert seen >= 3  # rounds with a player out were judged


def test_pimc_keeps_its_time_limit_inside_a_deal(monkeypatch):
    """PIMC looked at its time limit only between deals, and a deal plays every legal
    action: a Swap of six players (81 actions) took 0.8 s on a budget of 0.02 s. It now
    looks after every action: the first deal cut short chooses among the actions it
    played; a later one is dropped, so every action keeps the same deals."""
    from types import SimpleNamespace

    from ratenvs.common import search

    clock = [0.0]
    monkeypatch.setattr(search, "time", SimpleNamespace(perf_counter=lambda: clock[0]))
    played = []

    def one_second(self, det, seat, action, seed):
        clock[0] += 1.0
        played.append(action)
        return float(action)  # the highest action played is the best

    monkeypatch.setattr(search.PIMCBot, "_evaluate", one_second)
    game = RatATatCat(num_players=2)
    bot = PIMCBot(determinizations=None, seconds=3.5)
    bot.bind_game(game, 0)
    state = _decisions(game, 3)[0]
    mask = np.zeros(game.num_actions, dtype=np.int8)
    mask[[2, 5, 7, 9, 11, 12]] = 1  # six actions: the limit ends the first deal
    choice = bot.act_in_state(state, 0, mask, np.random.default_rng(0))
    assert played == [2, 5, 7, 9] and choice == 9 and bot.last_search["iterations"] == 0
    played.clear()
    mask[[9, 11, 12]] = 0  # three: one whole deal, the second cut short and dropped
    choice = bot.act_in_state(state, 0, mask, np.random.default_rng(0))
    assert played == [2, 5, 7, 2] and choice == 7 and bot.last_search["iterations"] == 1
