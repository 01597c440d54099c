"""Every file compose writes, through one writer: configs (`write_configs`), run records
(run.json, job.json, status.json, sweep.json, manifest.jsonl), an sbatch executor's jobs.txt
and script, the files `compose migrate` rewrites, the docstring index. Each call writes a set
of files, all or none, with the same promises for every file:

- **Whole or not at all.** Every file is written to a temporary file beside its target
  (`.NAME.PID-TAG.tmp`, made exclusively, never through a symlink) before any target
  changes; a full disk, text UTF-8 cannot hold or Ctrl-C while writing changes no file and
  leaves no temporary. The renames over the targets are one commit: Ctrl-C, SIGTERM and
  SIGHUP wait until it ends, and a rename that fails puts back every target replaced so far.
- **Replaced, never followed.** A target is replaced by a rename through a descriptor of its
  directory: a symlink planted at a target's name is replaced by the new file, and the file it
  points to is never written; a symlink swapped in for the directory while writing cannot
  send the files elsewhere.
- **Modes.** A new file gets `0o666 & ~umask`, as `open()` makes files; a caller gives
  `PRIVATE` (0600) for a file that holds a secret, or the mode a file rewritten in place
  keeps. A target that is read-only (or immutable) is refused before anything is written:
  compose never makes a file writable behind its owner's back.
- **Writers take turns, and undo a killed one.** A writer holds a lock on each directory it
  writes (`flock`, where there is one). One killed outright mid-commit (SIGKILL, a power cut)
  leaves the files it replaced beside their targets (`.NAME.PID-TAG.old`, or a `.new` marker
  where there was none); the next writer of that directory puts them back first.

Files are not `fsync`ed: a power cut may lose the newest set, never leave a mix.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import stat
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from compose.errors import ComposeError, OutputError

PRIVATE = 0o600  # a file that holds a secret: its owner's alone
_NEW = 0o666  # narrowed by the process's umask, as open() makes any file
_KEPT = ".{name}.{token}.{kind}"  # tmp: staged; old: the replaced file; new: it had none
_LEFTOVER = re.compile(r"\.(?P<name>.+)\.[0-9]+-[0-9a-f]{8}\.(?P<kind>tmp|old|new)")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_EXCLUSIVE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW
_DEFERRED = {
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
}
# A symlink target is kept as the link it is (`linkat` without following, where there is one)
_LINK_NOT_FOLLOWING = {"follow_symlinks": False} if os.link in os.supports_follow_symlinks else {}
# `os.replace` takes descriptors wherever `os.rename` does (the sets list only the latter)
_AT_DIRECTORY = {os.open, os.rename, os.link, os.unlink, os.stat, os.access} <= os.supports_dir_fd
_LOCK_WAIT = 30.0  # seconds to wait for another writer of the same directory


@dataclass(frozen=True)
class NewFile:
    """A file to write: its path, its content (text is written as UTF-8) and its mode (None:
    `0o666 & ~umask`; else exactly this one, not narrowed by the umask)."""

    path: Path
    content: str | bytes
    mode: int | None = None


def write_file(
    path: str | os.PathLike[str], content: str | bytes, *, mode: int | None = None
) -> Path:
    """One file, as `write_files` writes a set (see the module docstring)."""
    target = Path(path)
    write_files([NewFile(target, content, mode)], what=target.name)
    return target


def write_files(files: Sequence[NewFile], what: str = "files") -> None:
    """Write every file, all or none (see the module docstring). A directory that cannot be
    made or written, a read-only target, a file that cannot be written: an `OutputError`
    naming it and why, and no file changed. `what` names the files in errors about a
    directory ("cannot write configs here")."""
    contents = [_encoded(file) for file in files]  # text UTF-8 cannot hold: before any directory
    if len({file.path for file in files}) < len(files):
        raise ValueError("a file is given twice")
    with contextlib.ExitStack() as stack:
        # each directory locked in one order (by path), so two writers never wait on each other
        directories = sorted({file.path.parent for file in files}, key=str)
        opened = {path: stack.enter_context(_opened(path, what)) for path in directories}
        for where in opened.values():
            if where.locked:
                _recover(where)
        targets = [(opened[file.path.parent], file.path.name) for file in files]
        for where, name in targets:
            _refuse_read_only(where, name)
        token = f"{os.getpid()}-{os.urandom(4).hex()}"
        staged: list[_Staged] = []
        try:
            for (where, name), content, file in zip(targets, contents, files, strict=True):
                staged.append(_stage(where, name, token, content, file.mode))
            with _signals_deferred():
                _commit(staged, token)
            staged.clear()  # every temporary is now its target: nothing left to remove
        finally:
            for done in staged:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(done.temporary, **done.where.at)


def open_append(path: str | os.PathLike[str]) -> BinaryIO:
    """`path` opened to append to (made if need be, `0o666 & ~umask`), a regular file only and
    never through a symlink: an append cannot be a rename, so a symlink planted at its name
    is an `OutputError` naming it, and its target is never written."""
    shown = os.fspath(path)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _NONBLOCK  # a FIFO never blocks
    try:
        fd = os.open(path, flags, _NEW)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise OutputError(_A_LINK, origin=shown) from None
        if error.errno == errno.ENXIO:  # a FIFO nobody reads
            raise OutputError(_NOT_A_FILE, origin=shown) from None
        raise OutputError(f"cannot be written: {_reason(error)}", origin=shown) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OutputError(_NOT_A_FILE, origin=shown)
    return os.fdopen(fd, "ab")


_A_LINK = "is a symbolic link: compose appends only to a file of its own, never through a link"
_NOT_A_FILE = "is not a regular file: compose appends only to a file of its own"


@dataclass(frozen=True)
class _Staged:
    where: _Directory
    name: str  # the target's, in `where`
    temporary: str  # as the os calls take it


def _encoded(file: NewFile) -> bytes:
    if isinstance(file.content, bytes):
        return file.content
    try:
        return file.content.encode("utf-8")
    except UnicodeEncodeError:
        raise OutputError(
            "cannot be written: it holds text UTF-8 cannot hold (a lone surrogate)",
            origin=str(file.path),
        ) from None


def _stage(where: _Directory, name: str, token: str, content: bytes, mode: int | None) -> _Staged:
    temporary = where.name(_KEPT.format(name=name, token=token, kind="tmp"))
    fd = _os_call(where, name, os.open, temporary, _EXCLUSIVE, _NEW, **where.at)
    staged = _Staged(where, name, temporary)
    try:
        if mode is not None and hasattr(os, "fchmod"):  # exactly this mode, whatever the umask
            os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as stream:
            stream.write(content)
    except BaseException as error:
        os.unlink(temporary, **where.at)  # a full disk, Ctrl-C: leave nothing
        if isinstance(error, OSError):
            raise _cannot_write(where, name, error) from None
        raise
    return staged


def _commit(staged: Sequence[_Staged], token: str) -> None:
    """Rename each staged file over its target, keeping what it replaces until all are in:
    a failure part-way puts the old files back (and removes the new ones that had none)."""
    kept: list[tuple[_Directory, str]] = []  # the old files and markers, removed at the end
    done: list[tuple[_Directory, str, str, str]] = []  # (where, target, kept file, kind)
    try:
        for file in staged:
            where, target = file.where, file.where.name(file.name)
            old, kind = _keep_old(where, file.name, token)
            kept.append((where, old))
            try:
                _os_call(where, file.name, os.replace, file.temporary, target, **where.rename)
            except BaseException:
                if kind == "moved":  # the target was moved aside, and stays its old self
                    _undo(where, target, old, kind)
                raise
            done.append((where, target, old, kind))
    except BaseException:
        for where, target, old, kind in reversed(done):
            with contextlib.suppress(OSError):  # put back all that can be, then say what failed
                _undo(where, target, old, kind)
        raise
    finally:
        for where, old in kept:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(old, **where.at)


def _keep_old(where: _Directory, name: str, token: str) -> tuple[str, str]:
    """A hard link to the file `name` names now (`.NAME.PID-TAG.old`; the file itself moved
    there where links cannot be made: kind `moved`), or, where there is none, an empty marker
    that the target is new (`.NAME.PID-TAG.new`): what undoing its rename needs."""
    target = where.name(name)
    old = where.name(_KEPT.format(name=name, token=token, kind="old"))
    try:
        os.link(target, old, **_LINK_NOT_FOLLOWING, **where.rename)
    except FileNotFoundError:
        marker = where.name(_KEPT.format(name=name, token=token, kind="new"))
        os.close(_os_call(where, name, os.open, marker, _EXCLUSIVE, _NEW, **where.at))
        return marker, "new"
    except OSError:  # no hard links here: move it aside (a rename, inside the commit)
        _os_call(where, name, os.replace, target, old, **where.rename)
        return old, "moved"
    return old, "old"


def _undo(where: _Directory, target: str, kept: str, kind: str) -> None:
    """Put `kept` back at `target` (kind old or moved), or remove the target it marks new."""
    if kind in ("old", "moved"):
        os.replace(kept, target, **where.rename)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(target, **where.at)


def _recover(where: _Directory) -> None:
    """Undo what a writer killed mid-write left (under the lock, every leftover is a dead
    writer's): its old files back over its targets, its new files and temporaries gone."""
    for entry in os.listdir(where.fd if where.fd is not None else where.path):
        found = _LEFTOVER.fullmatch(entry)
        if found is None:
            continue
        kept, name, kind = where.name(entry), found["name"], found["kind"]
        if kind in ("old", "new"):
            _undo(where, where.name(name), kept, kind)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(kept, **where.at)


def _refuse_read_only(where: _Directory, name: str) -> None:
    """A regular file at `name` that its owner made read-only (no write permission for
    anyone, or not for this user; immutable) is refused: a rename would replace it all the
    same. A symlink is replaced, never followed; anything else refuses the rename itself."""
    try:
        found = os.stat(where.name(name), follow_symlinks=False, **where.at)
    except FileNotFoundError:
        return
    except OSError as error:
        raise _cannot_write(where, name, error) from None
    if not stat.S_ISREG(found.st_mode):
        return
    if found.st_mode & 0o222 == 0 or not os.access(where.name(name), os.W_OK, **where.at):
        raise OutputError(
            "is read-only: it is not replaced, and nothing else was written",
            origin=str(where.path / name),
            hint="make it writable (chmod u+w) if it is to be rewritten",
        )


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP wait while the block runs (a few renames), and arrive after.

    In the main thread, where Python runs every signal handler, the handlers are swapped for
    one that notes the signal, and each noted signal is raised again once the old handlers are
    back: a mask would hold it only in this thread, and the kernel hands a signal sent to the
    process to any thread that does not mask it (an app's logging or loader thread), after
    which Python would run the handler here, mid-commit. Elsewhere, the thread masks them.
    """
    if threading.current_thread() is threading.main_thread():
        with _handlers_deferred():
            yield
        return
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def _handlers_deferred() -> Iterator[None]:
    noted: list[int] = []
    previous: dict[int, Any] = {}
    try:
        for signum in _DEFERRED:
            handler = signal.getsignal(signum)
            if handler is not None:  # None: set outside Python, which could not put it back
                previous[signum] = signal.signal(signum, lambda number, _: noted.append(number))
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(noted):  # each once, in the order they came
            signal.raise_signal(signum)


class _Directory:
    """A directory written to, as a descriptor where the platform has them."""

    def __init__(self, path: Path, fd: int | None, locked: bool = False) -> None:
        self.path = path
        self.fd = fd
        self.locked = locked  # this process alone writes here until the block ends
        self.at: dict[str, Any] = {"dir_fd": fd} if fd is not None else {}
        self.rename: dict[str, Any] = {"src_dir_fd": fd, "dst_dir_fd": fd} if fd is not None else {}

    def name(self, name: str) -> str:
        """`name` as the os calls take it: relative to the descriptor, else under the path."""
        return name if self.fd is not None else str(self.path / name)


@contextlib.contextmanager
def _opened(directory: Path, what: str) -> Iterator[_Directory]:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise _cannot_write_here(directory, what, error) from None
    if not directory.is_dir():
        raise OutputError(
            f"is not a directory: {what} cannot be written here", origin=str(directory)
        )
    fd = None
    if _AT_DIRECTORY:
        try:
            fd = os.open(directory, os.O_RDONLY | _DIRECTORY)
        except OSError as error:
            raise _cannot_write_here(directory, what, error) from None
    try:
        yield _Directory(directory, fd, fd is not None and _lock(directory, fd, what))
    finally:
        if fd is not None:
            os.close(fd)  # and with it the lock


def _lock(directory: Path, fd: int, what: str) -> bool:
    """Take the directory's lock, waiting (a while, not forever) for another writer; False
    where locks are not to be had (no `fcntl`, a file system that refuses them)."""

    def busy() -> ComposeError:
        message = f"another process has been writing {what} here for {_LOCK_WAIT:g} s"
        return OutputError(message, origin=str(directory))

    return take_lock(fd, _LOCK_WAIT, busy)


def take_lock(fd: int, seconds: float, busy: Callable[[], ComposeError]) -> bool:
    """`flock` the open file `fd`, waiting up to `seconds` for another process that holds it;
    past them, raise what `busy` makes. False where locks are not to be had (no `fcntl`, a
    file system that refuses them): the caller goes on without one. Released when `fd` is
    closed."""
    try:
        import fcntl  # noqa: PLC0415  # not on Windows
    except ImportError:
        return False
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise busy() from None
            time.sleep(0.01)
        except OSError:
            return False
        else:
            return True


def _os_call(where: _Directory, name: str, call: Any, *args: Any, **kwargs: Any) -> Any:
    """`call(*args)`, an OS error said as the file `name` that cannot be written, and why."""
    try:
        return call(*args, **kwargs)
    except OSError as error:
        raise _cannot_write(where, name, error) from None


def _cannot_write(where: _Directory, name: str, error: OSError) -> OutputError:
    return OutputError(f"cannot write {name}: {_reason(error)}", origin=str(where.path))


def _cannot_write_here(directory: Path, what: str, error: OSError) -> OutputError:
    return OutputError(f"cannot write {what} here: {_reason(error)}", origin=str(directory))


def _reason(error: OSError) -> str:
    return error.strerror or type(error).__name__
