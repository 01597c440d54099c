"""What starts each point: a sweep launched as `python train.py` (a script that need not be
executable) or `python -m app` runs its points with this interpreter, and they really run;
before anything is written, the command's first word must be one the executor can start: on
this machine (`local`) a program on PATH or an executable file, on a cluster (`sbatch`) a path
must exist here, and a name missing from this PATH is a warning; `none` starts nothing."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pytest
from conftest import WriteFile, run_cli, run_command, wait_until

from compose import BaseConfig

ENTRYPOINT = """\
from compose import BaseConfig, cli


class Train(BaseConfig):
    lr: float = 1e-3


if __name__ == "__main__":
    print("trained with lr", cli(Train).lr)
"""


def _manifest(sweep_dir: Path) -> list[dict[str, object]]:
    text = (sweep_dir / "manifest.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def _states(sweep_dir: Path) -> set[str | None]:
    states = set()
    for point in _manifest(sweep_dir):
        status = Path(str(point["directory"]), "status.json")
        states.add(json.loads(status.read_text())["state"] if status.exists() else None)
    return states


def _ended(sweep_dir: Path) -> bool:
    return _states(sweep_dir) <= {"finished", "failed"}


def _logs(sweep_dir: Path) -> list[str]:
    return [
        Path(str(point["directory"]), "log.txt").read_text().splitlines()[-1]
        for point in _manifest(sweep_dir)
    ]


SWEEP = ["--sweep.lr", "0.1", "0.2", "--sweep-executor", "local", "--sweep-name", "lr"]


def test_a_script_run_by_python_runs_its_points_through_this_interpreter(
    tmp_path: Path,
) -> None:
    script = tmp_path / "train.py"
    script.write_text(ENTRYPOINT)
    script.chmod(0o644)  # as a script is, unless made executable: run by `python train.py`

    code, out, err = run_command([sys.executable, "train.py", *SWEEP], cwd=tmp_path)

    assert (code, err) == (0, ""), err
    assert out.startswith("sweep lr: 2 points in runs/lr (executor local)\n")
    sweep_dir = tmp_path / "runs" / "lr"
    commands = [point["command"] for point in _manifest(sweep_dir)]
    assert [command[:2] for command in commands] == [[sys.executable, str(script)]] * 2  # type: ignore[index]
    wait_until(lambda: _ended(sweep_dir), "every point ended")
    assert _states(sweep_dir) == {"finished"}
    assert _logs(sweep_dir) == ["trained with lr 0.1", "trained with lr 0.2"]


def test_a_module_run_by_python_m_runs_its_points_as_the_same_module(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "__main__.py").write_text(ENTRYPOINT)

    code, out, err = run_command([sys.executable, "-m", "app", *SWEEP], cwd=tmp_path)

    assert (code, err) == (0, ""), err
    assert out.startswith("sweep lr: 2 points in runs/lr (executor local)\n")
    sweep_dir = tmp_path / "runs" / "lr"
    commands = [point["command"] for point in _manifest(sweep_dir)]
    assert [command[:3] for command in commands] == [[sys.executable, "-m", "app"]] * 2  # type: ignore[index]
    wait_until(lambda: _ended(sweep_dir), "every point ended")
    assert _states(sweep_dir) == {"finished"}
    assert _logs(sweep_dir) == ["trained with lr 0.1", "trained with lr 0.2"]


class Train(BaseConfig):
    lr: float = 1e-3


def _sweep_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`train ARGV` through `cli`, in sweep mode."""
    return run_cli(argv, capsys, Train, "train")


HINT = 'set [sweep] command to the words that start the program: ["python", "train.py"]'


@pytest.mark.parametrize(
    ("command", "error"),
    [
        (
            '["trian.py"]',
            "sweep.command = 'trian.py' (from sweep.toml:2): cannot start the points: no such "
            f"program on PATH; {HINT}",
        ),
        (
            '["./trian.py"]',
            "sweep.command = './trian.py' (from sweep.toml:2): cannot start the points: does not "
            f"exist; {HINT}",
        ),
        (
            '["./train.py"]',  # there, but not executable
            "sweep.command = './train.py' (from sweep.toml:2): cannot start the points: is not "
            f"an executable file; {HINT}",
        ),
    ],
)
def test_a_command_this_machine_cannot_start_is_refused_before_anything_is_written(
    command: str,
    error: str,
    write: WriteFile,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write("train.py", ENTRYPOINT)
    write("sweep.toml", f'[sweep]\ncommand = {command}\nexecutor = "local"\n')
    code, out, err = _sweep_cli(["--sweep", "@", "sweep.toml", "--sweep.lr", "0.1"], capsys)
    assert (code, out, err) == (2, "", f"error: {error}\n")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["sweep.toml", "train.py"]


def test_the_default_command_this_machine_cannot_start_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], write: WriteFile
) -> None:
    """Launched from no script of its own (here pytest's), the program is run by its name."""
    code, out, err = _sweep_cli(["--sweep.lr", "0.1", "--sweep-executor", "local"], capsys)
    assert (code, out) == (2, "")
    assert err == (
        "error: sweep.command = 'train': cannot start the points: no such program on PATH; "
        f"{HINT}\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.fixture
def no_sbatch(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PATH with neither sbatch nor the sweep's program: the script is written, not sent."""
    monkeypatch.setenv("PATH", str(tmp_path_factory.mktemp("empty-bin")))


@pytest.mark.usefixtures("no_sbatch")
def test_on_a_cluster_a_name_missing_here_is_only_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], write: WriteFile
) -> None:
    """The nodes' PATH may hold it (a module loaded in `setup`)."""
    write("sweep.toml", '[sweep]\ncommand = ["trainer"]\nexecutor = "sbatch"\n')
    code, out, err = _sweep_cli(["--sweep", "@", "sweep.toml", "--sweep.lr", "0.1"], capsys)
    assert code == 0
    assert out.startswith("sweep sweep: 1 point in runs/sweep (executor sbatch)\n")
    warning = (
        "warning: sweep.command = 'trainer': no such program on this machine's PATH; the "
        "points start only if the PATH of the sbatch executor's nodes holds it"
    )
    assert warning in err.splitlines()
    assert (tmp_path / "runs" / "sweep" / "sweep.sbatch").is_file()


@pytest.mark.usefixtures("no_sbatch")
def test_on_a_cluster_a_path_must_exist_here(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], write: WriteFile
) -> None:
    """The nodes read the sweep's records from this file system: so do they the program."""
    missing = tmp_path / "venv" / "bin" / "train"
    write("sweep.toml", f'[sweep]\ncommand = ["{missing}"]\nexecutor = "sbatch"\n')
    code, out, err = _sweep_cli(["--sweep", "@", "sweep.toml", "--sweep.lr", "0.1"], capsys)
    assert (code, out) == (2, "")
    assert err == (
        f"error: sweep.command = '{missing}' (from sweep.toml:2): cannot start the points: "
        f"does not exist; {HINT}\n"
    )
    assert [path.name for path in tmp_path.iterdir()] == ["sweep.toml"]


def test_the_none_executor_starts_nothing_so_any_command_is_a_hand_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], write: WriteFile
) -> None:
    write("sweep.toml", '[sweep]\ncommand = ["kubectl-run-point"]\n')
    code, out, err = _sweep_cli(["--sweep", "@", "sweep.toml", "--sweep.lr", "0.1"], capsys)
    assert (code, err) == (0, "")
    assert out.startswith("sweep sweep: 1 point in runs/sweep (executor none)\n")
    assert (tmp_path / "runs" / "sweep" / "manifest.jsonl").is_file()


def test_a_program_on_path_is_started_by_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], write: WriteFile
) -> None:
    """`python` is found on PATH here, as the pool finds it."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
    (bin_dir / "python").chmod(0o755)
    write("train.py", ENTRYPOINT)
    write("sweep.toml", '[sweep]\ncommand = ["python", "train.py"]\nexecutor = "local"\n')
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    code, out, err = run_command(
        [sys.executable, "train.py", "--sweep", "@", "sweep.toml", "--sweep.lr", "0.3"],
        cwd=tmp_path,
        env=env,
    )
    assert (code, err) == (0, ""), err
    assert out.startswith("sweep sweep: 1 point in runs/sweep (executor local)\n")
    sweep_dir = tmp_path / "runs" / "sweep"
    wait_until(lambda: _ended(sweep_dir), "the point ended")
    assert _states(sweep_dir) == {"finished"}
    assert _logs(sweep_dir) == ["trained with lr 0.3"]
