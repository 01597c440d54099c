"""The package's layers: each stage imports only the stages before it, and nothing imports back.

The file tree is the pipeline: `_schema` (what the schema says) -> `_input` (what the user
gave) -> `_merge` (folded into one tree) -> `_bind` (validated) -> `_output` (written and
shown) -> `_api` -> `_runs` (sweeps, run records, executors) -> `_cli` (the shell).
`_interp` stands apart: it resolves plain trees and knows nothing of schemas, files or
origins. Every import counts, including those inside a
function (kept there for the cost of starting) and those only for type checking: a cycle that
only laziness hides is still a cycle a reader must untangle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import compose
from compose import _syntax

PACKAGE = Path(compose.__file__).parent
FOUNDATION = (
    "compose.errors",
    "compose._syntax",
    "compose._tree",
    "compose._version",
    "compose._shortcuts",
    "compose._toml",
    "compose._warn",
    "compose._atomic",
    "compose._jsonfile",
)
# Lowest first: a module may import its own layer's modules and those of the layers before it.
LAYERS = (
    FOUNDATION,
    ("compose._schema",),
    ("compose._input",),
    ("compose._merge",),
    ("compose._bind",),
    ("compose._output",),
    ("compose._api",),
    ("compose._runs",),
    ("compose._cli",),
    ("compose", "compose.__main__"),
)
APART = {"compose._interp": FOUNDATION}  # may import only these (and itself)
RICH_ALLOWED = {"compose._output.render"}


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _imports(name: str) -> Iterator[tuple[int, str]]:
    """(line, module) for every import of the module, wherever it is written (compose writes
    absolute imports only: a relative one is reported as such)."""
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            submodules = [f"{base}.{alias.name}" for alias in node.names]
            found = [module for module in submodules if module in MODULES]
            yield from ((node.lineno, module) for module in found)
            if len(found) < len(submodules):
                yield node.lineno, base


def _edges() -> dict[str, set[str]]:
    return {
        name: {module for _, module in _imports(name) if module in MODULES and module != name}
        for name in MODULES
    }


def _layer(name: str) -> int:
    for number, members in enumerate(LAYERS):
        if any(name == member or name.startswith(member + ".") for member in members):
            return number
    raise AssertionError(f"{name} is in no layer: add its package to LAYERS")


def _owner(name: str) -> str:
    """The package a module belongs to (`compose._merge.fold` -> `compose._merge`)."""
    parts = name.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 else name


def test_every_module_has_a_layer_and_imports_absolutely() -> None:
    for name in MODULES:
        if _owner(name) not in APART:
            _layer(name)
        assert [m for _, m in _imports(name) if m.startswith(".")] == [], name


def test_no_module_imports_a_later_stage() -> None:
    wrong = []
    for name, targets in _edges().items():
        if _owner(name) in APART:
            continue
        for target in targets:
            if _owner(target) in APART:
                continue
            if _layer(target) > _layer(name):
                wrong.append(f"{name} imports {target}")
    assert wrong == []


def test_interpolation_knows_nothing_of_the_engine() -> None:
    for name, targets in _edges().items():
        owner = _owner(name)
        if owner in APART:
            allowed = APART[owner]
            assert {t for t in targets if _owner(t) != owner and t not in allowed} == set(), name


def test_there_is_no_import_cycle() -> None:
    """Tarjan's strongly connected components over every import edge: each is one module."""
    edges = _edges()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        for target in edges[name]:
            if target not in index:
                visit(target)
                low[name] = min(low[name], low[target])
            elif target in stack:
                low[name] = min(low[name], index[target])
        if low[name] == index[name]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == name:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for name in MODULES:
        if name not in index:
            visit(name)
    assert cycles == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_only_the_rendering_module_imports_rich(name: str) -> None:
    if name in RICH_ALLOWED:
        return
    assert [line for line, module in _imports(name) if module.split(".")[0] == "rich"] == []


def test_the_checks_see_the_layers() -> None:
    """The rules above would pass on an empty package: they see every stage, and real edges."""
    owners = {_owner(name) for name in MODULES}
    assert {member for layer in LAYERS for member in layer} | set(APART) <= owners
    assert "compose._merge.fold" in _edges()["compose._api"]
    assert any(
        module == "rich" or module.startswith("rich.")
        for _, module in _imports("compose._output.render")
    )


# --- one home per spelling ----------------------------------------------------------------------

# What `compose._syntax` defines, that no other module may write as a literal of its own
RESERVED = frozenset(
    {
        _syntax.NONE_TEXT,
        _syntax.MANDATORY,
        _syntax.INTERPOLATION,
        _syntax.SECRET_MASK,
        _syntax.INCLUDE,
        _syntax.SELF,
        _syntax.HYDRA_GLOBAL,
        _syntax.HYDRA_HERE,
        _syntax.HYDRA_GROUP,
        *_syntax.NEGATIONS,
    }
)
# The same characters where they mean something else, with what
OTHER_MEANINGS = {
    ("compose._interp.data", "None"): "the kind of a value in messages: `${x} is None`",
    ("compose._schema.shape", "None"): "the label of a type in help: `int|None`",
}
# Kebab-case <-> snake_case: `_syntax.snake_case` and `_syntax.kebab_case`
CASE_CHANGES = {("-", "_"), ("_", "-")}


def _literals(name: str) -> Iterator[tuple[int, str]]:
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def _case_changes(name: str) -> Iterator[int]:
    for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "replace"
            and len(node.args) == 2
            and all(isinstance(arg, ast.Constant) for arg in node.args)
        ):
            pair = tuple(arg.value for arg in node.args)  # type: ignore[attr-defined]
            if pair in CASE_CHANGES:
                yield node.lineno


@pytest.mark.parametrize("name", sorted(set(MODULES) - {"compose._syntax"}))
def test_reserved_spellings_are_written_only_in_syntax(name: str) -> None:
    """`"None"`, `???`, `${`, `_include_`, `--no-`...: a module names `_syntax`'s constant, so
    that a spelling changes in one place."""
    written = [
        (line, text)
        for line, text in _literals(name)
        if text in RESERVED and (name, text) not in OTHER_MEANINGS
    ]
    assert written == []


@pytest.mark.parametrize("name", sorted(set(MODULES) - {"compose._syntax"}))
def test_keys_change_case_only_through_syntax(name: str) -> None:
    assert list(_case_changes(name)) == []


def test_the_spelling_checks_see_what_they_look_for() -> None:
    """They would pass on a parser that saw nothing: `_syntax` itself writes both."""
    assert {text for _, text in _literals("compose._syntax")} >= RESERVED
    assert len(list(_case_changes("compose._syntax"))) == 2
    for module, text in OTHER_MEANINGS:
        assert text in {found for _, found in _literals(module)}, module
