"""Field docstrings (a string literal right under a field), read only when help asks.

Pydantic's `use_attribute_docstrings` reads every class's source at class creation: ~3 ms a
class, most of a cold start for a 50-class schema. `--help` is the only reader, so sources are
read here, the first time help is drawn: each module once, for all of its classes.

`inspect.getsource(cls)` re-parses the whole module with `ast` for every class (49 parses, 1.2 s
for a 500-field schema). Instead one `ast.parse` of a module finds every class, by qualified
name as `__qualname__` spells it, and the docstrings under its fields; what it finds is kept
on disk beside the bytecode (`compose._schema.docindex`), so the next process reads that
instead. (A regex scan of logical lines once stood in for the parse: it saved 2% of the one
`--help` that has no index to read, and none of the others. `benchmarks/shortcuts.py`.)
"""

from __future__ import annotations

import ast
import inspect
import itertools
import linecache
import sys
import weakref
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from compose._schema import docindex as _docindex
from compose._schema.memo import memoize


class ClassDocs:
    """A class statement of a module: its first line (decorators included) and field docs.

    A plain class: this module is imported with every schema, and a named tuple costs more to
    define than the whole of the rest of the module."""

    def __init__(self, line: int, docstrings: dict[str, str]) -> None:
        self.line = line
        self.docstrings = docstrings

    def __eq__(self, other: object) -> bool:  # the index and a parse are checked to agree
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
_PARSED: dict[str, tuple[list[str], Classes]] = {}
_INDEXED: dict[str, tuple[_docindex.Key, Classes]] = {}


def module_classes(file: str, module: Any = None) -> Classes:
    """The classes of a source file: from its index on disk (`compose._schema.docindex`) when the
    index is up to date, else parsed, and the index written for the next process."""
    key = _docindex.key_of(file, __file__)
    if key is None:  # not a file on disk (a zip, say), or the reference path: no index
        return _read_and_parse(file, module)
    known = _INDEXED.get(file)
    if known is not None and known[0] == key:
        return known[1]
    stored = _docindex.read(key)
    if stored is not None:
        found = {name: [ClassDocs(*c) for c in statements] for name, statements in stored.items()}
    else:
        found = _read_and_parse(file, module)
        plain = {name: [(c.line, c.docstrings) for c in s] for name, s in found.items()}
        _docindex.write(key, plain)
    _INDEXED[file] = (key, found)
    return found


def _read_and_parse(file: str, module: Any) -> Classes:
    """Read through `linecache` as `inspect` does (so a module loaded from a zip reads too), and
    parsed again only if `linecache` read the file again."""
    linecache.checkcache(file)
    lines = linecache.getlines(file, getattr(module, "__dict__", None))
    cached = _PARSED.get(file)
    if cached is not None and cached[0] is lines:
        return cached[1]
    source = "".join(lines)
    found = parse(source)
    _PARSED[file] = (lines, found)
    return found


def one_line(text: str) -> str:
    """A description as help shows it: its words on one line. Docstrings are stored so (in the
    index too), so help does not split every docstring again in every process."""
    return " ".join(text.split())


# --- one ast parse ---------------------------------------------------------------------------

_BLOCKS = ("body", "handlers", "orelse", "finalbody", "cases")  # statement lists, source order


def parse(source: str) -> Classes:
    """Every class of `source` with its field docstrings, read with `ast`."""
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
