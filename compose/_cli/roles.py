"""What each config file of a tree is, for `compose check`: the root config of an entrypoint,
or an overlay laid over one (at the root, or mounted at a section).

Declared in a small mapping, `compose-check.toml`, read through compose itself (so a typo in it
is named with its line), or inferred: a file in a config group's directory (`conf/optim/`) is an
overlay of every section named like the group (`trainer.optim`); any other file is a root
config of the default entrypoint, judged whole, as `ENTRYPOINT @ FILE` would take it.
"""

from __future__ import annotations

import fnmatch
import importlib
import os
import re
import shlex
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from compose._input.argv import FileItem
from compose._merge.flags import key_segments
from compose._merge.fold import compose_items
from compose._schema.keys import cli_key
from compose._schema.shape import (
    NOT_A_SECTION,
    Kind,
    model_shape,
    section_models,
    shape_of_field,
    takes_a_file,
)
from compose._schema.walk import walk
from compose._syntax import dotted
from compose._tree import KeyPath
from compose.errors import ArgvError, ComposeError, ConfigValidationError, SourceError, closest

ROLES_FILE = "compose-check.toml"
# Never config nodes, wherever they sit in a tree: a project's own metadata.
NOT_CONFIGS = frozenset(
    {ROLES_FILE, "pyproject.toml", "Cargo.toml", "poetry.lock", "uv.lock", "Pipfile"}
)
CONFIG_SUFFIXES = (".toml", ".json", ".yaml", ".yml")  # what a file node is read as (docs/14)
_SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})
_MAX_SECTION_DEPTH = 8  # a schema that holds itself (a tree of sections) ends here
MAX_DIR_DEPTH = 100  # directories below a path `compose check` walks: past any config tree


class FileRule(BaseModel):
    """`[[files]]`: what the files that `match` are (the first rule that matches decides)."""

    model_config = ConfigDict(extra="forbid")
    match: list[str] = Field(min_length=1)
    entrypoint: str | None = None  # a name of [entrypoints]; the default one if not given
    section: str = ""  # where the file is mounted (`trainer.optim`); "" the root
    overlay: bool | None = None  # laid over another file; default: mounted at a section
    skip: bool = False  # not a config node (a fixture meant to fail)
    sweep_over: list[str] | None = None  # a sweep's file (`--sweep @ FILE`) over this argv


class RolesFile(BaseModel):
    """`compose-check.toml`."""

    model_config = ConfigDict(extra="forbid")
    entrypoints: dict[str, str] = {}  # name -> MODULE:CLASS
    default: str | None = None  # the entrypoint of files no rule names
    search_path: list[str] = []  # where `_include_` names and config groups are found
    exclude: list[str] = []  # patterns of files not to check
    files: list[FileRule] = []


@dataclass(frozen=True)
class Role:
    """How to judge a file: `schema` (MODULE:CLASS) at `section`; an overlay is judged as a
    piece (what a later node may supply is not asked), a root config whole."""

    entrypoint: str
    schema: str
    section: str = ""
    overlay: bool = False
    sweep_over: tuple[str, ...] | None = None  # a sweep's file: every point composed

    def describe(self) -> str:
        """`as trainer.optim of rl`, `as an overlay of rl`, `as a root config of rl`."""
        if self.sweep_over is not None:
            over = f" over {shlex.join(self.sweep_over)}" if self.sweep_over else ""
            return f"as a sweep of {self.entrypoint}{over}"
        if self.section:
            return f"as {self.section} of {self.entrypoint}"
        return f"as {'an overlay' if self.overlay else 'a root config'} of {self.entrypoint}"


@dataclass(frozen=True)
class Roles:
    """The mapping as read: entrypoints by name, the rules, and where they are relative to."""

    base: Path
    entrypoints: dict[str, str]
    default: str | None
    search_path: tuple[str, ...]
    exclude: tuple[str, ...]
    rules: tuple[FileRule, ...]
    shown: str  # the mapping's name in messages ("" when none was read)


def read_roles(path: str | None, schema: str | None) -> Roles:
    """The mapping at `path` (else `compose-check.toml` here, if any), with `--schema` as the
    default entrypoint when given."""
    from compose._api import compose  # noqa: PLC0415  # the mapping is a config like any other

    found = path if path is not None else (ROLES_FILE if os.path.isfile(ROLES_FILE) else None)
    declared = RolesFile() if found is None else compose([found], schema=RolesFile)
    entrypoints = dict(declared.entrypoints)
    default = declared.default
    if schema is not None:
        entrypoints.setdefault(schema, schema)
        default = schema
    elif default is None and len(entrypoints) == 1:
        default = next(iter(entrypoints))
    base = _real(found).parent if found is not None else Path.cwd()
    roles = Roles(
        base=base,
        entrypoints=entrypoints,
        default=default,
        search_path=tuple(str(base / d) for d in declared.search_path),
        exclude=tuple(declared.exclude),
        rules=tuple(declared.files),
        shown=found or "",
    )
    _check_names(roles)
    _check_sweeps(roles)
    return roles


def mapping_key(path: KeyPath) -> str:
    """A key of the mapping as errors name keys: a flag (`--files.0.section`)."""
    return cli_key(model_shape(RolesFile), path)


def _check_names(roles: Roles) -> None:
    """Every entrypoint a rule or `default` names is declared."""
    named: list[tuple[KeyPath, str | None]] = [(("default",), roles.default)]
    named += [(("files", i, "entrypoint"), r.entrypoint) for i, r in enumerate(roles.rules)]
    for path, name in named:
        if name is not None and name not in roles.entrypoints:
            known = ", ".join(roles.entrypoints) or "none declared"
            raise ComposeError(
                "names no entrypoint of [entrypoints]",
                key=mapping_key(path),
                value=name,
                origin=declared_at(roles, path),
                hint=f"entrypoints: {known}",
            )


# What a sweep's file is not, so that a rule judging one cannot say it is (it would be ignored)
_NOT_FOR_SWEEPS = {
    "section": "mounted at a section: its axes name keys of the whole config",
    "overlay": "laid over another file: its points are composed over sweep_over alone",
}


def _check_sweeps(roles: Roles) -> None:
    """A rule with `sweep_over` gives no `section` nor `overlay`, which a sweep's file ignores."""
    for index, rule in enumerate(roles.rules):
        if rule.sweep_over is None:
            continue
        given = {"section": rule.section or None, "overlay": rule.overlay}
        for name, value in given.items():
            if value is not None:
                path = ("files", index, name)
                raise ConfigValidationError(
                    f"a rule with sweep_over judges a sweep's file, which is not "
                    f"{_NOT_FOR_SWEEPS[name]}",
                    key=mapping_key(path),
                    value=value,
                    origin=declared_at(roles, path),
                    hint=f"drop {name}, or sweep_over if the file is no sweep's",
                )


def check_sections(roles: Roles, schemas: Mapping[str, type[BaseModel]]) -> None:
    """Each rule's `section` is where its entrypoint's schema takes a file (`--KEY @ FILE`):
    a typo in it is the mapping's error at its line (bad input, exit 2), not a problem of every
    file the rule matches."""
    for index, rule in enumerate(roles.rules):
        name = rule.entrypoint if rule.entrypoint is not None else roles.default
        if not rule.section or name is None:
            continue
        path = ("files", index, "section")
        root = model_shape(schemas[name])
        try:
            target = walk(root, key_segments(root, rule.section), {}, f"--{rule.section}")
        except ComposeError as error:
            message, hint = error.message, error.hint
        else:
            if takes_a_file(target.shape):
                continue
            message, hint = NOT_A_SECTION, None
        raise ConfigValidationError(
            f"names no section of {name}: {message}",
            key=mapping_key(path),
            value=rule.section,
            origin=declared_at(roles, path),
            hint=hint,
        )


def unmatched_patterns(
    roles: Roles, paths: Sequence[str], files: Sequence[str]
) -> list[ComposeError]:
    """The patterns of the mapping that decide nothing, though they could reach a file under a
    directory of `paths`: a typo in a glob, a rule whose files an earlier rule all decides (a
    broad glob above a narrow one), an `exclude` that leaves out no file. Each would leave its
    files to another role, silently. `files` are the files checked. A pattern whose fixed head
    leads elsewhere (a rule for another directory than those checked) is not asked."""
    reach = [
        d
        for d in (_relative(path, roles) for path in paths if os.path.isdir(path))
        if d is not None
    ]
    deciding = {path: _deciding_rule(path, roles) for path in files}
    names = [_relative(path, roles) or path for path in files]
    found: list[ComposeError] = []
    excluded = _excluded_files(paths, roles) if roles.exclude else []
    for number, pattern in enumerate(roles.exclude):  # top-level keys: above every rule
        if _reaches(pattern, reach) and not any(_matches((pattern,), f, roles) for f in excluded):
            key = mapping_key(("exclude", number))
            found.append(_matches_nothing(key, pattern, declared_at(roles, ("exclude",)), []))
    for index, rule in enumerate(roles.rules):
        for number, pattern in enumerate(rule.match):
            if not _reaches(pattern, reach):
                continue
            key = mapping_key(("files", index, "match", number))
            where = declared_at(roles, ("files", index, "match"))
            matched = [path for path in files if _matches((pattern,), path, roles)]
            if not matched:
                found.append(_matches_nothing(key, pattern, where, names))
            elif all(deciding[path] < index for path in matched):
                earlier = min(deciding[path] for path in matched)
                found.append(_shadowed(key, pattern, where, earlier, roles))
    return found


def _deciding_rule(path: str, roles: Roles) -> int:
    """The index of the first rule that matches `path` (what `roles_of` follows)."""
    return next(
        (index for index, rule in enumerate(roles.rules) if _matches(rule.match, path, roles)),
        len(roles.rules),
    )


def _matches_nothing(
    key: str, pattern: str, where: str | None, names: Sequence[str]
) -> ComposeError:
    close = closest(pattern, names, cutoff=0.8)
    return ConfigValidationError(
        "matches no file under the paths checked",
        key=key,
        value=pattern,
        origin=where,
        hint=f"did you mean {close}?" if close else _PATTERNS,
    )


def _shadowed(
    key: str, pattern: str, where: str | None, earlier: int, roles: Roles
) -> ComposeError:
    at = declared_at(roles, ("files", earlier, "match"))
    return ConfigValidationError(
        f"every file it matches is decided by an earlier rule, "
        f"{mapping_key(('files', earlier))}{f' ({at})' if at else ''}",
        key=key,
        value=pattern,
        origin=where,
        hint="the first rule whose patterns match decides: put this one first",
    )


def _excluded_files(paths: Sequence[str], roles: Roles) -> list[str]:
    """The config files under the directories of `paths` that `exclude` leaves out."""
    return [
        path
        for given in paths
        if os.path.isdir(given)
        for path in _config_files_under(given)
        if _matches(roles.exclude, path, roles)
    ]


_PATTERNS = "patterns are relative to the mapping's directory, in fnmatch's syntax"
_WILDCARD = re.compile(r"[*?[]")


def _reaches(pattern: str, directories: Sequence[str]) -> bool:
    """Whether `pattern` could match a file under one of `directories` (relative to the
    mapping's, "" for it): its head before any wildcard leads into one, or one lies in it."""
    head = _WILDCARD.split(pattern, maxsplit=1)[0]
    return any(
        not directory or head.startswith(directory + "/") or (directory + "/").startswith(head)
        for directory in directories
    )


def _relative(path: str, roles: Roles) -> str | None:
    """`path` relative to the mapping's directory, as patterns name it ("" for it); None when
    it lies outside."""
    try:
        relative = _real(path).relative_to(roles.base).as_posix()
    except ValueError:
        return None
    return "" if relative == "." else relative


def declared_at(roles: Roles, path: KeyPath) -> str | None:
    """Where the mapping wrote the value at `path` (`compose-check.toml:3`), for an error
    about it; the mapping's name when no line is known, None when there is no mapping."""
    if not roles.shown:
        return None
    item = FileItem(roles.shown, "", roles.shown)
    return compose_items([item], RolesFile).origins.describe(path) or roles.shown


def config_files(paths: Sequence[str], roles: Roles) -> list[str]:
    """The files to check: each file given, and the config files under each directory given
    (TOML, JSON, YAML; not hidden ones, not a project's metadata, not those `exclude` names),
    each once, however many of the paths given reach it."""
    found: list[str] = []
    for given in paths:
        if os.path.isdir(given):
            found += sorted(_files_under(given, roles))
        else:
            found.append(
                os.path.normpath(given)
            )  # named on purpose: checked (a missing one said so)
    return list(dict.fromkeys(found))


def _files_under(directory: str, roles: Roles) -> Iterator[str]:
    for path in _config_files_under(directory):
        if not _matches(roles.exclude, path, roles):
            yield path


def _config_files_under(directory: str) -> Iterator[str]:
    """The config files below `directory`, walked with a stack of our own (`os.walk` recurses
    once a level on Python 3.10 and 3.11), no deeper than `MAX_DIR_DEPTH` levels. Links to
    directories are not followed; a directory that cannot be listed is passed, as `os.walk`
    passes it."""
    pending = [(directory, 0)]
    while pending:
        root, depth = pending.pop()
        if depth > MAX_DIR_DEPTH:
            raise SourceError(
                f"directories nested more than {MAX_DIR_DEPTH} levels deep: not walked",
                origin=directory,
                hint="is it a config tree? name the config directories in it instead",
            )
        try:
            with os.scandir(root) as listing:
                entries = list(listing)
        except OSError:
            continue
        below = []
        for entry in entries:
            if not _is_dir(entry):
                if _is_config_name(entry.name):
                    yield os.path.normpath(entry.path)
            elif not entry.is_symlink() and not _skipped_dir(entry.name):
                below.append(entry.path)
        pending += [(path, depth + 1) for path in below]


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """A directory, or a link to one (not a config file), as `os.walk` tells them."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _skipped_dir(name: str) -> bool:
    return name.startswith(".") or name in _SKIPPED_DIRS or name.endswith(".egg-info")


def _is_config_name(name: str) -> bool:
    if name.startswith(".") or name in NOT_CONFIGS:
        return False
    return name.endswith(CONFIG_SUFFIXES)


def _matches(patterns: Sequence[str], path: str, roles: Roles) -> bool:
    """`path` matched by a pattern, relative to the mapping's directory (`*` crosses `/`)."""
    relative = _relative(path, roles)
    if relative is None:  # outside the mapping's tree: patterns relative to it cannot name it
        relative = Path(path).as_posix()
    return any(fnmatch.fnmatchcase(relative, pattern) for pattern in patterns)


def _real(path: str) -> Path:
    """`path` with its symlinks followed, as far as they go: a loop (`a -> b -> a`), or a name
    no file has (a NUL byte in the mapping's `search_path`), stays a path, the file's own
    problem when it is read, where `Path.resolve` would raise."""
    try:
        return Path(os.path.realpath(path))
    except ValueError:  # an embedded NUL byte
        return Path(os.path.abspath(path))


def roles_of(
    path: str,
    roles: Roles,
    schemas: dict[str, type[BaseModel]],
    search_path: Sequence[str] = (),
    included: Mapping[str, Role] | None = None,
) -> list[Role] | None:
    """The roles `path` may play, in the order to try them; [] if it is to be skipped, None if
    it fits none (no rule names it and there is no default entrypoint). A rule decides first;
    then `included` (a file another one includes, by real path: a piece, where it is mounted);
    then a config group (a directory in one of `search_path`'s, or the working directory)."""
    for rule in roles.rules:
        if _matches(rule.match, path, roles):
            return [] if rule.skip else _declared(rule, roles)
    if included and os.path.realpath(path) in included:
        return [included[os.path.realpath(path)]]
    if roles.default is None:
        return None
    schema = schemas[roles.default]
    sections = _group_sections(path, schema, search_path)
    spec = roles.entrypoints[roles.default]
    if sections:
        return [Role(roles.default, spec, section, overlay=True) for section in sections]
    return [Role(roles.default, spec)]


def _declared(rule: FileRule, roles: Roles) -> list[Role] | None:
    name = rule.entrypoint if rule.entrypoint is not None else roles.default
    if name is None:
        return None
    overlay = bool(rule.section) if rule.overlay is None else rule.overlay
    sweep_over = tuple(rule.sweep_over) if rule.sweep_over is not None else None
    return [Role(name, roles.entrypoints[name], rule.section, overlay, sweep_over)]


def _group_sections(path: str, schema: type[BaseModel], search_path: Sequence[str]) -> list[str]:
    """The sections a file of a config group is laid over: `conf/optim/muon.toml` (with `conf`
    on the search path, or the working directory) -> every section whose field is `optim`."""
    group_dir = _real(path).parent
    roots = [_real(d) for d in (*search_path, os.getcwd())]
    if group_dir.parent not in roots:
        return []
    return [
        s
        for s in section_paths(schema)
        if s.removesuffix(".0").rpartition(".")[2] == group_dir.name
    ]


def section_paths(schema: type[BaseModel]) -> list[str]:
    """Every section of `schema` a file can be mounted at (`--trainer.optim @ FILE`), dotted:
    fields holding a model or a union of models, and an element of a list of them
    (`--orchestrator.env.0 @ FILE`: a file of `conf/env/` is one element); not a dict's."""
    found: list[str] = []
    _collect_sections(schema, (), found, (schema,))
    return found


def _collect_sections(
    model: type[BaseModel], path: tuple[str, ...], found: list[str], seen: tuple[type, ...]
) -> None:
    if len(path) >= _MAX_SECTION_DEPTH:
        return
    for name, info in model.model_fields.items():
        shape = shape_of_field(info)
        if shape.kind is Kind.LIST and shape.item is not None and section_models(shape.item):
            found.append(dotted((*path, name, "0")))  # an element, judged as the first
        if shape.kind in (Kind.LIST, Kind.DICT):
            continue
        models = [m for m in section_models(shape) if m not in seen]
        if not models:
            continue
        here = (*path, name)
        found.append(dotted(here))
        for held in dict.fromkeys(models):
            _collect_sections(held, here, found, (*seen, held))


def load_schema(spec: str, key: str = "--schema") -> type[BaseModel]:
    """`package.module:Class`, imported with the working directory on the path."""
    module_name, colon, class_name = spec.partition(":")
    if not colon or not module_name or not class_name:
        raise ArgvError("expects MODULE:CLASS", key=key, value=spec)
    if os.getcwd() not in sys.path:  # last: a `yaml.py` here never shadows an installed library
        sys.path.append(os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # any import failure is the user's to fix
        raise ArgvError(f"cannot import {module_name}: {error}", key=key, value=spec) from None
    schema = getattr(module, class_name, None)
    if not (isinstance(schema, type) and issubclass(schema, BaseModel)):
        raise ArgvError(f"{module_name} has no config class {class_name}", key=key, value=spec)
    return schema
