"""Binding the composed tree onto the schema, and Pydantic's errors back onto origins.

Before validation one walk beside the schema does what only the schema knows: `"None"` becomes
None where the type admits it, a union section without a tag gets its default variant's, and a
section whose class default is a customised instance keeps that instance's values under what the
nodes set; unknown keys are reported with a hint. When no node can hold "None" text (the usual
case) binding does only what `_fill` does, where a class says it may be needed, and leaves
unknown keys to Pydantic. Pydantic then validates once. Only if something is wrong does the walk
run, lean (sections only: a section with no sections below costs one check of its keys), so that
unknown keys are reported in the files' order, with their hints. Each of Pydantic's errors is
mapped to the key in CLI form, the value and the node that set it.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Iterable
from typing import Any, TypeVar

import pydantic
from pydantic import BaseModel

from compose._coerce import NONE_TEXT
from compose._defaults import has_none_text_defaults
from compose._fill import fill, fill_tag
from compose._graph import Composed
from compose._origin import Origins
from compose._schema import (
    NO_DEFAULT,
    ModelPlan,
    plan_of,
    suggest,
    unknown_key,
)
from compose._tree import KeyPath, Seg
from compose._types import ANY, Kind, Shape
from compose.errors import (
    ComposeError,
    ConfigValidationError,
    UnknownKeyError,
    gather,
)

M = TypeVar("M", bound=BaseModel)


def bind(composed: Composed, schema: type[M], *, flags_may_hold_none: bool = True) -> M:
    """The validated instance of `schema`; every problem raised at once as `ComposeError`.

    `flags_may_hold_none=False` says no flag's text spells "None" (see `may_spell_none`): with
    no such text anywhere, only `fill` prepares the tree.
    """
    tree = composed.tree
    binder = None
    if not flags_may_hold_none and not _may_hold_none(composed, schema):
        filled = fill(tree, composed.root, NO_DEFAULT)
    else:
        binder = _Binder(composed, lean=False)
        tree = binder.prepare(tree, composed.root, NO_DEFAULT, ())
        filled = not binder.errors
    try:
        instance = schema.model_validate(tree)
    except pydantic.ValidationError as error:
        raise gather(_errors(composed, binder, tree, error)) from None
    if not filled or composed.pending:
        raise gather(_errors(composed, binder, tree, None))
    return instance


def _errors(
    composed: Composed, binder: _Binder | None, tree: Any, error: pydantic.ValidationError | None
) -> list[ComposeError]:
    """All that is wrong, in order: the CLI node's, the walk's, then Pydantic's other errors.

    After `fill` (no walk yet), the lean walk over the tree it filled finds the unknown keys
    and sections with no variant, in the files' order, with their hints.
    """
    if binder is None:
        binder = _Binder(composed, lean=True)
        binder.prepare(tree, composed.root, NO_DEFAULT, ())
    errors = [*composed.pending, *binder.errors]
    if error is not None:
        reported = {found.key for found in errors}
        mapped = _map_errors(error, composed, tree)
        errors.extend(found for found in mapped if found.key not in reported)
    return errors


def _may_hold_none(composed: Composed, schema: type[BaseModel]) -> bool:
    """Whether a "None" string may be in the tree: from a file, a resolved value or a default."""
    return composed.may_hold_none or composed.may_interpolate or has_none_text_defaults(schema)


def unknown_keys(composed: Composed) -> list[ComposeError]:
    """The unknown keys of a composition, checked without binding it (for `show`, `--help`).

    The lean walk suffices: unknown keys are found in sections, which it visits all.
    """
    binder = _Binder(composed, lean=True)
    binder.prepare(copy.deepcopy(composed.tree), composed.root, NO_DEFAULT, ())
    return [error for error in binder.errors if isinstance(error, UnknownKeyError)]


def plain_nones(tree: Any) -> Any:
    """Schema-less: every `"None"` string is None (an untyped target admits None)."""
    if isinstance(tree, dict):
        for key, value in tree.items():
            tree[key] = plain_nones(value)
    elif isinstance(tree, list):
        tree[:] = [plain_nones(value) for value in tree]
    elif tree == NONE_TEXT:
        return None
    return tree


class _Binder:
    def __init__(self, composed: Composed, lean: bool) -> None:
        self.composed = composed
        self.lean = lean  # no "None" text in the tree: only sections need a visit
        self.errors: list[ComposeError] = []

    def prepare(self, value: Any, shape: Shape, default: Any, path: KeyPath) -> Any:
        if isinstance(value, str):
            return self._text(value, shape, path) if value == NONE_TEXT else value
        kind = shape.kind
        if isinstance(value, dict):
            if kind is Kind.MODEL or kind is Kind.UNION:
                return self._section(value, shape, default, path)
            if kind is Kind.DICT or kind is Kind.ANY:
                item = shape.item or ANY
                if self.lean and _keys_only(item):
                    self._check_keys(value.items(), item, path)
                    return value
                for key, child in value.items():
                    value[key] = self.prepare(child, item, NO_DEFAULT, (*path, key))
        elif isinstance(value, list) and (kind is Kind.LIST or kind is Kind.ANY):
            item = shape.item or ANY
            if self.lean and _keys_only(item):
                self._check_keys(enumerate(value), item, path)
                return value
            for index, child in enumerate(value):
                value[index] = self.prepare(child, item, NO_DEFAULT, (*path, index))
        return value

    def _check_keys(self, children: Iterable[tuple[Seg, Any]], item: Shape, path: KeyPath) -> None:
        """Lean: elements of a model with no sections below need only their keys checked."""
        names = plan_of(item.model).fields.keys()
        for key, child in children:
            if isinstance(child, dict) and not child.keys() <= names:
                self._section(child, item, NO_DEFAULT, (*path, key))  # reports the unknown keys

    def _text(self, value: str, shape: Shape, path: KeyPath) -> Any:
        if shape.nullable:
            return None
        if shape.accepts_str:
            return value
        self.errors.append(
            ConfigValidationError(
                "does not accept None",
                key=self.composed.show_key(path),
                value=value,
                origin=self.composed.origins.describe(path),
            )
        )
        return value

    def _section(self, node: dict[str, Any], shape: Shape, default: Any, path: KeyPath) -> Any:
        model = self._variant(node, shape, default, path)
        if model is None:
            return node
        # From here `default` is NO_DEFAULT or an instance of `model` (a switched variant starts
        # from its own class defaults); NO_DEFAULT is tested by identity: `isinstance` on
        # anything but a model's own instance runs ABCMeta's Python hook.
        if default is not NO_DEFAULT and not isinstance(default, model):
            default = NO_DEFAULT
        plan = plan_of(model)
        if self.lean and node.keys() <= plan.fields.keys():
            self._sections_below(node, plan, default, path)
        else:
            self._fields(node, shape, plan, default, path)
        return node

    def _fields(
        self, node: dict[str, Any], shape: Shape, plan: ModelPlan, default: Any, path: KeyPath
    ) -> None:
        """Every key of a section: unknown ones reported, values prepared by their field."""
        for key, child in list(node.items()):
            field = plan.fields.get(key)
            if field is None:
                if plan.forbid_extra:  # reported here, with a hint; Pydantic need not see it
                    self._unknown((*path, key), node.pop(key), shape)
                continue
            if isinstance(child, (dict, list)) or child == NONE_TEXT:  # scalars need nothing
                node[key] = self.prepare(child, field.shape, field.default, (*path, key))

    def _sections_below(
        self, node: dict[str, Any], plan: ModelPlan, default: Any, path: KeyPath
    ) -> None:
        """A section of known keys in a tree with no "None" text: only sections below it."""
        holding: Collection[str] = plan.section_fields
        if len(holding) > 1:  # in the node's order, so that errors come in the files' order
            holding = [key for key in node if key in plan.section_fields]
        for key in holding:
            child = node.get(key)
            if isinstance(child, (dict, list)):  # tables and lists are prepared in place
                field = plan.fields[key]
                self.prepare(child, field.shape, field.default, (*path, key))

    def _variant(
        self, node: dict[str, Any], shape: Shape, default: Any, path: KeyPath
    ) -> type[BaseModel] | None:
        if shape.model is not None:
            return shape.model
        model = fill_tag(node, shape, default)
        if model is None and shape.tag is not None and shape.tag not in node:
            self._no_variant(shape, path)
        return model

    def _no_variant(self, shape: Shape, path: KeyPath) -> None:
        names = ", ".join(name for name, _ in shape.variants)
        tag_key = self.composed.show_key((*path, shape.tag or "type"))
        self.errors.append(
            ConfigValidationError(
                f"no variant chosen: set {tag_key} to one of {names}",
                key=self.composed.show_key(path),
                origin=self.composed.origins.describe(path),
            )
        )

    def _unknown(self, path: KeyPath, value: Any, section: Shape) -> None:
        found = unknown_key(self.composed.root, path, None, section, len(path) - 1)
        origin = self.composed.origins.describe(path)
        self.errors.append(found.evolve(value=value, origin=origin))


def _keys_only(shape: Shape) -> bool:
    """A model with no sections below it: with no "None" text, only its keys need a look."""
    model = shape.model
    return model is not None and shape.kind is Kind.MODEL and not plan_of(model).section_fields


def _map_errors(
    error: pydantic.ValidationError, composed: Composed, tree: dict[str, Any]
) -> list[ComposeError]:
    seen: dict[KeyPath, ComposeError] = {}
    for detail in error.errors():
        located = _loc_path(composed.root, detail["loc"], tree)
        if located is None:
            continue
        path, shape = located
        mapped = _to_compose_error(detail, path, shape, composed)
        if path in seen and not isinstance(mapped, UnknownKeyError):
            seen[path].message += f"; or {mapped.message}"  # one value, several union members
            continue
        seen.setdefault(path, mapped)
    for mapped in seen.values():
        mapped.args = (mapped.format(),)
    return list(seen.values())


def _to_compose_error(detail: Any, path: KeyPath, shape: Shape, composed: Composed) -> ComposeError:
    kind = detail["type"]
    origins: Origins = composed.origins
    if kind == "extra_forbidden":
        key = composed.show_key(path)
        found = suggest(composed.root, key)
        return UnknownKeyError(
            "unknown key",
            key=key,
            value=detail["input"],
            origin=origins.describe(path),
            hint=f"did you mean {found}?" if found else None,
        )
    if kind == "union_tag_invalid" and shape.tag:
        tag_path = (*path, shape.tag)
        return ConfigValidationError(
            _message(detail),
            key=composed.show_key(tag_path),
            value=detail["ctx"]["tag"],
            origin=origins.describe(tag_path),
        )
    if kind == "missing":
        message = "missing required value"
        if shape.kind is Kind.UNION and shape.tag:
            names = ", ".join(name for name, _ in shape.variants)
            message += f": choose one with {composed.show_key((*path, shape.tag))} ({names})"
        return ConfigValidationError(message, key=composed.show_key(path))
    if shape.is_section and kind in ("value_error", "assertion_error"):
        return ConfigValidationError(_message(detail), key=composed.show_key(path))
    return ConfigValidationError(
        _message(detail),
        key=composed.show_key(path),
        value=detail["input"],
        origin=origins.describe(path),
    )


def _message(detail: Any) -> str:
    message: str = detail["msg"]
    for prefix in ("Value error, ", "Assertion failed, "):
        message = message.removeprefix(prefix)
    return message


def _loc_path(root: Shape, loc: tuple[Any, ...], tree: Any) -> tuple[KeyPath, Shape] | None:
    """Pydantic's error location as our key path: union tags and member names dropped.

    None for an error of a `Literal | Model` union's scalar branch when the value is a table:
    the table was meant for the section, whose own errors say what is wrong.
    """
    path: list[str | int] = []
    shape, node = root, tree
    for item in loc:
        if shape.kind is Kind.UNION and _names_variant(shape, item, node):
            continue
        if shape.kind is Kind.SCALAR:
            continue  # `int`, `str`, `literal[...]`: the member of a scalar union
        if shape.alternative is not None and not _is_field(shape, item, node):
            if _names_variant(shape, item, node):
                continue  # the section branch of a `Literal | Model` union
            if isinstance(node, dict):
                return None
            shape = shape.alternative  # the scalar branch, for a value that is no table
            continue
        path.append(item)
        shape, node = _loc_step(shape, item, node)
    return tuple(path), shape


def _is_field(shape: Shape, item: Any, node: Any) -> bool:
    model = shape.model
    if model is None and isinstance(node, dict) and shape.tag:
        model = shape.variant(node.get(shape.tag))
    return isinstance(item, str) and model is not None and item in model.model_fields


def _names_variant(shape: Shape, item: Any, node: Any) -> bool:
    if not isinstance(item, str):
        return False
    current = node.get(shape.tag) if isinstance(node, dict) and shape.tag else None
    variant = shape.variant(current)
    if variant is not None and item in variant.model_fields:
        return False
    models = [m for _, m in shape.variants] + ([shape.model] if shape.model else [])
    return shape.variant(item) is not None or any(m.__name__ == item for m in models)


def _loc_step(shape: Shape, item: Any, node: Any) -> tuple[Shape, Any]:
    child = (
        node.get(item)
        if isinstance(node, dict)
        else (
            node[item]
            if isinstance(node, list) and isinstance(item, int) and item < len(node)
            else None
        )
    )
    if shape.kind in (Kind.MODEL, Kind.UNION):
        model = shape.model
        if model is None and isinstance(node, dict) and shape.tag:
            model = shape.variant(node.get(shape.tag))
        fields = plan_of(model).fields if model is not None else {}
        field = fields.get(item) if isinstance(item, str) else None
        return (field.shape if field is not None else ANY), child
    if shape.kind in (Kind.LIST, Kind.DICT):
        return shape.item or ANY, child
    return ANY, child
