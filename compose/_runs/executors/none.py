"""`executor = "none"`: submit nothing. The records, the manifest and the commands are the
hand-off, for an engine compose has no adapter for (Kubernetes, SkyPilot, a script)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from compose._runs.executors.options import Where, option_path
from compose._runs.jobs import Job, RunsOn
from compose.errors import ComposeError


class NoExecutor:
    name = "none"
    runs_on: RunsOn = "nothing"

    def ready(self) -> None:
        """Always: nothing is handed to anyone."""

    def submit(self, jobs: Sequence[Job]) -> list[str]:
        return ["" for _ in jobs]  # no engine, so no job ids: the manifest keeps its commands


def make(options: Mapping[str, Any], sweep_dir: str, where: Where) -> NoExecutor:
    if options:
        raise ComposeError(
            "the executor 'none' takes no options",
            key="sweep.executor",
            value=dict(options),
            origin=where(option_path()),
        )
    return NoExecutor()
