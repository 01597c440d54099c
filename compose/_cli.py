"""Entrypoints: `cli(schema)` for applications. Exit codes: 0 ok or help, 2 bad input.

Bad input never shows a traceback: the error is printed once, to stderr, as a rich box on a
terminal and as plain text otherwise. Warnings raised while composing are printed the same way.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Iterator, Sequence
from typing import TypeVar

from pydantic import BaseModel

from compose._api import parse, program_name
from compose._help import HelpScreen
from compose._merge import ComposeWarning
from compose.errors import ComposeError, HelpRequested

M = TypeVar("M", bound=BaseModel)
EXIT_BAD_INPUT = 2
_OUR_WARNINGS = (ComposeWarning, FutureWarning)


def cli(schema: type[M], argv: Sequence[str] | None = None, *, prog: str | None = None) -> M:
    """Parse `argv` (default: `sys.argv[1:]`) into `schema`; print help or errors and exit."""
    args = list(sys.argv[1:] if argv is None else argv)
    name = prog or program_name()
    with warnings_as_lines():  # printed first: they explain what follows
        try:
            return parse(schema, args, prog=name)
        except ComposeError as error:
            outcome = error
    if isinstance(outcome, HelpRequested):
        show_help(outcome)
        raise SystemExit(0)
    report_error(outcome)
    raise SystemExit(EXIT_BAD_INPUT)


@contextlib.contextmanager
def warnings_as_lines() -> Iterator[None]:
    """Our warnings (a union switch, a renamed key) as `warning: ...` lines on stderr, printed
    before the result or error they led to; other warnings pass through untouched."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            _show_warnings(caught)


def show_help(help_requested: HelpRequested) -> None:
    if sys.stdout.isatty() and isinstance(help_requested.screen, HelpScreen):
        from compose import _render  # noqa: PLC0415  # rich costs ~30 ms: load it only to show it

        _render.help_panels(help_requested.screen, sys.stdout)
    else:
        sys.stdout.write(help_requested.text)


def report_error(error: ComposeError) -> None:
    if sys.stderr.isatty():
        from compose import _render  # noqa: PLC0415  # rich costs ~30 ms: load it only to show it

        _render.error_box(error, sys.stderr)
    else:
        sys.stderr.write(f"error: {error.format()}\n")


def _show_warnings(caught: list[warnings.WarningMessage]) -> None:
    for message in caught:
        if issubclass(message.category, _OUR_WARNINGS):
            sys.stderr.write(f"warning: {message.message}\n")
        else:
            warnings.warn_explicit(
                message.message, message.category, message.filename, message.lineno
            )
