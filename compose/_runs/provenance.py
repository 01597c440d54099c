"""What a run record says of where it was made: the git state of the work tree (its commit,
and whether it has changes) and the versions of compose, Pydantic and Python.

The one module of the records that runs a program (`git`, with a fixed argv, no shell) or
looks up installed distributions: kept alone so that is easy to see (tests/test_safety.py).
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

import pydantic

from compose._version import VERSION


def git_state(cwd: str) -> dict[str, Any] | None:
    """The commit checked out in the work tree holding `cwd`, and whether it has changes: one
    `git status` call (per sweep, not per point). None without git or a work tree.

    `--no-optional-locks`: a plain `git status` refreshes the index and writes it back, under
    `index.lock`, whenever a file's stat data changed; a user's own `git commit` running at
    that moment would fail on the lock. A record only reads."""
    try:
        done = subprocess.run(
            ["git", "--no-optional-locks", "status", "--porcelain=v2", "--branch", "-uno"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    lines = done.stdout.splitlines()
    commit = next((line.split()[2] for line in lines if line.startswith("# branch.oid ")), None)
    if commit is None or commit == "(initial)":
        return None
    return {"commit": commit, "dirty": any(not line.startswith("#") for line in lines)}


def git_state_soon(cwd: str) -> Callable[[], dict[str, Any] | None]:
    """`git_state(cwd)`, asked now in a thread of its own: call the result for the answer.

    `git status` takes a few milliseconds, most of them in git, not here: a run record is
    made meanwhile (its origins and fingerprint), which halves what a single run's record
    adds to a cold start.
    """
    answer: list[dict[str, Any] | None] = []
    thread = threading.Thread(target=lambda: answer.append(git_state(cwd)), daemon=True)
    thread.start()

    def wait() -> dict[str, Any] | None:
        thread.join()
        return answer[0] if answer else None

    return wait


def versions() -> dict[str, str]:
    """compose's, Pydantic's and Python's versions (read from the modules themselves:
    `importlib.metadata` would cost every run that writes a record more than composing)."""
    python = ".".join(map(str, sys.version_info[:3]))
    return {"compose": VERSION, "pydantic": pydantic.VERSION, "python": python}
