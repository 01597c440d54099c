"""TOML text into a table: tomli's answer, read by toml-rs where it is installed.

tomli is the reference: what it reads, compose reads, and what it refuses, compose refuses in
its words (FILE:LINE:COLUMN and the same message). toml-rs, a Rust parser, reads the
benchmark's files 8x to 10x faster and reads the whole toml-test corpus as tomli does
(`benchmarks/results/parsers.md`), so it is a shortcut of tomli, taken where it can tell it
gives the same table: it has read the text, the table nests no deeper than `MAX_DEPTH`
(toml-rs reads inline values nested thousands deep, which tomli refuses past 100), and the
text holds no run of digits longer than Python converts to an int (4,300 digits: toml-rs reads
such an integer, tomli raises Python's `ValueError`). Any other
outcome, an error above all, is tomli's to decide: the text is parsed again by tomli, so an
error is always tomli's, and a text only toml-rs refused would still be read.

toml-rs is optional (`pip install 'compose-config[fast]'`; it has wheels for Python 3.11 and
later on Linux, macOS and Windows); without it, or with every shortcut off, tomli reads
everything. Neither is imported before a TOML text is read: `rl --help` reads none.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

from compose._shortcuts import SHORTCUTS
from compose._tree import MAX_DEPTH, too_deep

Loads = Callable[[str], dict[str, Any]]


class TomlSyntaxError(Exception):
    """tomli's refusal of a text: its message, and the 1-based line and column it names."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class TooDeep(Exception):
    """A table that nests more than `MAX_DEPTH` tables or lists (tomli may read it)."""


def loads(text: str) -> dict[str, Any]:
    """The table tomli reads from `text`.

    Raises `TomlSyntaxError` where tomli refuses the text, `TooDeep` past `MAX_DEPTH` levels,
    `RecursionError` where tomli does (inline values nested past its limit) and `ValueError`
    for an integer longer than Python converts (4,300 digits).
    """
    native = _native_loads() if SHORTCUTS else None
    if native is not None and not may_hold_long_integer(text):
        try:
            table = native(text)
        except Exception:  # any refusal is tomli's to word (or to overrule)
            pass
        else:
            if not _too_deep(text, table):
                return table
    table = _reference_loads(text)
    if _too_deep(text, table):
        raise TooDeep
    return table


def native_parser() -> str | None:
    """The native parser's name and version where one is installed and used, else None."""
    if not SHORTCUTS or _native_loads() is None:
        return None
    import toml_rs  # noqa: PLC0415  # loaded already by `_native_loads`

    return f"toml-rs {toml_rs.__version__}"


def _too_deep(text: str, table: dict[str, Any]) -> bool:
    return (not SHORTCUTS or may_nest_too_deep(text)) and too_deep(table)


def may_nest_too_deep(text: str) -> bool:
    """Whether TOML `text` has the structure to nest past `MAX_DEPTH`: the walk is then needed.

    Each level of a path costs the text a character: a key's segment past its first a `.`; an
    array's index a `[` (of the array, or of a `[[header]]` of an array of tables); an inline
    table's first key segment its `{`. Only two levels are free: the first segment of a header
    and of a key. Counting three characters (fast, in C) clears most files without the walk.
    """
    return text.count(".") + text.count("[") + text.count("{") + 2 > MAX_DEPTH


def may_hold_long_integer(text: str) -> bool:
    """Whether `text` may hold a decimal integer longer than Python converts (`limit` digits,
    4,300 unless the process changed it), which tomli refuses and toml-rs reads.

    Such an integer is a run of more than `limit` digits and underscores, and any such run
    covers a whole stretch between two neighbouring multiples of `limit // 2`: only the
    stretches whose two ends are digits are looked at, each by one C-speed check. A 137 KB
    file costs a few microseconds, where a regex search costs most of what the parse does.
    """
    limit = sys.get_int_max_str_digits()
    if limit == 0 or len(text) <= limit:
        return False
    step = limit // 2
    for start in range(0, len(text) - step, step):
        end = start + step
        if text[start] in _RUN and text[end] in _RUN:
            stretch = text[start : end + 1].replace("_", "")
            if not stretch or stretch.isdigit():  # isdigit: any digit, a safe superset
                return True
    return False


_RUN = frozenset("0123456789_")


@functools.cache  # what is installed does not change while a process runs; a failed import
def _native_loads() -> Loads | None:  # would otherwise search sys.path again for every text
    """toml-rs's `loads` where it is installed, imported on the first TOML text, not before."""
    try:
        import toml_rs  # noqa: PLC0415  # optional, and loaded only to read TOML
    except ImportError:
        return None
    return toml_rs.loads


def _reference_loads(text: str) -> dict[str, Any]:
    import tomli  # noqa: PLC0415  # loaded only where it reads: the fallback and the error path

    try:
        return tomli.loads(text)
    except tomli.TOMLDecodeError as error:
        message = getattr(error, "msg", str(error))
        raise TomlSyntaxError(
            message, getattr(error, "lineno", 0), getattr(error, "colno", 0)
        ) from None
