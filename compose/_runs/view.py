"""`compose status DIR`: how a sweep's points stand, from the files alone.

DIR is a sweep's directory (its sweep.json and manifest.jsonl) or one point's (its job.json).
The table is the sweep's own (index, name, axis values, as the manifest keeps them: secrets
masked), with each point's state (`compose._runs.status.point_state`), exit code and log, then
a line per state. Nothing is written, nothing is asked of any engine: on any machine that sees
the files, it says what `--sweep-resume` would find.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from compose._runs.define import cli_text
from compose._runs.jobs import JOB_FILE, LOG_FILE, UNKNOWN
from compose._runs.records import MANIFEST_FILE, read_manifest
from compose._runs.status import NOT_SUBMITTED, PointState, point_state
from compose._runs.sweep import NAME_CHARS, SWEEP_FILE
from compose.errors import ComposeError, counted, printable

_POINT_NAME = re.compile(f"[0-9a-f]{{{NAME_CHARS}}}")
# The order states are summed up in: from not begun to done, then what needs a look
_ORDER = (NOT_SUBMITTED, "submitted", "running", "finished", "failed", UNKNOWN)


def _point_name(line: Mapping[str, Any], where: Path) -> str:
    """A manifest line's point: a directory of the sweep's own, by its name (12 hex digits of
    its fingerprint); a manifest that names another place (`../../elsewhere`, an absolute
    `directory`) is not followed, and is one error naming it."""
    name = line.get("name")
    if not isinstance(name, str) or not _POINT_NAME.fullmatch(name):
        raise ComposeError(
            "is no point's name (12 hex digits of its fingerprint)",
            key="name",
            value=name,
            origin=str(where / MANIFEST_FILE),
        )
    return name


def status_text(directory: str) -> str:
    """The status view of the sweep or point in `directory`; bad input is a `ComposeError`."""
    where = Path(directory)
    if (where / SWEEP_FILE).is_file():
        lines = read_manifest(where)  # each line names its point, or one error names it
        head = f"sweep {where.resolve().name}: {counted(len(lines), 'point')} in {_shown(where)}"
        points = [(line, where / _point_name(line, where)) for line in lines]
    elif (where / JOB_FILE).is_file():
        head = f"point {where.resolve().name} in {_shown(where)}"
        points = [({"name": where.resolve().name}, where)]
    else:
        raise ComposeError(
            f"is neither a sweep's directory ({SWEEP_FILE}, {MANIFEST_FILE}) nor a point's "
            f"({JOB_FILE})",
            origin=directory,
        )
    keys = list(dict.fromkeys(key for line, _ in points for key in _axes(line)))
    rows = [["#", "name", *keys, "state", "exit", "log"]]
    states: list[PointState] = []
    for line, point in points:
        state = point_state(point)
        states.append(state)
        axes = _axes(line)
        rows.append(
            [
                str(line.get("index", "")),
                str(line["name"]),
                *(cli_text(axes[key]) if key in axes else "" for key in keys),
                f"{state.state} ({state.note})" if state.note else state.state,
                "" if state.exit_code is None else str(state.exit_code),
                _shown(point / LOG_FILE) if (point / LOG_FILE).is_file() else "-",
            ]
        )
    shown = [[printable(cell) for cell in row] for row in rows]  # a name may hold a newline
    return "\n".join([printable(head), *table_lines(shown), *_summary(states)]) + "\n"


def table_lines(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows of cells as lines, each column as wide as its widest cell."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def _axes(line: Mapping[str, Any]) -> Mapping[str, Any]:
    axes = line.get("axes")
    return axes if isinstance(axes, dict) else {}


def _summary(states: Sequence[PointState]) -> list[str]:
    counts = {state: sum(1 for found in states if found.state == state) for state in _ORDER}
    return [f"{count} {state}" for state, count in counts.items() if count]


def _shown(path: Path) -> str:
    try:
        return os.path.relpath(path) if path.resolve().is_relative_to(Path.cwd()) else str(path)
    except (OSError, ValueError):
        return str(path)
