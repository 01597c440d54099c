"""What composing real projects' Hydra trees against hydra-core taught (`benchmarks/
hydra_compare.py`, docs/19 "Checked on"), each behaviour restated on a tree of our own: a
nested entry that goes up to a sibling group (`../engine@fsdp: x`), an option of Hydra's own
plugin groups (`override hydra/job_logging: colorlog`), `${hydra:...}` outside a run, a table
copied whole with its `???`, and a Hydra 1.1 `# @package _group_` header."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import write_tree as tree

from compose import ComposeError, ComposeWarning, SourceError, compose_hydra
from compose._interp import resolvers

if TYPE_CHECKING:
    from conftest import WriteFile


def composed(conf: str, name: str, overrides: list[str] | None = None) -> tuple[Any, list[str]]:
    """The config, and the texts of the ComposeWarnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        config = compose_hydra(conf, name, overrides or [])
    return config, [str(w.message) for w in caught if issubclass(w.category, ComposeWarning)]


def error_of(conf: str, name: str, overrides: list[str] | None = None) -> ComposeError:
    with pytest.raises(ComposeError) as caught, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compose_hydra(conf, name, overrides or [])
    return caught.value


# ---------------------------------------------------------------- `..` up to a sibling group

SIBLINGS = {
    "config.yaml": "defaults:\n  - critic@critic: dp\n  - _self_\ntop: 1\n",
    "critic/dp.yaml": (
        "defaults:\n  - ../engine@model.fsdp: fsdp\n  - ../optim@optim: adam\n  - _self_\nlr: 2\n"
    ),
    "engine/fsdp.yaml": "wrap: true\nshards: 8\n",
    "optim/adam.yaml": "defaults:\n  - schedule: cosine\n  - _self_\nbeta: 0.9\n",
    "optim/schedule/cosine.yaml": "warmup: 10\n",
}


def test_a_nested_entry_goes_up_to_a_sibling_group_at_its_own_package(write: WriteFile) -> None:
    """verl's trainer tree: `../engine@model.fsdp_config: fsdp` in critic/dp_critic.yaml reads
    engine/fsdp.yaml into the critic's package, its own nested entries relative to engine/."""
    config, _ = composed(tree(write, SIBLINGS), "config", ["critic.model.fsdp.shards=4"])
    assert config == {
        "critic": {
            "model": {"fsdp": {"wrap": True, "shards": 4}},
            "optim": {"schedule": {"warmup": 10}, "beta": 0.9},
            "lr": 2,
        },
        "top": 1,
    }


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ("../engine: fsdp", "no package: it would be made of the path's names, `..` among them"),
        ("../../engine@fsdp: fsdp", "above the top of the tree"),
        ("../engine@fsdp: ../engine/fsdp", "`..` in the option's name"),
    ],
)
def test_going_up_is_refused_where_it_leaves_the_tree_or_names_no_package(
    write: WriteFile, entry: str, why: str
) -> None:
    files = {**SIBLINGS, "critic/dp.yaml": f"defaults:\n  - {entry}\n  - _self_\nlr: 2\n"}
    error = error_of(tree(write, files), "config")
    assert isinstance(error, SourceError), why
    assert error.message.startswith("a config path is names joined by `/`"), why
    assert error.origin == "conf/config.yaml:2 -> conf/critic/dp.yaml:2", why
    assert error.hint is not None and "`../engine@fsdp: x`" in error.hint, why


# ---------------------------------------------------------------- Hydra's plugin groups

PLUGINS = {
    "config.yaml": "defaults:\n  - _self_\n  - hydra: default\nx: 1\n",
    "hydra/default.yaml": (
        "defaults:\n  - override hydra_logging: colorlog\n  - override job_logging: colorlog\n"
        "run:\n  dir: out\n"
    ),
}


def a_plugin_installed(write: WriteFile, monkeypatch: pytest.MonkeyPatch) -> None:
    """A package in the `hydra_plugins` namespace on the path, as a plugin's install makes."""
    write("site/hydra_plugins/hydra_colorlog/__init__.py", "")
    monkeypatch.syspath_prepend(str(Path("site").resolve()))


def test_an_option_of_hydras_plugin_groups_is_skipped_with_a_warning(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """lightning-hydra-template's hydra/default.yaml chooses hydra-colorlog's `colorlog`, a
    plugin's option compose cannot see: with a plugin installed, the hydra node being dropped,
    the config composes, and a warning names the option and the line that chose it."""
    a_plugin_installed(write, monkeypatch)
    config, said = composed(tree(write, PLUGINS), "config", ["hydra/launcher=submitit_slurm"])
    assert config == {"x": 1}
    assert any(
        "hydra/job_logging/colorlog (from conf/hydra/default.yaml:3)" in text for text in said
    )
    assert any("hydra/hydra_logging/colorlog (from conf/hydra/default.yaml:2)" in t for t in said)
    launcher = "hydra/launcher/submitit_slurm (from hydra/launcher=submitit_slurm)"
    assert any(launcher in text for text in said)


def test_without_a_plugin_installed_such_an_option_is_an_error(write: WriteFile) -> None:
    """As in Hydra, which has no `colorlog` without hydra-colorlog: a typo is named."""
    error = error_of(tree(write, PLUGINS), "config")
    assert error.message == "no config hydra/job_logging/colorlog"
    assert error.origin is not None and error.origin.startswith("conf/hydra/default.yaml:3")


def test_an_unknown_option_of_hydras_other_groups_is_still_an_error(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    a_plugin_installed(write, monkeypatch)
    files = {**PLUGINS, "hydra/default.yaml": "defaults:\n  - override help: nope\n"}
    error = error_of(tree(write, files), "config")
    assert error.message == "no config hydra/help/nope"


# ---------------------------------------------------------------- `${hydra:...}`

RUNTIME = {
    "config.yaml": "defaults:\n  - paths: default\n  - _self_\n",
    "paths/default.yaml": "root: /data\noutput_dir: ${hydra:runtime.output_dir}\n",
}


def test_the_hydra_resolver_is_one_clear_error_outside_a_run(write: WriteFile) -> None:
    """lightning-hydra-template's paths/default.yaml: a running Hydra app's output directory,
    which a composition outside a run has not (hydra.compose refuses it too)."""
    error = error_of(tree(write, RUNTIME), "config")
    assert str(error).startswith(
        "paths.output_dir = '${hydra:runtime.output_dir}' (from conf/paths/default.yaml:2): "
        "interpolation ${hydra:runtime.output_dir}: resolver hydra reads the config of a "
        "running Hydra app"
    )
    assert "set this key on the command line" in str(error)


def test_a_key_the_hydra_resolver_would_fill_set_on_the_command_line(write: WriteFile) -> None:
    config, _ = composed(tree(write, RUNTIME), "config", ["paths.output_dir=/out"])
    assert config == {"paths": {"root": "/data", "output_dir": "/out"}}


def test_a_hydra_resolver_of_the_users_own_is_called(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(resolvers.REGISTRY, "hydra", lambda key: f"/runs/{key}")
    config, _ = composed(tree(write, RUNTIME), "config")
    assert config["paths"]["output_dir"] == "/runs/runtime.output_dir"


# ---------------------------------------------------------------- `???` in a copied table


def test_a_table_copied_whole_keeps_its_unset_values(write: WriteFile) -> None:
    """mbrl-lib: `optimizer_cfg: ${action_optimizer}` copies a table whose bounds are `???`,
    filled later by the app; Hydra copies them as `???`, and so does compose."""
    files = {
        "config.yaml": "defaults:\n  - optimizer: cem\n  - _self_\nagent:\n  cfg: ${optimizer}\n",
        "optimizer/cem.yaml": "iters: 5\nlower: ???\n",
    }
    config, _ = composed(tree(write, files), "config")
    assert config == {
        "optimizer": {"iters": 5, "lower": "???"},
        "agent": {"cfg": {"iters": 5, "lower": "???"}},
    }


def test_reading_the_unset_value_itself_is_still_an_error(write: WriteFile) -> None:
    files = {
        "config.yaml": "defaults:\n  - optimizer: cem\n  - _self_\nlow: ${optimizer.lower}\n",
        "optimizer/cem.yaml": "iters: 5\nlower: ???\n",
    }
    error = error_of(tree(write, files), "config")
    assert "optimizer.lower is a missing mandatory value" in str(error)


# ---------------------------------------------------------------- `# @package _group_`


def test_a_hydra_1_1_group_header_is_a_key_named_group_and_warned_of(write: WriteFile) -> None:
    """mbrl-lib's configs start `# @package _group_`, which Hydra 1.1 read as the group's path
    and 1.2 on read as a key of that name: compose reads it as 1.3 does, and says so."""
    files = {
        "config.yaml": "defaults:\n  - algo: pets\n  - _self_\n",
        "algo/pets.yaml": "# @package _group_\nname: pets\n",
    }
    config, said = composed(tree(write, files), "config")
    assert config == {"_group_": {"name": "pets"}}
    assert said == [
        "conf/algo/pets.yaml: `# @package _group_` puts its keys under a key named _group_ "
        "(Hydra 1.2 and later); Hydra 1.1 read it as the group's path: name the package"
    ]
