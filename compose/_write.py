"""`write_configs`: the resolved configs as `OUTPUT_DIR/configs/NAME.toml`, all written or none.

Apart from the TOML writer (`compose._dump`) because apps import `write_configs` beside `cli`
at the top of their entrypoint: the writer is loaded when files are written, so `--help` never
loads it (two modules, 1.4M instructions of every start).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from compose._plain import holds_secret
from compose.errors import OutputError

# Written like any other file: the process's umask decides (0644 under the usual 022).
_MODE = 0o666
_PRIVATE = 0o600  # a file that holds a secret: its owner's alone
_TEMPORARY = ".{name}.{pid}.tmp"


def write_configs(output_dir: str | os.PathLike[str], files: Mapping[str, Any]) -> list[Path]:
    """Write `OUTPUT_DIR/configs/NAME.toml` for each NAME -> model (or dict).

    Every file is rendered and written to a temporary file beside its target before any is
    renamed over its target, so a bad value or a full disk changes no file and leaves no
    partial one; each rename is atomic. Files are opened and renamed through a descriptor of
    the configs directory, never by path, so a symlink swapped in while writing cannot send
    the files elsewhere. Names are plain file stems, never paths.

    A directory that cannot be made or written raises `OutputError` naming it and why.
    """
    from compose import _dump  # noqa: PLC0415  # the TOML writer: see the module docstring

    directory = Path(output_dir) / "configs"
    texts = {_config_name(name): _dump.to_toml(value) for name, value in files.items()}
    private = {_config_name(name) for name, value in files.items() if holds_secret(value)}
    with _opened(directory) as where:
        staged: list[tuple[str, str]] = []
        try:
            for name, text in texts.items():
                mode = _PRIVATE if name in private else _MODE
                staged.append((_stage(where, name, text, mode), where.name(f"{name}.toml")))
            for temporary, target in staged:
                _os_call(directory, os.replace, temporary, target, **where.rename)
        finally:
            for temporary, _ in staged:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temporary, **where.at)
    return [directory / Path(target).name for _, target in staged]


def _config_name(name: str) -> str:
    if not name or "/" in name or "\\" in name or name.startswith(".") or "\0" in name:
        raise ValueError(f"not a config file name: {name!r}")
    return name


class _Directory:
    """The configs directory, as a descriptor where the platform has them."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self.fd = fd
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
    use_fd = os.open in os.supports_dir_fd and os.replace in os.supports_dir_fd
    fd = _os_call(directory, os.open, str(directory), os.O_RDONLY | _DIRECTORY) if use_fd else None
    try:
        yield _Directory(directory, fd)
    finally:
        if fd is not None:
            os.close(fd)


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
