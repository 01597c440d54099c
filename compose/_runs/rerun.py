"""`PROG --from-run DIR [more overrides]`: a recorded run composed again, with changes on top.

DIR/run.json (a sweep point's record, or a single run's from `write_run_record`) holds the
argv the run was composed from and the sha256 of every file it read. If every file still
holds that text, the recorded argv is composed again with the new overrides after it, so
origins point at the original files. If one changed or is gone, or the argv holds a secret's
mask (records never hold a secret), a warning says so and the run is built on its recorded
resolved config (DIR/configs/PROG.toml) instead: what ran, not what the files say now. The
run's instant (`now` in run.json) is what `${now:}` gives again.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from compose._atomic import write_file
from compose._input.argv import ValueItem, item_spans
from compose._input.files import FileCache, read_text
from compose._input.options import Options, options
from compose._input.search import Dirs
from compose._interp.clock import NOW_VARIABLE, run_instant
from compose._jsonfile import read_record, record_text
from compose._runs.fingerprint import fingerprint
from compose._runs.masked import masked_tokens
from compose._runs.provenance import git_state_meanwhile, versions
from compose._runs.run import (
    RUN_FILE,
    config_file,
    leaf_origins,
    read_run,
    recorded_now,
    run_record,
    sha256_text,
)
from compose._syntax import FROM_RUN_FLAG, SECRET_MASK, is_from_run_flag
from compose._warn import held, warn
from compose.errors import ArgvError, ComposeError, ComposeWarning, SourceError

FROM_RUN = FROM_RUN_FLAG


def asks_from_run(tokens: Sequence[str]) -> bool:
    """Whether a command line holds `--from-run DIR` (or `--from-run=DIR`)."""
    return any(map(is_from_run_flag, tokens))


def from_run_argv(tokens: Sequence[str], prog: str) -> list[str]:
    """`tokens` with `--from-run DIR` replaced by what DIR's run was composed from."""
    return rerun(tokens, prog)[0]


def rerun(tokens: Sequence[str], prog: str) -> tuple[list[str], datetime.datetime | None]:
    """`tokens` with `--from-run DIR` replaced by what DIR's run was composed from, and the
    instant it was composed at (None in a record that holds none)."""
    directory, rest = _take_directory(list(tokens))
    path = directory / RUN_FILE
    record = read_run(path)
    if record is None:
        raise ArgvError(
            "holds no run record (run.json)", key=FROM_RUN, value=str(directory), origin=str(path)
        )
    if record.get("prog", prog) != prog:
        raise ArgvError(
            f"is a run of {record['prog']}, not of {prog}", key=FROM_RUN, value=str(directory)
        )
    now = recorded_now(record, path)
    problem = _changed_source(record.get("sources") or {})
    masked = _masked_flags(record["argv"])
    if problem is None and masked:
        problem = f"its argv holds the secret of {', '.join(masked)}, which run.json keeps masked"
    if problem is None:
        return [*map(str, record["argv"]), *rest], now
    resolved = directory / str(record.get("config") or config_file(Path(), prog))
    if not resolved.is_file():
        raise ArgvError(
            f"{problem}, and the run's resolved config is gone too: it cannot be composed again",
            key=FROM_RUN,
            value=str(directory),
            origin=str(resolved),
        )
    warn(
        f"{FROM_RUN} {directory}: {problem}; building on the run's resolved config "
        f"{resolved} instead",
        ComposeWarning,
        stacklevel=2,
    )
    return ["@", str(resolved), *rest], now


def _masked_flags(argv: list[Any]) -> list[str]:
    """The flags of `argv` whose value a record keeps masked (`compose._runs.masked`)."""
    return [
        item.shown
        for item, _ in item_spans([str(token) for token in argv])
        if isinstance(item, ValueItem) and any(SECRET_MASK in token for token in item.tokens)
    ]


def _take_directory(tokens: list[str]) -> tuple[Path, list[str]]:
    found: list[str] = []
    rest: list[str] = []
    position = 0
    while position < len(tokens):
        token = tokens[position]
        if is_from_run_flag(token) and "=" in token:
            found.append(token.partition("=")[2])
        elif is_from_run_flag(token):
            if position + 1 >= len(tokens) or tokens[position + 1].startswith("--"):
                raise ArgvError("needs the directory of a run", key=FROM_RUN)
            position += 1
            found.append(tokens[position])
        else:
            rest.append(token)
        position += 1
    if len(found) > 1:
        raise ArgvError("is given twice: rerun one run at a time", key=FROM_RUN, value=found[-1])
    return Path(found[0]), rest


def _changed_source(sources: Mapping[str, Any]) -> str | None:
    """The first recorded file (read from here, as composing again would) whose text is not
    the text the run was made from, said as what happened to it; None if all are the same."""
    for shown, digest in sources.items():
        try:
            text = read_text(shown)
        except ComposeError:
            return f"{shown} is gone"
        if sha256_text(text) != digest:
            return f"{shown} changed since the run"
    return None


def describe_run(
    config: BaseModel, argv: Sequence[str], prog: str, knobs: Options
) -> dict[str, Any]:
    """run.json for a single run: `config`, as composed from `argv` (whose `--from-run` is
    taken as it was when the run was made) with `knobs`, at their instant `now` if known."""
    cwd = os.getcwd()
    with git_state_meanwhile(cwd) as git:  # git works while the origins are found
        with held():  # dropped: the run itself has shown them
            tokens, recorded = rerun(argv, prog) if asks_from_run(argv) else (list(argv), None)
            files = FileCache()
            origins = leaf_origins(type(config), tokens, files, knobs)
        return run_record(
            prog=prog,
            argv=masked_tokens(type(config), tokens, config),
            fingerprint=fingerprint(config),
            origins=origins,
            sources={shown: sha256_text(text) for shown, text in files.texts.items()},
            cwd=cwd,
            git=git(),
            versions=versions(),
            now=recorded or knobs.now or _environment_instant(knobs.environ),
        )


def _environment_instant(environ: Mapping[str, str] | None) -> datetime.datetime | None:
    """$COMPOSE_NOW's instant, if it is set: the one every composition of the run took."""
    if NOW_VARIABLE not in (os.environ if environ is None else environ):
        return None
    return run_instant(environ)


def write_run_record(
    directory: str | os.PathLike[str],
    config: BaseModel,
    argv: Sequence[str],
    *,
    prog: str,
    search_path: Dirs = (),
    env_prefix: str | None = None,
    environ: Mapping[str, str] | None = None,
    now: datetime.datetime | str | None = None,
) -> Path:
    """Write `DIRECTORY/run.json` for a single run: how `config` was made from `argv` (the
    tokens after the program's name, as `cli` took them), so that `PROG --from-run DIRECTORY`
    composes it again. Returns the file's path.

    The resolved config belongs at `DIRECTORY/configs/PROG.toml`, where `write_configs`
    writes it: `--from-run` builds on it when a file the run read has changed. A run.json
    already there is kept when it describes this run better: when `argv` is `@` that very
    configs/PROG.toml (a sweep point's job keeps its sweep's record), or when it has the same
    fingerprint. The options are those `cli` was given, and mean the same.

    `now` is the instant `cli` was given as `now=` (what `run_instant` chose): run.json keeps
    it, and `--from-run` composes at it again. A rerun keeps its run's instant, as `cli` does;
    without `now`, $COMPOSE_NOW's is kept if set, else none is recorded.
    """
    path = Path(directory) / RUN_FILE
    if _runs_its_record(Path(directory), argv, prog):
        return path
    knobs = options(search_path=search_path, env_prefix=env_prefix, environ=environ, now=now)
    record = describe_run(config, argv, prog, knobs)
    if _recorded_fingerprint(path) == record["fingerprint"]:
        return path
    return write_file(path, record_text(record))  # no secret in it: `masked_tokens`


def _recorded_fingerprint(path: Path) -> Any:
    """The fingerprint of the run.json at `path`, if there is one to be read: one that cannot
    be is this run's to write (it is the run's record, in the run's own directory)."""
    try:
        previous = read_record(path)
    except SourceError:
        return None
    return None if previous is None else previous.get("fingerprint")


def _runs_its_record(directory: Path, argv: Sequence[str], prog: str) -> bool:
    """Whether `argv` is `@ DIRECTORY/configs/PROG.toml` alone, with a run.json beside it: a
    sweep's job, which that record describes better than `@ FILE` would."""
    if len(argv) != 2 or argv[0] != "@" or not (directory / RUN_FILE).is_file():
        return False
    return Path(argv[1]).resolve() == config_file(directory, prog).resolve()
