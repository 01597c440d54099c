"""The cheap bound that lets most files skip the depth walk: it must never clear a deep file.

`may_nest_too_deep(text)` counts `.`, `[` and `{`: each level of a path past the first segment of
a header and of a key costs the text one of them. The property renders random trees as TOML in
every style that nests (headers, arrays of tables, dotted keys, inline tables and arrays) and
checks the longest path tomli reads never exceeds that count + 2.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
import tomli
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from compose import SourceError, compose, to_toml
from compose._toml import DEEP, depth_bound, may_nest_too_deep, nesting
from compose._tree import MAX_DEPTH

if TYPE_CHECKING:
    from conftest import WriteFile

KEYS = st.sampled_from(["a", "b", "c"])
TREES = st.recursive(
    st.integers(0, 9),
    lambda inner: st.one_of(
        st.dictionaries(KEYS, inner, min_size=1, max_size=2),
        st.lists(inner, min_size=1, max_size=2),
    ),
    max_leaves=12,
)
DOCS = st.dictionaries(KEYS, TREES, min_size=1, max_size=2)


def longest_path(value: Any) -> int:
    if isinstance(value, dict) and value:
        return 1 + max(longest_path(item) for item in value.values())
    if isinstance(value, list) and value:
        return 1 + max(longest_path(item) for item in value)
    return 0


def toml_key(segment: str) -> str:
    return segment if segment.isalnum() else json.dumps(segment)


def inline(value: Any) -> str:
    if isinstance(value, dict):
        entries = (f"{toml_key(key)} = {inline(item)}" for key, item in value.items())
        return "{" + ", ".join(entries) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(inline(item) for item in value) + "]"
    return json.dumps(value)


def dotted(doc: dict[str, Any], path: tuple[str, ...] = ()) -> Iterator[str]:
    """One `a.b.c = value` a leaf; lists inline (keys made by dots, the rest by brackets)."""
    for key, value in doc.items():
        if isinstance(value, dict):
            yield from dotted(value, (*path, toml_key(key)))
        else:
            yield f"{'.'.join((*path, toml_key(key)))} = {inline(value)}"


def styles(doc: dict[str, Any]) -> list[str]:
    return [
        to_toml(doc),  # headers and arrays of tables
        "\n".join(dotted(doc)) + "\n",
        "\n".join(f"{toml_key(key)} = {inline(value)}" for key, value in doc.items()) + "\n",
    ]


@settings(max_examples=examples(300))
@given(doc=DOCS)
def test_no_path_is_longer_than_the_structure_characters_allow(doc: dict[str, Any]) -> None:
    for text in styles(doc):
        parsed = tomli.loads(text)
        assert parsed == doc
        bound = text.count(".") + text.count("[") + text.count("{") + 2
        assert longest_path(parsed) <= bound, text


def test_the_bound_is_near_tight_for_dotted_keys_and_headers() -> None:
    """A header's first segment and a key's first segment are the only free levels."""
    text = "[a.b]\nc.d = 1\n"  # a, b, c, d: the header's `[` is the one character to spare
    assert (longest_path(tomli.loads(text)), text.count(".") + text.count("[") + 2) == (4, 5)
    text = "[[a]]\n[[a.b]]\nc = {d = [1]}\n"  # a, 0, b, 0, c, d, 0
    assert longest_path(tomli.loads(text)) == 7


@pytest.mark.parametrize("extra", [0, 1], ids=["at the limit", "past it"])
def test_files_at_and_past_the_limit_with_the_least_structure(write: WriteFile, extra: int) -> None:
    """Dotted keys only: MAX_DEPTH levels are fine, one more is refused, naming the file."""
    depth = MAX_DEPTH + extra  # levels of tables: the leaf sits one below the deepest
    text = ".".join(["k"] * (depth + 1)) + " = 1\n"
    assert may_nest_too_deep(text)
    write("deep.toml", text)
    if extra:
        with pytest.raises(SourceError, match=r"nested deeper than 100 levels"):
            compose(["deep.toml"])
    else:
        assert longest_path(compose(["deep.toml"])) == depth + 1


def test_a_typical_file_skips_the_walk() -> None:
    text = "".join(f"[g.s{j}]\nk0 = 1\nk1 = 2.5\nk2 = 'x'\nk3 = [1, 2]\n" for j in range(15))
    assert not may_nest_too_deep(text)


# ---------------------------------------------------------------- the structure bound

STRINGS = st.text(alphabet="ab.[]{}=, ", max_size=6)  # none the bound cannot see past
LEAVES = st.one_of(st.integers(0, 9), st.sampled_from([0.5, 12.25]), STRINGS)
ODD_KEYS = st.sampled_from(["a", "b", "c.d", "e[f]", "g{", "h]"])  # the last four need quotes
ODD_TREES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.dictionaries(ODD_KEYS, inner, min_size=1, max_size=2),
        st.lists(inner, min_size=1, max_size=3),
    ),
    max_leaves=16,
)
ODD_DOCS = st.dictionaries(ODD_KEYS, ODD_TREES, min_size=1, max_size=3)


def spread(value: Any) -> str:
    """`value` inline, an element or entry to a line (TOML 1.1 lets inline tables span lines)."""
    if isinstance(value, dict):
        entries = (f"{toml_key(key)} = {spread(item)}" for key, item in value.items())
        return "{\n" + ",\n".join(entries) + "\n}"
    if isinstance(value, list):
        return "[\n" + ",\n".join(spread(item) for item in value) + ",\n]"
    return json.dumps(value)


@settings(max_examples=examples(400))
@given(doc=ODD_DOCS)
def test_the_structure_bound_is_never_below_the_deepest_path(doc: dict[str, Any]) -> None:
    """Strings full of brackets and dots, quoted keys, multi-line values: whatever the
    bound clears, no path of the table is deeper (it may only say None: walk)."""
    spread_out = "\n".join(f"{toml_key(key)} = {spread(value)}" for key, value in doc.items())
    for text in [*styles(doc), spread_out + "\n"]:
        parsed = tomli.loads(text)
        assert parsed == doc
        bound = depth_bound(text, 10_000)
        assert bound is None or longest_path(parsed) - 1 <= bound, text


@pytest.mark.parametrize(
    "text",
    [
        'x = [[["]]", [[1]], "[["]]]\n',  # a string's brackets pair with the value's
        "[[a.b.c]]\n[[a.b.c]]\nd.e = [{f.g = [[1]]}]\n",
        "[[a]]\n[[a.b]]\n[[a.b.c]]\nd = 1\n",
        'a = {b = {c = {d = "}}}"}}}\n',
    ],
)
def test_the_bound_holds_where_strings_mimic_structure(text: str) -> None:
    bound = depth_bound(text, 10_000)
    assert bound is not None
    assert longest_path(tomli.loads(text)) - 1 <= bound


@pytest.mark.parametrize(
    "text",
    [
        "a = [1]  # [[[[ ]]\n",
        "a = '[[[['\nb = [1]\n",
        'a = ["\\"[[", [1]]\n',
        'a = """\n[[ "\n]]"""\n',
        "a = '''\n]] # [\n'''\nb = [[1]]\n",
        'a = """\\"""\n"""\nb = [[1]]  # """ [[[\n',
    ],
    ids=["comment", "literal", "escaped quote", "multi-line", "multi-line literal", "escapes"],
)
def test_comments_and_every_kind_of_string_are_seen_past(text: str) -> None:
    """What they hold is no structure: the bound is that of the brackets outside them."""
    bound, plain = depth_bound(text, 10_000), depth_bound("b = [[1]]\n", 10_000)
    assert bound is not None and plain is not None
    assert longest_path(tomli.loads(text)) - 1 <= bound <= plain


def commented(text: str) -> str:
    """`text` with a comment full of structure after every line (strings end on their line)."""
    return "".join(f"{line}  # ]]}} \"[{{ '[. a.b\n" for line in text.splitlines())


def literal(doc: dict[str, Any]) -> str:
    """`doc` in dotted keys with every string a literal string."""
    return ("\n".join(dotted(doc)) + "\n").replace('"', "'")  # no string holds a quote


@settings(max_examples=examples(300))
@given(doc=ODD_DOCS)
def test_the_bound_holds_through_comments_and_literal_strings(doc: dict[str, Any]) -> None:
    for text in [commented(styles(doc)[1]), commented(styles(doc)[2]), literal(doc)]:
        parsed = tomli.loads(text)
        assert parsed == doc
        bound = depth_bound(text, 10_000)
        assert bound is not None
        assert longest_path(parsed) - 1 <= bound, text


def big(extra: str = "") -> str:
    """A file like the benchmark's: far more dots and brackets than any path holds."""
    lines = [f'[g.s{j}]\nk0 = {j}.5\nk1 = "v{j}"\nk2 = [1, 2.5]\n' for j in range(200)]
    return "".join(lines) + extra


def test_a_large_typical_file_skips_the_walk() -> None:
    text = big()
    assert text.count(".") + text.count("[") > MAX_DEPTH  # the count alone would walk
    assert not may_nest_too_deep(text)


@pytest.mark.parametrize(
    ("value", "refused"),
    [
        ("[" * MAX_DEPTH + "1" + "]" * MAX_DEPTH, True),  # [deep] is the first level
        ('"' + "[" * 200 + '"', False),  # brackets in a string nest nothing
        ("[" * (MAX_DEPTH - 1) + "1" + "]" * (MAX_DEPTH - 1), False),
    ],
    ids=["deep value", "brackets in a string", "at the limit"],
)
def test_a_large_file_is_refused_only_where_it_nests_too_deep(
    write: WriteFile, value: str, refused: bool
) -> None:
    write("big.toml", big(f"[deep]\nx = {value}\n"))
    if refused:
        with pytest.raises(SourceError, match=r"big\.toml.*nested deeper than 100 levels"):
            compose(["big.toml"])
    else:
        assert compose(["big.toml"])["deep"]["x"]


# ---------------------------------------- what the native parser must not read

N = 50_000  # nested arrays or inline tables this deep crash toml-rs (it recurses a bracket)
CRASHING = {
    "arrays": "a = " + "[" * N + "]" * N,
    "inline tables": "a = " + "{b=" * N + "1" + "}" * N,
    "strings closing brackets": "a = " + '["]",' * N + "1" + "]" * N,
    "after a comment": "# note\na = " + "[" * N + "]" * N,
    "a comment closing brackets": "# " + "]" * N + "\na = " + "[" * N + "]" * N,
    "literal strings": "a = " + "['[', " * N + "1" + "]" * N,
    "unclosed": "a = " + "[" * N,
}


@pytest.mark.parametrize("text", CRASHING.values(), ids=CRASHING.keys())
def test_brackets_nested_past_the_limit_never_reach_the_native_parser(text: str) -> None:
    assert nesting(text) == DEEP


# Quotes a regex lexer would retry from, each time to the end of the line, if it could fail
# (seconds for 8,000 of them, a hang for these); the brackets make the file need the lexer.
QUADRATIC = {"escaped quotes": "x = [" + "[1], " * 100 + ']\n# c\ny = "' + '\\"' * 200_000}


@pytest.mark.parametrize(
    "text", [*CRASHING.values(), *QUADRATIC.values()], ids=[*CRASHING, *QUADRATIC]
)
def test_a_file_the_native_parser_would_crash_on_is_one_clear_error(
    write: WriteFile, text: str
) -> None:
    """In a process of its own: a crash would end it with a signal, not an error message."""
    path = write("deep.toml", text)
    done = subprocess.run(
        [sys.executable, "-m", "compose", "show", "@", str(path)],
        capture_output=True,
        text=True,
        timeout=120,  # a hang fails too
        check=False,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.startswith(f"error: {path}") and "Traceback" not in done.stderr
