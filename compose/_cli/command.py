"""The `compose` command: see what a composition gives, where each value came from, and why.

Its subcommands, their options and their help are one table, `compose._cli.usage.SUBCOMMANDS`
(`compose --help` prints them all, `compose show --help` one); `COMMAND_OPTIONS` is derived
from it. ARGV is an entrypoint's command line (`@ a.toml --trainer @ t.toml --trainer.lr
1e-3`). A subcommand's own options come first; the first other token, or `--`, ends them. One
given after the operands is an error saying so, never a config key: a key named like an option
is set after `--`, after which no token is an option (for `diff`, the first `--` after LEFT
then separates the two sides). Exit codes: 0 done (diff: no difference), 1 diff found
differences, 2 bad input, with the error on stderr and never a traceback; `job` exits with its
command's exit code, `status` with 0 whatever the points' states; `migrate --check` exits 1
when a file would change.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, PydanticUserError

from compose._api import HydraCall, check_keys, hydra_composed, hydra_resolve, resolve
from compose._bind.validate import bind, plain_nones
from compose._cli.complete import completion_script
from compose._cli.entry import (
    EXIT_INTERRUPTED,
    output_may_close,
    report_error,
    warnings_as_lines,
    write_text,
)
from compose._cli.roles import load_schema
from compose._cli.usage import BY_NAME, SUBCOMMANDS, Subcommand, command_help, usage_text
from compose._input.argv import (
    DeleteItem,
    EnvItem,
    FileItem,
    Item,
    NodeItem,
    ValueItem,
    split_argv,
)
from compose._input.env import with_environment
from compose._input.options import Options as ComposeOptions
from compose._input.origins import FlagSource, Moved, Shifted
from compose._input.search import SearchPath
from compose._merge.composed import Composed
from compose._merge.defaults import default_at
from compose._merge.fold import compose_items
from compose._merge.lists import element_origins
from compose._merge.migrations import versions_of
from compose._output.help import help_width
from compose._output.plain import to_data
from compose._output.toml import to_toml
from compose._schema.plan import plan_of
from compose._schema.secrets import is_secret_path, masked_secrets, masked_value
from compose._schema.shape import section_models
from compose._schema.walk import walk
from compose._syntax import (
    HELP_FLAGS,
    HYDRA_GLOBAL,
    HYDRA_SEARCHPATH,
    NONE_TEXT,
    SCHEMA_VERSION,
    SECRET_MASK,
    dotted,
    snake_case,
    split_dotted,
)
from compose._tree import KeyPath, at_path, equal_data, replaced
from compose.errors import ArgvError, ComposeError, closest, printable

# Each subcommand's option names, as the table gives them (tests/test_docs_surface.py reads it)
COMMAND_OPTIONS: dict[str, frozenset[str]] = {
    command.name: command.option_names for command in SUBCOMMANDS
}
_ALL_OPTIONS = frozenset().union(*COMMAND_OPTIONS.values())
_HELP = (*HELP_FLAGS, "help")  # `compose help [COMMAND]`, `compose show help` too
_HYDRA = "--hydra"  # show and explain: ARGV is Hydra's overrides of DIR:NAME
_END = "--"  # ends a subcommand's options: every token after it is an operand


@dataclass
class Options:
    flags: set[str] = field(default_factory=set)
    values: dict[str, str] = field(default_factory=dict)
    rest: list[str] = field(default_factory=list)
    help: bool = False
    repeated: dict[str, list[str]] = field(default_factory=dict)

    @property
    def schema(self) -> type[BaseModel] | None:
        spec = self.values.get("--schema")
        return load_schema(spec) if spec is not None else None

    @property
    def knobs(self) -> ComposeOptions:
        """How to compose ARGV: `--search-path` and `--env-prefix`, as an app gives them."""
        return ComposeOptions(
            search_path=tuple(self.repeated.get("--search-path", ())),
            env_prefix=self.values.get("--env-prefix"),
        )

    @property
    def search_path(self) -> SearchPath:
        return self.knobs.search_path

    def items(self, argv: list[str]) -> list[Item]:
        """ARGV's nodes, after the environment node when `--env-prefix` asks for one."""
        return with_environment(split_argv(argv), self.values.get("--env-prefix"))

    @property
    def resolved(self) -> bool:
        return "--resolved" in self.flags

    def hydra(self, argv: list[str]) -> HydraCall | None:
        """`--hydra DIR:NAME` with ARGV as Hydra's overrides (None without `--hydra`); the
        options that name compose's own nodes have no meaning there, and are refused."""
        spec = self.values.get(_HYDRA)
        if spec is None:
            if "--defaults" in self.flags:
                raise ArgvError(
                    "lists a Hydra tree's defaults: it needs --hydra DIR:NAME", key="--defaults"
                )
            return None
        for name in ("--search-path", "--env-prefix"):
            if name in self.values or name in self.repeated:
                raise ArgvError(
                    f"composes compose's own nodes: it has no meaning with {_HYDRA}",
                    key=name,
                    hint=f"a Hydra tree's search path is {HYDRA_SEARCHPATH}=[file://DIR]",
                )
        return HydraCall.of(spec, argv, _HYDRA)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    with warnings_as_lines():  # printed first: they explain what follows
        try:
            return _run(args)
        except ComposeError as error:
            failure = error
        except KeyboardInterrupt:  # Ctrl-C: every file is whole (compose._atomic), no traceback
            write_text(sys.stderr, "interrupted\n")
            return EXIT_INTERRUPTED
    report_error(failure)
    return failure.exit_code


def _run(args: list[str]) -> int:
    if not args or args[0] in _HELP:  # `compose`, `compose --help`, `compose help [COMMAND]`
        named = args[1:2]
        text = command_help(_subcommand(named[0]), help_width()) if named else None
        write_text(sys.stdout, text or usage_text(help_width()))
        return 0
    command = _subcommand(args[0])
    options = split_options(args[1:], command)
    if options.help:
        write_text(sys.stdout, command_help(command, help_width()))
        return 0
    return _COMMANDS[command.name](options)


def _subcommand(name: str) -> Subcommand:
    command = BY_NAME.get(name)
    if command is None:
        known = ", ".join(BY_NAME)
        raise ArgvError("unknown command", value=name, hint=f"commands: {known}")
    return command


def split_options(args: list[str], command: Subcommand) -> Options:
    """The command's own options, up to the first other token or `--`; the rest are its
    operands (ARGV, PATHs), in which an option of the command is an error (`_late_options`).
    A keyed command's options may also follow its KEY (`explain KEY --hydra DIR:NAME ARGV`)."""
    options = Options()
    key: list[str] = []  # a keyed command's KEY, which its options may follow
    pos = 0
    while pos < len(args):
        token = args[pos]
        name, eq, value = token.partition("=")
        option = command.option(name)
        if token == _END:
            options.rest = [*key, *args[pos + 1 :]]
            return options
        if token in _HELP:
            options.help = True
        elif option is None and name in _ALL_OPTIONS:
            raise ArgvError(f"is not an option of compose {command.name}", key=name)
        elif option is None and command.keyed and not key:
            key.append(token)
        elif option is None:
            break
        elif not option.metavar:
            if eq:
                raise ArgvError("is a flag: it takes no value", key=name, value=value)
            options.flags.add(name)
        else:
            if not eq:
                pos += 1
                if pos >= len(args):
                    raise ArgvError("expects a value", key=name)
                value = args[pos]
            if option.repeated:
                options.repeated.setdefault(name, []).append(value)
            elif name in options.values:  # which one was meant cannot be told
                raise ArgvError(
                    f"is given twice ({options.values[name]!r} first)",
                    key=name,
                    value=value,
                    hint="give it once",
                )
            else:
                options.values[name] = value
        pos += 1
    options.rest = [*key, *args[pos:]]
    options.help = options.help or _late_options(args[pos:], command)
    return options


def _late_options(rest: list[str], command: Subcommand) -> bool:
    """Whether the operands ask for help (`compose show @ a.toml --help`), after checking them
    for an option of the command, given too late: an error, never a config key nor the option
    (which one was meant cannot be told). A command without ARGV takes no token starting `--`
    there (a path would not exist: 'file not found' for `--quite`)."""
    parts = [part.split(" ")[-1] for part in command.operands.split(f" {_END} ")]  # LEFT, RIGHT
    part, asked = 0, False
    for token in rest:
        name = token.partition("=")[0]  # spelt as the table spells it: `--as_argv` is a key
        if token == _END:
            part = min(part + 1, len(parts) - 1)
        elif token in HELP_FLAGS:
            asked = True
        elif name in command.option_names:
            raise _given_late(name, command, parts[part].removesuffix("..."))
        elif token.startswith("--") and not command.argv:
            allowed = sorted(command.option_names)
            close = closest(name, allowed, cutoff=0.6)
            hint = f"did you mean {close}?" if close else f"options: {', '.join(allowed) or 'none'}"
            raise ArgvError(f"is not an option of compose {command.name}", key=name, hint=hint)
    return asked


def _given_late(name: str, command: Subcommand, where: str) -> ArgvError:
    """`--origins` after ARGV: which was meant, the option or a config key, cannot be told."""
    hint = f"compose {command.name} {name} ... {command.operands}"
    if command.argv:
        keyed = command.operands.replace(f"{where}...", f"{where}... {name}")
        hint += f"; a config key named so is set after --: compose {command.name} -- {keyed}"
    return ArgvError(f"is given after {where}: options come first", key=name, hint=hint)


@dataclass
class Result:
    """A composition as the commands show it: plain data, and who set what."""

    composed: Composed
    data: dict[str, Any]  # secrets masked: what is shown
    validated: bool
    set_leaves: set[KeyPath]  # values some node set (an empty table enables, it sets no key)
    empty_tables: set[KeyPath]
    compared: dict[str, Any]  # secrets as they are: what `diff` compares, never shown

    def origin(self, path: KeyPath) -> str:
        """The node that set `path`, or "default" when none did (a value filled by defaults)."""
        if path in self.empty_tables or any(
            path[:depth] in self.set_leaves for depth in range(len(path), 0, -1)
        ):
            origins = self.composed.origins
            merged = element_origins(origins, path, self.composed.tree)  # a list several set
            return merged or origins.describe(path) or "default"
        return "default"


def compose_argv(argv: list[str], options: Options) -> Result:
    """ARGV composed as the options say: with which schema, search path and environment; or,
    with `--hydra DIR:NAME`, ARGV as Hydra's overrides of that tree."""
    schema, resolved = options.schema, options.resolved
    hydra = options.hydra(argv)
    if hydra is not None:
        composed = hydra_composed(hydra.items(), schema)
    else:
        composed = compose_items(options.items(argv), schema, options.search_path)
    check_keys(composed)
    set_leaves = {path for path, value in leaves(composed.tree) if value != {}}
    empty = {path for path, value in leaves(composed.tree) if value == {}}
    if not resolved:
        shown = masked_secrets(composed.root, composed.tree)
        return Result(composed, shown, False, set_leaves, empty, composed.tree)
    if hydra is not None:
        hydra_resolve(composed)
    else:
        resolve(composed)
    if schema is None:
        plain = plain_nones(composed.tree)
        return Result(composed, plain, False, set_leaves, empty, plain)
    bound = bind(composed, schema)
    revealed = to_data(bound, reveal=True)
    return Result(composed, _stamped(schema, to_data(bound)), True, set_leaves, empty, revealed)


def _stamped(schema: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """A versioned schema's config shown with its `schema_version` first, as `to_toml` writes
    the model: saved, the text reloads as this version, not as version 1 to migrate again."""
    versions = versions_of(schema)
    return data if versions is None else {SCHEMA_VERSION: versions.version, **data}


def show(options: Options) -> int:
    fmt = options.values.get("--format", "toml")
    if fmt not in ("toml", "json"):
        raise ArgvError("expects toml or json", key="--format", value=fmt)
    if "--defaults" in options.flags:
        return _defaults(options)
    result = compose_argv(options.rest, options)
    with_origins = "--origins" in options.flags
    text = _json(result, with_origins) if fmt == "json" else _toml(result, with_origins, options)
    _print(text, fmt)
    return 0


def _defaults(options: Options) -> int:
    """`show --hydra DIR:NAME --defaults`: each config of the tree's defaults list in merge
    order, the package its keys land at, and the defaults entries that chose it (FILE:LINE, the
    primary's first), or the override that did; as a table, or as JSON with --format json."""
    from compose._input.hydra.tree import chain_text  # noqa: PLC0415  # Hydra trees only
    from compose._runs.view import table_lines  # noqa: PLC0415  # this listing only

    hydra = options.hydra(options.rest)
    assert hydra is not None  # `hydra` refuses --defaults without --hydra
    for name in ("--origins", "--resolved", "--schema"):
        if name in options.flags or name in options.values:
            raise ArgvError("shows the config: --defaults lists the configs", key=name)
    rows = [
        {
            "config": leaf.config_path,
            "package": leaf.package,
            "entry": chain_text(leaf.chain),
            "overridden_by": str(leaf.forced_by) if leaf.forced_by is not None else None,
        }
        for leaf in hydra.prepared().defaults.leaves
    ]
    if options.values.get("--format", "toml") == "json":
        _print(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", "json")
        return 0
    shown = [["config", "package", "defaults entry"]]
    for row in rows:
        entry = row["entry"]
        if row["overridden_by"]:
            entry += f", overridden by {row['overridden_by']}"
        shown.append([row["config"], row["package"] or HYDRA_GLOBAL, entry])
    write_text(sys.stdout, "".join(printable(line) + "\n" for line in table_lines(shown)))
    return 0


def _toml(result: Result, with_origins: bool, options: Options) -> str:
    note: Callable[[KeyPath], str | None] | None = result.origin if with_origins else None
    return to_toml(result.data, note=note, literal="--resolved" in options.flags)


def _json(result: Result, with_origins: bool) -> str:
    data = _json_data(to_data(result.data) if not result.validated else result.data)
    if with_origins:
        if "origins" in data:
            raise ArgvError('the config has a key "origins": use --format toml with --origins')
        data["origins"] = {dotted(path): result.origin(path) for path, _ in leaves(result.data)}
    return json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"


def _json_data(value: Any) -> Any:
    """TOML-ready data for JSON: "None" is null again; an integer past Python's 4,300-digit
    conversion limit, which JSON cannot hold as a number here, is its hexadecimal text."""
    if isinstance(value, dict):
        return {key: _json_data(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_data(item) for item in value]
    if type(value) is int and value.bit_length() > _DECIMAL_BITS:
        return hex(value)
    return None if value == NONE_TEXT else value


_DECIMAL_BITS = 14_000  # below 4,300 decimal digits (14,284 bits): `str()` writes it


def leaves(data: Any, path: KeyPath = ()) -> Iterator[tuple[KeyPath, Any]]:
    """Every leaf of plain data with its path; a list of scalars is one leaf."""
    if isinstance(data, dict) and data:
        for key, value in data.items():
            yield from leaves(value, (*path, key))
    elif isinstance(data, list) and data and all(isinstance(v, dict) for v in data):
        for index, value in enumerate(data):
            yield from leaves(value, (*path, index))
    elif path:
        yield path, data


def explain(options: Options) -> int:
    if not options.rest:
        raise ArgvError("expects a KEY, then ARGV", key="explain")
    key, argv = options.rest[0], options.rest[1:]
    if key.startswith("@") or "" in split_dotted(key.removeprefix("--")):
        raise ArgvError("expects a KEY (a dotted path such as trainer.lr), then ARGV", value=key)
    schema = options.schema
    hydra = options.hydra(argv)
    if hydra is not None:
        items = hydra.items()
        final = hydra_composed(items, schema)
    else:
        items = options.items(argv)
        final = compose_items(items, schema, options.search_path)
    check_keys(final)
    path = walk(final.root, _segments(key, schema), final.tree, key).path
    lines = [dotted(path) if hydra is not None else final.show_key(path)]  # as its ARGV names it
    history = (
        _hydra_history(items, schema, path)
        if hydra is not None
        else _history(items, schema, path, options.search_path)
    )
    steps = [(printable(origin), value) for origin, value in history]
    width = max(29, *(len(origin) + 2 for origin, _ in steps))
    lines += [f"  {origin:<{width}}{value}" for origin, value in steps]
    written = _at(final.tree, path)
    with contextlib.suppress(ComposeError):  # the winner resolved too, where it resolves
        hydra_resolve(final) if hydra is not None else resolve(final)
    lines.append(f"  => {_winner(final, path, written, steps[-1][0])}")
    # a file name or key may hold control characters (values are reprs): one line each
    write_text(sys.stdout, "".join(printable(line) + "\n" for line in lines))
    return 0


def _shown(composed: Composed, path: KeyPath, value: Any) -> str:
    """`repr(value)`, masked where `path` is a secret field's: judged in the composition's
    own tree, which says which variant a union section has."""
    if is_secret_path(composed.root, composed.tree, path):
        return repr(masked_value(value))
    if isinstance(value, (dict, list)):  # a section or a list of them: each secret masked
        value = at_path(masked_secrets(composed.root, replaced(composed.tree, path, value)), path)
    return repr(value)


def _winner(final: Composed, path: KeyPath, written: Any, last_step: str) -> str:
    """The value that wins, from its own origin, else the last step that set it: a Hydra
    config loaded at a package makes a table that no line of its own wrote."""
    origin = final.origins.describe(path) or last_step
    masked = _shown(final, path, written)
    if masked != repr(written):  # holds a secret: as written, masked (not resolved)
        shown = masked if isinstance(written, (dict, list)) else SECRET_MASK
        return f"{shown} (from {origin})"
    value = _at(final.tree, path)
    if value is not _UNSET:
        shown = f"{written!r} (from {origin})"
        return shown if value == written else f"{shown}, resolved: {value!r}"
    if final.root.model is None:
        return "(unset)"
    try:
        return f"{default_at(final.root, final.tree, path)!r} (from default)"
    except KeyError:
        return "(unset: no default)"


def _segments(key: str, schema: type[BaseModel] | None) -> list[str]:
    segments = split_dotted(key.removeprefix("--"))
    return segments if schema is not None else [snake_case(s) for s in segments]


def _history(
    items: list[Item], schema: type[BaseModel] | None, path: KeyPath, search_path: SearchPath
) -> list[tuple[str, str]]:
    """Each node that set (or deleted) the value at `path`, composing one more node at a time."""
    env: list[Item] = [item for item in items if isinstance(item, EnvItem)]  # the bottom node
    nodes: list[FileItem | DeleteItem] = [
        item for item in items if isinstance(item, (FileItem, DeleteItem))
    ]
    values = [item for item in items if isinstance(item, ValueItem)]
    stages: list[tuple[list[Item], str]] = [(env, _ENVIRONMENT)] if env else []
    stages += [
        ([*env, *nodes[:count]], nodes[count - 1].shown) for count in range(1, len(nodes) + 1)
    ]
    if values:
        stages.append(([*env, *nodes, *values], "command line"))
    steps: list[tuple[str, str]] = []
    before: Any = _UNSET
    read = 0  # files the stages before read: the last node's are those after
    for stage, label in stages:
        composed = compose_items(stage, schema, search_path)
        value = _at(composed.tree, path)
        alone = label == _ENVIRONMENT  # the environment node alone: it set what is there
        if (alone and value is not _UNSET) or _set_by_last_node(composed, path, value, read):
            steps.append((composed.origins.describe(path) or label, _shown(composed, path, value)))
        elif value is _UNSET and before is not _UNSET:
            steps.append((label, "(deleted)"))
        before, read = value, len(composed.sources)
    return steps or [("default", "(no node sets it)")]


_ENVIRONMENT = "environment"


def _hydra_history(
    items: list[Item], schema: type[BaseModel] | None, path: KeyPath
) -> list[tuple[str, str]]:
    """Each config of a Hydra tree (in merge order), then the value overrides, that set or
    deleted the value at `path`: the tree composed one more node at a time (Hydra's own node,
    first, in every stage), a step kept where the value or its origin changed."""
    steps: list[tuple[str, str]] = []
    before: tuple[Any, str | None] = (_UNSET, None)
    for count in range(2, len(items) + 1):
        composed = compose_items(items[:count], schema)
        value = _at(composed.tree, path)
        now = (value, composed.origins.describe(path) if value is not _UNSET else None)
        if now != before:
            last = items[count - 1]
            label = last.where if isinstance(last, NodeItem) else "command line"
            if value is _UNSET:
                steps.append((label, "(deleted)"))
            else:
                steps.append((now[1] or label, _shown(composed, path, value)))
        before = now
    return steps or [("default", "(no node sets it)")]


def _set_by_last_node(composed: Composed, path: KeyPath, value: Any, read: int) -> bool:
    """Whether the stage's last node wrote `path`: a flag of the CLI node, or a file it read
    (the node's own, or one it includes), the files before `read` being earlier nodes'."""
    if value is _UNSET:
        return False
    origin = composed.origins.lookup(path)
    if isinstance(origin, FlagSource):
        return True
    source = origin.source if isinstance(origin, (Moved, Shifted)) else origin
    return any(source is own for own in composed.sources[read:])


class _Unset:
    def __repr__(self) -> str:
        return "(unset: the class default applies)"


_UNSET: Any = _Unset()


def _at(tree: Any, path: KeyPath) -> Any:
    node = tree
    for segment in path:
        node = _step_into(node, segment)
    return node


def _step_into(node: Any, segment: str | int) -> Any:
    if isinstance(node, dict):
        return node.get(segment, _UNSET)
    if isinstance(node, list) and isinstance(segment, int) and segment < len(node):
        return node[segment]
    return _UNSET


def diff(options: Options) -> int:
    if "--" not in options.rest:
        raise ArgvError("expects LEFT... -- RIGHT...", key="diff")
    split = options.rest.index("--")
    if "--as-argv" in options.flags:
        return _diff_as_argv(options.rest[:split], options.rest[split + 1 :], options)
    left = compose_argv(options.rest[:split], options)
    right = compose_argv(options.rest[split + 1 :], options)
    lines = list(_differences(left, right))
    write_text(sys.stdout, "".join(line + "\n" for line in lines) if lines else "no differences\n")
    return 1 if lines else 0


def _diff_as_argv(left: list[str], right: list[str], options: Options) -> int:
    """The flags that, after LEFT, compose what RIGHT composes (resolved and validated, with a
    schema): one line a shell reads back, pasted after LEFT's command line."""
    import shlex  # noqa: PLC0415  # this option only

    from compose._api import parse_plain, parse_with, to_argv  # noqa: PLC0415  # see above

    schema = options.schema
    knobs = options.knobs
    config = parse_with(schema, right, knobs) if schema else parse_plain(right, knobs)
    flags = to_argv(
        config, left, schema=schema, search_path=knobs.search_path, env_prefix=knobs.env_prefix
    )
    if flags:
        write_text(sys.stdout, shlex.join(flags) + "\n")
    return 1 if flags else 0


def _differences(left: Result, right: Result) -> Iterator[str]:
    """A line per value that differs: compared as they are, shown masked (two secrets that
    differ are two masks, and the line says they differ)."""
    left_leaves, right_leaves = dict(leaves(left.compared)), dict(leaves(right.compared))
    left_shown, right_shown = dict(leaves(left.data)), dict(leaves(right.data))
    for path in dict.fromkeys([*left_leaves, *right_leaves]):
        before, after = left_leaves.get(path, _UNSET), right_leaves.get(path, _UNSET)
        if not equal_data(before, after):
            key = left.composed.show_key(path)
            before, after = left_shown.get(path, _UNSET), right_shown.get(path, _UNSET)
            line = f"{key}: {_side(before, left, path)} -> {_side(after, right, path)}"
            yield printable(line)  # a file name or key may hold control characters


def _side(value: Any, result: Result, path: KeyPath) -> str:
    if value is _UNSET:
        return "(unset)"
    return f"{_json_data(value)!r} ({result.origin(path)})"  # "None" text is None again


def completion_command(options: Options) -> int:
    """The completion script of an entrypoint, as `_COMPOSE_COMPLETE=SHELL PROG` prints it."""
    if len(options.rest) != 2:
        raise ArgvError(
            "expects SHELL PROG: bash, zsh or fish, then an entrypoint", key="completion"
        )
    write_text(sys.stdout, completion_script(*options.rest))
    return 0


def schema_command(options: Options) -> int:
    if len(options.rest) != 1:
        raise ArgvError("expects MODULE:CLASS", key="schema")
    schema = load_schema(options.rest[0])
    try:
        document = schema.model_json_schema()
    except PydanticUserError as error:  # a field type JSON Schema cannot describe
        raise ArgvError(f"has no JSON Schema: {error.message}", value=options.rest[0]) from None
    _describe_properties(document, schema)
    _print(json.dumps(document, indent=2) + "\n", "json")
    return 0


def _describe_properties(document: dict[str, Any], schema: type[BaseModel]) -> None:
    """Field docstrings as property descriptions, for editors' hover text (Pydantic has only
    `Field(description=)`: docstrings are read when needed, not at import)."""
    tables = {schema.__name__: document, **document.get("$defs", {})}
    for model in _reachable_models(schema):
        table = tables.get(model.__name__)
        if not isinstance(table, dict):
            continue
        for name, prop in table.get("properties", {}).items():
            field = plan_of(model).fields.get(name)
            if field is not None and field.description and isinstance(prop, dict):
                prop.setdefault("description", field.description)


def _reachable_models(schema: type[BaseModel]) -> list[type[BaseModel]]:
    found: list[type[BaseModel]] = []
    stack = [schema]
    while stack:
        model = stack.pop()
        if model not in found:
            found.append(model)
            stack += [m for f in plan_of(model).fields.values() for m in section_models(f.shape)]
    return found


def _print(text: str, lexer: str) -> None:
    if sys.stdout.isatty():
        from compose._output import render as _render  # noqa: PLC0415  # rich costs ~30 ms: load it only to show it

        with contextlib.suppress(UnicodeEncodeError):
            _render.syntax(text, lexer, sys.stdout)
            return
    write_text(sys.stdout, text)


def job_command(options: Options) -> int:
    """One point of a sweep, run where an engine placed it (`compose._runs.status`)."""
    if len(options.rest) != 1:
        raise ArgvError("expects DIR: a point's directory, holding job.json", key="job")
    from compose._runs import status as _status  # noqa: PLC0415  # only a job needs the runner

    return _status.run_job(options.rest[0])


def status_command(options: Options) -> int:
    """`compose status DIR`: how a sweep's points stand (`compose._runs.view`)."""
    if len(options.rest) != 1:
        raise ArgvError("expects DIR: a sweep's directory, or a point's", key="status")
    from compose._runs.view import status_text  # noqa: PLC0415  # only this command reads records

    write_text(sys.stdout, status_text(options.rest[0]))
    return 0


def check(options: Options) -> int:
    """`compose check PATH...`: see `compose._cli.check`."""
    from compose._cli.check import check_command  # noqa: PLC0415  # the check's own machinery

    return check_command(
        options.rest,
        schema=options.values.get("--schema"),
        roles_file=options.values.get("--roles"),
        search_path=options.search_path,
        quiet="--quiet" in options.flags,
    )


def migrate_command(options: Options) -> int:
    schema = options.schema
    if schema is None:
        raise ArgvError(
            "expects --schema MODULE:CLASS: the schema whose migrations to run", key="migrate"
        )
    from compose._cli.migrate import migrate_files  # noqa: PLC0415  # tomlkit, for this command only

    section, check = options.values.get("--section"), "--check" in options.flags
    return migrate_files(schema, options.rest, section=section, check=check)


_COMMANDS: dict[str, Callable[[Options], int]] = {
    "show": show,
    "check": check,
    "explain": explain,
    "diff": diff,
    "schema": schema_command,
    "completion": completion_command,
    "job": job_command,
    "status": status_command,
    "migrate": migrate_command,
}


def run() -> None:
    """Console-script entry point."""
    with output_may_close():
        code = main()
    raise SystemExit(code)
