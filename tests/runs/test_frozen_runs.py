"""Frozen results through what records runs (issue 23): written by `write_configs` and loaded
back they are the same config, frozen again; their fingerprint is the unfrozen one's; a
schema that declares `frozen=True` gives every sweep point frozen; `--from-run` into
`cli(frozen=True)` gives a frozen config."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pydantic import ConfigDict
from rl_app.config import RLConfig

from compose import (
    FrozenError,
    cli,
    compose,
    fingerprint,
    parse,
    sweep,
    write_configs,
    write_run_record,
    write_sweep,
)

ROOT = Path(__file__).resolve().parents[2]
ARGV = ["--trainer.optim.lr", "3e-4", "--max-steps", "20"]


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "examples/reverse_text/rl.toml", tmp_path / "rl.toml")
    return "rl.toml"


def test_a_frozen_result_is_written_and_reloads_equal_and_frozen(example: str) -> None:
    frozen = parse(RLConfig, ["@", example, *ARGV], frozen=True)
    plain = parse(RLConfig, ["@", example, *ARGV])
    [written] = write_configs("run", {"rl": frozen})
    [written_plain] = write_configs("plain", {"rl": plain})
    assert written.read_text() == written_plain.read_text()
    reloaded = compose([written], schema=RLConfig, frozen=True)
    assert reloaded == frozen == plain
    with pytest.raises(FrozenError, match=r"^trainer\.optim\.lr = 1: cannot assign"):
        reloaded.trainer.optim.lr = 1
    assert compose([written], schema=RLConfig).trainer.optim.lr == 3e-4


def test_the_fingerprint_does_not_see_frozenness(example: str) -> None:
    argv = ["@", example, *ARGV]
    assert fingerprint(parse(RLConfig, argv, frozen=True)) == fingerprint(parse(RLConfig, argv))


class FrozenRL(RLConfig):
    model_config = ConfigDict(frozen=True)


def test_a_schema_declaring_frozen_makes_every_sweep_point_frozen(example: str) -> None:
    axes = {"trainer.optim.lr": ["1e-4", "2e-4"]}
    made = sweep(FrozenRL, ["@", example], axes=axes, prog="rl", output="output_dir")
    plain = sweep(RLConfig, ["@", example], axes=axes, prog="rl", output="output_dir")
    assert [p.fingerprint for p in made.points] == [p.fingerprint for p in plain.points]
    for point in made.points:
        with pytest.raises(FrozenError) as caught:
            point.config.orchestrator.env.append(point.config.orchestrator.env[0])
        assert caught.value.key == "orchestrator.env"
    write_sweep(made)
    config_file = made.points[1].directory / "configs" / "rl.toml"
    assert compose([config_file], schema=FrozenRL) == made.points[1].config


def test_from_run_into_a_frozen_cli_is_frozen(example: str) -> None:
    argv = ["@", example, *ARGV]
    frozen = cli(RLConfig, args=argv, prog="rl", frozen=True)
    write_configs("run", {"rl": frozen})
    write_run_record("run", frozen, argv, prog="rl")
    again = cli(RLConfig, args=["--from-run", "run"], prog="rl", frozen=True)
    assert again == frozen
    with pytest.raises(FrozenError, match=r"^max_steps: cannot delete"):
        del again.max_steps


def test_sweep_frozen_freezes_every_point() -> None:
    made = sweep(
        RLConfig,
        ["@", str(ROOT / "examples/reverse_text/rl.toml")],
        axes={"max_steps": ["1", "2"]},
        prog="rl",
        output="output_dir",
        frozen=True,
    )
    for point in made.points:
        with pytest.raises(FrozenError, match=r"trainer\.optim\.lr"):
            point.config.trainer.optim.lr = 1.0
