"""The trackers of docs/17, for real and without a network: a flat config logged to W&B offline
and read back from `run.config`; the tokens W&B's agent builds for a sweep's `command`, run
through the example's `rl` entrypoint; an Optuna ask/tell loop in memory driving `from_flat`
and the entrypoint; MLflow params, long values and long keys cut to its limits, in a temporary
file store."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, VENV_BIN, run_command
from rl_app.cli import rl
from rl_app.config.rl import RLConfig

from compose import ConfigValidationError, compose, flat_argv, from_flat, parse, to_flat
from compose._output.flat import MLFLOW_MAX_KEY_LENGTH, MLFLOW_MAX_PARAM_LENGTH

BASE = ["@", str(ROOT / "examples/reverse_text/rl.toml")]


@pytest.fixture
def offline_wandb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """W&B writes to `tmp_path` only and dials nowhere; its service process is shut down."""
    for name in ("DIR", "CONFIG_DIR", "CACHE_DIR", "DATA_DIR", "ARTIFACT_DIR"):
        monkeypatch.setenv(f"WANDB_{name}", str(tmp_path / "wandb" / name.lower()))
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_SILENT", "true")
    monkeypatch.delenv("WANDB_API_KEY", raising=False)
    import wandb

    yield tmp_path / "wandb" / "dir"
    wandb.teardown()  # the service process (wandb-core) ends with the test


@pytest.mark.needs("wandb")
def test_wandb_offline_run_config_holds_the_flat_config(offline_wandb: Path) -> None:
    import wandb

    config = parse(RLConfig, [*BASE, "--trainer.optim.lr", "1e-5"])
    flat = to_flat(config)
    run = wandb.init(project="compose-test", config=flat)
    try:
        logged = dict(run.config)
    finally:
        run.finish()
    assert logged == flat  # one key per value: no nested copy beside the dotted keys
    assert logged["trainer.optim.lr"] == 1e-5
    assert logged["trainer.model.lora.target_modules"][:2] == ["q_proj", "k_proj"]
    assert logged["trainer.ckpt"] is None
    assert from_flat(RLConfig, logged) == config  # and back
    assert any(offline_wandb.rglob("offline-run-*"))  # written locally, nothing synced


def _agent_command(command: list[str], parameters: dict[str, Any]) -> list[str]:
    """The process W&B's agent starts for a sweep run: its own functions fill `command`'s
    macros (`wandb_agent.Agent._command_run`, whose loop is this one)."""
    from wandb.sdk.launch.sweeps import utils

    sweep_vars = utils.create_sweep_command_args(
        {"args": {key: {"value": value} for key, value in parameters.items()}}
    )
    sweep_vars["env"] = ["/usr/bin/env"]
    tokens: list[str] = []
    for chunk in utils.create_sweep_command(list(command)):
        if chunk.startswith("${") and chunk.endswith("}"):
            tokens += sweep_vars.get(chunk[2:-1]) or []
        else:
            tokens.append(chunk)
    return tokens


@pytest.mark.skipif(sys.platform == "win32", reason="the agent's ${env} is /usr/bin/env")
@pytest.mark.needs("wandb")
def test_the_wandb_agent_s_args_drive_the_entrypoint(tmp_path: Path) -> None:
    """Every value form `${args}` writes (`str()` of a float, list, dict, bool, None)."""
    parameters = {
        "trainer.optim.lr": 1e-05,
        "trainer.model.lora.target_modules": ["q_proj", "v_proj"],
        "orchestrator.sampling.extra_body": {"top_k": 20, "stop": None},
        "trainer.model.optim_cpu_offload": True,
        "trainer.wandb.entity": None,
        "orchestrator.batch_size": 64,
    }
    out = tmp_path / "out"
    command = ["${env}", "rl", *BASE, "--dry-run", "--output-dir", str(out), "${args}"]
    tokens = _agent_command(command, parameters)
    assert tokens[-6:] == [
        "--trainer.optim.lr=1e-05",
        "--trainer.model.lora.target_modules=['q_proj', 'v_proj']",
        "--orchestrator.sampling.extra_body={'top_k': 20, 'stop': None}",
        "--trainer.model.optim_cpu_offload=True",
        "--trainer.wandb.entity=None",
        "--orchestrator.batch_size=64",
    ]
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ['PATH']}"}
    code, stdout, stderr = run_command(tokens, env=env)
    assert (code, stderr) == (0, ""), stdout
    written = compose([out / "configs" / "rl.toml"], schema=RLConfig)
    flat = to_flat(written)
    extra_body = parameters.pop("orchestrator.sampling.extra_body")
    assert written.orchestrator.sampling.extra_body == extra_body
    assert {key: flat[key] for key in parameters} == parameters


@pytest.mark.needs("wandb")
def test_the_wandb_agent_s_nested_parameters_go_through_from_flat(tmp_path: Path) -> None:
    """A nested parameter is a dict for a section: the command line refuses it, as the guide
    says of JSON for a section; `from_flat`, given `run.config`, spreads it into fields."""
    tokens = _agent_command(["rl", "${args}"], {"trainer": {"optim": {"lr": 1e-05}}})
    assert tokens == ["rl", "--trainer={'optim': {'lr': 1e-05}}"]
    with pytest.raises(Exception, match="is a section"):
        parse(RLConfig, [*BASE, *tokens[1:]])
    config = from_flat(RLConfig, {"trainer": {"optim": {"lr": 1e-05}}}, BASE)
    assert config.trainer.optim.lr == 1e-05
    assert config.trainer.model.lora is not None  # the rest of the section is the file's


@pytest.mark.needs("optuna")
def test_optuna_ask_tell_drives_from_flat_and_the_entrypoint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.RandomSampler(0))
    seen: list[tuple[float, int]] = []
    for number in range(4):
        trial = study.ask()
        trial.suggest_float("trainer.optim.lr", 1e-6, 1e-3, log=True)
        trial.suggest_categorical("orchestrator.batch_size", [32, 64, 128])
        trial.suggest_categorical("trainer.model.lora.rank", [4, 8, 16])
        config = from_flat(RLConfig, trial.params, BASE)  # validated before anything runs
        out = tmp_path / f"trial-{number}"
        rl([*BASE, *flat_argv(trial.params), "--dry-run", "--output-dir", str(out)])
        written = compose([out / "configs" / "trainer.toml"])
        assert written["optim"]["lr"] == config.trainer.optim.lr == trial.params["trainer.optim.lr"]
        assert written["model"]["lora"]["rank"] == trial.params["trainer.model.lora.rank"]
        seen.append((config.trainer.optim.lr, config.orchestrator.batch_size))
        study.tell(trial, config.trainer.optim.lr * config.orchestrator.batch_size)
    capsys.readouterr()
    assert len(study.trials) == 4
    assert study.best_value == min(lr * batch for lr, batch in seen)


@pytest.mark.needs("mlflow-skinny")
def test_mlflow_params_cut_to_its_limit_in_a_file_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mlflow
    from mlflow.tracking import MlflowClient
    from mlflow.utils.validation import MAX_PARAM_VAL_LENGTH, MAX_PARAMS_TAGS_PER_BATCH

    assert MLFLOW_MAX_PARAM_LENGTH == MAX_PARAM_VAL_LENGTH  # the default follows MLflow's
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # a directory: no server, no network
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
    tags = [f"tag-{i:04}" for i in range(1000)]  # ~12,000 characters as JSON
    config = parse(RLConfig, [*BASE, "--trainer.wandb.tags", *tags])
    params = to_flat(config, text=True)
    assert len(params) > MAX_PARAMS_TAGS_PER_BATCH  # more than one batch: MLflow splits them
    assert params["trainer.wandb.tags"].endswith(" more characters]")
    with mlflow.start_run() as run:
        mlflow.log_params(params)
    logged = MlflowClient().get_run(run.info.run_id).data.params
    assert logged == params
    assert len(logged["trainer.wandb.tags"]) == MAX_PARAM_VAL_LENGTH
    short = {key: value for key, value in params.items() if key != "trainer.wandb.tags"}
    assert from_flat(RLConfig, short) == parse(RLConfig, BASE)  # the rest comes back


@pytest.mark.needs("mlflow-skinny")
def test_mlflow_param_keys_cut_to_its_key_limit_in_a_file_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MLflow refuses a param key longer than 250 characters (it cuts values, never keys): a
    dict key makes one. Cut, each keeps its head and a digest of the whole key, so that two
    keys with one head stay two params, and a run's keys are the same in every run."""
    import mlflow
    from mlflow.exceptions import MlflowException
    from mlflow.tracking import MlflowClient
    from mlflow.utils.validation import MAX_ENTITY_KEY_LENGTH

    assert MLFLOW_MAX_KEY_LENGTH == MAX_ENTITY_KEY_LENGTH  # the default follows MLflow's
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # a directory: no server, no network
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
    head = "HF_HUB_" + "X" * 300
    env_vars = {f"{head}_CACHE": "/a", f"{head}_TOKEN_PATH": "/b", "PATH": "/bin"}
    config = parse(RLConfig, [*BASE, "--trainer.env-vars", json.dumps(env_vars)])
    long = [key for key in to_flat(config) if len(key) > MAX_ENTITY_KEY_LENGTH]
    assert len(long) == 2
    with mlflow.start_run(), pytest.raises(MlflowException, match="exceeds the maximum length"):
        mlflow.log_param(long[0], "/a")  # what MLflow says of the whole key
    params = to_flat(config, text=True)
    assert params == to_flat(config, text=True)  # the same keys for the same config
    with mlflow.start_run() as run:
        mlflow.log_params(params)
    logged = MlflowClient().get_run(run.info.run_id).data.params
    assert logged == params
    cut_keys = [key for key in logged if key.startswith("trainer.env_vars.HF_HUB_")]
    assert len(cut_keys) == 2
    assert all(len(key) == MAX_ENTITY_KEY_LENGTH for key in cut_keys)
    assert logged["trainer.env_vars.PATH"] == "/bin"
    with pytest.raises(ConfigValidationError, match="cut to fit a tracker's length limit"):
        from_flat(RLConfig, {cut_keys[0]: logged[cut_keys[0]]}, BASE)


@pytest.mark.needs("mlflow-skinny")
def test_a_dict_whose_keys_mlflow_refuses_is_logged_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MLflow takes a param key of letters, digits, `_ - . /` and spaces only (and no `//` or
    end slash: a key resolving to another as a path), and refuses the whole `log_params` call
    for one it does not take. A dict holding such a key is one param in text, its JSON (as a
    dict with a `.` in a key always is), which `from_flat` takes back; a dict whose keys it
    takes is spread, one param per key."""
    import mlflow
    from mlflow.exceptions import MlflowException
    from mlflow.tracking import MlflowClient

    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # a directory: no server, no network
    mlflow.set_tracking_uri((tmp_path / "mlruns").as_uri())
    refused = ["GPU(0)", "a+b", "x,y", "k=v", "p//q", "trail/", "host:port"]
    for key in refused[:6]:  # a colon is refused on Windows only
        with mlflow.start_run(), pytest.raises(MlflowException, match="Invalid value"):
            mlflow.log_param(f"trainer.env_vars.{key}", "1")  # what MLflow says of each
    for key in refused:
        env_vars = {"PATH": "/bin", key: "1"}
        config = parse(RLConfig, [*BASE, "--trainer.env-vars", json.dumps(env_vars)])
        params = to_flat(config, text=True)
        assert params["trainer.env_vars"] == json.dumps(env_vars), key
        assert "trainer.env_vars.PATH" not in params
        if "=" not in key:  # no flag can name it: one value for W&B too
            assert to_flat(config)["trainer.env_vars.PATH"] == "/bin"  # W&B takes the rest
        with mlflow.start_run() as run:
            mlflow.log_params(params)
        logged = MlflowClient().get_run(run.info.run_id).data.params
        assert logged == params
        assert from_flat(RLConfig, logged) == config
    spread = {"HF/HOME dir": "/a", "CUDA_VISIBLE-DEVICES": "0", "LANG_é": "C"}
    config = parse(RLConfig, [*BASE, "--trainer.env-vars", json.dumps(spread)])
    params = to_flat(config, text=True)
    assert {key: params[f"trainer.env_vars.{key}"] for key in spread} == spread
    with mlflow.start_run() as run:
        mlflow.log_params(params)
    assert from_flat(RLConfig, MlflowClient().get_run(run.info.run_id).data.params) == config
