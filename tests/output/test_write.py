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
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_python

import compose._atomic
from compose import OutputError, write_configs
from compose._atomic import NewFile

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
    monkeypatch.setattr(os, "replace", _failing_on(2, error))  # as compose._atomic sees it
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


def _handled(send: Callable[[], None]) -> None:
    """`send()` a SIGINT, and return once the handler in place (compose's, during a commit)
    has run: delivered to another thread, it reaches the main thread's handler only when the
    other thread is scheduled, which on a busy machine may be after the commit ended."""
    handler = signal.getsignal(signal.SIGINT)
    assert callable(handler)
    arrived = threading.Event()

    def noting(signum: int, frame: Any) -> None:
        handler(signum, frame)
        arrived.set()

    signal.signal(signal.SIGINT, noting)
    send()
    deadline = time.monotonic() + 60  # a hang guard, not a speed goal
    while not arrived.wait(0.01):  # the main thread runs a handler between bytecodes only
        assert time.monotonic() < deadline, "the signal never reached its handler"


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
        ident = other.ident
        assert ident is not None
        _handled(lambda: signal.pthread_kill(ident, signal.SIGINT))  # the kernel chose the other
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
import compose._atomic
from compose import write_configs

real, seen = os.replace, [0]
def replace(source, target, **kwargs):
    seen[0] += 1
    if seen[0] == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    real(source, target, **kwargs)

compose._atomic.os.replace = replace
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
    monkeypatch.setattr(compose._atomic, "_LOCK_WAIT", 0.2)
    try:
        with pytest.raises(OutputError) as caught:
            write_configs(tmp_path, NEW)
    finally:
        os.close(held)
    assert str(caught.value) == (
        f"{tmp_path / 'configs'}: another process has been writing configs here for 0.2 s"
    )


def test_a_read_only_config_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    """A rename replaces a read-only file all the same: the writer refuses it first, and
    leaves it read-only (never made writable behind its owner's back)."""
    write_configs(tmp_path, OLD)
    before = _contents(tmp_path)
    target = tmp_path / "configs" / "orchestrator.toml"
    target.chmod(0o444)
    with pytest.raises(OutputError) as caught:
        write_configs(tmp_path, NEW)
    assert str(caught.value) == (
        f"{target}: is read-only: it is not replaced, and nothing else was written; "
        "make it writable (chmod u+w) if it is to be rewritten"
    )
    assert _contents(tmp_path) == before
    assert target.stat().st_mode & 0o777 == 0o444


def test_a_write_across_directories_is_all_or_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One call's files in several directories (`compose migrate`'s): a rename failing in the
    last puts back those already replaced in the others."""
    first, second = tmp_path / "a" / "x.txt", tmp_path / "b" / "y.txt"
    compose._atomic.write_files([NewFile(first, "old a\n"), NewFile(second, "old b\n")])
    monkeypatch.setattr(os, "replace", _failing_on(2, OSError(5, "Input/output error")))
    with pytest.raises(OutputError, match=r"cannot write y\.txt: Input/output error"):
        compose._atomic.write_files([NewFile(first, "new a\n"), NewFile(second, "new b\n")])
    assert (first.read_text(), second.read_text()) == ("old a\n", "old b\n")
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == ["x.txt", "y.txt"]


def test_a_file_given_its_own_mode_keeps_it_whatever_the_umask(tmp_path: Path) -> None:
    """A file rewritten in place keeps its mode (0644 under a umask of 077); a new one gets
    the umask's."""
    previous = os.umask(0o077)
    try:
        compose._atomic.write_files(
            [NewFile(tmp_path / "kept.toml", "a = 1\n", 0o644), NewFile(tmp_path / "new", "")]
        )
    finally:
        os.umask(previous)
    assert (tmp_path / "kept.toml").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o600


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_an_append_to_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "log.txt")  # nobody reads it: opening it to write would wait
    with pytest.raises(OutputError) as caught:
        compose._atomic.open_append(tmp_path / "log.txt")
    assert str(caught.value) == (
        f"{tmp_path / 'log.txt'}: is not a regular file: compose appends only to a file of its own"
    )
