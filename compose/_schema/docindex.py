"""The docstring index of a source file, kept on disk beside its bytecode.

Parsing a schema's modules for field docstrings is most of what `--help` costs once Pydantic
and the schema are imported (51M instructions for the example `rl` app's five modules, 6% of
its whole `--help`). What the parse finds depends only on the file's text and on the reader,
so it is stored the way Python stores bytecode: in `__pycache__` (or under `sys.pycache_prefix`),
as `NAME.TAG.compose-docs`, written with `marshal` and checked on every read against the
source's modification time and size (what a `.pyc` is checked against) and against the
reader's own file, so a new version of compose never reads an old index.

Nothing here can fail a help screen: an index that is missing, unreadable, stale or not
writable (a read-only install, `PYTHONDONTWRITEBYTECODE`) means the file is parsed again.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import marshal
import os
import sys

from compose._shortcuts import SHORTCUTS

_SUFFIX = ".compose-docs"
# What the stored tuple holds; bump it when its layout changes.
_LAYOUT = 2  # 2: docstrings stored on one line

# The layout, the source's mtime_ns and size, the reader's mtime_ns and size.
Key = tuple[int, int, int, int, int]
Stored = dict[str, list[tuple[int, dict[str, str]]]]  # qualified name -> (first line, docstrings)


def key_of(source_file: str, reader_file: str) -> Key | None:
    """What an index of `source_file` must have been made from; None where it can't be told
    (a module read from a zip, a file gone), or where no index is read or written (the
    reference path parses every time)."""
    if not SHORTCUTS:
        return None
    try:
        source = os.stat(source_file)
        scanner = _stat_once(reader_file)
    except OSError:
        return None
    return (_LAYOUT, source.st_mtime_ns, source.st_size, *scanner)


@functools.cache
def _stat_once(reader_file: str) -> tuple[int, int]:
    """The reader's own file does not change under a running process."""
    found = os.stat(reader_file)
    return found.st_mtime_ns, found.st_size


def read(source_file: str, key: Key) -> Stored | None:
    """The stored index of `source_file` if it was made from `key`, else None."""
    path = _index_path(source_file)
    if path is None:
        return None
    try:
        with open(path, "rb") as stream:
            # loads of the bytes, not load of the stream: `marshal.load` asks the stream for
            # each object it reads (700k instructions for a 4 kB index, against 60k)
            stored_key, classes = marshal.loads(stream.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return classes if stored_key == key else None


def write(source_file: str, key: Key, classes: Stored) -> None:
    """Store the index, whole or not at all (a temporary file renamed over the old one)."""
    path = _index_path(source_file)
    if path is None or sys.dont_write_bytecode:
        return
    temporary = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temporary, "wb") as stream:
            stream.write(marshal.dumps((key, classes)))
        os.replace(temporary, path)
    except (OSError, ValueError):  # read-only, or a value marshal can't store
        with contextlib.suppress(OSError):
            os.remove(temporary)


def _index_path(source_file: str) -> str | None:
    try:
        bytecode = importlib.util.cache_from_source(source_file)
    except (NotImplementedError, ValueError):  # no cache tag, or not a .py path
        return None
    return os.path.splitext(bytecode)[0] + _SUFFIX
