"""The sweep grammar: a sweep file's tables and `--sweep.KEY` flags -> the list of points.

A *block* is a table of point generators, whose points are the product of its parts, in the
order written (the last varies fastest):

    axes = { KEY = [V1, V2], KEY = {range = [0, 3]}, KEY = {logspace = [1e-5, 1e-3, 5]},
             KEY = {VALUE = {KEY2 = [...]}, VALUE2 = {}} }   # KEY2 only under KEY = VALUE
    zip = [{KEY = [...], KEY2 = [...]}]                       # paired: equal lengths
    blocks = [{...}, {...}]                                   # sub-blocks, concatenated
    seeds = 3 | {key = "trainer.seed", n = 3}                 # a `seed` axis 0..n-1

A definition is read in two steps. `define` checks it and counts its points without making
any (a product's count is the product of its parts' counts, a zip's its length, blocks' the
sum), as `Part`s that make their points only when asked; `made` refuses a sweep past
`MAX_POINTS` before making one, so a range of 10**9 values is an error, not a MemoryError.

A point is an ordered mapping KEY -> value; its overrides are `--KEY=VALUE` flags in compose's
own grammar (a value starting with `@` is a file node: `--KEY @ FILE`). Nothing here knows the
schema: `compose._runs.sweep` checks the keys and composes the points.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from compose.errors import ComposeError, closest

Axes = dict[str, Any]  # one point: KEY -> value, in the order the sweep gives them
Where = Callable[[tuple[str | int, ...]], str]  # a path in the sweep's table -> "FILE:LINE"

BLOCK_KEYS = ("axes", "zip", "blocks", "seeds")
GENERATORS = ("range", "linspace", "logspace")
DEFAULT_SEED_KEY = "seed"
# Every point is composed, validated and written before any runs (docs/15): at ~10 ms a
# point that is two minutes and 40,000 files, the most a grid should ask of one command; a
# larger search is an optimizer's (or several sweeps'), not one materialized product.
MAX_POINTS = 10_000
# linspace and logspace round what lies between their ends to this many significant digits:
# every decimal of 15 digits survives a double's round trip, so a step that is a short decimal
# gives short values (1.2e-05, not 1.2000000000000002e-05), and the ends are the bounds given.
SPACED_DIGITS = 15


@dataclass(frozen=True)
class Part:
    """Points counted, not made yet: how many, how the size limit's error names them, where
    they were written, and how to make them (asked only once the sweep's count is known)."""

    size: int
    label: str
    origin: str
    make: Callable[[], list[Axes]]
    factors: tuple[Part, ...] = ()  # a product's parts: what the size limit's error names


@dataclass(frozen=True)
class Definition:
    """A sweep file's block, checked and counted: its points' `Part`, and where each axis key
    was written."""

    part: Part
    origins: dict[str, str]  # axis key -> where it was written (FILE:LINE or the flag)


@dataclass(frozen=True)
class Expansion:
    """What a sweep definition gives: its points, and where each axis key was written."""

    points: list[Axes]
    origins: dict[str, str]  # axis key -> where it was written (FILE:LINE or the flag)


def define(block: Mapping[str, Any], where: Where) -> Definition:
    """A block's points, checked and counted but not made; a block with no parts is an error."""
    origins: dict[str, str] = {}
    factors = _factors(block, (), where, origins)
    if not factors:
        raise ComposeError("the sweep has no points", origin=where(()), hint="add an axis")
    return Definition(_product(factors, where(())), origins)


def expand(block: Mapping[str, Any], where: Where) -> Expansion:
    """The points of a block (see the module docstring); an empty sweep is an error."""
    definition = define(block, where)
    return Expansion(made([definition.part], where(())), definition.origins)


def made(parts: Sequence[Part], origin: str) -> list[Axes]:
    """The points of the product of `parts`, once their count is known to be 1 to
    `MAX_POINTS`: none is made before."""
    check_count(parts, origin)
    return product([part.make() for part in parts], origin)


def check_count(parts: Sequence[Part], origin: str) -> None:
    """The product of `parts` has points, and at most `MAX_POINTS`: else one error naming
    each factor and its count, at the largest factor's origin."""
    total = math.prod(part.size for part in parts)
    if total == 0:
        raise ComposeError("the sweep has no points", origin=origin, hint="add an axis")
    if total <= MAX_POINTS:
        return
    factors = [factor for part in parts for factor in (part.factors or (part,))]
    largest = max(factors, key=lambda factor: factor.size)
    raise ComposeError(
        f"the sweep makes {total:,} points, past the limit of {MAX_POINTS:,}: "
        + " x ".join(factor.label for factor in factors),
        origin=largest.origin,
        hint=f"sweep fewer values, or split it into sweeps of at most {MAX_POINTS:,} points "
        "(each its own --sweep-name)",
    )


def axis_part(key: str, spec: Any, origin: str) -> Part:
    """One axis's points, `{key: value}` each (a list of values or a generator), not made yet."""
    size, values = _values(key, spec, origin)
    return Part(size, f"{key} ({size:,})", origin, lambda: [{key: v} for v in values()])


def axis_values(key: str, spec: Any, origin: str) -> list[Any]:
    """An axis's values: a non-empty list as it is, or a `{range|linspace|logspace = [...]}`
    (at most `MAX_POINTS` of them)."""
    part = axis_part(key, spec, origin)
    return [point[key] for point in made([part], origin)]


def _factors(
    block: Any, path: tuple[str | int, ...], where: Where, origins: dict[str, str]
) -> list[Part]:
    """The parts of a block, whose product its points are."""
    if not isinstance(block, Mapping):
        raise ComposeError("a sweep block is a table", value=block, origin=where(path))
    factors: list[Part] = []
    for part, value in block.items():
        at = (*path, part)
        if part == "axes":
            factors.extend(_axes(value, at, where, origins))
        elif part == "zip":
            factors.extend(_zips(value, at, where, origins))
        elif part == "blocks":
            factors.append(_blocks(value, at, where, origins))
        elif part == "seeds":
            factors.append(_seeds(value, at, where, origins))
        else:
            hint = closest(str(part), BLOCK_KEYS, cutoff=0.6)
            raise ComposeError(
                f"not a part of a sweep block ({', '.join(BLOCK_KEYS)})",
                key=str(part),
                origin=where(at),
                hint=f"did you mean {hint}?" if hint else None,
            )
    return factors


def _product(factors: Sequence[Part], origin: str, label: str | None = None) -> Part:
    """The product of `factors` (no point for none); a factor without points makes the others
    unmade, however many they count."""
    size = math.prod(factor.size for factor in factors) if factors else 0
    if label is None:
        label = " x ".join(factor.label for factor in factors)

    def make() -> list[Axes]:
        return product([factor.make() for factor in factors], origin) if size else []

    return Part(size, label, origin, make, tuple(factors))


def _concatenated(parts: Sequence[Part], label: str, origin: str) -> Part:
    size = sum(part.size for part in parts)
    return Part(size, f"{label} ({size:,})", origin, lambda: [p for x in parts for p in x.make()])


def _axes(
    table: Any, path: tuple[str | int, ...], where: Where, origins: dict[str, str]
) -> list[Part]:
    if not isinstance(table, Mapping):
        raise ComposeError("axes is a table of KEY = values", value=table, origin=where(path))
    return [_axis(key, spec, (*path, key), where, origins) for key, spec in table.items()]


def _axis(
    key: str, spec: Any, path: tuple[str | int, ...], where: Where, origins: dict[str, str]
) -> Part:
    """One axis: its values, or (a table of VALUE -> sub-axes) each value with its own axes."""
    origins.setdefault(key, where(path))
    if isinstance(spec, Mapping) and not _is_generator(spec):
        return _conditional(key, spec, path, where, origins)
    return axis_part(key, spec, where(path))


def _conditional(
    key: str,
    table: Mapping[str, Any],
    path: tuple[str | int, ...],
    where: Where,
    origins: dict[str, str],
) -> Part:
    """`KEY = {VALUE = {KEY2 = [...]}, ...}`: each VALUE of KEY, with the axes that exist only
    under it (a learning rate range per optimizer)."""
    if not table:
        raise ComposeError("an axis without values", key=key, origin=where(path))
    parts: list[Part] = []
    for value, below in table.items():
        inner = (*path, value)
        if not isinstance(below, Mapping):
            raise ComposeError(
                f"under the value {value!r}, a table of the axes that exist only there "
                "({} for none)",
                key=key,
                value=below,
                origin=where(inner),
            )
        alone = _fixed(key, value, where(inner))
        parts.append(_product([alone, *_axes(below, inner, where, origins)], where(inner)))
    return _concatenated(parts, key, where(path))


def _fixed(key: str, value: Any, origin: str) -> Part:
    return Part(1, key, origin, lambda: [{key: value}])


def _is_generator(spec: Mapping[str, Any]) -> bool:
    return len(spec) == 1 and next(iter(spec)) in GENERATORS


def _values(key: str, spec: Any, origin: str) -> tuple[int, Callable[[], list[Any]]]:
    """An axis's count of values, and how to make them (a list, or a generator's)."""
    if isinstance(spec, Mapping) and _is_generator(spec):
        kind, bounds = next(iter(spec.items()))
        size, values = _generated(key, kind, bounds, origin)
    elif isinstance(spec, (list, tuple)):
        listed = list(spec)
        size, values = len(listed), lambda: listed
    else:
        raise ComposeError(
            "an axis is a list of values or {range|linspace|logspace = [...]}",
            key=key,
            value=spec,
            origin=origin,
            hint=f"write {key} = [{json.dumps(spec, default=str)}] for a single value",
        )
    if not size:
        raise ComposeError("an axis without values", key=key, value=spec, origin=origin)
    return size, values


def _generated(
    key: str, kind: str, bounds: Any, origin: str
) -> tuple[int, Callable[[], list[Any]]]:
    numbers = isinstance(bounds, list) and all(_is_number(b) for b in bounds)
    if kind == "range":
        if not (numbers and 2 <= len(bounds) <= 3 and all(isinstance(b, int) for b in bounds)):
            raise _bad_generator(
                key, kind, bounds, origin, "[start, stop] or [start, stop, step] integers"
            )
        start, stop, step = (*bounds, 1)[:3]
        if step == 0:
            raise _bad_generator(key, kind, bounds, origin, "a step other than 0")
        size = max(0, -((start - stop) // step))  # len(range(...)), which fails past 2**63
        return size, lambda: list(range(start, stop, step))
    if not (numbers and len(bounds) == 3 and isinstance(bounds[2], int) and bounds[2] >= 1):
        raise _bad_generator(key, kind, bounds, origin, "[low, high, count], count an integer >= 1")
    low, high, count = _finite(bounds[0]), _finite(bounds[1]), bounds[2]
    if low is None or high is None:
        raise _bad_generator(key, kind, bounds, origin, "finite numbers for low and high")
    if kind == "logspace" and (low <= 0 or high <= 0):
        raise _bad_generator(key, kind, bounds, origin, "low and high above 0")
    if count > 1 and low == high:
        raise _bad_generator(key, kind, bounds, origin, "a low and a high that differ")

    def values() -> list[Any]:
        made = _logspace(low, high, count) if kind == "logspace" else _linspace(low, high, count)
        if len(set(made)) < len(made):
            raise ComposeError(
                f"{kind} gives a value twice once rounded to {SPACED_DIGITS} significant "
                "digits: its span is too narrow for its count",
                key=key,
                value=bounds,
                origin=origin,
            )
        return made

    return count, values


def _finite(number: float) -> float | None:
    """`number` as a float, if it is a finite one (an integer past a double's range is not)."""
    try:
        value = float(number)
    except OverflowError:
        return None
    return value if math.isfinite(value) else None


def _linspace(low: float, high: float, count: int) -> list[float]:
    """`count` evenly spaced values from `low` to `high`, the ends as given. Each is
    `low * (1 - t) + high * t`, which never overflows between two finite ends (where
    `high - low` may: -1e308 to 1e308), rounded to `SPACED_DIGITS`."""
    if count == 1:
        return [low]
    between = [
        _spaced(low * (1 - i / (count - 1)) + high * (i / (count - 1))) for i in range(1, count - 1)
    ]
    return [low, *between, high]


def _logspace(low: float, high: float, count: int) -> list[float]:
    """`count` values from `low` to `high` evenly spaced in their logarithm, the ends as given."""
    exponents = _linspace(math.log10(low), math.log10(high), count)
    return [low, *(_spaced(_power(e, high)) for e in exponents[1:-1]), high][:count]


def _power(exponent: float, bound: float) -> float:
    try:
        return float(10.0**exponent)
    except OverflowError:  # past the largest double by a rounding of the exponent
        return bound


def _spaced(value: float) -> float:
    """`value` to `SPACED_DIGITS` significant digits (kept whole where that overflows)."""
    rounded = float(f"{value:.{SPACED_DIGITS}g}")
    return rounded if math.isfinite(rounded) else value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _bad_generator(key: str, kind: str, bounds: Any, origin: str, needs: str) -> ComposeError:
    return ComposeError(f"{kind} takes {needs}", key=key, value=bounds, origin=origin)


def _zips(
    groups: Any, path: tuple[str | int, ...], where: Where, origins: dict[str, str]
) -> list[Part]:
    if not isinstance(groups, list):
        raise ComposeError(
            "zip is a list of tables ([[zip]]), each of paired axes",
            value=groups,
            origin=where(path),
        )
    return [_zip(group, (*path, i), where, origins) for i, group in enumerate(groups)]


def _zip(group: Any, path: tuple[str | int, ...], where: Where, origins: dict[str, str]) -> Part:
    """Paired axes: the i-th point takes the i-th value of each."""
    if not isinstance(group, Mapping) or not group:
        raise ComposeError("a zip is a table of two or more axes", value=group, origin=where(path))
    columns: dict[str, Callable[[], list[Any]]] = {}
    sizes: dict[str, int] = {}
    for key, spec in group.items():
        origins.setdefault(key, where((*path, key)))
        sizes[key], columns[key] = _values(key, spec, where((*path, key)))
    if len(set(sizes.values())) > 1:
        shown = ", ".join(f"{key} ({size:,})" for key, size in sizes.items())
        raise ComposeError(
            f"zipped axes need the same number of values: {shown}",
            origin=where(path),
            hint="give each axis of a zip as many values as the others",
        )
    size = next(iter(sizes.values()))

    def make() -> list[Axes]:
        keys = list(columns)
        rows = zip(*(values() for values in columns.values()), strict=True)
        return [dict(zip(keys, row, strict=True)) for row in rows]

    return Part(size, f"zip of {', '.join(columns)} ({size:,})", where(path), make)


def _blocks(
    blocks: Any, path: tuple[str | int, ...], where: Where, origins: dict[str, str]
) -> Part:
    """Sub-blocks, one after the other (each its own product)."""
    if not isinstance(blocks, list):
        raise ComposeError("blocks is a list of tables", value=blocks, origin=where(path))
    parts = [
        _product(_factors(block, (*path, index), where, origins), where((*path, index)))
        for index, block in enumerate(blocks)
    ]
    return _concatenated(parts, "blocks", where(path))


def _seeds(spec: Any, path: tuple[str | int, ...], where: Where, origins: dict[str, str]) -> Part:
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
    return Part(count, f"{key} ({count:,})", where(path), lambda: [{key: s} for s in range(count)])


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
