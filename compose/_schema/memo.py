"""Results computed once per model class or per `Shape`, kept on the object they are about.

A `functools.cache` keyed by a class keeps the class alive for the life of the process (and
its results hold it too: a plan names its model), and a dict keyed by `id()` hands a new
object a dead one's answers once the id is reused. `memoize` stores a function's result in a
memo on the key itself, one attribute holding every memoized function's result: it lives as
long as the class or shape does, and a class that is no longer used is collected with its
memo (class -> memo -> plan -> class is a cycle like any other).

A memo is its owner's own: a subclass finds its base's by attribute lookup (and every
`BaseConfig` finds the None its base declares), so a memo found under another owner is not
used; `Shape.replace` leaves it behind. A key that takes no attributes (a built-in type) gets
its result computed every time.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

K = TypeVar("K")
R = TypeVar("R")

MEMO_ATTR = "__compose_memo__"  # spelled out in `memoize` too


class _Memo(dict[Callable[..., Any], Any]):
    """Memoized function -> its result for `owner` (set by `_own_memo`)."""

    __slots__ = ("owner",)
    owner: object


def memoize(function: Callable[[K], R]) -> Callable[[K], R]:
    """`function` of one argument (a model class or a `Shape`), computed once per argument.
    Two threads may both compute a result; the first one stored is the one both return."""

    def memoized(key: K) -> R:
        try:  # the attribute by name, not `getattr(key, MEMO_ATTR)`: a third of the cost
            memo = key.__compose_memo__  # type: ignore[attr-defined]
        except AttributeError:
            memo = None
        if memo is None or memo.owner is not key:
            memo = _own_memo(key)
        try:
            found: R = memo[memoized]
        except KeyError:
            found = memo.setdefault(memoized, function(key))
        return found

    return functools.update_wrapper(memoized, function)


def _own_memo(key: object) -> _Memo:
    memo = _Memo()
    memo.owner = key
    try:  # noqa: SIM105  # not contextlib.suppress: three calls more, once per class
        setattr(key, MEMO_ATTR, memo)
    except (AttributeError, TypeError):  # a built-in type, or slots: the memo is thrown away,
        pass  # and the result computed again
    return memo


def forget(key: object) -> None:
    """Drop what was memoized about `key` (a class decorator changed what it declares)."""
    memo = getattr(key, MEMO_ATTR, None)
    if memo is not None and memo.owner is key:
        delattr(key, MEMO_ATTR)
