"""Errors raised for bad input. Every one of them is a `ComposeError`::

    ComposeError                  key, message, value, origin; errors (itself, or the gathered ones)
    ├── SourceError               a file could not be read: missing, unreadable, not UTF-8, bad TOML
    ├── ArgvError                 a malformed command line: stray token, missing value, bad JSON
    ├── UnknownKeyError           a key that the schema does not have (with a did-you-mean)
    ├── ConfigValidationError     a value the schema rejects: wrong type, failed validator, bad None
    ├── InterpolationError        a ${...} that cannot be resolved: missing key, cycle, bad grammar
    ├── OutputError               configs could not be written: a directory not made or writable,
    │                             or a value no flag gives (`to_argv`)
    ├── FrozenError               not bad input: a frozen result was assigned to, deleted from or
    │                             mutated; also a `dataclasses.FrozenInstanceError` (an
    │                             AttributeError), what frozen dataclasses and attrs raise
    ├── PointError                a point of a sweep that failed, named by its index and axes
    ├── ErrorGroup                several errors reported at once; `.errors` holds them
    │                             (on Python 3.11+ also an ExceptionGroup: `except*` splits it)
    └── HelpRequested             not bad input: `--help` was asked for; `.text` is the help screen

`ConfigFileError` is another name of `ComposeError`, the one pydantic-config's users catch.

`ComposeWarning` (a `UserWarning`) is not an error: something was dropped or changed on the
user's behalf, a union switch say, and the composition went on. Two warnings are about a key a
file or flag holds, and carry where (`.summary`, `.origin`, `.advice`), so that tools read
them by their fields, never their text::

    RenamedWarning (a FutureWarning)     a renamed field's old name was used
    ComposeWarning
    └── MigratedWarning                  a key of an older file that a migration changed

Two exceptions live elsewhere because they are not bad input the caller catches: a migration
step raises `compose._merge.migrations.StepError` for data it cannot migrate (the composition
turns it into a `ConfigValidationError` naming the file, the step and the key), and a point
that a submitit job ran and that failed raises `PointFailed` inside that job (its exit code,
for submitit's own report).

An error is built once, from what went wrong and where the value came from; `str()` renders it
the same way everywhere: ``KEY = VALUE (from ORIGIN): MESSAGE; HINT``. `exit_code` is the status
`cli` exits with for it: 2 for bad input, 0 for `HelpRequested`.

What people are shown of an error (`format`, and the parts `shown` gives rich's box) holds no
control character: a file name, key or value with one (an ANSI escape sequence that would
rewrite the terminal, a newline that would fake a line) shows it escaped as `repr` does,
`\x1b[2J`; `.key`, `.origin` and the rest keep what was given.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from compose._syntax import FOUND_IN
from compose._tree import MAX_DEPTH, too_deep

__all__ = [
    "ArgvError",
    "ComposeError",
    "ComposeWarning",
    "ConfigFileError",
    "ConfigValidationError",
    "ErrorGroup",
    "FrozenError",
    "HelpRequested",
    "InterpolationError",
    "MigratedWarning",
    "OutputError",
    "PointError",
    "RenamedWarning",
    "SourceError",
    "UnknownKeyError",
]

_NO_VALUE = object()
_MAX_VALUE_CHARS = 80


def value_repr(value: object) -> str:
    """`repr(value)`, never itself an error."""
    if too_deep(value):  # deeper than any config: whether repr recurses out depends on Python
        return _TOO_DEEP_TO_SHOW
    try:
        return repr(value)
    except ValueError:  # an integer past Python's 4,300-digit conversion limit
        return f"<an integer of {value.bit_length()} bits>" if isinstance(value, int) else "?"
    except RecursionError:  # data nested past Python's recursion limit (a caller's own)
        return _TOO_DEEP_TO_SHOW


_TOO_DEEP_TO_SHOW = "<nested too deep to show>"


# Compose's words for what a parser or the OS refuses in words of its own, which change with
# the Python and the parser that read the input: a message says the same on every version.


def nested_too_deep(what: str) -> str:
    """`what` ("tables or lists", "JSON") nested past `MAX_DEPTH`: the one wording, whether the
    walk of the data found it or a parser ran out of stack first (a `RecursionError`, which
    pure-Python tomli on 3.10 raises where 3.11's compiled one reads the text)."""
    return f"{what} nested deeper than {MAX_DEPTH} levels"


def integer_too_long(error: ValueError) -> str:
    """Python's refusal to convert an integer of more digits than `sys.get_int_max_str_digits()`
    (4,300) between text and int, in compose's words: 3.10 and 3.11 word it differently. Any
    other `ValueError` keeps its own words."""
    text = str(error)
    if _INT_CONVERSION not in text:
        return text
    limit = f"{sys.get_int_max_str_digits():,}"
    digits = _DIGITS.search(text)  # how many, where the text was being read
    if digits is None:
        return f"an integer of more than {limit} digits, past what Python converts"
    return f"an integer of {int(digits[1]):,} digits, past the {limit} Python converts"


_INT_CONVERSION = "for integer string conversion"
_DIGITS = re.compile(r"value has (\d+) digits")


def path_refused(path: str, error: OSError | ValueError) -> str:
    """Why the OS refused to open `path` (a symlink loop, a name too long), in compose's words
    where Python's change: a NUL byte in the name is a `ValueError` worded 'embedded null
    byte' before 3.13 and 'embedded null character in path' since."""
    if "\0" in path:
        return "a file name cannot hold a null byte"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)


def _show_value(value: object) -> str:
    """A value as errors show it: its repr, cut to 80 characters."""
    text = printable(value_repr(value))  # a class's own __repr__ may hold anything
    if len(text) > _MAX_VALUE_CHARS:
        text = text[: _MAX_VALUE_CHARS - 3] + "..."
    return text


def printable(text: str) -> str:
    """`text` as people may be shown it: each character `repr` escapes (a C0 or C1 control
    character, DEL, ESC, NUL, a newline; what `str.isprintable` refuses) escaped as `repr`
    escapes it, every other as it is (letters of any script, backslashes, spaces)."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def counted(count: int, noun: str) -> str:
    """`count` things named by `noun` as people read it: "1 point", "2 points", "1,000 points"
    (every count compose prints is said this way, so none reads "1 points")."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


class Shown:
    """An error's parts as people are shown them, each `printable` (None: not given)."""

    __slots__ = ("hint", "key", "message", "origin", "value")

    def __init__(self, error: ComposeError) -> None:
        self.key = printable(error.key) if error.key else None
        self.value = _show_value(error.value) if error.has_value else None
        self.origin = printable(error.origin) if error.origin else None
        self.message = printable(error.message)
        self.hint = printable(error.hint) if error.hint else None


class ComposeError(Exception):
    """Root of every error raised for bad input.

    `key` is the key path in command-line form (`--trainer.optim.lr`), `value` the offending
    value as given, `origin` where it came from (`b.toml:3`, `--trainer.lr`, `default`), `hint`
    what may fix it (a did-you-mean). Any of them may be None when it does not apply.
    `exit_code` is the status `cli` exits with after printing it.
    """

    exit_code: ClassVar[int] = 2

    def __init__(
        self,
        message: str,
        *,
        key: str | None = None,
        value: object = _NO_VALUE,
        origin: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.message = message
        self.key = key
        self.has_value = value is not _NO_VALUE
        self.value = value if self.has_value else None
        self.origin = origin
        self.hint = hint
        super().__init__(self.format())

    @property
    def errors(self) -> tuple[ComposeError, ...]:
        """The individual errors: this one alone, or those an `ErrorGroup` gathered."""
        return (self,)

    def evolve(self, **changes: object) -> ComposeError:
        """The same error with some of key, value, origin, hint or message replaced."""
        fields: dict[str, object] = {
            "message": self.message,
            "key": self.key,
            "origin": self.origin,
            "hint": self.hint,
        }
        if self.has_value:
            fields["value"] = self.value
        fields.update(changes)
        message = str(fields.pop("message"))
        return type(self)(message, **fields)  # type: ignore[arg-type]

    def shown(self) -> Shown:
        """The parts of the error as people are shown them: no control character in any."""
        return Shown(self)

    def format(self) -> str:
        """One line: what, where from, what is wrong, and what may fix it."""
        shown = self.shown()
        head = shown.key or ""
        if shown.value is not None:
            head = f"{head} = {shown.value}" if head else shown.value
        if shown.origin and self.origin != self.key:
            head = f"{head} (from {shown.origin})" if head else shown.origin
        text = f"{head}: {shown.message}" if head else shown.message
        return f"{text}; {shown.hint}" if shown.hint else text


ConfigFileError = ComposeError
"""pydantic-config's name for the error `cli(schema, args=...)` raises: every `ComposeError` is
one, so `except ConfigFileError` written for pydantic-config catches all bad input here."""


class SourceError(ComposeError):
    """A file node could not be read or parsed (missing, a directory, not UTF-8, bad TOML)."""


class ArgvError(ComposeError):
    """The command line is malformed: a stray token, a flag without its value, bad JSON."""


class UnknownKeyError(ComposeError):
    """A key, in a file or on the command line, that the schema does not define."""


class ConfigValidationError(ComposeError):
    """A value the schema rejects: wrong type, a failed validator, None where it is not allowed."""


class InterpolationError(ComposeError):
    """A `${...}` that cannot be resolved: missing key, cycle, bad grammar, unknown resolver."""


class OutputError(ComposeError):
    """`write_configs` could not write: the directory cannot be made, or is not writable; or
    `to_argv` could not write a value as a flag (text starting with `@`, a key no flag spells)."""


class FrozenError(ComposeError, dataclasses.FrozenInstanceError):
    """A frozen result (`compose(..., frozen=True)`, or a schema declaring `frozen=True`) was
    changed: a field assigned or deleted, or a list, dict or set in it mutated. `key` is the
    full dotted path of what was changed (`trainer.optim.lr`, `env.0.id`), `value` what was
    given (none for a deletion).

    Not bad input but a program's mistake, raised where the program made it. It is also a
    `dataclasses.FrozenInstanceError`, so an `AttributeError`, as frozen dataclasses and attrs
    classes raise; not a `pydantic.ValidationError` (which Pydantic raises for its own frozen
    models), whose `.errors()` method `ComposeError.errors` would hide.
    """


if sys.version_info >= (3, 11):
    from typing import Self

    class _Gathered(ExceptionGroup[ComposeError]):  # noqa: F821  # a builtin from 3.11 on
        """`ErrorGroup`'s base on Python 3.11+: an `ExceptionGroup` of its `.errors`, so that
        `except* UnknownKeyError` takes those out of it (Python forbids `except* ErrorGroup`)."""

        def __new__(cls, errors: Sequence[ComposeError]) -> Self:
            errors = tuple(errors)
            return super().__new__(cls, _count(errors), errors)

        def derive(self, excs: Sequence[Any]) -> ErrorGroup:  # type: ignore[override]
            """The part `except*` matched, and the part it left: each an `ErrorGroup` too."""
            return ErrorGroup(excs)

else:

    class _Gathered(Exception):
        """`ErrorGroup`'s base on Python 3.10, which has no `ExceptionGroup`."""


def _count(errors: Sequence[ComposeError]) -> str:
    return counted(len(errors), "error")


class ErrorGroup(ComposeError, _Gathered):
    """Several errors found in one pass (all validation errors are reported at once).

    On Python 3.11+ it is also an `ExceptionGroup` of `.errors` (its `.exceptions`).
    """

    # ComposeError sets `message` on the instance: this hides ExceptionGroup's read-only one
    message: str = ""

    def __init__(self, errors: Sequence[ComposeError]) -> None:
        self._errors = tuple(errors)
        super().__init__(_count(self._errors))

    @property
    def errors(self) -> tuple[ComposeError, ...]:
        return self._errors

    def format(self) -> str:
        lines = [f"{_count(self._errors)}:"]
        lines.extend(f"  - {error.format()}" for error in self._errors)
        return "\n".join(lines)

    def __str__(self) -> str:  # not ExceptionGroup's "N errors (N sub-exceptions)"
        return self.format()

    def __reduce__(self) -> tuple[type[ErrorGroup], tuple[tuple[ComposeError, ...]]]:
        return type(self), (self._errors,)  # copy, pickle: built again from its errors


class HelpRequested(ComposeError):
    """`--help` was given: `parse` raises this so callers decide how to show `.text`.

    Not bad input: `exit_code` is 0, and `str()` is the help itself (`.text` without its final
    newline, so `print(error)` prints what `cli` prints), so code that catches every
    `ComposeError` and prints it still shows the help. Catch it first to exit 0:
    `except HelpRequested as h: print(h); sys.exit(h.exit_code)`.
    """

    exit_code: ClassVar[int] = 0

    def __init__(self, text: str, screen: object = None) -> None:
        self.text = text
        self.screen = screen  # the structured help, for a richer rendering than `text`
        super().__init__("help requested")

    def format(self) -> str:
        return self.text.removesuffix("\n")


class PointError(ComposeError):
    """A point of a sweep that failed (`compose.sweep`, sweep mode): its error, said after the
    point's index and axis values (`point 3 (lr=0.1): ...`), every failing point at once."""

    def __init__(self, message: str, *, point: str = "", **fields: Any) -> None:
        self.point = point
        super().__init__(message, **fields)

    def format(self) -> str:
        return f"{printable(self.point)}: {super().format()}"  # axes as typed: any character

    def evolve(self, **changes: object) -> ComposeError:
        fields: dict[str, Any] = {"key": self.key, "origin": self.origin, "hint": self.hint}
        if self.has_value:
            fields["value"] = self.value
        fields.update(changes)
        return PointError(str(fields.pop("message", self.message)), point=self.point, **fields)


def gather(errors: Sequence[ComposeError]) -> ComposeError:
    """One error for a list of them: the error itself when alone, else an `ErrorGroup`."""
    return errors[0] if len(errors) == 1 else ErrorGroup(errors)


class ComposeWarning(UserWarning):
    """Something was dropped or changed on the user's behalf (a union switch)."""


class _FoundIn(Warning):
    """A warning about a key a node holds: what happened (`summary`), where the node wrote it
    (`origin`: FILE:LINE or the flag) and what to do (`advice`, if anything). Read by its
    fields (`compose check` lists it as a problem at `origin`); shown as one line."""

    def __init__(self, summary: str, origin: str, advice: str | None = None) -> None:
        self.summary = summary
        self.origin = origin
        self.advice = advice
        super().__init__(summary, origin, advice)

    def __str__(self) -> str:
        found = f"{self.summary}{FOUND_IN}{self.origin}"
        return f"{found}; {self.advice}" if self.advice else found


class RenamedWarning(_FoundIn, FutureWarning):
    """A renamed field's old name was used (`renamed`): it still works, for now."""


class MigratedWarning(_FoundIn, ComposeWarning):
    """A key of an older file that a migration changed: the file is stale until `compose
    migrate` rewrites it."""


def closest(word: str, options: Iterable[str], cutoff: float) -> str | None:
    """The option most like `word` (by difflib's ratio) if it reaches `cutoff`: a did-you-mean."""
    # Imported here: only a mistake needs it, and every entrypoint's `--help` imports this module
    import difflib  # noqa: PLC0415

    found = difflib.get_close_matches(word, list(options), n=1, cutoff=cutoff)
    return found[0] if found else None
