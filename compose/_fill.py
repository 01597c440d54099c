"""Binding's lean preparation: what only the schema knows, done where a class says it may be needed.

With no "None" text anywhere in a composition (the usual case), all that binding must do before
Pydantic validates is fill in the tag of a union section that has none (its default variant's).
Which fields may lead to one is known per class (`_needed`), so the walk visits those alone, and
leaves unknown keys to Pydantic: when validation fails, `_bind` walks again to report them.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel

from compose._schema import NO_DEFAULT, FieldPlan, any_field_below, default_tag, plan_of
from compose._types import Kind, Shape, innermost

# (field name, its shape, its class default) for each field that may need a visit
Needed = tuple[tuple[str, Shape, Any], ...]


def fill(node: dict[str, Any], shape: Shape, default: Any) -> bool:
    """Fill in a section's union tags and customised defaults, in place, as far down as a
    class says they may be needed. False if a union section has no variant chosen (the walk
    that checks keys names it)."""
    model = shape.model
    if model is None:
        model = fill_tag(node, shape, default)
        if model is None:
            return shape.tag is None  # a union Pydantic tells apart by itself: nothing to fill
    filled = True
    for key, field_shape, field_default in _needed(model):
        value = node.get(key)
        if value is not None:
            filled = _fill_value(value, field_shape, field_default) and filled
    return filled


def _fill_value(value: Any, shape: Shape, default: Any) -> bool:
    if isinstance(value, dict):
        if shape.is_section:
            return fill(value, shape, default)
        if shape.kind is Kind.DICT and shape.item is not None:
            return _fill_all(value.values(), shape.item)
    elif isinstance(value, list) and shape.kind is Kind.LIST and shape.item is not None:
        return _fill_all(value, shape.item)
    return True


def _fill_all(values: Any, item: Shape) -> bool:
    """The elements of a list or dict (which have no defaults of their own)."""
    filled = True
    if work_below(item):
        for value in values:
            filled = _fill_value(value, item, NO_DEFAULT) and filled
    return filled


def fill_tag(node: dict[str, Any], shape: Shape, default: Any) -> type[BaseModel] | None:
    """The variant of a union section, its default's tag filled in if the nodes set none;
    None for a union Pydantic tells apart by itself, or one with no variant chosen."""
    tag = shape.tag
    if tag is None:
        return None
    if tag not in node:
        chosen = default_tag(shape, default)
        if chosen is None:
            return None
        node[tag] = chosen
    return shape.variant(node[tag])


@functools.cache
def _needed(model: type[BaseModel]) -> Needed:
    """The fields of `model` that may need a visit: a union's tag to fill in, at or below."""
    plan = plan_of(model)
    fields = [field for name, field in plan.fields.items() if name in plan.section_fields]
    return tuple(
        (field.name, field.shape, field.default) for field in fields if work_below(field.shape)
    )


@functools.cache
def work_below(shape: Shape) -> bool:
    """Whether a value of `shape` may hold a union section with a tag. Known per class:
    `any_field_below` ends on recursive schemas, and may count models a walk never reaches (a
    harmless visit)."""
    inner = innermost(shape)
    if inner.kind is Kind.UNION:
        return bool(inner.tag)  # without one Pydantic chooses, and the walk stops there
    return inner.model is not None and _has_work(inner.model)


@functools.cache
def _has_work(model: type[BaseModel]) -> bool:
    return any_field_below(model, _may_need_a_visit)


def _may_need_a_visit(field: FieldPlan) -> bool:
    """A union section with a tag."""
    if field.name not in plan_of(field.owner).section_fields:
        return False
    return bool(innermost(field.shape).tag)
