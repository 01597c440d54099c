"""Bad input a new user or an attacker gives: one clear `ComposeError` each, never a traceback.

Each test stands for a class of input (a number past its type's range, a stray byte-order
mark, an argument given in the wrong form), not for one spelling of it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import COMPOSE, run_command, run_compose
from pydantic import model_validator

from compose import BaseConfig, ComposeError, compose, parse
from compose.errors import ArgvError

if TYPE_CHECKING:
    from conftest import WriteFile

HUGE = "1" + "0" * 400  # an integer no float holds


class Optim(BaseConfig):
    lr: float = 1e-3
    steps: int = 10


class Run(BaseConfig):
    optim: Optim = Optim()


@pytest.mark.parametrize(
    ("how", "origin"),
    [("flag", ""), ("override", " (from override optim.lr)"), ("file", " (from big.toml:2)")],
)
def test_a_number_too_large_for_a_float_field_is_an_error(
    write: WriteFile, how: str, origin: str
) -> None:
    write("big.toml", f"[optim]\nlr = {HUGE}\n")
    with pytest.raises(ComposeError) as caught:
        if how == "flag":
            parse(Run, ["--optim.lr", HUGE])
        elif how == "override":
            compose([], [f"optim.lr={HUGE}"], schema=Run)
        else:
            compose(["big.toml"], schema=Run)
    error = caught.value
    assert (error.key, error.value) == ("--optim.lr", int(HUGE))
    assert str(error).endswith(
        f"...{origin}: is too large for a float (the largest is about 1.8e308)"
    )


def test_a_float_literal_past_the_range_is_infinity(write: WriteFile) -> None:
    """TOML reads `1e400` as Python does, as infinity (docs/04): a float field takes it."""
    write("inf.toml", "[optim]\nlr = 1e400\n")
    assert compose(["inf.toml"], schema=Run).optim.lr == float("inf")
    assert parse(Run, ["--optim.lr", "1e400"]).optim.lr == float("inf")


def test_a_huge_integer_stays_exact_where_the_field_is_an_int() -> None:
    assert parse(Run, ["--optim.steps", HUGE]).optim.steps == int(HUGE)


def test_overrides_given_as_one_string_are_refused() -> None:
    with pytest.raises(ComposeError) as caught:
        compose([], "optim.lr=0.1", schema=Run)  # a str is a Sequence[str]: typing passes it
    assert str(caught.value) == (
        "'optim.lr=0.1' (from overrides): overrides is a list of strings, one override each; "
        "write overrides=['optim.lr=0.1']"
    )


def test_schemaless_no_flag_is_false() -> None:
    assert parse_schemaless(["--no-x", "--no-a.b", "--y"]) == {
        "x": False,
        "a": {"b": False},
        "y": True,
    }


def parse_schemaless(argv: list[str]) -> object:
    code, out, err = run_command(
        [sys.executable, "-m", "compose", "show", "--format", "json", *argv]
    )
    assert (code, err) == (0, ""), err
    return json.loads(out)


def test_a_byte_order_mark_is_accepted(write: WriteFile) -> None:
    write("bom.toml", b"\xef\xbb\xbf[optim]\nlr = 0.5\n")
    assert compose(["bom.toml"], schema=Run).optim.lr == 0.5
    write("bad.toml", b"\xef\xbb\xbf[optim]\nlr = = 0.5\n")
    with pytest.raises(ComposeError, match=r"bad\.toml:2:6: invalid TOML"):
        compose(["bad.toml"], schema=Run)


def test_oc_env_without_a_name_says_it_needs_one(write: WriteFile) -> None:
    write("e.toml", 'a = "${oc.env:}"\n')
    with pytest.raises(ComposeError) as caught:
        compose(["e.toml"])
    assert str(caught.value) == (
        "--a = '${oc.env:}' (from e.toml:1): interpolation ${oc.env:}: oc.env needs the name "
        "of a variable; write ${oc.env:NAME} or ${oc.env:NAME,default}"
    )


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["show", "--schema", "", "@", "a.toml"], "error: --schema = '': expects MODULE:CLASS\n"),
        (
            ["explain", "", "@", "a.toml"],
            "error: '': expects a KEY (a dotted path such as trainer.lr), then ARGV\n",
        ),
        (
            ["explain", "a..b", "@", "a.toml"],
            "error: 'a..b': expects a KEY (a dotted path such as trainer.lr), then ARGV\n",
        ),
    ],
)
def test_empty_names_given_to_the_compose_command_are_errors(
    write: WriteFile, argv: list[str], message: str
) -> None:
    write("a.toml", "a = 1\n")
    assert run_command([sys.executable, "-m", "compose", *argv]) == (2, "", message)


def test_a_module_in_the_working_directory_never_shadows_an_installed_library(
    write: WriteFile,
) -> None:
    """`compose show --schema app:App` imports `app` from here; a `json.py` here stays out.
    (The installed command: `python -m` puts the working directory first itself.)"""
    write("json.py", "raise SystemExit('the working directory shadowed json')\n")
    write("app.py", "from compose import BaseConfig\n\nclass App(BaseConfig):\n    x: int = 1\n")
    argv = [COMPOSE, "show", "--resolved", "--format", "json", "--schema", "app:App", "--x", "2"]
    code, out, err = run_command(argv)
    assert (code, err, out.split()) == (0, "", ["{", '"x":', "2", "}"])


@pytest.mark.parametrize(
    "command",
    [
        [sys.executable, "-m", "rl_app", "rl", "--help"],
        [sys.executable, "-m", "rl_app", "rl", "--help", "trainer"],
        [COMPOSE, "show", "@", "large.toml"],
    ],
)
def test_a_closed_stdout_ends_quietly(write: WriteFile, command: list[str]) -> None:
    """`rl --help | head -1`: the reader went away; no traceback, the shell's SIGPIPE status."""
    write("large.toml", "".join(f"[s{i}]\nk = {i}\n" for i in range(5000)))
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    errors = process.stderr.read()
    assert (process.wait(timeout=60), errors) == (141, b"")


APP = """
import sys

from compose import BaseConfig, cli


class App(BaseConfig):
    steps: int = 1


cli(App, args=sys.argv[1:], prog="app")
"""
RL = [sys.executable, "-m", "rl_app"]
EXAMPLE = str(Path(__file__).resolve().parent.parent / "examples" / "reverse_text" / "rl.toml")
OWN_DIRS = ["--sweep-output", "output_dir"]  # a sweep's table: each point its own output_dir


@pytest.mark.parametrize(
    "command",
    [
        [*RL, "rl", "@", EXAMPLE, "--dry-run", "--output-dir", "out"],  # the files written
        [*RL, "rl", "@", EXAMPLE, "--output-dir", "out"],  # the launch plan
        [*RL, "trainer", "--output-dir", "out"],  # a component's line
        [*RL, "rl", "@", EXAMPLE, "--sweep.max-steps", "1", "2", *OWN_DIRS, "--dry-run"],
        [sys.executable, "app.py", "--help"],  # help where errors are raised: cli(args=...)
        [COMPOSE, "show", "@", EXAMPLE],
        [COMPOSE, "migrate", "--help"],
    ],
    ids=["rl-dry-run", "rl-plan", "trainer", "sweep", "cli-args-help", "show", "migrate-help"],
)
def test_every_printing_path_is_quiet_on_a_closed_stdout(
    write: WriteFile, command: list[str]
) -> None:
    """`rl ... | head -0`, whatever prints: exit 141, nothing on stderr. The reader is gone
    before the program starts (a pipe whose reading end is closed), so no write can win."""
    write("app.py", APP)
    reading, writing = os.pipe()
    os.close(reading)
    try:
        done = subprocess.run(
            command, stdout=writing, stderr=subprocess.PIPE, timeout=120, check=False
        )
    finally:
        os.close(writing)
    assert (done.returncode, done.stderr) == (141, b"")
    if "--dry-run" in command and "--output-dir" in command:
        assert Path("out/run.json").is_file()  # every file written before a line is printed


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell")
@pytest.mark.parametrize(
    "command",
    [[COMPOSE, "show", "@", "a.toml"], [*RL, "rl", "--help"], [*RL, "rl", "--output-dir", "out"]],
    ids=["show", "help", "rl-plan"],
)
def test_a_stdout_closed_from_the_start_takes_the_output_unseen(
    write: WriteFile, command: list[str]
) -> None:
    """`rl --help >&-`: no stdout at all (Python's `sys.stdout` is None); no traceback."""
    write("a.toml", "a = 1\n")
    done = subprocess.run(
        ["sh", "-c", '"$@" >&-', "sh", *command], capture_output=True, timeout=120, check=False
    )
    assert (done.returncode, done.stderr) == (0, b"")


# --- limits: refused at a documented bound, naming the file, within a second ----------------


def test_a_chain_of_includes_past_the_depth_limit_is_refused(write: WriteFile) -> None:
    for i in range(500):
        write(f"f{i}.toml", f'_include_ = ["f{i + 1}.toml"]\nk{i} = {i}\n')
    write("f500.toml", "end = 1\n")
    with pytest.raises(ComposeError) as caught:
        compose(["f0.toml"])
    assert str(caught.value) == (
        "'f64.toml' (from f63.toml:1): includes nested more than 64 files deep; "
        "f0.toml includes a file that includes a file ... down to here"
    )


def test_a_chain_of_includes_within_the_limit_composes(write: WriteFile) -> None:
    for i in range(62):
        write(f"f{i}.toml", f'_include_ = ["f{i + 1}.toml"]\nk{i} = {i}\n')
    write("f62.toml", "k62 = 62\n")
    assert compose(["f0.toml"]) == {f"k{i}": i for i in reversed(range(63))}


def test_an_include_tree_that_doubles_at_each_level_is_refused(write: WriteFile) -> None:
    for i in range(40):
        entries = f'{{ "a" = "m{i + 1}.toml" }}, {{ "b" = "m{i + 1}.toml" }}'
        write(f"m{i}.toml", f"_include_ = [{entries}]\n")
    write("m40.toml", "z = 1\n")
    with pytest.raises(ComposeError) as caught:
        compose(["m0.toml"])
    assert "includes merge more than 1,000 files" in str(caught.value)


@pytest.mark.parametrize("source", ["/dev/zero", "fifo"])
def test_a_file_node_that_never_ends_is_refused_at_64_mib(
    write: WriteFile, source: str, tmp_path: Path
) -> None:
    if source == "fifo":
        os.mkfifo(tmp_path / "endless")
        # the writer waits in its own process until compose opens the FIFO to read
        feeder = subprocess.Popen(["sh", "-c", "yes 'a = 1' > endless"], cwd=tmp_path)
        source = "endless"
    try:
        with pytest.raises(ComposeError) as caught:
            compose([source])
    finally:
        if source == "endless":
            feeder.kill()
            feeder.wait()
    assert str(caught.value) == f"{source}: larger than 64 MiB: not read; is it a config?"


# --- messages that name the right thing -----------------------------------------------------


class Component(BaseConfig):
    max_steps: int = 10


class Propagating(BaseConfig):
    """A shared value copied into each component by a before-validator (as prime-rl does)."""

    max_steps: int = 10
    trainer: Component = Component()
    orchestrator: Component = Component()

    @model_validator(mode="before")
    @classmethod
    def _share(cls, data: Any) -> Any:
        if isinstance(data, dict) and "max_steps" in data:
            steps = data["max_steps"]
            data = {**data, "trainer": {"max_steps": steps}, "orchestrator": {"max_steps": steps}}
        return data


@pytest.mark.parametrize(
    "text",
    [
        "max_steps = 5.5\n",
        # the components' sections are there: the copies are still no values of those lines
        "max_steps = 5.5\n\n[trainer]\n\n[orchestrator]\n",
    ],
)
def test_one_bad_value_copied_by_a_validator_is_one_error_citing_its_line(
    write: WriteFile, text: str
) -> None:
    write("run.toml", text)
    with pytest.raises(ComposeError) as caught:
        compose(["run.toml"], schema=Propagating)
    assert str(caught.value) == (
        "--max-steps = 5.5 (from run.toml:1): "
        "Input should be a valid integer, got a number with a fractional part"
    )


def test_reserved_names_are_shown_as_written(write: WriteFile) -> None:
    write("run.toml", '_target_ = "x"\n[trainer]\n_include_ = ["a.toml"]\n')
    with pytest.raises(ComposeError) as caught:
        compose(["run.toml"], schema=Propagating)
    assert [error.key for error in caught.value.errors] == ["--_target_", "--trainer._include_"]


def test_an_environment_variables_error_names_the_key_as_a_flag() -> None:
    with pytest.raises(ComposeError) as caught:
        parse(Run, [], env_prefix="APP_", environ={"APP_OPTIM__STEPS": "many"})
    assert str(caught.value).startswith("--optim.steps = 'many' (from $APP_OPTIM__STEPS): ")


@pytest.mark.parametrize("width", [80, 60, 200])
def test_help_on_a_narrow_terminal_wraps_descriptions_instead_of_cutting_them(width: int) -> None:
    """Every flag, type and word of every description is drawn whole, at any width."""
    import io

    from rl_app.config import RLConfig

    from compose._output.help import help_screen
    from compose._output.render import help_panels

    screen = help_screen(RLConfig, "rl")
    stream = io.StringIO()
    help_panels(screen, stream, width=width)
    drawn = stream.getvalue()
    assert "…" not in drawn
    words = set(drawn.replace("│", " ").split())
    for section in screen.sections:
        for entry in section.entries:
            assert entry.flag in words or width < 80, entry.flag
            assert set(entry.description.split()) <= words, entry.flag


def test_a_lone_surrogate_in_a_value_is_the_same_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A surrogate that no shell byte makes (`\\ud800`, from a JSON file's escape or a
    caller's text) failed to be shown (UnicodeEncodeError from the error's own formatting)."""
    from rl_app.config import RLConfig

    with pytest.raises(ArgvError) as caught:
        parse(RLConfig, ["--model.name", "a\ud800b"])
    assert str(caught.value) == (
        "--model.name = 'a\\\\ud800b': is not valid UTF-8; pass the value as UTF-8"
    )
    (tmp_path / "e.toml").write_text("seed = 1\n")
    (tmp_path / "s.json").write_text('{"model": {"name": "a\\ud800b"}}')
    code, out, err = run_compose(
        capsys,
        "diff",
        "--as-argv",
        "@",
        str(tmp_path / "e.toml"),
        "--",
        "@",
        str(tmp_path / "s.json"),
    )
    assert (code, out) == (2, "")
    assert err.startswith("error: ") and "is not valid UTF-8" in err and err.count("\n") == 1


def test_argument_bytes_that_are_not_utf8_are_an_error_before_anything_is_written(
    tmp_path: Path,
) -> None:
    output = tmp_path / "run"
    argv: list[str | bytes] = [sys.executable, "-m", "rl_app", "rl", "--model.name", b"caf\xe9"]
    argv.append("--dry-run")
    assert run_command([*argv, "--output-dir", str(output)], cwd=tmp_path) == (
        2,
        "",
        "error: --model.name = 'caf\\\\xe9': is not valid UTF-8; pass the value as UTF-8\n",
    )
    assert not output.exists()
    # a file's name may hold such bytes: it is only looked up
    assert run_command(
        [sys.executable, "-m", "compose", "show", "@", b"caf\xe9.toml"], cwd=tmp_path
    ) == (2, "", f"error: caf\\udce9.toml: file not found; looked in {tmp_path}\n")


def test_an_integer_past_the_decimal_conversion_limit_is_shown_and_written(
    write: WriteFile,
) -> None:
    """TOML reads `0xfff...` of any length; Python will not write such an int in decimal."""
    huge = "0x" + "f" * 4000
    write("hex.toml", f"tag = {huge}\n[optim]\nlr = {huge}\n")
    assert parse_schemaless(["@", "hex.toml", "~optim"]) == {"tag": huge}
    with pytest.raises(ComposeError) as caught:
        compose(["hex.toml"], schema=Run)
    assert str(caught.value) == (
        "2 errors:\n"
        "  - --tag = <an integer of 16000 bits> (from hex.toml:1): unknown key\n"
        "  - --optim.lr = <an integer of 16000 bits> (from hex.toml:3): "
        "is too large for a float (the largest is about 1.8e308)"
    )


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("--sweep-nmae", "--sweep-name"), ("--sweep-dri", "--sweep-dir"), ("--from-rn", "--from-run")],
)
def test_a_single_run_names_the_reserved_flag_a_key_misspells(typed: str, meant: str) -> None:
    """Without `--sweep`, a misspelt control is read as a key: its error points at the flag."""

    class Closed(BaseConfig):
        lr: float = 1.0

    with pytest.raises(ComposeError) as caught:
        parse(Closed, [typed, "x"])
    assert caught.value.hint == f"did you mean {meant}?"


def test_a_key_far_from_every_reserved_flag_gets_no_hint_to_one() -> None:
    class Closed(BaseConfig):
        lr: float = 1.0

    with pytest.raises(ComposeError) as caught:
        parse(Closed, ["--sweepstake", "x"])
    assert caught.value.hint is None
