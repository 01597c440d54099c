"""The common case of interpolation, without the parser or the evaluation's generators.

A value that is exactly `${a.b.c}` (a lone reference: it keeps its target's type), or text
around such references (`x-${a.b}-y`), with plain keys, optional leading dots and no
backslashes, is evaluated by walking the raw tree. A target that needs no resolution is the
value itself; one that does is taken from the memo of values resolved already. Anything else —
a key the tree does not hold (a class default may), a target still to resolve, an index out of
range, an interpolation in the way — gives `SLOW`, and the general evaluation
(`compose._interp.resolve`) takes the value over. These functions only read, so falling back
is always safe, and every error is the general evaluation's own.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from compose._interp.data import CONTAINERS, MANDATORY, is_missing_spelling
from compose._syntax import INTERPOLATION, split_dotted
from compose._tree import KeyPath

__all__ = ["SLOW", "Plan", "Reference", "join", "lone_reference", "plan_of", "walk"]

# OmegaConf's key characters (anything but `\{}()[]:.`, quotes and blanks), less `$`: a key
# holding `$` is rare enough for the parser, and without it no `${` hides inside a key.
_KEY = r"[^\\{}()\[\]:.$ \t'\"]+"
_REFERENCE = re.compile(rf"\$\{{[ \t]*(\.*)({_KEY}(?:\.{_KEY})*)[ \t]*\}}")

# A reference: its leading dots and its keys (`${..a.b}` is (2, ("a", "b"))).
Reference = tuple[int, KeyPath]
# Text around references, in order (empty text left out): `x-${a}` is ("x-", (0, ("a",))).
Plan = tuple[str | Reference, ...]


class _Slow:
    """What the fast path gives where the general evaluation has to decide."""


SLOW: Any = _Slow()

# Both readings are cached per text, as the parser's are: the same values come back in every
# composition of a process.


@functools.lru_cache(maxsize=8192)
def lone_reference(raw: str) -> Reference | None:
    """`raw` read as exactly one plain reference (`${a.b}`, `${ ..a }`), else None."""
    match = _REFERENCE.fullmatch(raw)
    return None if match is None else (len(match[1]), tuple(split_dotted(match[2])))


@functools.lru_cache(maxsize=8192)
def plan_of(raw: str) -> Plan | None:
    """`raw` read as text around plain references, else None (escapes, resolvers, nested
    `${`...). A lone reference is `lone_reference`'s: it keeps its target's type."""
    if "\\" in raw:
        return None  # escapes, and backslashes kept before `${`: the parser's rules
    pieces = _REFERENCE.split(raw)  # text, dots, keys, text, dots, keys, ..., text
    if len(pieces) == 1:
        return None
    plan: list[str | Reference] = []
    for start in range(0, len(pieces), 3):
        text = pieces[start]
        if INTERPOLATION in text:
            return None  # an interpolation the pattern does not take
        if text:
            plan.append(text)
        if start + 1 < len(pieces):
            plan.append((len(pieces[start + 1]), tuple(split_dotted(pieces[start + 2]))))
    return tuple(plan)


def join(tree: dict[str, Any], memo: dict[KeyPath, Any], path: KeyPath, plan: Plan) -> Any:
    """The text of `plan` (text around references) for the value at `path`, else SLOW."""
    parts: list[str] = []
    for piece in plan:
        if isinstance(piece, str):
            parts.append(piece)
            continue
        value = walk(tree, memo, path, piece[0], piece[1])
        if value is SLOW or isinstance(value, CONTAINERS):
            return SLOW  # the general evaluation decides on embedding containers (the budget)
        parts.append(str(value))
    result = "".join(parts)
    return SLOW if result == MANDATORY else result  # the general evaluation reports it


def walk(
    tree: dict[str, Any], memo: dict[KeyPath, Any], path: KeyPath, dots: int, keys: KeyPath
) -> Any:
    """The value at `keys` (relative to the container holding `path`, with `dots`), else SLOW."""
    if dots:
        base = path[:-1]
        if dots - 1 > len(base):
            return SLOW
        keys = base[: len(base) - dots + 1] + keys
    node: Any = tree
    try:  # tables all the way, most often: indexing fails on anything else (text on a list)
        for key in keys:
            node = node[key]
    except (KeyError, IndexError, TypeError):
        node = _walk_lists(tree, keys)
    if isinstance(node, str):
        if INTERPOLATION not in node and not (MANDATORY in node and is_missing_spelling(node)):
            return node
    elif not isinstance(node, CONTAINERS):
        return node  # SLOW too
    return memo.get(keys, SLOW)  # an index given as text is no key of the memo: SLOW


def _walk_lists(tree: dict[str, Any], keys: KeyPath) -> Any:
    """The raw value at `keys` where the way may hold lists indexed by text (`${a.0}`), else
    SLOW."""
    node: Any = tree
    for key in keys:
        if type(node) is dict:
            node = node.get(key, SLOW)
            if node is SLOW:
                return SLOW
        elif type(node) is list:
            index = key if type(key) is int else _index(node, key)
            if index is None:
                return SLOW
            node = node[index]
        else:
            return SLOW  # a scalar, or a value to resolve before walking into it
    return node


def _index(node: list[Any], key: str | int) -> int | None:
    try:
        index = int(key)
    except ValueError:
        return None
    return index if -len(node) <= index < len(node) else None
