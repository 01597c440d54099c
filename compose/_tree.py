"""Plain-tree access shared by every stage: a tree is dicts, lists and scalars, nothing else."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

Seg = str | int
KeyPath = tuple[Seg, ...]  # a path into a tree: table keys and list indexes


def child(node: Any, segment: str | int) -> Any:
    """`node[segment]` for a table key or an in-range list index; None otherwise."""
    if isinstance(node, dict):
        return node.get(segment)
    if isinstance(node, list) and isinstance(segment, int) and segment < len(node):
        return node[segment]
    return None


def put(node: Any, segment: str | int, value: Any) -> None:
    """Set a table key, replace a list element, or append at index == length."""
    if isinstance(node, list) and isinstance(segment, int):
        if segment == len(node):
            node.append(value)
        else:
            node[segment] = value
    else:
        node[segment] = value


def leaf_paths(value: Any, path: KeyPath) -> Iterator[KeyPath]:
    """The paths of the values in `value` (at `path`) that are no tables: a list is one value."""
    if isinstance(value, dict) and value:
        for key, below in value.items():
            yield from leaf_paths(below, (*path, key))
    else:
        yield path


def at_path(tree: Any, path: KeyPath) -> Any:
    """The value at `path`, or None where the tree holds nothing there."""
    for segment in path:
        tree = child(tree, segment)
    return tree


def replaced(tree: Any, path: KeyPath, value: Any) -> Any:
    """`tree` with `value` at `path` (which it holds): the tables and lists on the way are new,
    the rest is shared, and `tree` itself is unchanged."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy: Any = dict(tree) if isinstance(tree, dict) else list(tree)
    copy[head] = replaced(child(tree, head), rest, value)
    return copy


def copy_tree(tree: Any) -> Any:
    """A copy of a plain tree whose tables and lists are new (its scalars are immutable)."""
    kind = type(tree)
    if kind is dict:
        return {key: copy_tree(value) for key, value in tree.items()}
    if kind is list:
        return [copy_tree(value) for value in tree]
    return tree


def move_value(node: dict[Any, Any], old: KeyPath, new: KeyPath) -> str:
    """Move the value at `old` to `new`, both paths inside `node`, making tables on the way to
    `new`: the one rule of a renamed field and of a migration's moved key.

    Returns "moved"; "absent" when nothing is at `old`; "taken" when `new` is set already
    (both are set: the caller says so); "blocked" when a value stands where `new` needs a table.
    """
    holder = at_path(node, old[:-1])
    if not isinstance(holder, dict) or old[-1] not in holder:
        return "absent"
    parent = node
    for segment in new[:-1]:
        parent = parent.setdefault(segment, {})
        if not isinstance(parent, dict):
            return "blocked"
    if new[-1] in parent:
        return "taken"
    parent[new[-1]] = holder.pop(old[-1])
    return "moved"


MAX_DEPTH = 100  # tables and lists nested deeper than any real config; walks stay recursive
_CONTAINERS = frozenset((dict, list))


def equal_data(left: Any, right: Any) -> bool:
    """Equal as values (`==`), NaN to NaN too, in a list or dict as well: a config holding NaN
    is the same config as itself (`nan != nan` made it differ from any copy)."""
    if left == right:
        return True
    if isinstance(left, float) and isinstance(right, float):
        return math.isnan(left) and math.isnan(right)
    if isinstance(left, list) and isinstance(right, list) and len(left) == len(right):
        return all(map(equal_data, left, right))
    if isinstance(left, dict) and isinstance(right, dict) and left.keys() == right.keys():
        return all(equal_data(item, right[key]) for key, item in left.items())
    return False


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether `value` nests more than `limit` tables or lists.

    `value` is a parser's output (tomli, json), made of exact dicts and lists: a type looked up
    in a set is several times cheaper per leaf than `isinstance`, and this runs on every file.
    """
    return type(value) in _CONTAINERS and _deeper(value, limit)


def _deeper(node: Any, budget: int) -> bool:
    # Recursion stops `limit` levels down, long before Python's own limit.
    for child in node.values() if type(node) is dict else node:
        if type(child) in _CONTAINERS and (budget == 0 or _deeper(child, budget - 1)):
            return True
    return False


_MAX_INDEX_DIGITS = 18  # past any list, and an int Python converts at once


def is_index(segment: str) -> bool:
    """An ASCII list index (`'²'.isdigit()` is true, but it is no index) of sane length."""
    return segment.isascii() and segment.isdigit() and len(segment) <= _MAX_INDEX_DIGITS
