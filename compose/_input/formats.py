"""JSON and YAML file nodes: parsed by suffix into the same plain tables as TOML's.

A node's format is its file's suffix: `.json` JSON, `.yaml` or `.yml` YAML, anything else TOML
(so a pipe, `@ <(generate)`, is TOML). Whatever the format, a node is held to TOML's rules: its
top level is a table, its keys are strings, each written once. A null becomes the text "None",
which is how a TOML file spells None: the type-directed None rules then apply unchanged (None
where the type admits it, the text for a plain `str`, else an error), and what
`compose show --format json` writes (None as null) loads back as it was.

JSON is Python's `json` (NaN and Infinity accepted: TOML has `nan` and `inf`, and
`compose show --format json` writes them so). YAML is PyYAML's safe loader, an optional
dependency imported only when a YAML file is read (see `_yaml`).

Lines for origins are found as TOML's are: only when asked for, by a scan of the text.
"""

from __future__ import annotations

import contextlib
import json
import re
from typing import Any, Protocol

from compose._input.positions import key_lines
from compose._schema.coerce import may_spell_none
from compose._syntax import NONE_TEXT
from compose._tree import MAX_DEPTH, too_deep
from compose.errors import SourceError

JSON, YAML, TOML = "JSON", "YAML", "TOML"
INSTALL_YAML = "pip install 'compose-config[yaml]' (or pip install pyyaml)"

Path = tuple[str | int, ...]


def format_of(shown: str) -> str:
    """`JSON`, `YAML` or `TOML`, from the suffix of the file's name (in any case)."""
    tail = shown[-5:].lower()  # cheaper than splitting the path: this runs for every file
    if tail.endswith(".json"):
        return JSON
    return YAML if tail.endswith((".yaml", ".yml")) else TOML


def key_lines_for(shown: str, text: str) -> dict[Path, int]:
    """Key path -> the line where it is written, in the file's format."""
    kind = format_of(shown)
    if kind == TOML:
        return key_lines(text)
    if kind == JSON:
        return json_key_lines(text)
    return _yaml_module(shown).key_lines(text)


def may_give_none(shown: str, text: str) -> bool:
    """Whether a file node may give the text "None": as written, through escapes, or a null."""
    kind = format_of(shown)
    if kind == YAML:
        return True  # null has too many spellings (~, Null, an empty value) to look for
    return may_spell_none(text) or (kind == JSON and "null" in text)


def parse_yaml(shown: str, text: str) -> dict[str, Any]:
    """The table of a YAML file node (see `_yaml`)."""
    return _yaml_module(shown).parse(shown, text)


def _yaml_module(shown: str) -> _YamlModule:
    """`compose._input.yaml`, which needs PyYAML: a SourceError naming `shown` when it is
    missing."""
    try:
        from compose._input import yaml as _yaml  # noqa: PLC0415  # PyYAML is optional: loaded for YAML only
    except ImportError:
        raise SourceError(
            "is a YAML file, and reading YAML needs PyYAML, which is not installed",
            origin=shown,
            hint=INSTALL_YAML,
        ) from None
    return _yaml


class _YamlModule(Protocol):
    """What `_formats` uses of `compose._input.yaml` (imported lazily, so typed here)."""

    def parse(self, shown: str, text: str) -> dict[str, Any]: ...

    def key_lines(self, text: str) -> dict[Path, int]: ...


# --- JSON ------------------------------------------------------------------------------------


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
    except RecursionError:
        raise SourceError("invalid JSON: nested too deeply", origin=shown) from None
    except ValueError as error:  # an integer longer than Python converts (4,300 digits)
        raise SourceError(f"invalid JSON: {error}", origin=shown) from None
    table = top_table(shown, value, "an object")
    if text.count("[") + text.count("{") > MAX_DEPTH and too_deep(table):
        raise SourceError(f"objects or arrays nested deeper than {MAX_DEPTH} levels", origin=shown)
    if "null" in text:
        nulls_as_text(table)
    return table


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
    dotted = ".".join(str(segment) for segment in path)
    return SourceError(
        f'duplicate key "{dotted}" (first written at line {first})', origin=f"{shown}:{line}"
    )


def top_table(shown: str, value: Any, table_name: str) -> dict[str, Any]:
    """`value` when it is a table; else a SourceError saying what the file holds instead."""
    if isinstance(value, dict):
        return value
    kind = format_of(shown)
    hint = f"put it under a key: {_under_a_key(kind)}" if isinstance(value, list) else None
    raise SourceError(
        f"the top level of a {kind} file node must be {table_name} (a table of keys), "
        f"not {_kind_of(value)}",
        origin=shown,
        hint=hint,
    )


def _under_a_key(kind: str) -> str:
    return '{"env": [...]}' if kind == JSON else "env: [...]"


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return f"a {type(value).__name__}"


def nulls_as_text(node: Any) -> None:
    """Every None in `node` (a parsed tree, at most `MAX_DEPTH` deep) becomes "None", in place."""
    children = node.items() if isinstance(node, dict) else enumerate(node)
    for key, child in list(children):
        if child is None:
            node[key] = NONE_TEXT
        elif isinstance(child, (dict, list)):
            nulls_as_text(child)


# --- JSON lines ------------------------------------------------------------------------------

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def json_key_lines(text: str) -> dict[Path, int]:
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
        self.lines: dict[Path, int] = {}
        self.duplicates: list[tuple[Path, int, int]] = []  # (path, line, first line)
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

    def _value(self, pos: int, path: Path, depth: int) -> int:
        pos = self._skip(pos)
        char = self.text[pos : pos + 1]
        if depth > MAX_DEPTH:
            raise _Stop
        if char == "{":
            return self._object(pos + 1, path, depth + 1)
        if char == "[":
            return self._array(pos + 1, path, depth + 1)
        return _DECODER.raw_decode(self.text, pos)[1]  # text, a number, true, false or null

    def _object(self, pos: int, path: Path, depth: int) -> int:
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

    def _array(self, pos: int, path: Path, depth: int) -> int:
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
