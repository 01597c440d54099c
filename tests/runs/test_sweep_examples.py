"""The sweep files of `examples/sweeps/` expand over the reverse-text example, every point
valid, with the points their comments promise."""

from __future__ import annotations

from pathlib import Path

from rl_app.cli import CONF
from rl_app.config import RLConfig

from compose import sweep

ROOT = Path(__file__).resolve().parents[2]
BASE = ["@", str(ROOT / "examples/reverse_text/rl.toml")]
SWEEPS = ROOT / "examples" / "sweeps"


def test_every_sweep_example_is_tested() -> None:
    assert {path.name for path in SWEEPS.glob("*.toml")} == {"optim.toml", "lengths.toml"}


def test_optim_sweeps_a_learning_rate_range_per_optimizer_with_three_seeds() -> None:
    made = sweep(RLConfig, BASE, sweep_files=[SWEEPS / "optim.toml"], search_path=[CONF], prog="rl")
    assert made.name == "optim"
    optimizers = [(p.config.trainer.optim.type, p.config.trainer.optim.lr) for p in made.points]
    assert sorted(set(optimizers)) == [
        ("adamw", 1e-06),
        ("adamw", 1e-05),
        ("adamw", 0.0001),
        ("muon", 0.01),
        ("muon", 0.02),
    ]
    assert [p.config.trainer.seed for p in made.points[:3]] == [0, 1, 2]
    assert all(p.config.output_dir == p.directory for p in made.points)


def test_lengths_zips_steps_with_lengths_then_sweeps_lora_ranks() -> None:
    made = sweep(RLConfig, BASE, sweep_files=[SWEEPS / "lengths.toml"], prog="rl")
    found = []
    for point in made.points:
        trainer = point.config.trainer
        rank = trainer.model.lora.rank if trainer.model.lora else None
        found.append((trainer.max_steps, trainer.model.seq_len, rank))
    assert found == [
        (20, 1024, 8),
        (40, 2048, 8),
        (20, 2048, 8),
        (20, 2048, 16),
        (20, 2048, 24),
        (20, 2048, 32),
    ]
