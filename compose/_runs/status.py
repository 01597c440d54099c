"""`compose job DIR`: run one point's command where an engine put it, and say how it went.

Every executor runs a point the same way, through `run_job(DIR)` (the `compose job DIR`
command, or the function itself for engines that take functions): it reads DIR/job.json,
runs the command in its working directory with its variables on top of the environment,
appends its output to DIR/log.txt under a header line per attempt, and keeps DIR/status.json
up to date (written whole, never half): `running`, then `finished` (exit 0) or `failed`.
So a sweep, resumed on any machine, learns from the files alone which points finished,
whichever engine ran them, and no engine needs to report back.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from types import FrameType
from typing import IO, Any

from compose._atomic import open_append, write_file
from compose._jsonfile import (
    OS_TEXT,
    os_text,
    os_text_table,
    os_texts,
    read_bytes,
    read_record,
    record_field,
    record_text,
)
from compose._runs.jobs import (
    FINISHED,
    JOB_FILE,
    LOG_FILE,
    STATES,
    STATUS_FILE,
    UNKNOWN,
    Job,
    State,
)
from compose.errors import ComposeError, counted, printable

# What an engine's cancel or time limit sends: passed on to the command, which decides how to
# stop (a trainer may checkpoint first); its exit then says what happened.
_FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_NOT_FOUND, _NOT_RUNNABLE = 127, 126  # the shell's exit codes for a command it cannot start


def job_command(directory: str, python: str = sys.executable) -> list[str]:
    """The command an engine runs for the point in `directory`: `compose job DIR`, through the
    interpreter that has compose (the console script may not be on the node's PATH)."""
    return [python, "-m", "compose", "job", directory]


def write_job(job: Job) -> Path:
    """DIR/job.json for `job` (DIR made if need be): what `compose job DIR` runs."""
    return write_file(Path(job.directory) / JOB_FILE, record_text(job_record(job)))


def job_record(job: Job) -> dict[str, Any]:
    """What DIR/job.json holds for `job`."""
    return {"argv": list(job.argv), "env": dict(job.env), "cwd": job.cwd}


def read_job(directory: str) -> Job:
    """The job that DIR/job.json describes; a clear error naming the file, the key and the
    value when it is unusable (what it holds reaches the OS: a command, its variables)."""
    path = Path(directory) / JOB_FILE
    spec = read_record(path)
    if spec is None:
        raise ComposeError("no such file: is this a point's directory?", value=str(path))
    argv = record_field(spec, "argv", path, os_texts, f"a non-empty list of arguments, {OS_TEXT}")
    return Job(
        name=Path(directory).name,
        argv=tuple(argv),
        directory=str(Path(directory).resolve()),
        cwd=record_field(spec, "cwd", path, _directory_name, f"a directory name, {OS_TEXT}"),
        env=record_field(spec, "env", path, _environment, _ENVIRONMENT),
    )


_ENVIRONMENT = f"a table of variables: names without '=', names and values {OS_TEXT}"


def _directory_name(value: Any) -> bool:
    return os_text(value) and value != ""


def _environment(value: Any) -> bool:
    return os_text_table(value) and all(name and "=" not in name for name in value)


_UNKNOWN = {"state": UNKNOWN}


def read_status(directory: str) -> dict[str, Any] | None:
    """DIR/status.json, or None when there is none. One that cannot be read, or holds a
    state compose never writes, is `{"state": "unknown"}`: never a crash."""
    try:
        status = read_record(Path(directory) / STATUS_FILE)
    except ComposeError:
        return dict(_UNKNOWN)
    if status is not None and status.get("state") not in STATES:
        return dict(_UNKNOWN)
    return status


NOT_SUBMITTED = "not submitted"  # a point without status.json: written, never handed to an engine
RERUN_STATES = frozenset({NOT_SUBMITTED, "failed"})  # what `--sweep-resume` runs again


@dataclass(frozen=True)
class PointState:
    """How a point stands, from its status.json alone: a `State`, `NOT_SUBMITTED` or `UNKNOWN`."""

    state: str
    exit_code: int | None = None
    note: str = ""
    """Where, or why: `here, process 4242` or `on gpu-7` (running on another host, where this
    one cannot look), `its process 4242 is gone` (recorded as running here, but dead)."""


def point_state(directory: str | os.PathLike[str]) -> PointState:
    """The state of the point in `directory`. A point `running` on this host whose process is
    gone (a killed node agent, a reboot) failed: it will never write its end."""
    status = read_status(os.fspath(directory))
    if status is None:
        return PointState(NOT_SUBMITTED)
    state = status["state"]
    if state == UNKNOWN:
        return PointState(UNKNOWN, note=f"{STATUS_FILE} cannot be read")
    exit_code = status.get("exit_code")
    exit_code = (
        exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None
    )
    if state != "running":
        return PointState(state, exit_code)
    host, pid = status.get("host"), status.get("pid")
    if host != socket.gethostname():
        return PointState(state, note=f"on {printable(str(host))}")
    if not (isinstance(pid, int) and not isinstance(pid, bool) and pid > 0):
        return PointState(state, note="here")
    if not _alive(pid):
        return PointState("failed", note=f"its process {pid} is gone")
    return PointState(state, note=f"here, process {pid}")


def skipped_lines(skipped: Mapping[str, PointState]) -> list[str]:
    """A line per state among the points a resume left alone: how many, and what to do."""
    lines = []
    for state in sorted({found.state for found in skipped.values()}):
        count = sum(1 for found in skipped.values() if found.state == state)
        notes = sorted({found.note for found in skipped.values() if found.state == state} - {""})
        why = [*notes, _WHY[state]] if state in _WHY else notes
        shown = f" ({'; '.join(why)})" if why else ""
        lines.append(f"resume: {counted(count, 'point')} {state}{shown}: skipped")
    return lines


_WHY = {
    "submitted": "queued; if its job is lost, remove its status.json to run it again",
    UNKNOWN: f"remove its {STATUS_FILE} to run it again",
}


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's: it exists
        return True
    return True


def _write_status(directory: str, state: State, **fields: Any) -> None:
    ordered = sorted(fields.items(), key=lambda item: _STATUS_ORDER.index(item[0]))
    record = {"state": state, **dict(ordered)}
    write_file(Path(directory) / STATUS_FILE, record_text(record))


# A file read by people too: the outcome first, then where and when.
_STATUS_ORDER: tuple[str, ...] = ("exit_code", "signal", "error", "attempt", "host", "pid")
_STATUS_ORDER += ("submitted", "started", "ended")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@contextlib.contextmanager
def submitting(jobs: Sequence[Job]) -> Iterator[None]:
    """Mark each job `submitted` before the engine sees it (written after, it could overwrite
    a fast job's `finished`); if the submission fails, the old status files come back, so a
    status never claims a submission that did not happen."""
    before = {job.directory: _status_bytes(job.directory) for job in jobs}
    now = _now()
    for job in jobs:
        _write_status(job.directory, "submitted", attempt=_attempts(job.directory), submitted=now)
    try:
        yield
    except BaseException:
        for directory, content in before.items():
            _restore_status(directory, content)
        raise


def _status_bytes(directory: str) -> bytes | None:
    """DIR/status.json as it is, to put back; None where there is none to be read."""
    try:
        return read_bytes(Path(directory) / STATUS_FILE)
    except ComposeError:
        return None


def _restore_status(directory: str, content: bytes | None) -> None:
    path = Path(directory) / STATUS_FILE
    if content is None:
        path.unlink(missing_ok=True)
    else:
        write_file(path, content)


def _attempts(directory: str) -> int:
    """How many times the point's command was started before (0 when unknown)."""
    attempt = (read_status(directory) or {}).get("attempt", 0)
    return attempt if type(attempt) is int and attempt >= 0 else 0


def run_job(directory: str) -> int:
    """Run the command of the point in `directory` and return its exit code (128 + N when
    signal N ended it, 127 or 126 when it could not start). The outcome is in DIR/status.json
    and the output in DIR/log.txt; bad input (no usable job.json) is a `ComposeError`.

    A top-level function, so that engines that pickle functions (submitit) can send it."""
    job = read_job(directory)
    try:
        return _run(job)
    except OSError as error:  # the point's own files: a full disk, a directory not writable
        where = error.filename or job.directory
        raise ComposeError(f"cannot write: {error.strerror or error}", value=str(where)) from None


def _run(job: Job) -> int:
    attempt = _attempts(job.directory) + 1
    started = _now()
    common = {"attempt": attempt, "host": socket.gethostname(), "started": started}
    with open_append(Path(job.directory) / LOG_FILE) as log:
        shown = shlex.join(job.argv).replace("\n", "\\n")  # one line, whatever the argv holds
        header = f"=== compose job: attempt {attempt} on {common['host']} at {started}: "
        _log(log, f"{header}{shown} (in {job.cwd})\n")
        log.flush()
        try:
            process = _start(job, log)
        except OSError as error:
            return _not_started(job, log, error, common)
        _write_status(job.directory, "running", pid=process.pid, **common)
        with _forwarding_signals(process):
            returncode = process.wait()
    return _finished(job, returncode, pid=process.pid, **common)


def _log(log: IO[bytes], text: str) -> None:
    """`text` into the log, a name the OS gave as bytes that are not UTF-8 (which Python holds
    as lone surrogates: a Latin-1 file or directory name) as those bytes."""
    log.write(text.encode("utf-8", "surrogateescape"))


def _start(job: Job, log: IO[bytes]) -> subprocess.Popen[bytes]:
    if not Path(job.cwd).is_dir():
        raise FileNotFoundError(f"the working directory {job.cwd} does not exist")
    return subprocess.Popen(
        job.argv,
        cwd=job.cwd,
        env={**os.environ, **job.env},
        stdin=subprocess.DEVNULL,  # a job on a node has no terminal to read from
        stdout=log,
        stderr=subprocess.STDOUT,
    )


def _not_started(job: Job, log: IO[bytes], error: OSError, common: dict[str, Any]) -> int:
    code = _NOT_FOUND if isinstance(error, FileNotFoundError) else _NOT_RUNNABLE
    reason = f"cannot run {job.argv[0]!r}: {error.strerror or error}"
    _log(log, f"compose job: {reason}\n")
    sys.stderr.write(f"compose job: {job.directory}: {reason}\n")
    _write_status(
        job.directory, "failed", exit_code=code, signal=None, error=reason, ended=_now(), **common
    )
    return code


def _finished(job: Job, returncode: int, **common: Any) -> int:
    """Record how the command ended; the exit code as a shell reports it (128 + N for signal N)."""
    signal_name = signal.Signals(-returncode).name if returncode < 0 else None
    code = 128 - returncode if returncode < 0 else returncode
    state: State = FINISHED if code == 0 else "failed"
    _write_status(job.directory, state, exit_code=code, signal=signal_name, ended=_now(), **common)
    return code


@contextlib.contextmanager
def _forwarding_signals(process: subprocess.Popen[bytes]) -> Iterator[None]:
    """While the command runs, the signals that would end this process go to it instead."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers: the engine's own handling stays
        return

    def forward(signum: int, frame: FrameType | None) -> None:
        del frame
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signum)

    previous = {signum: signal.signal(signum, forward) for signum in _FORWARDED}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
