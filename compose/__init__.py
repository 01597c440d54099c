"""compose: typed configuration composition on Pydantic v2.

TOML files and command-line overrides are nodes of a composition graph, merged in order,
interpolated OmegaConf-style and bound onto Pydantic models.
"""

from compose._api import compose, parse
from compose._base import BaseConfig
from compose._cli import cli
from compose._dump import to_toml, write_configs
from compose._interp import register_resolver
from compose._merge import ComposeWarning
from compose._renames import renamed
from compose.errors import (
    ArgvError,
    ComposeError,
    ConfigValidationError,
    ErrorGroup,
    HelpRequested,
    InterpolationError,
    SourceError,
    UnknownKeyError,
)

__all__ = [
    "ArgvError",
    "BaseConfig",
    "ComposeError",
    "ComposeWarning",
    "ConfigValidationError",
    "ErrorGroup",
    "HelpRequested",
    "InterpolationError",
    "SourceError",
    "UnknownKeyError",
    "cli",
    "compose",
    "parse",
    "register_resolver",
    "renamed",
    "to_toml",
    "write_configs",
]
