"""Help entries from a schema, as plain data, and their plain-text rendering.

Sections come in schema order, one panel each. A discriminated union lists only its active
variant's fields and names the others in one line, so help stays the size of what the user can
set now (prime-rl's full help was ~2,500 lines). Given `@ files` before `--help`, entries show
the composed values and the node that set each, instead of bare defaults.
"""

from __future__ import annotations

import enum
import os
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from compose._input.search import SearchPath, config_groups
from compose._output.plain import json_text, to_data
from compose._schema.keys import closest_flag, flag_segment
from compose._schema.plan import NO_DEFAULT, is_secret, plan_of
from compose._schema.shape import Kind, Shape
from compose._syntax import (
    COLUMNS_VARIABLE,
    FROM_RUN_FLAG,
    HELP_FLAGS,
    SECRET_MASK,
    SWEEP_CONTROLS,
    SWEEP_DRY_RUN,
    SWEEP_FLAG,
    kebab_case,
    snake_case,
)
from compose.errors import UnknownKeyError, printable

if TYPE_CHECKING:  # only a type here: the graph module is not needed to draw help
    from compose._merge.composed import Composed

# The usage line's parts: plain help breaks the line between them, never inside one
USAGE_PARTS = ("[@ FILE ...]", "[--SECTION @ FILE ...]", "[--KEY VALUE ...]", "[--LIST+ VALUE ...]")
USAGE = " ".join(USAGE_PARTS)
# An app reading a Hydra tree (`cli(schema, hydra=...)`) takes Hydra's command line instead
HYDRA_USAGE_PARTS = ("[-m]", "[--config-path DIR]", "[--config-name NAME]", "[OVERRIDE ...]")
DEFAULT_WIDTH = 80  # columns of plain help piped with no $COLUMNS, as argparse and rich draw it
_MIN_WIDTH = 40  # a smaller $COLUMNS still gets lines a flag and a few words fit in
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
        self.footer = ""  # the last line: how to see one section (on the whole screen only)
        self.usage_parts = USAGE_PARTS  # what the command line takes, as the usage line says

    @property
    def usage(self) -> str:
        return f"usage: {self.prog} {' '.join(self.usage_parts)}"


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
    if narrow:
        return HelpScreen(prog, summary, sections, composed is not None, problem, environment)
    screen = HelpScreen(
        prog, summary, [*sections, entrypoint_section()], composed is not None, problem, environment
    )
    screen.footer = _narrowing_line(prog, sections)
    return screen


def entrypoint_section() -> Section:
    """The flags every entrypoint takes besides its schema's (`cli`: sweeps, reruns, help),
    named by the constants that reserve them (`compose._syntax`)."""
    short_help, long_help = HELP_FLAGS
    rows = [
        (SWEEP_FLAG, "@ FILE", "run a sweep: each point of the sweep file (several: a product)"),
        (f"{SWEEP_FLAG}.KEY", "V1 V2 ...", "a sweep axis: a point per value, times the other axes"),
        (
            SWEEP_CONTROLS[0],
            "NAME",
            "the sweep's directory name (default: the file's stem, or sweep)",
        ),
        *_control_rows(""),
        (FROM_RUN_FLAG, "DIR", "compose a recorded run again (DIR/run.json), later flags on top"),
        (long_help, "[SECTION]", f"this help (or {short_help}); with SECTION, only that section"),
    ]
    entries = [Entry(flag, argument, "", "", text) for flag, argument, text in rows]
    return Section("", "sweeps, reruns and help", entries)


def _control_rows(when: str) -> list[tuple[str, str, str]]:
    """The controls of a sweep but its name, each said after `when` (`"with -m: "`)."""
    _, run_dir, output, executor, resume = SWEEP_CONTROLS
    rows = [
        (run_dir, "DIR", "where the sweep's directory goes (default: runs)"),
        (output, "KEY", "the key set to each point's own directory"),
        (executor, "NAME", "what runs the points: none, local, submitit, sbatch, ray"),
        (resume, "", "run again only the points that failed or never started"),
        (SWEEP_DRY_RUN, "", "with a sweep: write its records, run nothing"),
    ]
    return [(flag, argument, when + text) for flag, argument, text in rows]


def hydra_section() -> Section:
    """Hydra's command line, as an app that reads a Hydra tree (`cli(hydra=)`) takes it:
    overrides, the tree's flags, and multirun, which the sweep controls steer."""
    short_help, long_help = HELP_FLAGS
    rows = [
        ("KEY=VALUE", "", "set a value the config has (+KEY=V adds one, ++KEY=V either)"),
        ("GROUP=OPTION", "", "choose a config group's option; +GROUP=OPTION adds an entry"),
        ("~KEY", "", "delete a key, or a group's entry (~GROUP=OPTION: if it is that)"),
        ("--multirun", "", "(or -m) a run per job of the sweeps (a=1,2 b=range(3)): a sweep"),
        ("--config-path", "DIR", "(or -cp) the config directory, relative to the app's file"),
        ("--config-name", "NAME", "(or -cn) the primary config, NAME.yaml"),
        ("--config-dir", "DIR", "(or -cd) one more directory the configs are found in"),
        (
            SWEEP_CONTROLS[0],
            "NAME",
            "with -m: the sweep's directory name (default: a new one, named by its start)",
        ),
        *_control_rows("with -m: "),
        (FROM_RUN_FLAG, "DIR", "the run DIR records (a job of -m) again; overrides after it"),
        (long_help, "", f"this help (or {short_help})"),
    ]
    entries = [Entry(flag, argument, "", "", text) for flag, argument, text in rows]
    return Section("", "Hydra's command line", entries)


def _narrowing_line(prog: str, sections: list[Section]) -> str:
    """How to see one section, with the first as the example ("" for a schema without any)."""
    example = next((s.flag.removeprefix("--") for s in sections if s.flag), None)
    if example is None:
        return ""
    shown = f"{prog} --help {example}"
    return f"{prog} --help SECTION shows one section and those under it ({shown})"


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


def help_width() -> int:
    """The columns plain help fills: $COLUMNS, else the terminal's, else 80 (piped)."""
    columns = os.environ.get(COLUMNS_VARIABLE, "").strip()
    if columns.isdigit() and int(columns) > 0:
        return max(int(columns), _MIN_WIDTH)
    try:
        return max(os.get_terminal_size(sys.stdout.fileno()).columns, _MIN_WIDTH)
    except (OSError, ValueError, AttributeError):  # not a terminal (piped, captured), or none
        return DEFAULT_WIDTH


def plain_help(screen: HelpScreen, width: int | None = None) -> str:
    """The screen as plain text, every line within `width` columns (`help_width()`) but a flag
    longer than a line, which no break can shorten."""
    width = width or help_width()
    first = f"usage: {screen.prog} "
    lines = fill(screen.usage_parts, width, first, " " * len(first))
    lines += paragraph(screen.environment, width)
    lines.append("")
    if screen.problem:
        lines += [*paragraph(f"(values not shown: {screen.problem})", width), ""]
    if screen.summary:
        lines += [*paragraph(screen.summary, width, indent=""), ""]
    for section in screen.sections:
        lines += paragraph(f"{section.title}:", width)
        lines += entry_lines(section.entries, width, screen.composed)
        if section.note:
            lines += fill(f"({section.note})".split(" "), width, "  ", "   ")
        if section.pieces:
            lines += _pieces_lines(section.pieces, width)
        lines.append("")
    lines += paragraph(screen.footer, width)
    return "\n".join(lines).rstrip() + "\n"


def fill(words: Iterable[str], width: int, first: str = "", rest: str = "") -> list[str]:
    """`words` joined by spaces in lines of at most `width` columns where they fit: the first
    line after `first`, the others after `rest`. A word too long for a line has one of its own."""
    lines: list[str] = []
    line, bare = first, True
    for word in words:
        if not word:
            continue
        if not bare and len(line) + 1 + len(word) > width:
            lines.append(line)
            line, bare = rest, True
        line += word if bare else " " + word
        bare = False
    lines.append(line)
    return [text.rstrip() for text in lines]


def paragraph(text: str, width: int, indent: str = "  ") -> list[str]:
    """Each line of `text` filled to `width`, its continuation lines indented by `indent` more
    than it is (an error's lines keep their own indentation)."""
    lines: list[str] = []
    for line in text.splitlines():
        own = line[: len(line) - len(line.lstrip(" "))]
        lines += fill(line.split(" "), width, own, own + indent)
    return lines


# Below this many columns for descriptions, each goes on the lines under its flag (as rich
# panels do): a narrow screen wraps descriptions there instead of in a sliver of a column
MIN_DESCRIPTION = 32
_STACKED_INDENT = " " * 6


def entry_lines(entries: list[Entry], width: int, composed: bool) -> list[str]:
    """A section's entries, `flag type` then what it does: in two columns where the second has
    `MIN_DESCRIPTION` columns at least, else each description under its flag."""
    heads = [f"{entry.flag} {entry.type}".rstrip() for entry in entries]
    column = max((len(head) for head in heads), default=0) + 2
    stacked = 2 + column + MIN_DESCRIPTION > width
    lines: list[str] = []
    for head, entry in zip(heads, entries, strict=True):
        tail = f"{entry.description} {value_note(entry, composed)}".split(" ")
        if stacked:
            lines.append(f"  {head}")
            if any(tail):
                lines += fill(tail, width, _STACKED_INDENT, _STACKED_INDENT)
        else:
            lines += fill(tail, width, "  " + head.ljust(column), " " * (2 + column))
    return lines


def _pieces_lines(pieces: str, width: int) -> list[str]:
    """`  pieces: a, b (--flag @ group/NAME)`, broken after a piece's comma, the usage hint kept
    whole."""
    names, _, usage = pieces.rpartition(" (")
    return fill([*names.split(" "), f"({usage}"], width, "  pieces: ", " " * 10)


def value_note(entry: Entry, composed: bool) -> str:
    """`(default: 3)` on a bare screen; `(= 3, from b.toml:3)` once nodes were given."""
    if not composed:
        return f"(default: {entry.value})" if entry.value else ""
    if not entry.value:
        return f"(from {entry.origin})" if entry.origin not in ("", "default") else ""
    return f"(= {entry.value}, from {entry.origin})" if entry.origin else f"(= {entry.value})"
