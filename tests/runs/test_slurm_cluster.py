"""Job arrays on a real Slurm cluster (`slurm_cluster`): what the sbatch and submitit executors
rely on, checked with plain `sbatch --array` before any executor is in the way."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import run_command

if TYPE_CHECKING:
    from slurm_cluster import SlurmCluster

pytest_plugins = ["slurm_cluster"]  # its fixtures; see its docstring for why not an import


def test_every_element_of_a_job_array_runs_once_with_its_task_id(
    slurm_cluster: SlurmCluster, tmp_path: Path
) -> None:
    record = 'echo "$SLURM_ARRAY_JOB_ID $SLURM_ARRAY_TASK_ID" >> out.$SLURM_ARRAY_TASK_ID'
    job_id = slurm_cluster.submit("--array=0-3", f"--chdir={tmp_path}", "--wrap", record)

    states = slurm_cluster.wait_for_array(job_id)

    assert states == dict.fromkeys(range(4), "COMPLETED")
    for task in range(4):
        assert (tmp_path / f"out.{task}").read_text() == f"{job_id} {task}\n"


def test_a_failing_element_is_reported_and_does_not_stop_the_others(
    slurm_cluster: SlurmCluster, tmp_path: Path
) -> None:
    job_id = slurm_cluster.submit(
        "--array=0-3", f"--chdir={tmp_path}", "--wrap", 'test "$SLURM_ARRAY_TASK_ID" != 2'
    )

    states = slurm_cluster.wait_for_array(job_id)

    assert states == {0: "COMPLETED", 1: "COMPLETED", 2: "FAILED", 3: "COMPLETED"}


@pytest.mark.usefixtures("on_slurm_cluster")
def test_on_the_cluster_a_plain_sbatch_reaches_it_through_the_inherited_environment(
    tmp_path: Path,
) -> None:
    code, out, err = run_command(
        ["sbatch", "--wait", f"--chdir={tmp_path}", "--wrap", "echo ran > out"], timeout=120
    )

    assert (code, err) == (0, "")
    assert out.startswith("Submitted batch job ")
    assert (tmp_path / "out").read_text() == "ran\n"


def test_without_a_cluster_ci_fails_where_a_developer_skips(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from conftest import cannot_run  # what slurm_cluster skips or fails with

    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no Slurm here"):
        cannot_run("no Slurm here")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="no Slurm here"):
        cannot_run("no Slurm here")
