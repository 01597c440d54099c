"""Multirun as Hydra's basic sweeper runs it, as a pure function: the parsed overrides -> the
jobs, each a list of `KEY=VALUE` override texts, in Hydra's order.

Each override that is not Hydra's own, in command-line order, is an axis: a sweep's values, else
its one value (a key given twice keeps its first place and takes the later values). The jobs
are the product of the axes, the last varying fastest. Outside multirun a sweep is refused.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable

from compose._input.hydra.grammar import (
    ChoiceSweep,
    IntervalSweep,
    Override,
    as_text,
    sweep_values,
)
from compose.errors import ArgvError, ComposeError, gather

MAX_JOBS = 100_000  # jobs one multirun may expand to: counted before any is made


def check_sweeps(overrides: list[Override], multirun: bool) -> None:
    """A sweep needs multirun; in multirun, Hydra's own settings and intervals cannot sweep."""
    problems: list[ComposeError] = []
    for ov in overrides:
        if not ov.is_sweep:
            continue
        if multirun and ov.is_hydra:
            problems.append(ArgvError("Hydra's own settings cannot be swept", origin=ov.text))
        elif multirun and isinstance(ov.value, IntervalSweep):
            problems.append(
                ArgvError(
                    "interval() is a range of real numbers, not a list of values to run",
                    origin=ov.text,
                    hint="list the values, or use range(start, stop, step)",
                )
            )
        elif multirun:
            continue
        elif isinstance(ov.value, ChoiceSweep) and ov.value.simple:
            problems.append(
                ArgvError(
                    "a comma list is a sweep: it needs multirun",
                    origin=ov.text,
                    hint="a list is [a,b]; a text with a comma is quoted: 'a,b'",
                )
            )
        else:
            problems.append(ArgvError("a sweep needs multirun", origin=ov.text))
    if problems:
        raise gather(problems)


def jobs(overrides: list[Override], options: Callable[[str], list[str]]) -> list[list[str]]:
    """Each job's overrides, in job order; `options(group)` lists a group's (for `glob()`)."""
    axes: dict[str, list[str]] = {}
    swept: dict[str, str] = {}  # each swept key's override, as typed: what a refusal names
    for ov in overrides:
        if ov.is_hydra:
            continue
        key = ov.key_element
        if ov.is_sweep:
            values = sweep_values(ov.value, functools.partial(options, ov.key), ov.text)
            axes[key] = [f"{key}={as_text(value)}" for value in values]  # a key again: its
            swept[key] = ov.text
        else:  # first place, the later values (a dict keeps a key where it was first set)
            axes[key] = [f"{key}={as_text(ov.value)}" if ov.has_value else key]
    count = math.prod(len(values) for values in axes.values())
    if count > MAX_JOBS:
        sizes = " x ".join(f"{swept[key]} ({len(axes[key]):,})" for key in swept)
        raise ArgvError(
            f"a multirun of {count:,} jobs: more than {MAX_JOBS:,}",
            key="--multirun",
            hint=f"its sweeps: {sizes}; sweep fewer values",
        )
    return [list(job) for job in itertools.product(*axes.values())]
