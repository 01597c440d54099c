"""Resuming a sweep: the same definition gives the same point names, points whose status
says finished are skipped, and a changed definition is refused; without resume, a sweep
directory holding another definition is an error, and the same one is rewritten as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rl_app.config import RLConfig

from compose import ComposeError, sweep, write_sweep

ROOT = Path(__file__).resolve().parents[2]
BASE = ["@", str(ROOT / "examples/reverse_text/rl.toml")]
AXES = {"max_steps": ["3", "4", "5"]}
EACH: dict[str, Any] = {"prog": "rl", "output": "output_dir"}  # each point its own output_dir


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def _finish(directory: Path) -> None:
    (directory / "status.json").write_text(json.dumps({"state": "finished", "exit_code": 0}))


def test_resume_skips_finished_points_and_keeps_their_records() -> None:
    first = sweep(RLConfig, BASE, axes=AXES, **EACH)
    write_sweep(first)
    _finish(first.points[1].directory)
    (first.points[0].directory / "status.json").write_text('{"state": "failed"}')
    again = sweep(RLConfig, BASE, axes=AXES, **EACH)
    assert [p.name for p in again.points] == [p.name for p in first.points]
    todo = write_sweep(again, resume=True)
    assert [p.index for p in todo] == [0, 2]
    manifest = (first.directory / "manifest.jsonl").read_text().splitlines()
    assert len(manifest) == 3


def test_resume_refuses_a_changed_definition() -> None:
    write_sweep(sweep(RLConfig, BASE, axes=AXES, **EACH))
    changed = sweep(RLConfig, BASE, axes={"max_steps": ["3", "4"]}, **EACH)
    with pytest.raises(ComposeError, match=r"changed since it was started \(axes differ\)"):
        write_sweep(changed, resume=True)


def test_another_definition_in_the_same_directory_is_an_error() -> None:
    write_sweep(sweep(RLConfig, BASE, axes=AXES, **EACH))
    other = sweep(RLConfig, [*BASE, "--seq-len", "1024"], axes=AXES, **EACH)
    with pytest.raises(ComposeError, match=r"holds another sweep \(argv differ\)") as caught:
        write_sweep(other)
    assert caught.value.hint is not None and "--sweep-name" in caught.value.hint


def test_the_same_definition_is_rewritten_as_it_was() -> None:
    made = sweep(RLConfig, BASE, axes=AXES, **EACH)
    write_sweep(made)
    before = {p: p.read_bytes() for p in made.directory.rglob("*") if p.is_file()}
    write_sweep(sweep(RLConfig, BASE, axes=AXES, **EACH))
    after = {p: p.read_bytes() for p in made.directory.rglob("*") if p.is_file()}
    assert after == before


def test_where_the_sweep_goes_and_who_runs_it_are_not_its_definition() -> None:
    one = sweep(RLConfig, BASE, axes=AXES, prog="rl", executor="none", output="output_dir")
    two = sweep(RLConfig, BASE, axes=AXES, executor={"name": "local", "max_parallel": 2}, **EACH)
    assert one.definition_hash == two.definition_hash
    assert two.executor_options == {"max_parallel": 2}
