"""Sweep mode of an entrypoint: `PROG ARGV... --sweep @ FILE --sweep.KEY V1 V2 ...`.

The sweep's own flags are taken out of the command line; the rest is the base argv of every
point. Then: expand and validate every point, open the executor (so that one not installed
is an error before anything is written), write the records, submit (unless `--dry-run`), and
say what was done as a table of points. `cli()` prints it and exits 0; any bad input is one
`ComposeError`, raised before anything is written or submitted.

    --sweep @ FILE          a sweep file (several: their points' product)
    --sweep.KEY V1 V2 ...   a product axis; one '{range = [0, 3]}' token is a generator
    --sweep-name NAME       the sweep's directory name (default: the file's stem, or "sweep";
                            a Hydra app's -m: the time it started, a new directory each time)
    --sweep-dir DIR         where it goes (default: runs)
    --sweep-output KEY      the key set to each point's own directory (`output_dir`)
    --sweep-executor NAME   none, local, submitit, sbatch, ray (default: none)
    --sweep-resume          run again only the points that failed or never started
    --dry-run               write the records, submit nothing (not passed to the points)
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from compose._api import HydraCall
from compose._input.argv import FileItem, HelpItem, ValueItem, item_spans
from compose._input.options import Options
from compose._runs.define import cli_text
from compose._runs.masked import axes_masker
from compose._runs.records import (
    DirectoryTaken,
    claim_new,
    open_sweep_executor,
    submit_sweep,
    sweep_lock,
    write_records,
)
from compose._runs.status import PointState, skipped_lines
from compose._runs.sweep import (
    CONTROL_FLAGS,
    Progress,
    Sweep,
    control_text,
    hydra_sweep,
    sweep_with,
)
from compose._runs.view import table_lines
from compose._syntax import SWEEP_DRY_RUN, SWEEP_FLAG, flag_name, is_sweep_flag
from compose._toml import TomlSyntaxError, TooDeep
from compose._toml import loads as toml_loads
from compose._warn import held
from compose.errors import ArgvError, counted, integer_too_long, nested_too_deep, printable

SWEEP = "sweep"
DRY_RUN = SWEEP_DRY_RUN
_ONE_VALUE = {flag: control for control, flag in CONTROL_FLAGS.items()}
RESUME = "--sweep-resume"
_SWITCHES = {RESUME, DRY_RUN}


def asks_sweep(tokens: Sequence[str]) -> bool:
    """Whether a command line holds a flag of sweep mode (`is_sweep_flag`)."""
    return any(map(is_sweep_flag, tokens))


class _SweepArgs:
    """A command line, parted: the base argv of every point, and the sweep's own flags."""

    def __init__(self, tokens: list[str]) -> None:
        self.base: list[str] = []
        self.files: list[str] = []
        self.axes: dict[str, Any] = {}
        self.controls: dict[str, Any] = {}
        self.origins: dict[str, str] = {}  # control -> the flag that gave it
        self.switches: set[str] = set()
        self.help = False
        for item, given in item_spans(tokens):
            self.help = self.help or isinstance(item, HelpItem)
            if not self._take(item):
                self.base.extend(given)

    def _take(self, item: Any) -> bool:
        if isinstance(item, FileItem) and item.section == SWEEP:
            self.files.append(item.path)
            return True
        if not isinstance(item, ValueItem):
            return False
        flag = flag_name(item.shown)
        if flag.startswith(SWEEP_FLAG + "."):
            self.axes[item.key[len(SWEEP) + 1 :]] = _axis(item)
        elif flag in _ONE_VALUE:
            if len(item.tokens) != 1:
                raise ArgvError("takes one value", key=item.shown, value=" ".join(item.tokens))
            control = _ONE_VALUE[flag]
            self.controls[control] = control_text(item.tokens[0], item.shown, None)
            self.origins[control] = item.shown
        elif flag in _SWITCHES and not item.tokens:
            self.switches.add(flag)
        elif is_sweep_flag(flag):
            raise ArgvError("takes no value", key=item.shown, value=" ".join(item.tokens))
        else:
            return False
        return True


def _axis(item: ValueItem) -> Any:
    """An axis's values as typed; one token `{range = [0, 3]}` is a generator, as in a file."""
    if not item.tokens:
        raise ArgvError("an axis needs values: --sweep.KEY V1 V2 ...", key=item.shown)
    if len(item.tokens) == 1 and item.tokens[0].lstrip().startswith("{"):
        try:
            return toml_loads(f"spec = {item.tokens[0]}")["spec"]
        except (TomlSyntaxError, TooDeep, RecursionError, ValueError) as error:
            reason = (
                error.message
                if isinstance(error, TomlSyntaxError)
                else integer_too_long(error)
                if isinstance(error, ValueError)
                else nested_too_deep("tables or lists")
            )
            raise ArgvError(
                f"is not a TOML inline table: {reason}", key=item.shown, value=item.tokens[0]
            ) from None
    return list(item.tokens)


def help_argv(tokens: Sequence[str]) -> list[str] | None:
    """The base command line, without the sweep's flags, when `tokens` ask for help: `--help`
    beside `--sweep...` is the help of what every point composes (None: no help asked)."""
    args = _SweepArgs(list(tokens))
    return args.base if args.help else None


def run_sweep(
    schema: type[BaseModel],
    tokens: Sequence[str],
    prog: str,
    knobs: Options,
    *,
    progress: Progress | None = None,
) -> str:
    """Sweep mode, start to end: the text to print (see the module docstring). `progress` is
    told of each point composed, then of each written."""
    args = _SweepArgs(list(tokens))
    made = sweep_with(
        schema,
        args.base,
        knobs,
        args.files,
        args.axes,
        prog,
        args.controls,
        given_origins=args.origins,
        progress=progress,
    )
    return run_made(schema, made, args.switches, progress)


def run_hydra_sweep(
    schema: type[BaseModel],
    call: HydraCall,
    controls: Sequence[str],
    prog: str,
    knobs: Options,
    *,
    progress: Progress | None = None,
) -> str:
    """Hydra's multirun as sweep mode (`compose._runs.sweep.hydra_sweep`), start to end, with
    the sweep controls given (`--sweep-dir DIR`, `--sweep-executor local`, `--dry-run`...):
    the text to print."""
    args = _SweepArgs(list(controls))
    if RESUME in args.switches and "name" not in args.controls:
        raise ArgvError(
            "resumes a sweep by its name, and without --sweep-name each -m is a new sweep (its "
            "directory named by the time it starts): there is none to resume",
            key=RESUME,
            hint="name the sweep to resume: --sweep-name NAME, as its run printed it (sweep "
            "NAME: N points in ...)",
        )
    for turn in range(CLAIM_TRIES):  # sweeps started in the same second each take their own name
        with held() if turn else contextlib.nullcontext():  # the first turn gave its warnings
            made = hydra_sweep(
                schema,
                call,
                knobs,
                prog,
                args.controls,
                given_origins=args.origins,
                progress=progress,
            )
        try:
            return run_made(schema, made, args.switches, progress)
        except DirectoryTaken as taken:  # nothing was written: named again, its points made
            last = taken  # again (each holds its directory), after the names now taken
    raise last


CLAIM_TRIES = 20  # sweeps of one second named in turn: past that, the last is refused


def run_made(
    schema: type[BaseModel], made: Sweep[Any], switches: set[str], progress: Progress | None
) -> str:
    """A sweep whose points are made: its executor opened, its records written, its points
    submitted (unless `--dry-run`); the table of points to print."""
    executor = open_sweep_executor(made)
    dry = DRY_RUN in switches
    if not dry:
        executor.ready()  # a cluster that cannot take the jobs: nothing written, nothing submitted
    if made.fresh:  # named by its start: its directory is its own, or nothing is written
        claim_new(made.directory)
    with sweep_lock(made.directory):  # one sweep writes and submits here at a time
        resume = RESUME in switches
        written = write_records(made, resume=resume, progress=progress)
        points = written.todo
        job_ids = [""] * len(points) if dry else submit_sweep(made, points, executor)
    ids = dict(zip((p.name for p in points), job_ids, strict=True))
    return points_table(schema, made, ids, dry, written.skipped)


def points_table(
    schema: type[BaseModel],
    made: Sweep[Any],
    job_ids: Mapping[str, str],
    dry: bool,
    skipped: Mapping[str, PointState],
) -> str:
    """The table of points: index, name, axis values, job id (`-` for none), or the state of
    a point a resume left alone; then a line per such state. What it shows is masked (a swept
    secret) and printable (a value's control characters escaped, as errors show them)."""
    keys = list(dict.fromkeys(key for point in made.points for key in point.axes))
    header = ["#", "name", *map(printable, keys), "job"]
    rows = [header]
    masked = axes_masker(schema, made.names)
    for point in made.points:
        left = skipped.get(point.name)
        job = left.state if left is not None else job_ids.get(point.name) or "-"
        shown = masked(point.axes)
        values = [printable(cli_text(shown[key])) if key in shown else "" for key in keys]
        rows.append([str(point.index), point.name, *values, printable(job)])
    lines = table_lines(rows)
    state = "dry run: records written, nothing submitted" if dry else f"executor {made.executor}"
    where = printable(_shown_dir(made.directory))
    head = (
        f"sweep {made.name}: {counted(len(made.points), 'point')} in {where} ({printable(state)})"
    )
    return "\n".join([head, *lines, *skipped_lines(skipped)]) + "\n"


def _shown_dir(directory: Path) -> str:
    try:
        return str(directory.relative_to(Path.cwd()))
    except ValueError:
        return str(directory)
