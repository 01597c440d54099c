"""What a sweep leaves on disk: per point its resolved config, run.json and job.json; the
manifest; sweep.json. `rl ... --sweep...` prints the table of points and exits 0, `--dry-run`
belongs to the sweep (the records of a dry run and of a real one are the same), and bad input
exits 2 with nothing written."""

from __future__ import annotations

import hashlib
import json
import os
import runpy
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rl_app import cli as app
from rl_app.cli import CONF
from rl_app.config import RLConfig

from compose import BaseConfig, compose, submit_sweep, sweep, write_sweep
from compose._input.options import NO_OPTIONS
from compose._runs.status import run_job

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples/reverse_text/rl.toml")
BASE = ["@", EXAMPLE]
OWN_DIRS = ["--sweep-output", "output_dir"]  # each point runs in its own output_dir


def _rl(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        app.rl(argv)
    except SystemExit as done:
        code = done.code
    else:
        code = None
    out, err = capsys.readouterr()
    assert isinstance(code, int), "sweep mode never returns to the app"
    return code, out, err


def test_a_point_record_holds_its_config_command_and_provenance(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    made = sweep(
        RLConfig,
        BASE,
        axes={"trainer.optim.lr": ["1e-4", "2e-4"]},
        prog="rl",
        output="output_dir",
        search_path=[CONF],
    )
    assert write_sweep(made) == list(made.points)
    point = made.points[1]
    config = point.directory / "configs" / "rl.toml"
    assert compose([config], schema=RLConfig) == point.config
    run = json.loads((point.directory / "run.json").read_text())
    assert run["argv"] == [*BASE, "--trainer.optim.lr=2e-4", f"--output_dir={point.directory}"]
    assert run["overrides"] == ["--trainer.optim.lr=2e-4"]
    assert run["axes"] == {"trainer.optim.lr": 2e-4}  # typed by its field, as trackers read it
    assert run["fingerprint"] == point.fingerprint
    assert run["origins"]["trainer.optim.lr"] == "sweep axis trainer.optim.lr"
    assert run["origins"]["trainer.model.lora.rank"] == f"{EXAMPLE}:25"
    assert set(run["versions"]) == {"compose", "pydantic", "python"}
    text = Path(EXAMPLE).read_text(encoding="utf-8")
    assert run["sources"] == {EXAMPLE: hashlib.sha256(text.encode()).hexdigest()}
    assert "git" not in run  # tmp_path is no work tree
    job = json.loads((point.directory / "job.json").read_text())
    env = {"COMPOSE_NO_ENV": "1"}  # the job composes its record alone: no environment layer
    assert job == {"argv": ["rl", "@", str(config)], "env": env, "cwd": str(tmp_path)}


JOB_APP = """
from pathlib import Path

from compose import BaseConfig, cli, write_configs


class Job(BaseConfig):
    seed: int = 0
    env_vars: dict[str, str] = {}
    output_dir: Path = Path("out")


if __name__ == "__main__":
    config = cli(Job, prog="job", env_prefix="JOB_")
    write_configs(config.output_dir, {"job": config})
    print(f"env_vars={config.env_vars}")
"""


def test_a_points_job_runs_its_record_whatever_the_nodes_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """job.json sets COMPOSE_NO_ENV=1: the app's environment layer is off in the job, so a
    variable of its prefix on the node changes nothing of the config the point was given (a
    dict's keys merge: the file would not hide a key the node's variable adds)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.py").write_text(JOB_APP)
    schema = runpy.run_path(str(tmp_path / "app.py"), run_name="app")["Job"]
    made = sweep(
        schema,
        ["--env-vars", '{"HF_HOME": "/data"}'],
        axes={"seed": ["1"]},
        output="output_dir",
        command=[sys.executable, str(tmp_path / "app.py")],
        prog="job",
    )
    write_sweep(made)
    point = made.points[0].directory
    config = (point / "configs" / "job.toml").read_text()
    monkeypatch.setenv("JOB_ENV_VARS__NODE_ONLY", "x")  # the node's own, of the app's prefix
    assert run_job(str(point)) == 0
    assert "env_vars={'HF_HOME': '/data'}" in (point / "log.txt").read_text()
    assert (point / "configs" / "job.toml").read_text() == config


def test_the_manifest_has_a_line_per_point_and_job_ids_once_submitted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    made = sweep(
        RLConfig, BASE, axes={"max_steps": ["3", "4"]}, prog="rl", name="steps", output="output_dir"
    )
    points = write_sweep(made)
    manifest = tmp_path / "runs" / "steps" / "manifest.jsonl"
    lines = [json.loads(line) for line in manifest.read_text().splitlines()]
    assert [line["index"] for line in lines] == [0, 1]
    assert lines[0] == {
        "index": 0,
        "name": made.points[0].name,
        "axes": {"max_steps": 3},
        "overrides": ["--max_steps=3"],
        "fingerprint": made.points[0].fingerprint,
        "command": ["rl", "@", str(made.points[0].directory / "configs" / "rl.toml")],
        "directory": str(made.points[0].directory),
    }
    assert submit_sweep(made, points) == ["", ""]  # executor none: no engine, no ids
    lines = [json.loads(line) for line in manifest.read_text().splitlines()]
    assert [(line["executor"], line["job_id"]) for line in lines] == [("none", "")] * 2
    assert json.loads((manifest.parent / "sweep.json").read_text())["hash"] == made.definition_hash


def test_the_git_commit_and_dirty_state_are_recorded_in_a_work_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from compose._runs.provenance import git_state

    state = git_state(str(ROOT))
    if state is None:
        pytest.skip("the checkout is no git work tree here")
    assert len(state["commit"]) == 40
    assert isinstance(state["dirty"], bool)
    assert git_state(str(tmp_path)) is None


def test_reading_the_git_state_never_writes_the_index(tmp_path: Path) -> None:
    """A file touched since the last commit: `git status` would refresh the index and write
    it back under index.lock (a user's concurrent `git commit` fails on that lock); the
    record's query leaves it as it was, and still sees no change in the file's content."""
    import shutil

    from compose._runs.provenance import git_state

    if shutil.which("git") is None:
        pytest.skip("no git here")
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True)
    tracked = tmp_path / "train.toml"
    tracked.write_text("lr = 1e-3\n")
    subprocess.run([*git, "add", "train.toml"], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "first"], cwd=tmp_path, check=True)
    index = tmp_path / ".git" / "index"
    later = index.stat().st_mtime_ns + 5_000_000_000
    os.utime(tracked, ns=(later, later))  # the same content, newer stat data
    before = index.stat().st_mtime_ns, index.read_bytes()

    state = git_state(str(tmp_path))

    assert state is not None and state["dirty"] is False
    assert (index.stat().st_mtime_ns, index.read_bytes()) == before


def _git(cwd: Path, *args: str) -> None:
    identity = ["-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run(["git", *identity, *args], cwd=cwd, check=True, capture_output=True)


def _program(path: Path, marker: Path) -> str:
    """An executable at `path` that, run, leaves `marker`: proof that something ran it."""
    path.write_text(f"#!/bin/sh\ntouch '{marker}'\ncat\n")
    path.chmod(0o755)
    return str(path)


def _repository_that_runs_programs(directory: Path, ran: Path) -> Path:
    """A work tree whose own config names programs `git status` runs: an fsmonitor hook, a
    post-index-change hook (in its hooks path), and the clean filter of every TOML file, whose
    stat data has changed since the commit (so that status hashes it through the filter).
    Each program leaves a file in `ran` when run."""
    ran.mkdir()
    directory.mkdir()
    _git(directory, "init", "-q")
    (directory / "train.toml").write_text("lr = 1e-3\n")
    (directory / ".gitattributes").write_text("*.toml filter=touchy\n")
    _git(directory, "add", ".")
    _git(directory, "commit", "-qm", "first")
    hooks = directory / ".git" / "my-hooks"
    hooks.mkdir()
    _program(hooks / "post-index-change", ran / "post-index-change")
    _git(directory, "config", "core.hooksPath", str(hooks))
    _git(directory, "config", "core.fsmonitor", _program(directory / ".git" / "fsm", ran / "fsm"))
    clean = _program(directory / ".git" / "clean", ran / "clean")
    _git(directory, "config", "filter.touchy.clean", clean)
    later = (directory / ".git" / "index").stat().st_mtime_ns + 5_000_000_000
    os.utime(directory / "train.toml", ns=(later, later))  # the same content, newer stat data
    return directory


class Lr(BaseConfig):
    lr: float = 0.1


@pytest.fixture
def git_present() -> None:
    import shutil

    if shutil.which("git") is None:
        pytest.skip("no git here")


@pytest.mark.usefixtures("git_present")
def test_a_run_record_runs_no_program_the_repositorys_config_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from compose import write_run_record

    ran = tmp_path / "ran"
    repository = _repository_that_runs_programs(tmp_path / "repo", ran)
    monkeypatch.chdir(repository)
    config = compose(["train.toml"], schema=Lr)

    record = write_run_record(repository / "run", config, ["@", "train.toml"], prog="train")

    git = json.loads(record.read_text())["git"]
    assert len(git["commit"]) == 40 and git["dirty"] is False  # the content is the same
    assert list(ran.iterdir()) == []
    # Proof that the work tree is armed: a plain `git status` runs the hook and the filter.
    subprocess.run(["git", "status"], cwd=repository, capture_output=True, check=True)
    assert {path.name for path in ran.iterdir()} >= {"fsm", "clean"}


@pytest.mark.usefixtures("git_present")
def test_a_required_filter_is_not_run_and_the_record_has_no_git_state(tmp_path: Path) -> None:
    """git fails rather than hash a file without its required filter: no state, not a
    guess."""
    from compose._runs.provenance import git_state

    ran = tmp_path / "ran"
    repository = _repository_that_runs_programs(tmp_path / "repo", ran)
    _git(repository, "config", "filter.touchy.required", "true")
    assert git_state(str(repository)) is None
    assert list(ran.iterdir()) == []


@pytest.mark.usefixtures("git_present")
def test_a_filter_whose_name_cannot_be_switched_off_gives_no_git_state(tmp_path: Path) -> None:
    """`-c filter.a=b.clean=` would set `filter.a`: git is not asked at all."""
    from compose._runs.provenance import git_state

    ran = tmp_path / "ran"
    repository = _repository_that_runs_programs(tmp_path / "repo", ran)
    (repository / ".gitattributes").write_text("*.toml filter=a=b\n")
    _git(repository, "config", "filter.a=b.clean", _program(tmp_path / "other", ran / "other"))
    assert git_state(str(repository)) is None
    assert list(ran.iterdir()) == []


@pytest.mark.usefixtures("git_present")
def test_a_submodules_work_tree_is_not_looked_into(tmp_path: Path) -> None:
    """Its own config's programs stay unrun (its status would be git's own, under that
    config); the superproject's state is still read."""
    from compose._runs.provenance import git_state

    ran = tmp_path / "ran"
    inner = _repository_that_runs_programs(tmp_path / "inner", ran)
    outer = tmp_path / "outer"
    outer.mkdir()
    _git(outer, "init", "-q")
    _git(outer, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "sub")
    _git(outer, "commit", "-qm", "with a submodule")
    sub = outer / "sub"
    _git(sub, "config", "filter.touchy.clean", _program(tmp_path / "sub-clean", ran / "sub-clean"))
    _git(sub, "config", "core.fsmonitor", _program(tmp_path / "sub-fsm", ran / "sub-fsm"))
    later = (outer / ".git" / "index").stat().st_mtime_ns + 5_000_000_000
    os.utime(sub / "train.toml", ns=(later, later))

    state = git_state(str(outer))

    assert state is not None and state["dirty"] is False
    assert list(ran.iterdir()) == []


HANGING_GIT = (sys.executable, "-c", "import time; time.sleep(60)")  # a work tree on a dead mount


def _started(monkeypatch: pytest.MonkeyPatch) -> list[subprocess.Popen[bytes]]:
    """Every process provenance starts, from now on."""
    from compose._runs import provenance

    started: list[subprocess.Popen[bytes]] = []

    class Noted(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(subprocess, "Popen", Noted)  # the module provenance calls it from
    monkeypatch.setattr(provenance, "status_argv", lambda filters_off: list(HANGING_GIT))
    return started


def test_a_git_that_hangs_gives_no_state_and_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from compose._runs import provenance

    started = _started(monkeypatch)
    monkeypatch.setattr(provenance, "GIT_TIMEOUT", 0.5)
    assert provenance.git_state(str(tmp_path)) is None
    *config, status = started  # the config's filter drivers were asked first
    assert len(config) == 1 and config[0].returncode is not None  # ended and reaped
    assert status.returncode == -signal.SIGKILL  # killed and reaped


def test_a_git_never_asked_for_its_answer_is_stopped_when_the_record_gives_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from compose._runs import provenance

    started = _started(monkeypatch)
    with pytest.raises(KeyError), provenance.git_state_meanwhile(str(tmp_path)):
        raise KeyError("the record failed before it needed git")
    *config, status = started
    assert len(config) == 1 and config[0].returncode is not None
    assert status.returncode == -signal.SIGKILL


def test_sweep_mode_prints_the_table_and_exits_0(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _rl(
        [*BASE, *OWN_DIRS, "--sweep.trainer.optim.lr", "1e-4", "3e-4", "--sweep-name", "lr"],
        capsys,
    )
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "sweep lr: 2 points in runs/lr (executor none)"
    assert lines[1].split() == ["#", "name", "trainer.optim.lr", "job"]
    assert lines[2].split()[::2] == ["0", "0.0001"]
    assert not (tmp_path / "outputs").exists(), "no point ran in process"


def test_dry_run_belongs_to_the_sweep_and_writes_the_same_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    flags = [*BASE, *OWN_DIRS, "--sweep.max-steps", "3", "4"]
    code, out, _ = _rl([*flags, "--sweep-dir", "dry", "--dry-run"], capsys)
    assert code == 0
    assert "dry run: records written, nothing submitted" in out
    assert _rl([*flags, "--sweep-dir", "real"], capsys)[0] == 0
    for dry in (tmp_path / "dry" / "sweep").glob("*/configs/rl.toml"):
        real = tmp_path / "real" / "sweep" / dry.parent.parent.name / "configs" / "rl.toml"
        own_dir = str(tmp_path / "dry"), str(tmp_path / "real")  # output_dir: the point's
        assert dry.read_text().replace(*own_dir) == real.read_text()
        assert "dry_run = false" in dry.read_text()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--sweep.trainer.optim.lrr", "1"], "did you mean trainer.optim.lr?"),
        (["--sweep.trainer.optim.lr", "-1"], "point 0 (trainer.optim.lr=-1)"),
        (["--sweep.trainer.optim.lr", "{range = [1]}"], "range takes"),
        (["--sweep.seed"], "an axis needs values"),
        (["--sweep.max-steps", "2", "--sweep-executor", "nope"], "no such executor"),
        (
            ["--sweep.max-steps", "2", "--sweep-colour", "red"],
            "--sweep-colour = 'red': unknown key",
        ),
    ],
)
def test_bad_sweep_input_exits_2_and_writes_nothing(
    flags: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _rl([*BASE, *flags], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("error: ") and message in err, err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_an_executor_that_is_not_installed_is_bad_input_before_anything_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from compose import ComposeError

    # As if Ray were not installed: importing it fails (a None in sys.modules does that,
    # for its submodules too, which an earlier test may have imported).
    for name in [name for name in sys.modules if name == "ray" or name.startswith("ray.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.delitem(sys.modules, "compose._runs.executors.ray", raising=False)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ComposeError, match="'ray' needs the extra"):
        from compose._runs.command import run_sweep

        run_sweep(
            RLConfig,
            [*BASE, "--sweep.max-steps", "2", "--sweep-executor", "ray"],
            "rl",
            NO_OPTIONS,
        )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.needs("ray")
def test_an_executor_that_cannot_be_reached_gets_nothing_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from compose import ComposeError
    from compose._runs.command import run_sweep

    monkeypatch.setenv("RAY_ADDRESS", "http://127.0.0.1:9")  # discard: nothing listens
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(tmp_path)
    argv = [*BASE, *OWN_DIRS, "--sweep.max-steps", "2", "3", "--sweep-executor", "ray"]
    with pytest.raises(ComposeError, match="cannot reach the Ray job server") as raised:
        run_sweep(RLConfig, argv, "rl", NO_OPTIONS)
    assert raised.value.value == "http://127.0.0.1:9"
    assert list(tmp_path.iterdir()) == []
