"""Compose's own warnings, and holding them back in one thread without touching the others.

A composition warns (a union switch drops keys, a renamed key, an unknown variable) as a Python
warning, for the caller's filters and tools. Two callers want them held back instead: an
entrypoint prints them as `warning: ...` lines before the result they led to, and a replay
(origins are found by composing again) must not give them twice. `warnings.catch_warnings`
would do both by swapping the process's filters and its `showwarning`: another thread composing
meanwhile would lose its warnings, or have them shown by someone else. `held` holds back only
compose's warnings (`warn`), only those of the calling thread (or asyncio task: the hold is a
context variable, and every thread starts without one).
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings
from collections.abc import Iterator

# The hold of the current context: the list `warn` appends to, or None (warnings are issued)
_HOLD: contextvars.ContextVar[list[Warning] | None] = contextvars.ContextVar(
    "compose_warnings_held", default=None
)


def warn(
    message: str | Warning, category: type[Warning] = UserWarning, stacklevel: int = 1
) -> None:
    """Issue one of compose's warnings (a text of `category`, or a warning built with its
    fields), or keep it in this thread's innermost `held` list. `stacklevel` counts as
    `warnings.warn`'s does, from the caller of `warn`."""
    hold = _HOLD.get()
    if hold is None:
        warnings.warn(message, category, stacklevel=stacklevel + 1)
    else:
        hold.append(message if isinstance(message, Warning) else category(message))


@contextlib.contextmanager
def held() -> Iterator[list[Warning]]:
    """Compose's warnings issued in this thread inside the block: kept in the list it gives,
    in the order issued, instead of issued (the caller shows them, or drops them)."""
    hold: list[Warning] = []
    token = _HOLD.set(hold)
    try:
        yield hold
    finally:
        _HOLD.reset(token)
