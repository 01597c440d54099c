"""The fold: file nodes, deletions and data in the order given, then the CLI node.

Resolution order: CLI values > file nodes (in argv order) > class defaults. All value overrides
form one node applied after the files (`compose._merge.flags`).

Composing records no origins: the composed `origins` replay the same nodes (reading the same
files again) the first time someone asks where a value came from (`compose._input.origins`).
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from compose._input.argv import (
    DataItem,
    DeleteItem,
    EnvItem,
    FileItem,
    Item,
    NodeItem,
    OverridesItem,
    ValueItem,
)
from compose._input.env import unknown_variables
from compose._input.files import FileCache, load_file, parse_file
from compose._input.formats import may_give_none
from compose._input.origins import FileSource, FlagSource, Moved, Origins
from compose._input.search import SearchPath
from compose._merge.composed import Composed, marks_resolution, note_work
from compose._merge.flags import (
    announce_renames,
    apply_values,
    ensure_lists,
    key_segments,
    resolve_key,
)
from compose._merge.migrations import announce as announce_migrated
from compose._merge.migrations import migrate_table
from compose._merge.renames import move_renamed
from compose._merge.tables import Halted, Merger
from compose._schema.plan import NO_DEFAULT
from compose._schema.shape import ANY, NOT_A_SECTION, Shape, model_shape, takes_a_file
from compose._schema.walk import Target, walk
from compose._syntax import INCLUDE
from compose._tree import KeyPath, leaf_paths
from compose._warn import held
from compose.errors import ArgvError, ComposeError

if TYPE_CHECKING:  # loaded by the first file that includes others
    from compose._input.includes import Mount


def root_shape(schema: type[BaseModel] | None) -> Shape:
    return model_shape(schema) if schema is not None else ANY


def compose_items(
    items: list[Item],
    schema: type[BaseModel] | None,
    search_path: SearchPath = (),
    files: FileCache | None = None,
    *,
    recording: bool = False,
) -> Composed:
    """Merge file nodes and deletions in order, then the CLI values as one last node.

    `files`, kept by a caller that composes the same files many times (a sweep's points),
    reads and parses each file once for all of them. With `recording`, who set what is
    recorded while merging, for a caller that asks it of every leaf (a run record): one
    composition instead of a composition and its replay."""
    root = root_shape(schema)
    if recording:
        composed = Composed({}, Origins(), root, [], search_path=search_path)
        merger = Merger(root, composed.show_key, composed.origins)
    else:
        sources: list[FileSource] = []  # filled as files are read, for a replay to read again
        again = functools.partial(replay, list(items), root, sources, search_path=search_path)
        composed = Composed({}, Origins(again), root, sources, search_path=search_path)
        merger = Merger(root, composed.show_key, origins_at=again)
    composed.files = files
    _compose(items, merger, composed, iter(()))
    return composed


def replay(
    items: list[Item],
    root: Shape,
    sources: list[FileSource],
    stop_at: int = 0,
    *,
    search_path: SearchPath = (),
) -> Origins:
    """Compose `items` again, recording origins, reading again the files in `sources`.

    With `stop_at`, stop at that union switch that drops keys: who set what just before it.
    If a file changed since, the replay is not the composition: its origins are unknown.
    """
    composed = Composed({}, Origins(), root, [], search_path=search_path)
    merger = Merger(root, composed.show_key, composed.origins, stop_at=stop_at)
    with held():  # dropped: the first composition gave them
        try:
            _compose(items, merger, composed, iter(sources))
        except Halted:
            pass  # where it was asked to stop: the records are those of that moment
        except ComposeError:
            if not any(source.changed for source in sources):
                raise
    changed = [source for source in sources if source.changed]
    if changed:
        return Origins.unknown(changed[0])
    composed.origins.tree = composed.tree
    return composed.origins


def _compose(
    items: list[Item], merger: Merger, composed: Composed, cached: Iterator[FileSource]
) -> None:
    root = composed.root
    composed.tree = merger.tree
    values: list[ValueItem] = []
    env_errors: list[ComposeError] = []
    for item in items:
        if isinstance(item, FileItem):
            _merge_file(merger, composed, item, cached)
        elif isinstance(item, EnvItem):  # first in `items`: between class defaults and files
            env_errors = _apply_env(merger, composed, item)
        elif isinstance(item, DataItem):  # the base below every other node
            _merge_data(merger, composed, item)
        elif isinstance(item, DeleteItem):
            target = resolve_key(root, item.key, merger.tree, item.shown)
            announce_renames(target, item.shown)
            merger.delete(target.path)
        elif isinstance(item, ValueItem):
            values.append(item)
        elif isinstance(item, NodeItem):
            _merge_typed_node(merger, composed, item)
        elif isinstance(item, OverridesItem):  # after the NodeItems
            from compose._merge.hydra_values import apply_overrides  # noqa: PLC0415  # Hydra only

            assert composed.typed is not None
            apply_overrides(composed.typed, item.overrides, merger.record, root)  # type: ignore[arg-type]
    if values:
        env_errors += apply_values(merger, values, composed)
    composed.pending = env_errors


def _merge_data(merger: Merger, composed: Composed, item: DataItem) -> None:
    """Data given in Python: merged as a file's table is (it may hold "${", so resolution
    looks below every key it sets)."""
    table = copy.deepcopy(item.table)
    note_work(composed, ((key,) for key in table))
    merger.merge_at((), table, FlagSource(item.shown), composed.root, NO_DEFAULT)


def _merge_typed_node(merger: Merger, composed: Composed, item: NodeItem) -> None:
    """A config of a Hydra defaults list, at its package, by OmegaConf's rules (`typed`)."""
    from compose._merge.typed import TypedTree  # noqa: PLC0415  # Hydra trees only

    if composed.typed is None:
        composed.typed = TypedTree(merger.tree)
    table = item.table  # the item stays as read: the merge copies what it keeps of it
    try:
        composed.typed.merge_at(item.prefix, table, item.model)  # type: ignore[arg-type]
    except ComposeError as error:
        raise error.evolve(origin=_node_place(item, error.key)) from None
    if merger.origins is not None:
        for path in leaf_paths(table, item.prefix):
            merger.record(path, item.source)  # type: ignore[arg-type]


def _node_place(item: NodeItem, key: str | None) -> str:
    """Where a Hydra config's merge failed: the chain of configs that led to it, then the line
    of the key in its file (a config's own keys: that line alone)."""
    if key is None:
        return item.where
    path = tuple(int(part) if part.isdigit() else part for part in key.split("."))
    place = item.source.describe(path)  # type: ignore[attr-defined]
    if not isinstance(item.source, FileSource) or place == item.source.shown:
        return item.where  # a store node, or a key its file does not write
    if item.where == item.source.shown:  # the primary's own keys
        return str(place)
    return f"{item.where} -> {place}"


def _apply_env(merger: Merger, composed: Composed, node: EnvItem) -> list[ComposeError]:
    """The environment node: its variables set values as flags do (`_env`), but one that names
    no field is a warning: the environment is ambient. Returns the errors to report."""
    errors = apply_values(merger, list(node.values), composed)
    return unknown_variables(errors, merger.root, node.prefix)


def _merge_file(
    merger: Merger, composed: Composed, item: FileItem, cached: Iterator[FileSource]
) -> None:
    if item.section:
        target = resolve_key(composed.root, item.section, merger.tree, item.shown)
        announce_renames(target, item.shown)
        _check_section(composed, target, item.shown)
        ensure_lists(merger, target, f"--{item.section}", item.shown)
        prefix, shape, default = target.path, target.shape, target.default
    else:
        prefix, shape, default = (), composed.root, NO_DEFAULT
    table, source = _load(item.path, prefix, cached, composed)
    if INCLUDE in table:  # the only cost of includes to a file without them
        from compose._input.includes import Mount, expand  # noqa: PLC0415  # see TYPE_CHECKING

        expand(table, source, Mount(prefix, shape, default), _Nodes(merger, composed, cached))
        return
    _merge_node(merger, composed, table, source, prefix, shape, default)


def _merge_node(
    merger: Merger,
    composed: Composed,
    table: dict[str, Any],
    source: FileSource,
    prefix: KeyPath,
    shape: Shape,
    default: Any,
) -> None:
    migrated = None
    if composed.versions is not None and composed.root.model is not None:  # `versioned` app
        from compose._schema.secrets import is_secret_path  # noqa: PLC0415  # versioned apps only

        secret = functools.partial(is_secret_path, composed.root)
        migrated = migrate_table(table, source, composed.versions, composed.show_key, secret)
        table = migrated.table
        announce_migrated(migrated, source, composed.root.model, composed.show_key)
    moves = move_renamed(table, shape, source, composed.show_key)
    if source in composed.needs_resolution:
        note_work(composed, ((*prefix, key) for key in table))
    merger.merge_at(prefix, table, source, shape, default)
    for move in moves:  # origins of moved values point at the old key's line
        alias = str(move.old[-1]) if move.alias else None
        merger.record((*prefix, *move.new), Moved(source, move.old, alias))
        composed.aliased = composed.aliased or move.alias
    if migrated is not None:
        for new, old in migrated.moved.items():  # the same for a migration's moved keys
            merger.record((*prefix, *new), Moved(source, old))
    source.release()  # merged: the tree holds its values, the file its text


def _load(
    name: str, prefix: KeyPath, cached: Iterator[FileSource], composed: Composed
) -> tuple[Any, FileSource]:
    """A file node's table and source, noting what its text holds.

    `name` is found on the search path unless it exists as written. A replay reads again
    (`cached`) the files the first composition read.
    """
    source = next(cached, None)
    if source is None:
        load = composed.files.load if composed.files is not None else load_file
        table, source = load(name, prefix, composed.search_path)
        text = source.text
    else:
        text = source.text
        table = parse_file(source.shown, text)
    composed.sources.append(source)
    # Cheap looks at the raw text, while it is at hand: later it is no longer held.
    if marks_resolution(text):
        composed.needs_resolution.add(source)
    composed.may_hold_none = composed.may_hold_none or may_give_none(source.shown, text)
    return table, source


class _Nodes:
    """The composition as `_includes` sees it, while it expands a file's `_include_`."""

    def __init__(self, merger: Merger, composed: Composed, cached: Iterator[FileSource]) -> None:
        self._merger = merger
        self._composed = composed
        self._cached = cached
        self.search_path = composed.search_path
        self.sources = composed.sources

    def mount(self, base: KeyPath, key: str, shown: str) -> Mount:
        root = self._composed.root
        segments = [*(str(segment) for segment in base), *key_segments(root, key)]
        target = walk(root, segments, self._merger.tree, shown)
        announce_renames(target, shown)
        _check_section(self._composed, target, shown)
        ensure_lists(self._merger, target, self._composed.show_key(target.path), shown)
        from compose._input.includes import Mount  # noqa: PLC0415  # loaded by `expand` already

        return Mount(target.path, target.shape, target.default)

    def load(self, path: str, prefix: KeyPath) -> tuple[dict[str, Any], FileSource]:
        table, source = _load(path, prefix, self._cached, self._composed)
        return table, source

    def merge(self, table: dict[str, Any], source: FileSource, mount: Mount) -> None:
        _merge_node(self._merger, self._composed, table, source, *mount)


def _check_section(composed: Composed, target: Target, shown: str) -> None:
    if not takes_a_file(target.shape):
        raise ArgvError(NOT_A_SECTION, key=composed.show_key(target.path), origin=shown)
