"""A Hydra config file's text -> its data, the lines of its keys, and its `# @package` header.

YAML is read as OmegaConf reads it: PyYAML's safe loader (libyaml's where present) with three
changes: `1e-3` and `1_000.5` are floats (YAML 1.1 wants a dot and a signed exponent), dates stay
text (no timestamp type), and a key written twice is an error. Nulls stay None (compose's own
readers turn them into the text "None"; Hydra trees keep them). Lines come from compose's
`key_lines`, the one function that maps key paths to lines.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from compose._input.yaml import key_lines
from compose._tree import KeyPath
from compose.errors import SourceError

HEADER_BYTES = 512  # Hydra reads the header from the first 512 characters only
_FLOAT = re.compile(
    r"""^(?:[-+]?[0-9]+(?:_[0-9]+)*\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?[0-9]+(?:_[0-9]+)*(?:[eE][-+]?[0-9]+)
        |\.[0-9]+(?:_[0-9]+)*(?:[eE][-+][0-9]+)?
        |[-+]?[0-9]+(?:_[0-9]+)*(?::[0-5]?[0-9])+\.[0-9_]*
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""",
    re.X,
)
_BASE: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BASE):  # type: ignore[valid-type,misc]
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.tag != "tag:yaml.org,2002:merge":
                if key_node.value in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key_node.value}", key_node.start_mark
                    )
                seen.add(key_node.value)
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


_Loader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+0123456789."))
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _Loader.yaml_implicit_resolvers.items()
}


def load_text(shown: str, text: str) -> Any:
    """The document's data (a dict, a list, a scalar or None)."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"{shown}:{mark.line + 1}" if mark else shown
        raise SourceError(f"invalid YAML: {error.problem or error.context}", origin=where) from None
    except yaml.YAMLError as error:
        raise SourceError(f"invalid YAML: {error}", origin=shown) from None


def lines_of(text: str) -> dict[KeyPath, int]:
    return key_lines(text)


def package_header(shown: str, text: str) -> str | None:
    """The `# @package X` of the first comment lines, as written (None: no header).

    Hydra reads `# @key value` lines from the top, skipping blank lines, and stops at the first
    other line (a plain comment too): a header after a comment is not a header.
    """
    header: dict[str, str] = {}
    for number, raw in enumerate(text[:HEADER_BYTES].splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if not re.match(r"#\s*@", line):
            break
        words = line.lstrip("#").split()
        if len(words) != 2:
            raise SourceError("a header line is `# @KEY VALUE`", value=line, origin=f"{shown}:{number}")
        header[words[0][1:]] = words[1]
    return header.get("package")
