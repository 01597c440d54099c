"""Where each key of a TOML document is written: key path -> 1-based line number.

tomli gives values but not positions, so when an error message wants to say ``b.toml:3`` or
``--origins`` lists where each value came from, this module re-reads the same text with a small
scanner that follows tomli's grammar (and its style: ``skip_*`` functions only advance a position,
``parse_*`` functions return ``(pos, value)``, and ``scan_*`` functions advance a position while
recording what they pass into a `Positions`).

It runs only on the slow path, after tomli has accepted the text, so it does not validate
anything. It never raises instead: a construct it cannot follow is skipped (the rest of that line,
or the rest of that value) and the keys inside it are simply absent from the result. Every loop
advances or stops, so it terminates, and the work is linear in the size of the text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from compose._syntax import BARE_KEY_CHARS
from compose._tree import KeyPath

__all__ = ["key_lines"]

Pos = int
Key = tuple[str, ...]
TOML_WS = frozenset(" \t")
TOML_WS_AND_NEWLINE = TOML_WS | frozenset("\n")
KEY_INITIAL_CHARS = BARE_KEY_CHARS | frozenset("\"'")
# No scalar (number, boolean, date, time) contains any of these, so a scalar ends at the first one.
# A space may occur inside a scalar ("1979-05-27 07:32:00"), so whitespace is not among them.
SCALAR_END_CHARS = frozenset(",]}#\n")

# Arrays and inline tables nested deeper than this inside one value are skipped without
# recording their keys: tomli accepts 400 levels, more than Python's recursion limit allows
# the recursive scanner to follow, and no real configuration nests this deep.
MAX_NESTING = 32

# What can end the run of plain characters in a basic string. A one-line string also stops at a
# newline: that cannot occur in valid TOML, and stopping there keeps a misread string from
# swallowing the rest of the file.
BASIC_STR_SPECIAL = re.compile(r'["\\\n]')
MULTILINE_BASIC_STR_SPECIAL = re.compile(r'["\\]')
KEY_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)")
SIMPLE_ESCAPES = {
    "b": "\b",
    "t": "\t",
    "n": "\n",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    '"': '"',
    "\\": "\\",
}
MAX_CODEPOINT = 0x10FFFF


def key_lines(text: str) -> dict[KeyPath, int]:
    """Map every key path of the TOML document `text` to the 1-based line where it is written.

    Paths are what `tomli.loads` would give, with integer indices for elements of arrays of
    tables and for inline tables inside arrays. Tables map to their header line; tables created
    implicitly (by a dotted key or a header's parent) map to the first line that created them.
    """
    # tomli reads "\r\n" as "\n"; doing the same keeps the scanner simple and the line count equal.
    src = text.replace("\r\n", "\n")
    out = Positions(src)
    # None while under a header that could not be read: its keys are skipped, not misattributed.
    table: KeyPath | None = ()
    pos = 0
    while pos < len(src):
        pos = skip_chars(src, pos, TOML_WS)
        char = src[pos : pos + 1]
        if char == "[":
            pos, table = scan_header(src, pos, out)
        elif char in KEY_INITIAL_CHARS and table is not None:
            pos = scan_key_value(src, pos, out, table)
        elif char in KEY_INITIAL_CHARS:
            pos = skip_key_value(src, pos)
        pos = skip_chars(src, pos, TOML_WS)
        pos = skip_comment(src, pos)
        # Normally `pos` is at the newline ending the statement; if the statement was not
        # understood to its end, the rest of its line is dropped.
        pos = skip_line(src, pos)
    return out.lines


class Positions:
    """The map being built, with what is needed to number lines and array-of-tables elements."""

    def __init__(self, src: str) -> None:
        self.lines: dict[KeyPath, int] = {}
        # Number of elements so far of each array of tables, by its full path (which holds the
        # parent elements' indices, so a nested array's count restarts under each parent element).
        self.table_array_sizes: dict[KeyPath, int] = {}
        self._src = src
        self._counted_to: Pos = 0
        self._line: int = 1

    def line(self, pos: Pos) -> int:
        """The 1-based line of `pos`; linear overall because positions are asked in order."""
        if pos < self._counted_to:
            self._counted_to, self._line = 0, 1
        self._line += self._src.count("\n", self._counted_to, pos)
        self._counted_to = pos
        return self._line

    def add_key(self, table: KeyPath, key: Key, pos: Pos) -> KeyPath:
        """Record a (possibly dotted) key written at `pos` under `table`; return its path."""
        line = self.line(pos)
        path = table
        for part in key[:-1]:
            path += (part,)
            self.lines.setdefault(path, line)
        path += (key[-1],)
        self.lines[path] = line
        return path

    def add_header(self, key: Key, pos: Pos, *, array: bool) -> KeyPath:
        """Record a ``[key]`` or ``[[key]]`` header at `pos`; return the table's path."""
        line = self.line(pos)
        path = (*self.parent_path(key[:-1], line), key[-1])
        if not array:
            self.lines[path] = line
            return path
        self.lines.setdefault(path, line)
        index = self.table_array_sizes.get(path, 0)
        self.table_array_sizes[path] = index + 1
        path += (index,)
        self.lines[path] = line
        return path

    def parent_path(self, parents: Key, line: int) -> KeyPath:
        """The path of a header's parent tables, recording those created here by `line`."""
        path: KeyPath = ()
        for part in parents:
            path += (part,)
            self.lines.setdefault(path, line)
            # A header under an array of tables continues in that array's last element.
            size = self.table_array_sizes.get(path, 0)
            if size:
                path += (size - 1,)
        return path


def skip_chars(src: str, pos: Pos, chars: Iterable[str]) -> Pos:
    while pos < len(src) and src[pos] in chars:
        pos += 1
    return pos


def skip_line(src: str, pos: Pos) -> Pos:
    """Skip to just past the next newline (or to the end of the text)."""
    end = src.find("\n", pos)
    return len(src) if end == -1 else end + 1


def skip_comment(src: str, pos: Pos) -> Pos:
    if not src.startswith("#", pos):
        return pos
    end = src.find("\n", pos)
    return len(src) if end == -1 else end


def skip_comments_and_ws(src: str, pos: Pos) -> Pos:
    """Skip what may separate the parts of an array, or of an inline table in TOML 1.1."""
    while True:
        start = pos
        pos = skip_chars(src, pos, TOML_WS_AND_NEWLINE)
        pos = skip_comment(src, pos)
        if pos == start:
            return pos


def skip_key_value(src: str, pos: Pos) -> Pos:
    """Skip a ``key = value`` pair without recording it."""
    pos, key = parse_key(src, pos)
    if key is None or not src.startswith("=", pos):
        return pos
    return skip_value(src, skip_chars(src, pos + 1, TOML_WS))


def skip_value(src: str, pos: Pos) -> Pos:
    """Skip any value without recording anything."""
    char = src[pos : pos + 1]
    if char in ("[", "{"):
        return skip_nested(src, pos)
    if char in ('"', "'"):
        return skip_string(src, pos)
    return skip_scalar(src, pos)


def skip_nested(src: str, pos: Pos) -> Pos:
    """Skip an array or inline table by counting brackets: a loop, so any depth is fine."""
    depth = 0
    while pos < len(src):
        char = src[pos]
        if char in "\"'":
            pos = skip_string(src, pos)
            continue
        if char == "#":
            pos = skip_comment(src, pos)
            continue
        pos += 1
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                return pos
    return pos


def skip_scalar(src: str, pos: Pos) -> Pos:
    while pos < len(src) and src[pos] not in SCALAR_END_CHARS:
        pos += 1
    return pos


def skip_string(src: str, pos: Pos) -> Pos:
    """Skip a string of any of the four kinds starting at `pos`."""
    if src.startswith('"""', pos):
        return skip_multiline_basic_str(src, pos + 3)
    if src.startswith("'''", pos):
        return skip_multiline_literal_str(src, pos + 3)
    if src.startswith('"', pos):
        return skip_basic_str(src, pos + 1)
    return skip_literal_str(src, pos + 1)


def skip_basic_str(src: str, pos: Pos) -> Pos:
    """Skip the rest of a one-line basic string whose content starts at `pos`."""
    while True:
        special = BASIC_STR_SPECIAL.search(src, pos)
        if special is None:
            return len(src)
        char = special.group()
        if char == "\\":
            # Whatever follows a backslash is part of the escape, even a quote.
            pos = special.end() + 1
            continue
        return special.end() if char == '"' else special.start()


def skip_literal_str(src: str, pos: Pos) -> Pos:
    """Skip the rest of a one-line literal string whose content starts at `pos`."""
    end = src.find("'", pos)
    return len(src) if end == -1 else end + 1


def skip_multiline_basic_str(src: str, pos: Pos) -> Pos:
    """Skip the rest of a ``\"\"\"`` string whose content starts at `pos`."""
    while True:
        special = MULTILINE_BASIC_STR_SPECIAL.search(src, pos)
        if special is None:
            return len(src)
        if special.group() == "\\":
            pos = special.end() + 1
            continue
        run = skip_chars(src, special.start(), '"') - special.start()
        if run >= 3:
            return closing_quotes_end(special.start(), run)
        pos = special.start() + run


def skip_multiline_literal_str(src: str, pos: Pos) -> Pos:
    """Skip the rest of a ``'''`` string whose content starts at `pos`."""
    start = src.find("'''", pos)
    if start == -1:
        return len(src)
    run = skip_chars(src, start, "'") - start
    return closing_quotes_end(start, run)


def closing_quotes_end(start: Pos, run: int) -> Pos:
    # A multi-line string may end with one or two quotes of its own right before the closing
    # three ("""a"""""), so a run of up to five quotes all belongs to it.
    return start + min(run, 5)


def parse_key(src: str, pos: Pos) -> tuple[Pos, Key | None]:
    """Parse a possibly dotted key and the whitespace after it; None if it is not a key."""
    parts: list[str] = []
    while True:
        pos, part = parse_key_part(src, pos)
        if part is None:
            return pos, None
        parts.append(part)
        pos = skip_chars(src, pos, TOML_WS)
        if not src.startswith(".", pos):
            return pos, tuple(parts)
        pos = skip_chars(src, pos + 1, TOML_WS)


def parse_key_part(src: str, pos: Pos) -> tuple[Pos, str | None]:
    char = src[pos : pos + 1]
    if char == '"':
        end = skip_basic_str(src, pos + 1)
        body = src[pos + 1 : end - 1] if is_closed(src, pos, end) else None
        return end, (None if body is None else unescape(body))
    if char == "'":
        end = skip_literal_str(src, pos + 1)
        return end, (src[pos + 1 : end - 1] if is_closed(src, pos, end) else None)
    end = skip_chars(src, pos, BARE_KEY_CHARS)
    return end, (src[pos:end] if end > pos else None)


def is_closed(src: str, start: Pos, end: Pos) -> bool:
    """Whether the one-line string from `start` to `end` ends with its opening quote."""
    return end >= start + 2 and src[end - 1] == src[start]


def unescape(body: str) -> str:
    """The value of a basic string's body (escapes as TOML 1.1, which tomli 2.5 reads)."""
    return KEY_ESCAPE.sub(unescape_one, body)


def unescape_one(escape: re.Match[str]) -> str:
    code = escape.group(1)
    if len(code) == 1:
        return SIMPLE_ESCAPES.get(code, escape.group())
    codepoint = int(code[1:], 16)
    # tomli rejects code points out of range; keeping the text avoids chr() raising if it did not.
    return chr(codepoint) if codepoint <= MAX_CODEPOINT else escape.group()


def scan_header(src: str, pos: Pos, out: Positions) -> tuple[Pos, KeyPath | None]:
    """Scan a ``[table]`` or ``[[array.of.tables]]`` header; return the table now open."""
    array = src.startswith("[[", pos)
    brackets = 2 if array else 1
    end, key = parse_key(src, skip_chars(src, pos + brackets, TOML_WS))
    if key is None:
        return end, None
    table = out.add_header(key, pos, array=array)
    closing = "]" * brackets
    return (end + brackets if src.startswith(closing, end) else end), table


def scan_key_value(src: str, pos: Pos, out: Positions, table: KeyPath) -> Pos:
    """Scan ``key = value`` under `table`, recording the key and any keys inside the value."""
    key_pos = pos
    pos, key = parse_key(src, pos)
    if key is None or not src.startswith("=", pos):
        return pos
    path = out.add_key(table, key, key_pos)
    return scan_value(src, skip_chars(src, pos + 1, TOML_WS), out, path, 0)


def scan_value(src: str, pos: Pos, out: Positions, path: KeyPath, depth: int) -> Pos:
    """Scan the value of `path`, recording the keys of inline tables inside it."""
    char = src[pos : pos + 1]
    if char == "[" and depth < MAX_NESTING:
        return scan_array(src, pos, out, path, depth + 1)
    if char == "{" and depth < MAX_NESTING:
        return scan_inline_table(src, pos, out, path, depth + 1)
    return skip_value(src, pos)


def scan_array(src: str, pos: Pos, out: Positions, path: KeyPath, depth: int) -> Pos:
    """Scan an array; only its inline-table elements are recorded, under their index."""
    pos = skip_comments_and_ws(src, pos + 1)
    index = 0
    while not src.startswith("]", pos):
        element = (*path, index)
        if src.startswith("{", pos):
            out.lines[element] = out.line(pos)
        pos = scan_value(src, pos, out, element, depth)
        index += 1
        pos = skip_comments_and_ws(src, pos)
        if src.startswith(",", pos):
            pos = skip_comments_and_ws(src, pos + 1)
        elif not src.startswith("]", pos):
            return pos  # not understood: give up on the rest of this array
    return pos + 1


def scan_inline_table(src: str, pos: Pos, out: Positions, path: KeyPath, depth: int) -> Pos:
    """Scan ``{k = v, ...}``, on one line (TOML 1.0) or several (TOML 1.1)."""
    pos = skip_comments_and_ws(src, pos + 1)
    while not src.startswith("}", pos):
        key_pos = pos
        pos, key = parse_key(src, pos)
        if key is None or not src.startswith("=", pos):
            return pos  # not understood: give up on the rest of this table
        value_path = out.add_key(path, key, key_pos)
        pos = scan_value(src, skip_chars(src, pos + 1, TOML_WS), out, value_path, depth)
        pos = skip_comments_and_ws(src, pos)
        if src.startswith(",", pos):
            pos = skip_comments_and_ws(src, pos + 1)
        elif not src.startswith("}", pos):
            return pos
    return pos + 1
