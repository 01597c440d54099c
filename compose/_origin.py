"""Where a value came from: a file (and the line in it), a command-line flag, or a class default.

Provenance is kept cheaply: `Origins` maps a key path to the node that last set the subtree
under it, so merging a whole table costs one store, not one per leaf. Looking a path up walks
to its longest recorded prefix. Line numbers are computed only when an error or a listing asks
for them, from one scan of that file's text.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compose._positions import key_lines

Seg = str | int
KeyPath = tuple[Seg, ...]


@dataclass(eq=False)
class FileSource:
    """A file node: its text, the path as the user wrote it, and the section its keys live in."""

    shown: str
    text: str
    prefix: KeyPath = ()
    _lines: dict[KeyPath, int] | None = field(default=None, repr=False)

    def line_of(self, inner: KeyPath) -> int | None:
        """The line of `inner` (a path inside this file), else of its nearest written ancestor."""
        if self._lines is None:
            self._lines = key_lines(self.text)
        while inner:
            line = self._lines.get(inner)
            if line is not None:
                return line
            inner = inner[:-1]
        return None

    def describe(self, path: KeyPath) -> str:
        inner = path[len(self.prefix) :] if path[: len(self.prefix)] == self.prefix else ()
        line = self.line_of(inner)
        return f"{self.shown}:{line}" if line else self.shown


@dataclass(frozen=True)
class Moved:
    """A value that a rename moved: it was written at `inner` (a path inside the file)."""

    source: FileSource
    inner: KeyPath

    def describe(self, path: KeyPath) -> str:
        line = self.source.line_of(self.inner)
        return f"{self.source.shown}:{line}" if line else self.source.shown


@dataclass(frozen=True)
class FlagSource:
    """A command-line flag (or a `compose()` override), shown as the user typed it."""

    text: str

    def describe(self, path: KeyPath) -> str:
        return self.text


@dataclass(frozen=True)
class DefaultSource:
    """A class default of the schema: the bottom layer."""

    def describe(self, path: KeyPath) -> str:
        return "default"


DEFAULT = DefaultSource()
Origin = FileSource | Moved | FlagSource | DefaultSource


class Origins:
    """Key path -> the node that last set the subtree there; lookups take the longest prefix."""

    __slots__ = ("_by_path",)

    def __init__(self) -> None:
        self._by_path: dict[KeyPath, Origin] = {}

    def set(self, path: KeyPath, origin: Origin) -> None:
        self._by_path[path] = origin

    def replace(self, path: KeyPath, origin: Origin, old: object = None) -> None:
        """Record a node that replaced the subtree `old` at `path`: its records no longer apply."""
        if isinstance(old, (dict, list)):  # a scalar has no records below it
            self.forget(path, old)
        self._by_path[path] = origin

    def forget(self, path: KeyPath, old: object) -> None:
        """Drop the records at and under `path`, walking only `old`, the subtree that was there.

        The cost is that of the discarded data, never of the whole map.
        """
        self._by_path.pop(path, None)
        if isinstance(old, dict):
            for key, value in old.items():
                self.forget((*path, key), value)
        elif isinstance(old, list):
            for index, value in enumerate(old):
                self.forget((*path, index), value)

    def lookup(self, path: KeyPath) -> Origin | None:
        by_path = self._by_path
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
        return list(self._by_path.items())
