"""What the composition needs to know about a schema, computed once per model class.

A `ModelPlan` holds each field's `Shape`, its default (called once, read only), and the
renames declared on the model; the helpers here answer questions about one class (its tags,
aliases, the variant a union section has). Following a key path is `compose._schema.walk`;
showing one as a flag, `compose._schema.keys`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from pydantic import BaseModel, SecretBytes, SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from compose._schema.memo import memoize
from compose._schema.shape import (
    Kind,
    Shape,
    check_model,
    innermost,
    section_models,
    shape_of_field,
)
from compose._syntax import snake_case

NO_DEFAULT: Any = PydanticUndefined


# Plain classes, not dataclasses or named tuples: this module is imported by every schema
# (through `renamed`) and every `--help`. Defining a four-field class costs, in instructions
# (callgrind): a frozen dataclass 4.2 M, a named tuple 1.3 M, with __slots__ 0.5 M, plain 0.14 M.


class FieldPlan:
    """A field of a model, as composition and help read it."""

    def __init__(self, owner: type[BaseModel], name: str, info: FieldInfo, shape: Shape) -> None:
        self.owner = owner
        self.name = name
        self.info = info
        self.shape = shape
        self._default: Any = NO_DEFAULT  # computed on first use

    @property
    def default(self) -> Any:
        """The field's default value (a factory is called once); NO_DEFAULT when required."""
        if self._default is NO_DEFAULT and not self.info.is_required():
            self._default = self.info.get_default(call_default_factory=True, validated_data={})
        return self._default

    @property
    def shown_default(self) -> Any:
        """The default to show, not to compose with: as declared, not deep-copied as `default`
        is (most of the cost of drawing help's defaults), unless a factory makes it."""
        if self.info.default_factory is not None:
            return self.default
        return NO_DEFAULT if self.info.is_required() else self.info.default

    @property
    def description(self) -> str:
        """`Field(description=)`, else the docstring under the field, else (a section) the
        first paragraph of its class's docstring; on one line."""
        from compose._schema.docstrings import field_docstring, one_line  # noqa: PLC0415  # help

        if self.info.description:
            return one_line(self.info.description)
        found = field_docstring(self.owner, self.name)  # kept on one line
        return found or _class_summary(innermost(self.shape))

    @property
    def also(self) -> list[str]:
        """The field's other names (validation aliases), as flags name them."""
        return [key for key, name in aliases_of(self.owner).items() if name == self.name]


def _class_summary(shape: Shape) -> str:
    """The first paragraph of a section class's own docstring (not one it inherits), for a
    section, or a list or dict of sections."""
    if not shape.is_section:
        return ""
    models = [shape.model] if shape.model is not None else [m for _, m in shape.variants]
    if len(models) != 1 or models[0] is None:
        return ""
    from compose._schema.docstrings import one_line  # noqa: PLC0415  # help: see `description`

    doc = models[0].__dict__.get("__doc__") or ""
    return one_line(doc.strip().split("\n\n")[0])


class ModelPlan:
    """A model's fields, planned once per class (`plan_of`, kept on the class)."""

    def __init__(
        self,
        model: type[BaseModel],
        fields: dict[str, FieldPlan],
    ) -> None:
        self.model = model
        self.fields = fields


@memoize
def plan_of(model: type[BaseModel]) -> ModelPlan:
    check_model(model)  # once per class: memoized
    fields = {
        name: FieldPlan(model, name, info, shape_of_field(info))
        for name, info in model.model_fields.items()
    }
    return ModelPlan(model, fields)


def any_field_below(
    model: type[BaseModel],
    hit: Callable[[FieldPlan], bool],
    below: Callable[[Shape], Iterable[type[BaseModel]]] = section_models,
) -> bool:
    """Whether a field of `model`, or of a section class below it, satisfies `hit`."""
    return any(
        hit(plan)
        for current in models_below(model, below)
        for plan in plan_of(current).fields.values()
    )


def models_below(
    model: type[BaseModel], below: Callable[[Shape], Iterable[type[BaseModel]]] = section_models
) -> Iterator[type[BaseModel]]:
    """`model` and every section class below it, each once (so recursive schemas end); `below`
    names the classes a field leads into."""
    seen: set[type[BaseModel]] = set()
    stack = [model]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        yield current
        for plan in plan_of(current).fields.values():
            stack.extend(below(plan.shape))


@memoize
def tag_names(model: type[BaseModel]) -> frozenset[str]:
    """What the last segment of a flag that sets a union's tag can be: every discriminator field
    name below `model`, and every old key of a rename that leads to a field of such a name. The
    CLI node applies tags first, and a flag whose last segment is none of these need not be
    resolved to find out that it is not one."""
    tags: set[str] = set()
    renames: set[tuple[str, str]] = set()  # (old key, the last segment of its new path)
    for current in models_below(model):
        renames.update((old, new[-1]) for old, new in renames_of(current).items())
        for plan in plan_of(current).fields.values():
            tag = innermost(plan.shape).tag
            if tag:
                tags.add(tag)
    return frozenset(tags | {old for old, last in renames if last in tags})


RENAMES_ATTR = "__compose_renames__"
MIGRATIONS_ATTR = "__compose_migrations__"  # a root schema's `versioned` steps, or None


def renames_of(model: type[BaseModel]) -> dict[str, tuple[str, ...]]:
    """Old key -> new path (relative to `model`), as declared with `renamed`."""
    found: dict[str, tuple[str, ...]] = getattr(model, RENAMES_ATTR, {})
    return found


def field_name(model: type[BaseModel], segment: str) -> str | None:
    """The field a CLI or override segment names: kebab-case or snake_case, by its name or by
    one of its validation aliases (`AliasChoices("seed", "random_seed")`)."""
    fields = model.model_fields
    if segment in fields:
        return segment
    snake = snake_case(segment)
    if snake in fields:
        return snake
    aliases = aliases_of(model)
    return aliases.get(segment) or aliases.get(snake)


@memoize
def aliases_of(model: type[BaseModel]) -> dict[str, str]:
    """Every other key a field of `model` is validated under -> the field's name: its
    `validation_alias` names (plain strings; alias paths are no keys) and its `alias`.

    Composition keys a field by its name, whichever name a node used, so that nodes that spell
    it differently merge into one value (`compose._schema.prepare` gives Pydantic the key it
    takes)."""
    found: dict[str, str] = {}
    for name, info in model.model_fields.items():
        for key in input_keys(info):
            if key != name:
                found.setdefault(key, name)
    return found


def input_keys(info: FieldInfo) -> list[str]:
    """The keys Pydantic validates a field under, the one it prefers first."""
    alias = info.validation_alias
    choices = getattr(alias, "choices", None)
    keys = [c for c in (choices if choices is not None else [alias]) if isinstance(c, str)]
    if not keys and isinstance(info.alias, str):
        keys = [info.alias]
    return keys


def current_variant(shape: Shape, node: Any, default: Any) -> type[BaseModel] | None:
    """The variant a union section has so far: the tag composed so far, else the default's."""
    if shape.model is not None:
        return shape.model
    if shape.tag is None:
        return None
    if isinstance(node, dict) and shape.tag in node:
        return shape.variant(node[shape.tag])
    if isinstance(default, BaseModel):
        return type(default)
    return None


def default_tag(shape: Shape, default: Any) -> Any:
    if shape.tag and isinstance(default, BaseModel):
        return getattr(default, shape.tag, None)
    return None


def field_default(model: type[BaseModel], name: str) -> Any:
    """The class default of field `name` of `model` (NO_DEFAULT when it is required).

    Below a section that a node sets, defaults are always the class's, never those of the
    section's default instance (CONTRACT §7 "Layers"): the section is validated from what the
    nodes set on top of its class's field defaults, as Pydantic validates a dict. The default
    instance stands whole only where no node sets anything in it.
    """
    return plan_of(model).fields[name].default


def section_model(shape: Shape, node: Any, default: Any, name: str) -> type[BaseModel] | None:
    """The model whose field `name` a section path continues into."""
    model = current_variant(shape, node, default)
    if model is not None or shape.kind is not Kind.UNION:
        return model
    for _, variant in shape.variants:  # no variant chosen yet: the first one with that field
        if name in variant.model_fields:
            return variant
    return None


_SECRET_TYPES = (SecretStr, SecretBytes)  # loaded with BaseModel: naming them here costs nothing


def is_secret(annotation: Any) -> bool:
    """Whether a field's type is (or may be) `SecretStr` or `SecretBytes`."""
    if annotation in _SECRET_TYPES:
        return True
    return any(is_secret(arg) for arg in getattr(annotation, "__args__", ()))


def declares_field(root: Shape, segments: list[str]) -> bool:
    """Whether the dotted key `segments` names a field through the schema's models alone (no
    dict key, list index or union on the way): a key the schema gives every config of it."""
    shape = root
    for segment in segments:
        if shape.kind is not Kind.MODEL or shape.model is None:
            return False
        field = plan_of(shape.model).fields.get(segment)
        if field is None:
            return False
        shape = field.shape
    return True
