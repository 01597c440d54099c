"""What an annotation means to composition: its `Shape`.

Merging, CLI conversion and binding need only a few facts about a type: is it a section (a
model), a choice of sections (a discriminated union), a list, a dict, a bool, text, another
scalar, or anything; does it admit None. `shape_of` computes them once per annotation of
built-in types and per model class; others once per field (a class's plan is made once).
"""

from __future__ import annotations

import enum
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import PurePath
from typing import Any, ClassVar, Literal, Union

from pydantic import BaseModel, Discriminator
from pydantic.fields import FieldInfo

from compose._schema.memo import MEMO_ATTR, memoize
from compose._schema.strategies import Merge, strategy_in, strategy_of


class Kind:
    """What an annotation is to composition: `Kind.LIST`, compared with `is`.

    Eight constants of a plain class, not an `Enum`: defining an enum costs 0.8 M instructions
    (callgrind), paid by every schema import and every `--help`; this costs a tenth of that."""

    __slots__ = ("name",)

    ANY: ClassVar[Kind]
    BOOL: ClassVar[Kind]
    STR: ClassVar[Kind]
    SCALAR: ClassVar[Kind]
    MODEL: ClassVar[Kind]
    UNION: ClassVar[Kind]
    LIST: ClassVar[Kind]
    DICT: ClassVar[Kind]

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"Kind.{self.name}"


Kind.ANY = Kind("ANY")
Kind.BOOL = Kind("BOOL")
Kind.STR = Kind("STR")
Kind.SCALAR = Kind("SCALAR")
Kind.MODEL = Kind("MODEL")
Kind.UNION = Kind("UNION")
Kind.LIST = Kind("LIST")
Kind.DICT = Kind("DICT")


class Shape:
    """The facts about one annotation that composition uses. Shapes are built once per
    annotation and never changed: `replace` makes a new one.

    A plain class (see `compose._schema.plan` on the cost of defining classes): a named tuple of
    twelve fields costs 8x as much to define, paid by every schema import and every `--help`.
    Shapes are never compared, and hashed only by identity: what is computed about a shape is
    kept on it (`compose._schema.memo`), and lives as long as the plan that holds it."""

    def __init__(
        self,
        kind: Kind,
        *,
        nullable: bool = False,
        model: type[BaseModel] | None = None,  # MODEL
        tag: str | None = None,  # UNION: the discriminator field
        variants: tuple[tuple[str, type[BaseModel]], ...] = (),  # UNION: tag value -> model
        item: Shape | None = None,  # LIST: the element, DICT: the value
        members: tuple[Any, ...] = (),  # SCALAR: member types, or Literal values
        literal: bool = False,  # SCALAR: members are Literal values
        accepts_str: bool = False,  # text that is not None stays text
        label: str = "",  # how --help shows the type
        alternative: Shape | None = None,  # MODEL/UNION: what a non-table value is
        merge: Merge | None = None,  # LIST: how a later node's list merges (None: replaces)
    ) -> None:
        self.kind = kind
        self.nullable = nullable
        self.model = model
        self.tag = tag
        self.variants = variants
        self.item = item
        self.members = members
        self.literal = literal
        self.accepts_str = accepts_str
        self.label = label
        self.alternative = alternative
        self.merge = merge
        # asked of every field by every walk: attributes, not properties
        self.is_section = kind is Kind.MODEL or kind is Kind.UNION
        self.sections = _sections_held(self)

    def replace(self, **changes: Any) -> Shape:
        """A copy with `changes` (field names as in `__init__`)."""
        unknown = changes.keys() - self.__dict__.keys()
        if unknown or "kind" in changes or "is_section" in changes:
            raise TypeError(f"Shape.replace takes no {', '.join(sorted(changes))}")
        new = Shape.__new__(Shape)
        new.__dict__.update(self.__dict__, **changes)
        new.__dict__.pop(MEMO_ATTR, None)  # what was learnt of this shape is not of the new one
        new.sections = _sections_held(new)
        return new

    def __repr__(self) -> str:
        return f"Shape({self.label or self.kind.name})"

    def variant(self, name: object) -> type[BaseModel] | None:
        for tag, model in self.variants:
            if tag == name:
                return model
        return None


# A file node's keys are a table's: it loads where a table goes (`--KEY @ FILE`)
NOT_A_SECTION = "is a value, not a section: a file can only be loaded into a section"


def takes_a_file(shape: Shape) -> bool:
    """Whether a file can be loaded at a key of this shape: a section, a union of them, a dict,
    an untyped key."""
    return shape.kind in (Kind.MODEL, Kind.UNION, Kind.DICT, Kind.ANY)


def innermost(shape: Shape) -> Shape:
    """What a shape holds through lists and dicts (itself, if neither)."""
    while shape.kind in (Kind.LIST, Kind.DICT) and shape.item is not None:
        shape = shape.item
    return shape


def section_models(shape: Shape) -> tuple[type[BaseModel], ...]:
    """The model classes a shape holds, through lists, dicts and unions (known when it is made:
    walks of a schema ask it of every field)."""
    return shape.sections


def _sections_held(shape: Shape) -> tuple[type[BaseModel], ...]:
    shape = innermost(shape)
    models = (shape.model,) if shape.model is not None else ()
    return models + tuple(model for _, model in shape.variants)


ANY = Shape(Kind.ANY, nullable=True, accepts_str=True, label="VALUE")
_NONE_TYPES = (type(None), None)


def is_model(tp: object) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def shape_of_field(info: FieldInfo) -> Shape:
    """The shape of a model field: its annotation plus a `Field(discriminator=...)`."""
    annotation: Any = info.annotation if info.annotation is not None else Any
    discriminator = info.discriminator
    if discriminator is not None and isinstance(discriminator, Discriminator):
        discriminator = None  # a callable discriminator: let the union tell by `type` fields
    shape = shape_of(annotation, discriminator)
    if not info.metadata:  # most fields: Pydantic moves a field's `Annotated` metadata here
        return shape
    strategy = strategy_in(info.metadata)
    return shape if strategy is None else with_strategy(shape, strategy, annotation)


def shape_of(annotation: Any, discriminator: str | None = None) -> Shape:
    """The shape of an annotation, made once for annotations of built-in types only (`int`,
    `str | None`, `list[str]`: most fields) and for model classes (kept on the class). Any other
    is made each time it is asked, which is once per field: plans are made once a class, and a
    cache keyed by `list[Section]` would keep `Section` alive for ever."""
    key = (annotation, discriminator)
    try:
        return _BUILTIN_SHAPES[key]
    except KeyError:
        pass
    except TypeError:  # an unhashable annotation: never kept
        return _shape_of(annotation, discriminator)
    shape = _shape_of(annotation, discriminator)
    if _of_builtins(annotation):
        if len(_BUILTIN_SHAPES) >= _MAX_BUILTIN_SHAPES:
            _BUILTIN_SHAPES.clear()  # a bound for processes that make annotations on the fly
        _BUILTIN_SHAPES[key] = shape
    return shape


# (annotation, discriminator) -> its shape, for annotations of built-in types only: plain
# values, which hold nothing of the user's (`_of_builtins`).
_BUILTIN_SHAPES: dict[tuple[Any, str | None], Shape] = {}
_MAX_BUILTIN_SHAPES = 4096
_LITERAL_TYPES = (str, int, bool, bytes, type(None))


def _of_builtins(annotation: Any) -> bool:
    """Whether an annotation is made of built-in types and literal text and numbers only
    (`int`, `list[str]`, `Literal["a", 1]`, `str | None`): nothing a user defines, so nothing
    a cache keyed by it keeps alive. `Annotated` metadata may be anything: never."""
    origin = typing.get_origin(annotation)
    if origin is None:
        return (
            annotation is Any
            or annotation is None
            or annotation is Ellipsis  # `tuple[int, ...]`
            or (isinstance(annotation, type) and _builtin(annotation))
        )
    args = typing.get_args(annotation)
    if origin is Literal:
        return all(type(value) in _LITERAL_TYPES for value in args)
    known = origin is Union or origin is types.UnionType or _builtin(origin)
    return known and all(_of_builtins(arg) for arg in args)


def _builtin(tp: Any) -> bool:
    return getattr(tp, "__module__", None) == "builtins"


def _shape_of(annotation: Any, discriminator: str | None) -> Shape:
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:  # asked once here: most annotations are not
        strategy = strategy_of(annotation)
        if strategy is not None:
            inner = shape_of(_without_strategies(annotation), discriminator)
            return with_strategy(inner, strategy, annotation)
        annotation, discriminator = _unwrap_annotated(annotation, discriminator)
        origin = typing.get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        return _union_shape(typing.get_args(annotation), discriminator)
    if annotation in _NONE_TYPES:
        return Shape(Kind.SCALAR, nullable=True, members=(type(None),), label="None")
    return _plain_shape(annotation, origin)


def with_strategy(shape: Shape, strategy: Merge, annotation: Any) -> Shape:
    """A list shape that merges by `strategy`; a strategy on anything else is a schema bug."""
    if shape.kind is not Kind.LIST:
        raise TypeError(f"{strategy!r} is for list fields, not {annotation!r}")
    key = strategy.key
    item = shape.item or ANY
    if key is not None and item.kind is not Kind.ANY and item.kind is not Kind.DICT:
        models = section_models(item) if item.is_section else ()
        if not models:
            raise TypeError(f"{strategy!r} merges lists of tables, not {annotation!r}")
        if not any(key in model.model_fields for model in models):
            raise TypeError(f"{strategy!r}: the elements of {annotation!r} have no field {key!r}")
    return shape.replace(merge=strategy)


def _without_strategies(annotation: Any) -> Any:
    """`Annotated[T, Merge.x, *rest]` -> `Annotated[T, *rest]` (T alone when nothing is left)."""
    inner, *metadata = typing.get_args(annotation)
    rest = tuple(meta for meta in metadata if not isinstance(meta, Merge))
    if not rest:
        return inner
    args = (inner, *rest)
    return typing.Annotated[args]


def _unwrap_annotated(annotation: Any, discriminator: str | None) -> tuple[Any, str | None]:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation, *metadata = typing.get_args(annotation)
        for meta in metadata:
            found = getattr(meta, "discriminator", None)
            if isinstance(found, str):
                discriminator = found
    return annotation, discriminator


def _plain_shape(annotation: Any, origin: Any) -> Shape:
    if annotation is Any or annotation is object or isinstance(annotation, typing.TypeVar):
        return ANY
    if origin is Literal:
        return _literal_shape(typing.get_args(annotation))
    if is_model(annotation):
        return model_shape(annotation)
    container = origin or annotation
    if isinstance(container, type) and issubclass(container, Mapping):
        args = typing.get_args(annotation)
        item = shape_of(args[1]) if len(args) == 2 else ANY
        return Shape(Kind.DICT, item=item, label="JSON")
    if isinstance(container, type) and _is_sequence(container):
        return Shape(Kind.LIST, item=_item_shape(container, annotation), label="LIST")
    return _scalar_shape(annotation)


def check_model(model: object) -> None:
    """A schema is a Pydantic model class: anything else given as `schema=` is the caller's
    mistake, named as such (it met `model_fields` deep inside as an AttributeError)."""
    if not (isinstance(model, type) and issubclass(model, BaseModel)):
        shown = model.__name__ if isinstance(model, type) else repr(model)
        raise TypeError(f"a schema is a Pydantic model class (a BaseModel subclass), not {shown}")


@memoize
def model_shape(model: type[BaseModel]) -> Shape:
    """The shape of a model class, one per class: a schema's root shape keeps what was learnt
    walking it (`compose._schema.walk`)."""
    check_model(model)  # once per class: memoized
    return Shape(Kind.MODEL, model=model, label=model.__name__)


def _is_sequence(container: type) -> bool:
    return issubclass(container, (Sequence, set, frozenset)) and not issubclass(
        container, (str, bytes)
    )


def _item_shape(container: type, annotation: Any) -> Shape:
    args = typing.get_args(annotation)
    if not args:
        return ANY
    if issubclass(container, tuple) and not (len(args) == 2 and args[1] is Ellipsis):
        return ANY  # a fixed-length tuple mixes types: leave each element to Pydantic
    return shape_of(args[0])


def _literal_shape(values: tuple[Any, ...]) -> Shape:
    accepts_str = any(isinstance(value, str) for value in values)
    label = "{" + ",".join(str(value) for value in values) + "}"
    return Shape(Kind.SCALAR, members=values, literal=True, accepts_str=accepts_str, label=label)


def _scalar_shape(annotation: Any) -> Shape:
    if annotation is bool:
        return Shape(Kind.BOOL, label="BOOL")
    if annotation is str:
        return Shape(Kind.STR, accepts_str=True, label="STR")
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        choices = ",".join(str(member.value) for member in annotation)
        return Shape(Kind.SCALAR, members=(annotation,), label="{" + choices + "}")
    accepts_str = isinstance(annotation, type) and issubclass(annotation, PurePath)
    name = getattr(annotation, "__name__", str(annotation))
    return Shape(Kind.SCALAR, members=(annotation,), accepts_str=accepts_str, label=name.upper())


def _union_shape(args: tuple[Any, ...], discriminator: str | None) -> Shape:
    nullable = any(arg in _NONE_TYPES for arg in args)
    members = [arg for arg in args if arg not in _NONE_TYPES]
    if len(members) == 1:
        inner = shape_of(members[0], discriminator)
        return _with_null(inner) if nullable else inner
    models = [m for m in (_unwrap_annotated(m, None)[0] for m in members) if is_model(m)]
    others = [m for m in members if not is_model(_unwrap_annotated(m, None)[0])]
    if not models:
        return _scalar_union([shape_of(member) for member in others], nullable)
    section = (
        _model_union(models, discriminator, nullable)
        if len(models) > 1
        else (_with_null(shape_of(models[0])) if nullable else shape_of(models[0]))
    )
    if not others:
        return section
    # `Literal["policy"] | Endpoint`: a table is the section, anything else the alternative
    alternative = _scalar_union([shape_of(member) for member in others], nullable)
    label = f"{alternative.label}|{section.label}"
    return section.replace(
        alternative=alternative, label=label, accepts_str=alternative.accepts_str
    )


def _with_null(shape: Shape) -> Shape:
    label = shape.label if shape.label.endswith("|None") else f"{shape.label}|None"
    return shape.replace(nullable=True, label=label)


def _model_union(models: list[Any], discriminator: str | None, nullable: bool) -> Shape:
    tag = discriminator or _common_literal_field(models)
    if tag:
        variants = tuple((_tag_value(model, tag), model) for model in models)
        label = "{" + ",".join(name for name, _ in variants) + "}"
    else:  # a plain `A | B`: Pydantic's smart mode chooses; variants are named by class
        variants = tuple((model.__name__, model) for model in models)
        label = "|".join(name for name, _ in variants)
    shape = Shape(Kind.UNION, tag=tag, variants=variants, label=label)
    return _with_null(shape) if nullable else shape


def _common_literal_field(models: list[Any]) -> str | None:
    """The field every model declares as a one-value Literal (`type` preferred): the tag."""
    candidates = ["type", *sorted(set.intersection(*(set(m.model_fields) for m in models)))]
    for name in candidates:
        if all(_literal_values(m, name) for m in models):
            return str(name)
    return None


def _literal_values(model: type[BaseModel], name: str) -> tuple[Any, ...]:
    info = model.model_fields.get(name)
    if info is None:
        return ()
    annotation, _ = _unwrap_annotated(info.annotation, None)
    return typing.get_args(annotation) if typing.get_origin(annotation) is Literal else ()


def _tag_value(model: type[BaseModel], tag: str) -> str:
    values = _literal_values(model, tag)
    return str(values[0]) if values else model.__name__


def _scalar_union(shapes: list[Shape], nullable: bool) -> Shape:
    if all(s.kind in (Kind.SCALAR, Kind.STR, Kind.BOOL) for s in shapes):
        members = tuple(m for s in shapes for m in (s.members or _kind_member(s)))
        literal = all(s.literal for s in shapes)
        accepts_str = any(s.accepts_str for s in shapes)
        label = "|".join(s.label for s in shapes) + ("|None" if nullable else "")
        return Shape(
            Kind.SCALAR,
            nullable=nullable,
            members=members,
            literal=literal,
            accepts_str=accepts_str,
            label=label,
        )
    label = "|".join(s.label for s in shapes)
    return Shape(Kind.ANY, nullable=nullable, accepts_str=True, label=label)


def _kind_member(shape: Shape) -> tuple[Any, ...]:
    return (bool,) if shape.kind is Kind.BOOL else (str,)
