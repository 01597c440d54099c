"""The environment layer (issue 8): `env_prefix="RL_"` makes `RL_TRAINER__OPTIM__LR=1e-5` a node
between the class defaults and the first file, typed like one command-line token and reported
with its origin, `$RL_TRAINER__OPTIM__LR`.

Most tests pass `environ=` (a dict) so nothing depends on the shell running them; those that
go through `cli()` or the `compose` command set variables with monkeypatch (and conftest clears
the shell's `RL_*` variables for every test).
"""

from __future__ import annotations

import io
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import environ_with_tests, run_cli, run_command
from rl_app import cli as app
from schemas import RLConfig, Scalars

from compose import ComposeError, ComposeWarning, HelpRequested, cli, compose, parse
from compose._cli.command import main
from compose._output.render import help_panels

if TYPE_CHECKING:
    from conftest import WriteFile


FILE = """
seed = 7

[trainer.optim]
lr = 0.5
"""


def rl(argv: list[str], **environ: str) -> RLConfig:
    return parse(RLConfig, argv, env_prefix="RL_", environ=environ)


def error_of(argv: list[str], **environ: str) -> str:
    with pytest.raises(ComposeError) as caught:
        rl(argv, **environ)
    return caught.value.format()


def warnings_of(argv: list[str], **environ: str) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rl(argv, **environ)
    return [str(message.message) for message in caught]


# --- the order of the layers -----------------------------------------------------------------


def test_a_variable_overrides_the_class_default() -> None:
    config = rl([], RL_SEED="3", RL_TRAINER__OPTIM__LR="1e-5")
    assert (config.seed, config.trainer.optim.lr) == (3, 1e-5)


def test_files_override_variables(write: WriteFile) -> None:
    write("a.toml", FILE)
    config = rl(["@", "a.toml"], RL_SEED="3", RL_TRAINER__OPTIM__LR="1e-5")
    assert (config.seed, config.trainer.optim.lr) == (7, 0.5)


def test_a_file_keeps_the_variables_it_does_not_set(write: WriteFile) -> None:
    """The environment is a node like a file: tables merge, so a file setting `trainer.optim.lr`
    leaves `trainer.micro_batch_size` from the environment."""
    write("a.toml", FILE)
    config = rl(["@", "a.toml"], RL_TRAINER__MICRO_BATCH_SIZE="4")
    assert (config.trainer.micro_batch_size, config.trainer.optim.lr) == (4, 0.5)


def test_flags_override_variables_and_files(write: WriteFile) -> None:
    write("a.toml", FILE)
    config = rl(["@", "a.toml", "--seed", "9"], RL_SEED="3")
    assert config.seed == 9


def test_a_deletion_removes_what_the_environment_set(write: WriteFile) -> None:
    """`~key` deletes what earlier nodes set, and the environment is the first node."""
    assert rl(["~seed"], RL_SEED="3").seed == 42


def test_compose_takes_the_environment_below_files_and_overrides(write: WriteFile) -> None:
    write("a.toml", "seed = 7\n")
    environ = {"RL_SEED": "3", "RL_TAG": "from-env", "RL_MAX_STEPS": "5"}
    config = compose(
        ["a.toml"], ["max_steps=6"], schema=RLConfig, env_prefix="RL_", environ=environ
    )
    assert (config.seed, config.tag, config.max_steps) == (7, "from-env", 6)


def test_without_a_prefix_the_environment_is_not_read() -> None:
    """No cost at all without `env_prefix`: the environment is not even looked at."""

    class Untouchable(Mapping[str, str]):
        def __getitem__(self, key: str) -> str:
            raise AssertionError("read")

        def __iter__(self) -> Iterator[str]:
            raise AssertionError("read")

        def __len__(self) -> int:
            raise AssertionError("read")

    assert parse(RLConfig, [], environ=Untouchable()).seed == 42
    assert compose([], environ=Untouchable()) == {}


def test_variables_without_the_prefix_are_ignored() -> None:
    config = rl([], SEED="3", RLSEED="4", rl_seed="5")
    assert config.seed == 42


def test_an_empty_prefix_is_refused() -> None:
    with pytest.raises(ValueError, match="env_prefix must not be empty"):
        parse(RLConfig, [], env_prefix="", environ={"SEED": "3"})


# --- typed like one command-line token -------------------------------------------------------


def scalars(**environ: str) -> Scalars:
    return parse(Scalars, [], env_prefix="APP_", environ=environ)


@pytest.mark.parametrize(
    ("variable", "text", "field", "expected"),
    [
        ("APP_FLAG", "true", "flag", True),
        ("APP_FLAG", "0", "flag", False),
        ("APP_COUNT", "12", "count", 12),
        ("APP_RATIO", "1e-3", "ratio", 1e-3),
        ("APP_TEXT", "None", "text", "None"),  # plain text keeps the word
        ("APP_MAYBE_TEXT", "None", "maybe_text", None),
        ("APP_MAYBE_INT", "None", "maybe_int", None),
        ("APP_NUMBER_OR_NAME", "7", "number_or_name", 7),
        ("APP_NUMBER_OR_NAME", "seven", "number_or_name", "seven"),
        ("APP_MODE", "slow", "mode", "slow"),
        ("APP_LEVEL", "2", "level", 2),
        ("APP_INTS", "[1, 2]", "ints", [1, 2]),
        ("APP_INTS", "5", "ints", [5]),  # one value that is not JSON: a one-element list
        ("APP_STRS", "a b", "strs", ["a b"]),  # one variable is one token, spaces and all
        ("APP_MAYBE_INTS", "None", "maybe_ints", None),
        ("APP_LABELS", '{"Key": "v"}', "labels", {"Key": "v"}),
        ("APP_COUNTS__X", "3", "counts", {"x": 3}),  # a dict key, lowercased
    ],
)
def test_a_value_is_typed_by_its_field(variable: str, text: str, field: str, expected: Any) -> None:
    assert getattr(scalars(**{variable: text}), field) == expected


@pytest.mark.parametrize(
    ("flag", "text"),
    [
        ("--maybe-text", "None"),
        ("--extra", '{"a": "None", "b": [1, "x"]}'),
        ("--labels", '{"a": "None"}'),
        ("--ints", "[]"),
        ("--dtype", "float32"),
        ("--priority", "2"),
        ("--path", "out/x"),
        ("--number-or-name", "007"),
    ],
)
def test_a_variable_gives_what_the_same_flag_gives(flag: str, text: str) -> None:
    variable = "APP_" + flag.removeprefix("--").replace("-", "_").upper()
    assert scalars(**{variable: text}) == parse(Scalars, [flag, text])


def test_an_interpolation_in_a_variable_resolves() -> None:
    assert rl([], RL_TAG="run-${seed}", RL_SEED="3").tag == "run-3"


def test_a_list_element_by_index() -> None:
    config = rl([], RL_ORCHESTRATOR__ENV__0__ID="math", RL_ORCHESTRATOR__ENV__1__ID="code")
    assert [env.id for env in config.orchestrator.env] == ["math", "code"]


def test_a_dict_key_is_lowercased_so_json_keeps_the_case() -> None:
    assert rl([], RL_TRAINER__ENV_VARS__HF_HOME="/x").trainer.env_vars == {"hf_home": "/x"}
    config = rl([], RL_TRAINER__ENV_VARS='{"HF_HOME": "/x"}')
    assert config.trainer.env_vars == {"HF_HOME": "/x"}


def test_a_variable_inside_an_optional_section_enables_it() -> None:
    config = rl([], RL_ORCHESTRATOR__WANDB__PROJECT="p", RL_INFERENCE__ENABLE_LORA="true")
    assert config.orchestrator.wandb is not None
    assert config.orchestrator.wandb.project == "p"
    assert config.inference is not None
    assert config.inference.enable_lora is True


def test_a_file_disables_what_a_variable_enabled(write: WriteFile) -> None:
    write("a.toml", 'inference = "None"\n')
    assert rl(["@", "a.toml"], RL_INFERENCE__ENABLE_LORA="true").inference is None


# --- unions -----------------------------------------------------------------------------------


def test_a_variable_chooses_the_variant_its_siblings_resolve_against() -> None:
    """Within the node, a tag applies first, whatever the name order (`MOMENTUM` < `TYPE`)."""
    optim = rl([], RL_TRAINER__OPTIM__MOMENTUM="0.5", RL_TRAINER__OPTIM__TYPE="muon").trainer.optim
    assert (optim.type, optim.momentum) == ("muon", 0.5)  # type: ignore[union-attr]


def test_a_file_switching_the_variant_names_the_dropped_variable(write: WriteFile) -> None:
    write("a.toml", '[trainer.optim]\ntype = "adamw"\n')
    with pytest.warns(ComposeWarning) as caught:
        config = rl(
            ["@", "a.toml"], RL_TRAINER__OPTIM__TYPE="muon", RL_TRAINER__OPTIM__MOMENTUM="1"
        )
    assert config.trainer.optim.type == "adamw"
    assert [str(w.message) for w in caught] == [
        "--trainer.optim.momentum (from $RL_TRAINER__OPTIM__MOMENTUM) is dropped: "
        "--trainer.optim.type switched to 'adamw', which has no such key"
    ]


def test_a_field_of_a_variant_not_chosen_is_a_warning() -> None:
    """The environment is read before the files: a variant only a file chooses comes too late."""
    assert warnings_of([], RL_TRAINER__OPTIM__MOMENTUM="0.5") == [
        "$RL_TRAINER__OPTIM__MOMENTUM names no field; "
        "only muon has it: choose it with --trainer.optim.type muon"
    ]


# --- names that set no field -------------------------------------------------------------------


def test_an_unknown_variable_warns_with_a_did_you_mean() -> None:
    assert warnings_of([], RL_TRAINER__OPTIM__LRR="1e-5") == [
        "$RL_TRAINER__OPTIM__LRR names no field; did you mean $RL_TRAINER__OPTIM__LR?"
    ]


def test_a_key_in_the_wrong_section_is_suggested_where_it_belongs() -> None:
    assert warnings_of([], RL_TRAINER__BATCH_SIZE="8") == [
        "$RL_TRAINER__BATCH_SIZE names no field; did you mean $RL_ORCHESTRATOR__BATCH_SIZE?"
    ]


@pytest.mark.parametrize(
    ("name", "warning"),
    [
        ("RL_SEED__X", "$RL_SEED__X names no field"),  # below a plain value
        ("RL_NO_SEED", "$RL_NO_SEED names no field"),  # never a negation, as --no-seed is
        ("RL_SOMETHING_ELSE", "$RL_SOMETHING_ELSE names no field"),
        (
            "RL_TRAINER____LR",
            "$RL_TRAINER____LR names no field: RL_SECTION__FIELD, segments separated by __",
        ),
        ("RL_", "$RL_ names no field: RL_SECTION__FIELD, segments separated by __"),
    ],
)
def test_a_variable_that_names_no_field_is_only_a_warning(name: str, warning: str) -> None:
    """The environment is ambient: an unknown variable is not bad input, the rest still works."""
    with pytest.warns(ComposeWarning) as caught:
        config = rl([], **{name: "1", "RL_SEED": "3"})
    assert [str(w.message) for w in caught] == [warning]
    assert config.seed == 3


# --- wrong values: errors naming the variable ------------------------------------------------


def test_a_wrong_value_is_an_error_naming_the_variable() -> None:
    assert error_of([], RL_TRAINER__OPTIM__LR="abc") == (
        "--trainer.optim.lr = 'abc' (from $RL_TRAINER__OPTIM__LR): "
        "Input should be a valid number, unable to parse string as a number"
    )


def test_all_wrong_values_at_once() -> None:
    assert error_of([], RL_SEED="x", RL_TRAINER__ENABLE_TOKEN_EXPORT="maybe").splitlines() == [
        "2 errors:",
        "  - --trainer.enable-token-export = 'maybe' (from $RL_TRAINER__ENABLE_TOKEN_EXPORT): "
        "expects a boolean: true, false, 1 or 0",
        "  - --seed = 'x' (from $RL_SEED): "
        "Input should be a valid integer, unable to parse string as an integer",
    ]


def test_bad_json_is_an_error_naming_the_variable() -> None:
    assert error_of([], RL_TRAINER__ENV_VARS="{oops") == (
        "--trainer.env-vars = '{oops' (from $RL_TRAINER__ENV_VARS): "
        "invalid JSON: Expecting property name enclosed in double quotes at column 2"
    )


def test_a_value_a_file_overrides_is_not_checked(write: WriteFile) -> None:
    """Validation sees the composed value: a wrong variable that a file replaces is no error."""
    write("a.toml", FILE)
    assert rl(["@", "a.toml"], RL_SEED="x").seed == 7


# --- origins -----------------------------------------------------------------------------------


def test_help_shows_the_variable_that_set_a_value() -> None:
    with pytest.raises(HelpRequested) as caught:
        rl(["--help"], RL_SEED="3")
    text = caught.value.text
    assert "environment: RL_SECTION__FIELD=VALUE sets --section.field" in text
    assert "(= 3, from $RL_SEED)" in text


def test_rich_help_names_the_variables_too() -> None:
    with pytest.raises(HelpRequested) as caught:
        rl(["--help"])
    stream = io.StringIO()
    help_panels(caught.value.screen, stream, width=100)  # type: ignore[arg-type]
    assert stream.getvalue().splitlines()[1] == (
        "environment: RL_SECTION__FIELD=VALUE sets --section.field (files and flags override it)"
    )


def test_help_says_which_variables_set_fields_only_with_a_prefix() -> None:
    with pytest.raises(HelpRequested) as caught:
        parse(RLConfig, ["--help"])
    assert "environment:" not in caught.value.text


def test_cli_help_names_the_variables(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # each line whole: the line under the usage is checked
    with pytest.raises(SystemExit):
        cli(RLConfig, ["--help"], prog="rl", env_prefix="RL_")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("usage: rl ")
    assert lines[1] == (
        "environment: RL_SECTION__FIELD=VALUE sets --section.field (files and flags override it)"
    )
    monkeypatch.setenv("RL_SEED", "3")  # now the help composes, to show what the variable set
    with pytest.raises(SystemExit):
        cli(RLConfig, ["--help"], prog="rl", env_prefix="RL_")
    assert "(= 3, from $RL_SEED)" in capsys.readouterr().out


def test_the_show_command_names_each_variable(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.toml", "seed = 7\n")
    monkeypatch.setenv("RL_SEED", "3")
    monkeypatch.setenv("RL_TRAINER__OPTIM__LR", "1e-5")
    argv = ["show", "--env-prefix", "RL_", "--origins", "@", "a.toml", "--tag", "t"]
    assert main(argv) == 0
    assert capsys.readouterr().out == textwrap.dedent(
        """\
        seed = 7  # a.toml:1
        tag = "t"  # --tag

        [trainer.optim]
        lr = 1e-05  # $RL_TRAINER__OPTIM__LR
        """
    )


def test_the_show_command_reads_no_variable_without_the_option(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.toml", "seed = 7\n")
    monkeypatch.setenv("RL_TAG", "x")
    assert main(["show", "@", "a.toml"]) == 0
    assert capsys.readouterr().out == "seed = 7\n"


def test_the_explain_command_lists_the_environment_first(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.toml", FILE)
    monkeypatch.setenv("RL_TRAINER__OPTIM__LR", "1e-5")
    argv = ["trainer.optim.lr", "@", "a.toml", "--trainer.optim.lr", "0.1"]
    assert main(["explain", "--env-prefix", "RL_", "--schema", "schemas:RLConfig", *argv]) == 0
    assert capsys.readouterr().out == textwrap.dedent(
        """\
        --trainer.optim.lr
          $RL_TRAINER__OPTIM__LR       1e-05
          a.toml:4                     0.5
          --trainer.optim.lr           0.1
          => 0.1 (from --trainer.optim.lr)
        """
    )


def test_the_diff_command_compares_with_the_environment(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.toml", "seed = 7\n")
    monkeypatch.setenv("RL_MAX_STEPS", "5")
    assert main(["diff", "--env-prefix", "RL_", "@", "a.toml", "--", "--max-steps", "6"]) == 1
    assert capsys.readouterr().out == (
        "--max_steps: 5 ($RL_MAX_STEPS) -> 6 (--max-steps)\n--seed: 7 (a.toml:1) -> (unset)\n"
    )


def test_the_compose_command_warns_once_per_variable(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`explain` composes the same nodes once per stage; the warning is printed once."""
    write("a.toml", FILE)
    monkeypatch.setenv("RL_SEEED", "3")
    assert main(["explain", "--env-prefix", "RL_", "--schema", "schemas:RLConfig", "seed"]) == 0
    assert capsys.readouterr().err == (
        "warning: $RL_SEEED names no field; did you mean $RL_SEED?\n"
    )


# --- without a schema ------------------------------------------------------------------------


def test_without_a_schema_every_variable_is_a_key_path(write: WriteFile) -> None:
    """Nothing to check names against: each variable sets its key path, typed as TOML types a
    schema-less flag's text; files still override."""
    write("a.toml", "[a]\nc = 'file'\n")
    environ = {
        "APP_A__B": "1",
        "APP_A__C": "env",
        "APP_LIST": "[1, 2]",
        "APP_FLAG": "true",
        "APP_NOTHING": "None",
        "APP_NAME": "hello world",
    }
    assert compose(["a.toml"], env_prefix="APP_", environ=environ) == {
        "a": {"b": 1, "c": "file"},
        "flag": True,
        "list": [1, 2],
        "name": "hello world",
        "nothing": None,
    }


# --- entrypoints --------------------------------------------------------------------------


ENTRYPOINT = textwrap.dedent(
    """
    from compose import cli
    from schemas import RLConfig

    config = cli(RLConfig, env_prefix="RL_")
    print("seed", config.seed, "lr", config.trainer.optim.lr)
    """
)


Entrypoint = Callable[..., tuple[int, str, str]]


@pytest.fixture
def entrypoint(tmp_path: Path) -> Entrypoint:
    """Run a real entrypoint process with extra environment variables: (code, out, err)."""
    script = tmp_path / "rl.py"
    script.write_text(ENTRYPOINT)

    def run(argv: list[str], **environ: str) -> tuple[int, str, str]:
        command = [sys.executable, str(script), *argv]
        return run_command(command, env=environ_with_tests(**environ), cwd=tmp_path)

    return run


def test_an_entrypoint_process_reads_its_variables(entrypoint: Entrypoint) -> None:
    done = entrypoint(["--seed", "5"], RL_SEED="3", RL_TRAINER__OPTIM__LR="1e-5")
    assert done == (0, "seed 5 lr 1e-05\n", "")


def test_an_entrypoint_process_warns_and_runs(entrypoint: Entrypoint) -> None:
    assert entrypoint([], RL_SEDE="3") == (
        0,
        "seed 42 lr 0.0001\n",
        "warning: $RL_SEDE names no field; did you mean $RL_SEED?\n",
    )


def test_an_entrypoint_process_rejects_a_bad_variable(entrypoint: Entrypoint) -> None:
    code, out, err = entrypoint([], RL_SEED="many")
    assert (code, out) == (2, "")
    assert err == (
        "error: --seed = 'many' (from $RL_SEED): "
        "Input should be a valid integer, unable to parse string as an integer\n"
    )


def test_the_example_app_reads_rl_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RL_TRAINER__OPTIM__LR", "1e-5")
    monkeypatch.setenv("RL_OUTPUT_DIR", str(tmp_path))
    app.rl(["--dry-run"])
    written = (tmp_path / "configs" / "trainer.toml").read_text()
    assert "lr = 1e-05" in written
    assert capsys.readouterr().err == ""


def test_a_component_reads_its_own_prefix_and_ignores_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`trainer` reads `RL_TRAINER__*` (the same names `rl` reads for its trainer section) and
    neither reads nor warns about another component's variables."""
    monkeypatch.setenv("RL_TRAINER__OPTIM__LR", "1e-5")
    monkeypatch.setenv("RL_ORCHESTRATOR__BATCH_SIZE", "8")
    app.trainer(["--dry-run", "--output-dir", str(tmp_path)])
    assert "lr = 1e-05" in (tmp_path / "configs" / "trainer.toml").read_text()
    assert capsys.readouterr().err == ""


def test_a_renamed_field_through_a_variable_warns(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("RL_CLEAN_OUTPUT_DIR", "true")
    app.rl(["--dry-run", "--output-dir", str(tmp_path)])
    assert capsys.readouterr().err == (
        "warning: `clean_output_dir` is renamed to `clean`; found in $RL_CLEAN_OUTPUT_DIR\n"
    )


def test_the_test_schema_entrypoint_ignores_the_environment(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An app that does not opt in (`run_cli` passes no prefix) never sees the variables."""
    monkeypatch.setenv("RL_SEED", "not even an int")
    assert run_cli(["--seed", "1"], capsys) == (0, "", "")


@pytest.mark.parametrize(
    ("switch", "read"), [("1", False), ("yes", False), ("0", True), ("", True)]
)
def test_compose_no_env_turns_the_layer_off(switch: str, read: bool) -> None:
    """What a sweep's job sets (`COMPOSE_NO_ENV=1`): it composes its record, nothing the
    node's own variables would add; empty or 0 leaves the layer on."""
    config = rl([], RL_SEED="3", COMPOSE_NO_ENV=switch)
    assert config.seed == (3 if read else RLConfig().seed)
