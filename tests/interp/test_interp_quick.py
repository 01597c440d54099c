"""The fast path of interpolation (`compose._interp.quick`): same results and same errors as the
general evaluation, which these tests reach by switching the fast path off (each comparison
sets the switch both ways, whatever `COMPOSE_REFERENCE` says)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import tomli
from conftest import WriteFile, examples
from hypothesis import given, settings
from hypothesis import strategies as st
from interp_cases import CASES, ENV, RESOLVERS, UNSET, Case

from compose import compose
from compose._interp import evaluate as _evaluate
from compose._interp import resolve as _interp
from compose._interp.grammar import parse
from compose._interp.quick import SLOW, lone_reference, plan_of, walk
from compose.errors import ComposeError

Outcome = tuple[str, Any]


def outcome(tree: dict[str, Any], *, shortcuts: bool = True, **kwargs: Any) -> Outcome:
    """The resolved tree, or every error as (key, message, value, origin, hint), with the
    fast path on (or off)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_evaluate, "SHORTCUTS", shortcuts)
        try:
            return "ok", _interp.resolve_tree(tree, **kwargs)
        except ComposeError as error:
            shown = [(e.key, e.message, e.value, e.origin, e.hint) for e in error.errors]
            return "error", shown


def general(tree: dict[str, Any], **kwargs: Any) -> Outcome:
    """`outcome` with the fast path switched off: every value goes through the parser."""
    return outcome(tree, shortcuts=False, **kwargs)


def agree(tree: dict[str, Any], **kwargs: Any) -> Outcome:
    """The outcome, the same with the fast path and without."""
    fast = outcome(tree, **kwargs)
    assert fast == general(tree, **kwargs)
    return fast


# -- the whole corpus, both ways


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_corpus_agrees_with_the_general_path(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    for name in UNSET:
        monkeypatch.delenv(name, raising=False)
    agree(tomli.loads(case.toml), resolvers=RESOLVERS)


# -- what the fast path takes


@pytest.mark.parametrize(
    ("raw", "plan"),
    [
        ("${a}", ((0, ("a",)),)),
        ("${a.b.c}", ((0, ("a", "b", "c")),)),
        ("${ a.b }", ((0, ("a", "b")),)),
        ("${\ta}", ((0, ("a",)),)),
        ("${..a.0}", ((2, ("a", "0")),)),
        ("${my-key.sub_key}", ((0, ("my-key", "sub_key")),)),
        ("${é.ß}", ((0, ("é", "ß")),)),
        ("x-${a}-y", ("x-", (0, ("a",)), "-y")),
        ("${a}${b}", ((0, ("a",)), (0, ("b",)))),
        ("$${a}", ("$", (0, ("a",)))),
        ("}${a}{", ("}", (0, ("a",)), "{")),
    ],
)
def test_plans(raw: str, plan: Any) -> None:
    assert plan_of(raw) == plan


@pytest.mark.parametrize(
    ("raw", "reference"),
    [
        ("${a}", (0, ("a",))),
        ("${ a.b }", (0, ("a", "b"))),
        ("${..a.0}", (2, ("a", "0"))),
        ("${my-key.sub_key}", (0, ("my-key", "sub_key"))),
        ("x${a}", None),
        ("${a}${b}", None),
        ("${a}\\", None),
        ("${a.${k}}", None),
    ],
)
def test_lone_references(raw: str, reference: Any) -> None:
    assert lone_reference(raw) == reference


@pytest.mark.parametrize(
    "raw",
    [
        "plain",
        "???",
        r"\${a}",
        r"\\${a}",
        r"a\b${a}",
        "${a.${k}}",
        "${a[0]}",
        "${oc.env:HOME}",
        "${a}-${oc.env:HOME}",
        "${a$b}",
        "${a.}",
        "${.}",
        "${a..b}",
        "${a b}",
        "${}",
        "${a",
        "x ${a",
    ],
)
def test_what_the_parser_keeps(raw: str) -> None:
    assert plan_of(raw) is None


def test_plain_references_in_the_syntax_tree() -> None:
    assert parse("${a.b[0]}").plain == ("a", "b", "0")  # type: ignore[union-attr]
    assert parse("${..a}").plain == ("a",)  # type: ignore[union-attr]
    assert parse("${a.${k}}").plain is None  # type: ignore[union-attr]


def test_walk_gives_way_where_it_cannot_settle() -> None:
    tree: dict[str, Any] = {"a": {"b": 1, "s": "${x}", "m": "???", "l": [1, 2]}, "n": 3}
    assert walk(tree, {}, ("r",), 0, ("a", "b")) == 1
    assert walk(tree, {}, ("r",), 0, ("a", "l", "-1")) == 2
    assert walk(tree, {}, ("a", "r"), 1, ("b",)) == 1
    assert walk(tree, {("a", "s"): 5}, ("r",), 0, ("a", "s")) == 5
    for keys in [("a", "x"), ("a", "s"), ("a", "m"), ("a", "l", "2"), ("a", "l", "x"), ("n", "x")]:
        assert walk(tree, {}, ("r",), 0, keys) is SLOW
    assert walk(tree, {("a", "l", 1): 9}, ("r",), 0, ("a", "l", "1")) == 2
    assert walk(tree, {}, ("r",), 2, ("a",)) is SLOW  # above the top


# -- the same results and errors as the general evaluation


@pytest.mark.parametrize(
    "tree",
    [
        {"a": {"b": 1}, "r": "${a.b}"},
        {"a": {"b": 1}, "r": "${ a.b }"},
        {"a": {"b": 1}, "r": "${a.c}"},
        {"a": {"b": 1}, "r": "${a.b.c}"},
        {"a": {"bee": 1}, "r": "${a.be}"},
        {"a": [10, 20, 30], "r": "${a.0}", "s": "${a.-1}", "t": "<${a.1}>"},
        {"a": [10, 20, 30], "r": "${a.3}"},
        {"a": [10, 20, 30], "r": "${a.x}"},
        {"a": [10, 20, 30], "r": "${a.1_0}"},
        {"my-key": {"sub-key": "v"}, "r": "${my-key.sub-key}"},
        {"t": {"k": [1, {"x": 2}]}, "r": "${t}", "s": "${t.k}"},
        {"a": "${b}", "b": "${c}", "c": 3},
        {"c": 3, "b": "${c}", "a": "${b}"},
        {"a": "x-${b}-y", "b": "${c}", "c": True, "d": "${a}"},
        {"a": "${b}", "b": "${a}"},
        {"a": "${a}"},
        {"a": "x${b}", "b": "y${a}"},
        {"m": "???", "r": "${m}", "s": "<${m}>"},
        {"m": r"\???", "r": "${m}", "s": "<${m}>"},
        {"q": "?", "r": "${q}${q}${q}"},
        {"t": {"x": 1}, "s": "${t}", "r": "${s.x}"},
        {"n": 1, "r": "${n.x}"},
        {"a": {"x": 1, "same": "${.x}", "b": {"up": "${..x}", "top": "${...r}"}}, "r": 0},
        {"a": {"b": "${....x}"}},
        {"l": [{"x": 1, "y": "${.x}"}, "${.0.x}", "${..l.0.x}"]},
        {"e": "", "r": "${e}", "s": "${e}${e}"},
        {"f": 1e-5, "n": None, "s": "${f} ${n}"},
        {"v": "${oc.env:COMPOSE_T_NOT_SET,d}", "r": "${v}", "s": "<${v}>"},
        {"a": {"b": 1}, "r": "${a.b}", "lit": r"\${a.b}", "mix": r"\${a.b}${a.b}"},
    ],
)
def test_agrees_with_the_general_path(tree: dict[str, Any]) -> None:
    agree(tree)


def test_a_missing_key_says_so_with_the_same_message() -> None:
    kind, errors = agree({"a": {"b": 1}, "r": "${a.c}"})
    assert kind == "error"
    message = "interpolation ${a.c}: key a.c not found"
    assert errors == [("r", message, "${a.c}", None, "did you mean a.b?")]


def test_class_defaults_are_the_general_path_s() -> None:
    def default_at(path: Any) -> Any:
        if path == ("model", "lr"):
            return 0.5
        raise KeyError(path)

    tree = {"model": {"name": "m"}, "r": "${model.lr}", "s": "lr=${model.lr}", "t": "${x}"}
    kind, errors = agree(tree, default_at=default_at)
    assert kind == "error"
    assert [message for _, message, *_ in errors] == ["interpolation ${x}: key x not found"]
    del tree["t"]
    assert agree(tree, default_at=default_at)[1] == {
        "model": {"name": "m"},
        "r": 0.5,
        "s": "lr=0.5",
    }


def test_a_lone_reference_to_a_table_is_a_copy() -> None:
    tree = {"t": {"k": [1]}, "r": "${t}", "s": "${r}"}
    result = _interp.resolve_tree(tree)
    result["r"]["k"].append(2)
    assert result["s"] == {"k": [1]}
    assert result["t"] == {"k": [1]}
    assert tree["r"] == "${t}"


def test_references_to_references_resolve_once() -> None:
    calls: list[int] = []

    def count() -> int:
        calls.append(1)
        return len(calls)

    tree = {"c": "${count:}", "b": "${c}", "a": "x${b}", "z": "${a}", "y": "${z}${b}"}
    result = _interp.resolve_tree(tree, resolvers={"count": count})
    assert result == {"c": 1, "b": 1, "a": "x1", "z": "x1", "y": "x11"}
    assert len(calls) == 1


def test_text_counts_against_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_evaluate, "MAX_EXPANSION", 10)
    with pytest.raises(ComposeError, match="grow past 10 characters"):
        _interp.resolve_tree({"a": "xxxx", "b": "${a}${a}", "c": "${b}${b}"})


def test_convert_is_applied_to_resolved_values_only() -> None:
    tree = {"n": "None", "a": "No", "b": "${a}ne", "c": "${n}", "t": {"x": "${b}"}}
    result = _interp.resolve_tree(tree, convert=lambda value: f"<{value}>")
    assert result == {"n": "None", "a": "No", "b": "<None>", "c": "<None>", "t": {"x": "<None>"}}


def test_text_resolved_ahead_is_not_spent_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    """`c` needs `b` before `b`'s own turn: `b` is made (and counted) once, as in the general
    evaluation: 16 + 8 + 5 characters fit a budget of 32."""
    monkeypatch.setattr(_evaluate, "MAX_EXPANSION", 32)
    tree = {"c": "${b}${b}", "b": "${a}${a}", "d": "y${a}", "a": "xxxx"}
    assert agree(tree)[1] == {"c": "x" * 16, "b": "x" * 8, "d": "yxxxx", "a": "xxxx"}


def test_a_table_made_ahead_is_still_copied() -> None:
    """`t` is resolved for `r` first; its own value is a copy all the same, as the general
    evaluation makes it (the resolver may keep what it returned)."""
    kept = {"k": [1]}
    tree = {"r": "${t}", "t": "${table:}"}
    assert agree(tree, resolvers={"table": lambda: kept})[1] == {"r": kept, "t": kept}
    result = _interp.resolve_tree(tree, resolvers={"table": lambda: kept})
    assert result["t"] is not kept
    assert result["t"]["k"] is not kept["k"]


# -- random trees, both ways

_KEYS = st.sampled_from(["a", "b", "c", "0", "1", "x-y"])
_TEXT = st.sampled_from(["", "x", "-", "$", "{", "\\", "${oc.env:COMPOSE_T_HOME,h}"])
_SCALAR = st.one_of(
    st.integers(-2, 2),
    st.booleans(),
    st.none(),
    st.sampled_from([0.5, "", "v", "w", "None", r"\???", r"\${a}", "${table:}"]),
)
_TREE = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_KEYS, inner, max_size=4)),
    max_leaves=12,
)


def _paths(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, child in items:
        yield (*path, key)
        if isinstance(child, dict | list):
            yield from _paths(child, (*path, key))


def _spelling(data: st.DataObject, where: tuple[Any, ...], target: tuple[Any, ...]) -> str:
    """`${...}` for `target`, written at `where`: absolute, or relative when it can be."""
    container = where[:-1]
    climbs = [
        dots
        for dots in range(1, len(container) + 2)
        if target[: len(container) - dots + 1] == container[: len(container) - dots + 1]
    ]
    dots = data.draw(st.sampled_from([0, *climbs]))
    keys = target[len(container) - dots + 1 :] if dots else target
    pad = data.draw(st.sampled_from(["", " "]))
    return "${" + pad + "." * dots + ".".join(str(key) for key in keys) + pad + "}"


def _apart(one: tuple[Any, ...], other: tuple[Any, ...]) -> bool:
    shorter = min(len(one), len(other))
    return one[:shorter] != other[:shorter]


def _put(tree: Any, path: tuple[Any, ...], value: str) -> None:
    node = tree
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


@settings(max_examples=examples(300))
@given(st.data())
def test_random_trees_agree_with_the_general_path(data: st.DataObject) -> None:
    """References to paths the tree holds (so most resolve), alone or in text, chained, in
    cycles, into values replaced by other references, both ways."""
    tree = data.draw(st.dictionaries(_KEYS, _TREE, min_size=1, max_size=5))
    for _ in range(data.draw(st.integers(1, 6))):
        paths = list(_paths(tree))
        where = data.draw(st.sampled_from(paths))
        apart = [path for path in paths if _apart(path, where)]  # else a cycle or nothing there
        target = data.draw(st.sampled_from(apart or paths))
        text = [data.draw(_TEXT) for _ in range(data.draw(st.integers(0, 2)))]
        text.insert(data.draw(st.integers(0, len(text))), _spelling(data, where, target))
        _put(tree, where, "".join(text))

    agree(tree, resolvers={"table": lambda: {"k": [1, "${a}"]}})


def test_interpolation_spelt_with_a_toml_escape_is_resolved(write: WriteFile) -> None:
    """The raw text holds no "${" or "???", yet the parsed values do."""
    write("a.toml", 'b = 1\na = "\\u0024{b}"\nm = "\\u003f??"\n')
    with pytest.raises(ComposeError, match="m"):
        compose(["a.toml"])
    write("c.toml", 'b = 1\na = "\\u0024{b}"\n')
    assert compose(["c.toml"]) == {"b": 1, "a": 1}
