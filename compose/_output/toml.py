"""Model or tree -> TOML text that reloads to an equal model.

Defaults are included and keys keep schema order. TOML has no null, so None is written as the
string "None" (which loads back as None wherever the type admits it: prime-rl lost explicit
Nones when its dumps dropped them). Sections are `[headers]`, lists of tables `[[headers]]`; an
empty section still gets its header, so an optional section that is on stays on.
"""

from __future__ import annotations

import datetime
import json
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from compose._interp.data import escape  # not _interp: dumps stay light to import
from compose._output.plain import plain_text, to_data
from compose._schema.plan import MIGRATIONS_ATTR
from compose._schema.secrets import Verbatim
from compose._syntax import SCHEMA_VERSION, is_bare_key
from compose.errors import printable


def to_toml(
    value: BaseModel | Mapping[str, Any],
    *,
    note: Callable[[tuple[Any, ...]], str | None] | None = None,
    literal: bool = True,
) -> str:
    """Fully resolved TOML for a model instance (defaults included) or a plain dict.

    `note(path)` may return a comment for each leaf (`compose show --origins`). With `literal`,
    text holding `${` is escaped so that loading it back gives the same text; without, such
    text is written as it is (an unresolved composition shows its interpolations).
    """
    tree = to_data(value, reveal=True)  # a secret too: the file must reload to the same config
    if not isinstance(tree, dict):
        raise TypeError(f"to_toml needs a model or a dict, got {type(value).__name__}")
    writer = _Writer(note, escape if literal else _same)
    lines = list(writer.table(tree, ()))
    text = "\n".join(lines).strip("\n") + "\n" if lines else ""
    return _stamped(value, text)


def inline_value(data: Any, *, literal: bool = True) -> str:
    """Plain data (`to_data`'s) as one TOML value, as it stands right of a key's `=`: what a
    command-line value of an untyped key reads back (`compose._output.argv`)."""
    return _Writer(None, escape if literal else _same).value(data)


def scalar_text(value: Any) -> str:
    """A number, boolean or date as TOML writes it: a float's repr (which reads back the same
    float), `inf`, `true`; an integer past 4,300 digits in hexadecimal."""
    return _scalar(value)


def _stamped(value: object, text: str) -> str:
    """A model whose class declares schema versions (`versioned`) is written with its version
    as the first key: a later version of the app knows from it which migrations it needs."""
    versions = getattr(type(value), MIGRATIONS_ATTR, None)
    if versions is None:
        return text
    gap = "\n" if text.startswith("[") else ""  # a blank line before the first table's header
    return f"{SCHEMA_VERSION} = {versions.version}\n{gap}{text}"


def _same(text: str) -> str:
    return text


def _needs_header(table: dict[str, Any]) -> bool:
    """A table of only sub-tables is created by their headers: its own would be noise. An
    empty one needs its header (an optional section that is on)."""
    return not table or any(
        not (isinstance(value, dict) or _is_table_array(value)) for value in table.values()
    )


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


class _Writer:
    def __init__(
        self, note: Callable[[tuple[Any, ...]], str | None] | None, text: Callable[[str], str]
    ) -> None:
        self.note = note
        self.text = text

    def table(self, table: dict[str, Any], path: tuple[Any, ...]) -> Iterator[str]:
        """Scalars (and inline values) first, then sub-tables, then arrays of tables."""
        sections: list[tuple[str, Any]] = []
        for key, value in table.items():
            if isinstance(value, dict) or _is_table_array(value):
                sections.append((key, value))
            else:
                yield self._noted(f"{_key(key)} = {self.value(value)}", (*path, key))
        for key, value in sections:
            sub = (*path, key)
            if isinstance(value, dict):
                if _needs_header(value):
                    yield ""
                    header = f"[{_dotted(sub)}]"
                    yield self._noted(header, sub) if not value else header
                yield from self.table(value, sub)
            else:
                for index, element in enumerate(value):
                    yield ""
                    yield f"[[{_dotted(sub)}]]"
                    yield from self.table(element, (*sub, index))

    def _noted(self, line: str, path: tuple[Any, ...]) -> str:
        comment = self.note(path) if self.note is not None else None
        # A comment ends at a newline, and a file's name may hold one (or an escape sequence)
        return f"{line}  # {printable(comment)}" if comment else line

    def value(self, value: Any) -> str:
        if isinstance(value, Verbatim):  # a secret's `${oc.env:NAME}`: reloads to resolve it
            return _string(value)
        if isinstance(value, str):
            return _string(self.text(value))
        if isinstance(value, list):
            return "[" + ", ".join(self.value(item) for item in value) + "]"
        if isinstance(value, dict):
            pairs = ", ".join(f"{_key(k)} = {self.value(v)}" for k, v in value.items())
            return "{" + pairs + "}" if pairs else "{}"
        return _scalar(value)


def _dotted(path: tuple[Any, ...]) -> str:
    return ".".join(_key(str(segment)) for segment in path if not isinstance(segment, int))


def _integer(value: int) -> str:
    """Decimal, as written mostly; an integer past Python's 4,300-digit conversion limit (TOML
    reads `0xfff...` of any length) in hexadecimal, which has no such limit."""
    try:
        return str(value)
    except ValueError:
        return hex(value) if value >= 0 else "-" + hex(-value)  # the sign: invalid TOML, but
        # no TOML file can give a negative one (hexadecimal TOML integers are unsigned)


def _key(key: str) -> str:
    return key if is_bare_key(key) else _string(key)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return _integer(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    return _string(str(value))


def _float(value: float) -> str:
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return repr(value)


def _string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, plus DEL, which TOML wants escaped."""
    if plain_text(text):
        return f'"{text}"'
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")
