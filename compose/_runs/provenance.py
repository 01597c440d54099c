"""What a run record says of where it was made: the git state of the work tree (its commit,
and whether it has changes) and the versions of compose, Pydantic and Python.

The one module of the records that runs a program (`git`, with a fixed argv, no shell) or
looks up installed distributions: kept alone so that is easy to see (tests/test_safety.py).
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pydantic

from compose._version import VERSION

# `--no-optional-locks`: a plain `git status` refreshes the index and writes it back, under
# `index.lock`, whenever a file's stat data changed; a user's own `git commit` running at that
# moment would fail on the lock. A record only reads.
GIT_STATUS = ("git", "--no-optional-locks", "status", "--porcelain=v2", "--branch", "-uno")
GIT_TIMEOUT = 10.0  # seconds: a work tree on a hung network mount gives no state, not a hang


def git_state(cwd: str) -> dict[str, Any] | None:
    """The commit checked out in the work tree holding `cwd`, and whether it has changes: one
    `git status` call (per sweep, not per point). None without git or a work tree."""
    with git_state_meanwhile(cwd) as answer:
        return answer()


@contextlib.contextmanager
def git_state_meanwhile(cwd: str) -> Iterator[Callable[[], dict[str, Any] | None]]:
    """`git status` started now, as a process of its own, while the block goes on: call what
    it gives for the answer (`git_state`'s). A process rather than a thread: git runs on
    another core at once, where a thread would wait for the GIL until this one blocks (a
    record's work before it needs the answer is ~1 ms: it holds the GIL throughout). Leaving
    the block stops a git that was never asked for its answer."""
    try:
        process = subprocess.Popen(
            GIT_STATUS,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):  # no git, or no such directory
        yield lambda: None
        return
    answers: list[dict[str, Any] | None] = []

    def answer() -> dict[str, Any] | None:
        if not answers:
            answers.append(_answer_of(process))
        return answers[0]

    try:
        yield answer
    finally:
        if process.returncode is None:
            process.kill()
            process.communicate()


def _answer_of(process: subprocess.Popen[bytes]) -> dict[str, Any] | None:
    try:
        output, _ = process.communicate(timeout=GIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        return None  # killed on leaving the block
    if process.returncode != 0:
        return None  # no work tree here (or no commit yet)
    # Bytes: a file name in the listing need not be text in any encoding
    lines = output.splitlines()
    commit = next((line.split()[2] for line in lines if line.startswith(b"# branch.oid ")), None)
    if commit is None or commit == b"(initial)":
        return None
    return {"commit": commit.decode(), "dirty": any(not line.startswith(b"#") for line in lines)}


def versions() -> dict[str, str]:
    """compose's, Pydantic's and Python's versions (read from the modules themselves:
    `importlib.metadata` would cost every run that writes a record more than composing)."""
    python = ".".join(map(str, sys.version_info[:3]))
    return {"compose": VERSION, "pydantic": pydantic.VERSION, "python": python}
