"""`executor = "ray"`: each point a Ray Job on a running cluster, through its job server
(`pip install 'compose-config[ray]'`).

`address` is the cluster's dashboard (default: $RAY_ADDRESS, else http://127.0.0.1:8265; as
everywhere in Ray, $RAY_ADDRESS wins over the option when set). The server is asked for its
version before the first job, so an unreachable cluster is one error and nothing is submitted.
Each job's entrypoint is `python -m compose job DIR` (`python`: the interpreter on the
cluster's nodes, default this one), its variables also in the runtime environment, and its
submission id `<sweep>-<point>-<attempt>`: the same point submitted again gets the next
attempt, since Ray refuses an id it has seen. `runtime_env` and the `entrypoint_*` resource
options are passed as Ray names them.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ray.job_submission import JobSubmissionClient

from compose._runs.executors.options import Kinds, Where, check_options, option_error
from compose._runs.jobs import Job, RunsOn
from compose._runs.status import job_command, submitting
from compose.errors import ComposeError, counted

DEFAULT_ADDRESS = "http://127.0.0.1:8265"
_RESOURCES = ("entrypoint_num_cpus", "entrypoint_num_gpus", "entrypoint_memory")
_OPTIONS: dict[str, Kinds] = {
    "address": str,
    "python": str,
    "runtime_env": dict,
    "entrypoint_resources": dict,
    **dict.fromkeys(_RESOURCES, (int, float)),
}


class RayExecutor:
    name = "ray"
    runs_on: RunsOn = "nodes"

    def __init__(self, options: Mapping[str, Any], sweep_dir: str, where: Where) -> None:
        self.options = options
        self.where = where
        self.sweep = Path(sweep_dir).name
        self.address = options.get("address") or os.environ.get("RAY_ADDRESS") or DEFAULT_ADDRESS
        self.server: tuple[JobSubmissionClient, set[str | None]] | None = None

    def ready(self) -> None:
        """The job server answers: checked before the sweep writes anything."""
        self.server = self.server or self.connect()

    def submit(self, jobs: Sequence[Job]) -> list[str]:
        if not jobs:
            return []
        client, taken = self.server or self.connect()
        ids: list[str] = []
        for job in jobs:
            try:
                ids.append(self._submit_one(client, job, taken))
            except ComposeError as error:
                if not ids:
                    raise
                done = f"submitted before it ({counted(len(ids), 'job')}): {', '.join(ids)}"
                raise error.evolve(hint=done) from None
        return ids

    def connect(self) -> tuple[JobSubmissionClient, set[str | None]]:
        """A client of the job server, which answered (Ray asks for its version), and the
        submission ids it already has."""
        try:
            client = JobSubmissionClient(self.address)
            return client, {details.submission_id for details in client.list_jobs()}
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise option_error(
                f"cannot reach the Ray job server ({error})",
                self.where,
                self.address,
                "address",
                hint="start a cluster (`ray start --head`), or set address (or $RAY_ADDRESS) "
                "to its dashboard, http://HEAD:8265",
            ) from None

    def _submit_one(self, client: JobSubmissionClient, job: Job, taken: set[str | None]) -> str:
        attempt = 1
        while f"{self.sweep}-{job.name}-{attempt}" in taken:
            attempt += 1
        submission_id = f"{self.sweep}-{job.name}-{attempt}"
        python = self.options.get("python", sys.executable)
        runtime_env = dict(self.options.get("runtime_env", {}))
        runtime_env["env_vars"] = {**runtime_env.get("env_vars", {}), **job.env}
        resources = {key: self.options[key] for key in _RESOURCES if key in self.options}
        with submitting([job]):
            try:
                client.submit_job(
                    entrypoint=shlex.join(job_command(job.directory, python)),
                    runtime_env=runtime_env,
                    submission_id=submission_id,
                    entrypoint_resources=self.options.get("entrypoint_resources"),
                    **resources,
                )
            except Exception as error:  # the server's refusal, whatever its type: say it once
                raise ComposeError(f"Ray refused the job: {error}", value=job.directory) from None
        taken.add(submission_id)
        return submission_id


def make(options: Mapping[str, Any], sweep_dir: str, where: Where) -> RayExecutor:
    check_options("ray", options, _OPTIONS, where)
    return RayExecutor(options, sweep_dir, where)
