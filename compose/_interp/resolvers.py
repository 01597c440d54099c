"""The resolvers interpolation knows besides the registry: the built-ins (`oc.env`,
`oc.select`) and those registered with omegaconf, called with plain arguments.

The registry itself (`register_resolver`, `unregister_resolver`) is at the end of this module;
`compose._interp.evaluate` reads it.
"""

from __future__ import annotations

import datetime
import functools
import inspect
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

from compose._interp.clock import run_instant
from compose._interp.grammar import RESOLVER_NAME
from compose.errors import ComposeError

__all__ = [
    "BUILTINS",
    "NOW",
    "Resolver",
    "ResolverRefusal",
    "oc_select",
    "omegaconf_names",
    "omegaconf_resolver",
    "pinned_now",
]

Resolver = Callable[..., Any]


class ResolverRefusal(Exception):
    """A resolver's own clear refusal (an unset variable), reported without a traceback name."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


_NO_DEFAULT: Any = object()


def oc_env(key: Any = None, default: Any = _NO_DEFAULT) -> str | None:
    """`${oc.env:VAR}`, `${oc.env:VAR,default}`: a `null` default is None, others are str()."""
    if key is None or key == "":
        raise ResolverRefusal(
            "oc.env needs the name of a variable", "write ${oc.env:NAME} or ${oc.env:NAME,default}"
        )
    value = os.environ.get(str(key))
    if value is not None:
        return value
    if default is _NO_DEFAULT:
        hint = f"set it, or give a default: ${{oc.env:{key},default}}"
        raise ResolverRefusal(f"environment variable {key} is not set", hint)
    return None if default is None else str(default)


def oc_select(*args: Any) -> Any:
    """Placeholder: `oc.select` reads the config, so the resolution evaluates it itself."""
    raise AssertionError("oc.select is evaluated by the resolution itself")


BUILTINS: dict[str, Resolver] = {"oc.env": oc_env, "oc.select": oc_select}
NOW = "now"  # built in too, but its clock is each resolution's own: see `pinned_now`


def pinned_now(
    given: datetime.datetime | None = None, environ: Mapping[str, str] | None = None
) -> Resolver:
    """`${now:FORMAT}` for one resolution: strftime of one instant (ISO 8601 to the second,
    with the UTC offset, without FORMAT), the same at every use whatever its format.

    The instant is `given` (an app's `now=`, or a rerun's recorded one); else `run_instant`'s:
    $COMPOSE_NOW of `environ`, which a launcher sets so that every process of a run (DDP ranks
    composing apart, hydra #2070) agrees, else the clock, read at the first use. Nothing is
    looked up until a `${now:}` is resolved."""
    instant: list[datetime.datetime] = [] if given is None else [given]

    def now(fmt: Any = None, *more: Any) -> str:
        if more:  # `${now:%b %d, %Y}`: the resolver's arguments split at a bare comma
            raise ResolverRefusal("now takes one strftime format: write a comma in it as \\,")
        if fmt is not None and not isinstance(fmt, str):
            raise ResolverRefusal(f"now takes a strftime format, not {type(fmt).__name__}")
        if not instant:
            try:
                instant.append(run_instant(environ))
            except ComposeError as error:
                message = f"{error.key}={error.value!r} {error.message}"
                raise ResolverRefusal(message, error.hint) from None
        return instant[0].isoformat(timespec="seconds") if fmt is None else instant[0].strftime(fmt)

    return now


_OMEGACONF_NODE_PARAMETERS = frozenset({"_parent_", "_root_", "_node_"})


def _omegaconf_registry() -> dict[str, Any]:
    """omegaconf's registered resolvers, if omegaconf is imported already (never imported here:
    it is slow to import and optional)."""
    module = sys.modules.get("omegaconf.basecontainer")
    registry = getattr(getattr(module, "BaseContainer", None), "_resolvers", None)
    return registry if isinstance(registry, dict) else {}


def omegaconf_resolver(name: str) -> Resolver | None:
    """omegaconf's resolver `name` as a plain function (or one that refuses), else None."""
    wrapper = _omegaconf_registry().get(name)
    if wrapper is None:
        return None
    return _unwrap_omegaconf(name, wrapper)


def omegaconf_names() -> set[str]:
    """omegaconf's resolvers worth naming: its own node-based ones would only refuse."""
    return {
        name
        for name, wrapper in _omegaconf_registry().items()
        if not isinstance(_unwrap_omegaconf(name, wrapper), functools.partial)
    }


def _unwrap_omegaconf(name: str, wrapper: Any) -> Resolver:
    """The user's function inside omegaconf's wrapper (its closure variable `resolver`), to be
    called with plain arguments. Functions that want `_parent_`/`_root_`/`_node_` need
    omegaconf's nodes, which plain data does not have: calling them is refused."""
    code = getattr(wrapper, "__code__", None)
    cells = getattr(wrapper, "__closure__", None)
    if code is not None and cells is not None and "resolver" in code.co_freevars:
        fn = cells[code.co_freevars.index("resolver")].cell_contents
        if callable(fn) and not _wants_omegaconf_nodes(fn):
            return fn  # type: ignore[no-any-return]
    return functools.partial(_refuse_omegaconf, name)


def _wants_omegaconf_nodes(fn: Resolver) -> bool:
    try:
        parameters = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return not _OMEGACONF_NODE_PARAMETERS.isdisjoint(parameters)


def _refuse_omegaconf(name: str, *args: Any) -> Any:
    raise ResolverRefusal(
        f"resolver {name} is omegaconf's and needs its config nodes (_parent_, _root_ or _node_)",
        "register a plain function with compose.register_resolver",
    )


REGISTRY: dict[str, Resolver] = {}


def register_resolver(name: str, fn: Resolver) -> None:
    """Make `${name:arg1,arg2}` call `fn(arg1, arg2)`; registering a name again replaces it.

    The registry is the process's: an app can keep its resolvers to its own calls instead, with
    `resolvers=` (a mapping, checked by the same rules) on `compose`, `parse` and `cli`.
    """
    _check(name, fn)
    REGISTRY[name] = fn


def unregister_resolver(name: str) -> bool:
    """Forget the resolver registered as `name`; whether there was one. A built-in it replaced
    (`oc.env`) is found again; built-ins and omegaconf's resolvers cannot be removed here."""
    return REGISTRY.pop(name, None) is not None


def registered_resolvers() -> dict[str, Resolver]:
    """The resolvers `register_resolver` added, by name: a copy (the built-ins, omegaconf's and
    per-call ones are not in it). A test that registers some can put this back afterwards."""
    return dict(REGISTRY)


def check_resolvers(resolvers: Mapping[str, Resolver] | None) -> None:
    """Per-call resolvers obey `register_resolver`'s rules: a mistake in them is the program's,
    raised as one at the call (ValueError, TypeError), not an interpolation error of the input."""
    for name, fn in (resolvers or {}).items():
        _check(name, fn)


def _check(name: str, fn: object) -> None:
    if not isinstance(name, str) or not RESOLVER_NAME.fullmatch(name):
        raise ValueError(f"invalid resolver name {name!r}: use identifiers joined by dots")
    if not callable(fn):
        raise TypeError(f"resolver {name!r} is not callable")
