"""The run's instant: `${now:}` gives one instant per run, which run.json and sweep.json keep,
so that a rerun, a resumed sweep and every process given $COMPOSE_NOW see the same time."""

from __future__ import annotations

import datetime
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from rl_app import cli as app
from rl_app.config import RLConfig

from compose import ComposeError, compose, parse, sweep, write_run_record, write_sweep

ROOT = Path(__file__).resolve().parents[2]
STAMPED = 'output_dir = "runs/${now:%Y%m%d-%H%M%S-%f}"\n'  # microseconds: any new reading differs
# A sweep's points, each in its own output directory: the stamped one would be shared by all
EACH: dict[str, Any] = {"prog": "rl", "output": "output_dir"}


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The reverse-text example with a run directory named by the time, in a fresh directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COMPOSE_NOW", raising=False)
    shutil.copy(ROOT / "examples/reverse_text/rl.toml", tmp_path / "rl.toml")
    (tmp_path / "stamp.toml").write_text(STAMPED)
    return ["@", "rl.toml", "@", "stamp.toml"]


def _only_run(tmp_path: Path) -> Path:
    (run,) = (tmp_path / "runs").iterdir()
    return run


def test_a_run_records_the_instant_its_directory_was_named_by(
    example: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app.rl([*example, "--dry-run"])
    run = _only_run(tmp_path)
    record = json.loads((run / "run.json").read_text())
    instant = datetime.datetime.fromisoformat(record["now"])
    assert instant.utcoffset() is not None
    assert run.name == instant.strftime("%Y%m%d-%H%M%S-%f")
    capsys.readouterr()


def test_from_run_composes_at_the_recorded_instant(
    example: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app.rl([*example, "--dry-run"])
    run = _only_run(tmp_path)
    first = compose([str(run / "configs" / "rl.toml")], schema=RLConfig)
    app.rl(["--from-run", str(run), "--dry-run"])
    assert _only_run(tmp_path) == run  # the same directory: the same instant, to the microsecond
    assert compose([str(run / "configs" / "rl.toml")], schema=RLConfig) == first
    with pytest.raises(SystemExit) as refused:  # a change is a new run, not this one rewritten
        app.rl(["--from-run", str(run), "--max-steps", "3", "--dry-run"])
    assert refused.value.code == 2
    app.rl(
        [
            "--from-run",
            str(run),
            "--max-steps",
            "3",
            "--dry-run",
            "--output-dir",
            str(first.output_dir),
        ]
    )
    changed = compose([str(run / "configs" / "rl.toml")], schema=RLConfig)
    assert (changed.max_steps, changed.output_dir) == (3, first.output_dir)
    capsys.readouterr()


def test_compose_now_pins_every_process_of_a_run(
    example: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a launcher does for DDP ranks: each composes apart, all at $COMPOSE_NOW."""
    monkeypatch.setenv("COMPOSE_NOW", "2026-12-04T21:00:00Z")
    ranks = [parse(RLConfig, example) for _ in range(3)]
    assert {str(rank.output_dir) for rank in ranks} == {"runs/20261204-210000-000000"}
    record = write_run_record("record", ranks[0], example, prog="rl")
    assert json.loads(record.read_text())["now"] == "2026-12-04T21:00:00+00:00"


def test_a_record_without_an_instant_says_none(example: list[str]) -> None:
    config = parse(RLConfig, ["@", "rl.toml"])
    record = write_run_record("record", config, ["@", "rl.toml"], prog="rl")
    assert "now" not in json.loads(record.read_text())


def test_every_point_of_a_sweep_shares_one_instant_and_resuming_keeps_it(
    example: list[str],
) -> None:
    stamped = [*example, "--orchestrator.env.0.name", "${now:%Y%m%d-%H%M%S-%f}"]
    made = sweep(RLConfig, stamped, axes={"max_steps": ["1", "2", "3"]}, **EACH)
    assert len({point.config.orchestrator.env[0].name for point in made.points}) == 1
    assert made.now is not None
    write_sweep(made)
    recorded = json.loads((made.directory / "sweep.json").read_text())["now"]
    assert recorded == made.now.isoformat()
    point_record = json.loads((made.points[0].directory / "run.json").read_text())
    assert point_record["now"] == recorded
    later = sweep(RLConfig, stamped, axes={"max_steps": ["1", "2", "3"]}, **EACH)
    assert [p.name for p in later.points] == [p.name for p in made.points]
    other = sweep(RLConfig, stamped, axes={"max_steps": ["1", "2"]}, name="other", **EACH)
    assert other.now != made.now  # another sweep is another instant


def test_an_instant_given_by_the_caller(example: list[str]) -> None:
    when = datetime.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc)
    config = parse(RLConfig, example, now=when)
    assert str(config.output_dir) == "runs/20260102-030405-000006"
    made = sweep(RLConfig, example, axes={"max_steps": ["1", "2"]}, now=when, **EACH)
    assert made.now == when
    assert compose(["stamp.toml"], now="2026-01-02T03:04:05.000006+00:00") == {
        "output_dir": "runs/20260102-030405-000006"
    }


def test_bad_instants_are_one_error_naming_where_they_came_from(
    example: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ComposeError, match=r"now = 'soon' \(from now=\): is no instant"):
        parse(RLConfig, example, now="soon")
    with pytest.raises(ComposeError, match=r"now = 'soon' \(from now=\): is no instant"):
        sweep(RLConfig, example, axes={"max_steps": ["1"]}, now="soon")
    app.rl([*example, "--dry-run"])
    run = _only_run(tmp_path)
    record = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps({**record, "now": "later"}))
    with pytest.raises(SystemExit) as exited:
        app.rl(["--from-run", str(run), "--dry-run"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and f"{run / 'run.json'}" in err and "'later'" in err


def test_a_bad_compose_now_is_one_line_from_the_entrypoint(
    example: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COMPOSE_NOW", "noon")
    with pytest.raises(SystemExit) as exited:
        app.rl([*example, "--dry-run"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        "error: COMPOSE_NOW = 'noon' (from environment): is no ISO 8601 instant; set it as "
        "`date -Iseconds` prints one: COMPOSE_NOW=2026-12-04T21:00:00+00:00\n"
    )
    with pytest.raises(ComposeError, match=r"interpolation \$\{now:%Y%m%d-%H%M%S-%f\}: "):
        parse(RLConfig, example)  # the library: the key that asked, and COMPOSE_NOW's value
