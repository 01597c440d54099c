"""Run records, manifests, job and status files are replaced whole: a reader (an engine's
node, a resumed sweep, `compose job` on another host) sees the old file or the new one, never
half of one. One writer for all of them."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from compose.errors import OutputError


def write_text(path: Path, text: str, mode: int | None = None) -> Path:
    """`text` into `path`, whole or not at all: a temporary file beside it, renamed over it
    (made unique by `mkstemp`, so two writers on one host or on two never share it). `mode`:
    the file's permissions (a file rewritten keeps its own), else `mkstemp`'s owner-only."""
    write_texts([(path, text, mode)])
    return path


def write_texts(files: Sequence[tuple[Path, str, int | None]]) -> None:
    """Each `(path, text, mode)` as `write_text` writes one, all or none: every text is
    written to its temporary, and every file there is kept aside (a hard link), before any is
    renamed over its file; a rename that fails (a read-only or immutable file) puts the files
    already replaced back. A full disk or a file that cannot be written changes none."""
    staged: list[tuple[str, Path]] = []
    kept: list[tuple[Path, str | None]] = []
    try:
        for path, text, mode in files:
            staged.append((_staged(path, text, mode), path))
        kept = [(path, _kept_aside(path, temporary)) for temporary, path in staged]
        _replace_all(staged, kept)
        staged.clear()
    finally:
        for temporary, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        for _, link in kept:
            if link is not None:
                with contextlib.suppress(OSError):
                    os.unlink(link)


def _kept_aside(path: Path, temporary: str) -> str | None:
    """A hard link to the file at `path` beside its temporary (None: there is no file yet)."""
    link = temporary.removesuffix(".tmp") + ".old"
    try:
        os.link(path, link)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise _cannot_write(path, error) from None
    return link


def _replace_all(staged: list[tuple[str, Path]], kept: list[tuple[Path, str | None]]) -> None:
    done: list[tuple[Path, str | None]] = []
    for (temporary, path), entry in zip(staged, kept, strict=True):
        try:
            os.replace(temporary, path)
        except OSError as error:
            for replaced, link in reversed(done):  # the files replaced so far, as they were
                with contextlib.suppress(OSError):
                    os.replace(link, replaced) if link is not None else os.unlink(replaced)
            raise _cannot_write(path, error) from None
        done.append(entry)


def _staged(path: Path, text: str, mode: int | None) -> str:
    """A temporary file beside `path` holding `text` (with `mode`), for renaming over it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        raise _cannot_write(path, error) from None
    try:
        if mode is not None:
            os.chmod(temporary, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise _cannot_write(path, error) from None
        raise
    return temporary


def write_json(path: Path, data: Any) -> Path:
    """`data` as indented JSON (text kept as written, other values by their `str`)."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"
    return write_text(path, text)


def _cannot_write(path: Path, error: OSError) -> OutputError:
    reason = error.strerror or type(error).__name__
    return OutputError(f"cannot write {path.name}: {reason}", origin=str(path))
