"""The config repository: an ordered list of sources; a config comes from the first source
that holds it, a group's options are the union over all of them.

    pkg://hydra.conf   Hydra's own configs (`hydra_node`)
    file://CONFIG_DIR  the main config directory
    hydra.searchpath   file:// and pkg:// sources named by the primary config or the command line
    store              in-memory configs (`store=`): Hydra's ConfigStore, last

A config path is `group/name` (`.yaml` optional; `.yml` is not a config). A group is a
directory (or a store group) in any source.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
from collections.abc import Mapping
from typing import Any, Protocol

from compose.errors import ComposeError

from . import hydra_node
from .entries import Entry, parse_defaults
from .hyaml import lines_of, load_text, package_header

SUFFIX = ".yaml"


@dataclasses.dataclass(frozen=True)
class Loaded:
    """One config as read: its data without `defaults`, its entries, its header."""

    path: str  # the config path, as asked for ("db/mysql", "config.yaml")
    shown: str  # where it was read, for messages: a file, or "store:db/mysql"
    data: Any  # usually a dict; the primary must be one
    entries: tuple[Entry, ...]
    header: str | None  # `# @package` as written, or the store registration's package
    schema: Any = None  # a store entry's Pydantic model class (a typed node), else None
    lines: Mapping[tuple[Any, ...], int] = dataclasses.field(default_factory=dict)


def normalise(path: str) -> str:
    return path if path.endswith(SUFFIX) else path + SUFFIX


class Source(Protocol):
    @property
    def shown(self) -> str: ...

    def available(self) -> bool: ...
    def is_group(self, path: str) -> bool: ...
    def is_config(self, path: str) -> bool: ...
    def options(self, group: str) -> list[str]: ...
    def load(self, path: str) -> Loaded: ...


# --- directories ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class DirSource:
    root: str | None  # None: a pkg:// source whose package cannot be imported
    shown: str

    def available(self) -> bool:
        return self.root is not None and os.path.isdir(self.root)

    def _full(self, path: str) -> str:
        assert self.root is not None
        return os.path.join(self.root, path)

    def is_group(self, path: str) -> bool:
        return self.root is not None and os.path.isdir(self._full(path))

    def is_config(self, path: str) -> bool:
        return self.root is not None and os.path.isfile(self._full(normalise(path)))

    def options(self, group: str) -> list[str]:
        if not self.is_group(group):
            return []
        names = []
        for name in os.listdir(self._full(group)):
            if name.endswith(SUFFIX) and os.path.isfile(self._full(os.path.join(group, name))):
                names.append(name[: -len(SUFFIX)])
        return names

    def load(self, path: str) -> Loaded:
        full = self._full(normalise(path))
        shown = os.path.relpath(full) if not os.path.relpath(full).startswith("..") else full
        with open(full, encoding="utf-8") as handle:
            text = handle.read()
        data = document(shown, load_text(shown, text))
        lines = lines_of(text)
        entries: tuple[Entry, ...] = ()
        if isinstance(data, dict) and "defaults" in data:
            entries = parse_defaults(shown, data.pop("defaults"), lines)
        return Loaded(path, shown, data, entries, package_header(shown, text), None, lines)


def document(shown: str, data: Any) -> Any:
    """A file's document as OmegaConf takes it: empty is {}, a lone text `s` is {s: None}."""
    if data is None:
        return {}
    if isinstance(data, str):
        return {data: None}
    if isinstance(data, (dict, list)):
        return data
    raise ComposeError("a config file holds a mapping or a list", value=data, origin=shown)


def package_dir(module: str) -> str | None:
    """The directory of an importable package (pkg://a.b), without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return next(iter(spec.submodule_search_locations))


# --- the store -----------------------------------------------------------------------------

StoreValue = Mapping[str, Any] | type


@dataclasses.dataclass(frozen=True)
class StoreSource:
    """In-memory configs, keyed by config path ("db/mysql"), with their packages."""

    nodes: Mapping[str, tuple[StoreValue, str | None]]  # path -> (dict or model, package)
    shown: str = "store"

    def available(self) -> bool:
        return True

    def is_group(self, path: str) -> bool:
        prefix = path.strip("/") + "/" if path.strip("/") else ""
        return any(key.startswith(prefix) for key in self.nodes)

    def is_config(self, path: str) -> bool:
        return normalise(path.rstrip("/"))[: -len(SUFFIX)] in self.nodes

    def options(self, group: str) -> list[str]:
        prefix = group.strip("/") + "/" if group.strip("/") else ""
        return [k[len(prefix) :] for k in self.nodes if k.startswith(prefix) and "/" not in k[len(prefix) :]]

    def load(self, path: str) -> Loaded:
        key = normalise(path)[: -len(SUFFIX)]
        value, package = self.nodes[key]
        shown = f"store:{key}"
        schema = value if isinstance(value, type) else None
        data = model_data(schema) if schema is not None else _copy(value)
        entries: tuple[Entry, ...] = ()
        if isinstance(data, dict) and "defaults" in data:
            raw = data.pop("defaults")
            if raw != "???":  # a typed node's unset defaults list is an empty one
                entries = parse_defaults(shown, raw, {})
        return Loaded(path, shown, data, entries, package, schema)


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def model_data(model: type) -> dict[str, Any]:
    """A Pydantic model class's defaults as data; a required field is `???`."""
    out: dict[str, Any] = {}
    for name, field in model.model_fields.items():  # type: ignore[attr-defined]
        if field.is_required():
            out[name] = "???"
            continue
        value = field.get_default(call_default_factory=True)
        out[name] = _as_data(value)
    return out


def _as_data(value: Any) -> Any:
    if hasattr(type(value), "model_fields"):
        return {k: _as_data(getattr(value, k)) for k in type(value).model_fields}
    if isinstance(value, Mapping):
        return {k: _as_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_as_data(v) for v in value]
    return value


def store_nodes(store: Mapping[str, StoreValue] | None) -> dict[str, tuple[StoreValue, str | None]]:
    """`store=` as given ("group/name[@package]" -> dict or model) -> path -> (node, package)."""
    nodes: dict[str, tuple[StoreValue, str | None]] = {}
    for key, value in (store or {}).items():
        path, at, package = key.partition("@")
        path = path[: -len(SUFFIX)] if path.endswith(SUFFIX) else path
        nodes[path] = (value, package if at else None)
    return nodes


# --- the repository ------------------------------------------------------------------------


class Repository:
    """Sources in order, and what was read from them (each config read once)."""

    def __init__(self, sources: list[Source]) -> None:
        self.sources = sources
        self._cache: dict[str, Loaded | None] = {}

    def _first(self, path: str) -> Source | None:
        return next((s for s in self.sources if s.is_config(path)), None)

    def config_exists(self, path: str) -> bool:
        return self._first(path) is not None

    def group_exists(self, path: str) -> bool:
        return any(s.is_group(path) for s in self.sources)

    def options(self, group: str) -> list[str]:
        names: set[str] = set()
        for source in self.sources:
            names.update(source.options(group))
        return sorted(names)

    def load(self, path: str) -> Loaded | None:
        if path not in self._cache:
            source = self._first(path)
            self._cache[path] = source.load(path) if source is not None else None
        return self._cache[path]

    def schema_for(self, path: str) -> Loaded | None:
        """A store node with the same path as a file config (Hydra's deprecated schema match)."""
        store = self.sources[-1]
        if isinstance(store, StoreSource) and store.is_config(path):
            return store.load(path)
        return None

    def described(self) -> str:
        return ", ".join(s.shown for s in self.sources)


def source_for(url: str, cwd: str) -> Source:
    """A `hydra.searchpath` entry: `file://DIR` (relative to `cwd`), `pkg://a.b`, or a bare DIR."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "file", url
    if scheme == "file":
        return DirSource(os.path.join(cwd, rest), url)
    if scheme == "pkg":
        return DirSource(package_dir(rest), url)
    raise ComposeError(f"a search path entry is file://DIR or pkg://PACKAGE, not {scheme}://", value=url)


def make_repository(
    config_dir: str | None,
    searchpath: list[str],
    store: Mapping[str, StoreValue] | None,
    cwd: str,
) -> Repository:
    nodes = {**hydra_node.STORE_NODES, **store_nodes(store)}
    sources: list[Source] = [StoreSource(hydra_node.PKG_NODES, "pkg://hydra.conf")]
    if config_dir is not None:
        sources.append(DirSource(config_dir, f"file://{config_dir}"))
    sources.extend(source_for(url, cwd) for url in searchpath)
    sources.append(StoreSource(nodes))
    return Repository(sources)
