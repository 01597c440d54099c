"""Run records on disk: one directory per point, the sweep's manifest, and single runs' records.

    SWEEP_DIR/sweep.json              the definition and its hash: written first, it guards
                                      the directory (another definition is refused)
    SWEEP_DIR/sweep.lock              held (flock) while a sweep writes and submits here
    SWEEP_DIR/manifest.jsonl          a line per point: what executors and trackers read
    SWEEP_DIR/POINT/configs/PROG.toml the resolved config: the job's whole input
    SWEEP_DIR/POINT/run.json          how it was made: argv, overrides, origins, versions, git
    SWEEP_DIR/POINT/job.json          the command `compose job POINT` runs

A single run's record is its own run.json beside its configs/ (`compose._runs.rerun`).

Every file is written whole or not at all, by compose's one writer (`compose._atomic`); a
point's config, run.json and job.json together. No record holds a secret's value
(`compose._runs.masked`): only the configs do (0600), and records follow the umask.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compose._atomic import NewFile, take_lock, write_files
from compose._jsonfile import lines_text, read_record_lines, record_field, record_text
from compose._output.write import config_files
from compose._runs.executors import check_command, open_executor
from compose._runs.jobs import JOB_FILE, Executor, Job
from compose._runs.masked import masked_axes, masked_tokens
from compose._runs.provenance import git_state, versions
from compose._runs.run import RUN_FILE, config_file, recorded_environment, run_record
from compose._runs.status import RERUN_STATES, PointState, job_record, point_state
from compose._runs.sweep import (
    SWEEP_FILE,
    Point,
    Progress,
    Sweep,
    point_origins,
    read_sweep_record,
)
from compose._syntax import NO_ENV_VARIABLE
from compose.errors import ComposeError, OutputError, SourceError

MANIFEST_FILE = "manifest.jsonl"


def write_sweep(
    sweep: Sweep[Any], *, resume: bool = False, progress: Progress | None = None
) -> list[Point[Any]]:
    """Write every point's run record, the manifest and sweep.json; return the points to run.

    sweep.json is written first: the definition guards the directory from then on. An
    existing sweep directory must hold the same definition (then this rewrites the same
    records); with `resume`, only the points that failed or never started are written again
    and returned, the others kept as they are (`write_records` says which and why). Raises
    `ComposeError` for a changed definition, a directory that holds no sweep.json but other
    files, and one another process is writing (`sweep_lock`). An interrupted write leaves some
    points' records, whole, beside the sweep.json that the same command (or `--sweep-resume`)
    completes; `progress(what, done, total)` is told of each point written."""
    return write_records(sweep, resume=resume, progress=progress).todo


@dataclass(frozen=True)
class Written:
    """What `write_records` did: the points to run, and those a resume left as they were."""

    todo: list[Point[Any]]
    skipped: dict[str, PointState]
    """A point's name -> the state its status.json says, for each point left alone."""


def write_records(
    sweep: Sweep[Any], *, resume: bool = False, progress: Progress | None = None
) -> Written:
    """`write_sweep`, saying which points a resume skipped and why."""
    with sweep_lock(sweep.directory):
        previous = read_sweep_record(sweep.directory)
        if previous is not None and previous["hash"] != sweep.definition_hash:
            raise _changed(sweep, previous, resume)
        if previous is None:
            _refuse_foreign(sweep.directory)
        skipped = _skipped(sweep) if resume else {}
        instant = {} if sweep.now is None else {"now": sweep.now.isoformat()}
        definition = {"hash": sweep.definition_hash, **instant, **sweep.definition}
        write_files([NewFile(sweep.directory / SWEEP_FILE, record_text(definition))], "records")
        made_with = {"git": git_state(sweep.cwd), "versions": versions()}  # asked once per sweep
        todo = [point for point in sweep.points if point.name not in skipped]
        for done, point in enumerate(todo, start=1):
            _write_point(sweep, point, made_with)
            if progress is not None:
                progress("writing", done, len(todo))
        kept = _manifest_by_name(sweep.directory) if skipped else {}
        lines = [_manifest_line(sweep, point, kept.get(point.name, {})) for point in sweep.points]
        write_files([_manifest_file(sweep, lines)], what="records")
    return Written(todo, skipped)


def _skipped(sweep: Sweep[Any]) -> dict[str, PointState]:
    """The points a resume leaves alone: all but those that failed or never started."""
    states = {point.name: point_state(point.directory) for point in sweep.points}
    return {name: state for name, state in states.items() if state.state not in RERUN_STATES}


LOCK_FILE = "sweep.lock"  # in the sweep's directory: held while its records are written
LOCK_WAIT = 5.0  # seconds a second writer of one sweep directory waits for the first
_HELD: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar(
    "compose_sweep_locks", default=frozenset()
)


@contextlib.contextmanager
def sweep_lock(directory: Path) -> Iterator[None]:
    """Hold the sweep directory's lock (`flock` on its sweep.lock): one sweep at a time
    writes and submits there. Another process's sweep is waited for `LOCK_WAIT` seconds, then
    is one `ComposeError` naming the directory. Taken again inside itself (`run_sweep` holds it
    over `write_sweep` and `submit_sweep`, which take it too), it is already held. Where
    there are no locks (no `fcntl`, a file system without them), nothing is held. A directory
    that holds files but no sweep.json is no sweep's, and gets no lock: a `ComposeError`."""
    key = os.path.abspath(directory)
    if key in _HELD.get():
        yield
        return
    if not (directory / SWEEP_FILE).exists():
        _refuse_foreign(directory)  # before its lock is left there: not a sweep's directory
    try:
        directory.mkdir(parents=True, exist_ok=True)
        fd = _open_lock(directory / LOCK_FILE)
    except OSError as error:
        raise OutputError(
            f"cannot take the sweep's lock: {error.strerror or error}",
            origin=str(directory / LOCK_FILE),
        ) from None
    try:
        take_lock(fd, LOCK_WAIT, lambda: _busy(directory))
        held = _HELD.set(_HELD.get() | {key})
        try:
            yield
        finally:
            _HELD.reset(held)
    finally:
        os.close(fd)  # and with it the lock


_LOCK_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _open_lock(path: Path) -> int:
    """The lock file, made if need be (with the umask's mode); a link planted at its name is
    replaced, never followed, as at every file compose writes."""
    try:
        return os.open(path, _LOCK_FLAGS, 0o666)
    except OSError as error:
        if error.errno != errno.ELOOP:
            raise
    path.unlink(missing_ok=True)
    return os.open(path, _LOCK_FLAGS, 0o666)


def _busy(directory: Path) -> ComposeError:
    return ComposeError(
        f"another sweep has been writing or submitting here for {LOCK_WAIT:g} s",
        origin=str(directory),
        hint="wait for it to end, or give this sweep a new --sweep-name",
    )


def _refuse_foreign(directory: Path) -> None:
    """A directory without sweep.json must hold nothing but the lock: points there belong to
    a sweep whose definition was never written (or to no sweep), and writing this one among
    them would mix the two."""
    try:
        found = sorted(entry.name for entry in os.scandir(directory) if entry.name != LOCK_FILE)
    except OSError:
        return  # none yet, or not to be read: writing there will say
    if found:
        shown = ", ".join(found[:3]) + (", ..." if len(found) > 3 else "")
        raise ComposeError(
            f"holds files ({shown}) but no {SWEEP_FILE}: not this sweep's directory (a sweep "
            "stopped before its definition was written, or another program's)",
            origin=str(directory),
            hint="give this sweep a new --sweep-name (or --sweep-dir), or remove the directory",
        )


class DirectoryTaken(ComposeError):
    """A sweep named by its start found its directory made by another since it took the name
    (both started that second): its caller names it again (`run_hydra_sweep`)."""


def claim_new(directory: Path) -> None:
    """Make the directory of a sweep that must be new (`Sweep.fresh`: a Hydra multirun named
    by its start). One made since it was named (another sweep started that second) is
    refused (`DirectoryTaken`), never shared; nothing is written."""
    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
        directory.mkdir()
    except FileExistsError:
        raise DirectoryTaken(
            "was made by another sweep since this one took its name (both started that "
            "second): a sweep named by its start writes only in a directory of its own",
            origin=str(directory),
            hint="run it again: it takes the next free name",
        ) from None
    except OSError as error:
        raise OutputError(
            f"cannot make the sweep's directory: {error.strerror or error}", origin=str(directory)
        ) from None


def jobs_of(sweep: Sweep[Any], points: Sequence[Point[Any]]) -> list[Job]:
    """The jobs that run `points`: each its command, `@` its resolved config."""
    return [_job(sweep, point) for point in points]


def submit_sweep(
    sweep: Sweep[Any], points: Sequence[Point[Any]], executor: Executor | None = None
) -> list[str]:
    """Hand `points` (what `write_sweep` returned) to the sweep's executor, or to `executor`
    (opened beforehand, say, to fail before anything is written); return their job ids, also
    written into the manifest. Returns at once: no job is waited for. Holds the sweep's lock."""
    if executor is None:
        executor = open_sweep_executor(sweep)
    if not points:
        return []
    with sweep_lock(sweep.directory):
        job_ids = executor.submit(jobs_of(sweep, points))
        record_submission(sweep, points, executor.name, job_ids)
    return job_ids


def open_sweep_executor(sweep: Sweep[Any]) -> Executor:
    """The sweep's executor: one that cannot be had, or that cannot start the sweep's
    command, is bad input (nothing is written yet)."""
    where = sweep.control_at
    executor = open_executor(sweep.executor, sweep.executor_options, str(sweep.directory), where)
    check_command(executor, sweep.command, sweep.cwd, where, settable=sweep.hydra is None)
    return executor


def record_submission(
    sweep: Sweep[Any], points: Sequence[Point[Any]], executor: str, job_ids: Sequence[str]
) -> None:
    """Rewrite the manifest with each submitted point's executor and job id."""
    lines = read_manifest(sweep.directory)
    submitted = {p.name: job_id for p, job_id in zip(points, job_ids, strict=True)}
    for line in lines:
        if line["name"] in submitted:
            line.update(executor=executor, job_id=submitted[line["name"]])
    write_files([_manifest_file(sweep, lines)], what="records")


def read_manifest(directory: Path) -> list[dict[str, Any]]:
    """The sweep's manifest.jsonl, a line per point, each naming its point; none is an error."""
    path = directory / MANIFEST_FILE
    lines = read_record_lines(path)
    if lines is None:
        raise SourceError("no such file: the sweep's records are not there", origin=str(path))
    for number, line in enumerate(lines, start=1):
        record_field(line, "name", f"{path}:{number}", _is_name, "the name of a point")
    return lines


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _manifest_file(sweep: Sweep[Any], lines: Sequence[Mapping[str, Any]]) -> NewFile:
    return NewFile(sweep.directory / MANIFEST_FILE, lines_text(lines))


def _manifest_line(sweep: Sweep[Any], point: Point[Any], kept: Mapping[str, Any]) -> dict[str, Any]:
    schema = type(point.config)
    line: dict[str, Any] = {
        "index": point.index,
        "name": point.name,
        "axes": masked_axes(schema, point.axes, point.config, sweep.names),
        "overrides": masked_tokens(schema, point.overrides, point.config, **sweep.grammar),
        "fingerprint": point.fingerprint,
        "command": list(_command(sweep, point)),
        "directory": str(point.directory),
    }
    line.update({key: kept[key] for key in ("executor", "job_id") if key in kept})
    return line


def _manifest_by_name(directory: Path) -> dict[str, dict[str, Any]]:
    """The manifest's lines by point, to keep their job ids; {} if it cannot be read (the
    manifest is written anew)."""
    try:
        return {line["name"]: line for line in read_manifest(directory)}
    except ComposeError:
        return {}


def _command(sweep: Sweep[Any], point: Point[Any]) -> tuple[str, ...]:
    return (*sweep.command, "@", str(config_file(point.directory, sweep.prog)))


def _job(sweep: Sweep[Any], point: Point[Any]) -> Job:
    """The point's job: its command, with the environment layer off (`NO_ENV_VARIABLE`), so
    that it composes the config its record holds and nothing the node's variables would add."""
    env = {NO_ENV_VARIABLE: "1"}
    return Job(point.name, _command(sweep, point), str(point.directory), sweep.cwd, env)


def _write_point(sweep: Sweep[Any], point: Point[Any], made_with: Mapping[str, Any]) -> None:
    """The point's config, run.json and job.json: all or none."""
    schema = type(point.config)
    record = run_record(
        prog=sweep.prog,
        argv=masked_tokens(schema, point.argv, point.config, **sweep.grammar),
        fingerprint=point.fingerprint,
        origins=point_origins(sweep, point),
        sources=sweep.sources,
        cwd=sweep.cwd,
        environment=recorded_environment(point.config, sweep.knobs),
        output=sweep.output,
        now=sweep.now,
        **made_with,
    )
    record["overrides"] = masked_tokens(schema, point.overrides, point.config, **sweep.grammar)
    record["axes"] = masked_axes(schema, point.axes, point.config, sweep.names)
    record["sweep"] = {"name": sweep.name, "index": point.index, "directory": str(sweep.directory)}
    tree = sweep.hydra
    if tree is not None:  # a Hydra app's job: its argv is overrides of this tree (--from-run)
        record["hydra"] = {key: tree[key] for key in ("config_dir", "config_name", "config_dirs")}
    job = job_record(_job(sweep, point))
    files = [
        *config_files(point.directory, {sweep.prog: point.config}),
        NewFile(point.directory / RUN_FILE, record_text(record)),
        NewFile(point.directory / JOB_FILE, record_text(job)),
    ]
    write_files(files, what="records")


def _changed(sweep: Sweep[Any], previous: Mapping[str, Any], resume: bool) -> ComposeError:
    """A sweep whose directory (named by the user) holds another definition: said in the
    grammar of the command line that made it (a Hydra app's has overrides, no sweep file)."""
    differs = [key for key, value in sweep.definition.items() if previous.get(key) != value]
    what = ", ".join(differs) or "its hash"
    if resume:
        message = f"the sweep changed since it was started ({what} differ): it cannot be resumed"
        given = "files" if sweep.hydra is None else "overrides"
        hint = f"resume it with the same {given} and flags, or give a new --sweep-name"
    else:
        message = f"holds another sweep ({what} differ)"
        hint = "give this one a new --sweep-name (or --sweep-dir), or remove the directory"
        if sweep.hydra is not None:  # its own name: a multirun named by its start is new
            hint = (
                "leave out --sweep-name (each -m then gets a new directory), give another, "
                "or remove the directory"
            )
    return ComposeError(message, origin=str(sweep.directory / SWEEP_FILE), hint=hint)
