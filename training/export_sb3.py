"""Export a checkpoint as a stable-baselines3 zip that ``sb3_contrib.MaskablePPO.load()`` reads.

Usage::

    python -m training.export_sb3 CHECKPOINT OUT.zip

``CHECKPOINT`` is a checkpoint path (its card ``x.json``, or ``x``) or a shipped agent
(``agent:NAME``); it is loaded safely (:mod:`ratenvs.agents.checkpoint`). The zip holds a
``MaskablePPO`` whose policy has the checkpoint's weights and whose observation and
action spaces are those of the gymnasium door for the card's game and env options
(:class:`ratenvs.wrappers.single_agent.SingleAgentEnv`), so
``MaskablePPO.load(OUT.zip, env=env)`` accepts that env and
``model.predict(obs, action_masks=mask, deterministic=True)`` plays the greedy actions of
:class:`~ratenvs.agents.checkpoint.PolicyBot`. The algorithm's hyperparameters are
sb3-contrib's defaults (set your own to fine-tune). A checkpoint trained with a privileged
critic (``policy.critic_extra`` > 0) exports its actor and a freshly initialised value
network of the plain shape (the old one read entries no env gives at play time). The zip
is written atomically.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym

from ratenvs.agents import AGENT_PREFIX, agent_path
from ratenvs.agents.checkpoint import PolicySpec, checkpoint_env
from ratenvs.common.arguments import ArgumentParser, report, results_file
from ratenvs.common.atomic import atomic_file
from training.checkpoint import build_policy, load_checkpoint


class _Spaces(gym.Env):
    """An env that only has spaces: what MaskablePPO needs to be built (never stepped)."""

    def __init__(self, observation_space: gym.Space, action_space: gym.spaces.Discrete) -> None:
        self.observation_space = observation_space
        self.action_space = action_space

    def action_masks(self) -> Any:  # pragma: no cover - never stepped
        raise NotImplementedError


def sb3_model(checkpoint: str | Path) -> tuple[Any, list[str]]:
    """A ``MaskablePPO`` holding the checkpoint's policy, and notes about the export."""
    from sb3_contrib import MaskablePPO

    from training.checkpoint import policy_kwargs

    name = str(checkpoint)
    path = agent_path(name) if name.startswith(AGENT_PREFIX) else Path(checkpoint)
    ckpt = load_checkpoint(path, optimizer=False)  # the zip holds no optimizer state
    env = checkpoint_env(ckpt)
    agent = env.possible_agents[0]
    spaces = _Spaces(env.observation_space(agent)["observation"], env.action_space(agent))
    notes = []
    spec, state = ckpt.spec, dict(ckpt.policy_state)
    if spec.critic_extra:
        plain = PolicySpec(spec.observation_size, spec.num_actions, spec.net_arch, spec.activation)
        fresh = build_policy(plain).state_dict()
        for key in fresh:
            if key.startswith(("mlp_extractor.value_net.", "value_net.")):
                state[key] = fresh[key]
        notes.append(
            f"the value network read {spec.critic_extra} privileged entries; the zip has a "
            "freshly initialised value network (the actor is the checkpoint's)"
        )
        spec = plain
    model = MaskablePPO("MlpPolicy", spaces, policy_kwargs=policy_kwargs(spec), device="cpu")
    model.policy.load_state_dict(state)
    return model, notes


def export(checkpoint: str | Path, out: str | Path) -> list[str]:
    """Write ``out`` (a ``MaskablePPO`` zip of ``checkpoint``) atomically; return the notes."""
    model, notes = sb3_model(checkpoint)
    with atomic_file(out) as fh:
        model.save(fh)
    return notes


def build_parser() -> ArgumentParser:
    """The parser of ``python -m training.export_sb3``."""
    parser = ArgumentParser(
        prog="python -m training.export_sb3", description=__doc__.split("\n")[0]
    )
    parser.add_argument("checkpoint", help="checkpoint (its card x.json, or x) or agent:NAME")
    parser.add_argument("out", type=Path, help="the zip to write (for MaskablePPO.load)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (2 and one ``error:`` line for a mistake)."""
    args = build_parser().parse_args(argv)
    try:
        results_file("out", args.out)  # before the work, not after it
        notes = export(args.checkpoint, args.out)
    except (ValueError, OSError) as exc:  # a bad checkpoint, an unwritable zip
        return report(exc)
    for note in notes:
        print(f"note: {note}")
    print(f"wrote {args.out} (sb3_contrib.MaskablePPO.load({str(args.out)!r}))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
