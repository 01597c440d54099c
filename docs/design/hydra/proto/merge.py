"""OmegaConf's merge and update rules over plain data, with typed nodes from store models.

Merging `src` into `dest` (both tables), key by key:
  - `???` in src never replaces a value dest has (it is set only where dest has none);
  - a table into a table merges; anything else replaces (a scalar over a table, a table over
    a scalar, a list over a list: lists are never merged element-wise);
  - a list into a table, or a table into a list, is an error.
A typed node (a store model, as Hydra's ConfigStore dataclasses) is closed: a key it does not
declare is an error, and each value is converted by its field's type as OmegaConf converts
(`"3308"` -> 3308 for an int, 42 -> "42" for a str, `yes` -> True for a bool; `3.5` for an int,
`null` for a field that is not Optional: errors). A typed node over a typed node must be the
same class or a subclass. `${...}` and `???` are accepted by every type (they are read later).

After composition the root is in struct mode: a value override can only set keys that exist
(`key=v`), add absent ones (`+key=v`), or either (`++key=v`, which opens the whole subtree).
"""

from __future__ import annotations

import copy
import dataclasses
import typing
from typing import Any

from compose.errors import ComposeError

MISSING = "???"
KeyPath = tuple[Any, ...]


class MergeError(ComposeError):
    """A value that cannot go where it is merged or set."""


class KeyMissing(ComposeError):
    """A key that is not there (struct mode, or a typed node that does not declare it)."""


def _is_deferred(value: Any) -> bool:
    return value == MISSING or (isinstance(value, str) and "${" in value)


def _models(annotation: Any) -> bool:
    return isinstance(annotation, type) and hasattr(annotation, "model_fields")


def _unwrap_optional(annotation: Any) -> tuple[Any, bool]:
    if typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(args) < len(typing.get_args(annotation))
        if len(args) == 1:
            return args[0], optional
        return typing.Union[tuple(args)], optional  # noqa: UP007 - a union made at run time
    return annotation, annotation is Any or annotation is None


def convert(value: Any, annotation: Any, where: str) -> Any:
    """`value` as a node typed `annotation` holds it (None: untyped)."""
    if annotation is None or annotation is Any or _is_deferred(value):
        return value
    inner, optional = _unwrap_optional(annotation)
    if value is None:
        if optional:
            return None
        raise MergeError("null for a field that is not Optional", key=where, value=value)
    if inner is Any:
        return value
    origin = typing.get_origin(inner)
    if _models(inner):
        if not isinstance(value, dict):
            raise MergeError(f"a {inner.__name__} is a table", key=where, value=value)
        return _typed_table(value, inner, where)
    if origin in (list, tuple):
        if not isinstance(value, list):
            raise MergeError("a list is expected", key=where, value=value)
        (item,) = typing.get_args(inner)[:1] or (Any,)
        return [convert(v, item, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise MergeError("a table is expected", key=where, value=value)
        item = typing.get_args(inner)[1] if typing.get_args(inner) else Any
        return {k: convert(v, item, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, (dict, list)):
        raise MergeError(
            f"a {getattr(inner, '__name__', inner)} is not a table or a list", key=where, value=value
        )
    return _scalar(value, inner, where)


def _typed_table(value: dict[str, Any], model: Any, where: str) -> dict[str, Any]:
    """A table where a model is expected (a list's item): the model's defaults, merged over."""
    out = model_defaults(model)
    for key, item in value.items():
        field = model.model_fields.get(key)
        if field is None:
            raise KeyMissing(f"{model.__name__} has no key {key}", key=f"{where}.{key}")
        if item != MISSING:
            out[key] = convert(item, field.annotation, f"{where}.{key}")
    return out


def _scalar(value: Any, kind: Any, where: str) -> Any:
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
            return value  # a union or a class the prototype does not check
    except ValueError:
        pass
    raise MergeError(f"cannot be converted to {kind.__name__}", key=where, value=value)


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
            if lowered in ("yes", "y", "on", "true"):
                return True
            if lowered in ("no", "n", "off", "false"):
                return False
    raise ValueError(value)


def model_defaults(model: Any) -> dict[str, Any]:
    from .repository import model_data  # noqa: PLC0415 - one home for a model's data

    return model_data(model)


@dataclasses.dataclass
class Tree:
    """The config being composed: plain data, and which tables are typed by which model."""

    data: dict[str, Any] = dataclasses.field(default_factory=dict)
    types: dict[KeyPath, Any] = dataclasses.field(default_factory=dict)
    struct: bool = False  # after composition: no new key without `+`/`++`

    # -- what a path expects ----------------------------------------------------------------

    def annotation(self, path: KeyPath) -> Any:
        """The type the node at `path` holds (None: untyped)."""
        if not path:
            return self.types.get(())
        parent = path[:-1]
        key = path[-1]
        model = self.types.get(parent)
        if model is not None:
            field = model.model_fields.get(key)
            return field.annotation if field is not None else None
        outer, _ = _unwrap_optional(self.annotation(parent)) if parent else (None, False)
        origin = typing.get_origin(outer)
        if origin in (list, tuple) and typing.get_args(outer):
            return typing.get_args(outer)[0]
        if origin is dict and typing.get_args(outer):
            return typing.get_args(outer)[1]
        return None

    def declares(self, path: KeyPath, key: Any) -> bool:
        model = self.types.get(path)
        return model is None or key in model.model_fields

    def _type_node(self, path: KeyPath, model: Any, where: str) -> None:
        current = self.types.get(path)
        if current is not None and current is not model and not issubclass(model, current):
            raise MergeError(f"{model.__name__} is not a subclass of {current.__name__}", key=where)
        self.types[path] = model
        for name, field in model.model_fields.items():
            inner, _ = _unwrap_optional(field.annotation)
            if _models(inner):
                self.types.setdefault((*path, name), inner)

    # -- merging configs --------------------------------------------------------------------

    def merge_at(self, path: KeyPath, src: Any, model: Any, where: str) -> None:
        """Merge one config's data (typed by `model` if a store model) at `path`."""
        if not path:
            if not isinstance(src, dict):
                raise MergeError("only a table merges at the top", key=where, value=src)
            self.merge_table(self.data, (), src, model, where)
            return
        parent = self._parents(path[:-1], where)
        self.merge_value(parent, path, src, model, where)

    def _parents(self, path: KeyPath, where: str) -> dict[str, Any]:
        """The table at `path`, made where absent (a config embedded at a package below)."""
        node: dict[str, Any] = self.data
        for index, key in enumerate(path):
            child = node.get(key)
            if isinstance(child, list):
                raise MergeError(
                    "a table cannot merge into a list", key=_dotted(path[: index + 1]), origin=where
                )
            if not isinstance(child, dict):
                child = self.new_table(path[: index + 1], where)
                node[key] = child
            node = child
        return node

    def merge_table(
        self,
        dest: dict[str, Any],
        path: KeyPath,
        src: dict[str, Any],
        model: Any,
        where: str,
        *,
        free: bool = False,
    ) -> None:
        """`free`: a `+`/`++` override, which may add keys that struct mode or a type closes."""
        if model is not None:
            self._type_node(path, model, where)
        for key, value in src.items():
            if not free and not self.declares(path, key):
                raise KeyMissing(
                    f"{self.types[path].__name__} has no key {key}", key=_dotted((*path, key)), origin=where
                )
            if not free and self.struct and key not in dest:
                raise KeyMissing("no such key", key=_dotted((*path, key)), origin=where)
            self.merge_value(dest, (*path, key), value, None, where, free=free)

    def merge_value(
        self, dest: dict[str, Any], path: KeyPath, value: Any, model: Any, where: str, *, free: bool = False
    ) -> None:
        key = path[-1]
        current = dest.get(key, _ABSENT)
        if value == MISSING and current is not _ABSENT:
            return  # `???` never replaces a value
        expected = self.annotation(path)
        if isinstance(value, dict):
            if isinstance(current, list):
                raise MergeError("a table cannot merge into a list", key=_dotted(path), origin=where)
            if not isinstance(current, dict):
                current = self.new_table(path, where)
                dest[key] = current
            self.merge_table(current, path, value, model, where, free=free)
            return
        if isinstance(value, list) and isinstance(current, dict):
            raise MergeError("a list cannot merge into a table", key=_dotted(path), origin=where)
        dest[key] = convert(copy.deepcopy(value), expected, _dotted(path))
        self.forget_types(path)

    def new_table(self, path: KeyPath, where: str) -> dict[str, Any]:
        """An empty table at `path`: a typed field's holds the model's defaults."""
        inner, _ = _unwrap_optional(self.annotation(path))
        if _models(inner):
            self._type_node(path, inner, where)
            return model_defaults(inner)
        return {}

    def forget_types(self, path: KeyPath) -> None:
        for typed in [p for p in self.types if p[: len(path)] == path]:
            del self.types[typed]


_ABSENT: Any = object()


def _dotted(path: KeyPath) -> str:
    return ".".join(str(p) for p in path)


# --- value overrides (after composition, struct mode) ----------------------------------------


def split_key(key: str) -> list[str]:
    return key.split(".")


def select(tree: Tree, segments: list[str]) -> Any:
    """The value at a dotted key, or None where there is none (null and `???` count as none)."""
    node: Any = tree.data
    for seg in segments:
        if isinstance(node, dict):
            node = node.get(seg)
        elif isinstance(node, list) and seg.lstrip("-").isdigit() and -len(node) <= int(seg) < len(node):
            node = node[int(seg)]
        else:
            return None
    return None if node == MISSING else node


def update(tree: Tree, segments: list[str], value: Any, free: bool, where: str) -> None:
    """OmegaConf.update(merge=True): parents must exist unless `free`; tables merge into tables."""
    node: Any = tree.data
    path: KeyPath = ()
    for seg in segments[:-1]:
        key = _key_in(node, seg, path, where)
        child = node[key] if _holds(node, key) else None
        if not isinstance(child, (dict, list)):
            closed = (tree.struct and key not in node) or not tree.declares(path, key)
            if isinstance(node, dict) and not free and closed:
                raise KeyMissing("no such key", key=_dotted((*path, key)), origin=where)
            child = tree.new_table((*path, key), where)
            node[key] = child
        node, path = child, (*path, key)
    last = _key_in(node, segments[-1], path, where)
    target = (*path, last)
    current = node[last] if _holds(node, last) else _ABSENT
    if isinstance(value, dict) and isinstance(current, dict):
        tree.merge_table(current, target, value, None, where, free=free)
        return
    if isinstance(node, list):
        if current is _ABSENT:
            raise MergeError("no such list index", key=_dotted(target), origin=where)
        if isinstance(value, dict):
            raise MergeError("a table cannot merge into a list", key=_dotted(target), origin=where)
        node[last] = convert(copy.deepcopy(value), tree.annotation(target), _dotted(target))
        return
    if not free and ((tree.struct and current is _ABSENT) or not tree.declares(path, last)):
        raise KeyMissing("no such key", key=_dotted(target), origin=where)
    if isinstance(value, dict):
        if isinstance(current, list):
            raise MergeError("a table cannot merge into a list", key=_dotted(target), origin=where)
        fresh = tree.new_table(target, where)
        node[last] = fresh
        tree.merge_table(fresh, target, value, None, where, free=True)
        return
    if isinstance(value, list) and isinstance(current, dict):
        raise MergeError("a list cannot merge into a table", key=_dotted(target), origin=where)
    node[last] = convert(copy.deepcopy(value), tree.annotation(target), _dotted(target))
    tree.forget_types(target)


def delete(tree: Tree, segments: list[str], value: Any, has_value: bool, where: str) -> None:
    current = select(tree, segments)
    if current is None:
        raise KeyMissing("nothing to delete", key=".".join(segments), origin=where)
    if has_value and value != current:
        raise MergeError(f"the value is {current!r}, not {value!r}", key=".".join(segments), origin=where)
    parent: Any = tree.data
    for seg in segments[:-1]:
        parent = parent[int(seg)] if isinstance(parent, list) else parent[seg]
    last = segments[-1]
    del parent[int(last) if isinstance(parent, list) else last]
    tree.forget_types(tuple(segments))


def _holds(node: Any, key: Any) -> bool:
    if isinstance(node, dict):
        return key in node
    return isinstance(key, int) and -len(node) <= key < len(node)


def _key_in(node: Any, seg: str, path: KeyPath, where: str) -> Any:
    if isinstance(node, list):
        try:
            return int(seg)
        except ValueError:
            raise MergeError(
                "a list is indexed by a number", key=_dotted((*path, seg)), origin=where
            ) from None
    return seg
