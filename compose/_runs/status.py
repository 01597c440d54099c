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
import json
import os
import shlex
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from types import FrameType
from typing import IO, Any

from compose._runs.atomic import write_json
from compose._runs.jobs import FINISHED, JOB_FILE, LOG_FILE, STATUS_FILE, Job, State
from compose.errors import ComposeError

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
    directory = Path(job.directory)
    directory.mkdir(parents=True, exist_ok=True)
    spec = {"argv": list(job.argv), "env": dict(job.env), "cwd": job.cwd}
    return write_json(directory / JOB_FILE, spec)


def read_job(directory: str) -> Job:
    """The job that DIR/job.json describes; a clear error naming the file when it is unusable."""
    path = Path(directory) / JOB_FILE
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ComposeError("no such file: is this a point's directory?", value=str(path)) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ComposeError(f"cannot be read: {error}", value=str(path)) from None
    return Job(
        name=Path(directory).name,
        argv=tuple(_field(spec, "argv", path, _is_argv)),
        directory=str(Path(directory).resolve()),
        cwd=_field(spec, "cwd", path, lambda cwd: isinstance(cwd, str) and cwd != ""),
        env=_field(spec, "env", path, _is_env),
    )


def _is_argv(argv: Any) -> bool:
    return isinstance(argv, list) and bool(argv) and all(isinstance(a, str) for a in argv)


def _is_env(env: Any) -> bool:
    return isinstance(env, dict) and all(isinstance(v, str) for v in env.values())


_EXPECTED = {
    "argv": "a non-empty list of strings",
    "cwd": "a directory name",
    "env": "a table of strings",
}


def _field(spec: Any, key: str, path: Path, valid: Any) -> Any:
    value = spec.get(key) if isinstance(spec, dict) else None
    if not valid(value):
        raise ComposeError(f"expects {_EXPECTED[key]}", key=key, value=value, origin=str(path))
    return value


def read_status(directory: str) -> dict[str, Any] | None:
    """DIR/status.json, or None when there is none (or it cannot be read: never a crash)."""
    try:
        status = json.loads((Path(directory) / STATUS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return status if isinstance(status, dict) else None


def _write_status(directory: str, state: State, **fields: Any) -> None:
    ordered = sorted(fields.items(), key=lambda item: _STATUS_ORDER.index(item[0]))
    write_json(Path(directory) / STATUS_FILE, {"state": state, **dict(ordered)})


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
    try:
        return (Path(directory) / STATUS_FILE).read_bytes()
    except FileNotFoundError:
        return None


def _restore_status(directory: str, content: bytes | None) -> None:
    path = Path(directory) / STATUS_FILE
    if content is None:
        path.unlink(missing_ok=True)
    else:
        path.write_bytes(content)


def _attempts(directory: str) -> int:
    """How many times the point's command was started before."""
    attempt = (read_status(directory) or {}).get("attempt", 0)
    return attempt if isinstance(attempt, int) else 0


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
    with open(Path(job.directory) / LOG_FILE, "ab") as log:
        log.write(f"=== compose job: attempt {attempt} on {common['host']} at {started}: ".encode())
        shown = shlex.join(job.argv).replace("\n", "\\n")  # one line, whatever the argv holds
        log.write(f"{shown} (in {job.cwd})\n".encode())
        log.flush()
        try:
            process = _start(job, log)
        except OSError as error:
            return _not_started(job, log, error, common)
        _write_status(job.directory, "running", pid=process.pid, **common)
        with _forwarding_signals(process):
            returncode = process.wait()
    return _finished(job, returncode, pid=process.pid, **common)


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
    log.write(f"compose job: {reason}\n".encode())
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
