"""`compose status DIR`: a sweep's points as their files say they stand, a table like the
sweep's own (index, name, axis values with secrets masked, state, exit code, log) then a line per
state, exit 0; a point's directory shows that point; anything else is one error, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_compose
from pydantic import SecretStr

from compose import BaseConfig, sweep, write_sweep


class Job(BaseConfig):
    seed: int = 0
    token: SecretStr | None = None


@pytest.fixture
def points(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """A sweep `runs/s` of three points: finished, failed, never submitted."""
    monkeypatch.chdir(tmp_path)
    made = sweep(Job, [], axes={"seed": ["0", "1", "2"], "token": ["sk-hidden"]}, name="s")
    write_sweep(made)
    directories = [point.directory for point in made.points]
    for directory, state, code in ((directories[0], "finished", 0), (directories[1], "failed", 3)):
        (directory / "status.json").write_text(json.dumps({"state": state, "exit_code": code}))
        (directory / "log.txt").write_text("...\n")
    return directories


def test_a_sweeps_points_are_a_table_then_a_line_per_state(
    points: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_compose(capsys, "status", "runs/s")
    assert (code, err) == (0, "")
    names = [p.name for p in points]
    assert out.splitlines() == [
        "sweep s: 3 points in runs/s",
        "#  name          seed  token       state          exit  log",
        f"0  {names[0]}  0     **********  finished       0     runs/s/{names[0]}/log.txt",
        f"1  {names[1]}  1     **********  failed         3     runs/s/{names[1]}/log.txt",
        f"2  {names[2]}  2     **********  not submitted        -",
        "1 not submitted",
        "1 finished",
        "1 failed",
    ]
    assert "sk-hidden" not in out


def test_a_points_directory_shows_that_point(
    points: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run_compose(capsys, "status", str(points[1]))
    assert code == 0
    assert out.splitlines()[0] == f"point {points[1].name} in runs/s/{points[1].name}"
    assert out.splitlines()[-1] == "1 failed"


def test_a_directory_of_no_sweep_or_point_is_one_error(
    points: list[Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_compose(capsys, "status", "runs") == (
        2,
        "",
        "error: runs: is neither a sweep's directory (sweep.json, manifest.jsonl) nor a point's"
        " (job.json)\n",
    )
    Path("runs/s/manifest.jsonl").write_text("[1]\n")
    code, out, err = run_compose(capsys, "status", "runs/s")
    assert (code, out) == (2, "")
    assert err == "error: runs/s/manifest.jsonl:1: holds a list, not a JSON object\n"
    code, _, err = run_compose(capsys, "status")
    assert (code, err) == (2, "error: status: expects DIR: a sweep's directory, or a point's\n")


def test_compose_help_lists_status(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_compose(capsys, "--help")
    assert code == 0 and "\n  status DIR\n" in out


@pytest.mark.parametrize(
    "name", ["../../../elsewhere/0123456789ab", "/tmp/abs", "0123456789AB", "short"]
)
def test_a_manifest_naming_no_point_of_the_sweep_is_one_error_never_followed(
    points: list[Path], name: object, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = Path("runs/s/manifest.jsonl")
    lines = [json.loads(line) for line in manifest.read_text().splitlines()]
    lines[1].update(name=name, directory="/etc")
    manifest.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, out, err = run_compose(capsys, "status", "runs/s")
    assert (code, out) == (2, "")
    assert "is no point's name (12 hex digits of its fingerprint)" in err
    assert "runs/s/manifest.jsonl" in err and "Traceback" not in err
