"""Unit tests for `compose._interp.resolve`: one group per rule, exact error messages pinned."""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
import tomli
from conftest import run_python
from hypothesis import given
from hypothesis import strategies as st
from interp_cases import CASES, ENV, RESOLVERS, UNSET, Case, Raises
from pydantic import BaseModel

from compose import cli, compose, parse, registered_resolvers, unregister_resolver
from compose._interp.resolve import (
    MANDATORY,
    escape,
    needs_resolution,
    register_resolver,
    resolve_tree,
)
from compose._tree import KeyPath
from compose.errors import ComposeError, ErrorGroup, InterpolationError


@pytest.fixture(autouse=True)
def _registry() -> Iterator[None]:
    """A clean global registry per test, so that registrations do not leak."""
    saved = registered_resolvers()
    for name in saved:
        unregister_resolver(name)
    yield
    for name in registered_resolvers():
        unregister_resolver(name)
    for name, fn in saved.items():
        register_resolver(name, fn)


def _error(tree: dict[str, Any], **kwargs: Any) -> ComposeError:
    with pytest.raises(ComposeError) as info:
        resolve_tree(tree, **kwargs)
    return info.value


def _missing(path: KeyPath) -> Any:
    raise KeyError(path)


# -- the corpus, with per-call resolvers (no omegaconf involved)


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_corpus(case: Case, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    for name in UNSET:
        monkeypatch.delenv(name, raising=False)
    data = tomli.loads(case.toml)
    if isinstance(case.expected, Raises):
        assert case.expected.match in str(_error(data, resolvers=RESOLVERS))
    else:
        assert resolve_tree(data, resolvers=RESOLVERS) == case.expected


# -- public surface


def test_needs_resolution() -> None:
    assert needs_resolution("${a}")
    assert needs_resolution("x ${a} y")
    assert needs_resolution(r"\${a}")
    assert needs_resolution("???")
    assert needs_resolution(r"\???")
    assert not needs_resolution("$a {b}")
    assert not needs_resolution("x???")
    assert not needs_resolution("")
    assert MANDATORY == "???"


def test_register_resolver_replaces() -> None:
    register_resolver("twice", lambda x: x * 2)
    assert resolve_tree({"a": "${twice:2}"}) == {"a": 4}
    register_resolver("twice", lambda x: [x, x])
    assert resolve_tree({"a": "${twice:2}"}) == {"a": [2, 2]}


@pytest.mark.parametrize("name", ["", "a:b", "1x", "a..b", "a b"])
def test_register_resolver_rejects_bad_names(name: str) -> None:
    with pytest.raises(ValueError, match="invalid resolver name"):
        register_resolver(name, str)


def test_register_resolver_rejects_non_callables() -> None:
    with pytest.raises(TypeError, match="not callable"):
        register_resolver("x", 3)  # type: ignore[arg-type]


def test_unregister_resolver_forgets_a_registration() -> None:
    register_resolver("twice", lambda x: x * 2)
    assert registered_resolvers() == {"twice": registered_resolvers()["twice"]}
    assert unregister_resolver("twice") is True
    assert registered_resolvers() == {}
    assert unregister_resolver("twice") is False  # nothing to forget: not an error
    with pytest.raises(InterpolationError, match="unknown resolver twice"):
        resolve_tree({"a": "${twice:2}"})


def test_unregister_resolver_brings_back_the_builtin_it_replaced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COMPOSE_T_BACK", "env")
    register_resolver("oc.env", lambda name: "mine")
    assert resolve_tree({"s": "${oc.env:COMPOSE_T_BACK}"}) == {"s": "mine"}
    assert unregister_resolver("oc.env") is True
    assert resolve_tree({"s": "${oc.env:COMPOSE_T_BACK}"}) == {"s": "env"}
    assert unregister_resolver("oc.env") is False  # a built-in is not in the registry


def test_registered_resolvers_is_a_copy() -> None:
    register_resolver("mine", str)
    registered_resolvers().clear()
    assert set(registered_resolvers()) == {"mine"}


class Scoped(BaseModel):
    a: int = 0


@pytest.mark.parametrize(
    "call",
    [
        lambda resolvers: compose([], ["a=${mul:3,7}"], schema=Scoped, resolvers=resolvers),
        lambda resolvers: parse(Scoped, ["--a", "${mul:3,7}"], resolvers=resolvers),
        lambda resolvers: cli(Scoped, args=["--a", "${mul:3,7}"], resolvers=resolvers),
    ],
    ids=["compose", "parse", "cli"],
)
def test_per_call_resolvers_touch_no_global_state(call: Any) -> None:
    app = {"mul": lambda a, b: a * b}  # an app's resolvers, passed to each of its calls
    assert call(app) == Scoped(a=21)
    assert registered_resolvers() == {}
    with pytest.raises(InterpolationError, match="unknown resolver mul"):
        call(None)


@pytest.mark.parametrize(
    ("resolvers", "raised", "match"),
    [
        ({"a b": str}, ValueError, "invalid resolver name 'a b'"),
        ({1: str}, ValueError, "invalid resolver name 1"),
        ({"x": 3}, TypeError, "resolver 'x' is not callable"),
    ],
)
def test_per_call_resolvers_obey_the_registrys_rules(
    resolvers: Any, raised: type[Exception], match: str
) -> None:
    with pytest.raises(raised, match=match):
        compose([], ["a=${x:1}"], resolvers=resolvers)
    with pytest.raises(raised, match=match):
        parse(Scoped, ["--a", "1"], resolvers=resolvers)


# -- the returned tree


def test_tree_without_interpolation_is_returned_as_is() -> None:
    tree = {"a": 1, "b": {"c": [1, "x", {"d": "$x {y}"}]}, "e": "x???"}
    assert resolve_tree(tree) is tree


def test_input_is_not_mutated_and_unchanged_parts_are_shared() -> None:
    tree: dict[str, Any] = {"a": {"x": 1}, "b": {"c": "${a.x}", "d": [1, 2]}, "e": [3]}
    result = resolve_tree(tree)
    assert tree == {"a": {"x": 1}, "b": {"c": "${a.x}", "d": [1, 2]}, "e": [3]}
    assert result == {"a": {"x": 1}, "b": {"c": 1, "d": [1, 2]}, "e": [3]}
    assert result["a"] is tree["a"]
    assert result["e"] is tree["e"]
    assert result["b"] is not tree["b"]
    assert result["b"]["d"] is tree["b"]["d"]


def test_references_are_independent_copies() -> None:
    tree = {"a": {"l": [1, {"k": 2}]}, "b": "${a}", "c": "${a}", "d": "${b.l}"}
    result = resolve_tree(tree)
    result["b"]["l"][1]["k"] = 99
    result["d"].append(3)
    assert result["a"] == {"l": [1, {"k": 2}]}
    assert result["c"] == {"l": [1, {"k": 2}]}
    assert result["d"] == [1, {"k": 2}, 3]
    assert tree["a"] == {"l": [1, {"k": 2}]}


def test_resolvers_get_copies() -> None:
    def grab(value: Any) -> str:
        value["k"] = "changed"
        return "ok"

    result = resolve_tree(
        {"a": {"k": 1}, "b": "${grab:${a}}", "c": "${a}"}, resolvers={"grab": grab}
    )
    assert result == {"a": {"k": 1}, "b": "ok", "c": {"k": 1}}


def test_lists_at_the_top_of_values() -> None:
    tree = {"x": 1, "l": ["${x}", ["${...x}", {"y": "${....x}"}]]}
    assert resolve_tree(tree) == {"x": 1, "l": [1, [1, {"y": 1}]]}


# -- references


@pytest.mark.parametrize(
    ("ref", "expected"),
    [
        ("${a.b.0.c}", 1),
        ("${a.b[0].c}", 1),
        ("${a[b][0][c]}", 1),
        ("${ a.b.0.c }", 1),
        ("${a.b.1}", "two"),
        ("${a.b.-1}", "two"),
        ("${a.b}", [{"c": 1}, "two"]),
    ],
)
def test_absolute_references(ref: str, expected: Any) -> None:
    assert resolve_tree({"a": {"b": [{"c": 1}, "two"]}, "r": ref})["r"] == expected


def test_relative_references_climb_one_container_per_dot() -> None:
    tree = {
        "top": 0,
        "a": {
            "x": 1,
            "same": "${.x}",
            "b": {"up": "${..x}", "top": "${...top}"},
            "l": ["${..x}", {"q": "${...x}", "r": "${..0}"}],
        },
    }
    assert resolve_tree(tree)["a"] == {
        "x": 1,
        "same": 1,
        "b": {"up": 1, "top": 0},
        "l": [1, {"q": 1, "r": 1}],
    }


def test_typed_references_keep_the_type() -> None:
    tree = {"i": 1, "f": 1e-5, "b": False, "s": "x", "t": {"k": [1]}}
    refs = {f"r{key}": f"${{{key}}}" for key in tree}
    result = resolve_tree({**tree, **refs})
    assert [result[f"r{key}"] for key in tree] == [1, 1e-5, False, "x", {"k": [1]}]


def test_embedded_values_use_str() -> None:
    tree: dict[str, Any] = {"t": True, "f": 1e-5, "n": None, "d": {"k": "${i}"}, "i": 1}
    tree["l"] = [1, "x"]
    tree["s"] = "${t} ${f} ${n} ${d} ${l}"
    assert resolve_tree(tree)["s"] == "True 1e-05 None {'k': 1} [1, 'x']"


def test_nested_interpolations() -> None:
    tree = {"k": "b", "kk": "k", "a": {"b": 5, "c": {"d": 6}}, "p": "c.d"}
    tree.update(one="${a.${k}}", two="${a.${${kk}}}", dotted="${a.${p}}", brk="${a[${k}]}")
    result = resolve_tree(tree)
    assert (result["one"], result["two"], result["dotted"], result["brk"]) == (5, 5, 6, 5)


def test_result_of_an_interpolation_is_not_resolved_again() -> None:
    tree = {"lit": r"\${x}", "ref": "${lit}", "txt": "<${lit}>", "call": "${mk:}"}
    result = resolve_tree(tree, resolvers={"mk": lambda: "${lit}"})
    assert result == {"lit": "${x}", "ref": "${x}", "txt": "<${x}>", "call": "${lit}"}


# -- escapes


@pytest.mark.parametrize(
    ("raw", "resolved"),
    [
        (r"\${x}", "${x}"),
        (r"\\${a}", "\\1"),
        (r"\\\${a}", r"\${a}"),
        (r"\\\\${a}", "\\\\1"),
        (r"a\\b${a}", "a\\\\b1"),
        (r"${a}\\", "1\\\\"),
        (r"\???", "???"),
        (r"\\???", r"\???"),
        ("a\\b", "a\\b"),
    ],
)
def test_escapes(raw: str, resolved: str) -> None:
    assert resolve_tree({"a": 1, "s": raw})["s"] == resolved


@pytest.mark.parametrize(
    ("value", "escaped"),
    [
        ("plain", "plain"),
        ("a\\b", "a\\b"),
        ("${x}", r"\${x}"),
        ("cost ${x} ${y}", r"cost \${x} \${y}"),
        (r"\${x}", r"\\\${x}"),
        ("???", r"\???"),
        (r"\???", r"\\???"),
        ("x???", "x???"),
    ],
)
def test_escape(value: str, escaped: str) -> None:
    assert escape(value) == escaped
    assert resolve_tree({"s": escape(value)}) == {"s": value}


@given(st.text(alphabet="${}\\?.ab :'\",[]", max_size=30) | st.text(max_size=30))
def test_escape_round_trip(value: str) -> None:
    assert resolve_tree({"s": escape(value)}) == {"s": value}


@given(st.text(alphabet="${}\\?.ab:'\",[]() \t=é", max_size=25))
def test_any_text_resolves_or_raises_a_compose_error(value: str) -> None:
    """Any text resolves, or is refused as an InterpolationError blamed on its own key; resolving
    changes nothing else, and text without `$`, `\\` or the `???` marker stays as it is."""
    tree = {"a": 1, "b": {"c": "x"}, "s": value}
    try:
        resolved = resolve_tree(tree, resolvers={"r": lambda *a: a})
    except InterpolationError as error:
        assert error.key == "s", error
    else:
        assert (resolved["a"], resolved["b"]) == (1, {"c": "x"})
        if not {"$", "\\"} & set(value) and value != "???":
            assert resolved["s"] == value


# -- resolvers


def test_resolver_argument_types() -> None:
    tree = {"x": 7, "s": r"${t:21,1.5,true,null,'q s', a b ,a\,b,${x},[1],{k: v},}"}
    result = resolve_tree(tree, resolvers={"t": lambda *args: list(args)})
    assert result["s"] == [21, 1.5, True, None, "q s", "a b", "a,b", 7, [1], {"k": "v"}, ""]


def test_resolver_with_no_arguments() -> None:
    assert resolve_tree({"s": "${now:}"}, resolvers={"now": lambda: "t0"}) == {"s": "t0"}


def test_resolver_lookup_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPOSE_T_ORDER", "env")
    tree = {"s": "${oc.env:COMPOSE_T_ORDER}"}
    assert resolve_tree(tree) == {"s": "env"}
    register_resolver("oc.env", lambda name: "global")
    assert resolve_tree(tree) == {"s": "global"}
    assert resolve_tree(tree, resolvers={"oc.env": lambda name: "call"}) == {"s": "call"}


def test_unknown_resolver_lists_the_known_ones() -> None:
    register_resolver("mine", str)
    error = _error({"s": "${nope:1}"}, resolvers={"local": str})
    assert isinstance(error, InterpolationError)
    assert error.message == "interpolation ${nope:1}: unknown resolver nope"
    assert error.hint is not None
    assert error.hint.startswith("known resolvers: ")
    assert {"local", "mine", "oc.env", "oc.select"} <= set(error.hint[17:].split(", "))


def test_resolver_failure_is_reported() -> None:
    def boom() -> None:
        raise RuntimeError("no luck")

    error = _error({"s": "x${boom:}"}, resolvers={"boom": boom})
    assert (
        str(error)
        == "s = 'x${boom:}': interpolation ${boom:}: resolver boom failed: RuntimeError: no luck"
    )


def test_resolver_raising_a_compose_error_passes_it_through() -> None:
    def refuse() -> None:
        raise InterpolationError("custom refusal", key="k")

    error = _error({"s": "${refuse:}"}, resolvers={"refuse": refuse})
    assert error.message == "custom refusal"


def test_oc_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPOSE_T_SET", "v")
    monkeypatch.delenv("COMPOSE_T_GONE", raising=False)
    tree = {
        "set": "${oc.env:COMPOSE_T_SET}",
        "default": "${oc.env:COMPOSE_T_GONE,d}",
        "null": "${oc.env:COMPOSE_T_GONE,null}",
        "int": "${oc.env:COMPOSE_T_GONE,3}",
    }
    assert resolve_tree(tree) == {"set": "v", "default": "d", "null": None, "int": "3"}
    error = _error({"s": "${oc.env:COMPOSE_T_GONE}"})
    assert (
        error.message
        == "interpolation ${oc.env:COMPOSE_T_GONE}: environment variable COMPOSE_T_GONE is not set"
    )
    assert error.hint == "set it, or give a default: ${oc.env:COMPOSE_T_GONE,default}"


def test_oc_select() -> None:
    tree = {
        "a": {"b": 1, "rel": "${oc.select:.b,0}"},
        "hit": "${oc.select:a.b,0}",
        "miss": "${oc.select:a.z,0}",
        "none": "${oc.select:a.z}",
        "scalar": "${oc.select:a.b.c,0}",
    }
    result = resolve_tree(tree)
    assert result == {"a": {"b": 1, "rel": 1}, "hit": 1, "miss": 0, "none": None, "scalar": 0}


def test_oc_select_takes_one_or_two_arguments() -> None:
    error = _error({"s": "${oc.select:a,b,c}"})
    assert (
        error.message
        == "interpolation ${oc.select:a,b,c}: oc.select takes a key and an optional default"
    )


# -- resolvers registered with omegaconf


@pytest.fixture
def omegaconf_register() -> Iterator[Any]:
    omegaconf = pytest.importorskip("omegaconf")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 2.4 deprecates register_new_resolver
        yield lambda name, fn: omegaconf.OmegaConf.register_new_resolver(name, fn, replace=True)


def test_omegaconf_resolvers_are_used(omegaconf_register: Any) -> None:
    omegaconf_register("t_oc_upper", lambda text: text.upper())
    assert resolve_tree({"s": "${t_oc_upper:abc}"}) == {"s": "ABC"}
    # Ours first: the global registry wins over omegaconf's.
    register_resolver("t_oc_upper", lambda text: text * 2)
    assert resolve_tree({"s": "${t_oc_upper:ab}"}) == {"s": "abab"}


def test_omegaconf_resolvers_wanting_nodes_are_refused(omegaconf_register: Any) -> None:
    omegaconf_register("t_oc_parent", lambda key, _parent_: key)
    error = _error({"s": "${t_oc_parent:x}"})
    assert error.message == (
        "interpolation ${t_oc_parent:x}: resolver t_oc_parent is omegaconf's "
        "and needs its config nodes (_parent_, _root_ or _node_)"
    )
    assert error.hint == "register a plain function with compose.register_resolver"


def test_omegaconf_is_never_imported_by_us() -> None:
    code = (
        "import sys; from compose._interp.resolve import resolve_tree; "
        "resolve_tree({'a': 1, 's': '${a} ${nope:1}'.split()[0]}); "
        "assert 'omegaconf' not in sys.modules"
    )
    assert run_python(code) == (0, "", "")


# -- default_at: class defaults


def test_default_at_is_asked_for_the_full_missing_path() -> None:
    asked: list[KeyPath] = []

    def default_at(path: KeyPath) -> Any:
        asked.append(path)
        if path == ("trainer", "optim", "lr"):
            return 0.1
        raise KeyError(path)

    tree = {"trainer": {"steps": 5}, "lr": "${trainer.optim.lr}"}
    assert resolve_tree(tree, default_at=default_at) == {"trainer": {"steps": 5}, "lr": 0.1}
    assert asked == [("trainer", "optim", "lr")]


def _defaults(defaults: dict[str, Any]) -> Any:
    """A `default_at` that walks nested defaults, as the engine walks its schema."""

    def default_at(path: KeyPath) -> Any:
        node: Any = defaults
        for key in path:
            node = node[int(key) if isinstance(node, list) else key]
        return node

    return default_at


def test_default_values_are_resolved_relative_to_their_own_path() -> None:
    default_at = _defaults(
        {
            "trainer": {"optim": {"lr": "${..base_lr}"}},
            "model": {"name": "m", "tag": "${.name}-v1", "seed": "${seed}"},
        }
    )

    tree = {"seed": 3, "trainer": {"base_lr": 0.5}, "lr": "${trainer.optim.lr}", "m": "${model}"}
    result = resolve_tree(tree, default_at=default_at)
    assert result["lr"] == 0.5
    assert result["m"] == {"name": "m", "tag": "m-v1", "seed": 3}


def test_default_at_key_error_means_missing() -> None:
    error = _error({"x": "${model.name}"}, default_at=_missing)
    assert error.message == "interpolation ${model.name}: key model.name not found"


def test_oc_select_consults_default_at() -> None:
    tree = {"a": "${oc.select:b.c,0}", "d": "${oc.select:b.z,0}"}
    result = resolve_tree(tree, default_at=_defaults({"b": {"c": 4}}))
    assert result == {"a": 4, "d": 0}


def test_errors_inside_defaults_point_at_the_default() -> None:
    def describe(path: KeyPath) -> tuple[str, str | None]:
        return "--" + ".".join(map(str, path)), "default" if path[0] == "model" else "a.toml:1"

    default_at = _defaults({"model": {"name": "${nope}"}})
    error = _error({"x": "${model.name}"}, default_at=default_at, describe=describe)
    assert str(error) == (
        "--model.name = '${nope}' (from default): interpolation ${nope}: key nope not found"
    )


# -- errors: messages pinned


def test_missing_key_with_did_you_mean() -> None:
    def describe(path: KeyPath) -> tuple[str, str | None]:
        return "--" + ".".join(map(str, path)), "b.toml:3"

    error = _error({"model": {"name": "m"}, "x": "${model.nme}"}, describe=describe)
    assert isinstance(error, InterpolationError)
    assert (error.key, error.value, error.origin) == ("--x", "${model.nme}", "b.toml:3")
    assert error.message == "interpolation ${model.nme}: key model.nme not found"
    assert error.hint == "did you mean model.name?"
    assert str(error) == (
        "--x = '${model.nme}' (from b.toml:3): interpolation ${model.nme}: "
        "key model.nme not found; did you mean model.name?"
    )


# -- suggest: did-you-mean from keys the tree does not hold (the schema's)


def _suggester(answer: str | None, asked: list[str]) -> Any:
    def suggest(key: str) -> str | None:
        asked.append(key)
        return answer

    return suggest


def test_suggest_gives_the_hint_when_the_tree_has_no_close_key() -> None:
    asked: list[str] = []
    tree = {"seed": 1, "x": "${model.nme}"}
    error = _error(tree, suggest=_suggester("model.name", asked))
    assert isinstance(error, InterpolationError)
    assert asked == ["model.nme"]
    assert error.message == "interpolation ${model.nme}: key model.nme not found"
    assert error.hint == "did you mean model.name?"
    assert str(error) == (
        "x = '${model.nme}': interpolation ${model.nme}: "
        "key model.nme not found; did you mean model.name?"
    )


def test_suggest_gets_relative_references_as_absolute_keys() -> None:
    asked: list[str] = []
    tree = {"trainer": {"x": "${.optimizer_lr}"}}
    error = _error(tree, suggest=_suggester("trainer.optim.lr", asked))
    assert asked == ["trainer.optimizer_lr"]
    assert error.hint == "did you mean trainer.optim.lr?"


def test_suggest_is_not_asked_when_the_tree_has_a_close_key() -> None:
    asked: list[str] = []
    tree = {"model": {"name": "m"}, "x": "${model.nme}"}
    error = _error(tree, suggest=_suggester("model.other", asked))
    assert asked == []
    assert error.hint == "did you mean model.name?"


@pytest.mark.parametrize("answer", [None, "", "model.nme"])
def test_suggest_without_a_useful_answer_changes_nothing(answer: str | None) -> None:
    tree = {"seed": 1, "x": "${model.nme}"}
    error = _error(tree, suggest=_suggester(answer, []))
    plain = _error(tree)
    assert (error.message, error.hint, str(error)) == (plain.message, plain.hint, str(plain))
    assert error.hint is None
    assert str(error) == "x = '${model.nme}': interpolation ${model.nme}: key model.nme not found"


def test_suggest_is_only_for_missing_keys() -> None:
    asked: list[str] = []
    tree = {"m": "???", "s": 1, "x": "${m}", "y": "${s.a}", "z": "${nope:1}"}
    with pytest.raises(ErrorGroup) as info:
        resolve_tree(tree, suggest=_suggester("model.name", asked))
    assert len(info.value.errors) == 4
    assert asked == []


@pytest.mark.parametrize(
    ("tree", "message"),
    [
        ({"a": "${b}", "b": "${a}"}, "interpolation ${a}: cycle a -> b -> a"),
        ({"a": {"b": "${a}"}}, "interpolation ${a}: cycle a.b -> a -> a.b"),
        (
            {"a": {"b": 1}, "x": "${a.b.c}"},
            "interpolation ${a.b.c}: a.b is an int, not a table or list",
        ),
        (
            {"a": [1], "x": "${a.3}"},
            "interpolation ${a.3}: index 3 is out of range for a (length 1)",
        ),
        ({"a": [1], "x": "${a.z}"}, "interpolation ${a.z}: a is a list and z is not an index"),
        ({"x": "${a.b}}${"}, "invalid interpolation syntax: unexpected end of text at column 10"),
        ({"x": "abc ${}"}, "invalid interpolation syntax: unexpected '}' at column 7"),
        (
            {"x": "${r:'a}"},
            "invalid interpolation syntax: missing closing ' for the quote at column 5",
        ),
        ({"b": {"x": "${...a}"}}, "interpolation ${...a}: climbs above the top of the config"),
        (
            {"k": [1], "x": "${a.${k}}"},
            "interpolation ${a.${k}}: a key must be a string or an int, but ${k} is a list",
        ),
        (
            {"n": 1, "x": "${${n}:1}"},
            "interpolation ${${n}:1}: a resolver name must be a string, not an int",
        ),
    ],
)
def test_error_messages(tree: dict[str, Any], message: str) -> None:
    error = _error(tree)
    assert isinstance(error, InterpolationError)
    assert error.message == message


def test_referencing_a_mandatory_value() -> None:
    error = _error({"a": "???", "x": "${a.b}", "y": "${a}"})
    assert [str(each) for each in error.errors] == [
        "a = '???': missing mandatory value",
        "x = '${a.b}': interpolation ${a.b}: a is a missing mandatory value",
        "y = '${a}': interpolation ${a}: a is a missing mandatory value",
    ]


def test_cycle_is_reported_once_at_the_value_that_closes_it() -> None:
    error = _error({"a": "${b}", "b": "${c}", "c": "${a}", "d": "${a}"})
    assert str(error) == "c = '${a}': interpolation ${a}: cycle a -> b -> c -> a"


def test_mandatory_values_are_all_reported() -> None:
    def describe(path: KeyPath) -> tuple[str, str | None]:
        return ".".join(map(str, path)), f"f.toml:{len(path)}"

    error = _error({"a": "???", "b": {"c": "???"}, "l": [1, "???"], "ok": 1}, describe=describe)
    assert isinstance(error, ErrorGroup)
    assert [str(each) for each in error.errors] == [
        "a = '???' (from f.toml:1): missing mandatory value",
        "b.c = '???' (from f.toml:2): missing mandatory value",
        "l.1 = '???' (from f.toml:2): missing mandatory value",
    ]


def test_all_errors_are_gathered() -> None:
    error = _error({"a": "${x}", "b": "???", "c": "${a}"})
    assert isinstance(error, ErrorGroup)
    assert [each.key for each in error.errors] == ["a", "b"]


# -- depth and size


def test_chains_1000_deep() -> None:
    tree: dict[str, Any] = {f"k{i}": f"${{k{i + 1}}}" for i in range(1000)}
    tree["k1000"] = "end"
    assert set(resolve_tree(tree).values()) == {"end"}


def test_cycle_1000_long() -> None:
    tree = {f"k{i}": f"${{k{(i + 1) % 1000}}}" for i in range(1000)}
    error = _error(tree)
    assert error.message.endswith("k998 -> k999 -> k0")


def test_tables_nested_through_references_500_deep() -> None:
    tree: dict[str, Any] = {f"k{i}": {"x": f"${{k{i + 1}}}"} for i in range(500)}
    tree["k500"] = 1
    node = resolve_tree(tree)["k0"]
    for _ in range(500):
        node = node["x"]
    assert node == 1


@pytest.mark.parametrize("shape", ["text", "list"])
def test_exponential_growth_is_refused_quickly(shape: str) -> None:
    if shape == "text":
        tree: dict[str, Any] = {f"k{i}": f"${{k{i + 1}}}${{k{i + 1}}}" for i in range(60)}
    else:
        tree = {f"k{i}": [f"${{k{i + 1}}}", f"${{k{i + 1}}}"] for i in range(60)}
    tree["k60"] = "ab"
    start = time.perf_counter()
    error = _error(tree)
    assert time.perf_counter() - start < 5
    assert isinstance(error, InterpolationError)
    assert error.message.endswith("results grow past 10,000,000 characters or elements")


def test_cost_is_per_interpolation_not_per_leaf() -> None:
    tree: dict[str, Any] = {f"s{i}": {f"k{j}": j for j in range(100)} for i in range(500)}
    tree["s0"]["ref"] = "${s1.k5}"
    result = resolve_tree(tree)
    assert result["s0"]["ref"] == 5
    assert result["s1"] is tree["s1"]


def test_a_missing_key_named_like_a_variable_says_how_to_keep_it_as_text() -> None:
    """`${SLURM_JOB_ID}` in a shell command is meant for the shell, not for composition."""
    error = _error({"cmd": "echo ${SLURM_JOB_ID}"})
    assert error.hint == (
        "to keep it as text write \\${SLURM_JOB_ID}; for the variable, ${oc.env:SLURM_JOB_ID}"
    )
