"""Run records, manifests, job and status files are replaced whole: a reader (an engine's
node, a resumed sweep, `compose job` on another host) sees the old file or the new one, never
half of one. One writer for all of them."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from compose.errors import OutputError


def write_text(path: Path, text: str, mode: int | None = None) -> Path:
    """`text` into `path`, whole or not at all: a temporary file beside it, renamed over it
    (made unique by `mkstemp`, so two writers on one host or on two never share it). `mode`:
    the file's permissions (a file rewritten keeps its own), else `mkstemp`'s owner-only."""
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
        os.replace(temporary, path)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(error, OSError):
            raise _cannot_write(path, error) from None
        raise
    return path


def write_json(path: Path, data: Any) -> Path:
    """`data` as indented JSON (text kept as written, other values by their `str`)."""
    text = json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"
    return write_text(path, text)


def _cannot_write(path: Path, error: OSError) -> OutputError:
    reason = error.strerror or type(error).__name__
    return OutputError(f"cannot write {path.name}: {reason}", origin=str(path))
