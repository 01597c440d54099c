"""What a run record says of where it was made: the git state of the work tree (its commit,
and whether it has changes) and the versions of compose, Pydantic and Python.

The one module of the records that runs a program (`git`, with a fixed argv, no shell) or
looks up installed distributions: kept alone so that is easy to see (tests/test_safety.py).

git runs no program of the work tree's own config: a repository's config (an unpacked archive,
a directory another tool set up) can name programs that `git status` runs, and a run record
must not run them. Switched off, from the command line (which wins over every config file):
the fsmonitor hook (`core.fsmonitor`, run on every status), hooks (`core.hooksPath`: a status
that refreshed the index would run post-index-change), and the clean filters of every filter
driver configured (`filter.NAME.clean` and `.process`, run on a file whose stat data changed:
a driver git is told is `required` then makes the status fail, and the record has no git
state). Submodules' work trees are not looked into (`--ignore-submodules=dirty`: each would be
a git status of its own, under its own config); a submodule at another commit is still a
change. What status never reaches (`diff.external`, textconv, `core.sshCommand`, credential
helpers, the pager) is left as it is, and so is `safe.directory`: git refuses a repository
another user owns, and the record then has no git state.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pydantic

from compose._version import VERSION

# git, running no program the work tree's config names (see the module's docstring)
GIT = ("git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null")
# `--no-optional-locks`: a plain `git status` refreshes the index and writes it back, under
# `index.lock`, whenever a file's stat data changed; a user's own `git commit` running at that
# moment would fail on the lock. A record only reads.
GIT_STATUS = (
    "--no-optional-locks",
    "status",
    "--porcelain=v2",
    "--branch",
    "-uno",
    "--ignore-submodules=dirty",
)
# The names of the config's filter drivers' settings (`filter.lfs.clean`), NUL-ended
GIT_FILTERS = (*GIT, "config", "--null", "--name-only", "--get-regexp", r"^filter\.")
GIT_TIMEOUT = 10.0  # seconds: a work tree on a hung network mount gives no state, not a hang


def git_state(cwd: str) -> dict[str, Any] | None:
    """The commit checked out in the work tree holding `cwd`, and whether it has changes: one
    `git config` and one `git status` call (per sweep, not per point). None without git or a
    work tree, or when git cannot tell without running a program of the work tree's."""
    with git_state_meanwhile(cwd) as answer:
        return answer()


@contextlib.contextmanager
def git_state_meanwhile(cwd: str) -> Iterator[Callable[[], dict[str, Any] | None]]:
    """`git status` started now, as a process of its own, while the block goes on: call what
    it gives for the answer (`git_state`'s). A process rather than a thread: git runs on
    another core at once, where a thread would wait for the GIL until this one blocks (a
    record's work before it needs the answer is ~1 ms: it holds the GIL throughout). Leaving
    the block stops a git that was never asked for its answer. Before it, `git config` names
    the filter drivers to switch off (~1 ms, waited for)."""
    filters = _filters_off(cwd)
    if filters is None:
        yield lambda: None
        return
    try:
        process = subprocess.Popen(
            status_argv(filters),
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


def status_argv(filters_off: list[str]) -> list[str]:
    """The `git status` that gives a record's state, these filters switched off."""
    return [*GIT, *filters_off, *GIT_STATUS]


def _filters_off(cwd: str) -> list[str] | None:
    """`-c` options that switch off the clean filter of each filter driver the config holds
    (an empty command is no filter); None when git cannot be asked, or a driver's name cannot
    be written in `-c NAME=VALUE` (git would read an `=` in it as the value's start)."""
    try:
        listed = subprocess.run(
            GIT_FILTERS,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):  # no git, no such directory, a hung mount
        return None
    # `filter.NAME.clean`: the driver's name is what lies between the first and the last dot
    drivers = {name.partition(b".")[2].rpartition(b".")[0] for name in listed.stdout.split(b"\0")}
    drivers.discard(b"")
    if any(b"=" in driver for driver in drivers):
        return None
    names = [driver.decode("utf-8", "surrogateescape") for driver in sorted(drivers)]
    settings = [f"filter.{name}.{command}=" for name in names for command in ("clean", "process")]
    return [word for setting in settings for word in ("-c", setting)]


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
