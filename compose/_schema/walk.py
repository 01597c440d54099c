"""Following a key path through a schema beside the tree composed so far: where a flag or a
section file lands, its shape and the defaults on the way (a union section resolves against
the variant chosen so far).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from compose._schema.keys import cli_key, unknown_key
from compose._schema.memo import memoize
from compose._schema.plan import (
    NO_DEFAULT,
    field_default,
    field_name,
    plan_of,
    renames_of,
    section_model,
)
from compose._schema.shape import ANY, Kind, Shape
from compose._shortcuts import SHORTCUTS
from compose._syntax import snake_case
from compose._tree import MAX_DEPTH, KeyPath, child, is_index
from compose.errors import ArgvError, UnknownKeyError


class Target:
    """Where a flag or section path lands: the key path, its shape and the defaults on the way."""

    def __init__(
        self,
        path: KeyPath,
        shape: Shape,
        defaults: tuple[Any, ...],
        parent: Shape | None,
        renamed: tuple[tuple[str, tuple[str, ...]], ...] = (),
        unchecked: int | None = None,
    ) -> None:
        self.path = path
        self.shape = shape
        self.defaults = defaults  # defaults[i]: the class default at path[: i + 1]
        self.parent = parent  # the shape holding the last segment (a union: is it the tag?)
        self.renamed = renamed  # (old key, new path) of each rename followed on the way
        # The depth of the first key no field of the schema's classes names (`walk(...,
        # passthrough=True)`): the class that validates the section judges it, and may take it
        # (`extra="allow"`, a subclass a validator chooses). None: every key is a field.
        self.unchecked = unchecked

    @property
    def default(self) -> Any:
        return self.defaults[-1] if self.defaults else NO_DEFAULT

    @property
    def parent_default(self) -> Any:
        return self.defaults[-2] if len(self.defaults) > 1 else NO_DEFAULT

    @property
    def is_tag(self) -> bool:
        parent = self.parent
        return parent is not None and parent.kind is Kind.UNION and self.path[-1] == parent.tag


def walk(
    root: Shape, segments: list[str], tree: Any, shown: str, *, passthrough: bool = False
) -> Target:
    """Follow `segments` (as the user wrote them) through the schema beside the tree.

    An old key declared with `renamed` continues along its new path; the target says so. A key
    no field names is an `UnknownKeyError`; with `passthrough`, the walk goes on below it as
    through untyped data (snake_case keys), and the target says where (`Target.unchecked`).
    Walks are kept on the schema's root shape (so they go with the schema): flags repeat
    across calls, and a walk is most of what a flag costs. A path through models, lists and
    dicts only is the same whatever the tree. One through union sections is the same wherever
    each union has the variant it had: a kept walk holds the choices it made, and serves a
    tree in which each comes out the same.
    """
    if root.kind is Kind.ANY:  # untyped all the way: only the tree tells, nothing is kept
        return _walk(root, segments, tree, shown)[0]
    walks = _kept_walks(root)
    key = tuple(segments)
    kept = walks.get(key) if SHORTCUTS else None
    if kept is not None:
        for entry in kept:
            if entry.holds_for(tree):
                return entry.target
    try:
        target, choices = _walk(root, segments, tree, shown)
    except UnknownKeyError:
        if not passthrough:
            raise
        target, _ = _walk(root, segments, tree, shown, passthrough=True)
        return target  # kept for no other tree: it read what no class declares
    if SHORTCUTS and choices is not None:
        if len(walks) >= _MAX_WALKS:
            walks.clear()  # a bound for long-lived processes that see many flags
        kept = walks.setdefault(key, [])
        kept[: len(kept) - _MAX_VARIANT_WALKS + 1] = []  # a bound on variants kept per path
        kept.append(_KeptWalk(target, choices))
    return target


class _Choice:
    """A step into a union section: which model `section_model` gave, and what it was given."""

    def __init__(
        self, depth: int, shape: Shape, default: Any, name: str, model: type[BaseModel] | None
    ) -> None:
        self.depth = depth  # the union section is at `target.path[:depth]`
        self.shape = shape
        self.default = default
        self.name = name
        self.model = model


class _KeptWalk:
    """A walk's target, with the union choices that led to it (none: it holds for any tree)."""

    def __init__(self, target: Target, choices: tuple[_Choice, ...]) -> None:
        self.target = target
        self.choices = choices

    def holds_for(self, tree: Any) -> bool:
        """Whether a walk beside `tree` makes the same choices (so it reaches the same target):
        each union comes out the same, given the same choices before it."""
        path = self.target.path
        node, depth = tree, 0
        for choice in self.choices:
            while depth < choice.depth:
                node = child(node, path[depth])
                depth += 1
            if section_model(choice.shape, node, choice.default, choice.name) is not choice.model:
                return False
        return True


@memoize
def _kept_walks(root: Shape) -> dict[tuple[str, ...], list[_KeptWalk]]:
    """The walks kept for a schema's root shape: segments -> the walks that reached a target."""
    return {}


_MAX_WALKS = 4096  # per schema


_MAX_VARIANT_WALKS = 4


def _walk(
    root: Shape, segments: list[str], tree: Any, shown: str, passthrough: bool = False
) -> tuple[Target, tuple[_Choice, ...] | None]:
    """The target, and the union choices it made (None: a step read untyped data, whose
    shape only the tree tells, so the walk holds for this tree alone)."""
    shape, node, default = root, tree, NO_DEFAULT
    path: list[str | int] = []
    defaults: list[Any] = []
    parent: Shape | None = None
    renamed: list[tuple[str, tuple[str, ...]]] = []
    choices: list[_Choice] | None = []
    unchecked: int | None = None
    if len(segments) > MAX_DEPTH:
        raise ArgvError(f"a key path of more than {MAX_DEPTH} segments", origin=shown)
    pending = segments[::-1]  # the next segment last: popped in constant time
    while pending:
        if shape.kind is Kind.ANY:  # and so is everything below it: the tree alone tells
            _untyped_steps(node, pending, unchecked is not None, path, shown, root)
            defaults += [NO_DEFAULT] * len(pending)
            # a step below `shape` lands on plain ANY (`shape` may be a union's, e.g. `int |
            # dict`): the last segment is held by `shape` itself, or by the ANY above it
            parent = shape if len(pending) == 1 else ANY
            shape, choices = ANY, None
            break
        segment = pending.pop()
        if shape.kind is Kind.UNION and choices is not None:
            snake = snake_case(segment)
            model = section_model(shape, node, default, snake)
            choices.append(_Choice(len(path), shape, default, snake, model))
        if unchecked is not None:  # below a key no class declares: names of a class unseen
            segment = snake_case(segment)
        step = _step(shape, node, default, segment, path, shown, root)
        if step is None:
            new = _renamed_path(shape, node, default, segment)
            if new is not None:
                renamed.append((snake_case(segment), new))
                pending += new[::-1]
                continue
            if not passthrough:
                raise unknown_key(root, (*path, segment, *pending[::-1]), shown, shape, len(path))
            unchecked = len(path) if unchecked is None else unchecked
            step = snake_case(segment), ANY, NO_DEFAULT
        parent = shape
        name, shape, default = step
        path.append(name)
        defaults.append(default)
        node = child(node, name)
    target = Target(tuple(path), shape, tuple(defaults), parent, tuple(renamed), unchecked)
    return target, None if choices is None else tuple(choices)


def _renamed_path(shape: Shape, node: Any, default: Any, segment: str) -> tuple[str, ...] | None:
    if not shape.is_section:
        return None
    old = snake_case(segment)
    model = section_model(shape, node, default, old)
    models = [model] if model is not None else [m for _, m in shape.variants]
    for candidate in models:
        new = renames_of(candidate).get(old)
        if new is not None:
            return new
    return None


def _step(
    shape: Shape,
    node: Any,
    default: Any,
    segment: str,
    path: list[str | int],
    shown: str,
    root: Shape,
) -> tuple[str | int, Shape, Any] | None:
    kind = shape.kind
    if kind in (Kind.MODEL, Kind.UNION):
        model = section_model(shape, node, default, snake_case(segment))
        name = field_name(model, segment) if model is not None else None
        if model is None or name is None:
            return None
        return name, plan_of(model).fields[name].shape, field_default(model, name)
    if kind is Kind.LIST:
        index = _index(segment, root, path, shown)
        item_default = default[index] if _has_index(default, index) else NO_DEFAULT
        return index, shape.item or ANY, item_default
    if kind is Kind.DICT:
        item_default = default.get(segment, NO_DEFAULT) if isinstance(default, dict) else NO_DEFAULT
        return segment, shape.item or ANY, item_default
    raise ArgvError(
        f"is a value, not a section: it has no key {segment!r}",
        key=cli_key(root, tuple(path)),
        origin=shown,
    )


def _untyped_steps(
    node: Any, pending: list[str], snake: bool, path: list[str | int], shown: str, root: Shape
) -> None:
    """The rest of the path (`pending`, next segment last) through untyped data, onto `path`:
    an index into a list already there, else a verbatim key (snake_case below a key no class
    declares, `snake`). A schema-less flag walks only this loop."""
    for written in reversed(pending):
        segment = snake_case(written) if snake else written
        name = _index(segment, root, path, shown) if isinstance(node, list) else segment
        path.append(name)
        node = child(node, name)


def _index(segment: str, root: Shape, path: list[str | int], shown: str) -> int:
    """A segment into a list: an index, else an error naming the list."""
    if not is_index(segment):
        raise ArgvError(
            f"is a list: expected an index, got {segment!r}",
            key=cli_key(root, tuple(path)),
            origin=shown,
        )
    return int(segment)


def _has_index(value: Any, index: int) -> bool:
    return isinstance(value, (list, tuple)) and index < len(value)
