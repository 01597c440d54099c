"""An interpolated option (`db_model: ${db}_${model}`) -> the option, read from the choices.

The choices are a flat table (`db`, `server/db`, `db@source`: keys may hold `/` and `@`) plus
`defaults`, the entries of the list being expanded. compose's own resolver reads it: its key
grammar already takes `/` and `@`, and `oc.decode` is given per call.
"""

from __future__ import annotations

from typing import Any

from compose._interp.resolve import resolve_tree
from compose.errors import ComposeError

from .entries import DefaultsError

_VALUE = "\x00choice"  # a key no choice can have


def _decode(text: Any = None) -> Any:
    from .grammar import _Parser, plain  # noqa: PLC0415 - oc.decode reads override grammar

    if not isinstance(text, str):
        return text
    return plain(_Parser(text, text).element()) if text.strip() else text


def resolve_choice(text: str, choices: dict[str, Any], node: Any) -> str:
    tree = {**choices, _VALUE: text}
    try:
        value = resolve_tree(tree, below=[(_VALUE,)], resolvers={"oc.decode": _decode})[_VALUE]
    except ComposeError as error:
        keys = [k for k in choices if k != "defaults"]
        raise DefaultsError(
            f"cannot resolve the option {text}: {error.message}",
            origin=str(node.entry.where),
            hint=f"an option's interpolation reads the choices: {', '.join(keys) or '(none made yet)'}",
        ) from None
    if not isinstance(value, str):
        raise DefaultsError(f"the option {text} is not a name: {value!r}", origin=str(node.entry.where))
    return value
