"""Every point of a sweep is composed and validated before anything is written: each point's
config is exactly what its command line composes alone (the files are read once for all of
them), failing points are reported all at once, and axis keys are checked against the schema.
Fingerprints name the same config the same way wherever its values came from."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import SecretStr
from rl_app.cli import CONF
from rl_app.config import RLConfig

from compose import BaseConfig, ComposeError, PointError, fingerprint, parse, sweep

if TYPE_CHECKING:
    from conftest import WriteFile

ROOT = Path(__file__).resolve().parents[2]
BASE = ["@", str(ROOT / "examples/reverse_text/rl.toml")]


def test_each_point_is_what_its_command_line_composes_alone() -> None:
    made = sweep(
        RLConfig,
        BASE,
        axes={"trainer.optim.lr": ["1e-5", "2e-5", "3e-5"], "max-steps": ["5", "6"]},
        output="output_dir",
        search_path=[CONF],
        prog="rl",
    )
    assert len(made.points) == 6
    for point in made.points:
        assert point.argv == (*BASE, *point.overrides, f"--output_dir={point.directory}")
        assert point.config == parse(RLConfig, list(point.argv), search_path=[CONF])
    assert made.points[1].axes == {"trainer.optim.lr": 1e-5, "max-steps": 6}
    assert made.points[1].config.trainer.max_steps == 6


@settings(max_examples=25, deadline=None)
@given(
    lrs=st.lists(st.integers(1, 10_000), min_size=1, max_size=6, unique=True),
    steps=st.lists(st.integers(1, 50), min_size=1, max_size=4, unique=True),
    optim=st.sampled_from(["@optim/muon", "@optim/adamw", "muon"]),
)
def test_reading_each_file_once_changes_no_point(
    lrs: list[int], steps: list[int], optim: str
) -> None:
    """The per-sweep file cache is a pure shortcut: any sweep's points equal their argv
    composed alone, config groups (file axes) and union switches included."""
    key = "trainer.optim" if optim.startswith("@") else "trainer.optim.type"
    axes = {
        key: [optim],
        "trainer.optim.lr": [f"{lr}e-8" for lr in lrs],
        "max_steps": [str(s) for s in steps],
    }
    made = sweep(RLConfig, BASE, axes=axes, output="output_dir", search_path=[CONF], prog="rl")
    assert len(made.points) == len(lrs) * len(steps)
    for point in made.points:
        alone = parse(RLConfig, list(point.argv), search_path=[CONF])
        assert point.config == alone
        assert point.fingerprint == fingerprint(alone, exclude=[("output_dir",)])


def test_every_failing_point_is_reported_at_once_with_its_index_and_values() -> None:
    with pytest.raises(ComposeError) as caught:
        sweep(RLConfig, BASE, axes={"trainer.optim.lr": ["-1", "1e-4", "-2"]}, search_path=[CONF])
    errors = caught.value.errors
    assert [type(e) for e in errors] == [PointError, PointError]
    assert str(caught.value) == (
        "2 errors:\n"
        "  - point 0 (trainer.optim.lr=-1): --trainer.optim.lr = -1.0: "
        "Input should be greater than or equal to 0\n"
        "  - point 2 (trainer.optim.lr=-2): --trainer.optim.lr = -2.0: "
        "Input should be greater than or equal to 0"
    )
    assert errors[0].key == "--trainer.optim.lr"


def test_an_unknown_axis_key_names_where_it_was_written_with_a_did_you_mean(
    write: WriteFile,
) -> None:
    sweep_file = write("lr.toml", '[axes]\n"trainer.optim.lrr" = [1e-4]\n')
    with pytest.raises(ComposeError) as caught:
        sweep(RLConfig, BASE, sweep_files=[sweep_file], search_path=[CONF])
    assert str(caught.value) == (
        "trainer.optim.lrr (from lr.toml:2): unknown key: the schema has no such field to "
        "sweep; did you mean trainer.optim.lr?"
    )


def test_keys_below_a_dict_or_a_list_element_are_known() -> None:
    made = sweep(
        RLConfig,
        BASE,
        axes={"orchestrator.env.0.id": ["a", "b"]},
        output="output_dir",
        search_path=[CONF],
    )
    assert [p.config.orchestrator.env[0].id for p in made.points] == ["a", "b"]


def test_a_sweep_file_types_values_as_toml_and_flags_as_the_command_line(write: WriteFile) -> None:
    sweep_file = write("lr.toml", '[axes]\n"trainer.optim.lr" = [1e-4]\n')
    from_file = sweep(RLConfig, BASE, sweep_files=[sweep_file], search_path=[CONF])
    from_flags = sweep(RLConfig, BASE, axes={"trainer.optim.lr": ["0.0001"]}, search_path=[CONF])
    assert from_file.points[0].fingerprint == from_flags.points[0].fingerprint
    assert from_file.name == "lr"  # the file's stem
    assert from_flags.name == "sweep"


def test_two_points_with_the_same_config_are_an_error() -> None:
    with pytest.raises(ComposeError, match="composes the same config as point 0"):
        sweep(RLConfig, BASE, axes={"trainer.optim.lr": ["1e-4", "0.0001"]}, search_path=[CONF])


def test_an_output_key_is_each_points_directory_and_not_part_of_its_fingerprint(
    tmp_path: Path,
) -> None:
    one = sweep(
        RLConfig, BASE, axes={"max-steps": ["3"]}, output="output_dir", directory=tmp_path / "a"
    )
    two = sweep(
        RLConfig, BASE, axes={"max-steps": ["3"]}, output="output_dir", directory=tmp_path / "b"
    )
    point = one.points[0]
    assert point.config.output_dir == tmp_path / "a" / "sweep" / point.name
    assert point.fingerprint == two.points[0].fingerprint
    assert point.fingerprint == fingerprint(point.config, exclude=[("output_dir",)])


class Keyed(BaseConfig):
    name: str = "run"
    lr: float = 0.1
    token: SecretStr = SecretStr("")


def test_a_fingerprint_ignores_secrets_and_where_values_came_from(write: WriteFile) -> None:
    write("a.toml", 'lr = 0.5\nname = "x"\n')
    write("b.toml", 'name = "x"\n')
    by_file = parse(Keyed, ["@", "a.toml", "--token", "one"])
    by_flag = parse(Keyed, ["@", "b.toml", "--lr", "0.5", "--token", "two"])
    assert fingerprint(by_file) == fingerprint(by_flag)
    assert fingerprint(by_file) != fingerprint(parse(Keyed, ["--lr", "0.5"]))
    assert len(fingerprint(by_file)) == 64


def test_points_that_differ_only_in_a_secret_are_told_so_and_never_shown_it() -> None:
    """The fingerprint leaves a secret out (no record may give it away), so two points that
    differ only in one would share a directory: the error says that is why, not that they
    are one config, and shows neither value."""
    with pytest.raises(ComposeError) as caught:
        sweep(Keyed, [], axes={"token": ["hunter2", "hunter3"]})
    said = caught.value.format()
    assert "differs from point 0 only in the secret token" in said
    assert "same config" not in said
    assert "hunter" not in said


def test_a_point_named_in_an_error_masks_a_secret_axis() -> None:
    """`compose check` and `sweep` name a failing point by its axes: a secret's value is
    masked there, as everywhere (the points of a sweep over tokens printed each token)."""
    with pytest.raises(ComposeError) as caught:
        sweep(Keyed, axes={"token": ["sk-first", "sk-second"], "lr": ["fast", 0.2]})
    text = str(caught.value)
    assert "sk-" not in text
    assert "point 0 (token=**********, lr=fast)" in text


def test_nothing_to_sweep_is_an_error() -> None:
    with pytest.raises(ComposeError, match="nothing to sweep"):
        sweep(RLConfig, BASE)
