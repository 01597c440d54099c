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
import re
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

    Text is read by compose's own words, the same on every Python (3.11's `fromisoformat`
    reads forms 3.10's refuses, `20261204T2100Z`, week dates): RFC 3339's date and time, what
    `date -Iseconds` and `datetime.isoformat` print. `YYYY-MM-DD`, then optionally `T` (or
    `t`, or a space) and `HH`, `HH:MM` or `HH:MM:SS` with up to six digits of fraction, then
    optionally the offset: `Z` or `z` (UTC; RFC 3339 allows the lower case), `+HH:MM`,
    `+HH:MM:SS` or `+HHMM` (`date +%z`'s)."""
    if isinstance(value, str):
        value = _from_text(value.strip())
    if not isinstance(value, datetime.datetime):
        return None
    return value if value.tzinfo is not None else value.astimezone()


_INSTANT = re.compile(
    r"""
    (?P<date>\d{4}-\d{2}-\d{2})
    (?:
        [Tt\ ] (?P<hour>\d{2})
        (?: : (?P<minute>\d{2}) (?: : (?P<second>\d{2}) (?: \. (?P<fraction>\d{1,6}) )? )? )?
        (?: (?P<utc>[Zz]) | (?P<sign>[+-]) (?P<off_h>\d{2}) :? (?P<off_m>\d{2})
            (?: : (?P<off_s>\d{2}) )? )?
    )?
    """,
    re.ASCII | re.VERBOSE,
)


def _from_text(text: str) -> datetime.datetime | None:
    """`text` in compose's words (`parse_instant`), as the one form every `fromisoformat`
    reads: `YYYY-MM-DDTHH:MM:SS[.ffffff][+HH:MM[:SS]]`."""
    found = _INSTANT.fullmatch(text)
    if found is None:
        return None
    part = found.groupdict()
    clock = f"{part['hour'] or '00'}:{part['minute'] or '00'}:{part['second'] or '00'}"
    if part["fraction"]:
        clock += "." + part["fraction"].ljust(6, "0")
    if part["utc"]:
        clock += "+00:00"
    elif part["sign"]:
        clock += f"{part['sign']}{part['off_h']}:{part['off_m']}"
        clock += f":{part['off_s']}" if part["off_s"] else ""
    try:
        return datetime.datetime.fromisoformat(f"{part['date']}T{clock}")
    except ValueError:  # a day or an hour out of range
        return None
