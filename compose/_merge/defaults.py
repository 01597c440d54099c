"""Class defaults as plain data, for what must see them before validation.

Interpolation may point at values that only class defaults set (`${model.name}` when no file
sets it), and class defaults may hold interpolations themselves (`run_name = "${model.name}-rl"`).
`default_at` reads one default beside the composed tree (so a union section's default is that of
the variant chosen so far); `inject_interpolated_defaults` puts the defaults that hold `${` into
the tree so they are resolved like any other value. Both touch only what they need.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from compose._input.origins import DEFAULT, Origins
from compose._schema.memo import memoize
from compose._schema.plan import (
    NO_DEFAULT,
    FieldPlan,
    any_field_below,
    current_variant,
    field_default,
    plan_of,
)
from compose._schema.shape import Kind, Shape
from compose._shortcuts import SHORTCUTS
from compose._syntax import INTERPOLATION, NONE_TEXT
from compose._tree import KeyPath, child, is_index


def to_plain(value: Any) -> Any:
    """A default as plain data that validates back to it (models dumped, containers copied)."""
    if isinstance(value, BaseModel):
        return value.model_dump(warnings=False)  # a default may hold "${...}" in an int field
    if isinstance(value, dict):
        return {key: to_plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(item) for item in value]
    return value


def default_at(root: Shape, tree: Any, path: KeyPath) -> Any:
    """The class default at `path` as plain data; KeyError when no default is there."""
    shape, node, default = root, tree, NO_DEFAULT
    for segment in path:
        shape, node, default = _default_step(shape, node, default, segment)
    if default is NO_DEFAULT:
        raise KeyError(path)
    return to_plain(default)


def _default_step(shape: Shape, node: Any, default: Any, segment: Any) -> tuple[Shape, Any, Any]:
    if node is None and default is None:
        raise KeyError(segment)  # an optional section that is off has no keys
    if shape.is_section:
        model = current_variant(shape, node, default)
        if model is None or segment not in model.model_fields:
            raise KeyError(segment)
        field = plan_of(model).fields[segment]
        return field.shape, child(node, segment), _field_default_in(model, segment, node, default)
    if shape.kind in (Kind.LIST, Kind.DICT, Kind.ANY):
        if isinstance(segment, str) and is_index(segment) and isinstance(node or default, list):
            segment = int(segment)  # interpolation paths give list indices as text
        item = shape.item if shape.item is not None else shape
        # a list or dict a node set replaces its default whole: nothing of it is left below
        below = _child_default(default, segment) if node is None else NO_DEFAULT
        return item, child(node, segment), below
    raise KeyError(segment)


def _field_default_in(model: type[BaseModel], name: str, node: Any, default: Any) -> Any:
    """The default of a section's field as validation will see it: the section's default
    instance holds it where no node set anything in the section, else the class does."""
    if node is None and isinstance(default, model):
        return getattr(default, name, NO_DEFAULT)
    return field_default(model, name)


def _child_default(default: Any, segment: Any) -> Any:
    if isinstance(default, dict) and segment in default:
        return default[segment]
    if isinstance(default, (list, tuple)) and isinstance(segment, int) and segment < len(default):
        return default[segment]
    if isinstance(default, BaseModel) and isinstance(segment, str):
        return getattr(default, segment, NO_DEFAULT)
    return NO_DEFAULT


def inject_interpolated_defaults(tree: dict[str, Any], root: Shape, origins: Origins) -> None:
    """Put class defaults that hold `${...}` into the tree, in the sections that are on."""
    if root.model is not None and may_have_interpolated_defaults(root.model):
        _inject(tree, root, NO_DEFAULT, (), origins)


def _inject(
    node: dict[str, Any], shape: Shape, default: Any, path: KeyPath, origins: Origins
) -> None:
    model = current_variant(shape, node, default)
    if model is None or not may_have_interpolated_defaults(model):
        return
    for name, field in plan_of(model).fields.items():  # a section in the tree: class defaults
        value = field_default(model, name)
        current = node.get(name)
        if name not in node:
            if holds_interpolation(value):
                node[name] = to_plain(value)
                origins.set((*path, name), DEFAULT)
        elif isinstance(current, dict) and field.shape.is_section:
            _inject(current, field.shape, value, (*path, name), origins)
        elif isinstance(current, list) and field.shape.kind is Kind.LIST:
            _inject_elements(current, field.shape, (*path, name), origins)


def _inject_elements(items: list[Any], shape: Shape, path: KeyPath, origins: Origins) -> None:
    item = shape.item
    if item is None or not item.is_section:
        return
    for index, element in enumerate(items):
        if isinstance(element, dict):
            _inject(element, item, NO_DEFAULT, (*path, index), origins)


def may_have_interpolated_defaults(model: type[BaseModel]) -> bool:
    """Whether a default of `model`, or of a section class below it, may hold `${`: every
    class may, unless the shortcut looks (once per class) and finds none."""
    return not SHORTCUTS or has_interpolated_defaults(model)


@memoize
def has_interpolated_defaults(model: type[BaseModel]) -> bool:
    """Whether any default of `model`, or of a section class below it, holds `${`."""
    return any_field_below(model, lambda plan: _default_holds(plan, holds_interpolation))


def _default_holds(plan: FieldPlan, holds: Callable[[Any], bool]) -> bool:
    # Looked at, not composed with: the default as declared, not a deep copy (most of the
    # cost, once per field, of a cold start's first composition)
    default = plan.shown_default
    return default is not NO_DEFAULT and holds(default)


def holds_interpolation(value: Any) -> bool:
    """Whether a class default holds `${`: such a default is composed, and so resolved."""
    return holds_text(value, _interpolates)


def _interpolates(text: str) -> bool:
    return INTERPOLATION in text


def holds_text(value: Any, matches: Callable[[str], bool]) -> bool:
    """Whether a value (a class default, a file's data), through models, dicts, lists and
    tuples, holds text that `matches`."""
    if isinstance(value, str):
        return matches(value)
    if isinstance(value, BaseModel):
        return any(holds_text(v, matches) for v in value.__dict__.values())
    if isinstance(value, dict):
        return any(holds_text(v, matches) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(holds_text(v, matches) for v in value)
    return False


def set_fields(value: Any) -> Any:
    """What an instance's author set, as plain data (`model_dump(exclude_unset=True)`, as
    pydantic-config reads `cli(default=)`), None as the text "None", and each section's union
    tag kept, so that the data chooses the variant the instance has."""
    if isinstance(value, BaseModel):
        model = type(value)
        fields = plan_of(model).fields
        names = [n for n in fields if n in value.model_fields_set or _is_tag(fields[n].shape)]
        return {name: set_fields(getattr(value, name)) for name in names}
    if isinstance(value, dict):
        return {key: set_fields(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [set_fields(item) for item in value]
    return NONE_TEXT if value is None else value


def _is_tag(shape: Shape) -> bool:
    """A field that can hold one value only (`type: Literal["muon"]`): a variant's tag."""
    return shape.kind is Kind.SCALAR and shape.literal and len(shape.members) == 1
