"""The JSON records compose writes and reads back (run.json, job.json, status.json,
sweep.json, manifest.jsonl): their text, and one bounded reader.

A record's text is JSON as people read it (UTF-8, not `\\u` escapes), except for text that
UTF-8 cannot hold: a file or directory name whose bytes are not UTF-8 (a Latin-1 `café.toml`)
reaches Python as lone surrogates (`caf\\udce9`), and those are written as JSON's
`\\udce9` escapes, which read back as the same text, and so as the same name.

A record is read by `read_record` alone: a regular file (a FIFO, a device, a directory or a
link to one is refused, and never blocks), at most `MAX_RECORD_BYTES`, UTF-8 JSON holding an
object; anything else is one `SourceError` naming the file. What a record's fields must be is
checked by the reader of each record, with `record_field` and the kinds below, before any is used.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from compose.errors import SourceError, path_refused

MAX_RECORD_BYTES = 16 * 2**20  # 16 MiB: a record is a few kB; a manifest, ~1 kB a point
_MAX_DIGITS = 4300  # an integer's: what Python 3.11+ converts (3.10 would take quadratic time)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO opens without waiting for a writer
_SURROGATE = re.compile("[\\ud800-\\udfff]")


def record_text(data: Any) -> str:
    """`data` as an indented JSON record (values JSON has no kind for, by their `str`)."""
    return _escaped(json.dumps(data, indent=2, ensure_ascii=False, default=str)) + "\n"


def lines_text(rows: Sequence[Any]) -> str:
    """Each of `rows` as one line of JSON (a `.jsonl` file)."""
    return "".join(
        _escaped(json.dumps(row, ensure_ascii=False, default=str)) + "\n" for row in rows
    )


def _escaped(text: str) -> str:
    """JSON text with each lone surrogate (which only strings hold) as its `\\u` escape."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub(lambda found: f"\\u{ord(found[0]):04x}", text)


def read_record(path: Path) -> dict[str, Any] | None:
    """The JSON object `path` holds; None if there is no such file. A file that cannot be
    read, is no regular file, is larger than `MAX_RECORD_BYTES`, is not UTF-8, not JSON,
    nested too deeply, or holds no object: a `SourceError` naming it."""
    text = _read_text(path)
    if text is None:
        return None
    return _object(_parsed(text, str(path)), str(path))


def read_record_lines(path: Path) -> list[dict[str, Any]] | None:
    """The JSON object on each line of `path` (blank lines skipped), as `read_record` reads
    one; None if there is no such file. An error names the file's line."""
    text = _read_text(path)
    if text is None:
        return None
    rows = []
    for number, line in enumerate(
        text.split("\n"), start=1
    ):  # not at U+2028, as JSON text may hold
        if line.strip():
            where = f"{path}:{number}"
            rows.append(_object(_parsed(line, where), where))
    return rows


def read_bytes(path: Path) -> bytes | None:
    """The bytes of the regular file `path` (None if there is none), refused past
    `MAX_RECORD_BYTES` before they are read: a `SourceError` naming it."""
    shown = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:  # ValueError: a NUL in the name
        raise SourceError(f"cannot be read: {path_refused(shown, error)}", origin=shown) from None
    try:
        return _bounded(fd, shown)
    finally:
        os.close(fd)


def _read_text(path: Path) -> str | None:
    data = read_bytes(path)
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SourceError(f"is not UTF-8 text (byte {error.start})", origin=str(path)) from None


def _bounded(fd: int, shown: str) -> bytes:
    """The file's bytes, refused before reading past `MAX_RECORD_BYTES` (it may grow)."""
    found = os.fstat(fd)
    if not stat.S_ISREG(found.st_mode):
        raise SourceError("is not a regular file: a record is one", origin=shown)
    too_large = SourceError(
        f"is larger than {MAX_RECORD_BYTES // 2**20} MiB: no record compose writes is",
        origin=shown,
    )
    if found.st_size > MAX_RECORD_BYTES:
        raise too_large
    chunks: list[bytes] = []
    total = 0
    while True:
        try:
            chunk = os.read(fd, MAX_RECORD_BYTES + 1 - total)
        except OSError as error:
            raise SourceError(f"cannot be read: {error.strerror}", origin=shown) from None
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > MAX_RECORD_BYTES:
            raise too_large


def _parsed(text: str, where: str) -> Any:
    try:
        return json.loads(text, parse_int=_integer)
    except json.JSONDecodeError as error:
        line = where if error.lineno == 1 else f"{where}:{error.lineno}"
        raise SourceError(f"is not JSON: {error.msg}", origin=line) from None
    except RecursionError:
        raise SourceError(
            "is nested too deeply: no record compose writes is", origin=where
        ) from None
    except ValueError as error:  # an integer too long
        raise SourceError(f"is not JSON compose reads: {error}", origin=where) from None


def _integer(digits: str) -> int:
    if len(digits) > _MAX_DIGITS:
        raise ValueError(f"an integer of {len(digits)} digits")
    return int(digits)


def _object(data: Any, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise SourceError(f"holds {_kind(data)}, not a JSON object", origin=where)
    return data


def _kind(data: Any) -> str:
    return {list: "a list", str: "text", bool: "a boolean", type(None): "null"}.get(
        type(data), "a number"
    )


# --- what a record's fields are --------------------------------------------------------------


def is_text(value: Any) -> bool:
    return isinstance(value, str)


OS_TEXT = "text without a NUL or a lone surrogate"  # as errors say what `os_text` is


def os_text(value: Any) -> bool:
    """Text the OS takes as a name, argument or variable: no NUL, and no lone surrogate but
    those that stand for a byte that was not UTF-8 (as Python reads names and argv)."""
    if not isinstance(value, str) or "\0" in value:
        return False
    try:
        os.fsencode(value)
    except UnicodeError:
        return False
    return True


def os_texts(value: Any) -> bool:
    """A non-empty list of `os_text`: a command line."""
    return isinstance(value, list) and bool(value) and all(os_text(item) for item in value)


def os_text_table(value: Any) -> bool:
    """A table of `os_text` by `os_text` names."""
    return isinstance(value, dict) and all(os_text(k) and os_text(v) for k, v in value.items())


def text_table(value: Any) -> bool:
    """A table of text by text."""
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


Check = Callable[[Any], bool]


def record_field(
    record: Mapping[str, Any], key: str, where: Path | str, valid: Check, expected: str
) -> Any:
    """`record[key]` if `valid` says it is what it must be, else one error naming the file
    (`where`: its path, or its line), the key and the value (a missing key: None)."""
    value = record.get(key)
    if not valid(value):
        raise SourceError(f"expects {expected}", key=key, value=value, origin=str(where))
    return value
