"""Run records on disk: one directory per point, the sweep's manifest, and single runs' records.

    SWEEP_DIR/sweep.json              the definition and its hash: resume refuses another
    SWEEP_DIR/manifest.jsonl          a line per point: what executors and trackers read
    SWEEP_DIR/POINT/configs/PROG.toml the resolved config: the job's whole input
    SWEEP_DIR/POINT/run.json          how it was made: argv, overrides, origins, versions, git
    SWEEP_DIR/POINT/job.json          the command `compose job POINT` runs

A single run's record is its own run.json beside its configs/ (`compose._runs.rerun`).

Every file is written whole or not at all (a temporary file renamed over it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from compose._output.write import write_configs
from compose._runs.atomic import write_json, write_text
from compose._runs.executors import check_command, open_executor
from compose._runs.jobs import FINISHED, STATUS_FILE, Executor, Job
from compose._runs.provenance import git_state, versions
from compose._runs.run import RUN_FILE, config_file, run_record
from compose._runs.status import write_job
from compose._runs.sweep import SWEEP_FILE, Point, Sweep, point_origins
from compose.errors import ComposeError

MANIFEST_FILE = "manifest.jsonl"


def write_sweep(sweep: Sweep[Any], *, resume: bool = False) -> list[Point[Any]]:
    """Write every point's run record, the manifest and sweep.json; return the points to run.

    An existing sweep directory must hold the same definition (then this rewrites the same
    records); with `resume`, points whose status.json says finished are kept as they are and
    left out of the points returned. Raises `ComposeError` for a changed definition."""
    previous = _recorded_definition(sweep)
    if previous is not None and previous.get("hash") != sweep.definition_hash:
        raise _changed(sweep, previous, resume)
    finished = {point.name for point in sweep.points if resume and _finished(point)}
    made_with = {"git": git_state(sweep.cwd), "versions": versions()}  # asked once per sweep
    for point in sweep.points:
        if point.name not in finished:
            _write_point(sweep, point, made_with)
    instant = {} if sweep.now is None else {"now": sweep.now.isoformat()}
    write_json(
        sweep.directory / SWEEP_FILE, {"hash": sweep.definition_hash, **instant, **sweep.definition}
    )
    kept = _manifest_by_name(sweep.directory) if finished else {}
    lines = [_manifest_line(sweep, point, kept.get(point.name, {})) for point in sweep.points]
    write_manifest(sweep.directory, lines)
    return [point for point in sweep.points if point.name not in finished]


def jobs_of(sweep: Sweep[Any], points: Sequence[Point[Any]]) -> list[Job]:
    """The jobs that run `points`: each its command, `@` its resolved config."""
    return [Job(p.name, _command(sweep, p), str(p.directory), sweep.cwd) for p in points]


def submit_sweep(
    sweep: Sweep[Any], points: Sequence[Point[Any]], executor: Executor | None = None
) -> list[str]:
    """Hand `points` (what `write_sweep` returned) to the sweep's executor, or to `executor`
    (opened beforehand, say, to fail before anything is written); return their job ids, also
    written into the manifest. Returns at once: no job is waited for."""
    if executor is None:
        executor = open_sweep_executor(sweep)
    if not points:
        return []
    job_ids = executor.submit(jobs_of(sweep, points))
    record_submission(sweep, points, executor.name, job_ids)
    return job_ids


def open_sweep_executor(sweep: Sweep[Any]) -> Executor:
    """The sweep's executor: one that cannot be had, or that cannot start the sweep's
    command, is bad input (nothing is written yet)."""
    where = sweep.control_at
    executor = open_executor(sweep.executor, sweep.executor_options, str(sweep.directory), where)
    check_command(executor, sweep.command, sweep.cwd, where)
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
    write_manifest(sweep.directory, lines)


def read_manifest(directory: Path) -> list[dict[str, Any]]:
    path = directory / MANIFEST_FILE
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def write_manifest(directory: Path, lines: Sequence[Mapping[str, Any]]) -> None:
    text = "".join(json.dumps(line, default=str) + "\n" for line in lines)
    write_text(directory / MANIFEST_FILE, text)


def _manifest_line(sweep: Sweep[Any], point: Point[Any], kept: Mapping[str, Any]) -> dict[str, Any]:
    line: dict[str, Any] = {
        "index": point.index,
        "name": point.name,
        "axes": dict(point.axes),
        "overrides": list(point.overrides),
        "fingerprint": point.fingerprint,
        "command": list(_command(sweep, point)),
        "directory": str(point.directory),
    }
    line.update({key: kept[key] for key in ("executor", "job_id") if key in kept})
    return line


def _manifest_by_name(directory: Path) -> dict[str, dict[str, Any]]:
    try:
        return {line["name"]: line for line in read_manifest(directory)}
    except (OSError, ValueError, KeyError):
        return {}


def _command(sweep: Sweep[Any], point: Point[Any]) -> tuple[str, ...]:
    return (*sweep.command, "@", str(config_file(point.directory, sweep.prog)))


def _write_point(sweep: Sweep[Any], point: Point[Any], made_with: Mapping[str, Any]) -> None:
    write_configs(point.directory, {sweep.prog: point.config})
    record = run_record(
        prog=sweep.prog,
        argv=point.argv,
        fingerprint=point.fingerprint,
        origins=point_origins(sweep, point),
        sources=sweep.sources,
        cwd=sweep.cwd,
        now=sweep.now,
        **made_with,
    )
    record["overrides"] = list(point.overrides)
    record["axes"] = dict(point.axes)
    record["sweep"] = {"name": sweep.name, "index": point.index, "directory": str(sweep.directory)}
    write_json(point.directory / RUN_FILE, record)
    write_job(Job(point.name, _command(sweep, point), str(point.directory), sweep.cwd))


def _finished(point: Point[Any]) -> bool:
    return read_status(point.directory).get("state") == FINISHED


def read_status(directory: Path) -> dict[str, Any]:
    """A point's status.json (written by `compose job`), or {} if it has none yet."""
    try:
        data = json.loads((directory / STATUS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _recorded_definition(sweep: Sweep[Any]) -> dict[str, Any] | None:
    path = sweep.directory / SWEEP_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise ComposeError(f"cannot read the sweep's record: {error}", origin=str(path)) from None
    return data if isinstance(data, dict) else {}


def _changed(sweep: Sweep[Any], previous: Mapping[str, Any], resume: bool) -> ComposeError:
    differs = [key for key, value in sweep.definition.items() if previous.get(key) != value]
    what = ", ".join(differs) or "its hash"
    if resume:
        message = f"the sweep changed since it was started ({what} differ): it cannot be resumed"
        hint = "resume it with the same files and flags, or give a new --sweep-name"
    else:
        message = f"holds another sweep ({what} differ)"
        hint = "give this one a new --sweep-name (or --sweep-dir), or remove the directory"
    return ComposeError(message, origin=str(sweep.directory / SWEEP_FILE), hint=hint)
