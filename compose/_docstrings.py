"""Field docstrings (a string literal right under a field), read only when help asks.

Pydantic's `use_attribute_docstrings` reads every class's source at class creation: ~3 ms a
class, most of a cold start for a 50-class schema. `--help` is the only reader, so the source
is parsed here, once per class, the first time help is drawn.
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import textwrap

from pydantic import BaseModel


def field_docstring(model: type[BaseModel], name: str) -> str:
    """The docstring written under `name` in `model` or the base class that declares it."""
    for cls in model.__mro__:
        if isinstance(cls, type) and issubclass(cls, BaseModel):
            found = _class_docstrings(cls).get(name)
            if found:
                return found
    return ""


@functools.cache
def _class_docstrings(cls: type) -> dict[str, str]:
    try:
        source = textwrap.dedent(inspect.getsource(cls))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):  # built in a REPL, or generated: no source
        return {}
    body = next((node.body for node in tree.body if isinstance(node, ast.ClassDef)), [])
    found: dict[str, str] = {}
    for statement, following in itertools.pairwise(body):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            found[statement.target.id] = inspect.cleandoc(following.value.value)
    return found
