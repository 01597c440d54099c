"""From a config name and a command line to the defaults tree's leaves, in Hydra 1.3's order
(each step can fail; a step's problems are reported together):

  1. every override parses (`grammar`);
  2. the primary config is read: a list or a scalar is refused;
  3. `hydra.searchpath` (the command line's first, else the primary's) adds sources;
  4. outside multirun a sweep is refused; in multirun Hydra's settings and intervals are
     (`sweeps.check_sweeps`);
  5. the defaults tree (`tree.defaults_list`).
What the leaves hold is merged by the fold (`compose._merge.typed`), after which the value
overrides apply (`compose._merge.hydra_values`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence

from compose._input.hydra.entries import Where
from compose._input.hydra.grammar import Override, parse_override
from compose._input.hydra.repository import Loaded, Repository, StoreValue, make_repository
from compose._input.hydra.sweeps import check_sweeps
from compose._input.hydra.tree import DefaultsResult, defaults_list
from compose._syntax import HYDRA_NODE, HYDRA_SEARCHPATH
from compose.errors import ArgvError, ComposeError, SourceError, gather


@dataclasses.dataclass(frozen=True)
class Prepared:
    repo: Repository
    primary: Loaded | None
    overrides: tuple[Override, ...]
    defaults: DefaultsResult
    warnings: tuple[str, ...] = ()  # of the sources (the defaults tree's are `defaults`')


def parse_overrides(overrides: list[str]) -> list[Override]:
    """Every override parsed; all that do not parse, at once."""
    parsed: list[Override] = []
    problems: list[ComposeError] = []
    for text in overrides:
        if not isinstance(text, str):
            problems.append(ArgvError("an override is a string", value=text, origin="overrides"))
            continue
        try:
            parsed.append(parse_override(text))
        except ComposeError as problem:
            problems.append(problem)
    if problems:
        raise gather(problems)
    return parsed


def searchpath(primary: Loaded | None, overrides: list[Override]) -> tuple[list[str] | None, str]:
    """The search path's extra sources, and where they were named: the first override whose
    key is exactly `hydra.searchpath`, else the primary config's `hydra.searchpath`."""
    given = next((o for o in overrides if o.key_element == HYDRA_SEARCHPATH), None)
    if given is not None:
        value, origin = given.plain(), given.text
    else:
        data = primary.data if primary is not None else None
        hydra = data.get(HYDRA_NODE) if isinstance(data, dict) else None
        value = hydra.get("searchpath") if isinstance(hydra, dict) else None
        origin = primary.shown if primary is not None else ""
    if value is None:
        return None, origin
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ArgvError(
            f"{HYDRA_SEARCHPATH} is a list of file:// or pkg:// texts",
            value=value,
            origin=origin,
            hint=f"{HYDRA_SEARCHPATH}=[file://DIR,pkg://PACKAGE]",
        )
    return value, origin


def prepare(
    directory: str | None,
    config_name: str | None,
    overrides: list[str],
    *,
    store: Mapping[str, StoreValue] | None,
    multirun: bool,
    sources: Prepared | None = None,
    config_dirs: Sequence[str] = (),
) -> Prepared:
    """`sources`: a multirun's master, whose repository and primary every job shares (the
    tree read once: a job's overrides cannot change the search path, which is never swept).
    `config_dirs` are more directories configs are found in (an app's `--config-dir`), after
    `directory` and before `hydra.searchpath`'s sources."""
    parsed = parse_overrides(overrides)
    warnings: tuple[str, ...] = ()
    if sources is not None:
        repo, primary = sources.repo, sources.primary
    else:
        repo, primary, warnings = _sources(directory, config_name, parsed, store, config_dirs)
    check_sweeps(parsed, multirun)
    where = Where(primary.shown if primary is not None else (config_name or ""))
    result = defaults_list(repo, config_name, parsed, multirun, where)
    return Prepared(repo, primary, tuple(parsed), result, warnings)


def _sources(
    directory: str | None,
    config_name: str | None,
    parsed: list[Override],
    store: Mapping[str, StoreValue] | None,
    config_dirs: Sequence[str],
) -> tuple[Repository, Loaded | None, tuple[str, ...]]:
    """The repository (the search path: the config dir, `hydra.searchpath`, the store), the
    primary config read from it, and a warning for each `hydra.searchpath` entry that names
    nothing there (as Hydra, compose reads no config from it; unlike Hydra, it says so)."""
    cwd = os.getcwd()
    repo = make_repository(directory, list(config_dirs), store, cwd)
    primary = repo.load(config_name) if config_name is not None else None
    if primary is not None and not isinstance(primary.data, dict):
        raise SourceError(
            "a primary config is a mapping", value=type(primary.data).__name__, origin=primary.shown
        )
    extra, origin = searchpath(primary, parsed)
    if extra is None:
        return repo, primary, ()
    repo = make_repository(directory, [*config_dirs, *extra], store, cwd, origin)
    missing = [url for url in dict.fromkeys(extra) if not repo.source_named(url).is_group("")]
    return repo, primary, tuple(_names_nothing(url, origin) for url in missing)


def _names_nothing(url: str, origin: str) -> str:
    kind = "package" if url.startswith("pkg://") else "directory"
    return f"{origin}: {HYDRA_SEARCHPATH} names {url}, no {kind} here: no config is read from it"


def config_spec(text: str, origin: str) -> tuple[str, str]:
    """`DIR:NAME` (`conf:config`) -> the config directory and the primary config's name, split
    at the last `:` (a directory may hold one, a config name cannot: `C:\\conf:config`); a
    missing directory or name is an error naming `origin` (the flag or argument)."""
    directory, colon, name = text.rpartition(":")
    if not colon or not directory or not name:
        missing = "no ':'" if not colon else "no directory" if not directory else "no name"
        raise ArgvError(
            f"is a config directory and a primary config's name, DIR:NAME ({missing})",
            key=origin,
            value=text,
            hint="conf:config reads conf/config.yaml",
        )
    return directory, name
