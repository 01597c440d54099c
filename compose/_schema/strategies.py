"""`Merge`: how a list field merges when a later node sets it, declared on the schema.

    tags: Annotated[list[str], Merge.extend] = []
    env: Annotated[list[Env], Merge.keyed("id")] = []

A strategy is a small immutable value used as `Annotated` metadata: Pydantic ignores it, the
composition reads it once per annotation (`_types.shape_of`). This module imports nothing of
the engine, so a schema module pays nothing for it.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable
from typing import Any, ClassVar, Literal

Mode = Literal["replace", "extend", "extend_unique", "keyed"]


class Merge:
    """How a list merges with what earlier nodes (and the class default) composed.

    - `Merge.replace` (the default): a later node's list replaces the earlier one.
    - `Merge.extend`: a later node's elements are appended.
    - `Merge.extend_unique`: appended, except those equal to an element already there.
    - `Merge.keyed("name")`: lists of tables merge element-wise: an element whose `name`
      matches an earlier one deep-merges into it, a new one is appended.

    Command-line values (`--tags a b`) always replace: they state the final value. `--tags+ a`
    appends, whatever the strategy (`extend_unique` skips duplicates, `keyed` merges by key).
    """

    # A plain immutable class, not a dataclass: `import compose` creates it, and a dataclass
    # costs ~1 ms to create (it compiles its methods).
    __slots__ = ("key", "mode")

    mode: Mode
    key: str | None

    replace: ClassVar[Merge]
    extend: ClassVar[Merge]
    extend_unique: ClassVar[Merge]

    def __init__(self, mode: Mode, key: str | None = None) -> None:
        object.__setattr__(self, "mode", mode)
        object.__setattr__(self, "key", key)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{self!r} cannot be changed")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Merge) and (self.mode, self.key) == (other.mode, other.key)

    def __hash__(self) -> int:  # annotations are cached by value: a strategy must hash
        return hash((self.mode, self.key))

    def __reduce__(self) -> tuple[type[Merge], tuple[Mode, str | None]]:  # copy, pickle
        return Merge, (self.mode, self.key)

    @staticmethod
    def keyed(key: str) -> Merge:
        """Merge a list of tables element-wise by the field `key` (`Merge.keyed("id")`)."""
        if not isinstance(key, str) or not key:
            raise ValueError(f"Merge.keyed needs a field name, got {key!r}")
        return Merge("keyed", key)

    def __repr__(self) -> str:
        return f"Merge.keyed({self.key!r})" if self.mode == "keyed" else f"Merge.{self.mode}"

    def describe(self) -> str:
        """How `--help` names the strategy: `files extend`, `files merge by id`."""
        if self.mode == "keyed":
            return f"files merge by {self.key}"
        if self.mode == "extend_unique":
            return "files extend, skipping duplicates"
        return f"files {self.mode}"


Merge.replace = Merge("replace")
Merge.extend = Merge("extend")
Merge.extend_unique = Merge("extend_unique")


def strategy_in(metadata: Iterable[object]) -> Merge | None:
    """The strategy among `Annotated` metadata (the last one given wins), None for replace."""
    found: Merge | None = None
    for meta in metadata:
        if isinstance(meta, Merge):
            found = meta
    return None if found is None or found.mode == "replace" else found


def strategy_of(annotation: Any) -> Merge | None:
    """The strategy an `Annotated[..., Merge.x]` annotation declares; None for replace."""
    if typing.get_origin(annotation) is not typing.Annotated:
        return None
    return strategy_in(typing.get_args(annotation)[1:])  # nested Annotated are flattened
