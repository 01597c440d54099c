"""The benchmark suite, one command: `python benchmarks/run.py [--quick]`.

Generates the workloads (workloads.py), runs every workload x system in fresh worker processes
(worker.py, adapters in peers.py; Hydra's in the side venv `.venv-hydra` of hydra_trees.py,
since hydra-core pins omegaconf below the dev pin) with a per-cell timeout, checks that every
system produced the same data as compose, times whole-process cold starts (coldstart.py),
measures interpolation per reference against a plain dict lookup chain, counts instructions with
callgrind where it can (counted.py), profiles compose on the largest workloads, and writes
`results/RESULTS.md`, `results/results.json` and `results/time_vs_leaves.png` (report.py).

`--quick` (for CI) runs tiny workloads once each on every installed system, writes its report
to a temporary directory, and exits 1 if an adapter crashes or disagrees with compose.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import coldstart
import counted
import hydra_trees
import peers
import report
from workloads import Paths, Workload, write_schema, write_workload

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
WORKER = HERE / "worker.py"
LARGEST = (100, 10_000)


@dataclass(frozen=True)
class Plan:
    """Which workloads, and how hard to time them."""

    grid_n: tuple[int, ...]
    grid_m: tuple[int, ...]
    interp: tuple[tuple[int, int], ...]
    ks: tuple[int, ...]
    cli: tuple[tuple[int, int, int], ...]
    quick: bool
    timeout_s: float
    budget_s: float = 1.0
    max_reps: int = 1000
    single_cutoff_s: float = 15.0
    cold_runs: int = 30
    cold_warmup: int = 2
    # Rounds of the judged cold-start pair alone: single runs spread by ±60 ms here, and 100
    # rounds left a 95% interval ±20 ms wide on their median difference (300: about ±11 ms)
    goal_rounds: int = 300
    only: tuple[str, ...] = ()  # workload names; empty: all of them

    def workloads(self) -> list[Workload]:
        found = [
            Workload(n, m, typed)
            for typed in (False, True)
            for n in self.grid_n
            for m in self.grid_m
        ]
        found += [Workload(n, m, k=k) for n, m in self.interp for k in self.ks]
        found += [
            Workload(n, m, typed, overrides=o) for n, m, o in self.cli for typed in (False, True)
        ]
        if self.only:
            found = [w for w in found if w.name in self.only]
        return sorted(found, key=lambda w: (w.leaves, w.name))


FULL = Plan(
    (1, 10, 100),
    (100, 1000, 10_000),
    ((1, 1000), (10, 1000)),
    (100, 1000),
    ((10, 1000, 200),),
    quick=False,
    timeout_s=60.0,
)
QUICK = Plan(
    (3,),
    (100,),
    ((3, 100),),
    (20,),
    ((3, 100, 20),),
    quick=True,
    timeout_s=60.0,
    cold_runs=1,
    cold_warmup=0,
    goal_rounds=1,
)


@dataclass
class Cell:
    workload: Workload
    system: str
    status: str = "pending"  # ok | n/a | timeout | skipped | error
    record: dict[str, Any] = field(default_factory=dict)
    note: str = ""

    @property
    def id(self) -> str:
        return f"{self.workload.name}/{self.system}"

    @property
    def median_s(self) -> float | None:
        return self.record.get("median_s") if self.status == "ok" else None


# ---------------------------------------------------------------- running cells


def cell_spec(cell: Cell, workdir: Path, memory: bool, plan: Plan) -> dict[str, Any]:
    root = workdir / cell.workload.name
    dumps = workdir / "dumps" / cell.workload.name
    dumps.mkdir(parents=True, exist_ok=True)
    return {
        "id": cell.id,
        "system": cell.system,
        "workload": cell.workload.to_json(),
        "root": str(root),
        "schema_dir": str(workdir),
        "dump": str(dumps / f"{cell.system}.json"),
        "memory": memory,
        "quick": plan.quick,
        "budget": plan.budget_s,
        "max_reps": plan.max_reps,
        "single_cutoff": plan.single_cutoff_s,
        "timeout": plan.timeout_s,
    }


def run_worker(
    specs: list[dict[str, Any]], timeout: float, python: str = sys.executable
) -> dict[str, dict[str, Any]]:
    """Cell id -> record; cells not reported before the timeout are missing. `python` runs the
    worker: a system's own (`peers.System.python`: the side venv's for Hydra)."""
    command = [python, str(WORKER), json.dumps({"cells": specs})]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, check=False, cwd=HERE
        )
        out, err = done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        out = _text(expired.stdout)
        err = ""
    records = {}
    for line in out.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            records[record["id"]] = record
    if err and not records:
        records["__stderr__"] = {"error": err[-800:]}
    return records


def _text(data: bytes | str | None) -> str:
    if isinstance(data, bytes):
        return data.decode(errors="replace")
    return data or ""


def apply_record(cell: Cell, record: dict[str, Any] | None, timeout: float) -> None:
    if record is None or record.get("timeout"):
        cell.status, cell.note = "timeout", f"set-up + first call over {timeout:.0f} s"
    elif "error" in record:
        cell.status, cell.record, cell.note = "error", record, record["error"]
    else:
        cell.status, cell.record = "ok", record


def dominated(cell: Cell, failed: list[Cell]) -> Cell | None:
    """A smaller cell of the same kind this system already timed out on."""
    w = cell.workload
    for other in failed:
        v = other.workload
        same_kind = (v.typed, v.k > 0, v.overrides > 0) == (w.typed, w.k > 0, w.overrides > 0)
        if other.system == cell.system and same_kind and v.n <= w.n and v.m <= w.m:
            return other
    return None


def wants_memory(cell: Cell) -> bool:
    w = cell.workload
    return cell.system in ("compose", "floor") and not w.k and not w.overrides


def backstop(plan: Plan) -> float:
    """The worker stops the system itself at the timeout; this covers memory and the dump."""
    return plan.timeout_s * 4 + 60


def run_cells_full(cells: list[Cell], workdir: Path, plan: Plan) -> None:
    """One process per cell, one at a time, so cells never share a core or a heap."""
    failed: list[Cell] = []
    for index, cell in enumerate(cells, 1):
        blocker = dominated(cell, failed)
        if blocker is not None:
            cell.status = "skipped"
            cell.note = f"timed out already at {blocker.workload.name}"
            continue
        spec = cell_spec(cell, workdir, wants_memory(cell), plan)
        started = time.perf_counter()
        records = run_worker([spec], backstop(plan), peers.system(cell.system).python())
        apply_record(cell, records.get(cell.id) or records.get("__stderr__"), plan.timeout_s)
        if cell.status == "timeout":
            failed.append(cell)
        elapsed = time.perf_counter() - started
        print(
            f"[{index}/{len(cells)}] {cell.id}: {cell.status} {_short(cell)} ({elapsed:.1f} s)",
            flush=True,
        )


def run_cells_quick(cells: list[Cell], workdir: Path, plan: Plan) -> None:
    """One process per system, every cell once, systems side by side: fast enough for CI."""
    by_system: dict[str, list[Cell]] = {}
    for cell in cells:
        by_system.setdefault(cell.system, []).append(cell)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for system, group in by_system.items():
            pool.submit(_run_group, system, group, workdir, plan)


def _run_group(system: str, group: list[Cell], workdir: Path, plan: Plan) -> None:
    specs = [cell_spec(cell, workdir, wants_memory(cell), plan) for cell in group]
    records = run_worker(specs, backstop(plan), peers.system(system).python())
    for cell in group:
        apply_record(cell, records.get(cell.id) or records.get("__stderr__"), plan.timeout_s)
    print(f"{system}: " + ", ".join(f"{c.workload.name} {c.status}" for c in group), flush=True)


def _short(cell: Cell) -> str:
    if cell.median_s is not None:
        return f"median {cell.median_s * 1e3:.2f} ms x{len(cell.record['times'])}"
    return cell.note[:120]


# ---------------------------------------------------------------- interleaved pairs


@dataclass
class Pair:
    """A against B, called in turn in one process: `compose` vs `floor` on one workload, or one
    system with K references vs without (the cost per reference)."""

    label: str
    a: Cell
    b: Cell
    record: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.label}:{self.a.id}~{self.b.id}"


def plan_pairs(cells: list[Cell]) -> list[Pair]:
    ok = {(c.workload, c.system): c for c in cells if c.status == "ok"}
    found = []
    for (w, system), cell in ok.items():
        floor = ok.get((w, "floor"))
        if system == "compose" and floor is not None:
            found.append(Pair("compose/floor", cell, floor))
        if system in ("compose", "floor") and w.k:
            base = ok.get((Workload(w.n, w.m), system))
            if base is not None:
                found.append(Pair(f"interp/{system}", cell, base))
    return sorted(found, key=lambda p: (p.a.workload.leaves, p.id))


def pair_spec(pair: Pair, workdir: Path, plan: Plan) -> dict[str, Any]:
    sides = [cell_spec(cell, workdir, False, plan) for cell in (pair.a, pair.b)]
    return {**sides[0], "id": pair.id, "pair": sides}


def run_pairs(pairs: list[Pair], workdir: Path, plan: Plan) -> None:
    specs = [pair_spec(pair, workdir, plan) for pair in pairs]
    if plan.quick:
        records = run_worker(specs, backstop(plan))
        for pair in pairs:
            pair.record = records.get(pair.id, {"error": "no result"})
        return
    for index, (pair, spec) in enumerate(zip(pairs, specs, strict=True), 1):
        pair.record = run_worker([spec], backstop(plan)).get(pair.id, {"timeout": True})
        print(f"[pair {index}/{len(pairs)}] {pair.id}: {_pair_short(pair)}", flush=True)


def _pair_short(pair: Pair) -> str:
    record = pair.record
    if "a" not in record:
        return str(record.get("error") or "timeout")
    a, b = statistics.median(record["a"]), statistics.median(record["b"])
    return f"{a * 1e3:.2f} ms / {b * 1e3:.2f} ms = {a / b:.3f} (x{len(record['a'])})"


# ---------------------------------------------------------------- agreement


def check_agreement(cells: list[Cell], workdir: Path) -> None:
    """Every system's data against compose's (the floor's where compose does not resolve yet)."""
    by_workload: dict[str, dict[str, Cell]] = {}
    for cell in cells:
        by_workload.setdefault(cell.workload.name, {})[cell.system] = cell
    for name, group in by_workload.items():
        reference = _reference(group)
        if reference is None:
            continue
        for cell in group.values():
            if cell.status != "ok" or cell is reference or cell.status == "pending-interp":
                continue
            agrees = cell.record["digest"] == reference.record["digest"]
            cell.record["agrees"] = agrees
            cell.record["checked_against"] = reference.system
            if not agrees:
                cell.record["diff"] = first_differences(
                    workdir / "dumps" / name, reference.system, cell.system
                )


def _reference(group: dict[str, Cell]) -> Cell | None:
    compose_cell = group.get("compose")
    if compose_cell is not None and compose_cell.status == "ok":
        if compose_cell.workload.k and compose_cell.record.get("unresolved"):
            compose_cell.status = "pending-interp"
            compose_cell.note = "compose() does not resolve ${...} yet"
        else:
            return compose_cell
    floor_cell = group.get("floor")
    return floor_cell if floor_cell is not None and floor_cell.status == "ok" else None


def first_differences(directory: Path, left: str, right: str, limit: int = 5) -> list[str]:
    a = json.loads((directory / f"{left}.json").read_text())
    b = json.loads((directory / f"{right}.json").read_text())
    found: list[str] = []
    _diff(a, b, "", found, limit)
    return found


def _diff(a: Any, b: Any, path: str, found: list[str], limit: int) -> None:
    if len(found) >= limit:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                found.append(f"{path}.{key}: only in {'right' if key in b else 'left'}")
            else:
                _diff(a[key], b[key], f"{path}.{key}", found, limit)
            if len(found) >= limit:
                return
    elif a != b:
        found.append(f"{path}: {a!r:.60} != {b!r:.60}")


# ---------------------------------------------------------------- extras


def lookup_chain_costs(workdir: Path, plan: Plan) -> dict[str, Any]:
    """Per reference, in-process: a bare dict lookup chain, the least any resolver does (split the
    reference's text, walk it), the floor's regex resolver (told where the references are, or
    walking the tree), and compose's resolution step alone."""
    import timeit  # noqa: PLC0415

    from compose._input.argv import FileItem, Item  # noqa: PLC0415
    from compose._interp import grammar as _interp_grammar  # noqa: PLC0415
    from compose._interp import quick as _interp_quick  # noqa: PLC0415
    from compose._interp import resolve as _interp  # noqa: PLC0415
    from compose._merge import fold as _graph  # noqa: PLC0415

    n, m = plan.interp[-1]
    w = Workload(n, m, k=max(plan.ks))
    paths = Paths(workdir / w.name)
    tree = peers.floor_tree(paths.toml_files(n), [], typed=False, loads=peers.native_toml()[1])
    refs = dict(tree["refs"])
    # Where a composition of these files looks for references: the keys the file holding them
    # sets (`Composed.work_below`).
    items: list[Item] = [FileItem(path, "", path) for path in paths.toml_files(n)]
    below = _graph.compose_items(items, None).work_below
    targets = [text.split("${")[1].split("}")[0] for text in refs.values()]
    chains = [tuple(t.split(".")) for t in targets]

    def chain() -> None:
        for keys in chains:
            node: Any = tree
            for key in keys:
                node = node[key]

    wrapped = ["${" + target + "}" for target in targets]

    def split_walk() -> None:
        # The least any resolver does per reference: take the path out of its text and walk it
        # (nothing found, checked or stored). A goal below this is below every resolver.
        for text in wrapped:
            node: Any = tree
            for key in text[2:-1].split("."):
                node = node[key]

    def resolver() -> None:
        tree["refs"] = dict(refs)
        peers.resolve_refs(tree["refs"], tree)

    def resolver_on_tree() -> None:  # not told where the references are: walks every leaf
        tree["refs"] = dict(refs)
        peers.resolve_refs(tree, tree)

    def compose_resolution(where: set[tuple[str | int, ...]] | None) -> Callable[[], None]:
        # The resolution step alone, on the merged tree (the same dicts compose merges to),
        # its caches of reference texts emptied: what one composition pays once its files are
        # parsed. Private API: no public function resolves a tree without reading files.
        def run() -> None:
            _interp_quick.lone_reference.cache_clear()
            _interp_quick.plan_of.cache_clear()
            _interp_grammar.parse.cache_clear()
            _interp.resolve_tree(tree, below=where)

        return run

    per_ref = {}
    for label, function in (
        ("dict_chain", chain),
        ("split_walk", split_walk),
        ("floor_resolver", resolver),
        ("floor_resolver_tree", resolver_on_tree),
        ("compose_resolution", compose_resolution(below)),
        ("compose_resolution_tree", compose_resolution(None)),  # told nothing: every leaf
    ):
        if label.startswith("compose_resolution"):
            tree["refs"] = dict(refs)  # unresolved again, after the floor's resolvers
        number = 20
        best = min(timeit.repeat(function, number=number, repeat=7))
        per_ref[label] = best / number / len(refs)
    return {"workload": w.name, "refs": len(refs), "per_ref_s": per_ref}


def rl_example_costs(workdir: Path, plan: Plan) -> dict[str, Any]:
    """The example rl schema, in-process: the README's main job against the floor on the same
    files (`peers.rl_example_runs`), called in turn."""
    composed, floor, command = peers.rl_example_runs(workdir)
    agrees = composed().model_dump() == floor().model_dump()
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(20 if plan.quick else 2000):
        for found, run in zip(times, (composed, floor), strict=True):
            start = time.perf_counter()
            run()
            found.append(time.perf_counter() - start)
    compose_s, floor_s = statistics.median(times[0]), statistics.median(times[1])
    return {"command": command, "compose_s": compose_s, "floor_s": floor_s, "agrees": agrees}


def instruction_counts(workdir: Path, plan: Plan) -> dict[str, Any]:
    """Callgrind's instructions per call (`counted.py`), where valgrind can count: compose and
    the floor per interpolation reference ((count(K) - count(0)) / K on the largest
    interpolation workload), and on the rl example. Two at a time: counts ignore the load."""
    w, base = Workload(*plan.interp[-1], k=max(plan.ks)), Workload(*plan.interp[-1])
    specs: dict[tuple[str, str], dict[str, Any]] = {}
    for system in ("compose", "floor"):
        for label, workload in (("k", w), ("0", base)):
            specs[system, label] = {"cell": cell_spec(Cell(workload, system), workdir, False, plan)}
        specs[system, "rl"] = {"rl_example": str(workdir), "side": system}
    with ThreadPoolExecutor(max_workers=2) as pool:
        counts = dict(zip(specs, pool.map(counted.count, specs.values()), strict=True))
    per_ref = {}
    for system in ("compose", "floor"):
        with_k, without = counts[system, "k"], counts[system, "0"]
        if with_k is not None and without is not None:
            per_ref[system] = (with_k - without) / w.k
    rl = {system: counts[system, "rl"] for system in ("compose", "floor") if counts[system, "rl"]}
    return {"workload": w.name, "per_ref": per_ref, "rl_example": rl}


def run_profiles(workdir: Path, plan: Plan, cells: list[Cell]) -> list[str]:
    names = []
    targets = [
        Workload(*LARGEST),
        Workload(*LARGEST, typed=True),
        Workload(*plan.interp[-1], k=max(plan.ks)),
        Workload(*plan.cli[0][:2], True, overrides=plan.cli[0][2]),
    ]
    for w in targets:
        if not _ran(cells, w):
            continue
        cell = Cell(w, "compose")
        spec = cell_spec(cell, workdir, False, plan)
        out = RESULTS / f"profile_{w.name}.txt"
        spec.update(profile=str(out), quick=True)
        records = run_worker([spec], backstop(plan))
        if cell.id in records and "error" not in records[cell.id]:
            names.append(out.name)
            print(f"profile: {out.name}", flush=True)
    return names


def _ran(cells: list[Cell], w: Workload) -> bool:
    return any(c.workload == w and c.system == "compose" and c.status == "ok" for c in cells)


# ---------------------------------------------------------------- reusing a previous run


def load_extras(path: Path) -> tuple[list[coldstart.Timing], dict[str, Any]]:
    """Cold starts and the lookup chain from a `results.json` (for --report-only)."""
    data = json.loads(path.read_text())
    cold = [coldstart.Timing(**found) for found in data["cold_start"]]
    return cold, data["lookup_chain"]


def load_previous(path: Path) -> tuple[list[Cell], list[Pair]]:
    """Cells and pairs from a `results.json`, to redo only cold start, profiles and the report."""
    data = json.loads(path.read_text())
    cells = []
    for found in data["cells"]:
        record = {
            k: v
            for k, v in found.items()
            if k not in ("name", "workload", "system", "status", "note")
        }
        cells.append(
            Cell(
                Workload(**found["workload"]),
                found["system"],
                found["status"],
                record,
                found["note"],
            )
        )
    by_id = {cell.id: cell for cell in cells}
    pairs = []
    for found in data["pairs"]:
        label, rest = found["id"].split(":", 1)
        a, b = rest.split("~")
        record = {k: v for k, v in found.items() if k not in ("id", "label")}
        pairs.append(Pair(label, by_id[a], by_id[b], record))
    return cells, pairs


def load_long(out: Path, plan: Plan) -> tuple[list[Cell], list[Pair], float] | None:
    """The largest workloads re-run with a longer timeout (`--only`, into results/largest/)."""
    path = out / report.LONG_DIR / "results.json"
    if plan.only or not path.exists():
        return None
    cells, pairs = load_previous(path)
    timeout = json.loads(path.read_text())["info"].get("timeout_s") or 0.0  # recorded since 11-29
    return cells, pairs, timeout


def measure_cells(plan: Plan, systems: list[str], workdir: Path) -> tuple[list[Cell], list[Pair]]:
    cells = build_cells(plan, systems)
    runnable = [c for c in cells if c.status == "pending"]
    (run_cells_quick if plan.quick else run_cells_full)(runnable, workdir, plan)
    check_agreement(cells, workdir)
    pairs = plan_pairs(cells)
    run_pairs(pairs, workdir, plan)
    return cells, pairs


# ---------------------------------------------------------------- main


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one run (for CI)")
    parser.add_argument("--workdir", type=Path, help="where workloads are written (kept)")
    parser.add_argument("--systems", help="comma-separated subset of systems")
    parser.add_argument("--timeout", type=float, help="seconds per cell (default 60)")
    parser.add_argument("--no-profile", action="store_true", help="skip the cProfile runs")
    parser.add_argument(
        "--only",
        help="comma-separated workload names (e.g. plain-n100-m10000): only their cells, no cold "
        "start, lookup chain or profiles; the report goes to results/only/ unless --out says",
    )
    parser.add_argument(
        "--report-only",
        action="store_true",
        help="with --reuse: measure nothing, rewrite the report from the file",
    )
    parser.add_argument(
        "--reuse",
        type=Path,
        help="take the cells and pairs from this results.json; redo cold start and the report",
    )
    parser.add_argument(
        "--redo-pairs",
        action="store_true",
        help="with --reuse: measure the interleaved pairs (compose / floor, per reference) again",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="report directory (default: results/, or a temporary one with --quick)",
    )
    return parser.parse_args(argv)


def choose_systems(selected: str | None) -> tuple[list[str], list[str]]:
    names = [s.name for s in peers.SYSTEMS]
    if selected:
        names = [name for name in names if name in selected.split(",")]
    installed = [name for name in names if peers.system(name).installed()]
    return installed, [name for name in names if name not in installed]


def build_cells(plan: Plan, systems: list[str]) -> list[Cell]:
    cells = []
    for w in plan.workloads():
        for name in systems:
            cell = Cell(w, name)
            reason = peers.system(name).unsupported(w)
            if reason is not None:
                cell.status, cell.note = "n/a", reason
            cells.append(cell)
    return cells


def extras(
    args: argparse.Namespace, workdir: Path, plan: Plan, out: Path
) -> tuple[list[coldstart.Timing], dict[str, Any]]:
    """Cold starts and the in-process figures (lookup chain, rl example, instruction counts)."""
    if args.reuse and args.report_only:
        cold, chain = load_extras(args.reuse)
        # a later run of benchmarks/hydra_trees.py alone, into the same folder
        hydra_file = out / "hydra_trees.json"
        if hydra_file.exists():
            chain["hydra_trees"] = json.loads(hydra_file.read_text(encoding="utf-8"))
        return cold, chain
    if plan.only:  # a few cells (a long timeout for the largest, say): nothing else
        return [], {}
    cold = coldstart.run_all(
        workdir, plan.cold_runs, plan.cold_warmup, plan.quick, plan.goal_rounds
    )
    if not plan.quick:
        (out / "importtime_compose.txt").write_text(coldstart.import_profile(workdir))
        (out / "profile_coldstart_help.txt").write_text(coldstart.help_profile(workdir))
    chain = lookup_chain_costs(workdir, plan)
    chain["rl_example"] = rl_example_costs(workdir, plan)
    print("Hydra trees (compose_hydra against hydra.compose, in the side venv) ...", flush=True)
    chain["hydra_trees"] = hydra_trees.run(plan.quick, workdir / "hydra")
    hydra_trees.write(chain["hydra_trees"], out)
    if not plan.quick:
        print("instruction counts (callgrind) ...", flush=True)
        chain["instructions"] = instruction_counts(workdir, plan)
        chain["cold_phases"] = coldstart.phase_split(workdir)
    return cold, chain


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    plan = QUICK if args.quick else FULL
    if args.timeout:
        plan = Plan(**{**plan.__dict__, "timeout_s": args.timeout})
    if args.only:
        plan = Plan(**{**plan.__dict__, "only": tuple(args.only.split(","))})
        unknown = set(plan.only) - {w.name for w in plan.workloads()}
        if unknown or not plan.workloads():
            raise SystemExit(f"--only: no such workload in this plan: {', '.join(sorted(unknown))}")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="compose-bench-"))
    out = args.out or (
        workdir / "results" if plan.quick else RESULTS / "only" if plan.only else RESULTS
    )
    out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    systems, missing = choose_systems(args.systems)
    load_before = os.getloadavg()
    engine_at_start = report.engine_version()
    print(f"workdir {workdir}; systems: {', '.join(systems)}; not installed: {missing or '-'}")
    write_schema(workdir)
    for w in plan.workloads():
        write_workload(w, Paths(workdir / w.name))
    if args.reuse:
        cells, pairs = load_previous(args.reuse)
        if args.redo_pairs:
            pairs = plan_pairs(cells)
            run_pairs(pairs, workdir, plan)
    else:
        cells, pairs = measure_cells(plan, systems, workdir)
    print(f"cells done in {time.time() - started:.0f} s; cold start ...", flush=True)
    cold, chain = extras(args, workdir, plan, out)
    if plan.quick or plan.only:
        profiles = []
    elif args.no_profile or args.report_only:  # keep linking what an earlier run left
        profiles = sorted(p.name for p in out.glob("profile_*-*.txt"))
    else:
        profiles = run_profiles(workdir, plan, cells)
    context = report.Context(
        plan_name="quick" if plan.quick else "full",
        systems=systems,
        missing=missing,
        started=started,
        load_before=load_before,
        timeout_s=plan.timeout_s,
        profiles=profiles,
        reused=str(args.reuse) if args.reuse else None,
        engine_at_start=engine_at_start,
        report_only=bool(args.reuse and args.report_only),
        only=list(plan.only),
        redo_pairs=bool(args.reuse and args.redo_pairs),
    )
    failures = report.write(out, cells, pairs, cold, chain, context, load_long(out, plan))
    print(f"report: {out / 'RESULTS.md'}")
    if not args.workdir:
        shutil.rmtree(workdir / "dumps", ignore_errors=True)
    for line in failures:
        print(f"FAIL {line}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
