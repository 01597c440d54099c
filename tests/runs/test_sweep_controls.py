"""A sweep's controls (`name`, `dir`, `output`, `command`, `executor`), from its flags or a
sweep file's `[sweep]`, are checked before anything is written: a name is one path segment and
the sweep's directory a child of the one named, resolved; an empty value is an error, not the
default; a value of the wrong type is one error at its FILE:LINE, never a traceback (issue 38).
A directory may hold any character: the records and the command a point runs still work."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from conftest import run_cli, run_compose

from compose import BaseConfig, ComposeError, compose, sweep


class Job(BaseConfig):
    """A job."""

    steps: int = 1
    output_dir: str = "out"


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of `job ARGV`, an entrypoint `cli(Job)`."""
    return run_cli(argv, capsys, Job, "job")


SWEEP = ["--sweep.steps", "1", "2", "--sweep-output", "output_dir", "--dry-run"]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory of its own, inside one the test watches too."""
    work = tmp_path / "project"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def _files(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


@pytest.mark.parametrize(
    "name", ["..", ".", "../outside", "a/b", "/tmp/x", "a\\b", "-x", "a b", "x" * 256]
)
def test_a_name_that_is_not_one_directory_name_is_refused_and_nothing_is_written(
    name: str, here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli([*SWEEP, "--sweep-name", name], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("error: --sweep-name = ")
    assert ": a sweep's name is one directory name: up to 255 letters, digits and" in err
    assert _files(here.parent) == ["project"]


def test_a_name_in_a_sweep_file_is_refused_at_its_line(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "s.toml").write_text(
        '[sweep]\noutput = "output_dir"\nname = ".."\n[axes]\nsteps = [1, 2]\n'
    )
    code, _, err = _cli(["--sweep", "@", "s.toml", "--dry-run"], capsys)
    assert code == 2
    assert err == (
        "error: sweep.name = '..' (from s.toml:3): a sweep's name is one directory name: "
        "up to 255 letters, digits and _ . = + -, not . or ..; name it with --sweep-name NAME "
        '(or name = "NAME" in [sweep])\n'
    )
    assert _files(here.parent) == ["project", "project/s.toml"]


def test_a_file_stem_that_is_no_directory_name_asks_for_a_name(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "my sweep.toml").write_text('[sweep]\noutput = "output_dir"\n[axes]\nsteps = [1, 2]\n')
    code, _, err = _cli(["--sweep", "@", "my sweep.toml", "--dry-run"], capsys)
    assert code == 2
    assert err.startswith("error: sweep.name = 'my sweep' (from my sweep.toml): ")
    assert "name it with --sweep-name NAME" in err


def test_a_sweep_directory_linked_out_of_its_dir_is_refused(
    here: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (here / "runs").mkdir()
    (here / "runs" / "s").symlink_to(elsewhere)
    code, _, err = _cli([*SWEEP, "--sweep-name", "s"], capsys)
    assert code == 2
    assert f"is a link to {elsewhere}: a sweep writes only in its own directory" in err
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("under", ["", "/sub"])
def test_a_dir_that_is_a_file_is_named_with_where_it_was_given(
    under: str, here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not `DIR/NAME/sweep.json: cannot be read: Not a directory`, nor a traceback."""
    (here / "afile").write_text("")
    code, out, err = _cli([*SWEEP, "--sweep-dir", f"afile{under}", "--sweep-name", "s"], capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"error: --sweep-dir = 'afile{under}': is no directory: {here / 'afile'} is a file; "
        'give the sweep a directory: --sweep-dir DIR (or dir = "DIR" in [sweep])\n'
    )
    (here / "s.toml").write_text('[sweep]\ndir = "afile"\noutput = "output_dir"\n')
    code, out, err = _cli(["--sweep.steps", "1", "2", "--sweep", "@", "s.toml"], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("error: sweep.dir = 'afile' (from s.toml:2): is no directory: ")
    assert _files(here) == ["afile", "s.toml"]


def test_dir_may_be_any_directory(
    here: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    far = tmp_path / "far" / "away"
    code, out, _ = _cli([*SWEEP, "--sweep-dir", str(far), "--sweep-name", "s"], capsys)
    assert code == 0
    assert out.startswith(f"sweep s: 2 points in {far / 's'} (dry run")
    assert (far / "s" / "sweep.json").is_file()


@pytest.mark.parametrize(
    "flag", ["--sweep-name", "--sweep-dir", "--sweep-executor", "--sweep-output"]
)
@pytest.mark.parametrize("spelt", ["apart", "joined"])
def test_an_empty_control_is_an_error_not_the_default(
    flag: str, spelt: str, here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    given = [flag, ""] if spelt == "apart" else [f"{flag}="]
    code, out, err = _cli(["--sweep.steps", "1", "2", *given, "--dry-run"], capsys)
    assert (code, out) == (2, "")
    assert err == f"error: {flag}: is empty: give a value, or leave it out for the default\n"
    assert _files(here) == []


def test_an_empty_control_from_python_is_an_error_too() -> None:
    with pytest.raises(ComposeError, match=r"sweep\.name: is empty"):
        sweep(Job, axes={"steps": [1, 2]}, name="", output="output_dir")


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("dir = 5", "sweep.dir = 5 (from s.toml:2): takes text (a TOML string)"),
        ('dir = ""', "sweep.dir (from s.toml:2): is empty"),
        ("name = 5", "sweep.name = 5 (from s.toml:2): takes text (a TOML string)"),
        ("output = [1]", "sweep.output = [1] (from s.toml:2): takes text (a TOML string)"),
        ("command = 5", "sweep.command = 5 (from s.toml:2): command is a list of words"),
        ('command = "rl"', "sweep.command = 'rl' (from s.toml:2): command is a list of words"),
        ("command = {a = 1}", "sweep.command = {'a': 1} (from s.toml:2): command is a list of"),
        ("command = []", "sweep.command = [] (from s.toml:2): command is a list of words"),
        ('command = ["rl", ""]', "sweep.command = ['rl', ''] (from s.toml:2): command is a"),
        ("executor = 5", "sweep.executor = 5 (from s.toml:2): takes text (a TOML string)"),
        ("executor = {name = 3}", "sweep.executor.name = 3 (from s.toml:2): takes text"),
    ],
)
def test_a_control_of_the_wrong_type_is_one_error_at_its_line(
    line: str, shown: str, here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own_dirs = "" if line.startswith("output") else 'output = "output_dir"\n'
    (here / "s.toml").write_text(f"[sweep]\n{line}\n{own_dirs}[axes]\nsteps = [1, 2]\n")
    code, out, err = _cli(["--sweep", "@", "s.toml", "--dry-run"], capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"error: {shown}"), err
    assert "Traceback" not in err
    assert _files(here) == ["s.toml"]


def test_an_unknown_output_key_is_named_with_a_did_you_mean(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _cli(["--sweep.steps", "1", "2", "--sweep-output", "output_dri"], capsys)
    assert code == 2
    assert err == (
        "error: output_dri (from --sweep-output): unknown key: the schema has no such field to "
        "set to each point's directory; did you mean output-dir?\n"
    )


def test_a_sweep_directory_with_a_space_and_a_quote_keeps_working_records(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The records name the directory as it is, and a point's command, run by `compose job`
    as every executor runs it, gets its config's path as one argument."""
    ran = "import pathlib, sys; pathlib.Path(sys.argv[2]).with_name('ran').write_text(sys.argv[2])"
    (here / "s.toml").write_text(
        f"[sweep]\ncommand = [{json.dumps(sys.executable)}, '-c', {json.dumps(ran)}]\n"
        'output = "output_dir"\n[axes]\nsteps = [1, 2]\n'
    )
    odd = 'it\'s a "dir"'
    code, out, _ = _cli(["--sweep", "@", "s.toml", "--sweep-dir", odd, "--dry-run"], capsys)
    assert code == 0
    assert out.startswith(f"sweep s: 2 points in {odd}/s (dry run")
    lines = [
        json.loads(line) for line in (here / odd / "s" / "manifest.jsonl").read_text().splitlines()
    ]
    point = Path(lines[0]["directory"])
    assert point.parent == here / odd / "s"
    config = point / "configs" / "job.toml"
    assert compose([str(config)], schema=Job).output_dir == str(point)
    assert run_compose(capsys, "job", str(point))[0] == 0
    assert json.loads((point / "status.json").read_text())["state"] == "finished"
    assert (point / "configs" / "ran").read_text() == str(config)
    run = json.loads((point / "run.json").read_text())
    assert run["sweep"]["directory"] == os.path.join(here, odd, "s")
