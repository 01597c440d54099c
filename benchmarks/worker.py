"""Runs cells in a fresh process: `python benchmarks/worker.py SPEC_JSON`, one JSON line per cell.

A cell is one system on one workload: set-up (untimed), a warm-up call (whose result is kept
for the agreement check), then repeated timed calls, their number chosen so the cell takes
about `budget` seconds. A warm-up slower than `budget` counts as one of three runs; one slower
than `single_cutoff` is the only one. With
`memory`, one more call under tracemalloc gives the peak; with `profile`, one under cProfile.
"""

from __future__ import annotations

import cProfile
import gc
import hashlib
import importlib
import io
import json
import pstats
import signal
import statistics
import sys
import time
import traceback
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import peers
from workloads import SCHEMA_MODULE, Paths, Workload

PROFILE_LINES = 40
MIN_PAIRS = 7  # rounds of an interleaved pair, however long its calls (see `run_pair`)


class CellTimeout(Exception):
    """The system's set-up and first call took longer than the cell's timeout."""


def _expire(signum: int, frame: Any) -> None:
    raise CellTimeout


def first_call(run_prepare: Any, timeout: float) -> tuple[peers.Run, float, float, Any]:
    """Set-up and the warm-up call, under a timer (the report's `timeout`)."""
    signal.signal(signal.SIGALRM, _expire)
    signal.setitimer(signal.ITIMER_REAL, timeout)
    try:
        start = time.perf_counter()
        run = run_prepare()
        setup = time.perf_counter() - start
        gc.collect()
        first, result = timed(run)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    return run, setup, first, result


def load_schema(directory: str) -> Any:
    if directory not in sys.path:
        sys.path.insert(0, directory)
    return importlib.import_module(SCHEMA_MODULE).BenchConfig


def make_job(cell: dict[str, Any]) -> peers.Job:
    workload = Workload(**cell["workload"])
    paths = Paths(Path(cell["root"]))
    schema = load_schema(cell["schema_dir"]) if workload.typed else None
    overrides = [(key, text) for key, text in json.loads(paths.overrides_file.read_text())]
    leaves = json.loads(paths.leaves_file.read_text())
    return peers.Job(workload, paths, schema, overrides, leaves)


def timed(run: peers.Run) -> tuple[float, Any]:
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def repeat(run: peers.Run, first: float, cell: dict[str, Any]) -> list[float]:
    """Garbage is collected before the warm-up and before the repetitions, not between them."""
    gc.collect()
    if cell["quick"]:
        return [timed(run)[0]]
    if first >= cell["single_cutoff"]:
        return [first]
    if first >= cell["budget"]:  # slow cells: the warm-up's cold costs are noise here
        return [first, *(timed(run)[0] for _ in range(2))]
    reps = max(1, min(cell["max_reps"], round(cell["budget"] / max(first, 1e-9))))
    return [timed(run)[0] for _ in range(reps)]


def canonical(result: Any) -> str:
    if hasattr(result, "model_dump"):
        result = result.model_dump(mode="json")
    return json.dumps(result, sort_keys=True, separators=(",", ":"))


def peak_memory(run: peers.Run) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def profile_text(run: peers.Run, title: str) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    run()
    profiler.disable()
    out = io.StringIO()
    out.write(f"{title}\n\n")
    for order in ("cumulative", "tottime"):
        out.write(f"=== top {PROFILE_LINES} by {order} ===\n")
        pstats.Stats(profiler, stream=out).sort_stats(order).print_stats(PROFILE_LINES)
    return out.getvalue()


def run_cell(cell: dict[str, Any]) -> dict[str, Any]:
    job = make_job(cell)
    system = peers.system(cell["system"])
    try:
        run, setup, first, result = first_call(lambda: system.prepare(job), cell["timeout"])
    except CellTimeout:
        return {"timeout": True}
    record: dict[str, Any] = {"setup_s": setup, "first_s": first}
    times = repeat(run, first, cell)
    text = canonical(result)
    del result
    Path(cell["dump"]).write_text(text)
    record.update(
        times=times,
        median_s=statistics.median(times),
        digest=hashlib.sha256(text.encode()).hexdigest(),
        unresolved=text.count("${"),
    )
    if cell["memory"]:
        record["peak_bytes"] = peak_memory(run)
    if cell.get("profile"):
        title = f"cProfile of {system.name} on {job.workload.name}"
        Path(cell["profile"]).write_text(profile_text(run, title))
    return record


def run_pair(cell: dict[str, Any]) -> dict[str, Any]:
    """Two cells called in turn (A B A B ...): their ratio survives a machine whose load drifts.

    Both first calls are warm-ups. The pairs then fill about four times the budget, counted from
    a second, warm call of each side (the first carries cold costs: taken as the measure, it left
    cells of 50 ms with seven pairs, whose median read 1.31x where 40 pairs read 1.02x). They are
    at least seven: on a shared machine a single call of the largest workloads varies by a
    third, and the median of three such calls does not hold a 1.3x ratio still.
    """
    runs, firsts = [], []
    for side in cell["pair"]:
        job = make_job(side)
        prepare = peers.system(side["system"]).prepare
        try:
            run, _, first, _ = first_call(lambda p=prepare, j=job: p(j), cell["timeout"])
        except CellTimeout:
            return {"timeout": True}
        runs.append(run)
        firsts.append(first)
    seconds = sum(firsts)  # of one round
    if not cell["quick"] and seconds < cell["budget"]:  # slower cells get seven pairs anyway
        seconds = sum(timed(run)[0] for run in runs)  # warm: the first calls carried cold costs
    times: list[list[float]] = [[] for _ in runs]
    pairs = round(4 * cell["budget"] / seconds)
    pairs = 1 if cell["quick"] else max(MIN_PAIRS, min(cell["max_reps"], pairs))
    gc.collect()
    for _ in range(pairs):
        for run, found in zip(runs, times, strict=True):
            found.append(timed(run)[0])
    return {"a": times[0], "b": times[1]}


def main() -> None:
    spec = json.loads(sys.argv[1])
    warnings.simplefilter("ignore")
    for cell in spec["cells"]:
        try:
            record = run_pair(cell) if "pair" in cell else run_cell(cell)
        except Exception as error:  # a crashing adapter is a result to report
            record = {
                "error": f"{type(error).__name__}: {error}"[:800],
                "traceback": traceback.format_exc()[-3000:],
            }
        record["id"] = cell["id"]
        print(json.dumps(record), flush=True)


if __name__ == "__main__":
    main()
