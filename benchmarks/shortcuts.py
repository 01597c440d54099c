"""What each shortcut saves: compose with every shortcut on, with each one off alone, and with
all of them off (the reference code), on the benchmark's workloads and on `rl --help`.

    .venv/bin/python benchmarks/shortcuts.py                  # every workload, ~15 minutes
    .venv/bin/python benchmarks/shortcuts.py --quick          # tiny sizes: only checks it runs
    .venv/bin/python benchmarks/shortcuts.py plain-n10-m1000 rl help   # some of them

A shortcut is turned off alone by setting `SHORTCUTS = False` in the one module that holds it
(each module imports the switch of `compose._shortcuts` once; `SHORTCUTS_BY_NAME` below names
them, and this script refuses to run if a module that reads the switch is missing there).

In-process workloads (run.py's grid without its million-leaf cell, its interpolation and CLI
workloads, the README's `rl` job): one fresh process per workload (so that none warms another's
caches) prepares compose's call as run.py does (`peers.prepare_compose`), checks that every
configuration gives the same result, then calls it in rounds: each configuration once a round,
in an order that turns every round, so that load from other work hits them alike. A shortcut's
gain is the median over rounds of t(it off) / t(all on) - 1, within the round.

The reference path is also timed as users get it, `COMPOSE_REFERENCE=1` in the environment: a
process with the variable and one without, in turn, three times each; that process checks that
every module read the switch as off and gives the same result.

Cold start (`help`): `rl --help`, one whole process per configuration, its instructions counted
by callgrind where valgrind is installed (wall-clock time of one cold process moves by more than
these shortcuts save), else the median CPU time over rounds.

Writes `results/shortcuts.md` (the table docs/08 quotes) and `results/shortcuts.json`.
"""

from __future__ import annotations

import argparse
import functools
import gc
import importlib
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"

# Each shortcut, by the module that holds it (docs/08 says what each skips).
SHORTCUTS_BY_NAME = {
    "quick-references": "compose._interp.evaluate",
    "resolve-below": "compose._merge.composed",
    "none-walk": "compose._api",
    # one module holds both: turning either off turns off the other
    "native-toml": "compose._toml",
    "toml-depth-count": "compose._toml",
    # one module holds these three: turning one off turns off the others
    "libyaml": "compose._input.yaml",
    "plain-yaml": "compose._input.yaml",
    "yaml-resolve": "compose._input.yaml",
    "relative-path": "compose._input.search",
    "hydra-own": "compose._input.hydra.tree",
    "plain-merge": "compose._merge.tables",
    "kept-walks": "compose._schema.walk",
    # one module holds both: turning either off turns off the other
    "tags-by-name": "compose._merge.flags",
    "flag-table": "compose._merge.flags",
    "prepare-fields": "compose._schema.prepare",
    "rename-fields": "compose._merge.renames",
    "interpolated-defaults": "compose._merge.defaults",
    # one module holds both: turning either off turns off the other
    "untyped-annotation": "compose._merge.typed",
    "untyped-merge": "compose._merge.typed",
    "docstring-index": "compose._schema.docindex",
    "bare-help": "compose._cli.entry",
}
# Those only `--help` reaches: measured on `rl --help`, not in process
COLD = ("docstring-index", "bare-help")
WARM = tuple(name for name in SHORTCUTS_BY_NAME if name not in COLD)

WORKLOADS = (
    *(
        f"{kind}-n{n}-m{m}"
        for kind in ("plain", "typed")
        for n in (1, 10, 100)
        for m in (100, 1000, 10_000)
        if (n, m) != (100, 10_000)
    ),
    *(f"plain-n{n}-m1000-k{k}" for n in (1, 10) for k in (100, 1000)),
    "plain-n10-m1000-o200",
    "typed-n10-m1000-o200",
    "rl",
)
QUICK = ("plain-n3-m100", "typed-n3-m100", "plain-n3-m100-k20", "typed-n3-m100-o20", "rl")
WORKDIR = Path(tempfile.gettempdir()) / "compose-bench-shortcuts"


def check_the_list() -> None:
    """Every module that reads the switch holds a shortcut named here, and only those."""
    reading = set()
    for path in (REPO / "compose").rglob("*.py"):
        if re.search(r"^from compose\._shortcuts import SHORTCUTS$", path.read_text(), re.M):
            parts = path.relative_to(REPO).with_suffix("").parts
            reading.add(".".join(parts))
    listed = set(SHORTCUTS_BY_NAME.values())
    if reading != listed:
        raise SystemExit(
            f"SHORTCUTS_BY_NAME is out of date: unlisted {sorted(reading - listed)}, "
            f"gone {sorted(listed - reading)}"
        )


# ---------------------------------------------------------------- in one process (the worker)


def switch(off: set[str]) -> None:
    """Every shortcut on, but those in `off`."""
    for name, module in SHORTCUTS_BY_NAME.items():
        importlib.import_module(module).SHORTCUTS = name not in off


def prepared(name: str) -> Any:
    """compose's timed call for a workload of run.py (its files written as run.py writes them),
    or the README's `rl` job."""
    import pair  # noqa: PLC0415  # its workload names and jobs; imports compose
    import peers  # noqa: PLC0415

    if name == "rl":
        WORKDIR.mkdir(parents=True, exist_ok=True)
        return peers.rl_example_runs(WORKDIR)[0]
    pair.WORKDIR = WORKDIR
    return peers.prepare_compose(pair.job_of(pair.workload_of(name)))


def timed(run: Any) -> float:
    gc.collect()
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def measure_in_process(name: str, budget: float, quick: bool) -> dict[str, Any]:
    run = prepared(name)
    configs = ["on", *WARM, "off"]
    offs = {"on": set(), "off": set(WARM)} | {c: {c} for c in WARM}
    results, first = {}, {}
    for config in configs:  # warm-ups: every path's caches filled, every result kept
        switch(offs[config])
        start = time.perf_counter()
        results[config] = run()
        first[config] = time.perf_counter() - start
    switch(set())
    differ = [config for config in configs if results[config] != results["on"]]
    rounds = 2 if quick else max(15, min(400, round(budget / sum(first.values()))))
    times: dict[str, list[float]] = {config: [] for config in configs}
    for index in range(rounds):
        order = configs[index % len(configs) :] + configs[: index % len(configs)]
        if index % 2:
            order.reverse()
        for config in order:
            switch(offs[config])
            times[config].append(timed(run))
    switch(set())
    ratios = {
        config: statistics.median(t / on for t, on in zip(times[config], times["on"], strict=True))
        for config in configs
    }
    return {
        "workload": name,
        "rounds": rounds,
        "on_ms": statistics.median(times["on"]) * 1e3,
        "gain": {config: ratios[config] - 1 for config in configs if config != "on"},
        "differ": differ,
    }


def measure_alone(name: str, reps: int) -> dict[str, Any]:
    """One process's own way (as COMPOSE_REFERENCE says): the median of `reps` calls."""
    from compose import _shortcuts  # noqa: PLC0415

    run = prepared(name)
    result = run()
    as_read = {
        module: importlib.import_module(module).SHORTCUTS for module in SHORTCUTS_BY_NAME.values()
    }
    if len(set(as_read.values())) != 1 or set(as_read.values()) != {_shortcuts.SHORTCUTS}:
        raise SystemExit(f"modules read the switch differently: {as_read}")
    return {
        "shortcuts": _shortcuts.SHORTCUTS,
        "median_s": statistics.median(timed(run) for _ in range(reps)),
        "result": repr(result),
    }


COUNTED_CALLS = 5


def count_one(name: str, off: list[str]) -> None:
    """Under callgrind: `COUNTED_CALLS` calls with `off` off, collected inside
    `functools.reduce` alone (as `counted.py` does), after two warm-ups."""
    run = prepared(name)
    switch(set(off))
    run()
    run()

    def counted(first: int, second: int) -> int:
        for _ in range(COUNTED_CALLS):
            run()
        return first

    functools.reduce(counted, [0, 1])


def worker(spec: dict[str, Any]) -> None:
    warnings.simplefilter("ignore")
    sys.setrecursionlimit(10_000)
    if spec["mode"] == "count":
        count_one(spec["workload"], spec["off"])
        return
    if spec["mode"] == "alone":
        found = measure_alone(spec["workload"], spec["reps"])
    else:
        found = measure_in_process(spec["workload"], spec["budget"], spec["quick"])
    print(json.dumps(found))


# ---------------------------------------------------------------- processes


def run_worker(spec: dict[str, Any], env: dict[str, str] | None = None) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--worker", json.dumps(spec)],
        capture_output=True,
        text=True,
        check=False,
        cwd=HERE,
        env=env,
    )
    if done.returncode != 0:
        raise SystemExit(f"{spec}: {done.stderr[-2000:]}")
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def environment(reference: bool) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "COMPOSE_REFERENCE"}
    if reference:
        env["COMPOSE_REFERENCE"] = "1"
    return env


def instructions_in_process(name: str) -> dict[str, float]:
    """Per configuration, callgrind's instructions per call; the gain of each as for time."""
    counts = {}
    for config, off in {"on": [], **{c: [c] for c in WARM}, "off": list(WARM)}.items():
        spec = json.dumps({"mode": "count", "workload": name, "off": off})
        valgrind = [
            "valgrind",
            "--tool=callgrind",
            "--toggle-collect=functools_reduce",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            __file__,
            "--worker",
            spec,
        ]
        done = subprocess.run(valgrind, capture_output=True, text=True, check=False, cwd=HERE)
        found = re.search(r"Collected : (\d+)", done.stderr)
        if done.returncode != 0 or found is None:
            raise SystemExit(f"callgrind on {name} ({config}): {done.stderr[-1000:]}")
        counts[config] = int(found[1]) / COUNTED_CALLS
    return {config: counts[config] / counts["on"] - 1 for config in counts if config != "on"}


def reference_as_users_get_it(name: str, quick: bool, on_ms: float) -> dict[str, Any]:
    """`COMPOSE_REFERENCE=1` against no variable, a process each, in turn."""
    reps = 2 if quick else max(5, min(200, round(2.0 / max(on_ms / 1e3, 1e-4))))
    times: dict[bool, list[float]] = {False: [], True: []}
    results = {}
    for index in range(2 if quick else 6):
        reference = bool(index % 2)
        found = run_worker(
            {"mode": "alone", "workload": name, "reps": reps}, environment(reference)
        )
        if found["shortcuts"] is reference:
            raise SystemExit(
                f"COMPOSE_REFERENCE={int(reference)} gave SHORTCUTS={found['shortcuts']}"
            )
        times[reference].append(found["median_s"])
        results[reference] = found["result"]
    return {
        "gain": statistics.median(times[True]) / statistics.median(times[False]) - 1,
        "same": results[True] == results[False],
    }


# ---------------------------------------------------------------- cold start


HELP_PROGRAM = """
import importlib, sys
for module in sys.argv[1:]:
    importlib.import_module(module).SHORTCUTS = False
sys.argv = ["rl", "--help"]
from rl_app.cli import rl
sys.exit(rl())
"""


def help_command(off: tuple[str, ...]) -> list[str]:
    return [sys.executable, "-c", HELP_PROGRAM, *(SHORTCUTS_BY_NAME[name] for name in off)]


def help_env(cache: Path, reference: bool) -> dict[str, str]:
    env = environment(reference)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(NO_COLOR="1", PYTHONHASHSEED="0", PYTHONPYCACHEPREFIX=str(cache), COLUMNS="100")
    return env


def cpu_of(command: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, env=env, capture_output=True, check=False, cwd=REPO)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"rl --help failed: {done.stderr.decode()[-1000:]}")
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def instructions_of(command: list[str], env: dict[str, str]) -> int | None:
    if shutil.which("valgrind") is None:
        return None
    valgrind = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command]
    done = subprocess.run(valgrind, env=env, capture_output=True, text=True, check=False, cwd=REPO)
    found = re.search(r"Collected : (\d+)", done.stderr)
    return int(found[1]) if done.returncode == 0 and found is not None else None


def measure_help(quick: bool) -> dict[str, Any]:
    """`rl --help` per configuration: on, each cold shortcut off, COMPOSE_REFERENCE=1."""
    cache = WORKDIR / "pycache"
    configs: dict[str, tuple[list[str], dict[str, str]]] = {
        "on": (help_command(()), help_env(cache, False))
    }
    for name in COLD:
        configs[name] = (help_command((name,)), help_env(cache, False))
    configs["off"] = (help_command(()), help_env(cache, True))
    texts = {}
    for config, (command, env) in configs.items():  # warm-ups: bytecode and the docstring index
        texts[config] = subprocess.run(
            command, env=env, capture_output=True, check=False, cwd=REPO
        ).stdout
    differ = [config for config in configs if texts[config] != texts["on"]]
    counted = {config: instructions_of(*configs[config]) for config in configs} if not quick else {}
    cpu: dict[str, list[float]] = {config: [] for config in configs}
    for index in range(2 if quick else 30):
        order = list(configs) if index % 2 == 0 else list(configs)[::-1]
        for config in order:
            cpu[config].append(cpu_of(*configs[config]))
    by_cpu = {config: statistics.median(cpu[config]) for config in configs}
    gain = {}
    for config in configs:
        if config == "on":
            continue
        if counted.get(config) and counted.get("on"):
            gain[config] = counted[config] / counted["on"] - 1  # type: ignore[operator]
        else:
            gain[config] = by_cpu[config] / by_cpu["on"] - 1
    return {
        "workload": "help",
        "on_ms": by_cpu["on"] * 1e3,
        "instructions": counted,
        "cpu_ms": {config: value * 1e3 for config, value in by_cpu.items()},
        "gain": gain,
        "by": "instructions" if counted.get("on") else "cpu",
        "differ": differ,
    }


# ---------------------------------------------------------------- the report


def percent(value: float | None) -> str:
    return "" if value is None else f"{value * 100:+.1f}%"


def report(rows: list[dict[str, Any]]) -> str:
    names = [*SHORTCUTS_BY_NAME, "off"]
    lines = [
        "# What each shortcut saves",
        "",
        "t(the shortcut off alone) / t(every shortcut on) - 1, the median over interleaved rounds "
        "in one process; `off` is every shortcut off at once, and `COMPOSE_REFERENCE=1` the same "
        "as users get it (a process each, in turn). `help` is `rl --help`, in "
        + next((f"{row['by']}" for row in rows if row["workload"] == "help"), "instructions")
        + ". Blank: not measured there (the shortcuts of `--help` are measured on it alone).",
        "",
        "| shortcut | " + " | ".join(row["workload"] for row in rows) + " | best |",
        "|---|" + "---|" * (len(rows) + 1),
    ]
    for name in [*names, "COMPOSE_REFERENCE=1"]:
        values = [row["gain"].get(name) for row in rows]
        best = max((v for v in values if v is not None), default=None)
        lines.append(
            f"| {name} | " + " | ".join(percent(v) for v in values) + f" | {percent(best)} |"
        )
    counted = [row for row in rows if row.get("instruction_gain")]
    if counted:
        lines += [
            "",
            "The same in instructions per call (callgrind), where `--instructions` counted them:",
            "",
            "| shortcut | " + " | ".join(row["workload"] for row in counted) + " |",
            "|---|" + "---|" * len(counted),
        ]
        for name in [*WARM, "off"]:
            values = [row["instruction_gain"].get(name) for row in counted]
            lines.append(f"| {name} | " + " | ".join(percent(v) for v in values) + " |")
    lines.append("")
    lines.append("| workload | all on | rounds |")
    lines.append("|---|---|---|")
    for row in rows:
        lines.append(f"| {row['workload']} | {row['on_ms']:.2f} ms | {row.get('rounds', '')} |")
    differ = [f"{row['workload']}: {row['differ']}" for row in rows if row["differ"]]
    lines += [
        "",
        "Results that differ from all on: " + ("; ".join(differ) if differ else "none") + ".",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("workloads", nargs="*", help="run.py's names, `rl`, `help` (default: all)")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--budget", type=float, default=25.0, help="seconds per workload")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count each configuration's instructions (callgrind: minutes a workload)",
    )
    args = parser.parse_args(argv)
    if args.worker:
        worker(json.loads(args.worker))
        return 0
    check_the_list()
    names = args.workloads or [*(QUICK if args.quick else WORKLOADS), "help"]
    rows = []
    for name in names:
        started = time.perf_counter()
        if name == "help":
            row = measure_help(args.quick)
        else:
            row = run_worker(
                {"mode": "rounds", "workload": name, "budget": args.budget, "quick": args.quick}
            )
            users = reference_as_users_get_it(name, args.quick, row["on_ms"])
            row["gain"]["COMPOSE_REFERENCE=1"] = users["gain"]
            if args.instructions and shutil.which("valgrind") is not None:
                row["instruction_gain"] = instructions_in_process(name)
            if not users["same"]:
                row["differ"].append("COMPOSE_REFERENCE=1")
        rows.append(row)
        shown = ", ".join(
            f"{k} {percent(v)}" for k, v in row["gain"].items() if v is not None and abs(v) >= 0.02
        )
        print(
            f"{name}: {row['on_ms']:.2f} ms on; {shown or 'nothing over 2%'} "
            f"({time.perf_counter() - started:.0f} s)",
            flush=True,
        )
    out = Path(tempfile.mkdtemp()) if args.quick else args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "shortcuts.json").write_text(json.dumps(rows, indent=1) + "\n")
    (out / "shortcuts.md").write_text(report(rows))
    print(f"wrote {out / 'shortcuts.md'}")
    return 1 if any(row["differ"] for row in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
