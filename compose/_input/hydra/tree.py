"""The defaults tree: a primary config name and the command line's group overrides -> the
ordered configs to merge (`Leaf`), each at its package.

The order of work is Hydra 1.3's, and it decides which choice wins:

1. The command line's group overrides are collected first: `g=x` forces a choice, `~g[=x]`
   deletes one, `+g=x` appends an entry to the primary's defaults list.
2. The tree is expanded depth first, but each config's entries are visited **last to first**;
   the primary is visited before Hydra's own `hydra/config`.
3. When a config is loaded, its `override g: x` entries register forced choices, unless the
   key already has one: the command line always wins, and among `override` entries the first
   registered wins -- the one in the config visited first, i.e. the *later* sibling subtree.
4. An entry whose option is an interpolation (`${db}_${model}`) waits until its siblings are
   expanded, then reads the choices made so far.
5. Every choice is recorded once per key; the same key chosen again with another option is an
   error. Forced choices and deletions nobody used are errors at the end.

The leaves come out in merge order (`_self_` where it stands, else last).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from compose._input.hydra import hydra_node
from compose._input.hydra.entries import (
    TOP,
    Choice,
    Entry,
    Place,
    Where,
    config_path,
    final_package,
    group_path,
    override_key,
)
from compose._input.hydra.grammar import Override, parse_element
from compose._input.hydra.hydra_node import EMPTY_PRIMARY, HYDRA_CONFIG_PATH
from compose._input.hydra.repository import MAX_CONFIGS, Loaded, Repository, make_repository
from compose._interp.resolve import resolve_tree
from compose._shortcuts import SHORTCUTS
from compose._syntax import (
    HYDRA_DEFAULTS,
    HYDRA_GROUP,
    HYDRA_NODE,
    HYDRA_OVERRIDE,
    INTERPOLATION,
    MANDATORY,
    SELF,
)
from compose._tree import MAX_DEPTH
from compose.errors import ArgvError, ComposeError, SourceError, closest, gather


@dataclasses.dataclass(frozen=True)
class Leaf:
    """One config to merge, in order: its path, the package its keys land at."""

    config_path: str
    package: str
    is_self: bool
    primary: bool
    override_key: str | None  # group entries only: how the command line names the choice
    chain: tuple[Where, ...]  # the entries that led here, the primary first
    forced_by: Where | None = None  # the override (`db=x`, `override /db: x`) that chose it


class _once:  # a decorator, named as `property` is
    """`functools.cached_property` without its lock (Python 3.11 takes one at every first
    read, which cost more than the work; a composition runs on one thread): the value is
    worked out at the first read and kept in the instance, which a frozen dataclass allows."""

    def __init__(self, work: Callable[[Any], str]) -> None:
        self.work, self.name = work, work.__name__

    def __get__(self, instance: Any, owner: type | None = None) -> str:
        value = self.work(instance)
        instance.__dict__[self.name] = value  # read from there from now on: no __set__ here
        return value


@dataclasses.dataclass(frozen=True)
class Node:
    """An entry where it stands in the tree, with what was learnt of it on the way."""

    entry: Entry
    place: Place
    chain: tuple[Where, ...]
    primary: bool = False
    header: str | None = None
    forced_by: Where | None = None  # what forced the group's choice, if anything did

    # Each is asked many times of one node as the tree expands: worked out once per node
    # (a node is never changed; `dataclasses.replace` makes a new one, which works them out
    # again from its own fields).

    @_once
    def path(self) -> str:
        return config_path(self.entry, self.place, self.group)

    @_once
    def group(self) -> str:
        return group_path(self.entry, self.place)

    @_once
    def own_package(self) -> str:
        """The package its entry gives, a header aside: the one the command line names."""
        return final_package(self.entry, self.place, None)

    @_once
    def package(self) -> str:
        if self.header is None:
            return self.own_package
        return final_package(self.entry, self.place, self.header)

    @_once
    def key(self) -> str:
        return override_key(self.group, self.own_package)

    @property
    def is_group(self) -> bool:
        return self.entry.kind == "group"

    @property
    def inner(self) -> Place:
        """Where this config's own entries stand."""
        return Place(self.group, self.package)

    def leaf(self, is_self: bool = False) -> Leaf:
        key = self.key if self.is_group and not is_self else None
        return Leaf(self.path, self.package, is_self, self.primary, key, self.chain, self.forced_by)


@dataclasses.dataclass(frozen=True)
class Forced:
    """A choice forced by the command line (`g=x`) or an `override g: x` entry."""

    choice: Choice
    where: Where
    external: bool
    container: str | None = None  # the config holding the `override` entry


@dataclasses.dataclass(frozen=True)
class Deletion:
    name: str | None  # `~g=x` deletes only option x
    where: Where


@dataclasses.dataclass
class Expansion:
    """What one expansion learns as it goes (the only mutable state of a composition)."""

    repo: Repository
    skip_missing: bool  # multirun's master config: a `???` choice waits for the sweep
    forced: dict[str, Forced] = dataclasses.field(default_factory=dict)
    deletions: dict[str, Deletion] = dataclasses.field(default_factory=dict)
    appends: list[Entry] = dataclasses.field(default_factory=list)
    used: set[str] = dataclasses.field(default_factory=set)  # forced keys applied
    deleted: set[str] = dataclasses.field(default_factory=set)  # deletion keys applied
    known: dict[str, str | None] = dataclasses.field(default_factory=dict)  # key -> option
    known_at: dict[str, tuple[Where, ...]] = dataclasses.field(default_factory=dict)  # key -> chain
    known_by_group: dict[str, set[str]] = dataclasses.field(default_factory=dict)
    warnings: list[str] = dataclasses.field(default_factory=list)
    expanded: int = 0  # entries expanded: a config may name another twice, so the tree can
    # double at each level while only a few files are read


@dataclasses.dataclass(frozen=True)
class DefaultsResult:
    leaves: tuple[Leaf, ...]  # the user's configs, in merge order (Hydra's own left out)
    hydra_leaves: tuple[Leaf, ...]
    choices: dict[str, str | None]
    value_overrides: tuple[Override, ...]
    warnings: tuple[str, ...]


# --- the command line ----------------------------------------------------------------------


def collect_overrides(exp: Expansion, overrides: list[Override]) -> list[Override]:
    """Sort the command line: group overrides into `exp`, value overrides returned in order."""
    values: list[Override] = []
    for ov in overrides:
        if ov.is_sweep:
            continue  # the master config of a sweep: each job chooses for itself
        value = ov.plain()
        where = Where(ov.text)
        if isinstance(value, dict) or not exp.repo.group_exists(ov.key):
            values.append(ov)
        elif ov.action == "force":
            raise ArgvError(
                "`++` adds or sets a value; a group's option is added with `+`",
                origin=ov.text,
                hint=f"+{ov.text[2:]}",
            )
        elif ov.action == "delete":
            if value is not None and not isinstance(value, str):
                raise ArgvError("`~group=option` names one option", origin=ov.text)
            exp.deletions[ov.choice_key] = Deletion(value, where)
        elif not isinstance(value, (str, list)):
            raise ArgvError(
                f"an option of the group {ov.key} is a name or a list of names",
                origin=ov.text,
                hint=f"~{ov.choice_key} removes the group's entry",
            )
        elif ov.action == "add":
            choice = tuple(value) if isinstance(value, list) else value
            exp.appends.append(
                Entry(
                    "group", ov.key, choice=choice, package=ov.package, appended=True, where=where
                )
            )
        else:
            choice = tuple(value) if isinstance(value, list) else value
            exp.forced[ov.choice_key] = Forced(choice, where, external=True)
    return values


# --- expansion -----------------------------------------------------------------------------


def chain_text(chain: tuple[Where, ...]) -> str:
    """`config.yaml:3 -> experiment/nglite.yaml:3`: a config named without a line is left out
    when the next step is a line of that same file."""
    steps = [w for w in chain if w.source]
    kept = [
        w
        for w, nxt in zip(steps, [*steps[1:], None], strict=True)
        if not (w.line is None and nxt and nxt.source == w.source)
    ]
    return " -> ".join(str(w) for w in kept)


def _not_found(exp: Expansion, node: Node) -> ComposeError:
    if node.primary:
        return SourceError(
            "no such primary config",
            value=node.path,
            hint=f"looked in {exp.repo.described()}",
        )
    hint = None
    if node.is_group:
        options = exp.repo.options(node.group)
        hint = (
            f"the options of {node.group} are {', '.join(options)}"
            if options
            else f"{node.group} has no options"
        )
        close = closest(node.entry.name or "", options, 0.6)
        if close is not None:
            hint = f"did you mean {close}? ({hint})"
    origin = chain_text(node.chain)
    if node.forced_by is not None:  # the name was typed there, for the entry of the chain
        origin = f"{node.forced_by}, for {origin}"
    return SourceError(f"no config {node.path}", value=node.entry.name, origin=origin, hint=hint)


def _register_choice(exp: Expansion, node: Node) -> None:
    key, name = node.key, node.entry.name
    if key in exp.known and exp.known[key] != name:
        first = f"{exp.known[key]} at {chain_text(exp.known_at[key])}"
        appended = next((e for e in exp.appends if e.where == exp.known_at[key][-1]), None)
        hint = (
            f"the defaults list chooses {key} already: {key}={exp.known[key]} changes the "
            f"choice ({appended.where} adds a group the list does not choose)"
            if appended is not None
            else f"to change the choice, write `{HYDRA_OVERRIDE} {key}: {name}` after the others"
        )
        raise SourceError(
            f"{key} is chosen twice: {name} here, {first}", origin=chain_text(node.chain), hint=hint
        )
    exp.known.setdefault(key, name)
    exp.known_at.setdefault(key, node.chain)
    exp.known_by_group.setdefault(node.group, set()).add(key)


def _with_self(node: Node, loaded: Loaded, entries: list[Entry], exp: Expansion) -> bool:
    """Validate `_self_` and add it last where it is missing; True if it was added."""
    selves = [e for e in entries if e.kind == "self"]
    if len(selves) > 1:
        raise SourceError("`_self_` twice in one defaults list", origin=str(selves[1].where))
    has_plain = any(not e.override for e in entries)
    if selves or not (has_plain or not entries):
        return False
    if node.primary and has_plain and _has_content(loaded.data):
        exp.warnings.append(
            f"{loaded.shown}: its defaults list has no {SELF}, so its own keys merge last; "
            f"write {SELF} in the list where they should merge"
        )
    entries.append(Entry("self", SELF, where=Where(loaded.shown)))
    return True


def _has_content(data: Any) -> bool:
    return isinstance(data, dict) and any(v != MANDATORY for v in data.values())


def _register_overrides(
    exp: Expansion, node: Node, entries: list[Entry], interpolated: bool
) -> None:
    """`override` entries come last in a list; each registers its choice unless one is there."""
    last_override: Entry | None = None
    for entry in entries:
        if entry.kind == "self":
            continue
        if last_override is not None and not (entry.override or entry.appended):
            raise SourceError(
                "`override` entries come after every other entry of a defaults list",
                value=f"{entry.target}: {entry.choice}" if entry.kind == "group" else entry.target,
                origin=str(entry.where),
                hint=(
                    f"move `{HYDRA_OVERRIDE} {last_override.target}` "
                    f"(line {last_override.where.line}) to the end"
                ),
            )
        if entry.kind == "group" and entry.override:
            last_override = entry
            child = Node(entry, node.inner, (*node.chain, entry.where))
            if interpolated:
                raise SourceError(
                    "an `override` entry cannot be inside a config chosen by an interpolation",
                    origin=chain_text(child.chain),
                    hint="its choice would come after the interpolation that depends on it",
                )
            exp.forced.setdefault(
                child.key, Forced(entry.choice, entry.where, external=False, container=node.path)
            )


def expand(exp: Expansion, node: Node, root: bool, interpolated: bool) -> list[Leaf]:
    """The leaves of one node's subtree, in merge order."""
    if root and not exp.repo.config_exists(node.path):
        raise _not_found(exp, node)
    if len(node.chain) > MAX_DEPTH:
        raise SourceError(
            f"defaults lists nested deeper than {MAX_DEPTH} levels: does a config include itself?",
            value=node.path,
            origin=chain_text(node.chain[-3:]),
        )
    if any(part in ("", ".", "..") for part in node.path.split("/")):
        raise SourceError(
            "a config path is names joined by `/`, inside the config tree",
            value=node.path,
            origin=None if node.primary else str(node.forced_by or chain_text(node.chain)),
            hint=(
                "`..`, `.` and an empty name would read a config outside its group or tree "
                "(a nested entry may go up to a sibling group with its own package: "
                "`../engine@fsdp: x`)"
            ),
        )
    exp.expanded += 1
    if exp.expanded > MAX_CONFIGS:
        raise SourceError(
            f"a defaults tree of more than {MAX_CONFIGS:,} entries: "
            "do configs include the same configs more than once?",
            value=node.path,
            origin=chain_text(node.chain[-3:]),
        )
    node, loaded = _visit(exp, node)
    if node.package.count(".") >= MAX_DEPTH:  # the tables it makes are walked recursively
        raise SourceError(
            f"a package of more than {MAX_DEPTH} segments",
            value=node.package,
            origin=str(node.forced_by or chain_text(node.chain)),
        )
    if loaded is None:
        return []  # deleted, `null`, a `???` a sweep will fill, or an optional file not there
    entries = list(loaded.entries)
    self_added = False
    if entries or (root and exp.appends):
        self_added = _with_self(node, loaded, entries, exp)
    if root:
        entries.extend(exp.appends)
    _register_overrides(exp, node, entries, interpolated)
    children = _children(exp, node, entries, interpolated)
    if any(isinstance(c, Node) for c in children):
        choices = _choices_map(exp, node, entries, self_added)
        for index, waiting in enumerate(children):
            if isinstance(waiting, Node):
                children[index] = expand(exp, _resolve_entry(waiting, choices), False, True)
    if not children:
        return [node.leaf()]  # no entries (or only `override` ones): the config is a leaf
    return [leaf for part in reversed(children) if isinstance(part, list) for leaf in part]


def _visit(exp: Expansion, node: Node) -> tuple[Node, Loaded | None]:
    """What happens to a node before its own entries: its header, deletion, the choice it
    records, `null`, `???`, its file. None: the node adds nothing to the tree."""
    if not node.entry.is_missing:
        found = exp.repo.load(node.path)
        if found is not None and found.header != node.header:  # else the same node, kept
            node = dataclasses.replace(node, header=found.header)
            _legacy_header(exp, found)
    if node.is_group and node.key in exp.deletions:
        deletion = exp.deletions[node.key]
        if deletion.name is None or deletion.name == node.entry.name:
            exp.deleted.add(node.key)
            return node, None
    if node.is_group:
        _register_choice(exp, node)
    if node.entry.name is None:
        return node, None  # `group: null`
    if node.entry.is_missing:
        if exp.skip_missing:
            return node, None
        raise _missing(exp, node)
    loaded = exp.repo.load(node.path)
    if loaded is None and _plugin_option(node):
        exp.warnings.append(
            f"{node.path} (from {node.forced_by or chain_text(node.chain)}) is no config of "
            "Hydra's or the tree's, an installed plugin's maybe: skipped, as the hydra node is "
            "not part of the result"
        )
    elif loaded is None and not node.entry.optional:
        raise _not_found(exp, node)
    return node, loaded


def _plugin_option(node: Node) -> bool:
    """An option of Hydra's plugin groups where a plugin is installed: maybe the plugin's."""
    return (
        node.is_group and node.group in hydra_node.PLUGIN_GROUPS and hydra_node.plugins_installed()
    )


def _legacy_header(exp: Expansion, loaded: Loaded) -> None:
    """`# @package _group_` meant the group's path up to Hydra 1.1; from 1.2 on it is a key
    named `_group_`, which a tree written for 1.1 never means: said once per file."""
    header = loaded.header
    if header is None or HYDRA_GROUP not in header.split("."):
        return
    text = (
        f"{loaded.shown}: `# @package {header}` puts its keys under a key named {HYDRA_GROUP} "
        "(Hydra 1.2 and later); Hydra 1.1 read it as the group's path: name the package"
    )
    if text not in exp.warnings:
        exp.warnings.append(text)


def _children(
    exp: Expansion, node: Node, entries: list[Entry], interpolated: bool
) -> list[list[Leaf] | Node]:
    """Each entry's leaves, visited last entry first (the order overrides register in); an
    interpolated entry is left as a Node, to be resolved once its siblings have chosen."""
    children: list[list[Leaf] | Node] = []
    for written in reversed(entries):
        if written.kind == "self":
            children.append([node.leaf(is_self=True)])
            continue
        if written.override:
            continue
        child = Node(written, node.inner, (*node.chain, written.where))
        if child.is_group and child.key in exp.forced:
            forced = exp.forced[child.key]
            child = dataclasses.replace(
                child,
                entry=dataclasses.replace(written, choice=forced.choice),
                forced_by=forced.where,
            )
            exp.used.add(child.key)
        entry = child.entry
        if entry.is_multi:
            for item in reversed(entry.choice or ()):
                if INTERPOLATION in item:
                    raise SourceError(
                        "the options of a multi-select list cannot be interpolations",
                        value=item,
                        origin=str(entry.where),
                    )
                one = Entry(
                    "config",
                    f"{entry.target}/{item}",
                    package=entry.package,
                    optional=entry.optional,
                    where=entry.where,
                )
                children.append(
                    expand(
                        exp,
                        Node(one, node.inner, child.chain, forced_by=child.forced_by),
                        False,
                        interpolated,
                    )
                )
        elif entry.is_interpolated:
            children.append(child)
        else:
            children.append(expand(exp, child, False, interpolated))
    return children


def _missing(exp: Expansion, node: Node) -> ComposeError:
    if not node.is_group:
        return SourceError("a config entry cannot be `???`", origin=str(node.entry.where))
    options = exp.repo.options(node.group)
    return SourceError(
        f"{node.key} must be chosen",
        origin=chain_text(node.chain),
        hint=f"add {node.key}=OPTION; the options are {', '.join(options) or '(none)'}",
    )


def _choices_map(
    exp: Expansion, node: Node, entries: list[Entry], self_added: bool
) -> dict[str, Any]:
    """What an interpolated option reads: every choice made so far, and this list's entries."""
    listed: list[Any] = []
    for entry in entries:
        if entry.kind == "self" and self_added:
            continue
        child = Node(entry, node.inner, ())
        if entry.kind == "group":
            listed.append(
                {child.key: list(entry.choice) if isinstance(entry.choice, tuple) else entry.choice}
            )
        else:
            listed.append(child.path)
    return {**exp.known, HYDRA_DEFAULTS: listed}


_VALUE = "\x00choice"  # a key no choice can have: where the option's text is resolved


def _decode(text: Any = None) -> Any:
    """`oc.decode`: a text read by the override grammar (`${oc.decode:${db}}`)."""
    return parse_element(text) if isinstance(text, str) else text


def resolve_choice(text: str, choices: dict[str, Any], node: Node) -> str:
    """An interpolated option (`${db}_${model}`), read from the choices by compose's resolver:
    its key grammar takes `/` and `@` (`${server/db}`, `${db@source}`)."""
    tree = {**choices, _VALUE: text}
    try:
        value = resolve_tree(tree, below=[(_VALUE,)], resolvers={"oc.decode": _decode})[_VALUE]
    except ComposeError as error:
        keys = ", ".join(k for k in choices if k != HYDRA_DEFAULTS) or "(none made yet)"
        raise SourceError(
            f"cannot resolve the option {text}: {error.errors[0].message}",
            origin=chain_text(node.chain),
            hint=f"an option's interpolation reads the choices: {keys}",
        ) from None
    if not isinstance(value, str):
        raise SourceError(
            f"the option {text} is not a name", value=value, origin=chain_text(node.chain)
        )
    return value


def _resolve_entry(node: Node, choices: dict[str, Any]) -> Node:
    entry = node.entry
    if entry.kind == "group":
        text = entry.name or ""
        entry = dataclasses.replace(entry, choice=resolve_choice(text, choices, node))
    else:
        entry = dataclasses.replace(entry, target=resolve_choice(node.path, choices, node))
    return dataclasses.replace(node, entry=entry)


# --- the whole list ------------------------------------------------------------------------


def defaults_list(
    repo: Repository,
    config_name: str | None,
    overrides: list[Override],
    skip_missing: bool,
    primary_where: Where,
) -> DefaultsResult:
    exp = Expansion(repo, skip_missing)
    values = collect_overrides(exp, overrides)
    name = config_name if config_name is not None else EMPTY_PRIMARY
    primary = Node(Entry("config", name, where=primary_where), TOP, (primary_where,), primary=True)
    user = expand(exp, primary, root=True, interpolated=False)
    own = _hydra_own(exp)
    _check_unique(own + user)
    problems = _unused(exp)
    if problems:
        raise gather(problems)
    leaves = tuple(leaf for leaf in user if leaf.config_path != EMPTY_PRIMARY)
    return DefaultsResult(leaves, tuple(own), dict(exp.known), tuple(values), tuple(exp.warnings))


def _hydra_root() -> Node:
    return Node(Entry("config", HYDRA_CONFIG_PATH), TOP, (Where(HYDRA_CONFIG_PATH),))


@dataclasses.dataclass(frozen=True)
class _OwnTree:
    """Hydra's own subtree (`hydra/config` and the option of each of its groups), expanded
    on Hydra's configs alone: its leaves, and what its expansion records."""

    leaves: tuple[Leaf, ...]
    known: tuple[tuple[str, str | None, tuple[Where, ...]], ...]  # (key, option, chain)
    by_group: tuple[tuple[str, frozenset[str]], ...]
    expanded: int
    paths: frozenset[str]  # the configs it reads: each a leaf (hydra/config by its `_self_`)


def _expand_own() -> _OwnTree:
    """Hydra's own subtree expanded by `expand`, on a repository of Hydra's own configs alone:
    a constant of the package, as the configs it is made of are."""
    exp = Expansion(make_repository(None, [], None, ""), skip_missing=False)
    leaves = expand(exp, _hydra_root(), root=False, interpolated=False)
    assert not (exp.warnings or exp.forced or exp.deletions)  # none of its own
    known = tuple((key, option, exp.known_at[key]) for key, option in exp.known.items())
    by_group = tuple((group, frozenset(keys)) for group, keys in exp.known_by_group.items())
    paths = frozenset(leaf.config_path for leaf in leaves)
    return _OwnTree(tuple(leaves), known, by_group, exp.expanded, paths)


# The shortcut's subtree, read at every composition: worked out once, as the module is imported
_OWN = _expand_own() if SHORTCUTS else None


def _hydra_own(exp: Expansion) -> list[Leaf]:
    """The leaves of Hydra's own subtree, expanded after the user's (`hydra/config`).

    Shortcut (a third of a small tree's composition): where no choice made, forced or deleted
    so far names one of Hydra's groups (`hydra/launcher=x`, `override hydra/launcher: x`)
    and each config the subtree reads is Hydra's own (no file of the tree's in its place), it
    expands as on Hydra's configs alone: `_OWN`, recorded into `exp` as `expand` records it."""
    own = _OWN
    if not SHORTCUTS or own is None or _near_the_bounds(exp, own) or _reaches_own(exp, own):
        return expand(exp, _hydra_root(), root=False, interpolated=False)
    for key, option, chain in own.known:
        exp.known.setdefault(key, option)
        exp.known_at.setdefault(key, chain)
    for group, keys in own.by_group:
        exp.known_by_group.setdefault(group, set()).update(keys)
    exp.expanded += own.expanded
    return list(own.leaves)


def _near_the_bounds(exp: Expansion, own: _OwnTree) -> bool:
    """Whether expanding the subtree might pass a bound of `MAX_CONFIGS` (the entries
    expanded, the configs read): its error is the reference's to give."""
    counts = (exp.expanded + own.expanded, exp.repo.read_count() + len(own.paths))
    return max(counts) >= MAX_CONFIGS


def _reaches_own(exp: Expansion, own: _OwnTree) -> bool:
    """Whether anything of the user's reaches Hydra's own subtree: a choice made, forced or
    deleted of one of Hydra's groups, or a config of the user's read in place of Hydra's."""
    keys = (*exp.known, *exp.forced, *exp.deletions)
    if any(_names_own_group(key) for key in keys):
        return True
    return not all(exp.repo.is_hydras(path) for path in own.paths)


def _names_own_group(key: str) -> bool:
    """`hydra/launcher`, `hydra/launcher@pkg`: a choice of one of Hydra's groups."""
    group = key.lstrip("/").partition("@")[0]
    return group == HYDRA_NODE or group.startswith(f"{HYDRA_NODE}/")


def _check_unique(leaves: list[Leaf]) -> None:
    seen: dict[str, Leaf] = {}
    for leaf in leaves:
        if leaf.is_self or leaf.override_key is None:
            continue
        if leaf.override_key in seen:
            first = seen[leaf.override_key]
            raise SourceError(
                f"{leaf.override_key} is in the defaults list twice",
                origin=chain_text(leaf.chain),
                hint=f"first from {chain_text(first.chain)}",
            )
        seen[leaf.override_key] = leaf


def _unused(exp: Expansion) -> list[ComposeError]:
    problems: list[ComposeError] = []
    for key, forced in exp.forced.items():
        if key in exp.used:
            continue
        candidates = sorted(exp.known_by_group.get(key.split("@")[0], set()))
        hint = f"did you mean {' or '.join(candidates)}?" if candidates else None
        if forced.external:
            append = f"+{key}={_choice_text(forced.choice)} appends the entry"
            hint = f"{hint} Or {append}" if hint else append
        where = str(forced.where) if not forced.external else forced.where.source
        kind = ArgvError if forced.external else SourceError
        problems.append(
            kind(f"no entry of the defaults list chooses {key}", origin=where, hint=hint)
        )
    for key, deletion in exp.deletions.items():
        if key not in exp.deleted:
            shown = f"{key}={deletion.name}" if deletion.name is not None else key
            problems.append(
                ArgvError(
                    f"no entry of the defaults list to delete: {shown}",
                    origin=deletion.where.source,
                )
            )
    return problems


def _choice_text(choice: Choice) -> str:
    return f"[{','.join(choice)}]" if isinstance(choice, tuple) else str(choice)
