"""The instant `${now:FORMAT}` gives: chosen once per composition, or once per run.

A run may be composed by many processes (DDP ranks, a rerun from its record, the points of a
sweep), and they must agree on the time its run directory or tag was named by (hydra #2070).
So the instant is an input, like the files: an app's `now=`, a record's, or $COMPOSE_NOW set by
whoever launches the processes; the clock only when none is given. Kept apart from the
resolvers so that an entrypoint can choose the instant without loading interpolation.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Mapping

from compose.errors import ComposeError

__all__ = [
    "NOW_VARIABLE",
    "STRFTIME_WIDEST",
    "Instant",
    "checked_instant",
    "parse_instant",
    "run_instant",
]

NOW_VARIABLE = "COMPOSE_NOW"
Instant = datetime.datetime | str
"""What `now=` takes: a datetime (naive means local time) or its ISO 8601 text."""

_EXAMPLE = "2026-12-04T21:00:00+00:00"  # as `date -Iseconds` prints one

# The most characters strftime gives for one character of its format: a directive pads to any
# width (`%300Y`), and CPython's strftime gives up (an empty text) past 256 times the format's
# length. What a `${now:FORMAT}` may build is known from FORMAT's length before it is formatted.
STRFTIME_WIDEST = 256


def run_instant(environ: Mapping[str, str] | None = None) -> datetime.datetime:
    """The instant of a new run, for an app that both composes it and writes its record: pass
    it as `now=` to `cli` and to `write_run_record`. $COMPOSE_NOW of `environ` (default
    `os.environ`) if set, else the clock now (local time, with its UTC offset). `--from-run DIR`
    composes at DIR's recorded instant whatever this says."""
    text = (os.environ if environ is None else environ).get(NOW_VARIABLE)
    if text is None:
        return datetime.datetime.now().astimezone()
    instant = parse_instant(text)
    if instant is None:
        raise ComposeError(
            "is no ISO 8601 instant",
            key=NOW_VARIABLE,
            value=text,
            origin="environment",
            hint=f"set it as `date -Iseconds` prints one: {NOW_VARIABLE}={_EXAMPLE}",
        )
    return instant


def checked_instant(now: Instant) -> datetime.datetime:
    """An app's `now=` as an aware datetime; text that is no ISO 8601 instant is bad input."""
    instant = parse_instant(now)
    if instant is None:
        raise ComposeError(
            "is no instant: give a datetime or ISO 8601 text",
            key="now",
            value=now,
            origin="now=",
            hint=f"now={_EXAMPLE!r}",
        )
    return instant


def parse_instant(value: object) -> datetime.datetime | None:
    """`value` as an aware datetime (a naive one is local time), or None if it is no instant.
    A trailing `Z` is UTC, which Python 3.10's `fromisoformat` does not read itself."""
    if isinstance(value, str):
        text = value.strip()
        if text.endswith(("Z", "z")):
            text = text[:-1] + "+00:00"
        try:
            value = datetime.datetime.fromisoformat(text)
        except ValueError:
            return None
    if not isinstance(value, datetime.datetime):
        return None
    return value if value.tzinfo is not None else value.astimezone()
