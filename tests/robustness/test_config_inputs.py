"""Hostile or mistyped config inputs are refused quickly with an error naming the key or
line: YAML anchors/aliases, duplicate keys, NaN/infinity, out-of-range sizes."""

from __future__ import annotations

import time

import pytest

from training.config import ConfigError, config_from_dict, load_config

# the "billion laughs" shape: each level refers to the previous one nine times
NESTED_ALIASES = (
    "game: catz_ratz_batz\n"
    "env_options:\n"
    "  a: &a [x, x, x, x, x, x, x, x, x]\n"
    "  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
    "  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    "  e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
    "  f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
    "  g: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
)


def write(tmp_path, text):
    path = tmp_path / "cfg.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def minimal(**extra):
    return {"game": "catz_ratz_batz", **extra}


def test_nested_aliases_refused_fast(tmp_path):
    path = write(tmp_path, NESTED_ALIASES)
    start = time.perf_counter()
    with pytest.raises(ConfigError, match=r"cfg\.yaml: line 3: YAML anchors \(&a\)"):
        load_config(path)
    assert time.perf_counter() - start < 1.0


def test_alias_refused_naming_the_line(tmp_path):
    # an alias to an anchor is refused at the anchor already; an unknown alias at its line
    path = write(tmp_path, "game: catz_ratz_batz\nopponents: [*who]\n")
    with pytest.raises(ConfigError, match=r"line 2: YAML aliases \(\*who\) are not allowed"):
        load_config(path)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (
            "game: catz_ratz_batz\nalgorithm: &algo {n_epochs: 2}\n",
            r"line 2: YAML anchors \(&algo\)",
        ),
        (
            "game: catz_ratz_batz\nbase: &base {n_epochs: 2}\nalgorithm:\n  <<: *base\n",
            r"line 2: YAML anchors",
        ),
        (
            "game: catz_ratz_batz\ntimesteps: 1000\nseed: 1\ntimesteps: 5\n",
            r"line 4: duplicate key 'timesteps' \(first given at line 2\)",
        ),
        (
            "game: catz_ratz_batz\nalgorithm:\n  ent_coef: 0.01\n  ent_coef: 0.1\n",
            r"line 4: duplicate key 'ent_coef'",
        ),
        (
            "game: catz_ratz_batz\nenv_options: {num_players: 1, num_players: 2}\n",
            r"line 2: duplicate key 'num_players'",
        ),
    ],
    ids=["anchor", "merge_key", "duplicate_top_level", "duplicate_nested", "duplicate_inline"],
)
def test_anchors_and_duplicate_keys_are_refused(tmp_path, text, match):
    with pytest.raises(ConfigError, match=match):
        load_config(write(tmp_path, text))


def test_plain_config_still_loads(tmp_path):
    text = "game: catz_ratz_batz\nenv_options: {num_players: 1}\nalgorithm:\n  ent_coef: 0.01\n"
    cfg = load_config(write(tmp_path, text))
    assert cfg.algorithm.ent_coef == 0.01
    assert cfg.env_options == {"num_players": 1}


@pytest.mark.parametrize("value", [".nan", ".NaN", ".inf", "-.inf", "+.Inf", "1.0e+999"])
def test_nan_and_inf_in_yaml_refused(tmp_path, value):
    path = write(tmp_path, f"game: catz_ratz_batz\nalgorithm:\n  ent_coef: {value}\n")
    with pytest.raises(ConfigError, match=r"algorithm\.ent_coef: expected a finite number"):
        load_config(path)


FLOAT_KEYS = [
    ("algorithm", "learning_rate"),
    ("algorithm", "gamma"),
    ("algorithm", "gae_lambda"),
    ("algorithm", "clip_range"),
    ("algorithm", "ent_coef"),
    ("algorithm", "vf_coef"),
    ("algorithm", "max_grad_norm"),
    ("algorithm", "reward_scale"),
    ("selfplay", "snapshot_prob"),
    ("pretrain", "learning_rate"),
]


@pytest.mark.parametrize("section,key", FLOAT_KEYS, ids=[".".join(k) for k in FLOAT_KEYS])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), float("-inf"), 10**400])
def test_every_float_field_refuses_nan_and_inf(section, key, bad):
    with pytest.raises(ConfigError, match=rf"^{section}\.{key}: expected a finite number"):
        config_from_dict(minimal(**{section: {key: bad}}))


def test_float_fields_found_by_the_dataclasses_are_all_listed():
    import dataclasses
    import typing

    from training.config import TrainConfig

    found = []
    for f in dataclasses.fields(TrainConfig):
        tp = typing.get_type_hints(TrainConfig)[f.name]
        if dataclasses.is_dataclass(tp):
            hints = typing.get_type_hints(tp)
            found += [(f.name, g.name) for g in dataclasses.fields(tp) if hints[g.name] is float]
        elif tp is float:  # pragma: no cover - no top-level float today
            found.append(("", f.name))
    assert sorted(found) == sorted(FLOAT_KEYS)


def test_nan_in_reward_shaping_options_refused():
    data = {"game": "rat_a_tat_cat", "reward_shaping": {"win_chance": {"scale": float("nan")}}}
    with pytest.raises(
        ConfigError, match=r"^reward_shaping\.win_chance\.scale: expected a finite number"
    ):
        config_from_dict(data)


BOUNDS = [
    ("n_envs", None, 1024),
    ("torch_threads", "algorithm", 64),
    ("games", "eval", 1_000_000),
    ("final_games", "eval", 1_000_000),
]


def _data(key, section, value):
    data = minimal(**({key: value} if section is None else {section: {key: value}}))
    if key == "n_envs":  # keep batch_size dividing n_envs * n_steps
        data["algorithm"] = {"n_steps": 1, "batch_size": 1}
    return data


@pytest.mark.parametrize("key,section,high", BOUNDS, ids=[b[0] for b in BOUNDS])
def test_upper_bounds(key, section, high):
    dotted = key if section is None else f"{section}.{key}"
    cfg = config_from_dict(_data(key, section, high))  # the bound itself is fine
    obj = cfg if section is None else getattr(cfg, section)
    assert getattr(obj, key) == high
    with pytest.raises(ConfigError, match=rf"^{dotted}: must be at most {high:,}, got"):
        config_from_dict(_data(key, section, high + 1))


@pytest.mark.parametrize("key,section,high", BOUNDS, ids=[b[0] for b in BOUNDS])
@pytest.mark.parametrize("low", [0, -1])
def test_lower_bounds(key, section, high, low):
    dotted = key if section is None else f"{section}.{key}"
    with pytest.raises(ConfigError, match=rf"^{dotted}: must be at least 1"):
        config_from_dict(_data(key, section, low))


def test_bound_error_names_the_file(tmp_path):
    path = write(tmp_path, "game: catz_ratz_batz\nn_envs: 100000\n")
    with pytest.raises(ConfigError, match=r"cfg\.yaml: n_envs: must be at most 1,024"):
        load_config(path)
