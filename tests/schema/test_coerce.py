"""Command-line text typed by its target field (contract §2 and §7)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import tomli
from hypothesis import given
from hypothesis import strategies as st
from schemas import DType, Priority, RLConfig, Scalars, WandbConfig

from compose import ArgvError, ConfigValidationError, compose, parse
from compose._schema.coerce import parse_toml_value

if TYPE_CHECKING:
    from conftest import WriteFile


def value(field: str, *argv: str) -> Any:
    """The value of `field` of `Scalars` after parsing `argv`."""
    return getattr(parse(Scalars, list(argv)), field)


# --- booleans ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("true", True),
        ("True", True),
        ("TRUE", True),
        ("1", True),
        ("false", False),
        ("False", False),
        ("FALSE", False),
        ("0", False),
    ],
)
def test_boolean_spellings(text: str, expected: bool) -> None:
    assert value("flag", "--flag", text) is expected
    assert value("flag", f"--flag={text}") is expected


def test_bare_flag_is_true_and_no_flag_is_false() -> None:
    assert value("flag", "--flag") is True
    assert parse(Scalars, ["--flag", "--no-flag"]).flag is False


def test_nested_boolean_negation_in_both_forms() -> None:
    """`--no-a.b.flag` and `--a.b.no-flag` both work, also inside an optional section."""
    for flag in ("--no-orchestrator.wandb.offline", "--orchestrator.wandb.no-offline"):
        config = parse(RLConfig, ["--orchestrator.wandb.offline", flag])
        assert config.orchestrator.wandb == WandbConfig(offline=False)
    config = parse(RLConfig, ["--trainer.model.enforce-eager"])
    assert config.trainer.model.enforce_eager is True


def test_bare_nested_boolean_flag_is_true() -> None:
    assert parse(RLConfig, ["--orchestrator.wandb.offline"]).orchestrator.wandb == WandbConfig(
        offline=True
    )


def test_bool_rejects_other_words() -> None:
    with pytest.raises(ConfigValidationError) as info:
        parse(Scalars, ["--flag", "yes"])
    assert str(info.value) == "--flag = 'yes': expects a boolean: true, false, 1 or 0"


# --- numbers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "field", "expected"),
    [
        (["--count", "-3"], "count", -3),
        (["--count=-3"], "count", -3),
        (["--count", "1_000"], "count", 1000),
        (["--ratio", "-1e-3"], "ratio", -0.001),
        (["--ratio", "3"], "ratio", 3.0),
        (["--ratio", "1e-3"], "ratio", 0.001),
    ],
)
def test_numbers(argv: list[str], field: str, expected: object) -> None:
    result = value(field, *argv)
    assert result == expected
    assert type(result) is type(expected)


def test_negative_numbers_are_values_not_flags() -> None:
    config = parse(Scalars, ["--ints", "-1", "-2", "--count", "-3", "--ratio", "-0.5"])
    assert (config.ints, config.count, config.ratio) == ([-1, -2], -3, -0.5)


def test_cli_number_equals_the_same_toml_number_in_a_validator(write: WriteFile) -> None:
    """A peer compared "100" (CLI) with 100 (TOML) and found them different."""
    write("a.toml", "[trainer.model]\nmax_model_len = 100\n")
    config = parse(RLConfig, ["@a.toml", "--orchestrator.seq-len", "100"])
    assert config.orchestrator.seq_len == config.trainer.model.max_model_len == 100


# --- None --------------------------------------------------------------------------------------


def test_none_becomes_none_where_the_type_admits_it() -> None:
    config = parse(Scalars, ["--maybe-text", "None", "--maybe-int", "None"])
    assert (config.maybe_text, config.maybe_int) == (None, None)
    rl = parse(RLConfig, ["--max-steps", "None", "--trainer.model.max-model-len", "None"])
    assert (rl.max_steps, rl.trainer.model.max_model_len) == (None, None)


def test_none_stays_text_in_a_plain_str_field() -> None:
    assert value("text", "--text", "None") == "None"


def test_none_is_an_error_where_the_type_does_not_admit_it() -> None:
    with pytest.raises(ConfigValidationError) as info:
        parse(Scalars, ["--count", "None"])
    assert str(info.value) == "--count = 'None': does not accept None"


def test_only_the_exact_word_none_is_none() -> None:
    assert value("maybe_text", "--maybe-text", "none") == "none"
    assert value("maybe_text", "--maybe-text", "NONE") == "NONE"


# --- lists -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--ints", "1", "2", "3"], [1, 2, 3]),
        (["--ints", "-1", "-2"], [-1, -2]),
        (["--ints", "7"], [7]),
        (["--ints", "[1, -2]"], [1, -2]),
        (["--ints", "[]"], []),
        (["--ints"], []),
        (["--ints=[4, 5]"], [4, 5]),
        (["--ints", "1", "2", "--count", "3"], [1, 2]),
    ],
)
def test_int_list_forms(argv: list[str], expected: list[int]) -> None:
    assert value("ints", *argv) == expected


def test_bare_list_flag_empties_a_list_set_by_a_file(write: WriteFile) -> None:
    write("a.toml", "ints = [1, 2]\n")
    assert value("ints", "@a.toml", "--ints") == []


def test_str_list_keeps_none_as_text() -> None:
    assert value("strs", "--strs", "a", "None", "b") == ["a", "None", "b"]
    assert value("strs", "--strs", '["a", "None"]') == ["a", "None"]


def test_str_list_elements_are_not_typed() -> None:
    assert value("strs", "--strs", "1", "true", "-2") == ["1", "true", "-2"]


def test_optional_list() -> None:
    assert value("maybe_ints", "--maybe-ints", "None") is None
    assert value("maybe_ints", "--maybe-ints", "1", "2") == [1, 2]
    assert value("maybe_ints", "--maybe-ints") == []


def test_none_elements_in_a_list_of_optionals() -> None:
    config = parse(RLConfig, ["--orchestrator.weights", "1", "None", "-2.5"])
    assert config.orchestrator.weights == [1.0, None, -2.5]
    config = parse(RLConfig, ["--orchestrator.weights", '[1, "None", null]'])
    assert config.orchestrator.weights == [1.0, None, None]


def test_list_inside_an_optional_model_space_separated() -> None:
    """A peer could not give a list inside an optional model space-separated."""
    config = parse(RLConfig, ["--orchestrator.wandb.tags", "a", "b", "--seed", "1"])
    assert config.orchestrator.wandb == WandbConfig(tags=["a", "b"])


def test_list_of_floats_in_a_union_variant() -> None:
    config = parse(RLConfig, ["--trainer.optim.betas", "0.5", "0.6"])
    assert config.trainer.optim.betas == [0.5, 0.6]  # type: ignore[union-attr]


# --- dicts -------------------------------------------------------------------------------------


def test_dict_from_json() -> None:
    assert value("extra", "--extra", '{"a": {"b": 1}, "c": [1, 2]}') == {
        "a": {"b": 1},
        "c": [1, 2],
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [("1", 1), ("1.5", 1.5), ("true", True), ("[1, 2]", [1, 2]), ("x y", "x y"), ("None", None)],
)
def test_untyped_dict_values_are_read_as_toml_values(text: str, expected: object) -> None:
    assert value("extra", "--extra.k", text) == {"k": expected}


@pytest.mark.parametrize("text", ["1", "true", "None", "[1]", "-2"])
def test_str_dict_values_are_never_coerced(text: str) -> None:
    assert value("labels", "--labels.k", text) == {"k": text}
    assert value("labels", "--labels", f'{{"k": "{text}"}}') == {"k": text}


def test_str_dict_keys_are_verbatim_on_the_cli() -> None:
    """Only segments naming model fields are kebab/snake-normalised; dict keys are verbatim."""
    config = parse(RLConfig, ["--trainer.env-vars.CUDA_VISIBLE-DEVICES", "0,1"])
    assert config.trainer.env_vars == {"CUDA_VISIBLE-DEVICES": "0,1"}


def test_typed_dict_values_follow_their_type() -> None:
    assert value("counts", "--counts.a", "3") == {"a": 3}


def test_json_dict_merges_with_dotted_keys() -> None:
    config = parse(Scalars, ["--extra", '{"a": 1}', "--extra.b", "2"])
    assert config.extra == {"a": 1, "b": 2}


def test_a_json_object_is_data_before_interpolation() -> None:
    """As a list's JSON array: each value resolves by itself, an escaped `${` stays literal
    (what `to_argv` writes for text holding it)."""
    config = parse(Scalars, ["--labels", r'{"a": "${extra.k}-x", "b": "\\${no}"}', "--extra.k=3"])
    assert config.labels == {"a": "3-x", "b": "${no}"}


def test_bare_dict_flag_gives_an_empty_dict() -> None:
    assert value("extra", "--extra") == {}


def test_dict_rejects_a_json_array() -> None:
    with pytest.raises(ArgvError) as info:
        parse(Scalars, ["--extra", "[1]"])
    assert str(info.value) == "--extra = '[1]': expects a JSON object"


def test_model_field_rejects_json() -> None:
    """SKILL: nested pydantic-model fields (e.g. `algo`) reject JSON strings."""
    with pytest.raises(ArgvError) as info:
        parse(RLConfig, ["--orchestrator.algo", '{"type": "max_rl"}'])
    assert str(info.value) == (
        '--orchestrator.algo = \'{"type": "max_rl"}\': is a section: set its fields one by '
        "one, or load a file into it; use --orchestrator.algo.FIELD VALUE or "
        "--orchestrator.algo @ FILE"
    )


# --- Python-literal lists and dicts: what sweep agents pass (`str()` of the value) ------------


@pytest.mark.parametrize(
    ("argv", "field", "expected"),
    [
        (["--strs=['a', 'b']"], "strs", ["a", "b"]),
        (["--ints", "[1, 2]"], "ints", [1, 2]),
        (["--maybe-ints=[1, 2]"], "maybe_ints", [1, 2]),
        (
            ["--extra={'k': True, 'n': None, 'l': [1.5, 'x']}"],
            "extra",
            {"k": True, "n": None, "l": [1.5, "x"]},
        ),
        (["--counts={'a': 1}"], "counts", {"a": 1}),
        (["--labels={'t': ('a', 'b')}"], "labels", None),
        (["--labels", '{"json": "still"}'], "labels", {"json": "still"}),
    ],
)
def test_python_literal_collections(argv: list[str], field: str, expected: object) -> None:
    """W&B's agent writes `--KEY={value}` with Python's `str()`: `['a', 'b']`, `{'k': True}`."""
    if expected is None:  # a tuple reads as a list, which a str value does not take
        with pytest.raises(ConfigValidationError, match=r"--labels.t = \['a', 'b'\]"):
            parse(Scalars, argv)
        return
    assert value(field, *argv) == expected


def test_python_literal_none_in_a_list_of_optionals() -> None:
    class Optionals(Scalars):
        maybe: list[int | None] = []

    assert parse(Optionals, ["--maybe=[1, None]"]).maybe == [1, None]


@pytest.mark.parametrize(
    "text",
    [
        "[1, {2}]",  # a set
        "[b'x']",  # bytes
        "[1j]",  # a complex number
        "{1: 'a'}",  # a key that is not text
        "[__import__('os')]",  # a call: literal_eval evaluates literals only
        "['a', 'b'",  # unclosed
    ],
)
def test_what_is_neither_json_nor_a_plain_literal_is_bad_json(text: str) -> None:
    field = "counts" if text.startswith("{") else "strs"
    with pytest.raises(ArgvError) as info:
        parse(Scalars, [f"--{field}={text}"])
    assert str(info.value).startswith(f"--{field} = {text!r}: invalid JSON: ")


def test_a_python_literal_nested_past_the_parser_s_limit_is_bad_json() -> None:
    text = "[" * 300 + "'a'" + "]" * 300  # single quotes: not JSON, so read as Python
    with pytest.raises(ArgvError, match="invalid JSON"):
        parse(Scalars, [f"--strs={text}"])


def test_a_section_still_rejects_a_python_dict() -> None:
    """The guide: model fields reject JSON (and so Python) dicts; `from_flat` spreads them."""
    with pytest.raises(ArgvError, match="is a section"):
        parse(RLConfig, ["--orchestrator.algo={'type': 'max_rl'}"])


# --- literals, unions, enums, paths ------------------------------------------------------------


def test_str_literal() -> None:
    assert value("mode", "--mode", "slow") == "slow"


def test_int_literal_is_typed() -> None:
    assert value("level", "--level", "2") == 2


def test_bad_literal_names_the_choices() -> None:
    with pytest.raises(ConfigValidationError) as info:
        parse(Scalars, ["--mode", "medium"])
    assert str(info.value) == "--mode = 'medium': Input should be 'fast' or 'slow'"


@pytest.mark.parametrize(("text", "expected"), [("5", 5), ("-5", -5), ("five", "five")])
def test_int_or_str_union(text: str, expected: int | str) -> None:
    result = value("number_or_name", "--number-or-name", text)
    assert result == expected
    assert type(result) is type(expected)


@pytest.mark.parametrize(("text", "expected"), [("3", 3), ("named", "named"), ("None", None)])
def test_optional_int_or_str_union(text: str, expected: int | str | None) -> None:
    config = parse(RLConfig, ["--orchestrator.sampling.seed", text])
    assert config.orchestrator.sampling.seed == expected
    assert type(config.orchestrator.sampling.seed) is type(expected)


def test_str_enum_by_value() -> None:
    assert value("dtype", "--dtype", "float32") is DType.float32


def test_int_enum_by_value() -> None:
    assert value("priority", "--priority", "2") is Priority.high


def test_path() -> None:
    assert value("path", "--path", "a/b") == Path("a/b")


def test_str_field_keeps_numeric_looking_text() -> None:
    assert value("text", "--text", "-5") == "-5"
    assert value("text", "--text", "007") == "007"
    assert value("text", "--text=--weird") == "--weird"


# --- without a schema --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3", 3),
        ("-3", -3),
        ("1e-3", 0.001),
        ("true", True),
        ("[1, 2]", [1, 2]),
        ('"quoted"', "quoted"),
        ("hello", "hello"),
        ("x y", "x y"),
        ("None", None),
        ('{"a": 1}', {"a": 1}),
    ],
)
def test_schemaless_values_are_read_as_toml_values(
    write: WriteFile, text: str, expected: object
) -> None:
    write("a.toml", "")
    assert compose(["a.toml"], [f"x={text}"]) == {"x": expected}


_NUMBER_TEXT = st.from_regex(
    r"[+-]?(0|[1-9][0-9]{0,3})(\.[0-9]{1,4})?([eE][+-]?[0-9]{1,3})?|[+-]?0[0-9]+|1_000|\.5|5\.",
    fullmatch=True,
)


@given(_NUMBER_TEXT)
def test_a_number_on_the_command_line_reads_as_toml_reads_it(text: str) -> None:
    """Plain numbers, exponents included (`--lr 1e-5`), skip tomli; each reads as tomli reads
    it, and what TOML rejects (leading zeros, `.5`) is still no number."""
    try:
        expected = tomli.loads(f"v = {text}")["v"]
    except tomli.TOMLDecodeError:
        expected = None
    assert parse_toml_value(text) == expected
    assert type(parse_toml_value(text)) is type(expected)
