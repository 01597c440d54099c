"""The only module that imports rich: error boxes (help panels come with the help screen)."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.panel import Panel
from rich.text import Text

from compose.errors import ComposeError


def error_box(error: ComposeError, stream: TextIO) -> None:
    console = Console(file=stream, highlight=False)
    body = Text()
    for index, item in enumerate(error.errors):
        if index:
            body.append("\n")
        body.append_text(_error_text(item))
    title = "error" if len(error.errors) == 1 else f"{len(error.errors)} errors"
    console.print(Panel(body, title=title, title_align="left", border_style="red"))


def _error_text(error: ComposeError) -> Text:
    text = Text()
    if error.key:
        text.append(error.key, style="bold cyan")
    if error.has_value:
        text.append(" = " if error.key else "")
        text.append(repr(error.value), style="yellow")
    if error.origin:
        text.append(
            f" (from {error.origin})" if (error.key or error.has_value) else error.origin,
            style="dim",
        )
    text.append(": " if text else "")
    text.append(error.message)
    if error.hint:
        text.append(f"\n  {error.hint}", style="green")
    return text
