"""The `${...}` grammar: a value's text -> a syntax tree. Nothing here evaluates anything.

`parse(src)` reads a whole value and raises `GrammarError` (its message names the column where
it can); `split_key(key)` reads a key given as a string (the key of `oc.select`, the value of
`k` in `${a.${k}}`) and accepts any text. The grammar is OmegaConf's
(`omegaconf/grammar/OmegaConfGrammar{Lexer,Parser}.g4`, 2.3/2.4), parsed by hand in the tomli
style: `_parse_*` functions take `(src, pos)` and return `(pos, node)`. In EBNF, with `ws` for
spaces and tabs, `{x}` for any number of x and `[x]` for an optional x::

    value         = { text | interpolation }
    interpolation = "${" ws ( reference ws "}" | call )
    reference     = { "." } key_path                    leading dots: relative (see _interp)
    call          = name ws ":" ws items("}")
    name          = name_part { "." name_part }         name_part = ID | interpolation
    key_path      = step { [ "." ] "[" key "]" | "." key }
    step          = key | "[" key "]"
    key           = interpolation | key_char { key_char }
    items(close)  = [ element ] { ws "," ws [ element ] } ws close    an omitted element is ""
    element       = quoted | "[" ws items("]") | dict | primitive
    dict          = "{" ws [ entry { ws "," ws entry } ] ws "}"
    entry         = primitive ws ":" ws element         the key is plain: no `\\`, no `${`
    quoted        = "'" { char | interpolation } "'" | '"' { char | interpolation } '"'
    primitive     = ( primitive_char | "\\" escapable | interpolation ) { ... }

    key_char       any character but \\ { } ( ) [ ] : . ' " space tab
    primitive_char letters, digits, _ - / \\ + . $ % * @ ? | : space tab; whitespace at the
                   end of a primitive belongs to the `,` `]` `}` after it, unless it follows a `:`
    escapable      \\ ( ) [ ] { } : = , space tab (in a primitive, `\\X` is X)
    ID             [A-Za-z_][A-Za-z0-9_-]*

Types: a primitive that is exactly one INT (`-1_000`), FLOAT (`1.5`, `1e3`, `inf`, `nan`), BOOL
(`true`, any case) or NULL (`null`, any case) token is a `Const` of that type, and any other
plain one a `Const` string; a lone interpolation is the `Ref` or `Call` itself, so that its value
keeps its type; everything else (text with interpolations or escapes, quoted elements, a whole
value) is a `Concat`, joined as text. A call with only whitespace between `:` and `}` has no
arguments. `split_key` takes leading dots, then `a.b[c]` split into keys; `\\.` `\\[` `\\]`
`\\=` are literal, and an unclosed `[` drops the rest.

Backslashes: outside quotes, a run of 2n backslashes before `${` stands for n backslashes, and
2n+1 for n backslashes and a literal `${`; elsewhere backslashes are kept as they are
(OmegaConf's TOP_ESC, ESC_INTER and BACKSLASHES). In quotes the same holds before `${` and
before the closing quote character.
"""

from __future__ import annotations

import functools
import re
import string
from typing import Any

from compose._syntax import INTERPOLATION

__all__ = [
    "RESOLVER_NAME",
    "Call",
    "Concat",
    "Const",
    "DictArg",
    "Element",
    "GrammarError",
    "Key",
    "ListArg",
    "Ref",
    "parse",
    "split_key",
    "syntax_message",
]

_WS = " \t"
# Characters that end a key inside `${...}` (OmegaConf's INTER_KEY excludes them).
_KEY_STOP = frozenset("\\{}()[]:. \t'\"")
# Characters of an unquoted resolver argument (OmegaConf's ID, INT, FLOAT, UNQUOTED_CHAR, COLON).
_PRIMITIVE_CHARS = frozenset(string.ascii_letters + string.digits + "_-/\\+.$%*@?|:" + _WS)
# `\X` in an unquoted argument stands for X (OmegaConf's ESC).
_ESCAPABLE = frozenset("\\()[]{}:=, \t")
# Characters escaped by a backslash in a key given as a string (`oc.select`, `${a.${k}}`).
_KEY_ESCAPABLE = frozenset(".[]=")
_ELEMENT_END = ",]}"

RESOLVER_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*(?:\.[A-Za-z_][A-Za-z0-9_\-]*)*")
_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_UINT = r"(?:0|[1-9](?:_?[0-9])*)"
_DIGITS = r"[0-9](?:_?[0-9])*"
_POINT = rf"(?:{_UINT}\.|{_UINT}?\.{_DIGITS})"
_FLOAT = re.compile(
    rf"[+-]?(?:{_POINT}|(?:{_UINT}|{_POINT})[eE][+-]?{_DIGITS}|[iI][nN][fF]|[nN][aA][nN])"
)
_INT = re.compile(rf"[+-]?{_UINT}")
_BOOL = re.compile(r"[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]")
_NULL = re.compile(r"[Nn][Uu][Ll][Ll]")


# --------------------------------------------------------------------------- syntax tree


class Const:
    """A value known when parsing: literal text, or a typed resolver argument (`21`, `null`)."""

    def __init__(self, value: Any) -> None:
        self.value = value


class Concat:
    """Text and interpolations joined as strings (`run-${name}`, a quoted argument)."""

    def __init__(self, parts: tuple[str | Ref | Call, ...]) -> None:
        self.parts = parts


class Key:
    """One key of a reference: text, or an interpolation whose value gives the key (`[k]` if
    `bracketed`)."""

    def __init__(self, part: str | Ref | Call, bracketed: bool) -> None:
        self.part = part
        self.bracketed = bracketed


class Ref:
    """`${a.b}`: `dots` leading dots (0 for an absolute path), then the keys. `plain` is the
    keys as strings when none is an interpolation (most references), else None."""

    def __init__(
        self, dots: int, keys: tuple[Key, ...], text: str, plain: tuple[str, ...] | None
    ) -> None:
        self.dots = dots
        self.keys = keys
        self.text = text
        self.plain = plain


class Call:
    """`${name:args}`: a resolver call; a name part may itself be an interpolation."""

    def __init__(
        self, name: tuple[str | Ref | Call, ...], args: tuple[Element, ...], text: str
    ) -> None:
        self.name = name
        self.args = args
        self.text = text


class ListArg:
    """`[a, b]` as a resolver argument."""

    def __init__(self, items: tuple[Element, ...]) -> None:
        self.items = items


class DictArg:
    """`{k: v}` as a resolver argument: keys are typed constants, values elements."""

    def __init__(self, items: tuple[tuple[Any, Element], ...]) -> None:
        self.items = items


Element = Const | Concat | Ref | Call | ListArg | DictArg


class GrammarError(Exception):
    """Text outside the grammar; `message` says what is wrong (without the text itself)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def syntax_message(error: GrammarError) -> str:
    """What resolution, and `compose check`, say of a value outside the grammar."""
    return f"invalid interpolation syntax: {error.message}"


# --------------------------------------------------------------------------- parser


@functools.lru_cache(maxsize=4096)
def parse(src: str) -> Element:
    """A whole value: text with interpolations; `\\${` is a literal `${`.

    A run of backslashes before `${` is halved; an odd run also escapes the `${`. Backslashes
    anywhere else are kept as they are (OmegaConf's TOP_ESC, ESC_INTER and BACKSLASHES)."""
    try:
        return _parse_text(src)
    except RecursionError:
        raise GrammarError("interpolations nested too deeply") from None
    except ValueError as error:  # an integer argument longer than Python converts
        raise GrammarError(str(error)) from None


def _parse_text(src: str) -> Element:
    parts: list[str | Ref | Call] = []
    text: list[str] = []
    pos = 0
    while (start := src.find(INTERPOLATION, pos)) >= 0:
        slashes = _backslashes_before(src, start, pos)
        text.append(src[pos : start - slashes] + "\\" * (slashes // 2))
        if slashes % 2:
            text.append(INTERPOLATION)
            pos = start + len(INTERPOLATION)
            continue
        _flush(text, parts)
        pos, interp = _parse_interpolation(src, start)
        parts.append(interp)
    text.append(src[pos:])
    _flush(text, parts)
    return _joined(parts)


def _parse_interpolation(src: str, pos: int) -> tuple[int, Ref | Call]:
    """`${` at `pos`: a reference `${.a.b}` or a resolver call `${name:args}`."""
    start = pos
    pos = _skip_ws(src, pos + 2)
    dots = 0
    while src.startswith(".", pos):
        dots += 1
        pos += 1
    pos, keys = _parse_key_path(src, pos)
    end = _skip_ws(src, pos)
    if src.startswith("}", end):
        return end + 1, Ref(dots, keys, src[start : end + 1], _plain(keys))
    if src.startswith(":", end) and not dots and _is_resolver_name(keys):
        pos, args = _parse_sequence(src, _skip_ws(src, end + 1), "}")
        return pos, Call(tuple(key.part for key in keys), args, src[start:pos])
    raise _unexpected(src, end)


def _parse_key_path(src: str, pos: int) -> tuple[int, tuple[Key, ...]]:
    """`a.b[c].d`: keys after dots or in brackets (no whitespace inside)."""
    keys: list[Key] = []
    while True:
        if src.startswith("[", pos):
            pos, part = _parse_key(src, pos + 1)
            if not src.startswith("]", pos):
                raise _unexpected(src, pos)
            keys.append(Key(part, bracketed=True))
            pos += 1
        else:
            pos, part = _parse_key(src, pos)
            keys.append(Key(part, bracketed=False))
        if src.startswith(".", pos):
            pos += 1
        elif not src.startswith("[", pos):
            return pos, tuple(keys)


def _parse_key(src: str, pos: int) -> tuple[int, str | Ref | Call]:
    if src.startswith(INTERPOLATION, pos):
        return _parse_interpolation(src, pos)
    end = pos
    chars: list[str] = []
    while end < len(src):
        if src[end] == "\\" and src[end + 1 : end + 2] in _KEY_ESCAPABLE:
            end += 1  # `${a\.b}`: the key `a.b` (OmegaConf 2.4, and `oc.select`'s keys)
        elif src[end] in _KEY_STOP:
            break
        chars.append(src[end])
        end += 1
    if end == pos:
        raise _unexpected(src, pos)
    return end, "".join(chars)


def _parse_sequence(src: str, pos: int, close: str) -> tuple[int, tuple[Element, ...]]:
    """Comma-separated arguments up to `close`; an empty one (`a,,b`) is "" as in OmegaConf."""
    if src.startswith(close, pos):
        return pos + 1, ()
    items: list[Element] = []
    while True:
        if src.startswith(",", pos):
            items.append(Const(""))
        else:
            pos, item = _parse_element(src, pos)
            items.append(item)
        pos = _skip_ws(src, pos)
        if src.startswith(close, pos):
            return pos + 1, tuple(items)
        if not src.startswith(",", pos):
            raise _unexpected(src, pos)
        pos = _skip_ws(src, pos + 1)
        if src.startswith(close, pos):
            items.append(Const(""))
            return pos + 1, tuple(items)


def _parse_element(src: str, pos: int) -> tuple[int, Element]:
    char = src[pos : pos + 1]
    if char in ("'", '"'):
        return _parse_quoted(src, pos)
    if char == "[":
        pos, items = _parse_sequence(src, _skip_ws(src, pos + 1), "]")
        return pos, ListArg(items)
    if char == "{":
        return _parse_dict(src, pos)
    return _parse_primitive(src, pos)


def _parse_dict(src: str, pos: int) -> tuple[int, DictArg]:
    """`{k: v, ...}`: keys are unquoted and typed like arguments (`{1: a}` has an int key)."""
    pos = _skip_ws(src, pos + 1)
    items: list[tuple[Any, Element]] = []
    if src.startswith("}", pos):
        return pos + 1, DictArg(())
    while True:
        pos, key = _parse_primitive(src, pos, dict_key=True)
        pos = _skip_ws(src, pos)
        if not src.startswith(":", pos) or not isinstance(key, (Const, Concat)):
            raise _unexpected(src, pos)
        if isinstance(key, Concat):  # escaped characters (`{a\:b: 0}`): the key is text
            if not all(isinstance(part, str) for part in key.parts):
                raise _unexpected(src, pos)
            key = Const("".join(str(part) for part in key.parts))
        pos, value = _parse_element(src, _skip_ws(src, pos + 1))
        items.append((key.value, value))
        pos = _skip_ws(src, pos)
        if src.startswith("}", pos):
            return pos + 1, DictArg(tuple(items))
        if not src.startswith(",", pos):
            raise _unexpected(src, pos)
        pos = _skip_ws(src, pos + 1)


def _parse_primitive(src: str, pos: int, *, dict_key: bool = False) -> tuple[int, Element]:
    """An unquoted argument. Whitespace around it belongs to the commas and brackets; alone and
    unescaped it may be typed (`21`, `1.5`, `true`, `null`); else it is text."""
    start = pos
    parts: list[str | Ref | Call] = []
    text: list[str] = []
    plain = True
    stops = _ELEMENT_END + ":" if dict_key else _ELEMENT_END
    while pos < len(src):
        char = src[pos]
        if char in _WS:
            end = _skip_ws(src, pos)
            # Whitespace after a raw `:` is the colon's (OmegaConf's COLON token takes it), so
            # it stays; other trailing whitespace belongs to the `,` `]` `}` that follows.
            after_colon = src[pos - 1] == ":" and not _escaped(src, start, pos - 1)
            if (end == len(src) or src[end] in stops) and not after_colon:
                break
            text.append(src[pos:end])
            pos = end
        elif char == "$" and not dict_key and src.startswith(INTERPOLATION, pos):
            _flush(text, parts)
            pos, interp = _parse_interpolation(src, pos)
            parts.append(interp)
            plain = False
        elif char == "\\" and src[pos + 1 : pos + 2] in _ESCAPABLE:
            text.append(src[pos + 1])
            pos += 2
            plain = False
        elif char in _PRIMITIVE_CHARS and char not in stops:
            text.append(char)
            pos += 1
        else:
            break
    if pos == start:
        raise _unexpected(src, pos)
    if plain:
        return pos, Const(_typed(src[start:pos]))
    _flush(text, parts)
    return pos, _joined(parts)


def _parse_quoted(src: str, pos: int) -> tuple[int, Concat]:
    """`'...'` or `"..."`: always text; `\\'` is a quote, interpolations are joined as text."""
    quote, start = src[pos], pos
    parts: list[str | Ref | Call] = []
    text: list[str] = []
    pos += 1
    while pos < len(src):
        char = src[pos]
        if char == quote:
            _flush(text, parts)
            return pos + 1, Concat(tuple(parts))
        if char == "\\":
            pos = _quoted_backslashes(src, pos, quote, text)
        elif src.startswith(INTERPOLATION, pos):
            _flush(text, parts)
            pos, interp = _parse_interpolation(src, pos)
            parts.append(interp)
        else:
            text.append(char)
            pos += 1
    raise GrammarError(f"missing closing {quote} for the quote at column {start + 1}")


def _quoted_backslashes(src: str, pos: int, quote: str, text: list[str]) -> int:
    """A run of backslashes in quotes: halved before `${` or the quote, which an odd run also
    escapes; kept as it is anywhere else."""
    end = pos
    while src.startswith("\\", end):
        end += 1
    if src.startswith(INTERPOLATION, end):
        follower = INTERPOLATION
    else:
        follower = quote if src.startswith(quote, end) else ""
    if not follower:
        text.append(src[pos:end])
        return end
    count = end - pos
    text.append("\\" * (count // 2))
    if count % 2 == 0:
        return end
    text.append(follower)
    return end + len(follower)


def _typed(text: str) -> Any:
    """An argument that is one INT, FLOAT, BOOL or NULL token gets that type; else it is text."""
    if _FLOAT.fullmatch(text):
        return float(text)
    if _INT.fullmatch(text):
        return int(text)
    if _BOOL.fullmatch(text):
        return text.lower() == "true"
    if _NULL.fullmatch(text):
        return None
    return text


def _plain(keys: tuple[Key, ...]) -> tuple[str, ...] | None:
    parts: list[str] = []
    for key in keys:
        if not isinstance(key.part, str):
            return None
        parts.append(key.part)
    return tuple(parts)


def _is_resolver_name(keys: tuple[Key, ...]) -> bool:
    return all(
        not key.bracketed and (not isinstance(key.part, str) or _ID.fullmatch(key.part))
        for key in keys
    )


def _joined(parts: list[str | Ref | Call]) -> Element:
    """A lone interpolation keeps its value's type; anything else is joined as text."""
    if len(parts) == 1 and not isinstance(parts[0], str):
        return parts[0]
    return Concat(tuple(parts))


def _flush(text: list[str], parts: list[str | Ref | Call]) -> None:
    joined = "".join(text)
    text.clear()
    if joined:
        parts.append(joined)


def _skip_ws(src: str, pos: int) -> int:
    while pos < len(src) and src[pos] in _WS:
        pos += 1
    return pos


def _escaped(src: str, floor: int, index: int) -> bool:
    """Whether the character at `index` follows an odd run of backslashes (since `floor`)."""
    return _backslashes_before(src, index, floor) % 2 == 1


def _backslashes_before(src: str, index: int, floor: int) -> int:
    count = 0
    while index - count > floor and src[index - count - 1] == "\\":
        count += 1
    return count


def _unexpected(src: str, pos: int) -> GrammarError:
    if pos >= len(src):
        return GrammarError(f"unexpected end of text at column {pos + 1}")
    return GrammarError(f"unexpected {src[pos]!r} at column {pos + 1}")


def split_key(key: str) -> tuple[int, list[str]]:
    """A key given as a string (`oc.select`, `${a.${k}}`): leading dots, then `a.b[c]` split
    into keys; `\\.` `\\[` `\\]` `\\=` are literal, and an unclosed `[` drops the rest."""
    dots = len(key) - len(key.lstrip("."))
    pos = dots
    keys: list[str] = []
    if not key.startswith("[", pos):
        pos, part = _read_segment(key, pos, ".[")
        keys.append(part)
    while pos < len(key):
        if key[pos] == ".":
            pos, part = _read_segment(key, pos + 1, ".[")
        else:
            pos, part = _read_segment(key, pos + 1, "]")
            if pos >= len(key):
                break
            pos += 1
        keys.append(part)
    if dots and keys == [""]:
        keys = []
    return dots, keys


def _read_segment(key: str, pos: int, stops: str) -> tuple[int, str]:
    chars: list[str] = []
    while pos < len(key) and key[pos] not in stops:
        if key[pos] == "\\" and key[pos + 1 : pos + 2] in _KEY_ESCAPABLE:
            pos += 1
        chars.append(key[pos])
        pos += 1
    return pos, "".join(chars)
