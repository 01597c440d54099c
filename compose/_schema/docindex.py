"""The docstring index of a source file, kept in compose's own cache directory.

Parsing a schema's modules for field docstrings is most of what `--help` costs once Pydantic
and the schema are imported (33M of the 71M instructions cold `rl --help` spends past importing
its schema, callgrind). What the parse finds depends only on the file's text and on the scanner,
so it is stored in the user's cache directory (`cache_dir`), one file per source, written with
`marshal` and checked on every read against what it was made from: the source's path,
modification time and size, and the reader's own file (so a new version of compose never
reads an old index). Nothing is ever written beside the user's sources or bytecode.

The index is plain data (text, numbers, lists, dicts), and what is read is checked to be that
and nothing else: a stale, foreign, damaged or truncated file is ignored and written anew.
Nothing here can fail a help screen: a directory that cannot be written (or
`COMPOSE_NO_CACHE=1`) means the file is parsed again. The directory is safe to delete.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import marshal
import os
import sys
from collections.abc import Mapping

from compose._shortcuts import SHORTCUTS
from compose._syntax import CACHE_DIR_VARIABLE, NO_CACHE_VARIABLE
from compose.errors import OutputError

_FOLDER = "docstrings"  # below the cache directory: each cache of compose in its own
_SUFFIX = ".marshal"
# What the stored tuple holds; bump it when its layout changes.
_LAYOUT = 3  # 2: docstrings stored on one line; 3: in the cache directory, keyed by path

# The layout, the source's path, mtime_ns and size, the reader's mtime_ns and size.
Key = tuple[int, str, int, int, int, int]
Stored = dict[str, list[tuple[int, dict[str, str]]]]  # qualified name -> (first line, docstrings)


def cache_dir(environ: Mapping[str, str] = os.environ, platform: str = sys.platform) -> str | None:
    """Where compose keeps its caches: `$COMPOSE_CACHE_DIR`, else the platform's user cache
    directory (`$XDG_CACHE_HOME/compose` or `~/.cache/compose`; `~/Library/Caches/compose` on
    macOS; `%LOCALAPPDATA%\\compose\\Cache` on Windows). None when `COMPOSE_NO_CACHE` is set
    (to anything but `0`), or no home directory is known."""
    if environ.get(NO_CACHE_VARIABLE, "") not in ("", "0"):
        return None
    chosen = environ.get(CACHE_DIR_VARIABLE, "")
    if chosen:
        return chosen
    home = os.path.expanduser("~")
    if platform == "win32":
        local = environ.get("LOCALAPPDATA", "") or os.path.join(home, "AppData", "Local")
        return os.path.join(local, "compose", "Cache") if os.path.isabs(local) else None
    if home == "~":  # no HOME, no password entry
        return None
    if platform == "darwin":
        return os.path.join(home, "Library", "Caches", "compose")
    xdg = environ.get("XDG_CACHE_HOME", "")
    base = xdg if os.path.isabs(xdg) else os.path.join(home, ".cache")  # relative: ignored
    return os.path.join(base, "compose")


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
    path = os.path.abspath(source_file)
    return (_LAYOUT, path, source.st_mtime_ns, source.st_size, *scanner)


@functools.cache
def _stat_once(reader_file: str) -> tuple[int, int]:
    """The reader's own file does not change under a running process."""
    found = os.stat(reader_file)
    return found.st_mtime_ns, found.st_size


def read(key: Key) -> Stored | None:
    """The stored index made from `key`, else None."""
    path = _index_path(key)
    if path is None:
        return None
    try:
        with open(path, "rb") as stream:
            # loads of the bytes, not load of the stream: `marshal.load` asks the stream for
            # each object it reads (700k instructions for a 4 kB index, against 60k)
            stored_key, classes = marshal.loads(stream.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    return classes if stored_key == key and _is_index(classes) else None


def _is_index(classes: object) -> bool:
    """Whether what was read is an index as `write` stores it: plain data of that layout and
    nothing else (marshal can hold code; a file in a cache directory is not trusted to be ours)."""
    if type(classes) is not dict:
        return False
    for name, statements in classes.items():
        if type(name) is not str or type(statements) is not list:
            return False
        for statement in statements:
            if type(statement) is not tuple or len(statement) != 2:
                return False
            line, docs = statement
            if type(line) is not int or type(docs) is not dict:
                return False
            if not all(type(k) is str and type(v) is str for k, v in docs.items()):
                return False
    return True


def write(key: Key, classes: Stored) -> None:
    """Store the index, whole or not at all (compose's one writer: `compose._atomic`)."""
    path = _index_path(key)
    if path is None:
        return
    from compose._atomic import write_file  # noqa: PLC0415  # only a help screen that parsed a file writes

    # not writable, or a value marshal can't store: parsed again next time
    with contextlib.suppress(OSError, ValueError, OutputError):
        data = marshal.dumps((key, classes))
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        write_file(path, data)


def _index_path(key: Key) -> str | None:
    """`CACHE/docstrings/NAME-DIGEST.marshal`: one file per source path (the digest), named
    for a person looking in (the file's stem)."""
    directory = cache_dir()
    if directory is None:
        return None
    source = key[1]
    digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()[:20]
    stem = os.path.splitext(os.path.basename(source))[0]
    return os.path.join(directory, _FOLDER, f"{stem}-{digest}{_SUFFIX}")
