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
