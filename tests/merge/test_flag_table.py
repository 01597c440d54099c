"""Schema-less value flags merged as one table (the flag-table shortcut of
`compose._merge.flags`) compose what the flags set one by one compose: the same tree, the same
error, whatever the files hold and however the flags' paths meet."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compose import ComposeError, compose
from compose._merge import flags

SEGMENTS = st.sampled_from(["a", "b", "c", "0", "1", "x-y", "x_y"])
VALUES = st.sampled_from(
    [
        "1",
        "2",
        "3",
        "text",
        "2.5",
        "word",
        "true",
        "None",
        "[1, 2]",
        '[{"k": 1}]',
        '{"k": 1}',
        "{bad",
        "???",
        "${a}",
        "x-${b.c}",
        "[1,",
        "",
    ]
)
LEAVES = st.one_of(st.integers(-3, 3), st.sampled_from(["s", "???"]), st.none())
TREES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(["a", "b", "c", "0", "x_y"]), inner, max_size=3),
    ),
    max_leaves=8,
)
KEYS = st.lists(SEGMENTS, min_size=1, max_size=4).map(".".join)
PLAIN = st.tuples(KEYS, VALUES).map(lambda kv: f"{kv[0]}={kv[1]}")
# Mostly plain `key=value` (the table takes those), some that only the reference takes
OVERRIDES = st.lists(
    st.one_of(
        PLAIN,
        PLAIN,
        PLAIN,
        PLAIN,
        PLAIN,
        PLAIN,
        st.tuples(KEYS, VALUES).map(lambda kv: f"{kv[0]}+={kv[1]}"),
        KEYS.map(lambda key: f"~{key}"),
    ),
    max_size=6,
)


def _outcome(path: Path, overrides: list[str]) -> Any:
    try:
        return compose([str(path)], overrides)
    except ComposeError as error:
        return type(error).__name__, error.format()


PLAIN_VALUES = st.sampled_from(["1", "2", "word", "None", "[1, 2]", "${a}", "true"])
# Only flags the table may take: most such lists make it, over trees with lists and values on
# the flags' paths
PLAIN_ONLY = st.lists(
    st.tuples(KEYS, PLAIN_VALUES).map(lambda kv: f"{kv[0]}={kv[1]}"), min_size=1, max_size=5
)


@pytest.mark.shortcuts
@settings(
    max_examples=1200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    tree=st.dictionaries(st.sampled_from(["a", "b", "c", "x_y"]), TREES, max_size=4),
    overrides=st.one_of(OVERRIDES, PLAIN_ONLY),
)
def test_flags_as_one_table_compose_what_flags_one_by_one_compose(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tree: dict[str, Any], overrides: list[str]
) -> None:
    path = tmp_path / "base.json"
    path.write_text(json.dumps(tree))
    fast = _outcome(path, overrides)
    with monkeypatch.context() as patched:
        patched.setattr(flags, "SHORTCUTS", False)
        reference = _outcome(path, overrides)
    assert fast == reference


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        # a value on the way to a later flag's key gives way to a table
        (["s.x=1", "s.x.y=2"], {"x": {"y": 2}}),
        # a later value above earlier keys replaces the table they made
        (["s.x.y=2", "s.x=1"], {"x": 1}),
        # a table value merges into the table the files or an earlier flag made
        (["s.y=2", 's={"z": 3}'], {"x": 1, "y": 2, "z": 3}),
        # `???` never overrides what is set
        (["s.x=???"], {"x": 1}),
        # the last of two flags on one key wins
        (["s.x=1", "s.x=2"], {"x": 2}),
    ],
)
def test_flags_meeting_on_a_path_compose_as_in_order(
    tmp_path: Path, overrides: list[str], expected: dict[str, Any]
) -> None:
    path = tmp_path / "base.toml"
    path.write_text("[s]\nx = 1\n")
    assert compose([str(path)], overrides)["s"] == expected


def test_a_key_into_a_list_is_refused_with_or_without_the_table(tmp_path: Path) -> None:
    path = tmp_path / "base.toml"
    path.write_text("runs = [1, 2]\n")
    with pytest.raises(ComposeError, match="is a list: expected an index, got 'first'"):
        compose([str(path)], ["other=1", "runs.first=3"])
    assert compose([str(path)], ["runs.1=3", "other=1"]) == {"runs": [1, 3], "other": 1}
