"""`executor = "sbatch"`: jobs.txt and an `sbatch --array=0-(N-1)%K` script whose task N runs
the point on line N+1; the script's body really runs every point (as Slurm would, one
SLURM_ARRAY_TASK_ID each); with `sbatch` on PATH it is submitted (`--parsable`) and the ids are
`<array id>_<N>`, without it the ids are empty and the command to submit is printed."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from conftest import all_in_state, point_job, run_command

from compose._runs.executors import open_executor
from compose._runs.jobs import Job
from compose._runs.status import read_status
from compose.errors import ComposeError

OPTIONS = {
    "partition": "gpu",
    "time": "04:00:00",
    "gpus": 8,
    "max_parallel": 2,
    "job_name": "lr-sweep",
    "setup": ["export SETUP_RAN=yes"],
    "sbatch_args": ["--account=abc"],
}


@pytest.fixture
def no_sbatch(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PATH without sbatch, whatever this machine has: only what the script's body needs."""
    bin_dir = tmp_path_factory.mktemp("bin")
    for tool in ("bash", "sed"):
        found = shutil.which(tool)
        assert found is not None, tool
        (bin_dir / tool).symlink_to(found)
    monkeypatch.setenv("PATH", str(bin_dir))


def _points(sweep: Path, count: int) -> list[Job]:
    code = "import os; print(os.environ.get('SETUP_RAN'), os.environ['SLURM_ARRAY_TASK_ID'])"
    return [point_job(sweep, f"p{n}", code) for n in range(count)]


@pytest.mark.usefixtures("no_sbatch")
def test_the_script_is_an_array_over_jobs_txt(tmp_path: Path) -> None:
    jobs = _points(tmp_path, 3)
    ids = open_executor("sbatch", OPTIONS, str(tmp_path)).submit(jobs)
    assert ids == ["", "", ""]
    assert (tmp_path / "jobs.txt").read_text().splitlines() == [job.directory for job in jobs]
    assert (tmp_path / "sweep.sbatch").read_text() == (
        "#!/bin/bash\n"
        f"# Written by compose: one array task per point of the sweep {tmp_path.name}.\n"
        "#SBATCH --job-name=lr-sweep\n"
        "#SBATCH --array=0-2%2\n"
        f"#SBATCH --output={tmp_path}/slurm-%A_%a.out\n"
        "#SBATCH --partition=gpu\n"
        "#SBATCH --time=04:00:00\n"
        "#SBATCH --gpus=8\n"
        "#SBATCH --account=abc\n"
        "set -e\n"
        "export SETUP_RAN=yes\n"
        f'dir=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" {tmp_path}/jobs.txt)\n'
        f'exec {sys.executable} -m compose job "$dir"\n'
    )


def test_without_sbatch_it_says_how_to_submit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], no_sbatch: None
) -> None:
    jobs = _points(tmp_path, 1)
    open_executor("sbatch", {}, str(tmp_path)).submit(jobs)
    script = tmp_path / "sweep.sbatch"
    assert capsys.readouterr().err == f"compose: wrote {script}; submit it with: sbatch {script}\n"
    assert "#SBATCH --array=0-0\n" in script.read_text()  # no %K unless asked for
    assert read_status(jobs[0].directory) is None  # nothing was submitted


@pytest.mark.usefixtures("no_sbatch")
def test_each_array_task_runs_its_point(tmp_path: Path) -> None:
    """The body as Slurm runs it: bash, with the task's index in SLURM_ARRAY_TASK_ID."""
    jobs = _points(tmp_path, 3)
    open_executor("sbatch", OPTIONS, str(tmp_path)).submit(jobs)
    for index in range(3):
        env = {**os.environ, "SLURM_ARRAY_TASK_ID": str(index)}
        assert run_command(["bash", str(tmp_path / "sweep.sbatch")], env=env) == (0, "", "")
    assert all_in_state(jobs, "finished")()
    for index, job in enumerate(jobs):
        assert (Path(job.directory) / "log.txt").read_text().splitlines()[1] == f"yes {index}"


def _fake_sbatch(bin_dir: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> Path:
    bin_dir.mkdir()
    (bin_dir / "sbatch").write_text(f"#!/bin/sh\n{script}\n")
    (bin_dir / "sbatch").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    return bin_dir / "calls"


def test_with_sbatch_on_path_the_array_is_submitted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _fake_sbatch(
        tmp_path / "bin", monkeypatch, f'echo "$@" >> {tmp_path}/bin/calls\necho 4242'
    )
    sweep = tmp_path / "sweep"
    jobs = _points(sweep, 2)
    ids = open_executor("sbatch", {}, str(sweep)).submit(jobs)
    assert ids == ["4242_0", "4242_1"]
    assert calls.read_text() == f"--parsable {sweep}/sweep.sbatch\n"
    assert all_in_state(jobs, "submitted")()


def test_a_federated_clusters_id_drops_the_cluster_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_sbatch(tmp_path / "bin", monkeypatch, "echo '77;east'")
    ids = open_executor("sbatch", {}, str(tmp_path / "sweep")).submit(
        _points(tmp_path / "sweep", 1)
    )
    assert ids == ["77_0"]


def test_submit_false_only_writes_the_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls = _fake_sbatch(tmp_path / "bin", monkeypatch, f"echo called > {tmp_path}/bin/calls")
    jobs = _points(tmp_path / "sweep", 1)
    assert open_executor("sbatch", {"submit": False}, str(tmp_path / "sweep")).submit(jobs) == [""]
    assert not calls.exists()
    assert "submit it with: sbatch " in capsys.readouterr().err


def test_a_refused_submission_is_one_error_and_no_point_is_marked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_sbatch(
        tmp_path / "bin", monkeypatch, "echo 'sbatch: error: invalid partition' >&2\nexit 1"
    )
    sweep = tmp_path / "sweep"
    jobs = _points(sweep, 2)
    with pytest.raises(ComposeError) as raised:
        open_executor("sbatch", {"partition": "nope"}, str(sweep)).submit(jobs)
    assert str(raised.value) == (
        f"sbatch refused {sweep}/sweep.sbatch: sbatch: error: invalid partition"
    )
    assert [read_status(job.directory) for job in jobs] == [None, None]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            {"partiton": "gpu"},
            "sweep.executor.partiton = 'gpu': is not an option of the executor 'sbatch'; "
            "did you mean partition?",
        ),
        (
            {"setup": "module load cuda"},
            "sweep.executor.setup = 'module load cuda': expects a list of strings",
        ),
        ({"max_parallel": 0}, "sweep.executor.max_parallel = 0: expects at least 1"),
    ],
)
def test_bad_options_are_one_error_before_anything_is_written(
    tmp_path: Path, options: dict[str, object], message: str
) -> None:
    with pytest.raises(ComposeError) as raised:
        open_executor("sbatch", options, str(tmp_path))
    assert str(raised.value) == message
    assert not (tmp_path / "sweep.sbatch").exists()
