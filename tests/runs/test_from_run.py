"""`rl --from-run DIR [changes]`: the recorded command line composed again with the changes
on top, origins pointing at the original files; a file changed or gone since is named in a
warning and the run is built on its recorded resolved config. A single `rl` run leaves such
a record too (`write_run_record`)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
from pathlib import Path

import pytest
from pydantic import BaseModel
from rl_app import cli as app
from rl_app.cli import CONF
from rl_app.config import RLConfig

from compose import (
    ComposeError,
    ComposeWarning,
    compose,
    parse,
    sweep,
    write_configs,
    write_run_record,
    write_sweep,
)
from compose._runs.rerun import from_run_argv

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A copy of the reverse-text example in the working directory, free to edit."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "examples/reverse_text/rl.toml", tmp_path / "rl.toml")
    return "rl.toml"


def test_a_point_is_composed_again_with_new_overrides_on_top(example: str) -> None:
    made = sweep(RLConfig, ["@", example], axes={"trainer.optim.lr": ["1e-4"]}, prog="rl")
    write_sweep(made)
    point = made.points[0]
    argv = from_run_argv(["--from-run", str(point.directory), "--max-steps", "9"], "rl")
    assert argv == ["@", example, "--trainer.optim.lr=1e-4", "--max-steps", "9"]
    config = parse(RLConfig, argv)
    assert config.trainer.optim.lr == 1e-4
    assert config.max_steps == 9


def test_a_changed_file_is_named_and_the_recorded_config_is_built_on(example: str) -> None:
    made = sweep(RLConfig, ["@", example], axes={"max_steps": ["7"]}, prog="rl")
    write_sweep(made)
    directory = made.points[0].directory
    Path(example).write_text(Path(example).read_text().replace("seq_len = 2048", "seq_len = 512"))
    with pytest.warns(ComposeWarning, match="rl.toml changed since the run"):
        argv = from_run_argv([f"--from-run={directory}"], "rl")
    assert argv == ["@", str(directory / "configs" / "rl.toml")]
    assert parse(RLConfig, argv) == made.points[0].config
    Path(example).unlink()
    with pytest.warns(ComposeWarning, match="rl.toml is gone"):
        from_run_argv(["--from-run", str(directory)], "rl")


def test_a_directory_without_a_record_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ComposeError, match=r"holds no run record \(run.json\)"):
        from_run_argv(["--from-run", str(tmp_path)], "rl")
    with pytest.raises(ComposeError, match="needs the directory of a run"):
        from_run_argv(["--from-run"], "rl")


def test_a_single_rl_run_leaves_a_record_that_from_run_composes_again(
    example: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app.rl(["@", example, "--trainer.optim.lr", "2e-5", "--output-dir", "first", "--dry-run"])
    record = json.loads((tmp_path / "first" / "run.json").read_text())
    assert record["argv"][:2] == ["@", example]
    assert record["origins"]["trainer.optim.lr"] == "--trainer.optim.lr"
    assert record["origins"]["seq_len"] == "rl.toml:4"
    app.rl(["--from-run", "first", "--max-steps", "3", "--output-dir", "second", "--dry-run"])
    again = compose(["second/configs/rl.toml"], schema=RLConfig)
    assert (again.trainer.optim.lr, again.max_steps) == (2e-5, 3)
    second = json.loads((tmp_path / "second" / "run.json").read_text())
    assert "--from-run" not in second["argv"]  # what it was composed from, not how it was asked
    capsys.readouterr()


def test_a_points_run_keeps_its_sweep_record(
    example: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Running a point's command (`rl @ POINT/configs/rl.toml`) into its own directory keeps the
    sweep's run.json: the same config, with how it was made."""
    made = sweep(
        RLConfig, ["@", example], axes={"max_steps": ["7"]}, output="output_dir", prog="rl"
    )
    write_sweep(made)
    point = made.points[0]
    before = (point.directory / "run.json").read_text()
    app.rl(["@", str(point.directory / "configs" / "rl.toml")])  # the job's command
    assert (point.directory / "run.json").read_text() == before
    capsys.readouterr()


def test_search_path_files_are_recorded_and_checked(example: str) -> None:
    made = sweep(
        RLConfig,
        ["@", example],
        axes={"trainer.optim": ["@optim/muon"]},
        search_path=[CONF],
        prog="rl",
    )
    write_sweep(made)
    assert any(name.endswith("optim/muon.toml") for name in made.sources)
    argv = from_run_argv(["--from-run", str(made.points[0].directory)], "rl")
    assert argv[-3:] == ["--trainer.optim", "@", "optim/muon"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_source_that_is_now_a_fifo_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A recorded file is hashed again only when it is a file: a FIFO at its name (planted, or
    a pipe the run read) would make the rerun wait for a writer, or hash what one sends. The
    run is built on its resolved config instead, as for a file that changed."""

    class Small(BaseModel):
        seed: int = 0

    monkeypatch.chdir(tmp_path)
    Path("base.toml").write_text("seed = 4\n")
    config = parse(Small, ["@", "base.toml"])
    write_configs("run", {"small": config})
    write_run_record("run", config, ["@", "base.toml"], prog="small")
    os.replace("base.toml", "kept.toml")
    os.mkfifo("base.toml")

    def feed() -> None:  # the same text: read, it would pass for the file the run read
        with contextlib.suppress(OSError), open("base.toml", "w", encoding="utf-8") as pipe:
            pipe.write(Path("kept.toml").read_text())

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        with pytest.warns(ComposeWarning, match="building on the run's resolved config"):
            argv = from_run_argv(["--from-run", "run"], "small")
    finally:  # a reader, open until the writer is done: it never waits for one
        reader = os.open("base.toml", os.O_RDONLY | os.O_NONBLOCK)
        writer.join()
        os.close(reader)
    assert argv == ["@", str(Path("run", "configs", "small.toml"))]
    assert parse(Small, argv) == config
