"""The `compose` command as people read it (issue 39): help within 80 columns, each
subcommand's own help, and one rule for options given after the operands.

The `compose` subcommands' help and the options they accept come from one table
(`compose._cli.usage.SUBCOMMANDS`): these tests walk the table, so a subcommand or an option
added to it is checked here without a new test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from conftest import run_compose

from compose._cli.command import COMMAND_OPTIONS, split_options
from compose._cli.usage import BY_NAME, SUBCOMMANDS, Option
from compose.errors import ArgvError

if TYPE_CHECKING:
    from conftest import WriteFile

WIDTH = 80


def _too_wide(text: str, width: int = WIDTH) -> list[str]:
    return [line for line in text.splitlines() if len(line) > width]


def _help_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code, out, err = run_compose(capsys, *argv)
    assert (code, err) == (0, ""), argv
    return out


# --- compose --help and each subcommand's help ---------------------------------------------


@pytest.mark.parametrize("argv", [[], ["--help"], ["-h"], ["help"]])
def test_compose_help_fits_80_columns_and_lists_every_option(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """It was fixed text with lines up to 93 columns, and left out `check --search-path`."""
    out = _help_of(capsys, *argv)
    assert _too_wide(out) == []
    flat = " ".join(out.split())
    for command in SUBCOMMANDS:
        synopsis = " ".join(command.synopsis).removeprefix("compose ")
        assert f" {synopsis} " in flat, synopsis
    assert "[--search-path DIR] [--quiet] PATH..." in flat  # `check` takes it


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_each_subcommand_has_its_own_help_three_ways(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`compose show --help` printed the global help: each command prints its own, however
    it is asked for."""
    shown = {
        tuple(argv): _help_of(capsys, *argv)
        for argv in ([name, "--help"], [name, "-h"], ["help", name])
    }
    assert len(set(shown.values())) == 1, shown.keys()
    out = next(iter(shown.values()))
    assert out != _help_of(capsys, "--help")
    assert out.startswith(f"usage: compose {name} ")
    assert _too_wide(out) == []
    lines = out.splitlines()
    command = BY_NAME[name]
    for option in command.options:  # each option, with its line saying what it does
        head = f"  {option.name} {option.metavar}".rstrip()
        line = next(line for line in lines if line.startswith(head + " "))
        assert line.endswith(f"  {option.help}"), line
    assert lines[lines.index("example:") + 1] == f"  compose {command.example}"


def test_help_of_an_unknown_command_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_compose(capsys, "help", "shwo")
    assert (code, out) == (2, "")
    assert err.startswith("error: 'shwo': unknown command; commands: show, explain, diff")


def test_help_after_the_operands_is_the_commands_help(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.toml", "x = 1\n")
    assert _help_of(capsys, "show", "@", "a.toml", "--help") == _help_of(capsys, "help", "show")


def test_the_options_of_the_table_are_the_options_the_parser_takes() -> None:
    """`COMMAND_OPTIONS` is the table's, and the parser accepts every option of it (a flag as
    a flag, a valued option with its value), in the order the table lists them."""
    assert {c.name: frozenset(o.name for o in c.options) for c in SUBCOMMANDS} == COMMAND_OPTIONS
    for command in SUBCOMMANDS:
        argv = [token for option in command.options for token in _given(option)]
        options = split_options([*argv, "operand"], command)
        assert options.rest == ["operand"]
        for option in command.options:
            if not option.metavar:
                assert option.name in options.flags
            elif option.repeated:
                assert options.repeated[option.name] == [_value(option)]
            else:
                assert options.values[option.name] == _value(option)


def _value(option: Option) -> str:
    return f"value-of-{option.name.removeprefix('--')}"


def _given(option: Option) -> list[str]:
    return [option.name, _value(option)] if option.metavar else [option.name]


# --- options after the operands: one rule for every subcommand ------------------------------

_OPERANDS = {  # what each subcommand with options takes after them, in this test's files
    "show": ["@", "a.toml"],
    "explain": ["x", "@", "a.toml"],
    "diff": ["@", "a.toml", "--", "@", "a.toml"],
    "check": ["a.toml"],
    "migrate": ["a.toml"],
}
LATE = [(command.name, option) for command in SUBCOMMANDS for option in command.options]


def test_every_subcommand_with_options_is_in_this_test() -> None:
    assert {command.name for command in SUBCOMMANDS if command.options} == set(_OPERANDS)


@pytest.mark.parametrize(
    ("name", "option"), LATE, ids=[f"{name} {option.name}" for name, option in LATE]
)
@pytest.mark.parametrize("spelling", ["apart", "joined"])
def test_an_option_after_the_operands_is_an_error_naming_it(
    name: str,
    option: Option,
    spelling: str,
    write: WriteFile,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`compose show @ f.toml --origins` exited 0 with `origins = true` in the config: an
    option of the command given after its operands is an error, whatever it is and however it
    is spelt, saying that options come first."""
    write("a.toml", "x = 1\n")
    given = _given(option) if spelling == "apart" else [f"{option.name}={_value(option)}"]
    before = ["--schema", "nowhere:Nothing"] if option.required and name == "migrate" else []
    code, out, err = run_compose(capsys, name, *before, *_OPERANDS[name], *given)
    assert (code, out) == (2, "")
    assert err.startswith(f"error: {option.name}: is given after "), err
    assert "options come first" in err
    assert f"compose {name} {option.name} ... {BY_NAME[name].operands}" in err


def test_after_double_dash_an_option_name_is_a_config_key(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    """The way to set a key named like an option, as the help and the error say."""
    write("a.toml", "x = 1\n")
    out = _help_of(capsys, "show", "--", "@", "a.toml", "--schema", "public", "--origins")
    assert out == 'x = 1\nschema = "public"\norigins = true\n'
    code, out, _ = run_compose(
        capsys, "diff", "--", "@", "a.toml", "--format", "a", "--", "@", "a.toml", "--format", "b"
    )
    assert (code, out) == (1, "--format: 'a' (--format) -> 'b' (--format)\n")
    code, out, _ = run_compose(capsys, "explain", "--", "resolved", "@", "a.toml", "--resolved")
    assert code == 0
    assert out.splitlines()[-1] == "  => True (from --resolved)"


def test_an_option_of_another_subcommand_is_an_error_naming_it(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.toml", "x = 1\n")
    code, out, err = run_compose(capsys, "show", "--quiet", "@", "a.toml")
    assert (code, out) == (2, "")
    assert err == "error: --quiet: is not an option of compose show\n"


def test_a_flag_given_a_value_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    """`--resolved=1` went to ARGV as a config key."""
    code, out, err = run_compose(capsys, "show", "--resolved=1", "@", "a.toml")
    assert (code, out) == (2, "")
    assert err == "error: --resolved = '1': is a flag: it takes no value\n"


@pytest.mark.parametrize(
    ("command", "option"),
    [
        (command.name, option.name)
        for command in SUBCOMMANDS
        for option in command.options
        if option.metavar and not option.repeated
    ],
)
def test_a_valued_option_given_twice_is_an_error(command: str, option: str) -> None:
    """`--hydra a:b --hydra c:d` kept the last one silently: which was meant cannot be told."""
    with pytest.raises(ArgvError) as caught:
        split_options([option, "first", option, "second"], BY_NAME[command])
    assert (caught.value.key, caught.value.value) == (option, "second")
    assert "'first'" in caught.value.message


def test_a_repeatable_option_given_twice_keeps_both() -> None:
    options = split_options(["--search-path", "a", "--search-path", "b"], BY_NAME["show"])
    assert options.repeated["--search-path"] == ["a", "b"]


def test_after_double_dash_a_path_may_look_like_an_option(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("--quiet", "x = 1\n")  # a file whose name is an option's
    code, out, err = run_compose(capsys, "check", "--", "--quiet")
    assert (code, err) == (1, "")  # judged as a file: no schema says what it is
    assert out.startswith("--quiet: fits no declared role; give --schema MODULE:CLASS")


def test_commands_without_options_refuse_a_token_like_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run_compose(capsys, "status", "runs", "--sweep-dir")
    assert (code, out) == (2, "")
    assert err == "error: --sweep-dir: is not an option of compose status; options: none\n"
