"""The only module that imports rich: error boxes and help panels for a terminal."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console, Group
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from compose._output.help import HelpScreen, Section, value_note
from compose.errors import ComposeError


def error_box(error: ComposeError, stream: TextIO, width: int | None = None) -> None:
    console = Console(file=stream, highlight=False, width=width)
    body = Text()
    for index, item in enumerate(error.errors):
        if index:
            body.append("\n")
        body.append_text(_error_text(item))
    title = "error" if len(error.errors) == 1 else f"{len(error.errors)} errors"
    console.print(Panel(body, title=title, title_align="left", border_style="red"))


def _error_text(error: ComposeError) -> Text:
    shown = error.shown()  # no control character: a file name cannot restyle the terminal
    text = Text()
    if shown.key:
        text.append(shown.key, style="bold cyan")
    if shown.value is not None:
        text.append(" = " if shown.key else "")
        text.append(shown.value, style="yellow")
    if shown.origin:
        text.append(
            f" (from {shown.origin})" if (shown.key or shown.value is not None) else shown.origin,
            style="dim",
        )
    text.append(": " if text else "")
    text.append(shown.message)
    if shown.hint:
        text.append(f"\n  {shown.hint}", style="green")
    return text


def help_panels(screen: HelpScreen, stream: TextIO, width: int | None = None) -> None:
    """The help screen: usage, then one panel per section (rich honours NO_COLOR; the width is
    $COLUMNS, else the terminal's, unless given), then how to narrow it."""
    console = Console(file=stream, highlight=False, width=width)
    console.print(Text(screen.usage, style="bold"))
    if screen.environment:
        console.print(Text(screen.environment, style="dim"))
    if screen.problem:
        console.print(Text(f"values not shown: {screen.problem}", style="red"))
    if screen.summary:
        console.print(Text("\n" + screen.summary))
    for section in screen.sections:
        console.print(_section_panel(section, screen.composed, console.width))
    if screen.footer:
        console.print(Text(screen.footer, style="dim"))


# Below this many columns for descriptions, each goes on the lines under its flag: a narrow
# terminal wraps descriptions there instead of cutting flags, types and words short
_MIN_DESCRIPTION = 32
_PANEL_CHROME = 8  # the panel's borders and padding, and the grid's gaps


def _section_panel(section: Section, composed: bool, width: int) -> Panel:
    flags = max((len(entry.flag) for entry in section.entries), default=0)
    types = max((len(entry.type) for entry in section.entries), default=0)
    stacked = width - flags - types - _PANEL_CHROME < _MIN_DESCRIPTION
    table = Table.grid(padding=(0, 2))
    if stacked:
        table.add_column(overflow="fold")
    else:
        table.add_column(style="cyan", no_wrap=True)
        table.add_column(style="yellow", no_wrap=True)
        table.add_column(overflow="fold")
    for entry in section.entries:
        note = value_note(entry, composed)
        text = Text(entry.description)
        if note:
            text.append(f" {note}" if entry.description else note, style="dim")
        if stacked:
            head = Text(entry.flag, style="cyan").append(f" {entry.type}", style="yellow")
            table.add_row(head)
            if text:
                table.add_row(Padding(text, (0, 0, 0, 4)))
        else:
            table.add_row(entry.flag, entry.type, text)
    body: Table | Group = table
    notes = [Text(section.note, style="dim italic")] if section.note else []
    if section.pieces:
        notes.append(Text(f"pieces: {section.pieces}", style="dim"))
    if notes:
        body = Group(table, *notes)
    return Panel(body, title=section.title, title_align="left", border_style="blue")


def syntax(text: str, lexer: str, stream: TextIO) -> None:
    """Highlighted TOML or JSON for a terminal."""
    # Imported here: it brings in pygments (~12 ms), which help panels and error boxes never use
    from rich.syntax import Syntax  # noqa: PLC0415

    highlighted = Syntax(text.rstrip("\n"), lexer, theme="ansi_dark", background_color="default")
    Console(file=stream).print(highlighted, soft_wrap=True)  # long values wrap, never crop
