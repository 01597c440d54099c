"""A config as one flat table, `{dotted.key: value}`, for experiment trackers, and back to flags.

A tracker shows and queries a config by key: W&B sweeps name parameters with dots, and a
nested config logged beside them gives each value twice (wandb #982, #5477); MLflow's params
are flat text of bounded length, under keys of bounded length. `to_flat` gives every value of
a resolved config under the dotted key a flag takes (`--trainer.optim.lr`), secrets masked.
`flags_of` and `flat_argv` are the way back: what a sweep agent or an HPO trial hands over
(typed values, or the `str()` of them) as the flag tokens the command line reads, so that it
is validated as flags are.
"""

from __future__ import annotations

import enum
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel

from compose._output.argv import escaped
from compose._output.plain import to_data
from compose._schema.shape import ANY, Shape, model_shape
from compose._schema.walk import walk
from compose._syntax import NONE_TEXT, TRUNCATED, TRUNCATED_KEY, split_dotted
from compose._tree import MAX_DEPTH
from compose.errors import ComposeError

# The longest param value MLflow 3 takes (`mlflow.utils.validation.MAX_PARAM_VAL_LENGTH`; older
# servers take 500, the oldest 250: pass theirs as `max_length`). tests/output/test_trackers.py
# checks it against the installed MLflow.
MLFLOW_MAX_PARAM_LENGTH = 6000
# The longest param key MLflow takes, of every version (`MAX_ENTITY_KEY_LENGTH`): it refuses a
# longer one (it cuts only values), and with it the whole batch of params.
MLFLOW_MAX_KEY_LENGTH = 250
# A cut value or key keeps room for its marker: a limit below this would keep nothing of it.
_SHORTEST_LIMIT = 40
_DIGEST_BYTES = 6  # a cut key's digest: 12 hex digits


def to_flat(
    config: BaseModel | Mapping[str, Any],
    *,
    text: bool = False,
    max_length: int | None = None,
    max_key_length: int | None = None,
) -> dict[str, Any]:
    """`config` as `{dotted.key: value}`, one key per value in field order: what a tracker logs.

    Keys are spelt as flags take them (field names, dict keys as they are), so a key names
    the same value in the tracker, in a sweep's parameters and on the command line. Secrets
    are masked (`**********`). Lists stay lists and None stays None: W&B's config holds both.
    Text holding `${` or `???` is escaped as a flag writes it (`\\${x}`): `from_flat` reads
    it back as the text, not as a reference to resolve.
    A section or dict is spread into its keys; an empty one, or a dict with a key that no
    dotted key can name (empty, holding `.` or `=`, blank at an end), stays one value.

    With `text`, each value is the text a flag takes for it (MLflow's params are text):
    `str()` of a scalar, JSON of a list or dict; and a dict with a key MLflow refuses in a
    param key (other than letters, digits, `_ - /` and spaces) stays one value, as MLflow
    refuses a whole `log_params` call for one such key. A text longer than `max_length` (default
    MLflow's, 6000) is cut to it, ending with `... [N more characters]`, rather than split
    into parts: `key.0`, `key.1` would read as list indexes on the command line, so a part
    could never come back as the value. Log the whole config as an artifact beside it. A key
    longer than `max_key_length` (default MLflow's, 250: a long dict key) is cut to it too,
    ending with `... N more characters DIGEST`, a digest of the whole key: two keys with one
    head stay two params, and a config's keys are the same in every run. `from_flat` refuses
    a cut value or key. A dict nested deeper than any config (100 levels) is a `ValueError`.
    """
    limit = _limit("max_length", max_length, MLFLOW_MAX_PARAM_LENGTH, text)
    key_limit = _limit("max_key_length", max_key_length, MLFLOW_MAX_KEY_LENGTH, text)
    if isinstance(config, Mapping) and _nests_deeper(config, MAX_DEPTH):
        raise ValueError(f"to_flat: a dict nested deeper than {MAX_DEPTH} levels is no config")
    # Secrets masked (a tracker is a place people look); a model's None stays None and its
    # text "None" (an element of a list[str]) text; text escaped, so `from_flat` reads it back
    tree = escaped(to_data(config, nones=True))
    if not isinstance(tree, dict):
        raise TypeError(f"to_flat needs a model or a dict, got {type(config).__name__}")
    spread = _mlflow_segment if text else _plain_segment
    flat = dict(_leaves(tree, "", spread))
    if not isinstance(config, BaseModel):  # plain data: "None" text is None, as files write it
        flat = {key: _nones(value) for key, value in flat.items()}
    if text:
        return {
            cut(key, key_limit, key=True): cut(flag_text(value), limit)
            for key, value in flat.items()
        }
    return flat


def _limit(name: str, given: int | None, default: int, text: bool) -> int:
    """A length limit of `to_flat`: what it cuts is text."""
    if given is not None and not text:
        raise ValueError(f"{name} cuts text: pass text=True with it")
    limit = default if given is None else given
    if text and limit < _SHORTEST_LIMIT:
        raise ValueError(f"{name} must be at least {_SHORTEST_LIMIT}, got {limit}")
    return limit


def _leaves(
    table: dict[str, Any], prefix: str, spread: Callable[[str], bool]
) -> Iterator[tuple[str, Any]]:
    """Each value under its dotted key: a dict is spread into its keys where `spread` takes
    every one of them as a segment, else it is one value."""
    for key, value in table.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, dict) and value and all(map(spread, value)):
            yield from _leaves(value, dotted + ".", spread)
        else:
            yield dotted, value


def _plain_segment(key: str) -> bool:
    """Whether a dotted key can hold `key` as one segment (`from_flat` takes it back)."""
    return "." not in key and is_flat_key(key)


# The segments MLflow takes in a param key (`validate_param_and_metric_name`, as on Windows,
# which refuses `:` too): letters, digits, `_ - /` and spaces, no `//` and no slash at an end
# (a key that resolves to another as a path is refused: `path_not_unique`).
_MLFLOW_SEGMENT = re.compile(r"[\w\- ]+(?:/[\w\- ]+)*")


def _mlflow_segment(key: str) -> bool:
    """A segment of a key MLflow takes: it refuses a whole `log_params` call for one bad key."""
    return _plain_segment(key) and _MLFLOW_SEGMENT.fullmatch(key) is not None


def is_flat_key(key: str) -> bool:
    """A key a flag can be made of: not empty, no `=` (`--KEY=VALUE` splits at the first), no
    blank at either end, not read as an argv token of its own (`-`, `@`, `~`), not ending
    with `+` (`--KEY+=VALUE` appends to a list)."""
    return (
        bool(key)
        and "=" not in key
        and key.strip() == key
        and key[0] not in "-@~"
        and not key.endswith("+")
    )


def _nones(value: Any) -> Any:
    """Plain data's "None" text as None again (a tracker and JSON have null)."""
    if value == NONE_TEXT and isinstance(value, str):
        return None
    if isinstance(value, list):
        return [_nones(item) for item in value]
    if isinstance(value, dict):
        return {key: _nones(item) for key, item in value.items()}
    return value


def flag_text(value: Any) -> str:
    """A value as the one token a flag takes for it: `str()` of a scalar (`None`, `1e-05`),
    `true`/`false` for a bool (a typed field reads `True` too, but an untyped one, a key of a
    `dict[str, Any]`, reads TOML's spelling only), JSON of a list or dict; text as it is."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return flag_text(value.value)
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, (list, tuple, dict, set, frozenset)):  # a set as its sorted list
        return json.dumps(value, default=_json_default)
    return str(value)


def _json_default(value: Any) -> Any:
    """What JSON lacks, inside a list or dict handed back (an export holds plain data only)."""
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    raise TypeError(f"{type(value).__name__} is no config value")


def cut(text: str, limit: int, *, key: bool = False) -> str:
    """`text` within `limit` characters: cut, with a marker that says how much was left out (a
    `key`'s, with a digest of the whole key)."""
    if len(text) <= limit:
        return text
    marker = TRUNCATED_KEY if key else TRUNCATED
    digest = _digest(text) if key else ""
    dropped = len(text) - limit
    while True:  # the marker's length depends on the count it shows
        end = marker.format(count=dropped, digest=digest)
        kept = limit - len(end)
        if len(text) - kept == dropped:
            return text[:kept] + end
        dropped = len(text) - kept


def _digest(text: str) -> str:
    whole = text.encode("utf-8", "surrogatepass")  # any str: a dict key may hold a lone surrogate
    return hashlib.blake2b(whole, digest_size=_DIGEST_BYTES).hexdigest()


def _ending(marker: str) -> re.Pattern[str]:
    """The end of a text `cut` left with `marker`."""
    pattern = re.escape(marker).replace(re.escape("{count}"), r"\d+")
    pattern = pattern.replace(re.escape("{digest}"), f"[0-9a-f]{{{2 * _DIGEST_BYTES}}}")
    return re.compile(pattern + r"\Z")


_CUT_ENDINGS = (_ending(TRUNCATED), _ending(TRUNCATED_KEY))


def is_cut(text: str) -> bool:
    """Whether `text` (a value or a key) ends with the marker `cut` leaves."""
    return any(ending.search(text) for ending in _CUT_ENDINGS)


def flags_of(root: Shape, key: str, value: Any) -> Iterator[tuple[str, tuple[str, ...]]]:
    """(dotted key, tokens) of each flag that `key: value` of a flat dict sets, one token each
    (`flag_text`). A dict given to a section (W&B's nested parameters) sets its fields one by
    one, as a section takes no dict on the command line; an empty one enables the section (a
    bare flag, no token). A dict for a dict field, or for a key the schema does not know, is
    one value, which the flag's rules judge. A value nested deeper than `MAX_DEPTH` is a
    `ValueError`, before any of it is read: no flag takes it, nor any config holds it."""
    if _nests_deeper(value, MAX_DEPTH):
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    return _flags(root, key, value)


def _flags(root: Shape, key: str, value: Any) -> Iterator[tuple[str, tuple[str, ...]]]:
    if isinstance(value, dict) and _names_section(root, key):
        if not value:
            yield key, ()
            return
        for name, item in value.items():
            yield from _flags(root, f"{key}.{name}", item)
    else:
        yield key, (flag_text(value),)


_NESTING = (Mapping, list, tuple, set, frozenset)  # what `flag_text`'s JSON goes into


def _nests_deeper(value: Any, limit: int) -> bool:
    """Whether `value` nests more than `limit` of the containers a flag's JSON is made of,
    walked with a stack of its own (a tracker may hand any depth: JSON's encoder recurses)."""
    pending = [(value, 0)]
    while pending:
        node, depth = pending.pop()
        if not isinstance(node, _NESTING):
            continue
        if depth > limit:
            return True
        children = node.values() if isinstance(node, Mapping) else node
        pending += [(child, depth + 1) for child in children if isinstance(child, _NESTING)]
    return False


def _names_section(root: Shape, key: str) -> bool:
    if root.model is None:
        return False
    try:
        target = walk(root, split_dotted(key), {}, "--" + key)
    except ComposeError:
        return False
    return target.shape.is_section


def flat_argv(flat: Mapping[str, Any], schema: type[BaseModel] | None = None) -> list[str]:
    """`{dotted.key: value}` as command-line tokens, `--KEY=VALUE` each: for an entrypoint
    started as a process (an HPO loop's trial). With `schema`, a dict given to a section is
    spread into its fields' keys, as `from_flat` does; without, it is passed as JSON. A value
    nested deeper than 100 levels is a `ValueError`."""
    root = model_shape(schema) if schema is not None else ANY
    return [
        f"--{key}={tokens[0]}" if tokens else f"--{key}"
        for given, value in flat.items()
        for key, tokens in flags_of(root, given, value)
    ]
