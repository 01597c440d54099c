"""The example RL app (`examples/rl-app`), its configs (`examples/`, `conf/`) and entrypoints.

Every example and every `conf/` piece dry-runs; each component file `rl` writes is re-read by
its own entrypoint and written back identical; the validators fail with clear errors; `rl
--help` shows every section; renamed keys warn with where they were found; the schema is at
version 2 and its dry runs say so (tests/cli/test_migrate.py migrates a version 1 file).
"""

from __future__ import annotations

import runpy
import sys
import types
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import run_command
from pydantic import BaseModel
from rl_app import cli as app
from rl_app.config import RLConfig, TrainerEntry
from rl_app.config.orchestrator import EchoConfig, OPDConfig

import compose
from compose import ComposeError, HelpRequested
from compose._schema.plan import plan_of

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
CONF = ROOT / "conf"

if TYPE_CHECKING:
    from conftest import WriteFile

COMPONENT_FILES = ("trainer", "orchestrator", "inference")

# Each full example: its files, merged left to right.
FULL_EXAMPLES = {
    "reverse_text": ["reverse_text/rl.toml"],
    "reverse_text+debug": ["reverse_text/rl.toml", "reverse_text/debug.toml"],
    "reverse_text+full_finetune": ["reverse_text/rl.toml", "reverse_text/full_finetune.toml"],
    "math_opd": ["math_opd/rl.toml"],
    "math_opd+long_context": ["math_opd/rl.toml", "math_opd/long_context.toml"],
    "tool_echo": ["tool_echo/rl.toml"],
    "sft_distill": ["sft_distill/rl.toml"],
}

# conf/ pieces meant for `--SECTION @ FILE`: folder -> section.
PIECE_SECTIONS = {
    "algo": "orchestrator.algo",
    "model": "model",
    "optim": "trainer.optim",
    "scheduler": "trainer.scheduler",
}


def _example_argv(name: str) -> list[str]:
    argv: list[str] = []
    for file in FULL_EXAMPLES[name]:
        argv += ["@", str(EXAMPLES / file)]
    return argv


def _pieces() -> list[Path]:
    return sorted(path for folder in PIECE_SECTIONS for path in (CONF / folder).glob("*.toml"))


def _debug_configs() -> list[Path]:
    return sorted((CONF / "debug").glob("*.toml"))


def _entrypoint_of(debug_file: Path) -> str:
    """conf/debug/NAME.toml is for the entrypoint NAME starts with (rl_lora.toml: rl)."""
    return next(name for name in app.ENTRYPOINTS if debug_file.stem.startswith(name))


def _dry_run(entrypoint: str, argv: list[str], out: Path) -> dict[str, str]:
    """Run an entrypoint with --dry-run into `out`; the files it wrote, by name."""
    app.ENTRYPOINTS[entrypoint]([*argv, "--dry-run", "--output-dir", str(out)])
    return {path.stem: path.read_text() for path in sorted((out / "configs").glob("*.toml"))}


@pytest.fixture(autouse=True)
def _no_teacher_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """math_opd reads TEACHER_URL (with a fallback): keep the fallback unless a test sets it."""
    monkeypatch.delenv("TEACHER_URL", raising=False)


# Every example and every piece dry-runs.


def test_every_example_file_is_tested() -> None:
    tested = {EXAMPLES / file for files in FULL_EXAMPLES.values() for file in files}
    # minimal/ is tested apart; rl-app/ holds the app's project; sweeps/ are sweep files
    # (tests/runs/test_sweep_examples.py)
    skipped = {"minimal", "rl-app", "sweeps"}
    on_disk = {path for path in EXAMPLES.glob("*/*.toml") if path.parent.name not in skipped}
    assert on_disk == tested


def test_every_conf_folder_is_tested() -> None:
    folders = {path.name: {file.stem for file in path.glob("*.toml")} for path in CONF.iterdir()}
    assert set(folders) == {*PIECE_SECTIONS, "debug"}
    assert {"opd", "max_rl"} <= folders["algo"] and {"adamw", "muon"} <= folders["optim"]
    assert len(folders["model"]) >= 2 and len(folders["debug"]) >= 3


@pytest.mark.parametrize("name", FULL_EXAMPLES)
def test_example_dry_runs(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = _example_argv(name)
    config = compose.parse(RLConfig, [*argv, "--dry-run", "--output-dir", str(tmp_path)])
    written = _dry_run("rl", argv, tmp_path)
    assert written == {"rl": compose.to_toml(config)} | {
        part: compose.to_toml(section) for part, section in config.components().items()
    }
    assert ("inference" in written) == (config.inference is not None)
    assert "dry run: nothing started" in capsys.readouterr().out


@pytest.mark.parametrize("name", FULL_EXAMPLES)
def test_component_files_round_trip(name: str, tmp_path: Path) -> None:
    written = _dry_run("rl", _example_argv(name), tmp_path / "rl")
    for component in COMPONENT_FILES:
        if component not in written:
            continue
        file = tmp_path / "rl" / "configs" / f"{component}.toml"
        again = _dry_run(component, ["@", str(file)], tmp_path / component)
        assert again == {component: written[component]}, component


@pytest.mark.parametrize("name", FULL_EXAMPLES)
def test_rl_file_round_trips(name: str, tmp_path: Path) -> None:
    """Sharing is idempotent: rl.toml, fed back to `rl`, resolves to itself."""
    first = _dry_run("rl", _example_argv(name), tmp_path)
    second = _dry_run("rl", ["@", str(tmp_path / "configs" / "rl.toml")], tmp_path)
    assert second == first


@pytest.mark.parametrize("piece", _pieces(), ids=lambda path: f"{path.parent.name}/{path.name}")
def test_conf_piece_loads_into_its_section(piece: Path, tmp_path: Path) -> None:
    section = PIECE_SECTIONS[piece.parent.name]
    argv = [f"--{section}", "@", str(piece)]
    config = compose.parse(RLConfig, argv)
    loaded = _at(config, section)
    piece_values = compose.compose([piece])
    for key, value in piece_values.items():
        if not isinstance(value, dict):
            assert getattr(loaded, key) == value, key
    assert "rl" in _dry_run("rl", argv, tmp_path)


def test_algo_piece_loads_into_one_environment() -> None:
    config = compose.parse(
        RLConfig, ["--orchestrator.env.0.algo", "@", str(CONF / "algo" / "opd.toml")]
    )
    assert isinstance(config.orchestrator.env[0].algo, OPDConfig)
    assert config.orchestrator.algo.type == "grpo"


@pytest.mark.parametrize("debug", _debug_configs(), ids=lambda path: path.name)
def test_debug_config_dry_runs(debug: Path, tmp_path: Path) -> None:
    entrypoint = _entrypoint_of(debug)
    written = _dry_run(entrypoint, ["@", str(debug)], tmp_path / "a")
    if entrypoint != "rl":  # a component config round-trips through its own entrypoint
        again = _dry_run(
            entrypoint,
            ["@", str(tmp_path / "a" / "configs" / f"{entrypoint}.toml")],
            tmp_path / "b",
        )
        assert again == written


def test_debug_overlay_composes(tmp_path: Path) -> None:
    argv = ["@", str(CONF / "debug" / "rl.toml"), "@", str(CONF / "debug" / "rl_lora.toml")]
    config = compose.parse(RLConfig, argv)
    assert config.trainer.model.lora is not None and config.trainer.model.lora.rank == 4
    assert config.inference is not None and config.inference.max_lora_rank == 4
    assert config.trainer.ckpt is not None and config.trainer.ckpt.interval == 2
    assert set(_dry_run("rl", argv, tmp_path)) == {"rl", *COMPONENT_FILES}


# What the examples resolve to.


def test_reverse_text_components_stand_alone(tmp_path: Path) -> None:
    _dry_run("rl", _example_argv("reverse_text"), tmp_path)
    trainer = compose.compose([tmp_path / "configs" / "trainer.toml"], schema=TrainerEntry)
    assert trainer.model.name == "PrimeIntellect/Qwen3-0.6B-Reverse-Text-SFT"
    assert (trainer.max_steps, trainer.model.seq_len, trainer.optim.lr) == (20, 2048, 3e-6)
    assert trainer.wandb is not None and trainer.wandb.name == "reverse-text-trainer"
    inference = app.COMPONENTS["inference"][0]
    served = compose.compose([tmp_path / "configs" / "inference.toml"], schema=inference)
    assert served.model.name == trainer.model.name  # type: ignore[attr-defined]
    assert served.enable_lora and served.max_lora_rank == 8  # type: ignore[attr-defined]


def test_math_opd_interpolates() -> None:
    config = compose.parse(RLConfig, _example_argv("math_opd"))
    orchestrator = config.orchestrator
    assert config.output_dir == Path("outputs/math-opd-8192")
    assert orchestrator.sampling.max_tokens == 8192
    assert orchestrator.eval is not None and orchestrator.eval.rollouts_per_example == 8
    assert config.inference is not None and config.inference.model.max_model_len == 8192
    assert isinstance(orchestrator.algo, OPDConfig)
    assert orchestrator.algo.teacher.base_url == "http://teacher.internal:8000/v1"
    assert (
        orchestrator.wandb is not None and orchestrator.wandb.name == "math-opd-8192-orchestrator"
    )


def test_math_opd_overlay_moves_every_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEACHER_URL", "http://10.0.0.7:8000/v1")
    config = compose.parse(RLConfig, _example_argv("math_opd+long_context"))
    assert config.output_dir == Path("outputs/math-opd-16384")
    assert config.orchestrator.sampling.max_tokens == 16384
    assert config.trainer.model.seq_len == 16384 and config.trainer.model.cp == 2
    assert isinstance(config.orchestrator.algo, OPDConfig)
    assert config.orchestrator.algo.teacher.base_url == "http://10.0.0.7:8000/v1"


def test_tool_echo_resolves() -> None:
    config = compose.parse(RLConfig, _example_argv("tool_echo"))
    orchestrator = config.orchestrator
    assert isinstance(orchestrator.algo, EchoConfig)
    assert {role: r.alpha for role, r in orchestrator.algo.roles.items()} == {
        "tool": 0.1,
        "user": 0.05,
    }
    assert [env.algo.type if env.algo else None for env in orchestrator.env] == [None, "max_rl"]
    assert orchestrator.env[0].args == {"max_turns": 8, "sandbox": None}
    assert orchestrator.sampling.seed is None
    assert config.trainer.ckpt is not None and config.trainer.ckpt.keep_last == 3
    assert orchestrator.ckpt is not None and orchestrator.ckpt.interval == 50
    assert config.inference is not None and config.inference.vllm_extra["max_num_seqs"] == 512


def test_shared_values_reach_every_component() -> None:
    argv = ["--inference", "--max-steps", "7", "--seq-len", "1024", "--model.name", "m/x"]
    argv += ["--ckpt.interval", "5", "--wandb.name", "run", "--trainer.model.lora.rank", "12"]
    config = compose.parse(RLConfig, argv)
    trainer, orchestrator, inference = config.trainer, config.orchestrator, config.inference
    assert inference is not None
    assert {trainer.model.name, orchestrator.model.name, inference.model.name} == {"m/x"}
    assert (trainer.max_steps, orchestrator.max_steps) == (7, 7)
    assert (trainer.model.seq_len, orchestrator.seq_len) == (1024, 1024)
    assert trainer.ckpt is not None and orchestrator.ckpt is not None
    assert (trainer.ckpt.interval, orchestrator.ckpt.interval) == (5, 5)
    assert trainer.wandb is not None and orchestrator.wandb is not None
    assert (trainer.wandb.name, orchestrator.wandb.name) == ("run-trainer", "run-orchestrator")
    assert inference.enable_lora and inference.max_lora_rank == 12


def test_components_validate_with_the_shared_values() -> None:
    """The orchestrator's own check sees the shared seq_len, not its default."""
    argv = ["--seq-len", "8192", "--orchestrator.sampling.max-tokens", "4096"]
    assert compose.parse(RLConfig, argv).orchestrator.seq_len == 8192


def test_echo_roles_replace_the_vetted_table() -> None:
    vetted = compose.parse(RLConfig, ["--orchestrator.algo.type", "echo"]).orchestrator.algo
    assert isinstance(vetted, EchoConfig) and set(vetted.roles) == {"tool"}
    argv = ["--orchestrator.algo.type", "echo", "--orchestrator.algo.roles.user.alpha", "0.2"]
    own = compose.parse(RLConfig, argv).orchestrator.algo
    assert isinstance(own, EchoConfig) and set(own.roles) == {"user"}


# Validators: incompatible combinations fail while resolving, with a clear message.

INVALID = {
    "cp without flash attention": (
        ["--trainer.model.cp", "2", "--trainer.model.attn", "sdpa"],
        "--trainer.model",
        "context parallelism (cp = 2) requires flash attention",
    ),
    "both cpu offloads": (
        ["--trainer.model.fsdp-cpu-offload", "--trainer.model.optim-cpu-offload"],
        "--trainer.model",
        "cannot both be on",
    ),
    "nccl with lora": (
        ["--trainer.weight-broadcast.type", "nccl", "--trainer.model.lora"],
        "--trainer",
        "NCCL weight broadcast does not support LoRA",
    ),
    "schedule longer than run": (
        ["--max-steps", "5", "--trainer.scheduler.type", "linear"],
        "--trainer",
        "the linear schedule needs 20 steps",
    ),
    "mask bounds": (["--trainer.loss.token-mask-low", "9"], "--trainer.loss", "must be below"),
    "partial groups": (
        ["--orchestrator.batch-size", "100"],
        "--orchestrator",
        "batch_size (100) must be a multiple of rollouts_per_example (8)",
    ),
    "rollouts longer than seq_len": (
        ["--seq-len", "512", "--orchestrator.sampling.max-tokens", "1024"],
        "--orchestrator",
        "sampling.max_tokens (1024) exceeds seq_len (512)",
    ),
    "same env twice": (
        ["--orchestrator.env.1.id", "reverse-text"],
        "--orchestrator",
        "reverse-text appear more than once",
    ),
    "opd without teacher": (
        ["--orchestrator.algo.type", "opd"],
        "--orchestrator.algo.teacher",
        "missing",
    ),
    "sft without source": (
        ["--orchestrator.algo.type", "sft"],
        "--orchestrator.algo",
        "samples from a frozen model: set [orchestrator.algo.sampling.source]",
    ),
    "grpo from a frozen model": (
        [
            *("--orchestrator.algo.sampling.source.name", "t"),
            *("--orchestrator.algo.sampling.source.base_url", "http://t/v1"),
        ],
        "--orchestrator.algo",
        "sampling.source must be 'policy'",
    ),
    "unknown echo role": (
        ["--orchestrator.algo.type", "echo", "--orchestrator.algo.roles.bot.alpha", "1"],
        "--orchestrator.algo",
        "unknown echo role(s) bot",
    ),
    "kv scales without fp8": (
        ["--inference.calculate-kv-scales"],
        "--inference",
        "calculate_kv_scales needs an FP8 KV cache",
    ),
    "client misses the server": (
        ["--inference.server.port", "9000"],
        "(root)",
        "inference.server.port is 9000 but orchestrator.client.base_url",
    ),
    "context shorter than rollouts": (
        ["--inference.model.max-model-len", "1024"],
        "(root)",
        "inference.model.max_model_len (1024) is shorter than orchestrator.seq_len (2048)",
    ),
    "components disagree on the model": (
        ["--trainer.model.name", "other/model"],
        "(root)",
        "the components name different models",
    ),
    "components disagree on steps": (
        ["--trainer.max-steps", "3"],
        "(root)",
        "set the top-level max_steps instead",
    ),
    "trainer shorter than rollouts": (
        ["--trainer.model.seq-len", "1024"],
        "(root)",
        "trainer.model.seq_len (1024) is shorter than orchestrator.seq_len (2048)",
    ),
}


@pytest.mark.parametrize("case", INVALID)
def test_validator_rejects(case: str) -> None:
    argv, key, fragment = INVALID[case]
    with pytest.raises(ComposeError) as raised:
        compose.parse(RLConfig, argv)
    messages = {error.key: error.message for error in raised.value.errors}
    assert key in messages, messages
    assert fragment in messages[key]


def test_component_entrypoint_validates_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as raised:
        app.trainer(
            ["--model.cp", "4", "--model.attn", "sdpa", "--dry-run", "--output-dir", str(tmp_path)]
        )
    assert raised.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --model: context parallelism (cp = 4) requires flash attention")


# Renamed fields.


def test_renamed_key_in_a_file_warns_with_file_and_line(write: WriteFile) -> None:
    file = write("old.toml", "clean_output_dir = true\n\n[trainer]\nlr = 2e-5\n")
    with pytest.warns(FutureWarning) as caught:
        config = compose.parse(RLConfig, ["@", file])
    messages = [str(warning.message) for warning in caught]
    assert "`clean_output_dir` is renamed to `clean`; found in old.toml:1" in messages
    assert "`lr` is renamed to `optim.lr`; found in old.toml:4" in messages
    assert config.clean and config.trainer.optim.lr == 2e-5


def test_renamed_flag_warns_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    app.rl(["--trainer.lr", "1e-4", "--dry-run", "--output-dir", str(tmp_path)])
    assert (
        "warning: `lr` is renamed to `optim.lr`; found in --trainer.lr" in capsys.readouterr().err
    )
    assert "lr = 0.0001" in (tmp_path / "configs" / "trainer.toml").read_text()


def test_a_dry_run_stamps_the_schema_version_and_reads_its_own_rl_toml_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Schema version 2 (docs/18): `rl.toml` says so, and loads again without migrating."""
    written = _dry_run("rl", _example_argv("reverse_text"), tmp_path / "a")
    assert written["rl"].startswith("schema_version = 2\n")
    assert not written["trainer"].startswith("schema_version")  # a component's own schema
    again = _dry_run("rl", ["@", str(tmp_path / "a" / "configs" / "rl.toml")], tmp_path / "b")
    assert "warning" not in capsys.readouterr().err
    assert again["trainer"] == written["trainer"]


def test_old_and_new_key_together_is_an_error(write: WriteFile) -> None:
    file = write("both.toml", "[trainer]\nlr = 1e-5\n\n[trainer.optim]\nlr = 2e-5\n")
    with pytest.raises(ComposeError, match=r"keep only `optim\.lr`"):
        compose.parse(RLConfig, ["@", file])


# Help.


def _section_models(annotation: Any) -> list[type[BaseModel]] | None:
    """The models of a section-typed annotation (`M`, `M | None`, a union of models), else None."""
    args = [annotation]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = list(typing.get_args(annotation))
    models = [arg for arg in args if arg is not type(None)]
    if models and all(isinstance(m, type) and issubclass(m, BaseModel) for m in models):
        return models
    return None


def _help_sections(model: type[BaseModel], prefix: str = "") -> list[str]:
    """Dotted paths of the sections --help shows: nested models, unions by their default."""
    paths: list[str] = []
    for name, field in model.model_fields.items():
        models = _section_models(field.annotation)
        if models is None:
            continue
        chosen = type(field.default) if isinstance(field.default, BaseModel) else models[0]
        path = f"{prefix}{name.replace('_', '-')}"
        paths += [path, *_help_sections(chosen, path + ".")]
    return paths


def test_rl_help_lists_every_section() -> None:
    with pytest.raises(HelpRequested) as raised:
        compose.parse(RLConfig, ["--help"], prog="rl")
    text = raised.value.text
    titles = {line[:-1].split(" (")[0] for line in text.splitlines() if line.endswith(":")}
    expected = _help_sections(RLConfig)
    assert len(expected) >= 25
    assert set(expected) <= titles, set(expected) - titles
    for flag in ("--orchestrator.env", "--inference.vllm-extra", "--trainer.env-vars"):
        assert f"\n  {flag} " in text
    assert "other variants: max_rl, opd, opsd, sft, echo" in text


def test_schema_is_big_and_documented() -> None:
    """At least 100 fields, each with help text (its docstring, as --help reads it)."""
    models = _reachable_models(RLConfig)
    fields = [(m, name) for m in models for name in m.model_fields]
    assert len(fields) >= 100
    undocumented = [
        f"{m.__name__}.{name}" for m, name in fields if not plan_of(m).fields[name].description
    ]
    assert not undocumented


def _reachable_models(root: type[BaseModel]) -> list[type[BaseModel]]:
    found: list[type[BaseModel]] = []
    stack = [root]
    while stack:
        model = stack.pop()
        if model in found:
            continue
        found.append(model)
        for field in model.model_fields.values():
            stack += _models_within(field.annotation)
    return found


def _models_within(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in typing.get_args(annotation) for model in _models_within(arg)]


# Launch plan and component entrypoints without --dry-run.


def test_rl_prints_the_launch_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    app.rl([*_example_argv("reverse_text"), "--output-dir", str(out), "--clean"])
    printed = capsys.readouterr().out
    for name in COMPONENT_FILES:
        assert f"{name} @ {out.as_posix()}/configs/{name}.toml --output-dir {out}" in printed
        assert (out / "configs" / f"{name}.toml").is_file()
    assert "LoRA rank 8" in printed
    assert f"would delete {out.as_posix()} first" in printed


def test_rl_without_inference_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    app.rl([*_example_argv("sft_distill"), "--output-dir", str(tmp_path)])
    printed = capsys.readouterr().out
    assert "inference     not started: the orchestrator expects a server at" in printed
    assert not (tmp_path / "configs" / "inference.toml").exists()


def test_component_without_dry_run_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    app.orchestrator(
        ["@", str(CONF / "debug" / "orchestrator.toml"), "--output-dir", str(tmp_path)]
    )
    assert "orchestrator would run in" in capsys.readouterr().out
    assert not (tmp_path / "configs").exists()


def test_quickstart_runs(capsys: pytest.CaptureFixture[str]) -> None:
    runpy.run_path(str(EXAMPLES / "quickstart.py"), run_name="__main__")
    printed = capsys.readouterr().out
    assert "algorithm:  opd (teacher: Qwen/Qwen3-32B)" in printed
    assert "error: --orchestrator: batch_size (100)" in printed


# The real command line, in a fresh interpreter.


def _run(*args: str, cwd: Path) -> tuple[int, str, str]:
    """`python -m rl_app ARGS`, listing what it imports on stderr (`-X importtime`)."""
    return run_command([sys.executable, "-X", "importtime", "-m", "rl_app", *args], cwd=cwd)


def test_command_line_dry_run_imports_little(tmp_path: Path) -> None:
    example = str(EXAMPLES / "reverse_text" / "rl.toml")
    code, _, err = _run("rl", "@", example, "--dry-run", "--output-dir", "out", cwd=tmp_path)
    assert code == 0, err
    assert (tmp_path / "out" / "configs" / "inference.toml").is_file()
    imported = {line.split("|")[-1].strip().split(".")[0] for line in err.splitlines()}
    assert {"compose", "pydantic", "rl_app"} <= imported
    assert not imported & {"rich", "omegaconf", "yaml", "numpy", "torch"}


def test_command_line_error_has_no_traceback(tmp_path: Path) -> None:
    code, out, err = _run("rl", "--orchestrator.batch-size", "100", cwd=tmp_path)
    assert (code, out) == (2, "")
    errors = [line for line in err.splitlines() if not line.startswith("import time:")]
    assert errors == [
        "error: --orchestrator: batch_size (100) must be a multiple of rollouts_per_example (8)"
        " so that every group fits in one batch"
    ]


def _at(config: BaseModel, dotted: str) -> Any:
    value: Any = config
    for segment in dotted.split("."):
        value = getattr(value, segment)
    return value
