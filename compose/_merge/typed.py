"""OmegaConf's merge, for Hydra config trees: plain data, with tables typed by store models.

A Hydra tree's configs merge as OmegaConf merges them, which differs from compose's own merge
(`tables`) in two ways:
  - a list onto a table, or a table onto a list, is an error (compose replaces);
  - a table typed by a store model (Hydra's ConfigStore dataclasses) is closed: a key the model
    does not declare is an error, and each value is converted by its field's type as OmegaConf
    converts (`"3308"` -> 3308 for an int, 42 -> "42" for a str, `yes` -> True for a bool;
    `3.5` for an int, null for a field that is not Optional: errors). A typed table merged onto
    a typed one must be the same class or a subclass, and takes the more derived class.
Everything else is compose's merge: tables merge key by key, anything else replaces, and `???`
never replaces a value already there. `${...}` and `???` are accepted by every type (read later).

The types live beside the tree (path -> model), not in it; a value that replaces a typed table
drops the types below it. After composition the tree is in struct mode: value overrides
(`hydra_values`) may set only keys that exist, unless they say `+` or `++`.
"""

from __future__ import annotations

import copy
import types
import typing
from typing import Any, Union

from pydantic import BaseModel

from compose._input.argv import Item, NodeItem, OverridesItem
from compose._input.files import read_text
from compose._input.hydra import hydra_node
from compose._input.hydra.hydra_node import HYDRA_CONFIG_PATH
from compose._input.hydra.prepare import Prepared
from compose._input.hydra.repository import Loaded, model_data
from compose._input.hydra.tree import chain_text
from compose._input.origins import FileSource, FlagSource
from compose._shortcuts import SHORTCUTS
from compose._syntax import (
    HYDRA_DEFAULTS,
    HYDRA_NODE,
    HYDRA_SEARCHPATH,
    INTERPOLATION,
    MANDATORY,
    dotted,
)
from compose._tree import KeyPath
from compose.errors import ComposeError, SourceError, UnknownKeyError, closest

_ABSENT: Any = object()
_ATOMIC = frozenset({str, int, float, bool, type(None)})  # values `copy.deepcopy` gives back as is


def _is_deferred(value: Any) -> bool:
    return isinstance(value, str) and (value == MANDATORY or INTERPOLATION in value)


def is_model(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    """(the type without None, whether None is allowed)."""
    if typing.get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(args) < len(typing.get_args(annotation))
        if len(args) == 1:
            return args[0], optional
        return Union[tuple(args)], optional  # noqa: UP007 - a union made at run time
    return annotation, annotation is Any or annotation is None


def convert(value: Any, annotation: Any, where: KeyPath) -> Any:
    """`value` as a node typed `annotation` holds it (None: untyped)."""
    if annotation is None or annotation is Any or _is_deferred(value):
        return value
    inner, optional = unwrap_optional(annotation)
    if value is None:
        if optional:
            return None
        raise SourceError("null where the type is not Optional", key=dotted(where), value=value)
    if inner is Any:
        return value
    origin = typing.get_origin(inner)
    if is_model(inner):
        if not isinstance(value, dict):
            raise SourceError(f"a {inner.__name__} is a table", key=dotted(where), value=value)
        return _typed_table(value, inner, where)
    if origin in (list, tuple):
        if not isinstance(value, list):
            raise SourceError("a list is expected", key=dotted(where), value=value)
        args = typing.get_args(inner)
        item = args[0] if args else Any
        return [convert(v, item, (*where, i)) for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise SourceError("a table is expected", key=dotted(where), value=value)
        args = typing.get_args(inner)
        item = args[1] if args else Any
        return {k: convert(v, item, (*where, k)) for k, v in value.items()}
    if isinstance(value, (dict, list)):
        name = getattr(inner, "__name__", str(inner))
        raise SourceError(f"a {name} is not a table or a list", key=dotted(where), value=value)
    return _scalar(value, inner, where)


def _typed_table(value: dict[Any, Any], model: type[BaseModel], where: KeyPath) -> dict[Any, Any]:
    """A table where a model is expected (a list's item): the model's defaults, merged over."""
    out = model_data(model)
    for key, item in value.items():
        field = model.model_fields.get(key)
        if field is None:
            raise _undeclared(model, (*where, key))
        if item != MANDATORY:
            out[key] = convert(item, field.annotation, (*where, key))
    return out


def _undeclared(model: type[BaseModel], path: KeyPath) -> UnknownKeyError:
    close = closest(str(path[-1]), model.model_fields, 0.6)
    return UnknownKeyError(
        f"{model.__name__} has no key {path[-1]}",
        key=dotted(path),
        hint=f"did you mean {close}?" if close else None,
    )


def _scalar(value: Any, kind: Any, where: KeyPath) -> Any:
    try:
        if kind is str:
            return str(value)
        if kind is int:
            if type(value) in (str, int):
                return int(value)
        elif kind is float:
            if type(value) in (float, str, int):
                return float(value)
        elif kind is bool:
            return _to_bool(value)
        else:
            return value  # a union, a literal, a class: binding (`schema=`) judges it
    except ValueError:
        pass
    name = getattr(kind, "__name__", str(kind))
    raise SourceError(f"cannot be converted to {name}", key=dotted(where), value=value)


_TRUE = ("yes", "y", "on", "true")
_FALSE = ("no", "n", "off", "false")


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, str):
        try:
            return int(value) != 0
        except ValueError:
            lowered = value.lower()
            if lowered in _TRUE or lowered in _FALSE:
                return lowered in _TRUE
    raise ValueError(value)


class TypedTree:
    """The config being composed (`data`, the fold's tree), and which tables are typed."""

    def __init__(self, data: dict[Any, Any]) -> None:
        self.data = data
        self.types: dict[KeyPath, type[BaseModel]] = {}
        self.struct = False  # after composition: no new key without `+`/`++`

    # -- what a path expects --------------------------------------------------------------

    def annotation(self, path: KeyPath) -> Any:
        """The type the node at `path` holds (None: untyped)."""
        if SHORTCUTS and not self.types:
            return None  # no store model anywhere: every walk below ends at None
        if not path:
            return self.types.get(())
        parent, key = path[:-1], path[-1]
        model = self.types.get(parent)
        if model is not None:
            field = model.model_fields.get(str(key))
            return field.annotation if field is not None else None
        outer = unwrap_optional(self.annotation(parent))[0] if parent else None
        origin, args = typing.get_origin(outer), typing.get_args(outer)
        if origin in (list, tuple) and args:
            return args[0]
        if origin is dict and args:
            return args[1]
        return None

    def declares(self, path: KeyPath, key: Any) -> bool:
        model = self.types.get(path)
        return model is None or key in model.model_fields

    def _type_node(self, path: KeyPath, model: type[BaseModel]) -> None:
        current = self.types.get(path)
        if current is not None and current is not model and not issubclass(model, current):
            raise SourceError(
                f"{model.__name__} is not a subclass of {current.__name__}, the type here",
                key=dotted(path) or None,
            )
        self.types[path] = model
        for name, field in model.model_fields.items():
            inner = unwrap_optional(field.annotation)[0]
            if is_model(inner):
                self.types.setdefault((*path, name), inner)

    # -- merging configs --------------------------------------------------------------------

    def merge_at(self, path: KeyPath, src: Any, model: type[BaseModel] | None) -> None:
        """Merge one config's data (typed by `model` if a store model) at `path`."""
        if not path:
            if not isinstance(src, dict):
                raise SourceError("only a table merges at the top", value=src)
            self.merge_table(self.data, (), src, model)
            return
        parent = self._parents(path[:-1])
        self.merge_value(parent, path, src, model)

    def _parents(self, path: KeyPath) -> dict[Any, Any]:
        """The table at `path`, made where absent (a config placed at a package below)."""
        node: dict[Any, Any] = self.data
        for index, key in enumerate(path):
            below = node.get(key)
            if isinstance(below, list):
                raise _kinds("a table cannot merge into a list", path[: index + 1])
            if not isinstance(below, dict):
                below = self.new_table(path[: index + 1])
                node[key] = below
            node = below
        return node

    def merge_table(
        self,
        dest: dict[Any, Any],
        path: KeyPath,
        src: dict[Any, Any],
        model: type[BaseModel] | None,
        *,
        free: bool = False,
    ) -> None:
        """`free`: a `+`/`++` override, which may add keys that struct mode or a type closes."""
        if SHORTCUTS and model is None and not self.types and not self.struct:
            _merge_untyped(dest, path, src)  # nothing typed, nothing closed: compose's merge
            return
        if model is not None:
            self._type_node(path, model)
        for key, value in src.items():
            if not free and not self.declares(path, key):
                raise _undeclared(self.types[path], (*path, key))
            if not free and self.struct and key not in dest:
                raise no_such_key((*path, key), dest)
            self.merge_value(dest, (*path, key), value, None, free=free)

    def merge_value(
        self,
        dest: dict[Any, Any],
        path: KeyPath,
        value: Any,
        model: type[BaseModel] | None,
        *,
        free: bool = False,
    ) -> None:
        key = path[-1]
        current = dest.get(key, _ABSENT)
        if value == MANDATORY and current is not _ABSENT:
            return  # `???` never replaces a value
        if isinstance(value, dict):
            if isinstance(current, list):
                raise _kinds("a table cannot merge into a list", path)
            if not isinstance(current, dict):
                current = self.new_table(path)
                dest[key] = current
            self.merge_table(current, path, value, model, free=free)
            return
        if isinstance(value, list) and isinstance(current, dict):
            raise _kinds("a list cannot merge into a table", path)
        owned = value if type(value) in _ATOMIC else copy.deepcopy(value)  # a copy of those: same
        dest[key] = convert(owned, self.annotation(path), path)
        self.forget_types(path)

    def new_table(self, path: KeyPath) -> dict[Any, Any]:
        """An empty table at `path`: a typed field's holds the model's defaults."""
        inner = unwrap_optional(self.annotation(path))[0]
        if is_model(inner):
            self._type_node(path, inner)
            return model_data(inner)
        return {}

    def forget_types(self, path: KeyPath) -> None:
        for typed in [p for p in self.types if p[: len(path)] == path]:
            del self.types[typed]


def _merge_untyped(dest: dict[Any, Any], path: KeyPath, src: dict[Any, Any]) -> None:
    """`merge_table` where no table of the tree is typed (no store model) and struct mode is
    off, so that every key is declared, every annotation is None and there are no types to
    forget: the same merge without those questions, and a key's path made only for a table
    below it or an error. A list of scalars is copied as `copy.deepcopy` copies it."""
    for key, value in src.items():
        current = dest.get(key, _ABSENT)
        if isinstance(value, dict):
            if isinstance(current, list):
                raise _kinds("a table cannot merge into a list", (*path, key))
            if not isinstance(current, dict):
                current = dest[key] = {}
            _merge_untyped(current, (*path, key), value)
        elif value == MANDATORY and current is not _ABSENT:
            continue  # `???` never replaces a value
        elif type(value) in _ATOMIC:
            dest[key] = value
        elif isinstance(value, list):
            if isinstance(current, dict):
                raise _kinds("a list cannot merge into a table", (*path, key))
            atomic = all(type(item) in _ATOMIC for item in value)
            dest[key] = list(value) if atomic else copy.deepcopy(value)
        else:
            dest[key] = copy.deepcopy(value)


def _kinds(message: str, path: KeyPath) -> SourceError:
    return SourceError(message, key=dotted(path), hint="a table and a list never merge: ~KEY first")


def no_such_key(path: KeyPath, table: dict[Any, Any]) -> UnknownKeyError:
    close = closest(str(path[-1]), [str(k) for k in table], 0.6)
    return UnknownKeyError(
        "no such key in the composed config",
        key=dotted(path),
        hint=f"did you mean {dotted((*path[:-1], close))}?" if close else None,
    )


def with_origin(error: ComposeError, origin: str) -> ComposeError:
    """A merge error said where: the chain of configs, or the override."""
    return error.evolve(origin=origin)


# --- the defaults tree's leaves as the fold's items --------------------------------------------


def leaf_items(prepared: Prepared) -> list[Item]:
    """Hydra's own node, then each leaf's config at its package, in merge order, then the
    value overrides."""
    own = {k: v for k, v in hydra_node.HYDRA_CONFIG.items() if k != HYDRA_DEFAULTS}
    items: list[Item] = [
        NodeItem(own, (HYDRA_NODE,), FlagSource(HYDRA_CONFIG_PATH), None, HYDRA_CONFIG_PATH)
    ]
    for leaf in prepared.defaults.leaves:
        loaded = prepared.repo.load(leaf.config_path)
        assert loaded is not None  # the tree expanded it
        where = chain_text(leaf.chain) or loaded.shown
        data, model = _leaf_data(prepared, loaded, leaf.primary)
        prefix = tuple(leaf.package.split(".")) if leaf.package else ()
        if not leaf.primary and _sets_searchpath(prefix, data):
            raise SourceError(
                f"only the primary config may set {HYDRA_SEARCHPATH}",
                origin=where,
                hint="move it to the primary config, or give it on the command line",
            )
        source: Any = FlagSource(loaded.shown)
        if loaded.text is not None:
            source = FileSource(loaded.shown, loaded.text, prefix, read=read_text)
        items.append(NodeItem(data, prefix, source, model, where))
    items.append(OverridesItem(prepared.defaults.value_overrides))
    return items


def _leaf_data(prepared: Prepared, loaded: Loaded, primary: bool) -> tuple[Any, Any]:
    """A leaf's data and model. A file config with a store node at the same path is that node
    with the file merged over it, typed by it (Hydra's deprecated automatic schema match)."""
    data = loaded.data
    if loaded.text is None:  # a store node: typed by its own model, if any
        return data, loaded.schema
    match = prepared.repo.schema_for(loaded.path)
    if match is None or (match.schema is None and not isinstance(match.data, dict)):
        return data, None
    if match.entries:
        raise SourceError(
            "a store node at the same path as this file holds a defaults list",
            origin=loaded.shown,
            hint="rename one of them, and name the store node in the file's defaults list",
        )
    typed = TypedTree({})
    data = dict(data) if isinstance(data, dict) else data
    own = data.pop(HYDRA_NODE, None) if primary and isinstance(data, dict) else None
    try:
        typed.merge_table(typed.data, (), match.data, match.schema)
        typed.merge_table(typed.data, (), data, None)
    except ComposeError as error:
        raise error.evolve(origin=loaded.shown) from None
    if own is not None:
        typed.data[HYDRA_NODE] = own
    if match.schema is not None and HYDRA_DEFAULTS in match.schema.model_fields:
        typed.data[HYDRA_DEFAULTS] = MANDATORY  # the model's unset defaults list stays, as in Hydra
    return typed.data, match.schema


def _sets_searchpath(prefix: KeyPath, data: Any) -> bool:
    nested: Any = data
    for key in reversed(prefix):
        nested = {key: nested}
    own = nested.get(HYDRA_NODE) if isinstance(nested, dict) else None
    return isinstance(own, dict) and own.get(HYDRA_SEARCHPATH.partition(".")[2]) is not None
