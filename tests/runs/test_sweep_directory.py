"""A sweep directory belongs to one sweep definition, and a resume runs only what needs it.

sweep.json is written first, under the directory's lock (`sweep.lock`): a second sweep writing
or submitting there at once waits, then fails naming the directory; a directory holding files
but no sweep.json is refused. `--sweep-resume` reruns only points that failed or never started
(a `running` point of this host whose process is gone failed), and says what it skipped, a line
per state; without it, every point is written and submitted again."""

from __future__ import annotations

import fcntl
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_cli

from compose import BaseConfig, ComposeError, sweep, write_sweep
from compose._runs import records
from compose._runs.sweep import Point, Sweep


class Job(BaseConfig):
    seed: int = 0
    steps: int = 3
    output_dir: Path = Path("out")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _made(count: int = 2) -> Sweep[Job]:
    """The sweep `--sweep.seed 0 1 ... --sweep-name s` makes."""
    seeds = {"seed": [str(s) for s in range(count)]}
    return sweep(Job, [], axes=seeds, name="s", output="output_dir", prog="job")


def _status(directory: Path, **status: object) -> None:
    (directory / "status.json").write_text(json.dumps(status))


# --- one sweep per directory, under a lock -------------------------------------------------------


def test_a_sweep_directory_another_process_holds_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    directory = Path("runs/s").resolve()
    directory.mkdir(parents=True)
    monkeypatch.setattr(records, "LOCK_WAIT", 0.0)  # what it waits for is not what is tested
    with open(directory / "sweep.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # another sweep, writing or submitting
        with pytest.raises(ComposeError) as refused:
            write_sweep(_made())
    assert refused.value.origin == str(directory)
    assert "another sweep has been writing or submitting here" in refused.value.message
    assert sorted(p.name for p in directory.iterdir()) == ["sweep.lock"]
    write_sweep(_made())  # once it is let go


def test_the_definition_is_written_before_the_points_so_it_guards_an_interrupted_sweep(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    made = _made(3)
    written: list[Point[Job]] = []

    def interrupted(sweep: object, point: Point[Job], made_with: object) -> None:
        if written:
            raise KeyboardInterrupt  # Ctrl-C after the first point
        written.append(point)
        original(sweep, point, made_with)  # type: ignore[arg-type]

    original = records._write_point
    with monkeypatch.context() as patched, pytest.raises(KeyboardInterrupt):
        patched.setattr(records, "_write_point", interrupted)
        write_sweep(made)
    assert json.loads((made.directory / "sweep.json").read_text())["hash"] == made.definition_hash
    other = sweep(
        Job, ["--steps", "5"], axes={"seed": ["0", "1"]}, name="s", output="output_dir", prog="job"
    )
    with pytest.raises(ComposeError, match=r"holds another sweep \(argv, axes differ\)"):
        write_sweep(other)
    assert [p.index for p in write_sweep(_made(3), resume=True)] == [0, 1, 2]


def test_a_directory_with_points_but_no_definition_is_refused() -> None:
    stray = Path("runs/s/0123456789ab")
    stray.mkdir(parents=True)
    (stray / "run.json").write_text("{}")
    with pytest.raises(ComposeError, match=r"holds files \(0123456789ab\) but no sweep.json"):
        write_sweep(_made())
    assert sorted(p.name for p in Path("runs/s").iterdir()) == [stray.name]  # not even a lock


# --- resume -------------------------------------------------------------------------------------


def _dead_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_resume_reruns_only_points_that_failed_or_never_started(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["--sweep.seed", *map(str, range(8)), "--sweep-name", "s", "--dry-run"]
    argv += ["--sweep-output", "output_dir"]
    code, _, _ = run_cli(argv, capsys, Job, "job")
    assert code == 0
    made = _made(8)
    points = [point.directory for point in made.points]
    here = socket.gethostname()
    # 0: no status.json, never submitted
    _status(points[1], state="failed", exit_code=3)
    _status(points[2], state="finished", exit_code=0)
    _status(points[3], state="submitted", attempt=0)
    _status(points[4], state="running", host=here, pid=os.getpid())
    _status(points[5], state="running", host=here, pid=_dead_pid())
    _status(points[6], state="running", host="elsewhere-node", pid=1)
    (points[7] / "status.json").write_text("{")  # cut short: cannot be read
    kept = {p: (p / "run.json").read_bytes() for p in points}
    code, out, _ = run_cli([*argv, "--sweep-resume"], capsys, Job, "job")
    assert code == 0
    jobs = [line.split()[-1] for line in out.splitlines()[2:10]]
    assert jobs == ["-", "-", "finished", "submitted", "running", "-", "running", "unknown"]
    assert out.splitlines()[10:] == [
        "resume: 1 point finished: skipped",
        f"resume: 2 points running (here, process {os.getpid()}; on elsewhere-node): skipped",
        "resume: 1 point submitted (queued; if its job is lost, remove its status.json to run"
        " it again): skipped",
        "resume: 1 point unknown (status.json cannot be read; remove its status.json to run it"
        " again): skipped",
    ]
    assert all((p / "run.json").read_bytes() == kept[p] for p in points)


def test_without_resume_a_finished_point_is_written_and_handed_over_again() -> None:
    made = _made()
    write_sweep(made)
    _status(made.points[0].directory, state="finished", exit_code=0)
    assert write_sweep(_made()) == list(_made().points)  # the user asked for the sweep again
    assert [p.index for p in write_sweep(_made(), resume=True)] == [1]
