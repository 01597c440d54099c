"""Deep merge of plain trees, with origins: tables merge, lists and scalars replace.

A node's table is merged key by key where the tree already has a table, and stored whole (no
copy, one origin record) where it does not: the first file of a composition costs almost
nothing here. Where the schema says a table is a discriminated union, a node that changes the
tag switches the variant first, dropping (with a warning) the keys the new variant lacks.
"""

from __future__ import annotations

import warnings
from typing import Any

from compose._origin import KeyPath, Origin, Origins
from compose._schema import NO_DEFAULT, child_default, default_tag, plan_of
from compose._tree import child, put
from compose._types import ANY, Kind, Shape

MANDATORY = "???"


class ComposeWarning(UserWarning):
    """Something was dropped or changed on the user's behalf (a union switch)."""


class Merger:
    """Merges nodes into one tree, recording who set what."""

    def __init__(self, root: Shape, show_key: Any) -> None:
        self.tree: dict[str, Any] = {}
        self.origins = Origins()
        self.root = root
        self._show_key = show_key  # KeyPath -> str, for warnings

    def merge_at(
        self, prefix: KeyPath, table: dict[str, Any], origin: Origin, shape: Shape, default: Any
    ) -> None:
        """Merge `table` (a node's keys) into the section at `prefix`."""
        if not prefix:
            self._merge(self.tree, table, (), origin, shape, default)
            return
        parent = self.container_at(prefix[:-1])
        last = prefix[-1]
        current = child(parent, last)
        if isinstance(current, dict):
            self._merge(current, table, prefix, origin, shape, default)
        else:
            put(parent, last, table)
            self.origins.replace(prefix, origin, current)

    def _merge(
        self,
        dst: dict[str, Any],
        src: dict[str, Any],
        path: KeyPath,
        origin: Origin,
        shape: Shape,
        default: Any,
    ) -> None:
        if shape.kind is Kind.UNION and shape.tag in src:
            self.switch_variant(dst, src[shape.tag], path, shape, default)
        for key, value in src.items():
            sub = (*path, key)
            old = dst.get(key, _MISSING)
            if old is _MISSING:
                dst[key] = value
                self.origins.set(sub, origin)
            elif isinstance(value, dict) and isinstance(old, dict):
                child, child_def = shape_below(shape, dst, key, default)
                self._merge(old, value, sub, origin, child, child_def)
            elif value != MANDATORY:  # "???" never overrides what an earlier node set
                dst[key] = value
                self.origins.replace(sub, origin, old)

    def switch_variant(
        self, dst: dict[str, Any], tag: Any, path: KeyPath, shape: Shape, default: Any
    ) -> None:
        """A node sets the union's tag: keep the keys the new variant has, drop the others."""
        current = dst.get(shape.tag, default_tag(shape, default))  # type: ignore[arg-type]
        variant = shape.variant(tag)
        if current == tag or variant is None:
            return  # same variant, or an unknown one that validation will name
        for key in [k for k in dst if k not in variant.model_fields]:
            where = self.origins.describe((*path, key))
            warnings.warn(
                f"{self._show_key((*path, key))} (from {where}) is dropped: "
                f"{self._show_key((*path, shape.tag))} switched to {tag!r}, which has no such key",
                ComposeWarning,
                stacklevel=2,
            )
            self.origins.forget((*path, key), dst.pop(key))

    def container_at(self, path: KeyPath) -> Any:
        """The table (or list) at `path`, creating tables on the way; values there give way."""
        node: Any = self.tree
        for depth, segment in enumerate(path):
            inner = child(node, segment)
            if not isinstance(inner, (dict, list)):
                self.origins.forget(path[: depth + 1], inner)
                inner = {}
                put(node, segment, inner)
            node = inner
        return node

    def delete(self, path: KeyPath) -> None:
        """`~key`: remove what earlier nodes set at `path` (nothing there: nothing to do)."""
        node: Any = self.tree
        for segment in path[:-1]:
            node = child(node, segment)
            if not isinstance(node, (dict, list)):
                return
        last = path[-1]
        if isinstance(node, dict) and last in node:
            self.origins.forget(path, node.pop(last))
        elif isinstance(node, list) and isinstance(last, int) and last < len(node):
            self.origins.forget(path, node[last:])
            del node[last]


def shape_below(shape: Shape, node: dict[str, Any], key: str, default: Any) -> tuple[Shape, Any]:
    """The shape and default under `key` of a table whose shape is `shape`."""
    kind = shape.kind
    if kind is Kind.MODEL or kind is Kind.UNION:
        model = shape.model
        if model is None:
            tag = node.get(shape.tag) if shape.tag else None
            model = shape.variant(tag) if tag is not None else _default_model(default)
        if model is not None:
            plan = plan_of(model).fields.get(key)
            if plan is not None:
                return plan.shape, child_default(model, key, default)
        return ANY, NO_DEFAULT
    if kind is Kind.DICT:
        return shape.item or ANY, NO_DEFAULT
    return ANY, NO_DEFAULT


def _default_model(default: Any) -> Any:
    return type(default) if hasattr(default, "model_fields") else None


class _Missing:
    pass


_MISSING: Any = _Missing()
