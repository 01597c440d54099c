"""The records compose reads back (job.json, run.json, status.json, sweep.json, manifest.jsonl)
go through one bounded reader: what is no regular file (a FIFO, /dev/zero through a link) is
refused without blocking, a file past 16 MiB before it is read, and text that is not UTF-8 or
JSON, or nests too deeply, is one error naming the file. Each field is then checked by kind
before it is used: what reaches the OS (a command, its variables, its directory, the files a
rerun reads) holds no NUL, no '=' in a variable's name, no lone surrogate. `compose job` and
`--from-run` say so in one line and exit 2; a status.json that cannot be read is `unknown`."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import point_job, run_command

from compose import BaseConfig, sweep, write_sweep
from compose._jsonfile import MAX_RECORD_BYTES, read_record, read_record_lines
from compose._runs.records import write_records
from compose._runs.status import PointState, read_status, skipped_lines
from compose.errors import SourceError

COMPOSE_JOB = [sys.executable, "-m", "compose", "job"]
DEEP = "[" * 100_000 + "]" * 100_000


def _job(directory: Path, spec: Any) -> str:
    """A point's directory whose job.json holds `spec` (as JSON text when not already text)."""
    directory.mkdir(parents=True, exist_ok=True)
    text = spec if isinstance(spec, str) else json.dumps(spec)
    (directory / "job.json").write_text(text, encoding="utf-8")
    return str(directory)


def _one_error(argv: list[str], cwd: Path | None = None) -> str:
    code, out, err = run_command(argv, cwd=cwd, timeout=60)
    assert (code, out) == (2, "")
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err.removeprefix("error: ").removesuffix("\n")


GOOD = {"argv": ["true"], "env": {}, "cwd": "/"}


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ({**GOOD, "env": {"A=B": "1"}}, "env = {'A=B': '1'}"),
        ({**GOOD, "env": {"A\0B": "1"}}, "env = {'A\\x00B': '1'}"),
        ({**GOOD, "env": {"A": "1\0"}}, "env = {'A': '1\\x00'}"),
        ({**GOOD, "env": {"": "1"}}, "env = {'': '1'}"),
        ({**GOOD, "env": ["A"]}, "env = ['A']"),
        ({**GOOD, "argv": ["tr\0ue"]}, "argv = ['tr\\x00ue']"),
        ({**GOOD, "argv": "true"}, "argv = 'true'"),
        ({**GOOD, "argv": [1]}, "argv = [1]"),
        ({**GOOD, "cwd": ["/"]}, "cwd = ['/']"),
    ],
    ids=[
        "equals",
        "nul-name",
        "nul-value",
        "empty-name",
        "env-list",
        "nul-arg",
        "argv-text",
        "argv-number",
        "cwd-list",
    ],
)
def test_a_job_json_field_of_the_wrong_kind_is_one_error(
    tmp_path: Path, spec: dict[str, Any], said: str
) -> None:
    directory = _job(tmp_path / "p", spec)
    error = _one_error([*COMPOSE_JOB, directory])
    assert error.startswith(f"{said} (from {directory}/job.json): expects ")
    assert not (tmp_path / "p" / "status.json").exists()  # nothing ran


def test_a_lone_surrogate_in_a_jobs_command_is_one_error(tmp_path: Path) -> None:
    """JSON's `\\ud800` escape gives a lone surrogate no byte stands for: the OS cannot take it."""
    directory = _job(tmp_path / "p", '{"argv": ["echo", "\\ud800"], "env": {}, "cwd": "/"}')
    error = _one_error([*COMPOSE_JOB, directory])
    assert error.startswith(f"argv = ['echo', '\\ud800'] (from {directory}/job.json): expects ")


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (DEEP, "is nested too deeply: no record compose writes is"),
        ("{", "is not JSON: Expecting property name enclosed in double quotes"),
        ("[1]", "holds a list, not a JSON object"),
        (b"\xff{}", "is not UTF-8 text (byte 0)"),
        ("1" * 5000, "is not JSON compose reads: an integer of 5000 digits"),
    ],
    ids=["deep", "not-json", "a-list", "not-utf8", "long-integer"],
)
def test_a_job_json_that_is_no_record_is_one_error(
    tmp_path: Path, content: str | bytes, said: str
) -> None:
    directory = tmp_path / "p"
    directory.mkdir()
    path = directory / "job.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert _one_error([*COMPOSE_JOB, str(directory)]) == f"{path}: {said}"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_at_job_json_is_refused_without_blocking(tmp_path: Path) -> None:
    directory = tmp_path / "p"
    directory.mkdir()
    os.mkfifo(directory / "job.json")  # no writer: a reader that waits for one hangs
    error = _one_error([*COMPOSE_JOB, str(directory)])
    assert error == f"{directory}/job.json: is not a regular file: a record is one"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="/dev/zero")
def test_a_link_to_dev_zero_at_job_json_is_refused(tmp_path: Path) -> None:
    directory = tmp_path / "p"
    directory.mkdir()
    (directory / "job.json").symlink_to("/dev/zero")
    error = _one_error([*COMPOSE_JOB, str(directory)])
    assert error == f"{directory}/job.json: is not a regular file: a record is one"


def test_a_record_past_16_mib_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "job.json"
    with path.open("wb") as stream:  # sparse: 17 MiB of nothing on disk
        stream.truncate(17 * 2**20)
    with pytest.raises(SourceError) as caught:
        read_record(path)
    assert str(caught.value) == f"{path}: is larger than 16 MiB: no record compose writes is"
    assert MAX_RECORD_BYTES == 16 * 2**20


def test_a_manifest_line_that_is_no_object_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "manifest.jsonl"
    path.write_text('{"name": "a"}\n\n[2]\n')
    with pytest.raises(SourceError) as caught:
        read_record_lines(path)
    assert str(caught.value) == f"{path}:3: holds a list, not a JSON object"


def test_a_manifest_line_splits_at_newlines_only(tmp_path: Path) -> None:
    """U+2028, which JSON text holds unescaped, is no line break of a `.jsonl` file."""
    path = tmp_path / "manifest.jsonl"
    path.write_text(json.dumps({"name": "a\u2028b"}, ensure_ascii=False) + "\n")
    assert read_record_lines(path) == [{"name": "a\u2028b"}]


# --- --from-run: run.json -------------------------------------------------------------------

APP = """
import sys

from compose import BaseConfig, cli


class App(BaseConfig):
    steps: int = 1


cli(App, sys.argv[1:], prog="app")
"""


@pytest.mark.parametrize(
    ("record", "said"),
    [
        ({"argv": "--steps 2"}, "argv = '--steps 2'"),
        ({"argv": ["--steps", "2\0"]}, "argv = ['--steps', '2\\x00']"),
        ({"argv": [], "sources": ["a.toml"]}, "sources = ['a.toml']"),
        ({"argv": [], "sources": {"a.toml": 1}}, "sources = {'a.toml': 1}"),
        ({"argv": [], "prog": 1}, "prog = 1"),
        ({"argv": [], "config": ["x"]}, "config = ['x']"),
    ],
    ids=["argv-text", "argv-nul", "sources-list", "sources-digest", "prog", "config"],
)
def test_a_run_json_field_of_the_wrong_kind_is_one_error(
    tmp_path: Path, record: dict[str, Any], said: str
) -> None:
    (tmp_path / "app.py").write_text(APP)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "run.json").write_text(json.dumps(record))
    error = _one_error([sys.executable, "app.py", "--from-run", "run"], cwd=tmp_path)
    assert error.startswith(f"{said} (from run/run.json): expects ")


@pytest.mark.parametrize("content", [DEEP, "[]", "nul\0"], ids=["deep", "a-list", "not-json"])
def test_a_run_json_that_is_no_record_is_one_error(tmp_path: Path, content: str) -> None:
    (tmp_path / "app.py").write_text(APP)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "run.json").write_text(content)
    error = _one_error([sys.executable, "app.py", "--from-run", "run"], cwd=tmp_path)
    assert error.startswith("run/run.json: ")


def test_a_run_json_naming_a_file_with_a_nul_is_one_error(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(APP)
    (tmp_path / "run").mkdir()
    record = {"argv": [], "sources": {"a\0.toml": "0" * 64}}
    (tmp_path / "run" / "run.json").write_text(json.dumps(record))
    error = _one_error([sys.executable, "app.py", "--from-run", "run"], cwd=tmp_path)
    assert error.startswith("sources = {'a\\x00.toml': ")


# --- status.json: unknown, never a crash ----------------------------------------------------


@pytest.mark.parametrize(
    "content", ['{"state": "lost"}', DEEP, "[]", '{"state": ["finished"]}', "\0"]
)
def test_a_status_that_cannot_be_read_is_unknown(tmp_path: Path, content: str) -> None:
    job = point_job(tmp_path, "p0", "pass")
    (Path(job.directory) / "status.json").write_text(content)
    assert read_status(job.directory) == {"state": "unknown"}


def test_a_job_whose_status_is_unknown_runs_as_its_first_attempt(tmp_path: Path) -> None:
    job = point_job(tmp_path, "p0", "pass")
    (Path(job.directory) / "status.json").write_text('{"state": "running", "attempt": true}')
    code, _, err = run_command([*COMPOSE_JOB, job.directory])
    assert (code, err) == (0, "")
    status = json.loads((Path(job.directory) / "status.json").read_text())
    assert (status["state"], status["attempt"]) == ("finished", 1)


class Steps(BaseConfig):
    steps: int = 1


def test_a_resumed_sweep_leaves_a_point_whose_status_cannot_be_read_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never a crash: the point is `unknown`, which a resume leaves alone (it may be running:
    only a point that failed or never started runs again), and says what to do."""
    monkeypatch.chdir(tmp_path)
    made = sweep(Steps, [], axes={"steps": ["1", "2", "3"]}, prog="app")
    write_sweep(made)
    finished, damaged, _ = (point.directory / "status.json" for point in made.points)
    finished.write_text('{"state": "finished"}')
    damaged.write_text(DEEP)
    written = write_records(made, resume=True)
    assert [p.name for p in written.todo] == [made.points[2].name]
    assert written.skipped[made.points[1].name] == PointState(
        "unknown", note="status.json cannot be read"
    )
    assert skipped_lines(written.skipped) == [
        "resume: 1 point finished: skipped",
        "resume: 1 point unknown (status.json cannot be read; remove its status.json to run it"
        " again): skipped",
    ]
