"""Every file a run or a sweep leaves (configs, run.json, job.json, status.json, sweep.json,
manifest.jsonl, an sbatch executor's jobs.txt and script, log.txt) is written by compose's one
writer: a symlink planted at its name is replaced, never followed, and the file it points to
is left as it was; a new file gets `0o666 & ~umask`, as other files do, and a config that holds
a secret is 0600 (no record holds one: `compose._runs.masked`); text that is not UTF-8 (a
Latin-1 file name) is recorded so that it reads back the same."""

from __future__ import annotations

import importlib
import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import point_job, run_command

from compose import cli, write_configs, write_run_record
from compose._runs.executors import open_executor
from compose._runs.status import run_job
from compose.errors import OutputError

APP = """
from pydantic import SecretStr

from compose import BaseConfig, cli, write_configs, write_run_record


class Api(BaseConfig):
    url: str = "http://localhost"
    key: SecretStr | None = None


class App(BaseConfig):
    steps: int = 1
    data: str = "data.txt"
    api: Api = Api()
    output_dir: str = "out"


def main() -> None:
    import sys

    argv = sys.argv[1:]
    config = cli(App, argv, prog="app")
    write_run_record(config.output_dir, config, argv, prog="app")
    write_configs(config.output_dir, {"app": config})


if __name__ == "__main__":
    main()
"""


APP_MODULE = "record_files_app"


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The schema of a small app written here (`record_files_app.py`), imported from the
    working directory, and forgotten after the test."""
    (tmp_path / f"{APP_MODULE}.py").write_text(APP, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, APP_MODULE, raising=False)
    module = importlib.import_module(APP_MODULE)
    monkeypatch.setitem(sys.modules, APP_MODULE, module)
    return module.App


@pytest.fixture(params=[0o022, 0o077], ids=["umask022", "umask077"])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    previous = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(previous)


def _sweep(schema: Any, *argv: str) -> None:
    with pytest.raises(SystemExit) as done:
        sweep = ["--sweep.steps", "1", "2", "--sweep-output", "output_dir", "--dry-run"]
        cli(schema, [*argv, *sweep], prog="app")
    assert done.value.code == 0


def _files(directory: Path) -> dict[str, int]:
    """Every file below `directory` (relative name -> permission bits)."""
    return {
        str(path.relative_to(directory)): stat.S_IMODE(path.lstat().st_mode)
        for path in sorted(directory.rglob("*"))
        if not path.is_dir()
    }


def test_a_sweeps_records_follow_the_umask(
    app: Any, umask: int, capsys: pytest.CaptureFixture[str]
) -> None:
    _sweep(app)
    files = _files(Path("runs"))
    assert len(files) == 3 + 2 * 3  # sweep.json, .lock, manifest.jsonl; per point config, run, job
    assert set(files.values()) == {0o666 & ~umask}


def test_a_single_runs_record_follows_the_umask(app: Any, umask: int) -> None:
    config = app(steps=3)
    write_configs("out", {"app": config})
    write_run_record("out", config, ["--steps", "3"], prog="app")
    assert _files(Path("out")) == {"configs/app.toml": 0o666 & ~umask, "run.json": 0o666 & ~umask}


def test_a_secret_on_the_command_line_leaves_only_the_configs_private(
    app: Any, umask: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """The config holds the secret, 0600; the records of the flag that set it (run.json's argv,
    sweep.json's base command line) hold its mask, and follow the umask."""
    _sweep(app, "--api.key", "sk-flag")
    files = _files(Path("runs"))
    configs = {name for name in files if name.endswith("configs/app.toml")}
    assert {files[name] for name in configs} == {0o600}
    assert {files[name] for name in set(files) - configs} == {0o666 & ~umask}
    assert all("sk-flag" not in Path("runs", name).read_text() for name in set(files) - configs)


def test_a_secret_from_a_file_leaves_the_run_record_to_the_umask(app: Any, umask: int) -> None:
    """run.json names the file and its sha256, not the secret: only the config is private."""
    Path("secret.toml").write_text('[api]\nkey = "sk-file"\n')
    config = app.model_validate({"api": {"key": "sk-file"}})
    write_configs("out", {"app": config})
    write_run_record("out", config, ["@", "secret.toml"], prog="app")
    files = _files(Path("out"))
    assert files["configs/app.toml"] == 0o600
    assert files["run.json"] == 0o666 & ~umask


def _plant(path: Path, victim: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() or path.is_symlink():
        path.unlink()
    path.symlink_to(victim)


def test_a_symlink_planted_at_each_record_is_replaced_never_followed(
    app: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each link points at a copy of the record it stands for, with a blank line more (so the
    sweep still reads its sweep.json): a writer that followed it would rewrite the copy."""
    _sweep(app)
    records = list(_files(Path("runs")))
    victims = {}
    for number, name in enumerate(records):
        victims[name] = tmp_path / f"victim{number}"
        victims[name].write_text(Path("runs", name).read_text() + "\n")
        _plant(Path("runs", name), victims[name])
    kept = {name: victim.read_text() for name, victim in victims.items()}
    _sweep(app)
    assert {name: victim.read_text() for name, victim in victims.items()} == kept
    assert [name for name in records if Path("runs", name).is_symlink()] == []
    assert all(not Path("runs", name).read_text().endswith("\n\n") for name in records)


def test_a_symlink_at_a_single_runs_record_is_replaced(app: Any, tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    for name in ("out/run.json", "out/configs/app.toml"):
        _plant(Path(name), victim)
    config = app(steps=2)
    write_configs("out", {"app": config})
    write_run_record("out", config, ["--steps", "2"], prog="app")
    assert victim.read_text() == "precious\n"
    assert not Path("out/run.json").is_symlink()
    assert json.loads(Path("out/run.json").read_text())["argv"] == ["--steps", "2"]


def test_the_sbatch_files_replace_a_symlink_planted_at_their_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    sweep_dir = tmp_path / "sweep"
    jobs = [point_job(sweep_dir, "p0", "pass")]
    for name in ("jobs.txt", "sweep.sbatch"):
        _plant(sweep_dir / name, victim)
    open_executor("sbatch", {"submit": False}, str(sweep_dir)).submit(jobs)
    assert victim.read_text() == "precious\n"
    assert (sweep_dir / "jobs.txt").read_text() == f"{jobs[0].directory}\n"
    assert (sweep_dir / "sweep.sbatch").read_text().startswith("#!/bin/bash\n")


def test_compose_job_replaces_a_symlink_at_status_json(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    job = point_job(tmp_path, "p0", "pass")
    _plant(Path(job.directory) / "status.json", victim)
    assert run_job(job.directory) == 0
    assert victim.read_text() == "precious\n"
    assert json.loads((Path(job.directory) / "status.json").read_text())["state"] == "finished"


def test_compose_job_refuses_a_symlink_at_log_txt(tmp_path: Path) -> None:
    """An append cannot be a rename: the link is an error naming the file, nothing runs."""
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    ran = tmp_path / "ran"
    job = point_job(tmp_path, "p0", f"open({str(ran)!r}, 'w')")
    log = Path(job.directory) / "log.txt"
    _plant(log, victim)
    with pytest.raises(OutputError) as caught:
        run_job(job.directory)
    assert str(caught.value) == (
        f"{log}: is a symbolic link: compose appends only to a file of its own, "
        "never through a link"
    )
    assert victim.read_text() == "precious\n"
    assert not ran.exists()


def test_a_latin_1_file_name_is_recorded_as_it_reads_back(app: Any, tmp_path: Path) -> None:
    """`caf\\xe9.toml` on the command line (Python's `caf\\udce9.toml`): run.json holds it as
    the escape `\\udce9`, which reads back as the same name, and `--from-run` finds the file."""
    name = os.fsdecode(b"caf\xe9.toml")
    Path(name).write_text("steps = 4\n")
    code, out, err = run_command([sys.executable, f"{APP_MODULE}.py", "@", name], cwd=tmp_path)
    assert (code, out, err) == (0, "", "")
    raw = Path("out/run.json").read_bytes()
    assert b'"caf\\udce9.toml"' in raw
    record = json.loads(raw)
    assert record["argv"] == ["@", name]
    assert list(record["sources"]) == [name]
    code, out, err = run_command(
        [sys.executable, f"{APP_MODULE}.py", "--from-run", "out", "--output-dir", "again"],
        cwd=tmp_path,
    )
    assert (code, err) == (0, "")  # the recorded file found and unchanged: no warning
    argv = ["@", name, "--output-dir", "again"]
    assert json.loads(Path("again/run.json").read_bytes())["argv"] == argv
