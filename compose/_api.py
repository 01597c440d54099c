"""The programmatic surface: `compose()` for files plus overrides, `parse()` for argv.

Both run the same pipeline: items -> composition graph -> (interpolation) -> binding.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any, TypeVar, overload

from pydantic import BaseModel

from compose._argv import FileItem, HelpItem, Item, parse_overrides, split_argv
from compose._bind import bind, plain_nones
from compose._graph import compose_items
from compose._help import help_screen, plain_help
from compose.errors import ComposeError, HelpRequested

M = TypeVar("M", bound=BaseModel)
Source = str | os.PathLike[str]


@overload
def compose(sources: Sequence[Source], overrides: Sequence[str] = (), *, schema: type[M]) -> M: ...
@overload
def compose(
    sources: Sequence[Source], overrides: Sequence[str] = (), *, schema: None = None
) -> dict[str, Any]: ...
def compose(
    sources: Sequence[Source], overrides: Sequence[str] = (), *, schema: type[M] | None = None
) -> M | dict[str, Any]:
    """Merge TOML `sources` left to right, then `overrides` (`key=value`, `key=@file`, `~key`).

    With `schema`, the validated instance; without, the resolved plain dict.
    """
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    items: list[Item] = [FileItem(os.fspath(s), "", os.fspath(s)) for s in sources]
    items += parse_overrides(list(overrides))
    return _run(items, schema)


def parse(schema: type[M], argv: Sequence[str], *, prog: str | None = None) -> M:
    """argv tokens (without the program name) -> a validated `schema` instance.

    Raises `ComposeError` for bad input and `HelpRequested` for `--help`; never exits.
    """
    items = split_argv(list(argv))
    asked = [item for item in items if isinstance(item, HelpItem)]
    if asked:
        raise _help(schema, items, asked[-1].section, prog or program_name())
    return _run(items, schema)  # type: ignore[return-value]  # with a schema: an M


def _help(schema: type[M], items: list[Item], narrow: str, prog: str) -> HelpRequested:
    """Help; after `@ files` or flags, with the values they compose and who set each."""
    nodes: list[Item] = [item for item in items if not isinstance(item, HelpItem)]
    composed, problem = None, ""
    try:
        composed = compose_items(nodes, schema) if nodes else None
    except ComposeError as error:  # help still helps: bare defaults, and what went wrong
        problem = error.format()
    screen = help_screen(schema, prog, narrow, composed, problem)
    return HelpRequested(plain_help(screen), screen)


def _run(items: list[Item], schema: type[M] | None) -> M | dict[str, Any]:
    composed = compose_items(items, schema)
    if schema is None:
        result: dict[str, Any] = plain_nones(composed.tree)
        return result
    return bind(composed, schema)  # type: ignore[no-any-return]


def program_name() -> str:
    return os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "app"
