"""`compose job DIR` (`run_job`): a point's command runs in its directory's terms (argv, cwd,
env on top of the engine's), its output is appended to log.txt under a header per attempt, and
status.json says running, then finished or failed with the exit code or signal, host, pid and
UTC times; `compose job` exits with the command's code and never shows a traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from conftest import point_job, run_command, wait_until

from compose._runs.jobs import FINISHED, Job
from compose._runs.status import read_job, read_status, run_job, submitting, write_job
from compose.errors import ComposeError

COMPOSE_JOB = [sys.executable, "-m", "compose", "job"]


def test_a_command_that_succeeds_is_finished_with_its_output_in_the_log(tmp_path: Path) -> None:
    job = point_job(tmp_path, "p1", "import sys; print('to out'); print('to err', file=sys.stderr)")
    assert run_job(job.directory) == 0
    status = read_status(job.directory)
    assert status is not None
    assert status["state"] == FINISHED
    assert (status["exit_code"], status["signal"], status["attempt"]) == (0, None, 1)
    assert isinstance(status["host"], str) and isinstance(status["pid"], int)
    assert status["started"].endswith("+00:00") and status["ended"].endswith("+00:00")  # UTC
    assert datetime.fromisoformat(status["started"]) <= datetime.fromisoformat(status["ended"])
    header, *output = (Path(job.directory) / "log.txt").read_text().splitlines()
    assert header.startswith("=== compose job: attempt 1 on ")
    assert sorted(output) == ["to err", "to out"]  # one file: their order is the buffers'


def test_the_command_runs_in_its_cwd_with_its_env_on_top_of_the_environment(
    tmp_path: Path,
) -> None:
    code = "import os; print(os.getcwd()); print(os.environ['LR']); print('PATH' in os.environ)"
    job = point_job(tmp_path, "p1", code, env={"LR": "0.001"})
    assert run_job(job.directory) == 0
    log = (Path(job.directory) / "log.txt").read_text().splitlines()
    assert log[1:] == [str(tmp_path), "0.001", "True"]


def test_a_failing_command_fails_and_compose_job_exits_with_its_code(tmp_path: Path) -> None:
    job = point_job(tmp_path, "p1", "import sys; print('boom'); sys.exit(3)")
    code, out, err = run_command([*COMPOSE_JOB, job.directory])
    assert (code, out, err) == (3, "", "")
    status = read_status(job.directory)
    assert status is not None
    assert (status["state"], status["exit_code"], status["signal"]) == ("failed", 3, None)


def test_a_command_killed_by_a_signal_fails_naming_it(tmp_path: Path) -> None:
    job = point_job(tmp_path, "p1", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    assert run_job(job.directory) == 128 + signal.SIGKILL
    status = read_status(job.directory)
    assert status is not None
    assert (status["state"], status["signal"]) == ("failed", "SIGKILL")


def test_each_attempt_appends_to_the_log_under_its_own_header(tmp_path: Path) -> None:
    job = point_job(tmp_path, "p1", "print('ran')")
    run_job(job.directory)
    run_job(job.directory)
    lines = (Path(job.directory) / "log.txt").read_text().splitlines()
    assert [line.split(" on ")[0] for line in lines[::2]] == [
        "=== compose job: attempt 1",
        "=== compose job: attempt 2",
    ]
    assert lines[1::2] == ["ran", "ran"]
    assert (read_status(job.directory) or {})["attempt"] == 2


def test_a_command_that_cannot_start_fails_with_127_and_says_why(tmp_path: Path) -> None:
    job = Job("p1", ("no-such-program-here",), str(tmp_path / "p1"), str(tmp_path))
    write_job(job)
    code, out, err = run_command([*COMPOSE_JOB, job.directory])
    assert (code, out) == (127, "")
    assert err == f"compose job: {job.directory}: cannot run 'no-such-program-here': " + (
        "No such file or directory\n"
    )
    status = read_status(job.directory)
    assert status is not None
    assert (status["state"], status["exit_code"]) == ("failed", 127)
    assert "no-such-program-here" in status["error"]


def test_a_command_named_by_bytes_that_are_not_utf8_is_logged_as_those_bytes(
    tmp_path: Path,
) -> None:
    """A Latin-1 name (`caf\\xe9`, which Python holds as `caf\\udce9`) in job.json's argv or
    cwd: the log holds its bytes, as the OS gave them; it was a UnicodeEncodeError traceback
    from the log's header (the command's, or the line saying it cannot start)."""
    name = os.fsdecode(b"caf\xe9-no-such-program")
    job = Job("p1", (name,), str(tmp_path / "p1"), str(tmp_path))
    write_job(job)
    code, out, _ = run_command([*COMPOSE_JOB, job.directory])
    assert (code, out) == (127, "")
    header = (Path(job.directory) / "log.txt").read_bytes().splitlines()[0]
    assert b"caf\xe9-no-such-program" in header
    elsewhere = os.fsdecode(bytes(tmp_path) + b"/caf\xe9-no-such-directory")
    job = Job("p2", (sys.executable, "-c", "pass"), str(tmp_path / "p2"), elsewhere)
    write_job(job)
    code, out, _ = run_command([*COMPOSE_JOB, job.directory])
    assert (code, out) == (127, "")  # its working directory does not exist
    assert b"caf\xe9-no-such-directory does not exist" in (tmp_path / "p2/log.txt").read_bytes()


def test_a_directory_without_a_usable_job_file_is_one_clear_error(tmp_path: Path) -> None:
    code, out, err = run_command([*COMPOSE_JOB, str(tmp_path)])
    assert (code, out) == (2, "")
    assert err == f"error: '{tmp_path}/job.json': no such file: is this a point's directory?\n"
    (tmp_path / "job.json").write_text(json.dumps({"argv": [], "env": {}, "cwd": "/"}))
    code, out, err = run_command([*COMPOSE_JOB, str(tmp_path)])
    assert code == 2
    assert err == (
        f"error: argv = [] (from {tmp_path}/job.json): expects a non-empty list of arguments, "
        "text without a NUL or a lone surrogate\n"
    )
    assert not (tmp_path / "status.json").exists()


def test_compose_job_passes_a_termination_on_to_the_command(tmp_path: Path) -> None:
    """An engine's cancel (SIGTERM) reaches the command, and the status says it ended so."""
    ready = tmp_path / "ready"
    code = f"import pathlib, time; pathlib.Path({str(ready)!r}).touch(); time.sleep(120)"
    job = point_job(tmp_path, "p1", code)
    runner = subprocess.Popen([*COMPOSE_JOB, job.directory])
    try:
        wait_until(ready.exists, "the command started")
        runner.send_signal(signal.SIGTERM)
        assert runner.wait(timeout=60) == 128 + signal.SIGTERM
    finally:
        runner.kill()
        runner.wait()
    status = read_status(job.directory)
    assert status is not None
    assert (status["state"], status["signal"]) == ("failed", "SIGTERM")


def test_the_files_are_written_whole_and_leave_nothing_else(tmp_path: Path) -> None:
    job = point_job(tmp_path, "p1", "print('hi')")
    run_job(job.directory)
    assert sorted(os.listdir(job.directory)) == ["job.json", "log.txt", "status.json"]


def test_write_job_and_read_job_agree(tmp_path: Path) -> None:
    job = Job("p1", ("rl", "@", "rl.toml"), str(tmp_path / "p1"), str(tmp_path), {"A": "1"})
    write_job(job)
    assert read_job(job.directory) == job
    assert json.loads((tmp_path / "p1" / "job.json").read_text()) == {
        "argv": ["rl", "@", "rl.toml"],
        "env": {"A": "1"},
        "cwd": str(tmp_path),
    }


def test_a_failed_submission_leaves_the_statuses_as_they_were(tmp_path: Path) -> None:
    done = point_job(tmp_path, "done", "pass")
    run_job(done.directory)
    before = (Path(done.directory) / "status.json").read_bytes()
    new = point_job(tmp_path, "new", "pass")
    with pytest.raises(ComposeError), submitting([done, new]):
        assert (read_status(new.directory) or {})["state"] == "submitted"
        raise ComposeError("the engine refused")
    assert (Path(done.directory) / "status.json").read_bytes() == before
    assert read_status(new.directory) is None
