"""One adapter per system, each doing the whole job on the same files.

An adapter's `prepare(job)` does the set-up a long-lived program does once (building a parser,
a settings class) and returns the timed call: read the files, merge them, apply the overrides,
resolve interpolations, and for typed runs validate against the schema. `unsupported(w)` says
why a system cannot do a workload's job at all (those cells read "n/a").

Where a peer does a neighbouring job instead of exactly ours, its `note` says so; the report
prints the notes under the tables.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hydra_trees import side_python
from pydantic import BaseModel, ConfigDict, create_model
from workloads import Paths, Workload

REPO = Path(__file__).resolve().parents[1]

Run = Callable[[], Any]
Overrides = list[tuple[str, str]]


@dataclass(frozen=True)
class Job:
    """What an adapter gets: the workload, its files, the schema for typed runs, the flags."""

    workload: Workload
    paths: Paths
    schema: type[BaseModel] | None
    overrides: Overrides
    leaves: list[str]

    @property
    def toml_files(self) -> list[str]:
        return self.paths.toml_files(self.workload.n)

    @property
    def yaml_files(self) -> list[str]:
        return self.paths.yaml_files(self.workload.n)


@dataclass(frozen=True)
class System:
    name: str
    module: str  # the import that must succeed for the system to be installed
    prepare: Callable[[Job], Run]
    unsupported: Callable[[Workload], str | None]
    note: str
    # hydra-core pins omegaconf below the dev pin: its cells run in the side venv of
    # `hydra_trees.py`, so that the dev venv keeps the omegaconf its oracle tests need
    in_side_venv: bool = False

    def python(self) -> str:
        """The interpreter of this system's worker processes: the side venv's (made where it
        is missing) or this one."""
        return str(side_python()) if self.in_side_venv else sys.executable

    def installed(self) -> bool:
        if not self.in_side_venv:
            return importlib.util.find_spec(self.module) is not None
        try:
            probe = [self.python(), "-c", f"import {self.module}"]
        except (OSError, subprocess.CalledProcessError):  # the side venv could not be made
            return False
        return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def always(_: Workload) -> str | None:
    return None


def no_interpolation(w: Workload) -> str | None:
    return "no interpolation" if w.k else None


def validate(schema: type[BaseModel] | None, tree: dict[str, Any]) -> Any:
    return tree if schema is None else schema.model_validate(tree)


# ---------------------------------------------------------------- compose


def prepare_compose(job: Job) -> Run:
    import compose  # noqa: PLC0415  # each adapter imports only its own system

    files, schema = job.toml_files, job.schema
    if schema is not None and job.overrides:
        argv = [token for path in files for token in ("@", path)]
        argv += [token for key, text in job.overrides for token in (f"--{key}", text)]
        return lambda: compose.parse(schema, argv)
    overrides = [f"{key}={text}" for key, text in job.overrides]
    if schema is None:
        return lambda: compose.compose(files, overrides)
    return lambda: compose.compose(files, overrides, schema=schema)


# ---------------------------------------------------------------- the floor

_REF = re.compile(r"\$\{([^${}]+)\}")


def deep_merge(dst: dict[str, Any], src: dict[str, Any]) -> None:
    """Tables merge key by key; anything else replaces."""
    for key, value in src.items():
        old = dst.get(key)
        if isinstance(value, dict) and isinstance(old, dict):
            deep_merge(old, value)
        else:
            dst[key] = value


def set_dotted(tree: dict[str, Any], key: str, value: Any) -> None:
    node = tree
    *parents, last = key.split(".")
    for segment in parents:
        node = node.setdefault(segment, {})
    node[last] = value


def toml_value(text: str, loads: Callable[[str], dict[str, Any]]) -> Any:
    """Schema-less flag text: a TOML value where it parses as one, else the text itself."""
    if not text or text[0] not in "+-0123456789.tfin[\"'":
        return text
    try:
        return loads(f"v = {text}")["v"]
    except ValueError:
        return text


def lookup(tree: dict[str, Any], dotted: str) -> Any:
    node: Any = tree
    for segment in dotted.split("."):
        node = node[segment]
    return node


def resolve_refs(node: dict[str, Any], root: dict[str, Any]) -> None:
    """The least an interpolating loader does: find `${a.b}`, walk the dicts, substitute."""
    for key, value in node.items():
        if isinstance(value, dict):
            resolve_refs(value, root)
        elif isinstance(value, str) and "${" in value:
            node[key] = resolve_text(value, root)


def resolve_text(text: str, root: dict[str, Any]) -> Any:
    whole = _REF.fullmatch(text)
    if whole is not None:
        return resolve_value(lookup(root, whole.group(1)), root)
    return _REF.sub(lambda match: str(resolve_value(lookup(root, match.group(1)), root)), text)


def resolve_value(value: Any, root: dict[str, Any]) -> Any:
    if isinstance(value, str) and "${" in value:
        return resolve_text(value, root)
    return value


def native_toml() -> tuple[str, Callable[[str], dict[str, Any]]]:
    """The floor's parser: the fastest well-kept native TOML parser installed (toml-rs, chosen
    on `parsers.py`'s evidence), else compiled tomli, as the floor was before 2026-12-02."""
    try:
        import toml_rs  # noqa: PLC0415
    except ImportError:
        import tomli  # noqa: PLC0415

        return "tomli", tomli.loads
    return "toml-rs", toml_rs.loads


def tomli_toml() -> tuple[str, Callable[[str], dict[str, Any]]]:
    import tomli  # noqa: PLC0415

    return "tomli", tomli.loads


def read_toml(path: str | Path, loads: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    with open(path, "rb") as handle:
        return loads(handle.read().decode())


def floor_tree(
    files: list[str], overrides: Overrides, typed: bool, loads: Callable[[str], dict[str, Any]]
) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for path in files:
        deep_merge(tree, read_toml(path, loads))
    for key, text in overrides:
        set_dotted(tree, key, text if typed else toml_value(text, loads))
    return tree


def _floor_with(
    parser: Callable[[], tuple[str, Callable[[str], dict[str, Any]]]],
) -> Callable[[Job], Run]:
    def prepare(job: Job) -> Run:
        files, overrides, schema, k = job.toml_files, job.overrides, job.schema, job.workload.k
        loads = parser()[1]

        def run() -> Any:
            tree = floor_tree(files, overrides, schema is not None, loads)
            if k:
                resolve_refs(tree, tree)
            return validate(schema, tree)

        return run

    return prepare


prepare_floor = _floor_with(native_toml)
prepare_floor_tomli = _floor_with(tomli_toml)


# ---------------------------------------------------------------- the example rl app

RL_FILES = ("examples/reverse_text/rl.toml", "examples/reverse_text/debug.toml")
RL_FLAG = ("--trainer.optim.lr", "1e-5")


def rl_example_runs(workdir: Path) -> tuple[Callable[[], Any], Callable[[], Any], str]:
    """The README's main job through `compose.parse`, the floor on the same files, and the
    command they stand for. The floor cannot choose a union's default variant, so its copy of
    rl.toml has that tag written in; it sets the flag's text, which `model_validate` converts,
    as in the other typed runs."""
    from rl_app.config.rl import RLConfig  # noqa: PLC0415

    import compose  # noqa: PLC0415

    files = [REPO / name for name in RL_FILES]
    tagged = workdir / "rl_tagged.toml"
    tag = f'[trainer.optim]\ntype = "{RLConfig().trainer.optim.type}"\n'
    tagged.write_text(files[0].read_text().replace("[trainer.optim]\n", tag, 1))
    argv = [token for path in files for token in ("@", str(path))] + list(RL_FLAG)

    loads = native_toml()[1]

    def floor() -> Any:
        tree: dict[str, Any] = {}
        for path in (tagged, files[1]):
            deep_merge(tree, read_toml(path, loads))
        set_dotted(tree, RL_FLAG[0].removeprefix("--"), RL_FLAG[1])  # text, as typed runs
        return RLConfig.model_validate(tree)

    def composed() -> Any:
        return compose.parse(RLConfig, argv)

    command = "rl " + " ".join([*(f"@ {name}" for name in RL_FILES), *RL_FLAG])
    return composed, floor, command


# ---------------------------------------------------------------- OmegaConf and Hydra


def _omegaconf_run(job: Job, load: Callable[[str], Any], files: list[str]) -> Run:
    from omegaconf import OmegaConf  # noqa: PLC0415

    dotlist = [f"{key}={text}" for key, text in job.overrides]
    schema = job.schema

    def run() -> Any:
        configs = [load(path) for path in files]
        if dotlist:
            configs.append(OmegaConf.from_dotlist(dotlist))
        merged = OmegaConf.merge(*configs)
        return validate(schema, OmegaConf.to_container(merged, resolve=True))  # type: ignore[arg-type]

    return run


def lift_yaml_node_limit() -> None:
    """OmegaConf 2.4 refuses a YAML file of more than 10,000 nodes (a guard against alias
    bombs, aliases or not): a user with the benchmark's 10,000-leaf files lifts it, as its
    error says, with this variable (the files are our own, so trusted)."""
    os.environ.setdefault("OMEGACONF_MAX_YAML_EXPANDED_NODES", "none")


def prepare_omegaconf(job: Job) -> Run:
    from omegaconf import OmegaConf  # noqa: PLC0415

    lift_yaml_node_limit()
    return _omegaconf_run(job, OmegaConf.load, job.yaml_files)


def prepare_omegaconf_tomli(job: Job) -> Run:
    import tomli  # noqa: PLC0415
    from omegaconf import OmegaConf  # noqa: PLC0415

    def load(path: str) -> Any:
        with open(path, "rb") as handle:
            return OmegaConf.create(tomli.load(handle))

    return _omegaconf_run(job, load, job.toml_files)


def prepare_hydra(job: Job) -> Run:
    from hydra import compose, initialize_config_dir  # noqa: PLC0415
    from omegaconf import OmegaConf  # noqa: PLC0415

    lift_yaml_node_limit()
    config_dir = str(job.paths.yaml_dir)
    overrides = [f"{key}={text}" for key, text in job.overrides]
    schema = job.schema

    def run() -> Any:
        with initialize_config_dir(config_dir=config_dir, version_base=None):
            config = compose(config_name="bench", overrides=overrides)
        return validate(schema, OmegaConf.to_container(config, resolve=True))  # type: ignore[arg-type]

    return run


# ---------------------------------------------------------------- prime-pydantic-config


class Anything(BaseModel):
    """Schema-less runs of the Pydantic-based peers: any keys, kept as they are."""

    model_config = ConfigDict(extra="allow")


def prepare_prime(job: Job) -> Run:
    from pydantic_config import cli  # noqa: PLC0415

    argv = [token for path in job.toml_files for token in ("@", path)]
    argv += [token for key, text in job.overrides for token in (f"--{key}", text)]
    model = job.schema or Anything
    return lambda: cli(model, args=argv)


def prime_unsupported(w: Workload) -> str | None:
    if w.k:
        return "no interpolation"
    if w.overrides and not w.typed:
        return "without a schema, flag values stay strings"
    return None


# ---------------------------------------------------------------- pydantic-settings


def prepare_settings(job: Job) -> Run:
    from pydantic_settings import (  # noqa: PLC0415
        BaseSettings,
        SettingsConfigDict,
        TomlConfigSettingsSource,
    )

    files = job.toml_files
    argv = [token for key, text in job.overrides for token in (f"--{key}", text)]
    config = SettingsConfigDict(
        extra="allow" if job.schema is None else "forbid",
        cli_parse_args=argv or None,
        cli_implicit_flags=False,
    )

    class Base(BaseSettings):
        model_config = config

        @classmethod
        def settings_customise_sources(
            cls, settings_cls: Any, init_settings: Any, *_: Any, **__: Any
        ) -> Any:
            # Only the TOML files (and the CLI, which pydantic-settings puts first); no env.
            toml = TomlConfigSettingsSource(settings_cls, toml_file=files, deep_merge=True)
            return (init_settings, toml)

    fields: dict[str, Any] = {}
    if job.schema is not None:
        fields = {name: (f.annotation, f) for name, f in job.schema.model_fields.items()}
    return create_model("BenchSettings", __base__=Base, **fields)  # calling it does the job


def settings_unsupported(w: Workload) -> str | None:
    if w.k:
        return "no interpolation"
    if w.overrides and not w.typed:
        return "its CLI accepts only declared fields"
    return None


# ---------------------------------------------------------------- jsonargparse


def prepare_jsonargparse(job: Job) -> Run:
    from jsonargparse import ActionConfigFile, ArgumentParser  # type: ignore[attr-defined]  # noqa: PLC0415

    parser = ArgumentParser(parser_mode="toml", exit_on_error=False)
    parser.add_argument("--config", action=ActionConfigFile)
    for leaf in job.leaves:
        parser.add_argument(f"--{leaf}", type=Any)
    argv = [token for path in job.toml_files for token in ("--config", path)]
    argv += [token for key, text in job.overrides for token in (f"--{key}", text)]
    schema = job.schema

    def run() -> Any:
        tree = parser.parse_args(argv).as_dict()
        tree.pop("config", None)
        return validate(schema, _drop_unset(tree))

    return run


def _drop_unset(tree: dict[str, Any]) -> dict[str, Any]:
    """Declared arguments no file set come back as None: drop them (TOML has no null)."""
    kept: dict[str, Any] = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            inner = _drop_unset(value)
            if inner:
                kept[key] = inner
        elif value is not None:
            kept[key] = value
    return kept


# ---------------------------------------------------------------- the registry

SYSTEMS: tuple[System, ...] = (
    System(
        "floor",
        "tomli",
        prepare_floor,
        always,
        "the fastest native TOML parser (toml-rs) + a plain-dict deep merge "
        "(+ one model_validate typed; + a regex resolver with K)",
    ),
    System(
        "floor-tomli",
        "tomli",
        prepare_floor_tomli,
        always,
        "the floor before 2026-12-02: compiled tomli + the same merge (and validate, resolver)",
    ),
    System(
        "compose",
        "compose",
        prepare_compose,
        always,
        "compose.compose(); typed CLI runs through compose.parse(schema, argv)",
    ),
    System(
        "omegaconf",
        "omegaconf",
        prepare_omegaconf,
        always,
        "OmegaConf.load of the YAML "
        "files + merge + to_container(resolve=True); typed: + model_validate",
    ),
    System(
        "omegaconf-tomli",
        "omegaconf",
        prepare_omegaconf_tomli,
        always,
        "OmegaConf.create of each tomli-parsed file (OmegaConf's own cost without YAML parsing)",
    ),
    System(
        "hydra",
        "hydra",
        prepare_hydra,
        always,
        "initialize_config_dir + compose of a "
        "defaults list of the N YAML files; typed: + model_validate (Hydra cannot take "
        "Pydantic schemas); in the side venv .venv-hydra, on hydra-core's own omegaconf",
        in_side_venv=True,
    ),
    System(
        "prime-pydantic-config",
        "pydantic_config",
        prepare_prime,
        prime_unsupported,
        "cli(model, args=['@', f1, '@', f2, ...]); schema-less: a model with extra='allow'",
    ),
    System(
        "pydantic-settings",
        "pydantic_settings",
        prepare_settings,
        settings_unsupported,
        "TomlConfigSettingsSource(toml_file=[N files], deep_merge=True), stdlib tomllib; "
        "schema-less: extra='allow'",
    ),
    System(
        "jsonargparse",
        "jsonargparse",
        prepare_jsonargparse,
        no_interpolation,
        "ArgumentParser(parser_mode='toml') with repeated --config; every leaf declared "
        "(untimed set-up) as type Any; typed: + model_validate",
    ),
)


def system(name: str) -> System:
    for found in SYSTEMS:
        if found.name == name:
            return found
    raise KeyError(name)
