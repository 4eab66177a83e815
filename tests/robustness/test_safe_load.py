"""Bounded reading (ratenvs/common/safe_load.py, issue 37): deep nesting, big files, files
that are not regular files, NaN and infinity are one LoadError line naming the input and
the limit, never a RecursionError or a read that never ends."""

from __future__ import annotations

import importlib.util
import os
import time

import pytest

from ratenvs.common.safe_load import (
    LoadError,
    MissingFileError,
    json_depth,
    load_json_file,
    load_yaml_file,
    loads_json,
    loads_yaml,
)

DEEP = 100_000

needs_yaml = pytest.mark.skipif(
    importlib.util.find_spec("yaml") is None,
    reason="PyYAML (the train extra) reads YAML; an envs-only install has none",
)


def one_line(err: pytest.ExceptionInfo) -> str:
    text = str(err.value)
    assert "\n" not in text
    return text


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("1", 0),
        ('"[[["', 0),
        ('["\\"[", {"a": [1]}]', 3),
        ("[[], [[]], {}]", 3),
        ('{"k\\\\": "]]]]"}', 1),
    ],
)
def test_json_depth_counts_brackets_outside_strings(text, depth):
    assert json_depth(text) == depth


def test_json_nested_100000_deep_is_one_line_naming_the_file(tmp_path):
    path = tmp_path / "r.json"
    path.write_text("[" * DEEP + "]" * DEEP)
    start = time.process_time()
    with pytest.raises(LoadError) as err:
        load_json_file(path, what="game record", max_depth=64)
    assert time.process_time() - start < 1.0
    assert one_line(err) == (
        f"game record {path}: nested 100,000 levels deep, more than the limit of 64"
    )


def test_json_at_the_depth_limit_is_read():
    text = "[" * 10 + "]" * 10
    assert loads_json(text, what="x", max_depth=10) == [[[[[[[[[[]]]]]]]]]]
    with pytest.raises(LoadError, match=r"more than the limit of 9$"):
        loads_json(text, what="x", max_depth=9)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ('{"a": NaN}', "NaN"),
        ("[Infinity]", "Infinity"),
        ("[-Infinity]", "-Infinity"),
        ("[1e999]", "1e999"),
    ],
)
def test_json_nan_and_infinity_are_refused(text, word):
    with pytest.raises(LoadError) as err:
        loads_json(text, what="card")
    assert one_line(err) == f"card: not valid JSON ({word} is not a finite number)"
    assert loads_json(text, what="card", allow_nan=True) is not None


@pytest.mark.parametrize("text", ["[1,", "{'a': 1}", "[" + "9" * 5000 + "]", ""])
def test_invalid_json_is_one_line(text):
    with pytest.raises(LoadError) as err:
        loads_json(text, what="results")
    assert one_line(err).startswith("results: not valid JSON (")


def test_a_file_over_the_size_limit_is_refused_before_reading(tmp_path):
    path = tmp_path / "big.json"
    path.write_text("[" + "1," * 100 + "1]")
    with pytest.raises(LoadError) as err:
        load_json_file(path, what="record", max_bytes=100)
    assert one_line(err) == f"record {path}: 203 bytes, more than the limit of 100"
    assert load_json_file(path, what="record", max_bytes=203) == [1] * 101


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (lambda p: p.mkdir(), "a folder"),
        (lambda p: os.mkfifo(p), "a FIFO (named pipe)"),
    ],
    ids=["folder", "fifo"],
)
def test_only_regular_files_are_read(tmp_path, make, kind):
    path = tmp_path / "thing.json"
    make(path)
    for load in (load_json_file, load_yaml_file):
        with pytest.raises(LoadError) as err:  # a FIFO would block an open()
            load(path, what="record")
        assert one_line(err) == f"record {path}: {kind}, not a regular file"


def test_dev_zero_is_not_read():
    with pytest.raises(LoadError, match=r"^card /dev/zero: a character device, not a regular"):
        load_json_file("/dev/zero", what="card")


def test_a_missing_file_is_also_a_file_not_found_error(tmp_path):
    with pytest.raises(MissingFileError) as err:
        load_json_file(tmp_path / "no.json", what="record")
    assert isinstance(err.value, FileNotFoundError) and isinstance(err.value, ValueError)
    assert one_line(err) == f"record {tmp_path / 'no.json'}: no such file"


def test_not_utf8_is_one_line(tmp_path):
    path = tmp_path / "x.json"
    path.write_bytes(b'["\xff"]')
    with pytest.raises(LoadError, match=r"^record .*x\.json: not UTF-8 text \(byte 2\)$"):
        load_json_file(path, what="record")


@needs_yaml
@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("[" * 50_000 + "]" * 50_000, 1),  # flow
        ("- " * 50_000 + "x\n", 1),  # block, one line
        ("".join(" " * i + "a:\n" for i in range(1000)) + "b: 1\n", 65),  # block mappings
        ("a: " + "{b: " * 50_000 + "1" + "}" * 50_000 + "\n", 1),
    ],
    ids=["flow", "block_sequence", "block_mapping", "flow_mapping"],
)
def test_yaml_nested_50000_deep_is_refused_without_recursion(tmp_path, text, line):
    path = tmp_path / "d.yaml"
    path.write_text(text)
    start = time.process_time()
    with pytest.raises(LoadError) as err:
        load_yaml_file(path, what="config", max_depth=64)
    assert time.process_time() - start < 2.0
    assert one_line(err) == (
        f"config {path}: line {line}: nested more than the limit of 64 levels deep"
    )


@needs_yaml
def test_yaml_at_the_depth_limit_is_read():
    assert loads_yaml("a: [[1]]\n", what="c", max_depth=3) == {"a": [[1]]}
    with pytest.raises(LoadError, match="limit of 2 levels"):
        loads_yaml("a: [[1]]\n", what="c", max_depth=2)


@needs_yaml
def test_yaml_aliases_are_refused():
    with pytest.raises(LoadError, match=r"^c: line 2: YAML aliases \(\*x\) are not allowed"):
        loads_yaml("a: &x [1]\nb: *x\n", what="c")


@needs_yaml
def test_invalid_yaml_is_one_line():
    with pytest.raises(LoadError) as err:
        loads_yaml("a: [1\n", what="c")
    assert one_line(err).startswith("c: not valid YAML (")


@pytest.mark.parametrize(
    "text",
    [
        '"' + '\\"' * 200_000,  # escaped quotes, unterminated: was quadratic (19 s at 40,000)
        '"' + "a" * 10_000_000 + '"',  # one long string
        '["a\\\\", "b\\"c", {"d": "]"}], ' * 200_000,  # many short strings and brackets
        '"' * 200_001,
    ],
    ids=["escaped_quotes", "long_string", "many_strings", "quotes"],
)
def test_the_depth_scan_is_linear(text):
    start = time.process_time()
    json_depth(text)
    assert time.process_time() - start < 1.0


def test_an_unterminated_string_hides_no_brackets_from_the_parser():
    """Brackets after an unterminated string are inside it for the parser too."""
    assert json_depth('["a\\"' + "[" * 100) == 1
    assert json_depth('["a\\\\"' + "[" * 100) == 101
