"""The gymnasium door: registered ids, checkers, masks, opponents and illegal actions."""

import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from helpers import needs_pettingzoo_registry, play_random_episode
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import ratenvs
from ratenvs.wrappers import SingleAgentEnv


def test_registered_gymnasium_id_passes_both_checkers():
    env = gymnasium.make("ratenvs/CatzRatzBatz-v0")
    check_env(env.unwrapped, skip_render_check=True)
    sb3_check_env(gymnasium.make("ratenvs/CatzRatzBatz-v0", num_players=3).unwrapped)
    assert env.unwrapped.aec.num_players == 1


def test_register_envs_and_module_prefixed_id_in_a_fresh_interpreter():
    gymnasium.register_envs(ratenvs)
    code = (
        "import gymnasium, sys\n"
        "assert 'ratenvs' not in sys.modules\n"
        "env = gymnasium.make('ratenvs:ratenvs/CatzRatzBatz-v0')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(obs.shape, info['action_mask'].tolist())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "(12,) [0, 0, 0, 1]"


@needs_pettingzoo_registry
def test_pettingzoo_make_with_the_registered_id():
    import pettingzoo

    env = pettingzoo.make("aec", "ratenvs/catz_ratz_batz-v0", num_players=4)
    env.reset(seed=0)
    assert env.agents == [f"player_{i}" for i in range(4)]


def test_episode_reward_is_the_learners_total_and_masks_match():
    env = SingleAgentEnv("catz_ratz_batz", num_players=2, opponents="lowest", turns=4)
    obs, info = env.reset(seed=3)
    total = 0.0
    rng = np.random.default_rng(0)
    done = False
    while not done:
        mask = env.action_masks()
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        obs, r, done, _trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert env.observation_space.contains(obs)
        total += r
    assert total == env.aec.truth.totals[0]


def test_seat_rotation_and_deterministic_reset():
    env = SingleAgentEnv("catz-ratz-batz", num_players=3, learner_seat="random")
    seats = {env.reset(seed=s)[1]["learner_seat"] for s in range(30)}
    assert seats == {0, 1, 2}
    a = env.reset(seed=5)[0]
    b = env.reset(seed=5)[0]
    assert np.array_equal(a, b)


def test_illegal_action_terminates_or_raises():
    env = SingleAgentEnv("catz_ratz_batz")
    env.reset(seed=0)
    _obs, r, term, _trunc, info = env.step(0)  # must roll first
    assert (r, term, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(3)
    strict = SingleAgentEnv("catz_ratz_batz", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action 0"):
        strict.step(0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"opponents": "genius", "num_players": 2}, "unknown opponent"),
        ({"opponents": ["random"], "num_players": 3}, "needs 2 entries"),
        ({"learner_seat": 4, "num_players": 2}, "learner_seat"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"num_players": 0}, "num_players"),
    ],
)
def test_bad_wrapper_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SingleAgentEnv("catz_ratz_batz", **kwargs)


def test_unknown_game():
    with pytest.raises(ValueError, match="unknown game"):
        SingleAgentEnv("monopoly")


def test_self_play_pool_callable_is_drawn_every_reset():
    from ratenvs.catz_ratz_batz.bots import BOTS

    drawn = []

    def pool(rng):
        name = ["lowest", "random"][int(rng.integers(2))]
        drawn.append(name)
        return [BOTS[name]()]

    env = SingleAgentEnv("catz_ratz_batz", num_players=2, opponents=pool)
    for s in range(10):
        env.reset(seed=s)
    assert len(drawn) == 10 and set(drawn) == {"lowest", "random"}


@pytest.mark.parametrize(("players", "seat"), [(2, 1), (4, 3), (4, "random")])
def test_reset_always_gives_the_learner_a_decision(players, seat):
    # race_end "turn": an opening bot reaching the target ends the game before the
    # learner decides; reset drops such games (counting them) and deals another
    options = {"num_players": players, "target_score": 40, "race_end": "turn", "reward": "win"}
    env = SingleAgentEnv("catz_ratz_batz", opponents="optimal", learner_seat=seat, **options)
    dropped = 0
    rng = np.random.default_rng(0)
    for s in range(120):
        obs, info = env.reset(seed=s)
        assert info["action_mask"].any() and env.observation_space.contains(obs)
        dropped += info.get("games_dropped", 0)
        play_random_episode(env, info, rng)
        assert env.unwrapped.aec.terminations[env.learner]
    assert dropped >= 5  # the case comes up
    again = SingleAgentEnv("catz_ratz_batz", opponents="optimal", learner_seat=seat, **options)
    for s in range(20):  # deterministic for a seed, the dropped games too
        a, b = env.reset(seed=s), again.reset(seed=s)
        assert np.array_equal(a[0], b[0]) and a[1].keys() == b[1].keys()


def test_a_numpy_integer_seat_and_opponents_without_seats_are_read():
    env = SingleAgentEnv("catz_ratz_batz", learner_seat=np.int64(1), num_players=2)
    assert env.reset(seed=0)[1]["learner_seat"] == 1 and type(env.learner_seat) is int
    with pytest.raises(ValueError, match=r"must be 0\.\.1 or 'random'"):
        SingleAgentEnv("catz_ratz_batz", learner_seat=np.bool_(True), num_players=2)
    with pytest.raises(ValueError, match="unknown opponent 'foo' for catz_ratz_batz"):
        SingleAgentEnv("catz_ratz_batz", opponents="foo", num_players=1)


CHECKPOINTS = Path(__file__).resolve().parents[2] / "checkpoints"


@pytest.mark.parametrize(
    ("opponents", "options"),
    [
        ("agent:rat_a_tat_cat_2p", {"target_score": 100}),  # one name for every seat
        (["agent:rat_a_tat_cat_2p_one_round"], {}),  # a list, one per seat
        pytest.param(
            str(CHECKPOINTS / "rat_a_tat_cat" / "rat_a_tat_cat_2p_one_round.json"),
            {},
            id="checkpoint-path",
        ),
        (
            ["heuristic", "agent:rat_a_tat_cat_4p", "random"],
            {"num_players": 4, "target_score": 100},
        ),
    ],
)
def test_a_shipped_agent_or_a_checkpoint_plays_by_name(opponents, options):
    """The door takes the names the command lines take: ``agent:NAME`` and a checkpoint
    path load the agent (:func:`ratenvs.agents.load`) wherever a bot name goes."""
    from ratenvs.agents import PolicyBot

    env = gymnasium.make("ratenvs/RatATatCat-v1", opponents=opponents, **options).unwrapped
    _obs, info = env.reset(seed=0)
    assert any(isinstance(bot, PolicyBot) for bot in env._bots)
    rng = np.random.default_rng(0)
    for _ in range(10):  # the agent plays its seat
        _obs, _r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term or trunc:
            break


def _bare(name):
    """A shipped agent's policy without its card (``env_options`` None)."""
    from ratenvs import agents

    ckpt = agents.load_agent_checkpoint(name)
    return agents.PolicyBot(ckpt.policy_state, ckpt.spec, name="bare")


@pytest.mark.parametrize(
    ("opponents", "options", "match"),
    [
        (  # four players' agent at a table of two
            "rat_a_tat_cat_4p",
            {"target_score": 100},
            r"seat 1: agent 'rat_a_tat_cat_4p' was trained for rat_a_tat_cat with "
            r"\{'num_players': 4, 'target_score': 100\}; this table plays num_players=2 "
            r"\(its card: 4\)",
        ),
        (  # another game's agent (by name: refused as it loads)
            "catz_ratz_batz_2p",
            {},
            r"seat 1: agent 'catz_ratz_batz_2p' plays catz_ratz_batz, not rat_a_tat_cat|"
            r"^option 'opponents': checkpoint .*catz_ratz_batz_2p\.json is an agent for "
            r"'catz_ratz_batz', not for 'rat_a_tat_cat'",
        ),
        (  # trained for 100 points: not the one-round default game
            "rat_a_tat_cat_2p",
            {},
            r"seat 1: .*this table plays rounds=1 \(its card: None\), target_score=None "
            r"\(its card: 100\): make the env with the card's options",
        ),
        (  # a policy without a card: its sizes, in the seat it has
            "bare",
            {"learner_seat": 1},
            r"seat 0: agent 'bare': its policy reads observations of size 323 and has 63 "
            r"actions; rat_a_tat_cat with .* gives 195 and 31",
        ),
    ],
)
def test_a_loaded_agent_is_checked_when_the_env_is_made(opponents, options, match):
    """Not at its first decision ("observation size 195 does not fit this policy"): a
    ValueError naming the seat and what differs, loaded or by name."""
    from ratenvs import agents

    bot = _bare("rat_a_tat_cat_4p") if opponents == "bare" else agents.load(opponents)
    with pytest.raises(ValueError, match=match):
        gymnasium.make("ratenvs/RatATatCat-v1", opponents=bot, **options)
    if opponents != "bare":
        with pytest.raises(ValueError, match=match):
            gymnasium.make("ratenvs/RatATatCat-v1", opponents=f"agent:{opponents}", **options)


def test_an_agent_trained_with_the_ceilings_view_sees_the_table_with_it():
    """``rat_a_tat_cat_4p_ceilings`` reads the ``owner_ceilings`` piece (a view option): at a
    table that does not show it, it sees the table's play with its card's view (as the
    evaluator seats it), not a mis-sized observation at its first decision."""
    from ratenvs import agents
    from ratenvs.common.bots import OwnView

    agent = agents.load("rat_a_tat_cat_4p_ceilings")
    env = SingleAgentEnv(
        "rat_a_tat_cat", opponents=agent, num_players=4, target_score=100, learner_seat="random"
    )
    rng = np.random.default_rng(0)
    for seed in range(3):
        _obs, info = env.reset(seed=seed)
        assert all(isinstance(b, OwnView) and b.bot is agent for b in env._bots)
        assert all(b.game.params["owner_ceilings"] for b in env._bots)  # its card's view
        for _ in range(20):
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _obs, _r, term, trunc, info = env.step(action)
            if term or trunc:
                break
    assert env.aec.options["owner_ceilings"] is False  # the learner's table


class _Bot:
    name = "mine"

    def act(self, observation, action_mask, rng):
        return int(np.flatnonzero(action_mask)[0])


@pytest.mark.parametrize(
    ("opponents", "match"),
    [
        (5, r"option 'opponents' takes a bot name, .*; got 5"),
        (True, r"option 'opponents' takes a bot name, .*; got True"),
        ({"heuristic": 1}, r"option 'opponents' takes a bot name, .*; got \{'heuristic': 1\}"),
        (b"heuristic", r"option 'opponents' takes a bot name, .*; got b'heuristic'"),
        ("", r"option 'opponents': an empty name; choose a bot from \[.*'heuristic'"),
        ([" "], r"option 'opponents': an empty name"),
        (
            "genius",
            r"unknown opponent 'genius' for rat_a_tat_cat; .* a shipped agent as agent:NAME",
        ),
        (_Bot, r"opponent _Bot is a class; give a bot: _Bot\(\)"),
        ([_Bot], r"opponent _Bot is a class"),
        ("agent:nobody", r"option 'opponents': unknown agent 'agent:nobody'; the shipped agents"),
    ],
)
def test_a_mistaken_opponents_value_is_a_clear_error(opponents, match):
    with pytest.raises(ValueError, match=match):
        SingleAgentEnv("rat_a_tat_cat", opponents=opponents)
    SingleAgentEnv("rat_a_tat_cat", opponents=_Bot()).reset(seed=0)  # an instance plays


def test_the_learners_view_follows_its_seat():
    """``render_view="learner"``: the picture is the learner's seat view, whichever seat it
    was drawn; a fixed agent name stays that seat's (the omniscient view stays the
    default)."""
    import gymnasium

    env = gymnasium.make(
        "ratenvs/RatATatCat-v1", render_mode="ansi", render_view="learner", learner_seat="random"
    )
    seats = set()
    for seed in range(8):
        _, info = env.reset(seed=seed)
        seat = info["learner_seat"]
        seats.add(seat)
        assert f"view: player_{seat}" in env.render()
    assert seats == {0, 1}
    default = gymnasium.make("ratenvs/RatATatCat-v1", render_mode="ansi")
    default.reset(seed=0)
    assert "view: omniscient" in default.render()
    fixed = gymnasium.make(
        "ratenvs/RatATatCat-v1", render_mode="ansi", render_view="player_0", learner_seat=1
    )
    fixed.reset(seed=0)
    assert "view: player_0" in fixed.render()
