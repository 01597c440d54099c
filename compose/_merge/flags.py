"""The CLI node: every value flag (and each variable of the environment node) set in one node
after the files, a union's tag first whatever its position, so the other flags resolve against
the chosen variant. A flag is typed by the field it names (`compose._schema.coerce`); `+`
appends to a list, `--no-x` negates, an index flag sets one element, and a flag on a key no
field declares passes as text to the class that validates its section.
"""

from __future__ import annotations

from typing import Any

from compose._input.argv import ValueItem
from compose._input.env import EnvValue, resolve_variable
from compose._input.origins import DEFAULT, EnvSource, FlagSource
from compose._merge.composed import Composed, marks_resolution, note_work
from compose._merge.defaults import to_plain
from compose._merge.lists import append_to, append_value
from compose._merge.renames import alias_written, announce, may_take_alias
from compose._merge.tables import Merger, merge_plain
from compose._schema.coerce import ENABLE, convert, untyped
from compose._schema.plan import tag_names
from compose._schema.shape import Kind, Shape
from compose._schema.walk import Target, walk
from compose._shortcuts import SHORTCUTS
from compose._syntax import (
    MANDATORY,
    NEGATIONS,
    NONE_TEXT,
    snake_case,
    split_dotted,
    without_negation,
)
from compose._tree import MAX_DEPTH, KeyPath, child, put
from compose.errors import (
    ArgvError,
    ComposeError,
    ConfigValidationError,
    UnknownKeyError,
    counted,
)


def key_segments(root: Shape, key: str) -> list[str]:
    if root.model is None:  # schema-less: flag segments are snake_case keys
        return split_dotted(snake_case(key))  # (a dot is no dash: case the key once)
    return split_dotted(key)


def resolve_key(root: Shape, key: str, tree: Any, shown: str, passthrough: bool = False) -> Target:
    return walk(root, key_segments(root, key), tree, shown, passthrough=passthrough)


def announce_renames(target: Target, shown: str) -> None:
    for old, new in target.renamed:
        announce(old, new, shown)


def apply_values(merger: Merger, values: list[ValueItem], composed: Composed) -> list[ComposeError]:
    """Tags first (they choose the variant other flags resolve against), then in order.

    A flag that does not resolve yet may belong to a variant a later tag chooses: it waits for
    the second pass. Unknown flags and values their type rejects are returned, to be reported
    with the validation errors, all at once.
    """
    # Schema-less, not recording: flags that cannot meet are one node, merged as a file's is
    # (a walk, a record and an assignment each are most of what a flag costs; docs/08)
    if SHORTCUTS and merger.root.kind is Kind.ANY and merger.origins is None:
        as_table = _as_one_table(merger.root, values)
        if as_table is not None and _merges_as_flags(merger.tree, as_table[0]):
            merge_plain(merger.tree, as_table[0])
            note_work(composed, as_table[1])
            return []
    deferred: list[ValueItem] = []
    written = _Written()
    tags = tag_names(merger.root.model) if merger.root.model is not None else frozenset()
    for item in values:
        if SHORTCUTS and type(item) is ValueItem and not (tags and _may_set_a_tag(item.key, tags)):
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


_ABSENT = object()


def _as_one_table(
    root: Shape, values: list[ValueItem]
) -> tuple[dict[str, Any], list[KeyPath]] | None:
    """Schema-less value flags as one table (a node, as a file's), and the paths of those whose
    text may need resolution; None where a flag needs the reference (`_set_value`, a walk each).

    Merged plainly, the table sets what the flags set one by one when each flag sets a single
    value that is not a table (a table merges into one already there) nor `???` (which never
    overrides), at a key path no other flag's lies below or above (else one replaces, or makes
    way for, what the other set): then each flag's value lands at its path, as the last of its
    path says, creating tables on the way and replacing values in it. A flag whose value the
    reference would refuse is left to it, which then says so in the same words and order.
    """
    if not all(
        type(item) is ValueItem and not item.append and len(item.tokens) == 1 for item in values
    ):
        return None  # told before any value is parsed, which the reference would parse again
    table: dict[str, Any] = {}
    marked: list[KeyPath] = []
    for item in values:
        segments = key_segments(root, item.key)
        if len(segments) > MAX_DEPTH:
            return None
        try:  # the reference's rule for an untyped flag's value, not a copy of it
            value = _untyped_tokens(item, f"--{item.key}")
        except ComposeError:
            return None
        if type(value) is dict or value == MANDATORY:
            return None
        # The table holds the flags' values and the tables on their way only (no value is a
        # table): a value on the way is an earlier flag's path above this one, a table at
        # the last segment one below it
        node = table
        for segment in segments[:-1]:
            below = node.get(segment, _ABSENT)
            if below is _ABSENT:
                below = node[segment] = {}
            elif type(below) is not dict:
                return None
            node = below
        last = segments[-1]
        if type(node.get(last)) is dict:
            return None
        node[last] = value
        if marks_resolution(item.tokens[0]):
            marked.append(tuple(segments))
    return table, marked


def _merges_as_flags(tree: dict[str, Any], table: dict[str, Any]) -> bool:
    """Whether no table of `table` lands on a list of `tree`: there a flag's next segment is an
    index (or an error the reference words), not a key."""
    for key, value in table.items():
        if type(value) is dict:
            below = tree.get(key)
            if isinstance(below, list):
                return False
            if type(below) is dict and not _merges_as_flags(below, value):
                return False
    return True


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
    alias = None
    if not isinstance(item, EnvValue) and target.unchecked is None and may_take_alias(target):
        key = (_strip_negation(item.key) if negated else None) or item.key
        alias = alias_written(target, key_segments(merger.root, key)[-1], merger.tree)
        composed.aliased = composed.aliased or alias is not None
    _assign(merger, target, _value_of(item, target, negated, shown), item, alias)
    if target.unchecked is not None:
        composed.unchecked[target.path] = item
    for token in item.tokens:
        if marks_resolution(token):
            note_work(composed, (target.path,))
            break


def _may_set_a_tag(key: str, tags: frozenset[str]) -> bool:
    last = snake_case(key.rpartition(".")[2])
    return last in tags or (last.startswith(NEGATIONS) and without_negation(last) in tags)


class _Written:
    """The CLI node's paths, to refuse an old (renamed) key and its new name side by side."""

    def __init__(self) -> None:
        self._by_path: dict[KeyPath, tuple[ValueItem, bool]] = {}

    def add(self, target: Target, item: ValueItem) -> None:
        renamed = bool(target.renamed)
        if renamed:
            announce_renames(target, item.shown)
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
    if root.model is None and not item.tokens:
        negated_key = _strip_negation(item.key)
        if negated_key is not None:  # schema-less: `--no-x` is false
            return resolve_key(root, negated_key, tree, item.shown), True
    try:
        return resolve_key(root, item.key, tree, item.shown), False
    except UnknownKeyError:
        negated_key = _strip_negation(item.key)
        if negated_key is not None:
            try:
                return resolve_key(root, negated_key, tree, item.shown), True
            except ComposeError:
                pass
    # No field names the key: the class that validates the section judges it (it may allow
    # extra keys, or be a subclass a validator chooses), as it judges a file's keys
    if negated_key is not None and not item.tokens:
        return resolve_key(root, negated_key, tree, item.shown, passthrough=True), True
    return resolve_key(root, item.key, tree, item.shown, passthrough=True), False


def _strip_negation(key: str) -> str | None:
    for prefix in NEGATIONS:
        if key.startswith(prefix) and len(key) > len(prefix):
            return key[len(prefix) :]
        head, dot, last = key.rpartition(".")
        if dot and last.startswith(prefix) and len(last) > len(prefix):
            return f"{head}.{last[len(prefix) :]}"
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


def _assign(
    merger: Merger, target: Target, value: Any, item: ValueItem, alias: str | None = None
) -> None:
    path = target.path
    if not path:
        raise ArgvError("a value needs a key", origin=item.shown)
    origin = (
        EnvSource(item.variable) if isinstance(item, EnvValue) else FlagSource(item.shown, alias)
    )
    ensure_lists(merger, target, f"--{item.key}", item.shown)
    parent = merger.holder_of(path)
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


def ensure_lists(merger: Merger, target: Target, key: str, shown: str) -> None:
    """Index paths count against the list composed so far, or its class default."""
    for depth, segment in enumerate(target.path):
        if not isinstance(segment, int):
            continue
        list_path = target.path[:depth]
        parent = merger.holder_of(list_path)
        current = child(parent, list_path[-1])
        if not isinstance(current, list):
            current = _default_list(target.defaults[depth - 1])
            put(parent, list_path[-1], current)
            merger.record(list_path, DEFAULT)
        if segment > len(current):
            raise ArgvError(
                f"index {segment} is out of range: the list has "
                f"{counted(len(current), 'element')} (index {len(current)} appends one)",
                key=key,
                origin=shown,
            )
        if segment == len(current) and depth < len(target.path) - 1:
            current.append({})


def _default_list(default: Any) -> list[Any]:
    if not isinstance(default, (list, tuple)):
        return []
    return [to_plain(item) for item in default]
