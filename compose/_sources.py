"""Reading file nodes into plain dicts.

Every OS, decoding and syntax failure becomes a `SourceError` here, at the boundary, naming the
file as the user wrote it; nothing past this module sees a raw `OSError` or `TOMLDecodeError`.
"""

from __future__ import annotations

import os
from typing import Any

import tomli

from compose._origin import FileSource, KeyPath
from compose._tree import MAX_DEPTH, too_deep
from compose.errors import SourceError


def read_text(shown: str) -> str:
    """The UTF-8 text of the file the user named `shown` (a path, relative to the cwd)."""
    try:
        with open(shown, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        raise SourceError("file not found", origin=shown, hint=_where(shown)) from None
    except IsADirectoryError:
        raise SourceError("is a directory, not a file", origin=shown) from None
    except PermissionError:
        raise SourceError("permission denied", origin=shown) from None
    except (OSError, ValueError) as error:  # symlink loops, NUL bytes, names too long
        reason = getattr(error, "strerror", None) or str(error)
        raise SourceError(f"cannot be read: {reason}", origin=shown) from None
    return _decode(shown, data)


def _where(shown: str) -> str | None:
    if os.path.isabs(shown):
        return None
    return f"looked in {os.getcwd()}"


def _decode(shown: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        byte = data[error.start : error.start + 1].hex()
        raise SourceError(f"not valid UTF-8 (byte 0x{byte})", origin=f"{shown}:{line}") from None


def load_toml(shown: str, prefix: KeyPath = ()) -> tuple[dict[str, Any], FileSource]:
    """Parse one TOML file node; the source keeps the text to find lines on demand."""
    text = read_text(shown)
    return parse_toml(shown, text), FileSource(shown, text, prefix)


def parse_toml(shown: str, text: str) -> dict[str, Any]:
    try:
        table = tomli.loads(text)
    except tomli.TOMLDecodeError as error:
        message = getattr(error, "msg", str(error))
        where = f"{shown}:{getattr(error, 'lineno', '?')}:{getattr(error, 'colno', '?')}"
        raise SourceError(f"invalid TOML: {message}", origin=where) from None
    except RecursionError:
        raise SourceError("invalid TOML: nested too deeply", origin=shown) from None
    except ValueError as error:  # an integer longer than Python converts (4,300 digits)
        raise SourceError(f"invalid TOML: {error}", origin=shown) from None
    if too_deep(table):
        raise SourceError(f"tables or lists nested deeper than {MAX_DEPTH} levels", origin=shown)
    return table
