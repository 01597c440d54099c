"""Help entries from a schema, as plain data, and their plain-text rendering.

Sections come in schema order; a discriminated union lists only its active variant's fields
and names the others in one line, so help stays the size of what the user can set now.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from compose._schema import NO_DEFAULT, plan_of
from compose._types import Kind, Shape

USAGE = "[@ FILE ...] [--SECTION @ FILE ...] [--KEY VALUE ...]"
_MAX_DEPTH = 12


@dataclass(frozen=True)
class Entry:
    flag: str
    type: str
    default: str
    description: str


@dataclass
class Section:
    """One panel of help: the flags directly in a section."""

    flag: str  # "" for the top level
    title: str
    entries: list[Entry] = field(default_factory=list)
    note: str = ""


def help_sections(schema: type[BaseModel], narrow: str = "") -> list[Section]:
    """The help panels of `schema`, optionally only those under the section `narrow`."""
    sections: list[Section] = []
    _collect(schema, NO_DEFAULT, "", "options", sections, 0)
    if narrow:
        wanted = "--" + narrow.removeprefix("--").replace("_", "-")
        sections = [s for s in sections if s.flag == wanted or s.flag.startswith(wanted + ".")]
    return sections


def _collect(
    model: type[BaseModel], default: Any, flag: str, title: str, sections: list[Section], depth: int
) -> None:
    section = Section(flag, title)
    sections.append(section)
    nested: list[tuple[str, Shape, Any]] = []
    for name, plan in plan_of(model).fields.items():
        child_flag = f"{flag}.{name.replace('_', '-')}" if flag else f"--{name.replace('_', '-')}"
        value = getattr(default, name) if isinstance(default, model) else plan.default
        section.entries.append(
            Entry(
                child_flag,
                _type_label(plan.shape),
                _default_text(value, plan.shape),
                plan.description,
            )
        )
        if plan.shape.is_section and depth < _MAX_DEPTH:
            nested.append((child_flag, plan.shape, value))
    for child_flag, shape, value in nested:
        _collect_shape(shape, value, child_flag, sections, depth + 1)


def _collect_shape(
    shape: Shape, default: Any, flag: str, sections: list[Section], depth: int
) -> None:
    if shape.model is not None:
        title = flag.removeprefix("--") + (" (optional)" if shape.nullable else "")
        _collect(shape.model, default, flag, title, sections, depth)
        return
    active = type(default) if isinstance(default, BaseModel) else None
    if active is None and shape.variants:
        active = shape.variants[0][1]
    if active is None:
        return
    name = next((tag for tag, model in shape.variants if model is active), "")
    others = [tag for tag, _ in shape.variants if tag != name]
    title = f"{flag.removeprefix('--')} ({shape.tag} = {name})"
    _collect(active, default, flag, title, sections, depth)
    if others:
        sections[-1].note = f"other variants: {', '.join(others)} (choose with {flag}.{shape.tag})"


def _type_label(shape: Shape) -> str:
    if shape.kind is Kind.LIST and shape.item is not None:
        return f"[{shape.item.label} ...]"
    return shape.label


def _default_text(value: Any, shape: Shape) -> str:
    if value is NO_DEFAULT:
        return "required"
    if shape.is_section and value is not None:
        return ""
    if isinstance(value, BaseModel):
        return ""
    if isinstance(value, enum.Enum):
        return str(value.value)  # the text to type, not the member's repr
    return repr(value) if isinstance(value, str) else str(value)


def plain_help(schema: type[BaseModel], prog: str, narrow: str = "") -> str:
    lines = [f"usage: {prog} {USAGE}", ""]
    doc = (schema.__doc__ or "").strip()
    if doc and not narrow:
        lines += [doc.splitlines()[0], ""]
    for section in help_sections(schema, narrow):
        lines.append(f"{section.title}:")
        width = max((len(e.flag) + len(e.type) for e in section.entries), default=0) + 3
        for entry in section.entries:
            lines.append("  " + _entry_line(entry, width))
        if section.note:
            lines.append(f"  ({section.note})")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _entry_line(entry: Entry, width: int) -> str:
    head = f"{entry.flag} {entry.type}".ljust(width)
    tail = entry.description
    if entry.default:
        tail = f"{tail} (default: {entry.default})".strip()
    return f"{head}{tail}".rstrip()
