"""Training on the batched door (``vec_env: batched``): the config checks, a whole run with
a checkpoint that plays, the self-play pool's snapshots as batched opponents, and the
privileged critic's features."""

from __future__ import annotations

import numpy as np
import pytest
from small_configs import TINY_CATZ

from training.checkpoint import load_checkpoint
from training.config import ConfigError, config_from_dict
from training.selfplay import BatchedPool, make_batched_vec_env
from training.train import train

BATCHED_CATZ = {
    **TINY_CATZ,
    "vec_env": "batched",
    "n_envs": 64,
    "timesteps": 256,
    "algorithm": {**TINY_CATZ["algorithm"], "n_steps": 2, "batch_size": 64},
}


def test_a_batched_run_trains_and_its_checkpoint_plays(tmp_path):
    cfg = config_from_dict(BATCHED_CATZ)
    final = train(cfg, tmp_path / "run")
    loaded = load_checkpoint(final, game="catz_ratz_batz")
    assert loaded.card["timesteps"] >= 256
    assert loaded.card["config"]["vec_env"] == "batched"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"game": "ratto_zakko", "env_options": {}, "opponents": ["adult"]}, None),
        (
            {"game": "ratto_zakko", "env_options": {}, "opponents": ["nobody"]},
            "opponents: unknown bot|is not a bot of the batched",
        ),
        ({"opponents": ["most_common"], "env_options": {"num_players": 2}}, None),
        (
            {"opponents": ["no_such"], "env_options": {"num_players": 2}},
            "opponents: unknown bot|is not a bot of the batched",
        ),
        (
            {"n_envs": 2048, "vec_env": "dummy"},
            r"n_envs: must be at most 1,024, got 2,048 \(with vec_env: dummy",
        ),
    ],
)
def test_batched_config_checks(change, message):
    data = {**BATCHED_CATZ, **change}
    if message is None:
        config_from_dict(data)
        return
    with pytest.raises(ConfigError, match=message):
        config_from_dict(data)


def test_a_reward_shaping_without_a_batched_form_is_refused(monkeypatch):
    """Every shipped shaping has its batched form; one without it (here win_chance with
    its form taken away) is refused by the config, not when the run starts."""
    import dataclasses

    from ratenvs.games import GAMES
    from training.games.rat_a_tat_cat import HOOKS

    if not GAMES["rat_a_tat_cat"].has_batched:
        pytest.skip("no batched Rat-a-Tat Cat engine")
    data = {
        "game": "rat_a_tat_cat",
        "env_options": {"num_players": 4, "target_score": 100},
        "vec_env": "batched",
        "n_envs": 64,
        "algorithm": {"n_steps": 2, "batch_size": 64},
        "reward_shaping": {"win_chance": {"scale": 5.0}},
    }
    config_from_dict(data)  # the shipped form
    shaping = dataclasses.replace(HOOKS.reward_shapings["win_chance"], batched=None)
    monkeypatch.setitem(HOOKS.reward_shapings, "win_chance", shaping)
    with pytest.raises(ConfigError, match=r"reward_shaping\.win_chance: has no batched form"):
        config_from_dict(data)


RATTO_PENALTY = {
    "game": "ratto_zakko",
    "env_options": {"num_players": 3, "level": "dessert"},
    "opponents": ["adult"],
    "learner_seat": "random",
    "vec_env": "batched",
    "n_envs": 32,
    "seed": 3,
    "algorithm": {"n_steps": 2, "batch_size": 64},
    "reward_shaping": {"wrong_answers": {"penalty": 3.0}},
}


@pytest.mark.parametrize("answer", ["correct", "wrong", "random"])
def test_the_wrong_answer_penalty_on_the_batched_door(answer):
    """The batched form of ``reward_shaping.wrong_answers``: the shaped run and a plain
    run of the same seed see the same games; their rewards differ by the penalty exactly
    where the learner answered and its answer was not the reference game's correct
    response (checked through the engine's own ``correct_responses``, which the replay
    tests pin to the reference game)."""
    from ratenvs.ratto_zakko.rules import ACTION_RESPONSE_FIRST, NUM_RESPONSES

    shaped = make_batched_vec_env(config_from_dict(RATTO_PENALTY))
    plain = make_batched_vec_env(config_from_dict({**RATTO_PENALTY, "reward_shaping": {}}))
    door = shaped.unwrapped.venv  # the BatchedVectorEnv under the SB3 wrappers
    rng = np.random.default_rng(0)
    obs_a, obs_b = shaped.reset(), plain.reset()
    penalties = answers = 0
    for _ in range(400):
        np.testing.assert_array_equal(obs_a, obs_b)
        masks = np.array(shaped.env_method("action_masks"))
        correct = door.engine.correct_responses().copy()
        answering = (correct >= 0) & masks[:, ACTION_RESPONSE_FIRST:].any(axis=1)
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        if answer != "random":
            shift = 0 if answer == "correct" else 1 + rng.integers(NUM_RESPONSES - 1, size=32)
            pick = ACTION_RESPONSE_FIRST + (correct + shift) % NUM_RESPONSES
            acts = np.where(answering, pick, acts)
        _, ra, da, _ = shaped.step(acts)
        _, rb, db, _ = plain.step(acts)
        np.testing.assert_array_equal(da, db)
        response = acts - ACTION_RESPONSE_FIRST
        wrong = answering & (response >= 0) & (response != correct)
        np.testing.assert_allclose(rb - ra, 3.0 * wrong)
        penalties += int(wrong.sum())
        answers += int((answering & (response >= 0)).sum())
    assert answers > 200
    if answer == "correct":
        assert penalties == 0
    elif answer == "wrong":
        assert penalties == answers
    else:
        assert 0 < penalties < answers


class _TinySpec:
    """A policy of 3 observation entries, one layer of 2 and 4 actions."""

    observation_size = 3
    net_arch = (2,)
    activation = "tanh"


def _tiny_policy(action_bias: list[float]) -> dict[str, np.ndarray]:
    """A :class:`_TinySpec` policy whose greedy action is the legal one of highest bias."""
    return {
        "mlp_extractor.policy_net.0.weight": np.zeros((2, 3)),
        "mlp_extractor.policy_net.0.bias": np.zeros(2),
        "action_net.weight": np.zeros((4, 2)),
        "action_net.bias": np.array(action_bias),
    }


def test_the_batched_pool_plays_frozen_snapshots_per_batch():
    pool = BatchedPool(["optimal"], snapshot_prob=1.0, max_snapshots=2)
    rng = np.random.default_rng(0)
    codes = pool.draw(rng, 10, 2, lambda name: 3)
    assert (codes == 3).all()  # no snapshot yet: bots only
    state = _tiny_policy([0.0, 1.0, 2.0, 3.0])
    for _ in range(3):
        pool.add_snapshot(state, _TinySpec())
    codes = pool.draw(rng, 400, 2, lambda name: 3)
    assert set(np.unique(codes)) == {-3, -4}  # only the last two snapshots are drawn
    assert pool.snapshot_count() == 2
    masks = np.array([[1, 1, 0, 0], [0, 0, 1, 1]])
    np.testing.assert_array_equal(pool.act(0, np.zeros((2, 3)), masks), [1, 3])


def test_privileged_features_and_the_reward_scale_on_the_batched_door():
    cfg = config_from_dict(
        {
            **BATCHED_CATZ,
            "env_options": {"num_players": 2},
            "opponents": ["optimal"],
            "learner_seat": "random",
            "algorithm": {**BATCHED_CATZ["algorithm"], "privileged_critic": True},
        }
    )
    venv = make_batched_vec_env(cfg, monitor=False)
    obs = venv.reset()
    door = venv.venv.venv if hasattr(venv.venv, "venv") else venv.venv
    size = door.engine.observation_size
    np.testing.assert_array_equal(obs[:, :size], door.engine.obs)
    np.testing.assert_array_equal(
        obs[:, size : size + door.engine.state_size], door.engine.state_observation()
    )
    seats = obs[:, size + door.engine.state_size :]
    np.testing.assert_array_equal(seats.argmax(axis=1), door.learner)
    # algorithm.reward_scale: the same games, the same moves, every reward times the scale
    scaled = config_from_dict(
        {**cfg.to_dict(), "algorithm": {**cfg.to_dict()["algorithm"], "reward_scale": 0.25}}
    )
    other = make_batched_vec_env(scaled, monitor=False)
    inner = other.venv.venv if hasattr(other.venv, "venv") else other.venv
    np.testing.assert_array_equal(other.reset(), obs)
    rng = np.random.default_rng(0)
    paid = 0
    for _ in range(40):
        legal = [rng.choice(np.flatnonzero(m)) for m in door.engine.mask]
        assert np.array_equal(door.engine.mask, inner.engine.mask)
        _, plain, _, _ = venv.step(np.array(legal))
        _, times, _, _ = other.step(np.array(legal))
        np.testing.assert_allclose(times, 0.25 * plain)
        paid += int(np.count_nonzero(plain))
    assert paid > 0  # rewards were paid, and scaled


def test_a_batched_self_play_run_plays_its_snapshots(tmp_path):
    cfg = config_from_dict(
        {
            "game": "rat_a_tat_cat",
            "env_options": {"num_players": 2},
            "learner_seat": "random",
            "selfplay": {
                "enabled": True,
                "bots": ["heuristic", "random"],
                "snapshot_every": 256,
                "snapshot_prob": 0.5,
            },
            "vec_env": "batched",
            "n_envs": 64,
            "timesteps": 1024,
            "algorithm": {"n_steps": 4, "batch_size": 128, "n_epochs": 1, "net_arch": [16]},
            "eval": {"every": 0, "games": 2, "final_games": 2},
            "logging": {"progress_bar": False},
        }
    )
    venv = make_batched_vec_env(cfg)
    door = venv.venv.venv
    pool = door.opponents
    assert isinstance(pool, BatchedPool)
    venv.reset()
    from training.checkpoint import PolicySpec

    spec = PolicySpec(door.engine.observation_size, door.engine.num_actions, (16,), "tanh")
    import torch

    state = {
        "mlp_extractor.policy_net.0.weight": torch.zeros(16, spec.observation_size),
        "mlp_extractor.policy_net.0.bias": torch.zeros(16),
        "action_net.weight": torch.zeros(spec.num_actions, 16),
        "action_net.bias": torch.zeros(spec.num_actions),
    }
    venv.env_method("add_snapshot", state, spec)
    assert venv.env_method("snapshot_count", indices=[0]) == [1]
    calls = []
    act = pool.act
    pool.act = lambda k, o, m: calls.append(len(o)) or act(k, o, m)
    for _ in range(200):
        venv.step_async(np.array([np.flatnonzero(m)[0] for m in door.action_masks()]))
        venv.step_wait()
    assert calls and max(calls) > 1  # the snapshot moved in many games at once
    final = train(cfg, tmp_path / "run")
    assert load_checkpoint(final, game="rat_a_tat_cat").card["selfplay_snapshots"] >= 1


def test_fixed_checkpoints_join_the_pool_and_are_never_dropped():
    from ratenvs.agents.checkpoint import PolicyBot

    state = _tiny_policy([3.0, 2.0, 1.0, 0.0])
    fixed = PolicyBot(state, _TinySpec(), "responder")
    pool = BatchedPool(["optimal"], snapshot_prob=1.0, max_snapshots=2, fixed=[fixed])
    rng = np.random.default_rng(0)
    assert set(np.unique(pool.draw(rng, 200, 2, lambda name: 3))) == {-2}  # the fixed one
    assert pool.snapshot_count() == 0
    for _ in range(3):
        pool.add_snapshot(state, _TinySpec())
    # the fixed policy (code -2) and the last two snapshots (-4, -5); the first one dropped
    assert set(np.unique(pool.draw(rng, 600, 2, lambda name: 3))) == {-2, -4, -5}
    assert pool.snapshot_count() == 2
    masks = np.array([[1, 1, 0, 0], [0, 0, 1, 1]])
    np.testing.assert_array_equal(pool.act(0, np.zeros((2, 3)), masks), [0, 2])
    # a fixed policy whose card says "play": "sample" draws from its softmax, seeded
    sampler = PolicyBot(_tiny_policy([1.0, 1.0, 1.0, 1.0]), _TinySpec(), "twin", sample=True)
    obs, legal = np.zeros((400, 3)), np.tile([1, 1, 1, 0], (400, 1))

    def drawn(seed: int) -> np.ndarray:
        return BatchedPool(["optimal"], 1.0, 2, fixed=[sampler], seed=seed).act(0, obs, legal)

    assert set(np.unique(drawn(5))) == {0, 1, 2}  # every legal action, no illegal one
    np.testing.assert_array_equal(drawn(5), drawn(5))
    assert not np.array_equal(drawn(5), drawn(6))


def test_selfplay_checkpoints_are_checked_and_play_on_the_batched_door(tmp_path):
    from ratenvs import agents

    base = {
        "game": "rat_a_tat_cat",
        "env_options": {"num_players": 2},
        "learner_seat": "random",
        "vec_env": "batched",
        "n_envs": 16,
        "algorithm": {"n_steps": 4, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
        "logging": {"progress_bar": False},
    }
    shipped = "agent:rat_a_tat_cat_2p_one_round"
    rz = "agent:ratto_zakko_4p_dessert"
    with pytest.raises(ConfigError, match=r"selfplay\.checkpoints: they join the self-play pool"):
        config_from_dict({**base, "selfplay": {"checkpoints": [shipped]}})
    sp = {"enabled": True, "bots": ["heuristic"], "snapshot_prob": 1.0}
    for name, where in ((str(tmp_path / "nowhere"), "nowhere"), (rz, "ratto_zakko")):
        cfg = config_from_dict({**base, "selfplay": {**sp, "checkpoints": [name]}})  # valid
        with pytest.raises(ValueError, match=rf"selfplay\.checkpoints: .*{where}"):
            make_batched_vec_env(cfg, monitor=False)  # the run stops before it trains
    cfg = config_from_dict({**base, "selfplay": {**sp, "checkpoints": [shipped]}})
    door = make_batched_vec_env(cfg, monitor=False).venv
    assert (
        door.opponents.fixed == 1 and door.opponents.frozen[0].name == "rat_a_tat_cat_2p_one_round"
    )
    door.reset()
    assert (door.engine.bots[np.arange(16), 1 - door.learner] == -2).all()  # it plays every game
    four = {**base, "env_options": {"num_players": 4}, "selfplay": {**sp, "checkpoints": [shipped]}}
    with pytest.raises(
        ValueError,
        match=r"selfplay\.checkpoints: rat_a_tat_cat_2p_one_round: its policy reads observations "
        r"of size 195 and has 31 actions; rat_a_tat_cat with .* gives 323 and 63",
    ):
        make_batched_vec_env(config_from_dict(four), monitor=False)
    assert agents.load(shipped).spec.observation_size == 195
