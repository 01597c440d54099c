"""Frozen results: a validated config that no assignment, deletion or mutation can change.

`freeze` copies a result deep: every model is a shallow copy marked with its path (so an
object the caller still holds, a `default=` instance say, is never frozen behind their back),
every list, dict and set a read-only subclass of `list`, `dict` or `set`. A `BaseConfig` refuses
assignment and deletion on a marked instance (its `__setattr__`); the containers refuse
their mutating methods. Both raise `FrozenError` naming the full dotted path.

Read-only subclasses, not tuples and mapping proxies: the values stay what their fields say
(`isinstance(tags, list)`, `tags == [...]`), so `model_dump`, `to_toml`, `fingerprint` and
equality give what they give for the same result unfrozen. Copies of a frozen value
(`model_copy`, `copy.deepcopy`, pickling) are frozen too; `list(value)`, `dict(value)`,
`value.copy()` and `model_dump()` are plain, mutable data.

Not frozen: an object that is none of these (a user class, a stdlib dataclass), and the
fields of a section that is a plain Pydantic `BaseModel` rather than a `BaseConfig` (its
lists and dicts are frozen; assigning its fields is refused only if its own `model_config`
says `frozen=True`). Python's `object.__setattr__` and `list.append(value, x)` go around
any freeze, as they go around a frozen dataclass's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, NoReturn

from pydantic import BaseModel

from compose._syntax import FROZEN_ATTR, dotted
from compose._tree import KeyPath
from compose.errors import FrozenError

__all__ = ["FrozenDict", "FrozenList", "FrozenSet", "freeze", "refuse"]

_NO_VALUE = object()


def freeze(value: Any, path: KeyPath = ()) -> Any:
    """`value` frozen deep, as a copy; models, lists, dicts, sets and tuples are walked."""
    kind = type(value)
    if kind in _LEAVES:  # most values of a config: nothing to look into
        return value
    if isinstance(value, BaseModel):
        return _frozen_model(value, path)
    if isinstance(value, list):
        return FrozenList._made([freeze(item, (*path, i)) for i, item in enumerate(value)], path)
    if isinstance(value, dict):
        items = {key: freeze(item, (*path, key)) for key, item in value.items()}
        return FrozenDict._made(items, path)
    if isinstance(value, (set, frozenset)):  # elements are hashable: frozen enough already
        return value if isinstance(value, frozenset) else FrozenSet._made(value, path)
    if isinstance(value, tuple):
        members = [freeze(item, (*path, i)) for i, item in enumerate(value)]
        if all(new is old for new, old in zip(members, value, strict=True)):
            return value
        return value._make(members) if hasattr(value, "_make") else tuple(members)  # namedtuples
    return value


_LEAVES = frozenset((str, int, float, bool, type(None), bytes))


def _frozen_model(model: BaseModel, path: KeyPath) -> BaseModel:
    copied = model.__copy__()  # the caller's instance stays theirs, and mutable
    fields = copied.__dict__
    for name, item in fields.items():  # values replaced, no key added: safe while iterating
        fields[name] = freeze(item, (*path, name))
    extra = copied.__pydantic_extra__  # `extra="allow"` keys
    if extra:
        for name, item in extra.items():
            extra[name] = freeze(item, (*path, name))
    fields[FROZEN_ATTR] = path
    return copied


def refreeze(model: BaseModel, names: Iterable[str]) -> None:
    """The values `model_copy(update=...)` put in a frozen copy, frozen at their paths."""
    path: KeyPath = model.__dict__[FROZEN_ATTR]
    extra = model.__pydantic_extra__ or {}
    for name in names:
        held = model.__dict__ if name in model.__dict__ else extra
        if name in held:
            held[name] = freeze(held[name], (*path, name))


def refuse(path: KeyPath, what: str, value: object = _NO_VALUE) -> FrozenError:
    """The error for changing `path` of a frozen result: `what` is the change (`assign`,
    `delete`, `call append()`); `value`, what an assignment gave."""
    fields: dict[str, Any] = {"key": dotted(path) or "(root)"}
    if value is not _NO_VALUE:
        fields["value"] = value
    return FrozenError(
        f"cannot {what}: the config is frozen",
        hint="make a changed copy with model_copy(update={...}), or compose again with the change",
        **fields,
    )


def _rebuild_list(items: list[Any], path: KeyPath) -> FrozenList:
    return FrozenList._made(items, path)


def _rebuild_dict(items: dict[Any, Any], path: KeyPath) -> FrozenDict:
    return FrozenDict._made(items, path)


def _rebuild_set(items: set[Any], path: KeyPath) -> FrozenSet:
    return FrozenSet._made(items, path)


class _Frozen:
    """What the read-only containers share: the path they sit at, and refusing."""

    __slots__ = ()
    _path: KeyPath

    def _refuse(self, what: str, at: KeyPath = (), *value: object) -> NoReturn:
        raise refuse((*self._path, *at), what, *value)


def _refusing(method: str) -> Callable[..., NoReturn]:
    """A mutating method of a read-only container: it raises, naming itself."""

    what = f"call {method}()" if method.isidentifier() else f"use {method}"

    def refused(self: _Frozen, *args: object, **kwargs: object) -> NoReturn:
        self._refuse(what)

    refused.__name__ = method
    return refused


class FrozenList(_Frozen, list[Any]):
    """A list of a frozen result: reads as a list, every mutating method raises `FrozenError`."""

    __slots__ = ("_path",)

    @classmethod
    def _made(cls, items: Iterable[Any], path: KeyPath) -> FrozenList:
        made = cls()
        list.extend(made, items)  # list's own method: ours refuses
        made._path = path
        return made

    def __reduce__(self) -> tuple[Any, ...]:  # copy, deepcopy, pickle: frozen again
        return _rebuild_list, (list(self), self._path)

    def __setitem__(self, index: Any, value: Any) -> NoReturn:
        self._refuse("assign", _at(index), value)

    def __delitem__(self, index: Any) -> NoReturn:
        self._refuse("delete", _at(index))

    __iadd__ = _refusing("+=")
    __imul__ = _refusing("*=")
    append = _refusing("append")
    extend = _refusing("extend")
    insert = _refusing("insert")
    pop = _refusing("pop")
    remove = _refusing("remove")
    clear = _refusing("clear")
    sort = _refusing("sort")
    reverse = _refusing("reverse")


def _at(index: Any) -> KeyPath:
    """Where an item assignment lands: `[0]` at 0, a slice at the list itself."""
    return () if isinstance(index, slice) else (index,)


class FrozenDict(_Frozen, dict[Any, Any]):
    """A dict of a frozen result: reads as a dict, every mutating method raises `FrozenError`."""

    __slots__ = ("_path",)

    @classmethod
    def _made(cls, items: Mapping[Any, Any], path: KeyPath) -> FrozenDict:
        made = cls()
        dict.update(made, items)  # dict's own method: ours refuses
        made._path = path
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild_dict, (dict(self), self._path)

    def __setitem__(self, key: Any, value: Any) -> NoReturn:
        self._refuse("assign", (key,), value)

    def __delitem__(self, key: Any) -> NoReturn:
        self._refuse("delete", (key,))

    __ior__ = _refusing("|=")
    clear = _refusing("clear")
    pop = _refusing("pop")
    popitem = _refusing("popitem")
    setdefault = _refusing("setdefault")
    update = _refusing("update")


class FrozenSet(_Frozen, set[Any]):
    """A set of a frozen result: reads as a set, every mutating method raises `FrozenError`."""

    __slots__ = ("_path",)

    @classmethod
    def _made(cls, items: Iterable[Any], path: KeyPath) -> FrozenSet:
        made = cls()
        set.update(made, items)  # set's own method: ours refuses
        made._path = path
        return made

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild_set, (set(self), self._path)

    def __repr__(self) -> str:  # as the set it reads as (a set subclass shows its class name)
        return repr(set(self))

    __ior__ = _refusing("|=")
    __iand__ = _refusing("&=")
    __isub__ = _refusing("-=")
    __ixor__ = _refusing("^=")
    add = _refusing("add")
    discard = _refusing("discard")
    remove = _refusing("remove")
    pop = _refusing("pop")
    clear = _refusing("clear")
    update = _refusing("update")
    intersection_update = _refusing("intersection_update")
    difference_update = _refusing("difference_update")
    symmetric_difference_update = _refusing("symmetric_difference_update")
