"""Where a value came from: a file (and the line in it), a flag, a variable, or a class default.

Provenance costs nothing until it is asked for. A composition records no origins as it merges:
its `Origins` holds a replay, which composes the same nodes again (reading the same files, and
checking they did not change) while recording, the first time an error, a warning or a listing
looks a path up. Recording maps a key path to the node that last set the subtree under it, so
merging a whole table costs one store, not one per leaf; a lookup walks to the longest recorded
prefix. Line numbers are computed only when asked for, from one scan of that file's text.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from compose._input.formats import key_lines_for
from compose._tree import KeyPath
from compose.errors import ComposeError


class FileSource:
    """A file node: the path as the user wrote it, the section its keys live in, and its text.

    The text is held only while the node is composed (until `release`): a composition's memory
    is then its tree, not every file's text besides. Whatever needs the text later (line
    numbers, a replay) reads the file again with `read`; if it is no longer the text composed,
    `changed` is set and the node's origins say so rather than give lines that may be wrong.
    """

    __slots__ = ("_digest", "_lines", "_read", "_text", "changed", "prefix", "shown")

    def __init__(
        self,
        shown: str,
        text: str,
        prefix: KeyPath = (),
        read: Callable[[str], str] | None = None,
    ) -> None:
        self.shown = shown
        self.prefix = prefix
        self.changed = False
        self._text: str | None = text
        self._read = read  # None: the text cannot be read again, so it is kept
        self._digest = _digest(text)
        self._lines: dict[KeyPath, int] | None = None

    def __repr__(self) -> str:
        return f"FileSource({self.shown!r}, prefix={self.prefix!r})"

    @property
    def text(self) -> str:
        """The text composed: held until `release`, then read again (and checked) each time."""
        if self._text is not None:
            return self._text
        return self._read_again()

    def release(self) -> None:
        """Drop the text, once it has been merged (and can be read again)."""
        if self._read is not None:
            self._text = None

    def _read_again(self) -> str:
        text = ""  # gone or unreadable since: its origins say it changed
        if self._read is not None:  # always: only a text that can be read again is released
            with contextlib.suppress(ComposeError):
                text = self._read(self.shown)
        if _digest(text) != self._digest:
            self.changed = True
        return text

    def line_of(self, inner: KeyPath) -> int | None:
        """The line of `inner` (a path inside this file), else of its nearest written ancestor."""
        if self._lines is None:
            self._lines = key_lines_for(self.shown, self.text)  # by suffix: TOML, JSON, YAML
        while inner:
            line = self._lines.get(inner)
            if line is not None:
                return line
            inner = inner[:-1]
        return None

    def at(self, inner: KeyPath) -> str:
        """`b.toml:3` for `inner`, a path inside this file; no line if the file has changed."""
        line = self.line_of(inner)
        if self.changed:
            return f"{self.shown} (changed since it was read)"
        return f"{self.shown}:{line}" if line else self.shown

    def describe(self, path: KeyPath) -> str:
        inner = path[len(self.prefix) :] if path[: len(self.prefix)] == self.prefix else ()
        return self.at(inner)


def _digest(text: str) -> tuple[int, int]:
    """Enough to tell a file read again from the text composed (hashing a 2 kB text: ~1 µs)."""
    return len(text), hash(text)


class Moved:
    """A value that a rename moved: it was written at `inner` (a path inside the file). `alias`:
    the validation alias the file named its field by (`inner`'s last key), which validation is
    handed (`compose._bind.validate`); None for a renamed or migrated key."""

    def __init__(self, source: FileSource, inner: KeyPath, alias: str | None = None) -> None:
        self.source = source
        self.inner = inner
        self.alias = alias

    def describe(self, path: KeyPath) -> str:
        return self.source.at(self.inner)


class Shifted:
    """List elements a merge strategy placed at another index than their node wrote them:
    what is at `at` (and below) is described as `base` describes `was` (and below)."""

    def __init__(self, base: FileSource | Shifted, at: KeyPath, was: KeyPath) -> None:
        self.base = base
        self.at = at
        self.was = was

    @property
    def source(self) -> FileSource:
        return self.base if isinstance(self.base, FileSource) else self.base.source

    def describe(self, path: KeyPath) -> str:
        return self.base.describe(self.was + path[len(self.at) :])


class FlagSource:
    """A command-line flag (or a `compose()` override), shown as the user typed it. `alias`:
    the validation alias its last segment named the field by, as `Moved.alias`."""

    def __init__(self, text: str, alias: str | None = None) -> None:
        self.text = text
        self.alias = alias

    def describe(self, path: KeyPath) -> str:
        return self.text


class EnvSource:
    """An environment variable of the app's prefix (`env_prefix=`), shown as `$NAME`."""

    def __init__(self, variable: str) -> None:
        self.variable = variable

    def describe(self, path: KeyPath) -> str:
        return f"${self.variable}"


class Unknown:
    """Who set a value cannot be told: a file changed since it was composed, so a replay of the
    composition would not be the composition."""

    def __init__(self, source: FileSource) -> None:
        self.source = source

    def describe(self, path: KeyPath) -> str:
        return f"unknown: {self.source.shown} changed since it was read"


class DefaultSource:
    """A class default of the schema: the bottom layer."""

    def describe(self, path: KeyPath) -> str:
        return "default"


DEFAULT = DefaultSource()
Origin = FileSource | Moved | Shifted | FlagSource | EnvSource | DefaultSource | Unknown


class Origins:
    """Key path -> the node that last set the subtree there; lookups take the longest prefix.

    Built with `replay`, the records are made by calling it, once, when first needed; `set`
    before that adds records that come after all of the replay's (a class default put in later).
    """

    __slots__ = ("_by_path", "_replay", "_tree")

    def __init__(self, replay: Callable[[], Origins] | None = None) -> None:
        self._by_path: dict[KeyPath, Origin] = {}
        self._replay = replay
        self._tree: Any = None

    @classmethod
    def unknown(cls, changed: FileSource) -> Origins:
        """Origins that know nothing, and say why: one record at the root answers every path."""
        origins = cls()
        origins.set((), Unknown(changed))
        return origins

    def _records(self) -> dict[KeyPath, Origin]:
        if self._replay is not None:
            replay, self._replay = self._replay, None
            later = self._by_path
            replayed = replay()
            self._by_path, self._tree = replayed._by_path, replayed._tree
            self._by_path.update(later)
        return self._by_path

    @property
    def tree(self) -> Any:
        """The tree the replay composed: what the nodes set, before interpolation and before
        any validator (an app's may change the data it is handed in place); None where the
        records were made while composing, or are unknown."""
        self._records()
        return self._tree

    @tree.setter
    def tree(self, tree: Any) -> None:
        self._tree = tree

    def set(self, path: KeyPath, origin: Origin) -> None:
        self._by_path[path] = origin

    def replace(self, path: KeyPath, origin: Origin, old: object = None) -> None:
        """Record a node that replaced the subtree `old` at `path`: its records no longer apply."""
        if isinstance(old, (dict, list)):  # a scalar has no records below it
            self.forget(path, old)
        self._records()[path] = origin

    def forget(self, path: KeyPath, old: object) -> None:
        """Drop the records at and under `path`, walking only `old`, the subtree that was there.

        The cost is that of the discarded data, never of the whole map.
        """
        self._records().pop(path, None)
        if isinstance(old, dict):
            for key, value in old.items():
                self.forget((*path, key), value)
        elif isinstance(old, list):
            for index, value in enumerate(old):
                self.forget((*path, index), value)

    def recorded_at(self, path: KeyPath) -> KeyPath | None:
        """The longest prefix of `path` that has a record: the one `lookup` answers from."""
        by_path = self._records()
        while path not in by_path:
            if not path:
                return None
            path = path[:-1]
        return path

    def lookup(self, path: KeyPath) -> Origin | None:
        by_path = self._records()
        while True:
            origin = by_path.get(path)
            if origin is not None or not path:
                return origin
            path = path[:-1]

    def describe(self, path: KeyPath) -> str | None:
        """`b.toml:3`, `--trainer.lr` or `default`; None when nothing set the path."""
        origin = self.lookup(path)
        return origin.describe(path) if origin is not None else None

    def items(self) -> list[tuple[KeyPath, Origin]]:
        return list(self._records().items())
