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

import functools
import itertools
import keyword
import operator
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
    return Literal[tuple(values)], st.sampled_from(values)  # type: ignore[return-value]


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
    annotation = Annotated[union, Field(discriminator=TAG)]
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
