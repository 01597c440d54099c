"""`compose migrate --schema MODULE:CLASS [--section KEY] [--check] FILE...`: old files rewritten
for the schema's version, in place.

The steps are the schema's own migrations (`compose._merge.migrations`), run over the file's
data exactly as loading it runs them; only the keys they change are edited in the file's TOML
document (tomlkit), so comments, order and the layout of every other line stay as written,
and the file is stamped `schema_version = N`. Each file is replaced whole or not at all, and
keeps its permissions. With `--check`, nothing is written: the diff of each file that would
change is printed, and the exit code is 1 if any would (for CI).
"""

from __future__ import annotations

import difflib
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from compose._atomic import NewFile, write_files
from compose._cli.entry import write_text
from compose._input.documents import TOML, format_of
from compose._input.files import parse_toml, read_text
from compose._input.formats import key_lines_for
from compose._input.origins import FileSource
from compose._merge.defaults import holds_text
from compose._merge.flags import key_segments
from compose._merge.migrations import (
    Migrated,
    ShowKey,
    Versions,
    migrate_table,
    same_value,
    through_moves,
    versions_of,
)
from compose._schema.keys import cli_key
from compose._schema.secrets import is_secret_path
from compose._schema.shape import NOT_A_SECTION, model_shape, takes_a_file
from compose._schema.walk import walk
from compose._syntax import INCLUDE, SCHEMA_VERSION, SECRET_MASK
from compose._toml import loads
from compose._tree import KeyPath, at_path, copy_tree, equal_data
from compose.errors import ArgvError, ComposeError, OutputError, SourceError

INSTALL_HINT = "pip install 'compose-config[migrate]'"


def migrate_files(
    schema: type[BaseModel], files: list[str], *, section: str | None = None, check: bool = False
) -> int:
    """Migrate each of `files` (all checked before any is written); 1 if `check` found one
    that would change, else 0."""
    if not files:
        raise ArgvError("expects FILE...: the TOML files to migrate", key="migrate")
    versions = versions_of(schema)
    if versions is None:
        raise ArgvError(
            "declares no schema version: nothing to migrate to",
            value=f"{schema.__module__}:{schema.__qualname__}",
            key="--schema",
            hint="declare its migrations with `versioned(...)` on the class",
        )
    prefix = _prefix(schema, section)
    root = model_shape(schema)
    secret = functools.partial(is_secret_path, root)  # errors never show one
    show = functools.partial(cli_key, root)  # keys as flags, as errors and warnings name them
    once = _each_file_once(files)
    rewritten = [(shown, *_rewrite(shown, prefix, versions, show, secret)) for shown in once]
    stale = [entry for entry in rewritten if entry[3] != entry[1]]
    if not check:
        _replace_all([(shown, new_text) for shown, _, _, new_text in stale])
    for shown, text, migrated, new_text in rewritten:
        if new_text == text:
            write_text(sys.stdout, f"{shown}: up to date (schema version {versions.version})\n")
        elif check:
            masked = _Masker(shown, prefix, migrated, secret)
            write_text(sys.stdout, _diff(shown, masked(text, old=True), masked(new_text)))
        else:
            write_text(sys.stdout, _report(shown, migrated, versions, show))
    return 1 if check and stale else 0


def _each_file_once(files: list[str]) -> list[str]:
    """The files, each named once: a file given twice (`a.toml ./a.toml`, or by a symlink to
    it) is migrated once, under the name it was first given, as the rewrite follows links."""
    named: dict[str, str] = {}
    for shown in files:
        named.setdefault(os.path.realpath(shown), shown)
    return list(named.values())


def _prefix(schema: type[BaseModel], section: str | None) -> KeyPath:
    """Where `--section` mounts the files, as `--KEY @ FILE` would: a section of the schema
    (the version stamped at a key no step knows would claim steps that never ran)."""
    if not section:
        return ()
    root = model_shape(schema)
    target = walk(root, key_segments(root, section), {}, "--section")
    if not takes_a_file(target.shape):
        raise ArgvError(NOT_A_SECTION, key="--section", value=section)
    return target.path


def _rewrite(
    shown: str,
    prefix: KeyPath,
    versions: Versions,
    show: ShowKey,
    secret: Callable[[Any, KeyPath], bool],
) -> tuple[str, Migrated, str]:
    """The file's text, what migrating its data gives, and the file's text migrated."""
    if format_of(shown) != TOML:
        raise SourceError(
            f"is {format_of(shown)}: only TOML files are migrated in place",
            origin=shown,
            hint="its data is migrated whenever it is loaded",
        )
    tomlkit = _tomlkit()
    text = read_text(shown)
    table = parse_toml(shown, text)
    included = {INCLUDE: table.pop(INCLUDE)} if INCLUDE in table else {}  # as loading takes it
    old = {key: value for key, value in table.items() if key != SCHEMA_VERSION}
    source = FileSource(shown, text, prefix)
    migrated = migrate_table(copy_tree(table), source, versions, show, secret)
    unexpressed = SourceError(  # never write a file that means something else than the migration
        "cannot be rewritten in place: the edited TOML does not hold the migrated data",
        origin=shown,
        hint="edit the file by hand, following the warnings its loading gives",
    )
    try:
        document = tomlkit.parse(text)
        comments = _moved_comments(document, migrated.moved)
        tables = _moved_tables(document, migrated)
        _edit(tomlkit, document, old, migrated.table, tables)
        _keep_comments(document, comments)
        _stamp(document, versions.version)
        new_text: str = tomlkit.dumps(document)
    except Exception:  # tomlkit's own failure at a text or an edit (dotted keys: IndexError)
        raise unexpressed from None
    new_text = _in_the_file_s_newlines(new_text, text)
    expected = {SCHEMA_VERSION: versions.version, **included, **migrated.table}
    if not equal_data(parse_toml(shown, new_text), expected):
        raise unexpressed
    return text, migrated, new_text


def _in_the_file_s_newlines(new_text: str, text: str) -> str:
    """The file's own ending (a table added last gets no blank line the file did not end
    with, and a file without a final newline stays so) and, in a CRLF file, CRLF throughout
    (tomlkit writes the lines it adds with a bare LF)."""
    ending = text[len(text.rstrip("\r\n")) :] or ("" if text.strip() else "\n")
    new_text = new_text.rstrip("\n").rstrip("\r") + ending
    if "\r\n" in text and text.count("\r\n") == text.count("\n"):
        new_text = new_text.replace("\r\n", "\n").replace("\n", "\r\n")
    return new_text


def _tomlkit() -> Any:
    try:
        import tomlkit  # noqa: PLC0415  # an optional extra, loaded by `compose migrate` alone
        import tomlkit.container  # noqa: PLC0415  # (Container, by name)
        import tomlkit.items  # noqa: PLC0415  # (InlineTable, by name)
    except ImportError:
        raise ComposeError(
            "`compose migrate` rewrites TOML with tomlkit, which is not installed",
            hint=INSTALL_HINT,
        ) from None
    return tomlkit


def _edit(
    tomlkit: Any,
    container: Any,
    old: dict[str, Any],
    new: dict[str, Any],
    tables: dict[KeyPath, Any],
    path: KeyPath = (),
) -> None:
    """Make the TOML `container` (a document or a table) hold `new` where it held `old`,
    touching only the keys that differ: a table both hold is edited inside, not replaced; a
    table a migration moved whole is the file's own, with its comments (`tables`, by path)."""
    for key in [key for key in old if key not in new]:
        del container[key]
    for key, value in new.items():
        if key in old and same_value(old[key], value):
            continue
        if key in old and _both_tables(old[key], value) and _is_table(container[key]):
            _edit(tomlkit, container[key], old[key], value, tables, (*path, key))
            if value or not _is_super_table(container[key]):
                continue
            # emptied, it had no header of its own: one now, as the data still holds the table
        moved = tables.get((*path, key))
        item = moved if moved is not None else _new_item(tomlkit, container, value)
        if key in container:
            container[key] = item
        else:
            _add(tomlkit, container, key, item)


def _moved_tables(document: Any, migrated: Migrated) -> dict[KeyPath, Any]:
    """Each table a migration moved whole and left as it was, by its new place: the file's
    own item, its comments and layout inside, goes there."""
    tables = {}
    for new, old in migrated.moved.items():
        item = _item_at(document, old)
        if _is_table(item) and equal_data(item.unwrap(), at_path(migrated.table, new)):
            tables[new] = item
    return tables


def _moved_comments(document: Any, moved: dict[KeyPath, KeyPath]) -> dict[KeyPath, Any]:
    """The comment on the line of each value a migration moves, by its new place: `_edit`
    writes a moved value anew, and what the comment says of it (`# clip`) goes with it."""
    comments = {}
    for new, old in moved.items():
        item = _item_at(document, old)
        trivia = getattr(item, "trivia", None)
        if trivia is not None and trivia.comment and not _is_table(item):
            comments[new] = trivia
    return comments


def _keep_comments(document: Any, comments: dict[KeyPath, Any]) -> None:
    for path, old in comments.items():
        trivia = getattr(_item_at(document, path), "trivia", None)
        if trivia is not None and not trivia.comment:
            trivia.comment_ws, trivia.comment = old.comment_ws or "  ", old.comment


def _item_at(document: Any, path: KeyPath) -> Any:
    """The TOML item at `path`, or None where the document holds none there (a list index,
    a key written dotted that tomlkit keeps apart)."""
    item = document
    for segment in path:
        if not _is_table(item) or not isinstance(segment, str) or segment not in item:
            return None
        # `item()` gives tomlkit's own item, with its comment, where `[]` unwraps a boolean
        item = item.item(segment) if hasattr(item, "item") else item[segment]
    return item


def _new_item(tomlkit: Any, container: Any, value: Any) -> Any:
    """A value for `container`: a table made for it ends with a blank line, as tables are
    written by hand, so that the header after it stays apart."""
    if not isinstance(value, dict) or isinstance(container, tomlkit.items.InlineTable):
        return value
    table = tomlkit.item(value)
    table.add(tomlkit.nl())
    return table


def _both_tables(old: Any, new: Any) -> bool:
    return isinstance(old, dict) and isinstance(new, dict)


def _is_super_table(item: Any) -> bool:
    """A table that only its sub-tables' headers made (`[c.a]` makes `c`)."""
    is_super = getattr(item, "is_super_table", None)
    return bool(is_super()) if callable(is_super) else False


def _is_table(item: Any) -> bool:
    return hasattr(item, "keys") and hasattr(item, "__delitem__")


def _stamp(document: Any, version: int) -> None:
    """`schema_version = N` at the top level: edited where the file has it, else added after
    its other top-level keys (before its first table)."""
    if SCHEMA_VERSION not in document:
        _add(_tomlkit(), document, SCHEMA_VERSION, version)
    elif document.get(SCHEMA_VERSION) != version:
        document[SCHEMA_VERSION] = version


def _add(tomlkit: Any, container: Any, key: str, item: Any) -> None:
    """`key` added to a table (or the document) that does not hold it: a value after the
    table's last key and the comments that follow it, before the blank line and the comments
    that open the next header (`# the optimizer` above `[trainer.optim]` stays with it); a
    table after all. tomlkit puts a value after those comments, right above the header."""
    inner = _lines(tomlkit, container)
    if inner is None or isinstance(item, dict) or _is_table(item):
        container[key] = item
        return
    body = inner.body
    end = next((i for i, (_, value) in enumerate(body) if _is_table(value)), len(body))
    start = end
    while start > 0 and body[start - 1][0] is None and _is_trivia(tomlkit, body[start - 1][1]):
        start -= 1
    blanks = [i for i in range(start, end) if isinstance(body[i][1], tomlkit.items.Whitespace)]
    at = blanks[-1] if blanks else start
    opening = at == 0 and inner is container  # the comments a file opens with: the file's own
    if opening or not any(isinstance(body[i][1], tomlkit.items.Comment) for i in range(at, end)):
        container[key] = item  # no comment opens the header: tomlkit's place is right
    else:  # tomlkit's own insertion, which keeps its index of keys right: no public call does
        inner._insert_at(at, key, item)


def _lines(tomlkit: Any, container: Any) -> Any:
    """The tomlkit container of a document's or a table's lines (None: an inline table)."""
    if isinstance(container, tomlkit.container.Container):
        return container
    if isinstance(container, tomlkit.items.Table):
        return container.value
    return None


def _is_trivia(tomlkit: Any, item: Any) -> bool:
    return isinstance(item, (tomlkit.items.Comment, tomlkit.items.Whitespace))


def _replace_all(files: list[tuple[str, str]]) -> None:
    """Each file replaced whole (a symlink's target, keeping its permissions), all or none:
    one that cannot be written (read-only, immutable, a full disk) leaves every other as it
    was, and Ctrl-C waits for the commit to end (`compose._atomic`)."""
    rewritten = []
    named = {}  # a real path, as the user named it
    for shown, text in files:
        path = Path(os.path.realpath(shown))
        try:
            mode = path.stat().st_mode & 0o7777
        except OSError as error:
            raise SourceError(f"cannot be read: {error.strerror}", origin=shown) from None
        rewritten.append(NewFile(path, text, mode))
        named[str(path)] = shown
    try:
        write_files(rewritten, what="migrated files")
    except OutputError as error:  # a read-only file: named as given
        raise error.evolve(origin=named.get(error.origin or "", error.origin)) from None


class _Masker:
    """A file's text with the value of each line that holds a secret masked: the diff that
    `--check` prints (in CI logs) shows a secret of the file, moved or beside a changed key,
    as every other view of it does; and text the migration drops, which no field vouches for."""

    def __init__(
        self,
        shown: str,
        prefix: KeyPath,
        migrated: Migrated,
        secret: Callable[[Any, KeyPath], bool],
    ) -> None:
        self.shown = shown
        self.prefix = prefix
        tree: Any = migrated.table
        for segment in reversed(prefix):
            tree = {segment: tree}
        self.tree = tree  # the whole config, as the schema's secrets are found in it
        self.secret = secret
        self.renamed = {old: new for new, old in migrated.moved.items()}  # old place -> new

    def __call__(self, text: str, *, old: bool = False) -> str:
        lines = text.splitlines(keepends=True)
        written = parse_toml(self.shown, text) if old else {}
        for inner, number in key_lines_for(self.shown, text).items():
            path = (*self.prefix, *(through_moves(inner, self.renamed) if old else inner))
            hidden = self.secret(self.tree, path) or (old and self._dropped(written, inner, path))
            if 0 < number <= len(lines) and hidden:
                end = _value_end(lines, number - 1)
                lines[number - 1] = _masked_line(lines[number - 1])
                lines[number:end] = [""] * (end - number)  # the rest of a value over lines
        return "".join(lines)

    def _dropped(self, written: dict[str, Any], inner: KeyPath, path: KeyPath) -> bool:
        """Whether the old text's key is text the migration dropped: no field of the schema
        any more, so nothing says whether it was a secret (a removed password usually was).
        A number or a flag it dropped is shown, as a diff should show what goes."""
        if inner == (SCHEMA_VERSION,) or at_path(self.tree, path) is not None:
            return False
        return holds_text(at_path(written, inner), _any_text)


def _value_end(lines: list[str], start: int) -> int:
    """The line after the value of the key at `lines[start]`: the first end at which the key's
    lines read as TOML (a multi-line string or array goes on past its first line)."""
    for end in range(start + 1, len(lines) + 1):
        try:
            loads("".join(lines[start:end]))
        except Exception:  # not yet the whole value (any refusal of the parser)
            continue
        return end
    return start + 1  # a line of no value (a table's header): itself


def _any_text(text: str) -> bool:
    return True


def _masked_line(line: str) -> str:
    """`key = "**********"`: a line's value masked (a header, which holds none, as it is)."""
    key, equals, _ = line.partition("=")
    if not equals:
        return line
    ending = line[len(line.rstrip("\r\n")) :]
    return f'{key}= "{SECRET_MASK}"{ending}'


def _diff(shown: str, text: str, new_text: str) -> str:
    lines = difflib.unified_diff(
        text.splitlines(keepends=True),
        new_text.splitlines(keepends=True),
        fromfile=shown,
        tofile=f"{shown} (migrated)",
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _report(shown: str, migrated: Migrated, versions: Versions, show: ShowKey) -> str:
    head = f"{shown}: migrated from schema version {migrated.version} to {versions.version}\n"
    lines = [head]
    for change in migrated.changes:
        where = f"{shown}:{change.line}" if change.line else shown
        lines.append(f"  {where}: {change.describe(show)} ({change.migration.name})\n")
    return "".join(lines)
