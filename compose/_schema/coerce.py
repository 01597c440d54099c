"""Type-directed conversion of command-line text by the target's `Shape`.

Values are typed here, before merging and interpolation, so `--seed 3` is the int 3 wherever
it goes (a validator comparing it with a TOML int sees equal values). Text that does not fit
its type is left as text for Pydantic to reject with the flag as its origin.

A list or dict may be written as JSON or as Python writes it (`['a', 'b']`, `{'k': None}`):
sweep agents pass every value as `str()` of it (W&B's `${args}`). A section still takes no
dict (the guide: "nested pydantic-model fields reject JSON strings"); `compose.from_flat`
spreads W&B's nested parameters into its fields' keys.
"""

from __future__ import annotations

import enum
import json
from typing import Any

from compose._schema.secrets import holds_secrets
from compose._schema.shape import Kind, Shape
from compose._syntax import INTERPOLATION, NONE_TEXT, SECRET_MASK
from compose._toml import TomlSyntaxError, TooDeep
from compose._toml import loads as toml_loads
from compose._tree import too_deep
from compose.errors import ArgvError, ConfigValidationError, integer_too_long, nested_too_deep

_TRUE = frozenset({"true", "1"})
_FALSE = frozenset({"false", "0"})


class Enable:
    """A bare `--section` flag: enable an optional section, keeping what is set in it."""


ENABLE = Enable()


def convert(tokens: tuple[str, ...], shape: Shape, key: str, origin: str) -> Any:
    """The typed value of a flag's tokens (`key` and `origin` name it in errors)."""
    if not tokens:
        return _bare(shape, key, origin)
    if shape.kind is Kind.LIST:
        return _list_value(tokens, shape, key, origin)
    if len(tokens) > 1:
        raise ArgvError(
            f"takes one value, got {len(tokens)}",
            key=key,
            value=" ".join(tokens),
            origin=origin,
            hint="quote a value that contains spaces",
        )
    return convert_text(tokens[0], shape, key, origin)


def _bare(shape: Shape, key: str, origin: str) -> Any:
    kind = shape.kind
    if kind in (Kind.BOOL, Kind.ANY):
        return True
    if kind in (Kind.MODEL, Kind.UNION):
        return ENABLE
    if kind is Kind.LIST:
        return []
    if kind is Kind.DICT:
        return {}
    raise ArgvError("expects a value", key=key, origin=origin)


def convert_text(text: str, shape: Shape, key: str, origin: str) -> Any:
    """One token for one target; an interpolation waits, as text, to be resolved first. A
    JSON object for a dict is data at once, as a JSON array for a list is: the `${` in its
    values are resolved there, one value each."""
    if shape.kind is Kind.DICT and text.startswith("{"):
        return _json(text, key, origin, dict)
    if INTERPOLATION in text:
        return text
    if text == NONE_TEXT:
        return none_for(shape, key, origin)
    kind = shape.kind
    if kind is Kind.STR:
        return text
    if kind is Kind.BOOL:
        return _bool(text, key, origin)
    if kind is Kind.SCALAR:
        return _scalar(text, shape)
    if kind in (Kind.MODEL, Kind.UNION) and shape.alternative is not None:
        return convert_text(text, shape.alternative, key, origin)
    if kind in (Kind.MODEL, Kind.UNION):
        raise ArgvError(
            "is a section: set its fields one by one, or load a file into it",
            key=key,
            value=SECRET_MASK if holds_secrets(shape) else text,  # `--api '{"key": "sk-..."}'`
            origin=origin,
            hint=f"use {key}.FIELD VALUE or {key} @ FILE",
        )
    if kind is Kind.DICT:
        return _json(text, key, origin, dict)
    return untyped(text, key, origin)


def none_for(shape: Shape, key: str, origin: str) -> Any:
    """The text "None" where the type admits None or text, else an error.

    It stays text in the tree, as a file's `"None"` does: the class that validates the section
    reads it as None (`compose._schema.prepare`), after any before-validator of the app's own that
    looks for that text (pydantic-config passes it so, and apps rely on it)."""
    if shape.nullable or shape.accepts_str:
        return NONE_TEXT
    raise ConfigValidationError("does not accept None", key=key, value=NONE_TEXT, origin=origin)


def may_spell_none(text: str) -> bool:
    """Whether TOML or JSON `text` may hold the string "None": as written, or through escapes."""
    # memchr's one-character search first (see `marks_resolution`)
    return ("N" in text and NONE_TEXT in text) or "\\" in text


def _bool(text: str, key: str, origin: str) -> bool:
    lowered = text.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ConfigValidationError(
        "expects a boolean: true, false, 1 or 0", key=key, value=text, origin=origin
    )


def _scalar(text: str, shape: Shape) -> Any:
    if shape.literal:
        return _literal(text, shape.members)
    for member in shape.members:
        value = _as_member(text, member)
        if value is not None:
            return value
    return text


def _literal(text: str, values: tuple[Any, ...]) -> Any:
    for value in values:
        if str(value) == text or (isinstance(value, bool) and text.lower() == str(value).lower()):
            return value
    return text  # not a choice: Pydantic names the choices


def _as_member(text: str, member: Any) -> Any:
    if member is bool:
        lowered = text.lower()
        return True if lowered in _TRUE else False if lowered in _FALSE else None
    if member is int:
        return _number(text, int)
    if member is float:
        return _number(text, float)
    if isinstance(member, type) and issubclass(member, enum.Enum):
        return _enum_value(text, member)
    return None


def _number(text: str, kind: type) -> Any:
    value = parse_toml_value(text)
    if kind is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:  # an integer past float's range: Pydantic refuses it, as in a file
            return value
    return None


def _enum_value(text: str, member: type[enum.Enum]) -> Any:
    for item in member:
        if str(item.value) == text:
            return item.value
    return None


def _list_value(tokens: tuple[str, ...], shape: Shape, key: str, origin: str) -> list[Any] | str:
    item = shape.item
    if len(tokens) == 1 and tokens[0].startswith("["):
        values = _json(tokens[0], key, origin, list)
        return [_typed_json(v, item, f"{key}.{i}", origin) for i, v in enumerate(values)]
    if len(tokens) == 1 and tokens[0] == NONE_TEXT and shape.nullable:
        return NONE_TEXT  # `--l None` on an optional list: None (`none_for`)
    if item is None:
        return [untyped(token, f"{key}.{i}", origin) for i, token in enumerate(tokens)]
    return [convert_text(token, item, f"{key}.{i}", origin) for i, token in enumerate(tokens)]


def _typed_json(value: Any, item: Shape | None, key: str, origin: str) -> Any:
    """A JSON element: a string "None" follows the None rule of the element's type."""
    if value == NONE_TEXT and item is not None:
        return none_for(item, key, origin)
    return value


def _json(text: str, key: str, origin: str, expected: type) -> Any:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        value = python_literal(text)
        if value is NOT_LITERAL:
            raise ArgvError(
                f"invalid JSON: {error.msg} at column {error.colno}",
                key=key,
                value=text,
                origin=origin,
            ) from None
    except RecursionError:  # how deep the decoder goes first depends on the Python
        raise ArgvError(nested_too_deep("JSON"), key=key, value=text, origin=origin) from None
    except ValueError as error:  # an integer longer than Python converts (4,300 digits)
        reason = integer_too_long(error)
        raise ArgvError(f"invalid JSON: {reason}", key=key, value=text, origin=origin) from None
    if too_deep(value):
        raise ArgvError(nested_too_deep("JSON"), key=key, value=text, origin=origin)
    if not isinstance(value, expected):
        want = "object" if expected is dict else "array"
        raise ArgvError(f"expects a JSON {want}", key=key, value=text, origin=origin)
    return value


class _NotLiteral:
    """What `python_literal` gives for text that is no list or dict of JSON's kinds."""


NOT_LITERAL = _NotLiteral()
_LITERAL_SCALARS = (str, int, float, bool, type(None))


def python_literal(text: str) -> Any:
    """A list or dict written as Python's `str()` writes it (`['a', 'b']`, `{'k': True}`), as
    a sweep agent passes it; `NOT_LITERAL` for anything else.

    Read by `ast.literal_eval`, which evaluates literals only (never `eval`), and kept only
    when it holds what JSON can (a tuple is a list): a set, bytes or a complex number is no
    config value. Python's parser refuses nesting past 200 levels itself."""
    if not text.startswith(("[", "{")):
        return NOT_LITERAL
    import ast  # noqa: PLC0415  # only for a value that is not JSON: not on every start

    try:
        value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NOT_LITERAL  # ValueError: a name, a call, an integer longer than Python converts
    return _json_kinds(value)


def _json_kinds(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        items = [_json_kinds(item) for item in value]
        return NOT_LITERAL if any(item is NOT_LITERAL for item in items) else items
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            return NOT_LITERAL
        table = {key: _json_kinds(item) for key, item in value.items()}
        return NOT_LITERAL if any(item is NOT_LITERAL for item in table.values()) else table
    return value if isinstance(value, _LITERAL_SCALARS) else NOT_LITERAL


def untyped(text: str, key: str, origin: str) -> Any:
    """Text for an untyped target: a TOML or JSON value where it parses as one, else text."""
    if text == NONE_TEXT:
        return None
    if text.startswith("{"):
        return _json(text, key, origin, dict)
    value = parse_toml_value(text)
    return text if value is None else value


def parse_toml_value(text: str) -> Any:
    """`3`, `1e-3`, `true`, `[1, 2]` as TOML reads them; None when the text is no TOML value.

    A value starts with a character that can start one (a digit, a sign, a quote, `[`, the
    `t` of true...): text that starts otherwise, a blank included, is text, and costs no parse.
    """
    if not text or text[0] not in "+-0123456789.tfin[\"'":
        return None
    try:
        return toml_loads(f"v = {text}")["v"]
    except (TomlSyntaxError, TooDeep, RecursionError, ValueError):
        return None  # ValueError: an integer longer than Python converts
