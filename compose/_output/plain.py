"""Models and values as plain data (dicts, lists, scalars): what dumps write and help shows.

Apart from `compose._output.toml` so that help, which shows list and dict defaults this way,
does not import the TOML writer (and with it `json` and two regexes) to draw a screen.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Mapping
from decimal import Decimal
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel, SecretBytes, SecretStr

from compose._schema.secrets import FromEnvironment, Verbatim
from compose._shortcuts import SHORTCUTS
from compose._syntax import NONE_TEXT, SECRET_MASK

__all__ = ["NONE_TEXT", "holds_secret", "json_text", "plain_text", "to_data"]


def to_data(value: Any, *, reveal: bool = False) -> Any:
    """Plain TOML-ready data: models as dicts in field order, None as "None", paths as text.

    A `SecretStr` or `SecretBytes` is masked (`**********`), as everything shown to people
    is; `reveal` writes its value instead, for files that must reload to the same config, or
    the `${oc.env:NAME}` it was read from, as `Verbatim` text (`compose._schema.secrets`)."""
    if isinstance(value, BaseModel):
        fields = type(value).model_fields
        return {name: to_data(getattr(value, name), reveal=reveal) for name in fields}
    if isinstance(value, Mapping):
        return {str(key): to_data(item, reveal=reveal) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [to_data(item, reveal=reveal) for item in items]
    if isinstance(value, _SECRETS):
        if not reveal:
            return SECRET_MASK
        if isinstance(value, FromEnvironment):  # the component reads its own environment
            return Verbatim(value.reference)
        return _scalar_data(value.get_secret_value())
    return _scalar_data(value)


_SECRETS = (SecretStr, SecretBytes)


def holds_secret(value: Any) -> bool:
    """Whether a model or plain value holds a `SecretStr` or `SecretBytes` anywhere that a
    written file holds as its value (not one written as its `${oc.env:NAME}`)."""
    if isinstance(value, _SECRETS):
        return not isinstance(value, FromEnvironment)
    if isinstance(value, BaseModel):
        return any(holds_secret(getattr(value, name)) for name in type(value).model_fields)
    if isinstance(value, Mapping):
        return any(holds_secret(item) for item in value.values())
    if isinstance(value, (list, tuple, set, frozenset)):
        return any(holds_secret(item) for item in value)
    return False


def _scalar_data(value: Any) -> Any:
    if value is None:
        return NONE_TEXT
    if isinstance(value, enum.Enum):
        return _scalar_data(value.value)
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return value.decode("utf-8", "backslashreplace")
    return value


def json_text(data: Any) -> str:
    """`json.dumps(data, default=str)` for plain data. `json` is imported only for text that
    it must escape and values it writes its own way: help shows list and dict defaults as JSON,
    and importing `json` was 5M instructions (about 2 ms) of a cold `--help`."""
    text = _simple_json(data) if SHORTCUTS else None
    if text is not None:
        return text
    import json  # noqa: PLC0415  # see above: off the common path

    return json.dumps(data, default=str)


def plain_text(text: str) -> bool:
    """True if JSON (and a TOML basic string) writes `text` as it is between double quotes:
    printable ASCII, without a quote or a backslash."""
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


def _simple_json(data: Any) -> str | None:
    """What `json.dumps` writes for `data`, where that is plain to tell, else None."""
    kind = type(data)
    if kind is str:
        return f'"{data}"' if plain_text(data) else None
    if kind is bool:
        return "true" if data else "false"
    if data is None:
        return "null"
    if kind is int or (kind is float and math.isfinite(data)):
        return repr(data)
    if kind is list:
        items = _all_simple(data)
        return None if items is None else "[" + ", ".join(items) + "]"
    if kind is dict and all(type(key) is str for key in data):
        keys, values = _all_simple(data), _all_simple(data.values())
        if keys is None or values is None:
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in zip(keys, values, strict=True)) + "}"
    return None


def _all_simple(items: Iterable[Any]) -> list[str] | None:
    texts = []
    for item in items:
        text = _simple_json(item)
        if text is None:
            return None
        texts.append(text)
    return texts
