"""Help entries from a schema, as plain data, and their plain-text rendering.

Sections come in schema order, one panel each. A discriminated union lists only its active
variant's fields and names the others in one line, so help stays the size of what the user can
set now (prime-rl's full help was ~2,500 lines). Given `@ files` before `--help`, entries show
the composed values and the node that set each, instead of bare defaults.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from compose._input.search import SearchPath, config_groups
from compose._output.plain import json_text, to_data
from compose._schema.keys import closest_flag, flag_segment
from compose._schema.plan import NO_DEFAULT, is_secret, plan_of
from compose._schema.shape import Kind, Shape
from compose._syntax import SECRET_MASK, kebab_case, snake_case
from compose.errors import UnknownKeyError, printable

if TYPE_CHECKING:  # only a type here: the graph module is not needed to draw help
    from compose._merge.composed import Composed

USAGE = "[@ FILE ...] [--SECTION @ FILE ...] [--KEY VALUE ...] [--LIST+ VALUE ...]"
_MAX_DEPTH = 12
_MAX_VALUE = 48


# Plain classes, not dataclasses or named tuples: this module is imported by every `--help` (on
# the cost of defining classes, see `compose._schema.plan`).


class Entry:
    """One flag of a panel."""

    def __init__(self, flag: str, type: str, value: str, origin: str, description: str) -> None:
        self.flag = flag
        self.type = type
        self.value = value  # the default, or the composed value
        self.origin = origin  # who set the value: "" for a bare default screen
        self.description = description


class Section:
    """One panel of help: the flags directly in a section."""

    def __init__(
        self, flag: str, title: str, entries: list[Entry], note: str = "", pieces: str = ""
    ) -> None:
        self.flag = flag  # "" for the top level
        self.title = title
        self.entries = entries  # filled in as the schema is walked
        self.note = note
        self.pieces = pieces  # the search path's files for this section: `optim/adamw, ...`


class HelpScreen:
    """What help shows: drawn as text (`plain_help`) or as panels (`compose._output.render`)."""

    def __init__(
        self,
        prog: str,
        summary: str,
        sections: list[Section],
        composed: bool,
        problem: str = "",
        environment: str = "",
    ) -> None:
        self.prog = prog
        self.summary = summary
        self.sections = sections
        self.composed = composed  # values are what the given nodes composed
        self.problem = problem  # why the given nodes could not be composed
        self.environment = environment  # which variables set fields (with `env_prefix`)

    @property
    def usage(self) -> str:
        return f"usage: {self.prog} {USAGE}"


def help_screen(
    schema: type[BaseModel],
    prog: str,
    narrow: str = "",
    composed: Composed | None = None,
    problem: str = "",
    search_path: SearchPath = (),
    env_prefix: str | None = None,
) -> HelpScreen:
    """The help of `schema`, optionally only the sections under `narrow` (`trainer.optim`).

    A section named as a directory of the search path lists that directory's pieces; with
    `env_prefix`, one line says which environment variables set fields.
    """
    walker = _Walker(composed)
    walker.model(schema, NO_DEFAULT, composed.tree if composed else None, (), "", "options", 0)
    sections = _with_pieces(walker.sections, search_path)
    if narrow:
        sections = _narrowed(sections, narrow)
    doc = (schema.__doc__ or "").strip()
    summary = doc.splitlines()[0] if doc and not narrow else ""
    environment = environment_line(env_prefix) if env_prefix else ""
    return HelpScreen(prog, summary, sections, composed is not None, problem, environment)


def _narrowed(sections: list[Section], narrow: str) -> list[Section]:
    """The sections under `narrow`. None is an error naming what was likely meant: a typo must
    not look like a section without fields."""
    wanted = "--" + kebab_case(narrow.removeprefix("--"))
    found = [s for s in sections if s.flag == wanted or s.flag.startswith(wanted + ".")]
    if found:
        return found
    hint = _section_hint(sections, wanted)
    raise UnknownKeyError("no such section", key=wanted, origin="--help", hint=hint)


def _section_hint(sections: list[Section], wanted: str) -> str | None:
    for section in sections:
        if any(entry.flag == wanted for entry in section.entries):
            where = section.flag.removeprefix("--")
            return f"a field, shown by --help {where}" if where else "a field, shown by --help"
    near = closest_flag(wanted, [section.flag for section in sections if section.flag])
    return f"did you mean --help {near.removeprefix('--')}?" if near else None


def environment_line(prefix: str) -> str:
    """The one line of help on the environment layer (the layer itself is `compose._input.env`)."""
    setting = f"{prefix}SECTION__FIELD=VALUE sets --section.field"
    return f"environment: {setting} (files and flags override it)"


class _Walker:
    def __init__(self, composed: Composed | None) -> None:
        self.composed = composed
        self.sections: list[Section] = []

    def model(
        self,
        model: type[BaseModel],
        default: Any,
        node: Any,
        path: tuple[Any, ...],
        flag: str,
        title: str,
        depth: int,
        union: Shape | None = None,
        note: str = "",
    ) -> None:
        """One panel for `model`, then its sub-sections; in a `union`, the tag lists variants."""
        section = Section(flag, title, [], note)
        self.sections.append(section)
        tag = union.tag if union is not None else None
        nested: list[tuple[str, Shape, Any, Any, tuple[Any, ...]]] = []
        # once a model, not once a field: a model's isinstance runs ABCMeta's Python hook
        instance = isinstance(default, model)
        table = node if isinstance(node, dict) else {}
        for name, plan in plan_of(model).fields.items():
            child_flag = _child_flag(flag, name)
            value = getattr(default, name) if instance else plan.shown_default
            child = table.get(name, NO_DEFAULT)
            child_path = (*path, name)
            shape = _tag_choices(union) if union is not None and name == tag else plan.shape
            description = plan.description
            if plan.also:  # validation aliases: the same field under other names
                others = ", ".join(_child_flag(flag, alias) for alias in plan.also)
                description = f"{description} (also {others})".lstrip()
            if isinstance(child, str) and is_secret(plan.info.annotation):
                child = SECRET_MASK  # a secret a node set: help shows that one is set, not it
            section.entries.append(
                self._entry(child_flag, shape, value, child, child_path, description)
            )
            if depth >= _MAX_DEPTH:
                continue
            if plan.shape.is_section:
                nested.append((child_flag, plan.shape, value, child, child_path))
            elif _holds_sections(plan.shape) and plan.shape.item is not None:
                each = ".N" if plan.shape.kind is Kind.LIST else ".KEY"
                item = plan.shape.item
                nested.append((child_flag + each, item, NO_DEFAULT, NO_DEFAULT, child_path))
        for child_flag, shape, value, child, child_path in nested:
            self.section(shape, value, child, child_path, child_flag, depth + 1)

    def _entry(
        self,
        flag: str,
        shape: Shape,
        default: Any,
        child: Any,
        path: tuple[Any, ...],
        description: str,
    ) -> Entry:
        if shape.merge is not None:  # a list that later files extend, or merge by key
            description = f"{description} ({shape.merge.describe()})".lstrip()
        if self.composed is None or child is NO_DEFAULT:
            origin = "default" if self.composed is not None else ""
            return Entry(flag, type_label(shape), _value_text(default, shape), origin, description)
        origin = printable(self.composed.origins.describe(path) or "")  # a file's name
        return Entry(flag, type_label(shape), _value_text(child, shape), origin, description)

    def section(
        self, shape: Shape, default: Any, node: Any, path: tuple[Any, ...], flag: str, depth: int
    ) -> None:
        name = flag.removeprefix("--")
        state = _optional_state(shape, default, node)
        if shape.model is not None:
            self.model(shape.model, default, node, path, flag, name + state, depth)
            return
        if shape.tag is None:  # a plain `A | B`: a panel for each, as any may be chosen
            names = ", ".join(tag for tag, _ in shape.variants)
            note = f"one of {names}: Pydantic chooses the one the keys set fit (smart mode)"
            for tag_value, model in shape.variants:
                value = default if isinstance(default, model) else NO_DEFAULT
                title = f"{name} (as {tag_value}){state}"
                self.model(model, value, node, path, flag, title, depth, None, note)
            return
        active = _active_variant(shape, default, node)
        if active is None:
            return
        tag_value, model = active
        title = f"{name} ({shape.tag} = {tag_value}){state}"
        others = [tag for tag, _ in shape.variants if tag != tag_value]
        note = (
            f"other variants: {', '.join(others)} (choose with {flag}.{_kebab(shape.tag)})"
            if others
            else ""
        )
        self.model(model, default, node, path, flag, title, depth, shape, note)


def _with_pieces(sections: list[Section], search_path: SearchPath) -> list[Section]:
    """`pieces: optim/adamw, optim/muon (--trainer.optim @ optim/NAME)` on each section whose
    field is named as a directory of the search path (Hydra's config groups)."""
    names = {_field_name(section) for section in sections if section.flag}
    groups = config_groups(search_path, names)
    if not groups:
        return sections
    return [_pieces_of(section, groups) for section in sections]


def _field_name(section: Section) -> str:
    """`--trainer.optim` -> `optim` (as the field, and the directory, is named)."""
    return snake_case(section.flag.rpartition(".")[2].removeprefix("--"))


def _pieces_of(section: Section, groups: dict[str, list[str]]) -> Section:
    group = _field_name(section)
    pieces = groups.get(group)
    if not section.flag or not pieces:
        return section
    listed = f"{', '.join(pieces)} ({section.flag} @ {group}/NAME)"
    return Section(section.flag, section.title, section.entries, section.note, listed)


def _holds_sections(shape: Shape) -> bool:
    """A list or dict of sections: help shows one element's fields (`--env.N.id`)."""
    item = shape.item
    return shape.kind in (Kind.LIST, Kind.DICT) and item is not None and item.is_section


def _tag_choices(union: Shape) -> Shape:
    return Shape(Kind.SCALAR, literal=True, accepts_str=True, label=union.label)


def _kebab(name: str | None) -> str:
    return flag_segment(name or "")


def _child_flag(flag: str, name: str) -> str:
    """The flag of field `name` in the section whose flag is `flag` ("" at the root)."""
    return f"{flag}.{_kebab(name)}" if flag else f"--{_kebab(name)}"


def _optional_state(shape: Shape, default: Any, node: Any) -> str:
    if not shape.nullable:
        return ""
    on = isinstance(node, dict) or (node is NO_DEFAULT and isinstance(default, BaseModel))
    return " (optional, on)" if on else " (optional, off)"


def _active_variant(shape: Shape, default: Any, node: Any) -> tuple[str, type[BaseModel]] | None:
    chosen = node.get(shape.tag) if isinstance(node, dict) and shape.tag else None
    if chosen is None and isinstance(default, BaseModel) and shape.tag:
        chosen = getattr(default, shape.tag, None)
    for tag, model in shape.variants:
        if tag == chosen:
            return tag, model
    return shape.variants[0] if shape.variants else None


def type_label(shape: Shape) -> str:
    if shape.kind is Kind.LIST and shape.item is not None:
        return f"[{shape.item.label} ...]" + ("|None" if shape.nullable else "")
    return shape.label


_PLAIN = frozenset((int, float, bool, type(None)))  # shown as str() shows them


def _value_text(value: Any, shape: Shape) -> str:
    if value is NO_DEFAULT:
        return "required"
    if type(value) in _PLAIN:  # most defaults: before the isinstance checks (BaseModel's is slow)
        text = str(value)
    elif isinstance(value, BaseModel) or (shape.is_section and isinstance(value, dict)):
        return ""
    elif isinstance(value, enum.Enum):
        return str(value.value)  # the text to type, not the member's repr
    elif isinstance(value, (list, tuple, dict)):
        text = json_text(to_data(value))
    else:
        text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 3] + "..."


def plain_help(screen: HelpScreen) -> str:
    lines = [screen.usage, screen.environment, ""] if screen.environment else [screen.usage, ""]
    if screen.problem:
        lines += [f"(values not shown: {screen.problem})", ""]
    if screen.summary:
        lines += [screen.summary, ""]
    for section in screen.sections:
        lines.append(f"{section.title}:")
        width = max((len(e.flag) + len(e.type) for e in section.entries), default=0) + 3
        lines.extend("  " + _entry_line(entry, width, screen.composed) for entry in section.entries)
        if section.note:
            lines.append(f"  ({section.note})")
        if section.pieces:
            lines += _wrapped(section.pieces)
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _wrapped(pieces: str, width: int = 100) -> list[str]:
    """`  pieces: a, b (--flag @ group/NAME)` in lines of at most `width` columns where it can,
    broken after a piece's comma, the usage hint kept whole."""
    names, _, usage = pieces.rpartition(" (")
    lines: list[str] = []
    line = "  pieces:"
    for word in [*names.split(" "), f"({usage}"]:
        if len(line) + 1 + len(word) > width and line.strip() != "pieces:":
            lines.append(line)
            line = " " * 9
        line += " " + word
    return [*lines, line]


def value_note(entry: Entry, composed: bool) -> str:
    """`(default: 3)` on a bare screen; `(= 3, from b.toml:3)` once nodes were given."""
    if not composed:
        return f"(default: {entry.value})" if entry.value else ""
    if not entry.value:
        return f"(from {entry.origin})" if entry.origin not in ("", "default") else ""
    return f"(= {entry.value}, from {entry.origin})" if entry.origin else f"(= {entry.value})"


def _entry_line(entry: Entry, width: int, composed: bool) -> str:
    head = f"{entry.flag} {entry.type}".ljust(width)
    tail = f"{entry.description} {value_note(entry, composed)}".strip()
    return f"{head}{tail}".rstrip()
