"""Hypothesis strategies for config schemas and their values (one module, as attrs does).

`schemas()` draws a `(schema, values)` pair: `schema` a `compose.BaseConfig` subclass built with
`pydantic.create_model` (nested sections, optional sections, lists of models, a discriminated
union on `type`, scalars of every kind the contract names), and `values` a strategy of valid
instances of it. Defaults are drawn from the same values, so a dump that drops a value equal to
the default, or a `None` that overrides a non-None default, is caught by a round trip.

Sizes are kept small (depth 2, at most four fields a section and six at the root, two
elements a list) so that a
hundred examples take a few seconds.
"""

from __future__ import annotations

import enum
import functools
import itertools
import keyword
import operator
from pathlib import PurePosixPath
from typing import Annotated, Any, Literal

from hypothesis import strategies as st
from pydantic import Field, create_model

from compose import BaseConfig

# A field: its annotation and a strategy of its valid values.
FieldKind = tuple[Any, st.SearchStrategy[Any]]

MAX_DEPTH = 2
MAX_ITEMS = 2
TAG = "type"

_RESERVED = set(dir(BaseConfig)) | {TAG}
_counter = itertools.count()

# --- scalars -----------------------------------------------------------------------------------

# Pieces of text that TOML writers and interpolation escapes get wrong, glued with random text.
TRICKY_TEXT = (
    "",
    "None",
    "none",
    "null",
    "???",
    "\\???",
    "${x}",
    "${",
    "$",
    "{",
    "}",
    "\\${x}",
    "\\\\${a.b}",
    "${oc.env:HOME}",
    "\\",
    '"',
    "'",
    "'''",
    '"""',
    "\n",
    "\r\n",
    "\t",
    "\x00",
    "\x1f",
    "\x7f",
    "#",
    "=",
    "[a]",
    "é",
    "日本",
    "🦀",
    " ",
)

texts: st.SearchStrategy[str] = st.lists(
    st.sampled_from(TRICKY_TEXT) | st.text(st.characters(exclude_categories=["Cs"]), max_size=3),
    max_size=4,
).map("".join)

ints = st.integers(min_value=-(2**63), max_value=2**63 - 1)
# NaN is excluded by the contract (§7): it never equals itself, so no dump can round-trip it.
floats = st.floats(allow_nan=False, allow_infinity=True) | st.sampled_from(
    [float("inf"), float("-inf"), 0.0, -0.0, 1e-5, 1e300, 5e-324]
)


def _literal(values: list[Any]) -> FieldKind:
    return Literal[tuple(values)], st.sampled_from(values)


literal_values = st.lists(
    st.sampled_from(["a", "b c", "x-y", "${no}", "é"]), min_size=1, max_size=3, unique=True
) | st.lists(st.sampled_from([0, 1, 2, -7]), min_size=1, max_size=3, unique=True)

scalar_kinds: st.SearchStrategy[FieldKind] = st.one_of(
    st.just((int, ints)),
    st.just((float, floats)),
    st.just((bool, st.booleans())),
    st.just((str, texts)),
    st.just((int | None, st.none() | ints)),
    st.just((float | None, st.none() | floats)),
    st.just((bool | None, st.none() | st.booleans())),
    # In a `str | None` field the text "None" becomes None (contract §7): it cannot round-trip.
    st.just((str | None, st.none() | texts.filter(lambda t: t != "None"))),
    literal_values.map(_literal),
    st.just((list[int], st.lists(ints, max_size=3))),
    st.just((list[int] | None, st.none() | st.lists(ints, max_size=3))),
    st.just((dict[str, int], st.dictionaries(texts, ints, max_size=3))),
)

# --- names -------------------------------------------------------------------------------------


def _usable(name: str) -> bool:
    return not (keyword.iskeyword(name) or name in _RESERVED or name.startswith("model_"))


field_names = (
    st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True)
    | st.sampled_from(["inf", "nan", "true", "false", "none", "lr", "seed"])
).filter(_usable)


def _class_name(prefix: str) -> str:
    return f"{prefix}{next(_counter)}"


# --- models ------------------------------------------------------------------------------------


@st.composite
def models(
    draw: st.DrawFn,
    depth: int = MAX_DEPTH,
    tag: str | None = None,
    fields: tuple[int, int] = (1, 4),
) -> tuple[type[BaseConfig], st.SearchStrategy[BaseConfig]]:
    """A model class with `fields` (min, max) fields and a strategy of its instances. With `tag`,
    the model is a union variant: its `type` field is `Literal[tag]`, defaulting to it."""
    least, most = fields
    names = draw(st.lists(field_names, min_size=least, max_size=most, unique=True))
    definitions: dict[str, Any] = {}
    values: dict[str, st.SearchStrategy[Any]] = {}
    if tag is not None:
        definitions[TAG] = (Literal[tag], tag)
    for name in names:
        annotation, strategy = draw(field_kinds(depth))
        has_default = draw(st.booleans())
        definitions[name] = (annotation, draw(strategy) if has_default else ...)
        values[name] = strategy
    model = create_model(_class_name("Model"), __base__=BaseConfig, **definitions)
    return model, st.builds(model, **values)


def _optional_section(pair: tuple[type[BaseConfig], st.SearchStrategy[Any]]) -> FieldKind:
    model, values = pair
    return model | None, st.none() | values


def _model_list(pair: tuple[type[BaseConfig], st.SearchStrategy[Any]]) -> FieldKind:
    model, values = pair
    return list[model], st.lists(values, max_size=MAX_ITEMS)  # type: ignore[valid-type]


@st.composite
def discriminated_unions(draw: st.DrawFn, depth: int) -> FieldKind:
    """`Annotated[A | B, Field(discriminator="type")]` over two or three variants."""
    tags = draw(st.lists(st.sampled_from(["adamw", "muon", "sgd"]), min_size=2, unique=True))
    variants = [draw(models(depth, tag=tag)) for tag in tags]
    union = functools.reduce(operator.or_, [model for model, _ in variants])
    annotation = Annotated[union, Field(discriminator=TAG)]  # type: ignore[valid-type]  # built here
    return annotation, st.one_of([values for _, values in variants])


def field_kinds(depth: int) -> st.SearchStrategy[FieldKind]:
    """Scalars at the bottom; above it, also sections of every shape."""
    if depth <= 0:
        return scalar_kinds
    sub = models(depth - 1)
    return st.one_of(
        scalar_kinds,
        scalar_kinds,
        sub,
        sub.map(_optional_section),
        sub.map(_model_list),
        discriminated_unions(depth - 1),
    )


@st.composite
def schemas(draw: st.DrawFn) -> tuple[type[BaseConfig], st.SearchStrategy[BaseConfig]]:
    """A root schema and a strategy of its instances."""
    return draw(models(MAX_DEPTH, fields=(3, 6)))


@st.composite
def instances(draw: st.DrawFn) -> BaseConfig:
    """A value of a freshly drawn schema."""
    _, values = draw(schemas())
    return draw(values)


# --- richer schemas, and schema-less TOML documents (test_laws.py) -----------------------------
#
# `rich_schemas()` adds to `schemas()` what a schema can also hold: unicode field names, dicts of
# text, floats, lists and models, lists of union variants, optional unions, enums and paths.
# `documents()` draws plain dicts as a TOML file holds them, for the schema-less laws.


class Colour(str, enum.Enum):
    red = "red"
    dark_blue = "dark blue"


class Level(enum.IntEnum):
    low = 1
    high = 2


rich_field_names = (field_names | st.sampled_from(["é", "日本", "ñame", "größe"])).filter(_usable)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)

rich_scalar_kinds: st.SearchStrategy[FieldKind] = st.one_of(
    scalar_kinds,
    st.just((dict[str, str], st.dictionaries(texts, texts, max_size=3))),
    st.just((dict[str, float | None], st.dictionaries(texts, st.none() | floats, max_size=3))),
    st.just(
        (dict[str, list[str]], st.dictionaries(texts, st.lists(texts, max_size=2), max_size=2))
    ),
    st.just((list[str], st.lists(texts, max_size=3))),
    st.just((list[float], st.lists(floats, max_size=3))),
    st.just((list[bool], st.lists(st.booleans(), max_size=3))),
    st.just((list[int | None], st.lists(st.none() | ints, max_size=3))),
    st.just((Colour, st.sampled_from(Colour))),
    st.just((Level, st.sampled_from(Level))),
    st.just((Colour | None, st.none() | st.sampled_from(Colour))),
    st.just((PurePosixPath, st.sampled_from([PurePosixPath("a/b"), PurePosixPath("é.toml")]))),
)


@st.composite
def rich_models(
    draw: st.DrawFn,
    depth: int = MAX_DEPTH,
    tag: str | None = None,
    fields: tuple[int, int] = (1, 4),
) -> tuple[type[BaseConfig], st.SearchStrategy[BaseConfig]]:
    """As `models`, over `rich_field_kinds`."""
    least, most = fields
    names = draw(st.lists(rich_field_names, min_size=least, max_size=most, unique=True))
    definitions: dict[str, Any] = {}
    values: dict[str, st.SearchStrategy[Any]] = {}
    if tag is not None:
        definitions[TAG] = (Literal[tag], tag)
    for name in names:
        annotation, strategy = draw(rich_field_kinds(depth))
        has_default = draw(st.booleans())
        definitions[name] = (annotation, draw(strategy) if has_default else ...)
        values[name] = strategy
    model = create_model(_class_name("Rich"), __base__=BaseConfig, **definitions)
    return model, st.builds(model, **values)


@st.composite
def rich_unions(draw: st.DrawFn, depth: int) -> tuple[Any, list[st.SearchStrategy[Any]]]:
    tags = draw(st.lists(st.sampled_from(["adamw", "muon", "sgd"]), min_size=2, unique=True))
    variants = [draw(rich_models(depth, tag=tag)) for tag in tags]
    union = functools.reduce(operator.or_, [model for model, _ in variants])
    return Annotated[union, Field(discriminator=TAG)], [values for _, values in variants]


def _optional_union(pair: tuple[Any, list[st.SearchStrategy[Any]]]) -> FieldKind:
    annotation, values = pair
    return annotation | None, st.none() | st.one_of(values)


def _union_list(pair: tuple[Any, list[st.SearchStrategy[Any]]]) -> FieldKind:
    annotation, values = pair
    return list[annotation], st.lists(st.one_of(values), max_size=MAX_ITEMS)  # type: ignore[valid-type]


def _model_dict(pair: tuple[type[BaseConfig], st.SearchStrategy[Any]]) -> FieldKind:
    model, values = pair
    return dict[str, model], st.dictionaries(texts, values, max_size=MAX_ITEMS)  # type: ignore[valid-type]


def rich_field_kinds(depth: int) -> st.SearchStrategy[FieldKind]:
    if depth <= 0:
        return rich_scalar_kinds
    sub = rich_models(depth - 1)
    unions = rich_unions(depth - 1)
    return st.one_of(
        rich_scalar_kinds,
        rich_scalar_kinds,
        sub,
        sub.map(_optional_section),
        sub.map(_model_list),
        sub.map(_model_dict),
        unions.map(lambda pair: (pair[0], st.one_of(pair[1]))),
        unions.map(_optional_union),
        unions.map(_union_list),
    )


@st.composite
def rich_schemas(draw: st.DrawFn) -> tuple[type[BaseConfig], st.SearchStrategy[BaseConfig]]:
    return draw(rich_models(MAX_DEPTH, fields=(3, 6)))


@st.composite
def rich_instances(draw: st.DrawFn) -> BaseConfig:
    _, values = draw(rich_schemas())
    return draw(values)


# Schema-less documents: what `compose([files])` merges. `MANDATORY` stands for a `???` marker
# (written into the file as "???" by `document_text`; any other "???" text is escaped literal).
MANDATORY = "\x00mandatory\x00"
document_keys = st.sampled_from(
    ["a", "b", "c", "a.b", "a-b", "é", "日本", "None", "type", "???", "${a}", " ", ""]
)
document_scalars = st.one_of(ints, floats, st.booleans(), texts, st.none())


def documents(mandatory: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    """A TOML document as a dict: tables, arrays (of tables too), every scalar kind TOML has
    (but datetimes), None (written "None"), and now and then a `???` marker."""
    leaves = document_scalars | st.just(MANDATORY) if mandatory else document_scalars
    values = st.recursive(
        leaves,
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(document_keys, inner, max_size=3)
        ),
        max_leaves=8,
    )
    return st.dictionaries(document_keys, values, max_size=4)
