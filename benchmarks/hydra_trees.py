"""Hydra config trees: `compose.compose_hydra` against hydra-core's Compose API on the same tree.

    python benchmarks/hydra_trees.py [--quick] [--out DIR]
    python benchmarks/hydra_trees.py --side-venv     # only make .venv-hydra (CI, the tests)

hydra-core 1.3.8 pins omegaconf < 2.4 and the dev environment pins 2.4, so the measuring runs
in a side venv, `.venv-hydra` at the checkout's root (hydra-core 1.3.8, omegaconf 2.3 and
compose itself, editable): made here when it is missing, the one the property test against
hydra-core uses (tests/hydra/test_hydra_property.py). One process in that venv times both
systems on each workload, called in turn (compose first in even rounds, Hydra first in odd
ones), so that load from other work cancels out of the ratio, which is the median over rounds
of Hydra / compose within each round:

- **largest**: the tree of `shared/realworld/hydra/trees` with the most config files, and
  among its recorded cases the one whose defaults list is longest (read there at run time,
  never copied into the project; left out where that folder is missing);
- **generated**: `workloads.write_hydra_tree`, tens of groups and hundreds of keys, nested
  defaults lists, `group@package`, an experiment (`# @package _global_`, `override`) chosen
  on the command line, value overrides and interpolations;
- **multirun**: 1,000 jobs on a generated tree (a group's ten options x ten seeds x ten
  values) expanded and validated against a schema (`schema=`, `multirun=True`), against Hydra
  composing each job from its override list (what its BasicSweeper does before it launches
  anything), the job lists from Hydra's own sweep expansion, each config validated by the
  same Pydantic model.

Each pair of results is compared (compose's dict or model against Hydra's resolved
container); a difference fails the run. Goals: compose >= 50x Hydra on the first two, >= 40x
on the multirun. Writes `hydra_trees.json` and `hydra_trees.md` to `--out` (default:
benchmarks/results/; with `--quick`, a temporary folder: its timings mean nothing).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from workloads import HydraTree, write_hydra_tree

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
# shared/ sits beside the main checkout (a worktree is a level deeper): the nearest one up
REALWORLD = next(
    (up / "shared/realworld/hydra" for up in ROOT.parents if (up / "shared/realworld").is_dir()),
    ROOT.parent / "shared/realworld/hydra",
)
SIDE_VENV = ROOT / ".venv-hydra"
# What the side venv holds: the Hydra that the recorded cases ran, on its own omegaconf
HYDRA_PINS = ("hydra-core==1.3.8", "omegaconf>=2.3,<2.4", "pyyaml>=6")
SIDE_PACKAGES = ("hydra-core", "omegaconf")  # the versions a report names
GOAL_SINGLE = 50.0
GOAL_MULTIRUN = 40.0


# ---------------------------------------------------------------- the side venv


def side_python() -> Path:
    """The side venv's python, the venv made first where it is missing (a minute or two)."""
    python = SIDE_VENV / "bin" / "python"
    if not python.exists():
        print(f"making {SIDE_VENV.name} (hydra-core beside its own omegaconf) ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(SIDE_VENV)], check=True)
        install = [str(python), "-m", "pip", "install", "-q", *HYDRA_PINS, "-e", str(ROOT)]
        subprocess.run(install, check=True)
    return python


def versions() -> dict[str, str]:
    """The side venv's hydra-core and omegaconf, asked in the side venv."""
    from importlib import metadata  # noqa: PLC0415  # the side venv only

    return {name: metadata.version(name) for name in SIDE_PACKAGES}


def side_versions() -> dict[str, str] | None:
    """`versions()` of the side venv where it exists (never made for this), else None."""
    python = SIDE_VENV / "bin" / "python"
    if not python.exists():
        return None
    command = [str(python), str(Path(__file__).resolve()), "--versions"]
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=HERE)
    found: dict[str, str] | None = json.loads(done.stdout) if done.returncode == 0 else None
    return found


def run(quick: bool, workdir: Path) -> dict[str, Any]:
    """Every workload measured in the side venv (its own process); the results as JSON."""
    try:
        python = side_python()
    except (OSError, subprocess.CalledProcessError) as error:
        return {"error": f"the side venv {SIDE_VENV} could not be made: {error}"}
    command = [str(python), str(Path(__file__).resolve()), "--child", str(workdir)]
    if quick:
        command.append("--quick")
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=HERE)
    if done.returncode != 0:
        return {"error": (done.stderr or done.stdout)[-1500:]}
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


# ---------------------------------------------------------------- the workloads


def largest_case() -> dict[str, Any] | None:
    """The realworld tree with the most config files, and its recorded single-run case (no
    store, composed by Hydra) with the longest defaults list: what to compose from it."""
    cases_file, trees = REALWORLD / "cases.json", REALWORLD / "trees"
    if not cases_file.exists():
        return None
    sizes = {
        tree.name: sum(1 for _ in tree.rglob("*.yaml")) for tree in trees.iterdir() if tree.is_dir()
    }
    largest = max(sorted(sizes), key=lambda name: sizes[name])
    cases = [
        case
        for case in json.loads(cases_file.read_text(encoding="utf-8"))["cases"]
        if case["tree"] == largest
        and "resolved" in case
        and not case["multirun"]
        and not case["store"]
        and not case["env"]
        and case["version_base"] == "1.3"
    ]
    case = max(sorted(cases, key=lambda c: c["id"]), key=lambda c: len(c["defaults"]))
    return {
        "name": "largest",
        "what": f"`{largest}` ({sizes[largest]} config files), case `{case['id']}`: "
        f"`{case['config_name']}` {' '.join(case['overrides']) or '(no overrides)'}, "
        f"{len(case['defaults'])} defaults entries",
        "dir": str(trees / largest),
        "config_name": case["config_name"],
        "overrides": case["overrides"],
    }


def on_tree(name: str, tree: HydraTree, what: str, overrides: tuple[str, ...]) -> dict[str, Any]:
    """A workload on a generated tree: its primary composed with `overrides`."""
    return {
        "name": name,
        "what": f"{what}, {tree.files} config files: `config` {' '.join(overrides)}",
        "dir": str(tree.root),
        "config_name": tree.config_name,
        "overrides": list(overrides),
        "points": tree.sweep_points,
    }


def plan(quick: bool, workdir: Path) -> list[dict[str, Any]]:
    """The workloads, their trees written under `workdir`; --quick: small ones, one round."""
    big = write_hydra_tree(workdir / "generated", groups=8 if quick else 30)
    sweep = 2 if quick else 10
    small = write_hydra_tree(workdir / "multirun", groups=4 if quick else 10, sweep=sweep)
    found = [
        on_tree("generated", big, "`workloads.write_hydra_tree`", big.overrides),
        on_tree(
            "multirun",
            small,
            f"{small.sweep_points:,} jobs validated against a schema, a generated tree",
            small.sweep,
        ),
    ]
    largest = largest_case()
    if largest is not None:
        found.insert(0, largest)
    rounds = {"largest": 30, "generated": 30, "multirun": 3}
    for workload in found:
        workload["rounds"] = 1 if quick else rounds[workload["name"]]
    return found


# ---------------------------------------------------------------- in the side venv


def measure(workloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
    import warnings  # noqa: PLC0415  # the side venv's process only

    warnings.simplefilter("ignore")  # both systems warn of a primary without _self_
    return [measure_one(workload) for workload in workloads]


def measure_one(workload: dict[str, Any]) -> dict[str, Any]:
    """Both systems' calls, a warm-up each, then `rounds` rounds of the two in turn."""
    is_multirun = workload["name"] == "multirun"
    ours, theirs, same = (multirun_calls if is_multirun else single_calls)(workload)
    agrees = same(ours(), theirs())
    times: dict[str, list[float]] = {"compose": [], "hydra": []}
    for index in range(workload["rounds"]):
        order = [("compose", ours), ("hydra", theirs)]
        for name, call in order if index % 2 == 0 else order[::-1]:
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    ratios = [h / c for c, h in zip(times["compose"], times["hydra"], strict=True)]
    return {
        **{k: v for k, v in workload.items() if k != "rounds"},
        "times": times,
        "compose_s": statistics.median(times["compose"]),
        "hydra_s": statistics.median(times["hydra"]),
        "ratio": statistics.median(ratios),
        "agrees": agrees,
    }


@contextlib.contextmanager
def inside(directory: str) -> Iterator[None]:
    """In the tree's parent, as the recorded cases ran (a relative file:// path reads there)."""
    before = os.getcwd()
    os.chdir(Path(directory).parent)
    try:
        yield
    finally:
        os.chdir(before)


def hydra_compose(directory: str, name: str, overrides: list[str]) -> dict[str, Any]:
    """Hydra's config of a tree: `compose` in `initialize_config_dir`, resolved, its `hydra`
    node dropped (what `compose_hydra` gives)."""
    from hydra import compose, initialize_config_dir  # noqa: PLC0415  # the side venv only
    from omegaconf import OmegaConf  # noqa: PLC0415  # the side venv only

    with inside(directory), initialize_config_dir(config_dir=directory, version_base="1.3"):
        config = compose(config_name=name, overrides=overrides)
    found = OmegaConf.to_container(config, resolve=True)
    assert isinstance(found, dict)
    found.pop("hydra", None)
    return found


def single_calls(workload: dict[str, Any]) -> tuple[Callable[[], Any], Callable[[], Any], Any]:
    import compose as ours_module  # noqa: PLC0415  # the side venv's own install

    directory, name, overrides = workload["dir"], workload["config_name"], workload["overrides"]

    def ours() -> Any:
        with inside(directory):
            return ours_module.compose_hydra(directory, name, overrides)

    def theirs() -> Any:
        return hydra_compose(directory, name, overrides)

    return ours, theirs, lambda a, b: a == b


def multirun_calls(workload: dict[str, Any]) -> tuple[Callable[[], Any], Callable[[], Any], Any]:
    from hydra import compose, initialize_config_dir  # noqa: PLC0415  # the side venv only
    from hydra._internal.core_plugins.basic_sweeper import (  # noqa: PLC0415  # side venv
        BasicSweeper,
    )
    from hydra.core.global_hydra import GlobalHydra  # noqa: PLC0415  # the side venv only
    from hydra.core.override_parser.overrides_parser import (  # noqa: PLC0415  # side venv
        OverridesParser,
    )
    from omegaconf import OmegaConf  # noqa: PLC0415  # the side venv only

    import compose as ours_module  # noqa: PLC0415  # the side venv's own install

    directory, name, overrides = workload["dir"], workload["config_name"], workload["overrides"]
    with inside(directory):
        first = ours_module.compose_hydra(directory, name, [])
    schema = model_of("Config", first)

    def ours() -> Any:
        with inside(directory):
            return ours_module.compose_hydra(
                directory, name, overrides, schema=schema, multirun=True
            )

    def theirs() -> Any:
        runs = []
        with inside(directory), initialize_config_dir(config_dir=directory, version_base="1.3"):
            # as BasicSweeper expands them: glob() lists a group's options through the loader
            loader = GlobalHydra.instance().config_loader()
            parsed = OverridesParser.create(config_loader=loader).parse_overrides(overrides)
            batches = BasicSweeper.split_arguments(parsed, None)
            for job in (list(job) for batch in batches for job in batch):
                config = compose(config_name=name, overrides=job)
                found = OmegaConf.to_container(config, resolve=True)
                assert isinstance(found, dict)
                found.pop("hydra", None)
                runs.append((job, schema.model_validate(found)))
        return runs

    def same(a: Any, b: Any) -> bool:
        return (
            len(a) == len(b) == workload["points"]
            and [job for job, _ in a] == [job for job, _ in b]
            and all(x.model_dump() == y.model_dump() for (_, x), (_, y) in zip(a, b, strict=True))
        )

    return ours, theirs, same


def model_of(name: str, value: dict[str, Any]) -> Any:
    """A closed Pydantic model of the config's shape: each leaf typed as its value is (a
    schema a user would write for the tree: every job's config fits it)."""
    from pydantic import ConfigDict, create_model  # noqa: PLC0415  # the side venv only

    fields: dict[str, Any] = {}
    for key, below in value.items():
        if isinstance(below, dict):
            kind: Any = model_of(f"{name}_{key}", below)
        elif isinstance(below, list):
            kind = list[type(below[0])] if below else list[Any]  # type: ignore[misc]
        else:
            kind = type(below)
        fields[key] = (kind, ...)
    return create_model(name, __config__=ConfigDict(extra="forbid"), **fields)


# ---------------------------------------------------------------- the report


def report(result: dict[str, Any]) -> str:
    lines = [
        "# Hydra config trees: compose_hydra against hydra.compose",
        "",
        "`benchmarks/hydra_trees.py`, in one process in the side venv (hydra-core "
        f"{result['versions']['hydra-core']}, omegaconf {result['versions']['omegaconf']}); "
        "the two called in turn, their order swapped every round; medians, and Hydra / compose "
        "as the median over rounds of the ratio within each round.",
        "",
        "| workload | what | rounds | compose | hydra | hydra / compose | goal | same result |",
        "|---|---|---:|---:|---:|---:|---|---|",
    ]
    for found in result["workloads"]:
        goal = GOAL_MULTIRUN if found["name"] == "multirun" else GOAL_SINGLE
        status = "met" if found["ratio"] >= goal else "MISSED"
        lines.append(
            f"| {found['name']} | {found['what']} | {len(found['times']['compose'])} | "
            f"{found['compose_s'] * 1e3:.2f} ms | {found['hydra_s'] * 1e3:.1f} ms | "
            f"{found['ratio']:.1f}x | >= {goal:g}x: {status} | "
            f"{'yes' if found['agrees'] else '✗ NO'} |"
        )
    lines += ["", f"Python {result['python']}; {result['date']}.", ""]
    return "\n".join(lines)


def goals(result: dict[str, Any]) -> list[tuple[str, bool | None, str]]:
    """(goal, met (None: no data), figures) for RESULTS.md's table of goals."""
    if "workloads" not in result:
        return [("compose_hydra >= 50x hydra.compose", None, result.get("error", "")[-200:])]
    by = {found["name"]: found for found in result["workloads"]}
    single = [by[name] for name in ("largest", "generated") if name in by]
    found = []
    if single:
        figures = "; ".join(
            f"{w['name']} {w['ratio']:.1f}x ({w['compose_s'] * 1e3:.2f} ms against "
            f"{w['hydra_s'] * 1e3:.1f} ms)"
            for w in single
        )
        met = all(w["ratio"] >= GOAL_SINGLE for w in single)
        found.append((f"compose_hydra >= {GOAL_SINGLE:g}x hydra.compose on a tree", met, figures))
    if "multirun" in by:
        w = by["multirun"]
        figures = (
            f"{w['points']:,} jobs: {w['ratio']:.1f}x ({w['compose_s']:.2f} s against "
            f"{w['hydra_s']:.1f} s)"
        )
        found.append(
            (
                f"a 1,000-job multirun, validated, >= {GOAL_MULTIRUN:g}x Hydra per job",
                w["ratio"] >= GOAL_MULTIRUN,
                figures,
            )
        )
    return found


def failures(result: dict[str, Any]) -> list[str]:
    if "workloads" not in result:
        return [f"hydra trees: {result.get('error', 'no result')}"]
    return [
        f"hydra trees: {w['name']}: compose_hydra and hydra.compose differ"
        for w in result["workloads"]
        if not w["agrees"]
    ]


def child(workdir: Path, quick: bool) -> None:
    import platform  # noqa: PLC0415  # the side venv only

    result = {
        "workloads": measure(plan(quick, workdir)),
        "versions": versions(),
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "quick": quick,
    }
    print(json.dumps(result))


def write(result: dict[str, Any], out: Path) -> None:
    """`hydra_trees.json` and (when it ran) `hydra_trees.md` in `out`."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "hydra_trees.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    if "workloads" in result:
        (out / "hydra_trees.md").write_text(report(result), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small trees, one round (CI)")
    parser.add_argument("--out", type=Path, help="default: results/ (a temporary one: --quick)")
    parser.add_argument(
        "--side-venv", action="store_true", help=f"make {SIDE_VENV.name} if missing, and stop"
    )
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)  # in the side venv
    parser.add_argument("--versions", action="store_true", help=argparse.SUPPRESS)  # the same
    args = parser.parse_args(argv)
    if args.side_venv:
        print(side_python())
        return 0
    if args.versions:
        print(json.dumps(versions()))
        return 0
    if args.child:
        child(args.child, args.quick)
        return 0
    with tempfile.TemporaryDirectory(prefix="compose-hydra-bench-") as workdir:
        result = run(args.quick, Path(workdir))
    out = args.out or (Path(tempfile.mkdtemp()) if args.quick else RESULTS)
    write(result, out)
    if "workloads" in result:
        print(report(result))
    problems = failures(result)
    for line in problems:
        print(f"FAIL {line}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
