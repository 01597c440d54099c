"""Hydra's override grammar (`compose._input.hydra.grammar`), the one parser of group, value and
sweep overrides: keys and prefixes, the value's tokens and their types, quoting and escapes,
lists and dicts, the functions, and the text a parsed value is written back as."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compose import ArgvError
from compose._input.hydra.grammar import (
    ChoiceSweep,
    GlobSweep,
    IntervalSweep,
    Quoted,
    RangeSweep,
    as_text,
    parse_override,
    plain,
    sweep_values,
)


def value(text: str) -> Any:
    return parse_override(f"k={text}").plain()


@pytest.mark.parametrize(
    ("text", "action", "key", "package"),
    [
        ("db=mysql", "set", "db", None),
        ("+db=mysql", "add", "db", None),
        ("++db=mysql", "force", "db", None),
        ("~db", "delete", "db", None),
        ("db@src=mysql", "set", "db", "src"),
        ("db@=mysql", "set", "db", ""),
        ("server/db@a.b=x", "set", "server/db", "a.b"),
        ("a-b=2", "set", "a-b", None),
        ("a.0.c=2", "set", "a.0.c", None),
    ],
)
def test_key_part(text: str, action: str, key: str, package: str | None) -> None:
    parsed = parse_override(text)
    assert (parsed.action, parsed.key, parsed.package) == (action, key, package)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", 1),
        ("1_000", 1000),
        ("-3", -3),
        ("1e-3", 0.001),
        ("1.5", 1.5),
        ("true", True),
        ("FALSE", False),
        ("on", "on"),
        ("null", None),
        ("NULL", None),
        ("0x10", "0x10"),
        ("1.2.3", "1.2.3"),
        ("a b c", "a b c"),
        ("trueish", "trueish"),
        ("", ""),
        ("${a.b}", "${a.b}"),
        ("'a,b'", "a,b"),
        ('"x=1"', "x=1"),
        (r"'it\'s'", "it's"),
        (r"a\,b", "a,b"),
        (r"a\ b", "a b"),
        ("[1, a, [true]]", [1, "a", [True]]),
        ("{a: 1, 2: b}", {"a": 1, 2: "b"}),
        ("[]", []),
        ("{}", {}),
    ],
)
def test_values_and_their_types(text: str, expected: Any) -> None:
    assert value(text) == expected


def test_nan_and_inf_are_floats() -> None:
    assert math.isnan(value("nan"))
    assert value("-inf") == -math.inf


def test_a_quoted_value_is_kept_apart_for_job_overrides() -> None:
    parsed = parse_override("k='a b'")
    assert parsed.value == Quoted("a b", "'")
    assert as_text(parsed.value) == "'a b'"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("int(3.7)", 3),
        ("str(true)", "true"),
        ("float(1)", 1.0),
        ("bool(1)", True),
        ("int([1.5, 2.5])", [1, 2]),
        ("sort([3, 1, 2])", [1, 2, 3]),
        ("sort([3, 1, 2], reverse=true)", [3, 2, 1]),
        ("str({a: 1})", {"a": "1"}),
    ],
)
def test_functions_on_values(text: str, expected: Any) -> None:
    assert value(text) == expected


def test_functions_make_sweeps() -> None:
    assert parse_override("k=a,b").value == ChoiceSweep(("a", "b"), simple=True)
    assert parse_override("k=choice(a,b)").value == ChoiceSweep(("a", "b"))
    assert parse_override("k=range(1,5,2)").value == RangeSweep(1, 5, 2)
    assert parse_override("k=interval(0,1)").value == IntervalSweep(0.0, 1.0)
    assert parse_override("k=glob(a*,exclude=ab)").value == GlobSweep(("a*",), ("ab",))
    tagged = parse_override("k=tag(t1,choice(a,b))").value
    assert tagged.tags == frozenset({"t1"})
    assert parse_override("k=sort(3,1,2)").value.items == (1, 2, 3)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("a=b=c", "unexpected"),
        ("k=nosuch(1)", "unknown function nosuch()"),
        ("k=bool('yes')", "bool()"),
        ("k=choice(a=1, 2)", "positional argument after a keyword"),
        ("k=[1,2", "expected"),
        ("db", "an override is KEY=VALUE"),
        ("=1", "an override needs a key before '='"),
        ("+=1", "an override needs a key before '='"),
        ("~", "an override needs a key"),
        ("@pkg=x", "an override needs a key before '@'"),
        ("'a.b'=1", "not a key"),
        ("k=" + "[" * 200 + "]" * 200, "nested deeper"),
        ("+" + ".".join("k" * 101) + "=1", "a key path of more than 100 segments"),
        ("+" + "/".join("g" * 101) + "=x", "a key path of more than 100 segments"),
        ("+db@" + ".".join("p" * 101) + "=x", "a key path of more than 100 segments"),
    ],
)
def test_what_does_not_parse_is_one_argv_error_naming_the_override(text: str, words: str) -> None:
    with pytest.raises(ArgvError) as caught:
        parse_override(text)
    assert words in caught.value.message
    assert caught.value.origin == text


def test_a_range_of_floats_steps_by_decimal_arithmetic() -> None:
    sweep = parse_override("k=range(0,1,0.25)").value
    assert sweep_values(sweep, list, "k") == [0.0, 0.25, 0.5, 0.75]


def test_a_huge_range_is_refused_before_it_is_made() -> None:
    sweep = parse_override("k=range(0,1000000000000)").value
    with pytest.raises(ArgvError, match="more than"):
        sweep_values(sweep, list, "k=range(0,1000000000000)")


DIGITS = "7" * 5000  # past the 4,300 digits Python converts between text and int


@pytest.mark.parametrize(
    "text",
    [f"k={DIGITS}", f"k=-{DIGITS}", f"k=[1,{DIGITS}]", f"k={{a: {DIGITS}}}", f"k=int('{DIGITS}')"],
)
def test_an_integer_too_long_to_convert_is_an_argv_error(text: str) -> None:
    with pytest.raises(ArgvError) as caught:
        parse_override(text)
    assert "an integer of 5,000 digits, past the 4,300 Python converts" in caught.value.message
    assert caught.value.origin == text


@pytest.mark.parametrize(
    "text", ["k=range(0,10**30)", "k=range(10**30,0,-1)", "k=range(-10**30,10**30,10**20)"]
)
def test_a_range_past_the_largest_length_is_refused_as_too_many(text: str) -> None:
    # a Python range longer than sys.maxsize has no len(): it is counted, not measured
    written = re.sub(r"10\*\*(\d+)", lambda m: str(10 ** int(m[1])), text)
    sweep = parse_override(written).value
    with pytest.raises(ArgvError, match="a range of more than 100,000 values"):
        sweep_values(sweep, list, written)


def test_a_range_counts_its_values_as_python_does() -> None:
    for start, stop, step in [(0, 3, 1), (5, 0, -2), (0, 10, 3), (3, 3, 1), (0, -4, -3)]:
        sweep = parse_override(f"k=range({start},{stop},{step})").value
        assert sweep_values(sweep, list, "k") == list(range(start, stop, step))


def test_shuffle_is_refused_as_not_reproducible() -> None:
    sweep = parse_override("k=shuffle(a,b)").value
    with pytest.raises(ArgvError, match="random"):
        sweep_values(sweep, list, "k=shuffle(a,b)")


# --- written back as text, read again ---------------------------------------------------------

TEXTS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    TEXTS.map(lambda t: Quoted(t, "'")),
    st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True).filter(
        lambda t: t not in ("true", "false", "null", "nan", "inf")
    ),
)
ELEMENTS = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.from_regex(r"[a-z]{1,4}", fullmatch=True), inner, max_size=3),
    ),
    max_leaves=8,
)


@given(ELEMENTS)
def test_as_text_reads_back_as_the_same_value(element: Any) -> None:
    """parse(as_text(x)) == x: a job's override text gives the value the sweep meant."""
    assert parse_override(f"k={as_text(element)}").plain() == plain(element)
