"""The ecosystem checkers pass in an install without pygame (the envs-only install, no
``render`` extra): "human" rendering shows the table as text there, with one warning."""

import sys
import warnings

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import render_test

from ratenvs.common.render import pygame_installed
from ratenvs.games import GAMES


@pytest.fixture
def no_pygame(monkeypatch):
    """pygame cannot be imported (``import pygame`` raises ImportError, its spec is None)."""
    monkeypatch.setitem(sys.modules, "pygame", None)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_gymnasium_check_env_passes_without_pygame(no_pygame, game):
    assert pygame_installed() is False
    env = gymnasium.make(GAMES[game].gymnasium_id)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)  # renders every mode of metadata["render_modes"]
    assert any("without pygame shows the table as text" in str(w.message) for w in caught)


def test_human_without_pygame_prints_the_table_and_warns_once(no_pygame, capsys):
    env = GAMES["catz_ratz_batz"].load().raw_env(render_mode="human")
    with pytest.warns(UserWarning, match='pip install "ratenvs\\[render\\]"') as caught:
        env.reset(seed=3)  # a "human" env renders at reset
        env.render()
    assert len(caught) == 1
    assert capsys.readouterr().out.count(env.render_text()) == 2


def test_pettingzoo_render_test_passes_without_pygame(no_pygame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        render_test(GAMES["ratto_zakko"].load().env)
