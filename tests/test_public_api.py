"""The public surface of the `compose` package (contract §1)."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pydantic
import pytest
from conftest import run_python
from schemas import CheckpointConfig, EnvConfig, MuonConfig, RLConfig

import compose as package
from compose import BaseConfig, ComposeError, HelpRequested, compose, parse

if TYPE_CHECKING:
    from conftest import WriteFile


# --- exported names ----------------------------------------------------------------------------


def test_all_is_sorted() -> None:
    assert package.__all__ == sorted(package.__all__)


_DIR_BEFORE_AND_AFTER = """
import json
import compose as package
before = dir(package)
for name in package.__all__:
    exec(f"from compose import {name}")
print(json.dumps([before, dir(package)]))
"""


def test_all_is_exactly_the_public_names_and_each_imports() -> None:
    """`__all__` is what `dir(compose)` offers (tab completion), the lazy names included and
    nothing it imports to build itself; each name imports. In a fresh interpreter, before
    anything loaded a lazy name, and again after every name did."""
    code, out, err = run_python(_DIR_BEFORE_AND_AFTER)
    assert (code, err) == (0, ""), err
    for names in json.loads(out):
        assert [name for name in names if not name.startswith("_")] == package.__all__
    namespace: dict[str, object] = {}
    exec("from compose import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(package.__all__)


def test_the_contract_names_are_exported() -> None:
    for name in ("BaseConfig", "ComposeError", "HelpRequested", "cli", "compose", "parse"):
        assert name in package.__all__, name


def test_to_toml_is_exported_and_round_trips(write: WriteFile) -> None:
    """Contract §1: `to_toml(model)` -> TOML that loads back, with `compose`, to an equal model;
    None is written as "None"."""
    to_toml = package.to_toml
    assert "to_toml" in package.__all__
    config = parse(
        RLConfig,
        ["--trainer.optim.type", "muon", "--trainer.ckpt", "--orchestrator.env.1.id", "b"],
    )
    text = to_toml(config)
    assert 'max_steps = "None"' in text
    write("dump.toml", text)
    assert compose(["dump.toml"], schema=RLConfig) == config


def test_error_classes_share_one_root() -> None:
    for name in package.__all__:
        value = getattr(package, name)
        if isinstance(value, type) and issubclass(value, Exception):
            if issubclass(value, Warning):
                continue
            assert issubclass(value, ComposeError), name


# --- BaseConfig --------------------------------------------------------------------------------


def test_base_config_forbids_extra_keys() -> None:
    with pytest.raises(pydantic.ValidationError):
        CheckpointConfig(nope=1)  # type: ignore[call-arg]
    assert issubclass(RLConfig, BaseConfig)
    assert issubclass(BaseConfig, pydantic.BaseModel)


def test_base_config_field_docstrings_feed_help() -> None:
    with pytest.raises(HelpRequested) as info:
        parse(RLConfig, ["--help"])
    assert "How many checkpoints to keep; None keeps all." in info.value.text


# --- compose(files) without a schema -----------------------------------------------------------


def test_compose_without_schema_returns_a_plain_dict(write: WriteFile) -> None:
    write("a.toml", "seed = 5\nname = 'x'\n[trainer]\nlr = 0.1\n")
    write("b.toml", "[trainer]\nlr = 0.2\nsteps = 3\n")
    result = compose(["a.toml", "b.toml"])
    assert type(result) is dict
    assert result == {"seed": 5, "name": "x", "trainer": {"lr": 0.2, "steps": 3}}


def test_compose_without_schema_types_overrides_like_the_cli(write: WriteFile) -> None:
    write("a.toml", "[trainer]\nlr = 0.1\n")
    overrides = [
        "trainer.lr=3e-4",
        "seed=3",
        "debug=true",
        "tags=[1, 2]",
        "name=run-1",
        "limit=None",
        "new-section.sub-key=1",
        'extra={"k": "v"}',
    ]
    assert compose(["a.toml"], overrides) == {
        "trainer": {"lr": 3e-4},
        "seed": 3,
        "debug": True,
        "tags": [1, 2],
        "name": "run-1",
        "limit": None,
        "new_section": {"sub_key": 1},
        "extra": {"k": "v"},
    }


def test_compose_accepts_paths(write: WriteFile) -> None:
    write("a.toml", "x = 1\n")
    assert compose([Path("a.toml")]) == {"x": 1}


def test_compose_with_no_sources(write: WriteFile) -> None:
    assert compose([], ["x=1"]) == {"x": 1}
    assert compose([], schema=RLConfig) == RLConfig()


# --- compose(files, overrides, schema=...) -----------------------------------------------------


def test_compose_with_schema_and_every_kind_of_override(write: WriteFile) -> None:
    write("rl.toml", "seed = 5\nmax_steps = 10\n[trainer.optim]\nlr = 0.1\n")
    write("optim.toml", "type = 'muon'\nmomentum = 0.9\n")
    config = compose(
        ["rl.toml"],
        overrides=[
            "trainer.micro-batch-size=3",
            "trainer.lr_warmup_steps=7",
            "trainer.optim=@optim.toml",
            "~seed",
            "orchestrator.env.0.id=math",
            "trainer.ckpt.interval=5",
        ],
        schema=RLConfig,
    )
    assert isinstance(config, RLConfig)
    assert config.seed == 42
    assert config.max_steps == 10
    assert (config.trainer.micro_batch_size, config.trainer.lr_warmup_steps) == (3, 7)
    assert config.trainer.optim == MuonConfig(lr=0.1, momentum=0.9)
    assert config.orchestrator.env == [EnvConfig(id="math")]
    assert config.trainer.ckpt == CheckpointConfig(interval=5)


def test_compose_override_values_win_over_override_files(write: WriteFile) -> None:
    write("t.toml", "micro_batch_size = 9\n")
    config = compose([], ["trainer.micro_batch_size=3", "trainer=@t.toml"], schema=RLConfig)
    assert config.trainer.micro_batch_size == 3


def test_compose_raises_compose_error(write: WriteFile) -> None:
    write("a.toml", "seed = 'x'\n")
    with pytest.raises(ComposeError, match=r"^--seed = 'x' \(from a\.toml:1\)"):
        compose(["a.toml"], schema=RLConfig)


# --- parse -------------------------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_parse_help_raises_help_requested_with_the_text(flag: str) -> None:
    with pytest.raises(HelpRequested) as info:
        parse(RLConfig, [flag], prog="rl")
    assert isinstance(info.value, ComposeError)
    assert info.value.text.startswith("usage: rl ")
    assert "--trainer.optim.lr FLOAT" in info.value.text


def test_parse_never_exits(write: WriteFile) -> None:
    with pytest.raises(ComposeError):
        parse(RLConfig, ["--seed", "x"])
    with pytest.raises(ComposeError):
        parse(RLConfig, ["@", "missing.toml"])


def test_parse_skill_examples(write: WriteFile) -> None:
    """The loading and composition examples of the user's guide, one by one."""
    write("rl.toml", "max_steps = 100\n[trainer.model]\nname = 'rl'\n")
    write("base.toml", "seed = 1\n[orchestrator]\nbatch_size = 64\n")
    write("overlay.toml", "seed = 2\n")
    write("model.toml", "name = 'from-file'\n")
    write("trainer.toml", "micro_batch_size = 2\n")
    assert parse(RLConfig, ["@", "rl.toml"]).max_steps == 100
    assert parse(RLConfig, ["@", "rl.toml", "--max-steps", "50"]).max_steps == 50
    config = parse(RLConfig, ["@", "base.toml", "@", "overlay.toml"])
    assert (config.seed, config.orchestrator.batch_size) == (2, 64)
    config = parse(RLConfig, ["--trainer.model", "@", "model.toml"])
    assert config.trainer.model.name == "from-file"
    argv = ["@", "base.toml", "--trainer", "@", "trainer.toml", "--trainer.optim.lr", "1e-3"]
    config = parse(RLConfig, argv)
    assert (config.seed, config.trainer.micro_batch_size) == (1, 2)
    assert config.trainer.optim.lr == 1e-3


# --- the distribution ------------------------------------------------------------------------


def test_the_distribution_installs_only_the_library() -> None:
    """`pip install compose-config` gives the package `compose` and its one command; the example
    app is the distribution `compose-rl-example`. Read from what pip installed, so a stale
    install (from before the app moved out) fails here too: reinstall as the README says."""
    dist = importlib.metadata.distribution("compose-config")
    scripts = {ep.name: ep.value for ep in dist.entry_points if ep.group == "console_scripts"}
    assert scripts == {"compose": "compose._cli.command:run"}
    assert (dist.read_text("top_level.txt") or "").split() == ["compose"]
    app = importlib.metadata.distribution("compose-rl-example")
    assert (app.read_text("top_level.txt") or "").split() == ["rl_app"]


def test_every_library_directory_is_a_package() -> None:
    """`packages.find` (include `compose*`) ships regular packages only: a directory of modules
    without `__init__.py` would be left out of the wheel while every test here still passed."""
    root = Path(package.__file__).parent
    for directory in {path.parent for path in root.rglob("*.py")}:
        assert (directory / "__init__.py").is_file(), directory


@pytest.mark.parametrize("not_a_model", [dict, 3, pydantic.BaseModel.__init__])
@pytest.mark.parametrize("entry", ["compose", "parse", "cli", "from_flat", "compose_hydra"])
def test_a_schema_that_is_no_model_class_is_named_as_the_callers_mistake(
    entry: str, not_a_model: Any, tmp_path: Path
) -> None:
    """`schema=dict` met `model_fields` deep inside and raised AttributeError; every public
    entry that takes a schema says what a schema is and what it was given."""
    (tmp_path / "config.yaml").write_text("a: 1\n", encoding="utf-8")
    calls = {
        "compose": lambda: compose([], schema=not_a_model),
        "parse": lambda: parse(not_a_model, []),
        "cli": lambda: package.cli(not_a_model, argv=[]),
        "from_flat": lambda: package.from_flat(not_a_model, {}),
        "compose_hydra": lambda: package.compose_hydra(tmp_path, "config", schema=not_a_model),
    }
    with pytest.raises(TypeError, match=r"a schema is a Pydantic model class .*, not "):
        calls[entry]()
