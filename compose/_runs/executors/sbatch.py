"""`executor = "sbatch"`: an `sbatch --array` script over the sweep, for clusters whose submit
host has Slurm but not submitit (or where the cluster's team owns the job script).

Writes `<sweep_dir>/jobs.txt` (one point's directory a line, in order) and
`<sweep_dir>/sweep.sbatch`, whose array task N runs `compose job` on line N+1. Then, when
`sbatch` is on PATH and `submit` is not false, submits it (`sbatch --parsable`) and returns
`<array id>_<N>` per point; otherwise returns no ids and prints the command that submits it.

Options: `partition`, `time` ("04:00:00"), `gpus`, `cpus_per_task`, `mem` ("32G"),
`job_name` (default: the sweep's directory name), `max_parallel` (the array's `%K`),
`setup` (shell lines run before the job: `module load`, `source .venv/bin/activate`),
`sbatch_args` (more `#SBATCH` arguments: `["--account=abc", "--qos=high"]`), `python` (the
interpreter that runs `-m compose job` on the nodes; default: this one) and `submit`.

No value becomes a line of the script: each is written as one word of its `#SBATCH` line or
of the command (quoted as sbatch and bash read them back), each `setup` element is one line,
each line of jobs.txt one directory; a value that cannot be written so (a line break, a
control character) is refused, naming the option and where it was written, before anything
is written. In `--output`, a path Slurm expands (`%j`, `%A`), the sweep's directory has its
`%` doubled.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from compose._atomic import NewFile, write_files
from compose._runs.executors.options import (
    Kinds,
    Where,
    at_least_one,
    check_options,
    option_error,
)
from compose._runs.jobs import Job, RunsOn
from compose._runs.status import job_command, submitting
from compose.errors import ComposeError

SCRIPT = "sweep.sbatch"
JOBS = "jobs.txt"  # the array's task N runs the point on line N+1
OUTPUT = "slurm-%A_%a.out"  # Slurm's own output of each task: the job's is in its log.txt

# option -> the sbatch flag it sets (the others shape the script, not the allocation)
_FLAGS = {
    "partition": "--partition",
    "time": "--time",
    "gpus": "--gpus",
    "cpus_per_task": "--cpus-per-task",
    "mem": "--mem",
}
_OPTIONS: dict[str, Kinds] = {
    "partition": str,
    "time": str,
    "gpus": (int, str),
    "cpus_per_task": int,
    "mem": str,
    "job_name": str,
    "max_parallel": int,
    "setup": list,
    "sbatch_args": list,
    "python": str,
    "submit": bool,
}


# The options that are one word of the script each (an `#SBATCH` value, the interpreter)
_WORDS = ("job_name", *_FLAGS, "python")
# What sbatch reads of an `#SBATCH` line as it splits it into words: blanks part them, quotes
# ('...' or "...") group, a backslash takes the next character as it is, and an unquoted `#`
# starts a comment. A word with none of these is written as it is, any other in double quotes.
_PLAIN_WORD = re.compile(r"[^\s'\"\\#]+")


class SbatchExecutor:
    name = "sbatch"
    runs_on: RunsOn = "nodes"

    def ready(self) -> None:
        """Always: without `sbatch` on PATH the script is written for you to submit."""

    def __init__(self, options: Mapping[str, Any], sweep_dir: str, where: Where) -> None:
        self.options = options
        self.sweep_dir = Path(sweep_dir).resolve()
        _check_values(options, self.sweep_dir, where)

    def submit(self, jobs: Sequence[Job]) -> list[str]:
        if not jobs:
            return []
        script = self.write(jobs)
        sbatch = shutil.which("sbatch")
        if sbatch is None or self.options.get("submit", True) is False:
            command = shlex.join(["sbatch", str(script)])  # pasted into a shell as it is
            sys.stderr.write(f"compose: wrote {script}; submit it with: {command}\n")
            return ["" for _ in jobs]
        with submitting(jobs):
            array_id = _sbatch(sbatch, script)
        return [f"{array_id}_{index}" for index in range(len(jobs))]

    def write(self, jobs: Sequence[Job]) -> Path:
        """jobs.txt and the script, for these jobs."""
        for job in jobs:
            if not _one_line(job.directory):  # it would shift every task after it
                message = "cannot be a line of jobs.txt: it holds a line break"
                raise ComposeError(message, value=job.directory, origin=f"point {job.name}")
        script = self.sweep_dir / SCRIPT
        listed = "".join(f"{job.directory}\n" for job in jobs)
        files = [NewFile(self.sweep_dir / JOBS, listed), NewFile(script, self.script(len(jobs)))]
        write_files(files, what="the sweep's batch files")
        return script

    def script(self, count: int) -> str:
        """The batch script of an array of `count` tasks."""
        options = self.options
        array = f"0-{count - 1}"
        if "max_parallel" in options:
            array += f"%{options['max_parallel']}"
        directives = [
            f"--job-name={options.get('job_name', self.sweep_dir.name)}",
            f"--array={array}",
            f"--output={_literal_pattern(str(self.sweep_dir))}/{OUTPUT}",
            *(f"{flag}={options[key]}" for key, flag in _FLAGS.items() if key in options),
            *options.get("sbatch_args", ()),
        ]
        *compose_job, _ = job_command("", options.get("python", sys.executable))
        jobs_file = shlex.quote(str(self.sweep_dir / JOBS))
        lines = [
            "#!/bin/bash",
            f"# Written by compose: one array task per point of the sweep {self.sweep_dir.name}.",
            *(f"#SBATCH {_sbatch_word(directive)}" for directive in directives),
            "set -e",
            *options.get("setup", ()),
            f'dir=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" {jobs_file})',
            f'exec {shlex.join(compose_job)} "$dir"',
        ]
        return "\n".join(lines) + "\n"


def _check_values(options: Mapping[str, Any], sweep_dir: Path, where: Where) -> None:
    """Every value the script will hold can be written there as itself (see the module's
    docstring): one error, naming the first that cannot, before anything is written."""
    words: list[tuple[Any, tuple[str | int, ...]]] = [
        *((options[key], (key,)) for key in _WORDS if key in options),
        *(
            (word, ("sbatch_args", index))
            for index, word in enumerate(options.get("sbatch_args", ()))
        ),
    ]
    for value, inner in words:
        problem = _word_problem(str(value))
        if problem:
            raise option_error(problem, where, value, *inner)
    for index, line in enumerate(options.get("setup", ())):
        if not _one_line(line):
            message = "is one line of shell in sweep.sbatch: it holds a line break"
            hint = "give each line its own element of setup"
            raise option_error(message, where, line, "setup", index, hint=hint)
    directory = str(sweep_dir)
    problem = _word_problem(directory)
    if "\\" in directory:  # Slurm drops it from --output, and replaces no %A_%a after it
        problem = "cannot be Slurm's --output: Slurm reads a backslash as 'replace nothing'"
    if problem:
        origin = where(("sweep", "dir"))  # an absolute path: never empty
        message = f"the sweep's directory {problem}"
        raise ComposeError(message, key="sweep.dir", value=directory, origin=origin)


def _word_problem(text: str) -> str:
    """Why `text` cannot be one word of sweep.sbatch ("" when it can)."""
    if not text:
        return "expects a value, not an empty string"
    if not text.isprintable():
        return "cannot be written into sweep.sbatch: it holds a line break or a control character"
    return ""


def _one_line(text: str) -> bool:
    """Whether `text` is one line as bash, sed and anyone reading it see lines: no line break
    of any kind, and no NUL (which bash drops)."""
    return "\0" not in text and text.splitlines() in ([], [text])


def _sbatch_word(text: str) -> str:
    """`text` as one word of an `#SBATCH` line, which sbatch reads back as `text` exactly."""
    if _PLAIN_WORD.fullmatch(text):
        return text
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def _literal_pattern(path: str) -> str:
    """`path` in a Slurm filename pattern (`--output`), which replaces `%j`, `%A`, `%a`...:
    each `%` doubled, so that the pattern names this path."""
    return path.replace("%", "%%")


def _sbatch(sbatch: str, script: Path) -> str:
    """Submit the script; the array's id (`--parsable` prints `ID` or `ID;CLUSTER`)."""
    try:
        done = subprocess.run(
            [sbatch, "--parsable", str(script)], capture_output=True, text=True, check=False
        )
    except OSError as error:
        raise ComposeError(f"cannot run sbatch on {script}: {error}") from None
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        # Slurm's last line is its verdict ("sbatch: fatal: ..."), the lines before its steps
        said = lines[-1] if lines else f"exit status {done.returncode}"
        raise ComposeError(f"sbatch refused {script}: {said}")
    return done.stdout.strip().split(";")[0]


def make(options: Mapping[str, Any], sweep_dir: str, where: Where) -> SbatchExecutor:
    check_options("sbatch", options, _OPTIONS, where)
    if "max_parallel" in options:
        at_least_one(options, "max_parallel", 1, where)
    return SbatchExecutor(options, os.fspath(sweep_dir), where)
