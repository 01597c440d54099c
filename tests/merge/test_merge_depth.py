"""The cheap bound that lets most files skip the depth walk: it must never clear a deep file.

`may_nest_too_deep(text)` counts `.`, `[` and `{`: each level of a path past the first segment of
a header and of a key costs the text one of them. The property renders random trees as TOML in
every style that nests (headers, arrays of tables, dotted keys, inline tables and arrays) and
checks the longest path tomli reads never exceeds that count + 2.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
import tomli
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from compose import SourceError, compose, to_toml
from compose._toml import may_nest_too_deep
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


def inline(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key} = {inline(item)}" for key, item in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(inline(item) for item in value) + "]"
    return json.dumps(value)


def dotted(doc: dict[str, Any], path: tuple[str, ...] = ()) -> Iterator[str]:
    """One `a.b.c = value` a leaf; lists inline (keys made by dots, the rest by brackets)."""
    for key, value in doc.items():
        if isinstance(value, dict):
            yield from dotted(value, (*path, key))
        else:
            yield f"{'.'.join((*path, key))} = {inline(value)}"


def styles(doc: dict[str, Any]) -> list[str]:
    return [
        to_toml(doc),  # headers and arrays of tables
        "\n".join(dotted(doc)) + "\n",
        "\n".join(f"{key} = {inline(value)}" for key, value in doc.items()) + "\n",
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
