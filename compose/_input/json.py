"""JSON file nodes: Python's `json`, held to TOML's rules, and the lines of its keys.

NaN and Infinity are accepted: TOML has `nan` and `inf`, and `compose show --format json`
writes them so. Lines for origins are found as TOML's are: only when asked for, by a scan of
the text (`json_key_lines`), which also finds where a key was written twice.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any

from compose._input.documents import nulls_as_text, top_table
from compose._syntax import dotted
from compose._tree import MAX_DEPTH, KeyPath, too_deep
from compose.errors import SourceError, integer_too_long, nested_too_deep


class _DuplicateKey(Exception):
    """An object wrote a key twice: where, the scan of the text tells (see `json_key_lines`)."""


def parse_json(shown: str, text: str) -> dict[str, Any]:
    """The table of a JSON file node; duplicate keys, syntax errors and other shapes refused."""
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as error:
        where = f"{shown}:{error.lineno}:{error.colno}"
        raise SourceError(f"invalid JSON: {error.msg}", origin=where) from None
    except _DuplicateKey:
        raise _duplicate_error(shown, text) from None
    except RecursionError:  # how deep the decoder goes first depends on the Python
        raise SourceError(nested_too_deep(_JSON_NESTING), origin=shown) from None
    except ValueError as error:  # an integer longer than Python converts (4,300 digits)
        raise SourceError(f"invalid JSON: {integer_too_long(error)}", origin=shown) from None
    table = top_table(shown, value, "an object")
    if too_deep(table):
        raise SourceError(nested_too_deep(_JSON_NESTING), origin=shown)
    nulls_as_text(table)
    return table


_JSON_NESTING = "objects or arrays"


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    table = dict(pairs)
    if len(table) < len(pairs):
        raise _DuplicateKey
    return table


def _duplicate_error(shown: str, text: str) -> SourceError:
    scan = _JsonScan(text)
    scan.run()
    if not scan.duplicates:  # cannot happen: the scan follows json's grammar
        return SourceError("duplicate key in a JSON object", origin=shown)
    path, line, first = scan.duplicates[0]
    return SourceError(
        f'duplicate key "{dotted(path)}" (first written at line {first})', origin=f"{shown}:{line}"
    )


# --- lines of keys --------------------------------------------------------------------------------

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def json_key_lines(text: str) -> dict[KeyPath, int]:
    """Map every key path of the JSON document `text` to the 1-based line where it is written.

    Keys map to the line of the key; list elements, to the line where the element starts.
    """
    scan = _JsonScan(text)
    scan.run()
    return scan.lines


class _Stop(Exception):
    """The scan met text it does not follow (a file that changed since): it keeps what it has."""


class _JsonScan:
    """One pass over a JSON text, recording lines of keys and elements, and duplicate keys.

    It runs after `json` accepted the text (or on a text read again, which may be anything):
    it validates nothing, and stops where it cannot follow, keeping what it found.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines: dict[KeyPath, int] = {}
        self.duplicates: list[tuple[KeyPath, int, int]] = []  # (path, line, first line)
        self._counted_to = 0
        self._line = 1

    def run(self) -> None:
        with contextlib.suppress(_Stop, ValueError):  # ValueError: a value json cannot read
            self._value(0, (), 0)

    def _line_at(self, pos: int) -> int:
        """The 1-based line of `pos`; linear overall because positions are asked in order."""
        self._line += self.text.count("\n", self._counted_to, pos)
        self._counted_to = pos
        return self._line

    def _skip(self, pos: int) -> int:
        match = _WHITESPACE.match(self.text, pos)
        return match.end() if match else pos

    def _expect(self, pos: int, char: str) -> int:
        pos = self._skip(pos)
        if not self.text.startswith(char, pos):
            raise _Stop
        return pos + 1

    def _value(self, pos: int, path: KeyPath, depth: int) -> int:
        pos = self._skip(pos)
        char = self.text[pos : pos + 1]
        if depth > MAX_DEPTH:
            raise _Stop
        if char == "{":
            return self._object(pos + 1, path, depth + 1)
        if char == "[":
            return self._array(pos + 1, path, depth + 1)
        return _DECODER.raw_decode(self.text, pos)[1]  # text, a number, true, false or null

    def _object(self, pos: int, path: KeyPath, depth: int) -> int:
        pos = self._skip(pos)
        if self.text.startswith("}", pos):
            return pos + 1
        seen: dict[str, int] = {}
        while True:
            pos = self._skip(pos)
            if not self.text.startswith('"', pos):
                raise _Stop
            key, end = _DECODER.raw_decode(self.text, pos)
            line = self._line_at(pos)
            key_path = (*path, key)
            if key in seen:
                self.duplicates.append((key_path, line, seen[key]))
            seen[key] = self.lines[key_path] = line
            pos = self._value(self._expect(end, ":"), key_path, depth)
            pos = self._skip(pos)
            if not self.text.startswith(",", pos):
                return self._expect(pos, "}")
            pos += 1

    def _array(self, pos: int, path: KeyPath, depth: int) -> int:
        pos = self._skip(pos)
        if self.text.startswith("]", pos):
            return pos + 1
        index = 0
        while True:
            pos = self._skip(pos)
            element = (*path, index)
            self.lines[element] = self._line_at(pos)
            pos = self._skip(self._value(pos, element, depth))
            if not self.text.startswith(",", pos):
                return self._expect(pos, "]")
            pos += 1
            index += 1
