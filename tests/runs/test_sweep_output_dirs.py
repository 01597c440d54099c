"""Two points of a sweep never share an output directory (issue 38): the sweep's output key is
each point's own directory, and any key named as an output directory that two points' configs
hold alike is an error before anything is written, naming the key, the directory, where it
was set and the points; a swept or interpolated directory differs by point and passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from compose import BaseConfig, ComposeError, cli, sweep
from compose._syntax import is_output_dir_name


class Checkpoints(BaseConfig):
    every: int = 10
    ckpt_out_dir: str = "ckpt"


class Stage(BaseConfig):
    name: str = "stage"
    output_dir: str = "stage-out"


class Train(BaseConfig):
    """A run."""

    lr: float = 0.1
    output_dir: str = "outputs"
    checkpoints: Checkpoints = Checkpoints()
    stages: list[Stage] = []
    layout_dir: str = "layout"  # ends in "out_dir" as text, not as a word: no output directory


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_points_sharing_an_output_directory_are_an_error_naming_key_origin_and_points(
    tmp_path: Path,
) -> None:
    (tmp_path / "base.toml").write_text('output_dir = "runs/one"\n[checkpoints]\nevery = 5\n')
    with pytest.raises(ComposeError) as caught:
        sweep(Train, ["@", "base.toml"], axes={"lr": [0.1, 0.2, 0.3]})
    error = caught.value
    assert str(error).startswith(
        "2 errors:\n"
        "  - output_dir = 'runs/one' (from base.toml:1): is the output directory of 3 of the "
        "3 points (0, 1, 2): they would write over each other's; give each point its own with "
        '--sweep-output output_dir (or output = "output_dir" in [sweep])\n'
        "  - checkpoints.ckpt_out_dir = 'ckpt': is the output directory of 3 of the 3 points"
    )
    assert [e.key for e in error.errors] == ["output_dir", "checkpoints.ckpt_out_dir"]
    assert not (tmp_path / "runs").exists()


def test_the_output_key_and_what_interpolates_it_differ_by_point(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text('[checkpoints]\nckpt_out_dir = "${output_dir}/ckpt"\n')
    made = sweep(Train, ["@", "base.toml"], axes={"lr": [0.1, 0.2]}, output="output_dir")
    dirs = [p.config.checkpoints.ckpt_out_dir for p in made.points]
    assert dirs == [f"{p.directory}/ckpt" for p in made.points]


def test_swept_output_directories_pass(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(
        '[[zip]]\noutput_dir = ["a", "b"]\n"checkpoints.ckpt_out_dir" = ["c", "d"]\n'
    )
    made = sweep(Train, sweep_files=["s.toml"])
    assert [p.config.output_dir for p in made.points] == ["a", "b"]


def test_the_output_key_does_not_excuse_another_shared_directory() -> None:
    with pytest.raises(ComposeError) as caught:
        sweep(Train, axes={"lr": [0.1, 0.2]}, output="output_dir")
    assert caught.value.key == "checkpoints.ckpt_out_dir"
    assert caught.value.hint == "sweep checkpoints.ckpt_out_dir, or interpolate it from output_dir"


def test_output_directories_in_a_list_of_sections_count(tmp_path: Path) -> None:
    (tmp_path / "base.toml").write_text(
        '[[stages]]\nname = "a"\noutput_dir = "${output_dir}/a"\n'
        '[[stages]]\nname = "b"\noutput_dir = "shared"\n'
        '[checkpoints]\nckpt_out_dir = "${output_dir}/ckpt"\n'
    )
    with pytest.raises(ComposeError) as caught:
        sweep(Train, ["@", "base.toml"], axes={"lr": [0.1, 0.2]}, output="output_dir")
    assert caught.value.key == "stages.1.output_dir"
    assert caught.value.value == "shared"


def test_sweep_mode_refuses_shared_directories_before_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        cli(Train, ["--sweep.lr", "0.1", "0.2", "--checkpoints.ckpt-out-dir", "c"], prog="train")
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "error: 2 errors:\n  - output_dir = 'outputs'" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("name", "named"),
    [
        ("output_dir", True),
        ("output-dir", True),
        ("out_dir", True),
        ("ckpt_out_dir", True),
        ("log-output-dir", True),
        ("layout_dir", False),
        ("output", False),
        ("output_directory", False),
        ("checkout_dir", False),
    ],
)
def test_which_names_are_output_directories(name: str, named: bool) -> None:
    assert is_output_dir_name(name) is named
