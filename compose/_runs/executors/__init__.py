"""The engines a sweep can hand its jobs to, each imported only when asked for.

`open_executor("submitit", options, sweep_dir)` imports `compose._runs.executors.submitit`
(and through it the engine's own package) only then, so that a missing optional extra is one
clear error naming the extra to install, and an entrypoint that never sweeps never pays for
an engine's import.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from compose._runs.executors.options import Where, nowhere, option_path
from compose._runs.jobs import Executor
from compose.errors import ComposeError, closest

# name -> the module that defines `make(options, sweep_dir, where) -> Executor`
EXECUTORS: dict[str, str] = {
    "none": "compose._runs.executors.none",  # records and manifest only: for an engine of your own
    "local": "compose._runs.executors.local",  # a pool of processes on this machine
    "submitit": "compose._runs.executors.submitit",  # Slurm, or its local stand-in: one array
    "sbatch": "compose._runs.executors.sbatch",  # an `sbatch --array` script over the manifest
    "ray": "compose._runs.executors.ray",  # Ray Jobs on a running cluster
}
# name -> the optional extra that installs its engine (`pip install 'compose-config[ray]'`)
EXTRAS: dict[str, str] = {"submitit": "submitit", "ray": "ray"}


def open_executor(
    name: str, options: Mapping[str, Any], sweep_dir: str, where: Where = nowhere
) -> Executor:
    """The executor called `name`, configured by `options` (the sweep file's
    `[sweep.executor]` table), writing its own files under `sweep_dir`. `where` says where
    the executor and its options were written (`Sweep.control_at`), for the errors."""
    if name not in EXECUTORS:
        near = closest(name, EXECUTORS, cutoff=0.6)
        hint = f"did you mean {near}?" if near else f"choose one of {', '.join(sorted(EXECUTORS))}"
        origin = where(option_path("name"))  # the table's `name`, else the control itself
        raise ComposeError(
            "no such executor", key="sweep.executor", value=name, origin=origin, hint=hint
        )
    try:
        module = importlib.import_module(EXECUTORS[name])
    except ImportError as error:
        missing = error.name or ""
        if name not in EXTRAS or missing == "compose" or missing.startswith("compose."):
            raise  # compose's own module is missing: a broken install, not a missing extra
        raise ComposeError(
            f"executor {name!r} needs the extra: pip install 'compose-config[{EXTRAS[name]}]'",
            hint=f"cannot import {missing or error}",
        ) from None
    executor: Executor = module.make(options, sweep_dir, where)
    return executor
