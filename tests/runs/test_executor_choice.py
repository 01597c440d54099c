"""Choosing an executor: a mistake in its name or its options is one error naming the key,
the value and where it was written (the sweep file's FILE:LINE, or the flag), with a
did-you-mean; an empty name is a mistake, not the default; all before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import WriteFile, run_cli

from compose import BaseConfig, ComposeError
from compose._input.options import NO_OPTIONS
from compose._runs.command import run_sweep


class Train(BaseConfig):
    lr: float = 1e-3


def _sweep_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """`train ARGV` through `cli`, in sweep mode."""
    return run_cli(argv, capsys, Train, "train")


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("lokal", "--sweep-executor = 'lokal': no such executor; did you mean local?"),
        ("", "--sweep-executor: is empty: give a value, or leave it out for the default"),
    ],
)
def test_an_executor_flag_that_names_none_is_one_error(
    name: str, error: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], write: WriteFile
) -> None:
    code, out, err = _sweep_cli(["--sweep.lr", "0.1", "0.2", "--sweep-executor", name], capsys)
    assert (code, out, err) == (2, "", f"error: {error}\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (
            '[sweep]\nexecutor = "slurm"\n',
            "sweep.executor = 'slurm' (from sweep.toml:2): no such executor; choose one of "
            "local, none, ray, sbatch, submitit",
        ),
        (
            '[sweep]\nexecutor = ""\n',
            "sweep.executor (from sweep.toml:2): is empty: give a value, or leave it out for the "
            "default",
        ),
        (
            '[sweep.executor]\nname = "sbach"\n',
            "sweep.executor = 'sbach' (from sweep.toml:2): no such executor; did you mean sbatch?",
        ),
        (
            '[sweep.executor]\nname = "local"\nmax_paralel = 4\n',
            "sweep.executor.max_paralel = 4 (from sweep.toml:3): is not an option of the "
            "executor 'local'; did you mean max_parallel?",
        ),
        (
            '[sweep.executor]\nname = "local"\n\nmax_parallel = "4"\n',
            "sweep.executor.max_parallel = '4' (from sweep.toml:4): expects an integer",
        ),
        (
            '[sweep.executor]\nname = "local"\nmax_parallel = 0\n',
            "sweep.executor.max_parallel = 0 (from sweep.toml:3): expects at least 1",
        ),
        (
            '[sweep.executor]\nname = "sbatch"\nsetup = "module load cuda"\n',
            "sweep.executor.setup = 'module load cuda' (from sweep.toml:3): expects a list of "
            "strings",
        ),
        (
            '[sweep.executor]\nname = "none"\nmax_parallel = 2\n',
            "sweep.executor = {'max_parallel': 2} (from sweep.toml:1): the executor 'none' takes "
            "no options",
        ),
    ],
)
def test_an_executor_mistake_in_a_sweep_file_names_its_line(
    text: str, error: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], write: WriteFile
) -> None:
    write("sweep.toml", f"{text}\n[axes]\nlr = [0.1, 0.2]\n")
    code, out, err = _sweep_cli(["--sweep", "@", "sweep.toml"], capsys)
    assert (code, out, err) == (2, "", f"error: {error}\n")
    assert [path.name for path in tmp_path.iterdir()] == ["sweep.toml"]


def test_the_last_file_that_sets_the_executor_is_the_one_named(write: WriteFile) -> None:
    """Later sweep files win, for the controls as for their origins."""
    write("a.toml", '[sweep.executor]\nname = "local"\nmax_parallel = 2\n\n[axes]\nlr = [0.1]\n')
    write("b.toml", '[sweep]\n\n[sweep.executor]\nname = "local"\nmax_paralel = 2\n')
    with pytest.raises(ComposeError) as raised:
        run_sweep(Train, ["--sweep", "@", "a.toml", "--sweep", "@", "b.toml"], "train", NO_OPTIONS)
    assert (raised.value.key, raised.value.origin) == ("sweep.executor.max_paralel", "b.toml:5")


def test_an_executor_given_in_code_has_no_origin_to_name(tmp_path: Path) -> None:
    """`open_executor` called with no `where` (options built in code): key and value only."""
    from compose._runs.executors import open_executor

    with pytest.raises(ComposeError) as raised:
        open_executor("local", {"max_paralel": 2}, str(tmp_path))
    assert str(raised.value) == (
        "sweep.executor.max_paralel = 2: is not an option of the executor 'local'; did you "
        "mean max_parallel?"
    )
