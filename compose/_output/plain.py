"""Models and values as plain data (dicts, lists, scalars): what dumps write and help shows.

Apart from `compose._output.toml` so that help, which shows list and dict defaults this way,
does not import the TOML writer (and with it two regexes) to draw a screen.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from decimal import Decimal
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel, SecretBytes, SecretStr

from compose._schema.secrets import FromEnvironment, Verbatim
from compose._syntax import NONE_TEXT, SECRET_MASK

__all__ = ["NONE_TEXT", "holds_secret", "json_text", "plain_text", "to_data"]


def to_data(
    value: Any, *, reveal: bool = False, references: bool = False, nones: bool = False
) -> Any:
    """Plain TOML-ready data: models as dicts in field order, None as "None", paths as text.

    A `SecretStr` or `SecretBytes` is masked (`**********`), as everything shown to people
    is; `reveal` writes its value instead, for files that must reload to the same config, or
    the `${oc.env:NAME}` it was read from, as `Verbatim` text (`compose._schema.secrets`).
    `references` writes that reference, which is no secret, but masks the others (flags).
    `nones` keeps None as None (a tracker's config, JSON), where the text "None" is text."""
    if isinstance(value, BaseModel):
        fields = type(value).model_fields
        return {
            name: to_data(getattr(value, name), reveal=reveal, references=references, nones=nones)
            for name in fields
        }
    if isinstance(value, Mapping):
        return {
            str(key): to_data(item, reveal=reveal, references=references, nones=nones)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [to_data(item, reveal=reveal, references=references, nones=nones) for item in items]
    if isinstance(value, _SECRETS):
        if references and isinstance(value, FromEnvironment):
            return Verbatim(value.reference)
        if not reveal:
            return SECRET_MASK
        if isinstance(value, FromEnvironment):  # the component reads its own environment
            return Verbatim(value.reference)
        return _scalar_data(value.get_secret_value())
    return None if value is None and nones else _scalar_data(value)


_SECRETS = (SecretStr, SecretBytes)


def holds_secret(value: Any) -> bool:
    """Whether a model or plain value holds a `SecretStr` or `SecretBytes` anywhere that a
    written file holds as its value (not one written as its `${oc.env:NAME}`)."""
    return bool(_written_secrets(value, []))


_LEAVES = (str, int, float, type(None))  # most of a config: settled before the slower checks


def _written_secrets(value: Any, found: list[Any]) -> list[Any]:
    """`found`, with each secret `value` holds that a written file holds as its value."""
    if isinstance(value, _LEAVES):
        return found
    if isinstance(value, _SECRETS):
        if not isinstance(value, FromEnvironment):
            found.append(value)
    elif isinstance(value, BaseModel):
        for name in type(value).model_fields:
            _written_secrets(getattr(value, name), found)
    elif isinstance(value, Mapping):
        for item in value.values():
            _written_secrets(item, found)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _written_secrets(item, found)
    return found


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
    """Plain data as JSON, as help shows list and dict defaults."""
    return json.dumps(data, default=str)


def plain_text(text: str) -> bool:
    """True if JSON (and a TOML basic string) writes `text` as it is between double quotes:
    printable ASCII, without a quote or a backslash."""
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text
