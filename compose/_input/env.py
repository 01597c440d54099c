"""The environment layer, opt-in per app: with `env_prefix="RL_"`, `RL_TRAINER__OPTIM__LR=1e-5`
sets what `--trainer.optim.lr 1e-5` sets, in a node of its own between the class defaults and
the first file (files and flags override it).

The name after the prefix is a key path: segments separated by `__`, lowercased, each a field
name (snake_case), a dict key or a list index, as the schema says there; without a schema every
variable is a key path, as any schema-less flag is. The value is one command-line token, typed
by the field it sets: the node's values are flags to the CLI node's code (`_graph`), with
`$NAME` as their origin. A variable that names no field is a warning with a did-you-mean, not an
error: the environment is ambient, and may hold variables meant for another program or version.

Nothing here runs unless an app passes `env_prefix`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from compose._input.argv import EnvItem, Item, ValueItem
from compose._schema.keys import suggest
from compose._schema.shape import Shape
from compose._schema.walk import Target, walk
from compose._syntax import NO_ENV_VARIABLE, dotted, snake_case, split_dotted
from compose._warn import warn
from compose.errors import ArgvError, ComposeError, ComposeWarning, UnknownKeyError

SEPARATOR = "__"
_NAME = re.compile(r"[A-Za-z0-9_]+")


class EnvValue(ValueItem):
    """One variable of the environment node, as a flag: `key` is its dotted key path, `shown`
    the variable (`$NAME`). A class of its own so the CLI node's code can tell it from a flag
    (it is never negated, and its origin is the variable); it adds no field."""

    @property
    def variable(self) -> str:
        return self.shown.removeprefix("$")


def with_environment(
    items: list[Item], prefix: str | None, environ: Mapping[str, str] | None = None
) -> list[Item]:
    """`items` after the environment node, the bottom node (when the app reads one)."""
    node = environment_node(prefix, environ)
    return [node, *items] if node is not None else items


def environment_node(prefix: str | None, environ: Mapping[str, str] | None) -> EnvItem | None:
    """The node of the variables named `PREFIX...` (in name order), or None when there are none.

    `environ` defaults to `os.environ`; nothing is read when `prefix` is None, or when
    $COMPOSE_NO_ENV is set there (a sweep's job: it composes its recorded config alone).
    """
    if prefix is None:
        return None
    if not prefix:
        raise ValueError("env_prefix must not be empty: it would read every variable")
    environ = os.environ if environ is None else environ
    if environ.get(NO_ENV_VARIABLE, "") not in ("", "0"):
        return None
    names = sorted(name for name in environ if name.startswith(prefix))
    values: list[ValueItem] = []
    for name in names:
        key = key_path(name[len(prefix) :])
        if key is None:
            _warn(f"${name} names no field: {prefix}SECTION__FIELD, segments separated by __")
            continue
        values.append(EnvValue(key, (environ[name],), f"${name}"))
    return EnvItem(prefix, tuple(values)) if values else None


def key_path(rest: str) -> str | None:
    """`TRAINER__OPTIM__LR` -> `trainer.optim.lr`; None if it is no key path (empty segments,
    or characters a key path cannot hold)."""
    if not _NAME.fullmatch(rest):
        return None
    segments = rest.lower().split(SEPARATOR)
    return dotted(segments) if all(segments) else None


def variable_name(prefix: str, flag: str) -> str:
    """`--trainer.optim.max-lr` -> `RL_TRAINER__OPTIM__MAX_LR`: the variable that sets a flag."""
    segments = split_dotted(snake_case(flag.removeprefix("--")))
    return prefix + SEPARATOR.join(segments).upper()


def resolve_variable(root: Shape, value: ValueItem, tree: Any) -> Target:
    """Where a variable's key path lands, against the tree composed so far (a union section
    resolves against the variant chosen so far).

    A path that leads nowhere (a key below a plain value, a name into a list) names no field,
    as an unknown key does: it is an `UnknownKeyError`, for `unknown_variables` to warn about.
    """
    try:
        return walk(root, split_dotted(value.key), tree, value.shown)
    except UnknownKeyError:
        raise
    except ArgvError as error:
        raise UnknownKeyError(error.message, key=error.key, origin=value.shown) from None


def unknown_variables(errors: list[ComposeError], root: Shape, prefix: str) -> list[ComposeError]:
    """Warn about the variables that name no field (the environment node's unknown keys);
    return the other errors, to be reported with the validation errors."""
    kept: list[ComposeError] = []
    for error in errors:
        if isinstance(error, UnknownKeyError):
            hint = _hint(error, root, prefix)
            _warn(f"{error.origin} names no field" + (f"; {hint}" if hint else ""))
        else:
            kept.append(error)
    return kept


def _hint(error: UnknownKeyError, root: Shape, prefix: str) -> str | None:
    """A did-you-mean spelled as a variable; else the error's own hint (the variants that have
    the key: the environment is read before the files, so a file's choice comes too late)."""
    found = suggest(root, error.key) if error.key else None
    if found is None or found == error.key:
        return error.hint
    return f"did you mean ${variable_name(prefix, found)}?"


def _warn(message: str) -> None:
    warn(message, ComposeWarning, stacklevel=3)
