"""One run's record, `DIR/run.json`: what any run leaves, swept or single, and what
`--from-run` reads back. Kept apart from the sweep's modules so that an entrypoint writing the
record of a single run imports no sweep, executor or engine."""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from compose._api import argv_items
from compose._input.files import FileCache
from compose._input.options import Options
from compose._interp.clock import parse_instant
from compose._merge.fold import compose_items
from compose._tree import KeyPath
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
    now: datetime.datetime | None = None,
) -> dict[str, Any]:
    """What run.json holds for any run, swept or single (see the module docstring); `now`, the
    instant its `${now:}` gave, if known (full precision: a rerun gives the same `%f`)."""
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "prog": prog,
        "argv": list(argv),
        "config": f"configs/{prog}.toml",
        "fingerprint": fingerprint,
        "cwd": cwd,
        "sources": dict(sources),
        "origins": dict(origins),
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


def config_file(directory: Path, prog: str) -> Path:
    """Where a run record keeps its resolved config: as `write_configs` puts it."""
    return directory / "configs" / f"{prog}.toml"


def read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


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
        found = {}
        for path in _leaves(composed.tree, ()):
            origin = composed.origins.describe(path)
            if origin:
                found[".".join(map(str, path))] = origin
    except ComposeError:
        return {}
    return found


def _leaves(tree: Any, path: KeyPath) -> list[KeyPath]:
    if isinstance(tree, dict) and tree:
        return [leaf for key, value in tree.items() for leaf in _leaves(value, (*path, key))]
    return [path]
