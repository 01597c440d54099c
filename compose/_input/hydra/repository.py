"""The config repository: an ordered list of sources; a config comes from the first source
that holds it, a group's options are the union over all of them.

    pkg://hydra.conf   Hydra's own configs (`hydra_node`)
    file://CONFIG_DIR  the main config directory
    hydra.searchpath   file:// and pkg:// sources named by the primary config or the command line
    store              in-memory configs (`store=`, as Hydra's ConfigStore registers them), last

A config path is `group/name` (`.yaml` optional; `.yml` is not a config). A group is a
directory (or a store group) in any source. Each config is read once per composition.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import stat
from collections.abc import Mapping
from typing import Any, Protocol

from pydantic import BaseModel

from compose._input.files import read_text
from compose._input.hydra import hydra_node
from compose._input.hydra.entries import Entry, parse_defaults
from compose._input.search import shown_path
from compose._input.yaml import key_lines, parse_hydra
from compose._syntax import HYDRA_DEFAULTS, HYDRA_PACKAGE, HYDRA_SUFFIX, MANDATORY
from compose._tree import KeyPath
from compose.errors import ArgvError, SourceError

HEADER_CHARS = 512  # a package header is read from the first 512 characters, as Hydra does
MAX_CONFIGS = 10_000  # configs one composition may read: a tree past this is no config tree

StoreValue = Mapping[str, Any] | type[BaseModel]


@dataclasses.dataclass(frozen=True)
class Loaded:
    """One config as read: its data without `defaults`, its entries, its header."""

    path: str  # the config path, as asked for ("db/mysql", "config.yaml")
    shown: str  # where it was read, for messages: a file, or "store:db/mysql"
    data: Any  # usually a dict; the primary must be one
    entries: tuple[Entry, ...]
    header: str | None  # `# @package` as written, or the store registration's package
    schema: type[BaseModel] | None = None  # a store entry's model class (a typed node)
    text: str | None = None  # a file's text (its lines, for origins); None for the store


def normalise(path: str) -> str:
    return path if path.endswith(HYDRA_SUFFIX) else path + HYDRA_SUFFIX


class Source(Protocol):
    @property
    def shown(self) -> str: ...

    def is_group(self, path: str) -> bool: ...
    def is_config(self, path: str) -> bool: ...
    def options(self, group: str) -> list[str]: ...
    def load(self, path: str) -> Loaded: ...


# --- a config file ---------------------------------------------------------------------------


def package_header(shown: str, text: str) -> str | None:
    """The `# @package X` of the first comment lines, as written (None: no header).

    Read as Hydra reads it: `# @KEY VALUE` lines from the top, blank lines skipped, up to the
    first other line (a plain comment too): a header after a comment is not a header."""
    header: dict[str, str] = {}
    for number, raw in enumerate(text[:HEADER_CHARS].splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if not re.match(r"#\s*@", line):
            break
        words = line.lstrip("#").split()
        if len(words) != 2:
            raise SourceError(
                "a header line is `# @KEY VALUE`", value=line, origin=f"{shown}:{number}"
            )
        header[words[0][1:]] = words[1]
    return header.get(HYDRA_PACKAGE)


def document(shown: str, data: Any) -> Any:
    """A file's document as OmegaConf takes it: empty is {}, a lone text `s` is {s: None}."""
    if data is None:
        return {}
    if isinstance(data, str):
        return {data: None}
    if isinstance(data, (dict, list)):
        return data
    raise SourceError("a config file holds a mapping or a list", value=data, origin=shown)


def read_config(path: str, shown: str, text: str) -> Loaded:
    """A config file's text as a `Loaded`: its document, its entries, its header."""
    lines: dict[KeyPath, int] = {}  # its defaults entries' lines: read in the same parse
    data = document(shown, parse_hydra(shown, text, lines))
    entries: tuple[Entry, ...] = ()
    if isinstance(data, dict) and HYDRA_DEFAULTS in data:
        entries = parse_defaults(shown, data.pop(HYDRA_DEFAULTS), lines)
    return Loaded(path, shown, data, entries, package_header(shown, text), None, text)


def _names_a_config(path: str) -> bool:
    """Whether `path` is a config of a directory source: anything there but a directory. A
    FIFO, device or socket named `db/a.yaml` is one, so that reading it (`read_text`) refuses
    it with an error naming the file and why, where skipping it said "db has no options"."""
    try:
        return not stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):  # not there (a dangling link too), or a name the OS refuses
        return False


@dataclasses.dataclass(frozen=True)
class DirSource:
    root: str | None  # None: a pkg:// source whose package cannot be found
    shown: str

    def _full(self, path: str) -> str:
        assert self.root is not None
        return os.path.join(self.root, path)

    def is_group(self, path: str) -> bool:
        return self.root is not None and os.path.isdir(self._full(path))

    def is_config(self, path: str) -> bool:
        return self.root is not None and _names_a_config(self._full(normalise(path)))

    def options(self, group: str) -> list[str]:
        if not self.is_group(group):
            return []
        directory = self._full(group)
        return [
            name[: -len(HYDRA_SUFFIX)]
            for name in os.listdir(directory)
            if name.endswith(HYDRA_SUFFIX) and _names_a_config(os.path.join(directory, name))
        ]

    def load(self, path: str) -> Loaded:
        shown = shown_path(self._full(normalise(path)))
        return read_config(path, shown, read_text(shown))


def package_dir(module: str) -> str | None:
    """The directory of `pkg://a.b`, found without running any code of the package: the
    top-level package by its finders (`find_spec` of a top-level name imports nothing), then
    `b` as a directory inside it (`find_spec("a.b")` would import `a`). None: not found."""
    head, *rest = module.split(".")
    if not all(part.isidentifier() for part in (head, *rest)):
        return None
    try:
        spec = importlib.util.find_spec(head)
    except (ImportError, ValueError):
        return None
    for base in (spec.submodule_search_locations or []) if spec is not None else []:
        candidate = os.path.join(base, *rest)
        if os.path.isdir(candidate):
            return candidate
    return None


# --- the store -------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class StoreSource:
    """In-memory configs, keyed by config path ("db/mysql"), with their packages."""

    nodes: Mapping[str, tuple[StoreValue, str | None]]  # path -> (dict or model, package)
    shown: str = "store"
    # Hydra's own nodes (`hydra_node`): plain data that nothing changes (the merge copies what
    # it keeps), read as they are; the user's are copied, as plain dicts and lists
    constants: frozenset[str] = frozenset()

    def is_group(self, path: str) -> bool:
        prefix = path.strip("/") + "/" if path.strip("/") else ""
        return any(key.startswith(prefix) for key in self.nodes)

    def is_config(self, path: str) -> bool:
        return _store_key(path.rstrip("/")) in self.nodes

    def options(self, group: str) -> list[str]:
        prefix = group.strip("/") + "/" if group.strip("/") else ""
        return [
            key[len(prefix) :]
            for key in self.nodes
            if key.startswith(prefix) and "/" not in key[len(prefix) :]
        ]

    def load(self, path: str) -> Loaded:
        key = _store_key(path)
        value, package = self.nodes[key]
        shown = f"store:{key}"
        schema = value if isinstance(value, type) else None
        if schema is not None:
            data = model_data(schema)
        elif key in self.constants and isinstance(value, dict):
            data = dict(value)  # its own top table: `defaults` is taken out of it below
        else:
            data = _copy(value)
        entries: tuple[Entry, ...] = ()
        if isinstance(data, dict) and HYDRA_DEFAULTS in data:
            raw = data.pop(HYDRA_DEFAULTS)
            if raw != MANDATORY:  # a typed node's unset defaults list is an empty one
                entries = parse_defaults(shown, raw, {})
        return Loaded(path, shown, data, entries, package, schema)


def _store_key(path: str) -> str:
    """A config path as the store keys it: `db/mysql`, with or without `.yaml`."""
    return normalise(path)[: -len(HYDRA_SUFFIX)]


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copy(v) for v in value]
    return value


def model_data(model: type[BaseModel]) -> dict[str, Any]:
    """A model class's defaults as data; a required field is `???`."""
    out: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        if field.is_required():
            out[name] = MANDATORY
        else:
            out[name] = _as_data(field.get_default(call_default_factory=True))
    return out


def _as_data(value: Any) -> Any:
    if isinstance(value, BaseModel):
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
        if not isinstance(key, str) or not (isinstance(value, Mapping) or _is_model(value)):
            raise ArgvError(
                'a store entry is "group/name[@package]": a dict or a Pydantic model class',
                key=str(key),
                value=value,
                origin="store=",
            )
        path, at, package = key.partition("@")
        nodes[path.removesuffix(HYDRA_SUFFIX)] = (value, package if at else None)
    return nodes


def _is_model(value: Any) -> bool:
    return isinstance(value, type) and issubclass(value, BaseModel)


# --- the repository --------------------------------------------------------------------------


class Repository:
    """Sources in order, and what was read from them (each config read once)."""

    def __init__(self, sources: list[Source]) -> None:
        self.sources = sources
        self._cache: dict[str, Loaded | None] = {}

    def _first(self, path: str) -> Source | None:
        for source in self.sources:
            if source.is_config(path):
                return source
        return None

    def config_exists(self, path: str) -> bool:
        return self._first(path) is not None

    def group_exists(self, path: str) -> bool:
        return any(s.is_group(path) for s in self.sources)

    def source_named(self, shown: str) -> Source:
        """The source a search path entry (`file://DIR`, `pkg://PACKAGE`) made."""
        return next(source for source in self.sources if source.shown == shown)

    def read_count(self) -> int:
        """How many configs were asked for so far (found or not)."""
        return len(self._cache)

    def is_hydras(self, path: str) -> bool:
        """Whether the config `path` reads is Hydra's own: no source of the user's holds one
        there before Hydra's (a tree's `hydra/launcher/basic.yaml` is read instead)."""
        source = self._first(path)
        return isinstance(source, StoreSource) and _store_key(path) in source.constants

    def options(self, group: str) -> list[str]:
        names: set[str] = set()
        for source in self.sources:
            names.update(source.options(group))
        return sorted(names)

    def load(self, path: str) -> Loaded | None:
        if path not in self._cache:
            if len(self._cache) >= MAX_CONFIGS:
                raise SourceError(
                    f"more than {MAX_CONFIGS:,} configs read for one composition", value=path
                )
            source = self._first(path)
            self._cache[path] = source.load(path) if source is not None else None
        return self._cache[path]

    def schema_for(self, path: str) -> Loaded | None:
        """A store node at the same path as a file config (Hydra's deprecated schema match)."""
        store = self.sources[-1]
        if isinstance(store, StoreSource) and store.is_config(path):
            return store.load(path)
        return None

    def described(self) -> str:
        return ", ".join(s.shown for s in self.sources)


def source_for(url: str, cwd: str, origin: str) -> Source:
    """A `hydra.searchpath` entry: `file://DIR` (relative to `cwd`), `pkg://a.b`, or a bare DIR."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        scheme, rest = "file", url
    if scheme == "file":
        return DirSource(os.path.join(cwd, rest), url)
    if scheme == "pkg":
        return DirSource(package_dir(rest), url)
    raise SourceError(
        f"a search path entry is file://DIR or pkg://PACKAGE, not {scheme}://",
        value=url,
        origin=origin,
    )


_PKG_CONSTANTS = frozenset(hydra_node.PKG_NODES)
_STORE_CONSTANTS = frozenset(hydra_node.STORE_NODES)


def make_repository(
    config_dir: str | None,
    searchpath: list[str],
    store: Mapping[str, StoreValue] | None,
    cwd: str,
    origin: str = "",
) -> Repository:
    users = store_nodes(store)
    nodes: dict[str, tuple[StoreValue, str | None]] = {**hydra_node.STORE_NODES, **users}
    constants = _STORE_CONSTANTS.difference(users)
    sources: list[Source] = [StoreSource(hydra_node.PKG_NODES, "pkg://hydra.conf", _PKG_CONSTANTS)]
    if config_dir is not None:
        sources.append(DirSource(config_dir, f"file://{config_dir}"))
    sources.extend(source_for(url, cwd, origin) for url in searchpath)
    sources.append(StoreSource(nodes, constants=constants))
    return Repository(sources)


def lines_of(loaded: Loaded) -> dict[KeyPath, int]:
    """The lines of a config's keys (none for a store node)."""
    return key_lines(loaded.text) if loaded.text is not None else {}
