"""The sweep grammar: a sweep file's tables and `--sweep.KEY` flags -> the list of points.

A *block* is a table of point generators, whose points are the product of its parts, in the
order written (the last varies fastest):

    axes = { KEY = [V1, V2], KEY = {range = [0, 3]}, KEY = {logspace = [1e-5, 1e-3, 5]},
             KEY = {VALUE = {KEY2 = [...]}, VALUE2 = {}} }   # KEY2 only under KEY = VALUE
    zip = [{KEY = [...], KEY2 = [...]}]                       # paired: equal lengths
    blocks = [{...}, {...}]                                   # sub-blocks, concatenated
    seeds = 3 | {key = "trainer.seed", n = 3}                 # a `seed` axis 0..n-1

A point is an ordered mapping KEY -> value; its overrides are `--KEY=VALUE` flags in compose's
own grammar (a value starting with `@` is a file node: `--KEY @ FILE`). Nothing here knows the
schema: `compose._runs.points` checks the keys and composes the points.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from compose.errors import ComposeError, closest

Axes = dict[str, Any]  # one point: KEY -> value, in the order the sweep gives them
Where = Callable[[tuple[str | int, ...]], str]  # a path in the sweep's table -> "FILE:LINE"

BLOCK_KEYS = ("axes", "zip", "blocks", "seeds")
GENERATORS = ("range", "linspace", "logspace")
DEFAULT_SEED_KEY = "seed"


@dataclass(frozen=True)
class Expansion:
    """What a sweep definition gives: its points, and where each axis key was written."""

    points: list[Axes]
    origins: dict[str, str]  # axis key -> where it was written (FILE:LINE or the flag)


def expand(block: Mapping[str, Any], where: Where) -> Expansion:
    """The points of a block (see the module docstring); an empty sweep is an error."""
    origins: dict[str, str] = {}
    points = _block(block, (), where, origins)
    if not points:
        raise ComposeError("the sweep has no points", origin=where(()), hint="add an axis")
    return Expansion(points, origins)


def _block(
    block: Mapping[str, Any], path: tuple[str | int, ...], where: Where, origins: dict[str, str]
) -> list[Axes]:
    if not isinstance(block, Mapping):
        raise ComposeError("a sweep block is a table", value=block, origin=where(path))
    factors: list[list[Axes]] = []
    for part, value in block.items():
        at = (*path, part)
        if part == "axes":
            factors.extend(_axes(value, at, where, origins))
        elif part == "zip":
            factors.extend(_zip(group, (*at, i), where, origins) for i, group in enumerate(value))
        elif part == "blocks":
            factors.append(_blocks(value, at, where, origins))
        elif part == "seeds":
            factors.append(_seeds(value, at, where, origins))
        else:
            hint = closest(part, BLOCK_KEYS, cutoff=0.6)
            raise ComposeError(
                f"not a part of a sweep block ({', '.join(BLOCK_KEYS)})",
                key=part,
                origin=where(at),
                hint=f"did you mean {hint}?" if hint else None,
            )
    return product(factors, where(path)) if factors else []


def _axes(
    table: Any, path: tuple[str | int, ...], where: Where, origins: dict[str, str]
) -> Iterator[list[Axes]]:
    if not isinstance(table, Mapping):
        raise ComposeError("axes is a table of KEY = values", value=table, origin=where(path))
    for key, spec in table.items():
        yield _axis(key, spec, (*path, key), where, origins)


def _axis(
    key: str, spec: Any, path: tuple[str | int, ...], where: Where, origins: dict[str, str]
) -> list[Axes]:
    """One axis: its values, or (a table of VALUE -> sub-axes) each value with its own axes."""
    origins.setdefault(key, where(path))
    if isinstance(spec, Mapping) and not _is_generator(spec):
        return _conditional(key, spec, path, where, origins)
    return [{key: value} for value in axis_values(key, spec, where(path))]


def _conditional(
    key: str,
    table: Mapping[str, Any],
    path: tuple[str | int, ...],
    where: Where,
    origins: dict[str, str],
) -> list[Axes]:
    """`KEY = {VALUE = {KEY2 = [...]}, ...}`: each VALUE of KEY, with the axes that exist only
    under it (a learning rate range per optimizer)."""
    if not table:
        raise ComposeError("an axis without values", key=key, origin=where(path))
    points: list[Axes] = []
    for value, below in table.items():
        inner = (*path, value)
        sub = list(_axes(below, inner, where, origins)) if below else []
        points.extend(product([[{key: value}], *sub], where(inner)))
    return points


def _is_generator(spec: Mapping[str, Any]) -> bool:
    return len(spec) == 1 and next(iter(spec)) in GENERATORS


def axis_values(key: str, spec: Any, origin: str) -> list[Any]:
    """An axis's values: a non-empty list as it is, or a `{range|linspace|logspace = [...]}`."""
    if isinstance(spec, Mapping) and _is_generator(spec):
        kind, bounds = next(iter(spec.items()))
        values = _generated(key, kind, bounds, origin)
    elif isinstance(spec, (list, tuple)):
        values = list(spec)
    else:
        raise ComposeError(
            "an axis is a list of values or {range|linspace|logspace = [...]}",
            key=key,
            value=spec,
            origin=origin,
            hint=f"write {key} = [{json.dumps(spec, default=str)}] for a single value",
        )
    if not values:
        raise ComposeError("an axis without values", key=key, value=spec, origin=origin)
    return values


def _generated(key: str, kind: str, bounds: Any, origin: str) -> list[Any]:
    numbers = isinstance(bounds, list) and all(_is_number(b) for b in bounds)
    if kind == "range":
        if not (numbers and 2 <= len(bounds) <= 3 and all(isinstance(b, int) for b in bounds)):
            raise _bad_generator(
                key, kind, bounds, origin, "[start, stop] or [start, stop, step] integers"
            )
        if len(bounds) == 3 and bounds[2] == 0:
            raise _bad_generator(key, kind, bounds, origin, "a step other than 0")
        return list(range(*bounds))
    if not (numbers and len(bounds) == 3 and isinstance(bounds[2], int) and bounds[2] >= 1):
        raise _bad_generator(key, kind, bounds, origin, "[low, high, count], count an integer >= 1")
    low, high, count = bounds
    if kind == "linspace":
        return _spaced(low, high, count)
    if low <= 0 or high <= 0:
        raise _bad_generator(key, kind, bounds, origin, "low and high above 0")
    exponents = _spaced(math.log10(low), math.log10(high), count)
    return [float(f"{10**e:.12g}") for e in exponents]  # 1e-05, not 1.0000000000000016e-05


def _spaced(low: float, high: float, count: int) -> list[float]:
    if count == 1:
        return [float(low)]
    step = (high - low) / (count - 1)
    return [float(high) if i == count - 1 else low + i * step for i in range(count)]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _bad_generator(key: str, kind: str, bounds: Any, origin: str, needs: str) -> ComposeError:
    return ComposeError(f"{kind} takes {needs}", key=key, value=bounds, origin=origin)


def _zip(
    group: Any, path: tuple[str | int, ...], where: Where, origins: dict[str, str]
) -> list[Axes]:
    """Paired axes: the i-th point takes the i-th value of each."""
    if not isinstance(group, Mapping) or not group:
        raise ComposeError("a zip is a table of two or more axes", value=group, origin=where(path))
    columns = {}
    for key, spec in group.items():
        origins.setdefault(key, where((*path, key)))
        columns[key] = axis_values(key, spec, where((*path, key)))
    lengths = {len(values) for values in columns.values()}
    if len(lengths) > 1:
        shown = ", ".join(f"{key} ({len(values)})" for key, values in columns.items())
        raise ComposeError(
            f"zipped axes need the same number of values: {shown}",
            origin=where(path),
            hint="give each axis of a zip as many values as the others",
        )
    keys = list(columns)
    return [dict(zip(keys, row, strict=True)) for row in zip(*columns.values(), strict=True)]


def _blocks(
    blocks: Any, path: tuple[str | int, ...], where: Where, origins: dict[str, str]
) -> list[Axes]:
    """Sub-blocks, one after the other (each its own product)."""
    if not isinstance(blocks, list):
        raise ComposeError("blocks is a list of tables", value=blocks, origin=where(path))
    points: list[Axes] = []
    for index, block in enumerate(blocks):
        points.extend(_block(block, (*path, index), where, origins))
    return points


def _seeds(
    spec: Any, path: tuple[str | int, ...], where: Where, origins: dict[str, str]
) -> list[Axes]:
    """`seeds = N` or `seeds = {key = KEY, n = N}`: N repeats, KEY = 0..N-1."""
    key, count = DEFAULT_SEED_KEY, spec
    if isinstance(spec, Mapping):
        unknown = set(spec) - {"key", "n"}
        if unknown or not isinstance(spec.get("key", key), str):
            raise ComposeError("seeds is N or {key = KEY, n = N}", value=spec, origin=where(path))
        key, count = spec.get("key", key), spec.get("n")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise ComposeError("seeds takes a count of 1 or more", value=spec, origin=where(path))
    origins.setdefault(key, where(path))
    return [{key: seed} for seed in range(count)]


def product(factors: Sequence[list[Axes]], origin: str) -> list[Axes]:
    """Every combination of one point of each factor, merged; a key set twice is an error."""
    points = []
    for combination in itertools.product(*factors):
        point: Axes = {}
        for part in combination:
            for key, value in part.items():
                if key in point:
                    raise ComposeError(
                        "is swept twice in one point: give each key one axis",
                        key=key,
                        origin=origin,
                    )
                point[key] = value
        points.append(point)
    return points


def override(key: str, value: Any) -> list[str]:
    """A point's value for `key` as command-line tokens: `--KEY=VALUE`, or `--KEY @ FILE`
    for a value naming a file (`"@optim/muon"`: a config group's option)."""
    if isinstance(value, str) and value.startswith("@"):
        return [f"--{key}", "@", value[1:]]
    return [f"--{key}={cli_text(value)}"]


def cli_text(value: Any) -> str:
    """A value as the command line spells it, so that the flag gives it back: TOML's typed
    values from a sweep file, text from `--sweep.KEY` as it was typed."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, dict)):
        return json.dumps(value, default=str)
    return str(value)  # dates and times: their ISO text
