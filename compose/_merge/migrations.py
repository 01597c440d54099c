"""Schema versions and migrations: an app's ordered steps over the raw data of an older file.

An app declares its schema's version with `versioned(Migration(1, 2, step, ...), ...)` on its
root schema: the version is the last migration's target (1 when there is none). The files it
writes carry it as a top-level `schema_version = N` (`write_configs`); a file without one is
version 1, written before the app declared versions. A file older than the schema has each step
from its version on run over its raw data, as a plain dict, before it is merged: a root file's
table as it is, a section file's (`--trainer @ t.toml`) placed under its section, so one step
written against the whole config's paths serves both. Every key a step changed is reported
with its line (the caller warns; `compose migrate` rewrites the file with the same steps,
`compose._cli.migrate`). A schema without `versioned` costs a composition nothing.

The common steps are `move_key` (a rename, across sections too: the rule of `renamed`,
`compose._tree.move_value`), `remove_key` (with the reason the user is told) and
`convert_value` (a value's new format); any function from the file's table to the new table
is a step too.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from compose._schema.plan import MIGRATIONS_ATTR
from compose._syntax import SCHEMA_VERSION, SECRET_MASK, dotted, split_dotted
from compose._tree import MAX_DEPTH, KeyPath, at_path, copy_tree, equal_data, move_value, too_deep
from compose._warn import warn
from compose.errors import ConfigValidationError, MigratedWarning

if TYPE_CHECKING:  # only named in annotations: a schema that declares versions imports this
    from compose._input.origins import FileSource

M = TypeVar("M", bound=BaseModel)


Step = Callable[[dict[str, Any]], dict[str, Any]]


class Migration:
    """The steps that turn a file of schema version `source` into one of version `target`,
    run in the order given."""

    __slots__ = ("source", "steps", "target")

    def __init__(self, source: int, target: int, *steps: Step) -> None:
        if not (_is_version(source) and _is_version(target)) or target <= source:
            raise TypeError(f"Migration({source!r}, {target!r}): versions are ints, 1 <= old < new")
        for step in steps:
            if not callable(step):
                raise TypeError(f"Migration({source}, {target}): step {step!r} is not callable")
        self.source = source
        self.target = target
        self.steps = steps

    def __repr__(self) -> str:
        return f"Migration({self.source}, {self.target}, {', '.join(map(repr, self.steps))})"

    @property
    def name(self) -> str:
        return f"{self.source} -> {self.target}"


class Versions:
    """What `versioned` declares on a schema: its version and the migrations up to it."""

    __slots__ = ("_since", "migrations", "version")

    def __init__(self, migrations: tuple[Migration, ...]) -> None:
        self.migrations = migrations
        self.version = migrations[-1].target if migrations else 1
        self._since = {  # asked for every file: each answer made once
            version: tuple(migration for migration in migrations if migration.source >= version)
            for version in range(1, self.version + 1)
        }

    def since(self, version: int) -> tuple[Migration, ...]:
        """The migrations a file of `version` goes through, in order."""
        return self._since.get(version, ())


def versioned(*migrations: Migration) -> Callable[[type[M]], type[M]]:
    """Class decorator of a root schema: its migrations, in order from version 1 (`1 -> 2`,
    `2 -> 3`, ...); the schema's version is the last one's target, 1 with none."""
    expected = 1
    for migration in migrations:
        if not isinstance(migration, Migration) or migration.source != expected:
            raise TypeError(
                f"versioned: expected a Migration from version {expected}, got {migration!r}"
            )
        expected = migration.target
    versions = Versions(migrations)

    def decorate(cls: type[M]) -> type[M]:
        setattr(cls, MIGRATIONS_ATTR, versions)
        return cls

    return decorate


def versions_of(schema: type[BaseModel] | None) -> Versions | None:
    """The versions `schema` declares, or None (`BaseConfig` says None without a failed lookup)."""
    if schema is None:
        return None
    found = getattr(schema, MIGRATIONS_ATTR, None)
    return found if isinstance(found, Versions) else None


def _is_version(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


# ---- the common steps


ShowKey = Callable[[KeyPath], str]  # a path of the whole config as errors name it: a flag


def _written(path: KeyPath) -> str:
    """A path as a step's code spells it, for a step run outside a composition."""
    return f"`{dotted(path)}`"


class StepError(Exception):
    """What a step raises for data it cannot migrate: the key (a path of the whole config), and
    the key it would go to, which `{new}` in the message stands for."""

    def __init__(self, message: str, path: KeyPath, new: KeyPath = ()) -> None:
        self.template = message
        self.path = path
        self.new = new
        super().__init__(self.text(_written))

    def text(self, show: ShowKey) -> str:
        """The message, with the key it names shown by `show`."""
        return self.template.format(new=show(self.new)) if self.new else self.template


class MoveKey:
    """`old` moves to `new` (dotted paths of the whole config, in any sections)."""

    def __init__(self, old: str, new: str) -> None:
        self.old: KeyPath = tuple(split_dotted(old))
        self.new: KeyPath = tuple(split_dotted(new))
        self.key = self.old
        self.note = "moved to"

    def __repr__(self) -> str:
        return f"move_key({dotted(self.old)!r}, {dotted(self.new)!r})"

    def __call__(self, data: dict[str, Any]) -> dict[str, Any]:
        self.apply(data)
        return data

    def apply(self, data: dict[str, Any]) -> bool:
        """Move it in `data` (in place); whether there was anything to move."""
        outcome = move_value(data, self.old, self.new)
        if outcome == "taken":
            raise StepError(
                "both it and its new name {new} are set; keep only {new}", self.old, self.new
            )
        if outcome == "blocked":
            raise StepError("cannot move to {new}: a value holds its place", self.old, self.new)
        return outcome == "moved"


class RemoveKey:
    """`key` is no longer read; the user is told `reason`."""

    def __init__(self, key: str, reason: str) -> None:
        self.key: KeyPath = tuple(split_dotted(key))
        self.note = f"is removed: {reason}"

    def __repr__(self) -> str:
        return f"remove_key({dotted(self.key)!r}, ...)"

    def __call__(self, data: dict[str, Any]) -> dict[str, Any]:
        self.apply(data)
        return data

    def apply(self, data: dict[str, Any]) -> bool:
        """Drop it from `data` (in place); whether it was there."""
        holder = at_path(data, self.key[:-1])
        if not isinstance(holder, dict) or self.key[-1] not in holder:
            return False
        del holder[self.key[-1]]
        return True


class ConvertValue:
    """`key`'s value becomes `convert(value)`: its new format. A file without a version may be
    current already, so `convert` is given new-format values too: it returns them unchanged."""

    def __init__(self, key: str, convert: Callable[[Any], Any]) -> None:
        self.key: KeyPath = tuple(split_dotted(key))
        self.convert = convert
        self.note = f"is converted to its new format by `{_name_of(convert)}`"

    def __repr__(self) -> str:
        return f"convert_value({dotted(self.key)!r}, {_name_of(self.convert)})"

    def __call__(self, data: dict[str, Any]) -> dict[str, Any]:
        self.apply(data)
        return data

    def apply(self, data: dict[str, Any]) -> bool:
        """Convert it in `data` (in place); whether its value changed."""
        holder = at_path(data, self.key[:-1])
        if not isinstance(holder, dict) or self.key[-1] not in holder:
            return False
        old = holder[self.key[-1]]
        try:
            new = self.convert(copy_tree(old))
        except Exception as error:  # the app's code: said as its key's error
            raise StepError(_error_text(error), self.key) from error
        holder[self.key[-1]] = new
        return not same_value(old, new)


def move_key(old: str, new: str) -> MoveKey:
    """A step: the key `old` is now `new` (dotted paths of the whole config; `new` may lie in
    another section). Both set in one file is an error, as for `renamed`."""
    return MoveKey(old, new)


def remove_key(key: str, reason: str) -> RemoveKey:
    """A step: `key` is dropped from old files, and the user is told `reason`."""
    return RemoveKey(key, reason)


def convert_value(key: str, convert: Callable[[Any], Any]) -> ConvertValue:
    """A step: `key`'s value is given to `convert`, which returns it in its new format."""
    return ConvertValue(key, convert)


_HELPERS = (MoveKey, RemoveKey, ConvertValue)


# ---- running the steps over a file


class Change:
    """A key a migration changed: its path in the whole config, what happened (and where to, for
    a move), the file line."""

    def __init__(
        self, path: KeyPath, note: str, migration: Migration, line: int | None, to: KeyPath = ()
    ) -> None:
        self.path = path
        self.note = note
        self.migration = migration
        self.line = line
        self.to = to

    def describe(self, show: ShowKey) -> str:
        """`--trainer.max-norm moved to --trainer.optim.max-norm`: keys shown by `show`."""
        text = f"{show(self.path)} {self.note}"
        return f"{text} {show(self.to)}" if self.to else text


class Migrated:
    """A file's table at the schema's version, from the file's `version`.

    `changes` are the keys changed, in order; `moved` maps a moved value's path in the file
    (new) to where the file wrote it (old), for origins."""

    def __init__(self, table: dict[str, Any], version: int) -> None:
        self.table = table
        self.version = version
        self.changes: list[Change] = []
        self.moved: dict[KeyPath, KeyPath] = {}


def file_version(table: dict[str, Any], source: FileSource, versions: Versions) -> int:
    """The version a file's table says it is written for (taking the key out), 1 without one."""
    if SCHEMA_VERSION not in table:
        return 1
    version = table.pop(SCHEMA_VERSION)
    where = source.at((SCHEMA_VERSION,))
    if not _is_version(version):
        raise ConfigValidationError(
            "is not a schema version: a whole number from 1",
            key=SCHEMA_VERSION,
            value=version,
            origin=where,
        )
    if version > versions.version:
        raise ConfigValidationError(
            f"the file is written for a newer schema: this app reads versions up to "
            f"{versions.version}",
            key=SCHEMA_VERSION,
            value=version,
            origin=where,
            hint="run it with the version of the app that wrote it",
        )
    return int(version)


def migrate_table(
    table: dict[str, Any],
    source: FileSource,
    versions: Versions,
    show: ShowKey,
    secret: Callable[[dict[str, Any], KeyPath], bool] | None = None,
) -> Migrated:
    """Run the migrations a file's `table` needs over it (taking its version key out): the
    table is changed in place, or replaced by what an app's own step returns.

    `source.prefix` is the section the file is loaded into: the steps see the table under it.
    A step that fails, or moves a key out of that section, raises one `ConfigValidationError`
    naming the file, the migration and the key, shown by `show` (as a flag: every error's
    key is). The common steps change the data in place and say whether they changed anything;
    an app's own step is given a copy, which is compared with what it returns.
    `secret(data, path)`: whether a key holds a secret, whose error text (which may quote the
    value) is then not shown.
    """
    version = file_version(table, source, versions)
    migrations = versions.since(version)
    result = Migrated(table, version)
    if not migrations:
        return result
    prefix = source.prefix
    data = _placed(table, prefix)
    for migration in migrations:
        for step in migration.steps:
            if isinstance(step, _HELPERS):
                if _guarded(step, data, migration, source, show, secret, result.moved):
                    _note_common(result, step, migration, source)
            else:
                before = data
                data = _guarded(
                    step, copy_tree(before), migration, source, show, secret, result.moved
                )
                _note_changes(result, step, before, data, migration, source)
        result.table = _taken_out(data, prefix, migration, source, show)  # checked after each
    return result


def _placed(table: dict[str, Any], prefix: KeyPath) -> dict[Any, Any]:
    placed: dict[Any, Any] = table
    for segment in reversed(prefix):
        placed = {segment: placed}  # an index segment (`--env.0 @ f`): steps pass it by
    return placed


def _taken_out(
    data: dict[Any, Any], prefix: KeyPath, migration: Migration, source: FileSource, show: ShowKey
) -> dict[str, Any]:
    """The file's table again from the migrated data, which must all lie in its section."""
    for depth, segment in enumerate(prefix):
        outside = [key for key in data if key != segment]
        inside = data.get(segment, {})
        if outside or not isinstance(inside, dict):
            key = outside[0] if outside else segment
            raise ConfigValidationError(
                f"migration {migration.name} moves it out of {show(prefix)}, the section "
                "this file is loaded into",
                key=show((*prefix[:depth], key)),
                origin=source.shown,
                hint="write this file's keys in a file loaded at the top, then migrate that",
            )
        data = inside
    return data


def _guarded(
    step: Step,
    data: dict[str, Any],
    migration: Migration,
    source: FileSource,
    show: ShowKey,
    secret: Callable[[dict[str, Any], KeyPath], bool] | None,
    moved: Mapping[KeyPath, KeyPath],
) -> Any:
    """A common step's `apply(data)`, or what an app's step returns; a failure is one error."""
    try:
        if isinstance(step, _HELPERS):
            return step.apply(data)
        migrated = step(data)
    except StepError as error:
        message = error.text(show)
        named = (error.path, error.new) if error.new else (error.path,)  # a move's two keys
        hidden = secret is not None and any(secret(data, path) for path in named)
        if error.__cause__ is not None and hidden:
            message = f"{type(error.__cause__).__name__} (a secret: its text is not shown)"
        shown = {} if hidden else {"value": at_path(data, error.path)}  # the file's, unchanged
        raise ConfigValidationError(
            f"migration {migration.name} failed: {message}",
            key=show(error.path),
            origin=_where(source, error.path, moved),
            **shown,
        ) from None
    except Exception as error:  # the app's own step: one error that names it, no traceback
        text = _without_secrets(_error_text(error), data, secret)
        raise ConfigValidationError(
            f"migration {migration.name} failed in step `{_name_of(step)}`: {text}",
            origin=source.shown,
        ) from None
    if not isinstance(migrated, dict):
        raise ConfigValidationError(
            f"migration {migration.name}: step `{_name_of(step)}` returned "
            f"{type(migrated).__name__}, not the file's table",
            origin=source.shown,
        )
    if too_deep(migrated):  # a table that holds itself is endlessly deep
        raise ConfigValidationError(
            f"migration {migration.name}: step `{_name_of(step)}` returned tables nested more "
            f"than {MAX_DEPTH} deep (does one hold itself?)",
            origin=source.shown,
        )
    return migrated


def _note_common(result: Migrated, step: Any, migration: Migration, source: FileSource) -> None:
    line = source.line_of(through_moves(_inside(step.key, source), result.moved))
    to = step.new if isinstance(step, MoveKey) else ()
    result.changes.append(Change(step.key, step.note, migration, line, to))
    if isinstance(step, MoveKey):
        _follow_move(result, step, source.prefix)


def _note_changes(
    result: Migrated,
    step: Step,
    before: dict[str, Any],
    after: dict[str, Any],
    migration: Migration,
    source: FileSource,
) -> None:
    """Every key an app's own step changed (or, when it only added keys, those)."""
    name = _name_of(step)
    changed = list(_differences(before, after))
    if any(kind != "added" for _, kind in changed):
        changed = [(path, kind) for path, kind in changed if kind != "added"]
    for path, kind in changed:
        written = through_moves(_inside(path, source), result.moved)
        line = source.line_of(written) if kind != "added" else None
        result.changes.append(Change(path, f"is {kind} by step `{name}`", migration, line))


def _follow_move(result: Migrated, step: MoveKey, prefix: KeyPath) -> None:
    """Where the file wrote a moved value, through every move of it, for its origin."""
    if step.old[: len(prefix)] != prefix or step.new[: len(prefix)] != prefix:
        return
    old, new = step.old[len(prefix) :], step.new[len(prefix) :]
    result.moved[new] = result.moved.pop(old, old)


def _differences(before: Any, after: Any, path: KeyPath = ()) -> Iterator[tuple[KeyPath, str]]:
    """The smallest paths at which two tables differ: removed, changed, or added."""
    for key, value in before.items():
        if key not in after:
            yield (*path, key), "removed"
        elif isinstance(value, dict) and isinstance(after[key], dict):
            yield from _differences(value, after[key], (*path, key))
        elif not same_value(value, after[key]):
            yield (*path, key), "changed"
    for key in after:
        if key not in before:
            yield (*path, key), "added"


def same_value(old: Any, new: Any) -> bool:
    """A value a migration left as it was: of the same type, and equal (NaN to NaN)."""
    return type(old) is type(new) and equal_data(old, new)


def _inside(path: KeyPath, source: FileSource) -> KeyPath:
    prefix = source.prefix
    return path[len(prefix) :] if path[: len(prefix)] == prefix else ()


def through_moves(inner: KeyPath, moved: Mapping[KeyPath, KeyPath]) -> KeyPath:
    """`inner` where the moves in `moved` (place -> place) take it: through a move of it or of
    a table it lies in. With `Migrated.moved` (new -> old), where the file wrote the value a
    step finds at `inner`, and so its line; with it turned round, where a key of the file is
    in the migrated data."""
    for depth in range(len(inner), 0, -1):
        old = moved.get(inner[:depth])
        if old is not None:
            return (*old, *inner[depth:])
    return inner


def _where(source: FileSource, path: KeyPath, moved: Mapping[KeyPath, KeyPath]) -> str:
    line = source.line_of(through_moves(_inside(path, source), moved))
    return f"{source.shown}:{line}" if line else source.shown


def _without_secrets(
    text: str, data: Any, secret: Callable[[dict[str, Any], KeyPath], bool] | None
) -> str:
    """An app's step's error text with each secret of `data` in it masked (a step that quotes
    the value it failed on quotes a password as readily as a seed)."""
    if secret is None:
        return text
    for path, value in _text_leaves(data):
        if value and value in text and secret(data, path):
            text = text.replace(value, SECRET_MASK)
    return text


def _text_leaves(node: Any, path: KeyPath = ()) -> Iterator[tuple[KeyPath, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _text_leaves(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _text_leaves(value, (*path, index))
    elif isinstance(node, str):
        yield path, node


def _name_of(step: object) -> str:
    return getattr(step, "__qualname__", None) or getattr(step, "__name__", None) or repr(step)


def _error_text(error: Exception) -> str:
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


def announce(
    migrated: Migrated, source: FileSource, schema: type[BaseModel], show: ShowKey
) -> None:
    """A `ComposeWarning` for each key a migration changed (as a flag, by `show`), naming its
    line and the command that updates the file."""
    if not migrated.changes:  # a current file without its stamp: nothing to say
        return
    command = migrate_command(schema, source.shown, source.prefix)
    for change in migrated.changes:
        where = f"{source.shown}:{change.line}" if change.line else source.shown
        summary = f"{change.describe(show)} (schema version {change.migration.name})"
        warn(MigratedWarning(summary, where, f"`{command}` updates the file"), stacklevel=3)


def migrate_command(schema: type[BaseModel], shown: str, prefix: KeyPath = ()) -> str:
    """The `compose migrate` command line that rewrites the file `shown` for `schema`."""
    section = f" --section {dotted(prefix)}" if prefix else ""
    spec = f"{_module_name(schema)}:{schema.__qualname__}"
    return f"compose migrate --schema {spec}{section} {shown}"


def _module_name(schema: type[BaseModel]) -> str:
    """The name `compose migrate --schema` imports the schema's module by: a script's
    (`python app.py`, whose module is `__main__`) is its file's stem, or the `-m` name."""
    if schema.__module__ != "__main__":
        return schema.__module__
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name and spec.name != "__main__":
        return str(spec.name).removesuffix(".__main__")
    file = getattr(main, "__file__", None)
    return os.path.splitext(os.path.basename(file))[0] if file else "__main__"
