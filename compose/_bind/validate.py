"""Binding the composed tree onto the schema, and Pydantic's errors back onto origins.

The class that validates a section judges it: Pydantic validates the tree once, and every
verdict, an unknown key included, is Pydantic's (so a subclass chosen by a validator, or kept
by `SerializeAsAny`, judges its own keys, the same from files and flags). What data means
before that (the text "None", a union section's default variant) is `compose._schema.prepare`'s, run
by each `BaseConfig` as its before-validator, and here for a plain root; a value a node set by
a validation alias is handed under that alias, as the node wrote it. Each of Pydantic's
errors is then mapped to the key in CLI form, the value and the node that set it (none where
no node set it: a validator's copy), with a did-you-mean for an unknown key.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

import pydantic
from pydantic import BaseModel

from compose._input.argv import ValueItem
from compose._merge.composed import Composed, marks_resolution
from compose._merge.renames import takes_alias
from compose._schema.keys import suggest, unknown_key
from compose._schema.plan import NO_DEFAULT, aliases_of, plan_of
from compose._schema.prepare import prepare_value, prepares_itself
from compose._schema.secrets import holds_secrets_at, names_secret, secret_fields
from compose._schema.shape import ANY, Kind, Shape
from compose._syntax import NONE_TEXT, SECRET_MASK
from compose._tree import KeyPath, at_path, equal_data, replaced
from compose.errors import (
    ComposeError,
    ConfigValidationError,
    UnknownKeyError,
    gather,
    value_repr,
)

M = TypeVar("M", bound=BaseModel)


def bind(composed: Composed, schema: type[M]) -> M:
    """The validated instance of `schema`; every problem raised at once as `ComposeError`."""
    tree = _with_env_secrets(_prepared(composed, schema), composed.env_secrets)
    try:
        if composed.aliased:
            instance = _validated_saying_where(schema, tree, _aliases_used(composed))
        else:
            instance = schema.model_validate(tree)
    except pydantic.ValidationError as error:
        raise gather([*composed.pending, *_map_errors(error, composed, tree)]) from None
    if composed.pending:
        raise gather(composed.pending)
    return instance


def _aliases_used(composed: Composed) -> dict[str, list[str]]:
    """Each validation alias a node named a field by -> where (FILE:LINE, or the flag)."""
    used: dict[str, list[str]] = {}
    for path, origin in composed.origins.items():
        alias = getattr(origin, "alias", None)
        if alias is not None:
            used.setdefault(alias, []).append(composed.origins.describe(path) or "?")
    return used


def _validated_saying_where(schema: type[M], tree: Any, used: dict[str, list[str]]) -> M:
    """Validate; a warning an app's validator gives that names an alias a node used (an old
    name kept in `AliasChoices`, warned about as the guide asks) is given again with where
    that node wrote it (`... (max_new_tokens: grpo.toml:37)`), which the validator cannot
    know. Only compositions that used an alias pay for catching warnings."""
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            return schema.model_validate(tree)
    finally:
        for warning in caught:
            text = str(warning.message)
            where = [f"{alias}: {', '.join(places)}" for alias, places in used.items()]
            named = [w for w, alias in zip(where, used, strict=True) if _names(text, alias)]
            if named:
                text = f"{text} ({'; '.join(named)})"
            # where the validator issued it, as if it had not been caught
            warnings.warn_explicit(text, warning.category, warning.filename, warning.lineno)


def _names(text: str, word: str) -> bool:
    """Whether `text` names `word` as a word of its own (not inside a longer name)."""
    return re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text) is not None


def unknown_keys(composed: Composed) -> list[ComposeError]:
    """The unknown keys of a composition, as validation judges them, without binding it (for
    `compose show` and help after files: nothing is resolved yet, so other errors are not
    what they will be, and are not reported)."""
    schema = composed.root.model
    if schema is None:
        return []
    tree = _prepared(composed, schema)
    try:
        schema.model_validate(tree)
    except pydantic.ValidationError as error:
        return [
            found
            for found in _map_errors(error, composed, tree)
            if isinstance(found, UnknownKeyError)
        ]
    except Exception:  # an app's validator meeting unresolved data: no verdict
        return []
    return []


def overlay_problems(
    composed: Composed, schema: type[BaseModel], *, whole: bool = False
) -> list[ComposeError]:
    """What the nodes of a composition that is not whole get wrong, as validation judges it:
    unknown keys, and values their fields refuse. Not what a later node may still supply: a
    required value (unless the composition is `whole`), the value an interpolation will give
    (judged once resolved), or the verdict of a section's own validators (they may ask for
    fields no node has set yet, or for an interpolation's value). A validator that raises
    anything but a validation error stops Pydantic before it judges the rest: that exception
    goes to the caller, for whom the piece could not be judged."""
    tree = _prepared(composed, schema)
    judged = _judged_in_whole if whole else _judged_in_overlay
    try:
        schema.model_validate(tree)
    except pydantic.ValidationError as error:
        return [*composed.pending, *_map_errors(error, composed, tree, judged)]
    return list(composed.pending)


def _judged_in_overlay(detail: Any, shape: Shape) -> bool:
    return detail["type"] != "missing" and _judged_in_whole(detail, shape)


def _judged_in_whole(detail: Any, shape: Shape) -> bool:
    from compose._interp.data import needs_resolution  # noqa: PLC0415  # only when checking files

    if isinstance(detail["input"], str) and needs_resolution(detail["input"]):
        return False
    tag = detail.get("ctx", {}).get("tag") if detail["type"] == "union_tag_invalid" else None
    if isinstance(tag, str) and needs_resolution(tag):  # the variant an interpolation names
        return False
    return not (shape.is_section and detail["type"] in ("value_error", "assertion_error"))


def _prepared(composed: Composed, schema: type[BaseModel]) -> Any:
    """The tree as validation takes it: a `BaseConfig` root prepares its data itself; a value
    a node set by a validation alias under that alias (`_as_written`)."""
    tree = composed.tree if prepares_itself(schema) else prepare_value(composed.tree, composed.root)
    return _as_written(composed, tree) if composed.aliased else tree


def _as_written(composed: Composed, tree: Any) -> Any:
    """`tree` with each value that a node set by one of its field's validation aliases keyed
    by that alias, as the node wrote it: an app's before-validator that warns about an old
    name (`AliasChoices("max_tokens", "max_new_tokens")`) sees it, at any depth, from files
    and flags alike. Composition keys a field by its name (nodes that spell it differently
    merge); the node that set the value last says how it was spelt. A copy along each path."""
    for path, origin in composed.origins.items():
        alias = getattr(origin, "alias", None)
        if alias is None or not path or not _holds(composed.tree, path):
            continue
        name, section = path[-1], path[:-1]
        holder = at_path(tree, section)
        if not isinstance(name, str) or not isinstance(holder, dict) or alias in holder:
            continue
        if _takes_alias(composed.root, section, tree, alias, name):
            renamed = {(alias if key == name else key): value for key, value in holder.items()}
            tree = replaced(tree, section, renamed)
    return tree


def _takes_alias(root: Shape, section: KeyPath, tree: Any, alias: str, name: str) -> bool:
    """Whether the class that validates the section at `section` takes `alias` for `name` (a
    later union switch may have chosen a class that does not)."""
    shape, node = root, tree
    for segment in section:
        shape, node = _loc_step(shape, segment, node)
    return shape.is_section and takes_alias(shape, node, alias, name)


def _with_env_secrets(tree: Any, env_secrets: dict[KeyPath, tuple[str, Any]]) -> Any:
    """Each secret resolved from `${oc.env:NAME}` as a secret that remembers the reference,
    which Pydantic keeps as it is (a copy of the tree where any is)."""
    if not env_secrets:
        return tree
    from compose._schema.secrets import from_environment  # noqa: PLC0415  # only with such a secret

    for path, (reference, annotation) in env_secrets.items():
        value = from_environment(at_path(tree, path), reference, annotation)
        tree = replaced(tree, path, value)
    return tree


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


def _map_errors(
    error: pydantic.ValidationError,
    composed: Composed,
    tree: dict[str, Any],
    judged: Callable[[Any, Shape], bool] | None = None,
) -> list[ComposeError]:
    """Pydantic's errors as compose's (those `judged` keeps, given each and its field's shape)."""
    seen: dict[KeyPath, ComposeError] = {}
    flags_below = _FlagsBelow(composed)
    for detail in error.errors():
        located = _loc_path(composed.root, detail["loc"], tree)
        if located is None:
            continue
        path, shape = located
        if judged is not None and not judged(detail, shape):
            continue
        if detail["type"] == "extra_forbidden":
            for flag_path, found in _unknown_keys_at(path, detail, composed, flags_below):
                seen.setdefault(flag_path, found)
            continue
        mapped = _to_compose_error(detail, path, shape, composed)
        if path in seen and not isinstance(mapped, UnknownKeyError):
            seen[path].message += f"; or {mapped.message}"  # one value, several union members
            continue
        seen.setdefault(path, mapped)
    _drop_echoes(seen)
    _mask_secrets(seen, composed.root, tree)
    for mapped in seen.values():
        mapped.args = (mapped.format(),)
    # Unknown keys first, in the order the nodes wrote them (the tree keeps it), then the rest
    unknown_paths = sorted(
        (path for path, mapped in seen.items() if isinstance(mapped, UnknownKeyError)),
        key=_positions(tree),
    )
    return [seen[path] for path in unknown_paths] + [
        mapped for mapped in seen.values() if not isinstance(mapped, UnknownKeyError)
    ]


def _drop_echoes(seen: dict[KeyPath, ComposeError]) -> None:
    """An error at a key no node set, whose value and complaint are those of an error some
    node did set, is that error again (a validator copied the value there, as prime-rl copies
    a shared `max_steps` into each component): the one with the origin says it all."""
    cited = {(e.message, value_repr(e.value)) for e in seen.values() if e.origin and e.has_value}
    for path, mapped in list(seen.items()):
        if (
            not mapped.origin
            and mapped.has_value
            and (mapped.message, value_repr(mapped.value)) in cited
        ):
            del seen[path]


def _mask_secrets(seen: dict[KeyPath, ComposeError], root: Shape, tree: Any) -> None:
    """A value a secret field rejected is shown masked, as every other view of it is; so is a
    value of the wrong kind given where secrets go (`api = "sk-..."` for a section `api`
    holding a secret field)."""
    secret = {path for path, _ in secret_fields(root, tree)}
    for path, mapped in seen.items():
        inside = any(path[:depth] in secret for depth in range(1, len(path) + 1))
        where_secrets_go = mapped.key is not None and holds_secrets_at(root, mapped.key)
        if (inside or where_secrets_go) and mapped.has_value:
            seen[path] = mapped.evolve(value=SECRET_MASK)


def _positions(tree: Any) -> Callable[[KeyPath], tuple[int, ...]]:
    """Where a path is in the tree, as the index of each key in its table's order; each
    table's order is read once (a file of 100,000 unknown keys sorts in linear time)."""
    orders: dict[KeyPath, dict[Any, int]] = {}

    def position(path: KeyPath) -> tuple[int, ...]:
        found: list[int] = []
        node = tree
        for depth, segment in enumerate(path):
            if isinstance(node, dict) and segment in node:
                order = orders.get(path[:depth])
                if order is None:
                    order = orders[path[:depth]] = {key: i for i, key in enumerate(node)}
                found.append(order[segment])
                node = node[segment]
            elif isinstance(node, list) and isinstance(segment, int) and segment < len(node):
                found.append(segment)
                node = node[segment]
            else:
                break
        return tuple(found)

    return position


def _to_compose_error(detail: Any, path: KeyPath, shape: Shape, composed: Composed) -> ComposeError:
    kind = detail["type"]
    if kind == "union_tag_not_found" and shape.tag:
        names = ", ".join(name for name, _ in shape.variants)
        tag_key = composed.show_key((*path, shape.tag))
        return ConfigValidationError(
            f"no variant chosen: set {tag_key} to one of {names}",
            key=composed.show_key(path),
            origin=_origin(composed, path),
        )
    if kind == "float_type" and type(detail["input"]) is int:  # only past float's range
        return ConfigValidationError(
            "is too large for a float (the largest is about 1.8e308)",
            key=composed.show_key(path),
            value=detail["input"],
            origin=_origin(composed, path, detail["input"]),
        )
    if detail["input"] == NONE_TEXT and not shape.nullable and isinstance(detail["input"], str):
        return ConfigValidationError(
            "does not accept None",
            key=composed.show_key(path),
            value=NONE_TEXT,
            origin=_origin(composed, path, NONE_TEXT),
        )
    if kind == "union_tag_invalid" and shape.tag:
        tag_path = (*path, shape.tag)
        return ConfigValidationError(
            _message(detail),
            key=composed.show_key(tag_path),
            value=detail["ctx"]["tag"],
            origin=_origin(composed, tag_path),  # the tag as written: `_unprintable`'s text
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
        origin=_origin(composed, path, detail["input"]),
    )


def _origin(composed: Composed, path: KeyPath, value: Any = NO_DEFAULT) -> str | None:
    """Where the node that set `path` (to `value`, when given) is; None where no node did.

    A validator may write into the data it is handed (prime-rl copies a shared `max_steps`
    into each component), in place: the composed tree then holds values no node set, and the
    line of the section around such a value, or of a key a node set to another value, names
    a place that never set it. The tree the origins' replay composed is what the nodes set.
    """
    origins = composed.origins
    written = origins.tree
    if written is None:  # the origins know no tree (a file changed): as composed
        return origins.describe(path) if _holds(composed.tree, path) else None
    depth = _depth_held(written, path)
    if depth == len(path):  # a node set the path: to that value, unless resolution made it
        raw = at_path(written, path)
        if value is NO_DEFAULT or _resolved(raw) or equal_data(raw, value):
            return origins.describe(path)
        return None
    if _resolved(at_path(written, path[:depth])):  # below a value resolution made a table of
        return origins.describe(path)
    recorded = origins.recorded_at(path)
    if recorded is not None and len(recorded) > depth:  # recorded after composing: a default
        return origins.describe(path)
    return None


def _depth_held(tree: Any, path: KeyPath) -> int:
    """How many segments of `path` the tree holds."""
    node = tree
    for depth, segment in enumerate(path):
        in_table = isinstance(node, dict) and segment in node
        in_list = isinstance(node, list) and isinstance(segment, int) and 0 <= segment < len(node)
        if not (in_table or in_list):
            return depth
        node = node[segment]
    return len(path)


def _resolved(raw: Any) -> bool:
    """Whether resolution makes the value of `raw`, text a node wrote (`${...}`, an escape)."""
    return isinstance(raw, str) and marks_resolution(raw)


class _FlagsBelow:
    """The flags no schema key checked (`Composed.unchecked`) at or below a path: indexed by
    their first segments once for each length asked, so that 20,000 unknown flags are found
    in linear time, not each by a scan of them all."""

    def __init__(self, composed: Composed) -> None:
        self._composed = composed
        self._by_length: dict[int, dict[KeyPath, list[tuple[KeyPath, ValueItem]]]] = {}

    def __call__(self, path: KeyPath) -> list[tuple[KeyPath, ValueItem]]:
        size = len(path)
        index = self._by_length.get(size)
        if index is None:
            index = self._by_length[size] = {}
            for flag_path, item in self._composed.unchecked.items():
                if len(flag_path) >= size:
                    index.setdefault(flag_path[:size], []).append((flag_path, item))
        return index.get(path, [])


def _unknown_keys_at(
    path: KeyPath, detail: Any, composed: Composed, flags_below: _FlagsBelow
) -> list[tuple[KeyPath, ComposeError]]:
    """The class at `path[:-1]` has no key `path[-1]`: each flag that set something at or below
    it, named as the user typed it, or else the node that set the key."""
    above = _loc_path(composed.root, path[:-1], composed.tree)
    section = above[1] if above is not None else None
    root, depth = composed.root, len(path) - 1
    flags = flags_below(path)
    if not flags:
        found: ComposeError = unknown_key(root, path, None, section, depth)
        origin = _origin(composed, path, detail["input"])
        value = _unless_secret(root, found, _keys_only(detail["input"]))
        return [(path, found.evolve(value=value, origin=origin))]
    errors: list[tuple[KeyPath, ComposeError]] = []
    for flag_path, item in flags:
        found = unknown_key(root, flag_path, item.shown, section, depth)
        if item.tokens:
            found = found.evolve(value=_unless_secret(root, found, " ".join(item.tokens)))
        errors.append((flag_path, found))
    return errors


def _unless_secret(root: Shape, found: ComposeError, value: Any) -> Any:
    """An unknown key's value, masked when the key it is closest to is a secret: `api.kye`
    for `api.key` holds the key."""
    suggestion = suggest(root, found.key) if found.key else None
    return SECRET_MASK if suggestion and names_secret(root, suggestion) else value


class _TableKeys(dict[str, Any]):
    """An unknown table, as errors show it: its keys, not its values (a credentials file
    included at the wrong place holds tokens)."""

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{key!r}: ..." for key in self) + "}"


def _keys_only(value: Any) -> Any:
    return _TableKeys(dict.fromkeys(value, ...)) if isinstance(value, dict) else value


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
    for given in loc:
        item = _field_key(shape, given, node)
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


def _holds(tree: Any, path: KeyPath) -> bool:
    """Whether the composed tree has a value at `path` (a node set it, or a list or table
    around it)."""
    return _depth_held(tree, path) == len(path)


def _field_key(shape: Shape, item: Any, node: Any) -> Any:
    """A key Pydantic names a field by (an alias) as composition keys it: by the field's name."""
    if not (shape.is_section and isinstance(item, str)):
        return item
    model = shape.model
    if model is None and isinstance(node, dict) and shape.tag:
        model = shape.variant(node.get(shape.tag))
    return aliases_of(model).get(item, item) if model is not None else item


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
