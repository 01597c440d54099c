"""`executor = "local"`: a pool of processes on this machine, at most `max_parallel` at once.

`submit` starts one supervisor process in a session of its own and returns: the supervisor
runs the jobs (`compose job DIR` each), so they go on after the submitting command exits
and a Ctrl-C in its terminal does not reach them. Each point's state is in its status.json,
`submitted` from the start; the pool's own messages (a job that could not be started) go to
`<sweep_dir>/local-pool.log`.

    python -m compose._runs.executors.local MAX_PARALLEL < directories

is the supervisor: one point's directory per line of its standard input.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from compose._atomic import open_append
from compose._runs.executors.options import Where, at_least_one, check_options
from compose._runs.jobs import Job, RunsOn
from compose._runs.status import job_command, submitting

POOL_LOG = "local-pool.log"
_OPTIONS = {"max_parallel": int}


class LocalExecutor:
    name = "local"
    runs_on: RunsOn = "here"

    def ready(self) -> None:
        """Always: the pool is this machine."""

    def __init__(self, max_parallel: int, sweep_dir: str) -> None:
        self.max_parallel = max_parallel
        self.sweep_dir = sweep_dir

    def submit(self, jobs: Sequence[Job]) -> list[str]:
        if not jobs:
            return []
        Path(self.sweep_dir).mkdir(parents=True, exist_ok=True)
        with submitting(jobs), open_append(Path(self.sweep_dir) / POOL_LOG) as log:
            supervisor = subprocess.Popen(
                [sys.executable, "-m", __name__, str(self.max_parallel)],
                stdin=subprocess.PIPE,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # not ended with the submitting terminal or process
            )
            assert supervisor.stdin is not None  # asked for above: for the type checker
            supervisor.stdin.write("".join(job.directory + "\n" for job in jobs).encode())
            supervisor.stdin.close()
        return [f"local-{supervisor.pid}-{index}" for index in range(len(jobs))]


def make(options: Mapping[str, Any], sweep_dir: str, where: Where) -> LocalExecutor:
    check_options("local", options, _OPTIONS, where)
    max_parallel = at_least_one(options, "max_parallel", os.cpu_count() or 1, where)
    return LocalExecutor(max_parallel, sweep_dir)


def supervise(max_parallel: int, directories: Sequence[str]) -> None:
    """Run every point, at most `max_parallel` at once. Each `compose job` keeps its own
    status and log, and a failed point does not stop the others: the pool only starts them."""
    with ThreadPoolExecutor(max_workers=max_parallel) as pool:
        list(pool.map(_run_point, directories))


def _run_point(directory: str) -> None:
    subprocess.run(job_command(directory), stdin=subprocess.DEVNULL, check=False)


if __name__ == "__main__":
    points = [line for line in sys.stdin.read().splitlines() if line]
    sys.stdin.close()
    supervise(int(sys.argv[1]), points)
