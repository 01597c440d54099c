"""Entrypoints: `cli(schema)` for applications. Exit codes: 0 ok or help, 2 bad input.

Bad input never shows a traceback: the error is printed once, to stderr, as a rich box on a
terminal and as plain text otherwise. Warnings raised while composing are printed the same way.
"""

from __future__ import annotations

import contextlib
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TextIO, TypeVar

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
    screen = help_requested.screen
    if isinstance(screen, HelpScreen) and _terminal(sys.stdout):
        rendered = _rich(lambda render: render.help_panels(screen, sys.stdout))
        if rendered:
            return
    write_text(sys.stdout, help_requested.text)


def report_error(error: ComposeError) -> None:
    if _terminal(sys.stderr) and _rich(lambda render: render.error_box(error, sys.stderr)):
        return
    write_text(sys.stderr, f"error: {error.format()}\n")


def write_text(stream: TextIO, text: str) -> None:
    """Write `text`, escaping what the stream's encoding cannot hold (undecodable argv bytes
    come back as surrogates): output must never be the thing that fails."""
    try:
        stream.write(text)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "utf-8"
        stream.write(text.encode(encoding, "backslashreplace").decode(encoding))


def _terminal(stream: TextIO) -> bool:
    return stream.isatty()


def _rich(draw: Callable[[Any], None]) -> bool:
    """Draw with rich (imported only now: it costs ~30 ms); False if the text cannot be shown."""
    from compose import _render  # noqa: PLC0415

    try:
        draw(_render)
    except UnicodeEncodeError:
        return False
    return True


def _show_warnings(caught: list[warnings.WarningMessage]) -> None:
    for message in caught:
        if issubclass(message.category, _OUR_WARNINGS):
            write_text(sys.stderr, f"warning: {message.message}\n")
        else:
            warnings.warn_explicit(
                message.message, message.category, message.filename, message.lineno
            )
