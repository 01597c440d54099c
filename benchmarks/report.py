"""The report: `RESULTS.md` (tables, goals, machine), `results.json`, `time_vs_leaves.png`.

Compose's own figures (against the floor, and per interpolation reference) come from the
interleaved pairs where there are any: on a machine whose load drifts they are the ones to trust.
Peer figures come from their cells, against compose's.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import math
import os
import platform
import statistics
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import hydra_trees
import peers
from coldstart import (
    DRY_RUN_FLOOR,
    GEN_BASELINE,
    GEN_HELP,
    RL_BASELINE,
    RL_DRY_RUN,
    RL_HELP,
    RL_SCHEMA,
    Timing,
    partners,
)
from workloads import Workload

if TYPE_CHECKING:
    from run import Cell, Pair

PEERS = (
    "omegaconf",
    "omegaconf-tomli",
    "hydra",
    "prime-pydantic-config",
    "pydantic-settings",
    "jsonargparse",
)
PACKAGES = (
    "compose-config",
    "pydantic",
    "pydantic-core",
    "tomli",
    "omegaconf",
    "hydra-core",
    "prime-pydantic-config",
    "pydantic-settings",
    "jsonargparse",
    "pyyaml",
    "matplotlib",
)
GOAL_FLOOR_RATIO = 1.3
GOAL_OMEGACONF = 150.0
GOAL_INTERP = 1.5  # compose's cost per reference over the floor's resolver's
GOAL_COLD_MS = 20.0
GOAL_MEMORY = 2.0
LONG_DIR = "largest"  # a `--only` run of the largest workloads with a long timeout, if any


@dataclass
class Context:
    plan_name: str
    systems: list[str]
    missing: list[str]
    started: float
    load_before: tuple[float, float, float]
    timeout_s: float
    profiles: list[str] = field(default_factory=list)
    reused: str | None = None  # the results.json the cells were taken from
    engine_at_start: str = ""
    report_only: bool = False  # with `reused`: the cold starts came from that file too
    redo_pairs: bool = False  # with `reused`: the pairs were measured again
    only: list[str] = field(default_factory=list)  # `--only`: these workloads and nothing else


@dataclass
class Goal:
    name: str
    status: str  # met | missed | pending | no data
    detail: str


# ---------------------------------------------------------------- formatting


def fmt_time(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds:.3g} s"


def fmt_ratio(value: float | None, bound: bool = False) -> str:
    if value is None:
        return "-"
    return f"{'>' if bound else ''}{value:.3g}x"


def md_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return [*lines, ""]


def _mib(value: int | None) -> str:
    if not value:
        return "-"
    return f"{value / 2**20:.1f} MiB" if value >= 2**20 else f"{value / 2**10:.0f} KiB"


# ---------------------------------------------------------------- the data


class Results:
    """Cells by (workload, system), pairs by (label, workload): the questions the report asks."""

    def __init__(self, cells: list[Cell], pairs: list[Pair], context: Context) -> None:
        self.cells = cells
        self.context = context
        self.by = {(c.workload.name, c.system): c for c in cells}
        self.pairs: dict[tuple[str, str], dict[str, list[float]]] = {
            (p.label, p.a.workload.name): p.record for p in pairs if "a" in p.record
        }
        # (workload, peer) -> peer / compose from a run of the largest workloads with a longer
        # timeout (`run.py --only ... --timeout ...` into results/largest/), for cells stopped here
        self.long: dict[tuple[str, str], tuple[float, float]] = {}

    def cell(self, w: Workload, system: str) -> Cell | None:
        return self.by.get((w.name, system))

    def median(self, w: Workload, system: str) -> float | None:
        """compose and floor from their pair when there is one; any system from its cell."""
        pair = self.pairs.get(("compose/floor", w.name))
        if pair is not None and system in ("compose", "floor"):
            return statistics.median(pair["a" if system == "compose" else "b"])
        cell = self.cell(w, system)
        return cell.median_s if cell is not None else None

    def cell_median(self, w: Workload, system: str) -> float | None:
        """From the system's own cell (one process, the same pass as every other cell)."""
        cell = self.cell(w, system)
        return cell.median_s if cell is not None else None

    def compose_equivalent(self, w: Workload) -> float | None:
        """Compose's time as peers are compared with it: the floor's cell (timed in the same
        pass as theirs) times compose / floor from the interleaved pair. Pairs may run minutes
        later (or again, `--redo-pairs`), and compose's own cell has few runs at small sizes
        (its first call, which sets k, imports the engine)."""
        floor, ratio = self.cell_median(w, "floor"), self.floor_ratio(w)
        if floor and ratio:
            return floor * ratio
        return self.median(w, "compose")

    def floor_ratio(self, w: Workload, of_minima: bool = False) -> float | None:
        pair = self.pairs.get(("compose/floor", w.name))
        if pair is not None:
            if of_minima:
                return min(pair["a"]) / min(pair["b"])
            # the median over rounds of compose / floor within each round: the two calls of a
            # round share the machine's state, which drifts by a third between rounds here
            return statistics.median(a / b for a, b in zip(pair["a"], pair["b"], strict=True))
        compose, floor = self.median(w, "compose"), self.median(w, "floor")
        return compose / floor if compose and floor and not of_minima else None

    def per_reference(self, system: str) -> dict[str, float]:
        """(t(K) - t(0)) / K: from the interleaved pair, else from the two cells."""
        found = {}
        for w in self.workloads(lambda v: v.k > 0):
            pair = self.pairs.get((f"interp/{system}", w.name))
            if pair is not None:  # the median over rounds of the difference within each round
                rounds = zip(pair["a"], pair["b"], strict=True)
                found[w.name] = statistics.median(a - b for a, b in rounds) / w.k
                continue
            with_k, without = self.median(w, system), self.median(Workload(w.n, w.m), system)
            if with_k and without:
                found[w.name] = (with_k - without) / w.k
        return found

    def workloads(self, keep: Any) -> list[Workload]:
        found = {c.workload for c in self.cells if keep(c.workload)}
        return sorted(found, key=lambda w: (w.leaves, w.n, w.name))

    def grid(self, typed: bool) -> list[Workload]:
        """The N x M workloads (no K, no flags), in order of total leaves."""
        return self.workloads(lambda w: w.typed == typed and not w.k and not w.overrides)

    def interp(self) -> list[Workload]:
        sizes = {(w.n, w.m) for w in self.workloads(lambda w: w.k > 0)}
        rows = self.workloads(lambda w: (w.n, w.m) in sizes and not w.typed and not w.overrides)
        return sorted(rows, key=lambda w: (w.n, w.m, w.k))

    def status(self, w: Workload, system: str) -> str:
        cell = self.cell(w, system)
        if cell is None:
            return "-"
        if cell.status == "ok":
            mark = "" if cell.record.get("agrees", True) else " ✗"
            return fmt_time(self.median(w, system)) + mark
        return {"pending-interp": "pending"}.get(cell.status, cell.status)

    def peer_text(self, w: Workload, peer: str) -> str:
        """`time (peer / compose)`; for a peer stopped at the timeout, a lower bound."""
        text, cell = self.status(w, peer), self.cell(w, peer)
        compose = self.compose_equivalent(w)
        if cell is None or not compose:
            return text
        if cell.status in ("timeout", "skipped"):
            return f"{text} ({fmt_ratio(self.context.timeout_s / compose, bound=True)})"
        peer_s = self.median(w, peer)
        return f"{text} ({fmt_ratio(peer_s / compose)})" if peer_s else text

    def peak(self, w: Workload, system: str) -> int | None:
        cell = self.cell(w, system)
        return cell.record.get("peak_bytes") if cell is not None and cell.status == "ok" else None


# ---------------------------------------------------------------- tables


def timing_table(results: Results, workloads: list[Workload]) -> list[str]:
    peers_here = [p for p in PEERS if p in results.context.systems]
    headers = ["workload", "leaves", "floor", "compose", "compose / floor", "(of minima)"]
    rows = []
    for w in workloads:
        row = [w.name, f"{w.leaves:,}", results.status(w, "floor"), results.status(w, "compose")]
        row += [fmt_ratio(results.floor_ratio(w)), fmt_ratio(results.floor_ratio(w, True))]
        rows.append(row + [results.peer_text(w, p) for p in peers_here])
    return md_table(headers + peers_here, rows)


def per_leaf_table(results: Results, workloads: list[Workload]) -> list[str]:
    systems = results.context.systems
    rows = []
    for w in workloads:
        row = [w.name]
        for name in systems:
            median = results.median(w, name)
            row.append(f"{median / w.leaves * 1e6:.3g}" if median else "-")
        rows.append(row)
    slopes = ["slope (log t / log leaves)"]
    for name in systems:
        value = slope([(w.leaves, results.median(w, name)) for w in workloads])
        slopes.append(f"{value:.2f}" if value is not None else "-")
    rows.append(slopes)
    return md_table(["µs per leaf", *systems], rows)


def slope(points: list[tuple[int, float | None]]) -> float | None:
    xs = [math.log(leaves) for leaves, median in points if median]
    ys = [math.log(median) for _, median in points if median]
    if len(set(xs)) < 2:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    covariance = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    return covariance / sum((x - mx) ** 2 for x in xs)


def interp_table(results: Results) -> list[str]:
    names = [
        s
        for s in ("floor", "compose", "omegaconf", "omegaconf-tomli", "hydra")
        if s in results.context.systems
    ]
    rows = []
    for w in results.interp():
        row = [w.name, str(w.k)]
        for name in names:
            own = name in ("floor", "compose")
            row.append(results.status(w, name) if own else results.peer_text(w, name))
        rows.append(row)
    return md_table(["workload", "K", *names], rows)


def rl_example_lines(chain: dict[str, Any]) -> list[str]:
    found = chain.get("rl_example")
    if not found:
        return []
    ratio = found["compose_s"] / found["floor_s"]
    agrees = "the same config" if found["agrees"] else "✗ configs that differ"
    return [
        f"The example rl schema (`RLConfig`), in process: `{found['command']}` through "
        f"`compose.parse` {fmt_time(found['compose_s'])}, the floor {fmt_time(found['floor_s'])} "
        f"(the same files, with the optimizer's union tag written in: the floor cannot choose a "
        f"default variant), compose / floor {ratio:.2f}x, called in turn; {agrees}."
        + _rl_instructions(chain),
        "",
    ]


def counted(chain: dict[str, Any], what: str) -> tuple[float, float] | None:
    """Compose's and the floor's instruction counts for `what` (`per_ref`, `rl_example`), where
    callgrind counted both."""
    found = chain.get("instructions", {}).get(what, {})
    return (found["compose"], found["floor"]) if "compose" in found and "floor" in found else None


def _rl_instructions(chain: dict[str, Any]) -> str:
    pair = counted(chain, "rl_example")
    if pair is None:
        return ""
    a, b = pair
    return (
        f" In instructions per parse (callgrind): compose {a / 1e3:,.0f}k, "
        f"the floor {b / 1e3:,.0f}k, {a / b:.2f}x."
    )


def _least_resolver(per: dict[str, float]) -> str:
    if "split_walk" not in per:  # results from before the suite measured it
        return ""
    least = per["split_walk"]
    return (
        "the least any resolver does (take the path out of `${a.b.c}` and walk it; nothing "
        f"found, checked or stored) {least * 1e6:.3f} µs, {least / per['dict_chain']:.1f}x the "
        "chain; "
    )


def interp_lines(results: Results, chain: dict[str, Any]) -> list[str]:
    lines = []
    per = chain.get("per_ref_s", {})
    if per:
        lines.append(
            f"Per reference, in-process on {chain['workload']} ({chain['refs']} refs): "
            f"a bare dict lookup chain `d[a][b][c]` {per['dict_chain'] * 1e6:.3f} µs; "
            + _least_resolver(per)
            + "the floor's regex resolver (find `${`, split, walk, substitute) "
            f"{per['floor_resolver'] * 1e6:.3f} µs told where the references are, "
            f"{per.get('floor_resolver_tree', 0) * 1e6:.3f} µs walking the whole tree for them; "
            "compose's resolution step alone (caches emptied) "
            f"{per.get('compose_resolution', 0) * 1e6:.3f} µs looking where the file holding "
            "references set keys, as a composition does"
            + (
                f", {per['compose_resolution_tree'] * 1e6:.3f} µs walking the whole tree."
                if "compose_resolution_tree" in per
                else "."
            )
        )
    for system in ("floor", "compose"):
        costs = results.per_reference(system)
        if costs:
            parts = ", ".join(f"{w} {c * 1e6:.2f} µs" for w, c in costs.items())
            lines.append(f"(t(K) - t(0)) / K for {system}, from interleaved runs: {parts}.")
    pair = counted(chain, "per_ref")
    if pair is not None:
        a, b = pair
        lines.append(
            f"In instructions per reference (callgrind, (count(K) - count(0)) / K on "
            f"{chain['instructions']['workload']}, in process): compose {a / 1e3:.1f}k, "
            f"the floor {b / 1e3:.1f}k, compose / floor {a / b:.2f}x."
        )
    small = [v for v in results.interp() if v.k and v.n == min(u.n for u in results.interp())]
    for peer in ("omegaconf", "omegaconf-tomli", "hydra"):
        for w in small[-1:]:
            with_k, without = results.median(w, peer), results.median(Workload(w.n, w.m), peer)
            if with_k and without:
                lines.append(
                    f"(t(K) - t(0)) / K for {peer} on {w.name}: "
                    f"{(with_k - without) / w.k * 1e6:.0f} µs (separate cells)."
                )
    return [*(f"- {line}" for line in lines), ""]


def memory_table(results: Results) -> list[str]:
    rows = []
    for w in results.grid(False) + results.grid(True):
        a, b = results.peak(w, "floor"), results.peak(w, "compose")
        rows.append([w.name, _mib(a), _mib(b), fmt_ratio(b / a if a and b else None)])
    return md_table(["workload", "floor peak", "compose peak", "compose / floor"], rows)


def baseline_of(name: str) -> str | None:
    """The program a cold-start program is compared with: plain Pydantic building the schema,
    but for the dry run, whose baseline (the issue's) is the schema as written, itself
    compared with plain Pydantic on the next row: the two rows add up to the dry run's gap
    to plain Pydantic."""
    if name in (RL_DRY_RUN, DRY_RUN_FLOOR):
        return RL_SCHEMA
    if name.startswith("rl ") and name != RL_BASELINE:
        return RL_BASELINE
    if name.startswith(("compose entry", "prime entry")):
        return GEN_BASELINE
    return None


def paired(a: Timing, b: Timing, cpu: bool = False) -> float | None:
    """The median over rounds of (a - b): both ran in each round, one after the other."""
    xs, ys = (a.cpu_samples, b.cpu_samples) if cpu else (a.samples, b.samples)
    diffs = _differences(xs, ys)
    return statistics.median(diffs) if diffs else None


def _differences(xs: list[float], ys: list[float]) -> list[float]:
    """Per-round differences; none unless both ran the same rounds."""
    return [x - y for x, y in zip(xs, ys, strict=True)] if xs and len(xs) == len(ys) else []


def median_interval(diffs: list[float], z: float = 1.96) -> tuple[float, float]:
    """A distribution-free 95% interval for the median of per-round differences: the order
    statistics n/2 -/+ z*sqrt(n)/2 of the sorted differences (a binomial count of rounds)."""
    ordered = sorted(diffs)
    n = len(ordered)
    spread = z * math.sqrt(n) / 2
    low, high = max(0, math.floor(n / 2 - spread) - 1), min(n - 1, math.ceil(n / 2 + spread) - 1)
    return ordered[low], ordered[high]


def _delta_ms(value: float | None) -> str:
    return "" if value is None else f"{value * 1e3:+.1f} ms"


def _instructions(t: Timing, base: Timing | None) -> str:
    if t.instructions is None:
        return ""
    text = f"{t.instructions / 1e6:.0f}M"
    if base is not None and base.instructions:
        extra = t.instructions - base.instructions
        text += f" ({extra / 1e6:+.1f}M, {extra / base.instructions:+.1%})"
    return text


def cold_table(cold: list[Timing]) -> list[str]:
    by = {t.name: t for t in cold}
    rows = []
    for t in cold:
        base = by.get(baseline_of(t.name) or "")
        rows.append(
            [
                t.name,
                fmt_time(t.median_s),
                fmt_time(t.min_s),
                fmt_time(statistics.median(t.cpu_samples) if t.cpu_samples else None),
                _delta_ms(paired(t, base)) if base else "",
                _delta_ms(paired(t, base, cpu=True)) if base else "",
                _instructions(t, base),
                str(t.runs),
                t.error or "",
            ]
        )
    headers = ["process", "median", "min", "cpu median", "- baseline (paired)", "cpu - baseline"]
    return md_table([*headers, "instructions (- baseline)", "runs", "error"], rows)


# ---------------------------------------------------------------- goals


def goals(results: Results, cold: list[Timing], chain: dict[str, Any]) -> list[Goal]:
    return [
        floor_goal(results, typed=False),
        omegaconf_goal(results),
        floor_goal(results, typed=True, chain=chain),
        interp_goal(results, chain),
        cold_goal(cold),
        memory_goal(results),
        *hydra_goals(chain),
    ]


def hydra_goals(chain: dict[str, Any]) -> list[Goal]:
    """compose_hydra against hydra.compose (`hydra_trees.py`), where it ran."""
    found = chain.get("hydra_trees")
    if not found:
        return []
    return [
        Goal(name, "no data" if met is None else "met" if met else "missed", detail)
        for name, met, detail in hydra_trees.goals(found)
    ]


def hydra_lines(chain: dict[str, Any]) -> list[str]:
    found = chain.get("hydra_trees")
    if not found or "workloads" not in found:
        return []
    table = hydra_trees.report(found).split("\n", 2)[2]  # without its title
    return ["## Hydra config trees: compose_hydra against hydra.compose", "", table]


def floor_goal(results: Results, typed: bool, chain: dict[str, Any] | None = None) -> Goal:
    """The N x M grid; typed, the example rl schema too (the issue names both schemas), from
    the in-process figures in `chain`."""
    kind = "typed" if typed else "schema-less"
    name = f"{kind} compose within {GOAL_FLOOR_RATIO}x of the floor"
    rl_example = chain.get("rl_example") if chain else None
    rl_counted = counted(chain, "rl_example") if chain else None
    ratios = {w.name: results.floor_ratio(w) for w in results.grid(typed)}
    if rl_example:
        ratios["the rl example"] = rl_example["compose_s"] / rl_example["floor_s"]
    known = {k: v for k, v in ratios.items() if v is not None}
    if not known:
        return Goal(name, "no data", "")
    worst = max(known, key=lambda k: known[k])
    over = [f"{k} {v:.2f}x" for k, v in known.items() if v > GOAL_FLOOR_RATIO]
    detail = f"worst {worst} {known[worst]:.2f}x, best {min(known.values()):.2f}x"
    if rl_example and rl_counted is not None:
        detail += f"; the rl example in instructions {rl_counted[0] / rl_counted[1]:.2f}x"
    if over:
        detail += f"; over: {', '.join(over)}"
    return Goal(name, "missed" if over else "met", detail)


def omegaconf_goal(results: Results) -> Goal:
    """Against both OmegaConf adapters; a peer stopped at the timeout counts with its bound."""
    # Schema-less: typed, both pay one model_validate, which leaves even the floor ~10x
    # faster than OmegaConf; those ratios are in the peers' table, not judged here.
    name = (
        f"schema-less compose >= {GOAL_OMEGACONF:.0f}x faster than OmegaConf on every shape, "
        "as users run it (YAML) and fed tomli's dicts"
    )
    found: list[tuple[str, str, float, bool]] = []
    for w in results.grid(typed=False):
        compose = results.compose_equivalent(w)
        for peer in ("omegaconf", "omegaconf-tomli"):
            cell, peer_s = results.cell(w, peer), results.median(w, peer)
            if not compose or cell is None:
                continue
            if peer_s:
                found.append((w.name, peer, peer_s / compose, False))
            elif (w.name, peer) in results.long:
                found.append((w.name, peer, results.long[w.name, peer][0], False))
            elif cell.status in ("timeout", "skipped"):
                found.append((w.name, peer, results.context.timeout_s / compose, True))
    if not found:
        return Goal(name, "no data", "")
    worst = min(found, key=lambda f: f[2])
    under = [
        f"{w} vs {p} {fmt_ratio(r, b)}{_floor_bound(results, w, p)}"
        for w, p, r, b in found
        if r < GOAL_OMEGACONF
    ]
    detail = f"smallest: {worst[0]} vs {worst[1]} {fmt_ratio(worst[2], worst[3])}"
    if under:
        detail += f"; under: {', '.join(under)}"
    if results.long:
        timeout = max(t for _, t in results.long.values())
        longer = f"a {timeout:.0f} s" if timeout else "a longer"
        detail += f" (cells stopped here: from largest/, run with {longer} timeout)"
    return Goal(name, "missed" if under else "met", detail)


def long_ratios(
    cells: list[Cell], pairs: list[Pair], timeout: float
) -> dict[tuple[str, str], tuple[float, float]]:
    """(workload, peer) -> (peer / compose, timeout) from a `--only` run with a long timeout,
    taken through its floor as the main run's ratios are."""
    run = Results(cells, pairs, Context("full", [], [], 0.0, (0.0, 0.0, 0.0), timeout))
    ratios = {}
    for cell in cells:
        compose = run.compose_equivalent(cell.workload)
        if cell.system not in ("compose", "floor") and cell.median_s and compose:
            ratios[cell.workload.name, cell.system] = (cell.median_s / compose, timeout)
    return ratios


def _floor_bound(results: Results, name: str, peer: str) -> str:
    """How much faster than the peer the floor itself is on that workload: the most any system
    that parses the same TOML with tomli could be."""
    w = next(w for w in results.grid(typed=False) + results.grid(typed=True) if w.name == name)
    floor, peer_s = results.cell_median(w, "floor"), results.cell_median(w, peer)
    return f" (the floor: {peer_s / floor:.0f}x)" if floor and peer_s else ""


def interp_goal(results: Results, chain: dict[str, Any]) -> Goal:
    """Judged against the floor's resolver (find `${`, split, walk, substitute), as restated
    on 2026-12-02: in instructions per reference where callgrind counted them (wall-clock
    differences of two noisy timings move by 2x between runs), else end to end. The least any
    resolver does and a bare dict lookup chain are shown beside it."""
    name = f"interpolation per reference within {GOAL_INTERP}x of the floor's resolver"
    if any(c.status == "pending-interp" for c in results.cells):
        return Goal(name, "pending", "compose() does not resolve ${...} yet")
    costs = results.per_reference("compose")
    floor = results.per_reference("floor")
    if not costs or not floor:
        return Goal(name, "no data", "")
    largest = max(int(w.rsplit("-k", 1)[1]) for w in costs)
    costs = {w: c for w, c in costs.items() if w.endswith(f"-k{largest}") and floor.get(w)}
    parts = [
        f"{w}: {c * 1e6:.1f} µs/ref against {floor[w] * 1e6:.1f} = {c / floor[w]:.2f}x"
        for w, c in costs.items()
    ]
    pair = counted(chain, "per_ref")
    if pair is not None:
        judged, how = pair[0] / pair[1], "in instructions"
        parts.insert(0, f"in instructions {pair[0] / 1e3:,.1f}k against {pair[1] / 1e3:,.1f}k")
    elif costs:
        judged, how = max(c / floor[w] for w, c in costs.items()), "end to end"
    else:
        return Goal(name, "no data", "")
    detail = f"{how} {judged:.2f}x; " + "; ".join(parts)
    per = chain.get("per_ref_s", {})
    base, least = per.get("dict_chain"), per.get("split_walk")
    if base and least:
        detail += (
            f"; beside it, the least any resolver does (split the text, walk it) "
            f"{least * 1e6:.2f} µs and a bare dict lookup chain {base * 1e6:.2f} µs"
        )
    return Goal(name, "met" if judged <= GOAL_INTERP else "missed", detail)


def _against_floor_per_reference(
    results: Results, costs: dict[str, float], chain: dict[str, Any]
) -> str:
    """For the record, not judged: compose's cost per reference against the floor's own."""
    floor = results.per_reference("floor")
    parts = [f"{w} {c / floor[w]:.2f}x" for w, c in costs.items() if floor.get(w)]
    pair = counted(chain, "per_ref")
    if pair is not None:
        parts.append(f"in instructions {pair[0] / pair[1]:.2f}x")
    return f"; against the floor's cost per reference: {', '.join(parts)}" if parts else ""


# The judged pairs, then those shown beside them: (program, baseline, judged)
COLD_PAIRS = (
    (RL_HELP, RL_BASELINE, True),
    (RL_DRY_RUN, RL_SCHEMA, True),  # the words: within 20 ms of `import rl_app.config`
    (RL_DRY_RUN, RL_BASELINE, False),  # and against plain Pydantic, as --help is judged
    (DRY_RUN_FLOOR, RL_SCHEMA, False),  # the least a dry run with its record costs
    (RL_DRY_RUN, DRY_RUN_FLOOR, False),  # what compose's dry run costs past that
    (GEN_HELP, GEN_BASELINE, False),  # the generated 514-field schema
)


def cold_goal(cold: list[Timing]) -> Goal:
    """`rl --help` against plain Pydantic building the schema, and the dry run against
    `import rl_app.config` (the issue's baseline), judged on the median of per-round
    differences; the dry run against plain Pydantic and the 514-field schema's pair shown."""
    name = (
        f"cold rl --help within {GOAL_COLD_MS:.0f} ms of import pydantic + building the schema; "
        f"rl @ rl.toml --dry-run within {GOAL_COLD_MS:.0f} ms of python -c 'import rl_app.config'"
    )
    by = {t.name: t for t in cold}
    parts, judged = [], []
    for program, baseline, counts in COLD_PAIRS:
        a, b = by.get(program), by.get(baseline)
        if a is None or b is None or a.median_s is None or b.median_s is None:
            continue
        extra, text = _cold_difference(a, b)
        if counts:
            judged.append(extra * 1e3)
        counted = _instructions(a, b)
        counted_text = f"; instructions {counted})" if counted else ")"
        shown = f"{program} - {baseline}: {text}{counted_text}"
        parts.append(shown + ("" if counts else " (shown, not judged)"))
    if len(judged) < 2:
        return Goal(name, "no data", "; ".join(parts))
    status = "met" if max(judged) <= GOAL_COLD_MS else "missed"
    return Goal(name, status, "; ".join(parts))


def _cold_difference(a: Timing, b: Timing) -> tuple[float, str]:
    """The judged difference, and how it was read: from the pair's own rounds where it ran
    them, else from the rounds of every program (the median of per-round differences)."""
    # A group's own rounds pair only with each other (a program of two groups keeps the first's)
    alone = b.name in partners(a) and a.name in partners(b)
    own = _differences(a.pair_samples, b.pair_samples) if alone else []
    among_all = _differences(a.samples, b.samples)
    if own:
        diffs, how = own, "rounds of the pair alone, in alternating order"
        cpu = _differences(a.pair_cpu_samples, b.pair_cpu_samples)
    else:
        diffs, how = among_all, "paired rounds"
        cpu = _differences(a.cpu_samples, b.cpu_samples)
    if not diffs:  # a results.json from before samples were kept
        extra = (a.median_s or 0.0) - (b.median_s or 0.0)
        return extra, f"{_delta_ms(extra)} (difference of medians"
    low, high = median_interval(diffs)
    extra = statistics.median(diffs)
    text = f"{_delta_ms(extra)} (median of {len(diffs)} {how}, 95% interval "
    text += f"{_delta_ms(low)} to {_delta_ms(high)}"
    text += f"; CPU {_delta_ms(statistics.median(cpu))}" if cpu else ""
    if own and among_all:
        text += f"; among all programs' rounds {_delta_ms(statistics.median(among_all))}"
    return extra, text


def memory_goal(results: Results) -> Goal:
    name = f"peak memory within {GOAL_MEMORY:.0f}x of the floor"
    ratios = {}
    for w in results.grid(False) + results.grid(True):
        a, b = results.peak(w, "floor"), results.peak(w, "compose")
        if a and b:
            ratios[w.name] = b / a
    if not ratios:
        return Goal(name, "no data", "")
    worst = max(ratios, key=lambda k: ratios[k])
    status = "met" if ratios[worst] <= GOAL_MEMORY else "missed"
    detail = f"worst {worst} {ratios[worst]:.2f}x, best {min(ratios.values()):.2f}x"
    return Goal(name, status, detail)


# ---------------------------------------------------------------- machine


def engine_version() -> str:
    """The commit the engine was measured at, and whether compose/ had uncommitted changes."""
    import subprocess  # noqa: PLC0415  # read-only git queries, only when writing the report

    repo = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=repo,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "compose"],
            cwd=repo,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head} (compose/ modified)" if dirty else head


def machine() -> dict[str, Any]:
    cpu, memory = "unknown", "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f"{int(line.split()[1]) / 2**20:.1f} GiB"
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory": memory,
        "os": platform.platform(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "packages": packages(),
        "engine": engine_version(),
    }


def packages() -> dict[str, str]:
    """Each package's version here, but hydra-core's from the side venv its peers run in."""
    found = {name: _version(name) for name in PACKAGES}
    side = hydra_trees.side_versions()
    if side is not None:
        found["hydra-core"] = (
            f"{side['hydra-core']} (in {hydra_trees.SIDE_VENV.name}, on omegaconf "
            f"{side['omegaconf']})"
        )
    return found


def _version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def machine_lines(info: dict[str, Any]) -> list[str]:
    m = info["machine"]
    packages = ", ".join(f"{k} {v}" for k, v in m["packages"].items())
    before, after = info["load_before"], info["load_after"]
    return [
        f"- CPU: {m['cpu']}, {m['cores']} cores; memory {m['memory']}",
        f"- {m['os']}; {m['implementation']} {m['python']}",
        f"- engine: commit {info['engine_at_start']} at the start, {m['engine']} at the end; "
        f"packages: {packages}",
        f"- load average (1, 5, 15 min) at start {before[0]:.2f} {before[1]:.2f} "
        f"{before[2]:.2f}, at the end {after[0]:.2f} {after[1]:.2f} {after[2]:.2f}: other "
        "work shared the machine, so compare ratios within this run, not absolute times",
    ]


# ---------------------------------------------------------------- plot


def plot(results: Results, path: Path) -> bool:
    try:
        import matplotlib  # noqa: PLC0415  # optional: the report is complete without the plot

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        return False
    figure, axes = plt.subplots(1, 2, figsize=(13, 5.5), sharey=True)
    for axis, typed in zip(axes, (False, True), strict=True):
        for name in results.context.systems:
            _plot_system(axis, results, results.grid(typed), name)
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("total leaves read (N files x M leaves)")
        kind = "typed (514-field schema)" if typed else "schema-less"
        axis.set_title(f"{kind}: median time per composition")
        axis.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("seconds")
    axes[1].legend(loc="upper left", fontsize=8)
    figure.text(
        0.01,
        0.01,
        f"open triangles at {results.context.timeout_s:.0f} s: stopped at "
        "the timeout (the real time is longer); dots: each N x M cell; lines: the "
        "geometric mean at equal totals",
        fontsize=8,
    )
    figure.tight_layout(rect=(0, 0.03, 1, 1))
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return True


def _plot_system(axis: Any, results: Results, workloads: list[Workload], name: str) -> None:
    """Every cell as a dot; the line through the geometric mean at each total."""
    points: dict[int, list[float]] = {}
    for w in workloads:
        median = results.median(w, name)
        if median:
            points.setdefault(w.leaves, []).append(median)
    if not points:
        return
    xs = sorted(points)
    ys = [statistics.geometric_mean(points[x]) for x in xs]
    color, style = STYLES.get(name, ("tab:gray", "-"))
    width = 2.2 if name in ("floor", "compose") else 1.2
    axis.plot(xs, ys, style, color=color, label=name, linewidth=width)
    for x in xs:
        axis.plot([x] * len(points[x]), points[x], "o", color=color, markersize=3)
    stopped = [w.leaves for w in workloads if _stopped(results.cell(w, name))]
    if stopped:
        limit = [results.context.timeout_s] * len(stopped)
        axis.plot(stopped, limit, "^", color=color, markersize=7, markerfacecolor="none")


def _stopped(cell: Cell | None) -> bool:
    return cell is not None and cell.status == "timeout"


STYLES = {
    "floor": ("black", "--"),
    "compose": ("tab:red", "-"),
    "omegaconf": ("tab:blue", "-"),
    "omegaconf-tomli": ("tab:cyan", "-"),
    "hydra": ("tab:green", "-"),
    "prime-pydantic-config": ("tab:purple", "-"),
    "pydantic-settings": ("tab:brown", "-"),
    "jsonargparse": ("tab:gray", "-"),
}


# ---------------------------------------------------------------- writing


def failures(
    cells: list[Cell],
    plan_name: str,
    rl_example: dict[str, Any] | None = None,
    cold: list[Timing] | None = None,
    hydra: dict[str, Any] | None = None,
) -> list[str]:
    found = [f"{c.id}: {c.note}" for c in cells if c.status == "error"]
    # a cold-start program that fails leaves its goal without data (the rl baseline's shim
    # once lacked names the example's schema imports, and --quick said nothing)
    found += [f"cold start {t.name}: {t.error}" for t in cold or [] if t.error is not None]
    found += [
        f"{c.id}: disagrees with {c.record.get('checked_against')}: "
        f"{'; '.join(c.record.get('diff', []))}"
        for c in cells
        if c.status == "ok" and c.record.get("agrees") is False
    ]
    if plan_name == "quick":
        found += [f"{c.id}: {c.note}" for c in cells if c.status == "timeout"]
    if rl_example is not None and not rl_example["agrees"]:
        found.append("the rl example: compose and the floor give different configs")
    if hydra is not None:
        found += hydra_trees.failures(hydra)
    return found


def markdown(
    results: Results, cold: list[Timing], chain: dict[str, Any], info: dict[str, Any]
) -> str:
    context = results.context
    lines = [*intro_lines(context, info), "## Machine", "", *machine_lines(info), ""]
    lines += ["## Goals", ""]
    lines += md_table(
        ["goal", "status", "figures"],
        [
            [g.name, g.status.upper() if g.status == "missed" else g.status, g.detail]
            for g in goals(results, cold, chain)
        ],
    )
    lines += ["## Schema-less: N files x M leaves (files only)", ""]
    lines += timing_table(results, results.grid(False))
    lines += ["## Typed: the same shapes bound onto the 514-field schema", ""]
    lines += timing_table(results, results.grid(True))
    lines += rl_example_lines(chain)
    lines += ["## Interpolation: K references in the last file", ""]
    lines += interp_table(results)
    lines += interp_lines(results, chain)
    lines += ["## CLI: 200 overrides on top of the files", ""]
    lines += timing_table(results, results.workloads(lambda w: w.overrides > 0))
    lines += growth_lines(results)
    lines += hydra_lines(chain)
    lines += ["## Peak memory (tracemalloc, one call)", "", *memory_table(results)]
    lines += [
        "## Cold start (whole processes)",
        "",
        "Each command run as a fresh process (from the generated schema's directory), every "
        "command once per round, in turn (the order reversed every other round), after "
        "warm-up rounds. Beside each program's median: "
        "the median over rounds of its time minus its plain-Pydantic baseline's in the same "
        "round (wall, then CPU: user + system), and, where valgrind is installed, callgrind's "
        "instruction count, which does not move with the load of the machine. The judged "
        "pairs (rl --help and its baseline; the dry run and `import rl_app.config`) then run "
        "rounds of their own, two programs alone in alternating order; the goal is read "
        "from those (see Goals), this table from the rounds of every program. The rl "
        "commands run from the checkout, as the issue's `rl @ examples/reverse_text/rl.toml "
        "--dry-run` does: its run record asks the checkout's git.",
        "",
        *cold_table(cold),
    ]
    if chain.get("cold_phases"):
        lines += [
            "### The rl dry run by phase (callgrind, instructions)",
            "",
            "`coldstart.phase_split`: the dry run as `rl` makes it, counted between markers, "
            "beside `import rl_app.config`. The git process the record starts is not counted "
            "(it runs on another core while the record finds its origins).",
            "",
            chain["cold_phases"],
        ]
    lines += notes_lines(results)
    return "\n".join(lines) + "\n"


def intro_lines(context: Context, info: dict[str, Any]) -> list[str]:
    flag = " --quick" if context.plan_name == "quick" else ""
    minutes = info["duration_s"] / 60
    quick = (
        " Quick mode: one run per cell on tiny files; the figures only show that the suite runs."
        if flag
        else ""
    )
    if context.reused and context.report_only:  # the measuring run's words, then this rewrite
        flag, quick = info.get("flags", flag), info.get("provenance", "")
        quick += f" (Report rewritten from its results.json on {info['rewritten']}.)"
    elif context.reused and context.redo_pairs:
        flag += f" --reuse {Path(context.reused).name} --redo-pairs"
        quick = (
            " The cells come from an earlier full run's results.json (its engine: "
            f"{info.get('reused_engine', '?')}); the interleaved pairs, cold start, the lookup "
            "chain and this report were redone."
        )
    elif context.reused:
        flag += f" --reuse {Path(context.reused).name}"
        quick = (
            " The cells and pairs come from an earlier full run's results.json; cold start, "
            "the lookup chain and this report were redone."
        )
    if context.only:
        flag += f" --only {','.join(context.only)} --timeout {context.timeout_s:.0f}"
        quick += (
            f" Only these workloads, on {', '.join(context.systems)}: no cold start, lookup "
            "chain or profiles, so those goals have no data here."
        )
    if not context.report_only:  # kept, for a rewrite of this report
        info["flags"], info["provenance"] = flag, quick
    return [
        "# Benchmark results",
        "",
        f"Generated by `python benchmarks/run.py{flag}` on {info['date']} in {minutes:.0f} min."
        f"{quick} Times are medians. Each cell (a system on a workload) runs in its own "
        "process: set-up, a warm-up, then k runs (k for about 1 s; a warm-up over 1 s is one "
        "of three runs, over 15 s the only run). The floor and compose columns, and compose / "
        "floor, come from a second process that calls the two in turn (A B A B ...), so that "
        "load from other work cancels out of the ratio: compose / floor is the median over "
        "rounds of the ratio within each round. A system whose set-up and first call "
        f"take over {context.timeout_s:.0f} s is stopped (`timeout`); its larger cells of the "
        "same kind are `skipped`, and ratios against it are lower bounds (`>`). In "
        "parentheses: peer / compose, taken through the floor: the peer's cell over the "
        "floor's (both timed alike, in the same pass), divided by compose / floor from the "
        "pair. ✗ marks a result that differs from compose's.",
        "",
    ]


def growth_lines(results: Results) -> list[str]:
    return [
        "## Growth: µs per leaf (N x M grid), and the fitted log-log slope",
        "",
        "A slope of 1.00 is linear in total leaves. At equal totals (1 x 10000, 10 x 1000, "
        "100 x 100) the per-leaf cost shows what each file costs.",
        "",
        "Schema-less:",
        "",
        *per_leaf_table(results, results.grid(False)),
        "Typed:",
        "",
        *per_leaf_table(results, results.grid(True)),
    ]


def notes_lines(results: Results) -> list[str]:
    context, cells = results.context, results.cells
    lines = ["## What each system does", ""]
    lines += [f"- **{s.name}**: {s.note}" for s in peers.SYSTEMS if s.name in context.systems]
    if context.missing:
        lines.append(f"- not installed (left out): {', '.join(context.missing)}")
    na = sorted({(c.system, c.note) for c in cells if c.status == "n/a"})
    lines += ["", "Not applicable (n/a):", "", *(f"- {s}: {n}" for s, n in na)]
    other = [c for c in cells if c.status in ("timeout", "error", "skipped")]
    if other:
        lines += ["", "Timeouts, skips and errors:", ""]
        lines += [f"- {c.id}: {c.status} ({c.note})" for c in other]
    if results.long:
        ratios = ", ".join(f"{w} {p} {r:.0f}x" for (w, p), (r, _) in sorted(results.long.items()))
        lines += ["", f"Re-run with a longer timeout ([{LONG_DIR}/RESULTS.md]"]
        lines[-1] += f"({LONG_DIR}/RESULTS.md)), peer / compose: {ratios}."
    differ = [c for c in cells if c.record.get("agrees") is False]
    verdict = f"{len(differ)} differ:" if differ else "all agree."
    lines += [
        "",
        "Agreement: every result is compared with compose's (with the floor's where compose "
        f"is pending); {verdict}",
        *(f"- {c.id}: {'; '.join(c.record.get('diff', []))}" for c in differ),
    ]
    if context.profiles:
        lines += ["", "Profiles: " + ", ".join(f"[{p}]({p})" for p in context.profiles)]
    return [*lines, ""]


def run_info(context: Context) -> dict[str, Any]:
    return {
        "timeout_s": context.timeout_s,
        "date": datetime.datetime.now().strftime("%Y-%m-%d %H:%M"),
        "duration_s": datetime.datetime.now().timestamp() - context.started,
        "machine": machine(),
        "load_before": context.load_before,
        "load_after": os.getloadavg(),
        "plan": context.plan_name,
        "engine_at_start": context.engine_at_start,
    }


def write(
    out: Path,
    cells: list[Cell],
    pairs: list[Pair],
    cold: list[Timing],
    chain: dict[str, Any],
    context: Context,
    long: tuple[list[Cell], list[Pair], float] | None = None,
) -> list[str]:
    """Write the report files; return the failures (crashes, disagreements) to exit 1 on.
    `long`: the cells, pairs and timeout of a `--only` run with a longer timeout (LONG_DIR)."""
    results = Results(cells, pairs, context)
    if long is not None:
        results.long = long_ratios(*long)
    if context.reused and context.report_only:  # the run that measured, not this rewrite
        info = json.loads(Path(context.reused).read_text())["info"]
        info["rewritten"] = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    else:
        info = run_info(context)
        if context.reused:
            info["reused_engine"] = json.loads(Path(context.reused).read_text())["info"].get(
                "engine_at_start", "?"
            )
    (out / "RESULTS.md").write_text(markdown(results, cold, chain, info))
    data = {
        "info": info,
        "goals": [asdict(g) for g in goals(results, cold, chain)],
        "cells": [
            {
                "name": c.workload.name,
                "workload": c.workload.to_json(),
                "system": c.system,
                "status": c.status,
                "note": c.note,
                **c.record,
            }
            for c in cells
        ],
        "pairs": [{"id": p.id, "label": p.label, **p.record} for p in pairs],
        "cold_start": [asdict(t) for t in cold],
        "lookup_chain": chain,
    }
    (out / "results.json").write_text(json.dumps(data, indent=1, default=str))
    plot(results, out / "time_vs_leaves.png")
    return failures(
        cells, context.plan_name, chain.get("rl_example"), cold, chain.get("hydra_trees")
    )
