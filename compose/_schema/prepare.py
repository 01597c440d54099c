"""What a section's data means before Pydantic validates it: the text "None", and the variant
of a union section that names none.

This is the one home of both rules, applied by the class that validates the data, whoever
calls it: `BaseConfig` runs `prepare_fields` as a `mode="before"` validator, so a composition,
a direct `Model.model_validate(data)` and data that an app's own before-validator writes (the
text "None" into a sub-section's dict, say) all mean the same. A plain `pydantic.BaseModel`
section has no such validator: the `BaseConfig` above it (or binding, for a plain root) prepares
its data in its place.

- `"None"` becomes None where the field's type admits None, at any depth of lists and dicts;
  elsewhere the text stays (a `str` keeps it; Pydantic rejects it for other types, and binding
  says "does not accept None").
- A table for a discriminated union without its tag gets the tag of the field's class default
  (the guide: "omit `type` to keep the default variant").

Data is never changed in place: a table that needs a change is copied (the caller's dict may
be the user's own).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from compose._schema.memo import memoize
from compose._schema.plan import NO_DEFAULT, aliases_of, default_tag, input_keys, plan_of
from compose._schema.shape import ANY, Kind, Shape
from compose._shortcuts import SHORTCUTS
from compose._syntax import NONE_TEXT
from compose.errors import value_repr

PREPARES_ITSELF = "__compose_prepares__"  # set on `BaseConfig`: see `compose._schema.config`

# (a key the data may use, the field's shape, the tag a table without one gets)
_Entry = tuple[str, Shape, Any]
# What `prepare_fields` reads of a model, once per class: see `_preparation`.
_Preparation = tuple[tuple[tuple[str, str], ...], tuple[_Entry, ...], frozenset[str] | None]


def prepare_fields(model: type[BaseModel], data: Any) -> Any:
    """`data` for `model` with the two rules applied to its fields (a copy if any changed)."""
    if not isinstance(data, dict):
        return data
    renamed, entries, known = _preparation(model)
    for name, key in renamed:
        if name in data and key not in data:
            data = {(key if k == name else k): v for k, v in data.items()}
    changed = _extra_nones(known, data) if known is not None else None
    for key, shape, tag in entries:
        value = data.get(key, _ABSENT)
        if value is _ABSENT:
            continue
        new = prepare_value(value, shape, tag)
        if new is not value:
            if changed is None:
                changed = {}
            changed[key] = new
    return data if changed is None else {**data, **changed}


@memoize
def _preparation(model: type[BaseModel]) -> _Preparation:
    """What `prepare_fields` reads of `model`, once a class (it runs for every section that is
    validated): the fields to hand Pydantic under another key, the fields either rule may
    concern, and, where the model allows extra keys, every key a field is known by (an extra
    key is untyped: it admits None)."""
    allows_extra = model.model_config.get("extra") == "allow"
    entries = _changing_entries(model) if SHORTCUTS else _entries(model)
    return _renamed_for_validation(model), entries, _keys(model) if allows_extra else None


def _extra_nones(fields: frozenset[str], data: dict[str, Any]) -> dict[str, Any] | None:
    nones = {k: None for k, v in data.items() if v == NONE_TEXT and k not in fields}
    return nones or None


def _keys(model: type[BaseModel]) -> frozenset[str]:
    """Every key a field of `model` is known by: its name, or an alias."""
    return frozenset(model.model_fields.keys() | aliases_of(model).keys())


def prepare_value(value: Any, shape: Shape, tag: Any = None) -> Any:
    """One value for `shape`: "None" as None where admitted; a union table's default tag;
    elements of lists and dicts, and the fields of plain (not `BaseConfig`) sections."""
    if isinstance(value, str):
        return None if value == NONE_TEXT and shape.nullable else value
    if isinstance(value, dict):
        if shape.is_section:
            return _section(value, shape, tag)
        if shape.kind is Kind.DICT or shape.kind is Kind.ANY:
            return _items(value, shape.item or ANY)
    elif isinstance(value, list) and (shape.kind is Kind.LIST or shape.kind is Kind.ANY):
        return _elements(value, shape.item or ANY)
    return value


def _section(value: dict[str, Any], shape: Shape, tag: Any) -> dict[str, Any]:
    if shape.tag is not None and shape.tag not in value and tag is not None:
        value = {shape.tag: tag, **value}
    if shape.tag is not None and _unprintable(value.get(shape.tag)):
        value = {**value, shape.tag: value_repr(value[shape.tag])}
    model = shape.model
    if model is None and shape.tag is not None:
        model = shape.variant(value.get(shape.tag))
    if model is None or prepares_itself(model):
        return value
    result: dict[str, Any] = prepare_fields(model, value)
    return result


def _unprintable(tag: Any) -> bool:
    """An integer past Python's 4,300-digit conversion limit: Pydantic's message for a tag
    that matches no variant cannot show it, and prints a traceback trying. Such a tag is
    given as the text errors show it by, and is refused as any unknown tag is."""
    if type(tag) is not int:
        return False
    try:
        str(tag)
    except ValueError:
        return True
    return False


def _items(value: dict[Any, Any], item: Shape) -> dict[Any, Any]:
    if SHORTCUTS and not _may_change(item):
        return value
    new = {key: prepare_value(child, item) for key, child in value.items()}
    return value if all(new[key] is child for key, child in value.items()) else new


def _elements(value: list[Any], item: Shape) -> list[Any]:
    if SHORTCUTS and not _may_change(item):
        return value
    new = [prepare_value(child, item) for child in value]
    return value if all(a is b for a, b in zip(new, value, strict=True)) else new


@memoize
def _may_change(shape: Shape) -> bool:
    """Whether a value of `shape` may need either rule below the field's own level (elements
    of `list[str]` never do: a section class that prepares itself is not looked into)."""
    if shape.nullable or shape.tag is not None:
        return True
    if shape.kind in (Kind.LIST, Kind.DICT):
        return _may_change(shape.item or ANY)
    if shape.is_section:
        models = [shape.model] if shape.model is not None else [m for _, m in shape.variants]
        return any(not prepares_itself(model) for model in models if model is not None)
    return False


def prepares_itself(model: type[BaseModel]) -> bool:
    """Whether `model` runs `prepare_fields` on its data itself (a `BaseConfig` does, as its
    before-validator)."""
    return bool(getattr(model, PREPARES_ITSELF, False))


def _entries(model: type[BaseModel]) -> tuple[_Entry, ...]:
    """The fields of `model`, under every key the data may use."""
    entries: list[_Entry] = []
    for name, field in plan_of(model).fields.items():
        shape = field.shape
        tag = default_tag(shape, field.default) if shape.tag is not None else None
        entries.extend((key, shape, tag) for key in _keys_of(name, field.info))
    return tuple(entries)


def _changing_entries(model: type[BaseModel]) -> tuple[_Entry, ...]:
    """The entries either rule may concern: the others would come back as they are."""
    return tuple(entry for entry in _entries(model) if _may_change(entry[1]))


def _keys_of(name: str, info: Any) -> list[str]:
    """The field's name and the keys Pydantic validates it under."""
    return [name, *(key for key in input_keys(info) if key != name)]


def _renamed_for_validation(model: type[BaseModel]) -> tuple[tuple[str, str], ...]:
    """(name, key) for each field Pydantic takes under other keys only (an alias without
    `validate_by_name`): composition keys fields by name, validation gets the key it takes."""
    config = model.model_config
    if config.get("validate_by_name") or config.get("populate_by_name"):
        return ()
    pairs = []
    for name, field in plan_of(model).fields.items():
        keys = input_keys(field.info)
        if keys and name not in keys:
            pairs.append((name, keys[0]))
    return tuple(pairs)


_ABSENT: Any = NO_DEFAULT
