"""The command-line grammar: argv tokens -> ordered items. Knows nothing about types.

    @ FILE | @FILE                       root file node
    --KEY @ FILE | --KEY @FILE | --KEY=@FILE   file node for section KEY
    --KEY=VALUE | --KEY [VALUE ...]      value override (tokens up to the next --flag or @)
    --KEY+=VALUE | --KEY+ VALUE ...      append to the list at KEY
    ~KEY                                 delete what earlier nodes set at KEY
    -h | --help [SECTION]                help, optionally narrowed to a section

`compose(overrides=...)` strings go through `parse_overrides`, the same items from
`key=value`, `key+=value`, `key=@file` and `~key`. An app's environment variables
(`env_prefix=`) make one more item, `EnvItem`, built by `compose._input.env`.
"""

from __future__ import annotations

import os
import sys

from compose._syntax import HELP_FLAGS
from compose.errors import ArgvError


def program_name() -> str:
    """The entrypoint's name as the user ran it (`sys.argv[0]`), for usage lines."""
    return os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "app"


_HELP = HELP_FLAGS


class _Item:
    """Items compare and print by value (tests compare parsed command lines).

    Plain classes, not dataclasses or named tuples: this module is imported on every run, a
    bare `--help` too (on the cost of defining classes, see `compose._schema.plan`)."""

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and vars(other) == vars(self)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in vars(self).items())
        return f"{type(self).__name__}({fields})"


class FileItem(_Item):
    """A file node: `section` is the dotted key its keys are relative to ("" for the root)."""

    def __init__(self, path: str, section: str, shown: str) -> None:
        self.path = path
        self.section = section
        self.shown = shown  # the flag as typed, e.g. "--trainer @ t.toml"


class ValueItem(_Item):
    """A value flag: `--KEY VALUE...`, `--KEY=VALUE` or `--KEY+ VALUE...`."""

    def __init__(self, key: str, tokens: tuple[str, ...], shown: str, append: bool = False) -> None:
        self.key = key  # dotted, as typed without the leading dashes (may start with "no-")
        self.tokens = tokens
        self.shown = shown  # the flag as typed, e.g. "--trainer.lr"
        self.append = append  # `--KEY+ VALUE...`: append to the list rather than set it


class DeleteItem(_Item):
    """`~KEY`: delete what earlier nodes set at KEY."""

    def __init__(self, key: str, shown: str) -> None:
        self.key = key
        self.shown = shown


class HelpItem(_Item):
    """`--help [SECTION]`."""

    def __init__(self, section: str) -> None:
        self.section = section


class EnvItem(_Item):
    """The environment node: the variables named with `prefix`, as flags (`compose._input.env`)."""

    def __init__(self, prefix: str, values: tuple[ValueItem, ...]) -> None:
        self.prefix = prefix
        self.values = values


class DataItem(_Item):
    """A node of data given in Python: `cli(schema, default=instance)`'s base, below files."""

    def __init__(self, table: dict[str, object], shown: str) -> None:
        self.table = table  # None as the text "None", as a file spells it
        self.shown = shown  # how errors name it: "default="


class NodeItem(_Item):
    """A config already read, placed at `prefix`: a leaf of a Hydra defaults list
    (`compose._input.hydra.tree`), merged by OmegaConf's rules (`compose._merge.typed`).
    `source` names it in origins (a `FileSource`, or a `FlagSource` for a store node);
    `model`: the store model that types it, or None; `where`: the chain of configs that led
    to it, for errors."""

    def __init__(
        self, table: object, prefix: tuple[str, ...], source: object, model: object, where: str
    ) -> None:
        self.table = table
        self.prefix = prefix
        self.source = source
        self.model = model
        self.where = where


class OverridesItem(_Item):
    """Hydra's value overrides (`trainer.lr=1e-3`, `+x=1`, `~y`), parsed by
    `compose._input.hydra.grammar`: applied to the tree the `NodeItem`s made, in struct mode,
    after them (`compose._merge.hydra_values`)."""

    def __init__(self, overrides: tuple[object, ...]) -> None:
        self.overrides = overrides


Item = FileItem | ValueItem | DeleteItem | HelpItem | EnvItem | DataItem | NodeItem | OverridesItem


def split_argv(argv: list[str]) -> list[Item]:
    """Split argv into items in the order given; a malformed token raises `ArgvError`."""
    items: list[Item] = []
    pos = 0
    while pos < len(argv):
        pos, item = _parse_item(argv, pos)
        if isinstance(item, ValueItem):
            _check_text(item)
        items.append(item)
    return items


def item_spans(argv: list[str]) -> list[tuple[Item, list[str]]]:
    """Each item of `argv` with the tokens that gave it, in order: for a caller that takes some
    items out of a command line and passes the rest on as tokens (a sweep's own flags)."""
    spans: list[tuple[Item, list[str]]] = []
    pos = 0
    while pos < len(argv):
        end, item = _parse_item(argv, pos)
        spans.append((item, argv[pos:end]))
        pos = end
    return spans


def _check_text(item: ValueItem) -> None:
    """A value is text: bytes the shell passed that are not UTF-8 (Python keeps them as lone
    surrogates) could be written to no config file. A file's path may hold them: it is a name."""
    for token in item.tokens:
        if not token.isascii():
            try:
                token.encode("utf-8")
            except UnicodeEncodeError:
                raise ArgvError(
                    "is not valid UTF-8",
                    key=item.shown,
                    value=_undecoded(token),
                    hint="pass the value as UTF-8",
                ) from None


def _undecoded(token: str) -> str:
    """`token` with the bytes the shell passed that are not UTF-8 (surrogates U+DC80-U+DCFF)
    shown as `\\xNN`, and any other lone surrogate (from a JSON file's `\\ud800`, an API
    caller's text) as `\\ud800`."""
    try:
        raw = token.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return token.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def _parse_item(argv: list[str], pos: int) -> tuple[int, Item]:
    token = argv[pos]
    if token.startswith("--") and len(token) > 2 and token not in _HELP:  # most tokens: first
        return _parse_flag(argv, pos)
    if token in _HELP:
        return _parse_help(argv, pos + 1)
    if token.startswith("@"):
        return _parse_file(argv, pos, "", token)
    if token.startswith("~") and len(token) > 1:
        return pos + 1, DeleteItem(token[1:], token)
    raise ArgvError(
        "unexpected argument",
        value=token,
        hint="flags start with --, files are given as @ FILE",
    )


def _parse_help(argv: list[str], pos: int) -> tuple[int, Item]:
    if pos < len(argv) and not argv[pos].startswith(("-", "@")):
        return pos + 1, HelpItem(argv[pos].removeprefix("--"))
    return pos, HelpItem("")


def _parse_file(argv: list[str], pos: int, section: str, token: str) -> tuple[int, Item]:
    """`token` is `@`, `@FILE` or (after `--KEY=`) `@FILE`; `@` takes the next token."""
    flag = f"--{section} " if section else ""
    if token != "@":
        return pos + 1, FileItem(token[1:], section, f"{flag}{token}")
    if pos + 1 >= len(argv) or argv[pos + 1].startswith("--"):
        raise ArgvError("@ must be followed by a file", origin=f"{flag}@".strip())
    path = argv[pos + 1]
    return pos + 2, FileItem(path, section, f"{flag}@ {path}")


def _parse_flag(argv: list[str], pos: int) -> tuple[int, Item]:
    body = argv[pos][2:]
    key, eq, value = body.partition("=")
    append = key.endswith("+")
    key = key.removesuffix("+")
    if not key or key.startswith(("-", ".")) or key.endswith((".", "+")):
        raise ArgvError("malformed flag", value=argv[pos])
    next_is_file = not eq and pos + 1 < len(argv) and argv[pos + 1].startswith("@")
    if append and (value.startswith("@") or next_is_file):
        raise ArgvError(
            "+ appends values to a list; a file is loaded with --KEY @ FILE", value=argv[pos]
        )
    shown = f"--{key}+" if append else f"--{key}"
    if eq:
        if value.startswith("@"):
            return pos + 1, FileItem(value[1:], key, argv[pos])
        return pos + 1, ValueItem(key, (value,), shown, append)
    if next_is_file:
        return _parse_file(argv, pos + 1, key, argv[pos + 1])
    end = pos + 1
    while end < len(argv) and not _ends_values(argv[end]):
        end += 1
    return end, ValueItem(key, tuple(argv[pos + 1 : end]), shown, append)


def _ends_values(token: str) -> bool:
    return token.startswith(("--", "@")) or token in _HELP


def parse_overrides(overrides: list[str] | tuple[str, ...]) -> list[Item]:
    """`compose()` overrides: `key=value`, `key=@file` or `~key`, each one string."""
    return [_parse_override(text) for text in overrides]


def _parse_override(text: str) -> Item:
    if text.startswith("~") and len(text) > 1:
        return DeleteItem(text[1:], text)
    key, eq, value = text.partition("=")
    # Hydra's `+key=v` / `++key=v` (add / force-add) are plain sets here: any key may be set
    key = key.strip().removeprefix("--").lstrip("+")
    append = key.endswith("+")  # `key+=v` appends to a list
    key = key.removesuffix("+").rstrip()
    if not eq or not key or (append and value.startswith("@")):
        raise ArgvError(
            "an override is key=value, key+=value, key=@file or ~key",
            value=text,
            origin="overrides",
        )
    if value.startswith("@"):
        path = value[1:].strip()
        return FileItem(path, key, f"override {key}=@{path}")
    if append:
        return ValueItem(key, (value,), f"override {key}+", True)
    return ValueItem(key, (value,), f"override {key}")
