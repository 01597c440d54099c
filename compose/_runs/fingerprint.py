"""A config's fingerprint: the same resolved config, the same hash, wherever its values came from.

sha256 over a versioned canonical JSON of the validated model's plain dump (`model_dump(mode=
"json")`: keys sorted, so neither field order nor the order of files and flags matters), with
the values of `SecretStr`/`SecretBytes` fields left out, and any key the caller names (a run's
own directory: where it runs, not what it runs) left out too.

A secret is left out, not hashed: the fingerprint is kept in records and names a point's
directory, and every other value of the config is in the record beside it, so a digest of a
secret (a token, a short password) could be found again by trying candidates against it; a
salt kept secret would make the fingerprint differ from one machine or run to the next, which
is what it must not do. So two configs that differ only in a secret have one fingerprint, and
`differing_secrets` says, in memory only, which secrets tell them apart.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel

from compose._schema.secrets import secret_fields
from compose._schema.shape import shape_of
from compose._syntax import dotted, split_dotted
from compose._tree import KeyPath, at_path, child

SCHEME = "compose-fingerprint-1"  # bumped if what is hashed changes: old names stay old


def fingerprint(config: BaseModel, *, exclude: Iterable[KeyPath] = ()) -> str:
    """The hex sha256 of `config`'s canonical JSON, secrets and the paths `exclude` left out."""
    data = config.model_dump(mode="json")
    root = shape_of(type(config))
    for path in [*(path for path, _ in secret_fields(root, data)), *exclude]:
        _drop(data, path)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{SCHEME}\n{text}".encode()).hexdigest()


def run_fingerprint(config: BaseModel, output: str | None) -> str:
    """A run's fingerprint as its record keeps it: with `output`, the dotted key that names
    the run's directory, left out (where it runs, not what it runs), as a sweep's points'."""
    return fingerprint(config, exclude=[tuple(split_dotted(output))] if output else ())


def same_run(recorded: Any, config: BaseModel, output: str | None) -> bool:
    """Whether `recorded`, a record's fingerprint, is `config`'s: its output key left out, or
    (in a record of an older compose) whole."""
    return recorded in (run_fingerprint(config, output), fingerprint(config))


def differing_secrets(config: BaseModel, other: BaseModel) -> list[str]:
    """The dotted keys of the secrets whose values differ between `config` and `other`, two
    configs of one schema and one fingerprint: compared here, in memory, and never written."""
    mine, theirs = config.model_dump(), other.model_dump()  # a secret as itself, not masked
    paths = secret_fields(shape_of(type(config)), mine)
    return [dotted(path) for path, _ in paths if at_path(mine, path) != at_path(theirs, path)]


def _drop(data: Any, path: KeyPath) -> None:
    parent = data
    for segment in path[:-1]:
        parent = child(parent, segment)
    if isinstance(parent, dict):
        parent.pop(path[-1], None)
