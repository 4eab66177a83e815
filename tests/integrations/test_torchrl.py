"""TorchRL's PettingZoo door (``PettingZooWrapper``) on every game's AEC env and parallel env,
with ``return_state=True``: the specs are the env's spaces, random rollouts play legal actions
only (``raw_env`` and the turn-based parallel envs raise on an illegal one), the masks are
the env's, the state is ``env.state()``; and the recipe page runs as written. Skipped where
TorchRL is not installed (``pip install "ratenvs[torchrl]"``; ``nox -s frameworks``)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchrl")

from recipes import run_recipe  # noqa: E402
from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

from ratenvs.games import GAMES  # noqa: E402
from ratenvs.integrations.torchrl import TurnBasedPettingZooWrapper  # noqa: E402

NAMES = list(GAMES)
SIMULTANEOUS = "ratto_zakko"
"""The game whose parallel env has every seat act at once (the others are turn-based)."""
STEPS = 150

pytestmark = pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested:UserWarning")


def _pettingzoo(name: str, kind: str, num_players: int = 3):
    module = GAMES[name].load()
    return (
        module.raw_env(num_players=num_players)
        if kind == "aec"
        else module.parallel_env(num_players=num_players)
    )


def _check_specs(env, pz) -> None:
    """The wrapper's specs are the PettingZoo env's spaces, and ``state`` is ``state_space``."""
    for group, agents in env.group_map.items():
        observation = pz.observation_space(agents[0])
        spec = env.observation_spec[group, "observation", "observation"]
        assert spec.shape == (len(agents), *observation["observation"].shape)
        assert spec.dtype == torch.float32
        num_actions = pz.action_space(agents[0]).n
        assert env.observation_spec[group, "action_mask"].shape == (len(agents), num_actions)
        assert env.full_action_spec[group, "action"].space.n == num_actions
    assert env.observation_spec["state"].shape == pz.state_space.shape


def _check_rollout(env, pz, rollout, name: str, one_seat_acts: bool) -> None:
    """Every acting seat's action is in its mask; exactly one seat acts at a step where the
    game is turn-based; the states are in ``state_space`` and the last is ``pz.state()``."""
    acting_counts = torch.zeros(len(rollout), dtype=torch.long)
    for group in env.group_map:
        mask = rollout[group, "mask"]
        action_mask = rollout[group, "action_mask"]
        action = rollout[group, "action"]
        taken = action_mask.gather(-1, action.unsqueeze(-1)).squeeze(-1)
        assert taken[mask].all()
        assert action_mask[mask].any(-1).all()  # an acting seat has a legal action
        acting_counts += mask.sum(-1)
    if one_seat_acts:  # the AEC envs, and the turn-based games' parallel envs
        assert (acting_counts == 1).all()
    else:
        assert (acting_counts >= 1).all()
    states = rollout["next", "state"].numpy()
    assert all(pz.state_space.contains(s) for s in states)
    done = rollout["next", "done"].squeeze(-1)
    if name != SIMULTANEOUS:  # random turn-based games end (and restart) in the rollout
        assert done.any(), "no game ended in the rollout"
    if not done[-1]:
        np.testing.assert_array_equal(states[-1], pz.state())


@pytest.mark.parametrize("wrapper", [PettingZooWrapper, TurnBasedPettingZooWrapper])
@pytest.mark.parametrize("name", NAMES)
def test_aec_env(name, wrapper):
    """The AEC env (``raw_env``, which raises on an illegal action), in TorchRL's wrapper and
    in the adapter alike: one group per seat, ``mask`` True for the seat to act, whose
    ``action_mask`` is ``env.action_mask``."""
    pz = _pettingzoo(name, "aec")
    env = wrapper(pz, use_mask=True, return_state=True, seed=0)
    assert env.group_map == {agent: [agent] for agent in pz.possible_agents}
    _check_specs(env, pz)
    check_env_specs(env)
    td = env.reset()
    agent = pz.agent_selection
    np.testing.assert_array_equal(td[agent, "action_mask"][0].numpy(), pz.action_mask(agent))
    np.testing.assert_array_equal(td["state"].numpy(), pz.state())
    rollout = env.rollout(STEPS, break_when_any_done=False)
    _check_rollout(env, pz, rollout, name, one_seat_acts=True)


@pytest.mark.parametrize("name", NAMES)
def test_parallel_env(name):
    """Every parallel env through the adapter: one group ``player`` of stacked seats; in the
    turn-based games the seat to act alone has ``mask`` True, in Ratto Zakko every seat acts."""
    pz = _pettingzoo(name, "parallel")
    env = TurnBasedPettingZooWrapper(pz, return_state=True, seed=0)
    assert env.group_map == {"player": pz.possible_agents}
    _check_specs(env, pz)
    check_env_specs(env)
    td = env.reset()
    game, truth = pz.game, pz.truth
    to_act = game.to_act(truth)
    masks = np.stack([game.legal_mask(truth, seat) for seat in range(len(pz.possible_agents))])
    acting = np.isin(np.arange(len(pz.possible_agents)), to_act)
    np.testing.assert_array_equal(td["player", "mask"].numpy(), acting)
    np.testing.assert_array_equal(td["player", "action_mask"].numpy()[acting], masks[acting] == 1)
    rollout = env.rollout(STEPS, break_when_any_done=False)
    _check_rollout(env, pz, rollout, name, one_seat_acts=name != SIMULTANEOUS)


def test_plain_wrapper_takes_the_simultaneous_parallel_env():
    """Ratto Zakko's parallel env needs no adapter: TorchRL's own wrapper rolls it out."""
    pz = _pettingzoo(SIMULTANEOUS, "parallel", num_players=4)
    env = PettingZooWrapper(pz, use_mask=True, return_state=True, seed=0)
    check_env_specs(env)
    rollout = env.rollout(STEPS, break_when_any_done=False)
    _check_rollout(env, pz, rollout, SIMULTANEOUS, one_seat_acts=False)


@pytest.mark.parametrize("name", [n for n in NAMES if n != SIMULTANEOUS])
def test_plain_wrapper_fails_on_turn_based_parallel_envs(name):
    """Why the adapter exists: TorchRL counts every live seat of a parallel env as acting, and
    a waiting seat's all-zero mask leaves its masked sample no action. (If TorchRL handles
    it one day, this fails and the adapter can go.)"""
    env = PettingZooWrapper(_pettingzoo(name, "parallel"), use_mask=True, seed=0)
    with pytest.raises(RuntimeError, match="invalid multinomial distribution"):
        env.rand_action(env.reset())


def test_recipe_page_runs():
    """docs/recipes/torchrl.md, block by block, and what it made is what it says."""
    ns = run_recipe("torchrl")
    assert ns["aec_rollout"]["state"].shape == (100, 16)
    played = ns["policy_rollout"]["player"]
    assert played["action_mask"].gather(-1, played["action"].unsqueeze(-1)).all()
    assert played["log_prob"].isfinite().all()
    assert ns["turn_rollout"]["player", "mask"].sum(-1).unique().tolist() == [1]
