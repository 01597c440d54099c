"""The knobs every entrypoint passes down, as one value: `Options`.

`compose`, `parse`, `cli`, `from_flat`, `to_argv`, `sweep` and `write_run_record` take the same
keyword arguments (their signatures are the public surface). Each builds one `Options` from
them, checked once, and hands that value to everything below it: a sweep's points, a rerun, the
run record, the help screen. So a knob cannot be dropped on one path (a sweep that forgot
`default=`), and a new knob is one field here, not a parameter in every signature.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from pydantic import BaseModel

from compose._input.search import Dirs, SearchPath, as_search_path
from compose._interp.clock import Instant, checked_instant

Resolvers = Mapping[str, Callable[..., Any]] | None
"""What `resolvers=` takes: name -> function, for this call only."""


class Options(NamedTuple):
    """How to compose, besides the schema and the command line (each field as the public
    keyword of the same name means it: see `compose.parse`). A named tuple: immutable, and made
    in a fraction of a frozen dataclass's time, which every `compose()` call pays."""

    resolvers: Resolvers = None
    search_path: SearchPath = ()
    env_prefix: str | None = None
    environ: Mapping[str, str] | None = None
    """Where the environment layer and $COMPOSE_NOW are read (None: `os.environ`)."""
    default: BaseModel | None = None
    """A node below all others: the fields its author set."""
    now: datetime.datetime | None = None
    """The instant `${now:}` gives (None: $COMPOSE_NOW of `environ`, else the clock)."""
    frozen: bool = False

    def but(self, **changes: Any) -> Options:
        """A copy with some knobs changed (a rerun's recorded instant, a sweep's own)."""
        return self._replace(**changes)


def options(
    *,
    resolvers: Resolvers = None,
    search_path: Dirs = (),
    env_prefix: str | None = None,
    environ: Mapping[str, str] | None = None,
    default: BaseModel | None = None,
    now: Instant | None = None,
    frozen: bool = False,
) -> Options:
    """The public keywords as one checked value: bad input (a resolver that is no function,
    an instant that is none) is a `ComposeError` here, before anything is read."""
    if (
        resolvers is None
        and isinstance(search_path, (tuple, list))
        and not search_path
        and env_prefix is None
        and environ is None
        and default is None
        and now is None
        and not frozen
    ):
        return NO_OPTIONS  # the value the lines below make of these, made once

    if resolvers:
        from compose._interp.resolvers import check_resolvers  # noqa: PLC0415  # loads interpolation

        check_resolvers(resolvers)
    return Options(
        resolvers=resolvers,
        search_path=as_search_path(search_path),
        env_prefix=env_prefix,
        environ=environ,
        default=default,
        now=None if now is None else checked_instant(now),
        frozen=frozen,
    )


NO_OPTIONS = Options()
"""Every knob at its default."""
