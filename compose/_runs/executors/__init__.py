"""The engines a sweep can hand its jobs to, each imported only when asked for.

`open_executor("submitit", options, sweep_dir)` imports `compose._runs.executors.submitit`
(and through it the engine's own package) only then, so that a missing optional extra is one
clear error naming the extra to install, and an entrypoint that never sweeps never pays for
an engine's import.
"""

from __future__ import annotations

import importlib
import os
import shutil
from collections.abc import Mapping, Sequence
from typing import Any

from compose._runs.executors.options import Where, nowhere, option_path
from compose._runs.jobs import Executor
from compose._warn import warn
from compose.errors import ComposeError, ComposeWarning, closest

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
COMMAND = ("sweep", "command")  # the control that says what starts a point, as errors name it


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
        # given by its flag, the flag is the key (a Hydra app has no `sweep.executor`)
        key = origin if origin is not None and origin.startswith("--") else "sweep.executor"
        origin = None if key == origin else origin
        raise ComposeError("no such executor", key=key, value=name, origin=origin, hint=hint)
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


def check_command(
    executor: Executor,
    command: Sequence[str],
    cwd: str,
    where: Where = nowhere,
    *,
    settable: bool = True,
) -> None:
    """The program that starts every point (the command's first word) can be started where
    `executor` runs the points, checked before anything is written or submitted.

    On this machine (`executor.runs_on == "here"`): a name must be a program on PATH, a path
    (relative to `cwd`, where the points run) an executable file. On a cluster's nodes: a path
    must be an executable file here too, since the nodes read the sweep's records from the
    same shared file system; a name missing from this PATH is only a warning, as the nodes'
    PATH may hold it. An executor that runs nothing (`none`) is not asked. `settable`: a sweep
    file's `[sweep] command` can set it; a Hydra app's multirun has none, and starts the app
    as it was started (`launched_as`), which the error says instead."""
    if executor.runs_on == "nothing" or not command:
        return
    program = command[0]
    key = "sweep.command" if settable else None
    origin = where(COMMAND)
    hint = (
        'set [sweep] command to the words that start the program: ["python", "train.py"]'
        if settable
        else "the points start the app by this name (its prog): put it on PATH, or start the "
        "app as the script of that name (python NAME.py -m ...)"
    )
    if os.path.dirname(program):  # a path, not a name looked up on PATH
        path = os.path.join(cwd, program)  # an absolute path stays as it is
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return
        problem = "is not an executable file" if os.path.exists(path) else "does not exist"
        message = f"cannot start the points: {problem}"
        raise ComposeError(message, key=key, value=program, origin=origin, hint=hint)
    if shutil.which(program) is not None:
        return
    if executor.runs_on == "here":
        message = "cannot start the points: no such program on PATH"
        raise ComposeError(message, key=key, value=program, origin=origin, hint=hint)
    warn(
        f"{key + ' = ' if key else ''}{program!r}: no such program on this machine's PATH; the "
        f"points start only if the PATH of the {executor.name} executor's nodes holds it",
        ComposeWarning,
    )
