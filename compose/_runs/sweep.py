"""`sweep()`: a base command line and a sweep definition -> every point composed and validated.

Nothing is written here (`compose._runs.records` writes) and nothing is submitted: a `Sweep`
is plain data, each point with its validated config, its overrides and its fingerprint. Every
file is read and parsed once for all the points (a `FileCache` held by this call, not by the
module); every failing point is reported at once.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from compose._api import HydraCall, chosen_groups, parse_with
from compose._input.argv import program_name
from compose._input.files import FileCache, load_file
from compose._input.options import NO_OPTIONS, Options, Resolvers, options
from compose._input.search import Dirs
from compose._interp.clock import run_instant
from compose._jsonfile import is_text, read_record, record_field
from compose._runs.define import (
    Axes,
    Definition,
    Part,
    Where,
    axis_part,
    check_count,
    define,
    made,
    override,
)
from compose._runs.fingerprint import differing_secrets, fingerprint
from compose._runs.masked import axes_masker, masked_definition, masked_tokens
from compose._runs.run import leaf_origins, recorded_now, sha256_text
from compose._schema.keys import all_flags, suggest
from compose._syntax import (
    HYDRA_NODE,
    SWEEP_CONTROLS,
    SWEEP_FLAG,
    dotted,
    flag_name,
    is_output_dir_name,
    kebab_case,
    snake_case,
)
from compose._tree import KeyPath
from compose._warn import warn
from compose.errors import (
    ComposeError,
    ComposeWarning,
    PointError,
    UnknownKeyError,
    closest,
    gather,
)

M = TypeVar("M", bound=BaseModel)
Source = str | os.PathLike[str]

CONTROLS = ("name", "dir", "output", "command", "executor")
# control -> the flag that gives it (`command` has none: a sweep file's `[sweep]` gives it)
CONTROL_FLAGS = {
    "name": "--sweep-name",
    "dir": "--sweep-dir",
    "output": "--sweep-output",
    "executor": "--sweep-executor",
}
DEFAULT_DIR = "runs"
STARTED_NAME = "%Y-%m-%d_%H-%M-%S"  # a Hydra multirun's directory, named by its start
SWEEP_FILE = "sweep.json"  # in the sweep's directory: its definition, hash and instant
NAME_CHARS = 12  # of the fingerprint's hex: a point directory's name
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.=+-]*")
_NAME_MAX = 255  # characters of a directory's name (ASCII here): what file systems take
# Told of each point as a sweep goes: `progress("composing" | "writing", done, total)`
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Point(Generic[M]):
    """One point of a sweep: its validated config, and how it was made."""

    index: int
    """Its place in the sweep, from 0."""
    axes: Mapping[str, Any]
    """KEY -> value, what this point sets (a file's typed values, or flag text)."""
    overrides: tuple[str, ...]
    """`axes` as command-line tokens, appended to the base argv: `--trainer.optim.lr=0.0001`."""
    argv: tuple[str, ...]
    """The whole command line the config was composed from (without the program's name)."""
    config: M
    """The validated config."""
    fingerprint: str
    """sha256 of the resolved config (`compose._runs.fingerprint`), the output key left out."""
    directory: Path
    """Its run record: `SWEEP_DIR/NAME`, absolute."""
    origins: Mapping[str, str] | None = field(default=None, repr=False, compare=False)
    """Where each leaf of its config was set, when its grammar knows it point by point (a
    Hydra job: each chooses its own files); None: the sweep's base origins hold, its axes
    marked (`point_origins`)."""

    @property
    def name(self) -> str:
        """The point's directory name: the fingerprint's first 12 hex digits, so the same config
        gets the same name."""
        return self.directory.name


@dataclass(frozen=True)
class Sweep(Generic[M]):
    """A materialized sweep: every point validated, nothing written or submitted yet."""

    name: str
    directory: Path
    """`DIR/NAME`, absolute: the manifest, sweep.json, and one directory per point."""
    prog: str
    """The program: the config file is `POINT/configs/PROG.toml`."""
    base_argv: tuple[str, ...]
    points: tuple[Point[M], ...]
    command: tuple[str, ...]
    """What runs a point, before `@ POINT/configs/PROG.toml` (default: the program's name)."""
    output: str | None
    """The key set to each point's directory, if any (`output_dir`)."""
    executor: str
    executor_options: Mapping[str, Any]
    definition: Mapping[str, Any]
    """What makes the points (base argv, the sweep tables, axes, command, output): sweep.json."""
    definition_hash: str
    origins: Mapping[str, str] = field(repr=False)
    """Where the base argv set each value (`trainer.optim.lr` -> `rl.toml:30`), computed once."""
    sources: Mapping[str, str] = field(repr=False)
    """Every file the points were composed from, as named, -> the sha256 of its text."""
    cwd: str = ""
    """The directory the sweep was made in: relative names in argv are relative to it."""
    now: datetime.datetime | None = None
    """The instant every point's `${now:}` gave: one for the whole sweep, kept in sweep.json."""
    control_origins: Mapping[str, Where] = field(default_factory=dict, repr=False, compare=False)
    """Control (`executor`) -> where the sweep file that set it says its keys are (`Where`)."""
    fresh: bool = False
    """Its directory must be new: a Hydra multirun named by its start, never written into
    another sweep's (`Settings.fresh`)."""

    @property
    def hydra(self) -> Mapping[str, Any] | None:
        """A Hydra multirun's tree (sweep.json's `hydra`: its directory, name, groups); None
        for compose's own sweep mode."""
        tree: Mapping[str, Any] | None = self.definition.get("hydra")
        return tree

    @property
    def names(self) -> frozenset[str]:
        """The axis keys that take names, not values (a Hydra multirun's config groups)."""
        return frozenset(self.hydra["groups"]) if self.hydra is not None else frozenset()

    @property
    def grammar(self) -> dict[str, Any]:
        """How the points' command lines read (`masked_tokens`'s keywords): compose's own
        grammar, or Hydra's overrides (a multirun's jobs), its groups' choices being names."""
        if self.hydra is None:
            return {}
        return {"hydra": True, "names": self.names}

    def control_at(self, path: KeyPath) -> str | None:
        """Where the control at `path` (`("sweep", "executor", "job_name")`) was written:
        FILE:LINE, the flag that gave it, or None (a default)."""
        where = self.control_origins.get(str(path[1])) if len(path) > 1 else None
        return where(path) if where is not None else None

    knobs: Options = field(default=NO_OPTIONS, repr=False)
    """What every point was composed with (its environment's variables go in the records)."""


def sweep(
    schema: type[M],
    argv: Sequence[str] = (),
    *,
    sweep_files: Sequence[Source] = (),
    axes: Mapping[str, Any] | None = None,
    name: str | None = None,
    directory: Source | None = None,
    output: str | None = None,
    command: Sequence[str] | None = None,
    executor: str | Mapping[str, Any] | None = None,
    prog: str | None = None,
    resolvers: Resolvers = None,
    search_path: Dirs = (),
    env_prefix: str | None = None,
    environ: Mapping[str, str] | None = None,
    now: datetime.datetime | str | None = None,
    frozen: bool = False,
) -> Sweep[M]:
    """Expand a sweep and compose and validate every point; write nothing, submit nothing.

    Each point is `argv` (a base command line, as `parse` takes it) with the point's overrides
    appended, so they win. The points are the product of every sweep file (TOML: a `[sweep]`
    table of controls, then `axes`, `zip`, `blocks`, `seeds`; see docs/15) and of `axes`
    (KEY -> a list of values, or `{"range": [0, 3]}`, `{"logspace": [1e-5, 1e-3, 5]}`).
    `name`, `directory`, `output`, `command` and `executor` override the files' `[sweep]`.

    Raises one `ComposeError` for bad input: an axis key the schema lacks (with a
    did-you-mean), a zip of unequal lengths, an empty sweep, a bad range; and, all at once,
    every point that fails, each named with its index and axis values (`PointError`).
    Every point is composed at one instant (`${now:}`): `now`, else the one sweep.json records
    for the same definition (so writing or resuming it again makes the same points), else
    $COMPOSE_NOW, else the clock. `frozen` freezes every point's config (as a schema that
    declares `frozen=True` does). The other options are those of `parse`.
    """
    knobs = options(
        resolvers=resolvers,
        search_path=search_path,
        env_prefix=env_prefix,
        environ=environ,
        now=now,
        frozen=frozen,
    )
    controls: dict[str, Any] = {
        "name": name,
        "dir": directory,
        "output": output,
        "command": command,
    }
    if executor is not None:
        controls["executor"] = executor
    return sweep_with(schema, argv, knobs, sweep_files, axes, prog, controls)


def sweep_with(
    schema: type[M],
    argv: Sequence[str],
    knobs: Options,
    sweep_files: Sequence[Source] = (),
    axes: Mapping[str, Any] | None = None,
    prog: str | None = None,
    given: Mapping[str, Any] | None = None,
    *,
    given_origins: Mapping[str, str] | None = None,
    progress: Progress | None = None,
) -> Sweep[M]:
    """`sweep`, its composing keywords as one `Options` value (the app's `default=` reaches
    every point too), and the controls it was `given` (`name`, `dir`, `output`, `command`,
    `executor`: None where not given) over the sweep files' `[sweep]` tables; `given_origins`
    says where each was given (the flag), for its errors. `progress(what, done, total)` is
    told of each point composed.

    The sweep's count of points is known, and held to `MAX_POINTS`, before any is made."""
    files = FileCache()
    read = _read_sweep_files(sweep_files)
    _take_given(read, given, given_origins)
    parts = [definition.part for definition in read.definitions]
    parts.extend(axis_part(key, spec, f"--sweep.{key}") for key, spec in (axes or {}).items())
    if not parts:
        raise ComposeError("nothing to sweep", hint="add --sweep @ FILE or --sweep.KEY V1 V2 ...")
    check_count(parts, "the sweep")
    origins = {key: o for definition in read.definitions for key, o in definition.origins.items()}
    origins.update({key: f"--sweep.{key}" for key in axes or {}})
    settings = Settings(read.controls, read.origins, prog)
    _check_keys(schema, origins, settings)
    points = made(parts, "the sweep")
    base = tuple(argv)
    jobs = [
        (point, tuple(token for key, value in point.items() for token in override(key, value)))
        for point in points
    ]

    def compose_argv(tokens: Sequence[str], at: Options) -> tuple[M, None]:
        return parse_with(schema, tokens, at, prog=settings.prog, files=files), None

    grammar = PointGrammar(
        compose_argv,
        lambda key, directory: f"--{key}={directory}",
        lambda at: leaf_origins(schema, base, files, at),
        files.texts,
    )
    definition = {"argv": list(base), "sweep": read.tables, "axes": dict(axes or {})}
    return materialize(
        schema, grammar, base, jobs, settings, read.wheres, definition, knobs, progress
    )


@dataclass(frozen=True)
class PointGrammar(Generic[M]):
    """How a sweep's points are composed, in compose's own grammar or in Hydra's: a whole
    command line (the base, then a point's overrides) -> its validated config, and where each
    of its leaves was set when the grammar says it point by point (else None)."""

    compose: Callable[[Sequence[str], Options], tuple[M, Mapping[str, str] | None]]
    output_token: Callable[[str, Path], str]
    """The override that sets a dotted key to a directory (the sweep's output key)."""
    base_origins: Callable[[Options], dict[str, str]]
    """Where the base command line set each leaf (`leaf_origins`); {} where it cannot say."""
    texts: Mapping[str, str]
    """Every file read to compose the points, by the name it is shown as: its text."""
    names: frozenset[str] = frozenset()
    """The axis keys that take names, never masked (a Hydra multirun's config groups)."""


def materialize(
    schema: type[M],
    grammar: PointGrammar[M],
    base: tuple[str, ...],
    jobs: Sequence[tuple[Axes, tuple[str, ...]]],
    settings: Settings,
    wheres: Mapping[str, Where],
    definition: Mapping[str, Any],
    knobs: Options,
    progress: Progress | None,
) -> Sweep[M]:
    """A sweep's points composed (each its axes and the overrides that give them, after
    `base`), at one instant, their output directories checked: the `Sweep`. `definition`,
    with the settings' program, command and output, is what sweep.json keeps and hashes."""
    recorded = {
        "prog": settings.prog,
        **definition,
        "command": list(settings.command),
        "output": settings.output,
    }
    masked = masked_definition(schema, recorded)  # sweep.json, and its hash, hold no secret
    definition_hash = canonical_hash(masked)
    instant = _sweep_instant(knobs, settings.directory, definition_hash)
    at_instant = knobs.but(now=instant)
    composed = _compose_points(schema, grammar, base, jobs, settings, at_instant, progress)
    base_origins = grammar.base_origins(at_instant)
    _check_output_dirs(composed, settings, base_origins)
    return Sweep(
        name=settings.name,
        directory=settings.directory,
        prog=settings.prog,
        base_argv=base,
        points=tuple(composed),
        command=settings.command,
        output=settings.output,
        executor=settings.executor,
        executor_options=settings.executor_options,
        definition=masked,
        definition_hash=definition_hash,
        origins=base_origins,
        sources={shown: sha256_text(text) for shown, text in grammar.texts.items()},
        cwd=os.getcwd(),
        now=instant,
        control_origins=dict(wheres),
        knobs=at_instant,
        fresh=settings.fresh,
    )


def _take_given(
    read: _SweepFiles,
    given: Mapping[str, Any] | None,
    given_origins: Mapping[str, str] | None,
) -> None:
    """The controls given as arguments (flags, or `sweep()`'s keywords) over the files'."""
    for control, value in (given or {}).items():
        if value is not None:
            read.controls[control] = value
            flag = (given_origins or {}).get(control)  # None: given in code
            read.origins[control] = flag
            if flag is not None:
                read.wheres[control] = _given_as(flag)
            else:
                read.wheres.pop(control, None)


def controls_given(
    given: Mapping[str, Any] | None,
    given_origins: Mapping[str, str] | None,
    prog: str | None,
    started: datetime.datetime,
) -> tuple[Settings, dict[str, Where]]:
    """The settings of a sweep made without sweep files (Hydra's multirun, `started` at that
    instant): the controls given as flags, and where each was given."""
    read = _SweepFiles()
    _take_given(read, given, given_origins)
    return Settings(read.controls, read.origins, prog, multirun_at=started), read.wheres


def _given_as(flag: str) -> Where:
    """Where a control given as an argument was written: the flag that gives it."""
    return lambda path: flag


def _sweep_instant(knobs: Options, directory: Path, definition_hash: str) -> datetime.datetime:
    if knobs.now is not None:
        return knobs.now
    previous = read_sweep_record(directory)
    if previous is not None and previous.get("hash") == definition_hash:
        recorded = recorded_now(previous, directory / SWEEP_FILE)
        if recorded is not None:
            return recorded
    return run_instant(knobs.environ)


def read_sweep_record(directory: Path) -> dict[str, Any] | None:
    """The sweep.json in `directory` (None if there is none): its definition's `hash` text
    (its `now`: `recorded_now`); one that cannot be read is an error naming it."""
    path = directory / SWEEP_FILE
    record = read_record(path)
    if record is not None:
        record_field(record, "hash", path, is_text, "a sha256")
    return record


def canonical_hash(data: Any) -> str:
    """sha256 of data's canonical JSON (sorted keys): the same definition, the same hash."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass
class _SweepFiles:
    """What the sweep files say: the controls (later files win) and where each was written,
    each file's block checked and counted, and the tables as read (for sweep.json)."""

    controls: dict[str, Any] = field(default_factory=dict)
    origins: dict[str, str | None] = field(default_factory=dict)
    wheres: dict[str, Where] = field(default_factory=dict)  # the lines of a control's own keys
    definitions: list[Definition] = field(default_factory=list)
    tables: list[Any] = field(default_factory=list)


def _read_sweep_files(paths: Sequence[Source]) -> _SweepFiles:
    read = _SweepFiles()
    for path in paths:
        table, source = load_file(os.fspath(path))
        where: Where = source.at
        own = table.pop("sweep", {})
        if not isinstance(own, dict):
            raise ComposeError(
                "[sweep] is a table of controls", value=own, origin=where(("sweep",))
            )
        for key in own:
            if key not in CONTROLS:
                hint = closest(key, CONTROLS, cutoff=0.6)
                raise ComposeError(
                    f"not a sweep control ({', '.join(CONTROLS)})",
                    key=f"sweep.{key}",
                    origin=where(("sweep", key)),
                    hint=f"did you mean sweep.{hint}?" if hint else None,
                )
            read.origins[key] = where(("sweep", key))
            read.wheres[key] = where
        if "_stem" not in read.controls:
            read.controls["_stem"] = Path(os.fspath(path)).stem
            read.origins["_stem"] = source.shown
        read.controls.update(own)
        read.tables.append(
            {"sweep": {k: v for k, v in own.items() if k in ("output", "command")}, **table}
        )
        if table:
            read.definitions.append(define(table, where))
    return read


def control_text(value: Any, key: str, origin: str | None) -> str:
    """A control given as text (a sweep's name, its directory, its output key, an executor's
    name), from a flag, a sweep file or `sweep()`: text that names something. Empty text is an
    error, never the default, as is what is not text (`dir = 5`)."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise ComposeError("takes text (a TOML string)", key=key, value=value, origin=origin)
    if not value:
        raise ComposeError(
            "is empty: give a value, or leave it out for the default", key=key, origin=origin
        )
    if "\0" in value:
        raise ComposeError("holds a NUL character, which names nothing", key=key, origin=origin)
    return value


class Settings:
    """The controls of a sweep, with their defaults, checked, and where each was given.

    `multirun_at`: a Hydra app's multirun, started at that instant. No sweep file gives its
    controls (its flags do, and errors say only those), and with no name given, its start
    names it, in a directory of its own (`fresh`): each `-m` is a sweep of its own, as
    Hydra's each is, never one written over another."""

    def __init__(
        self,
        controls: Mapping[str, Any],
        origins: Mapping[str, str | None],
        prog: str | None,
        *,
        multirun_at: datetime.datetime | None = None,
    ) -> None:
        self.prog = prog or program_name()
        self.origins = origins
        self.files = multirun_at is None  # whether sweep files' `[sweep]` give controls too
        parent = self._parent(controls.get("dir"))
        self.fresh = multirun_at is not None and "name" not in controls
        self.name = self._name(controls, parent, multirun_at)
        self.directory = self._directory(parent)
        output = controls.get("output")
        self.output = None
        if output is not None:
            text = control_text(output, *self._at("output"))
            self.output = ".".join(map(snake_case, text.split(".")))
        self.command = self._command(controls.get("command"))
        self.executor, self.executor_options = self._executor(controls.get("executor"))

    def _at(self, control: str) -> tuple[str, str | None]:
        """What an error about `control` names: the flag that gave it (`--sweep-name`), else
        `sweep.CONTROL` and where it was written (a sweep file's line); a Hydra app's default,
        which no sweep file could have set, by its flag."""
        origin = self.origins.get(control)
        if origin is not None and origin.startswith("--"):
            return origin, None
        if not self.files and control in CONTROL_FLAGS:
            return CONTROL_FLAGS[control], None
        return f"sweep.{control}", origin

    def how_to_give(self, control: str, value: str) -> str:
        """How the user gives `control` (`output`) the `value`, as a hint says it: its flag,
        and its key in `[sweep]` where sweep files give controls (a Hydra app's multirun has
        no sweep file)."""
        flag = f"{CONTROL_FLAGS[control]} {value}"
        if not self.files:
            return flag
        return f"{flag} (or {control} = {json.dumps(value)} in [sweep])"

    def _name(
        self, controls: Mapping[str, Any], parent: Path, multirun_at: datetime.datetime | None
    ) -> str:
        """One path segment: a name that leaves the sweep's directory (`..`, `a/b`) is none.
        The name given, else a Hydra multirun's start (`started_name`), else the first sweep
        file's stem, else `sweep`."""
        if "name" in controls:
            key, origin = self._at("name")
            name = control_text(controls["name"], key, origin)
        elif multirun_at is not None:
            return started_name(parent, multirun_at)
        else:  # the first sweep file's stem
            key, origin = "sweep.name", self.origins.get("_stem")
            name = str(controls.get("_stem") or "sweep")
        if not _PLAIN_NAME.fullmatch(name) or name in (".", "..") or len(name) > _NAME_MAX:
            raise ComposeError(
                f"a sweep's name is one directory name: up to {_NAME_MAX} letters, digits and "
                "_ . = + -, not . or ..",
                key=key,
                value=name,
                origin=origin,
                hint=f"name it with {self.how_to_give('name', 'NAME')}",
            )
        return name

    def _parent(self, given: Any) -> Path:
        """DIR, absolute, where the sweep's own directory goes (default: `runs`): a directory,
        or one to be made below one (a file there, or on the way, is named as the mistake it
        is, not found later as a directory made by another sweep or a record unread)."""
        base = DEFAULT_DIR if given is None else control_text(given, *self._at("dir"))
        parent = Path(os.path.abspath(base))
        there = next(path for path in (parent, *parent.parents) if os.path.exists(path))
        if not os.path.isdir(there):
            key, origin = self._at("dir")
            raise ComposeError(
                f"is no directory: {there} is a file",
                key=key,
                value=base,
                origin=origin,
                hint=f"give the sweep a directory: {self.how_to_give('dir', 'DIR')}",
            )
        return parent

    def _directory(self, parent: Path) -> Path:
        """`DIR/NAME`, absolute. DIR may be any directory; the sweep's own is a child of it,
        also once links are resolved (a `runs/NAME` linked elsewhere would write there)."""
        directory = parent / self.name
        resolved = os.path.realpath(directory)
        if os.path.dirname(resolved) != os.path.realpath(parent):
            raise ComposeError(
                f"is a link to {resolved}: a sweep writes only in its own directory, inside "
                f"{parent}",
                key=str(directory),
                hint="remove the link, or give the sweep another name",
            )
        return directory

    def _command(self, command: Any) -> tuple[str, ...]:
        if command is None:
            return tuple(launched_as(self.prog))
        if (
            not isinstance(command, (list, tuple))
            or not command
            or not all(isinstance(word, str) and word and "\0" not in word for word in command)
        ):
            key, origin = self._at("command")
            raise ComposeError(
                "command is a list of words, the program first",
                key=key,
                value=command,
                origin=origin,
                hint='command = ["uv", "run", "rl"]',
            )
        return tuple(command)

    def _executor(self, executor: Any) -> tuple[str, dict[str, Any]]:
        """The executor's name and options: text, or a table with `name` and its options."""
        key, origin = self._at("executor")
        if executor is None:
            return "none", {}
        if isinstance(executor, Mapping):
            options = {name: value for name, value in executor.items() if name != "name"}
            return control_text(executor.get("name", "none"), f"{key}.name", origin), options
        return control_text(executor, key, origin), {}


def started_name(parent: Path, instant: datetime.datetime) -> str:
    """A name no entry of `parent` has, from `instant` (`2026-12-07_23-50-12`, its own time
    zone's clock, as Hydra's multirun directories are), with `_1`, `_2`... after it when one
    started that second is there."""
    stem = instant.strftime(STARTED_NAME)
    name, taken = stem, 0
    while os.path.lexists(parent / name):
        taken += 1
        name = f"{stem}_{taken}"
    return name


def _check_keys(schema: type[BaseModel], origins: Mapping[str, str], settings: Settings) -> None:
    """Every axis key, and the output key, names a field of the schema (all at once, each
    with a did-you-mean)."""
    flags = set(all_flags(schema))
    named: list[tuple[str, str | None, str]] = [
        (key, origin, "to sweep") for key, origin in origins.items()
    ]
    if settings.output is not None:
        where = settings.origins.get("output")
        named.append((settings.output, where, "to set to each point's directory"))
    errors: list[ComposeError] = []
    for key, origin, purpose in named:
        flag = re.sub(r"\.\d+(?=\.|$)", ".0", "--" + kebab_case(key))
        if flag in flags or _below_a_leaf(flag, flags):
            continue
        from compose._schema.shape import shape_of  # noqa: PLC0415  # only for a mistake

        found = suggest(shape_of(schema), "--" + key)
        errors.append(
            UnknownKeyError(
                f"unknown key: the schema has no such field {purpose}",
                key=key,
                origin=origin,
                hint=f"did you mean {found.removeprefix('--')}?" if found else None,
            )
        )
    if errors:
        raise gather(errors)


def _below_a_leaf(flag: str, flags: set[str]) -> bool:
    """A key below a field whose keys are the user's own (a dict, `Any`): not listed."""
    parts = flag.split(".")
    for end in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:end])
        if prefix in flags:
            return not any(f.startswith(prefix + ".") for f in flags)
    return False


def _compose_points(
    schema: type[M],
    grammar: PointGrammar[M],
    base: tuple[str, ...],
    jobs: Sequence[tuple[Axes, tuple[str, ...]]],
    settings: Settings,
    knobs: Options,
    progress: Progress | None,
) -> list[Point[M]]:
    composed: list[Point[M]] = []
    failures: list[tuple[int, ComposeError]] = []
    seen: dict[str, Point[M]] = {}
    for index, (axes, overrides) in enumerate(jobs):
        try:
            point = _compose_point(grammar, base, index, axes, overrides, settings, knobs)
        except ComposeError as error:
            failures.extend((index, each) for each in error.errors)
        else:
            if point.name in seen:
                failures.append((index, _same_name(point, seen[point.name])))
            seen[point.name] = point
            composed.append(point)
        if progress is not None:
            progress("composing", index + 1, len(jobs))
    if failures:
        points = [axes for axes, _ in jobs]
        raise gather(_point_errors(schema, points, failures, grammar.names))
    return composed


def _same_name(point: Point[Any], first: Point[Any]) -> ComposeError:
    """Why `point` is refused: it has the name (the fingerprint) of point `first`, so the two
    would share one directory. Points that differ only in a secret are told apart from points
    that are one config: the fingerprint leaves secrets out, so that no record can give one
    away (`compose._runs.fingerprint`), and cannot name such points apart."""
    secrets = differing_secrets(point.config, first.config)
    if not secrets:
        return ComposeError(
            f"composes the same config as point {first.index}: an axis repeats a value, or "
            "sets what the rest of the command line overrides"
        )
    return ComposeError(
        f"differs from point {first.index} only in the secret {', '.join(secrets)}: a point's "
        "name and fingerprint leave secrets out, so that no record gives one away, and the "
        "two would share one run directory",
        hint="sweep each secret value in a sweep of its own (--sweep-name), or also vary a "
        "key that is not secret",
    )


def _point_errors(
    schema: type[BaseModel],
    points: list[Axes],
    failures: list[tuple[int, ComposeError]],
    names: frozenset[str],
) -> list[ComposeError]:
    """Each failure named by its point; one that every point shares (the same key, value,
    origin and message: a mistake in the base command line) said once, for every point."""
    indices: dict[str, set[int]] = {}
    for index, error in failures:
        indices.setdefault(_said(error), set()).add(index)
    every = {said for said, found in indices.items() if len(found) == len(points) > 1}
    masked = axes_masker(schema, names)
    errors: list[ComposeError] = []
    told: set[str] = set()
    for index, error in failures:
        said = _said(error)
        if said not in every:
            described = describe_point(index, masked(points[index]))
            errors.append(_in_point(_toward_a_control(error), described))
        elif said not in told:
            told.add(said)
            errors.append(_in_point(_toward_a_control(error), "every point"))
    return errors


def _said(error: ComposeError) -> str:
    return f"{type(error).__name__}: {error.format()}"


def _toward_a_control(error: ComposeError) -> ComposeError:
    """An unknown flag the schema has nothing near: a did-you-mean to a flag of sweep mode
    close to it (`--sweep-nmae`), else, for one spelt like them (`--sweep-colour`), theirs."""
    if not isinstance(error, UnknownKeyError) or error.hint or not error.key:
        return error
    flag = flag_name(error.key)
    near = closest(flag, (SWEEP_FLAG, *SWEEP_CONTROLS), cutoff=0.8)
    if near is not None:
        return error.evolve(hint=f"did you mean {near}?")
    if flag.startswith(SWEEP_FLAG):
        flags = ", ".join((f"{SWEEP_FLAG} @ FILE", f"{SWEEP_FLAG}.KEY", *SWEEP_CONTROLS))
        return error.evolve(hint=f"nor is it a flag of sweep mode: {flags}")
    return error


def _compose_point(
    grammar: PointGrammar[M],
    base: tuple[str, ...],
    index: int,
    axes: Axes,
    overrides: tuple[str, ...],
    settings: Settings,
    knobs: Options,
) -> Point[M]:
    """Compose one point. With an output key, it is composed with that key set to the sweep's
    directory to take its fingerprint (without the key), then again with its own directory."""
    argv = (*base, *overrides)
    output = settings.output
    where = [grammar.output_token(output, settings.directory)] if output else []
    config, origins = grammar.compose([*argv, *where], knobs)
    exclude: list[KeyPath] = [tuple(output.split("."))] if output else []
    digest = fingerprint(config, exclude=exclude)
    directory = settings.directory / digest[:NAME_CHARS]
    if output:
        argv = (*argv, grammar.output_token(output, directory))
        config, origins = grammar.compose(argv, knobs)
    axes = typed_axes(config, axes)
    return Point(index, axes, overrides, argv, config, digest, directory, origins)


def _check_output_dirs(
    points: Sequence[Point[Any]], settings: Settings, origins: Mapping[str, str]
) -> None:
    """No two points share an output directory: the value of a key named as one
    (`is_output_dir_name`: `output_dir`, `trainer.ckpt_out_dir`) that two points' configs
    hold alike is an error, before anything is written or run. The sweep's output key, and
    what is interpolated from it, differs by point; so does a swept directory."""
    output = settings.output
    holders: dict[tuple[str, str], list[int]] = {}
    for point in points:
        for key, directory in output_dirs(point.config):
            holders.setdefault((key, os.path.normpath(directory)), []).append(point.index)
    errors: list[ComposeError] = []
    for (key, directory), indices in holders.items():
        if len(indices) < 2:
            continue
        listed = ", ".join(map(str, indices[:5])) + (", ..." if len(indices) > 5 else "")
        instead = settings.how_to_give("output", key)
        errors.append(
            ComposeError(
                f"is the output directory of {len(indices)} of the {len(points)} points "
                f"({listed}): they would write over each other's",
                key=key,
                value=directory,
                origin=origins.get(key),
                hint=f"give each point its own with {instead}"
                if output is None
                else f"sweep {key}, or interpolate it from {output}",
            )
        )
    if errors:
        raise gather(errors)


def output_dirs(config: BaseModel) -> list[tuple[str, str]]:
    """The dotted key and value of every path or text in `config` at a key named as an output
    directory (`is_output_dir_name`), through sections, lists and dicts."""
    found: list[tuple[str, str]] = []
    stack: list[tuple[Any, tuple[str, ...]]] = [(config, ())]
    while stack:
        value, path = stack.pop()
        if isinstance(value, BaseModel):
            children: list[tuple[str, Any]] = [
                (name, getattr(value, name)) for name in type(value).model_fields
            ]
        elif isinstance(value, Mapping):
            children = [(str(key), item) for key, item in value.items()]
        elif isinstance(value, (list, tuple)):
            children = [(str(index), item) for index, item in enumerate(value)]
        else:
            continue
        for name, child in reversed(children):
            if isinstance(child, (str, os.PathLike)):
                if is_output_dir_name(name):
                    found.append((dotted((*path, name)), os.fspath(child)))
            elif isinstance(child, _HOLDERS):  # only these hold more keys: no leaf is stacked
                stack.append((child, (*path, name)))
    return found


_HOLDERS = (BaseModel, Mapping, list, tuple)


def typed_axes(config: BaseModel, axes: Axes) -> Axes:
    """The point's axis values as its config holds them: `--sweep.trainer.optim.lr 1e-5`
    typed the text by its field, so the manifest says 1e-05, as a tracker should see it.
    A config group's `@FILE` and a value that is a section stay as the sweep wrote them."""
    typed = dict(axes)
    for key, value in axes.items():
        if isinstance(value, str) and not value.startswith("@"):
            found = _value_at(config, key)
            if found is None or isinstance(found, (bool, int, float, str)):
                typed[key] = found
    return typed


def _value_at(config: BaseModel, key: str) -> Any:
    value: Any = config
    for name in key.split("."):
        value = getattr(value, snake_case(name), _MISSING)
        if value is _MISSING:
            return _MISSING
    return value


_MISSING: Any = object()  # not a scalar: `typed_axes` keeps the text


def describe_point(index: int, axes: Mapping[str, Any]) -> str:
    """`point 3 (trainer.optim.lr=0.001, seed=2)`: how errors and tables name a point."""
    values = ", ".join(f"{key}={_shown(value)}" for key, value in axes.items())
    return f"point {index} ({values})"


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _in_point(error: ComposeError, point: str) -> PointError:
    fields: dict[str, Any] = {"key": error.key, "origin": error.origin, "hint": error.hint}
    if error.has_value:
        fields["value"] = error.value
    return PointError(error.message, point=point, **fields)


def point_origins(sweep: Sweep[Any], point: Point[Any]) -> dict[str, str]:
    """The base origins, with what the point's axes set marked `sweep axis KEY` (and the
    output key, which the sweep sets); a point that knows its own (a Hydra job) has those,
    an axis's value named by the file line or the override that set it."""
    output = {sweep.output: f"sweep output {sweep.output}"} if sweep.output else {}
    if point.origins is not None:  # an override names its value: a secret's is masked
        said = masked_tokens(
            type(point.config), list(point.origins.values()), point.config, **sweep.grammar
        )
        return _marked(dict(zip(point.origins, said, strict=True)), output)
    marked = {_dotted(key): f"sweep axis {key}" for key in point.axes}
    return _marked(sweep.origins, {**marked, **output})


def _marked(origins: Mapping[str, str], marked: Mapping[str, str]) -> dict[str, str]:
    """`origins` with the keys of `marked`, and every leaf below them, given its origin."""
    kept = {
        path: origin
        for path, origin in origins.items()
        if not any(path == key or path.startswith(key + ".") for key in marked)
    }
    kept.update(marked)
    return kept


def _dotted(key: str) -> str:
    """An axis key as a path of snake_case field names (`trainer.optim.lr`)."""
    return ".".join(map(snake_case, key.split(".")))


def launched_as(prog: str) -> list[str]:
    """The command that runs `prog` on the node. When this process was started as `prog`'s
    own script (`sys.argv[0]` a file named `prog`, or `prog` and a suffix), it is that script
    by its absolute path (a venv's `bin/` is often not on the PATH of the pool, the job array
    or the Ray worker, while a shared file system holds it at the same path): alone when it is
    a program of its own (a console script: executable, naming its interpreter); else through
    this interpreter (`python train.py`: the file need not be executable, and its shebang may
    name a Python without the app), as `python -m MODULE` when it was started so. Otherwise
    `prog` by name, found on the node's PATH. `[sweep] command` overrides it
    (`["uv", "run", "rl"]`)."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is None or prog not in (script.name, script.stem) or not script.is_file():
        return [prog]
    path = os.path.abspath(script)
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and getattr(main, "__file__", None) == path:  # python -m MODULE
        return [sys.executable, "-m", spec.name.removesuffix(".__main__")]
    if os.access(script, os.X_OK) and script.suffix != ".py":
        return [path]
    return [sys.executable, path]


def hydra_sweep(
    schema: type[M],
    call: HydraCall,
    knobs: Options,
    prog: str | None,
    given: Mapping[str, Any] | None = None,
    *,
    given_origins: Mapping[str, str] | None = None,
    progress: Progress | None = None,
) -> Sweep[M]:
    """Hydra's multirun (`app -m db=a,b lr=1,2`) as a sweep: each job of Hydra's job list
    (`compose._input.hydra.sweeps.jobs`, in Hydra's order) a point, its overrides the job's,
    after Hydra's own settings (`hydra.*`); the keys swept are its axes. The job count is held
    to `MAX_POINTS` before any job is composed; the controls are `sweep_with`'s. With no name
    given, the sweep is named by the instant it starts (`now`, $COMPOSE_NOW, else the clock),
    which is also its `${now:}`, in a directory that must be new (`Settings`)."""
    from compose._input.hydra.grammar import Quoted, as_text  # noqa: PLC0415  # Hydra trees only

    started = knobs.now or run_instant(knobs.environ)
    settings, wheres = controls_given(given, given_origins, prog, started)
    if settings.fresh:  # the instant that names its directory is its `${now:}`
        knobs = knobs.but(now=started)
    _check_keys(schema, {}, settings)  # the output key; Hydra's keys are checked composing
    multirun = call.multirun()  # the tree read once: every job composes on it
    master = multirun.prepared
    _warn_hydras_sweep_dir(master, settings)
    swept = {ov.key_element for ov in master.overrides if ov.is_sweep and not ov.is_hydra}
    groups = chosen_groups(master)  # overrides that choose a group's option: names
    listed = multirun.jobs
    part = Part(len(listed), f"-m ({len(listed):,} jobs)", "--multirun", lambda: [{}] * len(listed))
    check_count([part], "the multirun")
    texts: dict[str, str] = {}

    def compose_job(tokens: Sequence[str], at: Options) -> tuple[M, dict[str, str]]:
        origins: dict[str, str] = {}
        config: M = call.but(tokens).config(schema, texts, sources=master, origins=origins)
        return config, origins

    grammar = PointGrammar(
        compose_job,
        lambda key, directory: f"++{key}={as_text(Quoted(str(directory), chr(39)))}",
        lambda at: {},
        texts,
        groups,
    )
    points = [(_job_axes(job, swept), tuple(job)) for job in listed]
    definition = {
        "argv": list(call.overrides),
        "hydra": {
            "config_dir": call.directory,
            "config_name": call.name,
            "config_dirs": list(call.config_dirs),
            "groups": sorted(groups),
        },
        "sweep": [],
        "axes": {},
    }
    own = tuple(multirun.own)
    return materialize(schema, grammar, own, points, settings, wheres, definition, knobs, progress)


def _warn_hydras_sweep_dir(master: Any, settings: Settings) -> None:
    """Hydra's own `hydra.sweep.dir`, set on the command line or in the primary config, names
    where Hydra's multirun writes; compose's sweep writes where its controls say, which the
    user is told, and how to choose it (the setting is accepted, as Hydra's others are)."""
    given = [ov.text for ov in master.overrides if ov.key.startswith("hydra.sweep.")]
    data = master.primary.data if master.primary is not None else None
    node = data.get(HYDRA_NODE) if isinstance(data, dict) else None
    if isinstance(node, dict) and isinstance(node.get("sweep"), dict):
        given.append(f"hydra.sweep in {master.primary.shown}")
    if given:
        choose = f"{settings.how_to_give('dir', 'DIR')} and {settings.how_to_give('name', 'NAME')}"
        warn(
            f"{', '.join(given)}: Hydra's own sweep directory is not read; this sweep writes "
            f"to {settings.directory}, each job in a directory of its own below it (choose it "
            f"with {choose})",
            ComposeWarning,
        )


def _job_axes(job: Sequence[str], swept: set[str]) -> Axes:
    """A job's swept keys and their values, as its overrides write them (`db=postgresql`)."""
    axes: Axes = {}
    for text in job:
        key, _, value = text.partition("=")
        if key in swept:
            axes[key] = value
    return axes
