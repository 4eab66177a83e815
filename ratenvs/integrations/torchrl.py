"""TorchRL's PettingZoo door for the turn-based games' parallel envs.

TorchRL's :class:`torchrl.envs.libs.pettingzoo.PettingZooWrapper` takes our AEC envs
(``env()``, ``raw_env``) and Ratto Zakko's ``parallel_env()`` as they are (``use_mask=True``,
``return_state=True``: the ``"state"`` entry is ``env.state()`` in ``env.state_space``). In a
parallel env TorchRL treats every live agent as acting, but the parallel env of a
turn-based game (Catz, Ratz and Batz; Rat-a-Tat Cat) gives the seats that wait for their
turn an all-zero action mask (their actions are ignored), and a masked sample over no legal
action fails (``torch.multinomial``: "invalid multinomial distribution").

:class:`TurnBasedPettingZooWrapper` is TorchRL's wrapper with TorchRL's own AEC convention
for such seats: a seat with no legal action now has ``mask`` False (it does not act) and an
all-True ``action_mask`` row (whatever it samples is ignored), so ``rand_action`` and masked
distributions always have a choice. Seats that act keep their masks. Everything else is
TorchRL's. Needs the ``torchrl`` extra (``pip install "ratenvs[torchrl]"``).
"""

from __future__ import annotations

from typing import Any

try:
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError(
        'ratenvs.integrations.torchrl needs TorchRL: pip install "ratenvs[torchrl]"'
    ) from error

__all__ = ["TurnBasedPettingZooWrapper"]


class TurnBasedPettingZooWrapper(PettingZooWrapper):
    """TorchRL's ``PettingZooWrapper`` where a seat with no legal action does not act:
    its ``mask`` is False and its ``action_mask`` all True (see the module docstring).
    ``use_mask`` defaults to True (TorchRL requires it for AEC envs); the other arguments
    are ``PettingZooWrapper``'s."""

    def __init__(self, env: Any = None, *, use_mask: bool = True, **kwargs: Any) -> None:
        super().__init__(env, use_mask=use_mask, **kwargs)

    def _update_action_mask(self, td: Any, observation_dict: dict, info_dict: dict) -> tuple:
        observation_dict, info_dict = super()._update_action_mask(td, observation_dict, info_dict)
        for group in self.group_map:
            if not self.has_action_mask[group]:
                continue
            action_mask = td.get((group, "action_mask"))
            idle = ~action_mask.any(dim=-1)
            if not idle.any():
                continue
            action_mask[idle] = True
            if self.use_mask:
                td.get((group, "mask"))[idle] = False
            self.input_spec["full_action_spec", group, "action"].update_mask(action_mask.clone())
        return observation_dict, info_dict
