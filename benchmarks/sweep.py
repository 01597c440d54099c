"""A 1,000-point sweep over the example rl app: compose against Hydra's multirun, side by side.

    .venv/bin/python benchmarks/sweep.py [--points-per-axis 10] [--rounds 5] [--out DIR]

In the README's environment (the example app installed). Hydra's part runs in the side venv
`.venv-hydra` of `hydra_trees.py` (made there when missing), in a process of its own: hydra-core
pins omegaconf below the dev environment's pin.

The sweep: `examples/reverse_text/rl.toml` with three axes of N values each (learning rate,
max_steps, LoRA rank): N**3 points, 1,000 by default. Measured, each the best of `--rounds`:

- compose: `compose.sweep()`, every point composed and validated (an `RLConfig`) with its
  fingerprint; and the same plus `write_sweep()` (every record, the manifest) into a
  temporary directory;
- Hydra: what its BasicSweeper does before a multirun launches (`validate_batch_is_legal`):
  compose each job's config from its override strings, here with `hydra.compose` over the
  same config as a YAML tree. Hydra validates nothing against a schema: it does less.

Prints a table and the ratio (goal: compose at least 40x faster, and under 1 s), and writes
`sweep.json` and `sweep.md` to `--out` (default: benchmarks/results/ for the 1,000-point sweep;
a smaller one only prints its table).
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tomli
import yaml
from hydra_trees import SIDE_VENV, side_python

import compose

if TYPE_CHECKING:
    from rl_app.config import RLConfig

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent / "examples" / "reverse_text" / "rl.toml"
GOAL_RATIO = 40.0
GOAL_SECONDS = 1.0


def axes(n: int) -> dict[str, list[str]]:
    """Three axes of `n` values each, keys the example file sets (Hydra overrides need them)."""
    return {
        "trainer.optim.lr": [f"{(i + 1) * 1e-6:.1e}" for i in range(n)],
        "max_steps": [str(10 + i) for i in range(n)],
        "trainer.model.lora.rank": [str(4 * (i + 1)) for i in range(n)],
    }


def best(rounds: int, run: Callable[[], Any]) -> tuple[float, list[float]]:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times), times


def compose_sweep(n: int, directory: Path | None = None) -> compose.Sweep[RLConfig]:
    """Every point composed and validated, each with its own output_dir (compose refuses
    points that would write over each other's); `directory`: where `write_sweep` writes."""
    # the dev environment's example app: the side venv, where Hydra's part runs, has none
    from rl_app.cli import CONF  # noqa: PLC0415
    from rl_app.config import RLConfig  # noqa: PLC0415

    return compose.sweep(
        RLConfig,
        ["@", str(EXAMPLE)],
        axes=axes(n),
        search_path=[CONF],
        prog="rl",
        name="bench",
        directory=directory,
        output="output_dir",
    )


def compose_and_write(n: int, where: Path) -> None:
    compose.write_sweep(compose_sweep(n, where))


def hydra_jobs(n: int) -> list[list[str]]:
    columns = axes(n)
    keys = list(columns)
    return [
        [f"{key}={value}" for key, value in zip(keys, row, strict=True)]
        for row in itertools.product(*columns.values())
    ]


def hydra_multirun_compose(config_dir: Path, jobs: list[list[str]]) -> Callable[[], None]:
    from hydra import compose as hydra_compose  # noqa: PLC0415  # the side venv only
    from hydra import initialize_config_dir  # noqa: PLC0415  # the side venv only

    def run() -> None:
        with initialize_config_dir(config_dir=str(config_dir), version_base=None):
            for overrides in jobs:
                hydra_compose(config_name="rl", overrides=overrides)

    return run


def yaml_tree(where: Path) -> Path:
    """The example as Hydra's config: the same table, as YAML."""
    where.mkdir(parents=True, exist_ok=True)
    table = tomli.loads(EXAMPLE.read_text(encoding="utf-8"))
    (where / "rl.yaml").write_text(yaml.safe_dump(table, sort_keys=False), encoding="utf-8")
    return where


def hydra_child(config_dir: Path, n: int, rounds: int) -> dict[str, Any]:
    """Hydra's part, in the side venv: the best of `rounds` multiruns, every round, its version."""
    jobs = hydra_jobs(n)
    run_hydra = hydra_multirun_compose(config_dir, jobs)
    hydra_multirun_compose(config_dir, jobs[:2])()  # the same first-use costs
    hydra_s, hydra_all = best(rounds, run_hydra)
    return {"best_s": hydra_s, "times": hydra_all, "version": _version("hydra-core")}


def hydra_side(config_dir: Path, n: int, rounds: int) -> dict[str, Any]:
    """`hydra_child` run in the side venv's python, made where missing."""
    command = [str(side_python()), str(Path(__file__).resolve()), "--child", str(config_dir)]
    command += ["--points-per-axis", str(n), "--hydra-rounds", str(rounds)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"Hydra's part failed in {SIDE_VENV}:\n{done.stderr[-3000:]}")
    found: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return found


PUBLISHED_POINTS_PER_AXIS = 10  # the 1,000-point sweep results/sweep.md reports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points-per-axis", type=int, default=PUBLISHED_POINTS_PER_AXIS)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--hydra-rounds", type=int, default=3)
    parser.add_argument(
        "--out", type=Path, help="default: results/ for the published 1,000 points, else none"
    )
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)  # in the side venv
    args = parser.parse_args()
    n = args.points_per_axis
    if args.child:
        print(json.dumps(hydra_child(args.child, n, args.hydra_rounds)))
        return
    points = n**3
    compose_sweep(2)  # imports and first-use caches, as any process pays them once
    made = compose_sweep(n)
    assert len(made.points) == points
    composed_s, composed_all = best(args.rounds, lambda: compose_sweep(n))
    with tempfile.TemporaryDirectory() as temporary:
        base = Path(temporary)

        def write_once() -> None:
            where = base / f"runs-{time.perf_counter_ns()}"
            compose_and_write(n, where)
            shutil.rmtree(where)

        written_s, written_all = best(args.rounds, write_once)
        hydra = hydra_side(yaml_tree(base / "conf"), n, args.hydra_rounds)
    hydra_s, hydra_all = hydra["best_s"], hydra["times"]
    result = {
        "points": points,
        "compose_sweep_s": composed_s,
        "compose_sweep_and_records_s": written_s,
        "hydra_multirun_compose_s": hydra_s,
        "ratio": hydra_s / composed_s,
        "ratio_with_records": hydra_s / written_s,
        "rounds": {"compose": composed_all, "records": written_all, "hydra": hydra_all},
        "median_s": {
            "compose": statistics.median(composed_all),
            "records": statistics.median(written_all),
            "hydra": statistics.median(hydra_all),
        },
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "versions": {"compose": _version("compose-config"), "hydra": hydra["version"]},
    }
    text = report(result)
    print(text, end="")
    # a smaller sweep (a smoke run) prints its table and leaves the published results alone
    out = args.out or (HERE / "results" if n == PUBLISHED_POINTS_PER_AXIS else None)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "sweep.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
        (out / "sweep.md").write_text(text, encoding="utf-8")


def _version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


def report(result: dict[str, Any]) -> str:
    points = result["points"]
    ratio, seconds = result["ratio"], result["compose_sweep_s"]
    rows = [
        ("compose: expand, compose and validate every point", result["compose_sweep_s"]),
        (
            "compose: the same, and write every record + manifest",
            result["compose_sweep_and_records_s"],
        ),
        ("Hydra: hydra.compose per job (BasicSweeper's check)", result["hydra_multirun_compose_s"]),
    ]
    lines = [
        f"# A {points:,}-point sweep over the example rl app",
        "",
        "Best of several rounds (`benchmarks/sweep.py`).",
        "",
        "| what | total | per point |",
        "|---|---:|---:|",
        *(f"| {what} | {s:.3f} s | {s / points * 1e3:.3f} ms |" for what, s in rows),
        "",
        f"- Hydra / compose: **{ratio:.1f}x** (goal >= {GOAL_RATIO:g}x: "
        f"{'met' if ratio >= GOAL_RATIO else 'NOT met'}); with records written: "
        f"{result['ratio_with_records']:.1f}x",
        f"- compose under {GOAL_SECONDS:g} s: {'met' if seconds < GOAL_SECONDS else 'NOT met'}",
        f"- Python {result['machine']['python']}, {result['machine']['platform']}; "
        f"compose {result['versions']['compose']}, hydra-core {result['versions']['hydra']}",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
