"""`compose`, `parse` and `cli` take the same options the same way (issue 20): keyword-only, the
same names, defaults and docstring wording, and the same meaning end to end, help included;
and the schema is accepted as `schema=` by each, with the type checker seeing its type."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compose import BaseConfig, HelpRequested, cli, compose, parse

OPTIONS = ("prog", "resolvers", "search_path", "env_prefix", "environ")
ENTRY_POINTS: dict[str, Callable[..., Any]] = {"compose": compose, "parse": parse, "cli": cli}

# What each option's docstring says, word for word, wherever the option is taken
SENTENCES = {
    "prog": "`prog` names the program in the help's usage line (default: the file name of "
    "`sys.argv[0]`).",
    "resolvers": "`resolvers` add interpolation resolvers for this call only, before the "
    "registered ones.",
    "search_path": "A file name not found as written is looked up in `search_path`, the "
    "working directory, then $COMPOSE_PATH.",
    "env_prefix": 'With `env_prefix` (`"RL_"`), the variables of `environ` (default '
    "`os.environ`) named with it are a node below the files and the flags or overrides "
    "(`RL_SECTION__FIELD=VALUE`).",
}


class Job(BaseConfig):
    """A job."""

    steps: int = 1
    """How many steps."""
    name: str = "job"


def taken(function: Callable[..., Any]) -> list[inspect.Parameter]:
    """The shared options `function` takes, in its order."""
    parameters = inspect.signature(function).parameters.values()
    return [p for p in parameters if p.name in OPTIONS]


# --- the same signature and words ---------------------------------------------------------------


def test_every_entry_point_takes_the_options_keyword_only_in_one_order() -> None:
    expected = {name: list(OPTIONS) for name in ENTRY_POINTS}
    expected["compose"] = [o for o in OPTIONS if o != "prog"]  # it draws no help
    for name, function in ENTRY_POINTS.items():
        assert [p.name for p in taken(function)] == expected[name], name
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in taken(function)), name


def test_the_options_have_the_same_defaults_and_annotations() -> None:
    reference = {p.name: p for p in taken(parse)}
    for name, function in ENTRY_POINTS.items():
        for parameter in taken(function):
            other = reference[parameter.name]
            assert parameter.default == other.default, (name, parameter.name)
            assert parameter.annotation == other.annotation, (name, parameter.name)


def test_the_docstrings_say_the_same_of_each_option() -> None:
    for name, function in ENTRY_POINTS.items():
        doc = " ".join(inspect.getdoc(function).split())  # type: ignore[union-attr]
        for option, sentence in SENTENCES.items():
            if any(p.name == option for p in taken(function)):
                assert sentence in doc, (name, option)


def test_parse_tells_how_to_catch_help_before_errors() -> None:
    doc = " ".join(inspect.getdoc(parse).split())  # type: ignore[union-attr]
    assert "except HelpRequested as h: print(h); sys.exit(h.exit_code)" in doc
    assert doc.index("except HelpRequested") < doc.index("except ComposeError")


# --- the same meaning ---------------------------------------------------------------------------


def run_cli(argv: list[str], **options: Any) -> Job:
    """`cli` as a test calls it: errors raised, as with pydantic-config's `args=`."""
    found: Job = cli(Job, args=argv, **options)
    return found


CALLS: dict[str, Callable[..., Job]] = {
    "compose": lambda argv, **options: compose([], schema=Job, **options),
    "parse": lambda argv, **options: parse(Job, argv, **options),
    "cli": run_cli,
}


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS)
def test_environ_is_read_instead_of_os_environ(
    call: Callable[..., Job], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JOB_STEPS", "5")
    assert call([], env_prefix="JOB_").steps == 5
    assert call([], env_prefix="JOB_", environ={"JOB_STEPS": "9"}).steps == 9
    assert call([], env_prefix="JOB_", environ={}).steps == 1


@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS)
def test_search_path_finds_a_file(call: Callable[..., Job], tmp_path: Path) -> None:
    (tmp_path / "conf").mkdir()
    (tmp_path / "conf" / "long.toml").write_text("steps = 30\n", encoding="utf-8")
    found: dict[str, Callable[[], Job]] = {
        "compose": lambda: compose(["long.toml"], schema=Job, search_path=[tmp_path / "conf"]),
        "parse": lambda: parse(Job, ["@", "long.toml"], search_path=[tmp_path / "conf"]),
        "cli": lambda: run_cli(["@", "long.toml"], search_path=[tmp_path / "conf"]),
    }
    assert all(each().steps == 30 for each in found.values())


def cli_help(argv: list[str], capsys: pytest.CaptureFixture[str], **options: Any) -> str:
    with pytest.raises(SystemExit) as exited:
        cli(Job, argv, plain=True, **options)
    assert exited.value.code == 0
    out: str = capsys.readouterr().out
    return out


def parse_help(argv: list[str], **options: Any) -> str:
    with pytest.raises(HelpRequested) as asked:
        parse(Job, argv, **options)
    return asked.value.text


@pytest.mark.parametrize(
    "options",
    [
        {"prog": "job"},
        {"prog": "job", "env_prefix": "JOB_"},
        {"prog": "job", "env_prefix": "JOB_", "environ": {"JOB_STEPS": "7"}},
        {"prog": "job", "env_prefix": "JOB_", "environ": {}},
        {"prog": "job", "default": Job(name="base")},
        {"prog": "job", "default": Job(name="base"), "env_prefix": "JOB_", "environ": {}},
    ],
    ids=["prog", "env_prefix", "environ", "empty environ", "default", "default and environ"],
)
@pytest.mark.parametrize("argv", [["--help"], ["--steps", "3", "--help"]], ids=["bare", "after"])
def test_cli_prints_the_help_parse_raises(
    options: dict[str, Any],
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whatever the options, `cli` prints the help that `parse` gives: a bare `--help` that
    `cli` draws itself included (it must not forget `default` or `environ`)."""
    monkeypatch.setenv("JOB_STEPS", "4")  # read only without environ=
    assert cli_help(argv, capsys, **options) == parse_help(argv, **options)


def test_help_shows_what_environ_and_default_set(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JOB_STEPS", "4")
    text = cli_help(["--help"], capsys, env_prefix="JOB_", environ={"JOB_STEPS": "7"})
    assert "environment: JOB_SECTION__FIELD=VALUE" in text
    assert "(= 7, from $JOB_STEPS)" in text
    text = cli_help(["--help"], capsys, env_prefix="JOB_", environ={})
    assert "environment: JOB_SECTION__FIELD=VALUE" in text
    assert "from $JOB_STEPS" not in text
    assert "(= 'base', from default=)" in cli_help(["--help"], capsys, default=Job(name="base"))


def test_completion_takes_prog_and_search_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "conf" / "size").mkdir(parents=True)
    (tmp_path / "conf" / "size" / "long.toml").write_text("steps = 30\n", encoding="utf-8")
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    monkeypatch.delenv("COMPOSE_PATH", raising=False)
    options: dict[str, Any] = {"prog": "job", "search_path": [tmp_path / "conf"], "environ": {}}
    monkeypatch.setenv("_COMPOSE_COMPLETE", "complete_fish")
    with pytest.raises(SystemExit):
        cli(Job, ["@", ""], **options)
    assert capsys.readouterr().out == "files\nsize/long\n"
    monkeypatch.setenv("_COMPOSE_COMPLETE", "bash")
    with pytest.raises(SystemExit):
        cli(Job, [], **options)
    assert "# bash completion for job:" in capsys.readouterr().out


# --- the schema as a keyword --------------------------------------------------------------------


def test_each_entry_point_takes_the_schema_as_a_keyword() -> None:
    assert compose([], ["steps=2"], schema=Job) == Job(steps=2)
    assert parse(schema=Job, argv=["--steps", "2"]) == Job(steps=2)
    assert cli(schema=Job, args=["--steps", "2"]) == Job(steps=2)
    assert cli(schema=Job, argv=["--steps", "2"]) == Job(steps=2)
    # the positional forms of the contract, and pydantic-config's
    assert parse(Job, ["--steps", "2"]) == cli(Job, ["--steps", "2"]) == Job(steps=2)
    assert cli(Job, args=["--steps", "2"]) == Job(steps=2)


def test_the_schema_is_given_once() -> None:
    with pytest.raises(TypeError, match="multiple values for argument 'schema'"):
        parse(["--steps", "2"], schema=Job)  # type: ignore[call-arg, arg-type, misc]


_TYPED = """
from compose import BaseConfig, cli, compose, parse


class Job(BaseConfig):
    steps: int = 1


reveal_type(compose([], schema=Job))
reveal_type(compose([], ["steps=2"], schema=Job))
reveal_type(parse(Job, []))
reveal_type(parse(schema=Job, argv=[]))
reveal_type(cli(Job))
reveal_type(cli(schema=Job))
reveal_type(cli(Job, args=[], default=Job()))
reveal_type(compose([]))
"""


def test_the_type_checker_sees_the_schemas_type(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    source = tmp_path / "typed.py"
    source.write_text(textwrap.dedent(_TYPED), encoding="utf-8")
    flags = ["--strict", "--python-version", "3.10", "--cache-dir", str(tmp_path / "cache")]
    # a process of its own: mypy changes the interpreter's state (its recursion limit)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", *flags, str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done.stdout
    revealed = re.findall(r'Revealed type is "([^"]+)"', done.stdout)
    assert revealed == [*["typed.Job"] * 7, "dict[str, Any]"]


def test_options_left_at_their_defaults_are_the_defaults_and_empty_ones_are_kept() -> None:
    from compose._input.options import NO_OPTIONS, Options, options

    assert options() == Options() == NO_OPTIONS
    assert options(search_path=[]) == NO_OPTIONS
    assert options(environ={}).environ == {}  # an empty environment is not os.environ
    assert options(env_prefix="").env_prefix == ""  # refused where it is read, not dropped
    assert options(search_path="conf").search_path == ("conf",)
