"""Plain-data helpers of interpolation: which strings need resolving, where they are, and the
copies and rebuilt containers that resolved values go into. Nothing here evaluates anything."""

from __future__ import annotations

import re
import sys
from collections.abc import Collection, Iterable, Iterator
from typing import Any

from compose._syntax import INTERPOLATION, MANDATORY, dotted
from compose._tree import KeyPath

__all__ = [
    "CONTAINERS",
    "MANDATORY",
    "all_paths",
    "copy_size",
    "deep_copy",
    "escape",
    "is_missing_spelling",
    "kind",
    "needs_resolution",
    "rebuild",
    "scan",
    "scan_below",
]


# For isinstance: a literal `dict | list` would build a new union object at each call.
CONTAINERS = (dict, list)
_SCALARS = frozenset({int, float, bool, type(None)})

_KIND_NAMES: dict[type, str] = {
    dict: "a table",
    list: "a list",
    str: "a string",
    bool: "a bool",
    int: "an int",
    float: "a float",
    type(None): "None",
}


def needs_resolution(value: str) -> bool:
    """True if resolving may change `value`: it holds `${` or is `???` (or an escaped `\\???`)."""
    return INTERPOLATION in value or (MANDATORY in value and is_missing_spelling(value))


def is_missing_spelling(value: str) -> bool:
    """`???`, `\\???`, `\\\\???`...: the marker, or a literal `???` with escapes (OmegaConf 2.4)."""
    return value.endswith(MANDATORY) and not value[:-3].strip("\\")


# Compiled on first use (by `re`'s cache), not at import: dumps import this module, and few
# values hold `${`.
_ESCAPE_TARGET = r"(\\*)\$\{"


def escape(value: str) -> str:
    """The text that resolves to `value`: `${` becomes `\\${` (after doubling the backslashes
    before it), and `???` becomes `\\???`. Strings without either come back unchanged."""
    if is_missing_spelling(value):
        return "\\" + value
    if INTERPOLATION not in value:
        return value
    return re.sub(
        _ESCAPE_TARGET, lambda match: "\\" * (2 * len(match[1]) + 1) + INTERPOLATION, value
    )


def scan(tree: dict[str, Any] | list[Any], base: KeyPath = ()) -> list[tuple[KeyPath, str]]:
    """Every string that resolution may change, with its path, in document order (`tree` is
    found at `base`).

    Every leaf of the tree passes here, so the checks go by exact type first: most leaves are
    plain numbers, booleans and strings without `${`."""
    found: list[tuple[KeyPath, str]] = []
    stack: list[tuple[KeyPath, Iterator[tuple[Any, Any]]]] = [(base, _items(tree))]
    while stack:
        path, items = stack[-1]
        for key, child in items:
            kind_ = type(child)
            if kind_ is str:
                if INTERPOLATION in child or (MANDATORY in child and is_missing_spelling(child)):
                    found.append(((*path, key), child))
            elif kind_ in _SCALARS:
                continue
            elif kind_ is dict:
                stack.append(((*path, key), iter(child.items())))
                break
            elif kind_ is list:
                stack.append(((*path, key), enumerate(child)))
                break
            elif isinstance(child, str):  # subclasses: the slower, general checks
                if needs_resolution(child):
                    found.append(((*path, key), child))
            elif isinstance(child, CONTAINERS):
                stack.append(((*path, key), _items(child)))
                break
        else:
            stack.pop()
    return found


def scan_below(tree: dict[str, Any], roots: Collection[KeyPath]) -> list[tuple[KeyPath, str]]:
    """`scan`, limited to the values at and below `roots` (paths the tree need not hold), in
    the same document order: the walk goes only through the containers leading to a root (it
    recurses as deep as the longest root, which key paths' own limit bounds)."""
    if not isinstance(roots, (set, frozenset)):
        roots = set(roots)  # asked of every key on the way: a list would be searched each time
    if () in roots:
        return scan(tree)
    ways = {root[:depth] for root in roots for depth in range(1, len(root))}
    found: list[tuple[KeyPath, str]] = []
    _scan_ways(tree, (), roots, ways, found)
    return found


def _scan_ways(
    node: dict[Any, Any] | list[Any],
    path: KeyPath,
    roots: Collection[KeyPath],
    ways: set[KeyPath],
    found: list[tuple[KeyPath, str]],
) -> None:
    for key, child in _items(node):
        at = (*path, key)
        if at in roots:
            if isinstance(child, CONTAINERS):
                found += scan(child, at)
            elif isinstance(child, str) and needs_resolution(child):
                found.append((at, child))
        elif at in ways and isinstance(child, CONTAINERS):
            _scan_ways(child, at, roots, ways, found)


def _items(container: dict[Any, Any] | list[Any]) -> Iterator[tuple[Any, Any]]:
    return iter(container.items()) if isinstance(container, dict) else enumerate(container)


def rebuild(
    tree: dict[str, Any], at: list[tuple[KeyPath, Any]], values: list[Any]
) -> dict[str, Any]:
    """`tree` with `values[i]` at the path `at[i]` names: containers on the way are copied, the
    rest is shared. Paths come in document order, so siblings share one look-up."""
    root = dict(tree)
    copies: dict[KeyPath, Any] = {(): root}
    last: KeyPath = ()
    container: Any = root
    for (path, _), value in zip(at, values, strict=True):
        parent = path[:-1]
        if parent != last:
            container = copies[parent] if parent in copies else _copied(copies, parent)
            last = parent
        container[path[-1]] = value
    return root


def _copied(copies: dict[KeyPath, Any], path: KeyPath) -> Any:
    if path not in copies:
        parent = _copied(copies, path[:-1])
        child = parent[path[-1]]
        parent[path[-1]] = copies[path] = dict(child) if isinstance(child, dict) else list(child)
    return copies[path]


def deep_copy(value: dict[Any, Any] | list[Any]) -> Any:
    """A deep copy of plain data without recursion (results may nest deeper than the stack)."""
    root = _shell(value)
    stack = [(value, root)]
    while stack:
        source, target = stack.pop()
        for key, child in _items(source):
            if isinstance(child, CONTAINERS):
                shell = _shell(child)
                stack.append((child, shell))
                target[key] = shell
            else:
                target[key] = child
    return root


def _shell(container: dict[Any, Any] | list[Any]) -> Any:
    return {} if isinstance(container, dict) else [None] * len(container)


def copy_size(value: dict[Any, Any] | list[Any], sizes: dict[int, tuple[Any, int]]) -> int:
    """Elements of `value` once copied. Resolved values share containers (`[${b}, ${b}]`), so
    sizes are cached in `sizes` by id (the container is kept there so that its id stays its
    own): the time is linear in distinct containers even when the copy would be exponential.
    A container inside itself counts as infinite."""
    open_: set[int] = set()
    stack: list[Any] = [value]
    while stack:
        node = stack[-1]
        if id(node) in sizes:
            stack.pop()
            continue
        children = [child for child in _values(node) if isinstance(child, CONTAINERS)]
        todo = [child for child in children if id(child) not in sizes]
        if not todo:
            total = len(node) + sum(sizes[id(child)][1] for child in children)
            sizes[id(node)] = (node, total)
            open_.discard(id(node))
            stack.pop()
        elif id(node) in open_ or any(id(child) in open_ for child in todo):
            return sys.maxsize
        else:
            open_.add(id(node))
            stack.extend(todo)
    return sizes[id(value)][1]


def _values(container: dict[Any, Any] | list[Any]) -> Iterable[Any]:
    return container.values() if isinstance(container, dict) else container


def all_paths(tree: dict[str, Any]) -> list[str]:
    """Every dotted path of the tree, for did-you-mean (computed only on error)."""
    paths: list[str] = []
    stack: list[tuple[KeyPath, Any]] = [((), tree)]
    while stack:
        path, node = stack.pop()
        for key, child in _items(node):
            paths.append(dotted((*path, key)))
            if isinstance(child, CONTAINERS):
                stack.append(((*path, key), child))
    return paths


def kind(value: Any) -> str:
    return _KIND_NAMES.get(type(value), f"a {type(value).__name__}")
