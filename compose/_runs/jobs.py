"""What a sweep hands to an engine, and what the engine leaves behind: the seam between the
records (`compose._runs.records`) and the executors (`compose._runs.executors`).

A `Job` is a plain command and the directory of its run record. An `Executor` submits jobs
and returns at once with their ids; it never waits for a job to finish (Hydra's submitit
launcher blocks until every job returns, hydra #2479). Each job is run through
`compose job DIR` (`compose._runs.status`), which runs the command with DIR/log.txt as its
output and keeps DIR/status.json up to date, so that a resumed sweep can tell which points
finished whatever engine ran them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, get_args

STATUS_FILE = "status.json"  # {"state": State, "exit_code": int | None, "host", "started", "ended"}
LOG_FILE = "log.txt"  # the command's stdout and stderr, interleaved
JOB_FILE = "job.json"  # {"argv": [...], "env": {...}, "cwd": "..."}: what `compose job DIR` runs
State = Literal["submitted", "running", "finished", "failed"]
RunsOn = Literal["here", "nodes", "nothing"]  # this machine, a cluster's, or no machine at all
FINISHED: State = "finished"  # exit code 0; a resumed sweep skips such points
STATES: tuple[State, ...] = get_args(State)
UNKNOWN = "unknown"  # the state of a status.json that cannot be read: never a crash


@dataclass(frozen=True)
class Job:
    """One point of a sweep, ready to run."""

    name: str
    """The point's name: its directory's name, the same for the same config."""
    argv: tuple[str, ...]
    """The command, for example `("rl", "@", "/abs/runs/lr/3f2a9c1d0b4e/rl.toml")`."""
    directory: str
    """The point's run record (absolute): job.json, status.json and log.txt are written there."""
    cwd: str
    """Where the command runs (absolute): the directory the sweep was launched from."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables set for the command, on top of the engine's environment."""


class Executor(Protocol):
    """An engine that runs jobs somewhere. `ready` raises a `ComposeError` saying what to fix
    when the engine cannot take jobs now (a cluster not reachable), so that a sweep writes and
    submits nothing; `submit` returns one id per job, in order, once the engine has accepted
    them, without waiting for any to run or finish. `runs_on` says where the points' commands
    are started (`executors.check_command` checks the command can be started there)."""

    name: str
    runs_on: RunsOn

    def ready(self) -> None: ...

    def submit(self, jobs: Sequence[Job]) -> list[str]: ...
