"""Field docstrings (a string literal right under a field), read only when help asks.

Pydantic's `use_attribute_docstrings` reads every class's source at class creation: ~3 ms a
class, most of a cold start for a 50-class schema. `--help` is the only reader, so sources are
read here, the first time help is drawn: each module once, for all of its classes.

`inspect.getsource(cls)` re-parses the whole module with `ast` for every class (49 parses, 1.2 s
for a 500-field schema). Instead one pass over a module's text finds every class, by qualified
name as `__qualname__` spells it, and the docstrings under its fields. The pass is a regex scan
of logical lines, about half the cost of `ast.parse` alone (which builds a node for every name
of every annotation); source it cannot be sure of (`;`, form feeds, an f-string that Python
3.12 lets hold its own quotes) goes to `ast` instead.

Nothing is compiled at import (the module is imported on every run, help or not): patterns
are compiled on the first scan, and the scan's state lives in plain slotted classes.
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import keyword
import linecache
import re
import sys
import weakref
from collections.abc import Iterator, Sequence
from typing import Any

from pydantic import BaseModel

from compose._schema import docindex as _docindex
from compose._schema.memo import memoize
from compose._shortcuts import SHORTCUTS


class ClassDocs:
    """A class statement of a module: its first line (decorators included) and field docs.

    A plain class: this module is imported with every schema, and a named tuple costs more to
    define than the whole of the rest of the module."""

    def __init__(self, line: int, docstrings: dict[str, str]) -> None:
        self.line = line
        self.docstrings = docstrings

    def __eq__(self, other: object) -> bool:  # the scan and `ast` are checked to agree
        if not isinstance(other, ClassDocs):
            return NotImplemented
        return (self.line, self.docstrings) == (other.line, other.docstrings)

    __hash__ = None  # type: ignore[assignment]  # mutable, like its dict

    def __repr__(self) -> str:
        return f"ClassDocs({self.line}, {self.docstrings!r})"


Classes = dict[str, list[ClassDocs]]  # qualified name -> its class statements, in source order


def field_docstring(model: type[BaseModel], name: str) -> str:
    """The docstring written under `name` in `model` or the base class that declares it, its
    words on one line."""
    return _model_docstrings(model).get(name, "")


@memoize
def _model_docstrings(model: type[BaseModel]) -> dict[str, str]:
    """Every field docstring of `model` (a subclass's over its bases'), gathered once a model:
    help asks for each field, and walking the bases for each was ~7k instructions a field."""
    found: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        # BaseModel declares no fields, and its module is the largest one to read. `in __mro__`,
        # not issubclass: that runs ABCMeta's hook, for each class of each model.
        if cls is not BaseModel and BaseModel in cls.__mro__:
            found.update((name, doc) for name, doc in _class_docstrings(cls).items() if doc)
    return found


@memoize
def _class_docstrings(cls: type) -> dict[str, str]:
    module = sys.modules.get(cls.__module__)
    statements = _module_classes(module).get(cls.__qualname__, []) if module is not None else []
    # Python 3.13 records where a class starts, telling apart classes of the same name (say, in
    # both branches of an `if`); before that, `inspect` takes the first, and so do we.
    first_line = cls.__dict__.get("__firstlineno__")
    chosen = [c for c in statements if c.line == first_line] or statements
    return chosen[0].docstrings if chosen else {}


def _module_classes(module: Any) -> Classes:
    """The classes of a module's source, read once a module, not once a class: finding the
    file costs 26k instructions and checking it a `stat`, and a schema's forty classes share
    five modules. Kept by the module object, weakly (a file name is no key: `python a.py` in
    two directories runs two `__main__`s from `a.py`)."""
    try:
        return _READ[module]
    except KeyError:
        pass
    except TypeError:  # no weak reference to it: `sys.modules` may hold any object
        return _read_module(module)
    found = _READ[module] = _read_module(module)
    return found


def _read_module(module: Any) -> Classes:
    try:
        file = inspect.getsourcefile(module)
    except TypeError:  # built in, or no file (a REPL, `python -c`)
        return {}
    return {} if file is None else module_classes(file, module)


# Module -> its classes: plain data, which holds no module, so an unused module is freed.
_READ: weakref.WeakKeyDictionary[Any, Classes] = weakref.WeakKeyDictionary()
_SCANNED: dict[str, tuple[list[str], Classes]] = {}
_INDEXED: dict[str, tuple[_docindex.Key, Classes]] = {}


def module_classes(file: str, module: Any = None) -> Classes:
    """The classes of a source file: from its index on disk (`compose._schema.docindex`) when the
    index is up to date, else scanned, and the index written for the next process."""
    key = _docindex.key_of(file, __file__)
    if key is None:  # not a file on disk: a zip, say
        return _read_and_scan(file, module)
    known = _INDEXED.get(file)
    if known is not None and known[0] == key:
        return known[1]
    stored = _docindex.read(key)
    if stored is not None:
        found = {name: [ClassDocs(*c) for c in statements] for name, statements in stored.items()}
    else:
        found = _read_and_scan(file, module)
        plain = {name: [(c.line, c.docstrings) for c in s] for name, s in found.items()}
        _docindex.write(key, plain)
    _INDEXED[file] = (key, found)
    return found


def _read_and_scan(file: str, module: Any) -> Classes:
    """Read through `linecache` as `inspect` does (so a module loaded from a zip reads too), and
    scanned again only if `linecache` read the file again."""
    linecache.checkcache(file)
    lines = linecache.getlines(file, getattr(module, "__dict__", None))
    cached = _SCANNED.get(file)
    if cached is not None and cached[0] is lines:
        return cached[1]
    source = "".join(lines)
    found = _scanned(source) if SHORTCUTS else parse(source)
    _SCANNED[file] = (lines, found)
    return found


# --- the scan: logical lines by regex ----------------------------------------------------------


class _Unusual(Exception):
    """Source the line scan could misread: `parse` reads it instead."""


# A string literal, its body in runs ("unrolled") so the regex engine loops in C per run, not
# per character: the scan reads docstrings, most of a schema module's text.
_STRING = r"""(?:'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''
    |\"\"\"[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*\"\"\"
    |'[^'\\\n]*(?:\\.[^'\\\n]*)*'
    |"[^"\\\n]*(?:\\.[^"\\\n]*)*")"""
# The end of a line: a comment, blank lines after it, and the next line's indentation.
_LINE_END = r"[ \t]*(?:\#[^\n]*)?\n(?:[ \t]*(?:\#[^\n]*)?\n)*[ \t]*"
_PLAIN = r"""[^'"\#()\[\]{}\\\n;\f\r]*"""  # code: no string, comment, bracket, line end
_FLAT = rf"[(\[{{]{_PLAIN}[)\]}}]"  # `list[int]`, `Inner()`: brackets that close on the line

# Each match is a run of plain code (with brackets that close in it), then the token that ends
# it: a string literal (so brackets, quotes and `#` inside it are skipped; one that ends a line
# ends it here too), a line end, a bracket, a backslash continuation. Consuming the plain run
# inside the pattern keeps the scan in C: trying the alternation at every character was slower
# than `ast.parse`. A quote left over is a string the pattern could not read; `;`, form feeds
# and lone CRs change what a line holds: all of them send the module to `parse`.
_TOKENS = rf"""{_PLAIN}(?:{_FLAT}{_PLAIN})*
    (?:(?P<string>{_STRING})(?P<ends>{_LINE_END})?
    |(?P<newline>{_LINE_END})
    |(?P<open>[(\[{{])
    |(?P<close>[)\]}}])
    |(?P<continued>\\\n)
    |(?P<unusual>['"\\;\f\r]))"""

# What a statement is, read from its start: the one match each statement costs.
_STATEMENT = r"""(?P<field>\w+)\s*:
    |class\s+(?P<cls>\w+)
    |(?:async\s+)?def\s+(?P<function>\w+)
    |(?P<decorator>@)
    |(?P<literals>[rRbBuUfF]{0,2}['"]|\()"""
_PREFIXES = "rRbBuUfF"  # letters before a quote: `rb"..."`, `f"..."`
Span = tuple[int, int]  # where a string literal starts and ends, quote to quote


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.VERBOSE | re.DOTALL)


class _Block:
    """An open `class` or `def` block of the scan."""

    __slots__ = ("body", "docs", "field", "indent", "prefix")

    def __init__(self, indent: int, prefix: str, docs: ClassDocs | None) -> None:
        self.indent = indent
        self.prefix = prefix  # what qualified names inside start with: `Outer.` or `f.<locals>.`
        self.docs = docs  # None for a function
        self.body: int | None = None  # the indentation of its statements, once one is seen
        self.field: str | None = None  # the field annotated by the statement just before


class _Scan:
    """The state of one module's scan: the classes found, the blocks open at this line."""

    __slots__ = ("blocks", "decorated", "found", "line", "lined", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self.found: Classes = {}
        self.blocks: list[_Block] = []
        self.decorated = -1  # where the decorators above the coming class or def start
        self.line, self.lined = 1, 0  # the line number at offset `lined`, counted on demand

    def line_at(self, offset: int) -> int:
        self.line += self.source.count("\n", self.lined, offset)
        self.lined = offset
        return self.line


def _scanned(source: str) -> Classes:
    """`scan`, else (for source it cannot be sure of) `parse`."""
    try:
        return scan(source)
    except _Unusual:
        return parse(source)


def scan(source: str) -> Classes:
    """Every class of `source` with its field docstrings; raises `_Unusual` to defer to ast."""
    state = _Scan(source + "\n")  # so the last line ends like the others
    statement = _compiled(_STATEMENT).match
    for at, end, alone in _logical_lines(state.source):
        if at < end and state.source[at] not in " \t#":  # else the top of the file is blank
            _statement(state, _Line(at, end, statement(state.source, at, end), alone))
    return state.found


class _Line:
    """One statement."""

    __slots__ = ("alone", "at", "end", "kind")

    def __init__(self, at: int, end: int, kind: re.Match[str] | None, alone: Span | None) -> None:
        self.at = at  # where the statement's code starts
        self.end = end  # and ends, before spaces, a comment, the line end
        self.kind = kind  # what `_STATEMENT` saw at its start
        self.alone = alone  # the string literal that is all of the statement but a prefix


def _logical_lines(source: str) -> Iterator[tuple[int, int, Span | None]]:
    """(start, end, alone) of each statement, physical lines joined inside brackets and after a
    backslash: see `_Line`."""
    start = depth = 0
    for token in _compiled(_TOKENS).finditer(source):
        kind = token.lastgroup
        if kind in ("string", "ends"):
            _check_fstring(source, *token.span("string"))
        if kind in ("newline", "ends"):
            if depth == 0:
                alone = token.span("string") if kind == "ends" and token.start() == start else None
                yield start, token.start(kind), alone
                start = token.end()
        elif kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
            if depth < 0:
                raise _Unusual
        elif kind == "unusual":
            raise _Unusual
    if depth:
        raise _Unusual


def _check_fstring(source: str, begin: int, stop: int) -> None:
    """Python 3.12 lets an f-string's fields hold its own quotes, where the pattern ends the
    string: its braces then do not pair up."""
    if source.find("{", begin, stop) < 0 or "f" not in _prefix(source, begin):
        return
    bare = source[begin:stop].replace("{{", "").replace("}}", "")
    if bare.count("{") != bare.count("}"):
        raise _Unusual


def _prefix(source: str, quote: int) -> str:
    """The prefix of the string literal starting at `quote`, lowercase: `rb`, `f`, or ``."""
    begin = quote
    while begin > max(quote - 2, 0) and source[begin - 1] in _PREFIXES:
        begin -= 1
    if begin > 0 and (source[begin - 1].isalnum() or source[begin - 1] == "_"):
        return ""  # the end of a name: `or"x"`
    return source[begin:quote].lower()


def _statement(state: _Scan, line: _Line) -> None:
    at, kind = line.at, line.kind
    indent = _indent(state.source, at)
    blocks = state.blocks
    while blocks and indent <= blocks[-1].indent:
        blocks.pop()
    inside = blocks[-1] if blocks else None
    if inside is not None and inside.body is None:
        inside.body = indent
    if inside is not None and inside.docs is not None and inside.body == indent:
        _class_statement(state.source, inside, inside.docs, line)
    what = kind.lastgroup if kind is not None else None
    if what == "decorator":
        state.decorated = at if state.decorated < 0 else state.decorated
        return
    decorated, state.decorated = state.decorated, -1
    if kind is not None and what in ("cls", "function"):
        _open_block(state, inside, kind, decorated if decorated >= 0 else at, indent)


def _indent(source: str, at: int) -> int:
    """The width of the indentation before `at`, as Python counts a tab."""
    start = source.rfind("\n", 0, at) + 1
    if source.find("\t", start, at) < 0:
        return at - start
    return len(source[start:at].expandtabs(8))


def _class_statement(source: str, block: _Block, docs: ClassDocs, line: _Line) -> None:
    """A statement right in a class body: a docstring for the field just before it, or (for
    the next statement) a field."""
    what = line.kind.lastgroup if line.kind is not None else None
    if block.field is not None and what == "literals":
        text = _docstring(source, line)
        if text is not None:
            docs.docstrings[block.field] = one_line(text)
    name = line.kind["field"] if line.kind is not None and what == "field" else None
    block.field = name if name is not None and not keyword.iskeyword(name) else None


def _docstring(source: str, line: _Line) -> str | None:
    """The value of a statement that starts like a string: None unless it is only strings."""
    if line.alone is not None:
        begin, stop = line.alone
        prefix = source[line.at : begin]
        if len(prefix) <= 2 and not prefix.strip(_PREFIXES):
            return _literal(source[begin:stop], prefix.lower())
    return _evaluated(source[line.at : line.end])  # parenthesized, or literals side by side


def _open_block(
    state: _Scan, inside: _Block | None, header: re.Match[str], first: int, indent: int
) -> None:
    kind = header.lastgroup or ""
    qualname = (inside.prefix if inside is not None else "") + header[kind]
    if kind == "function":  # names inside are local to it
        state.blocks.append(_Block(indent, qualname + ".<locals>.", None))
        return
    docs = ClassDocs(state.line_at(first), {})
    state.found.setdefault(qualname, []).append(docs)
    state.blocks.append(_Block(indent, qualname + ".", docs))


def one_line(text: str) -> str:
    """A description as help shows it: its words on one line. Docstrings are stored so (in the
    index too), so help does not split every docstring again in every process."""
    return " ".join(text.split())


def _literal(text: str, prefix: str) -> str | None:
    """The value of one string literal (`text` from quote to quote)."""
    if "b" in prefix or "f" in prefix:
        return None  # bytes, or an f-string: not a docstring
    quotes = 3 if text[:3] in ('"""', "'''") else 1
    body = text[quotes:-quotes]
    if "r" in prefix or "\\" not in body:
        return body
    return _evaluated(text)  # escapes: Python decodes them


def _evaluated(text: str) -> str | None:
    """A statement read by Python: its value if it is only a string, else None. Rare, so the
    cost of a parse does not matter."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, str) else None


# --- the fallback: one ast parse ---------------------------------------------------------------

_BLOCKS = ("body", "handlers", "orelse", "finalbody", "cases")  # statement lists, source order


def parse(source: str) -> Classes:
    """What `scan` finds, read with `ast`: slower, for any valid source."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # the file changed since import, or is not Python
        return {}
    found: Classes = {}
    _walk(tree.body, "", found)
    return found


def _walk(statements: Sequence[ast.AST], prefix: str, found: Classes) -> None:
    for node in statements:
        if isinstance(node, ast.ClassDef):
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            found.setdefault(prefix + node.name, []).append(
                ClassDocs(first, _body_docstrings(node.body))
            )
            _walk(node.body, f"{prefix}{node.name}.", found)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _walk(node.body, f"{prefix}{node.name}.<locals>.", found)
        else:  # if, for, try, with, match...: classes inside keep the enclosing prefix
            for block in _BLOCKS:
                _walk(getattr(node, block, []), prefix, found)


def _body_docstrings(body: list[ast.stmt]) -> dict[str, str]:
    found: dict[str, str] = {}
    for statement, following in itertools.pairwise(body):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            found[statement.target.id] = one_line(following.value.value)
    return found
