"""The options of an executor (the sweep file's `[sweep.executor]` table), checked before
anything is written or submitted: an unknown key is one error with a did-you-mean, a value
of the wrong type one error naming key and value."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from compose.errors import ComposeError, closest

Kinds = type | tuple[type, ...]


def check_options(executor: str, options: Mapping[str, Any], known: Mapping[str, Kinds]) -> None:
    """Each option of `options` is one of `known`, of the kind (`int`, `(int, str)`...) given."""
    for key, value in options.items():
        if key not in known:
            near = closest(key, known, cutoff=0.6)
            choices = ", ".join(sorted(known)) or "none"
            hint = f"did you mean {near}?" if near else f"its options: {choices}"
            message = f"is not an option of the executor {executor!r}"
            raise ComposeError(message, key=option_key(key), value=value, hint=hint)
        kind = known[key]
        kinds: tuple[type, ...] = kind if isinstance(kind, tuple) else (kind,)
        if not _is_kind(value, kinds):
            names = " or ".join(_KIND_NAMES.get(kind, kind.__name__) for kind in kinds)
            raise ComposeError(f"expects {names}", key=option_key(key), value=value)


_KIND_NAMES: dict[type, str] = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    list: "a list of strings",
    dict: "a table",
}


def at_least_one(options: Mapping[str, Any], key: str, default: int) -> int:
    """An integer option that counts something (jobs at once): 1 or more."""
    value: int = options.get(key, default)
    if value < 1:
        raise ComposeError("expects at least 1", key=option_key(key), value=value)
    return value


def option_key(key: str) -> str:
    """An option as errors name it: where it is written in the sweep file."""
    return f"sweep.executor.{key}"


def _is_kind(value: Any, kinds: tuple[type, ...]) -> bool:
    if object in kinds:  # the engine checks it
        return True
    if isinstance(value, bool):  # a bool is an int to Python, never to a user
        return bool in kinds
    if isinstance(value, list):  # the list options are lines and arguments
        return list in kinds and all(isinstance(item, str) for item in value)
    return isinstance(value, kinds)
