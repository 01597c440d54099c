"""JSON and YAML files as nodes (issue 8): the format is the suffix, the rules are TOML's.

A JSON or YAML node merges like a TOML one, in argv order among them; null follows the None
rules of the text "None"; origins and errors name FILE:LINE; every way a file can be wrong is a
`SourceError` naming the file (and the line, where there is one). PyYAML is optional: it is
imported only to read a YAML file, and its absence is a clear error.
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING, Any

import pytest
from conftest import run_python

import compose._input as input_package
from compose import (
    BaseConfig,
    ComposeError,
    ConfigValidationError,
    SourceError,
    UnknownKeyError,
    compose,
    parse,
)
from compose._cli.command import main

if TYPE_CHECKING:
    from conftest import WriteFile


class Optim(BaseConfig):
    lr: float = 1e-3
    betas: list[float] = [0.9, 0.999]


class Env(BaseConfig):
    id: str = "reverse"
    weight: float = 1.0


class Trainer(BaseConfig):
    optim: Optim = Optim()
    steps: int = 10
    name: str = "run"
    max_len: int | None = 512
    stop: list[str | None] = []


class Config(BaseConfig):
    seed: int = 0
    trainer: Trainer = Trainer()
    env: list[Env] = [Env()]
    extra: dict[str, Any] = {}


def error_of(argv: list[str]) -> ComposeError:
    with pytest.raises(ComposeError) as info:
        parse(Config, argv)
    return info.value


def show(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["show", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# --- reading and merging ---------------------------------------------------------------------

SAME_CONFIG = {
    "c.toml": """
        seed = 7
        [trainer.optim]
        lr = 3e-4
        betas = [0.8, 0.9]
        [[env]]
        id = "math"
        [[env]]
        id = "code"
        weight = 2.0
    """,
    "c.json": """
        {"seed": 7,
         "trainer": {"optim": {"lr": 3e-4, "betas": [0.8, 0.9]}},
         "env": [{"id": "math"}, {"id": "code", "weight": 2.0}]}
    """,
    "c.yaml": """
        seed: 7
        trainer:
          optim: {lr: 3e-4, betas: [0.8, 0.9]}
        env:
          - id: math
          - id: code
            weight: 2.0
    """,
}


@pytest.mark.parametrize("name", sorted(SAME_CONFIG))
def test_each_format_gives_the_same_config(write: WriteFile, name: str) -> None:
    config = parse(Config, ["@", write(name, SAME_CONFIG[name])])
    assert config.seed == 7
    assert config.trainer.optim == Optim(lr=3e-4, betas=[0.8, 0.9])
    assert [(env.id, env.weight) for env in config.env] == [("math", 1.0), ("code", 2.0)]


def test_mixed_stack_merges_in_argv_order(write: WriteFile) -> None:
    write("base.toml", "seed = 1\n[trainer]\nsteps = 100\nname = 'base'\n")
    write("overlay.yaml", "seed: 2\ntrainer:\n  steps: 200\n")
    write("t.json", '{"steps": 300, "optim": {"lr": 0.5}}')
    write("last.yml", "seed: 4\n")
    config = parse(Config, ["@", "base.toml", "@", "overlay.yaml", "--trainer", "@", "t.json"])
    # tables deep-merge: name from base.toml, steps from the last file that set it
    assert (config.seed, config.trainer.steps, config.trainer.name) == (2, 300, "base")
    assert config.trainer.optim.lr == 0.5
    reordered = ["--trainer", "@", "t.json", "@", "overlay.yaml", "@", "last.yml"]
    assert parse(Config, reordered).trainer.steps == 200
    assert parse(Config, reordered).seed == 4


def test_lists_replace_and_scalars_replace_as_in_toml(write: WriteFile) -> None:
    write("a.json", '{"trainer": {"optim": {"betas": [0.1, 0.2]}}, "extra": {"k": {"x": 1}}}')
    write("b.yaml", "trainer: {optim: {betas: [0.3]}}\nextra: {k: 5}\n")
    config = parse(Config, ["@", "a.json", "@", "b.yaml", "--trainer.optim.lr", "0.25"])
    assert config.trainer.optim.betas == [0.3]
    assert config.extra == {"k": 5}
    assert config.trainer.optim.lr == 0.25  # command-line values still win


def test_any_other_suffix_is_toml(write: WriteFile) -> None:
    write("a.cfg", "seed = 3\n")
    assert parse(Config, ["@", "a.cfg"]).seed == 3
    write("b.JSON", '{"seed": 4}')
    assert parse(Config, ["@", "b.JSON"]).seed == 4


def test_compose_takes_json_and_yaml_sources(write: WriteFile) -> None:
    write("a.json", '{"a": 1, "b": {"c": [1, 2]}}')
    write("b.yaml", "b:\n  d: text\n")
    assert compose(["a.json", "b.yaml"]) == {"a": 1, "b": {"c": [1, 2], "d": "text"}}
    write("section.yml", "d: text\n")
    assert compose(["a.json"], ["b=@section.yml"]) == {"a": 1, "b": {"c": [1, 2], "d": "text"}}


def test_json_reads_nan_and_infinity_like_toml(write: WriteFile) -> None:
    write("a.json", '{"trainer": {"optim": {"lr": NaN, "betas": [Infinity, -Infinity]}}}')
    optim = parse(Config, ["@", "a.json"]).trainer.optim
    assert math.isnan(optim.lr)
    assert optim.betas == [math.inf, -math.inf]


def test_yaml_reads_exponents_without_a_dot_as_numbers(write: WriteFile) -> None:
    write("a.yaml", "a: 1e-4\nb: 3E5\nc: 1.5e+3\nd: 2e\ne: '1e-4'\n")
    assert compose(["a.yaml"]) == {"a": 1e-4, "b": 3e5, "c": 1.5e3, "d": "2e", "e": "1e-4"}


def test_an_empty_yaml_file_is_an_empty_table(write: WriteFile) -> None:
    write("empty.yaml", "# everything commented out\n")
    assert parse(Config, ["@", "empty.yaml"]) == Config()


def test_show_format_json_loads_back(write: WriteFile, capsys: pytest.CaptureFixture[str]) -> None:
    write("a.toml", 'name = "None"\nmissing = "None"\n[t]\nx = [1, "None"]\n')
    code, out, _ = show(["--format", "json", "@", "a.toml"], capsys)
    assert code == 0
    write("again.json", out)
    assert (
        compose(["again.json"])
        == compose(["a.toml"])
        == {
            "name": None,
            "missing": None,
            "t": {"x": [1, None]},
        }
    )


# --- null ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("n.json", '{"trainer": {"max_len": null, "name": null, "stop": ["a", null]}}'),
        ("n.yaml", "trainer:\n  max_len: null\n  name: ~\n  stop: [a, Null]\n"),
    ],
)
def test_null_follows_the_none_rules(write: WriteFile, name: str, text: str) -> None:
    trainer = parse(Config, ["@", write(name, text)]).trainer
    assert trainer.max_len is None  # an `X | None` field: None
    assert trainer.name == "None"  # a plain `str`: the text, as for "None" in TOML
    assert trainer.stop == ["a", None]  # at any depth, list elements too


def test_null_where_none_is_not_accepted_names_file_and_line(write: WriteFile) -> None:
    write("n.json", '{\n  "seed": null\n}\n')
    error = error_of(["@", "n.json"])
    assert isinstance(error, ConfigValidationError)
    assert (error.key, error.origin, error.message) == (
        "--seed",
        "n.json:2",
        "does not accept None",
    )
    write("n.yaml", "trainer:\n  steps:\n")  # an empty value is null in YAML
    error = error_of(["@", "n.yaml"])
    assert (error.key, error.origin) == ("--trainer.steps", "n.yaml:2")


def test_null_without_a_schema_is_none(write: WriteFile) -> None:
    # No "None" text anywhere: the null alone must make the result path convert.
    write("a.json", '{"a": null, "b": [null, 1], "c": {"d": null}}')
    write("b.yaml", "e: ~\n")
    assert compose(["a.json", "b.yaml"]) == {"a": None, "b": [None, 1], "c": {"d": None}, "e": None}


def test_null_in_a_dict_of_any(write: WriteFile) -> None:
    write("a.json", '{"extra": {"k": null, "l": [null]}}')
    assert parse(Config, ["@", "a.json"]).extra == {"k": None, "l": [None]}


# --- origins ---------------------------------------------------------------------------------


def test_origins_name_lines_in_json(write: WriteFile, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        "a.json",
        """
        {
          "trainer": {
            "optim": {
              "lr": 0.5
            }
          },
          "env": [
            {"id": "math"},
            {
              "id": "code"
            }
          ]
        }
        """,
    )
    code, out, _ = show(["--origins", "@", "a.json"], capsys)
    assert code == 0
    assert "lr = 0.5  # a.json:4" in out
    assert 'id = "math"  # a.json:8' in out
    assert 'id = "code"  # a.json:10' in out


def test_origins_name_lines_in_yaml(write: WriteFile, capsys: pytest.CaptureFixture[str]) -> None:
    write(
        "a.yaml",
        """
        defaults: &defaults
          lr: 0.1
          steps: 3
        trainer:
          optim:
            lr: 0.5
        env:
          - id: math
          -
            id: code
        merged:
          <<: *defaults
          steps: 4
        alias: *defaults
        """,
    )
    code, out, _ = show(["--origins", "@", "a.yaml"], capsys)
    assert code == 0
    assert "lr = 0.5  # a.yaml:6" in out
    assert 'id = "math"  # a.yaml:8' in out
    assert 'id = "code"  # a.yaml:10' in out
    # what a merge brings is at the `<<` line; what the mapping writes, at its own line
    assert "[merged]\nlr = 0.1  # a.yaml:12\nsteps = 4  # a.yaml:13" in out
    # what an alias brings is at the alias's line
    assert "[alias]\nlr = 0.1  # a.yaml:14\nsteps = 3  # a.yaml:14" in out


def test_origins_in_a_section_file(write: WriteFile, capsys: pytest.CaptureFixture[str]) -> None:
    write("t.yaml", "steps: 3\noptim:\n  lr: 0.5\n")
    write("base.json", '{\n"seed": 1\n}')
    code, out, _ = show(["--origins", "@", "base.json", "--trainer", "@", "t.yaml"], capsys)
    assert code == 0
    assert "seed = 1  # base.json:2" in out
    assert "steps = 3  # t.yaml:1" in out
    assert "lr = 0.5  # t.yaml:3" in out


def test_unknown_key_names_file_and_line(write: WriteFile) -> None:
    write("t.json", '{\n  "optim": {\n    "lrr": 0.5\n  }\n}\n')
    error = error_of(["--trainer", "@", "t.json"])
    assert isinstance(error, UnknownKeyError)
    assert (error.key, error.origin) == ("--trainer.optim.lrr", "t.json:3")
    assert error.hint == "did you mean --trainer.optim.lr?"


def test_wrong_type_names_file_and_line(write: WriteFile) -> None:
    write("a.yaml", "env:\n  - id: math\n  - id: code\n    weight: heavy\n")
    error = error_of(["@", "a.yaml"])
    assert isinstance(error, ConfigValidationError)
    assert (error.key, error.value, error.origin) == ("--env.1.weight", "heavy", "a.yaml:4")


# --- YAML specifics --------------------------------------------------------------------------


def test_aliases_are_separate_values(write: WriteFile) -> None:
    write("a.yaml", "base: &b {x: 1, l: [1]}\ncopy: *b\n")
    assert compose(["a.yaml"], ["copy.x=2", "copy.l.0=5"]) == {
        "base": {"x": 1, "l": [1]},
        "copy": {"x": 2, "l": [5]},
    }


def test_yaml_tags_are_refused(write: WriteFile) -> None:
    write("evil.yaml", 'a: !!python/object/apply:os.system ["echo hi"]\n')
    error = error_of(["@", "evil.yaml"])
    assert isinstance(error, SourceError)
    assert error.origin == "evil.yaml:1:4"
    assert "could not determine a constructor for the tag" in error.message
    assert "python/object/apply:os.system" in error.message
    assert error.hint is not None and "the safe loader reads tables, lists" in error.hint


def test_yaml_tags_of_values_no_toml_file_holds_are_refused(write: WriteFile) -> None:
    for tag in ("!!set {a, b}", "!!binary aGk=", "!!omap [a: 1]", "!!pairs [a: 1]"):
        write("a.yaml", f"x: 1\ny: {tag}\n")
        error = error_of(["@", "a.yaml"])
        assert isinstance(error, SourceError)
        assert error.origin == "a.yaml:2:4", tag


def test_aliases_that_expand_too_far_are_refused(write: WriteFile) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    write("laughs.yaml", "\n".join(lines) + "\n")
    error = error_of(["@", "laughs.yaml"])
    assert str(error) == "laughs.yaml: aliases expand to more than 100,000 values"


def test_an_alias_inside_its_own_anchor_is_refused(write: WriteFile) -> None:
    write("loop.yaml", "a: &a [1, *a]\n")
    error = error_of(["@", "loop.yaml"])
    assert str(error) == "loop.yaml: an alias inside its own anchor: the value would hold itself"


def test_reading_yaml_does_not_need_pyyaml_until_a_yaml_file(tmp_path: Any) -> None:
    (tmp_path / "a.json").write_text('{"a": 1}')
    (tmp_path / "b.toml").write_text("b = 2\n")
    code = (
        "import sys, compose; "
        "assert compose.compose(['a.json', 'b.toml']) == {'a': 1, 'b': 2}; "
        "assert 'yaml' not in sys.modules, 'PyYAML imported without a YAML file'"
    )
    assert run_python(code, cwd=tmp_path) == (0, "", "")


def test_missing_pyyaml_is_a_clear_error(write: WriteFile, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)  # `import yaml` now fails
    monkeypatch.delitem(sys.modules, "compose._input.yaml", raising=False)
    monkeypatch.delattr(input_package, "yaml", raising=False)
    write("a.yaml", "seed: 1\n")
    error = error_of(["@", "a.yaml"])
    assert isinstance(error, SourceError)
    assert str(error) == (
        "a.yaml: is a YAML file, and reading YAML needs PyYAML, which is not installed; "
        "pip install 'compose-config[yaml]' (or pip install pyyaml)"
    )
    write("a.json", '{"seed": 2}')
    assert parse(Config, ["@", "a.json"]).seed == 2  # JSON and TOML do without it


# --- bad files -------------------------------------------------------------------------------

BAD_FILES = [
    # (file, text, origin, message)
    ("a.json", '{\n  "seed": 1,\n  "x": }\n', "a.json:3:8", "invalid JSON: Expecting value"),
    (
        "a.json",
        '{"seed": 1 "x": 2}',
        "a.json:1:12",
        "invalid JSON: Expecting ',' delimiter",
    ),
    ("a.json", "", "a.json:1:1", "invalid JSON: Expecting value"),
    (
        "a.yaml",
        "seed: 1\ntrainer: [1, 2\nenv: 3\n",
        "a.yaml:3:4",
        "invalid YAML: while parsing a flow sequence, expected ',' or ']', but got ':'",
    ),
    (
        "a.yaml",
        "seed: 1\n---\nseed: 2\n",
        "a.yaml:2:1",
        "invalid YAML: expected a single document in the stream, but found another document",
    ),
    (
        "a.yaml",
        "seed: 1\ntrainer: a: b\n",
        "a.yaml:2:11",
        "invalid YAML: mapping values are not allowed here",
    ),
    (
        "a.yaml",
        "seed: 1\nname: \x01\n",
        "a.yaml:2",
        "invalid YAML: special characters are not allowed (#x0001)",
    ),
    # a tagged scalar its constructor cannot read: PyYAML raised a bare KeyError/AttributeError
    (
        "a.yaml",
        "seed: 1\nflag: !!bool maybe\n",
        "a.yaml:2:7",
        "invalid YAML: 'maybe' is not a boolean (!!bool)",
    ),
    (
        "a.yaml",
        "seed: 1\nday: !!timestamp x\n",
        "a.yaml:2:6",
        "invalid YAML: 'x' is not a date (!!timestamp)",
    ),
    ("a.yaml", "seed: !!int 1x\n", "a.yaml:1:7", "invalid YAML: '1x' is not an integer (!!int)"),
    (
        "a.yaml",
        "seed: 1\nday: 2020-02-30\n",
        "a.yaml:2:6",
        "invalid YAML: '2020-02-30' is not a date (!!timestamp): day is out of range for month",
    ),
    (
        "a.yaml",
        "seed: 1\nsteps: " + "7" * 5000 + "\n",
        "a.yaml:2:8",
        "invalid YAML: an integer of 5,000 digits, past the 4,300 Python converts",
    ),
]


@pytest.mark.parametrize(("name", "text", "origin", "message"), BAD_FILES)
def test_syntax_errors_name_file_line_and_column(
    write: WriteFile, name: str, text: str, origin: str, message: str
) -> None:
    write(name, text)
    error = error_of(["@", name])
    assert isinstance(error, SourceError)
    assert (error.origin, error.message) == (origin, message)


@pytest.mark.parametrize(
    ("name", "text", "what"),
    [
        ("a.json", '[{"id": "math"}, {"id": "code"}]', "an object (a table of keys), not a list"),
        ("a.json", '"text"', "an object (a table of keys), not a string"),
        ("a.json", "null", "an object (a table of keys), not null"),
        ("a.yaml", "- id: math\n- id: code\n", "a mapping (a table of keys), not a list"),
        ("a.yaml", "3\n", "a mapping (a table of keys), not a number"),
    ],
)
def test_the_top_level_must_be_a_table(write: WriteFile, name: str, text: str, what: str) -> None:
    write(name, text)
    error = error_of(["@", name])
    assert isinstance(error, SourceError)
    kind = "JSON" if name.endswith(".json") else "YAML"
    assert error.origin == name
    assert error.message == f"the top level of a {kind} file node must be {what}"


def test_a_json_array_of_tables_says_where_to_put_it(write: WriteFile) -> None:
    write("envs.json", '[{"id": "math"}]')
    assert str(error_of(["@", "envs.json"])) == (
        "envs.json: the top level of a JSON file node must be an object (a table of keys), "
        'not a list; put it under a key: {"env": [...]}'
    )


def test_duplicate_keys_name_the_line(write: WriteFile) -> None:
    write("a.json", '{\n  "trainer": {\n    "steps": 1,\n    "steps": 2\n  }\n}\n')
    error = error_of(["@", "a.json"])
    assert isinstance(error, SourceError)
    assert str(error) == 'a.json:4: duplicate key "trainer.steps" (first written at line 3)'
    write("a.yaml", "seed: 1\ntrainer:\n  steps: 1\n  steps: 2\n")
    assert str(error_of(["@", "a.yaml"])) == (
        'a.yaml:4: duplicate key "steps" (first written at line 3)'
    )


def test_a_yaml_merge_may_repeat_a_key_the_mapping_writes(write: WriteFile) -> None:
    write("a.yaml", "base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  x: 3\n")
    assert compose(["a.yaml"]) == {"base": {"x": 1, "y": 2}, "c": {"x": 3, "y": 2}}


@pytest.mark.parametrize(
    ("text", "message", "hint"),
    [
        ("on: 1\n", "key on is read by YAML as a boolean, not as text", 'quote it: "on":'),
        ("1: x\n", "key 1 is read by YAML as an integer, not as text", 'quote it: "1":'),
        ("~: x\n", "key ~ is read by YAML as null, not as text", 'quote it: "~":'),
        ("2.5: x\n", "key 2.5 is read by YAML as a number, not as text", 'quote it: "2.5":'),
        ("? [a, b]\n: x\n", "a key must be text, not a list", None),
    ],
)
def test_yaml_keys_must_be_text(write: WriteFile, text: str, message: str, hint: str) -> None:
    write("a.yaml", f"seed: 1\n{text}")
    error = error_of(["@", "a.yaml"])
    assert isinstance(error, SourceError)
    assert error.origin == "a.yaml:2"
    assert error.message.startswith(message)
    assert error.hint == hint
    write("quoted.yaml", 'extra:\n  "on": 1\n  "1": 2\n')
    assert parse(Config, ["@", "quoted.yaml"]).extra == {"on": 1, "1": 2}


def test_nested_too_deeply_is_refused(write: WriteFile) -> None:
    write("deep.json", '{"a": ' + "[" * 150 + "]" * 150 + "}")
    assert str(error_of(["@", "deep.json"])) == (
        "deep.json: objects or arrays nested deeper than 100 levels"
    )
    write("deep.yaml", "a: " + "[" * 150 + "]" * 150 + "\n")
    assert str(error_of(["@", "deep.yaml"])) == (
        "deep.yaml: tables or lists nested deeper than 100 levels"
    )


def test_cli_shows_file_errors_without_a_traceback(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.json", '{"seed": 1, "seed": 2}')
    code, out, err = show(["@", "a.json"], capsys)
    assert (code, out) == (2, "")
    assert err == 'error: a.json:1: duplicate key "seed" (first written at line 1)\n'
