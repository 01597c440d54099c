"""`executor = "submitit"`: the whole sweep as one Slurm job array, through submitit
(`pip install 'compose-config[submitit]'`).

`cluster` picks submitit's executor: "slurm", or "local" to run the same array as processes of
this machine (how the tests run it); left out, submitit takes Slurm where `srun` is found. Every
other option goes to `AutoExecutor.update_parameters` as submitit names it: `timeout_min`,
`gpus_per_node`, `slurm_partition`, `slurm_array_parallelism` (how many run at once)...
Each array task calls `run_point(DIR)` (`run_job`, failing the task when the point fails);
`submit` returns the job ids (`<array id>_<index>` on Slurm) and never waits for a result,
unlike Hydra's launcher (hydra #2479). submitit keeps its pickles and logs in
`<sweep_dir>/submitit`; the point's own output is in its log.txt. A job's `state` in submitit
comes from `sacct`: on a cluster without accounting it is UNKNOWN, so the points' status.json
files, not submitit, say how they went.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import submitit
from submitit.core import plugins

from compose._runs.executors.options import Kinds, Where, check_options, option_path
from compose._runs.jobs import Job, RunsOn
from compose._runs.status import run_job, submitting
from compose.errors import ComposeError

FOLDER = "submitit"  # under the sweep's directory: submitit's pickles and logs
HERE = ("local", "debug")  # submitit's clusters that run the array's tasks on this machine


class SubmititExecutor:
    name = "submitit"

    def ready(self) -> None:
        """submitit checked its cluster and parameters when it was opened (`make`)."""

    def __init__(self, executor: submitit.AutoExecutor) -> None:
        self.executor = executor
        self.runs_on: RunsOn = "here" if executor.cluster in HERE else "nodes"

    def submit(self, jobs: Sequence[Job]) -> list[str]:
        if not jobs:
            return []  # submitit warns about an empty array: there is nothing to say
        with submitting(jobs):
            try:
                array = self.executor.map_array(run_point, [job.directory for job in jobs])
            except Exception as error:  # the engine's failure, whatever its type: say it once
                raise ComposeError(f"submitit could not submit the sweep: {error}") from None
        return [str(job.job_id) for job in array]


class PointFailed(RuntimeError):
    """A point's command exited non-zero: raised in the array task so that submitit and
    Slurm count the task as failed."""


def run_point(directory: str) -> int:
    """What each array task runs: `run_job(DIR)`, and `PointFailed` when the point fails.
    A returned exit code is a successful result to submitit, so Slurm would report a failed
    point COMPLETED (seen on a real cluster), where the sbatch script's task is FAILED;
    `squeue` and `--dependency=afterok` must not take it for a success. The point's own
    status.json and log.txt are written before, either way."""
    code = run_job(directory)
    if code != 0:
        raise PointFailed(f"the point {directory} failed with exit code {code}: see its log.txt")
    return code


def make(options: Mapping[str, Any], sweep_dir: str, where: Where) -> SubmititExecutor:
    check_options("submitit", options, _known_options(), where)
    parameters = {key: value for key, value in options.items() if key != "cluster"}
    folder = Path(sweep_dir) / FOLDER
    try:
        executor = submitit.AutoExecutor(folder=folder, cluster=options.get("cluster"))
        executor.update_parameters(**parameters)
    except (AssertionError, NameError, RuntimeError, TypeError, ValueError) as error:
        # submitit's own checks of a cluster name or a parameter's type, in its words
        message = f"submitit rejects the options: {error}"
        origin = where(option_path())
        raise ComposeError(
            message, key="sweep.executor", value=dict(options), origin=origin
        ) from None
    return SubmititExecutor(executor)


def _known_options() -> dict[str, Kinds]:
    """What `update_parameters` takes: the shared names, and each executor's own and the
    shared ones prefixed with its name (`slurm_partition`, `slurm_timeout_min`). submitit
    checks the types itself, and its messages say which it expects."""
    shared = submitit.AutoExecutor._valid_parameters()
    names = {"cluster", *shared}
    for prefix, executor in plugins.get_executors().items():
        names |= {f"{prefix}_{name}" for name in {*executor._valid_parameters(), *shared}}
    return dict.fromkeys(names, object)
