"""The options of an executor (the sweep file's `[sweep.executor]` table), checked before
anything is written or submitted: an unknown key is one error with a did-you-mean, a value
of the wrong type one error naming key and value.

Every error names the option by its key path in the sweep file (`sweep.executor.setup.1`)
and says where it was written: `where` maps that path to `FILE:LINE` (or the flag that gave
it), as `Sweep.control_at` does; `nowhere` for options given in code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from compose._tree import KeyPath
from compose.errors import ComposeError, closest

Kinds = type | tuple[type, ...]
Where = Callable[[KeyPath], "str | None"]  # a key path in the sweep file -> where it was written


def nowhere(path: KeyPath) -> None:
    """Options given in code: no file or flag to name."""
    del path


def check_options(
    executor: str, options: Mapping[str, Any], known: Mapping[str, Kinds], where: Where
) -> None:
    """Each option of `options` is one of `known`, of the kind (`int`, `(int, str)`...) given."""
    for key, value in options.items():
        if key not in known:
            near = closest(key, known, cutoff=0.6)
            choices = ", ".join(sorted(known)) or "none"
            hint = f"did you mean {near}?" if near else f"its options: {choices}"
            message = f"is not an option of the executor {executor!r}"
            raise option_error(message, where, value, key, hint=hint)
        kind = known[key]
        kinds: tuple[type, ...] = kind if isinstance(kind, tuple) else (kind,)
        if not _is_kind(value, kinds):
            names = " or ".join(_KIND_NAMES.get(kind, kind.__name__) for kind in kinds)
            raise option_error(f"expects {names}", where, value, key)


_KIND_NAMES: dict[type, str] = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    list: "a list of strings",
    dict: "a table",
}


def at_least_one(options: Mapping[str, Any], key: str, default: int, where: Where) -> int:
    """An integer option that counts something (jobs at once): 1 or more."""
    value: int = options.get(key, default)
    if value < 1:
        raise option_error("expects at least 1", where, value, key)
    return value


def option_path(*inner: str | int) -> KeyPath:
    """An option (or an element of one) as its key path in the sweep file."""
    return ("sweep", "executor", *inner)


def option_error(
    message: str, where: Where, value: Any, *inner: str | int, hint: str | None = None
) -> ComposeError:
    """The error about the option at `inner` (`"setup", 1`): its key path, value and origin."""
    path = option_path(*inner)
    key = ".".join(map(str, path))
    return ComposeError(message, key=key, value=value, origin=where(path), hint=hint)


def _is_kind(value: Any, kinds: tuple[type, ...]) -> bool:
    if object in kinds:  # the engine checks it
        return True
    if isinstance(value, bool):  # a bool is an int to Python, never to a user
        return bool in kinds
    if isinstance(value, list):  # the list options are lines and arguments
        return list in kinds and all(isinstance(item, str) for item in value)
    return isinstance(value, kinds)
