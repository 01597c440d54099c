"""`compose check PATH...`: every config file of a tree judged as what it is, for CI.

A root config is judged whole, as `ENTRYPOINT @ FILE` takes it: unknown keys, values, required
values, interpolations resolved, the schema's own validators. An overlay (a file laid over
another, at the root or at a section) is judged as a piece: unknown keys, values its fields
refuse, old names of renamed fields and the syntax of its interpolations, but not what a later
file may still supply. Which is which comes from `compose-check.toml` or is inferred
(`compose._cli.roles`). Every problem of every file is printed, FILE:LINE first; exit 1 if any.
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from dataclasses import dataclass

from pydantic import BaseModel

from compose._api import resolve
from compose._bind.validate import bind, overlay_problems
from compose._cli.entry import write_text
from compose._cli.roles import (
    Role,
    Roles,
    check_sections,
    config_files,
    declared_at,
    load_schema,
    mapping_key,
    read_roles,
    roles_of,
    unmatched_patterns,
)
from compose._input.argv import FileItem
from compose._input.files import read_text
from compose._input.search import SearchPath
from compose._merge.composed import Composed
from compose._merge.fold import compose_items
from compose._schema.secrets import holds_secrets
from compose._schema.shape import model_shape
from compose._syntax import INCLUDE, dotted
from compose._warn import held
from compose.errors import (
    ComposeError,
    ConfigValidationError,
    InterpolationError,
    MigratedWarning,
    RenamedWarning,
    counted,
    printable,
)

FOUND_PROBLEMS = 1  # the exit code when a file has a problem (2 stays bad input to check itself)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a file: where (FILE:LINE, or the file) and what."""

    where: str
    text: str

    def line(self) -> str:
        return f"{printable(self.where)}: {self.text}"  # the text is an error's: printable


@dataclass(frozen=True)
class Verdict:
    """A file's judgment: the role it was judged in, and its problems (none: it fits)."""

    path: str
    role: Role | None
    problems: tuple[Problem, ...]
    tried: tuple[Role, ...] = ()  # the other roles it was judged in, and fits none of either
    warnings: tuple[str, ...] = ()  # what judging it in that role warned (the schema's own too)


def check_command(
    paths: list[str],
    *,
    schema: str | None,
    roles_file: str | None,
    search_path: SearchPath,
    quiet: bool,
) -> int:
    """Judge every file under `paths`; print each verdict; 1 if any file has a problem."""
    roles = read_roles(roles_file, schema)
    schemas = {name: _entrypoint(roles, name, schema) for name in roles.entrypoints}
    check_sections(roles, schemas)
    paths = paths or ["."]
    files = list(config_files(paths, roles))
    included = included_roles(files, roles, schemas, (*search_path, *roles.search_path))
    verdicts = [judge(path, roles, schemas, search_path, included) for path in files]
    for verdict in verdicts:
        _print_verdict(verdict, quiet)
    mapping = [_problem(error, roles.shown) for error in unmatched_patterns(roles, paths, files)]
    for problem in mapping:
        write_text(sys.stdout, problem.line() + "\n")
    shown = printable(roles.shown)
    if mapping:
        write_text(sys.stdout, f"{shown}: {counted(len(mapping), 'problem')} of the mapping\n")
    bad = sum(1 for verdict in verdicts if verdict.problems)
    summary = (
        f"checked {counted(len(verdicts), 'file')}: {len(verdicts) - bad} fit, {bad} with problems"
    )
    if mapping:
        summary += f"; {counted(len(mapping), 'problem')} in {shown}"
    write_text(sys.stdout, summary + "\n")
    return FOUND_PROBLEMS if bad or mapping else 0


def _entrypoint(roles: Roles, name: str, flag: str | None) -> type[BaseModel]:
    """The schema class of entrypoint `name`: `--schema`'s, or one of the mapping's (an
    error names its line)."""
    if name == flag:
        return load_schema(name)
    try:
        return load_schema(roles.entrypoints[name], mapping_key(("entrypoints", name)))
    except ComposeError as error:
        raise error.evolve(origin=declared_at(roles, ("entrypoints", name))) from None


def included_roles(
    files: list[str], roles: Roles, schemas: dict[str, type[BaseModel]], dirs: SearchPath
) -> dict[str, Role]:
    """The files that a file of the tree includes (`_include_`), by real path: overlays where
    its composition mounts them, judged as the pieces they are. The first includer decides."""
    found: dict[str, Role] = {}
    for path in files:
        role = _includer_role(path, roles, schemas, dirs)
        if role is None:
            continue
        try:
            item = FileItem(path, role.section, path)
            composed = compose_items([item], schemas[role.entrypoint], dirs)
        except ComposeError:  # its own verdict will say why
            continue
        for source in composed.sources:
            real = os.path.realpath(source.shown)
            if real != os.path.realpath(path):
                section = dotted(source.prefix)
                found.setdefault(real, Role(role.entrypoint, role.schema, section, overlay=True))
    return found


def _includer_role(
    path: str, roles: Roles, schemas: dict[str, type[BaseModel]], dirs: SearchPath
) -> Role | None:
    """The role of a file that includes others (as its text tells), if it has one."""
    if _special(path):
        return None
    try:
        if INCLUDE not in read_text(path):  # within the size limit of any file node
            return None
    except ComposeError:  # its own verdict will say why
        return None
    candidates = roles_of(path, roles, schemas, dirs)
    return candidates[0] if candidates else None


def judge(
    path: str,
    roles: Roles,
    schemas: dict[str, type[BaseModel]],
    search_path: SearchPath = (),
    included: dict[str, Role] | None = None,
) -> Verdict:
    """`path` judged in each role it may play, until one fits."""
    if _special(path):
        return Verdict(path, None, (Problem(path, _SPECIAL),))
    dirs = (*search_path, *roles.search_path)
    candidates = roles_of(path, roles, schemas, dirs, included)
    if candidates is None:
        hint = (
            "name it in a [[files]] rule of compose-check.toml, or give --schema"
            if roles.shown
            else "give --schema MODULE:CLASS, or declare its role in compose-check.toml"
        )
        return Verdict(path, None, (Problem(path, f"fits no declared role; {hint}"),))
    first: Verdict | None = None
    for role in candidates:
        problems, warned = problems_in(path, role, schemas[role.entrypoint], dirs)
        if not problems:
            return Verdict(path, role, (), warnings=warned)
        first = first or Verdict(path, role, problems, warnings=warned)
    if first is None:  # skipped by its rule
        return Verdict(path, None, ())
    return Verdict(path, first.role, first.problems, tuple(candidates[1:]), first.warnings)


_SPECIAL = "is not a regular file (a FIFO, a socket or a device): not read"


def _special(path: str) -> bool:
    """Whether `path` is there but no regular file (nor a directory): reading a FIFO without a
    writer blocks for ever, and /dev/zero never ends. Asked of the path, never opened."""
    return os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path)


def problems_in(
    path: str, role: Role, schema: type[BaseModel], search_path: SearchPath
) -> tuple[tuple[Problem, ...], tuple[str, ...]]:
    """What is wrong with `path` in `role` (errors, and old names of renamed fields), in the
    order of its lines, and what judging it warned."""
    shown = f"--{role.section} @ {path}" if role.section else path
    items = [FileItem(path, role.section, shown)]
    # Every warning of this file, the schema's validators' too (Python's default filter shows
    # one per place in the code: a second file's would be lost), kept to be shown as its own
    with held() as warned, warnings.catch_warnings(record=True) as issued:
        warnings.simplefilter("always")
        try:
            errors = _errors(items, schema, role, search_path)
        except ComposeError as error:
            errors = list(error.errors)
        except Exception as error:  # the schema's own code stopped: nothing else is known
            errors = [_unjudged(error, schema)]
    # `renamed()`'s old names, and keys a migration changed: the file works, but is stale
    stale = [w for w in warned if isinstance(w, (RenamedWarning, MigratedWarning))]
    problems = [_problem(error, path) for error in errors]
    problems += [_stale(warning) for warning in stale]
    notes = [str(w) for w in warned if w not in stale] + [str(w.message) for w in issued]
    return tuple(sorted(problems, key=_place)), tuple(dict.fromkeys(notes))


def _unjudged(error: Exception, schema: type[BaseModel]) -> ComposeError:
    """A validator of the schema raised what is no validation error (a `KeyError`, a taskset
    it cannot import): Pydantic stops there, so the file cannot be judged. What it raised is
    said, its text only where no secret could be in it."""
    said = type(error).__name__
    if str(error) and not holds_secrets(model_shape(schema)):
        said = f"{said}: {error}"
    return ConfigValidationError(
        f"cannot be judged: a validator of the schema raised {said}, which stops "
        "validation before the rest of the file is judged",
        hint="fix what it refuses, or skip the file in compose-check.toml",
    )


def _place(problem: Problem) -> tuple[str, float]:
    """FILE and LINE of a problem, to sort a file's problems as its lines go (one of the whole
    file, such as a missing value, after them)."""
    file, _, line = problem.where.rpartition(":")
    return (file, int(line)) if file and line.isdigit() else (problem.where, math.inf)


def _stale(warning: RenamedWarning | MigratedWarning) -> Problem:
    """An old name, or a key a migration changed: a problem where the file wrote it."""
    advice = warning.advice or "the old name still works for now: write the new one"
    return Problem(warning.origin, f"{warning.summary} ({advice})")


def _errors(
    items: list[FileItem], schema: type[BaseModel], role: Role, search_path: SearchPath
) -> list[ComposeError]:
    if role.sweep_over is not None:
        from compose._runs.sweep import sweep  # noqa: PLC0415  # only for a sweep's file

        sweep(schema, role.sweep_over, sweep_files=[items[0].path], search_path=search_path)
        return []
    composed = compose_items(list(items), schema, search_path)
    if role.overlay:
        return [*interpolation_syntax(composed), *overlay_problems(composed, schema)]
    try:
        resolve(composed)
        bind(composed, schema)
    except ComposeError as error:
        if not isinstance(error, InterpolationError) and not any(
            isinstance(e, InterpolationError) for e in error.errors
        ):
            raise
        # Resolution stops binding: the file's other problems still count, judged as an
        # overlay's are (the values of interpolations apart)
        named = {e.key for e in error.errors}
        rest = [e for e in overlay_problems(composed, schema, whole=True) if e.key not in named]
        return [*error.errors, *rest]
    return []


def interpolation_syntax(composed: Composed) -> list[ComposeError]:
    """Each value whose `${...}` is outside the grammar, as resolution would word it (an
    overlay's references are not resolved: a later file may hold what they name)."""
    from compose._interp.data import scan  # noqa: PLC0415  # only where a file is checked
    from compose._interp.grammar import GrammarError, parse, syntax_message  # noqa: PLC0415

    found: list[ComposeError] = []
    for path, raw in scan(composed.tree):
        try:
            parse(raw)
        except GrammarError as error:
            found.append(
                InterpolationError(
                    syntax_message(error),
                    key=composed.show_key(path),
                    value=raw,
                    origin=composed.origins.describe(path),
                )
            )
    return found


def _problem(error: ComposeError, path: str) -> Problem:
    """FILE:LINE first, as compilers put it (editors and CI logs link it); the error's own
    words after it."""
    if error.origin and not error.origin.startswith("--"):  # a file's line, not a flag's
        return Problem(error.origin, error.evolve(origin=None).format())
    return Problem(path, error.format())


def _print_verdict(verdict: Verdict, quiet: bool) -> None:
    if verdict.problems or not quiet:
        for warned in verdict.warnings:
            write_text(sys.stdout, f"{printable(verdict.path)}: warning: {printable(warned)}\n")
    role = f" {verdict.role.describe()}" if verdict.role is not None else ""
    if not verdict.problems:
        if not quiet:
            fits = "skipped (its rule says so)" if verdict.role is None else f"fits{role}"
            write_text(sys.stdout, f"{printable(verdict.path)}: {fits}\n")
        return
    for problem in verdict.problems:
        write_text(sys.stdout, problem.line() + "\n")
    tried = ""
    if verdict.tried:
        others = ", ".join(role.describe() for role in verdict.tried)
        tried = f"; nor does it fit {others}"
    found = f"{counted(len(verdict.problems), 'problem')}{role}{tried}"
    write_text(sys.stdout, f"{printable(verdict.path)}: {found}\n")
