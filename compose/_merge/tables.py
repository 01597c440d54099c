"""Deep merge of plain trees: tables merge, lists and scalars replace.

A node's table is merged key by key where the tree already has a table, and stored whole (no
copy) where it does not: the first file of a composition costs almost nothing here. Where the
schema says a table is a discriminated union, a node that changes the tag switches the variant
first, dropping (with a warning) the keys the new variant lacks.

A merger records origins only when given an `Origins` to fill: a composition merges without
(where no schema applies, with the plain walk below, as cheap as any deep merge), and composes
again with records only when an origin is asked for (`_graph.replay`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from compose._input.origins import DefaultSource, Origin, Origins
from compose._merge.lists import holds_strategies, merge_by_strategy, settle
from compose._schema.memo import memoize
from compose._schema.plan import (
    NO_DEFAULT,
    any_field_below,
    default_tag,
    field_default,
    plan_of,
    tag_names,
)
from compose._schema.shape import ANY, Kind, Shape
from compose._shortcuts import SHORTCUTS
from compose._syntax import MANDATORY
from compose._tree import KeyPath, child, put
from compose._warn import warn
from compose.errors import ComposeWarning


class Halted(Exception):
    """A recording merger reached the union switch it was told to stop at: its records so far."""

    def __init__(self, origins: Origins) -> None:
        super().__init__()
        self.origins = origins


# Given the count of key-dropping union switches so far, the origins of that moment.
OriginsAt = Callable[[int], Origins]


class Merger:
    """Merges nodes into one tree; with `origins`, recording who set what.

    Without, a union switch that drops keys (it names where they came from) asks `origins_at`;
    with, `stop_at` makes the merger halt at that switch, to answer such a question.
    """

    def __init__(
        self,
        root: Shape,
        show_key: Any,
        origins: Origins | None = None,
        origins_at: OriginsAt | None = None,
        stop_at: int = 0,
    ) -> None:
        self.tree: dict[str, Any] = {}
        self.origins = origins
        self.root = root
        self._show_key = show_key  # KeyPath -> str, for warnings
        self._origins_at = origins_at
        self._stop_at = stop_at
        self._drops = 0  # union switches so far that dropped keys
        # What a key that sets a union's tag can be called: a table without one switches nothing
        self._tags = tag_names(root.model) if root.model is not None else frozenset()

    def record(self, path: KeyPath, origin: Origin, old: object = None) -> None:
        """`origin` set `path`, replacing `old` there (when recording)."""
        if self.origins is not None:
            self.origins.replace(path, origin, old)

    def forget(self, path: KeyPath, old: object) -> None:
        """`old` at `path` is gone, and who set it no longer matters (when recording)."""
        if self.origins is not None:
            self.origins.forget(path, old)

    def merge_at(
        self, prefix: KeyPath, table: dict[str, Any], origin: Origin, shape: Shape, default: Any
    ) -> None:
        """Merge `table` (a node's keys) into the section at `prefix`."""
        if not prefix:
            self.merge_table(self.tree, table, (), origin, shape, default)
            return
        parent = self.holder_of(prefix)
        last = prefix[-1]
        current = child(parent, last)
        if isinstance(current, dict):
            self.merge_table(current, table, prefix, origin, shape, default)
        elif holds_strategies(shape):  # lists below merge with their class defaults
            self.forget(prefix, current)
            put(parent, last, settle(self, table, prefix, origin, shape, default))
        else:
            put(parent, last, table)
            self.record(prefix, origin, current)

    def show_key(self, path: KeyPath) -> str:
        return str(self._show_key(path))

    def merge_table(
        self,
        dst: dict[str, Any],
        src: dict[str, Any],
        path: KeyPath,
        origin: Origin,
        shape: Shape,
        default: Any,
    ) -> None:
        """Merge `src` into the table `dst` found at `path` (list elements merged by key)."""
        origins = self.origins
        if SHORTCUTS and origins is None and not may_switch_below(shape):
            merge_plain(dst, src)  # no union to switch below, nothing to record: the plain walk
            return
        if shape.kind is Kind.UNION and shape.tag in src:
            self.switch_variant(dst, src[shape.tag], path, shape, default)
        strategic = holds_strategies(shape)
        if SHORTCUTS and origins is None and not strategic:  # only a tag needs the schema below
            merge_plain(
                dst, src, functools.partial(self._switch_at, _Base(path, shape, default, dst))
            )
            return
        for key, value in src.items():
            old = dst.get(key, _MISSING)
            if strategic and self._by_strategy(dst, key, value, old, path, origin, shape, default):
                continue
            if old is _MISSING:
                dst[key] = value
                if origins is not None:
                    origins.set((*path, key), origin)
            elif isinstance(value, dict) and isinstance(old, dict):
                child, child_def = shape_below(shape, dst, key, default)
                self.merge_table(old, value, (*path, key), origin, child, child_def)
            elif not is_mandatory(value):  # "???" never overrides what an earlier node set
                dst[key] = value
                if origins is not None:
                    origins.replace((*path, key), origin, old)

    def _switch_at(
        self, base: _Base, dst: dict[str, Any], src: dict[str, Any], below: tuple[str, ...]
    ) -> None:
        """Before `src` merges onto the table `dst` (at `below` from the merge's start): if it
        sets a union's tag there, switch the variant. Only a key named as a tag can: the shape
        is found for those tables alone."""
        if self._tags.isdisjoint(src):
            return
        shape, default = base.shape_at(below)
        if shape.kind is Kind.UNION and shape.tag in src:
            self.switch_variant(dst, src[shape.tag], (*base.path, *below), shape, default)

    def _by_strategy(
        self,
        dst: dict[str, Any],
        key: str,
        value: Any,
        old: Any,
        path: KeyPath,
        origin: Origin,
        shape: Shape,
        default: Any,
    ) -> bool:
        """Whether a list strategy at or below `dst[key]` merged `value` (see `_listmerge`)."""
        if isinstance(value, dict) and isinstance(old, dict):
            return False  # a table onto a table: walked as usual
        if not isinstance(value, (dict, list)):
            return False  # a scalar replaces
        below, below_default = shape_below(shape, dst, key, default)
        sub = (*path, key)
        return merge_by_strategy(self, dst, key, value, old, sub, origin, below, below_default)

    def switch_variant(
        self, dst: dict[str, Any], tag: Any, path: KeyPath, shape: Shape, default: Any
    ) -> None:
        """A node sets the union's tag: keep the keys the new variant has, drop the others."""
        current = dst.get(shape.tag, default_tag(shape, default))  # type: ignore[arg-type]
        variant = shape.variant(tag)
        if current == tag or variant is None:
            return  # same variant, or an unknown one that validation will name
        dropped = [k for k in dst if k not in variant.model_fields]
        if not dropped:
            return
        origins = self._origins_before_drop()
        for key in dropped:
            # A class default in the tree (a list's default element) is no value a node set
            if not isinstance(origins.lookup((*path, key)), DefaultSource):
                where = origins.describe((*path, key))
                warn(
                    f"{self._show_key((*path, key))} (from {where}) is dropped: "
                    f"{self._show_key((*path, shape.tag))} switched to {tag!r}, "
                    "which has no such key",
                    ComposeWarning,
                    stacklevel=2,
                )
            self.forget((*path, key), dst.pop(key))

    def _origins_before_drop(self) -> Origins:
        """Who set what now, to name it in the warning: a replay halts here to tell."""
        self._drops += 1
        if self.origins is None:
            assert self._origins_at is not None, "a merger without records needs a replay"
            return self._origins_at(self._drops)
        if self._drops == self._stop_at:
            raise Halted(self.origins)
        return self.origins

    def holder_of(self, path: KeyPath) -> Any:
        """The table (or list) that holds `path`'s last segment, creating tables on the way:
        a value there gives way, and so does a list where a key comes next (the list of a union
        variant the node switched from, whose field of that name is a section)."""
        node: Any = self.tree
        for depth, segment in enumerate(path[:-1]):
            inner = child(node, segment)
            keyed = isinstance(inner, list) and isinstance(path[depth + 1], str)
            if keyed or not isinstance(inner, (dict, list)):
                self.forget(path[: depth + 1], inner)
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
            self.forget(path, node.pop(last))
        elif isinstance(node, list) and isinstance(last, int) and last < len(node):
            self.forget(path, node[last:])
            del node[last]


# Told of each table about to merge onto one already there: (that table, the new one, its path
# from where the merge started). Only such a table can switch a union's variant: one stored
# whole drops nothing.
OnTable = Callable[[dict[str, Any], dict[str, Any], tuple[str, ...]], None]


def merge_plain(
    dst: dict[str, Any],
    src: dict[str, Any],
    on_table: OnTable | None = None,
    below: tuple[str, ...] = (),
) -> None:
    """`src` into `dst` where no schema applies: the least a deep merge does, and `???`.

    Tables met in both merge; any other value replaces, except `???` over a value already set.
    `on_table`, if given, is told of each table met in both before it merges (`OnTable`).
    """
    if not dst:
        dst.update(src)  # every key new: stored as it is, as the loop below would
        return
    for key, value in src.items():  # a tree's tables are exact dicts (compose._tree), and
        if type(value) is dict:  # `type() is` costs a third of `isinstance` over 10,000 leaves
            old = dst.get(key)
            if type(old) is dict:
                if on_table is None:
                    merge_plain(old, value)
                else:
                    sub = (*below, key)
                    on_table(old, value, sub)
                    merge_plain(old, value, on_table, sub)
                continue
        elif type(value) is str and value == MANDATORY and key in dst:
            continue
        dst[key] = value


def is_mandatory(value: Any) -> bool:
    """`???` (a string: a list or a number never equals it, and comparing them costs more)."""
    return isinstance(value, str) and value == MANDATORY


def may_switch_below(shape: Shape) -> bool:
    """Whether merging into a table of `shape` may meet a discriminated union to switch, or a
    list merged by its strategy (`Merge.extend`...).

    Only those need the schema while merging; lists replace whole, so none inside one does.
    """
    if shape is ANY:  # schema-less: the answer below, without its three lookups
        return False
    if holds_strategies(shape):
        return True
    shape = _through_dicts(shape)
    if shape.kind is Kind.UNION:
        return True
    return shape.model is not None and shape.kind is Kind.MODEL and _reaches_union(shape.model)


@memoize
def _reaches_union(model: type[BaseModel]) -> bool:
    """Whether a section of `model`, or one below it, is a union (once per class)."""
    return any_field_below(
        model, lambda plan: _through_dicts(plan.shape).kind is Kind.UNION, _sections_not_in_lists
    )


def _through_dicts(shape: Shape) -> Shape:
    """The shape of a dict's values (of a dict of dicts...): tables merge through dicts."""
    while shape.kind is Kind.DICT and shape.item is not None:
        shape = shape.item
    return shape


def _sections_not_in_lists(shape: Shape) -> list[type[BaseModel]]:
    """The section class a table of `shape` merges into (lists replace whole: none inside)."""
    shape = _through_dicts(shape)
    return [shape.model] if shape.kind is Kind.MODEL and shape.model is not None else []


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
                return plan.shape, field_default(model, key)
        return ANY, NO_DEFAULT
    if kind is Kind.DICT:
        return shape.item or ANY, NO_DEFAULT
    return ANY, NO_DEFAULT


class _Base:
    """Where a merge started: the table at `path`, its shape and default. Shapes below it are
    found from here, for the few tables that need them."""

    def __init__(self, path: KeyPath, shape: Shape, default: Any, table: dict[str, Any]) -> None:
        self.path = path
        self.shape = shape
        self.default = default
        self.table = table

    def shape_at(self, below: tuple[str, ...]) -> tuple[Shape, Any]:
        shape, default, node = self.shape, self.default, self.table
        for key in below:
            shape, default = shape_below(shape, node, key, default)
            node = node[key]
        return shape, default


def _default_model(default: Any) -> Any:
    return type(default) if isinstance(default, BaseModel) else None


class _Missing:
    pass


_MISSING: Any = _Missing()
