"""compose: typed configuration composition on Pydantic v2.

TOML files and command-line overrides are nodes of a composition graph, merged in order,
interpolated OmegaConf-style and bound onto Pydantic models.

The functions are imported on first use (PEP 562): a schema module imports `BaseConfig` without
the composition engine, and an entrypoint's bare `--help` never loads it (see `compose._cli.entry`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from compose._schema.config import BaseConfig
from compose._schema.strategies import Merge  # used in schemas, like BaseConfig: a leaf module
from compose.errors import (
    ArgvError,
    ComposeError,
    ComposeWarning,
    ConfigFileError,
    ConfigValidationError,
    ErrorGroup,
    FrozenError,
    HelpRequested,
    InterpolationError,
    MigratedWarning,
    OutputError,
    PointError,
    RenamedWarning,
    SourceError,
    UnknownKeyError,
)

if TYPE_CHECKING:
    from compose._api import compose, compose_hydra, from_flat, parse, to_argv
    from compose._cli.entry import cli
    from compose._interp.clock import run_instant
    from compose._interp.resolvers import (
        register_resolver,
        registered_resolvers,
        unregister_resolver,
    )
    from compose._merge.migrations import (
        Migration,
        convert_value,
        move_key,
        remove_key,
        versioned,
    )
    from compose._merge.renames import renamed
    from compose._output.flat import flat_argv, to_flat
    from compose._output.toml import to_toml
    from compose._output.write import write_configs
    from compose._runs.fingerprint import fingerprint
    from compose._runs.records import submit_sweep, write_sweep
    from compose._runs.rerun import write_run_record
    from compose._runs.sweep import Point, Sweep, sweep

__all__ = [
    "ArgvError",
    "BaseConfig",
    "ComposeError",
    "ComposeWarning",
    "ConfigFileError",
    "ConfigValidationError",
    "ErrorGroup",
    "FrozenError",
    "HelpRequested",
    "InterpolationError",
    "Merge",
    "MigratedWarning",
    "Migration",
    "OutputError",
    "Point",
    "PointError",
    "RenamedWarning",
    "SourceError",
    "Sweep",
    "UnknownKeyError",
    "cli",
    "compose",
    "compose_hydra",
    "convert_value",
    "fingerprint",
    "flat_argv",
    "from_flat",
    "move_key",
    "parse",
    "register_resolver",
    "registered_resolvers",
    "remove_key",
    "renamed",
    "run_instant",
    "submit_sweep",
    "sweep",
    "to_argv",
    "to_flat",
    "to_toml",
    "unregister_resolver",
    "versioned",
    "write_configs",
    "write_run_record",
    "write_sweep",
]

_LAZY = {  # name -> the module that defines it
    "Migration": "compose._merge.migrations",
    "Point": "compose._runs.sweep",
    "Sweep": "compose._runs.sweep",
    "cli": "compose._cli.entry",
    "compose": "compose._api",
    "compose_hydra": "compose._api",
    "convert_value": "compose._merge.migrations",
    "fingerprint": "compose._runs.fingerprint",
    "flat_argv": "compose._output.flat",
    "from_flat": "compose._api",
    "move_key": "compose._merge.migrations",
    "parse": "compose._api",
    "register_resolver": "compose._interp.resolvers",
    "registered_resolvers": "compose._interp.resolvers",
    "remove_key": "compose._merge.migrations",
    "renamed": "compose._merge.renames",
    "run_instant": "compose._interp.clock",
    "submit_sweep": "compose._runs.records",
    "sweep": "compose._runs.sweep",
    "to_argv": "compose._api",
    "to_flat": "compose._output.flat",
    "to_toml": "compose._output.toml",
    "unregister_resolver": "compose._interp.resolvers",
    "versioned": "compose._merge.migrations",
    "write_configs": "compose._output.write",
    "write_run_record": "compose._runs.rerun",
    "write_sweep": "compose._runs.records",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'compose' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    # The API, lazy names included; not what this module imports to build it (Any, importlib,
    # the `errors` submodule...), which tab completion would otherwise offer as compose's own.
    return sorted({*__all__, *(name for name in globals() if name.startswith("_"))})
