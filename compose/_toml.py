"""TOML text into a table: tomli's answer, read by toml-rs where it is installed.

tomli is the reference: what it reads, compose reads, and what it refuses, compose refuses in
its words (FILE:LINE:COLUMN and the same message). toml-rs, a Rust parser, reads the
benchmark's files 8x to 10x faster and reads the whole toml-test corpus as tomli does
(`benchmarks/results/parsers.md`), so it is a shortcut of tomli, taken where it can tell it
gives the same table: it has read the text, the table nests no deeper than `MAX_DEPTH`
(toml-rs reads inline values nested thousands deep, which tomli refuses past 100), and the
text holds no run of digits longer than Python converts to an int (4,300 digits: toml-rs reads
such an integer, tomli raises Python's `ValueError`). Any other
outcome, an error above all, is tomli's to decide: the text is parsed again by tomli, so an
error is always tomli's, and a text only toml-rs refused would still be read.

toml-rs is optional (`pip install 'compose-config[fast]'`; it has wheels for Python 3.11 and
later on Linux, macOS and Windows); without it, or with every shortcut off, tomli reads
everything. Neither is imported before a TOML text is read: `rl --help` reads none.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from typing import Any

from compose._shortcuts import SHORTCUTS
from compose._tree import MAX_DEPTH, too_deep

Loads = Callable[[str], dict[str, Any]]


class TomlSyntaxError(Exception):
    """tomli's refusal of a text: its message, and the 1-based line and column it names."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


class TooDeep(Exception):
    """A table that nests more than `MAX_DEPTH` tables or lists (tomli may read it)."""


def loads(text: str) -> dict[str, Any]:
    """The table tomli reads from `text`.

    Raises `TomlSyntaxError` where tomli refuses the text, `TooDeep` past `MAX_DEPTH` levels,
    `RecursionError` where tomli does (inline values nested past its limit) and `ValueError`
    for an integer longer than Python converts (4,300 digits).
    """
    depth = nesting(text) if SHORTCUTS else BOUNDED  # the reference always walks the table
    native = _native_loads() if SHORTCUTS else None
    # toml-rs recurses once a bracket: thousands deep, it crashes (DEEP: tomli alone reads)
    if native is not None and depth != DEEP and not may_hold_long_integer(text):
        try:
            table = native(text)
        except Exception:  # any refusal is tomli's to word (or to overrule)
            pass
        else:
            if depth == SHALLOW or not too_deep(table):
                return table
    table = _reference_loads(text)
    if depth != SHALLOW and too_deep(table):
        raise TooDeep
    return table


def native_parser() -> str | None:
    """The native parser's name and version where one is installed and used, else None."""
    if not SHORTCUTS or _native_loads() is None:
        return None
    import toml_rs  # noqa: PLC0415  # loaded already by `_native_loads`

    return f"toml-rs {toml_rs.__version__}"


# How deep a TOML text may nest, as `nesting` tells it from the text alone.
SHALLOW = "shallow"  # no path of its table is deeper than MAX_DEPTH: nothing to walk
BOUNDED = "bounded"  # its brackets nest at most MAX_DEPTH deep, its paths may go deeper: walk
DEEP = "deep"  # its brackets may nest deeper: only tomli reads it (and refuses, or the walk does)


def nesting(text: str) -> str:
    """How deep TOML `text` may nest (`SHALLOW`, `BOUNDED` or `DEEP`), told by C-speed byte
    operations before any parser reads it.

    toml-rs recurses once for each bracket it is inside: a few thousand nested arrays or inline
    tables crash the process (a 20 kB file; fewer on a thread's smaller stack), so it reads only
    a text whose brackets outside strings and comments nest no deeper than `MAX_DEPTH`, which
    compose refuses past anyway. `BOUNDED` and `SHALLOW` hold for any text up to the point where
    a parser would refuse it, so the parser never goes deeper; what `SHALLOW` says of the table
    holds where the text is valid TOML, the only kind that gives a table.

    Each level of a path costs the text a character: a key's segment past its first a `.`; an
    array's index a `[` (of the array, or of a `[[header]]` of an array of tables); an inline
    table's first key segment its `{`. Only two levels are free: the first segment of a header
    and of a key. Counting the three characters clears a small file. A large one has more of
    them than any path holds (every float has a dot), so its paths are bounded by its structure
    instead (`depth_bound`): on the benchmark's files the walk of the table costs a quarter of
    toml-rs's parse, the bounds a twentieth.
    """
    if len(text) + 2 <= MAX_DEPTH:  # fewer characters than levels (a flag's value): no marks
        return SHALLOW
    marks = _marks(text)
    if marks.count(b".") + marks.count(b"[") + marks.count(b"{") + 2 <= MAX_DEPTH:
        return SHALLOW
    if _needs_lexer(marks, text) and marks.count(b"[") + marks.count(b"{") <= MAX_DEPTH:
        return BOUNDED  # a mid-sized file with comments: walking its table costs less than a lexer
    bound = _depth_bound(marks, text, MAX_DEPTH)
    if bound is None:
        return DEEP
    return SHALLOW if bound <= MAX_DEPTH else BOUNDED


def may_nest_too_deep(text: str) -> bool:
    """Whether some path of TOML `text`'s table may be deeper than `MAX_DEPTH`: the depth walk
    is needed only then."""
    return nesting(text) != SHALLOW


def depth_bound(text: str, limit: int) -> int | None:
    """At most how many tables and lists nest below the root of TOML `text`'s table, or None
    where its brackets nest more than `limit` deep. Past `limit`, the number it gives says only
    that: paths may be deeper than `limit`.

    A path is spelled by one header, one key and one value. With strings and comments dropped,
    `m` the most dots a line holds and `h` how deep the brackets nest: the header's segments (at
    most m + 1) are each a table, or an array of tables and its last table, so 2 levels; the
    key adds a table for each dot (at most m); the value a list or a table for each bracket it
    nests, and each inline table's key its dots: at most h * (m + 1). So no path is deeper than
    (m + 1) * (h + 3) - 1. Only valid TOML has a table: brackets outside strings match.
    """
    return _depth_bound(_marks(text), text, limit)


def _depth_bound(marks: bytes, text: str, limit: int) -> int | None:
    structure = _structure(marks, text)
    height = _bracket_height(structure, limit)
    return None if height is None else _path_bound(structure, height, limit)


def _marks(text: str) -> bytes:
    """The characters of `text` the bounds look at, in order (the benchmark's are a sixth)."""
    return text.encode("utf-8", "surrogatepass").translate(None, _NOT_MARKS)


def _structure(marks: bytes, text: str) -> bytes:
    """The dots, brackets and line ends of `text` outside its strings and comments."""
    if _needs_lexer(marks, text):
        marks = _lexed(text)
    return _outside_strings(marks)


def _lexed(text: str) -> bytes:
    """The marks of `text` with its strings and comments taken out, by a regex over the marks.

    A regex costs 15 ns a character (as much as toml-rs's parse), so it reads the marks and the
    separators `,` and `=` (without, the strings of `["a", "b"]` would show four quotes in a
    row), a fifth of the text. Escapes that could end a string early are dropped
    first (the only ones of the marks: `\\` and a quote); what other escapes leave is content.
    """
    if "\\" in text:
        text = text.replace("\\\\", "").replace('\\"', "")
    lexed = text.encode("utf-8", "surrogatepass").translate(None, _NOT_LEXED)
    return _strings_and_comments().sub(b"", lexed).translate(None, b",=")


def _needs_lexer(marks: bytes, text: str) -> bool:
    """Whether `text` has what quotes alone cannot tell apart: a comment, a literal or
    multi-line string, an escape (two basic strings side by side also show four quotes)."""
    return b"#" in marks or b"'" in marks or b"\\" in marks or (b'"""' in marks and '"""' in text)


def _outside_strings(marks: bytes) -> bytes:
    """`marks` without what the basic strings hold: with no comment, literal or multi-line
    string and no escape, a quote opens or closes one up to where a parser would refuse."""
    if marks.count(b'""') * 2 == marks.count(b'"'):  # no string holds a mark: drop the quotes
        return marks.translate(None, b'"')  # (a split costs ten times as much)
    return b"".join(marks.split(b'"')[::2])


@functools.cache  # compiled the first time a large file needs it, not on import
def _strings_and_comments() -> re.Pattern[bytes]:
    """TOML's strings (multi-line first, as a lexer reads them) and comments, in marks."""
    return re.compile(  # each always matches once begun: an unclosed string runs to its end,
        rb'"""(?:[^"]|"(?!""))*"{0,5}'  # where a parser would refuse it too
        rb"|'''(?:[^']|'(?!''))*'{0,5}"  # (up to two quotes end a multi-line string)
        rb'|"[^"\n]*"?'  # (a regex that can fail retries from every quote:
        rb"|'[^'\n]*'?"  # quadratic on a crafted file)
        rb"|#[^\n]*"  # a comment, to the end of its line
    )


# What the bounds look at: dots, brackets, line ends, and what strings and comments begin with.
_NOT_MARKS = bytes(sorted(set(range(256)) - set(b".[]{}\"\n#'\\")))
_NOT_LEXED = bytes(sorted(set(_NOT_MARKS) - set(b",=")))
_SQUARE = bytes.maketrans(b"{}", b"[]")


def _bracket_height(structure: bytes, limit: int) -> int | None:
    """How deep the brackets of `structure` nest: each round takes out every innermost pair.
    None past `limit`, or where they do not match (nothing a parser reads so far goes deeper)."""
    brackets = structure.translate(_SQUARE, b".\n")
    height = 0
    while brackets:
        if height == limit:
            return None
        brackets, height = brackets.replace(b"[]", b""), height + 1
    return height


def _path_bound(structure: bytes, height: int, limit: int) -> int:
    dots = structure.translate(None, b"[]{}")  # each line's dots, a line to a row
    most_dots = 0  # found by a few searches: a pass over the lines would cost what a walk does
    while b"." * (most_dots + 1) in dots:
        most_dots += 1
        if (most_dots + 1) * (height + 3) - 1 > limit:
            break  # past the limit already: the exact count would change nothing
    return (most_dots + 1) * (height + 3) - 1


def may_hold_long_integer(text: str) -> bool:
    """Whether `text` may hold a decimal integer longer than Python converts (`limit` digits,
    4,300 unless the process changed it), which tomli refuses and toml-rs reads.

    Such an integer is a run of more than `limit` digits and underscores, and any such run
    covers a whole stretch between two neighbouring multiples of `limit // 2`: only the
    stretches whose two ends are digits are looked at, each by one C-speed check. A 137 KB
    file costs a few microseconds, where a regex search costs most of what the parse does.
    """
    if len(text) <= _LEAST_DIGIT_LIMIT:  # no process can hold a lower limit: no need to ask
        return False
    limit = sys.get_int_max_str_digits()
    if limit == 0 or len(text) <= limit:
        return False
    step = limit // 2
    for start in range(0, len(text) - step, step):
        end = start + step
        if text[start] in _RUN and text[end] in _RUN:
            stretch = text[start : end + 1].replace("_", "")
            if not stretch or stretch.isdigit():  # isdigit: any digit, a safe superset
                return True
    return False


_RUN = frozenset("0123456789_")
_LEAST_DIGIT_LIMIT = 640  # `sys.set_int_max_str_digits` refuses anything lower (but 0: none)


@functools.cache  # what is installed does not change while a process runs; a failed import
def _native_loads() -> Loads | None:  # would otherwise search sys.path again for every text
    """toml-rs's `loads` where it is installed, imported on the first TOML text, not before."""
    try:
        import toml_rs  # noqa: PLC0415  # optional, and loaded only to read TOML
    except ImportError:
        return None
    native: Loads = toml_rs.loads  # typed here: where toml-rs is not installed, mypy sees Any
    return native


def _reference_loads(text: str) -> dict[str, Any]:
    import tomli  # noqa: PLC0415  # loaded only where it reads: the fallback and the error path

    try:
        return tomli.loads(text)
    except tomli.TOMLDecodeError as error:
        message = getattr(error, "msg", str(error))
        raise TomlSyntaxError(
            message, getattr(error, "lineno", 0), getattr(error, "colno", 0)
        ) from None
