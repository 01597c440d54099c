"""What an app gives `cli` reaches every point of a sweep, as it reaches a single run, and the
flags of many runs are matched exactly: a schema's own `--sweep-count` or `--from-running` is
the schema's field (issue 38)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compose import BaseConfig, FrozenError, cli, sweep
from compose._runs.records import read_manifest


class Job(BaseConfig):
    """A job."""

    steps: int = 1
    lr: float = 0.1
    name: str = "job"
    sweep_count: int = 0
    from_running: str = ""


def _cli(argv: list[str], **options: object) -> tuple[int, Job | None]:
    try:
        return 0, cli(Job, argv, prog="job", **options)  # type: ignore[arg-type]
    except SystemExit as done:
        assert isinstance(done.code, int)
        return done.code, None


def _configs(directory: Path) -> list[str]:
    return sorted(path.read_text() for path in directory.glob("*/configs/job.toml"))


def test_cli_default_reaches_every_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    default = Job(name="from-default", lr=0.5)
    code, _ = _cli(["--sweep.steps", "1", "2", "--dry-run"], default=default)
    assert code == 0, capsys.readouterr().err
    configs = _configs(tmp_path / "runs" / "sweep")
    assert len(configs) == 2
    assert all('name = "from-default"' in text and "lr = 0.5" in text for text in configs)


def test_cli_default_and_a_single_run_give_the_same_config_as_the_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    default = Job(name="d")
    _, single = _cli(["--steps", "2"], default=default)
    assert _cli(["--sweep.steps", "2", "--dry-run"], default=default)[0] == 0
    capsys.readouterr()
    (line,) = read_manifest(tmp_path / "runs" / "sweep")
    point = Path(line["directory"]) / "configs" / "job.toml"
    assert single is not None and single.name == "d"
    assert 'name = "d"' in point.read_text()


def test_frozen_reaches_every_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    made = sweep(Job, axes={"steps": [1, 2]}, frozen=True)
    for point in made.points:
        with pytest.raises(FrozenError):
            point.config.steps = 3


@pytest.mark.parametrize(
    ("argv", "field", "value"),
    [
        (["--sweep-count", "3"], "sweep_count", 3),
        (["--sweep_count=4"], "sweep_count", 4),
        (["--from-running", "x"], "from_running", "x"),
        (["--from-running=y"], "from_running", "y"),
    ],
)
def test_a_field_whose_flag_starts_like_a_run_flag_is_the_schemas(
    argv: list[str], field: str, value: object, capsys: pytest.CaptureFixture[str]
) -> None:
    code, config = _cli(argv)
    assert code == 0, capsys.readouterr().err
    assert getattr(config, field) == value


def test_such_a_field_is_set_on_every_point_of_a_sweep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _ = _cli(["--sweep-count", "7", "--sweep.steps", "1", "2", "--dry-run"])
    assert code == 0, capsys.readouterr().err
    configs = _configs(tmp_path / "runs" / "sweep")
    assert len(configs) == 2 and all("sweep_count = 7" in text for text in configs)
    record = json.loads(next((tmp_path / "runs" / "sweep").glob("*/run.json")).read_text())
    assert "--sweep-count" in record["argv"]


@pytest.mark.parametrize("flag", ["--sweep_name=x", "--sweep-name=x"])
def test_a_sweep_control_is_read_in_either_case(
    flag: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _cli([flag, "--sweep.steps", "1", "--dry-run"])[0] == 0, capsys.readouterr().err
    assert (tmp_path / "runs" / "x" / "sweep.json").is_file()
