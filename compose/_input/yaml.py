"""YAML file nodes, through PyYAML's safe loader: this module is imported only to read YAML.

The loader is `yaml.safe_load`'s, held to TOML's rules:
keys must be text (`on:` and `1:` are refused: YAML reads them as a boolean and an integer), each
written once in its mapping; the tags of Python objects are refused (the safe loader knows none),
and so are `!!set`, `!!omap`, `!!pairs` and `!!binary`, whose values no TOML file can hold. One
thing is changed from YAML 1.1: `1e-4` is a number, as in TOML and JSON (PyYAML reads a float
only with a dot and a signed exponent, so that `lr: 1e-4` would be text).

The tree is copied out of what the loader built, nulls as the text "None" (see `_formats`): an
alias gives the same object in two places, and a later node changing one must not change both.

PyYAML's Python loader is the reference. Where PyYAML has libyaml, its C parser (7x faster,
`benchmarks/results/parsers.md`) reads first, a shortcut: the same constructor and rules over
the same events. It words some syntax errors differently ("not allowed here" for the Python
parser's "not allowed in this context"), so a text it refuses is read again by the Python
loader, whose error is the one shown: the same words with libyaml or without.
"""

from __future__ import annotations

import operator
import re
from typing import Any

import yaml
from yaml.constructor import ConstructorError
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from compose._input.documents import top_table
from compose._shortcuts import SHORTCUTS
from compose._syntax import HYDRA_DEFAULTS, NONE_TEXT
from compose._tree import MAX_DEPTH, KeyPath
from compose.errors import SourceError, integer_too_long, nested_too_deep

MAX_ALIASED = 100_000  # values copied again for aliases, which can nest ("billion laughs")
_YAML_NESTING = "tables or lists"  # what a YAML text nests, in the words TOML's refusal uses
_TAG = "tag:yaml.org,2002:"
_MERGE = f"{_TAG}merge"
_READ_AS = {
    "bool": "a boolean",
    "int": "an integer",
    "float": "a number",
    "null": "null",
    "timestamp": "a date",
}
_PLAIN_DATA = "the safe loader reads tables, lists, text, numbers, booleans, dates and null"


class _BadKey(Exception):
    def __init__(self, message: str, node: Node, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = node.start_mark.line + 1
        self.hint = hint


class _Checks:
    """What compose adds to `yaml.safe_load`'s loader: keys that are not text, or are written
    twice, are refused. Mixed into the Python loader and the C one alike."""

    _checked: set[int]

    def flatten_mapping(self, node: MappingNode) -> None:
        # Every mapping passes here before its `<<` merges are spliced into it (which may
        # repeat its own keys): its keys are checked as written, once.
        if id(node) not in self._checked:
            self._checked.add(id(node))
            _check_keys(node)
        super().flatten_mapping(node)  # type: ignore[misc]


class _Loader(_Checks, yaml.SafeLoader):
    """The reference: PyYAML's Python loader."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._checked = set()


_FastLoader: type[yaml.SafeLoader] | None = None
if hasattr(yaml, "CSafeLoader"):  # PyYAML may have been built without libyaml

    class _CLoader(_Checks, yaml.CSafeLoader):
        """The shortcut: libyaml's parser under the same constructor and checks."""

        # The composer asks the path resolvers of every node before and after it: two calls of
        # PyYAML's Python methods, which return at once where no path resolver is declared (none
        # is: asserted below). Built-ins taking the same arguments and doing nothing stand in.
        descend_resolver = staticmethod(operator.is_)  # type: ignore[assignment]  # (parent, index)
        ascend_resolver = staticmethod(tuple)  # type: ignore[assignment]  # ()

        def __init__(self, text: str) -> None:
            super().__init__(text)
            self._checked = set()

    assert not _CLoader.yaml_path_resolvers

    _FastLoader = _CLoader  # type: ignore[assignment]


def _check_keys(node: MappingNode) -> None:
    seen: dict[str, int] = {}
    for key_node, _ in node.value:
        if key_node.tag == _MERGE:
            continue
        if not isinstance(key_node, ScalarNode) or key_node.tag != f"{_TAG}str":
            raise _not_text(key_node)
        key, line = key_node.value, key_node.start_mark.line + 1
        if key in seen:
            raise _BadKey(f'duplicate key "{key}" (first written at line {seen[key]})', key_node)
        seen[key] = line


def _not_text(node: Node) -> _BadKey:
    if not isinstance(node, ScalarNode):
        kind = "a table" if isinstance(node, MappingNode) else "a list"
        return _BadKey(f"a key must be text, not {kind}", node)
    tag = node.tag.removeprefix(_TAG)
    read_as = _READ_AS.get(tag, f"a {tag}" if node.tag.startswith(_TAG) else f"the tag {tag}")
    return _BadKey(
        f"key {node.value} is read by YAML as {read_as}, not as text: keys must be text",
        node,
        hint=f'quote it: "{node.value}":',
    )


def _refuse(loader: yaml.SafeLoader, node: Node) -> Any:
    return loader.construct_undefined(node)  # the error of a tag the safe loader does not know


def _read_scalar(kind: str) -> Any:
    """The safe constructor of `!!kind`, whose refusal of a text it cannot read (`!!bool maybe`,
    `!!timestamp x`, `!!int 1x`, `!!float _`: a KeyError, AttributeError, IndexError or
    ValueError from deep in PyYAML) becomes a YAML error at the scalar's line and column."""
    construct = yaml.SafeLoader.yaml_constructors[f"{_TAG}{kind}"]

    def read(loader: yaml.SafeLoader, node: Node) -> Any:
        try:
            return construct(loader, node)
        except (LookupError, AttributeError, ValueError) as error:
            raise ConstructorError(
                None, None, _unread(kind, node, error), node.start_mark
            ) from None

    return read


def _unread(kind: str, node: Node, error: Exception) -> str:
    """Why `node` is not read as `!!kind`: past the digits Python converts, a date that is no
    day of the calendar (with datetime's reason), or text that is not one at all."""
    said = str(error)
    if isinstance(error, ValueError) and integer_too_long(error) != said:
        return integer_too_long(error)
    reason = f": {said}" if kind == "timestamp" and isinstance(error, ValueError) else ""
    return f"{node.value!r} is not {_READ_AS[kind]} (!!{kind}){reason}"


for _class in (_Loader, _FastLoader):
    if _class is None:
        continue
    for _name in ("set", "omap", "pairs", "binary"):
        _class.add_constructor(f"{_TAG}{_name}", _refuse)
    for _name in ("bool", "int", "float", "timestamp"):
        _class.add_constructor(f"{_TAG}{_name}", _read_scalar(_name))
    _class.add_implicit_resolver(  # 1e-4, 1.5e3: numbers, as TOML and JSON read them
        f"{_TAG}float",
        re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
        list("-+0123456789"),
    )


def parse(shown: str, text: str) -> dict[str, Any]:
    """The table of a YAML file node: an empty document is an empty table."""
    value, _ = _load(shown, text, _FastLoader, _Loader)
    table = {} if value is None else top_table(shown, value, "a mapping")
    copied: dict[str, Any] = _copied(shown, table, NONE_TEXT)
    return copied


def _copied(shown: str, value: Any, null: Any) -> Any:
    try:
        return _Copy(null)(value, 0)
    except _TooBig as error:
        raise SourceError(str(error), origin=shown) from None


def _load(
    shown: str,
    text: str,
    fast: type[yaml.SafeLoader] | None,
    reference: type[_Loader],
    lines: dict[KeyPath, int] | None = None,
    plain: bool = False,
) -> tuple[Any, bool]:
    """(the document of `text`, whether it is built fresh: no value in two places, nulls None);
    `lines`, when given, is filled as `key_lines` fills it, from the same parse. `plain`: a
    document of plain tables, lists and scalars is built fresh (a shortcut, with libyaml)."""
    if SHORTCUTS and fast is not None:
        read, value, fresh = _read_fast(fast, text, lines, plain)
        if read:
            return value, fresh
    loader = None
    try:
        loader = reference(text)  # its reader looks at every character here, before parsing
        return _document(loader, lines, plain=False)
    except _BadKey as bad:
        raise SourceError(bad.message, origin=f"{shown}:{bad.line}", hint=bad.hint) from None
    except yaml.MarkedYAMLError as error:
        raise _syntax_error(shown, error) from None
    except yaml.reader.ReaderError as error:  # a character YAML does not allow
        raise _character_error(shown, text, error) from None
    except yaml.YAMLError as error:  # none other is raised; this keeps the promise of no trace
        raise SourceError(f"invalid YAML: {error}", origin=shown) from None
    except RecursionError:  # past the loader's stack, a text nests deeper than MAX_DEPTH
        raise SourceError(nested_too_deep(_YAML_NESTING), origin=shown) from None
    except ValueError as error:  # an integer longer than Python converts (4,300 digits)
        raise SourceError(f"invalid YAML: {integer_too_long(error)}", origin=shown) from None
    finally:
        if loader is not None:
            loader.dispose()


def _read_fast(
    loader_class: type[yaml.SafeLoader], text: str, lines: dict[KeyPath, int] | None, plain: bool
) -> tuple[bool, Any, bool]:
    """(True, the document, fresh) where libyaml reads it; (False, None, False) for the Python
    loader to read it again and word the refusal."""
    try:
        loader = loader_class(text)
    except Exception:  # any refusal is the Python loader's to word
        return False, None, False
    try:
        return (True, *_document(loader, lines, plain))
    except Exception:  # as above
        if lines is not None:
            lines.clear()  # the Python loader's reading fills them again
        return False, None, False
    finally:
        loader.dispose()


def _document(
    loader: yaml.SafeLoader, lines: dict[KeyPath, int] | None, plain: bool
) -> tuple[Any, bool]:
    """`loader.get_single_data()`, and whether it was built fresh (`plain`: where `_plain` can);
    where `lines` is given, the lines of a defaults list at the top are recorded on the way
    (before the constructor splices `<<` merges into its mappings)."""
    root = loader.get_single_node()
    if root is None:
        return None, False
    if lines is not None and isinstance(root, MappingNode):
        _record_defaults(root, lines)
    if plain:
        try:
            return _plain(loader, root, 0, set()), True
        except _NotPlain:
            pass  # the constructor builds it, and `_Copy` copies what it shares
    return loader.construct_document(root), False


class _NotPlain(Exception):
    pass


_STR, _NULL, _MAP, _SEQ = (f"{_TAG}{name}" for name in ("str", "null", "map", "seq"))
_INT, _FLOAT, _BOOL = (f"{_TAG}{name}" for name in ("int", "float", "bool"))
_SCALARS = frozenset((_INT, _FLOAT, _BOOL))


def _plain(loader: yaml.SafeLoader, node: Node, depth: int, seen: set[int]) -> Any:
    """What the constructor and then `_Copy(None)` give for `node`, built in one walk, for a
    graph of plain tables, lists and scalars: an alias of a table or list, a `<<` merge, a key
    that is not text or is written twice, another tag, or nesting past `MAX_DEPTH` raise
    `_NotPlain`, left to them (and their errors). The scalars are the constructor's own."""
    kind, tag = type(node), node.tag
    if kind is ScalarNode:
        if tag == _STR:
            return node.value
        if tag == _NULL:
            return None
        # the constructor's answers, without its steps: for plain digits, for a float with no
        # `_`, `:`, `.inf` or `.nan` to read first, for a boolean
        text = node.value
        if tag == _INT and text.isdigit() and text[0] != "0":
            return int(text)
        if tag == _FLOAT and text[-1:].isdigit() and "_" not in text and ":" not in text:
            return float(text)
        if tag == _BOOL:
            return loader.bool_values[text.lower()]
        if tag in _SCALARS:
            return loader.yaml_constructors[tag](loader, node)
        raise _NotPlain
    if id(node) in seen or depth >= MAX_DEPTH:
        raise _NotPlain
    seen.add(id(node))
    if kind is MappingNode and tag == _MAP:
        table: dict[str, Any] = {}
        for key, value in node.value:
            if type(key) is not ScalarNode or key.tag != _STR or key.value in table:
                raise _NotPlain
            if type(value) is ScalarNode and value.tag == _STR:
                table[key.value] = value.value  # text, the commonest value: taken here
            else:
                table[key.value] = _plain(loader, value, depth + 1, seen)
        return table
    if kind is SequenceNode and tag == _SEQ:
        return [_plain(loader, item, depth + 1, seen) for item in node.value]
    raise _NotPlain


def _record_defaults(root: MappingNode, lines: dict[KeyPath, int]) -> None:
    """The lines `key_lines` gives the defaults list and each of its entries: the only lines a
    Hydra config's reading needs (a list a `<<` merge brings is at the line of its `<<`)."""
    for key, value in root.value:
        if key.tag == _MERGE:
            _record_merged(value, (), key.start_mark.line + 1, lines)
        elif type(key) is ScalarNode and key.value == HYDRA_DEFAULTS:
            lines[(HYDRA_DEFAULTS,)] = key.start_mark.line + 1
            # a list written here starts after its key; one that starts before is an alias of
            # a list written earlier, whose entries `key_lines` leaves at their own place
            if type(value) is SequenceNode and value.start_mark.index > key.start_mark.index:
                for index, item in enumerate(value.value):
                    lines[(HYDRA_DEFAULTS, index)] = item.start_mark.line + 1


def _syntax_error(shown: str, error: yaml.MarkedYAMLError) -> SourceError:
    mark = error.problem_mark or error.context_mark
    where = f"{shown}:{mark.line + 1}:{mark.column + 1}" if mark else shown
    problem = ", ".join(part for part in (error.context, error.problem) if part) or "not YAML"
    hint = _PLAIN_DATA if isinstance(error, ConstructorError) and "tag" in problem else None
    return SourceError(f"invalid YAML: {problem}", origin=where, hint=hint)


def _character_error(shown: str, text: str, error: yaml.reader.ReaderError) -> SourceError:
    line = text.count("\n", 0, error.position) + 1
    code = error.character
    character = f"#x{code:04x}" if isinstance(code, int) else repr(code)
    return SourceError(f"invalid YAML: {error.reason} ({character})", origin=f"{shown}:{line}")


class _TooBig(Exception):
    pass


class _Copy:
    """Copies a loaded tree: nulls as `null` ("None" for a file node), shared (aliased) tables
    and lists made separate."""

    def __init__(self, null: Any) -> None:
        self.null = null
        self.left = MAX_ALIASED
        self.open: set[int] = set()  # the tables and lists being copied: a path from the root
        self.seen: set[int] = set()  # those copied once: met again, they came by an alias

    def __call__(self, value: Any, depth: int) -> Any:
        if value is None:
            return self.null
        if not isinstance(value, (dict, list)):
            return value
        if id(value) in self.open:
            raise _TooBig("an alias inside its own anchor: the value would hold itself")
        if depth > MAX_DEPTH:
            raise _TooBig(nested_too_deep(_YAML_NESTING))
        if id(value) in self.seen:
            self.left -= len(value)
            if self.left < 0:
                raise _TooBig(f"aliases expand to more than {MAX_ALIASED:,} values")
        self.seen.add(id(value))
        self.open.add(id(value))
        if isinstance(value, dict):
            copied: Any = {key: self(child, depth + 1) for key, child in value.items()}
        else:
            copied = [self(child, depth + 1) for child in value]
        self.open.discard(id(value))
        return copied


# --- Hydra's flavour ---------------------------------------------------------------------------
# A Hydra config tree is read as OmegaConf reads YAML: nulls stay None (Hydra trees hold real
# nulls), dates stay text (no timestamp type), and a float may be written as `1e-3`, `1_000.5`
# or `.5`. Keys are held to compose's rules as above (text, each written once).

_OMEGACONF_FLOAT = re.compile(
    r"""^(?:[-+]?[0-9]+(?:_[0-9]+)*\.[0-9_]*(?:[eE][-+]?[0-9]+)?
        |[-+]?[0-9]+(?:_[0-9]+)*(?:[eE][-+]?[0-9]+)
        |\.[0-9]+(?:_[0-9]+)*(?:[eE][-+][0-9]+)?
        |[-+]?[0-9]+(?:_[0-9]+)*(?::[0-5]?[0-9])+\.[0-9_]*
        |[-+]?\.(?:inf|Inf|INF)
        |\.(?:nan|NaN|NAN))$""",
    re.X,
)


_Resolvers = tuple[re.Pattern[str] | None, tuple[str, ...]]


def _resolvers_by_first(
    loader: type[yaml.resolver.BaseResolver],
) -> tuple[dict[str, _Resolvers], _Resolvers]:
    """A loader's implicit resolvers as `BaseResolver.resolve` tries them, each list one regex:
    for each first character (`""` for the empty text) its own resolvers, then the wildcard
    ones, as alternatives in that order, each in its own group (the first that matches the
    whole text wins, as in the loop over them), with the tags by group; and the wildcard ones
    alone, for a first character none names. Path resolvers would change the answer: none is
    declared by PyYAML's safe loader or here."""
    assert not loader.yaml_path_resolvers
    table = loader.yaml_implicit_resolvers
    wildcard = list(table.get(None, ()))
    by_first = {
        first: _joined([*found, *wildcard]) for first, found in table.items() if first is not None
    }
    return by_first, _joined(wildcard)


def _joined(resolvers: list[tuple[str, re.Pattern[str]]]) -> _Resolvers:
    if not resolvers:
        return None, ()
    parts, tags = [], [""]  # tags[n]: the tag of the resolver whose outer group is n
    for tag, pattern in resolvers:
        assert not pattern.flags & ~(re.X | re.U)  # flags a scoped group can carry
        scoped = f"(?x:{pattern.pattern})" if pattern.flags & re.X else pattern.pattern
        parts.append(f"({scoped})")
        tags += [tag] * (1 + pattern.groups)  # its groups inside count after its outer one
    return re.compile("|".join(parts)), tuple(tags)


class _HydraLoader(_Loader):
    """The reference loader of Hydra config files."""


_FastHydraLoader: type[yaml.SafeLoader] | None = None
if _FastLoader is not None:

    class _CHydraLoader(_CLoader):
        """libyaml's parser for Hydra config files (the shortcut, as `_CLoader`)."""

        by_first: dict[str, _Resolvers]
        wildcard: _Resolvers

        def resolve(self, kind: type[Node], value: Any, implicit: Any) -> Any:
            # libyaml's composer asks this of every node. A plain scalar is matched against
            # the resolvers of its first character and the wildcard ones joined in one regex
            # (`BaseResolver.resolve` matches each in turn: a number tried four); a scalar no
            # resolver takes, or a quoted one, is text, a table a map, a list a seq: the
            # resolver's own defaults, given no path resolvers (`_resolvers_by_first`).
            if not SHORTCUTS:
                return super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
            if kind is ScalarNode:
                if implicit[0]:
                    pattern, tags = self.by_first.get(value[:1], self.wildcard)
                    found = pattern.match(value) if pattern is not None else None
                    if found is not None:
                        return tags[found.lastindex]  # type: ignore[index]
                return _STR
            return _SEQ if kind is SequenceNode else _MAP

    _FastHydraLoader = _CHydraLoader  # type: ignore[assignment]

for _class in (_HydraLoader, _FastHydraLoader):
    if _class is None:
        continue
    _class.add_implicit_resolver(f"{_TAG}float", _OMEGACONF_FLOAT, list("-+0123456789."))
    _class.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != f"{_TAG}timestamp"]
        for first, resolvers in _class.yaml_implicit_resolvers.items()
    }
if _FastHydraLoader is not None:
    _CHydraLoader.by_first, _CHydraLoader.wildcard = _resolvers_by_first(_CHydraLoader)


def parse_hydra(shown: str, text: str, lines: dict[KeyPath, int] | None = None) -> Any:
    """A Hydra config file's document as OmegaConf reads it: None for an empty one, else a
    table, a list or a scalar (what a Hydra config may hold is `compose._input.hydra`'s rule).
    `lines`, when given, is filled from the same parse with the lines `key_lines(text)` gives
    the `defaults` key and each of its entries (all a defaults list's errors name)."""
    value, fresh = _load(shown, text, _FastHydraLoader, _HydraLoader, lines, plain=True)
    return value if fresh else _copied(shown, value, None)


# --- lines -----------------------------------------------------------------------------------


def key_lines(text: str) -> dict[KeyPath, int]:
    """Map every key path of the YAML document `text` to the 1-based line where it is written.

    Keys map to the line of the key, list elements to the line where the element starts; what
    an alias or a `<<` merge brings maps to the line of the alias or of the `<<` key. A text
    that no longer parses (changed since it was composed) maps nothing.
    """
    try:
        root = yaml.compose(text, Loader=_FastLoader if SHORTCUTS and _FastLoader else _Loader)
    except (yaml.YAMLError, RecursionError, ValueError):
        return {}
    lines: dict[KeyPath, int] = {}
    if root is not None:
        _record(root, (), lines, set())
    return lines


def _record(node: Node, path: KeyPath, lines: dict[KeyPath, int], seen: set[int]) -> None:
    if id(node) in seen or len(path) > MAX_DEPTH:
        return  # an alias: what it brings is at the alias's line, recorded by the caller
    seen.add(id(node))
    if isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            element = (*path, index)
            lines[element] = item.start_mark.line + 1
            _record(item, element, lines, seen)
    elif isinstance(node, MappingNode):
        for key_node, value in node.value:
            if key_node.tag == _MERGE:
                _record_merged(value, path, key_node.start_mark.line + 1, lines)
            elif isinstance(key_node, ScalarNode):
                key_path = (*path, key_node.value)
                lines[key_path] = key_node.start_mark.line + 1
                _record(value, key_path, lines, seen)


def _record_merged(merged: Node, path: KeyPath, line: int, lines: dict[KeyPath, int]) -> None:
    """Keys a `<<` merge brings are at its line, unless the mapping writes them itself."""
    mappings = merged.value if isinstance(merged, SequenceNode) else [merged]
    for mapping in mappings:
        if isinstance(mapping, MappingNode):
            for key_node, _ in mapping.value:
                if isinstance(key_node, ScalarNode):
                    key_path = (*path, key_node.value)
                    lines.setdefault(key_path, line)
