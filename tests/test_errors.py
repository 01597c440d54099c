"""Error messages, pinned exactly (contract §4): each class of bad input gets one clear message
naming the key (CLI form), the value, where it came from and what is wrong."""

from __future__ import annotations

import copy
import os
import pickle
import sys
from typing import TYPE_CHECKING

import pytest
from schemas import NoDefaultVariant, Required, RLConfig, Scalars

from compose import (
    ArgvError,
    ComposeError,
    ConfigValidationError,
    ErrorGroup,
    FrozenError,
    HelpRequested,
    InterpolationError,
    OutputError,
    SourceError,
    UnknownKeyError,
    compose,
    parse,
)
from compose._input import files
from compose.errors import integer_too_long, path_refused, value_repr

if TYPE_CHECKING:
    from conftest import WriteFile


def error_of(argv: list[str], schema: type = RLConfig) -> ComposeError:
    with pytest.raises(ComposeError) as info:
        parse(schema, argv)
    return info.value


# --- files -------------------------------------------------------------------------------------


def test_missing_file(write: WriteFile) -> None:
    error = error_of(["@", "missing.toml"])
    assert isinstance(error, SourceError)
    assert str(error) == f"missing.toml: file not found; looked in {os.getcwd()}"
    assert (error.key, error.origin, error.message) == (None, "missing.toml", "file not found")


def test_missing_file_is_named_as_written(write: WriteFile) -> None:
    error = error_of(["--trainer", "@", "conf/../nope.toml"])
    assert str(error) == f"conf/../nope.toml: file not found; looked in {os.getcwd()}"
    with pytest.raises(SourceError, match=r"^gone\.toml: file not found"):
        compose(["gone.toml"])


def test_directory(write: WriteFile) -> None:
    os.mkdir("dir")
    error = error_of(["@dir"])
    assert isinstance(error, SourceError)
    assert str(error) == "dir: is a directory, not a file"


def test_not_utf8(write: WriteFile) -> None:
    write("bad.toml", b"seed = 1\nname = '\xff'\n")
    error = error_of(["@bad.toml"])
    assert isinstance(error, SourceError)
    assert str(error) == "bad.toml:2: not valid UTF-8 (byte 0xff)"
    assert error.origin == "bad.toml:2"


def test_unreadable_path(write: WriteFile) -> None:
    error = error_of(["@a\x00b.toml"])
    assert isinstance(error, SourceError)
    assert error.message == "cannot be read: a file name cannot hold a null byte"


def test_toml_syntax_error_names_file_line_and_column(write: WriteFile) -> None:
    write("syn.toml", "seed = 1\n[trainer\nmicro_batch_size = 2\n")
    error = error_of(["@syn.toml"])
    assert isinstance(error, SourceError)
    assert (
        str(error) == "syn.toml:2:9: invalid TOML: Expected ']' at the end of a table declaration"
    )
    assert error.origin == "syn.toml:2:9"


def test_toml_duplicate_key(write: WriteFile) -> None:
    write("dup.toml", "seed = 1\nseed = 2\n")
    assert str(error_of(["@dup.toml"])) == "dup.toml:2:9: invalid TOML: Cannot overwrite a value"


# --- unknown keys ------------------------------------------------------------------------------


def test_unknown_key_in_a_file(write: WriteFile) -> None:
    write("a.toml", "seed = 1\n[trainer.optim]\nlr = 0.1\nlrr = 3\n")
    error = error_of(["@a.toml"])
    assert isinstance(error, UnknownKeyError)
    assert str(error) == (
        "--trainer.optim.lrr = 3 (from a.toml:4): unknown key; did you mean --trainer.optim.lr?"
    )
    assert (error.key, error.value, error.origin, error.message) == (
        "--trainer.optim.lrr",
        3,
        "a.toml:4",
        "unknown key",
    )


def test_unknown_key_in_a_section_file_has_the_full_path(write: WriteFile) -> None:
    write("model.toml", "nme = 'x'\n")
    assert str(error_of(["--trainer.model", "@", "model.toml"])) == (
        "--trainer.model.nme = 'x' (from model.toml:1): unknown key; "
        "did you mean --trainer.model.name?"
    )


def test_unknown_key_of_another_variant_names_the_variant(write: WriteFile) -> None:
    write("a.toml", "[trainer.optim]\nmomentum = 0.9\n")
    assert str(error_of(["@a.toml"])) == (
        "--trainer.optim.momentum = 0.9 (from a.toml:2): unknown key; "
        "only muon has it: choose it with --trainer.optim.type muon"
    )


def test_unknown_key_in_a_list_element_suggests_the_same_element(write: WriteFile) -> None:
    """The closest valid key to `--orchestrator.env.1.idd` is `--orchestrator.env.1.id`."""
    write("a.toml", "[[orchestrator.env]]\nid = 'a'\n[[orchestrator.env]]\nidd = 'b'\n")
    assert str(error_of(["@a.toml"])) == (
        "--orchestrator.env.1.idd = 'b' (from a.toml:4): unknown key; "
        "did you mean --orchestrator.env.1.id?"
    )


def test_unknown_key_in_the_wrong_section_suggests_where_it_lives(write: WriteFile) -> None:
    """`seq_len` is an orchestrator key: the full dotted path of the suggestion says so."""
    write("a.toml", "[trainer]\nseq_len = 10\n")
    assert str(error_of(["@a.toml"])) == (
        "--trainer.seq-len = 10 (from a.toml:2): unknown key; did you mean --orchestrator.seq-len?"
    )


def test_kebab_key_in_toml_says_to_write_it_in_snake_case(write: WriteFile) -> None:
    """Contract §7: a kebab key in TOML is an unknown key, with a did-you-mean to the snake form."""
    write("a.toml", "[trainer]\nmicro-batch-size = 3\n")
    error = error_of(["@a.toml"])
    assert isinstance(error, UnknownKeyError)
    assert str(error) == (
        "--trainer.micro-batch-size = 3 (from a.toml:2): unknown key; "
        "keys in files are snake_case: write micro_batch_size"
    )


def test_unknown_flag(write: WriteFile) -> None:
    error = error_of(["--trainer.optm.lr"])
    assert isinstance(error, UnknownKeyError)
    assert str(error) == "--trainer.optm.lr: unknown key; did you mean --trainer.optim.lr?"
    assert (error.key, error.origin) == ("--trainer.optm.lr", "--trainer.optm.lr")


def test_unknown_flag_names_the_value_given() -> None:
    """Contract §4: every message names the value given."""
    error = error_of(["--trainer.optm.lr", "3"])
    assert str(error) == "--trainer.optm.lr = '3': unknown key; did you mean --trainer.optim.lr?"
    assert error.value == "3"


def test_unknown_flag_typed_in_snake_case_shows_the_flag_as_typed() -> None:
    error = error_of(["--trainer.micro_batch_sz"])
    assert str(error) == (
        "--trainer.micro-batch-sz (from --trainer.micro_batch_sz): unknown key; "
        "did you mean --trainer.micro-batch-size?"
    )


def test_unknown_flag_of_another_variant() -> None:
    assert str(error_of(["--orchestrator.algo.temperature"])) == (
        "--orchestrator.algo.temperature: unknown key; only max_rl has it: "
        "choose it with --orchestrator.algo.type max_rl"
    )


def test_unknown_override_key(write: WriteFile) -> None:
    write("a.toml", "")
    with pytest.raises(UnknownKeyError) as info:
        compose(["a.toml"], ["trainer.micro_batch=3"], schema=RLConfig)
    assert str(info.value) == (
        "--trainer.micro-batch = '3' (from override trainer.micro_batch): unknown key; "
        "did you mean --trainer.micro-batch-size?"
    )


# --- wrong values ------------------------------------------------------------------------------


def test_wrong_type_from_a_file(write: WriteFile) -> None:
    write("a.toml", "[trainer]\nmicro_batch_size = 'many'\n")
    error = error_of(["@a.toml"])
    assert isinstance(error, ConfigValidationError)
    assert str(error) == (
        "--trainer.micro-batch-size = 'many' (from a.toml:2): "
        "Input should be a valid integer, unable to parse string as an integer"
    )
    assert (error.key, error.value, error.origin) == (
        "--trainer.micro-batch-size",
        "many",
        "a.toml:2",
    )


def test_wrong_type_from_the_cli() -> None:
    error = error_of(["--trainer.optim.lr", "fast"])
    assert str(error) == (
        "--trainer.optim.lr = 'fast': Input should be a valid number, "
        "unable to parse string as a number"
    )
    assert (error.key, error.value, error.origin) == (
        "--trainer.optim.lr",
        "fast",
        "--trainer.optim.lr",
    )


def test_wrong_type_origin_is_the_flag_as_typed() -> None:
    error = error_of(["--trainer.micro_batch_size=x"])
    assert str(error) == (
        "--trainer.micro-batch-size = 'x' (from --trainer.micro_batch_size): "
        "Input should be a valid integer, unable to parse string as an integer"
    )


def test_wrong_list_element_names_its_index(write: WriteFile) -> None:
    write("a.toml", "[orchestrator]\nscores = [1, 'x', 3]\n")
    assert str(error_of(["@a.toml"])) == (
        "--orchestrator.scores.1 = 'x' (from a.toml:2): "
        "Input should be a valid integer, unable to parse string as an integer"
    )
    assert str(error_of(["--orchestrator.scores", "1", "x"])) == (
        "--orchestrator.scores.1 = 'x' (from --orchestrator.scores): "
        "Input should be a valid integer, unable to parse string as an integer"
    )


def test_wrong_type_inside_a_switched_variant_names_the_key_in_cli_form(
    write: WriteFile,
) -> None:
    """`base_url` belongs to the `opd` variant, not the default one: still kebab-case."""
    write(
        "a.toml",
        """
        [orchestrator.algo]
        type = 'opd'
        [orchestrator.algo.teacher]
        name = 'q'
        base_url = 3
        """,
    )
    assert str(error_of(["@a.toml"])) == (
        "--orchestrator.algo.teacher.base-url = 3 (from a.toml:5): Input should be a valid string"
    )


def test_bad_bool(write: WriteFile) -> None:
    assert str(error_of(["--dry-run", "maybe"])) == (
        "--dry-run = 'maybe': expects a boolean: true, false, 1 or 0"
    )


def test_bad_union_tag(write: WriteFile) -> None:
    write("a.toml", "[trainer.optim]\ntype = 'sgd'\n")
    assert str(error_of(["@a.toml"])) == (
        "--trainer.optim.type = 'sgd' (from a.toml:2): Input tag 'sgd' found using 'type' "
        "does not match any of the expected tags: 'adamw', 'muon'"
    )


def test_missing_required_value() -> None:
    error = error_of([], Required)
    assert isinstance(error, ConfigValidationError)
    assert str(error) == "--name: missing required value"


def test_union_without_a_default_needs_a_variant() -> None:
    assert str(error_of([], NoDefaultVariant)) == (
        "--optim: missing required value: choose one with --optim.type (adamw, muon)"
    )
    assert str(error_of(["--optim.lr", "0.1"], NoDefaultVariant)) == (
        "--optim: no variant chosen: set --optim.type to one of adamw, muon"
    )


def test_index_paths_are_not_toml_syntax(write: WriteFile) -> None:
    write("a.toml", "[orchestrator.env.0]\nid = 'x'\n")
    assert str(error_of(["@a.toml"])) == (
        "--orchestrator.env = {'0': {'id': 'x'}} (from a.toml:1): Input should be a valid list"
    )


def test_field_validator_keeps_its_message(write: WriteFile) -> None:
    write("a.toml", "[trainer]\nmicro_batch_size = -1\n")
    error = error_of(["@a.toml"])
    assert isinstance(error, ConfigValidationError)
    assert str(error) == (
        "--trainer.micro-batch-size = -1 (from a.toml:2): micro_batch_size must be positive"
    )
    assert error.message == "micro_batch_size must be positive"


def test_model_validator_names_its_section(write: WriteFile) -> None:
    write("a.toml", "[trainer.model]\ncp = 2\nattn = 'sdpa'\n")
    error = error_of(["@a.toml"])
    assert isinstance(error, ConfigValidationError)
    assert str(error) == (
        "--trainer.model: context parallelism (cp > 1) requires attn = 'flash_attention_2'"
    )
    assert error.key == "--trainer.model"


def test_root_model_validator_names_the_root(write: WriteFile) -> None:
    write("a.toml", "[trainer.model]\nmax_model_len = 100\n")
    error = error_of(["@a.toml"])
    assert str(error) == (
        "(root): orchestrator.seq_len (2048) exceeds trainer.model.max_model_len (100)"
    )
    assert error.key == "(root)"


# --- None --------------------------------------------------------------------------------------


def test_none_where_not_allowed_from_the_cli() -> None:
    error = error_of(["--seed", "None"])
    assert isinstance(error, ConfigValidationError)
    assert str(error) == "--seed = 'None': does not accept None"


def test_none_where_not_allowed_from_a_file(write: WriteFile) -> None:
    write("a.toml", "seed = 'None'\n")
    assert str(error_of(["@a.toml"])) == "--seed = 'None' (from a.toml:1): does not accept None"


def test_none_element_where_the_element_type_does_not_allow_it() -> None:
    """`--maybe-ints None` is fine (the list is optional): the error is the element's."""
    assert str(error_of(["--maybe-ints", "1", "None"], Scalars)) == (
        "--maybe-ints.1 = 'None' (from --maybe-ints): does not accept None"
    )


# --- malformed command lines -------------------------------------------------------------------


def test_bad_json() -> None:
    error = error_of(["--inference.vllm-extra", '{"a": 1'])
    assert isinstance(error, ArgvError)
    assert str(error) == (
        "--inference.vllm-extra = '{\"a\": 1': invalid JSON: Expecting ',' delimiter at column 8"
    )
    assert str(error_of(["--orchestrator.scores", "[1,"])) == (
        "--orchestrator.scores = '[1,': invalid JSON: Expecting value at column 4"
    )


def test_bad_json_in_an_override(write: WriteFile) -> None:
    write("a.toml", "")
    with pytest.raises(ArgvError) as info:
        compose(["a.toml"], ["x={bad"])
    assert str(info.value) == (
        "--x = '{bad' (from override x): invalid JSON: "
        "Expecting property name enclosed in double quotes at column 2"
    )


def test_flag_missing_its_value() -> None:
    error = error_of(["--trainer.model.name"])
    assert isinstance(error, ArgvError)
    assert str(error) == "--trainer.model.name: expects a value"


def test_flag_never_swallows_the_next_flag() -> None:
    assert str(error_of(["--trainer.model.name", "--seed", "3"])) == (
        "--trainer.model.name: expects a value"
    )
    assert str(error_of(["--tag", "--dry-run"])) == "--tag: expects a value"


def test_scalar_flag_with_several_values() -> None:
    assert str(error_of(["--seed", "1", "2"])) == (
        "--seed = '1 2': takes one value, got 2; quote a value that contains spaces"
    )


def test_stray_positional_token(write: WriteFile) -> None:
    write("a.toml", "")
    error = error_of(["@a.toml", "stray"])
    assert isinstance(error, ArgvError)
    assert str(error) == (
        "'stray': unexpected argument; flags start with --, files are given as @ FILE"
    )


def test_index_out_of_range_states_the_length(write: WriteFile) -> None:
    error = error_of(["--orchestrator.env.2.id", "x"])
    assert isinstance(error, ArgvError)
    assert str(error) == (
        "--orchestrator.env.2.id: index 2 is out of range: "
        "the list has 1 element (index 1 appends one)"
    )
    write("a.toml", "[[orchestrator.env]]\nid = 'a'\n[[orchestrator.env]]\nid = 'b'\n")
    assert str(error_of(["@a.toml", "--orchestrator.env.5.id", "x"])) == (
        "--orchestrator.env.5.id: index 5 is out of range: "
        "the list has 2 elements (index 2 appends one)"
    )


def test_non_index_segment_into_a_list() -> None:
    assert str(error_of(["--orchestrator.env.x", "1"])) == (
        "--orchestrator.env (from --orchestrator.env.x): is a list: expected an index, got 'x'"
    )


def test_path_through_a_value() -> None:
    assert str(error_of(["--seed.x", "1"])) == (
        "--seed (from --seed.x): is a value, not a section: it has no key 'x'"
    )


def test_file_into_a_value(write: WriteFile) -> None:
    write("a.toml", "x = 1\n")
    assert str(error_of(["--seed", "@", "a.toml"])) == (
        "--seed (from --seed @ a.toml): is a value, not a section: "
        "a file can only be loaded into a section"
    )


def test_negating_what_cannot_be_negated() -> None:
    assert str(error_of(["--no-seed"])) == (
        "--no-seed: is neither a boolean nor optional: it cannot be negated"
    )
    assert str(error_of(["--no-dry-run", "x"])) == "--no-dry-run = 'x': a --no- flag takes no value"


# --- several errors at once --------------------------------------------------------------------


def test_all_validation_errors_are_reported_at_once(write: WriteFile) -> None:
    write("a.toml", "[trainer.model]\ncp = 2\nattn = 'sdpa'\n[trainer]\nmicro_batch_size = 0\n")
    error = error_of(["@a.toml", "--seed", "x"])
    assert isinstance(error, ErrorGroup)
    assert str(error) == (
        "3 errors:\n"
        "  - --trainer.model: context parallelism (cp > 1) requires attn = 'flash_attention_2'\n"
        "  - --trainer.micro-batch-size = 0 (from a.toml:5): micro_batch_size must be positive\n"
        "  - --seed = 'x': Input should be a valid integer, unable to parse string as an integer"
    )
    assert [e.key for e in error.errors] == [
        "--trainer.model",
        "--trainer.micro-batch-size",
        "--seed",
    ]
    assert all(isinstance(e, ConfigValidationError) for e in error.errors)


def test_unknown_keys_and_wrong_values_are_reported_together(write: WriteFile) -> None:
    write("a.toml", "seed = 'abc'\n[trainer]\nmicro_batch_sz = 3\n")
    error = error_of(["@a.toml"])
    assert isinstance(error, ErrorGroup)
    assert [(type(e), e.key, e.origin) for e in error.errors] == [
        (UnknownKeyError, "--trainer.micro-batch-sz", "a.toml:3"),
        (ConfigValidationError, "--seed", "a.toml:1"),
    ]


def test_a_single_error_is_not_wrapped() -> None:
    error = error_of(["--seed", "x"])
    assert not isinstance(error, ErrorGroup)
    assert error.errors == (error,)


# --- the error classes -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cls",
    [ArgvError, ConfigValidationError, ErrorGroup, FrozenError, SourceError, UnknownKeyError],
)
def test_every_error_class_is_a_compose_error(cls: type) -> None:
    assert issubclass(cls, ComposeError)


@pytest.mark.parametrize(
    "argv",
    [
        ["@", "missing.toml"],
        ["stray"],
        ["--nope"],
        ["--seed", "x"],
        ["--seed", "None"],
        ["--orchestrator.env.9.id", "x"],
        ["--inference.vllm-extra", "{"],
        ["--trainer.optim.type", "sgd"],
        ["--orchestrator.env", "[{]"],
        ["--orchestrator.env", "1"],
        ["--trainer.env-vars", '{"K": 1}'],
        ["--trainer.env-vars", "[1]"],
        ["--trainer.model.compile.fullgraph", "x", "--trainer.model.compile", "None"],
        ["--orchestrator.algo.type", "opd", "--orchestrator.algo.teacher"],
        ["--orchestrator.env.0", "x"],
        ["--orchestrator.scores.x", "1"],
        ["--max-steps", "[1]"],
        ["@", ""],
    ],
)
def test_bad_input_raises_only_compose_error(write: WriteFile, argv: list[str]) -> None:
    """`parse` raises `ComposeError` for bad input: never another exception, never SystemExit."""
    with pytest.raises(ComposeError):
        parse(RLConfig, argv)


def test_every_unknown_flag_is_reported_at_once() -> None:
    error = error_of(["--seedd", "1", "--trainer.lrr", "2"])
    assert [e.key for e in error.errors] == ["--seedd", "--trainer.lrr"]


# --- exit codes and help -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "cls",
    [
        ComposeError,
        ArgvError,
        ConfigValidationError,
        ErrorGroup,
        InterpolationError,
        OutputError,
        SourceError,
        UnknownKeyError,
    ],
)
def test_bad_input_exits_2(cls: type[ComposeError]) -> None:
    assert cls.exit_code == 2


def test_help_is_a_compose_error_that_exits_0() -> None:
    assert issubclass(HelpRequested, ComposeError)
    assert HelpRequested.exit_code == 0


def test_str_of_help_is_the_help_text() -> None:
    with pytest.raises(HelpRequested) as info:
        parse(RLConfig, ["--help"])
    asked = info.value
    assert asked.text.startswith("usage: ")
    assert asked.text.endswith("\n")
    assert str(asked) == asked.format() == asked.text.removesuffix("\n")
    assert asked.message == "help requested"


def app_main(argv: list[str]) -> RLConfig:
    """What an app that catches every ComposeError writes."""
    try:
        return parse(RLConfig, argv)
    except ComposeError as error:
        print(error)
        sys.exit(error.exit_code)


def test_an_app_catching_compose_error_shows_help_and_exits_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        app_main(["--help"])
    assert exited.value.code == 0
    with pytest.raises(HelpRequested) as info:
        parse(RLConfig, ["--help"])
    assert capsys.readouterr().out == info.value.text
    with pytest.raises(SystemExit) as failed:
        app_main(["--seed", "x"])
    assert failed.value.code == 2


# --- error groups and except* ------------------------------------------------------------------


def mixed_group() -> ErrorGroup:
    error = error_of(["--seed", "x", "--trainer.nope", "1", "--trainer.nah", "2"])
    assert isinstance(error, ErrorGroup)
    assert [type(e) for e in error.errors] == [
        UnknownKeyError,
        UnknownKeyError,
        ConfigValidationError,
    ]
    return error


def test_a_group_of_one_says_one_error() -> None:
    alone = ComposeError("bad", key="--x")
    assert str(ErrorGroup([alone])) == "1 error:\n  - --x: bad"


def test_an_error_group_pickles_and_copies() -> None:
    group = mixed_group()
    for again in (pickle.loads(pickle.dumps(group)), copy.copy(group)):
        assert type(again) is ErrorGroup
        assert str(again) == str(group)
        assert [e.key for e in again.errors] == [e.key for e in group.errors]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="ExceptionGroup is Python 3.11's")
def test_an_error_group_is_an_exception_group() -> None:
    group = mixed_group()
    assert isinstance(group, ExceptionGroup)  # type: ignore[name-defined]  # noqa: F821
    assert group.exceptions == group.errors
    assert group.message == "3 errors"
    unknown, rest = group.split(UnknownKeyError)
    assert isinstance(unknown, ErrorGroup)
    assert isinstance(rest, ErrorGroup)
    assert [e.key for e in unknown.errors] == ["--trainer.nope", "--trainer.nah"]
    assert str(rest) == (
        "1 error:\n"
        "  - --seed = 'x': Input should be a valid integer, unable to parse string as an integer"
    )


# Python 3.10 cannot compile `except*`: the code is compiled only where it runs
_EXCEPT_STAR = """
try:
    try:
        raise group
    except* UnknownKeyError as unknown:
        caught.append(unknown)
except* ComposeError as rest:
    left.append(rest)
"""


def except_star(group: ComposeError) -> tuple[list[ComposeError], list[ComposeError]]:
    """What `except* UnknownKeyError`, then an outer `except* ComposeError`, catch of `group`."""
    caught: list[ComposeError] = []
    left: list[ComposeError] = []
    namespace = {"UnknownKeyError": UnknownKeyError, "ComposeError": ComposeError}
    exec(_EXCEPT_STAR, {**namespace, "group": group, "caught": caught, "left": left})
    return caught, left


@pytest.mark.skipif(sys.version_info < (3, 11), reason="except* is Python 3.11's")
def test_except_star_takes_the_unknown_keys_out_of_a_group() -> None:
    [unknown], [rest] = except_star(mixed_group())
    assert isinstance(unknown, ErrorGroup)
    assert [e.key for e in unknown.errors] == ["--trainer.nope", "--trainer.nah"]
    assert isinstance(rest, ErrorGroup)
    assert [type(e) for e in rest.errors] == [ConfigValidationError]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="except* is Python 3.11's")
def test_except_star_catches_a_single_error_too() -> None:
    single = error_of(["--trainer.nope", "1"])
    [wrapped], left = except_star(single)  # Python wraps it in an ExceptionGroup of one
    assert wrapped.exceptions == (single,)  # type: ignore[attr-defined]
    assert left == []


# --- what a terminal is shown ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("evil\x1b[2J\x1b[31m.toml", "evil\\x1b[2J\\x1b[31m.toml"),  # ESC: clears, recolours
        ("a\x00b", "a\\x00b"),  # NUL
        ("two\nlines\rback\ttab", "two\\nlines\\rback\\ttab"),  # a faked line of its own
        ("del\x7f", "del\\x7f"),  # DEL
        ("csi\x9b31m", "csi\\x9b31m"),  # C1: a one-character CSI
        ("café/日本語/ß.toml", "café/日本語/ß.toml"),  # letters, as they are
        ("C:\\runs\\a b.toml", "C:\\runs\\a b.toml"),  # backslashes, spaces, as they are
    ],
)
def test_control_characters_are_shown_escaped_in_every_part_of_an_error(
    raw: str, shown: str
) -> None:
    """A key, a value, an origin, a message or a hint holding a control character (a file
    name with an ANSI escape sequence) is shown as `repr` shows it: it can neither rewrite the
    terminal nor fake a line; ordinary text is as it is. `.key` and `.origin` stay as given."""
    error = ConfigValidationError(
        f"no {raw}", key=f"--{raw}", value=raw, origin=f"{raw}:3", hint=f"see {raw}"
    )
    text = error.format()
    assert text == f"--{shown} = {raw!r} (from {shown}:3): no {shown}; see {shown}"
    assert str(error) == text and text.isprintable()
    assert (error.key, error.origin) == (f"--{raw}", f"{raw}:3")
    group = ErrorGroup([error, SourceError("missing", origin=raw)])
    assert group.format().split("\n") == ["2 errors:", f"  - {text}", f"  - {shown}: missing"]


# --- compose's words, whatever Python and parser read the input ------------------------------


@pytest.mark.parametrize(
    "python_says",
    [
        # 3.10.7 to 3.10.x, then 3.11 and later
        "Exceeds the limit (4300) for integer string conversion: value has 5000 digits",
        "Exceeds the limit (4300 digits) for integer string conversion: value has 5000 digits; "
        "use sys.set_int_max_str_digits() to increase the limit",
    ],
    ids=["3.10", "3.11"],
)
def test_an_integer_too_long_is_worded_alike_on_every_python(python_says: str) -> None:
    assert sys.get_int_max_str_digits() == 4300  # the default, which the words give
    words = integer_too_long(ValueError(python_says))
    assert words == "an integer of 5,000 digits, past the 4,300 Python converts"


def test_another_value_error_keeps_its_words() -> None:
    assert integer_too_long(ValueError("could not convert")) == "could not convert"


@pytest.mark.parametrize(
    "python_says", ["embedded null byte", "open: embedded null character in path"]
)
def test_a_null_byte_in_a_path_is_worded_alike_on_every_python(python_says: str) -> None:
    """Python 3.13 words the OS's refusal of a NUL in a file name otherwise than 3.12 does."""
    assert path_refused("a\0.toml", ValueError(python_says)) == (
        "a file name cannot hold a null byte"
    )
    loop = OSError(40, "Too many levels of symbolic links")
    assert path_refused("loop.toml", loop) == "Too many levels of symbolic links"


def test_a_parser_out_of_stack_is_worded_as_the_depth_walk_words_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Pure-Python tomli (Python 3.10's) runs out of stack on a text that compiled tomli reads
    and the depth walk refuses: the error says the same either way."""
    deep = "x = " + "[" * 150 + "]" * 150 + "\n"
    walked = error_of_toml(deep)

    def out_of_stack(text: str) -> dict[str, object]:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(files, "toml_loads", out_of_stack)
    assert (
        error_of_toml(deep) == walked == "deep.toml: tables or lists nested deeper than 100 levels"
    )


def error_of_toml(text: str) -> str:
    with pytest.raises(SourceError) as raised:
        files.parse_toml("deep.toml", text)
    return str(raised.value)


def test_a_value_too_deep_is_not_shown_on_any_python() -> None:
    """repr of a dict 150 deep recurses out on some Pythons and not on 3.13: never shown."""
    value: dict[str, object] = {}
    for _ in range(150):
        value = {"k": value}
    assert value_repr(value) == "<nested too deep to show>"
