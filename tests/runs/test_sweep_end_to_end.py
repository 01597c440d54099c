"""A sweep as a user runs it: the installed `rl` script, started by its path from a shell whose
PATH does not hold the venv, hands its points to the local pool, and every point really runs
there: the same `rl`, on its own resolved config, in its own output directory."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from conftest import ROOT, VENV_BIN, run_command, wait_until


def _states(sweep_dir: Path) -> list[str]:
    lines = (sweep_dir / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    states = []
    for line in lines:
        status = Path(json.loads(line)["directory"]) / "status.json"
        states.append(json.loads(status.read_text(encoding="utf-8"))["state"])
    return states


def test_a_local_sweep_runs_every_point_with_the_program_it_was_launched_with(
    tmp_path: Path,
) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    shutil.copytree(ROOT / "conf", tmp_path / "conf")
    env = {**os.environ, "PATH": "/usr/bin:/bin"}  # no venv: `rl` is reachable by its path only
    (tmp_path / "lr.toml").write_text('[sweep]\noutput = "output_dir"\n', encoding="utf-8")
    argv = [str(VENV_BIN / "rl"), "@", "examples/reverse_text/rl.toml", "--max-steps", "3"]
    argv += ["--sweep", "@", "lr.toml", "--sweep.trainer.optim.lr", "1e-5", "2e-5"]
    argv += ["--sweep-executor", "local", "--sweep-dir", "runs"]
    status, out, err = run_command(argv, cwd=tmp_path, env=env)
    assert (status, err) == (0, ""), err
    assert "sweep lr: 2 points" in out
    sweep_dir = tmp_path / "runs" / "lr"
    manifest = [
        json.loads(line) for line in (sweep_dir / "manifest.jsonl").read_text().splitlines()
    ]
    assert [point["axes"] for point in manifest] == [
        {"trainer.optim.lr": 1e-5},
        {"trainer.optim.lr": 2e-5},
    ]
    assert {point["command"][0] for point in manifest} == {str(VENV_BIN / "rl")}
    wait_until(lambda: set(_states(sweep_dir)) == {"finished"}, "every point finished")
    for point in manifest:
        log = (Path(point["directory"]) / "log.txt").read_text(encoding="utf-8")
        assert "trainer" in log and "error" not in log, log  # the launch plan `rl` prints
        assert f"wrote {point['directory']}/configs/trainer.toml" in log  # its own directory
