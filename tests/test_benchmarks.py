"""The benchmarks' Hydra peers run in hydra-core's side venv (`.venv-hydra`), as developers run
them from the dev venv: `benchmarks/run.py`'s "hydra" peer and `benchmarks/sweep.py`'s Hydra
multirun measure hydra-core there and their results agree with compose, while the dev venv
keeps its own omegaconf (the dev pin the oracle tests compare with: hydra-core pins one below
it, so it is in neither the dev nor the bench extra). Timings are left unread.

Both need the side venv, made by `.ci/run` before the suite (`python
benchmarks/hydra_trees.py --side-venv`): without it the tests skip, and fail under CI=true.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import ROOT, cannot_run, run_command

BENCHMARKS = ROOT / "benchmarks"
SIDE_PYTHON = ROOT / ".venv-hydra" / "bin" / "python"


@pytest.fixture
def side_venv() -> Path:
    """The side venv's python; the tests never make it (a minute of downloads)."""
    if not SIDE_PYTHON.exists():
        cannot_run(
            "hydra-core's side venv .venv-hydra is missing "
            "(`python benchmarks/hydra_trees.py --side-venv`; .ci/run makes it)"
        )
    return SIDE_PYTHON


def side_hydra_version(python: Path) -> str:
    code, out, err = run_command([str(python), "-c", "import hydra; print(hydra.__version__)"])
    assert code == 0, err
    return out.strip()


def test_run_measures_the_hydra_peer_in_the_side_venv(side_venv: Path, tmp_path: Path) -> None:
    out = tmp_path / "results"
    command = [sys.executable, str(BENCHMARKS / "run.py"), "--quick", "--systems", "compose,hydra"]
    command += ["--only", "plain-n3-m100,typed-n3-m100-o20", "--workdir", str(tmp_path / "work")]
    code, stdout, stderr = run_command([*command, "--out", str(out)], timeout=300)
    assert code == 0, stdout + stderr
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    hydra = [cell for cell in results["cells"] if cell["system"] == "hydra"]
    assert [(cell["status"], cell["agrees"]) for cell in hydra] == [("ok", True), ("ok", True)]
    packages = results["info"]["machine"]["packages"]
    assert packages["hydra-core"].startswith(f"{side_hydra_version(side_venv)} (in .venv-hydra")


def test_sweep_times_hydra_in_the_side_venv(side_venv: Path, tmp_path: Path) -> None:
    command = [sys.executable, str(BENCHMARKS / "sweep.py"), "--points-per-axis", "2"]
    command += ["--rounds", "1", "--hydra-rounds", "1", "--out", str(tmp_path)]
    code, stdout, stderr = run_command(command, timeout=300)
    assert code == 0, stdout + stderr
    result = json.loads((tmp_path / "sweep.json").read_text(encoding="utf-8"))
    assert result["points"] == 8
    assert result["versions"]["hydra"] == side_hydra_version(side_venv)
    assert len(result["rounds"]["hydra"]) == 1


def test_a_smaller_sweep_leaves_the_published_results_alone(side_venv: Path) -> None:
    published = [BENCHMARKS / "results" / name for name in ("sweep.json", "sweep.md")]
    before = [path.read_bytes() for path in published]
    command = [sys.executable, str(BENCHMARKS / "sweep.py"), "--points-per-axis", "2"]
    code, stdout, stderr = run_command([*command, "--rounds", "1", "--hydra-rounds", "1"])
    assert code == 0, stdout + stderr
    assert "| compose: expand, compose and validate every point |" in stdout
    assert [path.read_bytes() for path in published] == before
