"""Reading file nodes into plain dicts.

Every OS, decoding and syntax failure becomes a `SourceError` here, at the boundary, naming the
file as the user wrote it; nothing past this module sees a raw `OSError` or `TOMLDecodeError`.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Any

from compose._input.documents import JSON, TOML, format_of
from compose._input.formats import parse_yaml
from compose._input.origins import FileSource
from compose._input.search import SearchPath, find_file
from compose._toml import TomlSyntaxError, TooDeep
from compose._toml import loads as toml_loads
from compose._tree import KeyPath, copy_tree
from compose.errors import SourceError, integer_too_long, nested_too_deep, path_refused


def read_text(shown: str) -> str:
    """The UTF-8 text of the regular file the user named `shown` (a path, relative to the
    cwd). Its callers read a file again, hash it against a record or rewrite it in place,
    which only a file can take: a FIFO (opened without waiting for a writer), a device or a
    socket is a `SourceError` naming it, and is never read."""
    return _decode(shown, _bytes_of(shown, only_a_file=True)[0])


def _read(name: str, search_path: SearchPath) -> tuple[str, str, bool]:
    """The file `name` means (as shown), its text, and whether it is a regular file (one that
    can be read again). A name not there as written is looked up on the search path."""
    shown = name
    try:
        data, regular = _read_bytes(name)
    except (FileNotFoundError, IsADirectoryError) as missing:
        shown = find_file(name, search_path)  # raises, naming the directories, if not found
        if shown == name:
            raise _unreadable(name, missing) from None
        data, regular = _bytes_of(shown)
    except (OSError, ValueError) as error:
        raise _unreadable(name, error) from None
    return shown, _decode(shown, data), regular


def _bytes_of(shown: str, *, only_a_file: bool = False) -> tuple[bytes, bool]:
    """`_read_bytes`, every OS failure a `SourceError` naming `shown`."""
    try:
        return _read_bytes(shown, only_a_file=only_a_file)
    except (OSError, ValueError) as error:
        raise _unreadable(shown, error) from None


def _read_bytes(path: str, *, only_a_file: bool = False) -> tuple[bytes, bool]:
    """The bytes of the file at `path`, and whether it is a regular file (`only_a_file`:
    anything else is refused before a byte is read, and a FIFO is opened without waiting).

    Read with `os` calls: `open()` builds two file objects and makes five more system calls
    (an `isatty` probe, two seeks, a second `fstat`, a last read), for the few KB of a config.
    """
    fd = os.open(path, _READ_FLAGS | (_NONBLOCK if only_a_file else 0))
    try:
        status = os.fstat(fd)
        if stat.S_ISDIR(status.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        regular = stat.S_ISREG(status.st_mode)
        if only_a_file and not regular:
            raise SourceError(_NOT_A_FILE, origin=path)
        if status.st_size > MAX_FILE_BYTES:
            raise _too_large(path)
        data = os.read(fd, status.st_size + 1 if regular else _CHUNK)
        # One read suffices when it gives the size fstat said; else (a pipe, a short read, a
        # file that grew or shrank, a /proc file that says 0) read on to the end, or the limit
        if not regular or len(data) != status.st_size:
            chunks, size = [data], len(data)
            while chunk := os.read(fd, _CHUNK):
                chunks.append(chunk)
                size += len(chunk)
                if size > MAX_FILE_BYTES:  # /dev/zero, an endless FIFO
                    raise _too_large(path)
            data = b"".join(chunks)
    finally:
        os.close(fd)
    return data, regular


MAX_FILE_BYTES = 64 << 20  # 64 MiB: a config past this is no config (docs/04)


def _too_large(path: str) -> SourceError:
    return SourceError(
        f"larger than {MAX_FILE_BYTES >> 20} MiB: not read", origin=path, hint="is it a config?"
    )


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO opens at once, writer or none
_NOT_A_FILE = "is not a regular file (a FIFO, a device): only a file is read again or rewritten"
_CHUNK = 1 << 16


def _unreadable(shown: str, error: BaseException) -> SourceError:
    if isinstance(error, FileNotFoundError):
        return SourceError("file not found", origin=shown, hint=_where(shown))
    if isinstance(error, IsADirectoryError):
        return SourceError("is a directory, not a file", origin=shown)
    if isinstance(error, PermissionError):
        return SourceError("permission denied", origin=shown)
    # symlink loops, NUL bytes, names too long
    reason = path_refused(shown, error) if isinstance(error, (OSError, ValueError)) else error
    return SourceError(f"cannot be read: {reason}", origin=shown)


def _where(shown: str) -> str | None:
    if os.path.isabs(shown):
        return None
    return f"looked in {os.getcwd()}"


def _decode(shown: str, data: bytes) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        byte = data[error.start : error.start + 1].hex()
        raise SourceError(f"not valid UTF-8 (byte 0x{byte})", origin=f"{shown}:{line}") from None
    return text.removeprefix("\ufeff")  # a byte-order mark, as some editors on Windows write


def load_file(
    name: str, prefix: KeyPath = (), search_path: SearchPath = ()
) -> tuple[dict[str, Any], FileSource]:
    """Parse one file node (`name` as written, else found on the search path); the source can
    read the text again to find lines on demand.

    Only a regular file is read again: a pipe (`@ <(generate)`) has nothing more to give, so
    its source keeps the text.
    """
    shown, text, regular = _read(name, search_path)
    return parse_file(shown, text), FileSource(shown, text, prefix, read_text if regular else None)


class FileCache:
    """Files read once for many compositions of the same nodes (the points of a sweep).

    Plain data held by the caller for as long as it composes, never by the module: each
    `load` of a file already read gives a fresh copy of its table (a composition takes the
    tables it merges), and a fresh source over the same text, so what one composition does
    cannot reach the next. `texts` is every file read, by the name errors show, for records
    that say which files a run was made from.
    """

    def __init__(self) -> None:
        self._read: dict[tuple[str, SearchPath], tuple[str, str, bool, dict[str, Any]]] = {}
        self.texts: dict[str, str] = {}

    def load(
        self, name: str, prefix: KeyPath, search_path: SearchPath
    ) -> tuple[dict[str, Any], FileSource]:
        """`load_file`, reading and parsing `name` only the first time."""
        key = (name, search_path)
        found = self._read.get(key)
        if found is None:
            shown, text, regular = _read(name, search_path)
            found = (shown, text, regular, parse_file(shown, text))
            self._read[key] = found
            self.texts[shown] = text
        shown, text, regular, table = found
        source = FileSource(shown, text, prefix, read_text if regular else None)
        return copy_tree(table), source


def parse_file(shown: str, text: str) -> dict[str, Any]:
    """A file node's table, read by the file's suffix: JSON, YAML, else TOML (see `_formats`)."""
    kind = format_of(shown)
    if kind == TOML:
        return parse_toml(shown, text)
    if kind == JSON:
        from compose._input.json import parse_json  # noqa: PLC0415  # read for JSON nodes only

        return parse_json(shown, text)
    return parse_yaml(shown, text)


def parse_toml(shown: str, text: str) -> dict[str, Any]:
    """A TOML file node's table (`compose._toml`: tomli's, read by toml-rs where it can)."""
    try:
        return toml_loads(text)
    except TomlSyntaxError as error:
        where = f"{shown}:{error.line}:{error.column}"
        raise SourceError(f"invalid TOML: {error.message}", origin=where) from None
    except (TooDeep, RecursionError):  # past tomli's stack, a text nests deeper than MAX_DEPTH
        raise SourceError(nested_too_deep("tables or lists"), origin=shown) from None
    except ValueError as error:  # an integer longer than Python converts (4,300 digits)
        raise SourceError(f"invalid TOML: {integer_too_long(error)}", origin=shown) from None
