"""Lists merged by their field's strategy (`Merge.extend`, `extend_unique`, `keyed`), and the
command-line append form `--l+ VALUE...`.

The first node that sets a strategy list replaces the field's class default, as it would a plain
list; every later node merges into what is composed by then (`tags = ["b"]` over a file's
`["a"]` gives `["a", "b"]` under `Merge.extend`). So a dump (`to_toml`) loads back equal: its
lists are not merged onto the defaults a second time. Only `--l+ VALUE...` adds to the class
default when no node set the list: it says "append to what is there". A table stored where
nothing was composed is walked when its schema holds such a list below (`settle`), so its
elements are recorded one by one; a schema without strategies never comes here.

Origins: every element keeps the node that wrote it. An element a strategy puts at another
index than its node wrote it at is recorded as `Shifted`, so `b.toml:7` still names its line.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel

from compose._input.origins import DEFAULT, EnvSource, FileSource, Origin, Origins, Shifted
from compose._merge.defaults import to_plain
from compose._schema.coerce import convert, convert_text, untyped
from compose._schema.memo import memoize
from compose._schema.plan import NO_DEFAULT, any_field_below, plan_of
from compose._schema.shape import ANY, Kind, Shape, section_models
from compose._schema.strategies import Merge
from compose._schema.walk import Target
from compose._syntax import NONE_TEXT
from compose._tree import KeyPath, child, put
from compose.errors import ArgvError, ConfigValidationError


class Merger(Protocol):
    """What list merging asks of the table merger (`compose._merge.tables.Merger`), which
    calls into this module: elements merged by key are tables merged as any other, and a
    recording merger records who set what."""

    origins: Origins | None

    def record(self, path: KeyPath, origin: Origin, old: object = None) -> None: ...

    def forget(self, path: KeyPath, old: object) -> None: ...

    def show_key(self, path: KeyPath) -> str: ...

    def merge_table(
        self,
        dst: dict[str, Any],
        src: dict[str, Any],
        path: KeyPath,
        origin: Origin,
        shape: Shape,
        default: Any,
    ) -> None: ...


@memoize
def holds_strategies(shape: Shape) -> bool:
    """Whether a value of `shape` is, or may hold below, a list merged by a strategy."""
    return _declares(shape) or any(_model_holds(model) for model in section_models(shape))


def _declares(shape: Shape) -> bool:
    """A strategy on the shape, or on lists and dicts inside it (`dict[str, Annotated[...]]`)."""
    while shape.merge is None:
        if shape.kind not in (Kind.LIST, Kind.DICT) or shape.item is None:
            return False
        shape = shape.item
    return True


@memoize
def _model_holds(model: type[BaseModel]) -> bool:
    """Whether `model`, or a section class below it, has a strategy list (once per class)."""
    return any_field_below(model, lambda plan: _declares(plan.shape))


def merge_by_strategy(
    merger: Merger,
    dst: dict[str, Any],
    key: str,
    value: Any,
    old: Any,
    path: KeyPath,
    origin: Origin,
    shape: Shape,
    default: Any,
) -> bool:
    """A node's `value` for `dst[key]` (at `path`, of `shape`), where strategies apply below
    the table: whether it merged it (False: the plain rules apply).

    `value` is a list, or a table over what is not a table: the merger's `_by_strategy` has
    already sent scalars and tables onto tables down the plain rules."""
    if isinstance(value, list) and shape.merge is not None and isinstance(old, list):
        merge_list(merger, old, value, path, origin, shape.item or ANY, shape.merge)
        return True
    if not holds_strategies(shape):
        return False  # nothing to apply below
    missing = key not in dst
    if not missing:
        merger.forget(path, old)
    # A list over a value an earlier node set (None, text) starts empty; a table starts from
    # the defaults, as a section always does.
    below = default if missing or isinstance(value, dict) else NO_DEFAULT
    dst[key] = settle(merger, value, path, origin, shape, below)
    return True


def settle(
    merger: Merger, value: Any, path: KeyPath, origin: Origin, shape: Shape, default: Any
) -> Any:
    """`value` as stored where nothing was composed: strategy lists below merged with their
    class defaults (`default` is the one at `path`). Records who set it."""
    if isinstance(value, dict) and shape.kind is not Kind.LIST and holds_strategies(shape):
        fresh: dict[str, Any] = {}
        merger.record(path, origin)
        merger.merge_table(fresh, value, path, origin, shape, default)
        return fresh
    if isinstance(value, list) and shape.kind is Kind.LIST:
        item = shape.item or ANY
        if shape.merge is not None:
            # The first node replaces the class default, later ones merge into it: a dump of
            # the result then loads back equal (CONTRACT: to_toml round-trips), which merging
            # onto the default would break (an extended default would come back twice).
            return merge_list(merger, [], value, path, origin, item, shape.merge)
        if holds_strategies(item):
            merger.record(path, origin)
            return [
                settle(merger, v, (*path, i), origin, item, NO_DEFAULT) for i, v in enumerate(value)
            ]
    merger.record(path, origin)
    return value


def _default_list(default: Any) -> list[Any]:
    """A class default list as plain data, its elements reduced to what differs from their
    class's defaults: a keyed merge into one of them then sees only that (a union switched in
    it keeps none of the old variant's defaults, as in any section)."""
    return [_least(item) for item in default] if isinstance(default, (list, tuple)) else []


def _least(value: Any) -> Any:
    """Plain data that validates back to `value`, leaving out fields equal to their default
    (a discriminator is kept: it says which variant)."""
    if isinstance(value, BaseModel):
        fields = plan_of(type(value)).fields
        return {
            name: _least(getattr(value, name))
            for name, field in fields.items()
            if _is_tag(field.shape)
            or field.default is NO_DEFAULT
            or getattr(value, name) != field.default
        }
    if isinstance(value, (list, tuple)):
        return [_least(item) for item in value]
    if isinstance(value, dict):
        return {key: _least(item) for key, item in value.items()}
    return to_plain(value)


def _is_tag(shape: Shape) -> bool:
    return shape.literal and len(shape.members) == 1


def merge_list(
    merger: Merger,
    base: list[Any],
    new: list[Any],
    path: KeyPath,
    origin: Origin,
    item: Shape,
    strategy: Merge,
) -> list[Any]:
    """`new` (a node's list, as `origin` wrote it at `path`) merged into `base`, in place."""
    origins = merger.origins
    if origins is not None:  # `origin` becomes the list's: the elements there keep their own
        for index in range(len(base)):
            earlier = origins.lookup((*path, index))
            if earlier is not None:
                origins.set((*path, index), earlier)
        origins.set(path, origin)
    if strategy.key is not None:
        _merge_keyed(merger, base, new, path, origin, item, strategy.key)
        return base
    for index, element in enumerate(new):
        if strategy.mode == "extend_unique" and (element in base or element in new[:index]):
            continue
        at = (*path, len(base))
        base.append(
            settle(merger, element, at, _shift(origin, at, (*path, index)), item, NO_DEFAULT)
        )
    return base


def _shift(origin: Origin, at: KeyPath, was: KeyPath) -> Origin:
    """`origin`, for what it wrote at `was` and a strategy put at `at` (only a file's origins
    depend on the path: a flag's, a default's or a moved value's name no line below)."""
    if at == was or not isinstance(origin, (FileSource, Shifted)):
        return origin
    return Shifted(origin, at, was)


def _merge_keyed(
    merger: Merger,
    base: list[Any],
    new: list[Any],
    path: KeyPath,
    origin: Origin,
    item: Shape,
    key: str,
) -> None:
    """Elements whose `key` matches an earlier one deep-merge into it; others are appended."""
    for index, element in enumerate(new):
        written = (*path, index)
        if not isinstance(element, dict) or key not in element:
            raise ConfigValidationError(
                f"has no {key!r}: the elements of this list merge by {key}",
                key=merger.show_key(written),
                value=element,
                origin=origin.describe(written),
                hint=f"give the element its {key}",
            )
        found = _find(base, key, element[key])
        if found is None:
            at = (*path, len(base))
            base.append(settle(merger, element, at, _shift(origin, at, written), item, NO_DEFAULT))
        else:
            at = (*path, found)
            shifted = _shift(origin, at, written)
            merger.merge_table(base[found], element, at, shifted, item, NO_DEFAULT)


def _find(elements: list[Any], key: str, value: Any) -> int | None:
    for index, element in enumerate(elements):
        if isinstance(element, dict) and key in element and element[key] == value:
            return index
    return None


# --- the command-line append form ---------------------------------------------------------


def append_value(tokens: tuple[str, ...], target: Target, key: str, shown: str) -> list[Any]:
    """The elements `--l+ VALUE...` appends: each token one element, or one JSON array of them.

    An element of a list of tables is a JSON object; under `Merge.keyed("id")` a plain token
    is the key alone (`--env+ code` is `--env+ '{"id": "code"}'`).
    """
    shape = target.shape
    if shape.kind is not Kind.LIST and shape.kind is not Kind.ANY:
        raise ArgvError(
            f"is {shape.label}, not a list: only a list takes {shown}",
            key=key,
            value=" ".join(tokens),
            origin=shown,
        )
    if not tokens:
        raise ArgvError("expects values to append", key=key, origin=shown)
    if len(tokens) == 1 and tokens[0].startswith("["):
        found = convert(tokens, shape if shape.kind is Kind.LIST else _ANY_LIST, key, shown)
        return found if isinstance(found, list) else []
    item = shape.item or ANY
    keyed = shape.merge.key if shape.merge is not None else None
    return [
        _element(token, item, keyed, f"{key}.{index}", shown) for index, token in enumerate(tokens)
    ]


_ANY_LIST = Shape(Kind.LIST, item=ANY, label="LIST")


def _element(text: str, item: Shape, keyed: str | None, key: str, shown: str) -> Any:
    """One element: typed by the element's type; a table from a JSON object, or its key."""
    if item.is_section or item.kind is Kind.DICT:
        if text.startswith("{"):
            return untyped(text, key, shown)
        if keyed is not None and item.alternative is None:
            return {keyed: convert_text(text, _field_shape(item, keyed), f"{key}.{keyed}", shown)}
    return convert_text(text, item, key, shown)


def _field_shape(section: Shape, name: str) -> Shape:
    for model in section_models(section):
        field = plan_of(model).fields.get(name)
        if field is not None:
            return field.shape
    return ANY


def append_to(
    merger: Merger, parent: Any, target: Target, values: list[Any], origin: Origin, shown: str
) -> None:
    """`--l+ VALUE...`: append to the list composed so far (or the class default), by the
    field's strategy (`extend_unique` skips duplicates, `keyed` merges by key).

    The environment node's lists come here too: it is a node like a file, so where no node set
    the list its list replaces the class default rather than appending to it."""
    path, last = target.path, target.path[-1]
    present = last in parent if isinstance(parent, dict) else child(parent, last) is not None
    current = child(parent, last)
    if not present:
        current = [] if isinstance(origin, EnvSource) else _default_list(target.default)
        if current:
            merger.record(path, DEFAULT)
    elif current is None or (current == NONE_TEXT and target.shape.nullable):
        current = []  # an optional list that is off: appending turns it on
    elif not isinstance(current, list):
        raise ArgvError(
            f"holds {current!r}, not a list: only a list takes {shown}",
            key=merger.show_key(path),
            origin=shown,
        )
    strategy = target.shape.merge if target.shape.merge is not None else Merge.extend
    item = target.shape.item or ANY
    put(parent, last, merge_list(merger, current, values, path, origin, item, strategy))


# --- origins of a merged list -------------------------------------------------------------


def element_origins(origins: Origins, path: KeyPath, tree: Any) -> str | None:
    """`default, a.toml:2, --tags+`: who set the elements of the list of values at `path`, when
    several nodes did (a strategy or `+` merged them); None otherwise."""
    value: Any = tree
    for segment in path:
        value = child(value, segment)
    if not isinstance(value, list) or any(isinstance(v, (dict, list)) for v in value):
        return None
    described = [origins.describe((*path, index)) for index in range(len(value))]
    distinct = list(dict.fromkeys(d for d in described if d is not None))
    return ", ".join(distinct) if len(distinct) > 1 else None
