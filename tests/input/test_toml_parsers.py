"""TOML is read by toml-rs where it is installed, by tomli otherwise, and always as tomli reads it.

`compose._toml.loads` is the one place: the native parser is a shortcut of tomli (docs/08), so
every outcome here is held to tomli's, on the texts where the two parsers are known to differ
(huge integers, nesting, refusals) as well as on ordinary ones; and a machine without toml-rs
(Python 3.10, or a platform without its wheel) composes the same files with the same errors.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import tomli
from conftest import ROOT, run_python
from hypothesis import given
from hypothesis import strategies as st

import compose
from compose import _toml
from compose.errors import SourceError

TEXTS = [
    'title = "x"\n[owner]\nname = "Tom"\ndob = 1979-05-27T07:32:00-08:00\n',
    "[a.b.c]\nx = 1\n[[a.b.list]]\ny = 2.5\n[[a.b.list]]\ny = -inf\n",
    "a = {x = 1, y = [1, 2, {z = 'q'}]}\nb = 0x_ff\nc = 1_000\nd = 1e400\ne = nan\n",
    "a = 99999999999999999999\nb = -9223372036854775808\n",
    "t = 07:32\nd = 1979-05-27\nl = 1979-05-27T07:32:00.999999999\n",
    'e = "\\e\\x41"\ninline = {a = 1,}\nmultiline = """\nline\n"""\n',
    "a = " + "[" * 99 + "]" * 99 + "\n",
]

REFUSED = [
    "a = 1\na = 2\n",
    "[a]\nx = 1\n[a]\ny = 2\n",
    'a = "x\x00y"\n',
    "a = 1\rb = 2\n",
    "a = \n",
    "a = [1,,2]\n",
    "[a\nb = 1\n",
]


def _outcome(read: Any, text: str) -> tuple[str, Any]:
    try:
        return "read", read(text)
    except Exception as error:  # the kind of refusal is the outcome
        return "refused", type(error).__name__


@pytest.mark.parametrize("text", TEXTS + REFUSED)
def test_tables_are_what_tomli_reads(text: str) -> None:
    got = _outcome(_toml.loads, text)
    expected = _outcome(tomli.loads, text)
    if expected[0] == "refused":
        assert got == ("refused", "TomlSyntaxError")
    else:
        assert json.dumps(got, default=repr) == json.dumps(expected, default=repr)


@pytest.mark.parametrize("text", REFUSED)
def test_errors_are_tomlis_words_at_tomlis_line_and_column(text: str) -> None:
    try:
        tomli.loads(text)
    except tomli.TOMLDecodeError as error:
        expected = (error.msg, error.lineno, error.colno)
    with pytest.raises(_toml.TomlSyntaxError) as raised:
        _toml.loads(text)
    assert (raised.value.message, raised.value.line, raised.value.column) == expected


def test_an_integer_past_pythons_limit_is_refused_as_tomli_refuses_it() -> None:
    """toml-rs reads a 5,000-digit integer; tomli (Python's int conversion) refuses it."""
    text = "".join(f"a{i} = {i}\n" for i in range(1000)) + "b = " + "7" * 5000 + "\n"
    with pytest.raises(ValueError, match=r"limit \(4300"):  # 3.10: (4300), 3.11: (4300 digits)
        _toml.loads(text)


@pytest.mark.parametrize("depth", [101, 150, 5000])
def test_inline_values_past_the_depth_limit_are_refused(depth: int) -> None:
    """toml-rs reads inline arrays nested thousands deep; tomli refuses them past 100."""
    with pytest.raises((RecursionError, _toml.TooDeep)):
        _toml.loads("a = " + "[" * depth + "]" * depth + "\n")


@given(
    before=st.text("ab= \n.[]", max_size=9000),
    run=st.integers(min_value=4301, max_value=9000),
    underscores=st.booleans(),
    after=st.text("ab= \n.[]", max_size=3000),
)
def test_a_digit_run_past_pythons_limit_is_always_seen(
    before: str, run: int, underscores: bool, after: str
) -> None:
    """The sampled check never misses a run of more digits than Python converts, wherever it
    lies in the text."""
    digits = ("1_" * run)[:run] if underscores else "9" * run
    assert _toml.may_hold_long_integer(before + digits + after)


def test_the_lowest_limit_a_process_can_set_is_seen() -> None:
    """A text no longer than the lowest limit Python allows (640 digits) needs no look; past
    it, an integer longer than the process's limit is refused as tomli refuses it."""
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        assert not _toml.may_hold_long_integer("7" * 640)
        assert _toml.may_hold_long_integer("7" * 641)
        with pytest.raises(ValueError, match=r"limit \(640"):
            _toml.loads("v = " + "7" * 641)
        assert _toml.loads("v = " + "7" * 636) == {"v": int("7" * 636)}
    finally:
        sys.set_int_max_str_digits(before)


def test_texts_without_long_digit_runs_are_cleared() -> None:
    text = "".join(f"k{i} = {i * 7919}\n" for i in range(20_000))
    assert not _toml.may_hold_long_integer(text)


@pytest.mark.shortcuts
@pytest.mark.needs("toml-rs")
def test_the_native_parser_reads_where_installed() -> None:
    """In CI, toml-rs is installed where it has wheels (the dev extra): the fast path is the
    one tested."""
    assert _toml.native_parser() is not None
    code = (
        "import sys, compose\n"
        "compose.compose(['examples/reverse_text/rl.toml'])\n"
        "print('tomli' in sys.modules, 'toml_rs' in sys.modules)"
    )
    status, out, err = run_python(code, cwd=ROOT)
    assert (status, out.split()) == (0, ["False", "True"]), err


WITHOUT_NATIVE = "import sys\nsys.modules['toml_rs'] = None  # as where it is not installed\n"


def test_without_the_native_parser_compose_reads_the_same(tmp_path: Path) -> None:
    """Where toml-rs is not installed, tomli reads the same files to the same config, and a
    syntax error names the same FILE:LINE:COLUMN in the same words."""
    bad = tmp_path / "bad.toml"
    bad.write_text('[trainer]\nmax_steps = 3\nname = "x\n')
    code = (
        "import json, compose\n"
        "from compose.errors import SourceError\n"
        "from compose._toml import native_parser\n"
        "config = compose.compose(['examples/reverse_text/rl.toml',"
        " 'examples/reverse_text/debug.toml'])\n"
        "try:\n"
        f"    compose.compose([{str(bad)!r}])\n"
        "except SourceError as error:\n"
        "    message = str(error)\n"
        "print(json.dumps([native_parser(), config, message], default=str))\n"
    )
    results = []
    for prelude in ("", WITHOUT_NATIVE):
        status, out, err = run_python(prelude + code, cwd=ROOT)
        assert status == 0, err
        results.append(json.loads(out))
    (_, config, message), (fallback, config_tomli, message_tomli) = results
    assert fallback is None
    assert config == config_tomli
    assert message == message_tomli
    assert f"{bad}:3:" in message


def test_a_syntax_error_names_file_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("a = 1\nb = [1,,2]\n")
    with pytest.raises(SourceError) as raised:
        compose.compose([str(bad)])
    assert raised.value.origin == f"{bad}:2:8"
    assert "invalid TOML: Invalid value" in str(raised.value)


NO_LIBYAML = "import yaml\ndel yaml.CSafeLoader  # as where PyYAML is built without libyaml\n"


def test_yaml_reads_the_same_without_libyaml(tmp_path: Path) -> None:
    """PyYAML's C loader reads YAML where libyaml is built in, its Python loader elsewhere:
    the same table, and a syntax error at the same line in the same words."""
    good = tmp_path / "good.yaml"
    good.write_text("trainer:\n  max_steps: 3\n  optim:\n    lr: 1.0e-4\nnames: [a, b]\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("trainer:\n  max_steps: 3\n   lr: [1, 2\n")
    code = (
        "import json, compose\n"
        "from compose.errors import SourceError\n"
        "from compose._input import yaml as reader\n"
        f"table = compose.compose([{str(good)!r}])\n"
        "try:\n"
        f"    compose.compose([{str(bad)!r}])\n"
        "except SourceError as error:\n"
        "    message = str(error)\n"
        "print(json.dumps([reader._FastLoader is not None, table, message]))\n"
    )
    results = []
    for prelude in ("", NO_LIBYAML):
        status, out, err = run_python(prelude + code, cwd=ROOT)
        assert status == 0, err
        results.append(json.loads(out))
    (c_loader, table, message), (py_loader, table_py, message_py) = results
    assert (c_loader, py_loader) == (True, False)
    assert (
        table
        == table_py
        == {"trainer": {"max_steps": 3, "optim": {"lr": 1e-4}}, "names": ["a", "b"]}
    )
    assert message == message_py
    assert f"{bad}:3" in message
