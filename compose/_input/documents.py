"""What every file node is held to, whatever its format, and the format its name gives.

A node's format is its file's suffix: `.json` JSON, `.yaml` or `.yml` YAML, anything else TOML
(so a pipe, `@ <(generate)`, is TOML). Whatever the format, a node is held to TOML's rules: its
top level is a table, its keys are strings, each written once. A null becomes the text "None",
which is how a TOML file spells None: the type-directed None rules then apply unchanged (None
where the type admits it, the text for a plain `str`, else an error), and what
`compose show --format json` writes (None as null) loads back as it was.
"""

from __future__ import annotations

from typing import Any

from compose._syntax import NONE_TEXT
from compose.errors import SourceError

JSON, YAML, TOML = "JSON", "YAML", "TOML"


def format_of(shown: str) -> str:
    """`JSON`, `YAML` or `TOML`, from the suffix of the file's name (in any case)."""
    if shown.endswith(".toml"):  # as most are spelt: told without a lowered copy (per file, twice)
        return TOML
    tail = shown[-5:].lower()  # cheaper than splitting the path: this runs for every file
    if tail.endswith(".json"):
        return JSON
    return YAML if tail.endswith((".yaml", ".yml")) else TOML


def top_table(shown: str, value: Any, table_name: str) -> dict[str, Any]:
    """`value` when it is a table; else a SourceError saying what the file holds instead."""
    if isinstance(value, dict):
        return value
    kind = format_of(shown)
    hint = f"put it under a key: {_under_a_key(kind)}" if isinstance(value, list) else None
    raise SourceError(
        f"the top level of a {kind} file node must be {table_name} (a table of keys), "
        f"not {_kind_of(value)}",
        origin=shown,
        hint=hint,
    )


def _under_a_key(kind: str) -> str:
    return '{"env": [...]}' if kind == JSON else "env: [...]"


def _kind_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return f"a {type(value).__name__}"


def nulls_as_text(node: Any) -> None:
    """Every None in `node` (a parsed tree, at most `MAX_DEPTH` deep) becomes "None", in place."""
    children = node.items() if isinstance(node, dict) else enumerate(node)
    for key, child in list(children):
        if child is None:
            node[key] = NONE_TEXT
        elif isinstance(child, (dict, list)):
            nulls_as_text(child)
