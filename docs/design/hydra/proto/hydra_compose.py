"""`compose_hydra` in small: the search path, the defaults list, then (in `compose_config`)
the merge and the value overrides.

The steps, in Hydra 1.3's order (each can fail, and the first failure is the answer):
  1. every override parses;
  2. the primary config is read (a list or a scalar is refused);
  3. `hydra.searchpath` (the command line's, else the primary's) extends the search path;
  4. outside multirun, a sweep (`a,b`, `range()`, `glob()`) is refused;
  5. the defaults tree (`tree.defaults_list`);
  6. the leaves merge at their packages, then the value overrides apply (`merge`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from compose.errors import ComposeError

from .entries import DefaultsError, Where
from .grammar import ChoiceSweep, Override, parse_override
from .repository import Loaded, Repository, StoreValue, make_repository
from .tree import DefaultsResult, defaults_list

SEARCHPATH_KEY = "hydra.searchpath"


@dataclasses.dataclass(frozen=True)
class Prepared:
    repo: Repository
    primary: Loaded | None
    overrides: tuple[Override, ...]
    defaults: DefaultsResult


def parse_all(overrides: list[str]) -> list[Override]:
    parsed: list[Override] = []
    problems: list[ComposeError] = []
    for text in overrides:
        try:
            parsed.append(parse_override(text))
        except ComposeError as problem:
            problems.append(problem)
    if problems:
        from compose.errors import gather  # noqa: PLC0415 - an error path

        raise gather(problems)
    return parsed


def _searchpath(primary: Loaded | None, overrides: list[Override]) -> list[str] | None:
    given = next((o for o in overrides if o.key_element == SEARCHPATH_KEY), None)
    if given is not None:
        value, origin = given.plain(), given.text
    else:
        data = primary.data if primary is not None else None
        hydra = data.get("hydra") if isinstance(data, dict) else None
        value = hydra.get("searchpath") if isinstance(hydra, dict) else None
        origin = primary.shown if primary is not None else ""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ComposeError(
            "hydra.searchpath is a list of file:// or pkg:// texts", value=value, origin=origin
        )
    return value


def _check_sweeps(overrides: list[Override], multirun: bool) -> None:
    for ov in overrides:
        if not ov.is_sweep:
            continue
        if multirun:
            if ov.is_hydra:
                raise ComposeError("Hydra's own settings cannot be swept", value=ov.text, origin=ov.text)
        elif isinstance(ov.value, ChoiceSweep) and ov.value.simple:
            raise ComposeError(
                "a comma list is a sweep: it needs multirun",
                value=ov.text,
                origin=ov.text,
                hint="a list is [a,b]; a text with a comma is quoted: 'a,b'",
            )
        else:
            raise ComposeError("a sweep needs multirun", value=ov.text, origin=ov.text)


def prepare(
    config_dir: str | None,
    config_name: str | None,
    overrides: list[str],
    *,
    store: Mapping[str, StoreValue] | None,
    multirun: bool,
    skip_missing: bool,
    cwd: str,
) -> Prepared:
    parsed = parse_all(overrides)
    repo = make_repository(config_dir, [], store, cwd)
    primary = repo.load(config_name) if config_name is not None else None
    if primary is not None and primary.data is not None and not isinstance(primary.data, dict):
        raise DefaultsError(
            "a primary config is a mapping",
            value=type(primary.data).__name__,
            origin=primary.shown,
        )
    searchpath = _searchpath(primary, parsed)
    if searchpath is not None:
        repo = make_repository(config_dir, searchpath, store, cwd)
    _check_sweeps(parsed, multirun)
    where = Where(primary.shown if primary is not None else (config_name or ""))
    result = defaults_list(repo, config_name, parsed, skip_missing, where)
    return Prepared(repo, primary, tuple(parsed), result)
