"""What a run record or a table of points shows of a run's input: every secret masked.

Records (run.json, manifest.jsonl, sweep.json) are read by people, copied, attached to issues
and synced to trackers; the configs a job reads are the only files that hold a secret (0600).
So everything a record keeps of how a run was made (its argv, overrides, axes, the sweep's
definition, its environment) goes through these functions: a value given to a secret field,
or to a list, dict or section that holds one, is kept as its `${oc.env:NAME}` reference when
it is one (no secret: each reader reads its own environment), else as the mask. An axis's file
node (`@optim/muon`) is a name, and kept. A rerun that meets a mask builds on the run's resolved
config instead (`compose._runs.rerun`).

The sweep's table of points and its errors show axis values through `masked_axes` too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from compose._input.argv import ValueItem, item_spans
from compose._output.plain import to_data
from compose._schema.secrets import env_reference, holds_secrets, schema_holds_secrets
from compose._schema.shape import Kind, Shape, model_shape
from compose._schema.walk import walk
from compose._syntax import NONE_TEXT, SECRET_MASK, split_dotted
from compose.errors import ComposeError

ShapeAt = Callable[[str], "Shape | None"]


def masked_axes(
    schema: type[BaseModel],
    axes: Mapping[str, Any],
    config: BaseModel | None = None,
    names: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """A point's axes (KEY -> its value), each secret masked. `config`, the point's validated
    config, tells which variant each union section has (without it: the class defaults').
    The keys in `names` take names, never values (a Hydra multirun's config groups: `db`), and
    are kept as they are, as a file node is."""
    return _masker(_shapes(schema, config), names)(axes)


def axes_masker(
    schema: type[BaseModel], names: frozenset[str] = frozenset()
) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    """`masked_axes` for the points of one sweep (its table, its errors): what each key's value
    may hold is found once, for every point the function is given."""
    return _masker(_shapes(schema, None), names)


def _masker(
    shape_at: ShapeAt, names: frozenset[str]
) -> Callable[[Mapping[str, Any]], dict[str, Any]]:
    return lambda axes: {
        key: value if _names_one(key, value, names) else _axis_value(shape_at, key, value)
        for key, value in axes.items()
    }


def _names_one(key: str, value: Any, names: frozenset[str]) -> bool:
    """Whether `value`, given to `key`, is a group's option (or a list of them): a name. A
    table given to a group's key is a value (Hydra merges it there), and may hold a secret."""
    return key in names and not (isinstance(value, str) and "{" in value)


def masked_tokens(
    schema: type[BaseModel],
    tokens: Sequence[str],
    config: BaseModel | None = None,
    *,
    hydra: bool = False,
    names: frozenset[str] = frozenset(),
) -> list[str]:
    """A command line (as `parse` takes it) with the values of its secret flags masked:
    `--api.key=**********`, `--api.keys ********** **********`; with `hydra`, Hydra's
    overrides (`api.key=**********`, `+api.key=...`), those of the keys in `names` (config
    groups: `db=postgresql`) kept."""
    shape_at = _shapes(schema, config)
    if hydra:
        return [_masked_override(shape_at, text, names) for text in tokens]
    masked: list[str] = []
    for item, given in item_spans(list(tokens)):
        shape = shape_at(item.key) if isinstance(item, ValueItem) and item.tokens else None
        if shape is None or not holds_secrets(shape):
            masked.extend(given)
        elif len(given) == 1:  # --KEY=VALUE
            flag, _, text = given[0].partition("=")
            masked.append(f"{flag}={hidden(text)}")
        else:
            masked.extend([given[0], *map(hidden, given[1:])])
    return masked


def _masked_override(shape_at: ShapeAt, text: str, names: frozenset[str]) -> str:
    """A Hydra override, its value masked where its key is a secret's (or holds one)."""
    key, eq, value = text.partition("=")
    path = key.lstrip("+~").partition("@")[0]
    shape = shape_at(path) if eq and path and not _names_one(key, value, names) else None
    if shape is None or not holds_secrets(shape):
        return text
    return f"{key}={hidden(value)}"


def masked_definition(schema: type[BaseModel], definition: Mapping[str, Any]) -> dict[str, Any]:
    """A sweep's definition (sweep.json: the base argv, the sweep files' tables, the flag
    axes) with every value an axis gives a secret masked, wherever the grammar puts it (a
    Hydra multirun's definition names its tree: its argv is Hydra's overrides)."""
    shape_at = _shapes(schema, None)
    masked = dict(definition)
    hydra = definition.get("hydra")
    names = frozenset(hydra["groups"]) if hydra is not None else frozenset()
    argv = definition.get("argv", ())
    masked["argv"] = masked_tokens(schema, argv, hydra=hydra is not None, names=names)
    masked["axes"] = {
        key: _masked_values(shape_at, key, values)
        for key, values in definition.get("axes", {}).items()
    }
    masked["sweep"] = [_masked_table(shape_at, table) for table in definition.get("sweep", ())]
    return masked


def hides_secret(schema: type[BaseModel], key: str, config: BaseModel | None = None) -> bool:
    """Whether a value given to KEY (dotted, as flags and axes spell it) may hold a secret."""
    shape = _shapes(schema, config)(key)
    return shape is not None and holds_secrets(shape)


def _shapes(schema: type[BaseModel], config: BaseModel | None) -> ShapeAt:
    """KEY -> the shape its value takes in `config`'s tree (None: no field of the schema, or
    a schema without any secret: nothing of it to hide, and nothing walked)."""
    if not schema_holds_secrets(schema):
        return lambda key: None
    root = model_shape(schema)
    trees: list[Any] = []  # `config` as data, made at the first key asked (a run's records
    # ask of every point, most of which give no key to look up)
    found: dict[str, Shape | None] = {}

    def shape_at(key: str) -> Shape | None:
        if key not in found:
            if not trees:
                trees.append(to_data(config) if config is not None else {})
            try:
                found[key] = walk(root, split_dotted(key), trees[0], "--" + key).shape
            except ComposeError:  # no field: nothing of the schema's to hide
                found[key] = None
        return found[key]

    return shape_at


def _masked(shape_at: ShapeAt, key: str, value: Any) -> Any:
    """`value`, given to KEY, with what a secret field takes masked: below a section, a dict or
    a list that holds secrets, key by key, so that the rest stays readable."""
    shape = shape_at(key)
    if shape is None or not holds_secrets(shape):
        return value
    if isinstance(value, dict) and (shape.is_section or shape.kind is Kind.DICT):
        return {name: _masked(shape_at, f"{key}.{name}", item) for name, item in value.items()}
    if isinstance(value, list) and shape.kind is Kind.LIST:
        return [_masked(shape_at, f"{key}.{index}", item) for index, item in enumerate(value)]
    return hidden(value)


def _axis_value(shape_at: ShapeAt, key: str, value: Any) -> Any:
    """A point's value for KEY, masked; text starting with `@` is a file node (`--KEY @
    FILE`: a config group), whose name is kept."""
    if isinstance(value, str) and value.startswith("@"):
        return value
    return _masked(shape_at, key, value)


def _masked_values(shape_at: ShapeAt, key: str, values: Any) -> Any:
    """An axis's values for KEY, each masked as a point's: a list, a generator table, or a
    conditional axis's tables (`[axes.KEY.VALUE]`), whose names are KEY's values."""
    if isinstance(values, list):
        return [_axis_value(shape_at, key, value) for value in values]
    shape = shape_at(key)
    if shape is None or not holds_secrets(shape):
        return values
    if isinstance(values, dict) and values and all(isinstance(t, dict) for t in values.values()):
        return {
            f"{SECRET_MASK}[{index}]": _masked_table(shape_at, table)
            for index, table in enumerate(values.values())
        }
    return hidden(values)


def _masked_table(shape_at: ShapeAt, table: Any) -> Any:
    """A sweep file's table as read: below `axes`, `zip` and `blocks` (and a conditional axis's
    tables), a key that names a field is an axis, whose values are masked as it says."""
    if isinstance(table, list):
        return [_masked_table(shape_at, item) for item in table]
    if not isinstance(table, dict):
        return table
    masked: dict[str, Any] = {}
    for key, value in table.items():
        shape = shape_at(key)
        if shape is not None and holds_secrets(shape):
            masked[key] = _masked_values(shape_at, key, value)
        else:
            masked[key] = _masked_table(shape_at, value)
    return masked


def hidden(value: Any) -> Any:
    """A secret's value as a record keeps it: its `${oc.env:NAME}` reference, None (or its
    text), else the mask; in a list or dict, every item so."""
    if isinstance(value, list):
        return [hidden(item) for item in value]
    if isinstance(value, dict):
        return {key: hidden(item) for key, item in value.items()}
    if value is None or (
        isinstance(value, str)
        and (value == NONE_TEXT or value.startswith("@") or env_reference(value))
    ):
        return value
    return SECRET_MASK
