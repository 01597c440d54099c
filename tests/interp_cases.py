"""The interpolation corpus: `(name, toml_text, expected)` cases, checked by hand.

`expected` is the resolved table, or `Raises(text)` where `text` is part of our error message.
`tests/interp/test_interp_vs_omegaconf.py` runs every case through OmegaConf too and checks that it
agrees (apart from `DELIBERATE_DIFFERENCES` there); `tests/interp/test_interp.py` runs them with
per-call resolvers. The environment variables below are set (or unset) by the tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple


class Raises(NamedTuple):
    """An expected error; `match` is a substring of `str(error)`."""

    match: str


class Case(NamedTuple):
    name: str
    toml: str
    expected: dict[str, Any] | Raises


ENV = {
    "COMPOSE_T_HOME": "/home/tester",
    "COMPOSE_T_MARKER": "???",
}
UNSET = ("COMPOSE_T_UNSET",)


def _show(*args: Any) -> str:
    return repr(args)


def _add(*args: Any) -> Any:
    return sum(args)


def _join(*args: Any) -> str:
    return "-".join(str(arg) for arg in args)


def _ret(value: Any) -> Any:
    return value


def _typeof(*args: Any) -> str:
    return ",".join(type(arg).__name__ for arg in args)


def _const() -> str:
    return "fixed"


def _template() -> str:
    return "${a}"


def _table() -> dict[str, Any]:
    return {"q": "${a}", "n": 1}


def _missing() -> str:
    return "???"


def _fail() -> str:
    raise ValueError("boom")


RESOLVERS: dict[str, Callable[..., Any]] = {
    "t_show": _show,
    "t_add": _add,
    "t.ns.join": _join,
    "t_ret": _ret,
    "t_typeof": _typeof,
    "t_const": _const,
    "t_template": _template,
    "t_table": _table,
    "t_missing": _missing,
    "t_fail": _fail,
}


def _lines(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def _chain(depth: int) -> str:
    return _lines(*(f'k{i} = "${{k{i + 1}}}"' for i in range(depth)), f"k{depth} = 7")


CASES: list[Case] = [
    # -- absolute references
    Case("abs_scalar", _lines("a = 1", 'b = "${a}"'), {"a": 1, "b": 1}),
    Case(
        "abs_nested",
        _lines('ref = "${model.name}"', "[model]", 'name = "gpt"'),
        {"ref": "gpt", "model": {"name": "gpt"}},
    ),
    Case(
        "abs_deep",
        _lines('x = "${a.b.c.d}"', "[a.b.c]", "d = 4"),
        {"x": 4, "a": {"b": {"c": {"d": 4}}}},
    ),
    Case("abs_list_index_dot", _lines("l = [10, 20]", 'x = "${l.1}"'), {"l": [10, 20], "x": 20}),
    Case(
        "abs_list_index_bracket", _lines("l = [10, 20]", 'x = "${l[0]}"'), {"l": [10, 20], "x": 10}
    ),
    Case(
        "abs_array_of_tables",
        _lines('x = "${env.1.id}"', "[[env]]", 'id = "a"', "[[env]]", 'id = "b"'),
        {"x": "b", "env": [{"id": "a"}, {"id": "b"}]},
    ),
    Case(
        "abs_brackets_all",
        _lines('x = "${a[b][1][c]}"', "[a]", "b = [1, {c = 2}]"),
        {"x": 2, "a": {"b": [1, {"c": 2}]}},
    ),
    Case("abs_bracket_first", _lines('x = "${[a].b}"', "[a]", "b = 1"), {"x": 1, "a": {"b": 1}}),
    Case("abs_negative_index", _lines("l = [1, 2, 3]", 'x = "${l.-1}"'), {"l": [1, 2, 3], "x": 3}),
    Case(
        "abs_negative_index_out_of_range",
        _lines("l = [1, 2, 3]", 'x = "${l.-4}"'),
        Raises("index -4 is out of range for l (length 3)"),
    ),
    Case(
        "abs_key_characters",
        _lines('x = "${a.x-y} ${a.$z} ${a.q@/+%}"', "[a]", "x-y = 5", '"$z" = 6', '"q@/+%" = 7'),
        {"x": "5 6 7", "a": {"x-y": 5, "$z": 6, "q@/+%": 7}},
    ),
    Case(
        "abs_digit_key_in_table",
        _lines('x = "${a.0}"', "[a]", '0 = "zero"'),
        {"x": "zero", "a": {"0": "zero"}},
    ),
    Case("abs_whitespace", _lines('x = "${ a.b }"', "[a]", "b = 2"), {"x": 2, "a": {"b": 2}}),
    Case("abs_tab_whitespace", _lines('x = "${\ta.b\t}"', "[a]", "b = 2"), {"x": 2, "a": {"b": 2}}),
    Case(
        "abs_table",
        _lines('b = "${a}"', "[a]", "x = 1", "y = [1, 2]"),
        {"b": {"x": 1, "y": [1, 2]}, "a": {"x": 1, "y": [1, 2]}},
    ),
    Case("abs_list", _lines("l = [1, [2, 3]]", 'm = "${l}"'), {"l": [1, [2, 3]], "m": [1, [2, 3]]}),
    Case(
        "abs_table_resolved_inside",
        _lines('b = "${a}"', "[a]", "x = 1", 'y = "${a.x}"', 'z = "${.x}"'),
        {"b": {"x": 1, "y": 1, "z": 1}, "a": {"x": 1, "y": 1, "z": 1}},
    ),
    Case(
        "abs_through_interpolation",
        _lines('a = "${b.c}"', 'b = "${d}"', "[d]", "c = 4"),
        {"a": 4, "b": {"c": 4}, "d": {"c": 4}},
    ),
    Case("abs_chain", _lines('a = "${b}"', 'b = "${c}"', "c = 3"), {"a": 3, "b": 3, "c": 3}),
    Case("abs_typed_float", _lines("f = 1e-5", 'x = "${f}"'), {"f": 1e-05, "x": 1e-05}),
    Case("abs_typed_bool", _lines("t = true", 'x = "${t}"'), {"t": True, "x": True}),
    Case("abs_typed_numeric_string", _lines('s = "42"', 'x = "${s}"'), {"s": "42", "x": "42"}),
    Case(
        "abs_inline_table",
        _lines('d = {k = 1, j = "${d.k}"}', 'x = "${d.j}"'),
        {"d": {"k": 1, "j": 1}, "x": 1},
    ),
    Case("abs_in_list", _lines("a = 5", 'l = ["${a}", "x${a}", 1]'), {"a": 5, "l": [5, "x5", 1]}),
    # -- relative references
    Case("rel_sibling", _lines("[a]", "x = 1", 'y = "${.x}"'), {"a": {"x": 1, "y": 1}}),
    Case(
        "rel_parent",
        _lines("[a]", "x = 1", "[a.b]", 'y = "${..x}"'),
        {"a": {"x": 1, "b": {"y": 1}}},
    ),
    Case(
        "rel_several_levels",
        _lines("x = 0", "[a]", "x = 1", "[a.b.c]", 'y = "${...x}"', 'z = "${....x}"'),
        {"x": 0, "a": {"x": 1, "b": {"c": {"y": 1, "z": 0}}}},
    ),
    Case("rel_top_level", _lines("x = 1", 'y = "${.x}"'), {"x": 1, "y": 1}),
    Case("rel_list_sibling", _lines('l = ["${.1}", 5]'), {"l": [5, 5]}),
    Case(
        "rel_list_parent",
        _lines("[a]", "x = 1", 'l = ["${..x}", 2]'),
        {"a": {"x": 1, "l": [1, 2]}},
    ),
    Case(
        "rel_array_of_tables",
        _lines("[[l]]", "x = 1", 'y = "${.x}"', 'z = "${..1.x}"', "[[l]]", "x = 2"),
        {"l": [{"x": 1, "y": 1, "z": 2}, {"x": 2}]},
    ),
    Case(
        "rel_inside_list_elements",
        _lines("[a]", "x = 1", 'l = [{q = "${...x}"}, ["${...x}"]]'),
        {"a": {"x": 1, "l": [{"q": 1}, [1]]}},
    ),
    Case("rel_bracket", _lines("x = 1", 'y = "${.[x]}"'), {"x": 1, "y": 1}),
    Case(
        "rel_to_table",
        _lines("[a]", 'd = "${.b}"', "[a.b]", "c = 1"),
        {"a": {"d": {"c": 1}, "b": {"c": 1}}},
    ),
    Case("rel_above_top", _lines("[b]", 'c = "${...a}"'), Raises("climbs above the top")),
    # -- embedded interpolations: str() of each value
    Case(
        "emb_basic",
        _lines("seed = 7", 'name = "run-${model.name}-${seed}"', "[model]", 'name = "gpt"'),
        {"seed": 7, "name": "run-gpt-7", "model": {"name": "gpt"}},
    ),
    Case("emb_bool", _lines("t = true", 'x = "flag=${t}"'), {"t": True, "x": "flag=True"}),
    Case(
        "emb_float_exponent", _lines("lr = 1e-5", 'x = "lr=${lr}"'), {"lr": 1e-05, "x": "lr=1e-05"}
    ),
    Case("emb_float", _lines("f = 0.1", 'x = "${f}x"'), {"f": 0.1, "x": "0.1x"}),
    Case("emb_list", _lines('l = [1, "x"]', 'x = "v ${l}"'), {"l": [1, "x"], "x": "v [1, 'x']"}),
    Case("emb_table", _lines('x = "v ${d}"', "[d]", "k = 1"), {"x": "v {'k': 1}", "d": {"k": 1}}),
    Case(
        "emb_table_with_interpolation",
        _lines('x = "v ${d}"', "n = 1", "[d]", 'k = "${n}"'),
        {"x": "v {'k': 1}", "n": 1, "d": {"k": 1}},
    ),
    Case("emb_twice", _lines("a = 1", 'x = "${a}${a}"'), {"a": 1, "x": "11"}),
    Case("emb_trailing_space", _lines('a = "x"', 'b = "${a} "'), {"a": "x", "b": "x "}),
    Case(
        "emb_dollars",
        _lines("x = 1", 's = "$ {x} $x $$ ${x}"'),
        {"x": 1, "s": "$ {x} $x $$ 1"},
    ),
    Case("emb_braces", _lines('a = "v"', 's = "{${a}}"'), {"a": "v", "s": "{v}"}),
    Case("emb_number_text", _lines("a = 1", 's = "0${a}"'), {"a": 1, "s": "01"}),
    Case("emb_closing_brace_after", _lines("a = 1", 's = "${a}}"'), {"a": 1, "s": "1}"}),
    Case(
        "result_not_resolved_again",
        _lines(r"a = '\${x}'", 'b = "${a}"', 'c = "v ${a}"'),
        {"a": "${x}", "b": "${x}", "c": "v ${x}"},
    ),
    # -- escapes
    Case("esc_literal", _lines(r"s = '\${x}'"), {"s": "${x}"}),
    Case(
        "esc_literal_embedded",
        _lines(r"s = 'cost: \${x} and \${y}'"),
        {"s": "cost: ${x} and ${y}"},
    ),
    Case("esc_backslash_then_interp", _lines("a = 1", r"s = '\\${a}'"), {"a": 1, "s": "\\1"}),
    Case("esc_three_backslashes", _lines(r"s = '\\\${a}'"), {"s": "\\${a}"}),
    Case("esc_four_backslashes", _lines("a = 1", r"s = '\\\\${a}'"), {"a": 1, "s": "\\\\1"}),
    Case("esc_plain_backslashes", _lines(r"s = 'a\\b'"), {"s": "a\\\\b"}),
    Case("esc_trailing_backslashes", _lines("a = 1", r"s = '${a}\\'"), {"a": 1, "s": "1\\\\"}),
    Case("esc_backslash_mid_text", _lines("a = 1", r"s = 'x\y${a}'"), {"a": 1, "s": "x\\y1"}),
    Case("esc_missing", _lines(r"s = '\???'"), {"s": "???"}),
    Case("esc_missing_double", _lines(r"s = '\\???'"), {"s": "\\???"}),
    Case("esc_missing_referenced", _lines(r"a = '\???'", 'b = "${a}"'), {"a": "???", "b": "???"}),
    Case("esc_question_marks_in_text", _lines('s = "x???"'), {"s": "x???"}),
    # -- nested interpolations
    Case(
        "nested_key",
        _lines('k = "b"', 'x = "${a.${k}}"', "[a]", "b = 5"),
        {"k": "b", "x": 5, "a": {"b": 5}},
    ),
    Case(
        "nested_key_dotted",
        _lines('k = "b.c"', 'x = "${a.${k}}"', "[a.b]", "c = 4"),
        {"k": "b.c", "x": 4, "a": {"b": {"c": 4}}},
    ),
    Case(
        "nested_key_int",
        _lines("k = 0", "l = [5]", 'x = "${l.${k}}"'),
        {"k": 0, "l": [5], "x": 5},
    ),
    Case(
        "nested_key_relative",
        _lines('k = ".x"', "[a]", "x = 2", 's = "${${k}}"'),
        {"k": ".x", "a": {"x": 2, "s": 2}},
    ),
    Case(
        "nested_key_in_brackets",
        _lines('k = "c"', 's = "${a[${k}]}"', "[a]", "c = 1"),
        {"k": "c", "s": 1, "a": {"c": 1}},
    ),
    Case(
        "nested_key_float",
        _lines("k = 1.5", "l = [5]", 's = "${l.${k}}"'),
        Raises("a key must be a string or an int, but ${k} is a float"),
    ),
    Case(
        "nested_key_bool",
        _lines("k = true", "l = [5]", 's = "${l.${k}}"'),
        Raises("a key must be a string or an int, but ${k} is a bool"),
    ),
    Case(
        "nested_three_levels",
        _lines('s = "${a.${b.${c}}}"', 'c = "z"', "[b]", 'z = "y"', "[a]", "y = 9"),
        {"s": 9, "c": "z", "b": {"z": "y"}, "a": {"y": 9}},
    ),
    Case(
        "nested_resolver_name",
        _lines('n = "t_ret"', 's = "${${n}:5}"'),
        {"n": "t_ret", "s": 5},
    ),
    Case(
        "nested_resolver_namespace",
        _lines('n = "oc"', 's = "${${n}.env:COMPOSE_T_HOME}"'),
        {"n": "oc", "s": "/home/tester"},
    ),
    Case(
        "nested_key_whitespace",
        _lines('b = "c"', 's = "${a.${ b } }"', "[a]", "c = 1"),
        {"b": "c", "s": 1, "a": {"c": 1}},
    ),
    Case(
        "abs_escaped_dot_in_key",
        _lines('"a.b" = 1', r"x = '${a\.b}'", "[a]", "c = 2", r"y = '${a.c}'"),
        {"a.b": 1, "x": 1, "a": {"c": 2, "y": 2}},
    ),
    Case(
        "res_dict_key_with_escaped_colon",
        _lines(r"s = '${t_ret:{a\:b: 0, c\,d: 1}}'"),
        {"s": {"a:b": 0, "c,d": 1}},
    ),
    # -- resolvers and their arguments
    Case("res_int", _lines('s = "${t_show:21}"'), {"s": "(21,)"}),
    Case("res_float", _lines('s = "${t_show:1.5}"'), {"s": "(1.5,)"}),
    Case("res_bools", _lines('s = "${t_show:true,False,TRUE}"'), {"s": "(True, False, True)"}),
    Case("res_null", _lines('s = "${t_show:null,NULL}"'), {"s": "(None, None)"}),
    Case(
        "res_int_forms",
        _lines('s = "${t_show:+3,-5,1_000,007,0x10}"'),
        {"s": repr((3, -5, 1000, "007", "0x10"))},
    ),
    Case(
        "res_float_forms",
        _lines('s = "${t_show:.5,5.,1e3,-2.5e-3,inf}"'),
        {"s": repr((0.5, 5.0, 1000.0, -0.0025, float("inf")))},
    ),
    Case(
        "res_quoted",
        _lines("""s = '''${t_show:'q s',"d q", ''}'''"""),
        {"s": repr(("q s", "d q", ""))},
    ),
    Case(
        "res_unquoted_spaces",
        _lines('s = "${t_show:  text with  spaces  }"'),
        {"s": repr(("text with  spaces",))},
    ),
    Case("res_escaped_comma", _lines(r"s = '${t_show:a\,b}'"), {"s": repr(("a,b",))}),
    Case("res_escaped_spaces", _lines(r"s = '${t_show:\ a\ }'"), {"s": repr((" a ",))}),
    Case(
        "res_escapes",
        _lines(r"s = '${t_show:a\b,\\,\(\)\[\]\{\}\:\=}'"),
        {"s": repr(("a\\b", "\\", "()[]{}:="))},
    ),
    Case("res_interp_arg", _lines("x = 7", 's = "${t_show:${x}}"'), {"x": 7, "s": "(7,)"}),
    Case(
        "res_embedded_args",
        _lines("x = 7", 's = "${t_show:${x} ${x},${x}y,  ${x}  }"'),
        {"x": 7, "s": repr(("7 7", "7y", 7))},
    ),
    Case(
        "res_quoted_interp_is_text",
        _lines("x = 7", "s = '''${t_show:'${x}','${x}y'}'''"),
        {"x": 7, "s": repr(("7", "7y"))},
    ),
    Case(
        "res_list_arg",
        _lines('s = "${t_show:[1, [a, b], {}, []]}"'),
        {"s": repr(([1, ["a", "b"], {}, []],))},
    ),
    Case(
        "res_dict_arg",
        _lines('s = "${t_show:{a: 1, b: x y}}"'),
        {"s": repr(({"a": 1, "b": "x y"},))},
    ),
    Case(
        "res_dict_typed_keys",
        _lines('s = "${t_show:{1: a, null: b, x y: c}}"'),
        {"s": repr(({1: "a", None: "b", "x y": "c"},))},
    ),
    Case("res_no_args", _lines('s = "${t_const:}"'), {"s": "fixed"}),
    Case("res_no_args_space", _lines('s = "${t_const: }"'), {"s": "fixed"}),
    Case("res_empty_arg", _lines('s = "${t_show:a,,b}"'), {"s": repr(("a", "", "b"))}),
    Case("res_trailing_comma", _lines('s = "${t_show:a,}"'), {"s": repr(("a", ""))}),
    Case("res_colon_in_arg", _lines('s = "${t_show:a:b, c : d}"'), {"s": repr(("a:b", "c : d"))}),
    Case("res_unquoted_chars", _lines('s = "${t_show:/-+.$%*@?|}"'), {"s": repr(("/-+.$%*@?|",))}),
    Case("res_text_with_space", _lines('s = "${t_show:1 2}"'), {"s": repr(("1 2",))}),
    Case(
        "res_space_after_colon",
        _lines('s = "${t_show:a: ,b: }"'),
        {"s": repr(("a: ", "b: "))},
    ),
    Case("res_space_after_escaped_colon", _lines(r"s = '${t_show:a\: }'"), {"s": repr(("a:",))}),
    Case(
        "res_quoted_escaped_quotes",
        _lines(r"""s = '''${t_show:'it\'s',"say \"hi\""}'''"""),
        {"s": repr(("it's", 'say "hi"'))},
    ),
    Case(
        "res_quoted_backslash_at_end",
        _lines(r"""s = '''${t_show:'a\\'}'''"""),
        {"s": repr(("a\\",))},
    ),
    Case(
        "res_quoted_escaped_interp",
        _lines("x = 7", r"""s = '''${t_show:'\${x}','\\${x}'}'''"""),
        {"x": 7, "s": repr(("${x}", "\\7"))},
    ),
    Case(
        "res_backslash_before_interp_arg",
        _lines("x = 1", r"s = '${t_ret:a\${x}}'"),
        {"x": 1, "s": "a\\1"},
    ),
    Case("res_whitespace_around", _lines('s = "${ t_ret : a }"'), {"s": "a"}),
    Case(
        "res_returns_template",
        _lines("a = 1", 's = "${t_template:}"', 't = "x${t_template:}"'),
        {"a": 1, "s": "${a}", "t": "x${a}"},
    ),
    Case(
        "res_returns_table",
        _lines("a = 1", 's = "${t_table:}"'),
        {"a": 1, "s": {"q": "${a}", "n": 1}},
    ),
    Case(
        "res_passes_list_through",
        _lines('d = "${t_ret:${b}}"', "n = 5", 'b = [1, {c = "${n}"}]'),
        {"d": [1, {"c": 5}], "n": 5, "b": [1, {"c": 5}]},
    ),
    Case("res_typed_result", _lines('s = "${t_add:1,2.5}"'), {"s": 3.5}),
    Case("res_in_text", _lines('s = "a-${t_ret:b}-c"'), {"s": "a-b-c"}),
    Case("res_dotted_name", _lines('s = "${t.ns.join:a,1}"'), {"s": "a-1"}),
    Case("res_escaped_equals", _lines(r"s = '${t_ret:a\=b}'"), {"s": "a=b"}),
    Case(
        "res_arg_types_of_references",
        _lines('x = "${t_typeof:${a},[1],{k: 1}}"', "[a]", "v = 1"),
        {"x": "dict,list,dict", "a": {"v": 1}},
    ),
    Case(
        "res_returns_missing",
        _lines('s = "${t_missing:}"'),
        Raises("resolver t_missing returned ???, the missing-value marker"),
    ),
    Case(
        "res_raises",
        _lines('s = "${t_fail:}"'),
        Raises("interpolation ${t_fail:}: resolver t_fail failed: ValueError: boom"),
    ),
    Case("res_unknown", _lines('s = "${t_nope:1}"'), Raises("unknown resolver t_nope; known")),
    Case(
        "res_wrong_arity", _lines('s = "${t_ret:1,2}"'), Raises("resolver t_ret failed: TypeError")
    ),
    Case("res_non_ascii", _lines('s = "${t_ret:é}"'), Raises("unexpected 'é' at column 9")),
    Case("res_equals", _lines('s = "${t_ret:a=b}"'), Raises("unexpected '=' at column 10")),
    Case("res_hash", _lines('s = "${t_ret:#}"'), Raises("unexpected '#' at column 9")),
    Case(
        "res_quote_then_text",
        _lines("s = '''${t_ret:'a'b}'''"),
        Raises("unexpected 'b' at column 12"),
    ),
    # -- oc.env
    Case("env_set", _lines('s = "${oc.env:COMPOSE_T_HOME}"'), {"s": "/home/tester"}),
    Case(
        "env_unset",
        _lines('s = "${oc.env:COMPOSE_T_UNSET}"'),
        Raises("environment variable COMPOSE_T_UNSET is not set; set it, or give a default"),
    ),
    Case("env_default_text", _lines('s = "${oc.env:COMPOSE_T_UNSET,fallback}"'), {"s": "fallback"}),
    Case("env_default_null", _lines('s = "${oc.env:COMPOSE_T_UNSET,null}"'), {"s": None}),
    Case("env_default_int", _lines('s = "${oc.env:COMPOSE_T_UNSET,12}"'), {"s": "12"}),
    Case("env_default_float", _lines('s = "${oc.env:COMPOSE_T_UNSET,1.5}"'), {"s": "1.5"}),
    Case("env_default_bool", _lines('s = "${oc.env:COMPOSE_T_UNSET,true}"'), {"s": "True"}),
    Case("env_default_quoted", _lines("s = '''${oc.env:COMPOSE_T_UNSET,'a b'}'''"), {"s": "a b"}),
    Case("env_default_empty", _lines('s = "${oc.env:COMPOSE_T_UNSET,}"'), {"s": ""}),
    Case(
        "env_default_interp",
        _lines("x = 5", 's = "${oc.env:COMPOSE_T_UNSET,${x}}"'),
        {"x": 5, "s": "5"},
    ),
    Case("env_default_list", _lines('s = "${oc.env:COMPOSE_T_UNSET,[1,2]}"'), {"s": "[1, 2]"}),
    Case(
        "env_set_ignores_default", _lines('s = "${oc.env:COMPOSE_T_HOME,x}"'), {"s": "/home/tester"}
    ),
    Case(
        "env_name_from_interp",
        _lines('n = "COMPOSE_T_HOME"', 's = "${oc.env:${n}}"'),
        {"n": "COMPOSE_T_HOME", "s": "/home/tester"},
    ),
    Case(
        "env_embedded",
        _lines('s = "home=${oc.env:COMPOSE_T_HOME}/x"'),
        {"s": "home=/home/tester/x"},
    ),
    Case(
        "env_too_many_args",
        _lines('s = "${oc.env:A,B,C}"'),
        Raises("resolver oc.env failed: TypeError"),
    ),
    Case("env_no_args", _lines('s = "${oc.env:}"'), Raises("oc.env needs the name of a variable")),
    Case(
        "env_value_is_marker",
        _lines('s = "${oc.env:COMPOSE_T_MARKER}"'),
        Raises("resolver oc.env returned ???"),
    ),
    Case("env_without_colon", _lines('s = "${oc.env}"'), Raises("key oc.env not found")),
    # -- oc.select
    Case("select_present", _lines("a = 1", 's = "${oc.select:a,3}"'), {"a": 1, "s": 1}),
    Case("select_default", _lines('s = "${oc.select:b,3}"'), {"s": 3}),
    Case("select_no_default", _lines('s = "${oc.select:b}"'), {"s": None}),
    Case(
        "select_nested", _lines('s = "${oc.select:a.b,0}"', "[a]", "b = 1"), {"s": 1, "a": {"b": 1}}
    ),
    Case(
        "select_relative",
        _lines("[a]", "b = 2", 's = "${oc.select:.b,0}"'),
        {"a": {"b": 2, "s": 2}},
    ),
    Case(
        "select_parent",
        _lines("[a]", "b = 2", "[a.c]", 's = "${oc.select:..b,0}"'),
        {"a": {"b": 2, "c": {"s": 2}}},
    ),
    Case("select_through_scalar", _lines("a = 1", 's = "${oc.select:a.b.c,0}"'), {"a": 1, "s": 0}),
    Case(
        "select_index_out_of_range",
        _lines("a = [1]", 's = "${oc.select:a.1,d}"'),
        {"a": [1], "s": "d"},
    ),
    Case(
        "select_bad_index",
        _lines("a = [1]", 's = "${oc.select:a.z,d}"'),
        Raises("a is a list and z is not an index"),
    ),
    Case("select_above_top", _lines("a = [1]", 's = "${oc.select:...a,d}"'), {"a": [1], "s": "d"}),
    Case(
        "select_target_interp",
        _lines('c = "${d}"', "d = 3", 's = "${oc.select:c,0}"'),
        {"c": 3, "d": 3, "s": 3},
    ),
    Case(
        "select_table",
        _lines('s = "${oc.select:a,0}"', "[a]", "b = 1"),
        {"s": {"b": 1}, "a": {"b": 1}},
    ),
    Case(
        "select_default_is_eager",
        _lines("a = 1", 's = "${oc.select:a,${nope}}"'),
        Raises("interpolation ${nope}: key nope not found"),
    ),
    Case(
        "select_quoted_key", _lines("a = [1]", "s = '''${oc.select:'a',d}'''"), {"a": [1], "s": [1]}
    ),
    Case(
        "select_embedded",
        _lines("x = 1", 's = "${oc.select:x}_${oc.select:y,z}"'),
        {"x": 1, "s": "1_z"},
    ),
    Case("select_itself", _lines('s = "${oc.select:s,1}"'), Raises("cycle s -> s")),
    # -- missing keys and other errors
    Case(
        "missing_key",
        _lines('x = "${model.nme}"', "[model]", 'name = "m"'),
        Raises(
            "x = '${model.nme}': interpolation ${model.nme}: key model.nme not found; "
            "did you mean model.name?"
        ),
    ),
    Case("missing_top_level", _lines('x = "${nope}"'), Raises("key nope not found")),
    Case("missing_relative", _lines("[a]", 'x = "${.y}"'), Raises("key a.y not found")),
    Case(
        "through_scalar",
        _lines('x = "${a.b.c}"', "[a]", "b = 1"),
        Raises("interpolation ${a.b.c}: a.b is an int, not a table or list"),
    ),
    Case("through_string", _lines('a = "s"', 'x = "${a.b}"'), Raises("a is a string, not a table")),
    Case(
        "index_out_of_range",
        _lines("a = [1]", 'x = "${a.3}"'),
        Raises("index 3 is out of range for a (length 1)"),
    ),
    Case(
        "index_not_integer",
        _lines("a = [1]", 'x = "${a.z}"'),
        Raises("interpolation ${a.z}: a is a list and z is not an index"),
    ),
    Case(
        "cycle_self", _lines('a = "${a}"'), Raises("a = '${a}': interpolation ${a}: cycle a -> a")
    ),
    Case("cycle_two", _lines('a = "${b}"', 'b = "${a}"'), Raises("cycle a -> b -> a")),
    Case(
        "cycle_three",
        _lines('a = "${b}"', 'b = "${c}"', 'c = "${a}"'),
        Raises("c = '${a}': interpolation ${a}: cycle a -> b -> c -> a"),
    ),
    Case("cycle_parent", _lines("[a]", 'b = "${a}"'), Raises("cycle a.b -> a -> a.b")),
    Case("cycle_parent_relative", _lines("[a]", 'b = "${..a}"'), Raises("cycle a.b -> a -> a.b")),
    Case("cycle_embedded", _lines('a = "x${b}"', 'b = "y${a}"'), Raises("cycle a -> b -> a")),
    Case("syntax_unclosed", _lines('x = "${a"'), Raises("unexpected end of text at column 4")),
    Case("syntax_trailing_dot", _lines('x = "${a.}"'), Raises("unexpected '}' at column 5")),
    Case("syntax_double_dot", _lines('x = "${a..b}"'), Raises("unexpected '.' at column 5")),
    Case("syntax_empty", _lines('x = "${}"'), Raises("unexpected '}' at column 3")),
    Case("syntax_blank", _lines('x = "${ }"'), Raises("unexpected '}' at column 4")),
    Case("syntax_space_in_key", _lines('x = "${a.b c}"'), Raises("unexpected 'c' at column 7")),
    Case("syntax_dots_only", _lines('x = "${..}"'), Raises("unexpected '}' at column 5")),
    Case(
        "syntax_text_after_bracket", _lines('x = "${a[b]c}"'), Raises("unexpected 'c' at column 7")
    ),
    Case(
        "syntax_unclosed_quote",
        _lines("x = '''${t_ret:'a}'''"),
        Raises("missing closing ' for the quote at column 9"),
    ),
    Case(
        "syntax_dollar_in_resolver_name",
        _lines('x = "${a$b:x}"'),
        Raises("unexpected ':' at column 6"),
    ),
    Case("syntax_colon_only", _lines('x = "${:}"'), Raises("unexpected ':' at column 3")),
    # -- ??? (mandatory values)
    Case("mandatory_leaf", _lines('a = "???"'), Raises("a = '???': missing mandatory value")),
    Case(
        "mandatory_nested",
        _lines("[a]", 'b = "???"'),
        Raises("a.b = '???': missing mandatory value"),
    ),
    Case(
        "mandatory_in_list",
        _lines('l = [1, "???"]'),
        Raises("l.1 = '???': missing mandatory value"),
    ),
    Case(
        "mandatory_referenced",
        _lines('a = "???"', 'b = "${a}"'),
        Raises("b = '${a}': interpolation ${a}: a is a missing mandatory value"),
    ),
    Case(
        "mandatory_on_the_way",
        _lines('a = "???"', 'b = "${a.c}"'),
        Raises("interpolation ${a.c}: a is a missing mandatory value"),
    ),
    Case(
        "mandatory_in_referenced_table",
        _lines('b = "${a}"', "[a]", 'x = "???"'),
        Raises("a.x = '???': missing mandatory value"),
    ),
    Case(
        "mandatory_made_by_text",
        _lines('q = "?"', 's = "??${q}"'),
        Raises("value resolved to ???, the missing-value marker"),
    ),
    # -- depth
    Case("chain_200_deep", _chain(200), {f"k{i}": 7 for i in range(201)}),
]
