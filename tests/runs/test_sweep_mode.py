"""Sweep mode as a user meets it (issue 38): the table of points masks secrets and escapes
control characters; a mistake every point shares is said once, with a did-you-mean to a flag
of sweep mode; `--help` is the base command line's help; progress shows on a terminal or for
a large sweep only; Ctrl-C exits 130 leaving whole records that the same command completes."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from pydantic import SecretStr

import compose._runs.sweep as sweeping
from compose import BaseConfig
from compose._cli import entry
from compose._runs import records
from compose._runs.masked import masked_axes
from compose._syntax import SECRET_MASK


class Api(BaseConfig):
    url: str = "http://x"
    key: SecretStr = SecretStr("")


class Job(BaseConfig):
    """A job."""

    steps: int = 1
    lr: float = 0.1
    name: str = "job"
    api: Api = Api()


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of `job ARGV`, an entrypoint `cli(Job)`."""
    return run_cli(argv, capsys, Job, "job")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


# --- the table of points --------------------------------------------------------------------


def test_the_table_masks_a_swept_secret(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "keys.toml").write_text(
        '[[zip]]\n"api.key" = ["sk-first", "sk-second"]\nlr = [0.1, 0.2]\n'
    )
    code, out, err = _cli(["--sweep", "@", "keys.toml", "--dry-run"], capsys)
    assert (code, err) == (0, "")
    assert "sk-" not in out
    rows = [line.split() for line in out.splitlines()[2:]]
    assert [row[2:4] for row in rows] == [["**********", "0.1"], ["**********", "0.2"]]


def test_one_masking_serves_every_view_of_a_point() -> None:
    """What the table, errors and records show of a point's axes: a secret masked, and the
    secrets inside a section's table; the rest as it is."""
    masked = masked_axes(Job, {"api": {"url": "u", "key": "sk"}, "api.key": "sk", "lr": 0.1})
    assert masked == {"api": {"url": "u", "key": SECRET_MASK}, "api.key": SECRET_MASK, "lr": 0.1}
    assert masked_axes(Job, {"api": "@keys/prod"}) == {"api": "@keys/prod"}  # a file's name


def test_the_table_escapes_control_characters(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _cli(["--sweep.name", "a\x1b[2Jb", "c\nd", "--dry-run"], capsys)
    assert code == 0
    assert "\x1b" not in out and "c\nd" not in out
    rows = [line.split() for line in out.splitlines()[2:]]
    assert [row[2] for row in rows] == ["a\\x1b[2Jb", "c\\nd"]


# --- errors ----------------------------------------------------------------------------------


def test_a_mistake_every_point_shares_is_said_once(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(
        ["--sweep.steps", "1", "x", "3", "--sweep-colour", "red", "--dry-run"], capsys
    )
    assert (code, out) == (2, "")
    assert err == (
        "error: 2 errors:\n"
        "  - every point: --sweep-colour = 'red': unknown key; nor is it a flag of sweep mode: "
        "--sweep @ FILE, --sweep.KEY, --sweep-name, --sweep-dir, --sweep-output, "
        "--sweep-executor, --sweep-resume\n"
        "  - point 1 (steps=x): --steps = 'x': Input should be a valid integer, unable to "
        "parse string as an integer\n"
    )


def test_a_flag_close_to_a_sweep_control_gets_a_did_you_mean(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = _cli(["--sweep.steps", "1", "2", "--sweep-nmae", "x"], capsys)
    assert code == 2
    assert (
        err == "error: every point: --sweep-nmae = 'x': unknown key; did you mean --sweep-name?\n"
    )


def test_one_point_is_named_by_its_axes_not_every_point(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _cli(["--sweep.steps", "1", "--stpes", "2"], capsys)
    assert code == 2
    assert err.startswith("error: point 0 (steps=1): --stpes = '2': unknown key")


# --- help ------------------------------------------------------------------------------------


def test_help_beside_sweep_flags_is_the_base_command_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "base.toml").write_text("steps = 7\n")
    code, out, err = _cli(["@", "base.toml", "--sweep.steps", "1", "2", "--help"], capsys)
    assert (code, err) == (0, "")
    assert out.startswith("usage: job")
    assert "7" in out  # the base file's value, as `job @ base.toml --help` shows it
    assert sorted(path.name for path in tmp_path.iterdir()) == ["base.toml"]


# --- progress --------------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_small_sweep_prints_no_progress_off_a_terminal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _cli(["--sweep.steps", "1", "2", "3", "--dry-run"], capsys)[2] == ""


def test_on_a_terminal_progress_is_one_line_cleared_before_the_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    code, out, _ = _cli(["--sweep.steps", "1", "2", "3", "--dry-run"], capsys)
    assert code == 0 and out.startswith("sweep sweep: 3 points")
    shown = terminal.getvalue()
    assert "\n" not in shown
    assert shown.split("\r")[1:] == [
        "composing 1/3 points",
        "composing 2/3 points",
        "composing 3/3 points",
        "writing 1/3 points  ",
        "writing 2/3 points  ",
        "writing 3/3 points  ",
        " " * len("writing 3/3 points  "),
        "",
    ]


def test_off_a_terminal_a_large_sweep_prints_a_line_per_so_many_points(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(entry, "LARGE_SWEEP", 3)  # as a sweep of LARGE_SWEEP points would
    monkeypatch.setattr(entry, "PROGRESS_EVERY", 2)
    code, _, err = _cli(["--sweep.steps", "1", "2", "3", "--dry-run"], capsys)
    assert code == 0
    assert err == (
        "composing 2/3 points\ncomposing 3/3 points\nwriting 2/3 points\nwriting 3/3 points\n"
    )


# --- Ctrl-C ----------------------------------------------------------------------------------


def _interrupting(call: Callable[..., Any], at: int) -> Callable[..., Any]:
    """`call`, raising KeyboardInterrupt (as Ctrl-C does) on its `at`-th call instead."""
    calls = []

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == at:
            raise KeyboardInterrupt
        return call(*args, **kwargs)

    return interrupted


def test_ctrl_c_while_composing_exits_130_with_nothing_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sweeping, "_compose_point", _interrupting(sweeping._compose_point, 2))
    code, out, err = _cli(["--sweep.steps", "1", "2", "3"], capsys)
    assert (code, out) == (130, "")
    assert err == "interrupted: nothing was written or submitted\n"
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_while_writing_leaves_whole_points_that_the_same_command_completes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--sweep.steps", "1", "2", "3", "4", "--sweep-name", "s", "--dry-run"]
    with monkeypatch.context() as patched:
        patched.setattr(records, "_write_point", _interrupting(records._write_point, 3))
        code, out, err = _cli(argv, capsys)
    assert (code, out) == (130, "")
    assert err.startswith("interrupted: the records of 2 of 4 points are written, each whole")
    directory = tmp_path / "runs" / "s"
    assert (directory / "sweep.json").is_file()
    assert not (directory / "manifest.jsonl").exists()
    written = sorted(path.parent.name for path in directory.glob("*/run.json"))
    assert len(written) == 2
    changed = ["--sweep.steps", "1", "2", "--sweep-name", "s", "--dry-run"]
    code, _, err = _cli(changed, capsys)
    assert code == 2 and "holds another sweep (axes differ)" in err
    assert _cli(argv, capsys)[0] == 0
    lines = (directory / "manifest.jsonl").read_text().splitlines()
    assert [json.loads(line)["axes"] for line in lines] == [{"steps": s} for s in (1, 2, 3, 4)]
    assert set(written) < {path.parent.name for path in directory.glob("*/run.json")}
