"""A real single-node Slurm cluster for tests that submit jobs, started once per session.

`.ci/slurm start DIR` installs Debian's packages if they are missing (munge, slurmctld, slurmd,
slurm-client), starts munged, slurmctld and slurmd on free ports with their own munge key,
and waits for the node to be idle; `.ci/slurm stop DIR` cancels what is left and stops them.
Here (2 cores, Debian 12, Slurm 22.05) a start takes 1.5 s, 5.5 s with a fresh install from
Debian's mirror (8 packages, 3.5 MB); a 4-element array of `true` runs in 3 s, most of it
Slurm's scheduling passes.

Use, from a test module: name this module in `pytest_plugins`, and import it only for type
checking, so that pytest loads it first as a plugin (and rewrites its asserts) and no import
shadows the fixture a test asks for by name:

    if TYPE_CHECKING:
        from slurm_cluster import SlurmCluster

    pytest_plugins = ["slurm_cluster"]

    def test_it(slurm_cluster: SlurmCluster, tmp_path: Path) -> None:
        job_id = slurm_cluster.submit("--array=0-3", f"--chdir={tmp_path}", "--wrap", "true")
        assert set(slurm_cluster.wait_for_array(job_id).values()) == {"COMPLETED"}

- `slurm_cluster` (session): the running cluster. Its `env` is this environment plus
  `SLURM_CONF`, for the child processes a test starts itself (`sbatch`, `squeue`, `scontrol`).
- `on_slurm_cluster` (per test): sets `SLURM_CONF` in this process's environment too, for code
  under test that calls `sbatch` or submitit with the environment it inherits.

Accounting is off (no slurmdbd), so `sacct` answers "accounting storage is disabled": ask
`scontrol show job` (as `SlurmCluster.wait_for_array` does), which keeps a finished job for
5 minutes (MinJobAge). submitit works against it (seen by hand with submitit 1.5.4: a
`map_array` of 4 returned its results in 4 s) but, asking `sacct`, logs "Bypassing sacct
error" and reports every job's `state` as UNKNOWN: test results and files, not states.

Where the packages cannot be installed (not root, no apt-get, no network), the tests that use
the cluster are skipped, except under `CI=true` (set by `.ci/run`), where they fail: a skip in
CI would pass off as a test of Slurm that never ran.
"""

from __future__ import annotations

import os
import shlex
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ROOT, cannot_run, run_command

SCRIPT = ROOT / ".ci" / "slurm"
CANNOT_INSTALL = 3  # the script's exit status when the packages are missing and cannot be had
START_TIMEOUT = 300.0  # a hang guard: an install from the network is most of it
ARRAY_TIMEOUT = 120.0  # a hang guard for `wait_for_array`, far above the 3 s an array takes here
# What a job or array element ends in (`scontrol` spelling); the others are on the way there.
FINISHED = frozenset(
    {
        "BOOT_FAIL",
        "CANCELLED",
        "COMPLETED",
        "DEADLINE",
        "FAILED",
        "NODE_FAIL",
        "OUT_OF_MEMORY",
        "PREEMPTED",
        "TIMEOUT",
    }
)


@dataclass(frozen=True)
class SlurmCluster:
    """A running cluster: its directory (config, logs, state) and the environment to reach it."""

    directory: Path
    env: Mapping[str, str]

    @property
    def conf(self) -> Path:
        return self.directory / "slurm.conf"

    def run(self, *argv: str, cwd: Path | None = None) -> str:
        """The stdout of a Slurm client command against this cluster; it must succeed."""
        code, out, err = run_command(argv, cwd=cwd, env=self.env)
        assert code == 0, f"{' '.join(argv)} exited {code}: {err}"
        return out

    def submit(self, *sbatch_args: str) -> str:
        """`sbatch ARGS`, returning the job id (of the array, for an array)."""
        out = self.run("sbatch", "--parsable", *sbatch_args)
        return out.strip().split(";")[0]  # `--parsable` prints `id` or `id;cluster`

    def array_states(self, job_id: str) -> dict[int, str]:
        """Each array element's state by task id, as `scontrol` knows it now.

        The elements still pending share one record (`ArrayTaskId=2-3`) and are left out: an
        element appears here once it has been started.
        """
        records = self.run("scontrol", "--oneliner", "show", "job", job_id).splitlines()
        states: dict[int, str] = {}
        for record in records:
            fields = dict(field.split("=", 1) for field in record.split() if "=" in field)
            task = fields.get("ArrayTaskId", "")
            if task.isdigit():
                states[int(task)] = fields["JobState"]
        return states

    def wait_for_array(
        self, job_id: str, tasks: int = 4, timeout: float = ARRAY_TIMEOUT
    ) -> dict[int, str]:
        """The final state of each of the `tasks` elements of array `job_id`, once all have one."""
        deadline = time.monotonic() + timeout
        while True:
            states = self.array_states(job_id)
            if len(states) == tasks and FINISHED.issuperset(states.values()):
                return states
            if time.monotonic() > deadline:
                raise AssertionError(f"job {job_id} not finished after {timeout:.0f}s: {states}")
            time.sleep(0.2)


@pytest.fixture(scope="session")
def slurm_cluster() -> Iterator[SlurmCluster]:
    # Not under pytest's tmp_path: munged wants every directory above its socket searchable by
    # all, and pytest's base directory is private (0700).
    directory = Path(tempfile.mkdtemp(prefix="compose-slurm-"))
    directory.chmod(0o755)
    try:
        yield _start(directory)
    finally:
        run_command([SCRIPT, "stop", directory])
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def on_slurm_cluster(slurm_cluster: SlurmCluster, monkeypatch: pytest.MonkeyPatch) -> SlurmCluster:
    monkeypatch.setenv("SLURM_CONF", str(slurm_cluster.conf))
    return slurm_cluster


def _start(directory: Path) -> SlurmCluster:
    code, out, err = run_command([SCRIPT, "start", directory], timeout=START_TIMEOUT)
    if code == CANNOT_INSTALL:
        cannot_run(f"no Slurm on this machine: {err.strip().splitlines()[-1]}")
    assert code == 0, f".ci/slurm start exited {code}:\n{err}"
    return SlurmCluster(directory, {**os.environ, **_exported(out)})


def _exported(script_output: str) -> dict[str, str]:
    """The variables of the script's `export NAME=VALUE` lines (shell-quoted values)."""
    words = [shlex.split(line) for line in script_output.splitlines() if line.strip()]
    assert all(line[0] == "export" and len(line) == 2 for line in words), script_output
    return dict(line[1].split("=", 1) for line in words)
