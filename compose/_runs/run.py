"""One run's record, `DIR/run.json`: what any run leaves, swept or single, and what
`--from-run` reads back. Kept apart from the sweep's modules so that an entrypoint writing the
record of a single run imports no sweep, executor or engine."""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from compose._api import argv_items, described_leaves
from compose._input.env import EnvValue, environment_node, resolve_variable
from compose._input.files import FileCache
from compose._input.options import Options
from compose._interp.clock import parse_instant
from compose._jsonfile import OS_TEXT, is_text, os_text, read_record, record_field, text_table
from compose._merge.fold import compose_items
from compose._output.plain import to_data
from compose._runs.masked import hidden
from compose._schema.secrets import holds_secrets
from compose._schema.shape import model_shape
from compose._warn import held
from compose.errors import ComposeError

RUN_FILE = "run.json"
RECORD_FORMAT = 1  # run.json's layout; bumped if a field changes meaning


def run_record(
    *,
    prog: str,
    argv: Sequence[str],
    fingerprint: str,
    origins: Mapping[str, str],
    sources: Mapping[str, str],
    cwd: str,
    git: Mapping[str, Any] | None,
    versions: Mapping[str, str],
    environment: Mapping[str, str],
    output: str | None,
    now: datetime.datetime | None = None,
) -> dict[str, Any]:
    """What run.json holds for any run, swept or single (see the module docstring); `now`, the
    instant its `${now:}` gave, if known (full precision: a rerun gives the same `%f`).

    `argv` and `environment` (`recorded_environment`) as a record may keep them: secrets
    masked (`compose._runs.masked`). `output`: the key whose value is the run's directory (a
    sweep's output key), if any: a rerun that changes the config must not write there."""
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "prog": prog,
        "argv": list(argv),
        "config": f"configs/{prog}.toml",
        "fingerprint": fingerprint,
        "output": output,
        "cwd": cwd,
        "sources": dict(sources),
        "origins": dict(origins),
        "environment": dict(environment),
        "versions": dict(versions),
    }
    if now is not None:
        record["now"] = now.isoformat()
    if git is not None:
        record["git"] = dict(git)
    return record


def recorded_now(record: Mapping[str, Any], path: Path) -> datetime.datetime | None:
    """The instant a record (run.json, sweep.json) says its configs were composed at, if any."""

    text = record.get("now")
    if text is None:
        return None
    instant = parse_instant(text) if isinstance(text, str) else None
    if instant is None:
        raise ComposeError("is no ISO 8601 instant", key="now", value=text, origin=str(path))
    return instant


def recorded_environment(config: BaseModel, knobs: Options) -> dict[str, str]:
    """The variables of the environment node (the app's `env_prefix`) that set a field of
    `config` when it was composed with `knobs`, as run.json keeps them: a secret field's value
    masked (its `${oc.env:NAME}` reference kept), its variable named. A variable that names no
    field set nothing (the run warned about it) and is left out."""
    with held():  # a name that is no key path: the run itself warned
        node = environment_node(knobs.env_prefix, knobs.environ)
    if node is None:
        return {}
    root = model_shape(type(config))
    tree = to_data(config)
    kept: dict[str, str] = {}
    for value in node.values:
        if not isinstance(value, EnvValue):
            continue
        try:
            target = resolve_variable(root, value, tree)
        except ComposeError:
            continue
        text = value.tokens[0]
        kept[value.variable] = hidden(text) if holds_secrets(target.shape) else text
    return kept


def config_file(directory: Path, prog: str) -> Path:
    """Where a run record keeps its resolved config: as `write_configs` puts it."""
    return directory / "configs" / f"{prog}.toml"


def read_run(path: Path) -> dict[str, Any] | None:
    """A run.json (None if there is none), each field `--from-run` uses checked to be what
    run.json holds: one error naming the file, the key and the value."""
    record = read_record(path)
    if record is None:
        return None
    record_field(record, "argv", path, _command_line, f"a list of arguments, {OS_TEXT}")
    record_field(record, "prog", path, _or_none(is_text), "a program's name")
    record_field(
        record, "config", path, _or_none(os_text), f"the resolved config's file name, {OS_TEXT}"
    )
    sources = f"a table of file names ({OS_TEXT}) and their sha256"
    record_field(record, "sources", path, _or_none(_sources), sources)
    return record  # its `now`: `recorded_now`


def _command_line(value: Any) -> bool:
    return isinstance(value, list) and all(os_text(token) for token in value)


def _sources(value: Any) -> bool:
    return text_table(value) and all(os_text(name) for name in value)


def _or_none(valid: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """`valid`, for a key a record may leave out (an older record's)."""
    return lambda value: value is None or valid(value)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def leaf_origins(
    schema: type[BaseModel], argv: Sequence[str], files: FileCache, knobs: Options
) -> dict[str, str]:
    """Where `argv` set each leaf it sets, by dotted key (`trainer.optim.lr` -> `rl.toml:30`);
    {} if it does not compose alone (a sweep's base may need its axes)."""
    items = argv_items(argv, knobs)
    try:
        composed = compose_items(items, schema, knobs.search_path, files, recording=True)
    except ComposeError:
        return {}
    return described_leaves(composed)
