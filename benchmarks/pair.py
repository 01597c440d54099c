"""compose against the floor on a few workloads, in this process: the loop for engine work.

    .venv/bin/python benchmarks/pair.py plain-n100-m100 typed-n10-m1000-o200 [--profile]

Same files and adapters as `run.py`; the two systems run in turn (A B A B ...) so load from other
work cancels out of the ratio. Prints medians, compose / floor and peak-memory ratios. The full
suite (`run.py`) is what the report and the goals come from; this is for quick checks.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import re
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import peers
from worker import load_schema, peak_memory
from workloads import Paths, Workload, write_schema, write_workload

NAME = re.compile(r"(plain|typed)-n(\d+)-m(\d+)(?:-k(\d+))?(?:-o(\d+))?$")
WORKDIR = Path(tempfile.gettempdir()) / "compose-bench-pair"


def workload_of(name: str) -> Workload:
    found = NAME.match(name)
    if found is None:
        raise SystemExit(f"not a workload name: {name} (e.g. plain-n10-m1000-k100)")
    kind, n, m, k, o = found.groups()
    return Workload(int(n), int(m), kind == "typed", int(k or 0), int(o or 0))


def job_of(w: Workload) -> peers.Job:
    write_schema(WORKDIR)
    paths = Paths(WORKDIR / w.name)
    write_workload(w, paths)
    schema = load_schema(str(WORKDIR)) if w.typed else None
    overrides = [(key, text) for key, text in json.loads(paths.overrides_file.read_text())]
    return peers.Job(w, paths, schema, overrides, json.loads(paths.leaves_file.read_text()))


def timed(run: peers.Run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def measure(name: str, budget: float) -> None:
    job = job_of(workload_of(name))
    floor, compose = peers.prepare_floor(job), peers.prepare_compose(job)
    first = timed(floor) + timed(compose)  # warm-ups
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(max(5, min(200, round(budget / first)))):
        times[0].append(timed(floor))
        times[1].append(timed(compose))
    a, b = (statistics.median(found) for found in times)
    memory = peak_memory(compose) / max(1, peak_memory(floor))
    print(
        f"{name:24} floor {a * 1e3:9.3f} ms  compose {b * 1e3:9.3f} ms  "
        f"ratio {b / a:5.2f}x  memory {memory:4.2f}x  ({len(times[0])} pairs)"
    )


def profile(name: str) -> None:
    run = peers.prepare_compose(job_of(workload_of(name)))
    run()
    profiler = cProfile.Profile()
    profiler.runcall(run)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workloads", nargs="+")
    parser.add_argument("--budget", type=float, default=4.0, help="seconds per workload")
    parser.add_argument("--profile", action="store_true", help="cProfile compose instead")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    sys.setrecursionlimit(10_000)
    for name in args.workloads:
        profile(name) if args.profile else measure(name, args.budget)


if __name__ == "__main__":
    main()
