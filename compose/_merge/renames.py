"""Renamed fields: the `renamed` decorator, and moving old keys of a node to their new paths.

A rename keeps old configs working: the old key is read from files and flags at any depth, its
value moves to the new path (which may lie in a sub-section), and a `FutureWarning` names the
old key, the new key and where the old one was found. Setting both in one node is an error;
across nodes the later wins, as for any key. Nothing is ever silently dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from compose._schema.memo import forget, memoize
from compose._schema.plan import RENAMES_ATTR, aliases_of, models_below, plan_of, renames_of
from compose._schema.shape import ANY, Kind, Shape, section_models
from compose._shortcuts import SHORTCUTS
from compose._syntax import dotted, snake_case, split_dotted
from compose._tree import KeyPath, at_path, move_value
from compose._warn import warn
from compose.errors import ConfigValidationError, RenamedWarning

if TYPE_CHECKING:  # only named in annotations: schemas import this module, help never needs _origin
    from compose._input.origins import FileSource
    from compose._schema.walk import Target

M = TypeVar("M", bound=BaseModel)


def renamed(mapping: Mapping[str, str]) -> Callable[[type[M]], type[M]]:
    """Class decorator: `{"old_key": "new.path"}`, new paths relative to the decorated model."""

    def decorate(cls: type[M]) -> type[M]:
        renames = dict(getattr(cls, RENAMES_ATTR, {}))
        for old, new in mapping.items():
            segments = tuple(split_dotted(new))
            if old in cls.model_fields:
                raise TypeError(f"{cls.__name__}.{old} is still a field: it cannot be renamed")
            if segments[0] not in cls.model_fields:
                raise TypeError(f"{cls.__name__}: rename target {new!r} is not a field")
            renames[old] = segments
        setattr(cls, RENAMES_ATTR, renames)
        forget(cls)  # what was computed of the class before it declared these
        return cls

    return decorate


def announce(old: str, new: tuple[str, ...], where: str) -> None:
    warn(RenamedWarning(f"`{old}` is renamed to `{dotted(new)}`", where), stacklevel=2)


class Move:
    """A value a rename moved: from `old` to `new`, both paths inside the node."""

    def __init__(
        self,
        old: KeyPath,
        new: KeyPath,
        renamed_to: tuple[str, ...] = (),
        conflict: bool = False,
        alias: bool = False,
    ) -> None:
        self.old = old
        self.new = new
        self.renamed_to = renamed_to
        self.conflict = conflict
        self.alias = alias  # a validation alias: another name of the field, not an old one


def move_renamed(
    table: dict[str, Any], shape: Shape, source: FileSource, show_key: Callable[[KeyPath], str]
) -> list[Move]:
    """Move the old keys of a file node's table to their new paths (in place); warn for each.

    Paths in the moves are inside the node; `show_key` names a path of the whole config.
    """
    if SHORTCUTS and (shape is ANY or not _shape_has_renames(shape)):  # ANY: schema-less
        return []
    moves: list[Move] = []
    _move_in(table, shape, (), source, moves)
    for move in moves:
        if move.conflict:
            new = dotted(move.renamed_to)
            message = (
                f"`{move.old[-1]}` and `{new}` name the same field; keep one"
                if move.alias
                else f"both `{move.old[-1]}` and its new name `{new}` are set; keep only `{new}`"
            )
            raise ConfigValidationError(
                message,
                key=show_key((*source.prefix, *move.old)),
                origin=f"{source.shown}:{source.line_of(move.old) or '?'}",
            )
    return moves


def _move_in(node: Any, shape: Shape, path: KeyPath, source: FileSource, moves: list[Move]) -> None:
    if not isinstance(node, dict) or (SHORTCUTS and not _shape_has_renames(shape)):
        return
    for model in _models(shape, node):
        for old, new in renames_of(model).items():
            if old in node:
                _move_one(node, old, new, path, source, moves)
        for alias, name in aliases_of(model).items():
            if alias in node:
                _move_alias(node, alias, name, path, moves)
        leading = _fields_with_renames(model) if SHORTCUTS else _field_shapes(model)
        names: Collection[str] = leading.keys() & node.keys()
        if len(names) > 1:  # in the file's order: warnings come in it
            names = [name for name in node if name in names]
        for name in names:
            _move_below(node[name], leading[name], (*path, name), source, moves)


def _move_below(
    value: Any, shape: Shape, path: KeyPath, source: FileSource, moves: list[Move]
) -> None:
    if shape.kind is Kind.LIST and isinstance(value, list) and shape.item is not None:
        for index, item in enumerate(value):
            _move_in(item, shape.item, (*path, index), source, moves)
    elif shape.kind is Kind.DICT and isinstance(value, dict) and shape.item is not None:
        for key, item in value.items():
            _move_in(item, shape.item, (*path, key), source, moves)
    else:
        _move_in(value, shape, path, source, moves)


def _move_one(
    node: dict[str, Any],
    old: str,
    new: tuple[str, ...],
    path: KeyPath,
    source: FileSource,
    moves: list[Move],
) -> None:
    outcome = move_value(node, (old,), new)
    if outcome == "blocked":
        return  # the new section is set to a value here: validation names it
    if outcome == "taken":
        moves.append(Move((*path, old), (*path, *new), new, conflict=True))
        return
    announce(old, new, f"{source.shown}:{source.line_of((*path, old)) or '?'}")
    moves.append(Move((*path, old), (*path, *new), new))


def _move_alias(
    node: dict[str, Any], alias: str, name: str, path: KeyPath, moves: list[Move]
) -> None:
    """A key that is a validation alias: its value is the field's, keyed by the field's name
    (nodes that spell the field differently then merge); no warning, it is no old name."""
    if name in node:
        moves.append(Move((*path, alias), (*path, name), (name,), conflict=True, alias=True))
        return
    node[name] = node.pop(alias)
    moves.append(Move((*path, alias), (*path, name), (name,), alias=True))


def may_take_alias(target: Target) -> bool:
    """Whether the section that holds `target` has a class with a validation alias at all: the
    question `alias_written` answers is asked of most flags, and most classes have none."""
    parent = target.parent
    if parent is None or not parent.is_section:
        return False
    models = [parent.model] if parent.model is not None else [m for _, m in parent.variants]
    return any(aliases_of(model) for model in models)


def alias_written(target: Target, written: str, tree: Any) -> str | None:
    """The validation alias that `written`, a flag's last segment, named the field at `target`
    by (`--max-new-tokens` for `AliasChoices("max_tokens", "max_new_tokens")`), else None."""
    name, parent = target.path[-1] if target.path else None, target.parent
    if not isinstance(name, str) or parent is None or not parent.is_section:
        return None
    node = at_path(tree, target.path[:-1])
    for key in (written, snake_case(written)):
        if key != name and takes_alias(parent, node, key, name):
            return key
    return None


def takes_alias(shape: Shape, node: Any, alias: str, name: str) -> bool:
    """Whether the class that validates `node`, a section of `shape`, takes `alias` for its
    field `name` (any variant of a union that no tag decides yet)."""
    models = _models(shape, node if isinstance(node, dict) else {})
    return any(aliases_of(model).get(alias) == name for model in models)


def _models(shape: Shape, node: dict[str, Any]) -> list[type[BaseModel]]:
    if shape.model is not None:
        return [shape.model]
    chosen = shape.variant(node.get(shape.tag)) if shape.tag else None
    return [chosen] if chosen is not None else [model for _, model in shape.variants]


@memoize
def _field_shapes(model: type[BaseModel]) -> dict[str, Shape]:
    return {name: plan.shape for name, plan in plan_of(model).fields.items()}


@memoize
def _fields_with_renames(model: type[BaseModel]) -> dict[str, Shape]:
    """The fields of `model` below which a rename is declared: the only ones worth a visit."""
    fields = _field_shapes(model).items()
    return {name: shape for name, shape in fields if _shape_has_renames(shape)}


@memoize
def _shape_has_renames(shape: Shape) -> bool:
    """Per shape (made once per field): asked for each table of each file."""
    return any(_has_renames(model) for model in section_models(shape))


@memoize
def _has_renames(model: type[BaseModel]) -> bool:
    """Whether `model` or any section below it declares a rename or an alias (computed once
    per class)."""
    return any(renames_of(current) or aliases_of(current) for current in models_below(model))
