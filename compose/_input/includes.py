"""`_include_`: a file names the files it builds on (Hydra's defaults list), merged before it.

    _include_ = ["base.toml", { "trainer.optim" = "optim/muon" }, "_self_", "overlay.toml"]

Each entry is a file name (mounted where the including file is) or a one-key table mounting a
file at a dotted section relative to it. `"_self_"` places the including file's own keys; without
it they merge after every entry (bases first, then the file itself). Expansion is depth-first;
the same file at the same mount merges once per composition, at its first place (a diamond does
not apply its shared base twice); a file met again inside its own chain of includes is a cycle.
Names are looked up beside the including file, then on the search path (`_search`).

Files without `_include_` never reach this module: the graph checks for the key (one dict
lookup) and merges the file as it always has.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

from compose._input.origins import FileSource
from compose._input.search import SearchPath, find_include
from compose._schema.shape import Shape
from compose._syntax import INCLUDE, SELF, dotted
from compose._tree import KeyPath
from compose.errors import ComposeError, SourceError

_ENTRY_FORMS = f'a file name, "{SELF}", or a one-key table {{ "section" = "file" }}'


class Mount(NamedTuple):
    """Where a file node's keys go: the section's path, its shape and its class default."""

    path: KeyPath
    shape: Shape
    default: Any


class Composition(Protocol):
    """What expansion needs from the composition in progress (`_graph` provides it)."""

    @property
    def search_path(self) -> SearchPath: ...

    @property
    def sources(self) -> list[FileSource]:
        """Every file node read so far, in order."""
        ...

    def mount(self, base: KeyPath, key: str, shown: str) -> Mount:
        """The section `key` (dotted, as on the CLI) below `base`, made ready to merge into."""
        ...

    def load(self, path: str, prefix: KeyPath) -> tuple[dict[str, Any], FileSource]: ...

    def merge(self, table: dict[str, Any], source: FileSource, mount: Mount) -> None: ...


# One entry: `SELF`, or (the dotted section it mounts at, "" for the including file's, name).
Entry = tuple[str, str] | str
Chain = tuple[tuple[str, str], ...]  # the files being expanded: (real path, path as shown)

# Past any real config tree; each bounds what a file node's includes may cost (docs/10).
MAX_INCLUDE_DEPTH = 64  # files each including the next
MAX_INCLUDED = 1_000  # files merged by one file node's includes (a tree doubling per level)


def expand(
    table: dict[str, Any], source: FileSource, mount: Mount, composition: Composition
) -> None:
    """Merge a file node whose table has `_include_`: its entries, and itself at `_self_`."""
    _Expansion(composition).file(table, source, mount, ())


class _Expansion:
    """One file node's expansion: the (file, mount) pairs merged so far, to merge each once."""

    def __init__(self, composition: Composition) -> None:
        self.composition = composition
        self.merged = 0
        self._real: dict[str, str] = {}
        self.done = {(self.real(s.shown), s.prefix) for s in composition.sources}

    def real(self, shown: str) -> str:
        """The file behind a path, to recognise it however it was named."""
        found = self._real.get(shown)
        if found is None:
            found = self._real[shown] = os.path.realpath(shown)
        return found

    def file(self, table: dict[str, Any], source: FileSource, mount: Mount, chain: Chain) -> None:
        entries = _entries(table.pop(INCLUDE), source)
        chain = (*chain, (self.real(source.shown), source.shown))
        for index, entry in enumerate(entries):
            if isinstance(entry, str):  # "_self_": the file's own keys, here
                self.composition.merge(table, source, mount)
            else:
                section, name = entry
                self.entry(section, name, mount, chain, _where(source, index))
        if SELF not in entries:
            self.composition.merge(table, source, mount)

    def entry(
        self, section: str, name: str, mount: Mount, chain: Chain, where: Callable[[], str]
    ) -> None:
        """Merge one included file (and what it includes), unless it merged there already."""
        including = chain[-1][1]
        if section:
            mount = _at_section(self.composition, mount.path, section, including, where)
        path = find_include(name, os.path.dirname(including), self.composition.search_path, where)
        real = self.real(path)
        if any(real == earlier for earlier, _ in chain):
            raise _cycle(chain, real, path, where())
        if (real, mount.path) in self.done:
            return  # merged already, at its first place: a diamond's shared base
        self._within_limits(chain, path, where)
        self.done.add((real, mount.path))
        table, source = self.composition.load(path, mount.path)
        if INCLUDE in table:
            self.file(table, source, mount, chain)
        else:
            self.composition.merge(table, source, mount)

    def _within_limits(self, chain: Chain, path: str, where: Callable[[], str]) -> None:
        self.merged += 1
        if len(chain) >= MAX_INCLUDE_DEPTH:
            raise SourceError(
                f"includes nested more than {MAX_INCLUDE_DEPTH} files deep",
                value=path,
                origin=where(),
                hint=f"{chain[0][1]} includes a file that includes a file ... down to here",
            )
        if self.merged > MAX_INCLUDED:
            raise SourceError(
                f"includes merge more than {MAX_INCLUDED:,} files",
                value=path,
                origin=where(),
                hint="does each level include the next more than once, at other sections?",
            )


def _where(source: FileSource, index: int) -> Callable[[], str]:
    """The entry's line (`b.toml:2`), computed only for an error: it costs a scan of the text."""
    return lambda: source.at((INCLUDE, index))


def _at_section(
    composition: Composition, base: KeyPath, section: str, shown: str, where: Callable[[], str]
) -> Mount:
    try:
        return composition.mount(base, section, shown)
    except ComposeError as error:
        if error.origin != shown or len(error.errors) != 1:
            raise
        raise error.evolve(origin=where()) from None  # the line of the entry, not just the file


def _cycle(chain: Chain, real: str, path: str, where: str) -> SourceError:
    start = next(index for index, (earlier, _) in enumerate(chain) if earlier == real)
    names = [shown for _, shown in chain[start:]]
    return SourceError(f"includes form a cycle: {' -> '.join([*names, path])}", origin=where)


def _entries(value: Any, source: FileSource) -> list[Entry]:
    """The `_include_` list, checked: each entry a name, `_self_`, or (section, name)."""
    if not isinstance(value, list):
        raise SourceError(
            f"{INCLUDE} must be a list of entries: {_ENTRY_FORMS}",
            value=value,
            origin=source.at((INCLUDE,)),
        )
    entries = [_entry(item, source, index) for index, item in enumerate(value)]
    if entries.count(SELF) > 1:
        raise SourceError(f"{SELF} appears more than once", origin=source.at((INCLUDE,)))
    return entries


def _entry(item: Any, source: FileSource, index: int) -> Entry:
    if isinstance(item, str) and item:
        return item if item == SELF else ("", item)
    if isinstance(item, dict):
        found = _mounted(item)
        if found is not None:
            return found
    raise SourceError(
        f"is not an {INCLUDE} entry: {_ENTRY_FORMS}",
        value=item,
        origin=source.at((INCLUDE, index)),
    )


def _mounted(table: dict[str, Any]) -> tuple[str, str] | None:
    """`{ "trainer.optim" = "optim/muon" }`, also written with a bare dotted key (which TOML
    reads as nested one-key tables): ("trainer.optim", "optim/muon")."""
    keys: list[str] = []
    value: Any = table
    while isinstance(value, dict) and len(value) == 1:
        key, value = next(iter(value.items()))
        keys.append(key)
    if not keys or not isinstance(value, str) or not value or value == SELF:
        return None
    return dotted(keys), value
