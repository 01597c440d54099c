"""The `compose` command: show, explain, diff, schema (contract §5, §7; issue 4).

Most tests call `compose._cli.command.main(argv)` and read its exit code and output with capsys
(stdout is not a terminal there, so the output is plain); two run the installed console script
in a subprocess. Bad input in any subcommand exits 2 with one `error: ...` line on stderr.
"""

from __future__ import annotations

import io
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import tomli
from conftest import COMPOSE, run_command, run_compose

from compose._cli.command import main

if TYPE_CHECKING:
    from conftest import WriteFile

APP_SCHEMA = '''
from typing import Callable

from compose import BaseConfig


class Trainer(BaseConfig):
    lr: float = 1e-4
    steps: int = 1


class Ckpt(BaseConfig):
    interval: int = 100
    keep: int | None = None


class App(BaseConfig):
    """A tiny application."""

    seed: int = 0
    name: str = "run"
    tag: str | None = "t"
    trainer: Trainer = Trainer()
    ckpt: Ckpt | None = None


class NotForJson(BaseConfig):
    """A valid config class that has no JSON Schema (a callable field)."""

    hook: Callable[[int], int] = abs


def helper() -> None:
    """Not a config class."""
'''

BASE = """
seed = 3
name = "run-${seed}"
tag = "None"

[trainer]
lr = 1e-3
steps = 10
"""

OVERRIDE = """
[trainer]
lr = 2e-3
"""

BROKEN = "seed = 3\n[trainer\n"
TYPO = "[trainer]\nlrr = 1\n"


@pytest.fixture
def files(write: WriteFile) -> Iterator[None]:
    """base.toml, override.toml, broken.toml, typo.toml and app_schema.py in the working
    directory."""
    write("base.toml", BASE)
    write("override.toml", OVERRIDE)
    write("broken.toml", BROKEN)
    write("typo.toml", TYPO)
    write("app_schema.py", APP_SCHEMA)
    saved_path = list(sys.path)
    yield
    sys.path[:] = saved_path  # load_schema puts the working directory on the path
    for name in ("app_schema", "boom_schema"):
        sys.modules.pop(name, None)


def ok(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """stdout of a command that must succeed silently on stderr."""
    code, out, err = run_compose(capsys, *argv)
    assert (code, err) == (0, ""), err
    return out


# --- show --------------------------------------------------------------------------------------


def test_show_prints_the_merge_with_interpolations_as_written(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ok(capsys, "show", "@", "base.toml", "@", "override.toml", "--trainer.steps", "5")
    assert out == (
        'seed = 3\nname = "run-${seed}"\ntag = "None"\n\n[trainer]\nlr = 0.002\nsteps = 5\n'
    )


def test_show_resolved_resolves_interpolations_without_adding_defaults(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ok(capsys, "show", "--resolved", "@", "base.toml", "--seed", "4")
    assert out == ('seed = 4\nname = "run-4"\ntag = "None"\n\n[trainer]\nlr = 0.001\nsteps = 10\n')


def test_show_with_a_schema_but_unresolved_shows_only_what_the_nodes_set(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ok(capsys, "show", "--schema", "app_schema:App", "@", "base.toml", "--ckpt.keep", "2")
    assert out == (
        "seed = 3\n"
        'name = "run-${seed}"\n'
        'tag = "None"\n'
        "\n"
        "[trainer]\n"
        "lr = 0.001\n"
        "steps = 10\n"
        "\n"
        "[ckpt]\n"
        "keep = 2\n"
    )


def test_show_resolved_with_a_schema_validates_and_fills_in_defaults(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ok(capsys, "show", "--resolved", "--schema", "app_schema:App", "--trainer.lr", "0.5")
    assert out == (
        'seed = 0\nname = "run"\ntag = "t"\nckpt = "None"\n\n[trainer]\nlr = 0.5\nsteps = 1\n'
    )


def test_show_resolved_output_reloads_to_the_same_model(
    files: None, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["--resolved", "--schema", "app_schema:App", "@", "base.toml", "--ckpt.keep", "None"]
    first = ok(capsys, "show", *argv)
    (tmp_path / "dump.toml").write_text(first, encoding="utf-8")
    assert ok(capsys, "show", "--resolved", "--schema", "app_schema:App", "@", "dump.toml") == first


def test_show_validates_with_a_schema(files: None, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_compose(
        capsys, "show", "--resolved", "--schema", "app_schema:App", "--seed", "x"
    )
    assert (code, out) == (2, "")
    assert err == (
        "error: --seed = 'x': "
        "Input should be a valid integer, unable to parse string as an integer\n"
    )


def test_show_json_writes_none_as_null(files: None, capsys: pytest.CaptureFixture[str]) -> None:
    raw = json.loads(ok(capsys, "show", "--format", "json", "@", "base.toml"))
    assert raw == {
        "seed": 3,
        "name": "run-${seed}",
        "tag": None,
        "trainer": {"lr": 0.001, "steps": 10},
    }
    resolved = ok(
        capsys,
        "show",
        "--format=json",
        "--resolved",
        "--schema",
        "app_schema:App",
        "@",
        "base.toml",
    )
    assert json.loads(resolved) == {
        "seed": 3,
        "name": "run-3",
        "tag": None,
        "trainer": {"lr": 0.001, "steps": 10},
        "ckpt": None,
    }
    assert '"tag": null' in resolved
    assert "None" not in resolved


def test_show_json_keeps_a_none_inside_lists_and_dicts_as_null(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ok(
        capsys, "show", "--format", "json", "--resolved", "--l", '[1, "None"]', "--d.k", "None"
    )
    assert json.loads(out) == {"l": [1, None], "d": {"k": None}}


ORIGINS_ARGV = (
    "--resolved",
    "--schema",
    "app_schema:App",
    "@",
    "base.toml",
    "@",
    "override.toml",
    "--trainer.steps",
    "5",
    "--ckpt.keep",
    "2",
)


def test_show_origins_annotates_every_leaf_and_stays_valid_toml(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ok(capsys, "show", "--origins", *ORIGINS_ARGV)
    assert out == (
        "seed = 3  # base.toml:1\n"
        'name = "run-3"  # base.toml:2\n'
        'tag = "None"  # base.toml:3\n'
        "\n"
        "[trainer]\n"
        "lr = 0.002  # override.toml:2\n"
        "steps = 5  # --trainer.steps\n"
        "\n"
        "[ckpt]\n"
        "interval = 100  # default\n"
        "keep = 2  # --ckpt.keep\n"
    )
    leaf_lines = [line for line in out.splitlines() if line and not line.startswith("[")]
    assert all(re.search(r"  # \S+$", line) for line in leaf_lines)
    assert tomli.loads(out) == tomli.loads(ok(capsys, "show", *ORIGINS_ARGV))


def test_show_origins_marks_class_defaults(files: None, capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, "show", "--origins", "--resolved", "--schema", "app_schema:App")
    assert out == (
        "seed = 0  # default\n"
        'name = "run"  # default\n'
        'tag = "t"  # default\n'
        'ckpt = "None"  # default\n'
        "\n"
        "[trainer]\n"
        "lr = 0.0001  # default\n"
        "steps = 1  # default\n"
    )


def test_show_origins_of_a_section_enabled_by_a_bare_flag_are_defaults(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--ckpt` turns the section on; its fields keep their class defaults (so does `--help`)."""
    out = ok(capsys, "show", "--origins", "--resolved", "--schema", "app_schema:App", "--ckpt")
    assert "[ckpt]" in out
    assert "interval = 100  # default\n" in out
    assert 'keep = "None"  # default\n' in out


def test_show_origins_of_an_array_of_tables(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("envs.toml", '[[env]]\nid = "a"\n\n[[env]]\nid = "b"\nweight = 2\n')
    out = ok(capsys, "show", "--origins", "@", "envs.toml", "--env.1.id", "c")
    assert out == (
        '[[env]]\nid = "a"  # envs.toml:2\n'
        "\n"
        '[[env]]\nid = "c"  # --env.1.id\nweight = 2  # envs.toml:6\n'
    )
    assert tomli.loads(out) == {"env": [{"id": "a"}, {"id": "c", "weight": 2}]}


def test_show_origins_in_json_is_an_object_of_dotted_keys(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(ok(capsys, "show", "--origins", "--format", "json", *ORIGINS_ARGV))
    assert data.pop("origins") == {
        "seed": "base.toml:1",
        "name": "base.toml:2",
        "tag": "base.toml:3",
        "trainer.lr": "override.toml:2",
        "trainer.steps": "--trainer.steps",
        "ckpt.interval": "default",
        "ckpt.keep": "--ckpt.keep",
    }
    assert data == {
        "seed": 3,
        "name": "run-3",
        "tag": None,
        "trainer": {"lr": 0.002, "steps": 5},
        "ckpt": {"interval": 100, "keep": 2},
    }


def test_show_json_origins_refuses_a_config_with_an_origins_key(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("o.toml", "origins = 1\n")
    code, out, err = run_compose(capsys, "show", "--format", "json", "--origins", "@", "o.toml")
    assert (code, out) == (2, "")
    assert err == 'error: the config has a key "origins": use --format toml with --origins\n'


def test_double_dash_ends_the_commands_own_options(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ok(capsys, "show", "--", "--resolved", "--origins", "--format", "json")
    assert out == 'resolved = true\norigins = true\nformat = "json"\n'


def test_an_option_after_argv_is_an_error_and_after_double_dash_a_key(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--origins` after ARGV was silently a config key `origins = true`: it is an error saying
    options come first, and the key is set after `--` (tests/cli/test_usage.py: every option)."""
    code, out, err = run_compose(capsys, "show", "--resolved", "@", "base.toml", "--origins")
    assert (code, out) == (2, "")
    assert err.startswith("error: --origins: is given after ARGV: options come first; ")
    out = ok(capsys, "show", "--resolved", "--", "@", "base.toml", "--origins")
    assert "origins = true\n" in out
    assert "#" not in out


def test_show_on_a_terminal_highlights_without_losing_text(
    files: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a terminal the output is highlighted, but never cropped or wrapped: it stays the
    same TOML once the colour codes are removed."""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("COLUMNS", "60")
    monkeypatch.delenv("NO_COLOR", raising=False)
    long_value = "x" * 150
    plain = ok(capsys, "show", "@", "base.toml", "--tag", long_value)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    assert main(["show", "@", "base.toml", "--tag", long_value]) == 0
    shown = re.sub(r"\x1b\[[0-9;]*m", "", terminal.getvalue())
    assert [line.rstrip() for line in shown.rstrip("\n").splitlines()] == plain.splitlines()


# --- explain -----------------------------------------------------------------------------------


def test_explain_lists_every_node_that_set_the_key_in_order_and_the_winner(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ok(
        capsys,
        "explain",
        "trainer.lr",
        "@",
        "base.toml",
        "@",
        "override.toml",
        "--trainer.lr",
        "0.5",
    )
    assert out == (
        "--trainer.lr\n"
        "  base.toml:6                  0.001\n"
        "  override.toml:2              0.002\n"
        "  --trainer.lr                 0.5\n"
        "  => 0.5 (from --trainer.lr)\n"
    )


def test_explain_takes_the_key_in_cli_form_too(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ("@", "base.toml", "@", "override.toml")
    assert ok(capsys, "explain", "--trainer.lr", *argv) == ok(
        capsys, "explain", "trainer.lr", *argv
    )


def test_explain_with_a_schema_follows_section_files(
    files: None, write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("trainer.toml", "lr = 0.25\n")
    out = ok(
        capsys,
        "explain",
        "--schema",
        "app_schema:App",
        "trainer.lr",
        "@",
        "base.toml",
        "--trainer",
        "@",
        "trainer.toml",
    )
    assert out == (
        "--trainer.lr\n"
        "  base.toml:6                  0.001\n"
        "  trainer.toml:1               0.25\n"
        "  => 0.25 (from trainer.toml:1)\n"
    )


def test_explain_shows_an_interpolation_as_written(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ok(capsys, "explain", "name", "@", "base.toml")
    assert out == (
        "--name\n"
        "  base.toml:2                  'run-${seed}'\n"
        "  => 'run-${seed}' (from base.toml:2), resolved: 'run-3'\n"
    )


def test_explain_lists_a_node_that_sets_the_value_already_there(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """The chain is every node that set the key, not only those that changed it: here the
    winner, --trainer.lr, sets the value base.toml set."""
    out = ok(
        capsys, "explain", "trainer.lr", "@", "base.toml", "@", "base.toml", "--trainer.lr", "1e-3"
    )
    assert out == (
        "--trainer.lr\n"
        "  base.toml:6                  0.001\n"
        "  base.toml:6                  0.001\n"
        "  --trainer.lr                 0.001\n"
        "  => 0.001 (from --trainer.lr)\n"
    )


def test_explain_names_a_deletion_and_the_default_it_leaves(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ok(
        capsys,
        "explain",
        "--schema",
        "app_schema:App",
        "trainer.lr",
        "@",
        "base.toml",
        "~trainer.lr",
    )
    lines = out.splitlines()
    assert lines[1].split() == ["base.toml:6", "0.001"]
    assert lines[2].split()[0] == "~trainer.lr"
    assert lines[-1] == "  => 0.0001 (from default)"


def test_explain_with_a_schema_shows_the_default_that_wins(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ok(capsys, "explain", "--schema", "app_schema:App", "trainer.steps", "@", "override.toml")
    assert out.splitlines()[-1] == "  => 1 (from default)"


def test_explain_of_a_key_no_node_sets_without_a_schema(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ok(capsys, "explain", "nokey", "@", "base.toml")
    assert out == ("--nokey\n  default                      (no node sets it)\n  => (unset)\n")


# --- diff --------------------------------------------------------------------------------------


def test_diff_prints_the_leaves_that_differ_with_origins_and_exits_1(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_compose(
        capsys,
        "diff",
        "@",
        "base.toml",
        "--",
        "@",
        "base.toml",
        "@",
        "override.toml",
        "--trainer.steps",
        "5",
        "--extra",
        "1",
    )
    assert (code, err) == (1, "")
    assert out == (
        "--trainer.lr: 0.001 (base.toml:6) -> 0.002 (override.toml:2)\n"
        "--trainer.steps: 10 (base.toml:7) -> 5 (--trainer.steps)\n"
        "--extra: (unset) -> 1 (--extra)\n"
    )


def test_diff_of_equal_compositions_says_so_and_exits_0(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_compose(
        capsys,
        "diff",
        "@",
        "base.toml",
        "--trainer.lr",
        "2e-3",
        "--",
        "@",
        "base.toml",
        "@",
        "override.toml",
    )
    assert (code, out, err) == (0, "no differences\n", "")


def test_diff_resolved_compares_resolved_values(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ("@", "base.toml", "--seed", "1", "--", "@", "base.toml", "--seed", "2")
    code, raw, _ = run_compose(capsys, "diff", *argv)
    assert (code, raw) == (1, "--seed: 1 (--seed) -> 2 (--seed)\n")
    code, resolved, _ = run_compose(capsys, "diff", "--resolved", *argv)
    assert code == 1
    assert resolved == (
        "--seed: 1 (--seed) -> 2 (--seed)\n--name: 'run-1' (base.toml:2) -> 'run-2' (base.toml:2)\n"
    )


def test_diff_resolved_with_a_schema_sees_defaults(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Setting a value to its default is no difference once defaults are filled in."""
    code, out, _ = run_compose(capsys, "diff", "--schema", "app_schema:App", "--seed", "0", "--")
    assert (code, out) == (1, "--seed: 0 (--seed) -> (unset)\n")
    code, out, _ = run_compose(
        capsys, "diff", "--resolved", "--schema", "app_schema:App", "--seed", "0", "--"
    )
    assert (code, out) == (0, "no differences\n")


def test_diff_shows_none_as_none_not_as_the_text_none(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """A resolved, validated side holds None; the string 'None' would be another value."""
    argv = ("--seed", "0", "--", "--seed", "0", "--tag", "None")
    code, out, _ = run_compose(capsys, "diff", "--resolved", "--schema", "app_schema:App", *argv)
    assert (code, out) == (1, "--tag: 't' (default) -> None (--tag)\n")


def test_diff_of_nan_and_nan_is_no_difference(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """NaN never equals itself; a config holding it (a float field, a list) is no different
    from one holding it too."""
    argv = ("--x", "nan", "--l", "[1.0, NaN]", "--", "--x", "nan", "--l", "[1.0, NaN]")
    assert run_compose(capsys, "diff", "--resolved", *argv)[:2] == (0, "no differences\n")
    assert run_compose(capsys, "diff", *argv)[:2] == (0, "no differences\n")


# --- schema ------------------------------------------------------------------------------------


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def test_schema_prints_the_json_schema_of_a_config_class(
    files: None, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = json.loads(ok(capsys, "schema", "app_schema:App"))
    assert schema["type"] == "object"
    assert schema["title"] == "App"
    assert schema["additionalProperties"] is False  # editors flag unknown keys
    assert list(schema["properties"]) == ["seed", "name", "tag", "trainer", "ckpt"]
    assert schema["properties"]["seed"] == {"default": 0, "title": "Seed", "type": "integer"}
    assert {"type": "null"} in schema["properties"]["tag"]["anyOf"]
    assert sorted(schema["$defs"]) == ["Ckpt", "Trainer"]
    for ref in _refs(schema):
        assert ref.startswith("#/$defs/")
        assert ref.removeprefix("#/$defs/") in schema["$defs"]


def test_schema_of_a_discriminated_union(files: None, capsys: pytest.CaptureFixture[str]) -> None:
    """The tests folder is importable: `schemas:RLConfig` is the test suite's RL schema."""
    schema = json.loads(ok(capsys, "schema", "schemas:RLConfig"))
    optim = schema["$defs"]["TrainerConfig"]["properties"]["optim"]
    assert optim["discriminator"]["propertyName"] == "type"
    assert sorted(optim["discriminator"]["mapping"]) == ["adamw", "muon"]
    for ref in _refs(schema):
        assert ref.removeprefix("#/$defs/") in schema["$defs"]


# --- usage and help ----------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [[], ["--help"], ["-h"], ["help"]])
def test_usage(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    out = ok(capsys, *argv)
    assert out.startswith("usage: compose COMMAND [OPTIONS] OPERANDS...\n")
    for command in ("show", "explain", "diff", "schema"):
        assert f"\n  {command} " in out


@pytest.mark.parametrize("command", ["show", "explain", "diff"])
def test_help_after_a_subcommand_prints_usage(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`compose show --help` must not print an empty composition (or explain a key "--help")."""
    out = ok(capsys, command, "--help")
    assert "usage:" in out


# --- bad input ---------------------------------------------------------------------------------

BAD_INPUT = [
    (["show", "@", "missing.toml"], "missing.toml: file not found"),
    (["show", "@", "broken.toml"], "broken.toml:2:9: invalid TOML"),
    (
        ["show", "--schema", "app_schema:App", "@", "base.toml", "--trainer.lrr", "1"],
        "--trainer.lrr = '1': unknown key; did you mean --trainer.lr?",
    ),
    (
        ["show", "--resolved", "--schema", "app_schema:App", "--trainer.lrr", "1"],
        "--trainer.lrr = '1': unknown key; did you mean --trainer.lr?",
    ),
    (
        ["show", "--resolved", "--schema", "app_schema:App", "@", "typo.toml"],
        "--trainer.lrr = 1 (from typo.toml:2): unknown key; did you mean --trainer.lr?",
    ),
    # With a schema, an unknown key in a file is an error even when nothing is resolved.
    (
        ["show", "--schema", "app_schema:App", "@", "typo.toml"],
        "--trainer.lrr = 1 (from typo.toml:2): unknown key; did you mean --trainer.lr?",
    ),
    (["show", "--resolved", "--tag", "${nope}"], "interpolation ${nope}: key nope not found"),
    (["frobnicate", "@", "base.toml"], "'frobnicate': unknown command"),
    (["show", "--schema", "no_such_module:App"], "cannot import no_such_module"),
    (["show", "--schema", "app_schema:Nope"], "app_schema has no config class Nope"),
    (["show", "--schema", "app_schema:helper"], "app_schema has no config class helper"),
    (["show", "--schema", "app_schema"], "--schema = 'app_schema': expects MODULE:CLASS"),
    (["show", "--schema", "boom_schema:App"], "cannot import boom_schema: boom"),
    (["show", "--schema"], "--schema: expects a value"),
    (["show", "--format", "yaml", "@", "base.toml"], "--format = 'yaml': expects toml or json"),
    (["show", "--format"], "--format: expects a value"),
    (["explain"], "explain: expects a KEY"),
    (["explain", "--schema", "app_schema:App", "trainer.lrr"], "did you mean --trainer.lr?"),
    (["explain", "trainer.lr", "@", "missing.toml"], "missing.toml: file not found"),
    (["explain", "--schema", "app_schema:App", "seed", "@", "broken.toml"], "invalid TOML"),
    (["explain", "--schema", "app_schema:Nope", "seed"], "has no config class Nope"),
    (
        ["explain", "--schema", "app_schema:App", "seed", "@", "typo.toml"],
        "--trainer.lrr = 1 (from typo.toml:2): unknown key; did you mean --trainer.lr?",
    ),
    (["diff", "@", "base.toml"], "diff: expects LEFT... -- RIGHT..."),
    (["diff", "@", "missing.toml", "--", "@", "base.toml"], "missing.toml: file not found"),
    (["diff", "@", "base.toml", "--", "@", "broken.toml"], "invalid TOML"),
    (
        ["diff", "--schema", "app_schema:App", "--seed", "1", "--", "--sed", "2"],
        "did you mean --seed?",
    ),
    (
        ["diff", "--schema", "app_schema:App", "@", "typo.toml", "--"],
        "--trainer.lrr = 1 (from typo.toml:2): unknown key; did you mean --trainer.lr?",
    ),
    (["diff", "--format", "json", "@", "base.toml", "--", "@", "base.toml"], "--format"),
    (["schema"], "schema: expects MODULE:CLASS"),
    (["schema", "app_schema:App", "extra"], "schema: expects MODULE:CLASS"),
    (["schema", "no_such_module:App"], "cannot import no_such_module"),
    (["schema", "app_schema:Nope"], "app_schema has no config class Nope"),
    (["schema", "app_schema:NotForJson"], "NotForJson"),
]


@pytest.mark.parametrize(("argv", "expected"), BAD_INPUT, ids=[" ".join(a) for a, _ in BAD_INPUT])
def test_bad_input_exits_2_with_one_error_line(
    files: None,
    write: WriteFile,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    expected: str,
) -> None:
    write("boom_schema.py", 'raise RuntimeError("boom")\n')
    code, out, err = run_compose(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith("error: ")
    assert err.endswith("\n")
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    assert expected in err


def test_a_missing_file_is_named_as_typed_and_the_folder_it_was_looked_in(
    files: None, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _, _, err = run_compose(capsys, "show", "@", "conf/missing.toml")
    assert err == f"error: conf/missing.toml: file not found; looked in {tmp_path}\n"


# --- the installed console script ----------------------------------------------------------------


def test_the_console_script_shows_a_composition(files: None, tmp_path: Path) -> None:
    argv = [COMPOSE, "show", "--resolved", "--format", "json", "@", "base.toml", "--seed", "9"]
    code, out, err = run_command(argv, cwd=tmp_path)
    assert (code, err) == (0, "")
    assert json.loads(out)["name"] == "run-9"
    assert "\x1b" not in out  # piped: plain, no colour codes


def test_the_console_script_reports_bad_input_without_a_traceback(
    files: None, tmp_path: Path
) -> None:
    argv = [COMPOSE, "diff", "@", "base.toml", "--", "@", "broken.toml"]
    assert run_command(argv, cwd=tmp_path) == (
        2,
        "",
        "error: broken.toml:2:9: invalid TOML: Expected ']' at the end of a table declaration\n",
    )


def test_show_prints_warnings_as_lines_before_the_output(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.toml", "[trainer.optim]\nbetas = [0.8, 0.9]\n")
    write("b.toml", "[trainer.optim]\ntype = 'muon'\n")
    assert main(["show", "--schema", "schemas:RLConfig", "@", "a.toml", "@", "b.toml"]) == 0
    err = capsys.readouterr().err
    assert err == (
        "warning: --trainer.optim.betas (from a.toml:2) is dropped: "
        "--trainer.optim.type switched to 'muon', which has no such key\n"
    )


INTERRUPTED_SCHEMA = """
from pydantic import model_validator

from compose import BaseConfig


class Pressed(BaseConfig):
    steps: int = 1

    @model_validator(mode="after")
    def _pressed(self):
        raise KeyboardInterrupt  # the user presses Ctrl-C while the config is validated
"""


def test_ctrl_c_in_any_command_exits_130_without_a_traceback(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    """`compose show`, `diff`, `check`, `migrate`... meet Ctrl-C as an entrypoint does: one
    line, exit 130 (it was a KeyboardInterrupt traceback)."""
    write("interrupted_schema.py", INTERRUPTED_SCHEMA)
    saved_path = list(sys.path)
    try:
        code, out, err = run_compose(
            capsys, "show", "--schema", "interrupted_schema:Pressed", "--steps", "2"
        )
    finally:
        sys.path[:] = saved_path
        sys.modules.pop("interrupted_schema", None)
    assert (code, out, err) == (130, "", "interrupted\n")
