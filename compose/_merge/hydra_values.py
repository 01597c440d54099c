"""Hydra's value overrides, applied to the composed tree in command-line order, struct mode:

    key=v      the key must exist (and its parents); a table onto a table merges, and every key
               it brings must exist; anything else replaces (a list index sets an element)
    +key=v     the key must not hold a value (null and `???` hold none), else as `++`
    ++key=v    set or add: missing parents are made, new keys allowed anywhere below
    ~key[=v]   the key must hold a value (equal to v when given); it goes
    key@p=v    an error: only a config group takes a package

Keys are dotted (`a.b.0.c`: a number indexes a list). Values are typed by the grammar, then
converted by a store model's field where one types the key (`typed.convert`). Hydra's own node
is checked against the keys it has, then dropped by the caller.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from compose._input.hydra import hydra_node
from compose._input.hydra.grammar import Override
from compose._input.origins import FlagSource, Origin
from compose._merge.typed import TypedTree, convert, no_such_key
from compose._schema.plan import declares_field
from compose._schema.secrets import holds_secrets_at
from compose._schema.shape import Shape
from compose._syntax import HYDRA_NODE, MANDATORY, SECRET_MASK, dotted
from compose._tree import KeyPath, leaf_paths
from compose.errors import ArgvError, ComposeError, UnknownKeyError, gather

_ABSENT: Any = object()


def apply_overrides(
    tree: TypedTree,
    overrides: tuple[Override, ...],
    record: Callable[[KeyPath, Origin, object], None],
    root: Shape,
) -> None:
    """Every value override, in order, each `record`ed as the origin of the values it sets
    (when the fold records: `record(path, origin, old)`, `old` the value it replaced there);
    all their problems at once. `root`: the schema's shape, which says whose values are
    secrets."""
    tree.struct = True
    problems: list[ComposeError] = []
    for ov in overrides:
        shown = _shown(ov, root)
        try:
            before = select(tree.data, ov.key.split("."))
            target = _apply(tree, ov, shown, declares_field(root, ov.key.split(".")))
            if target is not None:
                origin = FlagSource(shown)
                if not isinstance(before, dict):  # replaced, not merged into: a table given
                    record(target, origin, before)  # to a value's key is that value's origin
                for path in leaf_paths(ov.plain(), target):
                    record(path, origin, None)
        except ComposeError as error:
            problems.extend(e.evolve(origin=shown) for e in error.errors)
    if problems:
        raise gather(problems)
    _check_hydra_node(tree.data)


def _shown(ov: Override, root: Shape) -> str:
    """The override as its values' origin names it: as typed, but with the value masked where
    the key is a secret's or holds one (`db.password=**********`): show --origins, explain and
    errors print the origin, and no secret is printed."""
    if ov.has_value and holds_secrets_at(root, ov.key):
        return f"{ov.text.partition('=')[0]}={SECRET_MASK}"
    return ov.text


def _apply(tree: TypedTree, ov: Override, shown: str, declared: bool) -> KeyPath | None:
    """Apply one override; the path it set (None: a deletion). `shown`: the override as
    hints may repeat it (`_shown`). `declared`: the schema names the key as a field, so it
    exists in every config of it (as a structured config's fields do in Hydra) and `key=v`
    sets it though the tree has not set it: the help lists it with its default."""
    if ov.package is not None:
        raise ArgvError(f"{ov.key} is no config group: `@{ov.package}` means nothing here")
    segments = ov.key.split(".")
    value = ov.plain()
    if ov.action == "delete":
        delete(tree, segments, value, ov.has_value)
        return None
    added = ov.action == "add" and not isinstance(value, (dict, list))
    if added and select(tree.data, segments) is not None:
        raise ArgvError(
            "the key is set already: `+` adds a new key",
            key=ov.key,
            hint=f"{shown[1:]} sets it; +{shown} sets or adds it",
        )
    try:
        # a table merged into a declared key keeps the rule for each key it brings
        settable = declared and not isinstance(value, dict)
        return update(tree, segments, value, free=ov.action != "set" or settable)
    except UnknownKeyError as error:
        adds = f"+{shown} adds it"
        raise error.evolve(hint=f"{error.hint} {adds}" if error.hint else adds) from None


def select(data: Any, segments: list[str]) -> Any:
    """The value at a dotted key, or None where there is none (null and `???` count as none)."""
    node: Any = data
    for seg in segments:
        if isinstance(node, dict):
            node = node.get(seg)
        elif isinstance(node, list) and _index(seg, node) is not None:
            node = node[int(seg)]
        else:
            return None
    return None if node == MANDATORY else node


def _index(seg: str, node: list[Any]) -> int | None:
    if seg.lstrip("-").isdigit() and -len(node) <= int(seg) < len(node):
        return int(seg)
    return None


def update(tree: TypedTree, segments: list[str], value: Any, *, free: bool) -> KeyPath:
    """Set (or merge) `value` at the key (parents must exist unless `free`); its path."""
    node: Any = tree.data
    path: KeyPath = ()
    for seg in segments[:-1]:
        key = _key_in(node, seg, path)
        below = node[key] if _holds(node, key) else None
        if not isinstance(below, (dict, list)):
            closed = (tree.struct and key not in node) or not tree.declares(path, key)
            if isinstance(node, dict) and not free and closed:
                raise no_such_key((*path, key), node)
            below = tree.new_table((*path, key))
            node[key] = below
        node, path = below, (*path, key)
    last = _key_in(node, segments[-1], path)
    target = (*path, last)
    current = node[last] if _holds(node, last) else _ABSENT
    if isinstance(value, dict) and isinstance(current, dict):
        tree.merge_table(current, target, value, None, free=free)
        return target
    if isinstance(node, list):
        if current is _ABSENT:
            raise ArgvError("no such list index", key=dotted(target))
        if isinstance(value, dict):
            raise ArgvError("a table cannot merge into a list", key=dotted(target))
        node[last] = convert(copy.deepcopy(value), tree.annotation(target), target)
        return target
    if not free and ((tree.struct and current is _ABSENT) or not tree.declares(path, last)):
        raise no_such_key(target, node)
    if isinstance(value, dict):
        if isinstance(current, list):
            raise ArgvError("a table cannot merge into a list", key=dotted(target))
        fresh = tree.new_table(target)
        node[last] = fresh
        tree.merge_table(fresh, target, value, None, free=True)
        return target
    if isinstance(value, list) and isinstance(current, dict):
        raise ArgvError("a list cannot merge into a table", key=dotted(target))
    node[last] = convert(copy.deepcopy(value), tree.annotation(target), target)
    tree.forget_types(target)
    return target


def delete(tree: TypedTree, segments: list[str], value: Any, has_value: bool) -> None:
    current = select(tree.data, segments)
    if current is None:
        raise UnknownKeyError("nothing to delete: the key holds no value", key=".".join(segments))
    if has_value and value != current:
        raise ArgvError(
            "the value given is not the key's: nothing deleted",
            key=".".join(segments),
            value=current,
            hint=f"~{'.'.join(segments)} deletes it whatever it holds",
        )
    parent: Any = tree.data
    for seg in segments[:-1]:
        parent = parent[int(seg)] if isinstance(parent, list) else parent[seg]
    last = segments[-1]
    del parent[int(last) if isinstance(parent, list) else last]
    tree.forget_types(tuple(segments))


def _holds(node: Any, key: Any) -> bool:
    if isinstance(node, dict):
        return key in node
    return isinstance(key, int) and -len(node) <= key < len(node)


def _key_in(node: Any, seg: str, path: KeyPath) -> Any:
    if isinstance(node, list):
        try:
            return int(seg)
        except ValueError:
            raise ArgvError("a list is indexed by a number", key=dotted((*path, seg))) from None
    return seg


def _check_hydra_node(data: dict[Any, Any]) -> None:
    hydra = data.get(HYDRA_NODE)
    if not isinstance(hydra, dict):
        raise ArgvError("Hydra's node is a table", key=HYDRA_NODE)
    for key in sorted(hydra_node.NOT_NULL):
        if hydra.get(key, "") is None:
            raise ArgvError("Hydra's node does not take null here", key=f"{HYDRA_NODE}.{key}")
