"""Hydra's own configs, as a Hydra 1.3 tree sees them: the `hydra/...` groups and their options,
and `hydra/config`, whose defaults list chooses one option of each.

These are described in our own words (keys only where values do not matter): the `hydra`
node is dropped from every result, but its groups can be chosen (`hydra/launcher=basic`), its
keys set (`hydra.run.dir=out`), and a key it does not have is an error (`hydra.foo=bar`).
"""

from __future__ import annotations

from typing import Any

from compose._interp.resolvers import ResolverRefusal
from compose._syntax import MANDATORY

_LOGGING: dict[str, Any] = {
    "version": 1,
    "formatters": {},
    "handlers": {},
    "root": {},
    "disable_existing_loggers": False,
}

# The packaged configs (pkg://hydra.conf): path -> (data, package header)
PKG_NODES: dict[str, tuple[dict[str, Any], str | None]] = {
    "hydra/env/default": ({}, None),
    "hydra/help/default": ({"app_name": "", "header": "", "footer": "", "template": ""}, None),
    "hydra/hydra_help/default": ({"hydra_help": "", "template": ""}, None),
    **{
        f"hydra/hydra_logging/{n}": (dict(_LOGGING), None)
        for n in ("default", "disabled", "hydra_debug", "none")
    },
    **{
        f"hydra/job_logging/{n}": (dict(_LOGGING), None)
        for n in ("default", "disabled", "none", "stdout")
    },
    "hydra/output/default": ({"run": {"dir": ""}, "sweep": {"dir": "", "subdir": ""}}, "hydra"),
}

# Hydra's schema of its node: every key it has (struct: no other key can be set).
HYDRA_CONFIG: dict[str, Any] = {
    "defaults": [
        {"output": "default"},
        {"launcher": "basic"},
        {"sweeper": "basic"},
        {"help": "default"},
        {"hydra_help": "default"},
        {"hydra_logging": "default"},
        {"job_logging": "default"},
        {"callbacks": None},
        {"env": "default"},
    ],
    "mode": None,
    "searchpath": [],
    "run": {"dir": MANDATORY},
    "sweep": {"dir": MANDATORY, "subdir": MANDATORY},
    "hydra_logging": MANDATORY,
    "job_logging": MANDATORY,
    "sweeper": MANDATORY,
    "launcher": MANDATORY,
    "callbacks": {},
    "help": {
        "app_name": MANDATORY,
        "header": MANDATORY,
        "footer": MANDATORY,
        "template": MANDATORY,
    },
    "hydra_help": {"hydra_help": MANDATORY, "template": MANDATORY},
    "output_subdir": ".hydra",
    "overrides": {"hydra": [], "task": []},
    "job": {
        "name": MANDATORY,
        "chdir": None,
        "override_dirname": MANDATORY,
        "id": MANDATORY,
        "num": MANDATORY,
        "config_name": MANDATORY,
        "env_set": {},
        "env_copy": [],
        "config": {"override_dirname": {"kv_sep": "=", "item_sep": ",", "exclude_keys": []}},
    },
    "runtime": {
        "version": MANDATORY,
        "version_base": MANDATORY,
        "cwd": MANDATORY,
        "config_sources": MANDATORY,
        "output_dir": MANDATORY,
        "choices": {},
    },
    "verbose": False,
}
# Keys of Hydra's node that may not be set to null (typed, not Optional).
NOT_NULL = frozenset(
    {
        "hydra_logging",
        "job_logging",
        "run",
        "sweep",
        "help",
        "hydra_help",
        "overrides",
        "job",
        "runtime",
        "callbacks",
        "searchpath",
    }
)

# What Hydra registers in its ConfigStore (the last source): path -> (data, package)
STORE_NODES: dict[str, tuple[dict[str, Any], str | None]] = {
    "hydra/config": (HYDRA_CONFIG, None),
    "hydra/launcher/basic": (
        {"_target_": "hydra._internal.core_plugins.basic_launcher.BasicLauncher"},
        None,
    ),
    "hydra/sweeper/basic": (
        {
            "_target_": "hydra._internal.core_plugins.basic_sweeper.BasicSweeper",
            "max_batch_size": None,
            "params": None,
        },
        None,
    ),
    "_dummy_empty_config_": ({}, None),
}
# Hydra's groups that installed plugins add options to (hydra-colorlog's `colorlog`, the
# submitit and joblib launchers, the optuna sweeper ...): options compose cannot see, of a
# node every result drops, skipped where a plugin is installed
PLUGIN_GROUPS = frozenset(
    {"hydra/hydra_logging", "hydra/job_logging", "hydra/launcher", "hydra/sweeper"}
)


def plugins_installed() -> bool:
    """Whether a Hydra plugin is installed: a package in a `hydra_plugins` folder on the
    import path, where Hydra finds them (looked for, nothing imported). Only then can an
    option compose does not know be a plugin's."""
    import sys  # noqa: PLC0415  # an error path only
    from pathlib import Path  # noqa: PLC0415  # an error path only

    for entry in sys.path:
        folder = Path(entry or ".") / "hydra_plugins"
        if folder.is_dir() and any(not p.name.startswith((".", "_")) for p in folder.iterdir()):
            return True
    return False


EMPTY_PRIMARY = "_dummy_empty_config_"  # the primary when there is none (config_name=None)
HYDRA_CONFIG_PATH = "hydra/config"


def runtime(*args: Any) -> Any:
    """`${hydra:runtime.output_dir}`: Hydra's own node as a running app has it (its run
    directory, made from the clock; its job's name): a composition outside a run has none."""
    raise ResolverRefusal(
        "resolver hydra reads the config of a running Hydra app (its output directory, "
        "working directory, job), which compose_hydra composes without",
        "set this key on the command line (KEY=VALUE), or register a `hydra` resolver "
        "with compose.register_resolver",
    )
