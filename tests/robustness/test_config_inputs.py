"""Hostile or mistyped config inputs are refused quickly with an error naming the key or
line: YAML anchors/aliases, duplicate keys, NaN/infinity, out-of-range sizes."""

from __future__ import annotations

import os
import time

import pytest
import yaml

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
    # issue 37: bounded before anything is allocated
    ("n_steps", "algorithm", 2**21),
    ("batch_size", "algorithm", 2**21),
    ("n_epochs", "algorithm", 1000),
    ("snapshot_every", "selfplay", 10**12),
    ("max_snapshots", "selfplay", 1000),
    ("games", "pretrain", 1_000_000),
    ("epochs", "pretrain", 10_000),
    ("batch_size", "pretrain", 2**21),
]
UPPER = [*BOUNDS, ("every", "eval", 10**12)]
"""Every bounded integer key (``eval.every`` may be 0, so it has no lower bound of 1)."""


def _data(key, section, value):
    data = minimal(**({key: value} if section is None else {section: {key: value}}))
    if key == "n_envs":  # keep batch_size dividing n_envs * n_steps
        data["algorithm"] = {"n_steps": 1, "batch_size": 1}
    if section == "algorithm" and key in ("n_steps", "batch_size"):  # one env, one frame
        data["n_envs"] = 1
        data["algorithm"] = {"n_steps": 1, "batch_size": 1, key: value}
        if key == "batch_size":
            data["algorithm"]["n_steps"] = min(max(value, 1), 2**21)
    return data


@pytest.mark.parametrize("key,section,high", UPPER, ids=[f"{b[1]}.{b[0]}" for b in UPPER])
def test_upper_bounds(key, section, high):
    dotted = key if section is None else f"{section}.{key}"
    cfg = config_from_dict(_data(key, section, high))  # the bound itself is fine
    obj = cfg if section is None else getattr(cfg, section)
    assert getattr(obj, key) == high
    with pytest.raises(ConfigError, match=rf"^{dotted}: must be at most {high:,}, got"):
        config_from_dict(_data(key, section, high + 1))


@pytest.mark.parametrize("key,section,high", BOUNDS, ids=[f"{b[1]}.{b[0]}" for b in BOUNDS])
@pytest.mark.parametrize("low", [0, -1])
def test_lower_bounds(key, section, high, low):
    dotted = key if section is None else f"{section}.{key}"
    with pytest.raises(ConfigError, match=rf"^{dotted}: must be at least 1"):
        config_from_dict(_data(key, section, low))


def test_bound_error_names_the_file(tmp_path):
    path = write(tmp_path, "game: catz_ratz_batz\nn_envs: 100000\n")
    with pytest.raises(ConfigError, match=r"cfg\.yaml: n_envs: must be at most 1,024"):
        load_config(path)


def test_the_rollout_is_bounded_before_allocation():
    """n_envs * n_steps frames: SB3 allocates the rollout buffer up front."""
    data = minimal(n_envs=1024, algorithm={"n_steps": 2048, "batch_size": 1024})
    assert config_from_dict(data).algorithm.n_steps == 2048  # 2,097,152 frames
    data["algorithm"]["n_steps"] = 4096
    with pytest.raises(ConfigError) as err:
        config_from_dict(data)
    assert str(err.value) == (
        "algorithm.n_steps: n_envs * n_steps must be at most 2,097,152 frames per rollout, "
        "got 1,024 * 4,096"
    )


@pytest.mark.parametrize(
    ("net_arch", "message"),
    [
        ([10**9], "algorithm.net_arch[0]: must be at most 4,096 wide, got 1,000,000,000"),
        ([64, 4097], "algorithm.net_arch[1]: must be at most 4,096 wide, got 4,097"),
        ([8] * 17, "algorithm.net_arch: at most 16 hidden layers, got 17"),
        ([8] * 10_000, "algorithm.net_arch: at most 16 hidden layers, got 10,000"),
        ([], "algorithm.net_arch: need one or more positive sizes, got []"),
    ],
    ids=["billion", "one_too_wide", "17_layers", "10000_layers", "none"],
)
def test_the_networks_are_bounded_before_allocation(tmp_path, net_arch, message):
    path = write(tmp_path, yaml.safe_dump(minimal(algorithm={"net_arch": net_arch})))
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value) == f"{path}: {message}"


def test_the_widest_and_deepest_networks_are_taken():
    cfg = config_from_dict(minimal(algorithm={"net_arch": [4096] + [1] * 15}))
    assert len(cfg.algorithm.net_arch) == 16


@pytest.mark.parametrize(
    "text",
    [
        "game: catz_ratz_batz\nenv_options: " + "[" * 50_000 + "]" * 50_000 + "\n",
        "game: catz_ratz_batz\nenv_options:\n" + "- " * 50_000 + "x\n",
        "game: catz_ratz_batz\nalgorithm: " + "{a: " * 50_000 + "1" + "}" * 50_000 + "\n",
    ],
    ids=["flow", "block", "flow_mapping"],
)
def test_a_config_nested_50000_deep_is_one_line(tmp_path, text):
    """It was a RecursionError traceback (PyYAML's composer recurses)."""
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    line = 3 if "- " in text else 2
    assert str(err.value) == f"{path}: line {line}: nested more than the limit of 16 levels deep"


def test_a_config_at_the_depth_limit_is_parsed(tmp_path):
    deep = "[" * 14 + "]" * 14  # 16 levels with the two mappings
    path = write(tmp_path, f"game: catz_ratz_batz\nenv_options: {{a: {deep}}}\n")
    nested: list = []
    for _ in range(13):
        nested = [nested]
    assert load_config(path).env_options == {"a": nested}  # parsed (the game checks it later)


def test_a_config_that_is_no_regular_file_is_one_line(tmp_path):
    fifo = tmp_path / "cfg.yaml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError) as err:  # open() would block
        load_config(fifo)
    assert str(err.value) == f"{fifo}: a FIFO (named pipe), not a regular file"


def test_a_config_over_its_size_is_refused_before_reading(tmp_path):
    path = write(tmp_path, "game: catz_ratz_batz\n" + "#" * (256 * 1024) + "\n")
    with pytest.raises(
        ConfigError, match=r"cfg\.yaml: 262,166 bytes, more than the limit of 262,144$"
    ):
        load_config(path)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"opponents": 5}, "opponents: expected a list of strings or null, got int 5"),
        ({"pretrain": {"teacher": 1}}, "pretrain.teacher: expected a string or null, got int 1"),
    ],
)
def test_an_optional_key_of_the_wrong_type_says_null(data, message):
    """It said "or <class 'NoneType'>"."""
    with pytest.raises(ConfigError) as err:
        config_from_dict(minimal(**data))
    assert str(err.value) == message


def test_config_text_read_by_the_caller_is_bounded_alike(tmp_path):
    """The RLlib harness reads the text itself and hands it to load_yaml."""
    from training.config import load_yaml

    text = "game: catz_ratz_batz\n" + "#" * (256 * 1024) + "\n"
    with pytest.raises(ConfigError) as err:
        load_yaml(tmp_path / "r.yaml", text)
    assert str(err.value) == f"{tmp_path / 'r.yaml'}: 262,166 bytes, more than the limit of 262,144"


def test_invalid_yaml_is_one_line(tmp_path):
    """PyYAML's message spans lines (the mark and a caret); the ConfigError is one line."""
    path = write(tmp_path, "game: catz_ratz_batz\nopponents: [\n")
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert "\n" not in str(err.value)
    assert str(err.value).startswith(f"{path}: not valid YAML: while parsing a flow ")
