"""The example Hydra-style app (`examples/hydra-app`): its own Hydra tree composed by
`compose_hydra` onto its Pydantic schema, with group choices, value overrides, an experiment
(`# @package _global_` and `override`), multirun, and bad input as one error, exit 2."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from compose import ComposeError

APP = Path(__file__).resolve().parents[1] / "examples" / "hydra-app" / "app.py"


@pytest.fixture(scope="module")
def app() -> types.ModuleType:
    """app.py as a module (its folder's name is no package name)."""
    spec = importlib.util.spec_from_file_location("hydra_example_app", APP)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the models' annotations through it
    spec.loader.exec_module(module)
    return module


def test_the_defaults_list_gives_each_group_its_default(app: types.ModuleType) -> None:
    [(overrides, config)] = app.configs([])
    assert overrides == []
    assert isinstance(config, app.AppConfig)
    assert config.db.driver == "sqlite" and config.model.name == "small"
    assert config.optimizer.name == "adam" and config.optimizer.lr == 3e-4
    assert config.optimizer.momentum is None
    assert config.trainer.out_dir == "runs/small-adam-seed0"  # interpolated


def test_choices_values_and_an_experiment(app: types.ModuleType) -> None:
    overrides = ["db=postgresql", "+experiment=long_run", "trainer.seed=3", "optimizer.lr=0.2"]
    [(_, config)] = app.configs(overrides)
    assert config.db.port == 5432
    # the experiment overrides two choices and sets values at the top (package _global_)
    assert (config.model.name, config.model.layers) == ("large", 24)
    assert (config.optimizer.name, config.optimizer.momentum) == ("sgd", 0.9)
    assert (config.trainer.epochs, config.trainer.batch_size) == (100, 128)
    # a command-line value comes after every config, the experiment's too
    assert config.optimizer.lr == 0.2
    assert config.trainer.out_dir == "runs/large-sgd-seed3"


def test_multirun_is_the_product_in_hydra_order(app: types.ModuleType) -> None:
    jobs = app.configs(["db=sqlite,postgresql", "optimizer=glob(*)"], multirun=True)
    assert [job for job, _ in jobs] == [
        ["db=sqlite", "optimizer=adam"],
        ["db=sqlite", "optimizer=sgd"],
        ["db=postgresql", "optimizer=adam"],
        ["db=postgresql", "optimizer=sgd"],
    ]
    assert [(c.db.driver, c.optimizer.name) for _, c in jobs] == [
        ("sqlite", "adam"),
        ("sqlite", "sgd"),
        ("postgresql", "adam"),
        ("postgresql", "sgd"),
    ]


def test_main_prints_each_job_as_json(
    app: types.ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert app.main(["-m", "trainer.seed=range(2)", "model=large"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line)["trainer"]["seed"] for line in lines] == [0, 1]
    assert {json.loads(line)["model"]["name"] for line in lines} == {"large"}


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["db=postgresql", "--help"]])
def test_help_prints_the_usage_and_composes_nothing(
    app: types.ModuleType, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert app.main(argv) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert "app.py [-m] [OVERRIDE ...]" in captured.out
    assert "{" not in captured.out  # no job's JSON


@pytest.mark.parametrize(
    ("overrides", "names"),
    [
        (["db=oracle"], ["oracle", "config.yaml:4", "postgresql, sqlite"]),  # the entry's line
        (["trainer.epochs=many"], ["trainer.epochs=many", "valid integer"]),
        (["trainer.epoch=3"], ["trainer.epoch"]),  # no such key: Hydra's struct mode
    ],
)
def test_bad_input_is_one_error_and_exit_2(
    app: types.ModuleType,
    capsys: pytest.CaptureFixture[str],
    overrides: list[str],
    names: list[str],
) -> None:
    with pytest.raises(ComposeError):
        app.configs(overrides)
    assert app.main(overrides) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: ") and captured.err.count("\n") == 1
    for name in names:
        assert name in captured.err


@pytest.mark.parametrize("args", [["--help"], ["-m", "db=sqlite,postgresql"]])
def test_a_reader_that_leaves_early_gets_no_traceback(args: list[str]) -> None:
    """`app.py ... | head -1`: the pipe closes under the printing; the app ends quietly."""
    read, write = os.pipe()
    os.close(read)  # the reader has gone before the first line
    with os.fdopen(write, "wb") as closed:
        child = subprocess.run(
            [sys.executable, str(APP), *args],
            stdout=closed,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
        )
    assert (child.returncode, child.stderr) == (0, "")
