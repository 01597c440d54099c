"""Plain-tree access shared by every stage: a tree is dicts, lists and scalars, nothing else."""

from __future__ import annotations

from typing import Any


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


MAX_DEPTH = 100  # tables and lists nested deeper than any real config; walks stay recursive


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether `value` nests more than `limit` tables or lists (checked without recursion)."""
    if not isinstance(value, (dict, list)):
        return False
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, (dict, list)):  # scalars cost one check, no stack entry
                stack.append((child, depth + 1))
    return False


_MAX_INDEX_DIGITS = 18  # past any list, and an int Python converts at once


def is_index(segment: str) -> bool:
    """An ASCII list index (`'²'.isdigit()` is true, but it is no index) of sane length."""
    return segment.isascii() and segment.isdigit() and len(segment) <= _MAX_INDEX_DIGITS
