"""`write_configs` writes a set of files: a reader afterwards finds the old set or the new set.

Components start from the files of one run; a trainer config from one run beside an
orchestrator config from another would be a run nobody asked for. So a write that fails, is
interrupted, or is killed outright leaves no mix and, once the directory is written again, no
temporary file; and two writers of one directory take turns.
"""

from __future__ import annotations

import os
import signal
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_python

import compose._output.write
from compose import OutputError, write_configs

OLD = {"trainer": {"run": "old"}, "orchestrator": {"run": "old"}, "inference": {"run": "old"}}
NEW = {"trainer": {"run": "new"}, "orchestrator": {"run": "new"}, "inference": {"run": "new"}}


def _contents(directory: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted((directory / "configs").iterdir())}


def _runs(directory: Path) -> set[str]:
    """Which runs the files of the directory come from: one, unless the set is a mix."""
    return {text.split('"')[1] for text in _contents(directory).values()}


def _failing_on(call: int, error: BaseException) -> Callable[..., None]:
    """`os.replace` that raises `error` on its `call`-th rename of a staged file."""
    real, seen = os.replace, [0]

    def replace(source: Any, target: Any, **kwargs: Any) -> None:
        if str(source).endswith(".tmp"):
            seen[0] += 1
            if seen[0] == call:
                raise error
        real(source, target, **kwargs)

    return replace


@pytest.mark.parametrize(
    "error", [OSError(5, "Input/output error"), KeyboardInterrupt()], ids=["io", "interrupt"]
)
def test_a_commit_that_fails_part_way_puts_the_old_set_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    write_configs(tmp_path, OLD)
    before = _contents(tmp_path)
    monkeypatch.setattr(os, "replace", _failing_on(2, error))  # as compose._output.write sees it
    with pytest.raises((OutputError, KeyboardInterrupt)):
        write_configs(tmp_path, NEW)
    assert _contents(tmp_path) == before


def test_a_failed_commit_removes_the_files_that_had_no_old_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_configs(tmp_path, {"trainer": {"run": "old"}})
    monkeypatch.setattr(os, "replace", _failing_on(3, OSError(28, "No space")))
    with pytest.raises(OutputError, match="No space"):
        write_configs(tmp_path, NEW)
    assert _contents(tmp_path) == {"trainer.toml": 'run = "old"\n'}


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """SIGINT as Python sets it up in a terminal (KeyboardInterrupt): a process started in the
    background by a shell inherits it ignored, as CI's runner may start the suite."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
@pytest.mark.usefixtures("ctrl_c_raises")
def test_ctrl_c_during_the_commit_arrives_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interrupt is not lost: it is raised once the new set is complete."""
    write_configs(tmp_path, OLD)
    real = os.replace

    def replace(source: Any, target: Any, **kwargs: Any) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # as if the user pressed Ctrl-C right now
        real(source, target, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        write_configs(tmp_path, NEW)
    assert _runs(tmp_path) == {"new"}
    assert [p.name for p in (tmp_path / "configs").iterdir() if p.name.startswith(".")] == []


@pytest.mark.skipif(not hasattr(signal, "pthread_kill"), reason="POSIX threads")
@pytest.mark.usefixtures("ctrl_c_raises")
def test_ctrl_c_that_another_thread_receives_waits_for_the_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernel hands a signal sent to the process to any thread that does not mask it (an
    app's logging or loader thread); Python then runs its handler in the main thread. It
    still waits for the commit: the new set is complete when the interrupt arrives."""
    write_configs(tmp_path, OLD)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)
    other.start()
    real = os.replace

    def replace(source: Any, target: Any, **kwargs: Any) -> None:
        assert other.ident is not None
        signal.pthread_kill(other.ident, signal.SIGINT)  # the kernel chose the other thread
        real(source, target, **kwargs)

    monkeypatch.setattr(os, "replace", replace)
    try:
        with pytest.raises(KeyboardInterrupt):
            write_configs(tmp_path, NEW)
    finally:
        stop.set()
        other.join()
    assert _runs(tmp_path) == {"new"}
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_writer_thread_commits_without_touching_the_handlers(tmp_path: Path) -> None:
    """Only the main thread may set signal handlers: a writer in another thread masks the
    signals in itself instead, and the main thread's handlers stay as they were."""
    write_configs(tmp_path, OLD)
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    failures: list[BaseException] = []

    def write() -> None:
        try:
            write_configs(tmp_path, NEW)
        except BaseException as error:  # reported below, in the test's thread
            failures.append(error)

    writer = threading.Thread(target=write)
    writer.start()
    writer.join()
    assert failures == []
    assert _runs(tmp_path) == {"new"}
    assert {signum: signal.getsignal(signum) for signum in before} == before


_KILLED_MID_COMMIT = """
import os, signal, sys
import compose._output.write
from compose import write_configs

real, seen = os.replace, [0]
def replace(source, target, **kwargs):
    seen[0] += 1
    if seen[0] == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    real(source, target, **kwargs)

compose._output.write.os.replace = replace
runs = ("trainer", "orchestrator", "inference")
write_configs(sys.argv[1], {name: {"run": "new"} for name in runs} | {"extra": {"run": "new"}})
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and directory locks")
def test_the_next_write_undoes_a_writer_killed_mid_commit(tmp_path: Path) -> None:
    write_configs(tmp_path, OLD)
    code, _, _ = run_python(textwrap.dedent(_KILLED_MID_COMMIT), str(tmp_path))
    assert code == -signal.SIGKILL
    assert _runs(tmp_path) == {"old", "new"}  # the mix a killed writer leaves behind
    write_configs(tmp_path, {"inference": {"run": "next"}})
    after = _contents(tmp_path)
    assert after == {
        "inference.toml": 'run = "next"\n',
        "orchestrator.toml": 'run = "old"\n',
        "trainer.toml": 'run = "old"\n',
    }  # its old set back, nothing of the killed one, no temporary file


def _hold_lock(directory: Path) -> int:
    """Be another writer, as `write_configs` sees one: hold the configs directory's lock."""
    fcntl = pytest.importorskip("fcntl")
    (directory / "configs").mkdir(exist_ok=True)
    fd = os.open(directory / "configs", os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_a_writer_waits_for_another_writer_of_the_directory(tmp_path: Path) -> None:
    held = _hold_lock(tmp_path)
    writer = threading.Thread(target=write_configs, args=(tmp_path, NEW))
    writer.start()
    writer.join(timeout=0.5)
    assert writer.is_alive()
    assert _contents(tmp_path) == {}  # nothing written while the other writer is at it
    os.close(held)
    writer.join(timeout=30)
    assert not writer.is_alive()
    assert _runs(tmp_path) == {"new"}


def test_a_writer_that_waited_too_long_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = _hold_lock(tmp_path)
    monkeypatch.setattr(compose._output.write, "_LOCK_WAIT", 0.2)
    try:
        with pytest.raises(OutputError) as caught:
            write_configs(tmp_path, NEW)
    finally:
        os.close(held)
    assert str(caught.value) == (
        f"{tmp_path / 'configs'}: another process has been writing configs here for 0.2 s"
    )
