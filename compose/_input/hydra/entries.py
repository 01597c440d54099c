"""A config's `defaults:` list -> `Entry` values, and where each entry stands (`Place`).

    - _self_                     the config's own keys
    - name | /abs/name | name@pkg  another config (path relative to the config's group dir)
    - group: option              a group's option        (also `/group`, `group@pkg`)
    - group: [a, b]              several options of one group, merged in order
    - group: null | ???          no option | an option the command line must give
    - optional group: option     skipped when the option's file does not exist
    - override group: option     changes the option chosen elsewhere (see `tree`)

`_here_` as a package is the containing config's package (""); `_global_` is the root.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Literal

from compose._syntax import (
    HYDRA_DEFAULTS,
    HYDRA_GLOBAL,
    HYDRA_GROUP,
    HYDRA_HERE,
    HYDRA_OPTIONAL,
    HYDRA_OVERRIDE,
    INTERPOLATION,
    MANDATORY,
    SELF,
)
from compose.errors import ComposeError, SourceError, gather

GLOBAL = HYDRA_GLOBAL

Choice = str | tuple[str, ...] | None  # an option, several (multi-select), or none


@dataclasses.dataclass(frozen=True)
class Where:
    """Where something was written: a config file and line, or a command-line override."""

    source: str  # "conf/config.yaml", or the override as typed
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.source}:{self.line}" if self.line is not None else self.source


@dataclasses.dataclass(frozen=True)
class Entry:
    """One entry of a defaults list, as written (`target` keeps a leading "/")."""

    kind: Literal["self", "config", "group"]
    target: str  # config: its path; group: the group
    choice: Choice = None  # group entries only
    package: str | None = None  # after "@"; `_here_` is ""
    optional: bool = False
    override: bool = False
    appended: bool = False  # `+group=option` from the command line
    where: Where = Where("")

    @property
    def name(self) -> str | None:
        """The option or config name (None: `null`; a multi-select has none)."""
        if self.kind == "group":
            return self.choice if isinstance(self.choice, str) or self.choice is None else None
        return self.target.rsplit("/", 1)[-1]

    @property
    def is_multi(self) -> bool:
        return isinstance(self.choice, tuple)

    @property
    def is_missing(self) -> bool:
        return self.name == MANDATORY

    @property
    def is_interpolated(self) -> bool:
        text = self.target if self.kind == "config" else self.name
        return isinstance(text, str) and INTERPOLATION in text


def _split_package(text: str) -> tuple[str, str | None]:
    head, at, package = text.partition("@")
    if not at:
        return head, None
    package = package.partition(":")[0]  # Hydra 1.0's `@a:b` rename: only `a` is read since 1.1
    return head, ("" if package == HYDRA_HERE else package)


def parse_defaults(shown: str, raw: Any, lines: Mapping[tuple[Any, ...], int]) -> tuple[Entry, ...]:
    """The entries of a config's `defaults` value (`lines`: the file's key lines)."""
    if not isinstance(raw, list):
        kind = "a mapping" if isinstance(raw, dict) else type(raw).__name__
        raise SourceError(
            f"`defaults` must be a list, not {kind}",
            origin=_at(shown, lines, (HYDRA_DEFAULTS,)),
            hint="write each entry as a list item: `- db: mysql`",
        )
    problems: list[ComposeError] = []
    entries: list[Entry] = []
    for index, item in enumerate(raw):
        where = Where(shown, lines.get((HYDRA_DEFAULTS, index)))
        try:
            entries.append(parse_entry(item, where))
        except ComposeError as problem:
            problems.append(problem)
    if problems:
        raise gather(problems)
    return tuple(entries)


def parse_entry(item: Any, where: Where) -> Entry:
    if isinstance(item, str):
        path, package = _split_package(item)
        if path == SELF:
            if package is not None:
                raise SourceError("`_self_` takes no package", value=item, origin=str(where))
            return Entry("self", SELF, where=where)
        if not path:
            raise SourceError("an entry names a config", value=item, origin=str(where))
        return Entry("config", path, package=package, where=where)
    if isinstance(item, dict):
        if len(item) != 1:
            raise SourceError("an entry is one `group: option` pair", value=item, origin=str(where))
        ((key, value),) = item.items()
        if not isinstance(key, str):
            raise SourceError("a group is text", value=key, origin=str(where))
        head, package = _split_package(key)
        words = head.split(" ")
        group, keywords = words[-1], words[:-1]
        optional = override = False
        for (
            word
        ) in keywords:  # Hydra reads keywords up to the first other word, and ignores the rest
            if word == HYDRA_OPTIONAL:
                optional = True
            elif word == HYDRA_OVERRIDE:
                override = True
            else:
                break
        if not group:
            raise SourceError("an entry names a group", value=item, origin=str(where))
        return Entry(
            "group",
            group,
            choice=_choice(value, item, where),
            package=package,
            optional=optional,
            override=override,
            where=where,
        )
    raise SourceError(
        "an entry is a config name or a `group: option` pair", value=item, origin=str(where)
    )


def _choice(value: Any, item: Any, where: Where) -> Choice:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list):
        if not all(isinstance(v, str) for v in value):
            raise SourceError("the options of a list are names", value=item, origin=str(where))
        return tuple(value)
    raise SourceError("an option is a name, a list of names or null", value=item, origin=str(where))


def _at(shown: str, lines: Mapping[tuple[Any, ...], int], path: tuple[Any, ...]) -> str:
    line = lines.get(path)
    return f"{shown}:{line}" if line is not None else shown


# --- where an entry stands, and what follows from it ---------------------------------------


@dataclasses.dataclass(frozen=True)
class Place:
    """The containing config's group directory and final package ("" at the top)."""

    dir: str
    package: str


TOP = Place("", "")


def _relative(entry: Entry) -> tuple[str, bool]:
    """The group part as written, without a leading "/", and whether it was absolute."""
    if entry.kind == "group":
        text = entry.target
        return text.lstrip("/"), text.startswith("/")
    text = entry.target
    absolute = text.startswith("/")
    body = text.lstrip("/")
    return (body.rsplit("/", 1)[0] if "/" in body else ""), absolute


def group_path(entry: Entry, place: Place) -> str:
    """The group's path from the top of the repository: relative entries are in `place.dir`."""
    relative, absolute = _relative(entry)
    if absolute or not place.dir:
        joined = relative
    else:
        joined = f"{place.dir}/{relative}" if relative else place.dir
    # `../engine@fsdp: x` in critic/dp.yaml is engine/x (as Hydra reads the file); only with
    # an `@package`: without one the package would be the path's names, `..` among them
    return _up(joined) if entry.package is not None and entry.kind == "group" else joined


def _up(path: str) -> str:
    """`critic/../engine` as `engine`; a `..` above the top is kept (the path check refuses it)."""
    parts: list[str] = []
    for part in path.split("/"):
        if part == ".." and parts and parts[-1] != "..":
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts)


def config_path(entry: Entry, place: Place, group: str) -> str:
    """The path of the config the entry names (`group`: its `group_path`)."""
    if entry.kind == "group":
        return f"{group}/{entry.name}"
    body = entry.target.lstrip("/")
    if entry.target.startswith("/") or not place.dir:
        return body
    return f"{place.dir}/{body}"


def default_package(entry: Entry, place: Place) -> str:
    return group_path(entry, place).replace("/", ".")


def header_package(header: str | None) -> str | None:
    """A `# @package` header as a package: always absolute (Hydra 1.2+: `_group_` is a name)."""
    if header is None:
        return None
    if header == GLOBAL or header.startswith(GLOBAL + "."):
        return header
    return f"{GLOBAL}.{header}"


def declared_package(entry: Entry, place: Place) -> str | None:
    """The entry's own `@package`; `_group_` in it is the group's path (absolute)."""
    if entry.package is None or HYDRA_GROUP not in entry.package:
        return entry.package
    return f"{GLOBAL}." + entry.package.replace(HYDRA_GROUP, default_package(entry, place))


def final_package(entry: Entry, place: Place, header: str | None) -> str:
    """Where the entry's keys land: its `@pkg`, else the header, else its group (relative).

    Relative packages join the containing config's; whatever follows the last `_global_` is
    absolute (`_global_` alone is the root)."""
    package = declared_package(entry, place)
    if package is None:
        package = header_package(header)
    if package is None:
        package = _relative(entry)[0].replace("/", ".")
    if not place.package:
        joined = package
    elif not package:
        joined = place.package
    else:
        joined = f"{place.package}.{package}"
    cut = joined.rfind(GLOBAL)
    return joined if cut == -1 else joined[cut + len(GLOBAL) + 1 :]


def override_key(group: str, package: str) -> str:
    """How the command line names the choice of `group` (a `group_path`) whose entry puts its
    keys at `package` (`final_package` without any header): `group`, or `group@package` when
    that is not the group's own package; `_global_` for the root."""
    return group if package == group.replace("/", ".") else f"{group}@{package or GLOBAL}"
