"""A file node by its format: the parser, the lines of its keys, whether it may spell None.

JSON is `compose._input.json`, TOML `tomli` (read in `compose._input.files`) with lines from
`compose._input.positions`, and YAML `compose._input.yaml`: PyYAML's safe loader, an optional
dependency imported only when a YAML file is read. What every format is held to is
`compose._input.documents`.
"""

from __future__ import annotations

from typing import Any, Protocol

from compose._input.documents import JSON, TOML, YAML, format_of
from compose._schema.coerce import may_spell_none
from compose._tree import KeyPath
from compose.errors import SourceError

INSTALL_YAML = "pip install 'compose-config[yaml]' (or pip install pyyaml)"


def key_lines_for(shown: str, text: str) -> dict[KeyPath, int]:
    """Key path -> the line where it is written, in the file's format."""
    kind = format_of(shown)
    if kind == TOML:
        # Lines are asked only to show an origin (an error, `compose show`): a run that shows
        # none never loads the TOML scanner (0.3 ms of a cold start)
        from compose._input.positions import key_lines  # noqa: PLC0415

        return key_lines(text)
    if kind == JSON:
        from compose._input.json import json_key_lines  # noqa: PLC0415  # JSON nodes only

        return json_key_lines(text)
    return _yaml_module(shown).key_lines(text)


def may_give_none(shown: str, text: str) -> bool:
    """Whether a file node may give the text "None": as written, through escapes, or a null."""
    kind = format_of(shown)
    if kind == YAML:
        return True  # null has too many spellings (~, Null, an empty value) to look for
    return may_spell_none(text) or (kind == JSON and "null" in text)


def parse_yaml(shown: str, text: str) -> dict[str, Any]:
    """The table of a YAML file node (see `_yaml`)."""
    return _yaml_module(shown).parse(shown, text)


def _yaml_module(shown: str) -> _YamlModule:
    """`compose._input.yaml`, which needs PyYAML: a SourceError naming `shown` when it is
    missing."""
    try:
        from compose._input import yaml as _yaml  # noqa: PLC0415  # PyYAML is optional: loaded for YAML only
    except ImportError:
        raise SourceError(
            "is a YAML file, and reading YAML needs PyYAML, which is not installed",
            origin=shown,
            hint=INSTALL_YAML,
        ) from None
    return _yaml


class _YamlModule(Protocol):
    """What this module uses of `compose._input.yaml` (imported lazily, so typed here)."""

    def parse(self, shown: str, text: str) -> dict[str, Any]: ...

    def key_lines(self, text: str) -> dict[KeyPath, int]: ...
