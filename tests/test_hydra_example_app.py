"""The example Hydra-style app (`examples/hydra-app`), run as its users run it: `python app.py`
and Hydra's command line, which `cli(AppConfig, hydra="conf:config")` takes. Its own tree is
composed onto its schema with group choices, value overrides, an experiment (`# @package
_global_` and `override`); `-m` is a sweep with run records, `--from-run` composes a point
again, `--help` shows the tree's values; bad input is one error, exit 2."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest
from conftest import MULTIRUN_NAME as STARTED
from conftest import run_command, wait_until

from compose import compose_hydra

APP = Path(__file__).resolve().parents[1] / "examples" / "hydra-app" / "app.py"
CONF = APP.parent / "conf"

SWEEP_DIR = f"runs/{STARTED}"  # each -m without --sweep-name: a new sweep named by its start
pytestmark = pytest.mark.usefixtures("multirun_started")


def app(*argv: str, cwd: Path) -> tuple[int, str, str]:
    """`python examples/hydra-app/app.py ARGV...` from `cwd`: exit status, stdout, stderr."""
    return run_command([sys.executable, str(APP), *argv], cwd=cwd)


def config_of(*argv: str, cwd: Path) -> dict[str, dict[str, object]]:
    """The config the app prints for one run."""
    code, out, err = app(*argv, cwd=cwd)
    assert (code, err) == (0, ""), err
    config: dict[str, dict[str, object]] = json.loads(out)
    return config


def test_the_defaults_list_gives_each_group_its_default(tmp_path: Path) -> None:
    config = config_of(cwd=tmp_path)  # the tree is found beside app.py, from any directory
    assert (config["db"]["driver"], config["model"]["name"]) == ("sqlite", "small")
    assert config["optimizer"] == {
        "name": "adam",
        "lr": 3e-4,
        "weight_decay": 0.01,
        "momentum": None,
    }
    assert config["trainer"]["out_dir"] == "runs/small-adam-seed0"  # interpolated


def test_choices_values_and_an_experiment(tmp_path: Path) -> None:
    overrides = ["db=postgresql", "+experiment=long_run", "trainer.seed=3", "optimizer.lr=0.2"]
    config = config_of(*overrides, cwd=tmp_path)
    assert config["db"]["port"] == 5432
    # the experiment overrides two choices and sets values at the top (package _global_)
    assert (config["model"]["name"], config["model"]["layers"]) == ("large", 24)
    assert (config["optimizer"]["name"], config["optimizer"]["momentum"]) == ("sgd", 0.9)
    assert (config["trainer"]["epochs"], config["trainer"]["batch_size"]) == (100, 128)
    # a command-line value comes after every config, the experiment's too
    assert config["optimizer"]["lr"] == 0.2
    assert config["trainer"]["out_dir"] == "runs/large-sgd-seed3"


def test_the_entrypoint_gives_what_the_library_call_gives(tmp_path: Path) -> None:
    """`compose_hydra(conf, "config", overrides, schema=AppConfig)`, the library's call, and
    the app's command line are one composition."""
    spec = importlib.util.spec_from_file_location("hydra_example_app", APP)
    assert spec is not None and spec.loader is not None
    module: types.ModuleType = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # pydantic resolves the models' annotations through it
    spec.loader.exec_module(module)
    overrides = ["db=postgresql", "model=large", "trainer.epochs=7"]
    config = compose_hydra(CONF, "config", overrides, schema=module.AppConfig)
    assert config.model_dump(mode="json") == config_of(*overrides, cwd=tmp_path)


def test_multirun_is_a_sweep_in_hydra_order_each_point_composed_again_from_its_record(
    tmp_path: Path,
) -> None:
    code, out, err = app(
        "-m", "model=small,large", "optimizer=glob(*)", "db=postgresql", "--dry-run", cwd=tmp_path
    )
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert (
        lines[0]
        == f"sweep {STARTED}: 4 points in {SWEEP_DIR} (dry run: records written, nothing submitted)"
    )
    assert [line.split()[2:4] for line in lines[2:]] == [  # the last axis varies fastest
        ["small", "adam"],
        ["small", "sgd"],
        ["large", "adam"],
        ["large", "sgd"],
    ]
    manifest = (tmp_path / SWEEP_DIR / "manifest.jsonl").read_text().splitlines()
    point = Path(json.loads(manifest[2])["directory"])
    record = json.loads((point / "run.json").read_text())
    assert record["argv"] == ["model=large", "optimizer=adam", "db=postgresql"]
    assert record["origins"]["model.layers"] == f"{CONF}/model/large.yaml:2"
    assert record["origins"]["db.port"] == f"{CONF}/db/postgresql.yaml:3"
    assert record["origins"]["trainer.epochs"] == f"{CONF}/config.yaml:10"
    again = config_of("--from-run", str(point), cwd=tmp_path)
    assert (again["model"]["name"], again["optimizer"]["name"]) == ("large", "adam")
    assert again["db"]["driver"] == "postgresql"
    changed = config_of("--from-run", str(point), "trainer.seed=5", cwd=tmp_path)
    trainer = {**again["trainer"], "seed": 5, "out_dir": "runs/large-adam-seed5"}
    assert changed == {**again, "trainer": trainer}


def test_multirun_jobs_run_with_the_local_executor(tmp_path: Path) -> None:
    code, out, err = app("-m", "model=small,large", "--sweep-executor", "local", cwd=tmp_path)
    assert (code, err) == (0, ""), err
    assert out.startswith(f"sweep {STARTED}: 2 points in {SWEEP_DIR} (executor local)\n")
    manifest = (tmp_path / SWEEP_DIR / "manifest.jsonl").read_text().splitlines()
    points = [Path(json.loads(line)["directory"]) for line in manifest]

    def ended() -> bool:
        return all(
            "finished" in ((p / "status.json").read_text() if (p / "status.json").exists() else "")
            for p in points
        )

    wait_until(ended, "both jobs finished")
    printed = [json.loads((p / "log.txt").read_text().splitlines()[-1]) for p in points]
    assert [config["model"]["name"] for config in printed] == ["small", "large"]


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["db=postgresql", "--help"]])
def test_help_shows_the_tree_s_values_and_composes_no_run(tmp_path: Path, argv: list[str]) -> None:
    code, out, err = app(*argv, cwd=tmp_path)
    assert (code, err) == (0, "")
    assert out.startswith("usage: app.py [-m] [--config-path DIR] [--config-name NAME]")
    port = "5432" if "db=postgresql" in argv else "0"
    assert f"db.port INT (= {port}, from" in " ".join(out.split())
    assert "{" not in out.splitlines()[-1]  # no config printed
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("overrides", "said"),
    [
        (["db=oracle"], "'oracle' (from db=oracle, for"),  # the defaults entry's line
        (
            ["trainer.epochs=many"],
            "error: trainer.epochs (from trainer.epochs=many): Input should be a valid integer",
        ),
        (["+db.hots=x"], "error: db.hots (from +db.hots=x): unknown key; did you mean db.host?"),
        (["trainer.epoch=3"], "trainer.epoch (from trainer.epoch=3): no such key"),
    ],
)
def test_bad_input_is_one_error_and_exit_2(tmp_path: Path, overrides: list[str], said: str) -> None:
    code, out, err = app(*overrides, cwd=tmp_path)
    assert (code, out) == (2, "")
    assert said in err
    assert err.count("\n") == 1


@pytest.mark.parametrize("args", [["--help"], []])
def test_a_reader_that_leaves_early_gets_no_traceback(args: list[str]) -> None:
    """`app.py ... | head -1`: the pipe closes under the printing; the app ends quietly, with
    the status a shell gives a program its reader left (128 + SIGPIPE), no traceback."""
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
    assert (child.returncode, child.stderr) == (141, "")
