"""The sbatch and submitit executors against a real one-node Slurm (`slurm_cluster`), as issue
21 asks: each submits one job array and returns `<array id>_<N>` per point, every point runs
once as its array task, with its own cwd and variables and through this venv's compose, and
its status.json and log.txt say how it went; a failing point fails in Slurm's eyes too and
does not stop the others.

The points are judged by their files, never by submitit's `state`: without accounting, `sacct`
fails and submitit reports every job UNKNOWN (see `slurm_cluster`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import point_job, wait_until

from compose._runs.executors import open_executor
from compose._runs.jobs import Job
from compose._runs.status import job_command, read_status, write_job

if TYPE_CHECKING:
    from slurm_cluster import SlurmCluster

pytest_plugins = ["slurm_cluster"]  # its fixtures; see its docstring for why not an import

# A point's command: it writes what it saw to a file named relative to its cwd, so the file's
# place proves the cwd; its parent's argv is the process that ran it on the node.
POINT = """\
import json, os, sys
with open(f"/proc/{os.getppid()}/cmdline") as cmdline:
    parent = cmdline.read().split("\\0")[:-1]
seen = {"task": os.environ["SLURM_ARRAY_TASK_ID"], "parent": parent}
with open(f"seen-{os.environ['POINT']}.json", "w") as file:
    json.dump(seen, file)
print("ran", os.environ["POINT"])
sys.exit(int(os.environ.get("EXIT", "0")))
"""


def _points(sweep: Path, count: int, *, failing: int | None = None) -> list[Job]:
    """`count` points run from `sweep/work`, not from where Slurm starts a job (the submitting
    process's cwd), their job.json written; point `failing` exits 3."""
    work = sweep / "work"
    work.mkdir(parents=True)
    jobs = []
    for n in range(count):
        env = {"POINT": f"p{n}", **({"EXIT": "3"} if n == failing else {})}
        job = replace(point_job(sweep, f"p{n}", POINT, env=env), cwd=str(work))
        write_job(job)
        jobs.append(job)
    return jobs


def _ended(jobs: Sequence[Job]) -> Callable[[], bool]:
    return lambda: all(
        (read_status(job.directory) or {}).get("state") in {"finished", "failed"} for job in jobs
    )


def _seen(job: Job) -> dict[str, Any]:
    seen: dict[str, Any] = json.loads(Path(job.cwd, f"seen-{job.env['POINT']}.json").read_text())
    return seen


def _array_of(ids: Sequence[str]) -> str:
    """The array's id, once each id has been checked to be `<it>_<index>` in order."""
    array = ids[0].split("_")[0]
    assert list(ids) == [f"{array}_{index}" for index in range(len(ids))]
    return array


def _scontrol_fields(cluster: SlurmCluster, job_id: str, field: str) -> list[str]:
    """`field` of each record `scontrol show job` has for `job_id` (an array's, one per task
    started plus one for those pending)."""
    records = cluster.run("scontrol", "--oneliner", "show", "job", job_id).splitlines()
    return [
        word.split("=", 1)[1]
        for record in records
        for word in record.split()
        if word.startswith(f"{field}=")
    ]


# --- sbatch ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("on_slurm_cluster")
def test_sbatch_runs_every_point_as_its_array_task(
    slurm_cluster: SlurmCluster, tmp_path: Path
) -> None:
    jobs = _points(tmp_path, 3)

    ids = open_executor("sbatch", {}, str(tmp_path)).submit(jobs)

    array = _array_of(ids)
    assert slurm_cluster.wait_for_array(array, tasks=3) == dict.fromkeys(range(3), "COMPLETED")
    wait_until(_ended(jobs), "every point's status.json says it ended")
    for index, job in enumerate(jobs):
        assert _outcome(job) == ("finished", 0)
        assert Path(job.directory, "log.txt").read_text().splitlines()[1:] == [f"ran p{index}"]
        seen = _seen(job)
        assert seen["task"] == str(index)
        assert seen["parent"] == job_command(job.directory)  # this venv's python -m compose


@pytest.mark.usefixtures("on_slurm_cluster")
def test_sbatch_a_failing_point_fails_with_its_exit_code_and_the_others_finish(
    slurm_cluster: SlurmCluster, tmp_path: Path
) -> None:
    jobs = _points(tmp_path, 3, failing=1)

    array = _array_of(open_executor("sbatch", {}, str(tmp_path)).submit(jobs))

    states = slurm_cluster.wait_for_array(array, tasks=3)
    assert states == {0: "COMPLETED", 1: "FAILED", 2: "COMPLETED"}
    wait_until(_ended(jobs), "every point's status.json says it ended")
    outcomes = [_outcome(job) for job in jobs]
    assert outcomes == [("finished", 0), ("failed", 3), ("finished", 0)]


@pytest.mark.usefixtures("on_slurm_cluster")
def test_sbatch_max_parallel_is_the_throttle_slurm_accepted(
    slurm_cluster: SlurmCluster, tmp_path: Path
) -> None:
    jobs = _points(tmp_path, 3)

    array = _array_of(open_executor("sbatch", {"max_parallel": 1}, str(tmp_path)).submit(jobs))

    throttles = _scontrol_fields(slurm_cluster, array, "ArrayTaskThrottle")
    assert throttles and set(throttles) == {"1"}
    slurm_cluster.wait_for_array(array, tasks=3)  # leave the queue empty for the next test


# --- submitit ----------------------------------------------------------------------------------


@pytest.mark.needs("submitit")
@pytest.mark.usefixtures("on_slurm_cluster")
def test_submitit_submits_one_array_whose_points_all_finish(
    slurm_cluster: SlurmCluster, tmp_path: Path
) -> None:
    jobs = _points(tmp_path, 3)

    ids = open_executor("submitit", {"cluster": "slurm"}, str(tmp_path)).submit(jobs)

    array = _array_of(ids)
    assert slurm_cluster.wait_for_array(array, tasks=3) == dict.fromkeys(range(3), "COMPLETED")
    wait_until(_ended(jobs), "every point's status.json says it ended")
    for index, job in enumerate(jobs):
        assert _outcome(job) == ("finished", 0)
        assert Path(job.directory, "log.txt").read_text().splitlines()[1:] == [f"ran p{index}"]
        seen = _seen(job)
        assert seen["task"] == str(index)
        assert seen["parent"][0] == sys.executable  # run_job in this venv's interpreter


@pytest.mark.needs("submitit")
@pytest.mark.usefixtures("on_slurm_cluster")
def test_submitit_a_failing_point_is_a_failed_task_in_slurm(
    slurm_cluster: SlurmCluster, tmp_path: Path
) -> None:
    """As with the sbatch script: Slurm (`squeue`, `--dependency=afterok`) must not take a
    failed point for a completed one."""
    jobs = _points(tmp_path, 3, failing=2)

    array = _array_of(open_executor("submitit", {"cluster": "slurm"}, str(tmp_path)).submit(jobs))

    states = slurm_cluster.wait_for_array(array, tasks=3)
    assert states == {0: "COMPLETED", 1: "COMPLETED", 2: "FAILED"}
    wait_until(_ended(jobs), "every point's status.json says it ended")
    assert [_outcome(job) for job in jobs] == [("finished", 0), ("finished", 0), ("failed", 3)]


def _outcome(job: Job) -> tuple[str, int]:
    status = read_status(job.directory) or {}
    return status.get("state", ""), status.get("exit_code", -1)


@pytest.mark.usefixtures("on_slurm_cluster")
def test_sbatch_submit_false_writes_a_script_that_runs_when_submitted_by_hand(
    slurm_cluster: SlurmCluster, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = _points(tmp_path, 2)

    ids = open_executor("sbatch", {"submit": False}, str(tmp_path)).submit(jobs)

    assert ids == ["", ""]
    assert [read_status(job.directory) for job in jobs] == [None, None]  # not even `submitted`
    command = capsys.readouterr().err.rsplit("submit it with: ", 1)[1].split()
    assert command == ["sbatch", str(tmp_path / "sweep.sbatch")]
    slurm_cluster.wait_for_array(slurm_cluster.submit(*command[1:]), tasks=2)
    wait_until(_ended(jobs), "every point's status.json says it ended")
    assert [_outcome(job) for job in jobs] == [("finished", 0), ("finished", 0)]


@pytest.mark.usefixtures("on_slurm_cluster")
def test_sbatch_reads_awkward_values_back_as_they_were_given(
    slurm_cluster: SlurmCluster, tmp_path: Path
) -> None:
    """A job name with quotes, `#` and a backslash, an argument with a space, and a sweep
    directory holding `%j`, a space and quotes: sbatch reads each `#SBATCH` word as compose
    wrote it, and each task's Slurm output goes to that directory, its `%j` not replaced."""
    sweep = tmp_path / 'it\'s 100%j "x" #1'
    jobs = _points(sweep, 2)
    name = "say \"hi\" #1 \\ 'ok'"
    options = {"job_name": name, "sbatch_args": ["--comment=two words"]}

    array = _array_of(open_executor("sbatch", options, str(sweep)).submit(jobs))

    slurm_cluster.wait_for_array(array, tasks=2)
    wait_until(_ended(jobs), "every point's status.json says it ended")
    assert [_outcome(job) for job in jobs] == [("finished", 0), ("finished", 0)]
    shown = slurm_cluster.run("scontrol", "show", "job", f"{array}_0").splitlines()
    assert shown[0].split(" JobName=", 1)[1] == name
    assert "   Comment=two words " in shown  # scontrol ends the field with a space
    outputs = sorted(path.name for path in sweep.glob("slurm-*.out"))
    assert outputs == [f"slurm-{array}_0.out", f"slurm-{array}_1.out"]
