"""OmegaConf-style interpolation over plain Python data (dicts, lists, scalars)::

    ${a.b}  ${a.0.b}  ${a[0].b}     absolute references (list indices as keys)
    ${.x}  ${..x}                   relative: `.` is the container holding the value,
                                    each further dot climbs one container (lists included)
    ${a.${k}}                       nested interpolations, also inside keys
    ${name:arg1,arg2}  ${name:}     resolvers: registered here, per call, built in
                                    (`oc.env`, `oc.select`) or registered with omegaconf
    \\${x}                           a literal `${x}`; `\\\\${x}` is a backslash, then `${x}`
    ???  \\???                       a mandatory value; a literal `???`

The grammar is OmegaConf's; `compose._interp.grammar` parses it into a syntax tree and states
it in full. The semantics follow OmegaConf except where
docs/interpolation-differences.md says otherwise.

The evaluation is `compose._interp.evaluate`; the resolvers and their registry,
`compose._interp.resolvers`.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Collection, Mapping
from typing import Any

from compose._interp.data import (
    MANDATORY,
    escape,
    needs_resolution,
    rebuild,
    scan,
    scan_below,
)
from compose._interp.evaluate import MAX_EXPANSION, Resolution
from compose._interp.resolvers import (
    Resolver,
    register_resolver,
)
from compose._syntax import dotted
from compose._tree import KeyPath

__all__ = [
    "MANDATORY",
    "MAX_EXPANSION",
    "Resolver",
    "escape",
    "needs_resolution",
    "register_resolver",
    "resolve_tree",
]


def _describe_default(path: KeyPath) -> tuple[str, str | None]:
    return dotted(path), None


def resolve_tree(
    tree: dict[str, Any],
    *,
    resolvers: Mapping[str, Resolver] | None = None,
    default_at: Callable[[KeyPath], Any] | None = None,
    describe: Callable[[KeyPath], tuple[str, str | None]] = _describe_default,
    suggest: Callable[[str], str | None] | None = None,
    convert: Callable[[Any], Any] | None = None,
    below: Collection[KeyPath] | None = None,
    now: datetime.datetime | None = None,
    environ: Mapping[str, str] | None = None,
    hidden: Callable[[KeyPath], bool] | None = None,
    copies_secret: Callable[[KeyPath, KeyPath], str | None] | None = None,
) -> dict[str, Any]:
    """`tree` with every interpolation resolved, escapes unescaped, and `???` checked.

    `resolvers` come before the global registry, the built-ins and omegaconf's. `default_at(path)`
    gives the value at an absolute path that the tree does not hold (a class default) or raises
    KeyError; segments past the end of the tree are passed as written, as strings. `describe(path)`
    gives the key as shown to users and its origin, for errors. `suggest(key)` is asked for a
    close valid key when a reference finds nothing and no key of the tree is close: it gets the
    missing key dotted as the error shows it (absolute: `${.nme}` in `model` is `model.nme`) and
    returns a key for "did you mean ...?", or None. `convert(value)` is applied to each value
    that resolution puts into the tree: the schema-less `compose` turns "None" text into None
    with it, instead of walking the whole tree for text that only resolution can have made.
    `below` limits the values that may need resolving to those at and below its paths (the
    keys that nodes holding `${` or `???` set); None looks at every value. `${now:}` is `now`,
    else $COMPOSE_NOW of `environ` (default `os.environ`), else the clock at its first use.
    `hidden(path)`: whether the value at `path` is a secret's, whose text an error never shows.
    `copies_secret(site, target)`: the key of a secret that a reference at `site` to `target`
    would copy where no secret is taken, which is an error (None: it copies none).

    Containers on the way to a changed value are new; the rest is shared with `tree`, which is
    returned itself when nothing needs resolving. Every error is raised at once (`gather`).
    """
    pending = scan(tree) if below is None else scan_below(tree, below)
    if not pending:
        return tree
    run = Resolution(
        tree, resolvers or {}, default_at, describe, suggest, now, environ, hidden, copies_secret
    )
    values = run.settle_all(pending)
    if convert is not None:
        values = [convert(value) for value in values]
    return rebuild(tree, pending, values)
