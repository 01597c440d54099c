"""The composition graph: file nodes and deletions in the order given, then the CLI node.

Resolution order: CLI values > file nodes (in argv order) > class defaults. All value overrides
form one node applied after the files; among them a union's tag applies first, whatever its
position, so the other flags resolve against the chosen variant.

Composing records no origins: the composed `origins` replay the same nodes (reading the same
files again) the first time someone asks where a value came from (see `_origin`).
"""

from __future__ import annotations

import copy
import functools
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel

from compose._input.argv import DataItem, DeleteItem, EnvItem, FileItem, Item, ValueItem
from compose._input.env import EnvValue, resolve_variable, unknown_variables
from compose._input.files import load_file, parse_file
from compose._input.formats import may_give_none
from compose._input.includes import INCLUDE, Mount, expand
from compose._input.origins import DEFAULT, EnvSource, FileSource, FlagSource, Moved, Origins
from compose._input.search import SearchPath
from compose._merge.defaults import to_plain
from compose._merge.lists import append_to, append_value
from compose._merge.renames import announce, move_renamed
from compose._merge.tables import Halted, Merger
from compose._schema.coerce import ENABLE, convert, untyped
from compose._schema.keys import cli_key
from compose._schema.plan import NO_DEFAULT, tag_names
from compose._schema.shape import ANY, Kind, Shape, shape_of
from compose._schema.walk import Target, walk
from compose._syntax import INTERPOLATION, MANDATORY, NONE_TEXT
from compose._tree import KeyPath, child, put
from compose.errors import ArgvError, ComposeError, ConfigValidationError, UnknownKeyError


class Composed:
    """The merged tree before interpolation and binding, with who set what."""

    def __init__(
        self,
        tree: dict[str, Any],
        origins: Origins,
        root: Shape,
        sources: list[FileSource],
        search_path: SearchPath = (),
    ) -> None:
        self.tree = tree
        self.origins = origins
        self.root = root
        self.sources = sources  # every file read, for a replay to read again
        self.search_path = search_path  # the app's directories to find file names in
        # Where resolution may have work: the values at and below these paths (None: anywhere).
        # A node whose text holds "${" or "???" adds the keys it sets, so resolution need not
        # look at every value that files without references merged (see `_note_work`).
        self.work_below: set[KeyPath] | None = set()
        self.needs_resolution: set[FileSource] = set()  # file nodes whose text marks that work
        self.may_hold_none = False  # some file may spell "None" (or escape it): it may need None
        self.pending: list[ComposeError] = []  # errors reported with validation's
        # Flags whose keys no field of the schema's classes names, by the path they set: the
        # class that validates the section judges them, and its verdict names the flag.
        self.unchecked: dict[KeyPath, ValueItem] = {}
        # Secret fields set to `${oc.env:NAME}`, by path: the reference and the field's type,
        # so the bound secret remembers where it came from (`compose._schema.secrets`).
        self.env_secrets: dict[KeyPath, tuple[str, Any]] = {}

    @property
    def may_interpolate(self) -> bool:
        """Some node holds "${" or "???": resolution has work to do."""
        return self.work_below is None or bool(self.work_below)

    def show_key(self, path: KeyPath) -> str:
        if self.root.model is None:
            return _plain_key(path)
        return cli_key(self.root, path, self.tree)


def _plain_key(path: KeyPath) -> str:
    return "--" + ".".join(str(segment) for segment in path) if path else "(root)"


def root_shape(schema: type[BaseModel] | None) -> Shape:
    return shape_of(schema) if schema is not None else ANY


def compose_items(
    items: list[Item], schema: type[BaseModel] | None, search_path: SearchPath = ()
) -> Composed:
    """Merge file nodes and deletions in order, then the CLI values as one last node."""
    root = root_shape(schema)
    sources: list[FileSource] = []  # filled as files are read, for a replay to read again
    again = functools.partial(replay, list(items), root, sources, search_path=search_path)
    composed = Composed({}, Origins(again), root, sources, search_path=search_path)
    _compose(items, Merger(root, composed.show_key, origins_at=again), composed, iter(()))
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
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the first composition gave them
        try:
            _compose(items, merger, composed, iter(sources))
        except Halted:
            pass  # where it was asked to stop: the records are those of that moment
        except ComposeError:
            if not any(source.changed for source in sources):
                raise
    changed = [source for source in sources if source.changed]
    return Origins.unknown(changed[0]) if changed else composed.origins


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
            target = _resolve(root, item.key, merger.tree, item.shown)
            _announce_renames(target, item.shown)
            merger.delete(target.path)
        elif isinstance(item, ValueItem):
            values.append(item)
    composed.pending = [*env_errors, *_apply_values(merger, values, composed)]


def _merge_data(merger: Merger, composed: Composed, item: DataItem) -> None:
    """Data given in Python: merged as a file's table is (it may hold "${", so resolution
    looks below every key it sets)."""
    table = copy.deepcopy(item.table)
    _note_work(composed, ((key,) for key in table))
    merger.merge_at((), table, FlagSource(item.shown), composed.root, NO_DEFAULT)


def _apply_env(merger: Merger, composed: Composed, node: EnvItem) -> list[ComposeError]:
    """The environment node: its variables set values as flags do (`_env`), but one that names
    no field is a warning: the environment is ambient. Returns the errors to report."""
    errors = _apply_values(merger, list(node.values), composed)
    return unknown_variables(errors, merger.root, node.prefix)


def _marks_resolution(text: str) -> bool:
    """A cheap look at raw text: only "${" and "???" give interpolation work to do. An escape
    (a unicode escape for `$`, a line continuation between `$` and `{`) can spell either, so
    any backslash counts too: rare in configs, and it costs one scan, never a wrong result."""
    return INTERPOLATION in text or MANDATORY in text or "\\" in text


def _note_work(composed: Composed, paths: Iterable[KeyPath]) -> None:
    """A node whose text may need resolution set the values at `paths`: resolution looks there.

    A value stays below the key that set it: tables merge key by key, and list strategies only
    append to a list or merge into its elements where they are. Class defaults, which come into
    the tree elsewhere, make resolution look everywhere (`_api.resolve`)."""
    if composed.work_below is not None:
        composed.work_below.update(paths)


def _segments(root: Shape, key: str) -> list[str]:
    segments = key.split(".")
    if root.model is None:  # schema-less: flag segments are snake_case keys
        return [segment.replace("-", "_") for segment in segments]
    return segments


def _resolve(root: Shape, key: str, tree: Any, shown: str, passthrough: bool = False) -> Target:
    return walk(root, _segments(root, key), tree, shown, passthrough=passthrough)


def _merge_file(
    merger: Merger, composed: Composed, item: FileItem, cached: Iterator[FileSource]
) -> None:
    if item.section:
        target = _resolve(composed.root, item.section, merger.tree, item.shown)
        _announce_renames(target, item.shown)
        _check_section(composed, target, item.shown)
        _ensure_lists(merger, target, f"--{item.section}", item.shown)
        prefix, shape, default = target.path, target.shape, target.default
    else:
        prefix, shape, default = (), composed.root, NO_DEFAULT
    table, source = _load(item.path, prefix, cached, composed)
    if INCLUDE in table:  # the only cost of includes to a file without them
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
    moves = move_renamed(table, shape, source, composed.show_key)
    if source in composed.needs_resolution:
        _note_work(composed, ((*prefix, key) for key in table))
    merger.merge_at(prefix, table, source, shape, default)
    for move in moves:  # origins of moved values point at the old key's line
        merger.record((*prefix, *move.new), Moved(source, move.old))
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
        table, source = load_file(name, prefix, composed.search_path)
        text = source.text
    else:
        text = source.text
        table = parse_file(source.shown, text)
    composed.sources.append(source)
    # Cheap looks at the raw text, while it is at hand: later it is no longer held.
    if _marks_resolution(text):
        composed.needs_resolution.add(source)
    composed.may_hold_none = composed.may_hold_none or may_give_none(source.shown, text)
    return table, source


def _announce_renames(target: Target, shown: str) -> None:
    for old, new in target.renamed:
        announce(old, new, shown)


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
        segments = [*(str(segment) for segment in base), *_segments(root, key)]
        target = walk(root, segments, self._merger.tree, shown)
        _announce_renames(target, shown)
        _check_section(self._composed, target, shown)
        _ensure_lists(self._merger, target, self._composed.show_key(target.path), shown)
        return Mount(target.path, target.shape, target.default)

    def load(self, path: str, prefix: KeyPath) -> tuple[dict[str, Any], FileSource]:
        table, source = _load(path, prefix, self._cached, self._composed)
        return table, source

    def merge(self, table: dict[str, Any], source: FileSource, mount: Mount) -> None:
        _merge_node(self._merger, self._composed, table, source, *mount)


def _check_section(composed: Composed, target: Target, shown: str) -> None:
    if target.shape.kind in (Kind.MODEL, Kind.UNION, Kind.DICT, Kind.ANY):
        return
    raise ArgvError(
        "is a value, not a section: a file can only be loaded into a section",
        key=composed.show_key(target.path),
        origin=shown,
    )


def _apply_values(
    merger: Merger, values: list[ValueItem], composed: Composed
) -> list[ComposeError]:
    """Tags first (they choose the variant other flags resolve against), then in order.

    A flag that does not resolve yet may belong to a variant a later tag chooses: it waits for
    the second pass. Unknown flags and values their type rejects are returned, to be reported
    with the validation errors, all at once.
    """
    deferred: list[ValueItem] = []
    written = _Written()
    tags = tag_names(merger.root.model) if merger.root.model is not None else frozenset()
    for item in values:
        if type(item) is ValueItem and not _may_set_a_tag(item.key, tags):
            deferred.append(item)  # resolved once, below: a walk is most of what a flag costs
            continue
        try:
            target, negated = _resolve_value(merger, item)
        except ComposeError:
            deferred.append(item)
            continue
        if target.is_tag:
            _set_value(merger, composed, written, item, target, negated)
        else:
            deferred.append(item)
    errors: list[ComposeError] = []
    for item in deferred:
        try:
            target, negated = _resolve_value(merger, item)
            _set_value(merger, composed, written, item, target, negated)
        except (UnknownKeyError, ConfigValidationError) as error:
            errors.append(error)
    return errors


def _set_value(
    merger: Merger,
    composed: Composed,
    written: _Written,
    item: ValueItem,
    target: Target,
    negated: bool,
) -> None:
    written.add(target, item)
    # A variable's key is its name in snake_case: errors name it as a flag, as the rest do
    shown = composed.show_key(target.path) if isinstance(item, EnvValue) else f"--{item.key}"
    _assign(merger, target, _value_of(item, target, negated, shown), item)
    if target.unchecked is not None:
        composed.unchecked[target.path] = item
    if any(_marks_resolution(token) for token in item.tokens):
        _note_work(composed, (target.path,))


def _may_set_a_tag(key: str, tags: frozenset[str]) -> bool:
    last = key.rpartition(".")[2].replace("-", "_")
    return last in tags or (last.startswith("no_") and last[3:] in tags)


class _Written:
    """The CLI node's paths, to refuse an old (renamed) key and its new name side by side."""

    def __init__(self) -> None:
        self._by_path: dict[KeyPath, tuple[ValueItem, bool]] = {}

    def add(self, target: Target, item: ValueItem) -> None:
        renamed = bool(target.renamed)
        _announce_renames(target, item.shown)
        earlier = self._by_path.get(target.path)
        if earlier is not None and earlier[1] != renamed:
            old, new = (item, earlier[0]) if renamed else (earlier[0], item)
            raise ArgvError(
                f"both {old.shown} and its new name {new.shown} are set; keep only {new.shown}",
                key=new.shown,
                origin=old.shown,
            )
        self._by_path[target.path] = (item, renamed)


def _resolve_value(merger: Merger, item: ValueItem) -> tuple[Target, bool]:
    """The flag's target; `--no-x` and `--a.no-x` negate when no field has that name."""
    if isinstance(item, EnvValue):  # a variable always holds a value: it never negates
        return resolve_variable(merger.root, item, merger.tree), False
    root, tree = merger.root, merger.tree
    negated_key = _strip_negation(item.key)
    if root.model is None and negated_key is not None and not item.tokens:
        return _resolve(root, negated_key, tree, item.shown), True  # schema-less: `--no-x` false
    try:
        return _resolve(root, item.key, tree, item.shown), False
    except UnknownKeyError:
        if negated_key is not None:
            try:
                return _resolve(root, negated_key, tree, item.shown), True
            except ComposeError:
                pass
    # No field names the key: the class that validates the section judges it (it may allow
    # extra keys, or be a subclass a validator chooses), as it judges a file's keys
    if negated_key is not None and not item.tokens:
        return _resolve(root, negated_key, tree, item.shown, passthrough=True), True
    return _resolve(root, item.key, tree, item.shown, passthrough=True), False


def _strip_negation(key: str) -> str | None:
    for prefix in ("no-", "no_"):
        if key.startswith(prefix) and len(key) > 3:
            return key[3:]
        head, dot, last = key.rpartition(".")
        if dot and last.startswith(prefix) and len(last) > 3:
            return f"{head}.{last[3:]}"
    return None


def _value_of(item: ValueItem, target: Target, negated: bool, shown: str) -> Any:
    if item.append and not negated:
        return append_value(item.tokens, target, shown, item.shown)
    if item.append:
        raise ArgvError("a --no- flag cannot append", key=shown, origin=item.shown)
    if negated:
        return _negation(item, target, shown)
    if target.unchecked is not None:
        return _passed_tokens(item, shown)
    if target.shape.kind is Kind.ANY:
        return _untyped_tokens(item, shown)
    return convert(item.tokens, target.shape, shown, item.shown)


def _passed_tokens(item: ValueItem, shown: str) -> Any:
    """A key no declared field names: text, for the validating class's own (lax) rules to type,
    as pydantic-config passes it; a JSON object or array as data, a bare flag as true."""
    tokens = item.tokens
    if not tokens:
        return True
    if len(tokens) > 1:
        return list(tokens)
    text = tokens[0]
    return untyped(text, shown, item.shown) if text.startswith(("{", "[")) else text


def _untyped_tokens(item: ValueItem, shown: str) -> Any:
    """Untyped targets: a bare flag is true, several tokens a list, one token a TOML value."""
    if not item.tokens:
        return True
    if len(item.tokens) > 1:
        return [untyped(token, shown, item.shown) for token in item.tokens]
    return untyped(item.tokens[0], shown, item.shown)


def _negation(item: ValueItem, target: Target, shown: str) -> Any:
    if item.tokens:
        raise ArgvError(
            "a --no- flag takes no value", key=shown, value=" ".join(item.tokens), origin=item.shown
        )
    kind = target.shape.kind
    if kind is Kind.BOOL or kind is Kind.ANY:
        return False
    if target.shape.nullable:
        return NONE_TEXT  # None, as `--x None` and a file's "None" say it (`none_for`)
    raise ArgvError(
        "is neither a boolean nor optional: it cannot be negated", key=shown, origin=item.shown
    )


def _assign(merger: Merger, target: Target, value: Any, item: ValueItem) -> None:
    path = target.path
    if not path:
        raise ArgvError("a value needs a key", origin=item.shown)
    origin = EnvSource(item.variable) if isinstance(item, EnvValue) else FlagSource(item.shown)
    _ensure_lists(merger, target, f"--{item.key}", item.shown)
    parent = merger.container_at(path[:-1])
    last = path[-1]
    if item.append or _merges_by_strategy(item, target, value):
        append_to(merger, parent, target, value, origin, item.shown)
        return
    if target.is_tag and isinstance(parent, dict) and target.parent is not None:
        merger.switch_variant(parent, value, path[:-1], target.parent, target.parent_default)
    current = parent.get(last) if isinstance(parent, dict) else child(parent, last)
    if value == MANDATORY and current is not None:
        return  # "???" never overrides what an earlier node set
    if value is ENABLE:
        _enable(merger, parent, last, current, path, origin)
    elif isinstance(value, dict) and isinstance(current, dict):
        merger.merge_at(path, value, origin, target.shape, target.default)
    else:
        put(parent, last, value)
        merger.record(path, origin, current)


def _merges_by_strategy(item: ValueItem, target: Target, value: Any) -> bool:
    """The environment is a node like a file: a list it sets merges by the field's strategy
    (a flag's list states the final value, it replaces)."""
    return isinstance(item, EnvValue) and isinstance(value, list) and target.shape.merge is not None


def _enable(
    merger: Merger,
    parent: Any,
    last: str | int,
    current: Any,
    path: KeyPath,
    origin: FlagSource | EnvSource,
) -> None:
    """A bare `--section`: keep a table already there, else start an empty one."""
    if isinstance(current, dict):
        return
    put(parent, last, {})
    merger.record(path, origin, current)


def _ensure_lists(merger: Merger, target: Target, key: str, shown: str) -> None:
    """Index paths count against the list composed so far, or its class default."""
    for depth, segment in enumerate(target.path):
        if not isinstance(segment, int):
            continue
        list_path = target.path[:depth]
        parent = merger.container_at(list_path[:-1])
        current = child(parent, list_path[-1])
        if not isinstance(current, list):
            current = _default_list(target.defaults[depth - 1])
            put(parent, list_path[-1], current)
            merger.record(list_path, DEFAULT)
        if segment > len(current):
            raise ArgvError(
                f"index {segment} is out of range: the list has {len(current)} "
                f"element{'s' if len(current) != 1 else ''} (index {len(current)} appends one)",
                key=key,
                origin=shown,
            )
        if segment == len(current) and depth < len(target.path) - 1:
            current.append({})


def _default_list(default: Any) -> list[Any]:
    if not isinstance(default, (list, tuple)):
        return []
    return [to_plain(item) for item in default]
