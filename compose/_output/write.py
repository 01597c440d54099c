"""`write_configs`: the resolved configs as `OUTPUT_DIR/configs/NAME.toml`, all written or none.

Apart from the TOML writer (`compose._output.toml`) because apps import `write_configs` beside `cli`
at the top of their entrypoint: the writer is loaded when files are written, so `--help` never
loads it (two modules, 1.4M instructions of every start).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from compose._output.plain import holds_secret
from compose.errors import OutputError

# Written like any other file: the process's umask decides (0644 under the usual 022).
_MODE = 0o666
_PRIVATE = 0o600  # a file that holds a secret: its owner's alone
_TEMPORARY = ".{name}.{pid}.tmp"
_KEPT = ".{name}.{pid}.{kind}"  # during a commit: the replaced file, or a marker it had none
_LEFTOVER = re.compile(r"\.(?P<name>.+)\.[0-9]+\.(?P<kind>tmp|old|new)")
_EXCLUSIVE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
_DEFERRED = {
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
}
# A symlink target is kept as the link it is (`linkat` without following, where there is one)
_LINK_NOT_FOLLOWING = {"follow_symlinks": False} if os.link in os.supports_follow_symlinks else {}
_LOCK_WAIT = 30.0  # seconds to wait for another writer of the same directory


def write_configs(output_dir: str | os.PathLike[str], files: Mapping[str, Any]) -> list[Path]:
    """Write `OUTPUT_DIR/configs/NAME.toml` for each NAME -> model (or dict): the old set or
    the new set, never a mix.

    Every file is rendered and written to a temporary file beside its target before any is
    renamed over its target, so a bad value or a full disk changes no file and leaves no
    partial one. The renames are one commit: Ctrl-C and termination signals wait until it
    ends, and a rename that fails puts every earlier target back. A writer killed outright
    (SIGKILL, a power cut) leaves its temporaries and the files it replaced beside their
    targets, and the next write to the directory puts that writer's old set back first. Two
    processes writing the same directory take turns (a lock on it, where the platform has
    one). Files are opened and renamed through a descriptor of the configs directory, never
    by path, so a symlink swapped in while writing cannot send the files elsewhere. Names are
    plain file stems, never paths.

    A directory that cannot be made or written raises `OutputError` naming it and why.
    """
    from compose._output import toml as _dump  # noqa: PLC0415  # the TOML writer: see the module docstring

    directory = Path(output_dir) / "configs"
    texts = {_config_name(name): _dump.to_toml(value) for name, value in files.items()}
    private = {_config_name(name) for name, value in files.items() if holds_secret(value)}
    with _opened(directory) as where:
        if where.locked:
            _recover(where)
        staged: list[tuple[str, str]] = []
        try:
            for name, text in texts.items():
                mode = _PRIVATE if name in private else _MODE
                staged.append((_stage(where, name, text, mode), name))
            with _signals_deferred():
                _commit(where, staged)
            staged.clear()  # every temporary is now its target: nothing left to remove
        finally:
            for temporary, _ in staged:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temporary, **where.at)
    return [directory / f"{name}.toml" for name in texts]


def _commit(where: _Directory, staged: list[tuple[str, str]]) -> None:
    """Rename each staged file over its target, keeping what it replaces until all are in:
    a failure part-way puts the old files back (and removes the new ones that had none)."""
    done: list[tuple[str, str, str]] = []  # (target, kept old file or marker, kind)
    try:
        for temporary, name in staged:
            target = where.name(f"{name}.toml")
            done.append((target, *_keep_old(where, name, target)))
            _os_call(where.path, os.replace, temporary, target, **where.rename)
    except BaseException:
        for target, kept, kind in reversed(done):
            _undo(where, target, kept, kind)
        raise
    finally:
        for _, kept, _ in done:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(kept, **where.at)


def _keep_old(where: _Directory, name: str, target: str) -> tuple[str, str]:
    """A hard link to the file `target` names now (`.NAME.PID.old`), or, where there is none,
    an empty marker that the target is new (`.NAME.PID.new`): what undoing its rename needs."""
    pid = os.getpid()
    old = where.name(_KEPT.format(name=name, pid=pid, kind="old"))
    try:
        os.link(target, old, **_LINK_NOT_FOLLOWING, **where.rename)
    except FileNotFoundError:
        marker = where.name(_KEPT.format(name=name, pid=pid, kind="new"))
        os.close(_os_call(where.path, os.open, marker, _EXCLUSIVE, _MODE, **where.at))
        return marker, "new"
    except OSError:  # no hard links here: move it aside (a rename, inside the commit)
        _os_call(where.path, os.replace, target, old, **where.rename)
    return old, "old"


def _undo(where: _Directory, target: str, kept: str, kind: str) -> None:
    if kind == "old":
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
            _undo(where, where.name(f"{name}.toml"), kept, kind)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(kept, **where.at)


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


def _config_name(name: str) -> str:
    if not name or "/" in name or "\\" in name or name.startswith(".") or "\0" in name:
        raise ValueError(f"not a config file name: {name!r}")
    return name


class _Directory:
    """The configs directory, as a descriptor where the platform has them."""

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
def _opened(directory: Path) -> Iterator[_Directory]:
    _os_call(directory, lambda: directory.mkdir(parents=True, exist_ok=True))
    if not directory.is_dir():
        raise OutputError(
            "is not a directory: configs cannot be written here", origin=str(directory)
        )
    # `os.replace` takes descriptors wherever `os.rename` does (the sets list only the latter)
    use_fd = {os.open, os.rename, os.link, os.unlink} <= os.supports_dir_fd
    fd = _os_call(directory, os.open, str(directory), os.O_RDONLY | _DIRECTORY) if use_fd else None
    try:
        yield _Directory(directory, fd, fd is not None and _lock(directory, fd))
    finally:
        if fd is not None:
            os.close(fd)  # and with it the lock


def _lock(directory: Path, fd: int) -> bool:
    """Take the directory's lock, waiting (a while, not forever) for another writer; False
    where locks are not to be had (no `fcntl`, a file system that refuses them)."""
    try:
        import fcntl  # noqa: PLC0415  # not on Windows
    except ImportError:
        return False
    deadline = time.monotonic() + _LOCK_WAIT
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise OutputError(
                    f"another process has been writing configs here for {_LOCK_WAIT:g} s",
                    origin=str(directory),
                ) from None
            time.sleep(0.01)
        except OSError:
            return False
        else:
            return True


_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _stage(where: _Directory, name: str, text: str, mode: int) -> str:
    temporary = where.name(_TEMPORARY.format(name=name, pid=os.getpid()))
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW
    fd = _os_call(where.path, os.open, temporary, flags, mode, **where.at)
    if mode == _PRIVATE and hasattr(os, "fchmod"):  # O_TRUNC keeps a leftover file's mode
        os.fchmod(fd, _PRIVATE)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            stream.write(text)
    except BaseException as error:
        os.unlink(temporary, **where.at)  # a full disk, text UTF-8 cannot hold: leave nothing
        if isinstance(error, OSError):
            raise _cannot_write(where.path, error) from None
        raise
    return temporary


def _os_call(directory: Path, call: Any, *args: Any, **kwargs: Any) -> Any:
    """`call(*args)`, an OS error said as the directory that cannot be written, and why."""
    try:
        return call(*args, **kwargs)
    except OSError as error:
        raise _cannot_write(directory, error) from None


def _cannot_write(directory: Path, error: OSError) -> OutputError:
    reason = error.strerror or type(error).__name__
    return OutputError(f"cannot write configs here: {reason}", origin=str(directory))
